/* transfer.c: P2G and G2P (transfer.h). Each velocity component lives on its
 * own lattice of faces, offset from the cell corners by half a cell in the
 * two axes across the face; both transfers locate a particle on the three
 * lattices at once (stencil_at) and use the same trilinear weights. */
#include "transfer.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* The dimensions of the lattice of velocity component axis: the cells'
 * plus one face along that axis. */
static void lattice_dims(const fl_mac_grid *g, int axis, int dim[3])
{
    dim[0] = g->nx, dim[1] = g->ny, dim[2] = g->nz;
    dim[axis] += 1;
}

/* The lower sample of the pair around lattice coordinate f on an axis of
 * dim samples, clamped to [0, dim - 2]. Along its own axis a lattice
 * samples at whole cell coordinates, across it at half cells, so
 * f = (x - lo) / dx or that minus 0.5. Written with truncation and selects
 * so that the particle loops run as vector code (the compiler vectorizes
 * neither floor nor branches): truncation is floor for f >= 0 and gives 0
 * for -1 < f < 0, where the clamp gives 0 too; positions inside the grid
 * box have f >= -0.5. */
static inline int lattice_lower(double f, int dim)
{
    int k = (int)f, top = dim - 2;
    k = k < 0 ? 0 : k;
    return k > top ? top : k;
}

/* The fraction of f between lower sample k and the next, clamped to
 * [0, 1] (a position past the last pair sits on its last sample). */
static inline double lattice_fraction(double f, int k)
{
    double t = f - k;
    t = t < 0.0 ? 0.0 : t;
    return t > 1.0 ? 1.0 : t;
}

/* A particle's stencils on the three face lattices: corner samples fu,
 * fv, fw (in z layers ku, kv, kw), and per axis the fraction "on" the
 * lattice normal to it (whole cell coordinates) and "ac" on the two across
 * it (half cells): two lookups per axis serve the three lattices. */
typedef struct stencil {
    int fu, fv, fw;
    int ku, kv, kw;
    double x_on, y_on, z_on, x_ac, y_ac, z_ac;
} stencil;

/* The stencils at (x, y, z). */
static inline stencil stencil_at(const fl_mac_grid *g, float x, float y, float z)
{
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    const double cx = fl_mac_coord(g, 0, x), cy = fl_mac_coord(g, 1, y), cz = fl_mac_coord(g, 2, z);
    const int kx_on = lattice_lower(cx, nx + 1), kx_ac = lattice_lower(cx - 0.5, nx);
    const int ky_on = lattice_lower(cy, ny + 1), ky_ac = lattice_lower(cy - 0.5, ny);
    const int kz_on = lattice_lower(cz, nz + 1), kz_ac = lattice_lower(cz - 0.5, nz);
    stencil s = {
        .fu = kx_on + (nx + 1) * (ky_ac + ny * kz_ac),
        .fv = kx_ac + nx * (ky_on + (ny + 1) * kz_ac),
        .fw = kx_ac + nx * (ky_ac + ny * kz_on),
        .ku = kz_ac, .kv = kz_ac, .kw = kz_on,
        .x_on = lattice_fraction(cx, kx_on), .x_ac = lattice_fraction(cx - 0.5, kx_ac),
        .y_on = lattice_fraction(cy, ky_on), .y_ac = lattice_fraction(cy - 0.5, ky_ac),
        .z_on = lattice_fraction(cz, kz_on), .z_ac = lattice_fraction(cz - 0.5, kz_ac),
    };
    return s;
}

/* 1 when (x, y, z) lies in the box [lo, hi] (0 for NaN); written with &
 * rather than &&, so that the counting loop vectorizes. */
static inline int in_box(float x, float y, float z, const double lo[3], const double hi[3])
{
    return (x >= lo[0]) & (x <= hi[0]) & (y >= lo[1]) & (y <= hi[1]) & (z >= lo[2]) & (z <= hi[2]);
}

/* Number of positions outside the grid box (NaN included); the first in
 * *first, looked for only when there is one. */
