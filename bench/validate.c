/* validate.c: `fluidlab validate [--quick] [--only LIST]` (validate.h,
 * docs/validation.md).
 *
 * The plan: for each case asked for, every registered solver that the
 * case can measure, at three particle spacings d (each half the one
 * before), as fl_run runs of a shipped 2D scene with --set overrides
 * (fluid.spacing, time.duration, time.fps). All runs go first, as jobs of
 * dispatch.h (over the MPI ranks, costliest first; a finished run keeps
 * its run.complete, and --resume does not run it again). Rank 0 then
 * measures each run from its folder (stats.csv, and the frames the case
 * saves), writes each case's CSV, draws it with plots/validate.gp and
 * writes report.md through report.md.part, renamed only when complete;
 * an interrupted command writes no report. */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analytic.h"
#include "dispatch.h"
#include "flows.h"
#include "front.h"
#include "harness.h"
#include "io.h"
#include "measure.h"
#include "plot.h"
#include "table.h"

#define N_RES 3
#define MAX_JOBS 128
#define MAX_SETS 3

enum { CASE_HYDROSTATIC, CASE_DAM_BREAK, CASE_STILL, CASE_TAYLOR_GREEN, CASE_POISEUILLE, CASE_COUNT };

typedef struct case_info {
    const char *name;          /* --only's word, the figure's files, the runs' folder */
    const char *title;
    const char *scene;         /* a 2D scene of scenes/ */
    double fps;                /* its runs' frames per second (the frames saved; every step divides a frame) */
    double spacing[2][N_RES];  /* m: the full run's, then --quick's */
    double duration[2];        /* s: the full run's, then --quick's; 0: the dam break's, to T = 3.2 */
    const char *error;         /* the error of a run, as the figure's axis names it */
} case_info;

static const case_info cases[CASE_COUNT] = {
    {"hydrostatic", "Hydrostatic tank", "hydrostatic_2d", 20.0,
     {{0.025, 0.0125, 0.00625}, {0.05, 0.025, 0.0125}}, {4.0, 2.0}, "|dp/depth / (rho0 g) - 1|"},
    {"dam_break", "Martin & Moyce dam break", "dam_break_2d", 20.0,
     {{0.01, 0.005, 0.0025}, {0.02, 0.01, 0.005}}, {0.0, 0.0}, "front: mean |Z / Z_MM - 1| over 1 <= T <= 3"},
    {"still_tank", "Still tank at rest", "hydrostatic_2d", 2.0,
     {{0.025, 0.0125, 0.00625}, {0.05, 0.025, 0.0125}}, {10.0, 2.0}, "max speed / sqrt(g H), second half"},
    {"taylor_green", "Taylor-Green vortex", "taylor_green_2d", 20.0,
     {{0.03125, 0.015625, 0.0078125}, {0.0625, 0.03125, 0.015625}}, {1.0, 0.5},
     "|decay rate of E / (4 nu k^2) - 1|"},
    {"poiseuille", "Poiseuille flow", "poiseuille_2d", 5.0,
     {{0.0625, 0.03125, 0.015625}, {0.125, 0.0625, 0.03125}}, {6.0, 3.0},
     "L2 error of u(y) / peak, last frame"},
};

static const char *const res_names[N_RES] = {"coarse", "medium", "fine"};

/* What a run's folder measures (the fields of its case). */
typedef struct measured {
    int ok;                    /* the numbers were measured */
    char why[1400];            /* else why not */
    long long particles;
    double error;              /* the case's error: hydrostatic, dp/depth / (rho0 g) - 1 (signed); dam break,
                                * the front's mean |relative deviation|; still tank, the second half's largest
                                * speed / sqrt(g H) */
    double order;              /* against the next coarser resolution; NAN where there is none */
    double slope, rho0g, balance; /* hydrostatic: Pa/m; rho0 g; rho0 g / kappa */
    int samples;               /* hydrostatic: frames averaged */
    double front_worst, height_mean; /* dam break: the front's largest |deviation|, the column height's mean */
    int front_points, height_points;
    double speed_peak;         /* still tank: the largest speed of the whole run / sqrt(g H) */
    double volume_drift;       /* still tank: V_end / V_0 - 1, V = sum m / rho of the shared estimator */
    fl_tg_fit tg;              /* Taylor-Green: the energy's decay (error: tg.error) */
    double nu;                 /* Taylor-Green, Poiseuille: the scene's fluid.nu, m^2/s */
    double steady;             /* Poiseuille: the last frame's L2 error against the steady parabola / its peak */
    double transient_worst;    /* the largest L2 error against the flow from rest over the frames / the peak */
    double peak_ratio;         /* the last frame's largest bin velocity / the parabola's peak */
} measured;

typedef struct vjob {
    int kase, res;
    const char *solver;
    double d;                  /* particle spacing, m */
    double t_end;              /* its duration, s */
    double dt;                 /* s; 0 with dt_cfl */
    int dt_cfl;
    char sets[MAX_SETS][64];
    int nsets;
    char dir[1024];
    fl_run_config config;      /* its run: the step, sets and dir above */
    measured m;
} vjob;

typedef struct validate {
    int quick;
    fl_jobs_options opt;       /* --out, --threads, --resume, --quiet */
    int only[CASE_COUNT];
    double start_ms;
    vjob jobs[MAX_JOBS];
    fl_run_outcome *outs;      /* each job's outcome, */
    fl_job_state *state;       /* and its state after the dispatch */
    int n;
    int plots_skipped;
    FILE *report;
} validate;

