/* obj_write.c: the OBJ writer (obj_write.h). Library code: no printing,
 * errors go to fl_error. */
#include "obj_write.h"

#include "io.h"

#include <stdio.h>

typedef struct obj_lines {
    const fl_trimesh *m;
    const char *what;
} obj_lines;

/* The lines of the file; non-zero when a write failed. */
static int write_lines(FILE *f, const void *data)
{
    const obj_lines *o = data;
    const fl_trimesh *m = o->m;
    if (fprintf(f, "# fluidlab %s\n# %d vertices, %d triangles, one normal per vertex\n", o->what, m->nvert,
                m->ntri) < 0)
        return 1;
    for (int i = 0; i < m->nvert; i++) {
        const float *p = m->pos + 3 * (size_t)i;
        if (fprintf(f, "v %.9g %.9g %.9g\n", p[0], p[1], p[2]) < 0)
            return 1;
    }
    for (int i = 0; i < m->nvert; i++) {
        const float *n = m->normal + 3 * (size_t)i;
        if (fprintf(f, "vn %.9g %.9g %.9g\n", n[0], n[1], n[2]) < 0)
            return 1;
    }
    for (int t = 0; t < m->ntri; t++) {
        const int *v = m->tri + 3 * (size_t)t;
        if (fprintf(f, "f %d//%d %d//%d %d//%d\n", v[0] + 1, v[0] + 1, v[1] + 1, v[1] + 1, v[2] + 1,
                    v[2] + 1) < 0)
            return 1;
    }
    return 0;
}

int fl_obj_write(const char *path, const fl_trimesh *m, const char *what, fl_error *err)
{
    if (path == NULL || m == NULL || what == NULL)
        return fl_fail(err, FL_ERR_INPUT, "OBJ output: path, mesh or what it is is NULL");
    if (!fl_trimesh_valid(m))
        return fl_fail(err, FL_ERR_INPUT, "%s: the mesh's arrays are missing or a triangle names a vertex it does not have",
                       path);
    const obj_lines o = {m, what};
    return fl_write_whole(path, write_lines, &o, err);
}
