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

/* Particle shifting (a particle solver's `shifting` coefficient A > 0;
 * fl_shift_pair, docs/methods/shifting.md): each particle's displacement,
 * computed at x(t) by fl_shift_compute and added after the move, both
 * in fl_step_finish. The velocity is not corrected for it (Lind et al.'s Taylor
 * term (dr . grad) v added energy to the Taylor-Green vortex, and a PCISPH
 * dam break blew up with it). */
typedef struct fl_shift {
    double coeff;            /* A */
    float *dx, *dy, *dz;     /* dr, m */
} fl_shift;

/* The arrays for count particles; coeff 0 allocates none (shifting off). */
int fl_shift_init(fl_shift *s, double coeff, int count, fl_error *err);
void fl_shift_free(fl_shift *s);

/* Every fluid particle's dr for a step of dt, over the neighbor lists of
 * g (found at the particles' present positions). */
void fl_shift_compute(fl_shift *s, const fl_world *w, const fl_nbgrid *g, double dt);

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
 * component into the wall), with shift's dr (fl_shift_compute over g's
 * lists, at the positions before the move) added before the clamp (NULL,
 * or a coefficient of 0: none); then max_speed, nan_count, cfl and dt_limit for
 * a sound speed c (0: none) and the largest acceleration a_max. */
void fl_step_finish(fl_world *w, const fl_nbgrid *g, const float *ax, const float *ay, const float *az,
                    fl_shift *shift, double dt, double c, double a_max, fl_step_stats *st);

/* nu lap v at fluid particle i by Morris, Fox & Zhu 1997 (fl_morris_pair,
 * docs/methods/viscosity.md), nu = w->nu: over its fluid neighbors in g,
 * whose lists were found at the positions (x, y, z), with the densities
 * and velocities of w's fluid; and over its boundary neighbors, each a
 * particle of volume V_b at its own velocity (0 on the walls: no slip),
 * extrapolated through the wall (below).
 * per: the world's periods, or NULL when no axis is periodic (fl_pair_image). */
FL_FORCE_INLINE void fl_morris_accel(int i, const fl_world *w, const fl_nbgrid *g, const float *x, const float *y,
                                     const float *z, const fl_period *per, float out[3])
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, hs = 0.5f * h, eps = 0.01f * hs * hs, nu = (float)w->nu, m = (float)w->mass;
    const int dim = w->dims;
    const float xi = x[i], yi = y[i], zi = z[i], vol_i = m / f->rho[i];
    const float vxi = f->vx[i], vyi = f->vy[i], vzi = f->vz[i];
    float a[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r2 = dx * dx + dy * dy + dz * dz;
        float s = fl_morris_pair(nu, vol_i + m / f->rho[j], sqrtf(r2), r2, eps, h, dim);
        a[0] += s * (vxi - f->vx[j]), a[1] += s * (vyi - f->vy[j]), a[2] += s * (vzi - f->vz[j]);
    }
    /* the walls' no-slip: their pairs times fl_morris_wall_beta of the
     * nearest boundary particle (every boundary neighbor is within h) */
    float near2 = h * h;
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = xi - b->x[j], dy = yi - b->y[j], dz = zi - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        near2 = fminf(near2, dx * dx + dy * dy + dz * dz);
    }
    const float beta = fl_morris_wall_beta(near2, h, dim);
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = xi - b->x[j], dy = yi - b->y[j], dz = zi - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r2 = dx * dx + dy * dy + dz * dz;
        float s = beta * fl_morris_pair(nu, 2.0f * b->volume[j], sqrtf(r2), r2, eps, h, dim);
        a[0] += s * (vxi - b->vx[j]), a[1] += s * (vyi - b->vy[j]), a[2] += s * (vzi - b->vz[j]);
    }
    out[0] = a[0], out[1] = a[1], out[2] = a[2];
}

#endif
