/* pcisph.c: predictive-corrective incompressible SPH, Solenthaler &
 * Pajarola 2009, as the study notes on the PCISPH solver of Kim's "Fluid
 * Engine Development" (blog post, 2019; docs/design.md, "References") lay
 * out the loop.
 *
 *   non-pressure forces at x(t): gravity and viscosity (Müller 2003, eq. 14; with
 *   viscosity_model 1 instead Morris et al. 1997's nu lap v, fl_morris_accel)
 *   p_i = 0, a^p_i = 0; then until converged:
 *     predict   v*_i = v_i + dt (a^np_i + a^p_i),  x*_i = x_i + dt v*_i, clamped to the domain
 *     density   rho*_i = m sum_j W(x*_ij) + rho0 sum_b V_b W(x*_ib)   (the lists of x(t))
 *     correct   p_i += delta (rho*_i - rho0), a negative result scaled by negative_scale
 *     force     a^p_i = -sum_j m (p_i/rho*_i^2 + p_j/rho*_j^2) grad W(x_ij)
 *                       - sum_b Psi_b (p_i + p_b)/rho*_i^2 grad W(x_ib),
 *               p_b = p_i + rho0 g . (x_b - x_i)   (fl_wall_pressure)
 *     stop when max_i (rho*_i - rho0)/rho0 < eta after at least 3 iterations,
 *     or after max_iterations
 *   integrate v += dt (a^np + a^p), x += dt v, domain clamp.
 *
 * delta (the notes' eq. for the pressure scaling) comes from a prototype
 * particle with a full neighborhood on the fluid's own lattice:
 *   delta = 1 / (beta (sum_j grad W_j . sum_j grad W_j + sum_j |grad W_j|^2)),
 *   beta = 2 (dt m / rho0)^2,
 * where sum_j grad W_j vanishes by symmetry; the sum of squares is computed
 * once in create, delta for each dt in the step.
 * docs/methods/pcisph.md maps each line to the function below. */
#include <math.h>
#include <stdlib.h>

#include "particle_common.h"
#include "tool_physics.h"
#include "particle_params.h"

typedef struct pcisph_solver {
    pcisph_params prm;
    fl_nbgrid grid;
    double grad_sq_sum;     /* sum_j |grad W_j|^2 over the prototype neighborhood, 1/m^8 */
    float *anx, *any, *anz; /* non-pressure acceleration */
    float *apx, *apy, *apz; /* pressure acceleration */
    float *qx, *qy, *qz;    /* predicted positions x* */
    float *rho_pred;        /* rho*_i */
    float *p_rho2;          /* p_i / rho*_i^2 */
    float *scratch;
    fl_shift shift;
    long long steps;
} pcisph_solver;

static const char *const pcisph_keys[] = {"eta",       "min_iterations", "max_iterations",  "negative_scale",
                                          "viscosity", "sort_interval",  "viscosity_model", "shifting", NULL};

static void pcisph_destroy(void *self)
{
    pcisph_solver *s = self;
    if (!s)
        return;
    fl_nbgrid_free(&s->grid);
    fl_shift_free(&s->shift);
    float *arrays[] = {s->anx, s->any, s->anz, s->apx, s->apy, s->apz, s->qx,
                       s->qy,  s->qz,  s->rho_pred, s->p_rho2, s->scratch};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    free(s);
}

/* PCISPH turns every density error it corrects into velocity (a correction
 * of e in one step moves particles by about e d, at e d / dt), and nothing
 * but viscosity takes that energy out again: where the boundary leaves a
 * particle a little over-dense (edges and corners of a tank, ~2 %), a tank at
 * rest keeps boiling without it (docs/methods/pcisph.md). The default damps
 * at the particle scale: nu = 0.3 h sqrt(g h), mu = rho0 nu. */
static double pcisph_default_viscosity(const fl_world *w)
{
    double g = sqrt(w->gravity[0] * w->gravity[0] + w->gravity[1] * w->gravity[1] + w->gravity[2] * w->gravity[2]);
    return 0.3 * w->rho0 * w->h * sqrt(fmax(g, 1.0) * w->h);
}