static const char *validate_usage =
    "usage: fluidlab validate [--quick] [--only LIST] [--out DIR] [--threads N] [--resume] [--quiet]\n"
    "\n"
    "Runs each validation case for every solver that supports it at three\n"
    "resolutions (particle spacings d, each half the one before) and writes\n"
    "DIR/report.md: per case a table per solver and resolution, the measured\n"
    "order of convergence p = log(e1 / e2) / log(d1 / d2) between successive\n"
    "resolutions (with its sign: > 0 when the error falls with d), and one\n"
    "figure, DIR/<case>.png and .svg (gnuplot) with the CSV behind it. The runs\n"
    "are in DIR/runs/<case>/<solver>_<resolution>/. docs/validation.md says\n"
    "what each number means.\n"
    "\n"
    "cases (2D scenes, every number measured by the runs):\n"
    "  hydrostatic   scenes/hydrostatic_2d.json at rest: the pressure's slope\n"
    "                with depth against rho0 g (sph, wcsph, pcisph, pbf; flip and\n"
    "                pic keep their pressure on the MAC grid: skipped), 4 s\n"
    "  dam_break     scenes/dam_break_2d.json to T = 3.2: the surge front against\n"
    "                Martin & Moyce (1952), mean relative deviation over\n"
    "                1 <= T <= 3, and the residual column height\n"
    "  still_tank    the tank at rest for 10 s: the largest particle speed as a\n"
    "                fraction of sqrt(g H), and the drift of the fluid's volume\n"
    "  taylor_green  scenes/taylor_green_2d.json, the periodic vortex at Re = 100\n"
    "                for 1 s: the kinetic energy's decay rate against 4 nu k^2,\n"
    "                and the effective viscosity (the fluid's and the method's)\n"
    "  poiseuille    scenes/poiseuille_2d.json, the periodic channel from rest for\n"
    "                6 s: the velocity profile against the flow from rest (the\n"
    "                series) and the steady parabola, L2 relative to the peak\n"
    "\n"
    "options:\n"
    "  --quick        coarser spacings (twice the full run's) and shorter runs:\n"
    "                 the tanks 2 s, the vortex 0.5 s, the channel 3 s (about 80\n"
    "                 s on two cores)\n"
    "  --only LIST    the cases to run, comma-separated (default all)\n"
    "  --out DIR      output folder (default out/validate)\n"
    "  --threads N    OpenMP threads per run (default: OpenMP's)\n"
    "  --resume       into the DIR of an earlier validate: only the runs without\n"
    "                 a finished run of the same request (run.complete) are run\n"
    "  --quiet        no progress lines\n"
    "\n"
    "MPI: mpirun -np N fluidlab validate spreads the runs over N ranks\n"
    "(docs/mpi.md). Exit codes: 0 done, 1 bad input, 2 an output could not be\n"
    "written, 4 some runs failed or are missing (recorded; --resume runs them),\n"
    "130 / 143 interrupted (no report.md; the finished runs stay for --resume).\n";

#define fail_line(...) fl_command_fail("validate", __VA_ARGS__)

/* ---- the plan ------------------------------------------------------------ */

/* 1 when the solver's particles carry its pressure (FLIP and PIC keep it
 * on their MAC grid, which a run writes only as pictures, --save grid). */
static int particle_pressure(const char *solver)
{
    return strcmp(solver, "flip") != 0 && strcmp(solver, "pic") != 0;
}

/* SPH and WCSPH at their CFL limit (which holds Morris's viscous limit);
 * PCISPH and PBF in proportion to d, PCISPH at the step of the figures'
 * dam break (1/2400 s at d = 1 cm; at a quarter of it its fine tank's
 * pressure slope fell to 40 % of rho0 g), PBF at its tank test's (1/120 s
 * at d = 5 cm), both at most Morris's viscous limit 0.125 h_s^2 / nu
 * (h_s = d; docs/methods/viscosity.md, 2.2) in a viscous fluid; FLIP, PIC
 * (and a solver registered later) at one 60 Hz frame, their own CFL and
 * viscosity substeps inside. A step that does not divide a frame saves a
 * frame every whole number of steps, each with its time. */
double fl_validate_step(const char *solver, double d, double nu)
{
    const int pcisph = strcmp(solver, "pcisph") == 0, pbf = strcmp(solver, "pbf") == 0;
    if (strcmp(solver, "sph") == 0 || strcmp(solver, "wcsph") == 0)
        return 0.0;
    if (!pcisph && !pbf)
        return 1.0 / 60.0;
    const double dt = pcisph ? d / 24.0 : d / 6.0;
    return nu > 0.0 ? fmin(dt, 0.125 * d * d / nu) : dt;
}

/* The dam break's column width a (m) and gravity g (m/s^2) in scene s. */
static void dam_column(const fl_scene *s, double *a, double *g)
{
    *a = s->blocks[0].hi[0] - s->blocks[0].lo[0];
    *g = fabs(s->gravity[1]);
}

static int plan(validate *V)
{
    for (int k = 0; k < CASE_COUNT; k++) {
        if (!V->only[k])
            continue;
        const case_info *ci = &cases[k];
        double duration = ci->duration[V->quick];
        char path[1024];
        fl_scene sc;
        fl_error err;
        fl_resolve_scene(ci->scene, path, sizeof path);
        if (fl_scene_load(path, NULL, 0, &sc, &err))
            return fail_line("%s", err.msg);
        const double nu = sc.nu;
        if (duration == 0.0) { /* the dam break: to T = 3.2, past the last point compared */
            double a, g;
            dam_column(&sc, &a, &g);
            duration = 3.2 * sqrt(a / (2.0 * g));
        }
        fl_scene_free(&sc);
        for (int s = 0; fl_solvers[s]; s++) {
            const char *name = fl_solvers[s]->name;
            if (k == CASE_HYDROSTATIC && !particle_pressure(name))
                continue;
            for (int r = 0; r < N_RES; r++) {
                if (V->n == MAX_JOBS)
                    return fail_line("more than %d runs planned", MAX_JOBS);
                vjob *j = &V->jobs[V->n++];
                memset(j, 0, sizeof *j);
                j->kase = k, j->res = r, j->solver = name;
                j->d = ci->spacing[V->quick][r];
                j->t_end = duration;
                j->dt = fl_validate_step(name, j->d, nu);
                j->dt_cfl = j->dt == 0.0;
                snprintf(j->sets[j->nsets++], sizeof j->sets[0], "fluid.spacing=%.9g", j->d);
                snprintf(j->sets[j->nsets++], sizeof j->sets[0], "time.duration=%.9g", j->t_end);
                snprintf(j->sets[j->nsets++], sizeof j->sets[0], "time.fps=%.9g", ci->fps);
                snprintf(j->dir, sizeof j->dir, "%s/runs/%s/%s_%s", V->opt.out, ci->name, name, res_names[r]);
                fl_run_config *c = &j->config;
                fl_job_run_config(c, &V->opt, ci->scene, name, j->dt, j->dt_cfl, j->dir);
                /* the particles' pressure; their velocities */
                c->save_vtu = k == CASE_HYDROSTATIC || k == CASE_TAYLOR_GREEN || k == CASE_POISEUILLE;
                c->save_bin = k == CASE_STILL;       /* the positions, for the volume */
                for (int q = 0; q < j->nsets; q++)
                    c->sets[c->set_count++] = j->sets[q];
            }
        }
    }
    return 0;
}