static int count_outside(const fl_mac_grid *g, const float *x, const float *y, const float *z, int n,
                         int *first)
{
    const double lo[3] = {g->lo[0], g->lo[1], g->lo[2]};
    const double hi[3] = {lo[0] + g->nx * g->dx, lo[1] + g->ny * g->dx, lo[2] + g->nz * g->dx};
    int count = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : count)
    for (int p = 0; p < n; p++)
        count += !in_box(x[p], y[p], z[p], lo, hi);
    *first = n;
    for (int p = 0; count > 0 && p < n; p++)
        if (!in_box(x[p], y[p], z[p], lo, hi)) {
            *first = p;
            break;
        }
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

/* Scatter of a particle's velocity component vp onto the 2x2x2 faces of
 * its stencil on one lattice (corner f in layer k0, strides s1 and s2,
 * fractions tx, ty, tz) that lie in layers [k_lo, k_hi). sums holds the
 * weighted velocity sum and the weight sum of each face side by side, so
 * that the two x-neighbouring faces of a stencil row are four adjacent
 * doubles, updated together. */
static inline void scatter(double *sums, int f, int k0, int s1, int s2, double tx, double ty, double tz, double vp,
                           int k_lo, int k_hi)
{
    for (int dk = 0; dk < 2; dk++) {
        if (k0 + dk < k_lo || k0 + dk >= k_hi)
            continue;
        double wk = dk ? tz : 1.0 - tz;
        for (int dj = 0; dj < 2; dj++) {
            double wy = dj ? ty : 1.0 - ty;
            double w0 = (1.0 - tx) * wy * wk, w1 = tx * wy * wk;
            double *q = sums + 2 * ((long)f + dj * s1 + dk * s2);
            q[0] += w0 * vp;
            q[1] += w0;
            q[2] += w1 * vp;
            q[3] += w1;
        }
    }
}

/* The reach of the particles, for P2G: the layers each block of particles
 * lies in (g->p2g_blocks), the particles per cell layer k (g->slab) and,
 * per row (j, k) of faces (j <= ny, k <= nz; the same rows serve the three
 * lattices), the x range [lo, hi) of the faces their stencils can touch: a
 * particle in cell (i, j, k) reaches faces i - 1 to i + 1 along x, rows
 * j - 1 to j + 1 and layers k - 1 to k + 1. Each thread first takes the x
 * range of the cells of its share of the blocks per row of cells, and
 * counts them per layer; the threads' results are then merged and the
 * ranges dilated. */
