/* test_render.c: the pictures' rasteriser and PNG writer (plots/raster.h,
 * plots/png.h).
 *
 *  1. A sphere's silhouette: a triangulated sphere of radius R (an
 *     icosahedron subdivided four times, 5 120 triangles) drawn with
 *     fl_raster_triangles, and one sphere drawn with fl_raster_spheres,
 *     cover pi (R s)^2 pixels (s the camera's pixels a metre) within 1 %
 *     (the polygon's inscribed area is 0.2 % short of the circle's).
 *  2. Depth: of two overlapping triangles the nearer is seen, whichever is
 *     drawn first.
 *  3. Light: the sphere is brighter on the side towards the light (up and
 *     left) than on the opposite side, and no pixel of it is black.
 *  4. PNG: the file's signature, IHDR (size, 8-bit truecolour), every
 *     chunk's CRC-32, and its image data inflated and unfiltered give the
 *     image's bytes back exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ensure.h"
#include "png.h"
#include "raster.h"

static const float blue[3] = {0.2f, 0.5f, 0.9f};

/* An icosphere of radius r: vertices pos (3 nv), triangles tri (3 nt). */
typedef struct sphere_mesh {
    float *pos;
    int *tri;
    int nv, nt;
} sphere_mesh;

static int midpoint(sphere_mesh *m, int a, int b, float r)
{
    float p[3];
    double n = 0.0;
    for (int k = 0; k < 3; k++) {
        p[k] = 0.5f * (m->pos[3 * a + k] + m->pos[3 * b + k]);
        n += (double)p[k] * p[k];
    }
    for (int k = 0; k < 3; k++)
        m->pos[3 * m->nv + k] = (float)(p[k] * r / sqrt(n));
    return m->nv++;
}

