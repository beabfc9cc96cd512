/* test_io.c: particle output (particles/io.h) in a scratch folder under /tmp.
 *
 *  - binary frames: file length 32 + 12 n, little-endian header bytes,
 *    bit-identical positions and time read back, empty frames, and the
 *    reader's rejection of foreign, truncated or over-long files;
 *  - legacy VTK: the header, POINTS/VERTICES/POINT_DATA sections and the
 *    first coordinates; NaN/Inf kept exactly in binary, +-FLT_MAX in VTK;
 *  - VTK XML frames (.vtu): bit-exact round trips through fl_frame_read_vtu
 *    (NaN, +-Inf, denormals, -0, arbitrary bit patterns; 0, 1, 300 and 2500
 *    particles), the byte layout walked block by block from the XML tags,
 *    and the reader's rejection of truncated, inconsistent or foreign files;
 *  - ParaView collections (.pvd): the exact text, frames in order with
 *    exact times, escaped names, and a failed write that keeps the old file;
 *  - errors: a path in a missing folder fails with FL_ERR_IO naming the path,
 *    and a write that fails part-way (file size limit) leaves no file.
 *
 * `test_io write-vtu DIR` instead writes a 3-frame series for
 * tests/check_vtu.py, which reads it with VTK's own reader: DIR/frames.pvd,
 * the frames it lists, and what they hold in DIR/expected_frames.csv
 * (frame,n,time bits,file) and DIR/expected_particles.csv (frame,i, then
 * x,y,z,vx,vy,vz,rho,p as float bit patterns in hex). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

static uint64_t le64(const unsigned char *b)
{
    return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
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

    path_in_scratch(path, sizeof path, "no_such_folder/frame.vtu");
    err.msg[0] = 0;
    ENSURE(fl_frame_write_vtu(path, p, 0.0, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, path) != NULL);
    ENSURE(!file_exists(path));

    path_in_scratch(path, sizeof path, "no_such_folder/frames.pvd");
    err.msg[0] = 0;
    const char *files[] = {"frames/0000.vtu"};
    const double times[] = {0.0};
    ENSURE(fl_pvd_write(path, files, times, 1, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, path) != NULL);
    ENSURE(!file_exists(path));
}

/* A write that fails part-way, here at a 4 KiB file size limit (write()
 * then fails with EFBIG once SIGXFSZ is ignored), reports the path and
 * removes the partial file; a collection that fails so keeps the previous
 * one whole. */
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

    /* 200 data sets make a collection of about 14 KiB; the previous one,
     * written before the limit, holds one. */
    enum { SETS = 200 };
    static char names[SETS][32];
    const char *files[SETS];
    double times[SETS];
    for (int i = 0; i < SETS; i++) {
        snprintf(names[i], sizeof names[i], "frames/%04d.vtu", i);
        files[i] = names[i];
        times[i] = 0.01 * i;
    }
    char pvd[128], pvd_tmp[140];
    path_in_scratch(pvd, sizeof pvd, "partial.pvd");
    snprintf(pvd_tmp, sizeof pvd_tmp, "%s.tmp", pvd);
    ENSURE(fl_pvd_write(pvd, files, times, 1, &err) == FL_OK);
    long before_len;
    unsigned char *before = slurp(pvd, &before_len);
    ENSURE(before != NULL);

    char bin[128], vtk[128], vtu[128];
    path_in_scratch(bin, sizeof bin, "partial.bin");
    path_in_scratch(vtk, sizeof vtk, "partial.vtk");
    path_in_scratch(vtu, sizeof vtu, "partial.vtu");
    char msg_bin[FL_ERROR_LEN], msg_vtk[FL_ERROR_LEN], msg_vtu[FL_ERROR_LEN];
    int rc_bin = fl_frame_write_bin(bin, &big, 1.0, &err);
    memcpy(msg_bin, err.msg, sizeof msg_bin);
    int rc_vtk = fl_frame_write_vtk(vtk, &big, 1.0, &err);
    memcpy(msg_vtk, err.msg, sizeof msg_vtk);
    int rc_vtu = fl_frame_write_vtu(vtu, &big, 1.0, &err);
    memcpy(msg_vtu, err.msg, sizeof msg_vtu);
    int rc_pvd = fl_pvd_write(pvd, files, times, SETS, &err);

    ENSURE(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, old_handler);

    ENSURE(rc_vtu == FL_ERR_IO);
    ENSURE(strstr(msg_vtu, vtu) != NULL);
    ENSURE(!file_exists(vtu));
    ENSURE(rc_pvd == FL_ERR_IO);
    ENSURE(strstr(err.msg, pvd) != NULL);
    ENSURE(!file_exists(pvd_tmp));
    long after_len;
    unsigned char *after = slurp(pvd, &after_len);
    ENSURE(before != NULL && after != NULL && after_len == before_len &&
           memcmp(before, after, (size_t)before_len) == 0);
    free(after);
    free(before);
    remove(pvd);

    ENSURE(rc_bin == FL_ERR_IO);
    ENSURE(strstr(msg_bin, bin) != NULL);
    ENSURE(!file_exists(bin));
    ENSURE(rc_vtk == FL_ERR_IO);
    ENSURE(strstr(msg_vtk, vtk) != NULL);
    ENSURE(!file_exists(vtk));
    fl_particles_free(&big);
}

