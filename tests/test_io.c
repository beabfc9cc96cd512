/* test_io.c: particle output (particles/io.h) in a scratch folder under /tmp.
 *
 *  - binary frames: file length 32 + 12 n, little-endian header bytes,
 *    bit-identical positions and time read back, empty frames, and the
 *    reader's rejection of foreign, truncated or over-long files;
 *  - legacy VTK: the header, POINTS/VERTICES/POINT_DATA sections and the
 *    first coordinates; NaN/Inf kept exactly in binary, +-FLT_MAX in VTK;
 *  - errors: a path in a missing folder fails with FL_ERR_IO naming the path,
 *    and a write that fails part-way (file size limit) leaves no file. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ensure.h"
#include "io.h"

static char scratch[64];

static void path_in_scratch(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", scratch, name);
}

/* Whole file into a malloc'd buffer (NUL-terminated); *len its length. */
static unsigned char *slurp(const char *path, long *len)
{
    *len = -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            data = malloc((size_t)n + 1);
            if (data && fread(data, 1, (size_t)n, f) == (size_t)n) {
                data[n] = 0;
                *len = n;
            } else {
                free(data);
                data = NULL;
            }
        }
    }
    fclose(f);
    return data;
}

static int file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static void write_bytes(const char *path, const unsigned char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ENSURE(f != NULL);
    if (f) {
        ENSURE(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A few particles with awkward values: negative, tiny, large, -0. */
static void make_particles(fl_particles *p)
{
    static const float xyz[][3] = {{0.0f, 0.0f, 0.0f},        {1.5f, -2.25f, 3.125f},
                                   {1e-30f, -1e30f, 0.1f},    {-0.0f, 123456.789f, -7.0e-3f},
                                   {0.3333333f, 0.6666667f, 1.0f}};
    fl_error err = {{0}};
    for (int i = 0; i < 5; i++) {
        ENSURE(fl_particles_add(p, xyz[i][0], xyz[i][1], xyz[i][2], &err) == FL_OK);
        p->vx[i] = 0.5f * (float)i;
        p->vy[i] = -1.0f;
        p->vz[i] = 2.0f;
        p->rho[i] = 1000.0f + (float)i;
        p->p[i] = 250.5f * (float)i;
    }
}

static void test_bin_round_trip(const fl_particles *p)
{
    char path[128];
    path_in_scratch(path, sizeof path, "frame.bin");
    fl_error err = {{0}};
    double time = 1.0 / 3.0;
    ENSURE(fl_frame_write_bin(path, p, time, &err) == FL_OK);

    long len;
    unsigned char *raw = slurp(path, &len);
    ENSURE(raw != NULL);
    ENSURE(len == 32 + 12L * p->count);
    if (raw && len >= 32 + 12) {
        ENSURE(memcmp(raw, "FLFRAME1", 8) == 0);
        static const unsigned char version_le[4] = {0x01, 0x00, 0x00, 0x00};
        ENSURE(memcmp(raw + 8, version_le, 4) == 0);
        ENSURE(raw[12] == (unsigned char)p->count && raw[13] == 0 && raw[14] == 0 && raw[15] == 0);
        uint64_t bits = (uint64_t)le32(raw + 16) | (uint64_t)le32(raw + 20) << 32;
        double t;
        memcpy(&t, &bits, sizeof t);
        ENSURE(t == time);
        ENSURE(le32(raw + 24) == 12);
        ENSURE(le32(raw + 28) == 0);
        /* 1/3 s as binary64 is 0x3FD5555555555555: low byte first. */
        ENSURE(raw[16] == 0x55 && raw[23] == 0x3f);
        /* Second particle's x = 1.5f = 0x3FC00000, little-endian. */
        ENSURE(raw[44] == 0x00 && raw[45] == 0x00 && raw[46] == 0xc0 && raw[47] == 0x3f);
    }
    free(raw);

    fl_particles q = {0};
    double t = -1.0;
    ENSURE(fl_frame_read_bin(path, &q, &t, &err) == FL_OK);
    ENSURE(t == time);
    ENSURE(q.count == p->count);
    if (q.count == p->count) {
        size_t bytes = (size_t)p->count * sizeof(float);
        ENSURE(memcmp(q.x, p->x, bytes) == 0); /* bitwise: -0 stays -0 */
        ENSURE(memcmp(q.y, p->y, bytes) == 0);
        ENSURE(memcmp(q.z, p->z, bytes) == 0);
        ENSURE(memcmp(q.px, p->x, bytes) == 0);
        int rest = 1;
        for (int i = 0; i < q.count; i++)
            rest &= q.vx[i] == 0.0f && q.vy[i] == 0.0f && q.vz[i] == 0.0f && q.rho[i] == 0.0f &&
                    q.p[i] == 0.0f;
        ENSURE(rest);
    }

    /* Reading into a store that already holds particles replaces them;
     * time may be NULL. */
    ENSURE(fl_particles_add(&q, 9.0f, 9.0f, 9.0f, &err) == FL_OK);
    ENSURE(fl_frame_read_bin(path, &q, NULL, &err) == FL_OK);
    ENSURE(q.count == p->count);
    fl_particles_free(&q);
    remove(path);
}

/* More particles than one internal chunk, and an empty frame. */
static void test_bin_sizes(void)
{
    char path[128];
    path_in_scratch(path, sizeof path, "big.bin");
    fl_error err = {{0}};
    fl_particles p = {0};
    int n = 5000, added = 1;
    for (int i = 0; i < n; i++)
        added &= fl_particles_add(&p, 0.001f * (float)i, (float)(i % 7), -(float)i, &err) == FL_OK;
    ENSURE(added);
    ENSURE(fl_frame_write_bin(path, &p, 2.5, &err) == FL_OK);
    fl_particles q = {0};
    double t = 0.0;
    ENSURE(fl_frame_read_bin(path, &q, &t, &err) == FL_OK);
    ENSURE(q.count == n && t == 2.5);
    if (q.count == n) {
        ENSURE(memcmp(q.x, p.x, (size_t)n * sizeof(float)) == 0);
        ENSURE(memcmp(q.y, p.y, (size_t)n * sizeof(float)) == 0);
        ENSURE(memcmp(q.z, p.z, (size_t)n * sizeof(float)) == 0);
    }

    fl_particles empty = {0};
    ENSURE(fl_frame_write_bin(path, &empty, 0.0, &err) == FL_OK);
    long len;
    unsigned char *raw = slurp(path, &len);
    ENSURE(len == 32);
    free(raw);
    ENSURE(fl_frame_read_bin(path, &q, &t, &err) == FL_OK);
    ENSURE(q.count == 0 && t == 0.0);

    fl_particles_free(&q);
    fl_particles_free(&p);
    remove(path);
}

/* The reader rejects what is not a version 1 frame and leaves out as it was. */
static void test_bin_rejects(const fl_particles *p)
{
    char good[128], bad[128];
    path_in_scratch(good, sizeof good, "good.bin");
    path_in_scratch(bad, sizeof bad, "bad.bin");
    fl_error err = {{0}};
    ENSURE(fl_frame_write_bin(good, p, 0.25, &err) == FL_OK);
    long len;
    unsigned char *raw = slurp(good, &len);
    ENSURE(raw != NULL && len == 32 + 12L * p->count);
    if (!raw)
        return;
    unsigned char *copy = malloc((size_t)len + 1);

    fl_particles q = {0};
    ENSURE(fl_particles_add(&q, 7.0f, 8.0f, 9.0f, &err) == FL_OK);
    double t = 42.0;

    /* wrong magic */
    memcpy(copy, raw, (size_t)len);
    copy[0] = 'X';
    write_bytes(bad, copy, (size_t)len);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, bad) != NULL);

    /* wrong version */
    memcpy(copy, raw, (size_t)len);
    copy[8] = 2;
    write_bytes(bad, copy, (size_t)len);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);

    /* wrong record size */
    memcpy(copy, raw, (size_t)len);
    copy[24] = 16;
    write_bytes(bad, copy, (size_t)len);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);

    /* truncated records, truncated header, one byte too many */
    write_bytes(bad, raw, (size_t)len - 1);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);
    write_bytes(bad, raw, 20);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);
    memcpy(copy, raw, (size_t)len);
    copy[len] = 0;
    write_bytes(bad, copy, (size_t)len + 1);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);

    /* a count far beyond the file: a short read, not a huge allocation */
    memcpy(copy, raw, (size_t)len);
    copy[12] = copy[13] = copy[14] = 0xff;
    copy[15] = 0x7f;
    write_bytes(bad, copy, (size_t)len);
    ENSURE(fl_frame_read_bin(bad, &q, &t, &err) == FL_ERR_INPUT);

    /* missing file */
    char missing[128];
    path_in_scratch(missing, sizeof missing, "missing.bin");
    ENSURE(fl_frame_read_bin(missing, &q, &t, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, missing) != NULL);

    /* none of the failures touched the store or the time */
    ENSURE(q.count == 1 && q.x[0] == 7.0f && t == 42.0);

    fl_particles_free(&q);
    free(copy);
    free(raw);
    remove(good);
    remove(bad);
}

