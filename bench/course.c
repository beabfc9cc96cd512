/* course.c: `fluidlab course` (course.h). The lessons are docs/course/NN_*.md;
 * this file holds, for each, the commands that show it and the exercises
 * whose outcomes it states, so that `course --check` can hold the text to
 * the code. A command is a fluidlab command line, run by this same program
 * in a child process (its output in DIR/N/commands.log); an exercise is a
 * short simulation or lattice sum run here, through the same solvers. */
#define _POSIX_C_SOURCE 200809L
#include "course.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dispatch.h"
#include "front.h"
#include "harness.h"
#include "kernels.h"
#include "measure.h"
#include "plot.h"
#include "sph_physics.h"

extern char **environ;

#define MAX_WORDS 24
#define MAX_COMMANDS 8
#define MAX_PICTURES 6
#define MAX_EXERCISES 4

/* An exercise: fills got (what was measured) and returns 1 when the stated
 * outcome held, 0 when it did not, -1 when it could not be run (got says
 * why). */
typedef int (*exercise_fn)(char *got, int len);

typedef struct exercise {
    const char *claim; /* the outcome the lesson states */
    exercise_fn run;
} exercise;

typedef struct lesson {
    const char *doc;   /* docs/course/NN_slug.md */
    const char *title;
    /* fluidlab command lines; "{out}" in a word stands for DIR/N */
    const char *commands[MAX_COMMANDS][MAX_WORDS];
    /* after the commands, in DIR/N: a picture made from their output (NULL: none); 0, or 2 with msg */
    int (*make)(const char *dir, char *msg, int len);
    const char *pictures[MAX_PICTURES]; /* what they make, under DIR/N */
    const char *look;  /* what to look at */
    exercise exercises[MAX_EXERCISES];
} lesson;

/* ---- a short simulation ---------------------------------------------------- */

typedef struct sim {
    fl_scene scene;
    fl_world world;
    const fl_solver_ops *ops;
    void *solver;
    fl_step_stats *st;
    fl_metrics metrics;    /* the harness's: density_err_avg and _max in st after each step */
    fl_stability stab;
    double t, dt;
    int unstable;          /* broke a stability criterion */
    char reason[256];
} sim;

/* Loads scene with nsets overrides, builds its world and the solver; 0,
 * or -1 with the reason in why. */
static int sim_start(sim *s, const char *scene, const char *solver, const char *const *sets, int nsets, char *why,
                     int len)
{
    fl_error err;
    fl_params prm;
    char path[1024];
    memset(s, 0, sizeof *s);
    fl_resolve_scene(scene, path, sizeof path);
    if (fl_scene_load(path, sets, nsets, &s->scene, &err) || fl_build_world(&s->scene, &s->world, &err) ||
        !(s->ops = fl_solver_on(solver, "cpu", &err))) {
        snprintf(why, (size_t)len, "%s", err.msg);
        return -1;
    }
    fl_scene_solver_params(&s->scene, solver, &prm);
    if (!(s->solver = fl_solver_create(s->ops, &s->world, &prm, &err)) || !(s->st = calloc(1, sizeof *s->st))) {
        snprintf(why, (size_t)len, "%s", s->solver ? "out of memory" : err.msg);
        return -1;
    }
    if (fl_metrics_init(&s->metrics, s->ops, s->solver, &s->world, &err)) {
        snprintf(why, (size_t)len, "%s", err.msg);
        return -1;
    }
    s->dt = fl_scene_dt(&s->scene);
    fl_stability_init(&s->stab, &s->world);
    return 0;
}

/* Steps until t_end (or until unstable); calls each(ctx, s) after every
 * step when given. 0, or -1 with why when a step failed. */
static int sim_run(sim *s, double t_end, void (*each)(void *, const sim *), void *ctx, char *why, int len)
{
    fl_error err;
    double lo[3], hi[3];
    while (s->t < t_end - 1e-12 && !s->unstable) {
        fl_step_stats_reset(s->st);
        if (s->ops->step(s->solver, &s->world, s->dt, s->st) != FL_OK ||
            fl_metrics_step(&s->metrics, &s->world, s->st, lo, hi, &err) != FL_OK) {
            snprintf(s->reason, sizeof s->reason, "%s", s->st->failure[0] ? s->st->failure : "a particle left the grid");
            snprintf(why, (size_t)len, "%s", s->reason);
            s->unstable = 1;
            return 0;
        }
        s->t += s->dt;
        s->world.time = s->t;
        if (fl_stability_check(&s->stab, s->st, s->reason, sizeof s->reason))
            s->unstable = 1;
        if (each)
            each(ctx, s);
    }
    return 0;
}

static void sim_end(sim *s)
{
    fl_metrics_free(&s->metrics);
    if (s->solver)
        s->ops->destroy(s->solver);
    free(s->st);
    fl_world_free(&s->world);
    fl_scene_free(&s->scene);
}

/* ---- lesson 1: two viewpoints ----------------------------------------------- */

typedef struct front_rec {
    double *t, *x;
    int n, cap;
} front_rec;

static void record_front(void *ctx, const sim *s)
{
    front_rec *r = ctx;
    double front = -INFINITY;
    for (int i = 0; i < s->world.fluid.count; i++)
        front = fmax(front, s->world.fluid.x[i]);
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 1024;
        double *t = realloc(r->t, sizeof *t * (size_t)cap), *x = t ? realloc(r->x, sizeof *x * (size_t)cap) : NULL;
        if (t)
            r->t = t;
        if (!x)
            return;
        r->x = x, r->cap = cap;
    }
    r->t[r->n] = s->t, r->x[r->n] = front, r->n++;
}

/* The 2D dam break's front under solver against Martin & Moyce at their
 * point nearest T = 2 (T = 1.98): the relative error, or NAN. */