/* ---- VTK XML frames ----------------------------------------------------- */

/* xorshift32: the same bits on every host. */
static uint32_t next_bits(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

/* n particles whose eight fields (x, y, z, vx, vy, vz, rho, p) are: for the
 * first eight particles, every special value in every field; then plain
 * values for even i and arbitrary bit patterns (NaNs with payloads,
 * denormals, huge and tiny numbers) for odd i. p must be empty. */
static void make_varied(fl_particles *p, int n, uint32_t seed)
{
    static const uint32_t special[8] = {
        0x7fc00000u, /* NaN */
        0xffc00001u, /* -NaN with a payload */
        0x7f800000u, /* +Inf */
        0xff800000u, /* -Inf */
        0x80000000u, /* -0 */
        0x00000001u, /* the smallest denormal */
        0x807fffffu, /* the largest negative denormal */
        0x7f7fffffu, /* FLT_MAX */
    };
    fl_error err = {{0}};
    int added = 1;
    for (int i = 0; i < n; i++)
        added &= fl_particles_add(p, 0.0f, 0.0f, 0.0f, &err) == FL_OK;
    ENSURE(added && p->count == n);
    if (p->count != n)
        return;
    float *const field[8] = {p->x, p->y, p->z, p->vx, p->vy, p->vz, p->rho, p->p};
    uint32_t state = seed;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++) {
            uint32_t bits;
            if (i < 8)
                bits = special[(i + k) % 8];
            else if (i % 2 == 1)
                bits = next_bits(&state);
            else
                bits = float_bits(0.001f * (float)(i * (k + 1)) - 1.5f);
            memcpy(&field[k][i], &bits, sizeof bits);
        }
}

static int same_floats(const float *a, const float *b, int n)
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

/* Every field of q has the bits of p's; predicted positions equal positions. */
static int same_particles(const fl_particles *q, const fl_particles *p)
{
    int n = p->count;
    return q->count == n && same_floats(q->x, p->x, n) && same_floats(q->y, p->y, n) &&
           same_floats(q->z, p->z, n) && same_floats(q->vx, p->vx, n) &&
           same_floats(q->vy, p->vy, n) && same_floats(q->vz, p->vz, n) &&
           same_floats(q->rho, p->rho, n) && same_floats(q->p, p->p, n) &&
           same_floats(q->px, p->x, n) && same_floats(q->py, p->y, n) &&
           same_floats(q->pz, p->z, n);
}

