/* blobby.h: the fluid's surface from its particles: the improved blobbies
 * signed distance of Zhu & Bridson (2005), sampled on a regular grid (the
 * PIC/FLIP report's equations 18-22), then marching cubes (marching.h).
 *
 * At a grid node x, with the particles x_i within the search radius R,
 *
 *   phi(x) = |x - xbar(x)| - rbar(x),   xbar = sum_i w_i x_i,   rbar = sum_i w_i r_i,     (18)
 *   w_i = k(|x - x_i|^2 / R^2) / sum_j k(|x - x_j|^2 / R^2),                              (21)
 *   k(s) = max(0, 1 - s)^3,                                                               (22)
 *
 * the kernel of eq. 22, which takes the squared distance and needs no
 * square root. Every particle has the same radius r, so rbar = r. Where no
 * particle is within R, phi is undefined; it is set to R - r there, the
 * value phi tends to as the last particle leaves the node's reach (phi <
 * R - r wherever it is defined), so that those nodes are outside.
 *
 * The grid covers the particles and R beyond them, its nodes on the
 * lattice origin + h (i, j, k) (origin: the domain's low corner, or 0),
 * clipped to the domain when one is given; marching cubes pads it with
 * outside nodes, so the surface closes where the fluid touches a wall.
 * Each node layer visits only the particles of the layers within R of it
 * (the particles binned by layer and row), one layer a thread; every
 * node's sums run over its particles in the binned order, so the field,
 * and the mesh, are the same for any thread count.
 * docs/methods/surface.md, sections 8 and 9, give the details. */
#ifndef FL_BLOBBY_H
#define FL_BLOBBY_H

#include "fl_common.h"
#include "marching.h"
#include "particles.h"
#include "trimesh.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of the blobbies field; r and R in grid spacings, as the
 * report sets them. */
typedef struct fl_blobby_def {
    double spacing;   /* grid spacing h, m (> 0) */
    double radius;    /* particle radius r, in grid spacings (default 0.5) */
    double support;   /* search radius R, in grid spacings (default 3; > radius) */
} fl_blobby_def;

/* The report's parameters at grid spacing h (m): r = h / 2, R = 3 h. */
fl_blobby_def fl_default_blobby_def(double spacing);

/* The default grid spacing for particles at lattice spacing d (m): d / 2. */
double fl_blobby_default_spacing(double particle_spacing);

/* The sampled field: phi owns the values that field.phi points to. */
typedef struct fl_blobby_field {
    float *phi;
    fl_field field;
    double outside;   /* phi where no particle is within R: R - r, m */
} fl_blobby_field;

/* Samples phi (above) from the live particles of p onto a grid of
 * def->spacing covering them and R beyond, clipped to domain when it is
 * not NULL. No particles: a 2 x 2 x 2 grid of outside nodes. Overwrites
 * *out (free it with fl_blobby_field_free). Returns FL_OK; FL_ERR_INPUT
 * when def's values are not finite and positive or radius >= support, or
 * a particle's position is not finite (named); FL_ERR_MEMORY when the
 * grid has more nodes than fit in memory (with its size). On failure
 * *out is left zeroed. */
int fl_blobby_sample(const fl_particles *p, const fl_blobby_def *def, const fl_box *domain, fl_blobby_field *out,
                     fl_error *err);

/* Frees f's values and zeroes it (f may be zeroed already, or NULL). */
void fl_blobby_field_free(fl_blobby_field *f);

/* The surface of the particles: fl_blobby_sample, then fl_marching_cubes
 * padded with the field's outside value, into *out (overwritten; free it
 * with fl_trimesh_free): closed, also against the domain's walls, normals
 * from the field's gradient. Errors as for the two calls; on failure *out
 * is left zeroed. */
int fl_blobby_surface(const fl_particles *p, const fl_blobby_def *def, const fl_box *domain, fl_trimesh *out,
                      fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