static double front_error_at_2(const char *solver, char *why, int len)
{
    sim s;
    front_rec r = {0};
    double worst = NAN;
    if (sim_start(&s, "dam_break_2d", solver, NULL, 0, why, len) == 0) {
        const double a = s.scene.blocks[0].hi[0] - s.scene.blocks[0].lo[0], g = 9.81;
        sim_run(&s, 2.2 * sqrt(a / (2.0 * g)), record_front, &r, why, len);
        fl_front_point pt[4];
        if (fl_front_compare(r.t, r.x, r.n, a, s.world.domain.lo[0], g, 1.9, 2.1, pt, 4, &worst) >= 1)
            worst = pt[0].err;
    }
    free(r.t), free(r.x);
    sim_end(&s);
    return worst;
}

static int ex_fronts(char *got, int len)
{
    double w = front_error_at_2("wcsph", got, len), f = front_error_at_2("flip", got, len);
    if (isnan(w) || isnan(f))
        return -1;
    snprintf(got, (size_t)len, "WCSPH %+.1f %%, FLIP %+.1f %% off Martin & Moyce at T = 2", 100 * w, 100 * f);
    return fabs(w) < 0.10 && fabs(f) < 0.10;
}

/* ---- lesson 2: vector calculus ------------------------------------------------ */

static int ex_gradient(char *got, int len)
{
    const double d = 0.01, h = 2 * d, rho0 = 1000.0;
    double k2 = fl_lattice_gradient_factor(d, h, fl_world_calibrate_mass(rho0, d, h, 2), rho0, 2);
    double k3 = fl_lattice_gradient_factor(d, h, fl_world_calibrate_mass(rho0, d, h, 3), rho0, 3);
    snprintf(got, (size_t)len, "kappa = %.4f on the square lattice, %.4f on the cubic", k2, k3);
    return fabs(k2 - 0.874) < 0.001 && fabs(k3 - 0.947) < 0.001;
}

/* sum_j V_j (u_j - u_i) lap W_ij for u = x^2 at the origin of a full
 * lattice: the viscosity Laplacian's estimate of lap u = 2. */
static double lattice_laplacian(int dims)
{
    const double d = 0.01, h = 2 * d, rho0 = 1000.0, vol = fl_world_calibrate_mass(rho0, d, h, dims) / rho0;
    const int kr = dims == 2 ? 0 : 2;
    double sum = 0.0;
    for (int i = -2; i <= 2; i++)
        for (int j = -2; j <= 2; j++)
            for (int k = -kr; k <= kr; k++) {
                double x = i * d, r = sqrt((double)(i * i + j * j + k * k)) * d;
                sum += vol * x * x * fl_visc_laplacian((float)r, (float)h, dims);
            }
    return sum;
}

static int ex_laplacian(char *got, int len)
{
    double l2 = lattice_laplacian(2), l3 = lattice_laplacian(3);
    snprintf(got, (size_t)len, "lap(x^2) = %.3f on the square lattice, %.3f on the cubic (exact: 2)", l2, l3);
    return fabs(l2 - 1.703) < 0.005 && fabs(l3 - 1.957) < 0.005;
}

/* ---- lesson 3: the Navier-Stokes equations -------------------------------------- */

static void sum_slope(void *ctx, const sim *s)
{
    double *acc = ctx; /* {slope sum, samples, from t} */
    if (s->t > acc[2])
        acc[0] += fl_pressure_slope(&s->world), acc[1] += 1.0;
}

static int ex_hydrostatic(char *got, int len)
{
    sim s;
    double acc[3] = {0.0, 0.0, 3.5};
    int ok = -1;
    if (sim_start(&s, "hydrostatic_2d", "wcsph", NULL, 0, got, len) == 0) {
        s.dt = 5e-4;
        sim_run(&s, 4.0, sum_slope, acc, got, len);
        const double kappa = fl_lattice_gradient_factor(s.world.spacing, s.world.h, s.world.mass, s.world.rho0, 2);
        const double slope = acc[0] / acc[1], balance = s.world.rho0 * 9.81 / kappa;
        snprintf(got, (size_t)len, "dp/depth %.0f Pa/m: %+.1f %% off rho0 g / kappa = %.0f, %+.1f %% off rho0 g; "
                 "mean compression %.2f %%",
                 slope, 100 * (slope / balance - 1), balance, 100 * (slope / (s.world.rho0 * 9.81) - 1),
                 100 * s.st->density_err_avg);
        ok = !s.unstable && acc[1] > 0 && fabs(slope / balance - 1) < 0.05 && s.st->density_err_avg < 0.01;
    }
    sim_end(&s);
    return ok;
}

/* ---- lesson 4: splitting on the MAC grid ---------------------------------------- */

/* FLIP's CG iterations on the 2D dam break's last step before t = 0.1 s
 * with preconditioner pre (fl_precond), or -1. */
static int flip_iterations(int pre, char *why, int len)
{
    sim s;
    char set[64];
    snprintf(set, sizeof set, "solvers.flip.preconditioner=%d", pre);
    const char *sets[] = {set};
    int it = -1;
    if (sim_start(&s, "dam_break_2d", "flip", sets, 1, why, len) == 0) {
        sim_run(&s, 0.1, NULL, NULL, why, len);
        it = s.unstable ? -1 : s.st->iterations;
    }
    sim_end(&s);
    return it;
}

static int ex_preconditioners(char *got, int len)
{
    int cg = flip_iterations(2, got, len), mic = flip_iterations(0, got, len), mg = flip_iterations(3, got, len);
    if (cg < 0 || mic < 0 || mg < 0)
        return -1;
    snprintf(got, (size_t)len, "CG %d, MIC(0) %d, multigrid %d iterations", cg, mic, mg);
    return mg < mic && mic < cg;
}

