/* wcsph.c: weakly compressible SPH, Becker & Teschner 2007.
 *
 *   density   rho_i = m sum_j W_poly6(x_ij) + rho0 sum_b V_b W_poly6(x_ib)   (shared estimator)
 *   Tait EOS  p_i = B ((rho_i / rho0)^7 - 1), B = rho0 c^2 / 7, negative p clamped on request
 *   momentum  a_i = -sum_j m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad W_ij
 *                   - sum_b Psi_b (2 p_i/rho_i^2 + Pi_ib) grad W_ib + g + a_coh
 *   Monaghan artificial viscosity, for approaching pairs (v_ij . x_ij < 0):
 *             Pi_ij = -nu (v_ij . x_ij) / (|x_ij|^2 + 0.01 h_s^2), nu = 2 alpha h_s c / (rho_i + rho_j)
 *   boundary friction (Akinci et al. 2012, eq. 11), the same form against the wall:
 *             Pi_ib = -nu_b min(v_i . x_ib, 0) / (|x_ib|^2 + 0.01 h_s^2), nu_b = sigma h_s c / (2 rho_i)
 *   cohesion (Becker & Teschner 2007, eq. 13): a_coh = -kappa sum_j x_ij W_poly6(x_ij)
 *   with viscosity_model 1, Morris et al. 1997's nu lap v (fl_morris_accel) instead of Pi_ij
 *   symplectic Euler, then the domain clamp.
 * h_s = h/2 is the smoothing length of Monaghan's formulas (our h is the
 * support radius). The speed of sound c defaults to 10 sqrt(2 g H), H the
 * fluid's initial height, so that the density varies by about 1 %.
 * docs/methods/wcsph.md maps each line to the function below. */
#include <math.h>
#include <stdlib.h>

#include "particle_common.h"
#include "tool_physics.h"
#include "particle_params.h"

typedef struct wcsph_solver {
    wcsph_params prm;
    fl_nbgrid grid;
    float *ax, *ay, *az;   /* acceleration, m/s^2 */
    float *p_rho2;         /* p_i / rho_i^2 */
    float *scratch;
    fl_shift shift;
    long long steps;
} wcsph_solver;

static const char *const wcsph_keys[] = {"speed_of_sound", "alpha",         "boundary_friction", "cohesion",
                                         "clamp_negative", "sort_interval", "viscosity_model",   "shifting", NULL};

static void wcsph_destroy(void *self)
{
    wcsph_solver *s = self;
    if (!s)
        return;
    fl_nbgrid_free(&s->grid);
    fl_shift_free(&s->shift);
    fl_free(s->ax), fl_free(s->ay), fl_free(s->az), fl_free(s->p_rho2), fl_free(s->scratch);
    free(s);
}

/* 10 sqrt(2 g H): ten times the speed of a fall from the fluid's height H,
 * so that the Tait EOS keeps the compression near 1 % (Becker & Teschner). */
static double wcsph_default_c(const fl_world *w)
{
    const fl_particles *f = &w->fluid;
    double g = sqrt(w->gravity[0] * w->gravity[0] + w->gravity[1] * w->gravity[1] + w->gravity[2] * w->gravity[2]);
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < f->count; i++)
        lo = fmin(lo, f->y[i]), hi = fmax(hi, f->y[i]);
    double height = f->count > 0 ? hi - lo + w->spacing : w->domain.hi[1] - w->domain.lo[1];
    return fmax(10.0 * sqrt(2.0 * g * height), 1e-3);
}

int fl_wcsph_read_params(const fl_world *w, const fl_params *p, wcsph_params *prm, fl_error *err)
{
    if (fl_params_check_known(p, wcsph_keys, err) ||
        fl_params_get(p, "speed_of_sound", wcsph_default_c(w), 1e-3, 1e6, &prm->c, err) ||
        fl_params_get(p, "alpha", 0.1, 0.0, 10.0, &prm->alpha, err) ||
        fl_params_get(p, "boundary_friction", 0.0, 0.0, 10.0, &prm->friction, err) ||
        fl_params_get(p, "cohesion", 0.0, 0.0, 1e9, &prm->cohesion, err) ||
        fl_params_get_bool(p, "clamp_negative", 1, &prm->clamp_negative, err) ||
        fl_params_get_int(p, "sort_interval", 16, 0, 1000000000, &prm->sort_interval, err) ||
        fl_viscosity_model_get(p, &prm->viscosity_model, err) || fl_shifting_get(p, &prm->shifting, err))
        return FL_ERR_INPUT;
    return FL_OK;
}

