/* pcg.c: preconditioned conjugate gradient on the MAC grid's pressure
 * system (pcg.h), following Bridson, "Fluid Simulation for Computer
 * Graphics", 2nd ed., ch. 5: PCG with the MIC(0) preconditioner, plus
 * Jacobi and no preconditioner for the convergence comparison.
 *
 * Every vector spans the whole grid and is kept at 0 outside the FLUID
 * cells, so that the stencils read neighbours without testing labels. The
 * iterations visit the FLUID cells as runs along x (built at the start of
 * each solve, in cell order), so that the inner loops run over contiguous
 * memory and vectorize. A run is a stretch of FLUID cells, joined with the
 * next one in its row across a gap of at most PCG_GAP other cells: in a
 * splash most FLUID cells stand alone, and a loop per cell would cost more
 * than the gap's cells, on which a mask (1 on FLUID, 0 elsewhere) keeps
 * every vector at 0. The dot products add per-block partial sums (blocks
 * of whole runs, about PCG_BLOCK cells each) in block order: the same
 * result on any number of threads. */
#include "pcg.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "multigrid.h"

/* FLUID cells per block of a dot product: small enough for many blocks per
 * thread, large enough that the partial sums cost nothing. */
#define PCG_BLOCK 4096

/* The longest gap of non-FLUID cells a run spans. */
#define PCG_GAP 8

fl_pcg_options fl_default_pcg_options(void)
{
    fl_pcg_options o = {
        .precond = FL_PRECOND_MIC0,
        .tol = 1e-6,
        .max_iter = 1000,
        .mic_tau = 0.97,
        .mic_sigma = 0.25,
        .history = NULL,
        .history_cap = 0,
        .warm_start = 0,
    };
    return o;
}

int fl_pcg_create(int nx, int ny, int nz, fl_pcg **out, fl_error *err)
{
    *out = NULL;
    if (nx < 3 || ny < 3 || nz < 3)
        return fl_fail(err, FL_ERR_INPUT, "pcg: grid %dx%dx%d has no interior cell (at least 3 per axis)",
                       nx, ny, nz);
    fl_pcg *s = fl_alloc(sizeof *s);
    if (!s)
        return fl_fail(err, FL_ERR_MEMORY, "pcg: out of memory");
    memset(s, 0, sizeof *s);
    s->nx = nx;
    s->ny = ny;
    s->nz = nz;
    s->ncells = (long)nx * ny * nz;
    size_t bytes = (size_t)s->ncells * sizeof(double);
    /* a row of nx cells, its ends SOLID, holds at most nx / 2 runs */
    size_t runs = (size_t)(nx / 2) * ny * nz, blocks = (size_t)(s->ncells / PCG_BLOCK + 2);
    double **vectors[] = {&s->r, &s->z, &s->s, &s->q, &s->precon, &s->diag, &s->mask};
    int ok = 1;
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
        *vectors[k] = fl_alloc(bytes);
        ok &= *vectors[k] != NULL;
        if (*vectors[k])
            memset(*vectors[k], 0, bytes);
    }
    ok &= (s->run_start = fl_alloc(runs * sizeof(long))) != NULL;
    ok &= (s->run_len = fl_alloc(runs * sizeof(int))) != NULL;
    ok &= (s->old_start = fl_alloc(runs * sizeof(long))) != NULL;
    ok &= (s->old_len = fl_alloc(runs * sizeof(int))) != NULL;
    ok &= (s->plane_runs = fl_alloc((size_t)(nz + 1) * sizeof(long))) != NULL;
    ok &= (s->block_run = fl_alloc((blocks + 1) * sizeof(long))) != NULL;
    ok &= (s->partial = fl_alloc(blocks * sizeof(double))) != NULL;
    if (!ok) {
        fl_pcg_destroy(&s);
        return fl_fail(err, FL_ERR_MEMORY, "pcg: out of memory for a %dx%dx%d grid", nx, ny, nz);
    }
    *out = s;
    return FL_OK;
}

