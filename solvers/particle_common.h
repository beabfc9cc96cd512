/* particle_common.h: the stages every particle solver shares, so that SPH,
 * WCSPH and the solvers after them bin, integrate and clamp the same way. */
#ifndef FL_PARTICLE_COMMON_H
#define FL_PARTICLE_COMMON_H

#include "solver.h"

/* Bins the fluid particles in g; on every sort_interval-th step (counted
 * by the caller in step) first reorders the store by cell, so that
 * neighbors sit close in memory, and bins again. scratch holds count floats.
 * Returns FL_ERR_OUTSIDE when a particle left the grid. */
int fl_bin_particles(fl_nbgrid *g, fl_particles *f, long long step, int sort_interval, float *scratch,
                     fl_error *err);

/* Symplectic Euler: v += dt a, then x += dt v (with the new v). */
void fl_symplectic_euler(fl_particles *f, const float *ax, const float *ay, const float *az, float dt);

/* Keeps particle centres inside the domain and outside the obstacle boxes:
 * the last safety net behind the boundary particles. A clamped particle
 * loses the velocity component that points into the wall. */
void fl_clamp_to_domain(fl_world *w);

#endif