static void *wcsph_create(fl_world *w, const fl_params *p, fl_error *err)
{
    wcsph_params prm;
    if (fl_wcsph_read_params(w, p, &prm, err))
        return NULL;

    wcsph_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the WCSPH solver");
        return NULL;
    }
    s->prm = prm;
    size_t bytes = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(float);
    s->ax = fl_alloc(bytes), s->ay = fl_alloc(bytes), s->az = fl_alloc(bytes);
    s->p_rho2 = fl_alloc(bytes), s->scratch = fl_alloc(bytes);
    if (!s->ax || !s->ay || !s->az || !s->p_rho2 || !s->scratch) {
        wcsph_destroy(s);
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the WCSPH solver's %d particles", w->fluid.count);
        return NULL;
    }
    if (fl_shift_init(&s->shift, prm.shifting, w->fluid.count, err) || fl_nbgrid_init(&s->grid, w, err)) {
        wcsph_destroy(s);
        return NULL;
    }
    return s;
}

/* Tait: p_i = B ((rho_i/rho0)^7 - 1), and p_i / rho_i^2 for the force pass;
 * returns the mean compression for the convergence history. */
static double wcsph_pressure(wcsph_solver *s, fl_particles *f, double rho0)
{
    const double B = rho0 * s->prm.c * s->prm.c / 7.0;
    const int clamp = s->prm.clamp_negative;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        f->p[i] = fl_eos_tait(B, f->rho[i], rho0, clamp);
        s->p_rho2[i] = fl_p_over_rho2(f->p[i], f->rho[i]);
    }
    double compression, top;
    fl_compression(f->rho, f->count, rho0, &compression, &top);
    return compression;
}

/* Acceleration of particle i: pressure with artificial viscosity (or
 * Morris's nu lap v instead), boundary pressure with friction, cohesion,
 * gravity. per: the periods, or NULL without a periodic axis (fl_pair_image). */
