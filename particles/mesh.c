/* mesh.c: copying and freeing triangle meshes (mesh.h). */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

int fl_mesh_copy(const fl_mesh *src, fl_mesh *dst, fl_error *err)
{
    size_t nv = 3 * (size_t)src->vertex_count, nt = 3 * (size_t)src->triangle_count;
    memset(dst, 0, sizeof *dst);
    dst->v = malloc((nv > 0 ? nv : 1) * sizeof *dst->v);
    dst->tri = malloc((nt > 0 ? nt : 1) * sizeof *dst->tri);
    if (!dst->v || !dst->tri) {
        fl_mesh_free(dst);
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory copying %d triangles", src->source,
                       src->triangle_count);
    }
    memcpy(dst->v, src->v, nv * sizeof *dst->v);
    memcpy(dst->tri, src->tri, nt * sizeof *dst->tri);
    dst->vertex_count = src->vertex_count;
    dst->triangle_count = src->triangle_count;
    memcpy(dst->source, src->source, sizeof dst->source);
    return FL_OK;
}

void fl_mesh_free(fl_mesh *m)
{
    free(m->v);
    free(m->tri);
    m->v = NULL;
    m->tri = NULL;
    m->vertex_count = 0;
    m->triangle_count = 0;
}