static void p2g_reach(fl_mac_grid *g, const float *x, const float *y, const float *z, int n)
{
    const int nx = g->nx, ny = g->ny, nz = g->nz, rows = ny * nz, frows = (ny + 1) * (nz + 1);
    const long per_thread = 2L * rows + nz;
    int *cells = g->p2g_cells, *lo = g->p2g_rows, *hi = lo + frows;
#pragma omp parallel num_threads(g->p2g_threads)
    {
        const int t = omp_get_thread_num(), m = omp_get_num_threads();
        int *clo = cells + per_thread * t, *chi = clo + rows, *count = chi + rows;
        for (int r = 0; r < rows; r++)
            clo[r] = nx, chi[r] = -1;
        for (int k = 0; k < nz; k++)
            count[k] = 0;
#pragma omp for schedule(static)
        for (int b = 0; b < FL_PARTICLE_BLOCKS; b++) {
            int b_lo = nz, b_hi = -1;
            for (int p = fl_particle_block(n, b), e = fl_particle_block(n, b + 1); p < e; p++) {
                int i = (int)fl_mac_coord(g, 0, x[p]), j = (int)fl_mac_coord(g, 1, y[p]),
                    k = (int)fl_mac_coord(g, 2, z[p]);
                b_lo = k < b_lo ? k : b_lo;
                b_hi = k > b_hi ? k : b_hi;
                i = i < nx ? i : nx - 1, j = j < ny ? j : ny - 1, k = k < nz ? k : nz - 1;
                int r = j + ny * k;
                clo[r] = i < clo[r] ? i : clo[r];
                chi[r] = i > chi[r] ? i : chi[r];
                count[k]++;
            }
            g->p2g_blocks[2 * b] = b_lo, g->p2g_blocks[2 * b + 1] = b_hi;
        }
        /* the threads' ranges and counts merged into thread 0's */
#pragma omp for schedule(static)
        for (int r = 0; r < rows; r++)
            for (int u = 1; u < m; u++) {
                const int *ulo = cells + per_thread * u, *uhi = ulo + rows;
                cells[r] = ulo[r] < cells[r] ? ulo[r] : cells[r];
                cells[rows + r] = uhi[r] > cells[rows + r] ? uhi[r] : cells[rows + r];
            }
#pragma omp for schedule(static)
        for (int k = 0; k < nz; k++) {
            long sum = 0;
            for (int u = 0; u < m; u++)
                sum += cells[per_thread * u + 2L * rows + k];
            g->slab[k] = sum;
        }
        /* face row (j, k) takes the cell rows j - 1..j + 1, k - 1..k + 1 */
#pragma omp for schedule(static)
        for (int k = 0; k <= nz; k++)
            for (int j = 0; j <= ny; j++) {
                int a = nx + 1, b = 0;
                for (int kk = k - 1; kk <= k + 1; kk++)
                    for (int jj = j - 1; jj <= j + 1; jj++) {
                        if (jj < 0 || jj >= ny || kk < 0 || kk >= nz)
                            continue;
                        int r = jj + ny * kk;
                        if (cells[rows + r] < 0)
                            continue;
                        a = cells[r] - 1 < a ? cells[r] - 1 : a;
                        b = cells[rows + r] + 2 > b ? cells[rows + r] + 2 : b;
                    }
                int fr = j + (ny + 1) * k;
                lo[fr] = a < 0 ? 0 : a;
                hi[fr] = b > nx + 1 ? nx + 1 : b;
            }
    }
}

/* ---- periodic grids (mac.h, "Periodic axes") ----------------------------
 * Along a periodic axis the stencil's pair of samples wraps: on a lattice
 * sampling at half cells (across its own axis) sample -1 is sample n-1 and
 * sample n is sample 0; along its own axis the upper sample n is face n,
 * the same face as face 0, and both transfers use face 0 for it. The
 * indices then are not a fixed stride apart, so these loops are their own,
 * with no clamping or slab bookkeeping on a periodic axis: a grid with
 * periodic axes takes them, every other grid the loops above. */

/* The two samples and the fraction of lattice coordinate f along an axis
 * of n cells on a lattice of dim samples (n or n + 1). */
typedef struct wrap_pair {
    int lo, hi;
    double t;
} wrap_pair;

static inline wrap_pair wrap_pair_at(double f, int n, int dim, int periodic)
{
    wrap_pair w;
    if (!periodic) {
        w.lo = lattice_lower(f, dim);
        w.hi = w.lo + 1;
        w.t = lattice_fraction(f, w.lo);
        return w;
    }
    int k = (int)floor(f); /* f >= -0.5 inside the grid box */
    k = k > n - 1 ? n - 1 : k;
    w.t = lattice_fraction(f, k);
    w.lo = k < 0 ? k + n : k;
    w.hi = k + 1 >= n ? k + 1 - n : k + 1;
    return w;
}

/* The 8 faces of lattice a around (x, y, z) and their trilinear weights,
 * in the order of interp (x fastest, then y, then z). */
