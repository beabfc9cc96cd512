/* stats.c: the stage names, the step statistics helpers, the one
 * density estimator shared by solvers and the harness's metric, and the
 * clumping of a free surface (fl_surface_min_distance). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "solver.h"
#include "sph_physics.h"

#define FL_STAGE_NAME(id, name) name,
const char *const fl_stage_names[FL_STAGE_COUNT] = {FL_STAGE_LIST(FL_STAGE_NAME)};
#undef FL_STAGE_NAME

#define FL_PART_NAME(id, name, stage) name,
const char *const fl_part_names[FL_PART_COUNT] = {FL_PART_LIST(FL_PART_NAME)};
#undef FL_PART_NAME
#define FL_PART_STAGE(id, name, stage) FL_STAGE_##stage,
const fl_stage fl_part_stage[FL_PART_COUNT] = {FL_PART_LIST(FL_PART_STAGE)};
#undef FL_PART_STAGE

void fl_step_stats_reset(fl_step_stats *st)
{
    st->density_err_avg = st->density_err_max = 0.0;
    for (int k = 0; k < st->iterations && k < FL_MAX_HISTORY; k++)
        st->residual_max[k] = 0.0;
    st->iterations = 0;
    memset(st->stage_ms, 0, sizeof st->stage_ms);
    memset(st->part_ms, 0, sizeof st->part_ms);
    st->max_speed = st->cfl = 0.0;
    st->nan_count = 0;
    st->solve_iterations_max = st->solves_unconverged = 0;
    st->solve_ms = 0.0;
    st->precond_setup_ms = 0.0;
    st->precond_apply_ms = 0.0;
    st->substeps = 1;
    st->dt_limit = 0.0;
    st->failure[0] = '\0';
}

int fl_step_failed(fl_step_stats *st, const fl_error *err, int rc)
{
    if (rc != FL_OK)
        snprintf(st->failure, sizeof st->failure, "%.159s", err->msg);
    return rc;
}

double fl_explicit_dt_limit(double h, double c, double v_max, double a_max)
{
    double cfl = c + v_max > 0.0 ? 0.4 * h / (c + v_max) : INFINITY;
    return a_max > 0.0 ? fmin(cfl, 0.25 * sqrt(h / a_max)) : cfl;
}

double fl_viscous_dt_limit(double h, double nu)
{
    return nu > 0.0 ? 0.125 * (0.5 * h) * (0.5 * h) / nu : INFINITY;
}

double fl_now_ms(void) { return omp_get_wtime() * 1e3; }

#define FL_COMPRESSION_BLOCKS 256

void fl_compression(const float *rho, int n, double rho0, double *avg, double *max)
{
    /* the blocks depend on n only, so the sums do not depend on the threads */
    double sum[FL_COMPRESSION_BLOCKS], top[FL_COMPRESSION_BLOCKS];
    const long long per = ((long long)n + FL_COMPRESSION_BLOCKS - 1) / FL_COMPRESSION_BLOCKS;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < FL_COMPRESSION_BLOCKS; b++) {
        long long lo = b * per, hi = lo + per;
        int i0 = lo < n ? (int)lo : n, i1 = hi < n ? (int)hi : n;
        double s = 0.0, m = -INFINITY;
        for (int i = i0; i < i1; i++) {
            double e = fl_density_error(rho[i], rho0);
            s += e > 0.0 ? e : 0.0;
            m = e > m ? e : m;
        }
        sum[b] = s, top[b] = m;
    }
    double s = 0.0, m = -INFINITY;
    for (int b = 0; b < FL_COMPRESSION_BLOCKS; b++)
        s += sum[b], m = top[b] > m ? top[b] : m;
    *avg = n > 0 ? s / n : 0.0;
    *max = n > 0 ? m : 0.0;
}

double fl_max_speed(const fl_particles *p, int *nan_count)
{
    double vmax2 = 0.0;
    int bad = 0;
    #pragma omp parallel for schedule(static) reduction(max : vmax2) reduction(+ : bad)
    for (int i = 0; i < p->count; i++) {
        double v2 = (double)p->vx[i] * p->vx[i] + (double)p->vy[i] * p->vy[i] + (double)p->vz[i] * p->vz[i];
        double xsum = (double)p->x[i] + p->y[i] + p->z[i]; /* NaN or Inf in any coordinate */
        if (!isfinite(v2) || !isfinite(xsum))
            bad++;
        else if (v2 > vmax2)
            vmax2 = v2;
    }
    if (nan_count)
        *nan_count = bad;
    return sqrt(vmax2);
}

/* rho_i of the estimator; per: the periods, or NULL without a periodic
 * axis (fl_pair_image; a constant in each inlined copy). */
FL_FORCE_INLINE float density_poly6_at(int i, const fl_world *w, const fl_nbgrid *g, const float *x, const float *y,
                                       const float *z, const fl_period *per)
{
    const float h = (float)w->h, m = (float)w->mass, rho0 = (float)w->rho0;
    const int dim = w->dims;
    const fl_boundary *b = &w->boundary;
    float fluid = fl_poly6(0.0f, h, dim), solid = 0.0f;
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        fluid += fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
    }
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = x[i] - b->x[j], dy = y[i] - b->y[j], dz = z[i] - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        solid += fl_boundary_density_pair(b->volume[j], dx * dx + dy * dy + dz * dz, h, dim);
    }
    return fl_density_estimate(m, fluid, rho0, solid);
}

void fl_density_poly6(const fl_world *w, const fl_nbgrid *g, const float *x, const float *y,
                      const float *z, float *rho)
{
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < g->n; i++)
        rho[i] = per ? density_poly6_at(i, w, g, x, y, z, per) : density_poly6_at(i, w, g, x, y, z, NULL);
}

double fl_surface_min_distance(const fl_nbgrid *g, const float *x, const float *y, const float *z, int sparse,
                               int *near)
{
    double d2min = INFINITY;
    int count = 0;
    /* a pair with one particle near the surface is in that particle's list */
    #pragma omp parallel for schedule(static) reduction(min : d2min) reduction(+ : count)
    for (int i = 0; i < g->n; i++) {
        if (g->nb_start[i + 1] - g->nb_start[i] >= sparse)
            continue;
        count++;
        for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
            const int j = g->nb[k];
            double dx = (double)x[i] - x[j], dy = (double)y[i] - y[j], dz = (double)z[i] - z[j];
            if (g->wraps) { /* the minimum image */
                dx -= g->period[0] * rint(dx * g->inv_period[0]);
                dy -= g->period[1] * rint(dy * g->inv_period[1]);
                dz -= g->period[2] * rint(dz * g->inv_period[2]);
            }
            double d2 = dx * dx + dy * dy + dz * dz;
            d2min = d2 < d2min ? d2 : d2min;
        }
    }
    if (near)
        *near = count;
    return sqrt(d2min);
}
