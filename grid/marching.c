/* marching.c: marching cubes (marching.h).
 *
 * Three passes over the grid, each split by z layers over the threads:
 *  1. count the crossed grid edges of each node layer (its x and y edges
 *     and the z edges up to the next layer);
 *  2. give them vertex ids in layer order (a prefix sum of the counts),
 *     write each id into the per-axis edge arrays and compute the vertex;
 *  3. for each cube, trace its polygons from the face rule and fan them
 *     into triangles (around a vertex added at a polygon's centre where
 *     no fan keeps its diagonals off the cube's faces), each thread into
 *     its own buffer over a contiguous range of layers; the buffers are
 *     joined in thread order, which is layer order, and the added
 *     vertices numbered after the edge vertices.
 * The ids and the triangle order depend on the grid alone, not on the
 * thread count. */
#include "marching.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mc_tables.h"

/* The grid the cubes run on: the caller's field or its padded copy. */
typedef struct grid {
    const float *phi;
    int n[3];
    double lo[3];
    double h;
} grid;

static size_t node_index(const grid *g, int i, int j, int k)
{
    return (size_t)i + (size_t)g->n[0] * ((size_t)j + (size_t)g->n[1] * (size_t)k);
}

/* Whether the edge between values a and b is crossed by the surface. */
static int crossed(float a, float b)
{
    return (a < 0.0f) != (b < 0.0f);
}

/* The gradient of phi at node (i, j, k): central differences inside,
 * one-sided ones on the grid's boundary. */
static void gradient(const grid *g, int i, int j, int k, double out[3])
{
    const int at[3] = {i, j, k};
    const size_t stride[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * (size_t)g->n[1]};
    const size_t c = node_index(g, i, j, k);
    for (int a = 0; a < 3; a++) {
        size_t lo = at[a] > 0 ? c - stride[a] : c;
        size_t hi = at[a] < g->n[a] - 1 ? c + stride[a] : c;
        double span = (double)((hi - lo) / stride[a]) * g->h;
        out[a] = ((double)g->phi[hi] - (double)g->phi[lo]) / span;
    }
}

/* The vertex on the edge from node (i, j, k) along axis a: its position
 * by linear interpolation of phi and its normal from the interpolated
 * gradient (left zero where the gradient is zero). */
static void edge_vertex(const grid *g, int i, int j, int k, int a, float pos[3], float normal[3])
{
    int at[3] = {i, j, k};
    size_t p = node_index(g, i, j, k);
    at[a]++;
    size_t q = node_index(g, at[0], at[1], at[2]);
    double fa = g->phi[p], fb = g->phi[q];
    double t = fa / (fa - fb);
    double ga[3], gb[3], nrm[3], len2 = 0.0;
    gradient(g, i, j, k, ga);
    gradient(g, at[0], at[1], at[2], gb);
    at[a]--;
    for (int d = 0; d < 3; d++) {
        pos[d] = (float)(g->lo[d] + g->h * (at[d] + (d == a ? t : 0.0)));
        nrm[d] = (1.0 - t) * ga[d] + t * gb[d];
        len2 += nrm[d] * nrm[d];
    }
    double inv = len2 > 0.0 ? 1.0 / sqrt(len2) : 0.0;
    for (int d = 0; d < 3; d++)
        normal[d] = (float)(nrm[d] * inv);
}

/* Visits the crossed edges of node layer k in id order: per node (x
 * fastest), its x, y and z edges. With pos == NULL it only counts them;
 * otherwise it numbers them from first, writing ids into eid and vertices
 * into pos and normal. Edges not crossed are left alone: pass 3 reads the
 * ids of crossed edges only, so most of eid is never written (nor, for a
 * grid mostly away from the surface, given memory by the system). Returns
 * the count. */
static long long layer_vertices(const grid *g, int k, int *const eid[3], long long first,
                                float *pos, float *normal)
{
    const size_t stride[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * (size_t)g->n[1]};
    long long count = 0;
    for (int j = 0; j < g->n[1]; j++)
        for (int i = 0; i < g->n[0]; i++) {
            const int at[3] = {i, j, k};
            const size_t c = node_index(g, i, j, k);
            for (int a = 0; a < 3; a++) {
                int hit = at[a] + 1 < g->n[a] && crossed(g->phi[c], g->phi[c + stride[a]]);
                if (pos != NULL && hit) {
                    eid[a][c] = (int)(first + count);
                    edge_vertex(g, i, j, k, a, pos + 3 * (first + count), normal + 3 * (first + count));
                }
                count += hit;
            }
        }
    return count;
}