static void icosphere(sphere_mesh *m, float r, int levels)
{
    const float t = (float)((1.0 + sqrt(5.0)) / 2.0);
    const float v[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                            {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const int f[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                          {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                          {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    int cap_t = 20 << (2 * levels), cap_v = 12 + 3 * cap_t;
    m->pos = malloc(sizeof(float) * 3 * (size_t)cap_v);
    m->tri = malloc(sizeof(int) * 3 * (size_t)cap_t);
    m->nv = 12, m->nt = 20;
    const double len = sqrt(1.0 + (double)t * t);
    for (int k = 0; k < 12; k++)
        for (int a = 0; a < 3; a++)
            m->pos[3 * k + a] = (float)(v[k][a] * r / len);
    memcpy(m->tri, f, sizeof f);
    for (int l = 0; l < levels; l++) {
        int *next = malloc(sizeof(int) * 3 * 4 * (size_t)m->nt);
        for (int k = 0; k < m->nt; k++) {
            const int *q = m->tri + 3 * k;
            int ab = midpoint(m, q[0], q[1], r), bc = midpoint(m, q[1], q[2], r), ca = midpoint(m, q[2], q[0], r);
            const int out[4][3] = {{q[0], ab, ca}, {q[1], bc, ab}, {q[2], ca, bc}, {ab, bc, ca}};
            memcpy(next + 12 * k, out, sizeof out);
        }
        free(m->tri);
        m->tri = next;
        m->nt *= 4;
    }
}

static int covered(const fl_image *im)
{
    int n = 0;
    for (int k = 0; k < im->w * im->h; k++)
        n += isfinite(im->depth[k]);
    return n;
}

static double brightness(const fl_image *im, int x, int y)
{
    const unsigned char *p = im->rgb + 3 * ((size_t)y * im->w + x);
    return p[0] + p[1] + p[2];
}

static void silhouettes(void)
{
    const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    const float r = 0.8f;
    fl_camera c;
    fl_image im;
    fl_error err;
    fl_camera_frame(&c, lo, hi, 30.0, 20.0, 400, 400);
    const double expect = 3.14159265358979 * (r * c.scale) * (r * c.scale);
    sphere_mesh m;
    icosphere(&m, r, 4);
    ENSURE(fl_image_init(&im, 400, 400, &err) == FL_OK);
    ENSURE(fl_raster_triangles(&im, &c, m.pos, NULL, m.nv, m.tri, m.nt, blue, &err) == FL_OK);
    const int mesh = covered(&im);
    /* the light: up and left of the viewer; the sphere's centre is the image's */
    const int cx = 200, cy = 200, o = (int)(0.5 * r * c.scale);
    const double lit = brightness(&im, cx - o, cy - o), dark = brightness(&im, cx + o, cy + o);
    int black = 0;
    for (int k = 0; k < im.w * im.h; k++)
        black += isfinite(im.depth[k]) && im.rgb[3 * k] + im.rgb[3 * k + 1] + im.rgb[3 * k + 2] == 0;
    fl_image_free(&im);
    ENSURE(fl_image_init(&im, 400, 400, &err) == FL_OK);
    const float zero = 0.0f;
    fl_raster_spheres(&im, &c, &zero, &zero, &zero, 1, r, blue);
    const int disc = covered(&im);
    fl_image_free(&im);
    printf("silhouette of a sphere of %.1f px radius: mesh (%d triangles) %d px, disc %d px, pi r^2 %.0f px: "
           "%+.2f %%, %+.2f %% (tolerance 1 %%); brightness towards the light %.0f, away %.0f\n",
           r * c.scale, m.nt, mesh, disc, expect, 100.0 * (mesh / expect - 1.0), 100.0 * (disc / expect - 1.0), lit,
           dark);
    ENSURE(fabs(mesh / expect - 1.0) < 0.01);
    ENSURE(fabs(disc / expect - 1.0) < 0.01);
    ENSURE(lit > dark + 60.0);
    ENSURE(black == 0);
    free(m.pos);
    free(m.tri);
}

static void depth_order(void)
{
    const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    /* looking along -z: a larger z is nearer */
    const float pos[18] = {-1, -1, 0.5f, 1, -1, 0.5f, 0, 1, 0.5f, -1, -1, -0.5f, 1, -1, -0.5f, 0, 1, -0.5f};
    const int near_tri[3] = {0, 1, 2}, far_tri[3] = {3, 4, 5};
    const float red[3] = {1, 0, 0}, green[3] = {0, 1, 0};
    for (int order = 0; order < 2; order++) {
        fl_camera c;
        fl_image im;
        fl_error err;
        fl_camera_frame(&c, lo, hi, 0.0, 0.0, 64, 64);
        ENSURE(fl_image_init(&im, 64, 64, &err) == FL_OK);
        for (int k = 0; k < 2; k++) {
            const int near = k == order;
            ENSURE(fl_raster_triangles(&im, &c, pos, NULL, 6, near ? near_tri : far_tri, 1, near ? red : green,
                                       &err) == FL_OK);
        }
        const unsigned char *p = im.rgb + 3 * (32 * 64 + 32);
        printf("depth, %s drawn first: the centre pixel is (%d, %d, %d)\n", order ? "far" : "near", p[0], p[1],
               p[2]);
        ENSURE(p[0] > 0 && p[1] == 0);
        fl_image_free(&im);
    }
}

static unsigned long get32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static void png_round_trip(void)
{
    fl_image im;
    fl_error err;
    const int w = 37, h = 23;
    ENSURE(fl_image_init(&im, w, h, &err) == FL_OK);
    unsigned state = 12345;
    for (int k = 0; k < 3 * w * h; k++) {
        state = state * 1103515245u + 12345u;
        im.rgb[k] = (unsigned char)(k % 7 == 0 ? (int)(state >> 16) : im.rgb[k] + k);
    }
    size_t len = 0;
    unsigned char *png = fl_png_encode(&im, &len);
    ENSURE(png != NULL);
    static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    ENSURE(len > 8 && memcmp(png, signature, 8) == 0);
    unsigned char *zdata = NULL;
    size_t zlen = 0, at = 8;
    int chunks = 0, crc_ok = 1, ihdr_ok = 0, iend = 0;
    while (at + 12 <= len) {
        const size_t n = get32(png + at);
        if (at + 12 + n > len)
            break;
        const unsigned char *type = png + at + 4;
        crc_ok &= crc32(0L, type, (uInt)(n + 4)) == get32(png + at + 8 + n);
        if (!memcmp(type, "IHDR", 4))
            ihdr_ok = n == 13 && get32(type + 4) == (unsigned long)w && get32(type + 8) == (unsigned long)h &&
                      type[12] == 8 && type[13] == 2;
        if (!memcmp(type, "IDAT", 4)) {
            zdata = realloc(zdata, zlen + n);
            memcpy(zdata + zlen, type + 4, n);
            zlen += n;
        }
        iend |= !memcmp(type, "IEND", 4);
        chunks++;
        at += 12 + n;
    }
    const size_t row = 3 * (size_t)w + 1;
    uLongf rawlen = row * h;
    unsigned char *raw = malloc(rawlen), *back = malloc(3 * (size_t)w * h);
    const int inflated = zdata && uncompress(raw, &rawlen, zdata, (uLong)zlen) == Z_OK && rawlen == row * h;
    int same = inflated;
    for (int y = 0; same && y < h; y++) {
        const unsigned char *r = raw + row * y;
        unsigned char *cur = back + 3 * (size_t)y * w, *up = y ? cur - 3 * w : NULL;
        same = r[0] == 4;
        for (int i = 0; same && i < 3 * w; i++) {
            int a = i >= 3 ? cur[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0;
            cur[i] = (unsigned char)(r[1 + i] + paeth(a, b, c));
        }
    }
    same = same && memcmp(back, im.rgb, 3 * (size_t)w * h) == 0;
    printf("png: %zu bytes, %d chunks, CRCs %s, IHDR %s, IEND %s, image data %s\n", len, chunks, crc_ok ? "ok" : "bad",
           ihdr_ok ? "ok" : "bad", iend ? "there" : "missing", same ? "read back exactly" : "differs");
    ENSURE(crc_ok && ihdr_ok && iend && at == len);
    ENSURE(same);
    free(raw);
    free(back);
    free(zdata);
    free(png);
    fl_image_free(&im);
}

int main(void)
{
    silhouettes();
    depth_order();
    png_round_trip();
    return fl_test_report("test_render");
}
