/* mesh_sdf.c: the mass properties and the narrow-band signed distance of
 * mesh_sdf.h.
 *
 * Mass properties. Each triangle (a, b, c), taken relative to a reference
 * point o, makes with o a tetrahedron of signed volume
 *   V_t = det[a b c] / 6,
 * first moment V_t (a + b + c) / 4, and second moment (the integral of
 * the quadratic monomials over the simplex in barycentric coordinates,
 * with the fourth vertex at o)
 *   integral r r^T dV = V_t / 20 (a a^T + b b^T + c c^T + s s^T),  s = a + b + c.
 * Over a closed mesh the signed tetrahedra cover the enclosed solid once
 * (divergence theorem), so the sums are the solid's moments about o. The
 * covariance about the centroid g follows by the parallel-axis theorem,
 * C_g = C_o - V (g - o)(g - o)^T, and the inertia tensor is
 * I = trace(C_g) 1 - C_g. With o the bounding box's centre, |g - o| is at
 * most half the box, so the shift cancels few digits.
 *
 * Signed distance. Every cell centre starts at band; every triangle then
 * lowers the squared distance of the centres within band of it, found
 * from its bounding box grown by band (in each z slab, by the radius
 * sqrt(band^2 - dz^2) left at that slab's distance dz from the box). The
 * closest point of a triangle is found by Voronoi regions (Ericson 2005,
 * "Real-Time Collision Detection", 5.1.5): a vertex, an edge (a clamped
 * projection onto it) or the face (the distance to its plane). A
 * triangle too thin for its normal to be trusted is treated as its three
 * edges. Slabs run in parallel, each owned by one thread, which visits the
 * triangles binned to it; a minimum does not depend on the order it is
 * taken in, so the result does not depend on the thread count. The sign
 * is fl_voxelize's. */

#include "mesh_sdf.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- mass properties ---------------------------------------------------- */

/* A mesh whose signed tetrahedra sum to less than this fraction of their
 * absolute volumes encloses nothing but rounding noise (a flat mesh). */
#define FLAT_VOLUME 1e-10

void fl_mesh_mass_properties(const fl_mesh *m, fl_mesh_mass *out)
{
    double lo[3], hi[3], o[3];
    /* sums of det = 6 V_t, det s and det (a a^T + b b^T + c c^T + s s^T)
     * (upper triangle xx, xy, xz, yy, yz, zz): V = sum / 6, the first
     * moment sum / 24, the second sum / 120 */
    double vol6 = 0.0, abs6 = 0.0, first[3] = {0, 0, 0}, second[6] = {0, 0, 0, 0, 0, 0};
    static const int row[6] = {0, 0, 0, 1, 1, 2}, col[6] = {0, 1, 2, 1, 2, 2};
    fl_mesh_bounds(m, lo, hi);
    for (int d = 0; d < 3; d++)
        o[d] = 0.5 * (lo[d] + hi[d]);
    for (int t = 0; t < m->triangle_count; t++) {
        const int *tri = m->tri + 3 * (size_t)t;
        double p[3][3], s[3];
        for (int q = 0; q < 3; q++)
            for (int d = 0; d < 3; d++)
                p[q][d] = m->v[3 * (size_t)tri[q] + d] - o[d];
        double det = p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
                     p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
                     p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
        for (int d = 0; d < 3; d++)
            s[d] = p[0][d] + p[1][d] + p[2][d];
        vol6 += det;
        abs6 += fabs(det);
        for (int d = 0; d < 3; d++)
            first[d] += det * s[d];
        for (int e = 0; e < 6; e++) {
            int i = row[e], j = col[e];
            second[e] += det * (p[0][i] * p[0][j] + p[1][i] * p[1][j] + p[2][i] * p[2][j] + s[i] * s[j]);
        }
    }

    memset(out, 0, sizeof *out);
    memcpy(out->centroid, o, sizeof o);
    if (!(fabs(vol6) > FLAT_VOLUME * abs6))
        return;
    double volume = vol6 / 6.0, g[3], c[9];
    for (int d = 0; d < 3; d++)
        g[d] = first[d] / 24.0 / volume; /* the centroid relative to o */
    for (int e = 0; e < 6; e++) {
        int i = row[e], j = col[e];
        /* parallel-axis theorem: the covariance about the centroid */
        c[3 * i + j] = c[3 * j + i] = second[e] / 120.0 - volume * g[i] * g[j];
    }
    double trace = c[0] + c[4] + c[8];
    out->volume = volume;
    for (int d = 0; d < 3; d++)
        out->centroid[d] = o[d] + g[d];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out->inertia[3 * i + j] = (i == j ? trace : 0.0) - c[3 * i + j];
}

/* ---- point-triangle distance -------------------------------------------- */

/* A triangle as the distance query wants it. */
typedef struct tri_geom {
    double a[3], b[3], c[3];
    double ab[3], ac[3], bc[3];
    double ab2, ac2, bc2; /* squared edge lengths */
    double n[3];          /* ab x ac */
    double inv_nn;        /* 1 / |n|^2; 0 for a triangle treated as its edges */
    double lo[3], hi[3];  /* bounding box */
} tri_geom;

