/* test_flows.c: the analytic flows (scenes/analytic.h), the scene key that
 * starts a fluid in one (fluid.initial_velocity), their measurements
 * (bench/flows.h) and the solvers against them (docs/validation.md).
 *
 *  analytic  the Taylor-Green field is divergence-free (central
 *          differences, 1e-6 of U k), periodic, and U at (L/4, 0); its
 *          energy rate is 4 nu k^2. The Poiseuille parabola solves
 *          nu u'' = -g with u = 0 on the walls; the series from rest is 0
 *          at t = 0 (1e-6 of the peak: 2000 terms), the parabola once
 *          every mode has decayed, and solves u_t = nu u_yy + g in between
 *          (finite differences, 1e-4 of the peak rate). A wrong sign, a
 *          factor or a missing term fails by far more.
 *  measure   fl_taylor_green_fit on E0 exp(-r t) gives r to 1e-12 and
 *          nu_eff = r / (4 k^2); fl_poiseuille_error of particles on the
 *          exact parabola is 0 (1e-6), of particles at 1.05 times it 5 %
 *          of the peak (1e-3): the error is relative to the peak, in L2.
 *  scene     fluid.initial_velocity "taylor_green" gives every particle
 *          the field at its position (float rounding, 1e-6 m/s); refused,
 *          with one line naming the key: a domain not square in x-y, an
 *          axis x or y not periodic, an unknown field, an amplitude
 *          missing or not > 0, an unknown key.
 *  taylor_green S  scenes/taylor_green_2d.json as shipped (Re = 100,
 *          64 x 64 particles, Morris's viscosity, particle shifting with
 *          A = 4 for sph, wcsph and pcisph) for 1 s under solver S at
 *          validate's step (fl_validate_step): the kinetic energy's decay
 *          rate, fitted to ln E over the 21 frames, within 10 % of
 *          4 nu k^2 (the bound, for wcsph and pcisph; sph beside
 *          them). It fails when the method adds (or misses) more than a
 *          tenth of the fluid's viscosity: artificial viscosity left on, a
 *          periodic neighbor missed across the boundary, a start without
 *          the field, the lattice left to tear at the saddle points
 *          (without shifting: wcsph +86 %, pcisph +30 %, sph +34 %;
 *          with it +2.2 %, +4.3 %, +5.6 %; docs/methods/shifting.md). For
 *          flip (the grid's viscosity): its effective viscosity nu_eff =
 *          rate / (4 k^2) is printed (measured 0.0115 m^2/s, +15 %), and
 *          must be below WCSPH's and PCISPH's without shifting (0.0186,
 *          0.0130), the plain methods, measured beside it, as the issue
 *          asks (with shifting they are below FLIP's: 0.0102, 0.0104).
 *  poiseuille S  scenes/poiseuille_2d.json (H = 1 m, Re = 10) at d = H/32
 *          from rest for 6 s (the slowest mode down to 3e-3 of the peak):
 *          the last profile (x velocity in 32 bins across the channel)
 *          within 3 % (L2, relative to the peak; the bound) of the
 *          steady parabola, for wcsph, pcisph and pbf (Morris) and flip
 *          (the grid's viscosity). It fails when the no-slip plane lies
 *          off the wall (a peak as H'^2: 1 % of H moves it 2 %), the force
 *          or the viscosity is off, or the flow is not yet steady. Measured:
 *          wcsph 1.42 %, pcisph 1.42 %, pbf 1.20 %, flip 2.69 % (9.3 % for
 *          wcsph before the walls' extrapolated velocity, fl_morris_wall_beta). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "ensure.h"
#include "flows.h"
#include "validate.h"
#include "validation.h"

static void analytic(void)
{
    const double U = 1.5, L = 2.0, k = 2.0 * FL_PI / L, e = 1e-5;
    double worst = 0.0;
    for (int q = 0; q < 50; q++) {
        const double x = 0.3 + 0.037 * q, y = 0.1 + 0.029 * q;
        double a[2], b[2], c[2], d[2], p[2], o[2];
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x + e, y, a);
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x - e, y, b);
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x, y + e, c);
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x, y - e, d);
        worst = fmax(worst, fabs((a[0] - b[0] + c[1] - d[1]) / (2.0 * e)));
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x, y, o);
        fl_taylor_green_velocity(U, L, 0.3, -0.2, x + L, y - L, p);
        ENSURE(fabs(p[0] - o[0]) < 1e-12 && fabs(p[1] - o[1]) < 1e-12);
    }
    ENSURE(worst < 1e-6 * U * k);
    double v[2];
    fl_taylor_green_velocity(U, L, 0.3, -0.2, 0.3 + 0.25 * L, -0.2, v);
    ENSURE_NEAR(v[0], U, 1e-12);
    ENSURE_NEAR(v[1], 0.0, 1e-12);
    ENSURE_NEAR(fl_taylor_green_energy_rate(0.01, L), 4.0 * 0.01 * k * k, 1e-12);

    const double g = 0.8, nu = 0.1, H = 1.0, peak = g * H * H / (8.0 * nu), h = 1e-3;
    ENSURE_NEAR(fl_poiseuille_steady(g, nu, H, 0.5 * H), peak, 1e-12);
    ENSURE(fl_poiseuille_steady(g, nu, H, 0.0) == 0.0 && fl_poiseuille_steady(g, nu, H, H) == 0.0);
    double ode = 0.0, start = 0.0, late = 0.0, pde = 0.0;
    for (int q = 1; q < 20; q++) {
        const double y = q * H / 20.0, t = 0.3;
        const double lap = (fl_poiseuille_steady(g, nu, H, y + h) - 2.0 * fl_poiseuille_steady(g, nu, H, y) +
                            fl_poiseuille_steady(g, nu, H, y - h)) / (h * h);
        ode = fmax(ode, fabs(nu * lap + g) / g);
        start = fmax(start, fabs(fl_poiseuille_transient(g, nu, H, y, 0.0)) / peak);
        late = fmax(late, fabs(fl_poiseuille_transient(g, nu, H, y, 50.0 * H * H / nu) -
                               fl_poiseuille_steady(g, nu, H, y)) / peak);
        const double ut = (fl_poiseuille_transient(g, nu, H, y, t + h) - fl_poiseuille_transient(g, nu, H, y, t - h)) /
                          (2.0 * h);
        const double uyy = (fl_poiseuille_transient(g, nu, H, y + h, t) - 2.0 * fl_poiseuille_transient(g, nu, H, y, t) +
                            fl_poiseuille_transient(g, nu, H, y - h, t)) / (h * h);
        pde = fmax(pde, fabs(ut - nu * uyy - g) / g);
    }
    printf("analytic: Taylor-Green divergence %.2g U k; Poiseuille: ODE %.2g g, start %.2g, late %.2g of the peak, "
           "PDE %.2g g\n", worst / (U * k), ode, start, late, pde);
    ENSURE(ode < 1e-6);
    ENSURE(start < 1e-6);
    ENSURE(late < 1e-12);
    ENSURE(pde < 1e-4);
}

static void measure(void)
{
    const double L = 1.0, nu = 0.01, r = 1.3;
    double t[21], E[21];
    for (int q = 0; q < 21; q++)
        t[q] = 0.05 * q, E[q] = 2.0 * exp(-r * t[q]);
    fl_tg_fit fit;
    ENSURE(fl_taylor_green_fit(t, E, 21, nu, L, &fit) == 0);
    const double k = 2.0 * FL_PI / L;
    ENSURE_NEAR(fit.rate, r, 1e-12);
    ENSURE_NEAR(fit.nu_eff, r / (4.0 * k * k), 1e-12);
    ENSURE_NEAR(fit.error, r / (4.0 * nu * k * k) - 1.0, 1e-12);
    E[3] = 0.0;
    ENSURE(fl_taylor_green_fit(t, E, 21, nu, L, &fit) == -1 && isnan(fit.rate));

    const double g = 0.8, H = 1.0, pnu = 0.1;
    fl_particles f;
    fl_error err;
    memset(&f, 0, sizeof f);
    ENSURE(fl_particles_reserve(&f, 400, &err) == FL_OK);
    f.count = 400;
    for (int scale = 0; scale < 2; scale++) {
        for (int i = 0; i < 400; i++) {
            f.x[i] = (float)(0.05 * (i % 20)), f.y[i] = (float)(0.025 + 0.05 * (i / 20));
            f.vx[i] = (float)((scale ? 1.05 : 1.0) * fl_poiseuille_steady(g, pnu, H, f.y[i]));
            f.vy[i] = f.vz[i] = 0.0f;
        }
        fl_profile p;
        fl_flow_profile(&f, 0.0, H, 20, &p);
        ENSURE(p.count[0] == 20 && p.count[19] == 20);
        double sq = 0.0;
        for (int b = 0; b < 20; b++)
            sq += pow(0.05 * fl_poiseuille_steady(g, pnu, H, p.y[b]), 2.0);
        const double expected = scale ? sqrt(sq / 20.0) / (g * H * H / (8.0 * pnu)) : 0.0;
        ENSURE_NEAR(fl_poiseuille_error(&p, g, pnu, H, -1.0), expected, scale ? 1e-3 : 1e-6);
    }
    fl_particles_free(&f);
}

static const char *const tg_scene = FL_SOURCE_DIR "/scenes/taylor_green_2d.json";
static const char *const pois_scene = FL_SOURCE_DIR "/scenes/poiseuille_2d.json";

static void scene(void)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    const char *sets[] = {"fluid.spacing=0.0625"};
    ENSURE(fl_scene_load(tg_scene, sets, 1, &s, &err) == FL_OK);
    ENSURE(s.initial_field == FL_FIELD_TAYLOR_GREEN && s.initial_amplitude == 1.0);
    ENSURE(fl_build_world(&s, &w, &err) == FL_OK);
    double worst = 0.0;
    for (int i = 0; i < w.fluid.count; i++) {
        double v[2];
        fl_taylor_green_velocity(1.0, 1.0, 0.0, 0.0, w.fluid.x[i], w.fluid.y[i], v);
        worst = fmax(worst, fmax(fabs(w.fluid.vx[i] - v[0]), fabs(w.fluid.vy[i] - v[1])));
        worst = fmax(worst, fabs(w.fluid.vz[i]));
    }
    ENSURE(w.fluid.count == 256 && worst < 1e-6);
    fl_world_free(&w);
    fl_scene_free(&s);

    static const struct { const char *set, *key, *why; } bad[] = {
        {"domain.max=[1.0,0.90625]", "fluid.initial_velocity", "square"},
        {"periodic=[true,false]", "fluid.initial_velocity", "periodic"},
        {"fluid.initial_velocity.field=vortex", "fluid.initial_velocity.field", "taylor_green"},
        {"fluid.initial_velocity.amplitude=0", "fluid.initial_velocity.amplitude", "(0, 1e3]"},
        {"fluid.initial_velocity={\"field\":\"taylor_green\"}", "fluid.initial_velocity.amplitude", "(0, 1e3]"},
        {"fluid.initial_velocity.speed=1", "fluid.initial_velocity.speed", "unknown"},
    };
    for (size_t q = 0; q < sizeof bad / sizeof bad[0]; q++) {
        const char *two[] = {"fluid.blocks[0].max=[1.0,0.90625]", bad[q].set};
        const int rc = fl_scene_load(tg_scene, two + (q != 0), 1 + (q == 0), &s, &err);
        const int named = rc == FL_ERR_INPUT && strstr(err.msg, bad[q].key) && strstr(err.msg, bad[q].why) &&
                          !strchr(err.msg, '\n');
        if (!named)
            fprintf(stderr, "--set %s: %s\n", bad[q].set, rc ? err.msg : "accepted");
        ENSURE(named);
        if (rc == FL_OK)
            fl_scene_free(&s);
    }
}

/* A solver on a scene, stepped at validate's step. */
typedef struct flow_run {
    fl_scene s;
    fl_world w;
    const fl_solver_ops *ops;
    void *solver;
    fl_step_stats *st;
    double dt;       /* the fixed step, or the next adaptive one */
    int adaptive;
    int failed;
} flow_run;

