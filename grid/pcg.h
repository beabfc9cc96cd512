/* pcg.h: the pressure Poisson system of the MAC grid and its conjugate
 * gradient solver.
 *
 * The system A p = b lives on the FLUID cells of a labelled nx x ny x nz
 * grid and is the 7-point Laplacian of the report's equation 8 multiplied by
 * -dx^2, assembled as Bridson does it ("Fluid Simulation for Computer
 * Graphics", 2nd ed., ch. 5): a FLUID cell's diagonal is its number of
 * non-SOLID neighbours, its off-diagonal is -1 towards each FLUID neighbour;
 * an AIR neighbour holds p = 0 (free surface, Dirichlet) and so stays in the
 * diagonal only; a SOLID neighbour drops out of both (u.n fixed on that
 * face, Neumann). A is symmetric positive definite whenever every connected
 * FLUID region touches AIR.
 *
 * Periodic axes (fl_pcg_set_periodic): along an axis that wraps, the grid
 * has no SOLID outer layer and the cells at its two ends are neighbours:
 * the stencil wraps, and A stays symmetric, positive semidefinite. When no
 * FLUID cell has an AIR neighbour (a periodic box, or a periodic channel,
 * full of fluid) A has the constant null space (every row sums to 0) and
 * A p = b has a solution only for b with zero sum over the FLUID cells:
 * the solve then makes b mean-free (b minus its mean over the FLUID cells:
 * the part A cannot produce; on a single connected FLUID region), removes
 * the mean from the residual at every iteration (it would drift in by
 * rounding) and returns the mean-free solution (result null_space 1; the
 * relative residual is measured against the mean-free b). MIC(0) on a
 * periodic grid factors A without its couplings across the grid's faces
 * (the diagonal kept): that matrix is diagonally dominant, strictly so on
 * the wrapped cells, so its pivots stay positive even when A is singular
 * and the preconditioner stays symmetric positive definite; the dropped
 * couplings cost some iterations, not convergence. Jacobi and plain CG
 * need nothing of their own. The multigrid preconditioner does not
 * support periodic grids (FL_ERR_INPUT). A grid without periodic axes
 * runs exactly the code and arithmetic it ran before they existed.
 *
 * fl_pcg_solve runs conjugate gradient on it with one of four
 * preconditioners: MIC(0), Bridson's modified incomplete Cholesky with
 * tau = 0.97 and safety sigma = 0.25 (his ch. 5, "Modified Incomplete
 * Cholesky"), a multigrid V-cycle (multigrid.h, McAdams et al. 2010),
 * Jacobi (the diagonal), or none. Vectors and dot products are in
 * double, the dot products summed over fixed blocks so that the iterates do
 * not depend on the thread count. */
#ifndef FL_PCG_H
#define FL_PCG_H

#include "fl_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cell labels (one byte per cell). */
enum { FL_CELL_FLUID = 0, FL_CELL_AIR = 1, FL_CELL_SOLID = 2 };

/* The first and the last FLUID cell of label[i0 .. i1) into *first and
 * *last; with none, *first = i1 and *last = i0 - 1 (an empty range). A
 * branch-free minimum and maximum, which the compiler makes one vector
 * loop (the multigrid's rows, the projection's right-hand side). */
static inline void fl_fluid_span(const unsigned char *label, int i0, int i1, int *first, int *last)
{
    int a = i1, z = i0 - 1;
    for (int i = i0; i < i1; i++) {
        const int lo = label[i] == FL_CELL_FLUID ? i : i1, hi = label[i] == FL_CELL_FLUID ? i : i0 - 1;
        a = lo < a ? lo : a;
        z = hi > z ? hi : z;
    }
    *first = a, *last = z;
}

/* A's diagonal at a FLUID cell c: its number of non-SOLID neighbours.
 * sx, sxy: index strides of y and z; c must not lie on the grid's outer
 * layer. */
static inline int fl_poisson_diag(const unsigned char *label, long c, long sx, long sxy)
{
    return (label[c - 1] != FL_CELL_SOLID) + (label[c + 1] != FL_CELL_SOLID) +
           (label[c - sx] != FL_CELL_SOLID) + (label[c + sx] != FL_CELL_SOLID) +
           (label[c - sxy] != FL_CELL_SOLID) + (label[c + sxy] != FL_CELL_SOLID);
}

/* (A x)_c at a FLUID cell c, for x = 0 outside the FLUID cells: the
 * diagonal times x_c minus the neighbours' x. Matrix-free: the labels change
 * every step, so the coefficients would be rebuilt every step anyway, and
 * one label byte per cell is far less memory traffic than Bridson's stored
 * Adiag/Aplusi/Aplusj/Aplusk (four doubles), for a mat-vec that is
 * memory-bound. */
static inline double fl_poisson_apply_cell(const unsigned char *label, const double *x, long c,
                                           long sx, long sxy)
{
    return fl_poisson_diag(label, c, sx, sxy) * x[c] -
           (x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy]);
}

typedef enum fl_precond {
    FL_PRECOND_MIC0 = 0,   /* modified incomplete Cholesky, level 0 */
    FL_PRECOND_JACOBI = 1, /* diagonal */
    FL_PRECOND_NONE = 2,   /* plain CG */
    FL_PRECOND_MG = 3      /* a geometric multigrid V-cycle (multigrid.h): MGPCG */
} fl_precond;