static void test_vtk(const fl_particles *p)
{
    char path[128];
    path_in_scratch(path, sizeof path, "frame.vtk");
    fl_error err = {{0}};
    ENSURE(fl_frame_write_vtk(path, p, 0.5, &err) == FL_OK);
    long len;
    char *text = (char *)slurp(path, &len);
    ENSURE(text != NULL && len > 0);
    if (!text)
        return;
    ENSURE(strncmp(text, "# vtk DataFile Version", 22) == 0);
    ENSURE(strstr(text, "\nASCII\n") != NULL);
    ENSURE(strstr(text, "\nDATASET POLYDATA\n") != NULL);
    ENSURE(strstr(text, "\nTIME 1 1 double\n0.5\n") != NULL);
    ENSURE(strstr(text, "\nVERTICES 5 10\n") != NULL);
    ENSURE(strstr(text, "\nPOINT_DATA 5\n") != NULL);
    ENSURE(strstr(text, "\nVECTORS velocity float\n") != NULL);
    ENSURE(strstr(text, "\nSCALARS density float 1\nLOOKUP_TABLE default\n1000\n") != NULL);
    ENSURE(strstr(text, "\nFIELD FieldData 1\npressure 1 5 float\n0\n250.5\n") != NULL);

    /* POINTS n float, then the coordinates, which read back exactly. */
    char *points = strstr(text, "\nPOINTS 5 float\n");
    ENSURE(points != NULL);
    if (points) {
        char *s = points + strlen("\nPOINTS 5 float\n");
        int exact = 1;
        for (int i = 0; i < p->count; i++) {
            float x = strtof(s, &s), y = strtof(s, &s), z = strtof(s, &s);
            exact &= x == p->x[i] && y == p->y[i] && z == p->z[i];
        }
        ENSURE(exact);
        ENSURE(strncmp(s, "\nVERTICES", 9) == 0);
    }
    free(text);
    remove(path);
}

