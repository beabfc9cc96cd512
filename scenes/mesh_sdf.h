/* mesh_sdf.h: what a rigid body made from a closed triangle mesh needs to
 * know about it: its mass properties (volume, centroid, inertia tensor) and
 * its signed distance field on a regular grid, narrow-banded.
 *
 * Mass properties: the divergence theorem turns the volume integrals of 1,
 * r and r r^T over the enclosed solid into a sum over triangles of the
 * same integrals over the signed tetrahedra each triangle makes with a
 * fixed point (Mirtich 1996 and Eberly's "Polyhedral Mass Properties" do it
 * with surface integrals; the tetrahedron form is the same sum).
 *
 * Signed distance: the exact Euclidean distance to the nearest triangle,
 * within a band, and the sign of fl_voxelize's robust inside test
 * (voxelize.h), so that a point is never given the wrong side because a
 * nearest-triangle normal was ambiguous (at an edge or a vertex).
 * docs/methods/voxelize.md describes the inside test. */
#ifndef FL_MESH_SDF_H
#define FL_MESH_SDF_H

#include "voxelize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mass properties of a closed, outward mesh of uniform density 1
 * (divergence theorem over the signed tetrahedra its triangles make with a
 * fixed point). Lengths are in the mesh's units, taken here as metres;
 * multiply volume and inertia by a density (kg/m^3) for a mass (kg) and an
 * inertia tensor (kg m^2). */
typedef struct fl_mesh_mass {
    double volume;      /* m^3; positive for an outward closed mesh */
    double centroid[3]; /* m: the centre of the enclosed volume */
    double inertia[9];  /* the inertia tensor about the centroid per unit density,
                           kg m^2 / (kg/m^3) = m^5, row-major, symmetric:
                           I = integral (|r|^2 1 - r r^T) dV, r from the centroid */
} fl_mesh_mass;

/* Fills *out with m's mass properties. Meaningless for an open mesh (check
 * it with fl_mesh_check_closed); an inward mesh gives a negative volume and
 * inertia. A mesh that encloses no volume (no triangles, or flat) gets a
 * zero volume and inertia and the centre of its bounding box as centroid.
 * The tetrahedra share the centre of the bounding box rather than the
 * origin, so that a mesh far from the origin loses no digits. */
void fl_mesh_mass_properties(const fl_mesh *m, fl_mesh_mass *out);

/* Signed distance (m) from the mesh's surface at the centres of the cells
 * of g (the points fl_voxelize tests, origin + (i + 1/2, j + 1/2, k + 1/2)
 * spacing), into dist[i + dims[0] (j + dims[1] k)] (dims[0] dims[1]
 * dims[2] floats): the exact Euclidean distance to the nearest point of any
 * triangle where that is below band (m), else band; negative inside the
 * mesh, inside as fl_voxelize decides it, so that the sign is robust (a
 * centre on the surface may get either sign, its distance being 0).
 * Distances are computed in double and stored rounded to float. Only the
 * points within band of a triangle are visited, so the cost grows with the
 * surface's area times band, not with the grid's size times the triangles'
 * count. Runs in parallel (OpenMP, over z slabs); the result does not
 * depend on the thread count. Fails as fl_voxelize does (an open or
 * non-manifold mesh, a bad grid, a mesh too far from the grid:
 * FL_ERR_INPUT with its message), with FL_ERR_INPUT for a band that is not
 * a positive finite number, and with FL_ERR_MEMORY; dist is not written
 * when it fails. */
int fl_mesh_signed_distance(const fl_mesh *m, const fl_voxel_grid *g, double band, float *dist,
                            fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