/* Why a solve ended, PETSc style: converged > 0, diverged < 0. */
enum {
    FL_PCG_CONVERGED_RTOL = 1,      /* ||r|| / ||b|| <= tol */
    FL_PCG_CONVERGED_ZERO_RHS = 2,  /* b = 0 on the FLUID cells: p = 0 */
    FL_PCG_DIVERGED_MAX_ITER = -1,  /* max_iter iterations without reaching tol */
    FL_PCG_DIVERGED_BREAKDOWN = -2  /* s.As <= 0 or not finite (singular system, NaN input) */
};

typedef struct fl_pcg_options {
    fl_precond precond;
    double tol;          /* relative residual ||r||_2 / ||b||_2 to stop at */
    int max_iter;
    double mic_tau;      /* MIC(0) modification: 0 = IC(0), 1 = full MIC */
    double mic_sigma;    /* MIC(0) safety: a pivot below sigma * diagonal falls back to the diagonal */
    double *history;     /* caller-owned, or NULL: history[k] = ||r_k|| / ||b|| after k iterations */
    int history_cap;     /* entries history can hold */
    int warm_start;      /* 1: start from the p passed in (its values on the FLUID cells), e.g. the last
                            solve's pressure; 0: start from p = 0 */
} fl_pcg_options;

/* MIC(0), tol 1e-6, 1000 iterations, tau 0.97, sigma 0.25, no history,
 * starting from p = 0. */
fl_pcg_options fl_default_pcg_options(void);

typedef struct fl_pcg_result {
    int iterations;
    int reason;          /* FL_PCG_CONVERGED_* or FL_PCG_DIVERGED_* */
    double residual;     /* final ||r|| / ||b|| */
    int history_len;     /* entries written to options.history */
    int fluid_cells;     /* unknowns of the system */
    int null_space;      /* 1: periodic with no AIR next to the FLUID cells: b and p made mean-free */
    double ms;           /* wall time of the solve, set-up included, ms */
    double setup_ms;     /* of which the preconditioner's set-up (MIC(0)'s factor, Jacobi's inverse
                          * diagonal, the multigrid's levels), ms */
    double apply_ms;     /* and the preconditioner's applications, z = M^-1 r and z.r, ms (the rest:
                          * conjugate gradient's own loops and the solve's fixed work) */
} fl_pcg_result;

/* Workspace of a solve on an nx x ny x nz grid (the vectors r, z, s, q, the
 * preconditioner, the FLUID cells as runs along x and the block sums),
 * allocated once so that a solve does not allocate. r, z, s and precon are 0
 * outside the FLUID cells of the solve in progress (or of the last one):
 * a solve clears the cells of the last one before it starts. */
typedef struct fl_pcg {
    int nx, ny, nz;
    long ncells;
    double *r, *z, *s, *q;
    double *precon;      /* per FLUID cell, 0 elsewhere: MIC(0) 1 / sqrt(pivot), Jacobi 1 / diagonal */
    int precon_written;  /* the last solve wrote precon on its runs (MIC(0), Jacobi): the next clears it */
    double *diag;        /* A's diagonal on the FLUID cells of the current solve, 0 on the runs' gaps */
    double *mask;        /* 1 on the FLUID cells of the current solve, 0 on the runs' gaps */
    long *run_start;     /* the FLUID cells as runs along x (gaps of a few cells included), in cell
                            order: first cell of run k */
    int *run_len;        /* and its length */
    long nruns, nfluid;
    long *old_start;     /* the runs of the last solve, cleared at the start of the next */
    int *old_len;
    long nold;
    long *plane_runs;    /* runs per z plane of cells, then their prefix sums (nz + 1) */
    long *block_run;     /* block b of the dot products: runs [block_run[b], block_run[b + 1]) */
    double *partial;     /* one sum per block */
    long nblocks;
    struct fl_mg *mg;    /* the multigrid hierarchy, made by the first FL_PRECOND_MG solve */
    int periodic[3];     /* 1 per axis that wraps (fl_pcg_set_periodic); 0 by default */
    int wrap;            /* any of them: the solve takes the periodic code path */
} fl_pcg;

int fl_pcg_create(int nx, int ny, int nz, fl_pcg **out, fl_error *err);
void fl_pcg_destroy(fl_pcg **s);

/* Makes the axes with periodic[a] set wrap (above): FLUID cells may then
 * lie on the grid's two outer layers normal to them. */
void fl_pcg_set_periodic(fl_pcg *s, const int periodic[3]);

/* Solves A p = b (A above, from label) over the FLUID cells, starting from
 * p = 0, or with opt->warm_start from p's values on the FLUID cells (a
 * guess that is not finite is replaced by 0). b is read on FLUID cells
 * only; p is written everywhere (0 outside the FLUID cells). The stopping
 * test is ||b - A p|| <= tol ||b|| either way, and history[0] is the
 * starting residual over ||b|| (1 from p = 0). Returns FL_ERR_INPUT (nothing solved) when a FLUID cell
 * lies on the grid's outer layer normal to an axis that does not wrap, an
 * option is out of range, or the multigrid preconditioner is asked for on
 * a periodic grid, else FL_OK
 * with the outcome, non-convergence included, in *res. */
int fl_pcg_solve(fl_pcg *s, const unsigned char *label, const double *b, double *p,
                 const fl_pcg_options *opt, fl_pcg_result *res, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