void fl_pcg_destroy(fl_pcg **sp)
{
    fl_pcg *s = *sp;
    if (!s)
        return;
    double *vectors[] = {s->r, s->z, s->s, s->q, s->precon, s->diag, s->mask, s->partial};
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++)
        fl_free(vectors[k]);
    fl_free(s->run_start);
    fl_free(s->run_len);
    fl_free(s->old_start);
    fl_free(s->old_len);
    fl_free(s->plane_runs);
    fl_free(s->block_run);
    fl_mg_destroy(&s->mg);
    fl_free(s);
    *sp = NULL;
}

void fl_pcg_set_periodic(fl_pcg *s, const int periodic[3])
{
    s->wrap = 0;
    for (int a = 0; a < 3; a++) {
        s->periodic[a] = periodic[a] != 0;
        s->wrap |= s->periodic[a];
    }
}

static double sum_blocks(const fl_pcg *s)
{
    double sum = 0.0;
    for (long b = 0; b < s->nblocks; b++)
        sum += s->partial[b];
    return sum;
}

/* The runs of z plane k (rows j in order, cells i in order) written from
 * run index first; returns their count, and the plane's FLUID cells in
 * *fluid. With write unset it only counts. */
static long plane_runs(fl_pcg *s, const unsigned char *label, int k, long first, int write, long *fluid)
{
    long n = first, cells = 0;
    for (int j = 0; j < s->ny; j++) {
        const long row = (long)s->nx * (j + (long)s->ny * k);
        for (int i = 0; i < s->nx; i++) {
            /* the next FLUID cell (most rows of a splash hold none) */
            const unsigned char *next = memchr(label + row + i, FL_CELL_FLUID, (size_t)(s->nx - i));
            if (!next)
                break;
            i = (int)(next - (label + row));
            /* from this FLUID cell to the last one before a gap longer than PCG_GAP */
            int end = i, gap = 0;
            for (int e = i; e < s->nx && gap <= PCG_GAP; e++) {
                if (label[row + e] == FL_CELL_FLUID) {
                    end = e + 1, gap = 0;
                    cells++;
                } else
                    gap++;
            }
            if (write) {
                s->run_start[n] = row + i;
                s->run_len[n] = end - i;
            }
            n++;
            i = end;
        }
    }
    *fluid = cells;
    return n - first;
}

/* The runs (counted per plane, then written per plane at the offsets of
 * the prefix sums, in parallel) and the blocks: runs are added to a block
 * until it spans PCG_BLOCK cells. */
static void build_runs(fl_pcg *s, const unsigned char *label)
{
    const int nz = s->nz;
    long nfluid = 0;
#pragma omp parallel for schedule(static) reduction(+ : nfluid)
    for (int k = 0; k < nz; k++) {
        long cells;
        s->plane_runs[k + 1] = plane_runs(s, label, k, 0, 0, &cells);
        nfluid += cells;
    }
    s->plane_runs[0] = 0;
    for (int k = 0; k < nz; k++)
        s->plane_runs[k + 1] += s->plane_runs[k];
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++) {
        long cells;
        plane_runs(s, label, k, s->plane_runs[k], 1, &cells);
    }
    s->nruns = s->plane_runs[nz];
    s->nfluid = nfluid;
    long in_block = 0;
    s->nblocks = 0;
    s->block_run[0] = 0;
    for (long k = 0; k < s->nruns; k++) {
        in_block += s->run_len[k];
        if (in_block >= PCG_BLOCK || k == s->nruns - 1) {
            s->block_run[++s->nblocks] = k + 1;
            in_block = 0;
        }
    }
}

/* Zero r, z, s and precon on the cells of the last solve's runs, so that
 * all four are 0 outside the FLUID cells of the next (q, diag and mask are
 * only read on the runs, where a solve writes them first; the multigrid
 * reads r beside the runs too, multiplied by 0: a value that a failed
 * solve left there must not be NaN); precon only when the last solve
 * wrote it (MIC(0), Jacobi). */
static void clear_old_runs(fl_pcg *s)
{
    const int precon = s->precon_written;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nold; k++) {
        size_t bytes = (size_t)s->old_len[k] * sizeof(double);
        memset(s->r + s->old_start[k], 0, bytes);
        memset(s->z + s->old_start[k], 0, bytes);
        memset(s->s + s->old_start[k], 0, bytes);
        if (precon)
            memset(s->precon + s->old_start[k], 0, bytes);
    }
    s->precon_written = 0;
}

