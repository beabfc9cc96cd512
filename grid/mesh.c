/* mesh.c: the triangle mesh (mesh.h). */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

void fl_mesh_free(fl_mesh *m)
{
    if (m == NULL)
        return;
    free(m->pos);
    free(m->normal);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
