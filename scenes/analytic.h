/* analytic.h: the flows with exact solutions that `fluidlab validate`
 * measures (docs/validation.md), in one place for the scene loader (which
 * starts a fluid in them) and for the measurements (bench/flows.h).
 *
 *   Taylor-Green vortex (Taylor & Green 1937), on a periodic square of side
 *   L, k = 2 pi / L, x and y from the square's corner:
 *     u = U sin(k x) cos(k y) e^(-2 nu k^2 t),  v = -U cos(k x) sin(k y) e^(-2 nu k^2 t)
 *   an exact solution of the incompressible Navier-Stokes equations (the
 *   advection is a gradient, balanced by the pressure); its kinetic energy
 *   E(t) = E0 e^(-4 nu k^2 t).
 *   Plane Poiseuille flow: a channel between no-slip walls at y = 0 and
 *   y = H, driven along x by a body force g, from rest:
 *     u_s(y)  = g y (H - y) / (2 nu)
 *     u(y, t) = u_s(y) - sum_n 4 g H^2 / (nu pi^3 (2n+1)^3) sin((2n+1) pi y / H)
 *                        e^(-(2n+1)^2 pi^2 nu t / H^2)
 *   (the sine series of u_s decaying mode by mode: at t = 0 the sum is u_s). */
#ifndef FL_ANALYTIC_H
#define FL_ANALYTIC_H

#ifdef __cplusplus
extern "C" {
#endif

/* The Taylor-Green velocity (m/s) at t = 0 at (x, y), measured from the
 * corner (x0, y0) of a square of side L (m), amplitude U (m/s): v[0] = u,
 * v[1] = v. */
void fl_taylor_green_velocity(double U, double L, double x0, double y0, double x, double y, double v[2]);

/* The decay rate of the Taylor-Green kinetic energy, 4 nu k^2 (1/s), k =
 * 2 pi / L. */
double fl_taylor_green_energy_rate(double nu, double L);

/* The steady Poiseuille velocity u_s(y) = g y (H - y) / (2 nu), m/s, y from
 * the lower wall (0 outside [0, H]). */
double fl_poiseuille_steady(double g, double nu, double H, double y);

/* The Poiseuille flow started from rest, u(y, t), m/s: the series to the
 * terms whose amplitude has fallen below 1e-12 of the peak (at t = 0, to
 * 2000 terms: u_s within 1e-7 of the peak). */
double fl_poiseuille_transient(double g, double nu, double H, double y, double t);

#ifdef __cplusplus
}
#endif

#endif
