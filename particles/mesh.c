/* mesh.c: copying and freeing triangle meshes (mesh.h). */
#include "mesh.h"

#include <math.h>
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

void fl_vertex_normals(const float *pos, int nvert, const int *tri, int ntri, float *n)
{
    memset(n, 0, (size_t)(nvert > 0 ? nvert : 0) * 3 * sizeof(float));
    for (int t = 0; t < ntri; t++) {
        const int *v = tri + 3 * (size_t)t;
        if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[0] >= nvert || v[1] >= nvert || v[2] >= nvert)
            continue;
        double e1[3], e2[3];
        for (int a = 0; a < 3; a++)
            e1[a] = pos[3 * v[1] + a] - pos[3 * v[0] + a], e2[a] = pos[3 * v[2] + a] - pos[3 * v[0] + a];
        /* twice the area times the unit normal */
        const double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        for (int q = 0; q < 3; q++)
            for (int a = 0; a < 3; a++)
                n[3 * v[q] + a] += (float)f[a];
    }
    for (int k = 0; k < nvert; k++) {
        float *m = n + 3 * (size_t)k;
        const double len = sqrt((double)m[0] * m[0] + (double)m[1] * m[1] + (double)m[2] * m[2]);
        if (len > 0.0)
            for (int a = 0; a < 3; a++)
                m[a] = (float)(m[a] / len);
    }
}