int fl_pcisph_read_params(const fl_world *w, const fl_params *p, pcisph_params *prm, fl_error *err)
{
    if (fl_params_check_known(p, pcisph_keys, err) ||
        fl_params_get(p, "eta", 0.01, 1e-6, 1.0, &prm->eta, err) ||
        fl_params_get_int(p, "min_iterations", 3, 1, 1000, &prm->min_iterations, err) ||
        fl_params_get_int(p, "max_iterations", 50, 1, FL_MAX_HISTORY, &prm->max_iterations, err) ||
        fl_params_get(p, "negative_scale", 0.0, 0.0, 1.0, &prm->negative_scale, err) ||
        fl_params_get(p, "viscosity", pcisph_default_viscosity(w), 0.0, 1e6, &prm->viscosity, err) ||
        fl_params_get_int(p, "sort_interval", 16, 0, 1000000000, &prm->sort_interval, err) ||
        fl_viscosity_model_get(p, &prm->viscosity_model, err) || fl_shifting_get(p, &prm->shifting, err))
        return FL_ERR_INPUT;
    if (prm->min_iterations > prm->max_iterations)
        return fl_fail(err, FL_ERR_INPUT, "%s.min_iterations: expected at most max_iterations (%d), got %d", p->source,
                       prm->max_iterations, prm->min_iterations);
    return FL_OK;
}

static void *pcisph_create(fl_world *w, const fl_params *p, fl_error *err)
{
    pcisph_params prm;
    if (fl_pcisph_read_params(w, p, &prm, err))
        return NULL;
    pcisph_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the PCISPH solver");
        return NULL;
    }
    s->prm = prm;
    s->grad_sq_sum = fl_lattice_grad_sq(w->spacing, w->h, w->dims);
    size_t bytes = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(float);
    float **arrays[] = {&s->anx, &s->any, &s->anz, &s->apx, &s->apy, &s->apz, &s->qx,
                        &s->qy,  &s->qz,  &s->rho_pred, &s->p_rho2, &s->scratch};
    int ok = 1;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        ok &= (*arrays[k] = fl_alloc(bytes)) != NULL;
    if (!ok) {
        pcisph_destroy(s);
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the PCISPH solver's %d particles", w->fluid.count);
        return NULL;
    }
    if (fl_shift_init(&s->shift, prm.shifting, w->fluid.count, err) || fl_nbgrid_init(&s->grid, w, err)) {
        pcisph_destroy(s);
        return NULL;
    }
    return s;
}

/* Gravity and viscosity at x(t), with the densities of x(t) in f->rho:
 * Müller's with mu, or with morris set Morris's nu lap v. per: the
 * periods, or NULL without a periodic axis (fl_pair_image). */
