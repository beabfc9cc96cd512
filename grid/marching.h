/* marching.h: marching cubes, a scalar field on a regular grid to a closed
 * triangle mesh (Lorensen & Cline 1987).
 *
 * The field phi is sampled at the nodes of a regular grid; the inside is
 * where phi < 0 (phi >= 0, zero included, is outside). Every grid edge
 * whose ends are on opposite sides gets one vertex, placed by linear
 * interpolation of phi along the edge and shared by all the triangles
 * around that edge (welded through the grid's edges). Ambiguous cube faces
 * are resolved by the asymptotic decider (Nielson & Hamann 1991), which
 * only reads the face's four values, so the two cubes on a face always cut
 * it the same way and the mesh is closed wherever the field is: every edge
 * of the mesh is shared by exactly two triangles, which run through it in
 * opposite directions. Triangles are counter-clockwise seen from outside
 * (phi > 0); normals are the field's gradient (central differences at the
 * nodes, interpolated along the edge), normalized. A cube's polygon is
 * fanned into triangles from one of its vertices, except where it passes
 * twice through an ambiguous face and every fan would put a diagonal on a
 * face of the cube: there it is fanned around one more vertex, at its
 * centre (about 1 surface cube in 80 in a field of random values, none in
 * a smooth one). docs/methods/surface.md gives the details.
 *
 * Where the inside reaches the grid's boundary the mesh is open there;
 * pad > 0 closes it by surrounding the field with one layer of nodes of
 * value pad (outside), one spacing beyond the grid.
 *
 * The work is split by z layers over OpenMP threads and merged in layer
 * order: the mesh (vertex and triangle order included) is the same for any
 * thread count. */
#ifndef FL_MARCHING_H
#define FL_MARCHING_H

#include "fl_common.h"
#include "trimesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A scalar field sampled at the nodes of a regular grid. */
typedef struct fl_field {
    const float *phi;  /* dim[0] dim[1] dim[2] values, x fastest, then y, then z */
    int dim[3];        /* nodes per axis */
    double origin[3];  /* position of node (0, 0, 0), m */
    double spacing;    /* distance between neighbouring nodes, m */
} fl_field;

/* Builds the surface phi = 0 of f into *out (which it overwrites without
 * freeing: pass a zeroed mesh, free it with fl_trimesh_free). pad: 0 for no
 * padding, or the value (> 0) of the outside layer put around the field.
 * A field wholly inside or outside gives an empty mesh.
 * Returns FL_OK; FL_ERR_INPUT when f is NULL or malformed (fewer than 2
 * nodes on an axis, 1 with padding; a spacing or origin that is not finite
 * and positive; a value of phi that is not finite, reported with its node),
 * or pad is negative, NaN or larger than FLT_MAX; FL_ERR_MEMORY when the work arrays or
 * the mesh do not fit in memory or the mesh has more than INT_MAX vertices
 * or triangles. On failure *out is left zeroed. */
int fl_marching_cubes(const fl_field *f, double pad, fl_trimesh *out, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
