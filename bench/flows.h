/* flows.h: the measurements of the analytic flows (scenes/analytic.h) on a
 * run's particles, written once for `fluidlab validate` (the taylor_green
 * and poiseuille cases) and for the tests (tests/test_flows.c);
 * docs/validation.md says what each number means.
 *
 *   Taylor-Green: the fluid's kinetic energy E(t) = sum 1/2 m |v|^2 against
 *   E0 exp(-4 nu k^2 t); the decay rate fitted to ln E by least squares and
 *   the effective viscosity nu_eff = rate / (4 k^2), the fluid's nu plus
 *   whatever the method adds.
 *   Poiseuille: the particles' x velocities averaged in bins across the
 *   channel (at the bin's mean y), against the steady parabola or the
 *   series of the flow started from rest: the L2 error over the bins
 *   relative to the parabola's peak g H^2 / (8 nu). */
#ifndef FL_FLOWS_H
#define FL_FLOWS_H

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sum 1/2 m |v|^2 over the fluid, J (2D: J/m, the mass per unit depth). */
double fl_flow_kinetic_energy(const fl_particles *f, double mass);

typedef struct fl_tg_fit {
    double rate;     /* 1/s: minus the least-squares slope of ln E against t */
    double exact;    /* 1/s: 4 nu k^2, k = 2 pi / L */
    double nu_eff;   /* m^2/s: rate / (4 k^2) */
    double error;    /* rate / exact - 1 = nu_eff / nu - 1 */
    double worst;    /* the largest |E / (E0 exp(-exact t)) - 1| over the samples, E0 = E(t[0]) */
} fl_tg_fit;

/* Fits n >= 2 samples (t[q] s, increasing; E[q] > 0) of a Taylor-Green run
 * of viscosity nu (m^2/s) on a square of side L (m). Returns 0, or -1 when
 * there are fewer than two samples or an energy is not positive and finite
 * (out then holds NAN). */
int fl_taylor_green_fit(const double *t, const double *E, int n, double nu, double L, fl_tg_fit *out);

#define FL_PROFILE_MAX_BINS 512

/* A velocity profile across a channel: bin b covers y0 + [b, b + 1) H / bins. */
typedef struct fl_profile {
    int bins;
    double y[FL_PROFILE_MAX_BINS];   /* m from the lower wall: the mean y of the bin's particles */
    double u[FL_PROFILE_MAX_BINS];   /* m/s: their mean x velocity */
    int count[FL_PROFILE_MAX_BINS];  /* particles in the bin (0: y and u are 0) */
} fl_profile;

/* Bins the fluid's x velocities across [y0, y0 + H] into bins (1 to
 * FL_PROFILE_MAX_BINS) bins; particles outside are left out. */
void fl_flow_profile(const fl_particles *f, double y0, double H, int bins, fl_profile *p);

/* The L2 error of profile p against Poiseuille flow (g m/s^2, nu m^2/s, H
 * m): sqrt(mean over the bins that hold particles of (u - u_exact(y))^2),
 * relative to the steady peak g H^2 / (8 nu); u_exact the steady parabola
 * when t < 0, else the flow from rest at time t (s). NAN when no bin holds
 * a particle. */
double fl_poiseuille_error(const fl_profile *p, double g, double nu, double H, double t);

#ifdef __cplusplus
}
#endif

#endif
