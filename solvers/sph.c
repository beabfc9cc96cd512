/* sph.c: standard SPH, Müller, Charypar & Gross 2003.
 *
 *   density   rho_i = m sum_j W_poly6(x_ij) + rho0 sum_b V_b W_poly6(x_ib)   (Akinci 2012, eq. 5)
 *   pressure  p_i = k (rho_i - rho0), negative values clamped to 0 on request
 *   pressure  a_i = -sum_j m (p_i / rho_i^2 + p_j / rho_j^2) grad W_spiky(x_ij)
 *             - sum_b rho0 V_b ((p_i + p_b) / rho_i^2) grad W_spiky(x_ib)
 *     The fluid term is the symmetric (momentum-conserving) form; Müller's
 *     eq. 10, (p_i + p_j) / (2 rho_j), is symmetric too but yields only half
 *     of grad p in the bulk (docs/methods/sph.md derives it), so a tank would
 *     settle at twice the compression. The boundary term mirrors the fluid
 *     term with rho_b = rho_i and mass Psi_b = rho0 V_b (Akinci 2012), and
 *     p_b = p_i + rho0 g . (x_b - x_i), the static-wall extrapolation of
 *     Adami et al. 2012 (fl_wall_pressure).
 *   viscosity a_i = mu / rho_i sum_j m (v_j - v_i) / rho_j lap W_visc(r_ij) (Müller eq. 14),
 *             or with viscosity_model 1 instead Morris et al. 1997's nu lap v (fl_morris_accel)
 *   gravity   a_i = g
 *   symplectic Euler: v += dt a, then x += dt v, then the domain clamp.
 * docs/methods/sph.md maps each line to the function below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "particle_common.h"
#include "tool_physics.h"
#include "particle_params.h"

typedef struct sph_solver {
    sph_params prm;
    fl_nbgrid grid;
    float *ax, *ay, *az;  /* acceleration, m/s^2 */
    float *p_rho2;        /* p_i / rho_i^2, Pa m^6/kg^2 */
    float *vol;           /* m / rho_i, m^3 */
    float *rho_plain;     /* with shepard: the density before the correction, kg/m^3 */
    float *scratch;       /* for reordering the store */
    fl_shift shift;
    long long steps;
} sph_solver;

static const char *const sph_keys[] = {"stiffness",       "viscosity",         "clamp_negative", "sort_interval",
                                       "pressure_force",  "corrected_density", "shepard",        "viscosity_model",
                                       "shifting",        NULL};

static void sph_destroy(void *self)
{
    sph_solver *s = self;
    if (!s)
        return;
    fl_nbgrid_free(&s->grid);
    fl_shift_free(&s->shift);
    fl_free(s->ax), fl_free(s->ay), fl_free(s->az), fl_free(s->scratch);
    fl_free(s->p_rho2), fl_free(s->vol), fl_free(s->rho_plain);
    free(s);
}

/* Without a viscosity, a stiff explicit EOS keeps its acoustic noise and the
 * fluid boils (docs/methods/sph.md, section 6). The default damps it like
 * Monaghan's artificial viscosity with alpha = 0.1: mu = alpha rho0 c h_M / 10,
 * with c = sqrt(k) and his smoothing length h_M = h / 2. */
static double sph_default_viscosity(const fl_world *w, double stiffness)
{
    return 0.1 * w->rho0 * sqrt(stiffness) * (0.5 * w->h) / 10.0;
}

