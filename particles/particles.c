/* particles.c: growth and reordering of the particle store and the
 * boundary set (particles.h). */
#include "particles.h"

#include <stdlib.h>
#include <string.h>

#define FL_PARTICLE_ARRAYS(p) \
    { &(p)->x, &(p)->y, &(p)->z, &(p)->vx, &(p)->vy, &(p)->vz, &(p)->px, &(p)->py, &(p)->pz, &(p)->rho, &(p)->p }
#define FL_BOUNDARY_ARRAYS(b) { &(b)->x, &(b)->y, &(b)->z, &(b)->vx, &(b)->vy, &(b)->vz, &(b)->volume }
#define FL_BOUNDARY_ARRAY_COUNT 7

/* Moves every array in arrays[] to a zeroed block of cap floats, keeping the
 * first `keep` values; all or nothing. */
static int grow_all(float **const *arrays, int n, int keep, int cap)
{
    float *fresh[16] = {0};
    for (int k = 0; k < n; k++) {
        fresh[k] = fl_alloc((size_t)cap * sizeof(float));
        if (!fresh[k]) {
            for (int j = 0; j < k; j++)
                fl_free(fresh[j]);
            return 0;
        }
        memset(fresh[k], 0, (size_t)cap * sizeof(float));
        if (*arrays[k] && keep > 0)
            memcpy(fresh[k], *arrays[k], (size_t)keep * sizeof(float));
    }
    for (int k = 0; k < n; k++) {
        fl_free(*arrays[k]);
        *arrays[k] = fresh[k];
    }
    return 1;
}

static int next_capacity(int have, int want)
{
    long long c = have > 0 ? have : 1024;
    while (c < want)
        c *= 2;
    return c > 0x7fffffff ? 0x7fffffff : (int)c;
}

int fl_particles_reserve(fl_particles *p, int capacity, fl_error *err)
{
    if (capacity <= p->capacity)
        return FL_OK;
    float **const arrays[] = FL_PARTICLE_ARRAYS(p);
    int cap = next_capacity(p->capacity, capacity);
    if (!grow_all(arrays, 11, p->count, cap))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for %d particles", cap);
    p->capacity = cap;
    return FL_OK;
}

int fl_particles_add(fl_particles *p, float x, float y, float z, fl_error *err)
{
    int rc = fl_particles_reserve(p, p->count + 1, err);
    if (rc)
        return rc;
    int i = p->count++;
    p->x[i] = x, p->y[i] = y, p->z[i] = z;
    p->px[i] = x, p->py[i] = y, p->pz[i] = z;
    p->vx[i] = p->vy[i] = p->vz[i] = 0.0f;
    p->rho[i] = p->p[i] = 0.0f;
    return FL_OK;
}

void fl_particles_free(fl_particles *p)
{
    float **const arrays[] = FL_PARTICLE_ARRAYS(p);
    for (int k = 0; k < 11; k++)
        fl_free(*arrays[k]);
    memset(p, 0, sizeof *p);
}

void fl_permute_floats(float *a, int count, const int *perm, float *scratch)
{
    #pragma omp parallel for schedule(static)
    for (int k = 0; k < count; k++)
        scratch[k] = a[perm[k]];
    memcpy(a, scratch, (size_t)count * sizeof(float));
}

void fl_particles_permute(fl_particles *p, const int *perm, float *scratch)
{
    float **const arrays[] = FL_PARTICLE_ARRAYS(p);
    for (int k = 0; k < 11; k++)
        fl_permute_floats(*arrays[k], p->count, perm, scratch);
}

int fl_boundary_reserve(fl_boundary *b, int capacity, fl_error *err)
{
    if (capacity <= b->capacity)
        return FL_OK;
    float **const arrays[] = FL_BOUNDARY_ARRAYS(b);
    int cap = next_capacity(b->capacity, capacity);
    if (!grow_all(arrays, FL_BOUNDARY_ARRAY_COUNT, b->count, cap))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for %d boundary particles", cap);
    b->capacity = cap;
    return FL_OK;
}

int fl_boundary_add(fl_boundary *b, float x, float y, float z, fl_error *err)
{
    int rc = fl_boundary_reserve(b, b->count + 1, err);
    if (rc)
        return rc;
    int i = b->count++;
    b->x[i] = x, b->y[i] = y, b->z[i] = z;
    b->vx[i] = b->vy[i] = b->vz[i] = 0.0f;
    b->volume[i] = 0.0f;
    return FL_OK;
}

void fl_boundary_free(fl_boundary *b)
{
    float **const arrays[] = FL_BOUNDARY_ARRAYS(b);
    for (int k = 0; k < FL_BOUNDARY_ARRAY_COUNT; k++)
        fl_free(*arrays[k]);
    memset(b, 0, sizeof *b);
}
