/* trimesh.c: the triangle mesh (trimesh.h). */
#include "trimesh.h"

#include <stdlib.h>
#include <string.h>

void fl_trimesh_free(fl_trimesh *m)
{
    if (m == NULL)
        return;
    free(m->pos);
    free(m->normal);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
