/* obj.c: the Wavefront OBJ reader and the mesh queries of obj.h (signed
 * volume, bounding box, closedness).
 *
 * The reader walks the text line by line without copying it (a line ends
 * at LF, CR LF or CR); a line is split into whitespace-separated tokens, '#' starts a comment, and every
 * failure is one message "<file>:<line>: <statement>: expected ..., got ...".
 * Vertices and triangles go to arrays that double when full. */

#include "obj.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* An OBJ file larger than this is surely not one we can voxelise. */
#define MAX_FILE_BYTES (1024L * 1024 * 1024)

/* Counts stay int (the mesh's fields); a third of INT_MAX leaves room for
 * 3 * count as an index. */
#define MAX_COUNT (INT_MAX / 3)

/* Longest token quoted in a message, and longest number parsed. */
#define TOKEN_LEN 48

/* ---- the parser's state -------------------------------------------------- */

typedef struct parser {
    const char *name;
    long line;
    fl_error *err;
    fl_mesh *mesh;
    int vertex_cap, triangle_cap;
    int texcoord_count, normal_count;
} parser;

/* One token of a line: [start, start + len). */
typedef struct token {
    const char *start;
    size_t len;
} token;

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* The next token in [*at, end), or a token of length 0 at the end. */
static token next_token(const char **at, const char *end)
{
    const char *p = *at;
    token t;
    while (p < end && is_space(*p))
        p++;
    t.start = p;
    while (p < end && !is_space(*p))
        p++;
    t.len = (size_t)(p - t.start);
    *at = p;
    return t;
}

static int token_is(token t, const char *word)
{
    return t.len == strlen(word) && memcmp(t.start, word, t.len) == 0;
}

/* The token quoted for a message: at most TOKEN_LEN - 1 characters,
 * control characters shown as '?', "..." when cut. */
static void quote(token t, char *buf)
{
    size_t n = t.len < TOKEN_LEN - 1 ? t.len : TOKEN_LEN - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)t.start[i];
        buf[i] = (ch < 32 || ch == 127) ? '?' : (char)ch;
    }
    buf[n] = '\0';
    if (t.len > n)
        memcpy(buf + n - 3, "...", 4);
}

/* "<file>:<line>: <what>, got <token>" (the end of the line when the
 * token is empty). */
static int fail_token(parser *ps, const char *what, token t)
{
    char text[TOKEN_LEN];
    if (t.len == 0)
        return fl_fail(ps->err, FL_ERR_INPUT, "%s:%ld: %s, got the end of the line", ps->name,
                       ps->line, what);
    quote(t, text);
    return fl_fail(ps->err, FL_ERR_INPUT, "%s:%ld: %s, got \"%s\"", ps->name, ps->line, what, text);
}

/* ---- growth --------------------------------------------------------------- */

/* Makes room for one more item of `width` elements of `size` bytes in
 * *array (count used, *cap allocated), doubling the capacity. */
static int grow(void **array, int count, int *cap, size_t width, size_t size, parser *ps)
{
    if (count < *cap)
        return FL_OK;
    if (count >= MAX_COUNT)
        return fl_fail(ps->err, FL_ERR_MEMORY, "%s:%ld: more than %d vertices or triangles",
                       ps->name, ps->line, MAX_COUNT);
    int fresh_cap = *cap > 0 ? (*cap > MAX_COUNT / 2 ? MAX_COUNT : *cap * 2) : 1024;
    void *fresh = realloc(*array, (size_t)fresh_cap * width * size);
    if (!fresh)
        return fl_fail(ps->err, FL_ERR_MEMORY, "%s:%ld: out of memory for %d vertices or triangles",
                       ps->name, ps->line, fresh_cap);
    *array = fresh;
    *cap = fresh_cap;
    return FL_OK;
}

/* ---- statements ----------------------------------------------------------- */

/* Parses t as a finite number into *out; 0 when it is not one. */
static int parse_number(token t, double *out)
{
    char buf[TOKEN_LEN];
    char *stop;
    if (t.len == 0 || t.len >= sizeof buf)
        return 0;
    memcpy(buf, t.start, t.len);
    buf[t.len] = '\0';
    errno = 0;
    *out = strtod(buf, &stop);
    return *stop == '\0' && errno != ERANGE && isfinite(*out);
}

/* Parses [s, s + len) as a non-zero int into *out; 0 when it is not one. */
static int parse_index(const char *s, size_t len, long *out)
{
    size_t i = 0;
    long value = 0;
    int negative = 0;
    if (len > 0 && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        i = 1;
    }
    if (i == len)
        return 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || value > INT_MAX / 10)
            return 0;
        value = value * 10 + (s[i] - '0');
    }
    *out = negative ? -value : value;
    return value > 0 && value <= INT_MAX;
}

