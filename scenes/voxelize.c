/* voxelize.c: the solid fill of voxelize.h by the parity of ray crossings.
 *
 * Every column (j, k) of the grid is a ray along x through the centres of
 * its cells. The mesh is projected onto the (y, z) plane in grid units,
 * shifted so that column (j, k)'s ray passes through the integer point
 * (j, k), and snapped to a lattice of 1/SNAP of a cell, in 64-bit integers.
 * A triangle is crossed by a ray when the ray's point lies strictly on the
 * same side of its three projected edges; the side is an exact integer
 * orientation, and a point exactly on an edge's line is given the side it
 * would have if the ray were moved by (eps, eps^2) (simulation of
 * simplicity). The test of an edge is antisymmetric in its two ends, so the
 * two triangles sharing an edge always agree on which of them the ray
 * crosses: a closed mesh is crossed an even number of times by every ray,
 * whatever vertices and edges it meets. The crossings' x (barycentric, in
 * doubles) are sorted and the cells whose centres lie in [x0, x1) of each
 * pair are inside.
 *
 * Triangles are binned by the columns their projected bounding boxes cover
 * (a compressed list per column), and columns run in parallel. */

#include "voxelize.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Lattice points per cell in y and z: a vertex moves by at most 1/(2 SNAP)
 * of a cell when snapped. With |coordinate| <= FL_VOXEL_MAX_CELLS cells
 * (2^15 SNAP = 2^29 lattice units), an orientation is a difference of two
 * products of differences below 2^30: below 2^61, exact in int64_t. */
#define SNAP 16384

/* floor(a / SNAP) and ceil(a / SNAP) for any sign of a. */
static int64_t floor_div(int64_t a)
{
    return a >= 0 ? a / SNAP : -((-a + SNAP - 1) / SNAP);
}

static int64_t ceil_div(int64_t a)
{
    return -floor_div(-a);
}

/* The side of the point (py, pz) moved by (eps, eps^2) against the directed
 * edge a -> b (a and b are (y, z) lattice points): +1 left, -1 right, 0
 * only when the edge has zero length. *o receives the unperturbed
 * orientation, twice the signed area of (a, b, p). */
