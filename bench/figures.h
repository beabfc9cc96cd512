/* figures.h: `fluidlab figures`, every figure of docs/figures.md from runs
 * of identical scenes: the runs (through fl_run, one folder each under
 * DIR/runs/), the data of each figure as CSV, the picture (PNG and SVG,
 * drawn by the figure's script in plots/) and DIR/report.md. Only bench/
 * prints. */
#ifndef FL_FIGURES_H
#define FL_FIGURES_H

/* argv are the words after "figures". Returns an exit code: 0 when every
 * figure was written (unstable cases are results, drawn as such), 1 on bad
 * input, 2 when an output could not be written. */
int fl_figures_main(int argc, char **argv);

#endif
