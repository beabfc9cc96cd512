/* mesh.h: the triangle mesh type shared by the OBJ reader and voxeliser
 * (scenes/obj.h, scenes/voxelize.h) and the world, which keeps its solid
 * meshes (world.h) for the grid solvers to rasterise. */
#ifndef FL_MESH_H
#define FL_MESH_H

#include "fl_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_MESH_SOURCE_LEN 256

/* A triangle mesh. Vertex k is (v[3k], v[3k+1], v[3k+2]) in the file's
 * units; triangle t is the 0-based vertex indices tri[3t..3t+2], in the
 * file's order (counter-clockwise seen from outside for an outward mesh). */
typedef struct fl_mesh {
    double *v;
    int *tri;
    int vertex_count;
    int triangle_count;
    char source[FL_MESH_SOURCE_LEN]; /* the file named in messages */
} fl_mesh;

/* A deep copy of src in *dst (freed with fl_mesh_free). FL_ERR_MEMORY,
 * leaving *dst empty, when it cannot be allocated. */
int fl_mesh_copy(const fl_mesh *src, fl_mesh *dst, fl_error *err);

/* Frees the arrays and empties the mesh; safe on an empty mesh. */
void fl_mesh_free(fl_mesh *m);

/* The area-weighted vertex normals of the triangles tri (3 ntri vertex
 * indices) over the vertices pos (3 nvert floats) into n (3 nvert): each
 * vertex the unit sum of its triangles' (b - a) x (c - a), 0 at a vertex
 * of no area; a triangle naming a vertex outside [0, nvert) is skipped.
 * The pictures' lighting (plots/raster.c) and the tool's saved surface
 * (solvers/tool_surface.c). */
void fl_vertex_normals(const float *pos, int nvert, const int *tri, int ntri, float *n);

#ifdef __cplusplus
}
#endif

#endif
