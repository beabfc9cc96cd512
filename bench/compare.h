/* compare.h: `fluidlab compare`, the same scene through several solvers,
 * and `fluidlab sweep`, one solver through several steps: the run folders
 * come from fl_run (harness.h); this module writes what puts them side by
 * side. Only bench/ prints. */
#ifndef FL_COMPARE_H
#define FL_COMPARE_H

#include "harness.h"

/* One line of the comparison: a solver on a device. */
typedef struct fl_compare_entry {
    const char *solver;
    const char *device;      /* "cpu", "cuda" or "emu" */
    char folder[48];         /* its run folder in dir: "<solver>", or "<solver>_<device>"
                              * when the comparison has several devices */
    char label[48];          /* its name in density.csv and the plot: "<solver>", or
                              * "<solver> (<device>)" with several devices */
    int unsupported;         /* 1: the solver has no version on the device (error says
                              * so); it was not run */
    int ran;                 /* 1: fl_run finished (stable, unstable or interrupted); 0: it
                              * failed (error says why), it is unsupported, or, error "",
                              * the command was interrupted before it */
    fl_run_result result;
    char error[600];         /* why it did not run, "" when it ran */
} fl_compare_entry;

/* Writes into dir, next to the run folders dir/<folder>/ (every write
 * checked; FL_ERR_IO naming the file when one fails):
 *   compare.csv   one row per entry: solver, device, status (stable,
 *                 unstable, interrupted, failed, unsupported, or not run
 *                 after an interrupt), reason, steps, simulated and wall
 *                 time, ms per step, mean compression (percent)
 *   compare.md    the same as a Markdown table
 *   density.csv   each entry's time, density_err_avg and density_err_max
 *                 from its stats.csv, one block per entry (blocks separated
 *                 by two blank lines, each opening with the header
 *                 "time,<label>,<label>"), for plots/compare.gp
 * Entries that did not run have no block. */
int fl_compare_write(const char *dir, const fl_compare_entry *e, int n, fl_error *err);

/* One case of a sweep: the step (dt, or substeps per frame) and the
 * pressure iterations (0: the solver's own) it ran with. */
typedef struct fl_sweep_case {
    double dt;               /* s; 0 when the case is given by substeps */
    int substeps;            /* steps per frame; 0 when given by dt */
    int iterations;
    char dir[1024];          /* its run folder */
    int ran;
    fl_run_result result;
    char error[600];
} fl_sweep_case;

/* Writes dir/sweep.csv and dir/sweep.md: one row per case with its step,
 * iterations, status (as in compare.csv), the simulated time at
 * which it broke and why, steps, wall time and mean compression. */
int fl_sweep_write(const char *dir, const fl_sweep_case *c, int n, fl_error *err);

#endif