static void test_vtu_round_trip(void)
{
    static const struct {
        int n;
        uint64_t time_bits;
    } cases[] = {
        {300, 0x3fd5555555555555u},  /* 1/3 s */
        {1, 0x8000000000000000u},    /* -0 */
        {0, 0x0000000000000000u},
        {2500, 0x0000000000000001u}, /* a denormal double: more than one chunk */
        {8, 0x7ff8000000000123u},    /* NaN with a payload */
    };
    char path[128];
    path_in_scratch(path, sizeof path, "round.vtu");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fl_error err = {{0}};
        fl_particles p = {0}, q = {0};
        make_varied(&p, cases[c].n, 12345u + (uint32_t)c);
        double time;
        memcpy(&time, &cases[c].time_bits, sizeof time);
        ENSURE(fl_frame_write_vtu(path, &p, time, &err) == FL_OK);

        /* Reading into a store that already holds particles replaces them. */
        ENSURE(fl_particles_add(&q, 7.0f, 8.0f, 9.0f, &err) == FL_OK);
        double t = 42.0;
        ENSURE(fl_frame_read_vtu(path, &q, &t, &err) == FL_OK);
        ENSURE(same_particles(&q, &p));
        ENSURE(double_bits(t) == cases[c].time_bits);
        /* time may be NULL */
        ENSURE(fl_frame_read_vtu(path, &q, NULL, &err) == FL_OK);
        ENSURE(same_particles(&q, &p));
        if (cases[c].n == 1) /* -0 kept, not turned into +0 */
            ENSURE(float_bits(q.x[0]) == float_bits(p.x[0]));
        fl_particles_free(&q);
        fl_particles_free(&p);
    }
    remove(path);
}

/* The file as VTK reads it, checked without our reader: the header, each
 * DataArray's tag and offset, each block's byte count and values, and the
 * closing tags right after the last block. */
static void test_vtu_layout(void)
{
    static const struct {
        const char *name, *type;
        int components, bytes; /* bytes per tuple */
        const char *extra;
    } blocks[] = {
        {"Points", "Float32", 3, 12, ""},      {"velocity", "Float32", 3, 12, ""},
        {"density", "Float32", 1, 4, ""},      {"pressure", "Float32", 1, 4, ""},
        {"connectivity", "Int64", 1, 8, ""},   {"offsets", "Int64", 1, 8, ""},
        {"types", "UInt8", 1, 1, ""},          {"TimeValue", "Float64", 1, 8, " NumberOfTuples=\"1\""},
    };
    char path[128];
    path_in_scratch(path, sizeof path, "layout.vtu");
    fl_error err = {{0}};
    fl_particles p = {0};
    int n = 300;
    make_varied(&p, n, 777u);
    double time = 0.1;
    ENSURE(fl_frame_write_vtu(path, &p, time, &err) == FL_OK);
    long len;
    unsigned char *raw = slurp(path, &len);
    ENSURE(raw != NULL);
    if (!raw || p.count != n) {
        free(raw);
        fl_particles_free(&p);
        return;
    }
    const char *text = (const char *)raw;
    ENSURE(strncmp(text,
                   "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
                   "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n",
                   strlen("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" "
                          "version=\"1.0\" byte_order=\"LittleEndian\" "
                          "header_type=\"UInt64\">\n")) == 0);
    ENSURE(strstr(text, "<Piece NumberOfPoints=\"300\" NumberOfCells=\"300\">") != NULL);
    ENSURE(strstr(text, "<PointData Scalars=\"density\" Vectors=\"velocity\">") != NULL);
    const char *marker = "<AppendedData encoding=\"raw\">\n   _";
    const char *appended = strstr(text, marker);
    ENSURE(appended != NULL);
    if (!appended) {
        free(raw);
        fl_particles_free(&p);
        return;
    }
    const unsigned char *data = (const unsigned char *)appended + strlen(marker);
    long header_len = (long)(data - raw);
    ENSURE(data[-1] == '_');
    ENSURE(le64(data) == 12u * (uint64_t)n); /* the first block: Points */
    ENSURE(len == header_len + 72 + 49L * n + 30);

    uint64_t at = 0;
    uint64_t start[8];
    for (int k = 0; k < 8; k++) {
        char tag[256];
        snprintf(tag, sizeof tag,
                 "<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"%s "
                 "format=\"appended\" offset=\"%llu\"/>",
                 blocks[k].type, blocks[k].name, blocks[k].components, blocks[k].extra,
                 (unsigned long long)at);
        const char *found = strstr(text, tag);
        ENSURE(found != NULL && found < appended);
        if (found == NULL)
            fprintf(stderr, "  missing: %s\n", tag);
        uint64_t bytes = (uint64_t)blocks[k].bytes * (k == 7 ? 1u : (uint64_t)n);
        ENSURE(at + 8 + bytes <= (uint64_t)(len - header_len));
        if (at + 8 + bytes > (uint64_t)(len - header_len))
            break;
        ENSURE(le64(data + at) == bytes);
        start[k] = at + 8;
        at += 8 + bytes;
    }
    if (at == (uint64_t)(len - header_len - 30)) {
        ENSURE(memcmp(data + at, "\n  </AppendedData>\n</VTKFile>\n", 30) == 0);
        int points = 1, vel = 1, scalars = 1, cells = 1;
        for (int i = 0; i < n; i++) {
            const unsigned char *xyz = data + start[0] + 12 * i, *v = data + start[1] + 12 * i;
            points &= le32(xyz) == float_bits(p.x[i]) && le32(xyz + 4) == float_bits(p.y[i]) &&
                      le32(xyz + 8) == float_bits(p.z[i]);
            vel &= le32(v) == float_bits(p.vx[i]) && le32(v + 4) == float_bits(p.vy[i]) &&
                   le32(v + 8) == float_bits(p.vz[i]);
            scalars &= le32(data + start[2] + 4 * i) == float_bits(p.rho[i]) &&
                       le32(data + start[3] + 4 * i) == float_bits(p.p[i]);
            cells &= le64(data + start[4] + 8 * i) == (uint64_t)i &&
                     le64(data + start[5] + 8 * i) == (uint64_t)i + 1 &&
                     data[start[6] + i] == 1;
        }
        ENSURE(points);
        ENSURE(vel);
        ENSURE(scalars);
        ENSURE(cells);
        /* 0.1 s is 0x3FB999999999999A: low byte first. */
        ENSURE(le64(data + start[7]) == double_bits(time));
        ENSURE(data[start[7]] == 0x9a && data[start[7] + 7] == 0x3f);
    } else {
        ENSURE(!"the blocks do not end 30 bytes before the end of the file");
    }

    /* 0 particles: every per-point block is empty. */
    fl_particles empty = {0};
    ENSURE(fl_frame_write_vtu(path, &empty, 0.0, &err) == FL_OK);
    free(raw);
    raw = slurp(path, &len);
    ENSURE(raw != NULL);
    if (raw) {
        text = (const char *)raw;
        ENSURE(strstr(text, "<Piece NumberOfPoints=\"0\" NumberOfCells=\"0\">") != NULL);
        appended = strstr(text, marker);
        ENSURE(appended != NULL);
        if (appended) {
            data = (const unsigned char *)appended + strlen(marker);
            ENSURE(len == (long)(data - raw) + 72 + 30);
            ENSURE(le64(data) == 0 && le64(data + 7 * 8) == 8);
        }
    }
    free(raw);
    fl_particles_free(&p);
    remove(path);
}

