/* io.c: particle output (io.h): binary frames and ASCII legacy VTK.
 *
 * Binary frames are encoded byte by byte in little-endian order, whatever
 * the host's byte order, from the bit patterns of the IEEE 754 floats
 * (copied with memcpy, so no aliasing tricks). The layout is documented in
 * io.h and docs/file_formats.md. A write that fails part-way removes what
 * it wrote, so a run never leaves half a frame behind. Library code: no
 * printing, errors go to fl_error. */
#include "io.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The frame stores IEEE 754 binary32/binary64 bit patterns. */
_Static_assert(sizeof(float) == 4 && FLT_MANT_DIG == 24, "float must be IEEE 754 binary32");
_Static_assert(sizeof(double) == 8 && DBL_MANT_DIG == 53, "double must be IEEE 754 binary64");

/* Records are encoded and decoded this many at a time. */
#define CHUNK_RECORDS 1024

/* ---- little-endian encoding -------------------------------------------- */

static void put_u32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v & 0xffu);
    b[1] = (unsigned char)((v >> 8) & 0xffu);
    b[2] = (unsigned char)((v >> 16) & 0xffu);
    b[3] = (unsigned char)((v >> 24) & 0xffu);
}

static void put_u64(unsigned char *b, uint64_t v)
{
    put_u32(b, (uint32_t)(v & 0xffffffffu));
    put_u32(b + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const unsigned char *b)
{
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
           ((uint32_t)b[3] << 24);
}

static uint64_t get_u64(const unsigned char *b)
{
    return (uint64_t)get_u32(b) | ((uint64_t)get_u32(b + 4) << 32);
}

static void put_f32(unsigned char *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(b, u);
}

static float get_f32(const unsigned char *b)
{
    uint32_t u = get_u32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- shared helpers ---------------------------------------------------- */

static const char *errno_text(int e)
{
    return e != 0 ? strerror(e) : "unknown error";
}

/* Arguments a writer can check before touching the file system. */
static int check_store(const char *path, const fl_particles *p, int need_fields, fl_error *err)
{
    if (path == NULL || p == NULL)
        return fl_fail(err, FL_ERR_INPUT, "frame output: path or particle store is NULL");
    if (p->count < 0)
        return fl_fail(err, FL_ERR_INPUT, "%s: particle count %d is negative", path, p->count);
    if (p->count == 0)
        return FL_OK;
    if (p->x == NULL || p->y == NULL || p->z == NULL)
        return fl_fail(err, FL_ERR_INPUT, "%s: particle store has no position arrays", path);
    if (need_fields && (p->vx == NULL || p->vy == NULL || p->vz == NULL || p->rho == NULL ||
                        p->p == NULL))
        return fl_fail(err, FL_ERR_INPUT,
                       "%s: particle store has no velocity, density or pressure arrays", path);
    return FL_OK;
}

static FILE *open_for_writing(const char *path, fl_error *err)
{
    errno = 0;
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        fl_fail(err, FL_ERR_IO, "%s: cannot open for writing: %s", path, errno_text(errno));
        return NULL;
    }
    /* A larger buffer: frames are written in one pass, often many of them. */
    setvbuf(f, NULL, _IOFBF, (size_t)1 << 16);
    return f;
}

/* Closes f and reports whether everything written reached the file: a
 * full disk often shows only when the last buffer is flushed. */
static int close_written(FILE *f, const char *path, fl_error *err)
{
    int failed = ferror(f);
    errno = 0;
    if (fclose(f) != 0 || failed) {
        int e = errno;
        remove(path);
        return fl_fail(err, FL_ERR_IO, "%s: write failed: %s", path, errno_text(e));
    }
    return FL_OK;
}

/* Abandons a write that failed part-way: closes and removes the file. */
static int abandon_write(FILE *f, const char *path, int e, fl_error *err)
{
    fclose(f);
    remove(path);
    return fl_fail(err, FL_ERR_IO, "%s: write failed: %s", path, errno_text(e));
}

/* ---- binary frames ----------------------------------------------------- */

int fl_frame_write_bin(const char *path, const fl_particles *p, double time, fl_error *err)
{
    int rc = check_store(path, p, 0, err);
    if (rc != FL_OK)
        return rc;

    unsigned char header[FL_FRAME_HEADER_BYTES];
    uint64_t time_bits;
    memcpy(&time_bits, &time, sizeof time_bits);
    memcpy(header, FL_FRAME_MAGIC, 8);
    put_u32(header + 8, FL_FRAME_VERSION);
    put_u32(header + 12, (uint32_t)p->count);
    put_u64(header + 16, time_bits);
    put_u32(header + 24, FL_FRAME_RECORD_BYTES);
    put_u32(header + 28, 0u);

    FILE *f = open_for_writing(path, err);
    if (f == NULL)
        return FL_ERR_IO;

    errno = 0;
    if (fwrite(header, 1, sizeof header, f) != sizeof header)
        return abandon_write(f, path, errno, err);

    unsigned char buf[CHUNK_RECORDS * FL_FRAME_RECORD_BYTES];
    for (int start = 0; start < p->count; start += CHUNK_RECORDS) {
        int n = p->count - start < CHUNK_RECORDS ? p->count - start : CHUNK_RECORDS;
        for (int k = 0; k < n; k++) {
            unsigned char *r = buf + (size_t)k * FL_FRAME_RECORD_BYTES;
            put_f32(r, p->x[start + k]);
            put_f32(r + 4, p->y[start + k]);
            put_f32(r + 8, p->z[start + k]);
        }
        size_t bytes = (size_t)n * FL_FRAME_RECORD_BYTES;
        errno = 0;
        if (fwrite(buf, 1, bytes, f) != bytes)
            return abandon_write(f, path, errno, err);
    }
    return close_written(f, path, err);
}

/* Read failure: a read error is FL_ERR_IO, a short file is bad content. */
static int read_failed(FILE *f, const char *path, const char *what, fl_error *err)
{
    int io_error = ferror(f);
    int e = errno;
    fclose(f);
    if (io_error)
        return fl_fail(err, FL_ERR_IO, "%s: read error: %s", path, errno_text(e));
    return fl_fail(err, FL_ERR_INPUT, "%s: not a valid fluidlab frame: %s", path, what);
}

int fl_frame_read_bin(const char *path, fl_particles *out, double *time, fl_error *err)
{
    if (path == NULL || out == NULL)
        return fl_fail(err, FL_ERR_INPUT, "frame input: path or particle store is NULL");

    errno = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fl_fail(err, FL_ERR_IO, "%s: cannot open for reading: %s", path,
                       errno_text(errno));

    unsigned char header[FL_FRAME_HEADER_BYTES];
    errno = 0;
    if (fread(header, 1, sizeof header, f) != sizeof header)
        return read_failed(f, path, "shorter than the 32-byte header", err);
    if (memcmp(header, FL_FRAME_MAGIC, 8) != 0) {
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT,
                       "%s: not a fluidlab frame (the file does not start with \"%s\")", path,
                       FL_FRAME_MAGIC);
    }
    uint32_t version = get_u32(header + 8);
    uint32_t count = get_u32(header + 12);
    uint64_t time_bits = get_u64(header + 16);
    uint32_t record = get_u32(header + 24);
    if (version != FL_FRAME_VERSION) {
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT, "%s: frame version %lu, this build reads version %u",
                       path, (unsigned long)version, FL_FRAME_VERSION);
    }
    if (record != FL_FRAME_RECORD_BYTES) {
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT, "%s: %lu bytes per particle, expected %d", path,
                       (unsigned long)record, FL_FRAME_RECORD_BYTES);
    }
    if (count > (uint32_t)INT_MAX) {
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT, "%s: particle count %lu is more than a store holds",
                       path, (unsigned long)count);
    }

    /* Read into a new store, grown as records arrive: a corrupt count in the
     * header then costs a short read, not a huge allocation, and *out stays
     * as it was on any failure. */
    int n = (int)count;
    fl_particles tmp = {0};
    unsigned char buf[CHUNK_RECORDS * FL_FRAME_RECORD_BYTES];
    while (tmp.count < n) {
        int want = n - tmp.count < CHUNK_RECORDS ? n - tmp.count : CHUNK_RECORDS;
        if (tmp.count + want > tmp.capacity) {
            long long cap = tmp.capacity < 65536 ? 65536 : 2LL * tmp.capacity;
            if (cap > n)
                cap = n;
            if (fl_particles_reserve(&tmp, (int)cap, err) != FL_OK) {
                fl_particles_free(&tmp);
                fclose(f);
                return fl_fail(err, FL_ERR_MEMORY, "%s: no memory for %d particles", path, n);
            }
        }
        errno = 0;
        size_t got = fread(buf, FL_FRAME_RECORD_BYTES, (size_t)want, f);
        for (size_t k = 0; k < got; k++) {
            const unsigned char *r = buf + k * FL_FRAME_RECORD_BYTES;
            int i = tmp.count + (int)k;
            tmp.x[i] = tmp.px[i] = get_f32(r);
            tmp.y[i] = tmp.py[i] = get_f32(r + 4);
            tmp.z[i] = tmp.pz[i] = get_f32(r + 8);
            tmp.vx[i] = tmp.vy[i] = tmp.vz[i] = 0.0f;
            tmp.rho[i] = tmp.p[i] = 0.0f;
        }
        tmp.count += (int)got;
        if (got != (size_t)want) {
            char what[96];
            snprintf(what, sizeof what, "the header says %d particles, the file holds %d", n,
                     tmp.count);
            fl_particles_free(&tmp);
            return read_failed(f, path, what, err);
        }
    }
    errno = 0;
    if (fgetc(f) != EOF) {
        fl_particles_free(&tmp);
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT,
                       "%s: not a valid fluidlab frame: longer than 32 + 12 x %d bytes", path, n);
    }
    if (ferror(f)) {
        fl_particles_free(&tmp);
        return read_failed(f, path, "", err);
    }
    fclose(f);

    fl_particles_free(out);
    *out = tmp;
    if (time != NULL)
        memcpy(time, &time_bits, sizeof *time);
    return FL_OK;
}