/* ---- running ------------------------------------------------------------- */

/* Job i (dispatch.h), on whichever rank. */
static fl_job_state run_job(int i, void *record, void *ctx)
{
    const validate *V = ctx;
    const vjob *j = &V->jobs[i];
    char what[128];
    snprintf(what, sizeof what, "%s: %s, d = %g m", cases[j->kase].name, j->solver, j->d);
    fl_job_progress("validate", &V->opt, "run", i, V->n, V->start_ms, what);
    return fl_run_job_noted("validate", &V->opt, j->dir, &j->config, record);
}

static double job_cost(int i, void *ctx)
{
    return fl_run_cost(&((const validate *)ctx)->jobs[i].config);
}

/* ---- measuring ----------------------------------------------------------- */

static int job_scene(const vjob *j, fl_scene *s, fl_world *w, fl_error *err)
{
    const char *sets[MAX_SETS];
    for (int q = 0; q < j->nsets; q++)
        sets[q] = j->sets[q];
    return fl_open_scene(cases[j->kase].scene, sets, j->nsets, s, w, err);
}

/* Frame f of job j (--save vtu) into w's fluid, its time in *t: 0, or -1
 * with m->why set. */
static int read_frame(const vjob *j, int f, fl_world *w, double *t, measured *m)
{
    char path[1200];
    fl_error err;
    snprintf(path, sizeof path, "%s/frames/%04d.vtu", j->dir, f);
    if (fl_frame_read_vtu(path, &w->fluid, t, &err)) {
        snprintf(m->why, sizeof m->why, "%s", err.msg);
        return -1;
    }
    return 0;
}

/* The hydrostatic tank: dp/depth (fl_pressure_slope, the particles more
 * than 2h below the surface and above the floor's 2h) averaged over the
 * frames of the last 0.5 s. */
static void measure_hydrostatic(const vjob *j, const fl_run_result *res, measured *m, fl_world *w, const fl_scene *s)
{
    m->rho0g = w->rho0 * fabs(s->gravity[1]);
    m->balance = m->rho0g / fl_lattice_gradient_factor(w->spacing, w->h, w->mass, w->rho0, w->dims);
    const double from = res->sim_time - 0.5 - 1e-9;
    double sum = 0.0, t = INFINITY;
    for (int f = res->frames_saved - 1; f >= 0 && t >= from; f--) {
        if (read_frame(j, f, w, &t, m))
            return;
        if (t >= from)
            sum += fl_pressure_slope(w), m->samples++;
    }
    if (m->samples > 0) {
        m->slope = sum / m->samples;
        m->error = m->slope / m->rho0g - 1.0;
        m->ok = isfinite(m->slope);
    }
    if (!m->ok)
        snprintf(m->why, sizeof m->why, "no finite pressure slope in the frames of the last 0.5 s");
}

static double mean_abs_err(const fl_front_point *p, int n)
{
    double sum = 0.0;
    for (int q = 0; q < n; q++)
        sum += fabs(p[q].err);
    return n > 0 ? sum / n : NAN;
}

/* The dam break: the front (stats.csv's front_x) against Martin & Moyce
 * over 1 <= T <= 3, and the column's top (max_y: the highest particle,
 * the column at the wall until the surge reaches the far wall, after the
 * run's end) against their residual height over the same times. */
static void measure_dam(const vjob *j, measured *m, const fl_scene *s)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", j->dir);
    fl_table t;
    if (fl_table_load(path, &t) || t.rows == 0) {
        snprintf(m->why, sizeof m->why, "%s: cannot read it, or it has no rows", path);
        fl_table_free(&t);
        return;
    }
    const int ct = fl_table_col(&t, "time"), cx = fl_table_col(&t, "front_x"), cy = fl_table_col(&t, "max_y");
    double *tt = malloc(sizeof(double) * (size_t)t.rows), *xx = malloc(sizeof(double) * (size_t)t.rows),
           *yy = malloc(sizeof(double) * (size_t)t.rows);
    if (ct < 0 || cx < 0 || cy < 0 || !tt || !xx || !yy) {
        snprintf(m->why, sizeof m->why, "%s: no time, front_x or max_y column, or no memory for them", path);
    } else {
        double a, g;
        dam_column(s, &a, &g);
        const double x0 = s->domain.lo[0];
        for (int r = 0; r < t.rows; r++)
            tt[r] = fl_table_at(&t, r, ct), xx[r] = x0 + fl_table_at(&t, r, cx), yy[r] = fl_table_at(&t, r, cy);
        fl_front_point pts[32];
        m->front_points = fl_front_compare(tt, xx, t.rows, a, x0, g, 1.0, 3.0, pts, 32, &m->front_worst);
        m->error = mean_abs_err(pts, m->front_points);
        double worst; /* tau = T / sqrt(2): the same times */
        m->height_points = fl_height_compare(tt, yy, t.rows, a, s->domain.lo[1], g, 1.0 / sqrt(2.0), 3.0 / sqrt(2.0),
                                             pts, 32, &worst);
        m->height_mean = mean_abs_err(pts, m->height_points);
        m->ok = m->front_points > 0;
        if (!m->ok)
            snprintf(m->why, sizeof m->why, "no Martin & Moyce point inside the run's times");
    }
    free(tt), free(xx), free(yy);
    fl_table_free(&t);
}

