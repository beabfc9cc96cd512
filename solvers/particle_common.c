/* particle_common.c: the stages every particle solver shares
 * (particle_common.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "particle_common.h"

#include "kernels.h"

double fl_lattice_grad_sq(double d, double h, int dims)
{
    int reach = (int)ceil(h / d), kreach = dims == 2 ? 0 : reach;
    double sum = 0.0;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            for (int k = -kreach; k <= kreach; k++) {
                double r = sqrt((double)(i * i + j * j + k * k)) * d;
                double g = fl_spiky_grad_factor((float)r, (float)h, dims); /* grad W = g r_vec */
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

/* The float nearest to v on the side of v that `up` names. */
static float float_toward(double v, int up)
{
    float f = (float)v;
    if (up ? (double)f < v : (double)f > v)
        f = nextafterf(f, up ? INFINITY : -INFINITY);
    return f;
}

void fl_walls_make(const fl_world *w, int rounded, fl_walls *out)
{
    out->obstacle_count = w->obstacle_count;
    for (int a = 0; a < 3; a++) {
        out->lo[a] = rounded ? float_toward(w->domain.lo[a], 1) : (float)w->domain.lo[a];
        out->hi[a] = rounded ? float_toward(w->domain.hi[a], 0) : (float)w->domain.hi[a];
        out->period[a] = out->inv_period[a] = 0.0f;
        if (w->periodic[a]) { /* wrapped into [lo, hi): the bounds as they are */
            const double len = w->domain.hi[a] - w->domain.lo[a];
            out->lo[a] = (float)w->domain.lo[a], out->hi[a] = (float)w->domain.hi[a];
            out->period[a] = (float)len, out->inv_period[a] = (float)(1.0 / len);
        }
        for (int o = 0; o < w->obstacle_count; o++) {
            out->ob_lo[o][a] = rounded ? float_toward(w->obstacles[o].lo[a], 0) : (float)w->obstacles[o].lo[a];
            out->ob_hi[o][a] = rounded ? float_toward(w->obstacles[o].hi[a], 1) : (float)w->obstacles[o].hi[a];
            if (a == 2 && w->dims == 2) /* in 2D an obstacle has no z faces to push a particle through */
                out->ob_lo[o][a] = -FLT_MAX, out->ob_hi[o][a] = FLT_MAX;
        }
    }
}

/* Symplectic Euler and the domain clamp, particle by particle. */
static void integrate_and_clamp(fl_world *w, const float *ax, const float *ay, const float *az,
                                const fl_shift *shift, float dt, fl_step_stats *st)
{
    fl_particles *f = &w->fluid;
    fl_walls walls;
    fl_walls_make(w, 0, &walls);
    double t0 = fl_now_ms();
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        float x[3] = {f->x[i], f->y[i], f->z[i]}, v[3] = {f->vx[i], f->vy[i], f->vz[i]};
        const float a[3] = {ax[i], ay[i], az[i]};
        fl_symplectic_euler(x, v, a, dt);
        if (shift)
            x[0] += shift->dx[i], x[1] += shift->dy[i], x[2] += shift->dz[i];
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
        f->x[i] = x[0], f->y[i] = x[1], f->z[i] = x[2];
    }
    double t1 = fl_now_ms();
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        float x[3] = {f->x[i], f->y[i], f->z[i]}, v[3] = {f->vx[i], f->vy[i], f->vz[i]};
        fl_clamp_particle(&walls, x, v);
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
        f->x[i] = x[0], f->y[i] = x[1], f->z[i] = x[2];
    }
    double t2 = fl_now_ms();
    st->stage_ms[FL_STAGE_INTEGRATE] += t1 - t0;
    st->stage_ms[FL_STAGE_BOUNDARY] += t2 - t1;
}

int fl_step_begin(fl_world *w, fl_nbgrid *g, long long step, int sort_interval, float *scratch,
                  fl_step_stats *st)
{
    fl_particles *f = &w->fluid;
    fl_error err = {""};
    double t0 = fl_now_ms();
    int rc = fl_nbgrid_update_boundary(g, w, &err);
    if (rc == FL_OK)
        rc = bin_particles(g, f, step, sort_interval, scratch, &err);
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
    return fl_step_failed(st, &err, rc);
}

