/* particles.h: the particle store (structure of arrays) and the boundary
 * particle set of Akinci et al. 2012.
 *
 * Every array is 64-byte aligned. Positions and velocities are float (the
 * same numbers on CPU and GPU); reductions over them are done in double by
 * their callers. */
#ifndef FL_PARTICLES_H
#define FL_PARTICLES_H

#include "fl_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fluid particles. x, v, pred (predicted positions used by PBF/PCISPH),
 * rho (kg/m^3) and p (Pa) each have `capacity` slots, `count` of them live. */
typedef struct fl_particles {
    int count;
    int capacity;
    float *x, *y, *z;      /* position, m */
    float *vx, *vy, *vz;   /* velocity, m/s */
    float *px, *py, *pz;   /* predicted position, m */
    float *rho;            /* density, kg/m^3 */
    float *p;              /* pressure, Pa */
} fl_particles;

/* Boundary particles: positions, velocities (0 on the walls; a moving
 * tool's particles carry its velocity) and the volume V_b (m^3) each one
 * stands for, so that it contributes Psi_b = rho0 * V_b to a fluid density. */
typedef struct fl_boundary {
    int count;
    int capacity;
    float *x, *y, *z;
    float *vx, *vy, *vz;
    float *volume;
} fl_boundary;

/* Grows to at least `capacity` slots, keeping the live particles. A failed
 * allocation leaves the store as it was and returns FL_ERR_MEMORY. */
int fl_particles_reserve(fl_particles *p, int capacity, fl_error *err);

/* Appends one particle at rest at (x, y, z), growing when needed. */
int fl_particles_add(fl_particles *p, float x, float y, float z, fl_error *err);

void fl_particles_free(fl_particles *p);

/* Reorders the live particles so that new slot k holds old particle
 * perm[k] (perm is a permutation of 0..count-1). scratch must hold
 * `count` floats. Used to keep neighbors close in memory. */
void fl_particles_permute(fl_particles *p, const int *perm, float *scratch);

/* Applies the same reordering to one extra per-particle float array. */
void fl_permute_floats(float *a, int count, const int *perm, float *scratch);

int fl_boundary_reserve(fl_boundary *b, int capacity, fl_error *err);
int fl_boundary_add(fl_boundary *b, float x, float y, float z, fl_error *err);
void fl_boundary_free(fl_boundary *b);

#ifdef __cplusplus
}
#endif

#endif
