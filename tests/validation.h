/* validation.h: what the physics tests of the particle solvers share:
 * starting a solver on a shipped scene, the pressure slope of a tank at
 * rest and the slope at which the discrete SPH gradient balances gravity,
 * and the dam-break front's history (compared with Martin & Moyce by
 * bench/front.h). The solvers run on the device a test program is given
 * (fl_test_pick_device: "cpu" by default, or "cuda", "emu"), so that the
 * same checks test the device backend. */
#ifndef FL_TEST_VALIDATION_H
#define FL_TEST_VALIDATION_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "harness.h"
#include "mac.h"
#include "measure.h"
#include "kernels.h"

/* The device the solvers run on. */
static const char *fl_test_device = "cpu";

/* Takes the device from argv[1] ("cpu" when absent): 0 when it can run
 * the particle solvers, else 77 (CTest's skip) after saying why. */
static inline int fl_test_pick_device(int argc, char **argv, const char *program)
{
    fl_error err;
    fl_test_device = argc > 1 ? argv[1] : "cpu";
    if (fl_solver_on("sph", fl_test_device, &err))
        return 0;
    printf("%s %s: skipped: %s\n", program, fl_test_device, err.msg);
    return 77;
}

/* 1 on a device other than the CPU. */
static inline int fl_test_on_device(void)
{
    return strcmp(fl_test_device, "cpu") != 0;
}

/* The solver called name on the test device. */
static inline const fl_solver_ops *test_ops(const char *name)
{
    fl_error err;
    const fl_solver_ops *ops = fl_solver_on(name, fl_test_device, &err);
    if (!ops)
        fprintf(stderr, "%s\n", err.msg);
    return ops;
}

/* Brings a device solver's particles back into w (the CPU's are there). */
static inline int test_sync(const fl_solver_ops *ops, void *solver, fl_world *w)
{
    fl_error err;
    if (!ops->download || ops->download(solver, w, NULL, &err) == FL_OK)
        return FL_OK;
    fprintf(stderr, "%s\n", err.msg);
    return FL_ERR_DEVICE;
}

/* Creates the solver called name (on the test device) on w with the
 * parameters scene s gives it; NULL (with the message on stderr) on
 * failure. */
static inline void *create_solver(const char *name, const fl_scene *s, fl_world *w)
{
    fl_error err;
    fl_params prm;
    fl_scene_solver_params(s, name, &prm);
    const fl_solver_ops *ops = test_ops(name);
    void *solver = ops ? fl_solver_create(ops, w, &prm, &err) : NULL;
    if (!solver && ops)
        fprintf(stderr, "%s\n", err.msg);
    return solver;
}

/* Loads scene (with overrides), builds its world and creates the solver
 * called name on it with the scene's parameters; NULL (with the message on
 * stderr) on failure. */