/* Whether the ambiguous face with values v (counter-clockwise) joins its
 * two inside corners: the asymptotic decider. The bilinear interpolant's
 * saddle value (v0 v2 - v1 v3) / (v0 + v2 - v1 - v3) is inside (< 0) when
 * the product of the inside diagonal exceeds that of the outside one.
 * Products of two floats are exact in double, so both cubes on the face
 * decide alike; a tie (saddle exactly 0) counts as outside. */
static int face_joins_inside(const float v[4])
{
    double d02 = (double)v[0] * v[2], d13 = (double)v[1] * v[3];
    return v[0] < 0.0f ? d02 > d13 : d13 > d02;
}

/* What one thread makes in pass 3, over a contiguous range of layers:
 * vertex id triples, and the vertices it adds inside cubes (6 floats
 * each: position, normal), which the triples name by -1 - their index. */
typedef struct piece {
    int *ids;
    size_t nids, ids_cap;
    float *extra;
    size_t nextra, extra_cap;
    int failed;
} piece;

/* buf, holding *cap items of size bytes, grown to hold need items: the
 * buffer (perhaps moved), or NULL when out of memory (buf is then kept). */
static void *reserve(void *buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return buf;
    size_t grown = *cap < 4096 ? 4096 : 2 * *cap;
    grown = grown < need ? need : grown;
    void *b = grown <= SIZE_MAX / size ? realloc(buf, grown * size) : NULL;
    if (b != NULL)
        *cap = grown;
    return b;
}

static void add_triangle(piece *p, int a, int b, int c)
{
    int *ids = p->failed ? NULL : reserve(p->ids, &p->ids_cap, p->nids + 3, sizeof(int));
    if (ids == NULL) {
        p->failed = 1;
        return;
    }
    p->ids = ids;
    p->ids[p->nids++] = a, p->ids[p->nids++] = b, p->ids[p->nids++] = c;
}

/* Adds a vertex at the mean of the loop's n vertices (ids in m), with
 * their mean normal, normalized; returns its id in p's numbering. */
static int add_centre(piece *p, const fl_trimesh *m, const int *ids, int n)
{
    float *extra = p->failed || p->nextra >= (size_t)INT_MAX
                       ? NULL
                       : reserve(p->extra, &p->extra_cap, 6 * (p->nextra + 1), sizeof(float));
    if (extra == NULL) {
        p->failed = 1;
        return 0;
    }
    p->extra = extra;
    double sum[6] = {0.0}, len2 = 0.0;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            sum[d] += m->pos[3 * (size_t)ids[i] + d];
            sum[3 + d] += m->normal[3 * (size_t)ids[i] + d];
        }
    for (int d = 3; d < 6; d++)
        len2 += sum[d] * sum[d];
    float *x = p->extra + 6 * p->nextra;
    for (int d = 0; d < 3; d++) {
        x[d] = (float)(sum[d] / n);
        x[3 + d] = (float)(len2 > 0.0 ? sum[3 + d] / sqrt(len2) : 0.0);
    }
    return -1 - (int)p->nextra++;
}

/* The first place in a loop of n crossed cube edges from which a fan's
 * diagonals join no two vertices on one cube face (faces: the face bits
 * of each edge), or -1 when there is none. */
static int fan_apex(const int *loop, int n, const int faces[12])
{
    for (int s = 0; s < n; s++) {
        int clear = 1;
        for (int i = 2; i + 1 < n && clear; i++)
            clear = !(faces[loop[s]] & faces[loop[(s + i) % n]]);
        if (clear)
            return s;
    }
    return -1;
}