/* NaN and Inf: exact bits in a binary frame; +-FLT_MAX in VTK, which VTK's
 * ASCII readers can parse (they stop at "nan"). */
static void test_non_finite(void)
{
    char bin[128], vtk[128];
    path_in_scratch(bin, sizeof bin, "nan.bin");
    path_in_scratch(vtk, sizeof vtk, "nan.vtk");
    fl_error err = {{0}};
    fl_particles p = {0};
    ENSURE(fl_particles_add(&p, NAN, INFINITY, -INFINITY, &err) == FL_OK);
    ENSURE(fl_particles_add(&p, 1.0f, 2.0f, 3.0f, &err) == FL_OK);
    p.vx[0] = NAN;
    p.p[1] = -INFINITY;

    ENSURE(fl_frame_write_bin(bin, &p, 1.0, &err) == FL_OK);
    fl_particles q = {0};
    ENSURE(fl_frame_read_bin(bin, &q, NULL, &err) == FL_OK);
    ENSURE(q.count == 2);
    if (q.count == 2) {
        ENSURE(memcmp(q.x, p.x, 2 * sizeof(float)) == 0);
        ENSURE(isnan(q.x[0]) && isinf(q.y[0]) && q.y[0] > 0 && isinf(q.z[0]) && q.z[0] < 0);
    }

    ENSURE(fl_frame_write_vtk(vtk, &p, 1.0, &err) == FL_OK);
    long len;
    char *text = (char *)slurp(vtk, &len);
    ENSURE(text != NULL);
    if (text) {
        ENSURE(strstr(text, "\nPOINTS 2 float\n3.40282347e+38 3.40282347e+38 -3.40282347e+38\n"));
        ENSURE(strstr(text, "\nVECTORS velocity float\n3.40282347e+38 0 0\n"));
        ENSURE(strstr(text, "\npressure 1 2 float\n0\n-3.40282347e+38\n"));
        ENSURE(strstr(text, "nan") == NULL && strstr(text, "inf") == NULL);
    }
    free(text);
    fl_particles_free(&q);
    fl_particles_free(&p);
    remove(bin);
    remove(vtk);
}