int fl_sph_read_params(const fl_world *w, const fl_params *p, sph_params *prm, fl_error *err)
{
    if (fl_params_check_known(p, sph_keys, err) ||
        fl_params_get(p, "stiffness", 1000.0, 1e-6, 1e12, &prm->stiffness, err) ||
        fl_params_get(p, "viscosity", sph_default_viscosity(w, prm->stiffness), 0.0, 1e6, &prm->viscosity, err) ||
        fl_params_get_bool(p, "clamp_negative", 1, &prm->clamp_negative, err) ||
        fl_params_get_int(p, "sort_interval", 16, 0, 1000000000, &prm->sort_interval, err) ||
        fl_params_get_int(p, "pressure_force", FL_PRESSURE_SYMMETRIC, FL_PRESSURE_SYMMETRIC, FL_PRESSURE_ONE_SIDED,
                          &prm->pressure_form, err) ||
        fl_params_get_bool(p, "corrected_density", 1, &prm->corrected_density, err) ||
        fl_params_get_bool(p, "shepard", 0, &prm->shepard, err) ||
        fl_viscosity_model_get(p, &prm->viscosity_model, err) || fl_shifting_get(p, &prm->shifting, err))
        return FL_ERR_INPUT;
    return FL_OK;
}

static void *sph_create(fl_world *w, const fl_params *p, fl_error *err)
{
    sph_params prm;
    if (fl_sph_read_params(w, p, &prm, err))
        return NULL;

    sph_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the SPH solver");
        return NULL;
    }
    s->prm = prm;
    size_t bytes = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(float);
    s->ax = fl_alloc(bytes), s->ay = fl_alloc(bytes), s->az = fl_alloc(bytes);
    s->scratch = fl_alloc(bytes), s->p_rho2 = fl_alloc(bytes), s->vol = fl_alloc(bytes);
    s->rho_plain = prm.shepard ? fl_alloc(bytes) : NULL;
    if (!s->ax || !s->ay || !s->az || !s->scratch || !s->p_rho2 || !s->vol || (prm.shepard && !s->rho_plain)) {
        sph_destroy(s);
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the SPH solver's %d particles", w->fluid.count);
        return NULL;
    }
    if (fl_shift_init(&s->shift, prm.shifting, w->fluid.count, err) || fl_nbgrid_init(&s->grid, w, err)) {
        sph_destroy(s);
        return NULL;
    }
    return s;
}

/* rho_i without the boundary correction: a boundary particle weighs the
 * fluid's m. per: the periods, or NULL without a periodic axis
 * (fl_pair_image; a constant in each inlined copy). */
FL_FORCE_INLINE float sph_uncorrected_at(int i, const fl_world *w, const fl_nbgrid *g, const fl_period *per)
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, m = (float)w->mass;
    const int dim = w->dims;
    float fluid = fl_poly6(0.0f, h, dim), raw = 0.0f;
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = f->x[i] - f->x[j], dy = f->y[i] - f->y[j], dz = f->z[i] - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        fluid += fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
    }
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = f->x[i] - b->x[j], dy = f->y[i] - b->y[j], dz = f->z[i] - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        raw += fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
    }
    return fl_density_uncorrected(m, fluid, raw);
}

/* Shepard's correction of rho_i from the plain densities; per as in
 * sph_uncorrected_at. */
FL_FORCE_INLINE float sph_shepard_at(int i, const fl_world *w, const fl_nbgrid *g, const float *plain,
                                     const fl_period *per)
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, m = (float)w->mass;
    const int dim = w->dims;
    float unity = m / plain[i] * fl_poly6(0.0f, h, dim);
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = f->x[i] - f->x[j], dy = f->y[i] - f->y[j], dz = f->z[i] - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        unity += m / plain[j] * fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
    }
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = f->x[i] - b->x[j], dy = f->y[i] - b->y[j], dz = f->z[i] - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        unity += fl_boundary_density_pair(b->volume[j], dx * dx + dy * dy + dz * dz, h, dim);
    }
    return fl_density_shepard(plain[i], unity);
}

/* The course deck's density variants, after the plain estimate of
 * fl_step_begin: without the boundary correction (a boundary particle
 * weighs the fluid's m), and Shepard's correction (docs/methods/sph.md,
 * section 3.1). */
