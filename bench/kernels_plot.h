/* kernels_plot.h: `fluidlab kernels`, the SPH kernels side by side
 * (kernels_plot.c). */
#ifndef FL_KERNELS_PLOT_H
#define FL_KERNELS_PLOT_H

/* The command with its arguments after `kernels`; the exit code. */
int fl_kernels_main(int argc, char **argv);

#endif