static inline void wrap_stencil(const fl_mac_grid *g, int a, float x, float y, float z, long face[8], double w[8])
{
    const int n[3] = {g->nx, g->ny, g->nz};
    const double c[3] = {fl_mac_coord(g, 0, x), fl_mac_coord(g, 1, y), fl_mac_coord(g, 2, z)};
    int dim[3];
    lattice_dims(g, a, dim);
    wrap_pair p[3];
    for (int b = 0; b < 3; b++)
        p[b] = wrap_pair_at(b == a ? c[b] : c[b] - 0.5, n[b], dim[b], g->periodic[b]);
    for (int q = 0; q < 8; q++) {
        const int i = q & 1 ? p[0].hi : p[0].lo, j = q & 2 ? p[1].hi : p[1].lo, k = q & 4 ? p[2].hi : p[2].lo;
        face[q] = i + (long)dim[0] * (j + (long)dim[1] * k);
        w[q] = (q & 1 ? p[0].t : 1.0 - p[0].t) * (q & 2 ? p[1].t : 1.0 - p[1].t) * (q & 4 ? p[2].t : 1.0 - p[2].t);
    }
}

/* P2G on a periodic grid: each lattice summed over the particles in
 * their order (the lattices in parallel: the same result on any number of
 * threads), every face written, face n of a periodic own axis set to
 * face 0. */
static void wrap_p2g(fl_mac_grid *g, const float *x, const float *y, const float *z, const float *const vel[3], int n)
{
    double *field[3] = {g->u, g->v, g->w}, *wsum[3] = {g->wu, g->wv, g->ww};
#pragma omp parallel for schedule(static, 1)
    for (int a = 0; a < 3; a++) {
        int dim[3];
        lattice_dims(g, a, dim);
        const long faces = (long)dim[0] * dim[1] * dim[2];
        double *u = field[a], *ws = wsum[a];
        memset(u, 0, (size_t)faces * sizeof(double));
        memset(ws, 0, (size_t)faces * sizeof(double));
        for (int p = 0; p < n; p++) {
            long face[8];
            double w[8];
            wrap_stencil(g, a, x[p], y[p], z[p], face, w);
            for (int q = 0; q < 8; q++) {
                u[face[q]] += w[q] * vel[a][p];
                ws[face[q]] += w[q];
            }
        }
        for (long f = 0; f < faces; f++)
            u[f] = ws[f] > 0.0 ? u[f] / ws[f] : 0.0;
        if (g->periodic[a]) {
            const long layer = a == 0 ? 1 : a == 1 ? dim[0] : (long)dim[0] * dim[1];
            const int top = dim[a] - 1;
            for (long f = 0; f < faces; f++)
                if ((f / layer) % dim[a] == top)
                    u[f] = u[f - top * layer], ws[f] = ws[f - top * layer];
        }
    }
}

/* G2P on a periodic grid (g2p_range's). */
static void wrap_g2p(const fl_mac_grid *g, const double *const a[3], const double *const b[3], const float *x,
                     const float *y, const float *z, int n, float *const out[3], float *const out_b[3])
{
#pragma omp parallel for schedule(static)
    for (int p = 0; p < n; p++)
        for (int c = 0; c < 3; c++) {
            long face[8];
            double w[8], va = 0.0, vb = 0.0;
            wrap_stencil(g, c, x[p], y[p], z[p], face, w);
            for (int q = 0; q < 8; q++)
                va += w[q] * a[c][face[q]];
            out[c][p] = (float)va;
            if (b) {
                for (int q = 0; q < 8; q++)
                    vb += w[q] * b[c][face[q]];
                out_b[c][p] = (float)vb;
            }
        }
}