/* ---- lesson 5: SPH ------------------------------------------------------------ */

/* The 2D tank's fastest particle after 2 s under sph with pressure_force form. */
static double tank_speed(int form, char *why, int len)
{
    sim s;
    char set[64];
    snprintf(set, sizeof set, "solvers.sph.pressure_force=%d", form);
    const char *sets[] = {set};
    double v = NAN;
    if (sim_start(&s, "hydrostatic_2d", "sph", sets, 1, why, len) == 0) {
        s.stab.speed_limit = INFINITY; /* the boiling is the outcome: run on */
        sim_run(&s, 2.0, NULL, NULL, why, len);
        v = s.st->max_speed;
    }
    sim_end(&s);
    return v;
}

static int ex_mean_form(char *got, int len)
{
    double sym = tank_speed(0, got, len), mean = tank_speed(1, got, len);
    if (isnan(sym) || isnan(mean))
        return -1;
    snprintf(got, (size_t)len, "fastest particle after 2 s: %.2f m/s (symmetric), %.2f m/s (mean)", sym, mean);
    return mean > 10.0 * sym;
}

/* rho / rho0 - 1 after the first density pass of the 2D tank under sph
 * with one override, at the first row above the floor and the top row. */
static int first_density(const char *set, double out[2], char *why, int len)
{
    sim s;
    const char *sets[] = {set};
    int rc = sim_start(&s, "hydrostatic_2d", "sph", sets, 1, why, len);
    if (rc == 0) {
        s.dt = 1e-9;
        sim_run(&s, 1e-9, NULL, NULL, why, len);
        const double d = s.world.spacing, at[2][2] = {{0.2 + d / 2, d / 2}, {0.2 + d / 2, 1.0 - d / 2}};
        const fl_particles *f = &s.world.fluid;
        for (int q = 0; q < 2; q++) {
            int best = 0;
            for (int i = 1; i < f->count; i++)
                if (hypot(f->x[i] - at[q][0], f->y[i] - at[q][1]) < hypot(f->x[best] - at[q][0], f->y[best] - at[q][1]))
                    best = i;
            out[q] = f->rho[best] / s.world.rho0 - 1.0;
        }
    }
    sim_end(&s);
    return rc;
}

static int ex_corrected_density(char *got, int len)
{
    double on[2], off[2];
    if (first_density("solvers.sph.corrected_density=true", on, got, len) ||
        first_density("solvers.sph.corrected_density=false", off, got, len))
        return -1;
    snprintf(got, (size_t)len, "first row above the floor: %+.2f %% corrected, %+.2f %% uncorrected", 100 * on[0],
             100 * off[0]);
    return fabs(on[0]) < 0.01 && off[0] < -0.05;
}

static int ex_shepard(char *got, int len)
{
    double plain[2], shep[2];
    if (first_density("solvers.sph.shepard=false", plain, got, len) ||
        first_density("solvers.sph.shepard=true", shep, got, len))
        return -1;
    snprintf(got, (size_t)len, "top row: %+.1f %% plain, %+.1f %% with Shepard", 100 * plain[1], 100 * shep[1]);
    return plain[1] < -0.15 && shep[1] > plain[1] + 0.03;
}

/* ---- lesson 6: force-based dynamics ------------------------------------------- */

/* Whether the 2D dam break under sph with stiffness k stays stable for 0.05 s
 * at dt; 1, 0, or -1. */
static int stiff_stable(double k, double dt, char *reason, int len)
{
    sim s;
    char set[64];
    snprintf(set, sizeof set, "solvers.sph.stiffness=%g", k);
    const char *sets[] = {set};
    int ok = -1;
    if (sim_start(&s, "dam_break_2d", "sph", sets, 1, reason, len) == 0) {
        s.dt = dt;
        sim_run(&s, 0.05, NULL, NULL, reason, len);
        ok = !s.unstable;
        if (s.unstable)
            snprintf(reason, (size_t)len, "%s", s.reason);
    }
    sim_end(&s);
    return ok;
}

static int ex_stiffness(char *got, int len)
{
    char why[256] = "";
    int soft = stiff_stable(1e3, 1.0 / 4800, why, sizeof why), stiff = stiff_stable(1e5, 1.0 / 4800, why, sizeof why);
    int small = stiff_stable(1e5, 1.0 / 48000, got, len);
    if (soft < 0 || stiff < 0 || small < 0)
        return -1;
    snprintf(got, (size_t)len, "k = 1e3 at dt = 1/4800 s: %s; k = 1e5 at 1/4800 s: %s; at 1/48000 s: %s",
             soft ? "stable" : "unstable", stiff ? "stable" : why, small ? "stable" : "unstable");
    return soft && !stiff && small;
}

/* ---- lesson 7: position based dynamics ------------------------------------------ */

/* The iterations history e (n entries) needs to reach target, n + 1 when it does not. */
static int reach(const double *e, int n, double target)
{
    for (int k = 0; k < n; k++)
        if (e[k] <= target)
            return k + 1;
    return n + 1;
}

static int ex_gauss_seidel(char *got, int len)
{
    const char *jac[] = {"constraint_solver=0"}, *gs[] = {"constraint_solver=2"},
               *sor[] = {"constraint_solver=3", "relaxation=1.4"};
    double jm[FL_MAX_HISTORY], ja[FL_MAX_HISTORY], gm[FL_MAX_HISTORY], ga[FL_MAX_HISTORY], sm[FL_MAX_HISTORY],
        sa[FL_MAX_HISTORY];
    fl_error err;
    int nj = fl_pbf_tank_history(jac, 1, jm, ja, &err), ng = nj ? fl_pbf_tank_history(gs, 1, gm, ga, &err) : 0,
        ns = ng ? fl_pbf_tank_history(sor, 2, sm, sa, &err) : 0;
    if (nj < 10 || !ng || !ns) {
        snprintf(got, (size_t)len, "%s", err.msg);
        return -1;
    }
    const double target = ja[9];
    int g = reach(ga, ng, target), r = reach(sa, ns, target);
    snprintf(got, (size_t)len, "10 Jacobi iterations: mean compression %.3f %%; Gauss-Seidel reaches it in %d, SOR "
             "(omega 1.4) in %d", 100 * target, g, r);
    return g < 10 && r < g;
}