/* The current runs become the old ones, cleared by the next solve. */
static void keep_runs(fl_pcg *s)
{
    long *start = s->old_start;
    int *len = s->old_len;
    s->old_start = s->run_start, s->old_len = s->run_len, s->nold = s->nruns;
    s->run_start = start, s->run_len = len;
}

/* On the runs: r = b, A's diagonal and the mask on the FLUID cells, 0 on
 * the gaps. */
static void load_rhs(fl_pcg *s, const unsigned char *label, const double *b)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
    double *r = s->r, *diag = s->diag, *mask = s->mask;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nruns; k++)
        for (long c = s->run_start[k], e = c + s->run_len[k]; c < e; c++) {
            int fluid = label[c] == FL_CELL_FLUID;
            r[c] = fluid ? b[c] : 0.0;
            diag[c] = fluid ? fl_poisson_diag(label, c, sx, sxy) : 0.0;
            mask[c] = fluid;
        }
}

static double dot(fl_pcg *s, const double *a, const double *b)
{
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long k = s->block_run[blk]; k < s->block_run[blk + 1]; k++) {
            const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
#pragma omp simd reduction(+ : sum)
            for (long c = c0; c < c1; c++)
                sum += a[c] * b[c];
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* (A x)_c on a run's cell c: on a FLUID cell the diagonal times x_c minus
 * the six neighbours' x (x = 0 outside the FLUID cells), on a gap 0. */
static inline double apply_at(const fl_pcg *s, const double *x, long c, long sx, long sxy)
{
    return s->mask[c] *
           (s->diag[c] * x[c] - (x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy]));
}

/* q = A x on the FLUID cells, 0 on the gaps (x = 0 outside the FLUID
 * cells); returns x.q. */
static double apply_dot(fl_pcg *s, const double *x, double *q)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long k = s->block_run[blk]; k < s->block_run[blk + 1]; k++) {
            const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
#pragma omp simd reduction(+ : sum)
            for (long c = c0; c < c1; c++) {
                double v = apply_at(s, x, c, sx, sxy);
                q[c] = v;
                sum += x[c] * v;
            }
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* ---- the periodic path (pcg.h, "Periodic axes") -------------------------
 * The FLUID cells may lie on the outer layers normal to a periodic axis,
 * so the stencil's neighbours are found by the cell's coordinates: the
 * neighbours across a y or z face are the same for a whole run (one row),
 * those along x differ only at the row's two ends. */

/* The offsets, per run, from a cell of row (j, k) to its neighbours below
 * and above in y (off[0], off[1]) and z (off[2], off[3]), wrapped across a
 * periodic axis's faces; and whether each lies inside the grid (in[4]),
 * not across its faces. */
typedef struct row_offsets {
    long off[4];
    int in[4];
} row_offsets;

static row_offsets row_offsets_at(const fl_pcg *s, long c)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
    const int j = (int)((c / sx) % s->ny), k = (int)(c / sxy);
    row_offsets o = {{j > 0 ? -sx : (s->ny - 1) * sx, j < s->ny - 1 ? sx : -(s->ny - 1) * sx,
                      k > 0 ? -sxy : (s->nz - 1) * sxy, k < s->nz - 1 ? sxy : -(s->nz - 1) * sxy},
                     {j > 0, j < s->ny - 1, k > 0, k < s->nz - 1}};
    return o;
}

/* The offsets from cell c, at x index i, to its x neighbours below and above. */
static inline long wrap_below_x(const fl_pcg *s, int i)
{
    return i > 0 ? -1 : s->nx - 1;
}
static inline long wrap_above_x(const fl_pcg *s, int i)
{
    return i < s->nx - 1 ? 1 : -(long)(s->nx - 1);
}

/* A's diagonal at FLUID cell c, at x index i in a row with offsets o: its
 * non-SOLID neighbours, wrapped. */
