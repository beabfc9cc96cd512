/* particle_common.h: the stages every particle solver shares, so that SPH,
 * WCSPH and the solvers after them bin, integrate and clamp the same way. */
#ifndef FL_PARTICLE_COMMON_H
#define FL_PARTICLE_COMMON_H

#include <math.h>

#include "solver.h"
#include "sph_physics.h"

/* The domain and obstacle boxes of w in float. rounded = 0: each bound
 * converted to the nearest float; rounded = 1: the domain rounded inwards
 * and the obstacles outwards, so that a float point clamped to them is
 * inside the domain (outside the obstacles) in double as well. */
void fl_walls_make(const fl_world *w, int rounded, fl_walls *out);

/* sum_j |grad W_spiky(x_j)|^2, 1/m^8, over the neighbors of a particle with
 * a full neighborhood on a cubic lattice of spacing d (a square one when
 * dims is 2; itself excluded: its gradient is zero): the prototype behind
 * PCISPH's delta and PBF's full-neighborhood constraint gradient. */
double fl_lattice_grad_sq(double d, double h, int dims);

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
