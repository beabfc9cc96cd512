/* particle_common.c: the stages every particle solver shares
 * (particle_common.h). */
#include <math.h>

#include "particle_common.h"

int fl_bin_particles(fl_nbgrid *g, fl_particles *f, long long step, int sort_interval, float *scratch,
                     fl_error *err)
{
    int rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, err);
    if (rc == FL_OK && sort_interval > 0 && step % sort_interval == 0) {
        fl_particles_permute(f, fl_nbgrid_order(g), scratch);
        rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, err);
    }
    return rc;
}

void fl_symplectic_euler(fl_particles *f, const float *ax, const float *ay, const float *az, float dt)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        f->vx[i] += dt * ax[i], f->vy[i] += dt * ay[i], f->vz[i] += dt * az[i];
        f->x[i] += dt * f->vx[i], f->y[i] += dt * f->vy[i], f->z[i] += dt * f->vz[i];
    }
}

void fl_clamp_to_domain(fl_world *w)
{
    fl_particles *f = &w->fluid;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        float *pos[3] = {&f->x[i], &f->y[i], &f->z[i]};
        float *vel[3] = {&f->vx[i], &f->vy[i], &f->vz[i]};
        for (int a = 0; a < 3; a++) {
            if (*pos[a] < (float)w->domain.lo[a]) {
                *pos[a] = (float)w->domain.lo[a];
                *vel[a] = fmaxf(*vel[a], 0.0f);
            } else if (*pos[a] > (float)w->domain.hi[a]) {
                *pos[a] = (float)w->domain.hi[a];
                *vel[a] = fminf(*vel[a], 0.0f);
            }
        }
        for (int o = 0; o < w->obstacle_count; o++) {
            const fl_box *ob = &w->obstacles[o];
            float depth = INFINITY;
            int axis = -1, side = 0;
            for (int a = 0; a < 3; a++) {
                float lo = *pos[a] - (float)ob->lo[a], hi = (float)ob->hi[a] - *pos[a];
                if (lo <= 0.0f || hi <= 0.0f) {
                    axis = -1;
                    break;
                }
                if (lo < depth)
                    depth = lo, axis = a, side = -1;
                if (hi < depth)
                    depth = hi, axis = a, side = 1;
            }
            if (axis < 0)
                continue;
            *pos[axis] = (float)(side < 0 ? ob->lo[axis] : ob->hi[axis]);
            *vel[axis] = side < 0 ? fminf(*vel[axis], 0.0f) : fmaxf(*vel[axis], 0.0f);
        }
    }
}

