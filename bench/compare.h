/* compare.h: `fluidlab compare`, the same scene through several solvers:
 * the per-solver run folders come from fl_run (harness.h); this module
 * writes what puts them side by side. Only bench/ prints. */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include "harness.h"

/* One solver's line of the comparison. */
typedef struct fl_compare_entry {
    const char *solver;
    int ran;                 /* 1: fl_run finished (stable or not); 0: it failed, see error */
    fl_run_result result;
    char error[600];         /* why it did not run, "" when it ran */
} fl_compare_entry;

/* Writes into dir, next to the solvers' folders dir/<solver>/:
 *   compare.csv   one row per solver: status, reason, steps, simulated and
 *                 wall time, ms per step, mean compression (percent)
 *   compare.md    the same as a Markdown table
 *   density.csv   each solver's time, density_err_avg and density_err_max
 *                 from its stats.csv, one block per solver (blocks separated
 *                 by two blank lines, each opening with the header
 *                 "time,<solver>,<solver>"), for plots/compare.gp
 * Solvers that did not run have no block. */
int fl_compare_write(const char *dir, const fl_compare_entry *e, int n, fl_error *err);

#endif