/* The triangles of one cube with corner values v and the vertex ids of its
 * crossed edges in id (the vertices themselves in m), added to p.
 *
 * Seen from outside a face, with its corners counter-clockwise, the
 * surface cuts the face in segments that run from an edge where the walk
 * goes from outside to inside to an edge where it comes back out. Each
 * crossed cube edge is the start of a segment on one of its two faces and
 * the end of one on the other, so next[] (segment start -> end) links the
 * crossed edges into closed loops, each counter-clockwise seen from
 * outside the surface. On a face with one such pair of crossings the pair
 * is the segment; on an ambiguous face (inside and outside corners
 * alternate) the decider picks whether the segments cut off the two
 * inside corners or the two outside ones.
 *
 * A loop is fanned from a vertex whose diagonals stay off the cube's
 * faces: a diagonal joining two crossings of one face could also be made
 * by the cube across it, and the edge would then have four triangles.
 * Only a loop through both segments of an ambiguous face can have such
 * pairs; when every fan has one, the loop is fanned around a vertex added
 * at its centre. */
static void cube_triangles(const float v[8], const int id[12], const fl_trimesh *m, piece *p)
{
    int inside = 0;
    for (int c = 0; c < 8; c++)
        inside |= (v[c] < 0.0f) << c;
    if (inside == 0 || inside == 255)
        return;

    int next[12], faces[12] = {0};
    for (int e = 0; e < 12; e++)
        next[e] = -1;
    for (int f = 0; f < 6; f++) {
        const int *fc = fl_mc_face_corner[f], *fe = fl_mc_face_edge[f];
        int in[4];
        float fv[4];
        for (int q = 0; q < 4; q++) {
            in[q] = (inside >> fc[q]) & 1;
            fv[q] = v[fc[q]];
            faces[fe[q]] |= 1 << f;
        }
        int ambiguous = in[0] == in[2] && in[1] == in[3] && in[0] != in[1];
        int joins = ambiguous && face_joins_inside(fv);
        for (int q = 0; q < 4; q++) {
            if (in[q] || !in[(q + 1) & 3])
                continue;
            int r = (q + 1) & 3;
            if (joins)
                r = (q + 3) & 3;
            else
                while (!in[r] || in[(r + 1) & 3])
                    r = (r + 1) & 3;
            next[fe[q]] = fe[r];
        }
    }

    int seen = 0;
    for (int e = 0; e < 12; e++) {
        if (next[e] < 0 || ((seen >> e) & 1))
            continue;
        int loop[12], ids[12], n = 0;
        for (int a = e; n == 0 || a != e; a = next[a]) {
            seen |= 1 << a;
            loop[n] = a;
            ids[n++] = id[a];
        }
        int s = fan_apex(loop, n, faces);
        if (s >= 0) {
            for (int i = 1; i + 1 < n; i++)
                add_triangle(p, ids[s], ids[(s + i) % n], ids[(s + i + 1) % n]);
        } else {
            int c = add_centre(p, m, ids, n);
            for (int i = 0; i < n; i++)
                add_triangle(p, c, ids[i], ids[(i + 1) % n]);
        }
    }
}

/* The triangles of the cubes of layer k (between node layers k and k + 1).
 * A cube wholly inside or outside is skipped before its edges are read;
 * of the others, only the crossed edges' ids are read (the only ones
 * written, and the only ones cube_triangles uses). */
static void layer_triangles(const grid *g, int k, int *const eid[3], const fl_trimesh *m, piece *p)
{
    const size_t stride[3] = {1, (size_t)g->n[0], (size_t)g->n[0] * (size_t)g->n[1]};
    for (int j = 0; j + 1 < g->n[1]; j++)
        for (int i = 0; i + 1 < g->n[0]; i++) {
            const size_t base = node_index(g, i, j, k);
            float v[8];
            int inside = 0;
            for (int c = 0; c < 8; c++) {
                const int *o = fl_mc_corner_offset[c];
                v[c] = g->phi[base + o[0] * stride[0] + o[1] * stride[1] + o[2] * stride[2]];
                inside |= (v[c] < 0.0f) << c;
            }
            if (inside == 0 || inside == 255)
                continue;
            int id[12];
            for (int e = 0; e < 12; e++) {
                const int a = fl_mc_edge_corner[e][0], b = fl_mc_edge_corner[e][1];
                const int *o = fl_mc_corner_offset[a];
                id[e] = ((inside >> a) ^ (inside >> b)) & 1
                            ? eid[e / 4][base + o[0] * stride[0] + o[1] * stride[1] + o[2] * stride[2]]
                            : -1;
            }
            cube_triangles(v, id, m, p);
        }
}

