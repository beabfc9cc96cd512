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

/* The same grid, from now on keeping each projection's pressure system
 * (fl_mac_grid_keep_system), and in *opt the options the solver solves it
 * with (its preconditioner, tolerance, iteration cap and warm start; no
 * history): what `fluidlab bench flip --solves` solves again. NULL with
 * one line in err when the copy does not fit in memory. */
const fl_mac_grid *fl_flip_system(void *solver, fl_pcg_options *opt, fl_error *err);

#endif
