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

int fl_trimesh_valid(const fl_trimesh *m)
{
    if (m->nvert < 0 || m->ntri < 0)
        return 0;
    if ((m->nvert > 0 && (m->pos == NULL || m->normal == NULL)) || (m->ntri > 0 && m->tri == NULL))
        return 0;
    for (long long i = 0; i < 3LL * m->ntri; i++)
        if (m->tri[i] < 0 || m->tri[i] >= m->nvert)
            return 0;
    return 1;
}