/* Resolves a 1-based or negative (relative to the last one read) index
 * among count items into a 0-based one; -1 when out of range. */
static long resolve(long index, int count)
{
    long k = index > 0 ? index - 1 : count + index;
    return (k >= 0 && k < count) ? k : -1;
}

/* v x y z [w] (w ignored), or MeshLab's v x y z r g b (colour ignored). */
static int parse_vertex(parser *ps, const char **at, const char *end)
{
    fl_mesh *m = ps->mesh;
    double xyz[3], ignored;
    int extra = 0;
    for (int k = 0; k < 3; k++) {
        token t = next_token(at, end);
        if (!parse_number(t, &xyz[k]))
            return fail_token(ps, k == 0 ? "v: expected the x coordinate (a number)"
                                  : k == 1 ? "v: expected the y coordinate (a number)"
                                           : "v: expected the z coordinate (a number)",
                              t);
    }
    for (token t = next_token(at, end); t.len > 0; t = next_token(at, end)) {
        if (extra == 3 || !parse_number(t, &ignored))
            return fail_token(ps, "v: expected x y z, x y z w or x y z r g b", t);
        extra++;
    }
    if (extra == 2)
        return fl_fail(ps->err, FL_ERR_INPUT,
                       "%s:%ld: v: expected x y z, x y z w or x y z r g b, got 5 numbers",
                       ps->name, ps->line);
    int rc = grow((void **)&m->v, m->vertex_count, &ps->vertex_cap, 3, sizeof(double), ps);
    if (rc != FL_OK)
        return rc;
    memcpy(m->v + 3 * (size_t)m->vertex_count, xyz, sizeof xyz);
    m->vertex_count++;
    return FL_OK;
}

/* One corner of a face: v, v/vt, v//vn or v/vt/vn. Stores the 0-based
 * vertex index in *vertex. */
static int parse_corner(parser *ps, token t, int *vertex)
{
    const char *s = t.start, *end = t.start + t.len;
    const char *slash1 = memchr(s, '/', t.len);
    const char *slash2 = slash1 ? memchr(slash1 + 1, '/', (size_t)(end - slash1 - 1)) : NULL;
    const char *v_end = slash1 ? slash1 : end;
    long index, k;

    if (slash2 && memchr(slash2 + 1, '/', (size_t)(end - slash2 - 1)))
        return fail_token(ps, "f: expected v, v/vt, v//vn or v/vt/vn", t);
    if (!parse_index(s, (size_t)(v_end - s), &index))
        return fail_token(ps, "f: expected a vertex index (a non-zero integer)", t);
    k = resolve(index, ps->mesh->vertex_count);
    if (k < 0)
        return fl_fail(ps->err, FL_ERR_INPUT,
                       "%s:%ld: f: vertex index %ld is out of range (%d vertices so far)", ps->name,
                       ps->line, index, ps->mesh->vertex_count);
    if (slash1) {
        const char *vt_end = slash2 ? slash2 : end;
        size_t vt_len = (size_t)(vt_end - slash1 - 1);
        if (vt_len > 0 || !slash2) {
            if (!parse_index(slash1 + 1, vt_len, &index))
                return fail_token(ps, "f: expected a texture coordinate index after '/'", t);
            if (resolve(index, ps->texcoord_count) < 0)
                return fl_fail(ps->err, FL_ERR_INPUT,
                               "%s:%ld: f: texture coordinate index %ld is out of range (%d so far)",
                               ps->name, ps->line, index, ps->texcoord_count);
        }
        if (slash2) {
            if (!parse_index(slash2 + 1, (size_t)(end - slash2 - 1), &index))
                return fail_token(ps, "f: expected a normal index after the second '/'", t);
            if (resolve(index, ps->normal_count) < 0)
                return fl_fail(ps->err, FL_ERR_INPUT,
                               "%s:%ld: f: normal index %ld is out of range (%d so far)", ps->name,
                               ps->line, index, ps->normal_count);
        }
    }
    *vertex = (int)k;
    return FL_OK;
}

/* f c1 c2 c3 [c4 ...]: a polygon, split into the fan (c1, ck, ck+1). */
static int parse_face(parser *ps, const char **at, const char *end)
{
    fl_mesh *m = ps->mesh;
    int first = 0, previous = 0, corners = 0, rc;
    for (token t = next_token(at, end); t.len > 0; t = next_token(at, end)) {
        int vertex = 0;
        rc = parse_corner(ps, t, &vertex);
        if (rc != FL_OK)
            return rc;
        if (corners == 0) {
            first = vertex;
        } else if (corners >= 2) {
            rc = grow((void **)&m->tri, m->triangle_count, &ps->triangle_cap, 3, sizeof(int), ps);
            if (rc != FL_OK)
                return rc;
            int *tri = m->tri + 3 * (size_t)m->triangle_count;
            tri[0] = first;
            tri[1] = previous;
            tri[2] = vertex;
            m->triangle_count++;
        }
        previous = vertex;
        corners++;
    }
    if (corners < 3)
        return fl_fail(ps->err, FL_ERR_INPUT, "%s:%ld: f: expected at least 3 vertices, got %d",
                       ps->name, ps->line, corners);
    return FL_OK;
}