/* The fluid's volume (2D: area) in frame f of job j, sum m / rho_i of the
 * shared estimator; NAN with m->why set when it cannot be read. */
static double frame_volume(const vjob *j, int f, fl_world *w, fl_nbgrid *g, measured *m)
{
    char path[1200];
    fl_error err;
    snprintf(path, sizeof path, "%s/frames/%04d.bin", j->dir, f);
    fl_step_stats *st = calloc(1, sizeof *st);
    float *rho = NULL;
    double volume = NAN;
    int rc = st ? fl_frame_read_bin(path, &w->fluid, NULL, &err) : fl_fail(&err, FL_ERR_MEMORY, "out of memory");
    if (rc == FL_OK && !(rho = malloc(sizeof(float) * (size_t)(w->fluid.count > 0 ? w->fluid.count : 1))))
        rc = fl_fail(&err, FL_ERR_MEMORY, "out of memory");
    if (rc == FL_OK)
        rc = fl_measure_density(w, g, rho, st, &err);
    if (rc) {
        snprintf(m->why, sizeof m->why, "frame %d: %s", f, err.msg);
    } else {
        volume = 0.0;
        for (int i = 0; i < w->fluid.count; i++)
            volume += w->mass / rho[i];
    }
    free(rho);
    free(st);
    return volume;
}

/* The still tank: the largest speed (stats.csv's max_speed) over the
 * whole run and over its second half, as fractions of sqrt(g H) (H the
 * fluid's depth), and the volume of the last frame against the first. */
static void measure_still(const vjob *j, const fl_run_result *res, measured *m, fl_world *w, const fl_scene *s)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/stats.csv", j->dir);
    fl_table t;
    const int loaded = fl_table_load(path, &t) == 0;
    const int ct = loaded ? fl_table_col(&t, "time") : -1, cv = loaded ? fl_table_col(&t, "max_speed") : -1;
    if (ct < 0 || cv < 0 || t.rows == 0) {
        snprintf(m->why, sizeof m->why, "%s: cannot read it, or no time and max_speed rows", path);
        fl_table_free(&t);
        return;
    }
    const double scale = sqrt(fabs(s->gravity[1]) * (s->blocks[0].hi[1] - s->blocks[0].lo[1]));
    double peak = 0.0, late = 0.0;
    for (int r = 0; r < t.rows; r++) {
        const double v = fl_table_at(&t, r, cv);
        peak = fmax(peak, v);
        if (fl_table_at(&t, r, ct) > 0.5 * res->sim_time)
            late = fmax(late, v);
    }
    fl_table_free(&t);
    m->speed_peak = peak / scale;
    m->error = late / scale;
    fl_nbgrid g;
    fl_error err;
    if (fl_nbgrid_init(&g, w, &err)) {
        snprintf(m->why, sizeof m->why, "%s", err.msg);
        return;
    }
    const double v0 = frame_volume(j, 0, w, &g, m);
    const double v1 = isfinite(v0) ? frame_volume(j, res->frames_saved - 1, w, &g, m) : NAN;
    fl_nbgrid_free(&g);
    m->volume_drift = v1 / v0 - 1.0;
    m->ok = isfinite(m->volume_drift);
}

/* The Taylor-Green vortex: the kinetic energy of every frame, its decay
 * rate fitted against 4 nu k^2 (fl_taylor_green_fit). */
static void measure_taylor_green(const vjob *j, const fl_run_result *res, measured *m, fl_world *w,
                                 const fl_scene *s)
{
    const int n = res->frames_saved;
    double *t = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), *E = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    int q = 0;
    if (!t || !E)
        snprintf(m->why, sizeof m->why, "out of memory for %d frames", n);
    for (; t && E && q < n; q++) {
        if (read_frame(j, q, w, &t[q], m))
            break;
        E[q] = fl_flow_kinetic_energy(&w->fluid, w->mass);
    }
    m->nu = s->nu;
    if (q == n && fl_taylor_green_fit(t, E, n, s->nu, s->domain.hi[0] - s->domain.lo[0], &m->tg) == 0) {
        m->error = m->tg.error;
        m->ok = isfinite(m->error);
    }
    if (!m->ok && !m->why[0])
        snprintf(m->why, sizeof m->why, "no decay rate: fewer than two frames, or an energy not positive");
    free(t), free(E);
}

/* Poiseuille flow: the x velocity binned across the channel (a bin a
 * particle row) in every frame against the flow from rest at the frame's
 * time; the last frame against the series and the steady parabola. */
static void measure_poiseuille(const vjob *j, const fl_run_result *res, measured *m, fl_world *w, const fl_scene *s)
{
    const double g = s->gravity[0], H = s->domain.hi[1] - s->domain.lo[1];
    const int bins = (int)lround(H / j->d);
    fl_profile p;
    double t = 0.0;
    m->nu = s->nu;
    if (res->frames_saved < 1) {
        snprintf(m->why, sizeof m->why, "no frame saved: no profile to measure");
        return;
    }
    for (int f = 0; f < res->frames_saved; f++) {
        if (read_frame(j, f, w, &t, m))
            return;
        fl_flow_profile(&w->fluid, s->domain.lo[1], H, bins, &p);
        m->error = fl_poiseuille_error(&p, g, s->nu, H, t);
        m->transient_worst = fmax(m->transient_worst, m->error);
    }
    m->steady = fl_poiseuille_error(&p, g, s->nu, H, -1.0);
    double top = 0.0;
    for (int b = 0; b < p.bins; b++)
        top = fmax(top, p.u[b]);
    m->peak_ratio = top / fl_poiseuille_steady(g, s->nu, H, 0.5 * H);
    m->ok = isfinite(m->error) && isfinite(m->steady);
    if (!m->ok)
        snprintf(m->why, sizeof m->why, "no profile measured: no particle inside the channel");
}