static inline void *start_solver(const char *name, const char *scene, const char *const *sets, int nsets,
                                 fl_scene *s, fl_world *w)
{
    fl_error err;
    if (fl_scene_load(scene, sets, nsets, s, &err) || fl_build_world(s, w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return create_solver(name, s, w);
}

/* The world of the scene text (named file in messages), boundary volumes
 * included; 0 on success, else 1 with the message on stderr. */
static inline int world_from_text(const char *text, const char *file, fl_scene *s, fl_world *w)
{
    fl_error err;
    memset(w, 0, sizeof *w);
    if (fl_scene_parse(text, file, NULL, 0, s, &err) || fl_build_world(s, w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}

/* What a tank at rest shows after the scene's duration (2 s in
 * scenes/hydrostatic.json, 4 s in hydrostatic_2d.json). */
typedef struct tank_result {
    int ok;                 /* every step succeeded */
    double slope;           /* dp/depth averaged over every step of the last 0.5 s, Pa/m */
    int samples;            /* steps averaged */
    double rho0g;           /* rho0 g, Pa/m */
    double balance;         /* rho0 g / kappa: the slope at which the discrete gradient balances gravity */
    double kappa;
    double eos_mean;        /* linear EOS p = k (rho - rho0): mean compression g H / (2k) (k from "stiffness") */
    double err_avg, err_max; /* compression after 2 s, shared estimator */
    double mean_speed;      /* m/s */
    int outside;            /* particles outside the domain */
    int most_iterations;    /* largest iteration count of a step */
} tank_result;

/* Runs solver name on the tank of scene for the scene's duration at dt (0:
 * the scene's). */
static inline tank_result run_tank_in(const char *name, const char *scene, double dt)
{
    tank_result r;
    memset(&r, 0, sizeof r);
    fl_scene s;
    fl_world w;
    fl_params prm;
    fl_error err;
    void *solver = start_solver(name, scene, NULL, 0, &s, &w);
    if (!solver)
        return r;
    const fl_solver_ops *ops = test_ops(name);
    fl_step_stats *st = calloc(1, sizeof *st);
    if (dt <= 0.0)
        dt = fl_scene_dt(&s);
    const long long steps = (long long)floor(s.duration / dt + 0.5), tail = (long long)floor(0.5 / dt + 0.5);
    int rc = FL_OK;
    double slope_sum = 0.0;
    /* the slope is averaged over every step of the last 0.5 s, so that the
     * acoustic ringing of a stiff equation of state averages out */
    for (long long k = 1; k <= steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, &w, dt, st);
        r.most_iterations = st->iterations > r.most_iterations ? st->iterations : r.most_iterations;
        if (k > steps - tail && rc == FL_OK && (rc = test_sync(ops, solver, &w)) == FL_OK)
            slope_sum += fl_pressure_slope(&w), r.samples++;
    }
    fl_metrics metrics;
    memset(&metrics, 0, sizeof metrics); /* freed below even when not set up */
    double lo[3], hi[3];
    r.ok = rc == FL_OK && fl_metrics_init(&metrics, ops, solver, &w, &err) == FL_OK &&
           fl_metrics_step(&metrics, &w, st, lo, hi, &err) == FL_OK;
    r.err_avg = st->density_err_avg, r.err_max = st->density_err_max;
    const fl_particles *f = &w.fluid;
    for (int i = 0; i < f->count; i++) {
        float x[3] = {f->x[i], f->y[i], f->z[i]};
        for (int a = 0; a < 3; a++)
            r.outside += !(x[a] >= w.domain.lo[a] && x[a] <= w.domain.hi[a]);
        r.mean_speed += sqrt((double)f->vx[i] * f->vx[i] + (double)f->vy[i] * f->vy[i] + (double)f->vz[i] * f->vz[i]);
    }
    r.mean_speed /= f->count;
    r.slope = slope_sum / r.samples;
    r.rho0g = w.rho0 * 9.81;
    r.kappa = fl_lattice_gradient_factor(w.spacing, w.h, w.mass, w.rho0, w.dims);
    r.balance = r.rho0g / r.kappa;
    double k_eos = 0.0;
    fl_scene_solver_params(&s, name, &prm);
    if (fl_params_get(&prm, "stiffness", 0.0, 0.0, 1e12, &k_eos, &err) == FL_OK && k_eos > 0.0)
        r.eos_mean = 9.81 * (s.blocks[0].hi[1] - s.blocks[0].lo[1]) / (2.0 * k_eos);
    printf("hydrostatic%s %s after %g s (dt %.3g s): compression avg %.4f %%, max %.4f %%, mean speed %.4f m/s, "
           "dp/depth %.1f Pa/m (rho0 g / kappa = %.1f: %+.1f %%, kappa = %.4f; rho0 g: %+.1f %%; %d samples), "
           "most iterations %d, outside %d\n",
           w.dims == 2 ? " (2D)" : "", name, s.duration, dt, 100 * r.err_avg, 100 * r.err_max, r.mean_speed, r.slope, r.balance,
           100 * (r.slope / r.balance - 1), r.kappa, 100 * (r.slope / r.rho0g - 1), r.samples, r.most_iterations,
           r.outside);
    fl_metrics_free(&metrics);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
    return r;
}

/* The same on scenes/hydrostatic.json. */
static inline tank_result run_tank(const char *name, double dt)
{
    return run_tank_in(name, FL_SOURCE_DIR "/scenes/hydrostatic.json", dt);
}

/* The step limit solver name reports after one short step (1e-5 s) of
 * scene (with nsets overrides) from rest: for WCSPH, its CFL step
 * 0.4 h / c. */
static inline double first_step_limit(const char *name, const char *scene, const char *const *sets, int nsets)
{
    fl_scene s;
    fl_world w;
    void *solver = start_solver(name, scene, sets, nsets, &s, &w);
    if (!solver)
        return 0.0;
    fl_step_stats *st = calloc(1, sizeof *st);
    const fl_solver_ops *ops = test_ops(name);
    fl_step_stats_reset(st);
    double limit = ops->step(solver, &w, 1e-5, st) == FL_OK ? st->dt_limit : 0.0;
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
    return limit;
}

/* What a fixed-step run shows against the stability criteria of docs/design.md. */
typedef struct stability_run {
    double failed_at;   /* time of the first failing step, s; -1: stable to the end; -2: did not start */
    char reason[600];   /* why it failed, or "stable" */
    int steps;          /* steps taken */
    double mean_err;    /* compression over the run: the mean of the steps' density_err_avg */
    double peak_err;    /* and its largest value */
} stability_run;

/* Runs solver name on scene (with nsets overrides) at the fixed step dt
 * until t_end, checking the stability criteria after every step as the
 * harness does (bench/harness.c): the compression measured by
 * fl_measure_density, then fl_stability_check. */
static inline stability_run run_stability(const char *name, const char *scene, const char *const *sets, int nsets,
                                          double dt, double t_end)
{
    stability_run r = {.failed_at = -2.0, .reason = "did not start"};
    fl_scene s;
    fl_world w;
    void *solver = start_solver(name, scene, sets, nsets, &s, &w);
    if (!solver)
        return r;
    const fl_solver_ops *ops = test_ops(name);
    fl_step_stats *st = calloc(1, sizeof *st);
    fl_metrics metrics;
    fl_error err;
    fl_stability stab;
    fl_stability_init(&stab, &w);
    r.failed_at = -1.0;
    snprintf(r.reason, sizeof r.reason, "stable");
    if (fl_metrics_init(&metrics, ops, solver, &w, &err) != FL_OK) {
        r.failed_at = -2.0;
        snprintf(r.reason, sizeof r.reason, "%s", err.msg);
    }
    const long long steps = (long long)ceil(t_end / dt - 1e-9);
    for (long long k = 1; k <= steps && r.failed_at == -1.0; k++) {
        fl_step_stats_reset(st);
        double lo[3], hi[3];
        if (ops->step(solver, &w, dt, st) != FL_OK || fl_metrics_step(&metrics, &w, st, lo, hi, &err) != FL_OK) {
            snprintf(r.reason, sizeof r.reason, "a particle left the neighbor grid");
            r.failed_at = k * dt;
            break;
        }
        r.steps++;
        r.mean_err += st->density_err_avg;
        r.peak_err = fmax(r.peak_err, st->density_err_avg);
        if (fl_stability_check(&stab, st, r.reason, sizeof r.reason))
            r.failed_at = k * dt;
    }
    if (r.steps > 0)
        r.mean_err /= r.steps;
    fl_metrics_free(&metrics);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
    return r;
}

/* The dam-break front: the largest x of a fluid particle, m. */
static inline double front_x(const fl_world *w)
{
    double front = -INFINITY;
    for (int i = 0; i < w->fluid.count; i++)
        front = fmax(front, w->fluid.x[i]);
    return front;
}

/* A front history for fl_front_compare (bench/front.h): (t[k], x[k]) for
 * k < n, in s and m. Start it zeroed; free it with front_history_free. */
typedef struct front_history {
    double *t, *x;
    int n, cap;
} front_history;

/* Appends (t, x), growing the arrays; a sample that cannot be stored (out
 * of memory) is dropped, and the comparison then finds fewer points. */
static inline void front_record(front_history *h, double t, double x)
{
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 1024;
        double *nt = realloc(h->t, sizeof(double) * (size_t)cap);
        if (nt)
            h->t = nt;
        double *nx = nt ? realloc(h->x, sizeof(double) * (size_t)cap) : NULL;
        if (!nx)
            return;
        h->x = nx, h->cap = cap;
    }
    h->t[h->n] = t, h->x[h->n] = x, h->n++;
}

static inline void front_history_free(front_history *h)
{
    free(h->t), free(h->x);
    memset(h, 0, sizeof *h);
}

/* Steps solver `steps` times at dt, from t = 0, recording the front before
 * the first step and after each; FL_OK or the failing step's code, and the
 * time reached in *t. */
static inline int step_recording_front(const fl_solver_ops *ops, void *solver, fl_world *w, double dt,
                                       long long steps, fl_step_stats *st, front_history *h, double *t)
{
    int rc = FL_OK;
    *t = 0.0;
    front_record(h, *t, front_x(w));
    for (long long k = 1; k <= steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, w, dt, st);
        *t += dt;
        if (rc == FL_OK)
            rc = test_sync(ops, solver, w);
        front_record(h, *t, front_x(w));
    }
    return rc;
}

/* Compares the history of a column of width a, wall at x0, gravity g, with
 * Martin & Moyce over 1 <= T <= 3 and prints one line per point, each
 * opening with label; returns the points compared (-1 when the data could
 * not be read) and the largest |error| in *worst. */
static inline int front_report(const front_history *h, double a, double x0, double g, const char *label,
                               double *worst)
{
    fl_front_point pt[16];
    int compared = fl_front_compare(h->t, h->x, h->n, a, x0, g, 1.0, 3.0, pt, 16, worst);
    for (int p = 0; p < compared; p++)
        printf("%sT = %.2f (t = %.4f s): Z = %.3f, Martin & Moyce %.2f (%+.1f %%)\n", label, pt[p].T,
               pt[p].T * sqrt(a / (2.0 * g)), pt[p].Z, pt[p].Z_mm, 100 * pt[p].err);
    return compared;
}

/* Runs solver name on the dam break of scene (its first block the column)
 * to T = 3, at the scene's step, and compares the front with Martin &
 * Moyce over 1 <= T <= 3 (each point printed, prefixed by label): the
 * largest relative error into *worst, the points compared returned; -1
 * when the solver did not start or a step failed. With w_end, the world
 * at the end of a run that compared is moved there (the caller frees it
 * with fl_world_free). */
static inline int dam_front(const char *name, const char *scene, const char *label, double *worst, fl_world *w_end)
{
    fl_scene s;
    fl_world w;
    *worst = INFINITY;
    const fl_solver_ops *ops = test_ops(name);
    void *solver = start_solver(name, scene, NULL, 0, &s, &w);
    if (!solver)
        return -1;
    const double a = s.blocks[0].hi[0] - s.blocks[0].lo[0], g = 9.81, dt = fl_scene_dt(&s);
    const double t_end = 3.0 * sqrt(a / (2.0 * g)); /* T = 3 */
    fl_step_stats *st = calloc(1, sizeof *st);
    front_history h = {0};
    double t;
    int rc = step_recording_front(ops, solver, &w, dt, (long long)ceil(t_end / dt - 1e-9), st, &h, &t);
    int compared = rc == FL_OK ? front_report(&h, a, w.domain.lo[0], g, label, worst) : -1;
    front_history_free(&h);
    free(st);
    ops->destroy(solver);
    if (w_end && compared >= 0)
        *w_end = w;
    else
        fl_world_free(&w);
    fl_scene_free(&s);
    return compared;
}

/* Particles in a SOLID cell of a MAC grid of cell size dx over w, and the
 * number of cells holding a particle (-1 each when the grid cannot be
 * made). */
static inline void cell_census(const fl_world *w, double dx, int *in_solid, long *fluid_cells)
{
    fl_mac_config cfg = fl_default_mac_config();
    cfg.dx = dx;
    fl_mac_grid *g;
    fl_error err;
    *in_solid = -1;
    *fluid_cells = -1;
    if (fl_mac_grid_create(w, &cfg, &g, &err) != FL_OK)
        return;
    unsigned char *seen = calloc((size_t)g->ncells, 1);
    int solid = 0;
    long cells = 0;
    const fl_particles *f = &w->fluid;
    for (int i = 0; i < f->count; i++) {
        int c[3];
        const float x[3] = {f->x[i], f->y[i], f->z[i]};
        const int n[3] = {g->nx, g->ny, g->nz};
        for (int a = 0; a < 3; a++) {
            c[a] = (int)floor((x[a] - g->lo[a]) / dx);
            c[a] = c[a] < 0 ? 0 : c[a] >= n[a] ? n[a] - 1 : c[a];
        }
        long q = fl_mac_cell(g, c[0], c[1], c[2]);
        solid += g->label[q] == FL_CELL_SOLID;
        cells += !seen[q];
        seen[q] = 1;
    }
    *in_solid = solid;
    *fluid_cells = cells;
    free(seen);
    fl_mac_grid_destroy(&g);
}

#endif
