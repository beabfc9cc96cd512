/* png.c: the PNG writer of png.h (the PNG specification, ISO/IEC 15948:
 * signature, IHDR, one IDAT, IEND; each chunk's CRC-32 over its type and
 * data; the image data a zlib stream of the filtered rows). */
#include "png.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io.h"

static void put32(unsigned char *p, unsigned long v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Appends the chunk `type` with len bytes of data at out + *at. */
static void chunk(unsigned char *out, size_t *at, const char *type, const unsigned char *data, size_t len)
{
    unsigned char *p = out + *at;
    put32(p, (unsigned long)len);
    memcpy(p + 4, type, 4);
    if (len)
        memcpy(p + 8, data, len);
    put32(p + 8 + len, crc32(0L, p + 4, (uInt)(len + 4)));
    *at += len + 12;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

unsigned char *fl_png_encode(const fl_image *im, size_t *len)
{
    const size_t row = 3 * (size_t)im->w + 1, raw_len = row * (size_t)im->h;
    unsigned char *raw = malloc(raw_len);
    uLongf zlen = compressBound((uLong)raw_len);
    unsigned char *z = malloc(zlen), *out = malloc(zlen + 64);
    if (!raw || !z || !out) {
        free(raw);
        free(z);
        free(out);
        return NULL;
    }
    for (int y = 0; y < im->h; y++) {
        const unsigned char *cur = im->rgb + 3 * (size_t)y * im->w, *up = y ? cur - 3 * (size_t)im->w : NULL;
        unsigned char *r = raw + row * (size_t)y;
        r[0] = 4; /* Paeth */
        for (int i = 0; i < 3 * im->w; i++) {
            int a = i >= 3 ? cur[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
            r[1 + i] = (unsigned char)(cur[i] - paeth(a, b, c));
        }
    }
    int rc = compress2(z, &zlen, raw, (uLong)raw_len, 6);
    free(raw);
    if (rc != Z_OK) {
        free(z);
        free(out);
        return NULL;
    }
    static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    unsigned char ihdr[13];
    put32(ihdr, (unsigned long)im->w);
    put32(ihdr + 4, (unsigned long)im->h);
    ihdr[8] = 8;  /* bits a channel */
    ihdr[9] = 2;  /* truecolour */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* no interlace */
    size_t at = 8;
    memcpy(out, signature, 8);
    chunk(out, &at, "IHDR", ihdr, sizeof ihdr);
    chunk(out, &at, "IDAT", z, zlen);
    chunk(out, &at, "IEND", NULL, 0);
    free(z);
    *len = at;
    return out;
}

typedef struct png_bytes {
    const unsigned char *p;
    size_t len;
} png_bytes;

static int write_bytes(FILE *f, const void *data)
{
    const png_bytes *b = data;
    return fwrite(b->p, 1, b->len, f) == b->len ? 0 : -1;
}

int fl_png_write(const char *path, const fl_image *im, fl_error *err)
{
    png_bytes b;
    unsigned char *p = fl_png_encode(im, &b.len);
    if (!p)
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for a PNG of %d x %d pixels", path, im->w, im->h);
    b.p = p;
    int rc = fl_write_whole(path, write_bytes, &b, err);
    free(p);
    return rc;
}