/* ---- legacy VTK -------------------------------------------------------- */

/* VTK's ASCII readers (9.1 at least) stop at "nan" or "inf" and drop the
 * rest of the file, and a blown-up frame is exactly the one a user wants to
 * look at: non-finite values are written as +-FLT_MAX (NaN as +FLT_MAX),
 * which every reader parses and which stands out in any range or plot.
 * The binary frames keep the exact bits. */
static double vtk_value(float v)
{
    if (isnan(v))
        return FLT_MAX;
    if (isinf(v))
        return v > 0.0f ? FLT_MAX : -FLT_MAX;
    return (double)v;
}

/* One value a line. Returns 0 on success, -1 on a write error. */
static int write_column(FILE *f, const float *a, int n)
{
    for (int i = 0; i < n; i++)
        if (fprintf(f, "%.9g\n", vtk_value(a[i])) < 0)
            return -1;
    return 0;
}

/* Three columns a line (points, velocities). */
static int write_vectors(FILE *f, const float *a, const float *b, const float *c, int n)
{
    for (int i = 0; i < n; i++)
        if (fprintf(f, "%.9g %.9g %.9g\n", vtk_value(a[i]), vtk_value(b[i]),
                    vtk_value(c[i])) < 0)
            return -1;
    return 0;
}