static int ex_averaged(char *got, int len)
{
    const char *jac[] = {"constraint_solver=0", "cfm_epsilon=0.01"},
               *avg[] = {"constraint_solver=1", "cfm_epsilon=0.01"};
    double jm[FL_MAX_HISTORY], ja[FL_MAX_HISTORY], am[FL_MAX_HISTORY], aa[FL_MAX_HISTORY];
    fl_error err;
    int nj = fl_pbf_tank_history(jac, 2, jm, ja, &err), na = nj ? fl_pbf_tank_history(avg, 2, am, aa, &err) : 0;
    if (!nj || !na) {
        snprintf(got, (size_t)len, "%s", err.msg);
        return -1;
    }
    snprintf(got, (size_t)len, "max compression over %d iterations: Jacobi %.2f %% to %.2f %%, averaged Jacobi "
             "%.2f %% to %.2f %%", nj, 100 * jm[0], 100 * jm[nj - 1], 100 * am[0], 100 * am[na - 1]);
    return jm[nj - 1] > jm[0] && am[na - 1] < am[0];
}

/* A lesson's data file DIR/name opened for writing, its path in path;
 * NULL with the reason in msg. */
static FILE *open_data(const char *dir, const char *name, char *path, size_t cap, char *msg, int len)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        snprintf(msg, (size_t)len, "%s: cannot write it", path);
    return f;
}

/* Closes the data file f (at path) and draws DIR's picture from it with
 * the gnuplot script plots/script: 0, or 2 with the reason in msg. */
static int close_and_draw(FILE *f, const char *path, const char *dir, const char *script, char *msg, int len)
{
    fl_error err;
    char gp[FL_MAX_PATH];
    if (fl_close_written(f, path, &err)) {
        snprintf(msg, (size_t)len, "%s", err.msg);
        return 2;
    }
    if (!fl_plot_available()) {
        snprintf(msg, (size_t)len, "gnuplot not found (apt-get install gnuplot-nox): %s is not drawn", path);
        return 2;
    }
    snprintf(gp, sizeof gp, "%s/plots/%s", FL_SOURCE_DIR, script);
    return fl_plot_render(gp, dir, "png", msg, len) ? 2 : 0;
}

/* Lesson 7's picture: one step of the 2D tank at t = 2 s under each
 * constraint solver, from the same state (fl_pbf_tank_history), the mean
 * compression after each iteration side by side in DIR/convergence.csv,
 * drawn by plots/course_convergence.gp. */
static int make_convergence(const char *dir, char *msg, int len)
{
    enum { RUNS = 4 };
    static const char *const sets[RUNS][2] = {{"constraint_solver=0", NULL},
                                             {"constraint_solver=1", "relaxation=1.5"},
                                             {"constraint_solver=2", NULL},
                                             {"constraint_solver=3", "relaxation=1.4"}};
    double e[RUNS][FL_MAX_HISTORY], max[FL_MAX_HISTORY];
    int n[RUNS];
    fl_error err;
    for (int r = 0; r < RUNS; r++)
        if ((n[r] = fl_pbf_tank_history(sets[r], sets[r][1] ? 2 : 1, max, e[r], &err)) == 0) {
            snprintf(msg, (size_t)len, "%s", err.msg);
            return 2;
        }
    char out[FL_MAX_PATH + 64];
    FILE *f = open_data(dir, "convergence.csv", out, sizeof out, msg, len);
    if (!f)
        return 2;
    fprintf(f, "iteration,Jacobi,averaged Jacobi (omega 1.5),Gauss-Seidel,SOR (omega 1.4)\n");
    for (int k = 0; k < n[0]; k++) {
        fprintf(f, "%d", k + 1);
        for (int r = 0; r < RUNS; r++)
            fprintf(f, k < n[r] ? ",%.6f" : ",", 100 * e[r][k]);
        fprintf(f, "\n");
    }
    return close_and_draw(f, out, dir, "course_convergence.gp", msg, len);
}

/* ---- lesson 8: position based fluids ---------------------------------------------- */

/* The relaxation epsilon swept (lesson 8's picture and exercise 2):
 * cfm_epsilon, then the tank step's max and mean compression after its
 * first and its 20th iteration (fl_pbf_tank_history). */
#define EPS_COUNT 7
static const double eps_sweep[EPS_COUNT] = {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0};

static int epsilon_sweep(double out[EPS_COUNT][4], char *msg, int len)
{
    for (int k = 0; k < EPS_COUNT; k++) {
        char set[64];
        snprintf(set, sizeof set, "cfm_epsilon=%g", eps_sweep[k]);
        const char *sets[] = {set};
        double max[FL_MAX_HISTORY], avg[FL_MAX_HISTORY];
        fl_error err;
        int n = fl_pbf_tank_history(sets, 1, max, avg, &err);
        if (n < 2) {
            snprintf(msg, (size_t)len, "%s", n ? "fewer than 2 iterations" : err.msg);
            return 2;
        }
        out[k][0] = max[0], out[k][1] = avg[0], out[k][2] = max[n - 1], out[k][3] = avg[n - 1];
    }
    return 0;
}