static inline int wrap_diag(const fl_pcg *s, const unsigned char *label, long c, int i, const row_offsets *o)
{
    return (label[c + wrap_below_x(s, i)] != FL_CELL_SOLID) + (label[c + wrap_above_x(s, i)] != FL_CELL_SOLID) +
           (label[c + o->off[0]] != FL_CELL_SOLID) + (label[c + o->off[1]] != FL_CELL_SOLID) +
           (label[c + o->off[2]] != FL_CELL_SOLID) + (label[c + o->off[3]] != FL_CELL_SOLID);
}

/* load_rhs with the wrapped diagonal; returns the FLUID cells with an AIR
 * neighbour (none: A has the constant null space). */
static long wrap_load_rhs(fl_pcg *s, const unsigned char *label, const double *b)
{
    double *r = s->r, *diag = s->diag, *mask = s->mask;
    long air = 0;
#pragma omp parallel for schedule(static) reduction(+ : air)
    for (long k = 0; k < s->nruns; k++) {
        const long c0 = s->run_start[k];
        const row_offsets o = row_offsets_at(s, c0);
        const int i0 = (int)(c0 % s->nx);
        for (long c = c0, e = c + s->run_len[k]; c < e; c++) {
            const int i = i0 + (int)(c - c0), fluid = label[c] == FL_CELL_FLUID;
            r[c] = fluid ? b[c] : 0.0;
            diag[c] = fluid ? wrap_diag(s, label, c, i, &o) : 0.0;
            mask[c] = fluid;
            if (fluid) {
                const long nb[6] = {wrap_below_x(s, i), wrap_above_x(s, i), o.off[0], o.off[1], o.off[2], o.off[3]};
                int touches = 0;
                for (int n = 0; n < 6; n++)
                    touches |= label[c + nb[n]] == FL_CELL_AIR;
                air += touches;
            }
        }
    }
    return air;
}

