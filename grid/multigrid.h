/* multigrid.h: a geometric multigrid V-cycle on the labelled pressure grid
 * of pcg.h, the preconditioner of MGPCG (McAdams, Sifakis and Teran 2010,
 * "A parallel multigrid Poisson solver for fluids simulation on large
 * grids"; docs/methods/flip.md, section 4).
 *
 * Level 0 is the caller's grid; each coarser level halves the interior
 * (a coarse cell covers 2 x 2 x 2 fine ones; the outer layer covers the
 * outer layer, which holds no FLUID). A coarse cell is FLUID when more
 * than two thirds of its non-SOLID fine cells are FLUID, else AIR when
 * any is AIR, else SOLID (McAdams et al. make it AIR when any is AIR:
 * this rule, chosen by measurement, keeps the coarse free surface closer
 * to the fine one), and its operator is pcg.h's 7-point stencil on those
 * labels. Transfers: trilinear interpolation of
 * the cell-centred values (P), and restriction R = P^T / 2 (P^T sums 8
 * times a smooth field, and the coarse stencil, unscaled, needs 4 times
 * the fine residual). Smoothing: red-black Gauss-Seidel over the level,
 * then over the band of FLUID cells beside a non-FLUID one (McAdams et
 * al.'s boundary smoothing), the sweeps after the coarse correction those
 * before it in reverse order, and many on the coarsest level. So the
 * cycle is a fixed symmetric positive definite operator, as conjugate
 * gradient needs (to the rounding of its single-precision arithmetic),
 * and every stage is a parallel loop over the cells: nothing sequential,
 * unlike MIC(0)'s triangular solves. */
#ifndef FL_MULTIGRID_H
#define FL_MULTIGRID_H

#include "fl_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_mg fl_mg;

/* The hierarchy for an nx x ny x nz grid (the finest level's outer layer
 * SOLID, as pcg.h requires), or FL_ERR_MEMORY / FL_ERR_INPUT. */
int fl_mg_create(int nx, int ny, int nz, fl_mg **out, fl_error *err);
void fl_mg_destroy(fl_mg **m);

/* The coarse levels' labels under label (the finest level's, kept by
 * pointer until the next setup). */
void fl_mg_setup(fl_mg *m, const unsigned char *label);

/* z = one V-cycle applied to r: written on the FLUID cells of the finest
 * level, and 0 on the other cells between the first and the last FLUID
 * cell of each row (z elsewhere is not touched; r is read on those cells
 * of the rows, and must be finite there). Returns z.r, summed per row and
 * then over the rows in order, so that it does not depend on the thread
 * count. */
double fl_mg_apply(fl_mg *m, const double *r, double *z);

/* The number of levels (the finest included). */
int fl_mg_levels(const fl_mg *m);

/* The levels fl_mg_create makes for an nx x ny x nz grid (the finest
 * included): each coarser one halves the interior, while every interior
 * axis of the one above has at least 4 cells (at most 16). */
int fl_mg_level_count(int nx, int ny, int nz);

#ifdef __cplusplus
}
#endif

#endif
