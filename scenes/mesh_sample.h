/* mesh_sample.h: boundary particles on a closed triangle mesh's surface
 * (Akinci et al. 2012: one layer of samples whose volumes the grid module
 * estimates from their neighbours), the mesh counterpart of the box
 * shells of world.h. docs/methods/voxelize.md, "Solid meshes". */
#ifndef FL_MESH_SAMPLE_H
#define FL_MESH_SAMPLE_H

#include "mesh.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls visit(ctx, x) for points covering the surface of the closed,
 * outward mesh m no more than d apart along the surface (m), each once:
 * every vertex a face uses, points along every edge (round up of its
 * length over d parts), and points inside every face on rows parallel to
 * its longest edge, rows and points at most d apart. Each point is moved
 * inset (m) inwards: face points along the face's normal, edge and vertex
 * points along their mean normal, far enough to be inset from every face
 * around them (a cube's corner moves inset along each axis; at most twice
 * inset for sharp features). Stops at and returns the first non-zero
 * result of visit; FL_ERR_MEMORY (in err) when its work arrays cannot be
 * allocated. m must be closed and manifold (fl_mesh_check_closed). */
int fl_mesh_visit_surface(const fl_mesh *m, double d, double inset, fl_point_visitor visit,
                          void *ctx, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