/* Statements read and skipped: they carry nothing a solid fill needs. */
static int skipped(token t)
{
    static const char *const words[] = {"vp", "o", "g", "s", "l", "p", "usemtl", "mtllib"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (token_is(t, words[i]))
            return 1;
    return 0;
}

static int parse_line(parser *ps, const char *start, const char *end)
{
    const char *hash = memchr(start, '#', (size_t)(end - start));
    const char *at = start;
    token word;
    if (hash)
        end = hash;
    word = next_token(&at, end);
    if (word.len == 0 || skipped(word))
        return FL_OK;
    if (token_is(word, "v"))
        return parse_vertex(ps, &at, end);
    if (token_is(word, "f"))
        return parse_face(ps, &at, end);
    if (token_is(word, "vt")) {
        ps->texcoord_count += ps->texcoord_count < INT_MAX;
        return FL_OK;
    }
    if (token_is(word, "vn")) {
        ps->normal_count += ps->normal_count < INT_MAX;
        return FL_OK;
    }
    return fail_token(ps,
                      "expected a statement (v, f, vt, vn, vp, o, g, s, l, p, usemtl, mtllib)",
                      word);
}

/* ---- the reader ----------------------------------------------------------- */

static void set_source(fl_mesh *m, const char *name)
{
    size_t n = strlen(name);
    if (n >= FL_MESH_SOURCE_LEN)
        n = FL_MESH_SOURCE_LEN - 1;
    memcpy(m->source, name, n);
    m->source[n] = '\0';
}

int fl_obj_parse(const char *text, const char *name, fl_mesh *out, fl_error *err)
{
    parser ps = {name, 0, err, out, 0, 0, 0, 0};
    const char *line = text;
    memset(out, 0, sizeof *out);
    set_source(out, name);
    while (*line != '\0') {
        /* a line ends at LF, CR LF or a lone CR (classic Mac OS files) */
        const char *end = line + strcspn(line, "\r\n");
        ps.line++;
        int rc = parse_line(&ps, line, end);
        if (rc != FL_OK) {
            fl_mesh_free(out);
            return rc;
        }
        line = end[0] == '\r' && end[1] == '\n' ? end + 2 : end[0] ? end + 1 : end;
    }
    if (out->triangle_count == 0) {
        fl_mesh_free(out);
        return fl_fail(err, FL_ERR_INPUT, "%s: expected faces (f lines), got none", name);
    }
    return FL_OK;
}

int fl_obj_read(const char *path, fl_mesh *out, fl_error *err)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long size;
    size_t got;
    int rc;
    memset(out, 0, sizeof *out);
    if (!f)
        return fl_fail(err, FL_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) { /* fopen opens a folder; its size is nonsense */
        fclose(f);
        return fl_fail(err, FL_ERR_IO, "%s: a folder, not a file", path);
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return fl_fail(err, FL_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    }
    if (size > MAX_FILE_BYTES) {
        fclose(f);
        return fl_fail(err, FL_ERR_INPUT, "%s: %ld bytes, more than the %ld an OBJ may have", path,
                       size, MAX_FILE_BYTES);
    }
    text = malloc((size_t)size + 1);
    if (!text) {
        fclose(f);
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %ld bytes", path, size);
    }
    got = fread(text, 1, (size_t)size, f);
    fclose(f);
    if (got != (size_t)size) {
        free(text);
        return fl_fail(err, FL_ERR_IO, "%s: cannot read: short read", path);
    }
    text[size] = '\0';
    if (memchr(text, '\0', (size_t)size)) {
        free(text);
        return fl_fail(err, FL_ERR_INPUT, "%s: expected text, got a NUL byte", path);
    }
    /* a UTF-8 byte order mark, which some editors write, is not text */
    const size_t bom = size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    rc = fl_obj_parse(text + bom, path, out, err);
    free(text);
    return rc;
}

/* ---- queries -------------------------------------------------------------- */

void fl_mesh_transform(fl_mesh *m, const double a[12])
{
    double det = a[0] * (a[5] * a[10] - a[6] * a[9]) - a[1] * (a[4] * a[10] - a[6] * a[8]) +
                 a[2] * (a[4] * a[9] - a[5] * a[8]);
    for (int k = 0; k < m->vertex_count; k++) {
        double *p = m->v + 3 * (size_t)k;
        double x = p[0], y = p[1], z = p[2];
        for (int r = 0; r < 3; r++)
            p[r] = a[4 * r] * x + a[4 * r + 1] * y + a[4 * r + 2] * z + a[4 * r + 3];
    }
    if (det < 0) {
        for (int t = 0; t < m->triangle_count; t++) {
            int *tri = m->tri + 3 * (size_t)t;
            int swap = tri[1];
            tri[1] = tri[2];
            tri[2] = swap;
        }
    }
}

void fl_mesh_bounds(const fl_mesh *m, double lo[3], double hi[3])
{
    for (int d = 0; d < 3; d++) {
        lo[d] = m->vertex_count > 0 ? m->v[d] : 0.0;
        hi[d] = lo[d];
    }
    for (int k = 1; k < m->vertex_count; k++)
        for (int d = 0; d < 3; d++) {
            double x = m->v[3 * (size_t)k + d];
            lo[d] = x < lo[d] ? x : lo[d];
            hi[d] = x > hi[d] ? x : hi[d];
        }
}

double fl_mesh_volume(const fl_mesh *m)
{
    /* The tetrahedra share the box's centre rather than the origin, so
     * that a mesh far from the origin does not lose digits to cancellation. */
    double lo[3], hi[3], c[3], sum = 0.0;
    fl_mesh_bounds(m, lo, hi);
    for (int d = 0; d < 3; d++)
        c[d] = 0.5 * (lo[d] + hi[d]);
    for (int t = 0; t < m->triangle_count; t++) {
        const int *tri = m->tri + 3 * (size_t)t;
        const double *p0 = m->v + 3 * (size_t)tri[0], *p1 = m->v + 3 * (size_t)tri[1],
                     *p2 = m->v + 3 * (size_t)tri[2];
        double a[3], b[3], e[3];
        for (int d = 0; d < 3; d++) {
            a[d] = p0[d] - c[d];
            b[d] = p1[d] - c[d];
            e[d] = p2[d] - c[d];
        }
        sum += a[0] * (b[1] * e[2] - b[2] * e[1]) - a[1] * (b[0] * e[2] - b[2] * e[0]) +
               a[2] * (b[0] * e[1] - b[1] * e[0]);
    }
    return sum / 6.0;
}

/* A directed edge (from, to) of a triangle, keyed by its undirected
 * vertex pair (lo < hi). */
typedef struct edge {
    int lo, hi;
    int forward; /* 1: the triangle goes lo -> hi; 0: hi -> lo */
} edge;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->forward - b->forward;
}