static void test_missing_folder(const fl_particles *p)
{
    char path[160];
    path_in_scratch(path, sizeof path, "no_such_folder/frame.bin");
    fl_error err = {{0}};
    ENSURE(fl_frame_write_bin(path, p, 0.0, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, path) != NULL);

    path_in_scratch(path, sizeof path, "no_such_folder/frame.vtk");
    err.msg[0] = 0;
    ENSURE(fl_frame_write_vtk(path, p, 0.0, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, path) != NULL);
    ENSURE(!file_exists(path));
}

/* A write that fails part-way, here at a 4 KiB file size limit (write()
 * then fails with EFBIG once SIGXFSZ is ignored), reports the path and
 * removes the partial file. */
static void test_partial_write_removed(void)
{
    struct rlimit old;
    if (getrlimit(RLIMIT_FSIZE, &old) != 0)
        return;
    fl_error err = {{0}};
    fl_particles big = {0};
    int added = 1;
    for (int i = 0; i < 2000; i++)
        added &= fl_particles_add(&big, (float)i, 1.0f, 2.0f, &err) == FL_OK;
    ENSURE(added);

    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old;
    small.rlim_cur = 4096;
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < small.rlim_cur)
        small.rlim_cur = old.rlim_max;
    ENSURE(setrlimit(RLIMIT_FSIZE, &small) == 0);

    char bin[128], vtk[128];
    path_in_scratch(bin, sizeof bin, "partial.bin");
    path_in_scratch(vtk, sizeof vtk, "partial.vtk");
    int rc_bin = fl_frame_write_bin(bin, &big, 1.0, &err);
    char msg_bin[FL_ERROR_LEN];
    memcpy(msg_bin, err.msg, sizeof msg_bin);
    int rc_vtk = fl_frame_write_vtk(vtk, &big, 1.0, &err);

    ENSURE(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, old_handler);

    ENSURE(rc_bin == FL_ERR_IO);
    ENSURE(strstr(msg_bin, bin) != NULL);
    ENSURE(!file_exists(bin));
    ENSURE(rc_vtk == FL_ERR_IO);
    ENSURE(strstr(err.msg, vtk) != NULL);
    ENSURE(!file_exists(vtk));
    fl_particles_free(&big);
}

int main(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/fl_test_io_XXXXXX");
    if (mkdtemp(scratch) == NULL) {
        fprintf(stderr, "test_io: cannot create a scratch folder under /tmp: %s\n",
                strerror(errno));
        return 1;
    }

    fl_particles p = {0};
    make_particles(&p);
    test_bin_round_trip(&p);
    test_bin_sizes();
    test_bin_rejects(&p);
    test_vtk(&p);
    test_non_finite();
    test_missing_folder(&p);
    test_partial_write_removed();
    fl_particles_free(&p);

    ENSURE(rmdir(scratch) == 0); /* every test removed its files */
    return fl_test_report("test_io");
}