static int make_epsilon(const char *dir, char *msg, int len)
{
    double e[EPS_COUNT][4];
    if (epsilon_sweep(e, msg, len))
        return 2;
    char out[FL_MAX_PATH + 64];
    FILE *f = open_data(dir, "epsilon.csv", out, sizeof out, msg, len);
    if (!f)
        return 2;
    fprintf(f, "cfm_epsilon,max after 1,mean after 1,max after 20,mean after 20\n");
    for (int k = 0; k < EPS_COUNT; k++)
        fprintf(f, "%g,%.6f,%.6f,%.6f,%.6f\n", eps_sweep[k], 100 * e[k][0], 100 * e[k][1], 100 * e[k][2],
                100 * e[k][3]);
    return close_and_draw(f, out, dir, "course_epsilon.gp", msg, len);
}

static int ex_epsilon_sweep(char *got, int len)
{
    double e[EPS_COUNT][4];
    if (epsilon_sweep(e, got, len))
        return -1;
    /* eps_sweep[0] = 0.01, [3] = 0.3, [4] = 1 (the default), [6] = 10 */
    snprintf(got, (size_t)len, "max compression after 1 and 20 iterations: %.2f, %.2f %% at epsilon 0.01; %.2f, "
             "%.2f %% at 0.3; %.2f, %.2f %% at 1; %.2f, %.2f %% at 10 (mean %.2f, %.2f %%)",
             100 * e[0][0], 100 * e[0][2], 100 * e[3][0], 100 * e[3][2], 100 * e[4][0], 100 * e[4][2], 100 * e[6][0],
             100 * e[6][2], 100 * e[6][1], 100 * e[6][3]);
    return e[0][2] > 4.0 * e[0][0] && e[6][2] > e[6][0] && e[6][3] > 0.95 * e[6][1] && e[3][2] < e[3][0] &&
           e[3][3] < e[3][1] && e[4][2] < e[4][0] && e[4][3] < e[4][1];
}

static int ex_epsilon_zero(char *got, int len)
{
    sim s;
    const char *sets[] = {"solvers.pbf.cfm_epsilon=0",
                          "fluid.blocks=[{\"min\": [0, 0], \"max\": [0.2, 0.4]}, "
                          "{\"min\": [0.6, 0.45], \"max\": [0.61, 0.46]}]"};
    int ok = -1;
    if (sim_start(&s, "dam_break_2d", "pbf", sets, 2, got, len) == 0) {
        sim_run(&s, 0.01, NULL, NULL, got, len);
        snprintf(got, (size_t)len, "%s", s.unstable ? s.reason : "the run went on");
        ok = s.unstable && strstr(s.reason, "lambda is not finite") != NULL;
    }
    sim_end(&s);
    return ok;
}

static int ex_scorr(char *got, int len)
{
    fl_error err;
    double mean_on, mean_off, on = fl_pbf_surface_clumping(0.1, 6, &mean_on, &err),
                              off = isnan(on) ? NAN : fl_pbf_surface_clumping(0.0, 6, &mean_off, &err);
    if (isnan(on) || isnan(off)) {
        snprintf(got, (size_t)len, "%s", err.msg);
        return -1;
    }
    snprintf(got, (size_t)len, "smallest distance between surface particles, 0.5-1.0 s: %.1f mm with s_corr, %.1f mm "
             "without (means over the frames %.1f mm, %.1f mm)", 1e3 * on, 1e3 * off, 1e3 * mean_on, 1e3 * mean_off);
    return on > off && mean_on > mean_off;
}

/* After one PBF step of 1/120 s of a 0.2 m block falling freely in the 2D
 * dam break's tank, s_corr off: the particles under rho0, and those of them
 * with a pressure. */
static int under_dense(int one_sided, int *under, int *pressed, char *why, int len)
{
    sim s;
    const char *sets[] = {"solvers.pbf.scorr_k=0", one_sided ? "solvers.pbf.one_sided=true" : "solvers.pbf.one_sided=false",
                          "fluid.blocks=[{\"min\": [0.5, 0.2], \"max\": [0.7, 0.4]}]"};
    int rc = sim_start(&s, "dam_break_2d", "pbf", sets, 3, why, len);
    if (rc == 0) {
        s.dt = 1.0 / 120.0;
        sim_run(&s, s.dt, NULL, NULL, why, len);
        const fl_particles *f = &s.world.fluid;
        *under = *pressed = 0;
        for (int i = 0; i < f->count; i++)
            if (f->rho[i] < s.world.rho0)
                (*under)++, *pressed += f->p[i] != 0.0f;
        rc = s.unstable ? -1 : 0;
    }
    sim_end(&s);
    return rc;
}

static int ex_one_sided(char *got, int len)
{
    int u1, p1, u2, p2;
    if (under_dense(1, &u1, &p1, got, len) || under_dense(0, &u2, &p2, got, len))
        return -1;
    snprintf(got, (size_t)len, "particles under rho0 with a pressure: one-sided %d of %d, two-sided %d of %d", p1, u1,
             p2, u2);
    return u1 > 0 && p1 == 0 && u2 > 0 && p2 > 0;
}

/* ---- the lessons --------------------------------------------------------------- */

