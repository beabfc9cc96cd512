/* pcg.c: preconditioned conjugate gradient on the MAC grid's pressure
 * system (pcg.h), following Bridson, "Fluid Simulation for Computer
 * Graphics", 2nd ed., ch. 5: PCG with the MIC(0) preconditioner, plus
 * Jacobi and no preconditioner for the convergence comparison.
 *
 * Every vector spans the whole grid and is kept at 0 outside the FLUID
 * cells, so that the stencils read neighbours without testing labels. The
 * iterations visit only the FLUID cells, through a list of them in cell
 * order built at the start of each solve. The dot products add per-block
 * partial sums (blocks of that list) in block order: the same result on
 * any number of threads. */
#include "pcg.h"

#include <math.h>
#include <string.h>

/* FLUID cells per block of a dot product: small enough for many blocks per
 * thread, large enough that the partial sums cost nothing. */
#define PCG_BLOCK 4096

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
    s->r = fl_alloc(bytes);
    s->z = fl_alloc(bytes);
    s->s = fl_alloc(bytes);
    s->q = fl_alloc(bytes);
    s->precon = fl_alloc(bytes);
    s->fluid = fl_alloc((size_t)s->ncells * sizeof(long));
    s->partial = fl_alloc((size_t)((s->ncells + PCG_BLOCK - 1) / PCG_BLOCK) * sizeof(double));
    if (!s->r || !s->z || !s->s || !s->q || !s->precon || !s->fluid || !s->partial) {
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
    fl_free(s->r);
    fl_free(s->z);
    fl_free(s->s);
    fl_free(s->q);
    fl_free(s->precon);
    fl_free(s->fluid);
    fl_free(s->partial);
    fl_free(s);
    *sp = NULL;
}

static double sum_blocks(const fl_pcg *s)
{
    double sum = 0.0;
    for (long b = 0; b < s->nblocks; b++)
        sum += s->partial[b];
    return sum;
}

/* One past the last FLUID-list index of block b. */
static inline long block_end(const fl_pcg *s, long b)
{
    long e = (b + 1) * PCG_BLOCK;
    return e < s->nfluid ? e : s->nfluid;
}

static double dot(fl_pcg *s, const double *a, const double *b)
{
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long n = blk * PCG_BLOCK; n < block_end(s, blk); n++) {
            long c = s->fluid[n];
            sum += a[c] * b[c];
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* q = A x; returns x.q. */
static double apply_dot(fl_pcg *s, const unsigned char *label, const double *x, double *q)
{
    long sx = s->nx, sxy = (long)s->nx * s->ny;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long n = blk * PCG_BLOCK; n < block_end(s, blk); n++) {
            long c = s->fluid[n];
            double v = fl_poisson_apply_cell(label, x, c, sx, sxy);
            q[c] = v;
            sum += x[c] * v;
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

/* p += alpha s, r -= alpha q; returns r.r. */
static double step_dot(fl_pcg *s, double alpha, double *p)
{
    double *r = s->r;
    const double *d = s->s, *q = s->q;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long n = blk * PCG_BLOCK; n < block_end(s, blk); n++) {
            long c = s->fluid[n];
            p[c] += alpha * d[c];
            r[c] -= alpha * q[c];
            sum += r[c] * r[c];
        }
        s->partial[blk] = sum;
    }
    return sum_blocks(s);
}

static inline double is_fluid(const unsigned char *label, long c)
{
    return label[c] == FL_CELL_FLUID ? 1.0 : 0.0;
}

/* The MIC(0) factor, Bridson's algorithm in 3-D. With A's off-diagonals -1
 * between FLUID cells and precon = 0 outside them, the products
 * Aplusi(i-1) * precon(i-1) reduce to precon(i-1), and the tau terms to
 * precon(i-1)^2 times the count of FLUID cells beside (i-1) in +j and +k.
 * Sequential: each pivot needs the three below it. */
static void mic0_factor(fl_pcg *s, const unsigned char *label, double tau, double sigma)
{
    long sx = s->nx, sxy = (long)s->nx * s->ny;
    double *pc = s->precon;
    memset(pc, 0, (size_t)s->ncells * sizeof(double));
    for (long n = 0; n < s->nfluid; n++) {
        long c = s->fluid[n];
        double diag = fl_poisson_diag(label, c, sx, sxy);
        if (diag == 0.0)
            continue;
        double pi = pc[c - 1], pj = pc[c - sx], pk = pc[c - sxy];
        double e = diag - pi * pi - pj * pj - pk * pk -
                   tau * (pi * pi * (is_fluid(label, c - 1 + sx) + is_fluid(label, c - 1 + sxy)) +
                          pj * pj * (is_fluid(label, c - sx + 1) + is_fluid(label, c - sx + sxy)) +
                          pk * pk * (is_fluid(label, c - sxy + 1) + is_fluid(label, c - sxy + sx)));
        if (e < sigma * diag)
            e = diag;
        pc[c] = 1.0 / sqrt(e);
    }
}

/* z = (L L^T)^-1 r: forward substitution L q = r in cell order, then
 * L^T z = q in reverse order, in place in z (outside FLUID z stays 0). */
static void mic0_apply(fl_pcg *s)
{
    long sx = s->nx, sxy = (long)s->nx * s->ny;
    const double *pc = s->precon, *r = s->r;
    double *z = s->z;
    for (long n = 0; n < s->nfluid; n++) {
        long c = s->fluid[n];
        z[c] = (r[c] + pc[c - 1] * z[c - 1] + pc[c - sx] * z[c - sx] + pc[c - sxy] * z[c - sxy]) * pc[c];
    }
    for (long n = s->nfluid - 1; n >= 0; n--) {
        long c = s->fluid[n];
        z[c] = (z[c] + pc[c] * (z[c + 1] + z[c + sx] + z[c + sxy])) * pc[c];
    }
}