static void sph_density_variants(sph_solver *s, const fl_world *w, fl_particles *f)
{
    const fl_nbgrid *g = &s->grid;
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    if (!s->prm.corrected_density) {
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < f->count; i++)
            f->rho[i] = per ? sph_uncorrected_at(i, w, g, per) : sph_uncorrected_at(i, w, g, NULL);
    }
    if (!s->prm.shepard)
        return;
    float *plain = s->rho_plain;
    memcpy(plain, f->rho, (size_t)f->count * sizeof *plain);
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++)
        f->rho[i] = per ? sph_shepard_at(i, w, g, plain, per) : sph_shepard_at(i, w, g, plain, NULL);
}

/* p_i = k (rho_i - rho0), optionally max(p_i, 0), and the per-particle
 * factors of the force pass (p_i / rho_i^2, m / rho_i: one division each
 * per particle instead of per pair); returns the mean compression
 * max(rho_i/rho0 - 1, 0) for the convergence history. */
static double sph_pressure(sph_solver *s, fl_particles *f, double mass, double rho0)
{
    const sph_params *prm = &s->prm;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        f->p[i] = fl_eos_linear(prm->stiffness, f->rho[i], rho0, prm->clamp_negative);
        s->p_rho2[i] = fl_p_over_rho2(f->p[i], f->rho[i]);
        s->vol[i] = (float)mass / f->rho[i];
    }
    double compression, top;
    fl_compression(f->rho, f->count, rho0, &compression, &top);
    return compression;
}

/* Acceleration of particle i from pressure, viscosity (Müller's mu, or
 * Morris's nu lap v) and gravity, with the pressure force in the form form
 * (fl_pressure_form; a constant where it is called, so that each form's
 * loop is compiled on its own); per: the periods, or NULL without a
 * periodic axis (fl_pair_image). */
FL_FORCE_INLINE void sph_accel(int i, const fl_world *w, const fl_nbgrid *g, const sph_solver *s, int form,
                               const fl_period *per, float out[3])
{
    const fl_particles *f = &w->fluid;
    const fl_boundary *b = &w->boundary;
    const float h = (float)w->h, m = (float)w->mass, rho0 = (float)w->rho0;
    const int dim = w->dims;
    const float *p_rho2 = s->p_rho2, *vol = s->vol;
    const float xi = f->x[i], yi = f->y[i], zi = f->z[i], inv_rho_i = 1.0f / f->rho[i];
    const int morris = s->prm.viscosity_model == FL_VISCOSITY_MORRIS;
    float ap[3] = {0, 0, 0}, av[3] = {0, 0, 0};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        int j = g->nb[k];
        float dx = xi - f->x[j], dy = yi - f->y[j], dz = zi - f->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r = sqrtf(dx * dx + dy * dy + dz * dz);
        float sp = form == FL_PRESSURE_MEAN ? fl_pressure_pair_mean(vol[j], f->p[i], f->p[j], inv_rho_i, r, h, dim)
                   : form == FL_PRESSURE_ONE_SIDED ? fl_pressure_pair_one_sided(vol[j], f->p[j], inv_rho_i, r, h, dim)
                                                   : fl_pressure_pair(m, p_rho2[i], p_rho2[j], r, h, dim);
        ap[0] += sp * dx, ap[1] += sp * dy, ap[2] += sp * dz;
        if (morris)
            continue;
        float sv = fl_viscosity_pair(vol[j], r, h, dim);
        av[0] += sv * (f->vx[j] - f->vx[i]);
        av[1] += sv * (f->vy[j] - f->vy[i]);
        av[2] += sv * (f->vz[j] - f->vz[i]);
    }
    /* the boundary mirrors rho_i, with mass Psi_b = rho0 V_b and the wall
     * pressure p_b of fl_wall_pressure: (p_i + p_b) / rho_i^2 */
    const float pi = f->p[i], inv_rho2 = 1.0f / (f->rho[i] * f->rho[i]);
    const float gv[3] = {(float)w->gravity[0], (float)w->gravity[1], (float)w->gravity[2]};
    float ab[3] = {0, 0, 0}, at[3] = {0, 0, 0}; /* at: the tool's share of ab */
    const int tool = fl_tool_first(&w->tool);
    for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
        int j = g->bnb[k];
        float dx = xi - b->x[j], dy = yi - b->y[j], dz = zi - b->z[j];
        fl_pair_image(per, &dx, &dy, &dz);
        float r = sqrtf(dx * dx + dy * dy + dz * dz);
        float pb = fl_wall_pressure(pi, rho0, gv, dx, dy, dz);
        float sb = fl_sph_boundary_pair(rho0, b->volume[j], pi, pb, inv_rho2, r, h, dim);
        ab[0] += sb * dx, ab[1] += sb * dy, ab[2] += sb * dz;
        if (j >= tool)
            at[0] += sb * dx, at[1] += sb * dy, at[2] += sb * dz;
    }
    fl_tool_store(&w->tool, i, m, at);
    fl_sph_acceleration(ap, ab, morris ? 0.0f : (float)s->prm.viscosity, f->rho[i], av, gv, out);
    if (morris) {
        float am[3];
        fl_morris_accel(i, w, g, f->x, f->y, f->z, per, am);
        out[0] += am[0], out[1] += am[1], out[2] += am[2];
    }
}