int fl_transfer_p2g(fl_mac_grid *g, const float *x, const float *y, const float *z, const float *vx,
                    const float *vy, const float *vz, int n, fl_error *err)
{
    int first, outside = count_outside(g, x, y, z, n, &first);
    if (outside > 0)
        return outside_error(x, y, z, outside, first, err);
    if (g->wrap) {
        const float *const vel[3] = {vx, vy, vz};
        wrap_p2g(g, x, y, z, vel, n);
        return FL_OK;
    }
    p2g_reach(g, x, y, z, n);
    const int ny = g->ny, nz = g->nz, frows = (ny + 1) * (nz + 1);
    const int *lo = g->p2g_rows, *hi = lo + frows;
    int *old_lo = g->p2g_rows + 2 * frows, *old_hi = old_lo + frows;
    double *vel[3] = {g->u, g->v, g->w};
    double *wsum[3] = {g->wu, g->wv, g->ww};
    int dim[3][3], s1[3], s2[3];
    double *sums[3];
    for (int a = 0; a < 3; a++) {
        lattice_dims(g, a, dim[a]);
        s1[a] = dim[a][0];
        s2[a] = dim[a][0] * dim[a][1];
        sums[a] = a == 0 ? g->sums : sums[a - 1] + 2 * (long)s2[a - 1] * dim[a - 1][2];
    }
    /* each thread owns the faces of a slab of layers k, the same in the
     * three lattices, and scatters every particle onto the faces of its
     * slab only: each face sums in particle order, without atomics, on any
     * number of threads. Only the faces in reach are summed and written;
     * those the last P2G wrote and this one does not reach are set to 0. */
#pragma omp parallel
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int k_lo = slab_start(g, n, t, nt), k_hi = slab_start(g, n, t + 1, nt);
        for (int a = 0; a < 3; a++)
            for (int k = k_lo; k < k_hi && k < dim[a][2]; k++)
                for (int j = 0; j < dim[a][1]; j++) {
                    int fr = j + (ny + 1) * k, i1 = hi[fr] < dim[a][0] ? hi[fr] : dim[a][0];
                    if (i1 > lo[fr])
                        memset(sums[a] + 2 * ((long)k * s2[a] + (long)j * s1[a] + lo[fr]), 0,
                               2 * (size_t)(i1 - lo[fr]) * sizeof(double));
                }
        /* the stencils of a particle in cell layer k cover layers k - 1 to
         * k + 1; the particles, sorted by cell once a step, stay nearly in
         * layer order, so most blocks lie wholly outside a thread's slab */
        for (int b = 0; k_hi > k_lo && b < FL_PARTICLE_BLOCKS; b++) {
            if (g->p2g_blocks[2 * b + 1] + 1 < k_lo || g->p2g_blocks[2 * b] - 1 >= k_hi)
                continue;
            for (int p = fl_particle_block(n, b), e = fl_particle_block(n, b + 1); p < e; p++) {
                int k = (int)fl_mac_coord(g, 2, z[p]);
                if (k + 1 < k_lo || k - 1 >= k_hi)
                    continue;
                stencil s = stencil_at(g, x[p], y[p], z[p]);
                scatter(sums[0], s.fu, s.ku, s1[0], s2[0], s.x_on, s.y_ac, s.z_ac, vx[p], k_lo, k_hi);
                scatter(sums[1], s.fv, s.kv, s1[1], s2[1], s.x_ac, s.y_on, s.z_ac, vy[p], k_lo, k_hi);
                scatter(sums[2], s.fw, s.kw, s1[2], s2[2], s.x_ac, s.y_ac, s.z_on, vz[p], k_lo, k_hi);
            }
        }
        for (int a = 0; a < 3; a++)
            for (int k = k_lo; k < k_hi && k < dim[a][2]; k++)
                for (int j = 0; j < dim[a][1]; j++) {
                    int fr = j + (ny + 1) * k, d0 = dim[a][0];
                    long row = (long)k * s2[a] + (long)j * s1[a];
                    double *u = vel[a] + row, *ws = wsum[a] + row;
                    const double *q = sums[a] + 2 * row;
                    int i0 = lo[fr], i1 = hi[fr] < d0 ? hi[fr] : d0;
                    for (int i = old_lo[fr]; i < old_hi[fr] && i < d0; i++)
                        if (i < i0 || i >= i1)
                            u[i] = ws[i] = 0.0;
                    for (int i = i0; i < i1; i++) {
                        ws[i] = q[2 * i + 1];
                        u[i] = ws[i] > 0.0 ? q[2 * i] / ws[i] : 0.0;
                    }
                }
    }
    memcpy(old_lo, lo, 2 * (size_t)frows * sizeof(int));
    return FL_OK;
}

