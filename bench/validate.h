/* validate.h: `fluidlab validate`, the solvers against physics with known
 * answers, each case at three resolutions (docs/validation.md): the
 * hydrostatic tank's pressure slope against rho0 g, the Martin & Moyce
 * dam break's front and residual column height, a still tank's spurious
 * speeds and volume drift, the Taylor-Green vortex's energy decay and the
 * Poiseuille channel's profile (flows.h). Every run goes through fl_run (one
 * folder each under DIR/runs/), as a job of dispatch.h; the numbers are
 * then measured from the run folders into one figure per case (CSV, PNG,
 * SVG) and DIR/report.md, with the order of convergence between
 * successive resolutions. Only bench/ prints. */
#ifndef FL_VALIDATE_H
#define FL_VALIDATE_H

/* argv are the words after "validate". Returns an exit code: 0 when every
 * run finished and the report is written (a run that went unstable, or
 * whose folder could not be measured, is a row saying why), 1 on bad
 * input, 2 when an output could not be written, 4 when some runs failed
 * or are missing (recorded; --resume runs them), 130 or 143 when
 * interrupted (no report then). */
int fl_validate_main(int argc, char **argv);

/* The step validate runs solver at, at particle spacing d (m) in a fluid
 * of viscosity nu (m^2/s): s, or 0 for CFL-adaptive (`--dt cfl`). The
 * tests of the same flows step alike. */
double fl_validate_step(const char *solver, double d, double nu);

#endif