static int flow_start(flow_run *r, const char *name, const char *scene, const char *const *sets, int nsets)
{
    memset(r, 0, sizeof *r);
    r->ops = test_ops(name);
    r->solver = start_solver(name, scene, sets, nsets, &r->s, &r->w);
    r->st = calloc(1, sizeof *r->st);
    if (!r->ops || !r->solver || !r->st)
        return -1;
    r->dt = fl_validate_step(name, r->w.spacing, r->w.nu);
    r->adaptive = r->dt == 0.0;
    if (r->adaptive) { /* the harness's first adaptive step */
        fl_stability stab;
        fl_stability_init(&stab, &r->w);
        r->dt = fl_explicit_dt_limit(r->w.h, stab.speed_limit, 0.0, 0.0);
    }
    return 0;
}

/* Steps to time t (s), as the harness takes them: an adaptive step is cut
 * to land on t; a fixed one is not, and the run stops at the first step
 * boundary at or past t (PCISPH removes the density error it finds within
 * one step, so a step cut short pushes as hard as its 1/dt^2: on the
 * Taylor-Green vortex a step of 1e-8 s blew the run up). */
static int flow_advance(flow_run *r, double t)
{
    while (!r->failed && r->w.time < t - 1e-9) {
        const double dt = r->adaptive ? fmin(r->dt, t - r->w.time) : r->dt;
        fl_step_stats_reset(r->st);
        if (r->ops->step(r->solver, &r->w, dt, r->st) != FL_OK || r->st->nan_count > 0) {
            fprintf(stderr, "step failed at t = %g s: %s\n", r->w.time, r->st->failure);
            r->failed = 1;
        }
        r->w.time += dt; /* the caller's clock, as the harness keeps it */
        if (r->adaptive && r->st->dt_limit > 0.0)
            r->dt = r->st->dt_limit;
    }
    return r->failed ? -1 : 0;
}