/* raw with the first `from` replaced by `to`; malloc'd, *len updated. */
static unsigned char *replaced(const unsigned char *raw, long *len, const char *from,
                               const char *to)
{
    const char *at = strstr((const char *)raw, from);
    ENSURE(at != NULL);
    if (at == NULL)
        return NULL;
    size_t head = (size_t)(at - (const char *)raw), nf = strlen(from), nt = strlen(to);
    size_t tail = (size_t)*len - head - nf;
    unsigned char *out = malloc(head + nt + tail + 1);
    memcpy(out, raw, head);
    memcpy(out + head, to, nt);
    memcpy(out + head + nt, raw + head + nf, tail);
    out[head + nt + tail] = 0;
    *len = (long)(head + nt + tail);
    return out;
}

/* data (len bytes) written to bad must be rejected with FL_ERR_INPUT,
 * naming the file and containing `why` in the message. */
static void expect_vtu_rejected(const char *bad, const unsigned char *data, long len,
                                const char *why, fl_particles *q, double *t)
{
    if (data == NULL)
        return;
    write_bytes(bad, data, (size_t)len);
    fl_error err = {{0}};
    int rc = fl_frame_read_vtu(bad, q, t, &err);
    int ok = rc == FL_ERR_INPUT && strstr(err.msg, bad) != NULL && strstr(err.msg, why) != NULL;
    ENSURE(ok);
    if (!ok)
        fprintf(stderr, "  expected a rejection with \"%s\", got %d: %s\n", why, rc, err.msg);
}

