/* transfer.c: P2G and G2P (transfer.h). Each velocity component lives on its
 * own lattice of faces, offset from the cell corners by half a cell in the
 * two axes across the face; both transfers locate a particle on that lattice
 * (face_stencil) and use the same trilinear weights. */
#include "transfer.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The lattice of one velocity component: its dimensions and the offset of
 * its sample (0,0,0) from the grid corner, in cells. */
typedef struct face_lattice {
    int dim[3];
    double offset[3];
} face_lattice;

static face_lattice lattice_of(const fl_mac_grid *g, int axis)
{
    face_lattice l = {{g->nx, g->ny, g->nz}, {0.5, 0.5, 0.5}};
    l.dim[axis] += 1;
    l.offset[axis] = 0.0;
    return l;
}

/* The lower sample i of the pair around lattice coordinate f on an axis
 * of dim samples, and the fraction t in [0, 1] between the two (clamped at
 * the ends). */
static inline void locate(double f, int dim, int *i, double *t)
{
    double fl = floor(f);
    int k = (int)fl;
    double frac = f - fl;
    if (k < 0) {
        k = 0;
        frac = 0.0;
    } else if (k > dim - 2) {
        k = dim - 2;
        frac = 1.0;
    }
    *i = k;
    *t = frac;
}

/* A position's 2x2x2 stencils on the three lattices l: corner sample
 * f[a] (i0 + (j0 + k0 dim1) dim0 on lattice a) and fractions t[a][0..2].
 * Along its own axis a lattice samples at whole cell coordinates, across
 * it at half cells, so two locate calls per axis serve all three. */
static inline void stencils(const face_lattice l[3], const double lo[3], double dx, const double pos[3], long f[3],
                            double t[3][3])
{
    int i_on[3], i_across[3];
    double t_on[3], t_across[3];
    for (int b = 0; b < 3; b++) {
        double c = (pos[b] - lo[b]) / dx;
        locate(c - l[b].offset[b], l[b].dim[b], &i_on[b], &t_on[b]);
        int other = (b + 1) % 3;
        locate(c - l[other].offset[b], l[other].dim[b], &i_across[b], &t_across[b]);
    }
    for (int a = 0; a < 3; a++) {
        int i[3];
        for (int b = 0; b < 3; b++) {
            i[b] = b == a ? i_on[b] : i_across[b];
            t[a][b] = b == a ? t_on[b] : t_across[b];
        }
        f[a] = i[0] + (long)l[a].dim[0] * (i[1] + (long)l[a].dim[1] * i[2]);
    }
}

/* Number of positions outside the grid box (NaN included); the first in *first. */
static int count_outside(const fl_mac_grid *g, const float *x, const float *y, const float *z, int n,
                         int *first)
{
    double hi[3] = {g->lo[0] + g->nx * g->dx, g->lo[1] + g->ny * g->dx, g->lo[2] + g->nz * g->dx};
    int count = 0, lowest = n;
#pragma omp parallel for schedule(static) reduction(+ : count) reduction(min : lowest)
    for (int p = 0; p < n; p++) {
        int in = x[p] >= g->lo[0] && x[p] <= hi[0] && y[p] >= g->lo[1] && y[p] <= hi[1] && z[p] >= g->lo[2] &&
                 z[p] <= hi[2];
        if (!in) {
            count++;
            if (p < lowest)
                lowest = p;
        }
    }
    *first = lowest;
    return count;
}

static int outside_error(const float *x, const float *y, const float *z, int count, int first,
                         fl_error *err)
{
    return fl_fail(err, FL_ERR_OUTSIDE, "%d particle(s) outside the MAC grid, the first %d at (%g, %g, %g)",
                   count, first, x[first], y[first], z[first]);
}

/* The first face layer k of thread t's slab out of nt: the layer below
 * which lie t / nt of the particles (by the cell layer they sit in, counted
 * in g->slab); 0 for t = 0 and nz + 1 (past every lattice) for t = nt. */
static int slab_start(const fl_mac_grid *g, long n, int t, int nt)
{
    if (t == 0)
        return 0;
    if (t == nt)
        return g->nz + 1;
    long target = n * t / nt, below = 0;
    int k = 0;
    while (k < g->nz && below + g->slab[k] <= target)
        below += g->slab[k++];
    return k;
}

/* Scatter of a particle's velocity component vp, stencil corner f and
 * fractions t on lattice l, onto the faces of layers [k_lo, k_hi). */
static inline void scatter(const face_lattice *l, long f, const double t[3], double vp, int k_lo, int k_hi,
                           double *u, double *ws)
{
    long s1 = l->dim[0], s2 = (long)l->dim[0] * l->dim[1];
    int k0 = (int)(f / s2);
    for (int dk = 0; dk < 2; dk++) {
        if (k0 + dk < k_lo || k0 + dk >= k_hi)
            continue;
        double wk = dk ? t[2] : 1.0 - t[2];
        for (int c = 0; c < 4; c++) {
            int di = c & 1, dj = c >> 1;
            double wgt = (di ? t[0] : 1.0 - t[0]) * (dj ? t[1] : 1.0 - t[1]) * wk;
            long fc = f + di + dj * s1 + dk * s2;
            u[fc] += wgt * vp;
            ws[fc] += wgt;
        }
    }
}