/* Measures job i from its run folder, or says why it cannot be. */
static void measure(validate *V, int i)
{
    vjob *j = &V->jobs[i];
    const fl_run_outcome *o = &V->outs[i];
    measured *m = &j->m;
    memset(m, 0, sizeof *m);
    m->order = NAN;
    fl_scene s;
    fl_world w;
    fl_error err;
    if (job_scene(j, &s, &w, &err)) {
        snprintf(m->why, sizeof m->why, "%s", err.msg);
        return;
    }
    m->particles = s.fluid_count;
    if (V->state[i] == FL_JOB_MISSING)
        snprintf(m->why, sizeof m->why, "missing: its rank stopped before it finished");
    else if (!o->ran)
        snprintf(m->why, sizeof m->why, "did not run: %s", o->error);
    else if (o->result.status != FL_RUN_STABLE)
        snprintf(m->why, sizeof m->why, "%s: %s", fl_run_status_name(o->result.status), o->result.reason);
    else if (j->kase == CASE_HYDROSTATIC)
        measure_hydrostatic(j, &o->result, m, &w, &s);
    else if (j->kase == CASE_DAM_BREAK)
        measure_dam(j, m, &s);
    else if (j->kase == CASE_STILL)
        measure_still(j, &o->result, m, &w, &s);
    else if (j->kase == CASE_TAYLOR_GREEN)
        measure_taylor_green(j, &o->result, m, &w, &s);
    else
        measure_poiseuille(j, &o->result, m, &w, &s);
    fl_world_free(&w);
    fl_scene_free(&s);
}

/* The order of convergence of each job against the job before it, the
 * same case and solver one resolution coarser: log(e1 / e2) / log(d1 / d2)
 * on |error|. */
static void orders(validate *V)
{
    for (int i = 1; i < V->n; i++) {
        const measured *a = &V->jobs[i - 1].m;
        measured *b = &V->jobs[i].m;
        const double e1 = fabs(a->error), e2 = fabs(b->error);
        if (V->jobs[i].res > 0 && a->ok && b->ok && e1 > 0.0 && e2 > 0.0)
            b->order = log(e1 / e2) / log(V->jobs[i - 1].d / V->jobs[i].d);
    }
}

/* ---- writing ------------------------------------------------------------- */

/* Draws DIR/<case>.png and .svg from DIR/<case>.csv with plots/validate.gp:
 * 0, or 2 (one line on stderr) when either is not drawn or not written
 * whole, which the report would name. */
static int draw(validate *V, int k)
{
    if (V->plots_skipped)
        return 0;
    char dir[1100], name[64], title[128], ylabel[128], log[1200], msg[512];
    snprintf(dir, sizeof dir, "dir=%s", V->opt.out);
    snprintf(name, sizeof name, "name=%s", cases[k].name);
    snprintf(title, sizeof title, "title=%s: error against particle spacing", cases[k].title);
    snprintf(ylabel, sizeof ylabel, "ylabel=%s", cases[k].error);
    snprintf(log, sizeof log, "%s/gnuplot.log", V->opt.out);
    static const char *const fmts[2] = {"fmt=png", "fmt=svg"};
    for (int f = 0; f < 2; f++) {
        const char *vars[] = {dir, fmts[f], name, title, ylabel, NULL};
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.%s", V->opt.out, cases[k].name, fmts[f] + 4);
        if (fl_plot_run(FL_SOURCE_DIR "/plots/validate.gp", vars, log, msg, sizeof msg) ||
            !fl_plot_written(path, msg, sizeof msg)) {
            fprintf(stderr, "fluidlab: validate: the %s figure not drawn: %s\n", cases[k].name, msg);
            return 2;
        }
    }
    return 0;
}

/* "dt = 0.0005 s", "CFL-adaptive" */
static const char *step_text(const vjob *j, char *out, int len)
{
    if (j->dt_cfl)
        snprintf(out, (size_t)len, "CFL-adaptive");
    else
        snprintf(out, (size_t)len, "dt = %.4g s", j->dt);
    return out;
}

/* "0.82", or "-" for a missing order. */
static const char *order_text(double order, char *out, int len)
{
    if (isfinite(order))
        snprintf(out, (size_t)len, "%+.2f", order);
    else
        snprintf(out, (size_t)len, "-");
    return out;
}

/* The case's columns of the report's table (after solver, resolution, d,
 * particles, step and result; before the order). */
static const char *const case_heads[CASE_COUNT] = {
    "dp/depth, Pa/m | against rho0 g | against rho0 g / kappa",
    "front: mean deviation (points) | front: worst point | column height: mean deviation (points)",
    "max speed / sqrt(g H), second half | over the whole run | volume drift",
    "decay rate of E, 1/s | against 4 nu k^2 | nu_eff, m^2/s | nu_eff / nu | worst E / E_exact - 1",
    "L2 against the flow from rest, last frame | against the steady parabola | worst over the frames | peak u / "
    "g H^2 / (8 nu)",
};

/* The CSV's columns after spacing and the solver's |error|, before the order. */
static const char *const case_csv[CASE_COUNT] = {
    "error_vs_rho0g,error_vs_balance,slope_Pa_per_m",
    "front_worst,height_mean_deviation",
    "speed_whole_run,volume_drift",
    "rate_error,rate_per_s,nu_eff_m2_per_s,nu_eff_over_nu,energy_worst",
    "steady_error,transient_worst,peak_ratio",
};