static void test_vtu_rejects(void)
{
    char good[128], bad[128];
    path_in_scratch(good, sizeof good, "good.vtu");
    path_in_scratch(bad, sizeof bad, "bad.vtu");
    fl_error err = {{0}};
    fl_particles p = {0};
    make_varied(&p, 300, 99u);
    ENSURE(fl_frame_write_vtu(good, &p, 0.25, &err) == FL_OK);
    long len;
    unsigned char *raw = slurp(good, &len);
    const char *marker = "<AppendedData encoding=\"raw\">\n   _";
    const char *appended = raw ? strstr((const char *)raw, marker) : NULL;
    ENSURE(appended != NULL);
    if (!appended) {
        free(raw);
        fl_particles_free(&p);
        return;
    }
    long data = (long)((const unsigned char *)appended - raw) + (long)strlen(marker);

    fl_particles q = {0};
    ENSURE(fl_particles_add(&q, 7.0f, 8.0f, 9.0f, &err) == FL_OK);
    double t = 42.0;

    /* truncated: in the tail, in the last block, in the points, in the header */
    expect_vtu_rejected(bad, raw, len - 1, "truncated", &q, &t);
    expect_vtu_rejected(bad, raw, len - 30, "truncated", &q, &t);
    expect_vtu_rejected(bad, raw, len - 31, "TimeValue block", &q, &t);
    expect_vtu_rejected(bad, raw, data + 100, "past the end of the file", &q, &t);
    expect_vtu_rejected(bad, raw, data, "past the end of the file", &q, &t);
    expect_vtu_rejected(bad, raw, 200, "AppendedData", &q, &t);
    expect_vtu_rejected(bad, raw, 0, "AppendedData", &q, &t);
    /* one byte too many */
    unsigned char *longer = malloc((size_t)len + 1);
    memcpy(longer, raw, (size_t)len);
    longer[len] = '\n';
    expect_vtu_rejected(bad, longer, len + 1, "after the last block", &q, &t);
    free(longer);

    /* The point count disagrees with the blocks. A huge count is rejected
     * by the block sizes before anything is allocated for it. */
    struct {
        const char *from, *to, *why;
    } edits[] = {
        {"NumberOfPoints=\"300\"", "NumberOfPoints=\"301\"", "NumberOfCells"},
        {"NumberOfPoints=\"300\" NumberOfCells=\"300\"",
         "NumberOfPoints=\"301\" NumberOfCells=\"301\"", "Points block holds 3600 bytes"},
        {"NumberOfPoints=\"300\" NumberOfCells=\"300\"",
         "NumberOfPoints=\"299\" NumberOfCells=\"299\"", "Points block"},
        {"NumberOfPoints=\"300\" NumberOfCells=\"300\"",
         "NumberOfPoints=\"2000000000\" NumberOfCells=\"2000000000\"", "Points block"},
        {"NumberOfPoints=\"300\" NumberOfCells=\"300\"",
         "NumberOfPoints=\"4294967296\" NumberOfCells=\"4294967296\"", "NumberOfPoints"},
        {"NumberOfPoints=\"300\"", "NumberOfPoints=\"-300\"", "NumberOfPoints"},
        /* a missing array, of each kind */
        {"Name=\"pressure\"", "Name=\"pressurX\"", "no DataArray named pressure"},
        {"Name=\"TimeValue\"", "Name=\"Time\"", "no DataArray named TimeValue"},
        {"Name=\"Points\"", "Name=\"Point\"", "no DataArray named Points"},
        /* declarations other than ours */
        {"type=\"Float32\" Name=\"velocity\"", "type=\"Float64\" Name=\"velocity\"", "velocity"},
        {"Name=\"velocity\" NumberOfComponents=\"3\"", "Name=\"velocity\" NumberOfComponents=\"2\"",
         "components"},
        {"Name=\"connectivity\" NumberOfComponents=\"1\" format=\"appended\"",
         "Name=\"connectivity\" NumberOfComponents=\"1\" format=\"binary\"", "appended"},
        {"header_type=\"UInt64\"", "header_type=\"UInt32\"", "header_type"},
        {"byte_order=\"LittleEndian\"", "byte_order=\"BigEndian\"", "byte_order"},
        {"type=\"UnstructuredGrid\"", "type=\"PolyData\"", "UnstructuredGrid"},
        {"encoding=\"raw\"", "encoding=\"base64\"", "raw"},
        {"Name=\"density\"", "Name=\"velocity\"", "two DataArrays"},
        {"offset=\"0\"", "offset=\"x\"", "offset"},
        {"offset=\"0\"", "offset=\"99999999999\"", "past the end of the file"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        long n = len;
        unsigned char *copy = replaced(raw, &n, edits[i].from, edits[i].to);
        expect_vtu_rejected(bad, copy, n, edits[i].why, &q, &t);
        free(copy);
    }

    /* A byte count larger than the file (Points, then TimeValue, the last). */
    unsigned char *copy = malloc((size_t)len);
    memcpy(copy, raw, (size_t)len);
    copy[data + 5] = 0x01; /* 2^40 + 3600 */
    expect_vtu_rejected(bad, copy, len, "Points block's", &q, &t);
    memcpy(copy, raw, (size_t)len);
    copy[len - 30 - 16 + 2] = 1; /* 65536 + 8, more than the file has left */
    expect_vtu_rejected(bad, copy, len, "TimeValue block's", &q, &t);
    /* a count that fits in the file but is not what 300 points need */
    memcpy(copy, raw, (size_t)len);
    copy[data] = 0;
    expect_vtu_rejected(bad, copy, len, "Points block holds", &q, &t);
    free(copy);

    /* not a .vtu at all: a binary frame */
    char bin[128];
    path_in_scratch(bin, sizeof bin, "frame_for_vtu.bin");
    ENSURE(fl_frame_write_bin(bin, &p, 0.25, &err) == FL_OK);
    ENSURE(fl_frame_read_vtu(bin, &q, &t, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, bin) != NULL);
    remove(bin);

    char missing[128];
    path_in_scratch(missing, sizeof missing, "missing.vtu");
    ENSURE(fl_frame_read_vtu(missing, &q, &t, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, missing) != NULL);

    /* none of the failures touched the store or the time */
    ENSURE(q.count == 1 && q.x[0] == 7.0f && q.y[0] == 8.0f && q.z[0] == 9.0f && t == 42.0);

    /* and the good file still reads */
    ENSURE(fl_frame_read_vtu(good, &q, &t, &err) == FL_OK);
    ENSURE(same_particles(&q, &p) && t == 0.25);

    fl_particles_free(&q);
    fl_particles_free(&p);
    free(raw);
    remove(good);
    remove(bad);
}

/* ---- ParaView collections ---------------------------------------------- */

static void test_pvd(void)
{
    char path[128], tmp[140];
    path_in_scratch(path, sizeof path, "frames.pvd");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fl_error err = {{0}};
    const char *files[] = {"frames/0000.vtu", "frames/0001.vtu",
                           "odd & <name> \"q\" 'a'.vtu", "frames/0003.vtu"};
    const double times[] = {0.0, 0.1, 1.0 / 3.0, 12345.678901234567};
    ENSURE(fl_pvd_write(path, files, times, 4, &err) == FL_OK);
    ENSURE(!file_exists(tmp));

    long len;
    char *text = (char *)slurp(path, &len);
    ENSURE(text != NULL);
    if (text) {
        ENSURE(strcmp(text,
                      "<?xml version=\"1.0\"?>\n"
                      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                      "  <Collection>\n"
                      "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"frames/0000.vtu\"/>\n"
                      "    <DataSet timestep=\"0.10000000000000001\" group=\"\" part=\"0\" "
                      "file=\"frames/0001.vtu\"/>\n"
                      "    <DataSet timestep=\"0.33333333333333331\" group=\"\" part=\"0\" "
                      "file=\"odd &amp; &lt;name&gt; &quot;q&quot; &apos;a&apos;.vtu\"/>\n"
                      "    <DataSet timestep=\"12345.678901234567\" group=\"\" part=\"0\" "
                      "file=\"frames/0003.vtu\"/>\n"
                      "  </Collection>\n"
                      "</VTKFile>\n") == 0);
        /* the data sets in order, each time exactly the double written */
        int count = 0, exact = 1;
        for (const char *s = strstr(text, "timestep=\""); s != NULL;
             s = strstr(s + 1, "timestep=\"")) {
            double t = strtod(s + strlen("timestep=\""), NULL);
            exact &= count < 4 && double_bits(t) == double_bits(times[count]);
            count++;
        }
        ENSURE(count == 4 && exact);
    }
    free(text);

    /* An empty series, then the bad input that changes nothing. */
    ENSURE(fl_pvd_write(path, NULL, NULL, 0, &err) == FL_OK);
    text = (char *)slurp(path, &len);
    ENSURE(text != NULL && strcmp(text, "<?xml version=\"1.0\"?>\n"
                                        "<VTKFile type=\"Collection\" version=\"0.1\" "
                                        "byte_order=\"LittleEndian\">\n"
                                        "  <Collection>\n"
                                        "  </Collection>\n"
                                        "</VTKFile>\n") == 0);
    const double bad_times[] = {0.0, NAN};
    ENSURE(fl_pvd_write(path, files, bad_times, 2, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, path) != NULL);
    const char *bad_names[] = {"frames/0000.vtu", "new\nline.vtu"};
    ENSURE(fl_pvd_write(path, bad_names, times, 2, &err) == FL_ERR_INPUT);
    const char *no_name[] = {"frames/0000.vtu", NULL};
    ENSURE(fl_pvd_write(path, no_name, times, 2, &err) == FL_ERR_INPUT);
    ENSURE(fl_pvd_write(path, files, times, -1, &err) == FL_ERR_INPUT);
    long len2;
    char *after = (char *)slurp(path, &len2);
    ENSURE(text != NULL && after != NULL && len2 == len && memcmp(text, after, (size_t)len) == 0);
    free(after);
    free(text);

    /* A path that cannot be replaced (a folder): the .tmp is removed. */
    char folder[128], folder_tmp[140];
    path_in_scratch(folder, sizeof folder, "folder.pvd");
    snprintf(folder_tmp, sizeof folder_tmp, "%s.tmp", folder);
    ENSURE(mkdir(folder, 0700) == 0);
    ENSURE(fl_pvd_write(folder, files, times, 4, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, folder) != NULL);
    ENSURE(!file_exists(folder_tmp));
    ENSURE(rmdir(folder) == 0);

    remove(path);
}

/* `test_io write-vtu DIR`: the series tests/check_vtu.py reads with VTK. */
static int write_vtu_series(const char *dir)
{
    static const char *const files[3] = {"frames/0000.vtu", "frames/0001.vtu",
                                         "frames/0002 & <\"odd\"> 'name'.vtu"};
    static const double times[3] = {0.0, 0.1, 1.0 / 3.0};
    static const int counts[3] = {300, 1, 0};
    char path[512];
    fl_error err = {{0}};

    snprintf(path, sizeof path, "%s/frames", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "test_io: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/expected_frames.csv", dir);
    FILE *frames_csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/expected_particles.csv", dir);
    FILE *particles_csv = fopen(path, "w");
    if (!frames_csv || !particles_csv) {
        fprintf(stderr, "test_io: cannot write the expected values in %s\n", dir);
        return 1;
    }
    fprintf(frames_csv, "frame,n,time_bits,file\n");
    fprintf(particles_csv, "frame,i,x,y,z,vx,vy,vz,rho,p\n");

    int rc = FL_OK;
    for (int f = 0; f < 3 && rc == FL_OK; f++) {
        fl_particles p = {0};
        make_varied(&p, counts[f], 2024u + (uint32_t)f);
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        rc = fl_frame_write_vtu(path, &p, times[f], &err);
        /* after every frame, as a run does */
        snprintf(path, sizeof path, "%s/frames.pvd", dir);
        if (rc == FL_OK)
            rc = fl_pvd_write(path, files, times, f + 1, &err);
        fprintf(frames_csv, "%d,%d,%016llx,%s\n", f, p.count,
                (unsigned long long)double_bits(times[f]), files[f]);
        for (int i = 0; i < p.count; i++)
            fprintf(particles_csv, "%d,%d,%08x,%08x,%08x,%08x,%08x,%08x,%08x,%08x\n", f, i,
                    (unsigned)float_bits(p.x[i]), (unsigned)float_bits(p.y[i]),
                    (unsigned)float_bits(p.z[i]), (unsigned)float_bits(p.vx[i]),
                    (unsigned)float_bits(p.vy[i]), (unsigned)float_bits(p.vz[i]),
                    (unsigned)float_bits(p.rho[i]), (unsigned)float_bits(p.p[i]));
        fl_particles_free(&p);
    }
    if (fclose(frames_csv) != 0 || fclose(particles_csv) != 0)
        rc = FL_ERR_IO;
    if (rc != FL_OK) {
        fprintf(stderr, "test_io: writing the series failed: %s\n", err.msg);
        return 1;
    }
    return fl_test_failed == 0 ? 0 : 1;
}

/* The value of attribute name in the XML tag starting at tag, into out. */
static int tag_attribute(const char *tag, const char *name, char *out, size_t size)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(tag, '>'), *v = strstr(tag, key);
    if (!v || (end && v > end))
        return 0;
    v += strlen(key);
    size_t n = strcspn(v, "\"");
    if (n >= size)
        return 0;
    memcpy(out, v, n);
    out[n] = '\0';
    return 1;
}