/* Jacobi: precon = 1 / diagonal on FLUID cells (only those are read). */
static void jacobi_factor(fl_pcg *s, const unsigned char *label)
{
    long sx = s->nx, sxy = (long)s->nx * s->ny;
    double *pc = s->precon;
#pragma omp parallel for schedule(static)
    for (long n = 0; n < s->nfluid; n++) {
        long c = s->fluid[n];
        int diag = fl_poisson_diag(label, c, sx, sxy);
        pc[c] = diag > 0 ? 1.0 / diag : 0.0;
    }
}

/* z = M^-1 r; returns z.r. */
static double precondition_dot(fl_pcg *s, fl_precond kind)
{
    const double *r = s->r;
    double *z = s->z;
    if (kind == FL_PRECOND_MIC0) {
        mic0_apply(s);
        return dot(s, z, r);
    }
    const double *pc = s->precon;
    int plain = kind == FL_PRECOND_NONE;
#pragma omp parallel for schedule(static)
    for (long blk = 0; blk < s->nblocks; blk++) {
        double sum = 0.0;
        for (long n = blk * PCG_BLOCK; n < block_end(s, blk); n++) {
            long c = s->fluid[n];
            z[c] = plain ? r[c] : pc[c] * r[c];
            sum += z[c] * r[c];
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
    for (long n = 0; n < s->nfluid; n++) {
        long c = s->fluid[n];
        d[c] = z[c] + beta * d[c];
    }
}

/* FLUID cells on the outer layer would read outside the arrays. */
static long fluid_on_outer_layer(const fl_pcg *s, const unsigned char *label)
{
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

static void record(const fl_pcg_options *opt, fl_pcg_result *res, int k, double rel)
{
    if (opt->history && k < opt->history_cap) {
        opt->history[k] = rel;
        res->history_len = k + 1;
    }
}

int fl_pcg_solve(fl_pcg *s, const unsigned char *label, const double *b, double *p,
                 const fl_pcg_options *opt, fl_pcg_result *res, fl_error *err)
{
    memset(res, 0, sizeof *res);
    if (!(opt->tol > 0.0) || opt->max_iter < 0 || opt->history_cap < 0 ||
        (opt->precond != FL_PRECOND_MIC0 && opt->precond != FL_PRECOND_JACOBI &&
         opt->precond != FL_PRECOND_NONE) ||
        !(opt->mic_tau >= 0.0 && opt->mic_tau <= 1.0) || !(opt->mic_sigma >= 0.0 && opt->mic_sigma <= 1.0))
        return fl_fail(err, FL_ERR_INPUT,
                       "pcg: options out of range (tol %g > 0, max_iter %d >= 0, tau %g and sigma %g in [0, 1])",
                       opt->tol, opt->max_iter, opt->mic_tau, opt->mic_sigma);
    long outer = fluid_on_outer_layer(s, label);
    if (outer >= 0)
        return fl_fail(err, FL_ERR_INPUT, "pcg: FLUID cell %ld lies on the grid's outer layer", outer);

#pragma omp parallel for schedule(static)
    for (long c = 0; c < s->ncells; c++) {
        p[c] = 0.0;
        s->r[c] = label[c] == FL_CELL_FLUID ? b[c] : 0.0;
        s->z[c] = 0.0;
        s->s[c] = 0.0;
    }
    long nfluid = 0;
    for (long c = 0; c < s->ncells; c++)
        if (label[c] == FL_CELL_FLUID)
            s->fluid[nfluid++] = c;
    s->nfluid = nfluid;
    s->nblocks = (nfluid + PCG_BLOCK - 1) / PCG_BLOCK;
    res->fluid_cells = (int)nfluid;

    double bnorm = sqrt(dot(s, s->r, s->r));
    if (bnorm == 0.0) {
        res->reason = FL_PCG_CONVERGED_ZERO_RHS;
        record(opt, res, 0, 0.0);
        return FL_OK;
    }
    record(opt, res, 0, 1.0);
    res->residual = 1.0;
    if (!isfinite(bnorm)) {
        res->reason = FL_PCG_DIVERGED_BREAKDOWN;
        return FL_OK;
    }

    if (opt->precond == FL_PRECOND_MIC0)
        mic0_factor(s, label, opt->mic_tau, opt->mic_sigma);
    else if (opt->precond == FL_PRECOND_JACOBI)
        jacobi_factor(s, label);
    double zr = precondition_dot(s, opt->precond);
    update_direction(s, 0.0);

    res->reason = FL_PCG_DIVERGED_MAX_ITER;
    for (int k = 1; k <= opt->max_iter; k++) {
        double sq = apply_dot(s, label, s->s, s->q);
        if (!(sq > 0.0) || !isfinite(sq)) {
            res->reason = FL_PCG_DIVERGED_BREAKDOWN;
            break;
        }
        double rr = step_dot(s, zr / sq, p);
        double rel = sqrt(rr) / bnorm;
        res->iterations = k;
        res->residual = rel;
        record(opt, res, k, rel);
        if (rel <= opt->tol) {
            res->reason = FL_PCG_CONVERGED_RTOL;
            break;
        }
        double zr_new = precondition_dot(s, opt->precond);
        update_direction(s, zr_new / zr);
        zr = zr_new;
    }
    return FL_OK;
}