static void case_cells(const vjob *j, FILE *r, FILE *csv)
{
    const measured *m = &j->m;
    if (j->kase == CASE_HYDROSTATIC) {
        fprintf(r, "%.1f | %+.2f %% | %+.2f %%", m->slope, 100.0 * m->error, 100.0 * (m->slope / m->balance - 1.0));
        fprintf(csv, ",%.6g,%.6g,%.6g", m->error, m->slope / m->balance - 1.0, m->slope);
    } else if (j->kase == CASE_DAM_BREAK) {
        fprintf(r, "%.1f %% (%d) | %.1f %% | %.1f %% (%d)", 100.0 * m->error, m->front_points, 100.0 * m->front_worst,
                100.0 * m->height_mean, m->height_points);
        fprintf(csv, ",%.6g,%.6g", m->front_worst, m->height_mean);
    } else if (j->kase == CASE_STILL) {
        fprintf(r, "%.3g | %.3g | %+.3g %%", m->error, m->speed_peak, 100.0 * m->volume_drift);
        fprintf(csv, ",%.6g,%.6g", m->speed_peak, m->volume_drift);
    } else if (j->kase == CASE_TAYLOR_GREEN) {
        fprintf(r, "%.4g | %+.1f %% | %.4g | %.3f | %.1f %%", m->tg.rate, 100.0 * m->tg.error, m->tg.nu_eff,
                m->tg.nu_eff / m->nu, 100.0 * m->tg.worst);
        fprintf(csv, ",%.6g,%.6g,%.6g,%.6g,%.6g", m->tg.error, m->tg.rate, m->tg.nu_eff, m->tg.nu_eff / m->nu,
                m->tg.worst);
    } else {
        fprintf(r, "%.2f %% | %.2f %% | %.2f %% | %.3f", 100.0 * m->error, 100.0 * m->steady,
                100.0 * m->transient_worst, m->peak_ratio);
        fprintf(csv, ",%.6g,%.6g,%.6g", m->steady, m->transient_worst, m->peak_ratio);
    }
}

/* The case's words before its table: what ran and what is measured, with
 * the sizes of its scene (as its coarsest run loaded it). */
static void case_intro(const validate *V, int k, FILE *r)
{
    const vjob *j = NULL;
    for (int i = 0; i < V->n && !j; i++)
        j = V->jobs[i].kase == k ? &V->jobs[i] : NULL;
    fl_scene s;
    fl_world w;
    fl_error err;
    if (!j || job_scene(j, &s, &w, &err)) {
        fprintf(r, "(The scene could not be loaded again to describe it: %s.)\n\n", j ? err.msg : "no run");
        return;
    }
    const fl_box *b = &s.blocks[0];
    const double wide = b->hi[0] - b->lo[0], deep = b->hi[1] - b->lo[1], g = fabs(s.gravity[1]);
    const double kappa = fl_lattice_gradient_factor(w.spacing, w.h, w.mass, w.rho0, w.dims);
    char full[64] = "";
    if (V->quick)
        snprintf(full, sizeof full, " (`--quick`; the full run's: %g s)", cases[k].duration[0]);
    if (k == CASE_HYDROSTATIC)
        fprintf(r, "`scenes/%s.json` (water %g m deep, %g m wide) at rest for %g s%s. The error is the slope of the "
                   "particles' pressure against their depth (least squares over the particles more than 2h below "
                   "the surface and 2h above the floor, `fl_pressure_slope`, averaged over the frames of the last "
                   "0.5 s) against rho0 g = %.0f Pa/m. The discrete SPH gradient on this lattice reads a linear "
                   "pressure at kappa = %.3f of its slope (`fl_lattice_gradient_factor`, the same at every "
                   "spacing), so a tank in balance has dp/depth = rho0 g / kappa = %.0f Pa/m: the column against "
                   "it shows how far each solver is from its own balance, the error how far the balance is from "
                   "the physics.\n\n",
                cases[k].scene, deep, wide, j->t_end, full, w.rho0 * g, kappa, w.rho0 * g / kappa);
    else if (k == CASE_DAM_BREAK)
        fprintf(r, "`scenes/%s.json` (a column a = %g m wide and %g m tall) for %.3f s, to T = %.1f. The error is "
                   "the mean over Martin & Moyce's points in 1 <= T <= 3 of |Z / Z_MM - 1|, Z = x / a the front "
                   "(the farthest particle) at T = t sqrt(2 g / a) (`fl_front_compare`); the column height is the "
                   "highest particle, H = y / (2a) against tau = t sqrt(g / a) over the same times "
                   "(`fl_height_compare`; `reference/martin_moyce_1952_n2.csv`).\n\n",
                cases[k].scene, wide, deep, j->t_end, j->t_end * sqrt(2.0 * g / wide));
    else if (k == CASE_TAYLOR_GREEN)
        fprintf(r, "`scenes/%s.json` (a periodic square L = %g m a side, amplitude U = %g m/s, nu = %g m^2/s: Re = "
                   "U L / nu = %.0f) for %g s%s. The error is the decay rate of the kinetic energy E = sum 1/2 m "
                   "|v|^2 in the frames (%g a second, `fl_flow_kinetic_energy`), fitted to ln E by least squares "
                   "(`fl_taylor_green_fit`, `bench/flows.c`), against the exact 4 nu k^2 = %.4g 1/s, k = 2 pi / L. "
                   "nu_eff = rate / (4 k^2) is the viscosity the solver behaves with: the fluid's and the "
                   "method's own dissipation together. The last column is the largest deviation of E from "
                   "E0 exp(-4 nu k^2 t) over the frames.\n\n",
                cases[k].scene, wide, s.initial_amplitude, s.nu, s.initial_amplitude * wide / s.nu, j->t_end, full,
                cases[k].fps, fl_taylor_green_energy_rate(s.nu, wide));
    else if (k == CASE_POISEUILLE) {
        const double gx = s.gravity[0], peak = fl_poiseuille_steady(gx, s.nu, deep, 0.5 * deep);
        fprintf(r, "`scenes/%s.json` (a channel H = %g m between no-slip walls, periodic along x, driven by g = %g "
                   "m/s^2 along x, nu = %g m^2/s: the steady parabola u_s = g y (H - y) / (2 nu) peaks at %g m/s, "
                   "Re = %.0f) from rest for %g s%s. In each frame the particles' x velocities are averaged in "
                   "bins one spacing high across the channel (`fl_flow_profile`, at each bin's mean y) and "
                   "compared with the flow from rest (the series of `fl_poiseuille_transient`, "
                   "`scenes/analytic.c`): the L2 error over the bins relative to the peak "
                   "(`fl_poiseuille_error`). The error is the last frame's; beside it the last frame against the "
                   "steady parabola (with what is left of the start: the slowest mode, exp(-pi^2 nu t / H^2), "
                   "is %.2g of the peak at the end), the worst frame, and the last frame's fastest bin against "
                   "the peak.\n\n",
                cases[k].scene, deep, gx, s.nu, peak, peak * deep / s.nu, j->t_end, full,
                1.0 - fl_poiseuille_transient(gx, s.nu, deep, 0.5 * deep, j->t_end) / peak);
    } else
        fprintf(r, "`scenes/%s.json` (water H = %g m deep) at rest for %g s%s. The error is the largest particle "
                   "speed (`max_speed` of `stats.csv`) over the second half of the run, as a fraction of sqrt(g H) "
                   "= %.2f m/s; the column beside it is the same over the whole run, the start's settling "
                   "included. The volume is sum m / rho_i with the shared density estimator "
                   "(`fl_measure_density`, FLIP and PIC measured the same way) in the first and the last frame; "
                   "its drift is V_end / V_0 - 1.\n\n",
                cases[k].scene, deep, j->t_end, full, sqrt(g * deep));
    fl_world_free(&w);
    fl_scene_free(&s);
}

