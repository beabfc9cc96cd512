/* io.c: particle output (io.h): binary frames, ASCII legacy VTK, binary
 * VTK XML frames (.vtu) and the ParaView collection (.pvd) that lists them.
 *
 * Binary frames and the .vtu blocks are encoded byte by byte in
 * little-endian order, whatever the host's byte order, from the bit
 * patterns of the IEEE 754 floats (copied with memcpy, so no aliasing
 * tricks). The layouts are documented in io.h and docs/file_formats.md. A
 * write that fails part-way removes what it wrote, so a run never leaves
 * half a frame behind; a .pvd is replaced by renaming a complete new one
 * over it. Library code: no printing, errors go to fl_error. */
#include "io.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The start of every frame writer: the store checked (need_fields: the
 * velocity, density and pressure arrays too), then path opened into *f. */
static int start_frame(const char *path, const fl_particles *p, int need_fields, FILE **f, fl_error *err)
{
    int rc = check_store(path, p, need_fields, err);
    if (rc != FL_OK)
        return rc;
    *f = open_for_writing(path, err);
    return *f ? FL_OK : FL_ERR_IO;
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
    FILE *f;
    int rc = start_frame(path, p, 0, &f, err);
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
    FILE *f;
    int rc = start_frame(path, p, 1, &f, err);
    if (rc != FL_OK)
        return rc;
    int n = p->count;

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

/* ---- VTK XML UnstructuredGrid (.vtu) ----------------------------------- */

/* The arrays of a .vtu frame, in the order of their blocks in the appended
 * data. Points come first, so that the first block's byte count (12 n)
 * identifies a frame at a glance; the writer's offsets and the reader's
 * checks both come from this one table. */
enum {
    VTU_POINTS,
    VTU_VELOCITY,
    VTU_DENSITY,
    VTU_PRESSURE,
    VTU_CONNECTIVITY,
    VTU_OFFSETS,
    VTU_TYPES,
    VTU_TIME,
    VTU_ARRAY_COUNT
};

typedef struct vtu_array {
    const char *name;
    const char *type;    /* VTK's name of the component type */
    int components;
    int component_bytes;
    int per_point;       /* n tuples; else one tuple (field data) */
} vtu_array;

static const vtu_array vtu_arrays[VTU_ARRAY_COUNT] = {
    [VTU_POINTS] = {"Points", "Float32", 3, 4, 1},
    [VTU_VELOCITY] = {"velocity", "Float32", 3, 4, 1},
    [VTU_DENSITY] = {"density", "Float32", 1, 4, 1},
    [VTU_PRESSURE] = {"pressure", "Float32", 1, 4, 1},
    [VTU_CONNECTIVITY] = {"connectivity", "Int64", 1, 8, 1},
    [VTU_OFFSETS] = {"offsets", "Int64", 1, 8, 1},
    [VTU_TYPES] = {"types", "UInt8", 1, 1, 1},
    [VTU_TIME] = {"TimeValue", "Float64", 1, 8, 0},
};

/* VTK's cell type number of a single point (VTK_VERTEX). */
#define VTU_VERTEX 1u
/* Bytes of the UInt64 count that opens every appended block. */
#define VTU_BLOCK_HEADER 8u
/* The reader looks for <AppendedData> in this many leading bytes; our
 * XML header is under 2 KiB. */
#define VTU_HEADER_MAX 65536
/* Closing tags after the last block; a frame ends with exactly this. */
#define VTU_TAIL "\n  </AppendedData>\n</VTKFile>\n"

static uint64_t vtu_block_bytes(int k, int n)
{
    const vtu_array *a = &vtu_arrays[k];
    uint64_t tuples = a->per_point ? (uint64_t)n : 1u;
    return tuples * (uint64_t)a->components * (uint64_t)a->component_bytes;
}

static int vtu_array_tag(FILE *f, const char *indent, int k, uint64_t offset)
{
    const vtu_array *a = &vtu_arrays[k];
    return fprintf(f,
                   "%s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"%s "
                   "format=\"appended\" offset=\"%llu\"/>\n",
                   indent, a->type, a->name, a->components,
                   a->per_point ? "" : " NumberOfTuples=\"1\"", (unsigned long long)offset);
}

static int vtu_write_header(FILE *f, int n, const uint64_t *offset)
{
    const char *inner = "        ";
    if (fprintf(f,
                "<?xml version=\"1.0\"?>\n"
                "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                "header_type=\"UInt64\">\n"
                "  <UnstructuredGrid>\n"
                "    <FieldData>\n") < 0 ||
        vtu_array_tag(f, "      ", VTU_TIME, offset[VTU_TIME]) < 0 ||
        fprintf(f,
                "    </FieldData>\n"
                "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n"
                "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n",
                n, n) < 0 ||
        vtu_array_tag(f, inner, VTU_VELOCITY, offset[VTU_VELOCITY]) < 0 ||
        vtu_array_tag(f, inner, VTU_DENSITY, offset[VTU_DENSITY]) < 0 ||
        vtu_array_tag(f, inner, VTU_PRESSURE, offset[VTU_PRESSURE]) < 0 ||
        fprintf(f, "      </PointData>\n      <Points>\n") < 0 ||
        vtu_array_tag(f, inner, VTU_POINTS, offset[VTU_POINTS]) < 0 ||
        fprintf(f, "      </Points>\n      <Cells>\n") < 0 ||
        vtu_array_tag(f, inner, VTU_CONNECTIVITY, offset[VTU_CONNECTIVITY]) < 0 ||
        vtu_array_tag(f, inner, VTU_OFFSETS, offset[VTU_OFFSETS]) < 0 ||
        vtu_array_tag(f, inner, VTU_TYPES, offset[VTU_TYPES]) < 0 ||
        fprintf(f,
                "      </Cells>\n"
                "    </Piece>\n"
                "  </UnstructuredGrid>\n"
                "  <AppendedData encoding=\"raw\">\n"
                "   _") < 0)
        return -1;
    return 0;
}

/* The blocks below return 0, or -1 on a write error (errno set by fwrite). */

static int vtu_write_count(FILE *f, uint64_t bytes)
{
    unsigned char b[VTU_BLOCK_HEADER];
    put_u64(b, bytes);
    return fwrite(b, 1, sizeof b, f) == sizeof b ? 0 : -1;
}

/* n tuples of `components` floats, component c of tuple i from comp[c][i]. */
static int vtu_write_floats(FILE *f, const float *const *comp, int components, int n)
{
    if (vtu_write_count(f, (uint64_t)n * (uint64_t)components * 4u) != 0)
        return -1;
    unsigned char buf[CHUNK_RECORDS * 12];
    for (int start = 0; start < n; start += CHUNK_RECORDS) {
        int m = n - start < CHUNK_RECORDS ? n - start : CHUNK_RECORDS;
        unsigned char *b = buf;
        for (int k = 0; k < m; k++)
            for (int c = 0; c < components; c++, b += 4)
                put_f32(b, comp[c][start + k]);
        size_t bytes = (size_t)(b - buf);
        if (fwrite(buf, 1, bytes, f) != bytes)
            return -1;
    }
    return 0;
}

/* The Int64 run first, first + 1, ..., first + n - 1: vertex cell i holds
 * point i, and its end offset in the connectivity is i + 1. */
static int vtu_write_run(FILE *f, int64_t first, int n)
{
    if (vtu_write_count(f, (uint64_t)n * 8u) != 0)
        return -1;
    unsigned char buf[CHUNK_RECORDS * 8];
    for (int start = 0; start < n; start += CHUNK_RECORDS) {
        int m = n - start < CHUNK_RECORDS ? n - start : CHUNK_RECORDS;
        for (int k = 0; k < m; k++)
            put_u64(buf + 8 * k, (uint64_t)(first + start + k));
        if (fwrite(buf, 8, (size_t)m, f) != (size_t)m)
            return -1;
    }
    return 0;
}

static int vtu_write_types(FILE *f, int n)
{
    if (vtu_write_count(f, (uint64_t)n) != 0)
        return -1;
    unsigned char buf[CHUNK_RECORDS];
    memset(buf, VTU_VERTEX, sizeof buf);
    for (int start = 0; start < n; start += CHUNK_RECORDS) {
        size_t m = (size_t)(n - start < CHUNK_RECORDS ? n - start : CHUNK_RECORDS);
        if (fwrite(buf, 1, m, f) != m)
            return -1;
    }
    return 0;
}

static int vtu_write_time(FILE *f, double time)
{
    unsigned char b[8];
    uint64_t bits;
    memcpy(&bits, &time, sizeof bits);
    put_u64(b, bits);
    if (vtu_write_count(f, sizeof b) != 0 || fwrite(b, 1, sizeof b, f) != sizeof b)
        return -1;
    return 0;
}

int fl_frame_write_vtu(const char *path, const fl_particles *p, double time, fl_error *err)
{
    FILE *f;
    int rc = start_frame(path, p, 1, &f, err);
    if (rc != FL_OK)
        return rc;
    int n = p->count;

    /* Offsets count from the byte after the '_' that opens the data. */
    uint64_t offset[VTU_ARRAY_COUNT];
    uint64_t at = 0;
    for (int k = 0; k < VTU_ARRAY_COUNT; k++) {
        offset[k] = at;
        at += VTU_BLOCK_HEADER + vtu_block_bytes(k, n);
    }

    const float *const xyz[3] = {p->x, p->y, p->z};
    const float *const v[3] = {p->vx, p->vy, p->vz};
    const float *const rho[1] = {p->rho}, *const pressure[1] = {p->p};
    /* The blocks in the order of vtu_arrays, which set their offsets. */
    errno = 0;
    if (vtu_write_header(f, n, offset) != 0 || vtu_write_floats(f, xyz, 3, n) != 0 ||
        vtu_write_floats(f, v, 3, n) != 0 || vtu_write_floats(f, rho, 1, n) != 0 ||
        vtu_write_floats(f, pressure, 1, n) != 0 || vtu_write_run(f, 0, n) != 0 ||
        vtu_write_run(f, 1, n) != 0 || vtu_write_types(f, n) != 0 ||
        vtu_write_time(f, time) != 0 || fputs(VTU_TAIL, f) == EOF)
        return abandon_write(f, path, errno, err);
    return close_written(f, path, err);
}

/* ---- reading a .vtu frame back ----------------------------------------- */

/* The reader understands the files fl_frame_write_vtu writes, not VTK XML
 * in general: it finds each array's tag by Name in the XML header (no
 * nesting, comments or entities needed for that), checks what the tag
 * declares, then checks every block's byte count against the point count
 * and the file's length before it allocates anything. */

static int vtu_bad(fl_error *err, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int vtu_bad(fl_error *err, const char *path, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fl_fail(err, FL_ERR_INPUT, "%s: not a fluidlab .vtu frame: %s", path, what);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next tag <name ...> at or after s: a pointer to its '<', or NULL. */
static const char *xml_find_tag(const char *s, const char *name)
{
    size_t len = strlen(name);
    for (const char *t = strchr(s, '<'); t != NULL; t = strchr(t + 1, '<')) {
        char after = t[1 + len];
        if (strncmp(t + 1, name, len) == 0 && (is_space(after) || after == '/' || after == '>'))
            return t;
    }
    return NULL;
}

/* Copies the value of attribute key of the tag at tag (its '<') into buf.
 * Returns 1, or 0 when the tag has no such attribute, is malformed, or the
 * value does not fit in size bytes. */
static int xml_attr(const char *tag, const char *key, char *buf, size_t size)
{
    size_t key_len = strlen(key);
    const char *s = tag + 1;
    while (*s != '\0' && !is_space(*s) && *s != '/' && *s != '>')
        s++;
    for (;;) {
        while (is_space(*s))
            s++;
        if (*s == '\0' || *s == '/' || *s == '>')
            return 0;
        const char *name = s;
        while (*s != '\0' && *s != '=' && !is_space(*s) && *s != '/' && *s != '>')
            s++;
        size_t name_len = (size_t)(s - name);
        while (is_space(*s))
            s++;
        if (*s != '=')
            return 0;
        s++;
        while (is_space(*s))
            s++;
        char quote = *s;
        if (quote != '"' && quote != '\'')
            return 0;
        const char *value = s + 1;
        const char *end = strchr(value, quote);
        if (end == NULL)
            return 0;
        if (name_len == key_len && strncmp(name, key, key_len) == 0) {
            size_t value_len = (size_t)(end - value);
            if (value_len >= size)
                return 0;
            memcpy(buf, value, value_len);
            buf[value_len] = '\0';
            return 1;
        }
        s = end + 1;
    }
}

/* A decimal number, digits only (strtoull alone would take "-1" or " 1"). */
static int parse_u64(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return 0;
    *v = (uint64_t)x;
    return 1;
}

/* Where a frame's blocks are. */
typedef struct vtu_layout {
    int n;                             /* points = vertex cells */
    long data;                         /* file position of the byte after '_' */
    uint64_t offset[VTU_ARRAY_COUNT];  /* each block's offset from data */
} vtu_layout;

/* The XML header, text up to <AppendedData> (NUL-terminated). */
static int vtu_parse_header(const char *text, const char *path, vtu_layout *lay, fl_error *err)
{
    static const char *const file_attrs[][2] = {
        {"type", "UnstructuredGrid"}, {"byte_order", "LittleEndian"}, {"header_type", "UInt64"}};
    char v[64];

    const char *file = xml_find_tag(text, "VTKFile");
    if (file == NULL)
        return vtu_bad(err, path, "no <VTKFile> element");
    for (size_t i = 0; i < sizeof file_attrs / sizeof file_attrs[0]; i++)
        if (!xml_attr(file, file_attrs[i][0], v, sizeof v) || strcmp(v, file_attrs[i][1]) != 0)
            return vtu_bad(err, path, "VTKFile %s is not \"%s\"", file_attrs[i][0],
                           file_attrs[i][1]);

    const char *piece = xml_find_tag(file, "Piece");
    uint64_t points, cells;
    if (piece == NULL)
        return vtu_bad(err, path, "no <Piece> element");
    if (!xml_attr(piece, "NumberOfPoints", v, sizeof v) || !parse_u64(v, &points) ||
        points > (uint64_t)INT_MAX)
        return vtu_bad(err, path, "NumberOfPoints missing or not a count a store holds");
    if (!xml_attr(piece, "NumberOfCells", v, sizeof v) || !parse_u64(v, &cells) || cells != points)
        return vtu_bad(err, path, "NumberOfCells is not NumberOfPoints (%llu)",
                       (unsigned long long)points);
    lay->n = (int)points;

    int found[VTU_ARRAY_COUNT] = {0};
    for (const char *t = xml_find_tag(file, "DataArray"); t != NULL;
         t = xml_find_tag(t + 1, "DataArray")) {
        /* Arrays with other names are not ours to read: skipped. */
        if (!xml_attr(t, "Name", v, sizeof v))
            continue;
        int k = 0;
        while (k < VTU_ARRAY_COUNT && strcmp(v, vtu_arrays[k].name) != 0)
            k++;
        if (k == VTU_ARRAY_COUNT)
            continue;
        const vtu_array *a = &vtu_arrays[k];
        if (found[k])
            return vtu_bad(err, path, "two DataArrays named %s", a->name);
        found[k] = 1;

        uint64_t components = 1; /* VTK's default when the attribute is absent */
        if (!xml_attr(t, "type", v, sizeof v) || strcmp(v, a->type) != 0)
            return vtu_bad(err, path, "DataArray %s is not of type %s", a->name, a->type);
        if (xml_attr(t, "NumberOfComponents", v, sizeof v) && !parse_u64(v, &components))
            components = 0;
        if (components != (uint64_t)a->components)
            return vtu_bad(err, path, "DataArray %s does not have %d components", a->name,
                           a->components);
        if (!xml_attr(t, "format", v, sizeof v) || strcmp(v, "appended") != 0)
            return vtu_bad(err, path, "DataArray %s is not in the appended data", a->name);
        if (!xml_attr(t, "offset", v, sizeof v) || !parse_u64(v, &lay->offset[k]))
            return vtu_bad(err, path, "DataArray %s has no valid offset", a->name);
    }
    for (int k = 0; k < VTU_ARRAY_COUNT; k++)
        if (!found[k])
            return vtu_bad(err, path, "no DataArray named %s", vtu_arrays[k].name);
    return FL_OK;
}

/* A short read after the checks: an I/O error, or a file that changed
 * while it was read. */
static int vtu_read_failed(FILE *f, const char *path, fl_error *err)
{
    if (ferror(f))
        return fl_fail(err, FL_ERR_IO, "%s: read error: %s", path, errno_text(errno));
    return vtu_bad(err, path, "shorter than when it was checked");
}

/* Finds the '_' that opens the appended data, sets lay->data to the
 * position after it, and ends text at <AppendedData>: the rest is binary. */
static int vtu_find_data(char *text, const char *path, vtu_layout *lay, fl_error *err)
{
    char v[16];
    char *appended = (char *)xml_find_tag(text, "AppendedData");
    const char *s = appended != NULL ? strchr(appended, '>') : NULL;
    if (s == NULL)
        return vtu_bad(err, path, "no <AppendedData> element in the first %d bytes",
                       VTU_HEADER_MAX);
    if (!xml_attr(appended, "encoding", v, sizeof v) || strcmp(v, "raw") != 0)
        return vtu_bad(err, path, "AppendedData encoding is not \"raw\"");
    s++;
    while (is_space(*s))
        s++;
    if (*s != '_')
        return vtu_bad(err, path, "no '_' before the appended data");
    lay->data = (long)(s + 1 - text);
    *appended = '\0';
    return FL_OK;
}

/* Reads the XML header and finds the appended data in it. */
static int vtu_read_layout(FILE *f, long len, const char *path, vtu_layout *lay, fl_error *err)
{
    size_t size = len < VTU_HEADER_MAX ? (size_t)len : VTU_HEADER_MAX;
    char *text = malloc(size + 1);
    if (text == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "%s: no memory for the XML header", path);
    errno = 0;
    if (fread(text, 1, size, f) != size) {
        free(text);
        return vtu_read_failed(f, path, err);
    }
    /* The binary data that follows may hold NULs: text functions then stop
     * there, which is after the header. */
    text[size] = '\0';

    int rc = vtu_find_data(text, path, lay, err);
    if (rc == FL_OK)
        rc = vtu_parse_header(text, path, lay, err);
    free(text);
    return rc;
}

/* Checks every block's byte count against the point count and the file's
 * length, and that the closing tags follow the last block. */
static int vtu_check_blocks(FILE *f, long len, const char *path, const vtu_layout *lay,
                            fl_error *err)
{
    uint64_t room = (uint64_t)(len - lay->data); /* bytes after the '_' */
    uint64_t end = 0;
    for (int k = 0; k < VTU_ARRAY_COUNT; k++) {
        const char *name = vtu_arrays[k].name;
        uint64_t off = lay->offset[k];
        if (off > room || room - off < VTU_BLOCK_HEADER)
            return vtu_bad(err, path, "the %s block (offset %llu) is past the end of the file",
                           name, (unsigned long long)off);
        unsigned char b[VTU_BLOCK_HEADER];
        errno = 0;
        if (fseek(f, lay->data + (long)off, SEEK_SET) != 0 || fread(b, 1, sizeof b, f) != sizeof b)
            return vtu_read_failed(f, path, err);
        uint64_t bytes = get_u64(b);
        if (bytes > room - off - VTU_BLOCK_HEADER)
            return vtu_bad(err, path, "the %s block's %llu bytes run past the end of the file",
                           name, (unsigned long long)bytes);
        uint64_t want = vtu_block_bytes(k, lay->n);
        if (bytes != want)
            return vtu_bad(err, path, "the %s block holds %llu bytes, %d points need %llu", name,
                           (unsigned long long)bytes, lay->n, (unsigned long long)want);
        if (off + VTU_BLOCK_HEADER + bytes > end)
            end = off + VTU_BLOCK_HEADER + bytes;
    }

    char tail[sizeof VTU_TAIL];
    size_t tail_len = sizeof VTU_TAIL - 1;
    if (room - end != tail_len)
        return vtu_bad(err, path, "%llu bytes after the last block, expected the %zu of the "
                       "closing tags (a truncated or padded file)",
                       (unsigned long long)(room - end), tail_len);
    errno = 0;
    if (fseek(f, lay->data + (long)end, SEEK_SET) != 0 || fread(tail, 1, tail_len, f) != tail_len)
        return vtu_read_failed(f, path, err);
    if (memcmp(tail, VTU_TAIL, tail_len) != 0)
        return vtu_bad(err, path, "no </AppendedData></VTKFile> after the last block");
    return FL_OK;
}

/* Decodes the block of array k into comp[c][i] (its component c, tuple i). */
static int vtu_read_floats(FILE *f, const vtu_layout *lay, int k, float *const *comp)
{
    int components = vtu_arrays[k].components;
    if (fseek(f, lay->data + (long)(lay->offset[k] + VTU_BLOCK_HEADER), SEEK_SET) != 0)
        return -1;
    unsigned char buf[CHUNK_RECORDS * 12];
    for (int start = 0; start < lay->n; start += CHUNK_RECORDS) {
        int m = lay->n - start < CHUNK_RECORDS ? lay->n - start : CHUNK_RECORDS;
        size_t bytes = (size_t)m * (size_t)components * 4u;
        if (fread(buf, 1, bytes, f) != bytes)
            return -1;
        const unsigned char *b = buf;
        for (int i = 0; i < m; i++)
            for (int c = 0; c < components; c++, b += 4)
                comp[c][start + i] = get_f32(b);
    }
    return 0;
}

/* Everything but opening and closing the file; tmp is a new store. */
static int vtu_read(FILE *f, const char *path, fl_particles *tmp, double *time, fl_error *err)
{
    errno = 0;
    long len = -1;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        return fl_fail(err, FL_ERR_IO, "%s: cannot find the file's length: %s", path,
                       errno_text(errno));

    vtu_layout lay;
    int rc = vtu_read_layout(f, len, path, &lay, err);
    if (rc == FL_OK)
        rc = vtu_check_blocks(f, len, path, &lay, err);
    if (rc != FL_OK)
        return rc;

    /* Every block now fits in the file: n is bounded by its length. */
    if (fl_particles_reserve(tmp, lay.n, err) != FL_OK)
        return fl_fail(err, FL_ERR_MEMORY, "%s: no memory for %d particles", path, lay.n);
    float *const xyz[3] = {tmp->x, tmp->y, tmp->z};
    float *const v[3] = {tmp->vx, tmp->vy, tmp->vz};
    float *const rho[1] = {tmp->rho}, *const pressure[1] = {tmp->p};
    unsigned char b[8];
    errno = 0;
    if (vtu_read_floats(f, &lay, VTU_POINTS, xyz) != 0 ||
        vtu_read_floats(f, &lay, VTU_VELOCITY, v) != 0 ||
        vtu_read_floats(f, &lay, VTU_DENSITY, rho) != 0 ||
        vtu_read_floats(f, &lay, VTU_PRESSURE, pressure) != 0 ||
        fseek(f, lay.data + (long)(lay.offset[VTU_TIME] + VTU_BLOCK_HEADER), SEEK_SET) != 0 ||
        fread(b, 1, sizeof b, f) != sizeof b)
        return vtu_read_failed(f, path, err);

    uint64_t bits = get_u64(b);
    memcpy(time, &bits, sizeof *time);
    tmp->count = lay.n;
    if (lay.n > 0) {
        size_t bytes = (size_t)lay.n * sizeof(float);
        memcpy(tmp->px, tmp->x, bytes);
        memcpy(tmp->py, tmp->y, bytes);
        memcpy(tmp->pz, tmp->z, bytes);
    }
    return FL_OK;
}

int fl_frame_read_vtu(const char *path, fl_particles *out, double *time, fl_error *err)
{
    if (path == NULL || out == NULL)
        return fl_fail(err, FL_ERR_INPUT, "frame input: path or particle store is NULL");
    errno = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fl_fail(err, FL_ERR_IO, "%s: cannot open for reading: %s", path,
                       errno_text(errno));

    /* Read into a new store, so that *out stays as it was on failure. */
    fl_particles tmp = {0};
    double t;
    int rc = vtu_read(f, path, &tmp, &t, err);
    fclose(f);
    if (rc != FL_OK) {
        fl_particles_free(&tmp);
        return rc;
    }
    fl_particles_free(out);
    *out = tmp;
    if (time != NULL)
        *time = t;
    return FL_OK;
}

/* ---- ParaView collection (.pvd) ---------------------------------------- */

/* s as an XML attribute value: the five characters XML reserves become
 * entities. Returns 0, or -1 on a write error. */
static int write_xml_escaped(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        const char *entity = NULL;
        switch (*s) {
        case '&': entity = "&amp;"; break;
        case '<': entity = "&lt;"; break;
        case '>': entity = "&gt;"; break;
        case '"': entity = "&quot;"; break;
        case '\'': entity = "&apos;"; break;
        default: break;
        }
        if (entity != NULL ? fputs(entity, f) == EOF : fputc(*s, f) == EOF)
            return -1;
    }
    return 0;
}

typedef struct pvd_data {
    const char *const *files;
    const double *times;
    int n;
} pvd_data;

static int pvd_write_entries(FILE *f, const void *data)
{
    const pvd_data *d = data;
    const char *const *files = d->files;
    const double *times = d->times;
    const int n = d->n;
    if (fprintf(f, "<?xml version=\"1.0\"?>\n"
                   "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                   "  <Collection>\n") < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (fprintf(f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"",
                    times[i]) < 0 ||
            write_xml_escaped(f, files[i]) != 0 || fputs("\"/>\n", f) == EOF)
            return -1;
    return fputs("  </Collection>\n</VTKFile>\n", f) == EOF ? -1 : 0;
}

int fl_pvd_write(const char *path, const char *const *files, const double *times, int n,
                 fl_error *err)
{
    if (path == NULL || n < 0 || (n > 0 && (files == NULL || times == NULL)))
        return fl_fail(err, FL_ERR_INPUT, "collection output: path, file names or times missing");
    for (int i = 0; i < n; i++) {
        if (files[i] == NULL || files[i][0] == '\0')
            return fl_fail(err, FL_ERR_INPUT, "%s: data set %d has no file name", path, i);
        /* XML attribute values cannot hold control characters (tabs and
         * newlines would come back as spaces). */
        for (const char *s = files[i]; *s != '\0'; s++)
            if ((unsigned char)*s < 0x20)
                return fl_fail(err, FL_ERR_INPUT,
                               "%s: file name %d has a control character", path, i);
        if (!isfinite(times[i]))
            return fl_fail(err, FL_ERR_INPUT, "%s: time %d is %g, not a finite number", path, i,
                           times[i]);
    }

    /* Written beside the old file and renamed over it, so that a reader,
     * or a run killed part-way, only ever sees a whole collection. */
    const pvd_data d = {files, times, n};
    return fl_write_whole(path, pvd_write_entries, &d, err);
}

int fl_write_whole(const char *path, int (*write)(FILE *f, const void *data), const void *data, fl_error *err)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmp");
    if (tmp == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "%s: no memory for the file name", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", sizeof ".tmp");

    int rc = FL_ERR_IO;
    FILE *f = open_for_writing(tmp, err);
    if (f != NULL) {
        errno = 0;
        if (write(f, data) != 0)
            rc = abandon_write(f, tmp, errno, err);
        else
            rc = close_written(f, tmp, err);
    }
    if (rc == FL_OK) {
        errno = 0;
        if (rename(tmp, path) != 0) {
            int e = errno;
            remove(tmp);
            rc = fl_fail(err, FL_ERR_IO, "%s: cannot replace it with %s: %s", path, tmp,
                         errno_text(e));
        }
    }
    free(tmp);
    return rc;
}

int fl_read_text(const char *path, long max_bytes, const char *what, char **text, fl_error *err)
{
    *text = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return fl_fail(err, FL_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    /* in chunks rather than trusting ftell: pipes too */
    for (;;) {
        if (len + 1 >= cap) {
            size_t ncap = cap == 0 ? 16384 : 2 * cap;
            if (ncap > (size_t)max_bytes + 2)
                ncap = (size_t)max_bytes + 2;
            if (len + 1 >= ncap) {
                free(buf);
                fclose(f);
                return fl_fail(err, FL_ERR_INPUT, "%s: expected %s of at most %ld bytes, got a larger file", path,
                               what, max_bytes);
            }
            char *grown = realloc(buf, ncap);
            if (!grown) {
                free(buf);
                fclose(f);
                return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory reading the file", path);
            }
            buf = grown, cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        if (e == EISDIR)
            return fl_fail(err, FL_ERR_INPUT, "%s: expected %s, got a folder", path, what);
        return fl_fail(err, FL_ERR_INPUT, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(f);
    buf[len] = '\0';
    if (strlen(buf) != len) {
        size_t at = strlen(buf);
        free(buf);
        return fl_fail(err, FL_ERR_INPUT, "%s: expected %s, got a NUL byte at offset %zu", path, what, at);
    }
    *text = buf;
    return FL_OK;
}