FL_FORCE_INLINE void pcisph_nonpressure(int i, const fl_world *w, const fl_nbgrid *g, double mu, int morris,
                                        const fl_period *per, float out[3])
{
    const fl_particles *f = &w->fluid;
    const float gv[3] = {(float)w->gravity[0], (float)w->gravity[1], (float)w->gravity[2]};
    if (morris) {
        fl_morris_accel(i, w, g, f->x, f->y, f->z, per, out);
        out[0] += gv[0], out[1] += gv[1], out[2] += gv[2];
        return;
    }
    const float h = (float)w->h, m = (float)w->mass;
    const int dim = w->dims;
    float av[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = f->x[i] - f->x[j], dy = f->y[i] - f->y[j], dz = f->z[i] - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float sv = fl_viscosity_pair(m / f->rho[j], sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
        av[0] += sv * (f->vx[j] - f->vx[i]);
        av[1] += sv * (f->vy[j] - f->vy[i]);
        av[2] += sv * (f->vz[j] - f->vz[i]);
    }
    fl_pcisph_nonpressure((float)mu, f->rho[i], av, gv, out);
}

/* Pressure acceleration at x(t) from the pressures and predicted densities;
 * per as in pcisph_nonpressure. */
FL_FORCE_INLINE void pcisph_pressure_accel(int i, const fl_world *w, const fl_nbgrid *g, const float *p_rho2,
                                           const float *rho_pred, const fl_period *per, float out[3])
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, m = (float)w->mass, rho0 = (float)w->rho0;
    const int dim = w->dims;
    float a[3] = {0, 0, 0}, sb_sum[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = f->x[i] - f->x[j], dy = f->y[i] - f->y[j], dz = f->z[i] - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float sp = fl_pressure_pair(m, p_rho2[i], p_rho2[j], sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
        a[0] += sp * dx, a[1] += sp * dy, a[2] += sp * dz;
    }
    /* the wall mirrors rho*_i, with the wall pressure p_b of fl_wall_pressure */
    const float pi = f->p[i];
    const float gv[3] = {(float)w->gravity[0], (float)w->gravity[1], (float)w->gravity[2]};
    float st[3] = {0, 0, 0}; /* the tool's share of sb_sum */
    const int tool = fl_tool_first(&w->tool);
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = f->x[i] - b->x[j], dy = f->y[i] - b->y[j], dz = f->z[i] - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float pb = fl_wall_pressure(pi, rho0, gv, dx, dy, dz);
        float sb = fl_pcisph_boundary_pair(b->volume[j], pi, pb, sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
        sb_sum[0] += sb * dx, sb_sum[1] += sb * dy, sb_sum[2] += sb * dz;
        if (j >= tool)
            st[0] += sb * dx, st[1] += sb * dy, st[2] += sb * dz;
    }
    fl_pcisph_pressure_acceleration(a, rho0, rho_pred[i], sb_sum, out);
    /* with a tool, its share (the last correction's pressure acceleration
     * is the one integrated) */
    if (w->tool.fx) {
        const float zero[3] = {0, 0, 0};
        float at[3];
        fl_pcisph_pressure_acceleration(zero, rho0, rho_pred[i], st, at);
        fl_tool_store(&w->tool, i, m, at);
    }
}

/* Predicted positions from the accelerations so far, clamped to the domain
 * (the collision response of the notes). */
static void pcisph_predict(pcisph_solver *s, const fl_world *w, float dt)
{
    const fl_particles *f = &w->fluid;
    fl_walls walls;
    fl_walls_make(w, 0, &walls);
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        const float x[3] = {f->x[i], f->y[i], f->z[i]}, v[3] = {f->vx[i], f->vy[i], f->vz[i]};
        const float a[3] = {s->anx[i] + s->apx[i], s->any[i] + s->apy[i], s->anz[i] + s->apz[i]};
        float q[3];
        fl_predict_clamped(&walls, x, v, a, dt, q);
        s->qx[i] = q[0], s->qy[i] = q[1], s->qz[i] = q[2];
    }
}

/* One correction: predicted densities, pressures, p/rho*^2. Fills the avg
 * compression and the max density error ratio of the prediction. */
static void pcisph_correct(pcisph_solver *s, fl_world *w, double delta, double *err_avg, double *err_max)
{
    fl_particles *f = &w->fluid;
    const double rho0 = w->rho0, neg = s->prm.negative_scale;
    fl_density_poly6(w, &s->grid, s->qx, s->qy, s->qz, s->rho_pred);
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        f->p[i] = fl_pcisph_correct(f->p[i], delta, s->rho_pred[i], rho0, neg);
        s->p_rho2[i] = fl_p_over_rho2(f->p[i], s->rho_pred[i]);
    }
    fl_compression(s->rho_pred, f->count, rho0, err_avg, err_max);
}

/* Every particle's non-pressure acceleration (pcisph_nonpressure), the
 * pressure acceleration and pressure reset to 0. */