static FILE *open_written_in(const validate *V, const char *name, const char *ext)
{
    char path[1200];
    fl_error err;
    snprintf(path, sizeof path, "%s/%s%s", V->opt.out, name, ext);
    FILE *f = fl_open_written(path, &err);
    if (!f)
        fail_line("%s", err.msg);
    return f;
}

/* Case k's section of the report, its CSV and its figure: 0, or 2 when a
 * write failed. */
static int write_case(validate *V, int k)
{
    const case_info *ci = &cases[k];
    FILE *csv = open_written_in(V, ci->name, ".csv"), *r = V->report;
    if (!csv)
        return 2;
    fprintf(r, "\n## %s\n\n", ci->title);
    case_intro(V, k, r);
    if (!V->plots_skipped)
        fprintf(r, "![%s](%s.png)\n\n", ci->title, ci->name);
    fprintf(r, "Figure: the error (%s) against the spacing d, log-log, one line per solver; data `%s.csv`, ",
            ci->error, ci->name);
    if (V->plots_skipped)
        fprintf(r, "pictures not drawn (gnuplot was not found).\n\n");
    else
        fprintf(r, "pictures `%s.png`, `%s.svg` (`plots/validate.gp`).\n\n", ci->name, ci->name);
    fprintf(r, "| solver | resolution | d, m | particles | step | result | %s | order |\n|", case_heads[k]);
    int columns = 8; /* the six before the case's, the case's first, the order */
    for (const char *c = case_heads[k]; *c; c++)
        columns += *c == '|';
    for (int c = 0; c < columns; c++)
        fprintf(r, " --- |");
    fprintf(r, "\n");
    const char *block = NULL;
    for (int i = 0; i < V->n; i++) {
        const vjob *j = &V->jobs[i];
        if (j->kase != k)
            continue;
        char step[64], order[32], result[800];
        const fl_run_result *res = &V->outs[i].result;
        if (j->m.ok)
            snprintf(result, sizeof result, "stable, %lld steps, %.1f s", res->steps, res->wall_s);
        else
            snprintf(result, sizeof result, "%s", j->m.why);
        for (char *p = result; *p; p++)
            *p = *p == '|' || *p == '\n' ? '/' : *p;
        fprintf(r, "| %s | %s | %g | %lld | %s | %s | ", j->solver, res_names[j->res], j->d, j->m.particles,
                step_text(j, step, sizeof step), result);
        if (j->m.ok) {
            if (!block || strcmp(block, j->solver) != 0)
                fprintf(csv, "%sspacing_m,%s,%s,order\n", block ? "\n\n" : "", j->solver, case_csv[k]);
            block = j->solver;
            fprintf(csv, "%.9g,%.6g", j->d, fabs(j->m.error));
            case_cells(j, r, csv);
            fprintf(csv, ",%.6g\n", j->m.order);
        } else {
            fprintf(r, " | |");
        }
        fprintf(r, " | %s |\n", order_text(j->m.order, order, sizeof order));
    }
    if (k == CASE_HYDROSTATIC)
        for (int s = 0; fl_solvers[s]; s++)
            if (!particle_pressure(fl_solvers[s]->name))
                fprintf(r, "\n%s: skipped. Its pressure lives on the MAC grid; its particles carry none, and a run "
                           "writes the grid's pressure only as pictures (`--save grid`).\n",
                        fl_solvers[s]->name);
    char path[1200];
    fl_error err;
    snprintf(path, sizeof path, "%s/%s.csv", V->opt.out, ci->name);
    if (fl_close_written(csv, path, &err))
        return fail_line("%s", err.msg) + 1;
    if (!block) {
        fprintf(r, "\nNo run of this case was measured: nothing to draw.\n");
        return 0;
    }
    return draw(V, k);
}

/* A word of validate's own (fl_jobs_parse). */
static int validate_option(const char *a, const char *v, void *ctx)
{
    validate *V = ctx;
    if (strcmp(a, "--quick") == 0) {
        V->quick = 1;
        return 1;
    }
    if (strcmp(a, "--only") == 0 && !v)
        return -fail_line("%s: expected a value", a);
    if (strcmp(a, "--only") != 0)
        return 0;
    memset(V->only, 0, sizeof V->only);
    char buf[256], names[256] = "";
    for (int k = 0; k < CASE_COUNT; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", cases[k].name);
    snprintf(buf, sizeof buf, "%s", v);
    int any = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < CASE_COUNT && strcmp(t, cases[k].name) != 0)
            k++;
        if (k == CASE_COUNT)
            return -fail_line("--only %s: %s is not a case; expected case names from %s, comma-separated", v, t,
                              names);
        V->only[k] = any = 1;
    }
    if (!any)
        return -fail_line("--only '%s': expected case names from %s, comma-separated", v, names);
    return 2;
}

