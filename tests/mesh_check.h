/* mesh_check.h: a marching-cubes mesh (fl_trimesh) checked by the OBJ
 * reader's fl_mesh_check_closed and fl_mesh_volume (scenes/obj.h), on a
 * copy of it; for test_marching and test_blobby. */
#ifndef FL_TEST_MESH_CHECK_H
#define FL_TEST_MESH_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj.h"
#include "trimesh.h"

/* m as the OBJ reader's mesh (obj.h: vertices in double), for its
 * closedness check and its volume; FL_ERR_INPUT when a triangle names a
 * vertex m does not have. */
static int as_mesh(const fl_trimesh *m, fl_mesh *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "marching cubes");
    out->v = malloc((3 * (size_t)m->nvert + 1) * sizeof *out->v);
    out->tri = malloc((3 * (size_t)m->ntri + 1) * sizeof *out->tri);
    if (out->v == NULL || out->tri == NULL)
        return fl_fail(err, FL_ERR_MEMORY, "no memory for a copy of the mesh");
    for (size_t k = 0; k < 3 * (size_t)m->nvert; k++)
        out->v[k] = m->pos[k];
    for (size_t k = 0; k < 3 * (size_t)m->ntri; k++) {
        if (m->tri[k] < 0 || m->tri[k] >= m->nvert)
            return fl_fail(err, FL_ERR_INPUT, "triangle %zu names vertex %d of %d", k / 3, m->tri[k], m->nvert);
        out->tri[k] = m->tri[k];
    }
    out->vertex_count = m->nvert, out->triangle_count = m->ntri;
    return FL_OK;
}

/* FL_OK when m is closed and consistently oriented (every undirected edge
 * shared by exactly two triangles running through it in opposite
 * directions, none repeating a vertex: fl_mesh_check_closed; an empty
 * mesh is), else the first problem in err; *vol (when asked) the volume
 * it encloses, by the divergence theorem (fl_mesh_volume; 0 when empty). */
static int mesh_closed(const fl_trimesh *m, double *vol, fl_error *err)
{
    fl_mesh g;
    int rc = as_mesh(m, &g, err);
    const int copied = rc == FL_OK;
    if (copied && m->ntri > 0)
        rc = fl_mesh_check_closed(&g, err);
    if (vol != NULL)
        *vol = copied && m->ntri > 0 ? fl_mesh_volume(&g) : 0.0;
    fl_mesh_free(&g);
    return rc;
}

#endif