static const lesson lessons[] = {
    {"docs/course/01_viewpoints.md",
     "Fluids and the two viewpoints: Euler and Lagrange",
     {{"run", "dam_break_2d", "--solver", "wcsph", "--frames", "6", "--save", "png", "--color", "speed", "--plot",
       "none", "--out", "{out}/wcsph"},
      {"run", "dam_break_2d", "--solver", "flip", "--frames", "6", "--dt", "0.001", "--save", "png", "--color",
       "speed", "--plot", "none", "--out", "{out}/flip"}},
     NULL,
     {"wcsph/frames/0006.png", "flip/frames/0006.png"},
     "the same dam break at t = 0.2 s: WCSPH's particles are the fluid (Lagrange); FLIP's particles ride "
     "through a fixed grid that holds the velocity (Euler)",
     {{"WCSPH's and FLIP's fronts both lie within 10 % of Martin & Moyce's at T = 2", ex_fronts}}},
    {"docs/course/02_vector_calculus.md",
     "Vector calculus: nabla, gradient, divergence, curl, Laplacian, material derivative",
     {{"kernels", "--dims", "2", "--out", "{out}/2d"}, {"kernels", "--dims", "3", "--out", "{out}/3d"}},
     NULL,
     {"2d/kernels.png", "3d/kernels.png"},
     "the kernels, their slopes and Laplacians side by side, in 2D and 3D; the exercises' lattice sums are "
     "SPH's gradient and Laplacian on the particles' own lattice",
     {{"the SPH gradient of p = c y reads kappa c, kappa = 0.874 on the square lattice and 0.947 on the cubic",
       ex_gradient},
      {"the viscosity kernel's Laplacian of x^2 reads 1.703 on the square lattice and 1.957 on the cubic "
       "(exact: 2)",
       ex_laplacian}}},
    {"docs/course/03_navier_stokes.md",
     "The Navier-Stokes equations: momentum, viscosity, mass",
     {{"run", "hydrostatic_2d", "--solver", "wcsph", "--dt", "0.0005", "--save", "png", "--color", "pressure",
       "--plot", "none", "--out", "{out}/tank"}},
     NULL,
     {"tank/frames/0100.png"},
     "the 2D tank at rest after 3.3 s coloured by pressure, rising with depth; its stats.csv: the compression and "
     "the fastest particle settling",
     {{"the 2D tank's pressure rises at rho0 g / kappa within 5 % and its mean compression stays under 1 %",
       ex_hydrostatic}}},
    {"docs/course/04_mac_grid.md",
     "Solving by splitting on a 2D MAC grid: advection, body forces, pressure",
     {{"run", "dam_break_2d", "--solver", "flip", "--frames", "6", "--dt", "0.001", "--save", "grid", "--plot",
       "none", "--out", "{out}/flip"}},
     NULL,
     {"flip/frames/0006_grid.png"},
     "the MAC grid of FLIP's dam break at t = 0.2 s: the pressure with the velocity, and the divergence before "
     "and after the projection on one colour scale; convergence.csv: the pressure solve's residual, iteration by "
     "iteration",
     {{"the pressure solve needs fewer iterations with MIC(0) than plain CG, and fewer still with multigrid",
       ex_preconditioners}}},
    {"docs/course/05_sph.md",
     "SPH: density, pressure, viscosity, the loop, kernels, neighbors, corrected density",
     {{"compare", "dam_break_2d", "--solvers", "sph,wcsph", "--frames", "6", "--out", "{out}/compare"},
      {"run", "dam_break_2d", "--solver", "sph", "--frames", "6", "--save", "png", "--color", "density", "--plot",
       "none", "--out", "{out}/sph"}},
     NULL,
     {"compare/compare_density.png", "sph/frames/0006.png"},
     "the compression of SPH and WCSPH over time on the same dam break, and SPH's particles coloured by their "
     "density at t = 0.2 s (the surface reads low: missing neighbors)",
     {{"with the deck's mean pressure force the 2D tank never settles: after 2 s its fastest particle is at "
       "least 10 times the symmetric form's",
       ex_mean_form},
      {"without the boundary correction the first row above the floor reads more than 5 % under rho0, with it "
       "within 1 %",
       ex_corrected_density},
      {"Shepard's correction lifts the top row's density by at least 3 points", ex_shepard}}},
    {"docs/course/06_force_based.md",
     "Force-based dynamics and its weaknesses",
     {{"sweep", "dam_break_2d", "--solver", "sph", "--per-solver", "sph.stiffness=100000", "--substeps",
       "160,1600", "--frames", "1", "--plot", "none", "--out", "{out}/sweep"}},
     NULL,
     {0},
     "sweep.md: a stiffer fluid needs a smaller step",
     {{"stiff SPH (k = 1e5) breaks at the step soft SPH (k = 1e3) takes, 1/4800 s, and holds at 1/48000 s",
       ex_stiffness}}},
    {"docs/course/07_pbd.md",
     "Position based dynamics: the loop, constraints, one and many, Jacobi and Gauss-Seidel",
     {{"run", "hydrostatic_2d", "--solver", "pbf", "--dt", "0.008333333", "--frames", "60", "--per-solver",
       "pbf.solver_iterations=20", "--plot", "none", "--out", "{out}/jacobi"}},
     make_convergence,
     {"convergence.png"},
     "convergence.png: the mean compression after each of 20 iterations of one step of the tank at t = 2 s, "
     "from the same state, under each constraint solver; jacobi/convergence.csv has every step's",
     {{"Gauss-Seidel reaches the mean compression of 10 Jacobi iterations in fewer iterations, SOR (omega 1.4) in "
       "fewer still",
       ex_gauss_seidel},
      {"with a small relaxation (cfm_epsilon 0.01) Jacobi's max compression grows over 20 iterations, averaged "
       "Jacobi's falls",
       ex_averaged}}},
    {"docs/course/08_pbf.md",
     "Position based fluids: the density constraint, epsilon, the correction, tensile instability",
     {{"run", "dam_break_2d", "--solver", "pbf", "--dt", "0.004166667", "--frames", "30", "--save", "bin", "--plot",
       "none", "--out", "{out}/scorr"},
      {"render", "{out}/scorr", "--frame", "30", "--size", "640x320", "--quiet"},
      {"run", "dam_break_2d", "--solver", "pbf", "--dt", "0.004166667", "--frames", "30", "--per-solver",
       "pbf.scorr_k=0", "--save", "bin", "--plot", "none", "--out", "{out}/no_scorr"},
      {"render", "{out}/no_scorr", "--frame", "30", "--size", "640x320", "--quiet"}},
     make_epsilon,
     {"scorr/render/0030.png", "no_scorr/render/0030.png", "epsilon.png"},
     "the dam break at 1 s with and without s_corr: without it the splash's particles pair up and clump; and "
     "epsilon.png: one step of the 2D tank against the relaxation epsilon",
     {{"with epsilon 0 a particle with no neighbors makes lambda infinite: the run stops as unstable and says "
       "why, it does not crash",
       ex_epsilon_zero},
      {"swept from 0.01 to 10: at 0.01 Jacobi overshoots (the max compression grows fourfold or more over the "
       "step's 20 iterations); at 10 it corrects so little that the mean hardly falls and the max creeps up; at "
       "0.3 and at the default 1 both fall",
       ex_epsilon_sweep},
      {"s_corr raises the smallest distance between particles at the free surface", ex_scorr},
      {"a block in free fall: with the one-sided constraint none of its under-dense particles gets a pressure; "
       "two-sided, they are pulled in",
       ex_one_sided}}},
};