/* Joins the pieces, in thread order, into out: the added vertices after
 * the edge vertices, the triangles renumbered to them. */
static int join_pieces(const piece *pieces, int npieces, fl_trimesh *out, fl_error *err)
{
    size_t nids = 0, nextra = 0;
    for (int t = 0; t < npieces; t++) {
        if (pieces[t].failed)
            return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for the triangles");
        nids += pieces[t].nids, nextra += pieces[t].nextra;
    }
    if (nids / 3 > INT_MAX || nextra > (size_t)(INT_MAX - out->nvert))
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: %zu triangles and %zu vertices, more than a mesh holds",
                       nids / 3, out->nvert + nextra);
    const size_t nvert = (size_t)out->nvert + nextra;
    if (nextra > 0) {
        float *pos = realloc(out->pos, 3 * nvert * sizeof(float));
        if (pos != NULL)
            out->pos = pos;
        float *normal = pos != NULL ? realloc(out->normal, 3 * nvert * sizeof(float)) : NULL;
        if (normal == NULL)
            return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for %zu vertices", nvert);
        out->normal = normal;
    }
    out->tri = malloc((nids > 0 ? nids : 1) * sizeof(int));
    if (out->tri == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for %zu triangles", nids / 3);
    size_t at = 0, base = (size_t)out->nvert;
    for (int t = 0; t < npieces; t++) {
        const piece *p = &pieces[t];
        for (size_t i = 0; i < p->nids; i++)
            out->tri[at++] = p->ids[i] >= 0 ? p->ids[i] : (int)(base + (size_t)(-1 - p->ids[i]));
        for (size_t x = 0; x < p->nextra; x++)
            for (int d = 0; d < 3; d++) {
                out->pos[3 * (base + x) + d] = p->extra[6 * x + d];
                out->normal[3 * (base + x) + d] = p->extra[6 * x + 3 + d];
            }
        base += p->nextra;
    }
    out->nvert = (int)nvert;
    out->ntri = (int)(nids / 3);
    return FL_OK;
}

/* Checks f and pad; on success fills g with the field as given. */
static int check_field(const fl_field *f, double pad, grid *g, fl_error *err)
{
    if (f == NULL || f->phi == NULL)
        return fl_fail(err, FL_ERR_INPUT, "marching cubes: no field");
    if (!(pad >= 0.0 && pad <= FLT_MAX))
        return fl_fail(err, FL_ERR_INPUT, "marching cubes: pad %g is not a float value >= 0", pad);
    int least = pad > 0.0 ? 1 : 2;
    for (int a = 0; a < 3; a++)
        if (f->dim[a] < least || f->dim[a] > INT_MAX - 2)
            return fl_fail(err, FL_ERR_INPUT, "marching cubes: %d nodes along axis %d, need at least %d",
                           f->dim[a], a, least);
    if (!(isfinite(f->spacing) && f->spacing > 0.0))
        return fl_fail(err, FL_ERR_INPUT, "marching cubes: spacing %g is not finite and positive",
                       f->spacing);
    for (int a = 0; a < 3; a++)
        if (!isfinite(f->origin[a]))
            return fl_fail(err, FL_ERR_INPUT, "marching cubes: origin %d is not finite", a);
    double nodes = (double)f->dim[0] * f->dim[1] * f->dim[2];
    if (nodes > (double)(SIZE_MAX / (3 * sizeof(int))) / 2.0)
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: %.0f nodes are too many", nodes);
    g->phi = f->phi;
    g->h = f->spacing;
    for (int a = 0; a < 3; a++)
        g->n[a] = f->dim[a], g->lo[a] = f->origin[a];
    const size_t total = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    for (size_t c = 0; c < total; c++)
        if (!isfinite(f->phi[c])) {
            size_t layer = (size_t)g->n[0] * (size_t)g->n[1];
            return fl_fail(err, FL_ERR_INPUT, "marching cubes: phi at node (%zu, %zu, %zu) is %g",
                           c % (size_t)g->n[0], c % layer / (size_t)g->n[0], c / layer,
                           (double)f->phi[c]);
        }
    return FL_OK;
}

