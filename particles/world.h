/* world.h: the shared state every solver works on.
 *
 * A world is the domain box, gravity, the fluid's rest density and lattice
 * spacing, the support radius h = 2d, the calibrated particle mass, the fluid
 * particles and the boundary particles (domain walls and box obstacles,
 * Akinci et al. 2012). Solvers borrow it during a step; the harness reads
 * only the world. */
#ifndef FL_WORLD_H
#define FL_WORLD_H

#include <stdint.h>

#include "particles.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_MAX_BOXES 16

typedef struct fl_box {
    double lo[3], hi[3];   /* m */
} fl_box;

typedef struct fl_world {
    fl_box domain;                   /* fluid stays inside, m */
    double gravity[3];               /* m/s^2 */
    double rho0;                     /* rest density, kg/m^3 */
    double spacing;                  /* lattice spacing d, m */
    double h;                        /* support radius, 2d, m */
    double mass;                     /* particle mass, kg (fl_world_calibrate_mass) */
    int obstacle_count;
    fl_box obstacles[FL_MAX_BOXES];  /* solid boxes inside the domain */
    fl_particles fluid;
    fl_boundary boundary;
    double time;                     /* simulated time, s */
} fl_world;

/* Distance, in units of d, from a wall's surface to its single layer of
 * boundary particles (behind the surface; inside an obstacle). The first
 * fluid row sits d/2 in front of the surface, so 1.15 d from the layer: at
 * that distance a particle at rest on a flat wall with a full fluid
 * neighborhood reads rho0 within 1 % under poly6 with h = 2d (computed on
 * the lattice in docs/methods/sph.md; tests/test_world.c checks it). Closer
 * layers over-count: at 0.5 d behind the surface (the lattice's own next
 * row) the first row reads 12 % over rho0. */
#define FL_BOUNDARY_OFFSET 0.65

/* Sets the world's parameters (no particles yet): h = 2 * spacing and the
 * calibrated mass. */
void fl_world_init(fl_world *w, const fl_box *domain, const double gravity[3], double rho0,
                   double spacing);

/* m = rho0 / sum_j W_poly6(x_ij) over a full cubic-lattice neighborhood of
 * spacing d (self included): a particle with complete neighbors then reads
 * exactly rho0. docs/design.md, "Data layout and numerics". */
double fl_world_calibrate_mass(double rho0, double spacing, double h);

/* Fills box with fluid particles on a cubic lattice of spacing d: points
 * lo + d/2 + i d that lie inside box and outside every obstacle. With
 * jitter > 0 each coordinate moves by a uniform offset in
 * [-jitter d/2, jitter d/2] from a generator seeded with seed. */
int fl_world_fill_box(fl_world *w, const fl_box *box, double jitter, uint64_t seed,
                      fl_error *err);

/* Number of particles fl_world_fill_box would add (for memory checks). */
long long fl_world_count_box(const fl_world *w, const fl_box *box);

/* Adds the obstacle box (must be called before filling fluid, so fills skip it). */
int fl_world_add_obstacle(fl_world *w, const fl_box *box, fl_error *err);

/* Samples the boundary particles: one layer on the domain walls, offset
 * FL_BOUNDARY_OFFSET * d outside them, and one on each obstacle, offset
 * inside it. Volumes are left at 0: fl_boundary_compute_volumes (grid/)
 * fills them from the boundary neighbors. */
int fl_world_sample_boundary(fl_world *w, fl_error *err);

/* Number of boundary particles fl_world_sample_boundary would add. */
long long fl_world_count_boundary(const fl_world *w);

void fl_world_free(fl_world *w);

#ifdef __cplusplus
}
#endif

#endif
