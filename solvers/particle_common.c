/* particle_common.c: the stages every particle solver shares
 * (particle_common.h). */
#include <math.h>

#include "particle_common.h"

#include "kernels.h"

double fl_lattice_grad_sq(double d, double h)
{
    int reach = (int)ceil(h / d);
    double sum = 0.0;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            for (int k = -reach; k <= reach; k++) {
                double r = sqrt((double)(i * i + j * j + k * k)) * d;
                double g = fl_spiky_grad_factor((float)r, (float)h); /* grad W = g r_vec */
                sum += g * g * r * r;
            }
    return sum;
}

static int bin_particles(fl_nbgrid *g, fl_particles *f, long long step, int sort_interval, float *scratch,
                         fl_error *err)
{
    int rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, err);
    if (rc == FL_OK && sort_interval > 0 && step % sort_interval == 0) {
        fl_particles_permute(f, fl_nbgrid_order(g), scratch);
        rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, err);
    }
    return rc;
}

static void symplectic_euler(fl_particles *f, const float *ax, const float *ay, const float *az, float dt)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        f->vx[i] += dt * ax[i], f->vy[i] += dt * ay[i], f->vz[i] += dt * az[i];
        f->x[i] += dt * f->vx[i], f->y[i] += dt * f->vy[i], f->z[i] += dt * f->vz[i];
    }
}

static void clamp_to_domain(fl_world *w)
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


int fl_step_begin(fl_world *w, fl_nbgrid *g, long long step, int sort_interval, float *scratch,
                  fl_step_stats *st)
{
    fl_particles *f = &w->fluid;
    fl_error err;
    double t0 = fl_now_ms();
    int rc = bin_particles(g, f, step, sort_interval, scratch, &err);
    double t1 = fl_now_ms();
    if (rc == FL_OK)
        rc = fl_nbgrid_search(g, f->x, f->y, f->z, &err);
    double t2 = fl_now_ms();
    if (rc == FL_OK)
        fl_density_poly6(w, g, f->x, f->y, f->z, f->rho);
    double t3 = fl_now_ms();
    st->stage_ms[FL_STAGE_GRID_BUILD] += t1 - t0;
    st->stage_ms[FL_STAGE_NEIGHBOR_SEARCH] += t2 - t1;
    st->stage_ms[FL_STAGE_DENSITY] += t3 - t2;
    return rc;
}

void fl_step_finish(fl_world *w, const float *ax, const float *ay, const float *az, double dt, double c,
                    double a_max, fl_step_stats *st)
{
    double t0 = fl_now_ms();
    symplectic_euler(&w->fluid, ax, ay, az, (float)dt);
    double t1 = fl_now_ms();
    clamp_to_domain(w);
    double t2 = fl_now_ms();
    st->stage_ms[FL_STAGE_INTEGRATE] += t1 - t0;
    st->stage_ms[FL_STAGE_BOUNDARY] += t2 - t1;
    st->max_speed = fl_max_speed(&w->fluid, &st->nan_count);
    st->cfl = st->max_speed * dt / w->h;
    st->dt_limit = fl_explicit_dt_limit(w->h, c, st->max_speed, a_max);
}