/* A triangle whose smallest height is below 1e-8 of its longest edge
 * (|n| below 1e-8 of the longest edge squared) is treated as its three
 * edges: its normal would have lost half the digits, and leaving its face
 * out moves no distance by more than that height. */
#define THIN 1e-16

static double dot3(const double *u, const double *v)
{
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

static void tri_setup(const fl_mesh *m, int t, tri_geom *g)
{
    const int *tri = m->tri + 3 * (size_t)t;
    for (int d = 0; d < 3; d++) {
        g->a[d] = m->v[3 * (size_t)tri[0] + d];
        g->b[d] = m->v[3 * (size_t)tri[1] + d];
        g->c[d] = m->v[3 * (size_t)tri[2] + d];
        g->ab[d] = g->b[d] - g->a[d];
        g->ac[d] = g->c[d] - g->a[d];
        g->bc[d] = g->c[d] - g->b[d];
        g->lo[d] = fmin(g->a[d], fmin(g->b[d], g->c[d]));
        g->hi[d] = fmax(g->a[d], fmax(g->b[d], g->c[d]));
    }
    g->ab2 = dot3(g->ab, g->ab);
    g->ac2 = dot3(g->ac, g->ac);
    g->bc2 = dot3(g->bc, g->bc);
    g->n[0] = g->ab[1] * g->ac[2] - g->ab[2] * g->ac[1];
    g->n[1] = g->ab[2] * g->ac[0] - g->ab[0] * g->ac[2];
    g->n[2] = g->ab[0] * g->ac[1] - g->ab[1] * g->ac[0];
    double nn = dot3(g->n, g->n), longest = fmax(g->ab2, fmax(g->ac2, g->bc2));
    g->inv_nn = nn > THIN * longest * longest ? 1.0 / nn : 0.0;
}

/* The squared distance from the point o + r to the segment o + [0, 1] e
 * (len2 = |e|^2; a point when 0). */
static inline double segment_d2(const double *r, const double *e, double len2)
{
    double t = len2 > 0.0 ? dot3(r, e) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    double d[3] = {r[0] - t * e[0], r[1] - t * e[1], r[2] - t * e[2]};
    return dot3(d, d);
}

/* The squared distance from p to the nearest point of triangle g. */
static inline double triangle_d2(const tri_geom *g, const double *p)
{
    double ap[3] = {p[0] - g->a[0], p[1] - g->a[1], p[2] - g->a[2]};
    double bp[3] = {p[0] - g->b[0], p[1] - g->b[1], p[2] - g->b[2]};
    if (g->inv_nn == 0.0) {
        double da = segment_d2(ap, g->ab, g->ab2), db = segment_d2(ap, g->ac, g->ac2),
               dc = segment_d2(bp, g->bc, g->bc2);
        return fmin(da, fmin(db, dc));
    }
    /* Ericson's regions: d1..d6 are the projections of p - a, p - b and
     * p - c onto ab and ac; va, vb, vc are |n|^2 times p's barycentric
     * coordinates in the plane. */
    double d1 = dot3(g->ab, ap), d2 = dot3(g->ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0)
        return dot3(ap, ap); /* vertex a */
    double d3 = dot3(g->ab, bp), d4 = dot3(g->ac, bp);
    if (d3 >= 0.0 && d4 <= d3)
        return dot3(bp, bp); /* vertex b */
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0)
        return segment_d2(ap, g->ab, g->ab2); /* edge ab */
    double cp[3] = {p[0] - g->c[0], p[1] - g->c[1], p[2] - g->c[2]};
    double d5 = dot3(g->ab, cp), d6 = dot3(g->ac, cp);
    if (d6 >= 0.0 && d5 <= d6)
        return dot3(cp, cp); /* vertex c */
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0)
        return segment_d2(ap, g->ac, g->ac2); /* edge ac */
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0)
        return segment_d2(bp, g->bc, g->bc2); /* edge bc */
    double h = dot3(ap, g->n); /* face: |n| times the height above the plane */
    return h * h * g->inv_nn;
}

/* ---- the grid ------------------------------------------------------------ */

/* The cell centres o + (i + 1/2) h, 0 <= i < n, within [lo, hi]: *i0 to *i1,
 * widened by a millionth of a cell against rounding. 0 when none. */
static int centre_range(double lo, double hi, double o, double h, int n, int *i0, int *i1)
{
    double a = ceil((lo - o) / h - 0.5 - 1e-6), b = floor((hi - o) / h - 0.5 + 1e-6);
    if (!(a <= b) || b < 0.0 || a > (double)(n - 1))
        return 0;
    *i0 = a < 0.0 ? 0 : (int)a;
    *i1 = b > (double)(n - 1) ? n - 1 : (int)b;
    return 1;
}