/* A copy of the field in g surrounded by one layer of nodes of value pad;
 * g then describes the copy. Returns the copy, or NULL when out of memory. */
static float *pad_field(grid *g, float pad)
{
    const grid in = *g;
    for (int a = 0; a < 3; a++)
        g->n[a] += 2, g->lo[a] -= g->h;
    const size_t total = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    float *phi = malloc(total * sizeof(float));
    if (phi == NULL)
        return NULL;
    for (size_t c = 0; c < total; c++)
        phi[c] = pad;
    for (int k = 0; k < in.n[2]; k++)
        for (int j = 0; j < in.n[1]; j++)
            memcpy(phi + node_index(g, 1, j + 1, k + 1), in.phi + node_index(&in, 0, j, k),
                   (size_t)in.n[0] * sizeof(float));
    g->phi = phi;
    return phi;
}

/* Passes 1 and 2: the vertices into out, their ids into eid. */
static int make_vertices(const grid *g, int *const eid[3], fl_trimesh *out, fl_error *err)
{
    const int nz = g->n[2];
    long long *first = malloc(((size_t)nz + 1) * sizeof(long long));
    if (first == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for %d layer counts", nz);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        first[k + 1] = layer_vertices(g, k, eid, 0, NULL, NULL);
    first[0] = 0;
    for (int k = 0; k < nz; k++)
        first[k + 1] += first[k];
    const long long nvert = first[nz];
    if (nvert > INT_MAX) {
        free(first);
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: %lld vertices, more than a mesh holds", nvert);
    }
    out->pos = malloc(3 * (size_t)(nvert > 0 ? nvert : 1) * sizeof(float));
    out->normal = malloc(3 * (size_t)(nvert > 0 ? nvert : 1) * sizeof(float));
    if (out->pos == NULL || out->normal == NULL) {
        free(first);
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for %lld vertices", nvert);
    }
    out->nvert = (int)nvert;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        layer_vertices(g, k, eid, first[k], out->pos, out->normal);
    free(first);
    return FL_OK;
}

/* Pass 3: the triangles (and the vertices added inside cubes) into out. */
static int make_triangles(const grid *g, int *const eid[3], fl_trimesh *out, fl_error *err)
{
    const int nthreads = omp_get_max_threads();
    piece *pieces = calloc((size_t)nthreads, sizeof(piece));
    if (pieces == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for %d threads' triangles", nthreads);
#pragma omp parallel num_threads(nthreads)
    {
        piece *mine = &pieces[omp_get_thread_num()];
#pragma omp for schedule(static)
        for (int k = 0; k < g->n[2] - 1; k++)
            layer_triangles(g, k, eid, out, mine);
    }
    int rc = join_pieces(pieces, nthreads, out, err);
    for (int t = 0; t < nthreads; t++) {
        free(pieces[t].ids);
        free(pieces[t].extra);
    }
    free(pieces);
    return rc;
}

int fl_marching_cubes(const fl_field *f, double pad, fl_trimesh *out, fl_error *err)
{
    if (out == NULL)
        return fl_fail(err, FL_ERR_INPUT, "marching cubes: no output mesh");
    memset(out, 0, sizeof *out);
    grid g;
    int rc = check_field(f, pad, &g, err);
    if (rc != FL_OK)
        return rc;
    float *padded = NULL;
    if (pad > 0.0 && (padded = pad_field(&g, (float)pad)) == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for the padded field");

    const size_t nodes = (size_t)g.n[0] * (size_t)g.n[1] * (size_t)g.n[2];
    int *eid[3];
    for (int a = 0; a < 3; a++)
        eid[a] = malloc(nodes * sizeof(int));
    if (eid[0] == NULL || eid[1] == NULL || eid[2] == NULL)
        rc = fl_fail(err, FL_ERR_MEMORY, "marching cubes: no memory for the edge ids of %zu nodes", nodes);
    if (rc == FL_OK)
        rc = make_vertices(&g, eid, out, err);
    if (rc == FL_OK)
        rc = make_triangles(&g, eid, out, err);
    for (int a = 0; a < 3; a++)
        free(eid[a]);
    free(padded);
    if (rc != FL_OK)
        fl_trimesh_free(out);
    return rc;
}