/* Every particle's acceleration, with the pressure force in the form
 * form; returns the largest |a|^2. */
static inline double sph_forces(sph_solver *s, const fl_world *w, int form)
{
    const int n = w->fluid.count;
    const fl_period period = fl_period_of(w), *per = period.any ? &period : NULL;
    double a2max = 0.0;
    #pragma omp parallel for schedule(static) reduction(max : a2max)
    for (int i = 0; i < n; i++) {
        float a[3];
        if (per)
            sph_accel(i, w, &s->grid, s, form, per, a);
        else
            sph_accel(i, w, &s->grid, s, form, NULL, a);
        s->ax[i] = a[0], s->ay[i] = a[1], s->az[i] = a[2];
        a2max = fmax(a2max, (double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    }
    return a2max;
}

static int sph_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    sph_solver *s = self;
    fl_particles *f = &w->fluid;
    int rc = fl_step_begin(w, &s->grid, s->steps, s->prm.sort_interval, s->scratch, st);
    if (rc)
        return rc;
    double t0 = fl_now_ms();
    if (!s->prm.corrected_density || s->prm.shepard)
        sph_density_variants(s, w, f);
    st->residual[0] = sph_pressure(s, f, w->mass, w->rho0);
    st->iterations = 1;
    double t1 = fl_now_ms();
    const double a2max = s->prm.pressure_form == FL_PRESSURE_MEAN        ? sph_forces(s, w, FL_PRESSURE_MEAN)
                         : s->prm.pressure_form == FL_PRESSURE_ONE_SIDED ? sph_forces(s, w, FL_PRESSURE_ONE_SIDED)
                                                                         : sph_forces(s, w, FL_PRESSURE_SYMMETRIC);
    double t2 = fl_now_ms();
    st->stage_ms[FL_STAGE_DENSITY] += t1 - t0; /* the equation of state */
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t2 - t1;
    fl_step_finish(w, &s->grid, s->ax, s->ay, s->az, &s->shift, dt, sqrt(s->prm.stiffness), sqrt(a2max), st);
    if (s->prm.viscosity_model == FL_VISCOSITY_MORRIS)
        st->dt_limit = fmin(st->dt_limit, fl_viscous_dt_limit(w->h, w->nu));
    s->steps++;
    return FL_OK;
}

static int sph_check_params(const fl_world *w, const fl_params *p, fl_error *err)
{
    sph_params prm;
    return fl_sph_read_params(w, p, &prm, err);
}

const fl_solver_ops fl_sph_ops = {
    .name = "sph",
    .summary = "standard SPH (Müller et al. 2003): p = k (rho - rho0), symmetric pressure, viscosity",
    .create = sph_create,
    .step = sph_step,
    .destroy = sph_destroy,
    .param_keys = sph_keys,
    .check_params = sph_check_params,
};