/* The squared distances d2 of the slab of centres at height z (dims[0]
 * dims[1] of them, x fastest) lowered where triangle tg comes within band
 * of them. */
static void slab_triangle(const tri_geom *tg, const fl_voxel_grid *g, double z, double band,
                          double *d2)
{
    const double h = g->spacing, band2 = band * band;
    double dz = fmax(0.0, fmax(tg->lo[2] - z, z - tg->hi[2]));
    if (dz >= band)
        return;
    /* the centres of this slab within band of the triangle lie within r of
     * its box in x and y */
    double r = sqrt(band2 - dz * dz);
    int i0, i1, j0, j1;
    if (!centre_range(tg->lo[0] - r, tg->hi[0] + r, g->origin[0], h, g->dims[0], &i0, &i1) ||
        !centre_range(tg->lo[1] - r, tg->hi[1] + r, g->origin[1], h, g->dims[1], &j0, &j1))
        return;
    for (int j = j0; j <= j1; j++) {
        double *rowd = d2 + (size_t)j * (size_t)g->dims[0];
        double p[3] = {0.0, g->origin[1] + (j + 0.5) * h, z};
        for (int i = i0; i <= i1; i++) {
            p[0] = g->origin[0] + (i + 0.5) * h;
            double q = triangle_d2(tg, p);
            rowd[i] = q < rowd[i] ? q : rowd[i];
        }
    }
}

int fl_mesh_signed_distance(const fl_mesh *m, const fl_voxel_grid *g, double band, float *dist,
                            fl_error *err)
{
    unsigned char *inside = NULL;
    tri_geom *geom = NULL;
    size_t *start = NULL, slab_cells, cells;
    int *bins = NULL, nthreads = omp_get_max_threads(), nz;
    double *scratch = NULL;
    /* the grid's size is needed before fl_voxelize runs */
    int rc = fl_voxel_grid_check(m, g, err);
    if (rc != FL_OK)
        return rc;
    if (!(isfinite(band) && band > 0))
        return fl_fail(err, FL_ERR_INPUT, "%s: signed distance: expected a positive band, got %g",
                       m->source, band);
    nz = g->dims[2];
    slab_cells = (size_t)g->dims[0] * (size_t)g->dims[1];
    cells = slab_cells * (size_t)nz;
    inside = malloc(cells);
    if (!inside)
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu cells", m->source, cells);
    rc = fl_voxelize(m, g, inside, err);
    if (rc != FL_OK)
        goto done;

    /* bins: the triangles within band of slab k are bins[start[k] .. start[k+1]) */
    geom = malloc((m->triangle_count > 0 ? (size_t)m->triangle_count : 1) * sizeof *geom);
    start = calloc((size_t)nz + 1, sizeof *start);
    if (!geom || !start) {
        rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %d triangles", m->source,
                     m->triangle_count);
        goto done;
    }
    for (int t = 0; t < m->triangle_count; t++) {
        int k0, k1;
        tri_setup(m, t, &geom[t]);
        if (centre_range(geom[t].lo[2] - band, geom[t].hi[2] + band, g->origin[2], g->spacing, nz,
                         &k0, &k1))
            for (int k = k0; k <= k1; k++)
                start[k + 1]++;
    }
    for (int k = 0; k < nz; k++)
        start[k + 1] += start[k];
    bins = malloc((start[nz] > 0 ? start[nz] : 1) * sizeof *bins);
    scratch = malloc((size_t)nthreads * slab_cells * sizeof *scratch);
    if (!bins || !scratch) {
        rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory for %zu slab entries and %d slabs of %zu cells",
                     m->source, start[nz], nthreads, slab_cells);
        goto done;
    }
    for (int t = 0; t < m->triangle_count; t++) {
        int k0, k1;
        if (centre_range(geom[t].lo[2] - band, geom[t].hi[2] + band, g->origin[2], g->spacing, nz,
                         &k0, &k1))
            for (int k = k0; k <= k1; k++)
                bins[start[k]++] = t;
    }
    /* the fill moved every start[k] to start[k+1]; shift back */
    for (int k = nz; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;

#pragma omp parallel num_threads(nthreads)
    {
        double *d2 = scratch + (size_t)omp_get_thread_num() * slab_cells;
        const double band2 = band * band;
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < nz; k++) {
            double z = g->origin[2] + (k + 0.5) * g->spacing;
            for (size_t c = 0; c < slab_cells; c++)
                d2[c] = band2;
            for (size_t b = start[k]; b < start[k + 1]; b++)
                slab_triangle(&geom[bins[b]], g, z, band, d2);
            float *out = dist + (size_t)k * slab_cells;
            const unsigned char *in = inside + (size_t)k * slab_cells;
            for (size_t c = 0; c < slab_cells; c++) {
                double d = d2[c] < band2 ? sqrt(d2[c]) : band;
                out[c] = (float)(in[c] ? -d : d);
            }
        }
    }

done:
    free(inside);
    free(geom);
    free(start);
    free(bins);
    free(scratch);
    return rc;
}