FL_FORCE_INLINE void wcsph_accel(int i, const fl_world *w, const fl_nbgrid *g, const wcsph_solver *s,
                                 const fl_period *per, float out[3])
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const wcsph_params *prm = &s->prm;
    const float h = (float)w->h, hs = 0.5f * h, m = (float)w->mass, rho0 = (float)w->rho0;
    const int dim = w->dims;
    const float eps = 0.01f * hs * hs, c = (float)prm->c;
    const float av = 2.0f * (float)prm->alpha * hs * c; /* nu (rho_i + rho_j) */
    const float kappa = (float)prm->cohesion;
    const float *p_rho2 = s->p_rho2;
    const float xi = f->x[i], yi = f->y[i], zi = f->z[i];
    const float vxi = f->vx[i], vyi = f->vy[i], vzi = f->vz[i], rhoi = f->rho[i];
    const int morris = prm->viscosity_model == FL_VISCOSITY_MORRIS;
    float a[3] = {0, 0, 0}, coh[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = xi - f->x[j], dy = yi - f->y[j], dz = zi - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r2 = dx * dx + dy * dy + dz * dz, r = sqrtf(r2);
        float vdotx = (vxi - f->vx[j]) * dx + (vyi - f->vy[j]) * dy + (vzi - f->vz[j]) * dz;
        float visc = morris ? 0.0f : fl_monaghan_pi(av, rhoi, f->rho[j], vdotx, r2, eps);
        float sp = fl_pressure_visc_pair(m, p_rho2[i], p_rho2[j], visc, r, h, dim);
        a[0] += sp * dx, a[1] += sp * dy, a[2] += sp * dz;
        if (kappa > 0.0f) {
            float wc = fl_cohesion_pair(r2, h, dim);
            coh[0] += dx * wc, coh[1] += dy * wc, coh[2] += dz * wc;
        }
    }
    const float nu_b = (float)prm->friction * hs * c / (2.0f * rhoi);
    const float pi = f->p[i], inv_rho2 = 1.0f / (rhoi * rhoi);
    const float gv[3] = {(float)w->gravity[0], (float)w->gravity[1], (float)w->gravity[2]};
    float at[3] = {0, 0, 0}; /* the tool's share of the boundary terms */
    const int tool = fl_tool_first(&w->tool);
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = xi - b->x[j], dy = yi - b->y[j], dz = zi - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r2 = dx * dx + dy * dy + dz * dz, r = sqrtf(r2);
        /* friction on the velocity relative to the boundary's (0 on the walls) */
        float vdotx = (vxi - b->vx[j]) * dx + (vyi - b->vy[j]) * dy + (vzi - b->vz[j]) * dz;
        float fric = fl_boundary_friction(nu_b, vdotx, r2, eps);
        /* the wall mirrors rho_i, with mass Psi_b = rho0 V_b and the wall
         * pressure p_b of fl_wall_pressure */
        float pb = fl_wall_pressure(pi, rho0, gv, dx, dy, dz);
        float sb = fl_wcsph_boundary_pair(rho0, b->volume[j], pi, pb, inv_rho2, fric, r, h, dim);
        a[0] += sb * dx, a[1] += sb * dy, a[2] += sb * dz;
        if (j >= tool)
            at[0] += sb * dx, at[1] += sb * dy, at[2] += sb * dz;
    }
    fl_tool_store(&w->tool, i, m, at);
    if (morris) {
        float am[3];
        fl_morris_accel(i, w, g, f->x, f->y, f->z, per, am);
        a[0] += am[0], a[1] += am[1], a[2] += am[2];
    }
    fl_wcsph_acceleration(a, kappa, coh, gv, out);
}

/* Every particle's acceleration; returns the largest |a|^2. */
static double wcsph_forces(wcsph_solver *s, const fl_world *w)
{
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    double a2max = 0.0;
    #pragma omp parallel for schedule(static) reduction(max : a2max)
    for (int i = 0; i < w->fluid.count; i++) {
        float a[3];
        if (per)
            wcsph_accel(i, w, &s->grid, s, per, a);
        else
            wcsph_accel(i, w, &s->grid, s, NULL, a);
        s->ax[i] = a[0], s->ay[i] = a[1], s->az[i] = a[2];
        a2max = fmax(a2max, (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    }
    return a2max;
}

static int wcsph_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    wcsph_solver *s = self;
    fl_particles *f = &w->fluid;
    int rc = fl_step_begin(w, &s->grid, s->steps, s->prm.sort_interval, s->scratch, st);
    if (rc)
        return rc;
    double t0 = fl_now_ms();
    st->residual[0] = wcsph_pressure(s, f, w->rho0);
    st->iterations = 1;
    double t1 = fl_now_ms();
    const double a2max = wcsph_forces(s, w);
    double t2 = fl_now_ms();
    st->stage_ms[FL_STAGE_DENSITY] += t1 - t0; /* the equation of state */
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t2 - t1;
    fl_step_finish(w, &s->grid, s->ax, s->ay, s->az, &s->shift, dt, s->prm.c, sqrt(a2max), st);
    if (s->prm.viscosity_model == FL_VISCOSITY_MORRIS)
        st->dt_limit = fmin(st->dt_limit, fl_viscous_dt_limit(w->h, w->nu));
    s->steps++;
    return FL_OK;
}

static int wcsph_check_params(const fl_world *w, const fl_params *p, fl_error *err)
{
    wcsph_params prm;
    return fl_wcsph_read_params(w, p, &prm, err);
}

const fl_solver_ops fl_wcsph_ops = {
    .name = "wcsph",
    .summary = "weakly compressible SPH (Becker & Teschner 2007): Tait EOS, artificial viscosity",
    .create = wcsph_create,
    .step = wcsph_step,
    .destroy = wcsph_destroy,
    .param_keys = wcsph_keys,
    .check_params = wcsph_check_params,
};