/* `test_io check-run DIR`: a run's frames as our readers see them. Every
 * data set of DIR/frames.pvd, read with fl_frame_read_vtu, has the time the
 * .pvd gives it, and the positions and time of the .bin frame of the same
 * number, bit for bit, where the run saved one. Prints the frames checked;
 * 0 when all hold. */
static int check_run(const char *dir)
{
    char path[1200], file[256], step[64];
    snprintf(path, sizeof path, "%s/frames.pvd", dir);
    long len = 0;
    unsigned char *pvd = slurp(path, &len);
    ENSURE(pvd != NULL);
    if (!pvd)
        return 1;
    int frames = 0, with_bin = 0;
    for (const char *t = strstr((const char *)pvd, "<DataSet "); t; t = strstr(t + 1, "<DataSet ")) {
        ENSURE(tag_attribute(t, "file", file, sizeof file) && tag_attribute(t, "timestep", step, sizeof step));
        fl_particles v = {0}, b = {0};
        double tv = -1.0, tb = -2.0;
        fl_error err = {{0}};
        snprintf(path, sizeof path, "%s/%s", dir, file);
        int rc = fl_frame_read_vtu(path, &v, &tv, &err);
        if (rc != FL_OK)
            fprintf(stderr, "test_io: %s\n", err.msg);
        ENSURE(rc == FL_OK);
        ENSURE(double_bits(tv) == double_bits(strtod(step, NULL)));
        size_t n = strlen(path);
        if (n > 4 && strcmp(path + n - 4, ".vtu") == 0)
            memcpy(path + n - 4, ".bin", 4);
        if (rc == FL_OK && file_exists(path)) {
            ENSURE(fl_frame_read_bin(path, &b, &tb, &err) == FL_OK);
            ENSURE(b.count == v.count && double_bits(tb) == double_bits(tv));
            ENSURE(b.count == v.count && same_floats(b.x, v.x, v.count) && same_floats(b.y, v.y, v.count) &&
                   same_floats(b.z, v.z, v.count));
            with_bin++;
        }
        fl_particles_free(&v);
        fl_particles_free(&b);
        frames++;
    }
    free(pvd);
    printf("test_io check-run %s: %d frames listed in frames.pvd, %d compared with their .bin\n", dir, frames,
           with_bin);
    ENSURE(frames > 0);
    return fl_test_failed == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write-vtu") == 0)
        return write_vtu_series(argv[2]);
    if (argc == 3 && strcmp(argv[1], "check-run") == 0)
        return check_run(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: test_io [write-vtu DIR | check-run DIR]\n");
        return 2;
    }

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
    test_vtu_round_trip();
    test_vtu_layout();
    test_vtu_rejects();
    test_pvd();
    test_missing_folder(&p);
    test_partial_write_removed();
    fl_particles_free(&p);

    ENSURE(rmdir(scratch) == 0); /* every test removed its files */
    return fl_test_report("test_io");
}