#define LESSON_COUNT (int)(sizeof lessons / sizeof lessons[0])

/* ---- running a lesson -------------------------------------------------------------- */

static int make_dir(const char *path)
{
    fl_error err;
    if (fl_make_dirs(path, &err)) {
        fprintf(stderr, "fluidlab: course: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* Runs one command line of lesson n (words with {out} replaced by dir) as
 * a child of this program, its output appended to log. 0, or 2. */
static int run_command(const char *const *words, const char *dir, const char *log)
{
    char self[PATH_MAX], buf[MAX_WORDS][1200];
    char *argv[MAX_WORDS + 2];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "fluidlab: course: cannot find this program (/proc/self/exe)\n");
        return 2;
    }
    self[n] = '\0';
    int argc = 0;
    argv[argc++] = self;
    for (int k = 0; k < MAX_WORDS && words[k]; k++) {
        const char *at = strstr(words[k], "{out}");
        if (at)
            snprintf(buf[k], sizeof buf[k], "%.*s%s%s", (int)(at - words[k]), words[k], dir, at + 5);
        else
            snprintf(buf[k], sizeof buf[k], "%s", words[k]);
        argv[argc++] = buf[k];
    }
    argv[argc] = NULL;
    fprintf(stderr, "fluidlab course: fluidlab");
    for (int k = 1; k < argc; k++)
        fprintf(stderr, " %s", argv[k]);
    fprintf(stderr, "\n");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ), status = 0;
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0 || waitpid(pid, &status, 0) < 0) {
        fprintf(stderr, "fluidlab: course: could not run fluidlab %s: %s\n", argv[1], strerror(rc));
        return 2;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fluidlab: course: fluidlab %s failed (exit %d); its output is in %s\n", argv[1],
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), log);
        return 2;
    }
    return 0;
}

static int run_lesson(int n, const char *out)
{
    const lesson *L = &lessons[n - 1];
    char dir[FL_MAX_PATH + 16], log[FL_MAX_PATH + 64];
    snprintf(dir, sizeof dir, "%s/%d", out, n);
    snprintf(log, sizeof log, "%s/commands.log", dir);
    int rc = make_dir(dir);
    if (rc)
        return rc;
    remove(log);
    fprintf(stderr, "fluidlab course: lesson %d, %s (%s)\n", n, L->title, L->doc);
    for (int c = 0; c < MAX_COMMANDS && L->commands[c][0] && !rc; c++) {
        rc = run_command(L->commands[c], dir, log);
        if (fl_interrupted()) {
            fprintf(stderr, "fluidlab: course: lesson %d interrupted; what it made so far is in %s\n", n, dir);
            return 130;
        }
    }
    if (rc)
        return rc;
    char msg[512];
    if (L->make && L->make(dir, msg, sizeof msg)) {
        fprintf(stderr, "fluidlab: course: lesson %d: %s\n", n, msg);
        return 2;
    }
    for (int p = 0; p < MAX_PICTURES && L->pictures[p]; p++) {
        char path[FL_MAX_PATH + 128];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, L->pictures[p]);
        if (stat(path, &sb) != 0 || sb.st_size == 0) {
            fprintf(stderr, "fluidlab: course: lesson %d: %s was not made (see %s)\n", n, path, log);
            return 2;
        }
        printf("  picture: %s\n", path);
    }
    printf("lesson %d: look at %s (output in %s/)\n", n, L->look, dir);
    return 0;
}

/* ---- checking the exercises ----------------------------------------------------------- */

/* An exercise as a job of dispatch.h (one of the ranks under mpirun), and
 * what it reports. */
typedef struct check_job {
    int lesson, exercise;
} check_job;

typedef struct check_record {
    int held;          /* the exercise's return: 1 held, 0 not, -1 could not run */
    char got[500];
} check_record;

static fl_job_state check_one(int index, void *result, void *ctx)
{
    const check_job *j = (const check_job *)ctx + index;
    check_record *r = result;
    r->held = lessons[j->lesson - 1].exercises[j->exercise].run(r->got, sizeof r->got);
    return FL_JOB_DONE;
}

/* Every exercise of the lessons in only (all when any is 0), spread over
 * the ranks; rank 0 prints each in the lessons' order. 0, 3 when an
 * outcome did not hold, 4 when an exercise was not run (interrupted). */