/* The trilinear interpolation of field a at stencil corner f (x stride 1,
 * y stride s1, z stride s2) with fractions tx, ty, tz, along x, then y,
 * then z. */
static inline double interp(const double *a, int f, int s1, int s2, double tx, double ty, double tz)
{
    double c00 = a[f] + tx * (a[f + 1] - a[f]);
    double c10 = a[f + s1] + tx * (a[f + s1 + 1] - a[f + s1]);
    double c01 = a[f + s2] + tx * (a[f + s2 + 1] - a[f + s2]);
    double c11 = a[f + s1 + s2] + tx * (a[f + s1 + s2 + 1] - a[f + s1 + s2]);
    double c0 = c00 + ty * (c10 - c00), c1 = c01 + ty * (c11 - c01);
    return c0 + tz * (c1 - c0);
}

/* G2P over particles [p0, p1): out = interp(a) and, when pair is set,
 * out_b = interp(b), one stencil for both. The grid's face counts fit an
 * int (fl_mac_grid_create), so the indices are ints and the loop
 * vectorizes with gathers; the callers pass pair as a constant, so the
 * test folds away. */
FL_FORCE_INLINE void g2p_range(const fl_mac_grid *g, const double *const a[3], const double *const b[3],
                             const float *x, const float *y, const float *z, int p0, int p1, float *const out[3],
                             float *const out_b[3], const int pair)
{
    int du[3], dv[3], dw[3];
    lattice_dims(g, 0, du), lattice_dims(g, 1, dv), lattice_dims(g, 2, dw);
    const int su1 = du[0], su2 = du[0] * du[1], sv1 = dv[0], sv2 = dv[0] * dv[1], sw1 = dw[0], sw2 = dw[0] * dw[1];
    const double *au = a[0], *av = a[1], *aw = a[2], *bu = b[0], *bv = b[1], *bw = b[2];
    float *ou = out[0], *ov = out[1], *ow = out[2], *pu = out_b[0], *pv = out_b[1], *pw = out_b[2];
#pragma omp simd
    for (int p = p0; p < p1; p++) {
        const stencil s = stencil_at(g, x[p], y[p], z[p]);
        ou[p] = (float)interp(au, s.fu, su1, su2, s.x_on, s.y_ac, s.z_ac);
        ov[p] = (float)interp(av, s.fv, sv1, sv2, s.x_ac, s.y_on, s.z_ac);
        ow[p] = (float)interp(aw, s.fw, sw1, sw2, s.x_ac, s.y_ac, s.z_on);
        if (pair) {
            pu[p] = (float)interp(bu, s.fu, su1, su2, s.x_on, s.y_ac, s.z_ac);
            pv[p] = (float)interp(bv, s.fv, sv1, sv2, s.x_ac, s.y_on, s.z_ac);
            pw[p] = (float)interp(bw, s.fw, sw1, sw2, s.x_ac, s.y_ac, s.z_on);
        }
    }
}

/* Thread t's share [*p0, *p1) of n particles out of nt threads. */
static inline void thread_share(int n, int *p0, int *p1)
{
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    *p0 = (int)((long)n * t / nt);
    *p1 = (int)((long)n * (t + 1) / nt);
}

static int g2p(const fl_mac_grid *g, const double *const a[3], const double *const b[3], const float *x,
               const float *y, const float *z, int n, float *const out[3], float *const out_b[3],
               fl_error *err)
{
    int first, outside = count_outside(g, x, y, z, n, &first);
    if (outside > 0)
        return outside_error(x, y, z, outside, first, err);
    if (g->wrap)
        wrap_g2p(g, a, b, x, y, z, n, out, out_b);
    else if (b) {
#pragma omp parallel
        {
            int p0, p1;
            thread_share(n, &p0, &p1);
            g2p_range(g, a, b, x, y, z, p0, p1, out, out_b, 1);
        }
    } else {
#pragma omp parallel
        {
            int p0, p1;
            thread_share(n, &p0, &p1);
            g2p_range(g, a, a, x, y, z, p0, p1, out, out, 0);
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
