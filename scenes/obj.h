/* obj.h: triangle meshes read from Wavefront OBJ files, and what a solid
 * fill needs to know about them: the signed volume, the bounding box and
 * whether the mesh is closed.
 *
 * The reader takes vertices (`v x y z [w]`) and faces (`f` with the v,
 * v/vt, v//vn and v/vt/vn forms, 1-based or negative indices); polygons are
 * split into triangles as a fan from their first vertex. Texture
 * coordinates, normals, groups, materials, lines and points are skipped.
 * It is strict: a bad line fails with one message
 *   <file>:<line>: <statement>: expected <what>, got "<token>"
 * and leaves nothing allocated. docs/file_formats.md ("OBJ in") lists what
 * is accepted and refused. */
#ifndef FL_OBJ_H
#define FL_OBJ_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses OBJ text; name is the file named in messages. On success *out owns
 * its arrays (fl_mesh_free, mesh.h); on failure *out is empty. Fails with
 * FL_ERR_INPUT (a bad line, an index out of range, no faces) or
 * FL_ERR_MEMORY. */
int fl_obj_parse(const char *text, const char *name, fl_mesh *out, fl_error *err);

/* Reads and parses the file at path (named in messages as given). Fails as
 * fl_obj_parse does, or with FL_ERR_IO when the file cannot be read. */
int fl_obj_read(const char *path, fl_mesh *out, fl_error *err);

/* Maps every vertex x to A x + t, where a is the 3x4 matrix [A | t] row by
 * row (a[0..3] is the first row). A reflection (det A < 0) reverses every
 * triangle so that an outward mesh stays outward. */
void fl_mesh_transform(fl_mesh *m, const double a[12]);

/* The volume enclosed, by the divergence theorem: the sum over triangles of
 * the signed volumes of the tetrahedra they make with a fixed point.
 * Positive for a closed mesh whose faces are counter-clockwise seen from
 * outside; meaningless for an open one. */
double fl_mesh_volume(const fl_mesh *m);

/* The axis-aligned bounding box of the vertices (every vertex, referenced
 * by a face or not). */
void fl_mesh_bounds(const fl_mesh *m, double lo[3], double hi[3]);

/* Checks that the mesh is closed and manifold: every undirected edge is
 * used by exactly two triangles, once in each direction, and no triangle
 * repeats a vertex. Returns FL_OK, or FL_ERR_INPUT with the first problem
 * (in the order of the edges' vertex numbers) in err, e.g.
 *   bunny.obj: edge (v12, v40) is used by 1 triangle: the mesh has a hole
 * Vertex numbers are 1-based, as in the file. FL_ERR_MEMORY when the edge
 * list cannot be allocated. */
int fl_mesh_check_closed(const fl_mesh *m, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