static int check_lessons(const int only[], int any)
{
    check_job jobs[LESSON_COUNT * MAX_EXERCISES];
    int n = 0;
    for (int l = 1; l <= LESSON_COUNT; l++)
        for (int e = 0; e < MAX_EXERCISES && lessons[l - 1].exercises[e].run; e++)
            if (!any || only[l - 1])
                jobs[n++] = (check_job){l, e};
    check_record *rec = calloc((size_t)n, sizeof *rec);
    fl_job_state *state = calloc((size_t)n, sizeof *state);
    if (!rec || !state) {
        free(rec), free(state);
        fprintf(stderr, "fluidlab: course: out of memory\n");
        return 2;
    }
    fl_jobs j = {.n = n, .run = check_one, .ctx = jobs, .results = rec, .result_size = sizeof *rec, .state = state};
    fl_dispatch_run(&j);
    int held = 0, missing = 0;
    for (int k = 0; k < n && fl_dispatch_rank() == 0; k++) {
        const lesson *L = &lessons[jobs[k].lesson - 1];
        const int done = state[k] == FL_JOB_DONE;
        printf("%-4s lesson %d, exercise %d: %s\n       measured: %s\n", done && rec[k].held > 0 ? "ok" : "FAIL",
               jobs[k].lesson, jobs[k].exercise + 1, L->exercises[jobs[k].exercise].claim,
               !done ? "(not run: interrupted)" : rec[k].got[0] ? rec[k].got : "(nothing)");
        held += done && rec[k].held > 0, missing += !done;
    }
    if (fl_dispatch_rank() == 0 && j.ranks > 1)
        printf("course --check: %d of %d outcomes held%s, on %d ranks\n", held, n, missing ? ", some not run" : "",
               j.ranks);
    else if (fl_dispatch_rank() == 0)
        printf("course --check: %d of %d outcomes held%s\n", held, n, missing ? ", some not run" : "");
    free(rec), free(state);
    return fl_dispatch_rank() != 0 ? 0 : missing ? 4 : held < n ? 3 : 0;
}

static const char *course_usage =
    "usage: fluidlab course                 the lessons, in the deck's order\n"
    "       fluidlab course N [--out DIR]   lesson N's commands into DIR/N/ (default out/course)\n"
    "       fluidlab course --check [--only LIST]\n"
    "                                       every lesson's exercises (or those of LIST, e.g. 1,3),\n"
    "                                       each outcome against the one the lesson states\n"
    "\n"
    "The lessons are docs/course/NN_*.md. Each names the code behind each\n"
    "equation, the commands that show it (quick sizes, under a minute each on\n"
    "two cores) and exercises whose outcomes --check measures. Exit status:\n"
    "0 done, 1 bad input, 2 a command failed or its picture is missing, 3 an\n"
    "exercise's outcome did not hold, 4 an exercise was not run (interrupted),\n"
    "130 a lesson's commands interrupted (Ctrl-C).\n"
    "Under mpirun, --check spreads the exercises over the ranks (docs/mpi.md).\n";

/* "1,3" into only[]: 0, or 1 after one line on stderr. */
static int parse_only(const char *list, int only[])
{
    const char *p = list;
    while (*p) {
        char *end;
        long n = strtol(p, &end, 10);
        if (end == p || n < 1 || n > LESSON_COUNT || (*end && *end != ',')) {
            fprintf(stderr, "fluidlab: course --only: expected lesson numbers 1 to %d separated by commas, got '%s'\n",
                    LESSON_COUNT, list);
            return 1;
        }
        only[n - 1] = 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

int fl_course_main(int argc, char **argv)
{
    int check = 0, lesson_n = 0, only[LESSON_COUNT] = {0}, any_only = 0;
    const char *out = "out/course";
    fl_seen_options seen = {.count = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(course_usage, stdout);
            return 0;
        } else if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--only") || !strcmp(a, "--out")) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "fluidlab: course %s: expected a value\n", a);
                return 1;
            }
            if (fl_option_repeated(&seen, a)) {
                fprintf(stderr, "fluidlab: course %s: given twice, expected it once\n", a);
                return 1;
            }
            if (!strcmp(a, "--out"))
                out = argv[++i];
            else if (parse_only(argv[++i], only))
                return 1;
            else
                any_only = 1;
        } else if (a[0] != '-' && !lesson_n) {
            char *end;
            long n = strtol(a, &end, 10);
            if (*end || n < 1 || n > LESSON_COUNT) {
                fprintf(stderr, "fluidlab: course: expected a lesson number 1 to %d, got '%s'\n", LESSON_COUNT, a);
                return 1;
            }
            lesson_n = (int)n;
        } else {
            fprintf(stderr, "fluidlab: course: %s: unexpected argument (see fluidlab course --help)\n", a);
            return 1;
        }
    }
    if (check && lesson_n) {
        fprintf(stderr, "fluidlab: course: expected a lesson number or --check, not both (--check --only %d)\n",
                lesson_n);
        return 1;
    }
    if ((any_only && !check) || (strcmp(out, "out/course") && !lesson_n)) {
        fprintf(stderr, "fluidlab: course: %s goes with %s\n", any_only && !check ? "--only" : "--out",
                any_only && !check ? "--check" : "a lesson number");
        return 1;
    }
    if (fl_dispatch_size() > 1 && !check) {
        if (fl_dispatch_rank() == 0)
            fprintf(stderr, "fluidlab: course: under mpirun only --check (a lesson's commands run on one rank)\n");
        return 1;
    }
    if (lesson_n)
        return run_lesson(lesson_n, out);
    if (check)
        return check_lessons(only, any_only);
    printf("the course (docs/course/README.md): fluidlab course N runs lesson N\n");
    for (int n = 1; n <= LESSON_COUNT; n++)
        printf("  %d  %s\n     %s\n", n, lessons[n - 1].title, lessons[n - 1].doc);
    return 0;
}