void fl_step_finish(fl_world *w, const fl_nbgrid *g, const float *ax, const float *ay, const float *az,
                    fl_shift *shift, double dt, double c, double a_max, fl_step_stats *st)
{
    if (shift && shift->coeff > 0.0)
        fl_shift_compute(shift, w, g, dt);
    else
        shift = NULL;
    integrate_and_clamp(w, ax, ay, az, shift, (float)dt, st);
    st->max_speed = fl_max_speed(&w->fluid, &st->nan_count);
    st->cfl = st->max_speed * dt / w->h;
    st->dt_limit = fl_explicit_dt_limit(w->h, c, st->max_speed, a_max);
}

int fl_shift_init(fl_shift *s, double coeff, int count, fl_error *err)
{
    memset(s, 0, sizeof *s);
    s->coeff = coeff;
    if (coeff <= 0.0)
        return FL_OK;
    size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(float);
    s->dx = fl_alloc(bytes), s->dy = fl_alloc(bytes), s->dz = fl_alloc(bytes);
    if (!s->dx || !s->dy || !s->dz) {
        fl_shift_free(s);
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the shifting of %d particles", count);
    }
    return FL_OK;
}

void fl_shift_free(fl_shift *s)
{
    fl_free(s->dx), fl_free(s->dy), fl_free(s->dz);
    memset(s, 0, sizeof *s);
}

/* Particle i's dr from C_i and grad C_i, over its fluid neighbors, each of
 * the fluid's volume at rest m / rho0 (not m / rho_j: the estimate's
 * deficit at a free surface would make up for the missing neighbors and
 * hide the surface), and its boundary neighbors, each of its V_b. */
FL_FORCE_INLINE void shift_particle(int i, const fl_shift *s, const fl_world *w, const fl_nbgrid *g,
                                    const fl_period *per, float coeff, float inv_wd, float speed, float dt)
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, vol = (float)(w->mass / w->rho0);
    const int dim = w->dims;
    const float xi = f->x[i], yi = f->y[i], zi = f->z[i];
    float c = vol * fl_cubic(0.0f, h, dim), gc[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = xi - f->x[j], dy = yi - f->y[j], dz = zi - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r = sqrtf(dx * dx + dy * dy + dz * dz), wij = fl_cubic(r, h, dim);
        float sc = fl_shift_pair(vol, wij, r, h, inv_wd, dim);
        c += vol * wij;
        gc[0] += sc * dx, gc[1] += sc * dy, gc[2] += sc * dz;
    }
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = xi - b->x[j], dy = yi - b->y[j], dz = zi - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r = sqrtf(dx * dx + dy * dy + dz * dz), wij = fl_cubic(r, h, dim);
        float sc = fl_shift_pair(b->volume[j], wij, r, h, inv_wd, dim);
        c += b->volume[j] * wij;
        gc[0] += sc * dx, gc[1] += sc * dy, gc[2] += sc * dz;
    }
    float dr[3];
    fl_shift_displacement(coeff, h, speed, dt, c, gc, dr);
    s->dx[i] = dr[0], s->dy[i] = dr[1], s->dz[i] = dr[2];
}

void fl_shift_compute(fl_shift *s, const fl_world *w, const fl_nbgrid *g, double dt)
{
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    int nan_count;
    const float speed = (float)fl_max_speed(&w->fluid, &nan_count);
    const float d = (float)w->spacing, coeff = (float)s->coeff, inv_wd = 1.0f / fl_cubic(d, (float)w->h, w->dims);
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < w->fluid.count; i++) {
        if (per) /* two inlined copies: without a periodic axis the image is a constant no-op */
            shift_particle(i, s, w, g, per, coeff, inv_wd, speed, (float)dt);
        else
            shift_particle(i, s, w, g, NULL, coeff, inv_wd, speed, (float)dt);
    }
}