int fl_frame_write_vtk(const char *path, const fl_particles *p, double time, fl_error *err)
{
    int rc = check_store(path, p, 1, err);
    if (rc != FL_OK)
        return rc;
    int n = p->count;

    FILE *f = open_for_writing(path, err);
    if (f == NULL)
        return FL_ERR_IO;

    errno = 0;
    /* Field data TIME on the dataset is how ParaView and VisIt read the
     * time of a legacy VTK file. */
    if (fprintf(f,
                "# vtk DataFile Version 3.0\n"
                "fluidlab frame: %d particles, t = %.9g s\n"
                "ASCII\n"
                "DATASET POLYDATA\n"
                "FIELD FieldData 1\n"
                "TIME 1 1 double\n"
                "%.17g\n"
                "POINTS %d float\n",
                n, time, isfinite(time) ? time : DBL_MAX, n) < 0)
        return abandon_write(f, path, errno, err);
    if (write_vectors(f, p->x, p->y, p->z, n) != 0)
        return abandon_write(f, path, errno, err);

    /* One vertex cell per particle, so that ParaView draws the points. */
    if (fprintf(f, "VERTICES %d %lld\n", n, 2LL * n) < 0)
        return abandon_write(f, path, errno, err);
    for (int i = 0; i < n; i++)
        if (fprintf(f, "1 %d\n", i) < 0)
            return abandon_write(f, path, errno, err);

    if (fprintf(f, "POINT_DATA %d\nVECTORS velocity float\n", n) < 0 ||
        write_vectors(f, p->vx, p->vy, p->vz, n) != 0)
        return abandon_write(f, path, errno, err);
    /* Density is the active scalar array; pressure follows as a point field
     * array, as VTK's own writer does with a second array: VTK readers read
     * only the first SCALARS section unless told to read them all. */
    if (fprintf(f, "SCALARS density float 1\nLOOKUP_TABLE default\n") < 0 ||
        write_column(f, p->rho, n) != 0 ||
        fprintf(f, "FIELD FieldData 1\npressure 1 %d float\n", n) < 0 ||
        write_column(f, p->p, n) != 0)
        return abandon_write(f, path, errno, err);

    return close_written(f, path, err);
}