int fl_mesh_check_closed(const fl_mesh *m, fl_error *err)
{
    size_t n = 3 * (size_t)m->triangle_count;
    edge *edges;
    if (m->triangle_count == 0)
        return fl_fail(err, FL_ERR_INPUT, "%s: the mesh has no triangles", m->source);
    for (int t = 0; t < m->triangle_count; t++) {
        const int *tri = m->tri + 3 * (size_t)t;
        for (int c = 0; c < 3; c++)
            if (tri[c] == tri[(c + 1) % 3])
                return fl_fail(err, FL_ERR_INPUT,
                               "%s: triangle %d repeats vertex v%d: a degenerate face", m->source,
                               t + 1, tri[c] + 1);
    }
    edges = malloc(n * sizeof *edges);
    if (!edges)
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu edges", m->source, n);
    for (size_t k = 0; k < n; k++) {
        int from = m->tri[k], to = m->tri[k % 3 == 2 ? k - 2 : k + 1];
        edges[k].lo = from < to ? from : to;
        edges[k].hi = from < to ? to : from;
        edges[k].forward = from < to;
    }
    qsort(edges, n, sizeof *edges, edge_cmp);
    for (size_t k = 0; k < n;) {
        size_t j = k + 1;
        while (j < n && edges[j].lo == edges[k].lo && edges[j].hi == edges[k].hi)
            j++;
        size_t uses = j - k;
        if (uses != 2 || edges[k].forward == edges[k + 1].forward) {
            int lo = edges[k].lo + 1, hi = edges[k].hi + 1, rc;
            if (uses == 1)
                rc = fl_fail(err, FL_ERR_INPUT,
                             "%s: edge (v%d, v%d) is used by 1 triangle: the mesh has a hole",
                             m->source, lo, hi);
            else if (uses > 2)
                rc = fl_fail(err, FL_ERR_INPUT,
                             "%s: edge (v%d, v%d) is used by %zu triangles: the mesh is not manifold",
                             m->source, lo, hi, uses);
            else
                rc = fl_fail(err, FL_ERR_INPUT,
                             "%s: edge (v%d, v%d) is used twice in the same direction: the faces "
                             "are not consistently oriented",
                             m->source, lo, hi);
            free(edges);
            return rc;
        }
        k = j;
    }
    free(edges);
    return FL_OK;
}