static void pcisph_nonpressure_all(pcisph_solver *s, fl_world *w, const fl_period *per)
{
    fl_particles *f = &w->fluid;
    const pcisph_params *prm = &s->prm;
    const int morris = prm->viscosity_model == FL_VISCOSITY_MORRIS;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        float a[3];
        if (per)
            pcisph_nonpressure(i, w, &s->grid, prm->viscosity, morris, per, a);
        else
            pcisph_nonpressure(i, w, &s->grid, prm->viscosity, morris, NULL, a);
        s->anx[i] = a[0], s->any[i] = a[1], s->anz[i] = a[2];
        s->apx[i] = s->apy[i] = s->apz[i] = 0.0f;
        f->p[i] = 0.0f;
    }
}

/* Every particle's pressure acceleration (pcisph_pressure_accel). */
static void pcisph_pressure_all(pcisph_solver *s, const fl_world *w, const fl_period *per)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < w->fluid.count; i++) {
        float a[3];
        if (per)
            pcisph_pressure_accel(i, w, &s->grid, s->p_rho2, s->rho_pred, per, a);
        else
            pcisph_pressure_accel(i, w, &s->grid, s->p_rho2, s->rho_pred, NULL, a);
        s->apx[i] = a[0], s->apy[i] = a[1], s->apz[i] = a[2];
    }
}

static int pcisph_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    pcisph_solver *s = self;
    fl_particles *f = &w->fluid;
    fl_nbgrid *g = &s->grid;
    const pcisph_params *prm = &s->prm;
    int rc = fl_step_begin(w, g, s->steps, prm->sort_interval, s->scratch, st);
    if (rc)
        return rc;
    double t0 = fl_now_ms();
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    pcisph_nonpressure_all(s, w, per);
    double t1 = fl_now_ms();

    /* the predictor-corrector loop */
    const double delta = fl_pcisph_delta(dt, w->mass, w->rho0, s->grad_sq_sum);
    int k = 0;
    for (;;) {
        double e_avg, e_max;
        pcisph_predict(s, w, (float)dt);
        pcisph_correct(s, w, delta, &e_avg, &e_max);
        pcisph_pressure_all(s, w, per);
        st->residual[k] = e_avg;
        st->residual_max[k] = e_max;
        k++;
        if ((k >= prm->min_iterations && e_max < prm->eta) || k >= prm->max_iterations)
            break;
    }
    st->iterations = k;
    double a2max = 0.0;
    #pragma omp parallel for schedule(static) reduction(max : a2max)
    for (int i = 0; i < f->count; i++) {
        s->anx[i] += s->apx[i], s->any[i] += s->apy[i], s->anz[i] += s->apz[i];
        a2max = fmax(a2max, (double)s->anx[i] * s->anx[i] + (double)s->any[i] * s->any[i] +
                                (double)s->anz[i] * s->anz[i]);
    }
    double t2 = fl_now_ms();
    st->stage_ms[FL_STAGE_VELOCITY_UPDATE] += t1 - t0;
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t2 - t1;
    /* no sound speed to resolve: the flow-speed CFL and the force criterion only */
    fl_step_finish(w, &s->grid, s->anx, s->any, s->anz, &s->shift, dt, 0.0, sqrt(a2max), st);
    if (prm->viscosity_model == FL_VISCOSITY_MORRIS)
        st->dt_limit = fmin(st->dt_limit, fl_viscous_dt_limit(w->h, w->nu));
    s->steps++;
    return FL_OK;
}

static const char *const pcisph_iteration_keys[] = {"min_iterations", "max_iterations", NULL};

static int pcisph_check_params(const fl_world *w, const fl_params *p, fl_error *err)
{
    pcisph_params prm;
    return fl_pcisph_read_params(w, p, &prm, err);
}

const fl_solver_ops fl_pcisph_ops = {
    .name = "pcisph",
    .summary = "predictive-corrective incompressible SPH (Solenthaler & Pajarola 2009)",
    .create = pcisph_create,
    .step = pcisph_step,
    .destroy = pcisph_destroy,
    .iteration_keys = pcisph_iteration_keys,
    .param_keys = pcisph_keys,
    .check_params = pcisph_check_params,
};