/* apply_dot with the wrapped stencil. */
static double wrap_apply_dot(fl_pcg *s, const double *x, double *q)
{
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long k = s->block_run[blk]; k < s->block_run[blk + 1]; k++) {
            const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
            const row_offsets o = row_offsets_at(s, c0);
            const int i0 = (int)(c0 % s->nx);
            for (long c = c0; c < c1; c++) {
                const int i = i0 + (int)(c - c0);
                double v = s->mask[c] * (s->diag[c] * x[c] -
                                         (x[c + wrap_below_x(s, i)] + x[c + wrap_above_x(s, i)] + x[c + o.off[0]] +
                                          x[c + o.off[1]] + x[c + o.off[2]] + x[c + o.off[3]]));
                q[c] = v;
                sum += x[c] * v;
            }
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* x minus its mean over the FLUID cells, on the FLUID cells (the null
 * space's constant removed); returns x.x afterwards. */
static double remove_mean(fl_pcg *s, double *x)
{
    const double mean = dot(s, x, s->mask) / (double)s->nfluid;
    const double *mask = s->mask;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nruns; k++)
        for (long c = s->run_start[k], e = c + s->run_len[k]; c < e; c++)
            x[c] -= mean * mask[c];
    return dot(s, x, x);
}

/* p += alpha s, r -= alpha q; returns r.r. */
static double step_dot(fl_pcg *s, double alpha, double *p)
{
    double *r = s->r;
    const double *d = s->s, *q = s->q;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long k = s->block_run[blk]; k < s->block_run[blk + 1]; k++) {
            const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
#pragma omp simd reduction(+ : sum)
            for (long c = c0; c < c1; c++) {
                p[c] += alpha * d[c];
                r[c] -= alpha * q[c];
                sum += r[c] * r[c];
            }
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* r = b - A p on the FLUID cells, where r holds b (p = 0 outside them):
 * q = A p, then the step of step_dot with alpha = 1 and the direction s,
 * 0 at the start of a solve, leaving p as it is; returns r.r. */
static double residual_dot(fl_pcg *s, double *p)
{
    if (s->wrap)
        wrap_apply_dot(s, p, s->q);
    else
        apply_dot(s, p, s->q);
    return step_dot(s, 1.0, p);
}

static inline double is_fluid(const unsigned char *label, long c)
{
    return label[c] == FL_CELL_FLUID ? 1.0 : 0.0;
}

/* The MIC(0) factor, Bridson's algorithm in 3-D. With A's off-diagonals -1
 * between FLUID cells and precon = 0 outside them, the products
 * Aplusi(i-1) * precon(i-1) reduce to precon(i-1), and the tau terms to
 * precon(i-1)^2 times the count of FLUID cells beside (i-1) in +j and +k.
 * Sequential, in cell order: each pivot needs the three below it. On the
 * gaps precon is 0, so that the sweeps pass them through as zeros. */
static void mic0_factor(fl_pcg *s, const unsigned char *label, double tau, double sigma)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
    double *pc = s->precon;
    for (long k = 0; k < s->nruns; k++)
        for (long c = s->run_start[k], e = c + s->run_len[k]; c < e; c++) {
            double diag = s->diag[c];
            double pi = pc[c - 1], pj = pc[c - sx], pk = pc[c - sxy];
            double piv = diag - pi * pi - pj * pj - pk * pk -
                         tau * (pi * pi * (is_fluid(label, c - 1 + sx) + is_fluid(label, c - 1 + sxy)) +
                                pj * pj * (is_fluid(label, c - sx + 1) + is_fluid(label, c - sx + sxy)) +
                                pk * pk * (is_fluid(label, c - sxy + 1) + is_fluid(label, c - sxy + sx)));
            if (piv < sigma * diag)
                piv = diag;
            pc[c] = diag > 0.0 ? 1.0 / sqrt(piv) : 0.0; /* diag = 0 on the gaps */
        }
}

/* z = (L L^T)^-1 r: forward substitution L q = r in cell order, then
 * L^T z = q in reverse order, in place in z (outside FLUID z stays 0);
 * returns z.r, summed per block like dot().
 * With L's off-diagonals -precon(neighbour) (Bridson's Aplusi = -1), the
 * forward row is q_c = (r_c + sum_{n = c-1, c-sx, c-sxy} precon_n q_n)
 * precon_c and the backward row z_c = (q_c + precon_c sum_{n = c+1,
 * c+sx, c+sxy} z_n) precon_c. The sweeps are sequential and their cost is
 * the latency of the recurrence along a run: the y and z terms come from
 * other rows, already final, and are summed first; the x-neighbour's term
 * is carried in a register and added last, so that the chain from one
 * cell to the next is one add and one multiply. On a gap r and precon are
 * 0, so z stays 0 there and the carried term drops to 0, as at the end of
 * a run. With wrap (a periodic grid; wrap_mic0_factor) the y and z terms
 * of the rows across the grid's faces are left out; wrap is a constant at
 * each call (mic0_apply_dot), so a plain grid's sweeps are compiled
 * without those tests. */
FL_FORCE_INLINE double mic0_sweeps(fl_pcg *s, int wrap)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
    const double *pc = s->precon, *r = s->r;
    double *z = s->z;
    for (long k = 0; k < s->nruns; k++) {
        const long c0 = s->run_start[k];
        int below_y = 1, below_z = 1;
        if (wrap) {
            const row_offsets o = row_offsets_at(s, c0);
            below_y = o.in[0], below_z = o.in[2];
        }
        double carry = 0.0; /* precon_{c-1} q_{c-1}; 0 at the start of a run */
        for (long c = c0, e = c + s->run_len[k]; c < e; c++) {
            double t = r[c] + (below_y ? pc[c - sx] * z[c - sx] : 0.0) + (below_z ? pc[c - sxy] * z[c - sxy] : 0.0);
            double sum = t + carry;
            z[c] = sum * pc[c];
            carry = sum * (pc[c] * pc[c]);
        }
    }
    for (long blk = s->nblocks - 1; blk >= 0; blk--) {
        double sum = 0.0;
        for (long k = s->block_run[blk + 1] - 1; k >= s->block_run[blk]; k--) {
            int above_y = 1, above_z = 1;
            if (wrap) {
                const row_offsets o = row_offsets_at(s, s->run_start[k]);
                above_y = o.in[1], above_z = o.in[3];
            }
            double next = 0.0; /* z_{c+1}; 0 at the end of a run */
            for (long c = s->run_start[k] + s->run_len[k] - 1; c >= s->run_start[k]; c--) {
                double base = (z[c] + pc[c] * ((above_y ? z[c + sx] : 0.0) + (above_z ? z[c + sxy] : 0.0))) * pc[c];
                next = base + (pc[c] * pc[c]) * next;
                z[c] = next;
                sum += next * r[c];
            }
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

static double mic0_apply_dot(fl_pcg *s)
{
    return s->wrap ? mic0_sweeps(s, 1) : mic0_sweeps(s, 0);
}

/* mic0_factor on a periodic grid, of A without its couplings across the
 * grid's faces (pcg.h): a neighbour below across a face counts as absent,
 * and so do the fill-in terms of a neighbour whose coupling would cross
 * one. */
static void wrap_mic0_factor(fl_pcg *s, const unsigned char *label, double tau, double sigma)
{
    const long sx = s->nx, sxy = (long)s->nx * s->ny;
    double *pc = s->precon;
    for (long k = 0; k < s->nruns; k++) {
        const long c0 = s->run_start[k];
        const row_offsets o = row_offsets_at(s, c0);
        const int i0 = (int)(c0 % s->nx);
        const double jlo = o.in[0], jhi = o.in[1], klo = o.in[2], khi = o.in[3];
        for (long c = c0, e = c + s->run_len[k]; c < e; c++) {
            const int i = i0 + (int)(c - c0);
            const double ilo = i > 0, ihi = i < s->nx - 1;
            double diag = s->diag[c];
            double pi = ilo ? pc[c - 1] : 0.0, pj = jlo ? pc[c - sx] : 0.0, pk = klo ? pc[c - sxy] : 0.0;
            double fi = (jhi ? is_fluid(label, c - (ilo ? 1 : 0) + sx) : 0.0) +
                        (khi ? is_fluid(label, c - (ilo ? 1 : 0) + sxy) : 0.0);
            double fj = (ihi ? is_fluid(label, c - (jlo ? sx : 0) + 1) : 0.0) +
                        (khi ? is_fluid(label, c - (jlo ? sx : 0) + sxy) : 0.0);
            double fk = (ihi ? is_fluid(label, c - (klo ? sxy : 0) + 1) : 0.0) +
                        (jhi ? is_fluid(label, c - (klo ? sxy : 0) + sx) : 0.0);
            double piv = diag - pi * pi - pj * pj - pk * pk - tau * (pi * pi * fi + pj * pj * fj + pk * pk * fk);
            if (piv < sigma * diag)
                piv = diag;
            pc[c] = diag > 0.0 ? 1.0 / sqrt(piv) : 0.0;
        }
    }
}


/* Jacobi: precon = 1 / diagonal on FLUID cells (only those are read). */
static void jacobi_factor(fl_pcg *s)
{
    double *pc = s->precon;
    const double *diag = s->diag;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nruns; k++)
        for (long c = s->run_start[k], e = c + s->run_len[k]; c < e; c++)
            pc[c] = diag[c] > 0.0 ? 1.0 / diag[c] : 0.0;
}

/* z = M^-1 r; returns z.r. */
static double precondition_dot(fl_pcg *s, fl_precond kind)
{
    if (kind == FL_PRECOND_MIC0)
        return mic0_apply_dot(s);
    if (kind == FL_PRECOND_MG) {
        return fl_mg_apply(s->mg, s->r, s->z);
    }
    const double *r = s->r, *pc = s->precon;
    double *z = s->z;
    const int plain = kind == FL_PRECOND_NONE;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long k = s->block_run[blk]; k < s->block_run[blk + 1]; k++) {
            const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
#pragma omp simd reduction(+ : sum)
            for (long c = c0; c < c1; c++) {
                z[c] = plain ? r[c] : pc[c] * r[c];
                sum += z[c] * r[c];
            }
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* s = z + beta s (on the FLUID cells; s stays 0 elsewhere) */
static void update_direction(fl_pcg *s, double beta)
{
    const double *z = s->z;
    double *d = s->s;
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nruns; k++) {
        const long c0 = s->run_start[k], c1 = c0 + s->run_len[k];
#pragma omp simd
        for (long c = c0; c < c1; c++)
            d[c] = z[c] + beta * d[c];
    }
}

/* x = 0 on the FLUID cells. */
static void zero_on_runs(fl_pcg *s, double *x)
{
#pragma omp parallel for schedule(static)
    for (long k = 0; k < s->nruns; k++)
        memset(x + s->run_start[k], 0, (size_t)s->run_len[k] * sizeof(double));
}

/* FLUID cells on the outer layer would read outside the arrays (on a
 * periodic grid: on the layers normal to an axis that does not wrap). */
static long fluid_on_outer_layer(const fl_pcg *s, const unsigned char *label)
{
    if (s->wrap) {
        for (long c = 0; c < s->ncells; c++) {
            const int idx[3] = {(int)(c % s->nx), (int)((c / s->nx) % s->ny), (int)(c / ((long)s->nx * s->ny))};
            const int n[3] = {s->nx, s->ny, s->nz};
            int outer = 0;
            for (int a = 0; a < 3; a++)
                outer |= !s->periodic[a] && (idx[a] == 0 || idx[a] == n[a] - 1);
            if (outer && label[c] == FL_CELL_FLUID)
                return c;
        }
        return -1;
    }
    for (int k = 0; k < s->nz; k++)
        for (int j = 0; j < s->ny; j++) {
            int outer_row = k == 0 || k == s->nz - 1 || j == 0 || j == s->ny - 1;
            for (int i = 0; i < s->nx; i += outer_row ? 1 : s->nx - 1) {
                long c = i + (long)s->nx * (j + (long)s->ny * k);
                if (label[c] == FL_CELL_FLUID)
                    return c;
            }
        }
    return -1;
}

/* r = b and A's diagonal on the runs (load_rhs); on a periodic grid
 * whose FLUID cells touch no AIR, b made mean-free and res->null_space
 * set (pcg.h, "Periodic axes"). */
static void load_system(fl_pcg *s, const unsigned char *label, const double *b, fl_pcg_result *res)
{
    if (!s->wrap) {
        load_rhs(s, label, b);
        return;
    }
    res->null_space = wrap_load_rhs(s, label, b) == 0 && s->nfluid > 0;
    if (res->null_space)
        remove_mean(s, s->r);
}

static void record(const fl_pcg_options *opt, fl_pcg_result *res, int k, double rel)
{
    if (opt->history && k < opt->history_cap) {
        opt->history[k] = rel;
        res->history_len = k + 1;
    }
}

/* precondition_dot, its time added to res->apply_ms. */
static double timed_precondition_dot(fl_pcg *s, fl_precond kind, fl_pcg_result *res)
{
    const double t0 = omp_get_wtime();
    const double zr = precondition_dot(s, kind);
    res->apply_ms += 1e3 * (omp_get_wtime() - t0);
    return zr;
}

/* The iterations, from the residual r and the starting p (relative
 * residual rel). */
static void iterate(fl_pcg *s, const unsigned char *label, double *p, double bnorm, double rel,
                    const fl_pcg_options *opt, fl_pcg_result *res)
{
    record(opt, res, 0, rel);
    res->residual = rel;
    if (rel <= opt->tol) {
        res->reason = FL_PCG_CONVERGED_RTOL;
        return;
    }
    s->precon_written = opt->precond == FL_PRECOND_MIC0 || opt->precond == FL_PRECOND_JACOBI;
    const double t0 = omp_get_wtime();
    if (opt->precond == FL_PRECOND_MIC0 && s->wrap)
        wrap_mic0_factor(s, label, opt->mic_tau, opt->mic_sigma);
    else if (opt->precond == FL_PRECOND_MIC0)
        mic0_factor(s, label, opt->mic_tau, opt->mic_sigma);
    else if (opt->precond == FL_PRECOND_JACOBI)
        jacobi_factor(s);
    else if (opt->precond == FL_PRECOND_MG)
        fl_mg_setup(s->mg, label);
    res->setup_ms = 1e3 * (omp_get_wtime() - t0);
    double zr = timed_precondition_dot(s, opt->precond, res);
    update_direction(s, 0.0);

    res->reason = FL_PCG_DIVERGED_MAX_ITER;
    for (int k = 1; k <= opt->max_iter; k++) {
        double sq = s->wrap ? wrap_apply_dot(s, s->s, s->q) : apply_dot(s, s->s, s->q);
        if (!(sq > 0.0) || !isfinite(sq)) {
            res->reason = FL_PCG_DIVERGED_BREAKDOWN;
            break;
        }
        double rr = step_dot(s, zr / sq, p);
        if (res->null_space)
            rr = remove_mean(s, s->r);
        rel = sqrt(rr) / bnorm;
        res->iterations = k;
        res->residual = rel;
        record(opt, res, k, rel);
        if (rel <= opt->tol) {
            res->reason = FL_PCG_CONVERGED_RTOL;
            break;
        }
        double zr_new = timed_precondition_dot(s, opt->precond, res);
        update_direction(s, zr_new / zr);
        zr = zr_new;
    }
}

int fl_pcg_solve(fl_pcg *s, const unsigned char *label, const double *b, double *p,
                 const fl_pcg_options *opt, fl_pcg_result *res, fl_error *err)
{
    memset(res, 0, sizeof *res);
    if (!(opt->tol > 0.0) || opt->max_iter < 0 || opt->history_cap < 0 ||
        (opt->precond != FL_PRECOND_MIC0 && opt->precond != FL_PRECOND_JACOBI &&
         opt->precond != FL_PRECOND_NONE && opt->precond != FL_PRECOND_MG) ||
        !(opt->mic_tau >= 0.0 && opt->mic_tau <= 1.0) || !(opt->mic_sigma >= 0.0 && opt->mic_sigma <= 1.0))
        return fl_fail(err, FL_ERR_INPUT,
                       "pcg: options out of range (tol %g > 0, max_iter %d >= 0, tau %g and sigma %g in [0, 1])",
                       opt->tol, opt->max_iter, opt->mic_tau, opt->mic_sigma);
    if (opt->precond == FL_PRECOND_MG && s->wrap)
        return fl_fail(err, FL_ERR_INPUT, "pcg: the multigrid preconditioner does not support periodic grids "
                                          "(use MIC(0), Jacobi or none)");
    long outer = fluid_on_outer_layer(s, label);
    if (outer >= 0)
        return fl_fail(err, FL_ERR_INPUT, "pcg: FLUID cell %ld lies on the grid's outer layer", outer);
    if (opt->precond == FL_PRECOND_MG && !s->mg && fl_mg_create(s->nx, s->ny, s->nz, &s->mg, err))
        return FL_ERR_MEMORY;

    const double t0 = omp_get_wtime();
    clear_old_runs(s);
    const int warm = opt->warm_start != 0;
    /* written where it is not 0 already (a read costs half the memory
     * traffic of a write, and outside the FLUID cells p is mostly the 0
     * that the last solve left; a -0 may stay, and acts as 0) */
    if (warm) {
#pragma omp parallel for schedule(static)
        for (long c = 0; c < s->ncells; c++)
            if (label[c] != FL_CELL_FLUID && p[c] != 0.0)
                p[c] = 0.0;
    } else {
#pragma omp parallel for schedule(static)
        for (long c = 0; c < s->ncells; c++)
            if (p[c] != 0.0)
                p[c] = 0.0;
    }
    build_runs(s, label);
    res->fluid_cells = (int)s->nfluid;
    load_system(s, label, b, res);

    double bnorm = sqrt(dot(s, s->r, s->r));
    if (bnorm == 0.0) {
        zero_on_runs(s, p);
        res->reason = FL_PCG_CONVERGED_ZERO_RHS;
        record(opt, res, 0, 0.0);
    } else if (!isfinite(bnorm)) {
        record(opt, res, 0, 1.0);
        res->residual = 1.0;
        res->reason = FL_PCG_DIVERGED_BREAKDOWN;
    } else {
        double rel = 1.0;
        if (warm) {
            rel = sqrt(residual_dot(s, p)) / bnorm;
            if (!isfinite(rel)) {
                /* a guess that is not finite (a failed solve before) is dropped */
                zero_on_runs(s, p);
                load_system(s, label, b, res);
                rel = 1.0;
            }
        }
        iterate(s, label, p, bnorm, rel, opt, res);
        if (res->null_space)
            remove_mean(s, p);
    }
    keep_runs(s);
    res->ms = 1e3 * (omp_get_wtime() - t0);
    return FL_OK;
}