static void flow_end(flow_run *r)
{
    if (r->solver)
        r->ops->destroy(r->solver);
    free(r->st);
    fl_world_free(&r->w);
    fl_scene_free(&r->s);
}

/* The Taylor-Green fit of solver name on the shipped scene (with
 * particle shifting off when unshifted); rate NAN when a step failed. */
static fl_tg_fit taylor_green_run(const char *name, int unshifted)
{
    flow_run r;
    fl_tg_fit fit;
    double t[21], E[21];
    char off[64];
    snprintf(off, sizeof off, "solvers.%s.shifting=0", name);
    const char *sets[] = {off};
    int ok = flow_start(&r, name, tg_scene, sets, unshifted) == 0;
    for (int q = 0; q < 21 && ok; q++) {
        ok = flow_advance(&r, 0.05 * q) == 0;
        t[q] = r.w.time, E[q] = fl_flow_kinetic_energy(&r.w.fluid, r.w.mass);
    }
    if (!ok || fl_taylor_green_fit(t, E, 21, r.w.nu, r.w.domain.hi[0] - r.w.domain.lo[0], &fit))
        fit.rate = fit.nu_eff = fit.error = NAN;
    printf("taylor_green %s%s: %d particles, rate %.4f 1/s against 4 nu k^2 = %.4f (%+.1f %%), nu_eff %.5f m^2/s "
           "(nu %.3g), E against E0 exp(-4 nu k^2 t) within %.1f %%\n",
           name, unshifted ? " without shifting" : "", r.w.fluid.count, fit.rate, fit.exact, 100.0 * fit.error,
           fit.nu_eff, r.w.nu, 100.0 * fit.worst);
    flow_end(&r);
    return fit;
}