int fl_transfer_p2g(fl_mac_grid *g, const float *x, const float *y, const float *z, const float *vx,
                    const float *vy, const float *vz, int n, fl_error *err)
{
    int first, outside = count_outside(g, x, y, z, n, &first);
    if (outside > 0)
        return outside_error(x, y, z, outside, first, err);
    memset(g->slab, 0, (size_t)(g->nz + 1) * sizeof(long));
    for (int p = 0; p < n; p++) {
        int k = (int)((z[p] - g->lo[2]) / g->dx);
        g->slab[k < g->nz ? k : g->nz - 1]++;
    }
    double *vel[3] = {g->u, g->v, g->w};
    double *wsum[3] = {g->wu, g->wv, g->ww};
    const float *pv[3] = {vx, vy, vz};
    face_lattice l[3] = {lattice_of(g, 0), lattice_of(g, 1), lattice_of(g, 2)};
    /* each thread owns the faces of a slab of layers k, the same in the
     * three lattices, and scatters every particle onto the faces of its
     * slab only: each face sums in particle order, without atomics, on any
     * number of threads */
#pragma omp parallel
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int k_lo = slab_start(g, n, t, nt), k_hi = slab_start(g, n, t + 1, nt);
        for (int a = 0; a < 3; a++) {
            long s2 = (long)l[a].dim[0] * l[a].dim[1];
            int k_end = k_hi < l[a].dim[2] ? k_hi : l[a].dim[2];
            if (k_end > k_lo) {
                memset(vel[a] + k_lo * s2, 0, (size_t)((k_end - k_lo) * s2) * sizeof(double));
                memset(wsum[a] + k_lo * s2, 0, (size_t)((k_end - k_lo) * s2) * sizeof(double));
            }
        }
        if (k_hi > k_lo) {
            for (int p = 0; p < n; p++) {
                /* the stencils of a particle in cell layer k cover layers k - 1 to k + 1 */
                int k = (int)((z[p] - g->lo[2]) / g->dx);
                if (k + 1 < k_lo || k - 1 >= k_hi)
                    continue;
                double pos[3] = {x[p], y[p], z[p]}, t[3][3];
                long f[3];
                stencils(l, g->lo, g->dx, pos, f, t);
                for (int a = 0; a < 3; a++)
                    scatter(&l[a], f[a], t[a], pv[a][p], k_lo, k_hi, vel[a], wsum[a]);
            }
        }
        for (int a = 0; a < 3; a++) {
            long s2 = (long)l[a].dim[0] * l[a].dim[1];
            int k_end = k_hi < l[a].dim[2] ? k_hi : l[a].dim[2];
            double *u = vel[a];
            const double *ws = wsum[a];
            for (long fc = k_lo * s2; fc < k_end * s2; fc++)
                u[fc] = ws[fc] > 0.0 ? u[fc] / ws[fc] : 0.0;
        }
    }
    return FL_OK;
}

/* The trilinear interpolation of field a at stencil corner f with
 * fractions t, along x, then y, then z. */
static inline double interp(const double *a, long f, long s1, long s2, const double t[3])
{
    double c00 = a[f] + t[0] * (a[f + 1] - a[f]);
    double c10 = a[f + s1] + t[0] * (a[f + s1 + 1] - a[f + s1]);
    double c01 = a[f + s2] + t[0] * (a[f + s2 + 1] - a[f + s2]);
    double c11 = a[f + s1 + s2] + t[0] * (a[f + s1 + s2 + 1] - a[f + s1 + s2]);
    double c0 = c00 + t[1] * (c10 - c00), c1 = c01 + t[1] * (c11 - c01);
    return c0 + t[2] * (c1 - c0);
}

/* G2P of field a into out and, when b is not NULL, of field b into
 * out_b, with one stencil per particle and component. */
static int g2p(const fl_mac_grid *g, const double *const a[3], const double *const b[3], const float *x,
               const float *y, const float *z, int n, float *const out[3], float *const out_b[3],
               fl_error *err)
{
    int first, outside = count_outside(g, x, y, z, n, &first);
    if (outside > 0)
        return outside_error(x, y, z, outside, first, err);
    face_lattice l[3] = {lattice_of(g, 0), lattice_of(g, 1), lattice_of(g, 2)};
#pragma omp parallel for schedule(static)
    for (int p = 0; p < n; p++) {
        double pos[3] = {x[p], y[p], z[p]}, t[3][3];
        long f[3];
        stencils(l, g->lo, g->dx, pos, f, t);
        for (int axis = 0; axis < 3; axis++) {
            long s1 = l[axis].dim[0], s2 = (long)l[axis].dim[0] * l[axis].dim[1];
            out[axis][p] = (float)interp(a[axis], f[axis], s1, s2, t[axis]);
            if (b)
                out_b[axis][p] = (float)interp(b[axis], f[axis], s1, s2, t[axis]);
        }
    }
    return FL_OK;
}

int fl_transfer_g2p(const fl_mac_grid *g, const double *u, const double *v, const double *w,
                    const float *x, const float *y, const float *z, int n, float *vx, float *vy,
                    float *vz, fl_error *err)
{
    const double *const a[3] = {u, v, w};
    float *const out[3] = {vx, vy, vz};
    return g2p(g, a, NULL, x, y, z, n, out, NULL, err);
}

int fl_transfer_g2p_pair(const fl_mac_grid *g, const double *const a[3], const double *const b[3],
                         const float *x, const float *y, const float *z, int n, float *const out_a[3],
                         float *const out_b[3], fl_error *err)
{
    return g2p(g, a, b, x, y, z, n, out_a, out_b, err);
}