static int side(const int64_t *a, const int64_t *b, int64_t py, int64_t pz, int64_t *o)
{
    int64_t dy = b[0] - a[0], dz = b[1] - a[1];
    *o = dy * (pz - a[1]) - dz * (py - a[0]);
    if (*o != 0)
        return *o > 0 ? 1 : -1;
    /* o(p + (eps, eps^2)) = o - dz eps + dy eps^2 */
    if (dz != 0)
        return dz < 0 ? 1 : -1;
    if (dy != 0)
        return dy > 0 ? 1 : -1;
    return 0;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The mesh in grid units: x as a double (cell i's centre at x = i), y and z
 * snapped to the lattice (column j's ray at y = j SNAP). */
typedef struct projected {
    double *x;
    int64_t *yz;
} projected;

static int project(const fl_mesh *m, const fl_voxel_grid *g, projected *p, fl_error *err)
{
    static const char axis[3] = {'x', 'y', 'z'};
    p->x = malloc((size_t)m->vertex_count * sizeof *p->x);
    p->yz = malloc(2 * (size_t)m->vertex_count * sizeof *p->yz);
    if (!p->x || !p->yz)
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %d vertices", m->source,
                       m->vertex_count);
    for (int k = 0; k < m->vertex_count; k++) {
        for (int d = 0; d < 3; d++) {
            double u = (m->v[3 * (size_t)k + d] - g->origin[d]) / g->spacing - 0.5;
            if (!isfinite(u))
                return fl_fail(err, FL_ERR_INPUT, "%s: vertex v%d: %c is not a finite number",
                               m->source, k + 1, axis[d]);
            if (d == 0) {
                p->x[k] = u;
            } else if (fabs(u) > FL_VOXEL_MAX_CELLS) {
                return fl_fail(err, FL_ERR_INPUT,
                               "%s: vertex v%d is %.0f cells from the grid in %c, more than %d",
                               m->source, k + 1, fabs(u), axis[d], FL_VOXEL_MAX_CELLS);
            } else {
                p->yz[2 * (size_t)k + d - 1] = llround(u * SNAP);
            }
        }
    }
    return FL_OK;
}

/* The columns triangle t's projected bounding box covers, clamped to the
 * grid; empty when *j0 > *j1 or *k0 > *k1. */
static void covered(const fl_mesh *m, const projected *p, const fl_voxel_grid *g, int t,
                    int64_t *j0, int64_t *j1, int64_t *k0, int64_t *k1)
{
    const int *tri = m->tri + 3 * (size_t)t;
    int64_t lo[2], hi[2];
    for (int d = 0; d < 2; d++) {
        lo[d] = hi[d] = p->yz[2 * (size_t)tri[0] + d];
        for (int c = 1; c < 3; c++) {
            int64_t q = p->yz[2 * (size_t)tri[c] + d];
            lo[d] = q < lo[d] ? q : lo[d];
            hi[d] = q > hi[d] ? q : hi[d];
        }
    }
    *j0 = ceil_div(lo[0]) > 0 ? ceil_div(lo[0]) : 0;
    *j1 = floor_div(hi[0]) < g->dims[1] - 1 ? floor_div(hi[0]) : g->dims[1] - 1;
    *k0 = ceil_div(lo[1]) > 0 ? ceil_div(lo[1]) : 0;
    *k1 = floor_div(hi[1]) < g->dims[2] - 1 ? floor_div(hi[1]) : g->dims[2] - 1;
}

/* Column (j, k)'s crossings with the triangles of its bin: their x, in
 * xs[], and how many. */
static size_t crossings(const fl_mesh *m, const projected *p, const int *bin, size_t n, int64_t j,
                        int64_t k, double *xs)
{
    int64_t py = j * SNAP, pz = k * SNAP;
    size_t count = 0;
    for (size_t b = 0; b < n; b++) {
        const int *tri = m->tri + 3 * (size_t)bin[b];
        const int64_t *a = p->yz + 2 * (size_t)tri[0], *bb = p->yz + 2 * (size_t)tri[1],
                      *c = p->yz + 2 * (size_t)tri[2];
        int64_t o0, o1, o2;
        int s0 = side(bb, c, py, pz, &o0);
        if (s0 == 0 || side(c, a, py, pz, &o1) != s0 || side(a, bb, py, pz, &o2) != s0)
            continue;
        /* o0, o1, o2 share a sign and sum to twice the projected area */
        double w0 = (double)o0, w1 = (double)o1, w2 = (double)o2;
        xs[count++] = (w0 * p->x[tri[0]] + w1 * p->x[tri[1]] + w2 * p->x[tri[2]]) / (w0 + w1 + w2);
    }
    return count;
}

/* Marks the cells of row `row` (dims[0] bytes) whose centres i lie in
 * [x0, x1) of a pair of sorted crossings. */
static void fill_row(unsigned char *row, int nx, double *xs, size_t n)
{
    qsort(xs, n, sizeof *xs, cmp_double);
    for (size_t q = 0; q + 1 < n; q += 2) {
        double a = ceil(xs[q]), b = ceil(xs[q + 1]);
        int i0 = a < 0 ? 0 : (a > nx ? nx : (int)a);
        int i1 = b < 0 ? 0 : (b > nx ? nx : (int)b);
        if (i1 > i0)
            memset(row + i0, 1, (size_t)(i1 - i0));
    }
}

/* Triangle t into the columns its (y, z) box covers: without bins,
 * counted in start[c + 1]; with them, written at bins[start[c]++]. */
static void bin_triangle(const fl_mesh *m, const projected *p, const fl_voxel_grid *g, int t, size_t *start,
                         int *bins)
{
    int64_t j0, j1, k0, k1;
    covered(m, p, g, t, &j0, &j1, &k0, &k1);
    for (int64_t k = k0; k <= k1; k++)
        for (int64_t j = j0; j <= j1; j++) {
            const size_t c = (size_t)(j + g->dims[1] * k);
            if (bins != NULL)
                bins[start[c]++] = t;
            else
                start[c + 1]++;
        }
}

int fl_voxel_grid_check(const fl_mesh *m, const fl_voxel_grid *g, fl_error *err)
{
    if (!(isfinite(g->spacing) && g->spacing > 0))
        return fl_fail(err, FL_ERR_INPUT, "%s: voxel grid: expected a positive spacing, got %g",
                       m->source, g->spacing);
    for (int d = 0; d < 3; d++) {
        if (!isfinite(g->origin[d]))
            return fl_fail(err, FL_ERR_INPUT, "%s: voxel grid: expected a finite origin, got %g",
                           m->source, g->origin[d]);
        if (g->dims[d] < 1 || g->dims[d] > FL_VOXEL_MAX_CELLS)
            return fl_fail(err, FL_ERR_INPUT,
                           "%s: voxel grid: expected 1 to %d cells along each axis, got %d",
                           m->source, FL_VOXEL_MAX_CELLS, g->dims[d]);
    }
    return FL_OK;
}

int fl_voxelize(const fl_mesh *m, const fl_voxel_grid *g, unsigned char *inside, fl_error *err)
{
    projected p = {NULL, NULL};
    size_t columns, *start = NULL, longest = 0;
    int *bins = NULL;
    double *scratch = NULL;
    int nthreads = omp_get_max_threads();
    int rc = fl_voxel_grid_check(m, g, err);
    if (rc == FL_OK)
        rc = fl_mesh_check_closed(m, err);
    if (rc == FL_OK)
        rc = project(m, g, &p, err);
    if (rc != FL_OK)
        goto done;
    columns = (size_t)g->dims[1] * (size_t)g->dims[2];
    memset(inside, 0, columns * (size_t)g->dims[0]);

    /* bins: the triangles of column c are bins[start[c] .. start[c+1]) */
    start = calloc(columns + 1, sizeof *start);
    if (!start) {
        rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu columns", m->source, columns);
        goto done;
    }
    for (int t = 0; t < m->triangle_count; t++)
        bin_triangle(m, &p, g, t, start, NULL);
    for (size_t c = 0; c < columns; c++) {
        longest = start[c + 1] > longest ? start[c + 1] : longest;
        start[c + 1] += start[c];
    }
    bins = malloc((start[columns] > 0 ? start[columns] : 1) * sizeof *bins);
    scratch = malloc((size_t)nthreads * (longest > 0 ? longest : 1) * sizeof *scratch);
    if (!bins || !scratch) {
        rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu column entries", m->source,
                     start[columns]);
        goto done;
    }
    for (int t = 0; t < m->triangle_count; t++)
        bin_triangle(m, &p, g, t, start, bins);
    /* the fill moved every start[c] to start[c+1]; shift back */
    for (size_t c = columns; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;

#pragma omp parallel num_threads(nthreads)
    {
        double *xs = scratch + (size_t)omp_get_thread_num() * (longest > 0 ? longest : 1);
#pragma omp for schedule(dynamic, 16)
        for (long long c = 0; c < (long long)columns; c++) {
            int64_t j = c % g->dims[1], k = c / g->dims[1];
            size_t n = crossings(m, &p, bins + start[c], start[c + 1] - start[c], j, k, xs);
            fill_row(inside + (size_t)c * (size_t)g->dims[0], g->dims[0], xs, n);
        }
    }

done:
    free(p.x);
    free(p.yz);
    free(start);
    free(bins);
    free(scratch);
    return rc;
}

int fl_voxelize_points(const fl_mesh *m, const fl_voxel_grid *g, double **points, int *count,
                       fl_error *err)
{
    size_t cells, n = 0;
    unsigned char *inside;
    int rc;
    *points = NULL;
    *count = 0;
    rc = fl_voxel_grid_check(m, g, err);
    if (rc != FL_OK)
        return rc;
    cells = (size_t)g->dims[0] * (size_t)g->dims[1] * (size_t)g->dims[2];
    inside = malloc(cells);
    if (!inside)
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu cells", m->source, cells);
    rc = fl_voxelize(m, g, inside, err);
    if (rc == FL_OK) {
        for (size_t c = 0; c < cells; c++)
            n += inside[c];
        if (n > INT32_MAX / 3)
            rc = fl_fail(err, FL_ERR_MEMORY, "%s: %zu cells inside, more than %d", m->source, n,
                         INT32_MAX / 3);
    }
    if (rc == FL_OK && n > 0) {
        double *xyz = malloc(3 * n * sizeof *xyz), h = g->spacing;
        if (!xyz) {
            rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu points", m->source, n);
        } else {
            size_t q = 0, nx = (size_t)g->dims[0], ny = (size_t)g->dims[1];
            for (size_t c = 0; c < cells; c++) {
                if (!inside[c])
                    continue;
                size_t i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
                xyz[3 * q] = g->origin[0] + ((double)i + 0.5) * h;
                xyz[3 * q + 1] = g->origin[1] + ((double)j + 0.5) * h;
                xyz[3 * q + 2] = g->origin[2] + ((double)k + 0.5) * h;
                q++;
            }
            *points = xyz;
            *count = (int)n;
        }
    }
    free(inside);
    return rc;
}