/* sph, wcsph, pcisph: the decay rate within 10 % of 4 nu k^2 (the scene's
 * particle shifting on). flip: its nu_eff below WCSPH's and PCISPH's
 * without shifting, the plain methods with Morris's viscosity (with it
 * they come closer to nu than FLIP's grid at this size: their own tests
 * print theirs). */
static void taylor_green(const char *name)
{
    const fl_tg_fit fit = taylor_green_run(name, 0);
    if (strcmp(name, "flip") != 0) {
        ENSURE(fabs(fit.error) < 0.10);
        return;
    }
    const fl_tg_fit w = taylor_green_run("wcsph", 1), p = taylor_green_run("pcisph", 1);
    printf("taylor_green: nu_eff flip %.5f, wcsph %.5f, pcisph %.5f m^2/s (without shifting)\n", fit.nu_eff,
           w.nu_eff, p.nu_eff);
    ENSURE(fit.nu_eff < w.nu_eff && fit.nu_eff < p.nu_eff);
}

static void poiseuille(const char *name)
{
    flow_run r;
    const char *sets[] = {"fluid.spacing=0.03125"};
    int ok = flow_start(&r, name, pois_scene, sets, 1) == 0 && flow_advance(&r, 6.0) == 0;
    const double g = r.w.gravity[0], H = r.w.domain.hi[1] - r.w.domain.lo[1];
    fl_profile p;
    fl_flow_profile(&r.w.fluid, r.w.domain.lo[1], H, 32, &p);
    const double err = ok ? fl_poiseuille_error(&p, g, r.w.nu, H, -1.0) : NAN;
    double top = 0.0;
    for (int b = 0; b < p.bins; b++)
        top = fmax(top, p.u[b]);
    printf("poiseuille %s: %d particles, t = %.2f s: L2 against the steady parabola %.2f %% of the peak; fastest bin "
           "%.3f of it\n", name, r.w.fluid.count, r.w.time, 100.0 * err, top / fl_poiseuille_steady(g, r.w.nu, H, 0.5 * H));
    ENSURE(err < 0.03);
    flow_end(&r);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "analytic";
    if (strcmp(what, "analytic") == 0)
        analytic(), measure();
    else if (strcmp(what, "scene") == 0)
        scene();
    else if (strcmp(what, "taylor_green") == 0)
        taylor_green(argc > 2 ? argv[2] : "wcsph");
    else if (strcmp(what, "poiseuille") == 0)
        poiseuille(argc > 2 ? argv[2] : "wcsph");
    else
        ENSURE(0);
    return fl_test_report("test_flows");
}