static int parse_args(validate *V, int argc, char **argv)
{
    const int rc = fl_jobs_parse("validate", validate_usage, argc, argv, &V->opt, validate_option, V);
    if (rc)
        return rc;
    if (strchr(V->opt.out, '\''))
        return fail_line("--out %s: a folder name with a quote cannot be passed to gnuplot", V->opt.out);
    return 0;
}

/* The report's head: the command, the machine, the runs, how to read it. */
static void report_head(const validate *V, const fl_jobs *jobs, int resumed, double seconds)
{
    FILE *r = V->report;
    fprintf(r, "# fluidlab validate\n\n");
    fl_report_made_by(r, V->opt.command, V->quick ? "quick sizes" : "full sizes", jobs, V->opt.threads, resumed, seconds);
    fprintf(r, " Each run's folder (run.json, stats.csv, the frames measured) is in "
               "`runs/<case>/<solver>_<resolution>/`.%s\n\n",
            V->quick ? " `--quick`: spacings twice the full run's, and shorter runs (each case says how long)."
                     : "");
    fprintf(r, "How to read it: each case runs at three particle spacings d, each half the one before (coarse, "
               "medium, fine). Each run has one error, the case's own (below). The order of convergence between "
               "two successive resolutions is p = log(e1 / e2) / log(d1 / d2), on the errors' magnitudes, shown "
               "in the finer run's row with its sign: p > 0 when the error falls as d shrinks (p = 1: it halves "
               "with d, p = 2: it quarters), p near 0 when refinement does not change it (an error of the method "
               "or of the comparison that does not depend on d), p < 0 when it grows. Nothing is fitted or "
               "tuned: three resolutions give two orders per solver, and a run that broke a stability "
               "criterion, or could not be measured, has none. Each solver runs at its own step: SPH and "
               "WCSPH CFL-adaptive, PCISPH at dt = d / (24 m/s), PBF at d / (6 m/s) (in the viscous cases at "
               "most Morris's limit 0.125 d^2 / nu), FLIP and PIC at 1/60 s with their own CFL and viscosity "
               "substeps.\n");
}

/* Plans and runs every case, measures the runs and writes the report. */
static int validate_run(validate *V)
{
    if (plan(V))
        return 1;
    static fl_run_outcome outs[MAX_JOBS];
    static fl_job_state state[MAX_JOBS];
    V->outs = outs, V->state = state;
    static fl_run_config configs[MAX_JOBS];
    for (int i = 0; i < V->n; i++)
        configs[i] = V->jobs[i].config;
    const int resumed = fl_run_jobs_resume(V->n, configs, V->opt.resume, outs, state);
    fl_jobs jobs = {.n = V->n, .run = run_job, .ctx = V, .results = outs, .result_size = sizeof outs[0],
                    .cost = job_cost, .state = V->state};
    V->start_ms = fl_now_ms();
    fl_dispatch_run(&jobs);
    if (fl_dispatch_rank() != 0)
        return 0;
    fl_error clear_err;
    if (fl_report_clear(V->opt.out, &clear_err)) /* whatever comes next: a new report or none */
        return fail_line("%s", clear_err.msg) + 1;
    int missing;
    const int fatal = fl_run_jobs_gather(&jobs, V->outs, configs, &missing);
    if (fatal >= 0)
        return fail_line("%s", V->outs[fatal].error) + (V->outs[fatal].code == FL_ERR_IO);
    if (fl_interrupted()) {
        fprintf(stderr, "fluidlab: validate: interrupted by %s; no report was written, the finished runs are in "
                        "%s/runs/ (--resume takes them)\n",
                fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", V->opt.out);
        return 128 + fl_interrupted();
    }
    for (int i = 0; i < V->n; i++)
        measure(V, i);
    orders(V);
    if (!fl_plot_available()) {
        fprintf(stderr, "fluidlab: validate: figures skipped: gnuplot not found (install it: apt-get install "
                        "gnuplot-nox); the CSV files and report.md are written\n");
        V->plots_skipped = 1;
    }
    char report_path[1100];
    snprintf(report_path, sizeof report_path, "%s/report.md", V->opt.out);
    fl_error err;
    if (!(V->report = fl_part_open(report_path, &err)))
        return fail_line("%s", err.msg) + 1;
    report_head(V, &jobs, resumed, (fl_now_ms() - V->start_ms) * 1e-3);
    int rc = 0;
    for (int k = 0; k < CASE_COUNT && rc == 0; k++)
        if (V->only[k])
            rc = write_case(V, k);
    if (fl_part_close(V->report, report_path, rc == 0, &err) && rc == 0)
        rc = fail_line("%s", err.msg) + 1;
    if (rc)
        return rc;
    int unmeasured = 0;
    for (int i = 0; i < V->n; i++)
        unmeasured += !V->jobs[i].m.ok;
    char on[32] = "";
    if (jobs.ranks > 1)
        snprintf(on, sizeof on, " on %d ranks", jobs.ranks);
    fprintf(stderr, "fluidlab: validate: %d runs (%d not measured: unstable, failed or missing, all recorded) in "
                    "%.0f s%s; output in %s/ (report.md)\n",
            V->n, unmeasured, (fl_now_ms() - V->start_ms) * 1e-3, on, V->opt.out);
    return missing ? 4 : 0;
}

int fl_validate_main(int argc, char **argv)
{
    static validate V; /* the jobs are large */
    memset(&V, 0, sizeof V);
    V.opt.out = "out/validate";
    for (int k = 0; k < CASE_COUNT; k++)
        V.only[k] = 1;
    const int prc = parse_args(&V, argc, argv);
    if (prc)
        return prc < 0 ? 0 : 1;
    return validate_run(&V);
}
