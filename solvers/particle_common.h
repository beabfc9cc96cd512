/* particle_common.h: the stages every particle solver shares, so that SPH,
 * WCSPH and the solvers after them bin, integrate and clamp the same way. */
#ifndef FL_PARTICLE_COMMON_H
#define FL_PARTICLE_COMMON_H

#include <math.h>

#include "solver.h"

/* The pressure a boundary particle b carries in the pair (i, b), Pa: the
 * fluid particle's p_i extrapolated hydrostatically to the wall particle,
 * p_b = p_i + rho0 g . (x_b - x_i), the static-wall case of Adami, Hu &
 * Adams (2012)'s wall-pressure extrapolation taken pair by pair, never
 * below min(p_i, 0); (dx, dy, dz) = x_i - x_b. With p_b = p_i (Akinci
 * 2012's plain mirror) the wall carries no pressure gradient, and a tank's
 * particles next to a wall need a steeper gradient from their fluid
 * neighbors alone: PCISPH's tank read +11.6 % over rho0 g instead of
 * +7.5 % (docs/methods/sph.md section 4). */
static inline float fl_wall_pressure(float p_i, float rho0, const float g[3], float dx, float dy, float dz)
{
    float p_b = p_i - rho0 * (g[0] * dx + g[1] * dy + g[2] * dz);
    return fmaxf(p_b, fminf(p_i, 0.0f));
}

/* sum_j |grad W_spiky(x_j)|^2, 1/m^8, over the neighbors of a particle with
 * a full neighborhood on a cubic lattice of spacing d (itself excluded: its
 * gradient is zero): the prototype behind PCISPH's delta and PBF's
 * full-neighborhood constraint gradient. */
double fl_lattice_grad_sq(double d, double h);

/* The first stages of a step, timed into st: bin the fluid in g (on every
 * sort_interval-th step, counted by the caller in step, first reorder the
 * store by cell so that neighbors sit close in memory; scratch holds count
 * floats), find the neighbors, and evaluate the density at x(t) into
 * f->rho. Returns FL_ERR_OUTSIDE when a particle left the grid. */
int fl_step_begin(fl_world *w, fl_nbgrid *g, long long step, int sort_interval, float *scratch,
                  fl_step_stats *st);

/* The end of a step, timed into st: symplectic Euler (v += dt a, then
 * x += dt v with the new v) and the domain clamp (particle centres kept
 * inside the domain and outside the obstacle boxes, the last safety net
 * behind the boundary particles; a clamped particle loses the velocity
 * component into the wall); then max_speed, nan_count, cfl and dt_limit for
 * a sound speed c (0: none) and the largest acceleration a_max. */
void fl_step_finish(fl_world *w, const float *ax, const float *ay, const float *az, double dt, double c,
                    double a_max, fl_step_stats *st);

#endif
