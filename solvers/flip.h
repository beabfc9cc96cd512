/* flip.h: what the FLIP and PIC solvers (flip.c) show of their MAC grid,
 * for the pictures of `fluidlab run --save grid` (bench/pictures.h). */
#ifndef FL_FLIP_H
#define FL_FLIP_H

#include "mac.h"
#include "solver.h"

/* 1 when ops is a solver on a MAC grid (flip, pic). */
int fl_flip_is(const fl_solver_ops *ops);

/* The MAC grid of solver, made by a solver of fl_flip_is: from now on its
 * projections keep their divergence before and after
 * (fl_mac_grid_keep_divergence). After each step it holds the last
 * substep's projected velocity, pressure and divergences; valid until the
 * solver is destroyed. NULL with one line in err when the divergences do
 * not fit in memory. */
const fl_mac_grid *fl_flip_grid(void *solver, fl_error *err);

#endif
