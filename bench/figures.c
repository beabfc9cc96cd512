/* figures.c: `fluidlab figures [--quick]` (figures.h).
 *
 * Every figure is planned as a list of cases (a scene, a solver, its step
 * and overrides); all cases run first, each to the end of its scene or to
 * its failure (an unstable case is a result, drawn as such), then each
 * figure reads its cases' stats.csv and convergence.csv, writes its data as
 * CSV, draws it with its script in plots/ and adds its section to
 * report.md. Solvers come from the registry (fl_solvers), so a solver
 * registered later appears in every figure; a solver this file has no
 * setting for runs at the scene's own step. */
#define _POSIX_C_SOURCE 200809L
#include "figures.h"

#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch.h"
#include "front.h"
#include "harness.h"
#include "measure.h"
#include "plot.h"
#include "render.h"
#include "surface.h"
#include "table.h"
#ifdef FL_HAVE_CUDA
#include "cuda_device.h"
#endif

#define FIG_COUNT 9
/* the PIC/FLIP report's Table 2 beside ours (--only report_table2): not a
 * numbered figure, made after them */
#define FIG_TABLE2 (FIG_COUNT + 1)
#define MAX_CASES 256
#define MAX_CASE_SETS 8

typedef struct fig_case {
    int fig;                            /* the figure it serves (3 and 5 share theirs: fig = 5) */
    char label[64];                     /* its name in legends */
    const char *solver;
    const char *device;                 /* "cpu", or --device's for a solver with a version there */
    const char *scene;                  /* a name from scenes/ */
    double dt;                          /* s; 0: substeps or the scene's step */
    int dt_cfl;
    int substeps;
    int frames;                         /* frames to run (0: the scene's duration); report_table2 saves them */
    double cell, pic;                   /* report_table2: FLIP's cell, m, and PIC share in the run */
    int group;                          /* figure 2: 1 particle solver, 2 pressure solve; 4: substeps; 6, 8:
                                         * particles */
    char sets[MAX_CASE_SETS][96];
    int nsets;
    char dir[1024];
    int ran;                            /* fl_run finished (stable or not) */
    fl_run_result res;
    char error[600];
} fig_case;

typedef struct figures {
    int quick, smoke;
    double tscale;                      /* durations of the scenes, times this */
    fl_jobs_options opt;                /* --out, --threads, --resume (the runs with a completion marker are
                                         * not run again), --quiet */
    int plot;
    double start_ms;                    /* when the runs started (the progress line's ETA) */
    const char *device;                 /* --device cuda or emu: the particle solvers' device; NULL: the CPU */
    const char *fig6_device;            /* figure 6's second device: --device's, else cuda where a GPU is usable */
    int only[FIG_TABLE2 + 1];           /* only[f]: figure f is made (FIG_TABLE2: the report's Table 2) */
    /* resolutions (particle spacing, m) */
    double d_drop, d_conv, d_dam, d_stab;
    int n_sub, substeps[8];
    int n_counts, counts[8];            /* figure 6: particles per edge of the 1 m cube */
    double d_tool;                      /* figure 7: tool_cup's spacing; 0: the scene's */
    int n_rates, rates[8];              /* figure 8: fluid particles of each size */
    int rate_steps, rate_skip;          /* figure 8: steps a case, of which the first rate_skip are not counted */
    int n_grids, grids[6];              /* figure 9: cells per edge of each grid */
    fl_scene tool_cup;                  /* figures 7 and 8: scenes/tool_cup.json as shipped */
    fig_case cases[MAX_CASES];
    int n;
    FILE *report;
    int plots_skipped;
    int not_drawn;                      /* a figure's picture was not drawn or not written whole (draw) */
} figures;

static const char *const fig_titles[FIG_TABLE2 + 1] = {
    "",
    "Density over time (PBF paper, Fig. 4)",
    "Convergence over iterations (PBF paper, Fig. 6)",
    "Stage timings (PBF paper, Table 2)",
    "Timestep stability",
    "Dam break validation against Martin & Moyce (1952)",
    "Cost scaling",
    "Tool force over time (rigid-tool paper, Fig. 6)",
    "Tool-loop rate (rigid-tool paper, Fig. 7)",
    "Pressure-solve iterations against grid size",
    "The PIC/FLIP report's Table 2, side by side",
};

static const char *const fig_files[FIG_TABLE2 + 1] = {
    "",           "fig1_density", "fig2_convergence", "fig3_stages",     "fig4_stability",
    "fig5_front", "fig6_scaling", "fig7_tool_force",  "fig8_tool_rate",  "fig9_iterations", "report_table2",
};

static int fail_line(const char *fmt, ...)
{
    if (fl_dispatch_rank() != 0) /* under MPI every rank finds the same bad option: one says it */
        return 1;
    va_list ap;
    va_start(ap, fmt);
    fputs("fluidlab: figures: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* ---- the plan ------------------------------------------------------------ */

/* The device a solver runs on when device is asked for: device, where the
 * solver has a version there; else the CPU. */
static const char *device_on(const char *device, const char *solver)
{
    fl_error err;
    return device && fl_solver_on(solver, device, &err) ? device : "cpu";
}

/* The device a case of the solver runs on: --device's, or the CPU. */
static const char *device_for(const figures *F, const char *solver)
{
    return device_on(F->device, solver);
}

/* "pbf", or "pbf (emu)" for a run on a device. */
static const char *solver_text(const char *solver, const char *device, char *out, int len)
{
    snprintf(out, (size_t)len, strcmp(device, "cpu") ? "%s (%s)" : "%s", solver, device);
    return out;
}

static fig_case *add_case(figures *F, int fig, const char *solver, const char *scene, const char *label)
{
    fig_case *k = &F->cases[F->n++];
    memset(k, 0, sizeof *k);
    k->fig = fig;
    k->solver = solver;
    k->device = device_for(F, solver);
    k->scene = scene;
    snprintf(k->label, sizeof k->label, "%s", label);
    char name[64];
    int q = 0;
    for (const char *p = label; *p && q + 1 < (int)sizeof name; p++) /* "pbf (emu) 1000": pbf_emu_1000 */
        if (*p != '(' && *p != ')')
            name[q++] = *p == ' ' || *p == '/' || *p == '=' ? '_' : *p;
    name[q] = '\0';
    snprintf(k->dir, sizeof k->dir, "%s/runs/fig%d/%s", F->opt.out, fig, name);
    return k;
}

static void add_set(fig_case *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->sets[k->nsets++], sizeof k->sets[0], fmt, ap);
    va_end(ap);
}

/* The step at which each solver runs the dam break and the drop when a
 * figure does not set one: the explicit solvers at their CFL limit, PCISPH
 * and PBF at fixed steps that scale with the spacing (d_ratio = d / 1 cm),
 * FLIP at one 60 Hz frame (its own CFL substeps inside). */
static void stable_step(fig_case *k, double d_ratio)
{
    if (strcmp(k->solver, "sph") == 0 || strcmp(k->solver, "wcsph") == 0)
        k->dt_cfl = 1;
    else if (strcmp(k->solver, "pcisph") == 0)
        k->dt = d_ratio / 2400.0;
    else if (strcmp(k->solver, "pbf") == 0)
        k->dt = d_ratio / 240.0;
    else if (strcmp(k->solver, "flip") == 0 || strcmp(k->solver, "pic") == 0)
        k->dt = 1.0 / 60.0;
}

/* Sets every iteration key of the case's solver (fl_solver_ops.iteration_keys)
 * to n; 0 when the solver has none. */
static int set_iterations(fig_case *k, int n)
{
    const fl_solver_ops *ops = fl_solver_find(k->solver);
    if (!ops->iteration_keys)
        return 0;
    for (int q = 0; ops->iteration_keys[q] && k->nsets < MAX_CASE_SETS; q++)
        add_set(k, "solvers.%s.%s=%d", k->solver, ops->iteration_keys[q], n);
    for (int q = 0; ops->iteration_fixed && ops->iteration_fixed[q] && k->nsets < MAX_CASE_SETS; q++)
        add_set(k, "solvers.%s.%s", k->solver, ops->iteration_fixed[q]);
    return 1;
}

/* Figure 8's step for each solver, fixed over the sizes: the scene's for
 * PBF, FLIP and PIC (FLIP and PIC substep inside it), and for the others
 * a step they hold at the finest size (80 000 particles, d = 5.7 mm):
 * SPH 0.1 ms, WCSPH 0.2 ms, PCISPH 0.5 ms. The rate is per step. */
static double rate_dt(const figures *F, const char *solver)
{
    if (strcmp(solver, "sph") == 0)
        return 1e-4;
    if (strcmp(solver, "wcsph") == 0)
        return 2e-4;
    if (strcmp(solver, "pcisph") == 0)
        return 5e-4;
    return fl_scene_dt(&F->tool_cup);
}

/* Figure 7: tool_cup under PBF on the CPU at d_tool, the times of its path
 * scaled by tscale (the same phases, each faster). */
static void plan_tool_force(figures *F)
{
    const fl_scene *s = &F->tool_cup;
    fig_case *k = add_case(F, 7, "pbf", "tool_cup", "pbf");
    k->device = "cpu"; /* the force is not a device's measure; figure 8 times the devices */
    if (F->d_tool > 0.0)
        add_set(k, "fluid.spacing=%g", F->d_tool);
    if (F->tscale != 1.0) {
        for (int q = 1; q < s->tool.key_count && k->nsets + 1 < MAX_CASE_SETS; q++)
            add_set(k, "tool.path.%d.t=%.9g", q, s->tool.keys[q].t * F->tscale);
        add_set(k, "time.duration=%.9g", s->duration * F->tscale);
    }
}

/* Figure 8: every solver in the rate's workload (FL_TOOL_RATE_PATH) at
 * each size, rate_steps steps; on the CPU, then the solvers with a device
 * version on figure 6's device. */
static void plan_tool_rate(figures *F)
{
    const fl_scene *s = &F->tool_cup;
    char label[64];
    for (int on_device = 0; on_device <= (F->fig6_device != NULL); on_device++)
        for (int i = 0; fl_solvers[i]; i++) {
            const char *name = fl_solvers[i]->name;
            if (on_device && strcmp(device_on(F->fig6_device, name), "cpu") == 0)
                continue;
            for (int q = 0; q < F->n_rates; q++) {
                const int n = F->rates[q];
                if (on_device)
                    snprintf(label, sizeof label, "%s (%s) %d", name, F->fig6_device, n);
                else
                    snprintf(label, sizeof label, "%s %d", name, n);
                fig_case *k = add_case(F, 8, name, "tool_cup", label);
                k->device = on_device ? F->fig6_device : "cpu";
                k->group = n;
                k->dt = rate_dt(F, name);
                add_set(k, "%s", FL_TOOL_RATE_PATH);
                add_set(k, "fluid.spacing=%.9g", s->spacing * cbrt((double)s->fluid_count / n));
                add_set(k, "time.duration=%.9g", F->rate_steps * k->dt);
            }
        }
}

/* The report's five cases (scenes/flip_case1..5.json, FLIP, each scene's
 * own PIC share), their frames saved: the full run the report's 250 frames
 * at the scenes' sizes; --quick 10 frames with the particle spacing and the
 * cell doubled (an eighth of the particles), --smoke 2 frames at four
 * times both. */
static void plan_table2(figures *F)
{
    const double factor = F->smoke ? 4.0 : F->quick ? 2.0 : 1.0;
    static const char *const scenes[5] = {"flip_case1", "flip_case2", "flip_case3", "flip_case4", "flip_case5"};
    for (int q = 1; q <= 5; q++) {
        char label[32], path[1024];
        snprintf(label, sizeof label, "case %d", q);
        fig_case *k = add_case(F, FIG_TABLE2, "flip", scenes[q - 1], label);
        k->dt = 1.0 / 25.0; /* one frame a step; FLIP takes its own CFL substeps inside */
        k->frames = F->smoke ? 2 : F->quick ? 10 : 250;
        fl_scene sc;
        fl_error err;
        fl_resolve_scene(scenes[q - 1], path, sizeof path);
        if (fl_scene_load(path, NULL, 0, &sc, &err) != FL_OK)
            continue; /* the run fails the same way, and the report says so */
        /* FLIP's cell (its default: twice the spacing) and PIC share (default 0.05), as the run reads them */
        fl_params prm;
        fl_scene_solver_params(&sc, "flip", &prm);
        if (fl_params_get(&prm, "dx", 2.0 * sc.spacing, 1e-6, 1e3, &k->cell, &err) != FL_OK)
            k->cell = 2.0 * sc.spacing;
        if (fl_params_get(&prm, "alpha", 0.05, 0.0, 1.0, &k->pic, &err) != FL_OK)
            k->pic = 0.05;
        k->cell *= factor;
        if (factor != 1.0) {
            add_set(k, "fluid.spacing=%.9g", factor * sc.spacing);
            add_set(k, "solvers.flip.dx=%.9g", k->cell);
        }
        fl_scene_free(&sc);
    }
}

static void plan(figures *F)
{
    char label[64];
    if (F->only[1]) /* the drop: PBF 4 x 10 against PCISPH 10 x 4 per 60 Hz frame, the rest at their own step */
        for (int s = 0; fl_solvers[s]; s++) {
            const char *name = fl_solvers[s]->name;
            fig_case *k = add_case(F, 1, name, "drop", name);
            add_set(k, "fluid.spacing=%g", F->d_drop);
            add_set(k, "time.fps=60");
            add_set(k, "time.duration=%g", 1.5 * F->tscale);
            if (strcmp(name, "pbf") == 0) {
                k->substeps = 4;
                set_iterations(k, 10);
                snprintf(k->label, sizeof k->label, "pbf 4x10");
            } else if (strcmp(name, "pcisph") == 0) {
                k->substeps = 10;
                set_iterations(k, 4);
                snprintf(k->label, sizeof k->label, "pcisph 10x4");
            } else {
                stable_step(k, F->d_drop / 0.01);
            }
        }
    if (F->only[2]) { /* the dam break to t = 1 s: 30 iterations, and FLIP's three pressure solvers */
        for (int s = 0; fl_solvers[s]; s++) {
            const char *name = fl_solvers[s]->name;
            if (!fl_solvers[s]->iteration_keys)
                continue;
            fig_case *k = add_case(F, 2, name, "dam_break", name);
            k->group = 1;
            add_set(k, "fluid.spacing=%g", F->d_conv);
            add_set(k, "time.duration=%g", 1.0 * F->tscale);
            set_iterations(k, 30);
            if (strcmp(name, "pbf") == 0)
                k->dt = 1.0 / 240.0; /* the paper's 4 steps per frame */
            else if (strcmp(name, "pcisph") == 0)
                k->dt = 1.0 / 600.0; /* the paper's 10 steps per frame */
            else
                stable_step(k, F->d_conv / 0.01);
        }
        static const char *const pre[4] = {"MICCG", "Jacobi-PCG", "CG", "MGPCG"};
        for (int p = 0; p < 4 && fl_solver_find("flip"); p++) {
            fig_case *k = add_case(F, 2, "flip", "dam_break", pre[p]);
            k->group = 2;
            /* short enough that the step ending at t = 1 s is one substep, so
             * its history is one solve's (a step's solves follow each other
             * in convergence.csv) */
            k->dt = 1.0 / 600.0;
            add_set(k, "fluid.spacing=%g", F->d_conv);
            add_set(k, "time.duration=%g", 1.0 * F->tscale);
            add_set(k, "solvers.flip.preconditioner=%d", p);
            /* every solve from p = 0, so that the four histories start from the same residual */
            add_set(k, "solvers.flip.warm_start=0");
        }
    }
    if (F->only[3] || F->only[5]) /* the dam break to T = 3.9: fronts, and the stage timings */
        for (int s = 0; fl_solvers[s]; s++) {
            fig_case *k = add_case(F, 5, fl_solvers[s]->name, "dam_break", fl_solvers[s]->name);
            add_set(k, "fluid.spacing=%g", F->d_dam);
            add_set(k, "time.duration=%g", 0.4 * F->tscale);
            stable_step(k, F->d_dam / 0.01);
        }
    if (F->only[4]) /* every solver at each substep count, 3 s */
        for (int s = 0; fl_solvers[s]; s++)
            for (int q = 0; q < F->n_sub; q++) {
                snprintf(label, sizeof label, "%s %d", fl_solvers[s]->name, F->substeps[q]);
                fig_case *k = add_case(F, 4, fl_solvers[s]->name, "dam_break", label);
                k->group = F->substeps[q];
                k->substeps = F->substeps[q];
                add_set(k, "fluid.spacing=%g", F->d_stab);
                add_set(k, "time.fps=60");
                add_set(k, "time.duration=%g", 3.0 * F->tscale);
            }
    if (F->only[6]) /* the 1 m cube of scenes/dam_break_59k.json at several spacings, 8 steps of 0.5 ms: */
        for (int on_device = 0; on_device <= (F->fig6_device != NULL); on_device++) /* every solver on the CPU, */
            for (int s = 0; fl_solvers[s]; s++) {                                 /* then the device's on it */
                const char *name = fl_solvers[s]->name;
                if (on_device && strcmp(device_on(F->fig6_device, name), "cpu") == 0)
                    continue;
                for (int q = 0; q < F->n_counts; q++) {
                    int e = F->counts[q];
                    if (on_device)
                        snprintf(label, sizeof label, "%s (%s) %d", name, F->fig6_device, e * e * e);
                    else
                        snprintf(label, sizeof label, "%s %d", name, e * e * e);
                    fig_case *k = add_case(F, 6, name, "dam_break_59k", label);
                    k->device = on_device ? F->fig6_device : "cpu";
                    k->group = e * e * e;
                    add_set(k, "fluid.spacing=%.9g", 1.0 / e);
                    add_set(k, "time.duration=0.004");
                }
            }
    if (F->only[7])
        plan_tool_force(F);
    if (F->only[8])
        plan_tool_rate(F);
    if (F->only[FIG_TABLE2])
        plan_table2(F);
}

/* "dt = 1/240 s", "CFL-adaptive", "10 steps per frame" */
static void describe_step(const fig_case *k, char *out, int len)
{
    if (k->dt_cfl)
        snprintf(out, (size_t)len, "CFL-adaptive (`--dt cfl`)");
    else if (k->dt > 0.0)
        snprintf(out, (size_t)len, "dt = %.4g s (1/%.0f)", k->dt, 1.0 / k->dt);
    else if (k->substeps > 0)
        snprintf(out, (size_t)len, "%d steps per frame", k->substeps);
    else
        snprintf(out, (size_t)len, "the scene's step");
}

/* ---- running ------------------------------------------------------------- */

/* The run of case k. */
static void case_config(const figures *F, const fig_case *k, fl_run_config *c)
{
    fl_job_run_config(c, &F->opt, k->scene, k->solver, k->dt, k->dt_cfl, k->dir);
    c->device = k->device;
    c->substeps = k->substeps;
    c->frames = k->frames;
    c->save_bin = k->fig == FIG_TABLE2;
    for (int q = 0; q < k->nsets; q++)
        c->sets[c->set_count++] = k->sets[q];
}

/* Case i as a job (dispatch.h), on whichever rank. */
static fl_job_state case_job(int i, void *record, void *ctx)
{
    const figures *F = ctx;
    const fig_case *k = &F->cases[i];
    fl_run_config c;
    case_config(F, k, &c);
    char step[96], who[64], what[256];
    describe_step(k, step, sizeof step);
    snprintf(what, sizeof what, "figure %d: %s on %s, %s", k->fig == 5 && !F->only[5] ? 3 : k->fig,
             solver_text(k->solver, k->device, who, sizeof who), k->scene, step);
    fl_job_progress("figures", &F->opt, "case", i, F->n, F->start_ms, what);
    return fl_run_job_noted("figures", &F->opt, k->label, &c, record);
}

/* Case i's estimated cost, for the order of the jobs. */
static double case_cost(int i, void *ctx)
{
    const figures *F = ctx;
    fl_run_config c;
    case_config(F, &F->cases[i], &c);
    return fl_run_cost(&c);
}

/* Runs every case (with --resume, those without a finished run) over the
 * ranks; on rank 0 each case's result is then filled in, *jobs says how
 * many ranks ran them and *resumed counts the cases from an earlier
 * command. Returns 0, or 2 when a run's output could not be written. An
 * interrupt stops it after the running cases (fl_interrupted() says so). */
static int run_cases(figures *F, fl_jobs *jobs, int *resumed)
{
    static fl_run_outcome out[MAX_CASES];
    static fl_job_state state[MAX_CASES];
    static fl_run_config configs[MAX_CASES];
    for (int i = 0; i < F->n; i++)
        case_config(F, &F->cases[i], &configs[i]);
    *resumed = fl_run_jobs_resume(F->n, configs, F->opt.resume, out, state);
    *jobs = (fl_jobs){.n = F->n, .run = case_job, .ctx = F, .results = out, .result_size = sizeof out[0],
                      .cost = case_cost, .state = state};
    F->start_ms = fl_now_ms();
    fl_dispatch_run(jobs);
    if (fl_dispatch_rank() != 0)
        return 0;
    int missing;
    const int fatal = fl_run_jobs_gather(jobs, out, configs, &missing);
    if (fatal >= 0)
        return fail_line("%s", out[fatal].error) + 1;
    for (int i = 0; i < F->n; i++) {
        fig_case *k = &F->cases[i];
        k->ran = out[i].ran;
        k->res = out[i].result;
        snprintf(k->error, sizeof k->error, "%s",
                 state[i] == FL_JOB_MISSING ? "missing: its rank stopped before it finished" : out[i].error);
    }
    return 0;
}

/* ---- reading a run's CSV ------------------------------------------------- */

static int load_run(const fig_case *k, const char *file, fl_table *t)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", k->dir, file);
    return !k->ran || fl_table_load(path, t) || t->rows == 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of column c over rows [from, rows); 0 when empty. */
static double column_median(const fl_table *t, int c, int from)
{
    int n = t->rows - from;
    if (c < 0 || n <= 0)
        return 0.0;
    double *v = malloc(sizeof(double) * (size_t)n);
    if (!v)
        return 0.0;
    for (int r = 0; r < n; r++)
        v[r] = fl_table_at(t, from + r, c);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

/* ---- writing ------------------------------------------------------------- */

static FILE *open_csv(const figures *F, const char *name, char *path, int len)
{
    snprintf(path, (size_t)len, "%s/%s.csv", F->opt.out, name);
    fl_error err;
    FILE *f = fl_open_written(path, &err);
    if (!f)
        fail_line("%s", err.msg);
    return f;
}

/* Closes the figure's CSV file DIR/<name>.csv: 0, or 2 with one line when
 * a write did not reach the file (a full disk). */
static int close_csv(const figures *F, FILE *f, const char *name)
{
    char path[1200];
    fl_error err;
    snprintf(path, sizeof path, "%s/%s.csv", F->opt.out, name);
    if (fl_close_written(f, path, &err))
        return fail_line("%s", err.msg) + 1;
    return 0;
}

/* Draws figure f with plots/<name>.gp as PNG and SVG; when either is not
 * drawn or not written whole, one line on stderr and F->not_drawn set (the
 * report names both: the command then fails and keeps no report). */
static void draw(figures *F, int f)
{
    if (!F->plot || F->plots_skipped)
        return;
    char script[1024], msg[512];
    snprintf(script, sizeof script, "%s/plots/%s.gp", FL_SOURCE_DIR, fig_files[f]);
    if (fl_plot_render_pair(script, F->opt.out, fig_files[f], msg, sizeof msg)) {
        fprintf(stderr, "fluidlab: figures: figure %d not drawn: %s\n", f, msg);
        F->not_drawn = 1;
    }
}

static const char *status_text(const fig_case *k, char *out, int len)
{
    if (!k->ran)
        snprintf(out, (size_t)len, "did not run: %s", k->error);
    else if (k->res.status == FL_RUN_STABLE)
        snprintf(out, (size_t)len, "stable, %lld steps, %.1f s", k->res.steps, k->res.wall_s);
    else
        snprintf(out, (size_t)len, "unstable: %s", k->res.reason);
    for (char *p = out; *p; p++)
        if (*p == '|')
            *p = '/';
    return out;
}

/* The section's head: title, picture, files, and the runs behind it. */
static void section_head(figures *F, int f, const char *extra_csv)
{
    FILE *r = F->report;
    fprintf(r, "\n## Figure %d. %s\n\n", f, fig_titles[f]);
    if (F->plot && !F->plots_skipped)
        fprintf(r, "![Figure %d](%s.png)\n\n", f, fig_files[f]);
    fprintf(r, "Data: `%s.csv`%s%s%s. Drawn by `plots/%s.gp` (`gnuplot -e \"dir='%s'\" -e \"fmt='png'\" "
               "plots/%s.gp`). ",
            fig_files[f], extra_csv ? ", `" : "", extra_csv ? extra_csv : "", extra_csv ? "`" : "", fig_files[f],
            F->opt.out, fig_files[f]);
    if (F->plot && !F->plots_skipped)
        fprintf(r, "Pictures: `%s.png`, `%s.svg`.\n\n", fig_files[f], fig_files[f]);
    else
        fprintf(r, "Pictures: not drawn (%s).\n\n", F->plot ? "gnuplot was not found" : "--no-plot");
}

static void runs_table(figures *F, int fig, int group)
{
    FILE *r = F->report;
    fprintf(r, "| case | solver | scene | step | overrides | result |\n| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        if (k->fig != fig || (group && k->group != group))
            continue;
        char step[96], sets[1024] = "", st[700], who[64];
        describe_step(k, step, sizeof step);
        for (int q = 0; q < k->nsets; q++)
            snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s`%s`", q ? " " : "", k->sets[q]);
        fprintf(r, "| %s | %s | %s | %s | %s | %s |\n", k->label, solver_text(k->solver, k->device, who, sizeof who),
                k->scene, step, sets, status_text(k, st, sizeof st));
    }
    fputc('\n', r);
}

/* Opens the two CSV files of a figure; 0 with both closed when either cannot be written. */
static int open_two(const figures *F, const char *a, const char *b, FILE **fa, FILE **fb)
{
    char path[1200];
    *fa = open_csv(F, a, path, sizeof path);
    *fb = *fa ? open_csv(F, b, path, sizeof path) : NULL;
    if (*fa && !*fb)
        fclose(*fa);
    return *fb != NULL;
}

/* Figure f's data file DIR/<its name>.csv opened and its report section
 * begun: the file, or NULL with one line said. */
static FILE *begin_figure(figures *F, int f)
{
    char path[1200];
    FILE *csv = open_csv(F, fig_files[f], path, sizeof path);
    if (csv)
        section_head(F, f, NULL);
    return csv;
}

/* ---- figure 1: density over time ----------------------------------------- */

static int figure1(figures *F)
{
    FILE *csv = begin_figure(F, 1);
    if (!csv)
        return 2;
    FILE *r = F->report;
    fprintf(r, "The drop (`scenes/drop.json`, d = %g m): a cube of water falls into a pool. The PBF paper's "
               "comparison at equal pressure iterations per 60 Hz frame, PBF with 4 steps x 10 iterations "
               "against PCISPH with 10 steps x 4, and every other solver at its own stable step. Top: the "
               "largest density, rho_max / rho0; bottom: 1 + the mean compression (the mean of max(rho_i / "
               "rho0 - 1, 0)), both from the shared estimator after every step. FLIP's particles are seeded 8 "
               "to a cell, jittered: close pairs that the grid's pressure never sees read as a few percent "
               "of compression from the start.\n\n",
            F->d_drop);
    runs_table(F, 1, 0);
    fprintf(r, "| case | peak rho_max / rho0 | mean rho_max / rho0 | mean compression |\n| --- | --- | --- | --- |\n");
    int blocks = 0;
    double peak_pbf = -1.0, peak_pcisph = -1.0, low_peak = 1e30;
    const char *low_label = NULL;
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        fl_table t;
        if (k->fig != 1 || load_run(k, "stats.csv", &t))
            continue;
        int ct = fl_table_col(&t, "time"), ca = fl_table_col(&t, "density_err_avg"), cm = fl_table_col(&t, "density_err_max");
        fprintf(csv, "%stime,%s,%s\n", blocks++ ? "\n\n" : "", k->label, k->label);
        double peak = 0.0, mean_max = 0.0, mean_avg = 0.0;
        for (int q = 0; q < t.rows; q++) {
            double m = fl_table_at(&t, q, cm), a = fl_table_at(&t, q, ca);
            fprintf(csv, "%.6g,%.6g,%.6g\n", fl_table_at(&t, q, ct), 1.0 + m, 1.0 + a);
            peak = fmax(peak, m), mean_max += m, mean_avg += a;
        }
        fprintf(r, "| %s | %.4f | %.4f | %.3f %% |\n", k->label, 1.0 + peak, 1.0 + mean_max / t.rows,
                100.0 * mean_avg / t.rows);
        if (strcmp(k->solver, "pbf") == 0)
            peak_pbf = peak;
        if (strcmp(k->solver, "pcisph") == 0)
            peak_pcisph = peak;
        if (k->res.status == FL_RUN_STABLE && peak < low_peak)
            low_peak = peak, low_label = k->label;
        fl_table_free(&t);
    }
    if (close_csv(F, csv, fig_files[1]))
        return 2;
    fprintf(r, "\nReading: in the paper's Fig. 4, PBF with 4 x 10 holds the maximum density about as well as "
               "PCISPH with 10 x 4. ");
    if (peak_pbf >= 0.0 && peak_pcisph >= 0.0)
        fprintf(r, "Here the largest density reaches %.3f rho0 under PBF and %.3f rho0 under PCISPH: PBF's "
                   "peak is %s. ",
                1.0 + peak_pbf, 1.0 + peak_pcisph,
                fabs(peak_pbf - peak_pcisph) <= 0.25 * fmax(peak_pbf, peak_pcisph) ? "comparable (within 25 %)"
                : peak_pbf < peak_pcisph                                           ? "lower"
                                                                                   : "higher");
    if (low_label)
        fprintf(r, "The lowest peak of a stable run is %s's (%.3f rho0).", low_label, 1.0 + low_peak);
    fputc('\n', r);
    draw(F, 1);
    return 0;
}

/* ---- figure 2: convergence over iterations ------------------------------- */

static int figure2(figures *F)
{
    FILE *csv, *csv2;
    if (!open_two(F, fig_files[2], "fig2_pressure", &csv, &csv2))
        return 2;
    section_head(F, 2, "fig2_pressure.csv");
    FILE *r = F->report;
    fprintf(r, "The dam break (d = %g m), the step that ends at t = 1.0 s. Left: the mean compression after "
               "each of 30 iterations of the particle solvers that iterate (PBF at dt = 1/240 s, PCISPH at "
               "1/600 s; the solvers' own error, the same estimator); right: the relative residual of FLIP's "
               "pressure solve per CG iteration with each preconditioner (dt = 1/600 s, one substep: the step's "
               "one solve, from p = 0).\n\n",
            F->d_conv);
    runs_table(F, 2, 0);
    int b1 = 0, b2 = 0, n_pre = 0, pre_iters[4] = {0, 0, 0, 0};
    char particle_text[1024] = "";
    fprintf(r, "| case | error or residual after iteration 1 | after 10 | last | iterations |\n"
               "| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        fl_table t;
        if (k->fig != 2 || load_run(k, "convergence.csv", &t))
            continue;
        int cs = fl_table_col(&t, "step"), ci = fl_table_col(&t, "iteration"), cr = fl_table_col(&t, "residual"),
            cm = fl_table_col(&t, "residual_max");
        double last_step = fl_table_at(&t, t.rows - 1, cs);
        FILE *out = k->group == 1 ? csv : csv2;
        if (k->group == 1)
            fprintf(out, "%siteration,%s average,%s max\n", b1++ ? "\n\n" : "", k->label, k->label);
        else
            fprintf(out, "%siteration,%s\n", b2++ ? "\n\n" : "", k->label);
        double first = 0.0, tenth = 0.0, last = 0.0;
        int iters = 0;
        for (int q = 0; q < t.rows; q++) {
            if (fl_table_at(&t, q, cs) != last_step)
                continue;
            double it = fl_table_at(&t, q, ci), res = fl_table_at(&t, q, cr);
            if (k->group == 1)
                fprintf(out, "%.0f,%.6g,%.6g\n", it, 100.0 * res, 100.0 * fl_table_at(&t, q, cm));
            else
                fprintf(out, "%.0f,%.6g\n", it, res);
            if (it == 1)
                first = res;
            if (it == 10)
                tenth = res;
            last = res, iters = (int)it;
        }
        double scale = k->group == 1 ? 100.0 : 1.0;
        fprintf(r, "| %s | %.4g%s | %.4g%s | %.4g%s | %d |\n", k->label, scale * first, k->group == 1 ? " %" : "",
                scale * tenth, k->group == 1 ? " %" : "", scale * last, k->group == 1 ? " %" : "", iters);
        if (k->group == 1 && first > 0.0)
            snprintf(particle_text + strlen(particle_text), sizeof particle_text - strlen(particle_text),
                     "%s%s from %.3g %% after one iteration to %.3g %% after %d (x %.2g)", particle_text[0] ? "; " : "",
                     k->label, 100.0 * first, 100.0 * last, iters, last / first);
        if (k->group == 2 && n_pre < 4)
            pre_iters[n_pre++] = iters;
        fl_table stats;
        if (k->group == 2 && !load_run(k, "stats.csv", &stats)) {
            int substeps = (int)fl_table_at(&stats, stats.rows - 1, fl_table_col(&stats, "substeps"));
            if (substeps > 1)
                fprintf(r, "| | (%s: the step took %d substeps; its history is their %d solves one after "
                           "another) | | | |\n",
                        k->label, substeps, substeps);
            fl_table_free(&stats);
        }
        fl_table_free(&t);
    }
    int rc = close_csv(F, csv, fig_files[2]);
    if (close_csv(F, csv2, "fig2_pressure") || rc)
        return 2;
    fprintf(r, "\nReading: Jacobi iterations spread a correction one neighborhood per iteration, so the error "
               "falls fast at first and slowly after (the paper's Fig. 6). Here: %s.",
            particle_text[0] ? particle_text : "no particle solver ran");
    if (n_pre == 4)
        fprintf(r, " FLIP's pressure solve takes %d iterations with MIC(0), %d with Jacobi, %d without a "
                   "preconditioner and %d with the multigrid V-cycle: the order MGPCG < MICCG < Jacobi-PCG < CG "
                   "%s.",
                pre_iters[0], pre_iters[1], pre_iters[2], pre_iters[3],
                pre_iters[3] < pre_iters[0] && pre_iters[0] < pre_iters[1] && pre_iters[1] < pre_iters[2]
                    ? "holds"
                    : "does not hold at this step");
    fputc('\n', r);
    draw(F, 2);
    return 0;
}

/* ---- figure 3: stage timings --------------------------------------------- */

static int figure3(figures *F)
{
    FILE *csv, *pct;
    if (!open_two(F, fig_files[3], "fig3_percent", &csv, &pct))
        return 2;
    section_head(F, 3, "fig3_percent.csv");
    FILE *r = F->report;
    fprintf(r, "The dam break (d = %g m, %s), 0.4 s under each solver at its stable step: the median "
               "ms per step of each stage (left, stacked) and its share of the stages' sum (right). `%d` "
               "threads; PBF's and PCISPH's densities are computed inside their pressure solve.\n\n",
            F->d_dam, "the runs of figure 5", F->opt.threads);
    runs_table(F, 5, 0);
    /* stages that no solver uses are left out */
    double ms[MAX_CASES][FL_STAGE_COUNT];
    int used[FL_STAGE_COUNT] = {0}, rows[MAX_CASES], nrows = 0;
    double step_ms[MAX_CASES];
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        fl_table t;
        if (k->fig != 5 || load_run(k, "stats.csv", &t))
            continue;
        for (int s = 0; s < FL_STAGE_COUNT; s++) {
            char name[48];
            snprintf(name, sizeof name, "ms_%s", fl_stage_names[s]);
            ms[nrows][s] = column_median(&t, fl_table_col(&t, name), t.rows > 4 ? 2 : 0);
            used[s] |= ms[nrows][s] > 0.0;
        }
        step_ms[nrows] = column_median(&t, fl_table_col(&t, "ms_step"), t.rows > 4 ? 2 : 0);
        rows[nrows++] = i;
        fl_table_free(&t);
    }
    fprintf(csv, "solver");
    fprintf(pct, "solver");
    for (int s = 0; s < FL_STAGE_COUNT; s++)
        if (used[s])
            fprintf(csv, ",%s", fl_stage_names[s]), fprintf(pct, ",%s", fl_stage_names[s]);
    fputc('\n', csv);
    fputc('\n', pct);
    fprintf(r, "| solver | ms per step | largest stage |\n| --- | --- | --- |\n");
    for (int q = 0; q < nrows; q++) {
        const fig_case *k = &F->cases[rows[q]];
        double sum = 0.0;
        int top = 0;
        for (int s = 0; s < FL_STAGE_COUNT; s++) {
            sum += used[s] ? ms[q][s] : 0.0;
            top = ms[q][s] > ms[q][top] ? s : top;
        }
        fprintf(csv, "%s", k->label);
        fprintf(pct, "%s", k->label);
        for (int s = 0; s < FL_STAGE_COUNT; s++)
            if (used[s])
                fprintf(csv, ",%.4f", ms[q][s]), fprintf(pct, ",%.3f", sum > 0.0 ? 100.0 * ms[q][s] / sum : 0.0);
        fputc('\n', csv);
        fputc('\n', pct);
        fprintf(r, "| %s | %.3f | %s, %.0f %% |\n", k->label, step_ms[q], fl_stage_names[top],
                sum > 0.0 ? 100.0 * ms[q][top] / sum : 0.0);
    }
    int rc = close_csv(F, csv, fig_files[3]);
    if (close_csv(F, pct, "fig3_percent") || rc)
        return 2;
    fprintf(r, "\nReading: the paper's Table 2 (dam break, GPU) puts 51 %% of PBF's step in the constraint "
               "solve and 28 %% in the neighbor search. ");
    for (int q = 0; q < nrows; q++) {
        if (strcmp(F->cases[rows[q]].solver, "pbf") != 0)
            continue;
        double sum = 0.0;
        for (int s = 0; s < FL_STAGE_COUNT; s++)
            sum += ms[q][s];
        if (sum > 0.0)
            fprintf(r, "Here PBF spends %.0f %% in pressure_solve and %.0f %% in neighbor_search. ",
                    100.0 * ms[q][FL_STAGE_PRESSURE_SOLVE] / sum, 100.0 * ms[q][FL_STAGE_NEIGHBOR_SEARCH] / sum);
    }
    fprintf(r, "A step's cost is not a frame's: multiply by the steps per frame each solver needs (figure 4).\n");
    draw(F, 3);
    return 0;
}

/* ---- figure 4: timestep stability ---------------------------------------- */

static int figure4(figures *F)
{
    FILE *csv = begin_figure(F, 4);
    if (!csv)
        return 2;
    FILE *r = F->report;
    fprintf(r, "The dam break (d = %g m) for 3 s at 60 frames per second and 1 to %d steps per frame, "
               "every solver at its own iteration counts, checked after every step against the stability "
               "criteria of docs/design.md (NaN, max speed above 10 sqrt(2 g H), compression above 20 %% for 10 "
               "steps). Left: the largest stable dt per solver; right: the map, red where a case broke, "
               "labelled with the time it broke.\n\n",
            F->d_stab, F->substeps[F->n_sub - 1]);
    fprintf(csv, "solver,solver_index,substeps,substeps_index,dt,status,failed_at,largest_stable_dt\n");
    fprintf(r, "| solver | fewest stable steps per frame | largest stable dt | broken cases (steps per frame: "
               "when, why) |\n| --- | --- | --- | --- |\n");
    int fewest_pbf = 0, fewest_pcisph = 0;
    for (int s = 0; fl_solvers[s]; s++) {
        int fewest = 0;
        char broken[2048] = "";
        for (int i = 0; i < F->n; i++) {
            const fig_case *k = &F->cases[i];
            if (k->fig == 4 && strcmp(k->solver, fl_solvers[s]->name) == 0 && k->ran &&
                k->res.status == FL_RUN_STABLE && (!fewest || k->group < fewest))
                fewest = k->group;
        }
        for (int i = 0; i < F->n; i++) {
            const fig_case *k = &F->cases[i];
            if (k->fig != 4 || strcmp(k->solver, fl_solvers[s]->name) != 0)
                continue;
            int q = 0;
            while (q < F->n_sub && F->substeps[q] != k->group)
                q++;
            int status = !k->ran ? -1 : k->res.status == FL_RUN_STABLE ? 1 : 0;
            double failed_at = status == 1 ? -1.0 : k->ran ? k->res.sim_time : 0.0;
            fprintf(csv, "%s,%d,%d,%d,%.6g,%d,%.4g,%.6g\n", k->solver, s, k->group, q, 1.0 / (60.0 * k->group), status,
                    failed_at, fewest ? 1.0 / (60.0 * fewest) : 0.0);
            if (status != 1) {
                char st[700];
                snprintf(broken + strlen(broken), sizeof broken - strlen(broken), "%s%d: %s", broken[0] ? "; " : "",
                         k->group, status_text(k, st, sizeof st));
            }
        }
        if (fewest)
            fprintf(r, "| %s | %d | %.4g s | %s |\n", fl_solvers[s]->name, fewest, 1.0 / (60.0 * fewest),
                    broken[0] ? broken : "none");
        else
            fprintf(r, "| %s | none stable | - | %s |\n", fl_solvers[s]->name, broken);
        if (strcmp(fl_solvers[s]->name, "pbf") == 0)
            fewest_pbf = fewest;
        if (strcmp(fl_solvers[s]->name, "pcisph") == 0)
            fewest_pcisph = fewest;
    }
    if (close_csv(F, csv, fig_files[4]))
        return 2;
    fprintf(r, "\nReading: the PBF paper claims that PCISPH needs about 10 steps per frame where PBF runs "
               "with one. ");
    if (fewest_pbf && fewest_pcisph)
        fprintf(r, "Here PBF holds with %d step%s per frame and PCISPH needs %d: the claim %s at this resolution.\n",
                fewest_pbf, fewest_pbf == 1 ? "" : "s", fewest_pcisph,
                fewest_pbf == 1 && fewest_pcisph >= 8 ? "holds"
                : fewest_pbf < fewest_pcisph          ? "holds in direction (PBF takes larger steps) but not in size"
                                                      : "does not hold");
    else
        fprintf(r, "Here PBF's fewest stable count is %d and PCISPH's %d (0: none of the counts tried was "
                   "stable), so the claim cannot be read off this run.\n",
                fewest_pbf, fewest_pcisph);
    draw(F, 4);
    return 0;
}

/* ---- figure 5: the dam-break front --------------------------------------- */

static int figure5(figures *F)
{
    char path[1200], spath[1024];
    fl_error err;
    double Tm[32], Zm[32];
    int nm = fl_martin_moyce(Tm, Zm, 32, &err);
    if (nm < 0)
        return fail_line("%s", err.msg) + 1;
    fl_scene scene;
    fl_resolve_scene("dam_break", spath, sizeof spath);
    if (fl_scene_load(spath, NULL, 0, &scene, &err))
        return fail_line("%s", err.msg) + 1;
    const double a = scene.blocks[0].hi[0] - scene.blocks[0].lo[0], x0 = scene.domain.lo[0];
    const double g = fabs(scene.gravity[1]), t_of_T = 1.0 / sqrt(2.0 * g / a);
    fl_scene_free(&scene);
    FILE *csv = open_csv(F, fig_files[5], path, sizeof path);
    if (!csv)
        return 2;
    section_head(F, 5, NULL);
    FILE *r = F->report;
    fprintf(r, "The dam break (`scenes/dam_break.json`, a = %g m, d = %g m, a / d = %.0f) under each solver "
               "at its stable step: the surge front Z = x / a (the largest x of a particle) against T = t "
               "sqrt(2 g / a), and Martin & Moyce's measurements (`reference/martin_moyce_1952_n2.csv`, "
               "n^2 = 2).\n\n",
            a, F->d_dam, a / F->d_dam);
    runs_table(F, 5, 0);
    fprintf(csv, "T,Martin & Moyce\n");
    for (int p = 0; p < nm; p++)
        fprintf(csv, "%.6g,%.6g\n", Tm[p], Zm[p]);
    fprintf(r, "| solver | points compared (1 <= T <= 3) | worst error | error at each T |\n"
               "| --- | --- | --- | --- |\n");
    int within = 0, compared_runs = 0;
    double best = 1e30, worst_all = -1.0;
    const char *best_label = NULL, *worst_label = NULL;
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        fl_table t;
        if (k->fig != 5 || load_run(k, "stats.csv", &t))
            continue;
        int ct = fl_table_col(&t, "time"), cx = fl_table_col(&t, "front_x");
        double *tt = malloc(sizeof(double) * (size_t)(t.rows + 1)), *xx = malloc(sizeof(double) * (size_t)(t.rows + 1));
        if (!tt || !xx) {
            free(tt), free(xx), fl_table_free(&t), fclose(csv);
            return fail_line("out of memory") + 1;
        }
        fprintf(csv, "\n\nT,%s\n", k->label);
        for (int q = 0; q < t.rows; q++) {
            tt[q] = fl_table_at(&t, q, ct);
            xx[q] = x0 + fl_table_at(&t, q, cx);
            fprintf(csv, "%.6g,%.6g\n", tt[q] / t_of_T, (xx[q] - x0) / a);
        }
        fl_front_point pts[32];
        double worst = 0.0;
        int np = fl_front_compare(tt, xx, t.rows, a, x0, g, 1.0, 3.0, pts, 32, &worst);
        char each[1024] = "";
        for (int p = 0; p < np; p++)
            snprintf(each + strlen(each), sizeof each - strlen(each), "%s%.2f: %+.1f %%", p ? ", " : "", pts[p].T,
                     100.0 * pts[p].err);
        fprintf(r, "| %s | %d | %.1f %% | %s |\n", k->label, np, 100.0 * worst, each);
        if (np > 0) {
            compared_runs++;
            within += worst < 0.15;
            if (worst < best)
                best = worst, best_label = k->label;
            if (worst > worst_all)
                worst_all = worst, worst_label = k->label;
        }
        free(tt), free(xx);
        fl_table_free(&t);
    }
    if (close_csv(F, csv, fig_files[5]))
        return 2;
    fprintf(r, "\nReading: ");
    if (compared_runs)
        fprintf(r, "%d of %d solvers stay within 15 %% of Martin & Moyce over 1 <= T <= 3; the closest is %s "
                   "(worst point %.1f %%), the farthest %s (%.1f %%). ",
                within, compared_runs, best_label, 100.0 * best, worst_label, 100.0 * worst_all);
    fprintf(r, "The simulated front is the single particle farthest out, so a thin leading sheet counts in "
               "full; the tests hold the solvers to 15 %% at a / d = 20.\n");
    draw(F, 5);
    return 0;
}

/* ---- figure 6: cost scaling ---------------------------------------------- */

static int figure6(figures *F)
{
    FILE *csv = begin_figure(F, 6);
    if (!csv)
        return 2;
    FILE *r = F->report;
    fprintf(r, "The 1 m cube of `scenes/dam_break_59k.json` sampled at %d to %d particles, 8 steps of 0.5 ms "
               "(the scene's own iteration counts: 2 for PCISPH and PBF); the median ms per step over steps 3 "
               "to 8, %d threads, log-log.",
            F->counts[0] * F->counts[0] * F->counts[0],
            F->counts[F->n_counts - 1] * F->counts[F->n_counts - 1] * F->counts[F->n_counts - 1], F->opt.threads);
    if (F->fig6_device)
        fprintf(r, " Every solver on the CPU, and the solvers that have a device version also on %s%s, the same "
                   "cases (the lines \"<solver> (%s)\").",
                F->fig6_device, F->device ? "" : " (a usable GPU is present)", F->fig6_device);
    fprintf(r, "\n\n");
    fprintf(r, "| solver | particles: ms per step | slope of log(ms) against log(N) |\n| --- | --- | --- |\n");
    int blocks = 0;
    double lo_slope = 1e30, hi_slope = -1e30;
    char lo_name[64] = "", hi_name[64] = "";
    /* one line per solver on the CPU, then per solver on the device */
    for (int on_device = 0; on_device <= (F->fig6_device != NULL); on_device++)
        for (int s = 0; fl_solvers[s]; s++) {
            const char *device = on_device ? F->fig6_device : "cpu";
            char name[64];
            solver_text(fl_solvers[s]->name, device, name, sizeof name);
            double lx[8], ly[8];
            int n = 0, cases = 0;
            char row[512] = "";
            for (int i = 0; i < F->n; i++) {
                const fig_case *k = &F->cases[i];
                fl_table t;
                if (k->fig != 6 || strcmp(k->solver, fl_solvers[s]->name) != 0 || strcmp(k->device, device) != 0)
                    continue;
                cases++;
                if (load_run(k, "stats.csv", &t)) {
                    snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: did not run", row[0] ? ", " : "",
                             k->group);
                    continue;
                }
                double ms = column_median(&t, fl_table_col(&t, "ms_step"), t.rows > 4 ? 2 : 0);
                fl_table_free(&t);
                if (n == 0)
                    fprintf(csv, "%sparticles,%s\n", blocks++ ? "\n\n" : "", name);
                fprintf(csv, "%d,%.5g\n", k->group, ms);
                snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: %.2f", row[0] ? ", " : "", k->group, ms);
                if (n < 8 && ms > 0.0)
                    lx[n] = log((double)k->group), ly[n] = log(ms), n++;
            }
            if (on_device && cases == 0) /* a solver without a device version */
                continue;
            double slope = 0.0;
            if (n >= 2) {
                double mx = 0, my = 0, sxy = 0, sxx = 0;
                for (int q = 0; q < n; q++)
                    mx += lx[q] / n, my += ly[q] / n;
                for (int q = 0; q < n; q++)
                    sxy += (lx[q] - mx) * (ly[q] - my), sxx += (lx[q] - mx) * (lx[q] - mx);
                slope = sxy / sxx;
                if (slope < lo_slope)
                    lo_slope = slope, snprintf(lo_name, sizeof lo_name, "%s", name);
                if (slope > hi_slope)
                    hi_slope = slope, snprintf(hi_name, sizeof hi_name, "%s", name);
            }
            fprintf(r, "| %s | %s | %.2f |\n", name, row, slope);
        }
    if (close_csv(F, csv, fig_files[6]))
        return 2;
    fprintf(r, "\nReading: a slope of 1 is a cost linear in the particle count (a neighbor search and a fixed "
               "number of passes); CG iterations that grow with the grid push FLIP above it, cache effects "
               "push any solver above it, and fixed per-step costs pull small runs below it. ");
    if (lo_name[0])
        fprintf(r, "The slopes run from %.2f (%s) to %.2f (%s).", lo_slope, lo_name, hi_slope, hi_name);
    fputc('\n', r);
    draw(F, 6);
    return 0;
}

/* ---- figure 7: the force on the tool over time --------------------------- */

typedef struct path_phase {
    char name[16];
    double t0, t1;      /* s */
    double v[3];        /* the tool's mean velocity, m/s */
} path_phase;

/* The moving segments of a path (y up), its times scaled by tscale, named
 * by their direction: "descend" and "rise" (mostly along y), "sideways",
 * and "back" for one that reverses the horizontal motion before it. */
static int path_phases(const fl_tool_spec *spec, double tscale, path_phase *out, int max)
{
    int n = 0, have_h = 0;
    double last_h[2] = {0.0, 0.0};
    for (int q = 0; q + 1 < spec->key_count && n < max; q++) {
        const double *a = spec->keys[q].pos, *b = spec->keys[q + 1].pos;
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, h = hypot(d[0], d[2]);
        const double span = (spec->keys[q + 1].t - spec->keys[q].t) * tscale;
        if ((h == 0.0 && d[1] == 0.0) || !(span > 0.0))
            continue; /* held */
        path_phase *p = &out[n++];
        p->t0 = spec->keys[q].t * tscale, p->t1 = spec->keys[q + 1].t * tscale;
        for (int c = 0; c < 3; c++)
            p->v[c] = d[c] / span;
        if (fabs(d[1]) > h) {
            snprintf(p->name, sizeof p->name, "%s", d[1] < 0.0 ? "descend" : "rise");
        } else {
            snprintf(p->name, sizeof p->name, "%s",
                     have_h && d[0] * last_h[0] + d[2] * last_h[1] < 0.0 ? "back" : "sideways");
            last_h[0] = d[0], last_h[1] = d[2], have_h = 1;
        }
    }
    return n;
}

static int figure7(figures *F)
{
    FILE *csv, *ph;
    if (!open_two(F, fig_files[7], "fig7_tool_phases", &csv, &ph))
        return 2;
    section_head(F, 7, "fig7_tool_phases.csv");
    FILE *r = F->report;
    const fl_scene *s = &F->tool_cup;
    const fig_case *k = NULL;
    for (int i = 0; i < F->n && !k; i++)
        k = F->cases[i].fig == 7 ? &F->cases[i] : NULL;
    path_phase phases[16];
    const int np = path_phases(&s->tool, F->tscale, phases, 16);
    char d_text[64];
    snprintf(d_text, sizeof d_text, F->d_tool > 0.0 ? "d = %g m" : "d = %g m, as shipped",
             F->d_tool > 0.0 ? F->d_tool : s->spacing);
    fprintf(r, "The rigid-tool paper's experiment (`scenes/tool_cup.json`, %s%s): a sphere of radius %g m "
               "descends into a cup of water, moves towards the wall, back to the middle and rises out, on its "
               "path of keyframes, under PBF. The fluid's force on the tool after every step (`fx`, `fy`, `fz` of "
               "the run's `tool.csv`: the solver's boundary reaction, adhesion and damping), x solid, y dotted, z "
               "dashed; the phases of the path between grey lines. y is up.\n\n",
            d_text, F->tscale != 1.0 ? ", the path's times scaled by the run's time scale" : "",
            (double)s->tool.shape.radius);
    runs_table(F, 7, 0);
    fprintf(ph, "phase,start,end\n");
    for (int q = 0; q < np; q++)
        fprintf(ph, "%s,%.6g,%.6g\n", phases[q].name, phases[q].t0, phases[q].t1);
    fl_table t;
    double mean[16][3] = {{0.0}}, fy_low = 0.0, t_low = 0.0;
    int rows[16] = {0}, loaded = k && !load_run(k, "tool.csv", &t);
    fprintf(csv, "time,fx,fy,fz\n");
    if (loaded) {
        const int ct = fl_table_col(&t, "time"), cf[3] = {fl_table_col(&t, "fx"), fl_table_col(&t, "fy"), fl_table_col(&t, "fz")};
        for (int q = 0; q < t.rows; q++) {
            const double time = fl_table_at(&t, q, ct), f[3] = {fl_table_at(&t, q, cf[0]), fl_table_at(&t, q, cf[1]),
                                                             fl_table_at(&t, q, cf[2])};
            fprintf(csv, "%.6g,%.6g,%.6g,%.6g\n", time, f[0], f[1], f[2]);
            for (int p = 0; p < np; p++) {
                if (!(time > phases[p].t0 && time <= phases[p].t1))
                    continue;
                for (int c = 0; c < 3; c++)
                    mean[p][c] += f[c];
                rows[p]++;
                if (strcmp(phases[p].name, "rise") == 0 && f[1] < fy_low)
                    fy_low = f[1], t_low = time;
            }
        }
        fl_table_free(&t);
    }
    int rc = close_csv(F, csv, fig_files[7]);
    if (close_csv(F, ph, "fig7_tool_phases") || rc)
        return 2;
    fprintf(r, "| phase | time (s) | tool velocity (m/s) | mean fx (N) | mean fy (N) | mean fz (N) |\n"
               "| --- | --- | --- | --- | --- | --- |\n");
    int opposed = 0, horizontal = 0;
    double fy_submerged = 0.0;
    int n_submerged = 0;
    for (int p = 0; p < np; p++) {
        for (int c = 0; c < 3 && rows[p]; c++)
            mean[p][c] /= rows[p];
        fprintf(r, "| %s | %.3g to %.3g | (%.3g, %.3g, %.3g) |", phases[p].name, phases[p].t0, phases[p].t1,
                phases[p].v[0], phases[p].v[1], phases[p].v[2]);
        if (rows[p])
            fprintf(r, " %.4g | %.4g | %.4g |\n", mean[p][0], mean[p][1], mean[p][2]);
        else
            fprintf(r, " - | - | - |\n");
        if (rows[p] && (strcmp(phases[p].name, "sideways") == 0 || strcmp(phases[p].name, "back") == 0)) {
            horizontal++;
            opposed += mean[p][0] * phases[p].v[0] + mean[p][2] * phases[p].v[2] < 0.0;
            fy_submerged += mean[p][1], n_submerged++;
        }
    }
    fprintf(r, "\nReading: ");
    if (!loaded) {
        fprintf(r, "the run did not complete a step (see the table of runs), so there is nothing to read.\n");
    } else {
        const double radius = s->tool.shape.radius, g = fabs(s->gravity[1]);
        const double archimedes = s->rest_density * g * 4.0 / 3.0 * 3.14159265358979 * radius * radius * radius;
        if (n_submerged && s->tool.shape.kind == FL_TOOL_SPHERE)
            fprintf(r, "at the bottom of the cup, fully submerged, the fluid holds the sphere up with a mean fy of "
                       "%.3g N, against Archimedes' rho0 g V = %.3g N. ",
                    fy_submerged / n_submerged, archimedes);
        if (horizontal)
            fprintf(r, "In %d of the %d horizontal phases the mean horizontal force opposes the tool's motion "
                       "(drag). ",
                    opposed, horizontal);
        if (fy_low < 0.0)
            fprintf(r, "Rising out, the force pulls the tool down to %.3g N at t = %.3g s: the water it lifts "
                       "and the adhesion that holds it.",
                    fy_low, t_low);
        fputc('\n', r);
    }
    draw(F, 7);
    return 0;
}

/* ---- figure 8: the tool loop's rate -------------------------------------- */

/* The fluid particles of a run, from its run.json; 0 when it cannot be read. */
static int run_particles(const fig_case *k)
{
    char path[1200], text[4096];
    snprintf(path, sizeof path, "%s/run.json", k->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strstr(text, "\"fluid_particles\":");
    return p ? atoi(p + strlen("\"fluid_particles\":")) : 0;
}

static int figure8(figures *F)
{
    FILE *csv = begin_figure(F, 8);
    if (!csv)
        return 2;
    FILE *r = F->report;
    fprintf(r, "Tool-loop steps per second (a step of the solver with the tool placed before it and the fluid's "
               "force on it summed after it: 1000 / the mean of `tool.csv`'s `step_ms` over steps %d to %d) "
               "against the fluid particles, log-log, %d threads, with the 1 kHz of a haptic loop. The workload: "
               "`scenes/tool_cup.json` with the sphere in its sideways phase from the start (submerged at the "
               "bottom, moving towards the wall at 0.19 m/s) with the scene's adhesion and damping, the fluid "
               "resampled to each size, the geometry kept; %d steps a case at a step fixed per solver (the rate is "
               "per step; `dt_s` in the CSV): ",
            F->rate_skip + 1, F->rate_steps, F->opt.threads, F->rate_steps);
    for (int s = 0; fl_solvers[s]; s++)
        fprintf(r, "%s%s %.3g ms", s ? ", " : "", fl_solvers[s]->name, 1e3 * rate_dt(F, fl_solvers[s]->name));
    fprintf(r, ". The particle counts are the runs' own (`run.json`), the tool's volume cleared.\n\n");
    runs_table(F, 8, 0);
    fprintf(r, "| solver | dt | particles: rate Hz (ms per step) | most particles at 1 kHz or more |\n"
               "| --- | --- | --- | --- |\n");
    int blocks = 0, device_ran = 0;
    char uncoupled[256] = "", device_error[600] = "";
    for (int on_device = 0; on_device <= (F->fig6_device != NULL); on_device++)
        for (int s = 0; fl_solvers[s]; s++) {
            const char *device = on_device ? F->fig6_device : "cpu";
            char name[64], row[512] = "";
            solver_text(fl_solvers[s]->name, device, name, sizeof name);
            int cases = 0, points = 0, decoupled = 0, best = 0;
            for (int i = 0; i < F->n; i++) {
                const fig_case *k = &F->cases[i];
                fl_table t;
                if (k->fig != 8 || strcmp(k->solver, fl_solvers[s]->name) != 0 || strcmp(k->device, device) != 0)
                    continue;
                cases++;
                if (on_device && !k->ran && !device_error[0])
                    snprintf(device_error, sizeof device_error, "%s", k->error);
                if (k->ran && k->res.status != FL_RUN_STABLE) {
                    snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: unstable at step %lld",
                             row[0] ? ", " : "", k->group, k->res.steps);
                    continue;
                }
                if (load_run(k, "tool.csv", &t)) {
                    snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: did not run", row[0] ? ", " : "",
                             k->group);
                    continue;
                }
                device_ran |= on_device;
                const int cms = fl_table_col(&t, "step_ms"), cc = fl_table_col(&t, "contacts");
                const int cp[3] = {fl_table_col(&t, "fx_pressure"), fl_table_col(&t, "fy_pressure"),
                                   fl_table_col(&t, "fz_pressure")};
                double sum = 0.0, contacts = 0.0, reaction = 0.0;
                int n = 0;
                for (int q = 0; q < t.rows; q++) {
                    contacts += fl_table_at(&t, q, cc);
                    for (int c = 0; c < 3; c++)
                        reaction += fabs(fl_table_at(&t, q, cp[c]));
                    if (q >= F->rate_skip)
                        sum += fl_table_at(&t, q, cms), n++;
                }
                fl_table_free(&t);
                if (contacts > 0.0 && reaction == 0.0) { /* the tool in the fluid, and no reaction from the solver */
                    decoupled = 1;
                    continue;
                }
                if (n == 0 || !(sum > 0.0)) {
                    snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: too few steps", row[0] ? ", " : "",
                             k->group);
                    continue;
                }
                const double ms = sum / n, rate = 1000.0 / ms;
                const int particles = run_particles(k);
                if (points++ == 0)
                    fprintf(csv, "%sparticles,%s (dt %.3g ms),step_ms,dt_s\n", blocks++ ? "\n\n" : "", name,
                            1e3 * k->dt);
                fprintf(csv, "%d,%.5g,%.5g,%.6g\n", particles, rate, ms, k->dt);
                snprintf(row + strlen(row), sizeof row - strlen(row), "%s%d: %.0f (%.3g)", row[0] ? ", " : "",
                         particles, rate, ms);
                if (rate >= 1000.0 && particles > best)
                    best = particles;
            }
            if (cases == 0)
                continue;
            if (decoupled) {
                snprintf(uncoupled + strlen(uncoupled), sizeof uncoupled - strlen(uncoupled), "%s%s",
                         uncoupled[0] ? ", " : "", name);
                continue;
            }
            char most[32];
            snprintf(most, sizeof most, best ? "%d" : "none", best);
            fprintf(r, "| %s | %.3g ms | %s | %s |\n", name, 1e3 * rate_dt(F, fl_solvers[s]->name), row, most);
        }
    if (close_csv(F, csv, fig_files[8]))
        return 2;
    if (uncoupled[0])
        fprintf(r, "\nLeft out: %s: the tool sat in the fluid (contacts) and the solver reported no reaction on "
                   "it (`fx_pressure`, `fy_pressure`, `fz_pressure` zero at every step): it does not couple with the "
                   "tool yet, so its steps are not a tool loop's.\n",
                uncoupled);
    if (F->fig6_device && !device_ran)
        fprintf(r, "\nThe points on %s are absent: every case there failed: %s\n", F->fig6_device,
                device_error[0] ? device_error : "none ran");
    else if (!F->fig6_device)
        fprintf(r, "\nThe GPU points are absent: no usable CUDA device here (`fluidlab list`); on a machine with one "
                   "they are drawn dashed.\n");
    fprintf(r, "\nReading: a step's cost grows about linearly with the particles, so the rate falls about as "
               "1/N; a haptic loop needs 1 kHz, and the last column is the largest run that held it here, on %d "
               "CPU threads. ",
            F->opt.threads);
    fprintf(r, "These rates leave out the metrics a run computes after each step (`fluidlab tool` computes them "
               "too, for its stability criteria, every step or with `--measure-every N` every N-th).\n");
    draw(F, 8);
    return 0;
}

/* ---- figure 9: pressure-solve iterations and time against grid size ------- */

/* The dam break's first projection (fl_dam_projection) on each grid of
 * F->grids with each preconditioner, to 1e-6: iterations and the linear
 * solve's seconds (fl_pcg_result.ms) into
 * fig9_iterations.csv (one block per preconditioner: cells per edge,
 * iterations, seconds, the fluid cells), computed here on rank 0 (no
 * runs); the reading compares each one's growth from the smallest grid
 * to the largest. */
static int figure9(figures *F)
{
    static const char *const names[4] = {"MICCG", "Jacobi-PCG", "CG", "MGPCG"};
    static const fl_precond pre[4] = {FL_PRECOND_MIC0, FL_PRECOND_JACOBI, FL_PRECOND_NONE, FL_PRECOND_MG};
    FILE *csv = begin_figure(F, 9);
    if (!csv)
        return 2;
    FILE *r = F->report;
    fprintf(r, "FLIP's pressure solve on the dam break's first projection (`fl_dam_projection`, bench/measure.c): "
               "the unit cube on an n^3 MAC grid, a column a quarter of it long and half its height, AIR around "
               "it, after one step of gravity; each preconditioner of `solvers.flip.preconditioner` to a relative "
               "residual of 1e-6 from p = 0, %d thread%s; the times are the linear solve's own "
               "(`fl_pcg_result.ms`: the preconditioner's set-up included, the one-time allocation of the "
               "solver's arrays and the multigrid's levels not).\n\n| grid | fluid cells |",
            F->opt.threads, F->opt.threads == 1 ? "" : "s");
    for (int q = 0; q < 4; q++)
        fprintf(r, " %s: iterations (s) |", names[q]);
    fprintf(r, "\n| --- | --- | --- | --- | --- | --- |\n");
    int iters[4][6] = {{0}}, rc = 0;
    double secs[4][6] = {{0}};
    long fluid[6] = {0};
    fl_error err;
    for (int g = 0; g < F->n_grids && rc == 0; g++)
        for (int q = 0; q < 4 && rc == 0; q++) {
            fl_pcg_result res;
            if (fl_dam_projection(F->grids[g], FL_PROJECTION_COLUMN, pre[q], 1e-6, NULL, &res, &err) != FL_OK) {
                rc = fail_line("figures: figure 9: %d^3: %s", F->grids[g], err.msg) + 1;
                break;
            }
            iters[q][g] = res.reason == FL_PCG_CONVERGED_RTOL ? res.iterations : -res.iterations;
            secs[q][g] = 1e-3 * res.ms;
            fluid[g] = res.fluid_cells;
            if (!F->opt.quiet)
                fprintf(stderr, "fluidlab: figures: figure 9: %d^3 %s: %d iterations, %.2f s\n", F->grids[g],
                        names[q], res.iterations, secs[q][g]);
        }
    for (int q = 0; q < 4 && rc == 0; q++) {
        fprintf(csv, "%scells per edge,%s,seconds,fluid cells\n", q ? "\n\n" : "", names[q]);
        for (int g = 0; g < F->n_grids; g++)
            fprintf(csv, "%d,%d,%.4f,%ld\n", F->grids[g], abs(iters[q][g]), secs[q][g], fluid[g]);
    }
    for (int g = 0; g < F->n_grids && rc == 0; g++) {
        fprintf(r, "| %d^3 | %ld |", F->grids[g], fluid[g]);
        for (int q = 0; q < 4; q++)
            fprintf(r, " %d%s (%.3f) |", abs(iters[q][g]), iters[q][g] < 0 ? " (not converged)" : "", secs[q][g]);
        fputc('\n', r);
    }
    if (close_csv(F, csv, fig_files[9]) || rc)
        return rc ? rc : 2;
    const int last = F->n_grids - 1;
    fprintf(r, "\nReading: from %d^3 to %d^3 the iterations grow", F->grids[0], F->grids[last]);
    for (int q = 0; q < 4; q++)
        fprintf(r, "%s %.2fx with %s", q ? (q == 3 ? " and" : ",") : "", (double)abs(iters[q][last]) / abs(iters[q][0]),
                names[q]);
    fprintf(r, ". The V-cycle's count stays nearly flat as the grid is refined (McAdams, Sifakis and Teran 2010), "
               "while the others grow with the grid's edge; a V-cycle costs several MIC(0) iterations, so the "
               "times, not the counts, say which solve is faster on a given grid: at %d^3 MICCG's solve took "
               "%.3g s and MGPCG's %.3g s (MICCG / MGPCG %.2f), at %d^3 %.3g and %.3g s (%.2f).\n",
            F->grids[0], secs[0][0], secs[3][0], secs[0][0] / secs[3][0], F->grids[last], secs[0][last],
            secs[3][last], secs[0][last] / secs[3][last]);
    draw(F, 9);
    return 0;
}

/* ---- the command --------------------------------------------------------- */

static const char *figures_usage =
    "usage: fluidlab figures [--quick | --smoke] [--only LIST] [--out DIR] [--device cuda|emu] [--threads N]\n"
    "                        [--quiet] [--no-plot] [--resume]\n"
    "\n"
    "Regenerates every figure of docs/figures.md from runs of identical scenes:\n"
    "  1 density over time (the drop; PBF paper Fig. 4)\n"
    "  2 convergence over iterations (dam break at t = 1 s; Fig. 6, and FLIP's MICCG,\n"
    "    Jacobi-PCG, CG and MGPCG)\n"
    "  3 stage timings (Table 2), stacked bars\n"
    "  4 timestep stability: steps per frame each solver needs for 3 s of dam break\n"
    "  5 the dam-break front against Martin & Moyce (1952)\n"
    "  6 cost scaling, ms per step against particle count\n"
    "  7 the force on a rigid tool over time (tool_cup under PBF; rigid-tool paper\n"
    "    Fig. 6)\n"
    "  8 the tool loop's rate, steps per second against particle count, with 1 kHz\n"
    "    (rigid-tool paper Fig. 7)\n"
    "  9 FLIP's pressure-solve iterations and time to 1e-6 against grid size,\n"
    "    each preconditioner (the dam break's first projection, 32^3 to 256^3)\n"
    "into DIR (default out/figures): each as .png and .svg with its data as .csv,\n"
    "the runs in DIR/runs/, and DIR/report.md (the command, machine, commit,\n"
    "parameters and a reading of each figure). A case that goes unstable or fails\n"
    "is recorded and drawn as such.\n"
    "\n"
    "  --quick       coarse resolutions (a few minutes on 2 cores): the drop at\n"
    "                d = 0.02 m, the dam break at 0.01 m (figure 4: 1 to 40\n"
    "                steps per frame),\n"
    "                10 648 to 195 112 particles for figure 6, tool_cup at\n"
    "                d = 0.012 m for figure 7, 10 000 and 20 000 particles, 50\n"
    "                steps each, for figure 8, grids to 128^3 for figure 9.\n"
    "                Without it: the drop at 0.0125 m, the dam break at\n"
    "                0.00667 m (figures 3, 5) and 0.01 m (figures 2, 4), 7 sizes\n"
    "                for figure 6, tool_cup as shipped (figure 7), 10 000 to\n"
    "                80 000 particles, 100 steps each (figure 8), grids to 256^3\n"
    "                (figure 9) (about 15 minutes)\n"
    "  --smoke       the smallest sizes and a tenth of each run's time: checks the\n"
    "                pipeline in seconds; the figures mean nothing\n"
    "  --only LIST   only these figures, e.g. --only 1,4; tool: figures 7 and 8\n"
    "                (--only 1,tool); report_table2: the PIC/FLIP report's five\n"
    "                cases (flip_case1..5: FLIP, every frame saved and rebuilt as a\n"
    "                surface, the last drawn) and its Table 2 beside ours (its runs\n"
    "                in DIR/runs/fig10/); full: 250 frames each at the scenes' sizes\n"
    "                (hours: so a full figures without --only leaves it out),\n"
    "                --quick (and the default job): 10 frames at an eighth of the\n"
    "                particles\n"
    "  --out DIR     output folder (default out/figures)\n"
    "  --device D    the particle solvers (sph, wcsph, pcisph, pbf) on device D: cuda\n"
    "                (the GPU), emu (the GPU kernels on the CPU, slow: a check), or\n"
    "                cpu (the default); FLIP and PIC stay on the CPU. Figure 6 then\n"
    "                times those solvers on both the CPU and D (without --device: on\n"
    "                the CPU, and on cuda too where a GPU is usable)\n"
    "  --threads N   OpenMP threads (of each run)\n"
    "  --quiet       no progress lines\n"
    "  --no-plot     the CSV files and report.md only\n"
    "  --resume      into the DIR of an earlier, interrupted figures: run only the\n"
    "                runs without a completion marker of the same request\n"
    "                (runs/.../run.complete: scene, step, frames, sizes), then\n"
    "                make the figures from all of them\n"
    "\n"
    "Under MPI (mpirun -np N fluidlab figures ...) the runs are spread over the N\n"
    "ranks, each on --threads threads, and rank 0 makes the same files; report.md\n"
    "says how many ranks ran them (docs/mpi.md).\n";

/* ---- the report's Table 2 ------------------------------------------------- */

/* One row of reference/pic_flip_report_2011_table2.csv. */
typedef struct report_row {
    char description[64];
    double particles, pic, sim_min, recon_min, sim_gb, surface_gb;
} report_row;

/* The report's rows 1..5 into rows[1..5]; 0, or 1 with one line. */
static int read_report_table(report_row rows[6])
{
    const char *path = FL_SOURCE_DIR "/reference/pic_flip_report_2011_table2.csv";
    FILE *f = fopen(path, "r");
    if (!f)
        return fail_line("%s: cannot open: %s", path, strerror(errno));
    char line[512];
    int n = 0, header = 0;
    /* comment lines (#), then the header, then a row a case */
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (!header++)
            continue;
        /* the columns, empty ones kept */
        char *field[11];
        int nf = 0;
        line[strcspn(line, "\n")] = '\0';
        for (char *t = line; nf < 11; t++) {
            field[nf++] = t;
            if (!(t = strchr(t, ',')))
                break;
            *t = '\0';
        }
        int q = nf == 11 ? atoi(field[0]) : 0;
        if (q < 1 || q > 5) {
            fclose(f);
            return fail_line("%s: a row of case %s: expected case 1 to 5 and 11 columns", path, field[0]);
        }
        report_row *r = &rows[q];
        snprintf(r->description, sizeof r->description, "%s", field[1]);
        r->particles = atof(field[3]), r->pic = atof(field[5]), r->sim_min = atof(field[6]);
        r->recon_min = atof(field[7]), r->sim_gb = atof(field[9]), r->surface_gb = atof(field[10]);
        n++;
    }
    fclose(f);
    return n == 5 ? 0 : fail_line("%s: expected the 5 cases, got %d", path, n);
}

/* Bytes of the file at path, or -1. */
static double file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size : -1.0;
}

/* The report's Table 2 beside ours: each case's saved frames rebuilt as
 * surfaces (fluidlab surface, at the report's grid: half the cell), timed;
 * the last frame drawn (fluidlab render); per-frame times scaled to the
 * report's 250 frames. */
static int table2(figures *F)
{
    report_row rows[6];
    memset(rows, 0, sizeof rows);
    if (read_report_table(rows))
        return 1;
    char path[1200];
    FILE *csv = open_csv(F, fig_files[FIG_TABLE2], path, sizeof path);
    if (!csv)
        return 2;
    fprintf(csv, "case,description,frames,particles,report_particles,pic_share,report_pic_share,"
                 "simulation_s_per_frame,simulation_min_250,report_simulation_min,reconstruction_s_per_frame,"
                 "reconstruction_min_250,report_reconstruction_min,simulation_mb_per_frame,"
                 "report_simulation_mb_per_frame,surface_mb_per_frame,report_surface_mb_per_frame\n");
    FILE *r = F->report;
    fprintf(r, "\n## %s\n\n", fig_titles[FIG_TABLE2]);
    fprintf(r, "The report's five cases (`scenes/flip_case1.json` to `flip_case5.json`; the Stanford bunny "
               "stands in for its dragon) run by FLIP at each scene's PIC share, every frame saved (`--save bin`), "
               "then rebuilt as surfaces by `fluidlab surface` at the report's reconstruction grid (half the "
               "simulation cell) and the last frame drawn by `fluidlab render`. Times per frame are scaled to the "
               "report's 250 frames. The report's figures (`reference/pic_flip_report_2011_table2.csv`) come from "
               "its own code and machine (2011). Data: `%s.csv`.\n\n", fig_files[FIG_TABLE2]);
    fprintf(r, "| case | particles (ours / report) | PIC share | frames run | simulation, min for 250 frames "
               "(ours / report) | reconstruction, min for 250 frames | simulation data a frame, MB | surface "
               "data a frame, MB |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = 0;
    for (int i = 0; i < F->n && rc == 0; i++) {
        fig_case *k = &F->cases[i];
        if (k->fig != FIG_TABLE2)
            continue;
        const int q = k->scene[strlen(k->scene) - 1] - '0';
        const report_row *rep = &rows[q];
        if (!k->ran || k->res.frames_saved < 1) {
            char st[700];
            fprintf(r, "| %d | %s | | | %s | | | |\n", q, rep->description, status_text(k, st, sizeof st));
            continue;
        }
        const int saved = k->res.frames_saved, last = saved - 1;
        char frame[1300], spacing[32], lastf[16];
        snprintf(frame, sizeof frame, "%s/frames/0000.bin", k->dir);
        const double bin = file_bytes(frame), particles = bin > 32 ? (bin - 32) / 12 : 0;
        /* the report's grid: half the simulation cell (the Nyquist rule for 8 particles a cell) */
        snprintf(spacing, sizeof spacing, "%.9g", 0.5 * k->cell);
        char *surf[] = {k->dir, "--spacing", spacing, "--quiet", NULL};
        const double t0 = fl_now_ms();
        if (fl_surface_main(4, surf) != 0) {
            fprintf(r, "| %d | %s | | | the surface could not be rebuilt | | | |\n", q, rep->description);
            continue;
        }
        const double recon = (fl_now_ms() - t0) * 1e-3 / saved;
        double obj = 0.0;
        for (int f = 0; f < saved; f++) {
            snprintf(frame, sizeof frame, "%s/frames/%04d.obj", k->dir, f);
            obj += fmax(file_bytes(frame), 0.0) / saved;
        }
        snprintf(lastf, sizeof lastf, "%d", last);
        char *draw_argv[] = {k->dir, "--frame", lastf, "--size", "640x400", "--quiet", NULL};
        const int drawn = fl_render_main(6, draw_argv) == 0;
        const double pic = k->pic;
        const double sim = k->res.wall_s / (saved > 1 ? saved - 1 : 1);
        fprintf(csv, "%d,%s,%d,%.0f,%.0f,%g,%g,%.4f,%.2f,%g,%.4f,%.2f,%g,%.3f,%.3f,%.3f,%.3f\n", q, rep->description,
                saved - 1, particles, rep->particles, pic, rep->pic, sim, sim * 250 / 60, rep->sim_min, recon,
                recon * 250 / 60, rep->recon_min, bin / 1e6, rep->sim_gb * 1073.741824 / 250, obj / 1e6,
                rep->surface_gb * 1073.741824 / 250);
        fprintf(r, "| %d %s | %.0f / %.0f | %g / %g | %d | %.1f / %g | %.1f / %g | %.2f / %.2f | %.2f / %.2f |\n", q,
                rep->description, particles, rep->particles, pic, rep->pic, saved - 1, sim * 250 / 60, rep->sim_min,
                recon * 250 / 60, rep->recon_min, bin / 1e6, rep->sim_gb * 1073.741824 / 250, obj / 1e6,
                rep->surface_gb * 1073.741824 / 250);
        if (!drawn)
            fprintf(stderr, "fluidlab: figures: %s: its last frame not drawn\n", k->label);
    }
    fprintf(r, "\nThe last frame of each case (`runs/fig%d/<case>/render/NNNN.png`):\n\n", FIG_TABLE2);
    for (int i = 0; i < F->n; i++) {
        const fig_case *k = &F->cases[i];
        if (k->fig == FIG_TABLE2 && k->ran && k->res.frames_saved > 0)
            fprintf(r, "![%s](runs/fig%d/%s/render/%04d.png)\n", k->label, FIG_TABLE2,
                    strrchr(k->dir, '/') + 1, k->res.frames_saved - 1);
    }
    return close_csv(F, csv, fig_files[FIG_TABLE2]) ? 2 : rc;
}

/* The report's words on where the runs ran, after its first line: "" when
 * every run was on the CPU. */
static void device_note(const figures *F, char *out, int len)
{
    out[0] = '\0';
    if (!F->device)
        return;
    char lists[2][128] = {"", ""}; /* the solvers on the device, and those on the CPU only */
    char what[FL_ERROR_LEN] = "the GPU kernels on the CPU"; /* emu */
#ifdef FL_HAVE_CUDA
    fl_error err;
    if (strcmp(F->device, "cuda") == 0 && fl_cuda_device_query(what, sizeof what, &err) != FL_OK)
        snprintf(what, sizeof what, "%s", err.msg);
#endif
    for (int s = 0; fl_solvers[s]; s++) {
        char *list = lists[strcmp(device_for(F, fl_solvers[s]->name), "cpu") == 0];
        size_t used = strlen(list);
        snprintf(list + used, sizeof lists[0] - used, "%s%s", used ? ", " : "", fl_solvers[s]->name);
    }
    snprintf(out, (size_t)len, " Device %s (%s): %s ran there (figure 6: on the CPU too)%s%s%s.", F->device, what,
             lists[0], lists[1][0] ? "; " : "", lists[1], lists[1][0] ? " ran on the CPU, having no device version" : "");
}

/* A word of figures' own (fl_jobs_parse). */
static int figures_option(const char *a, const char *v, void *ctx)
{
    figures *F = ctx;
    if ((strcmp(a, "--only") == 0 || strcmp(a, "--device") == 0) && !v)
        return -fail_line("%s: expected a value", a);
    if (strcmp(a, "--quick") == 0) {
        F->quick = 1;
    } else if (strcmp(a, "--smoke") == 0) {
        F->smoke = 1;
    } else if (strcmp(a, "--no-plot") == 0) {
        F->plot = 0;
    } else if (strcmp(a, "--device") == 0 && v) {
        if (!fl_device_known(v))
            return -fail_line("--device %s: expected cpu, cuda or emu", v);
        F->device = strcmp(v, "cpu") != 0 ? v : NULL;
        return 2;
    } else if (strcmp(a, "--only") == 0 && v) {
        memset(F->only, 0, sizeof F->only);
        char buf[256];
        snprintf(buf, sizeof buf, "%s", v);
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *end;
            long f = strtol(t, &end, 10);
            if (strcmp(t, "tool") == 0) {
                F->only[7] = F->only[8] = 1;
                continue;
            }
            if (strcmp(t, "report_table2") == 0) {
                F->only[FIG_TABLE2] = 1;
                continue;
            }
            if (*end || f < 1 || f > FIG_COUNT)
                return -fail_line("--only %s: expected figure numbers from 1 to %d, tool or report_table2, "
                              "comma-separated", v, FIG_COUNT);
            F->only[f] = 1;
        }
        int any = 0;
        for (int f = 1; f <= FIG_TABLE2; f++)
            any |= F->only[f];
        if (!any)
            return -fail_line("--only '%s': expected figure numbers from 1 to %d, tool or report_table2, "
                              "comma-separated", v, FIG_COUNT);
        return 2;
    } else {
        return 0;
    }
    return 1;
}

static int parse_args(figures *F, int argc, char **argv)
{
    const int rc = fl_jobs_parse("figures", figures_usage, argc, argv, &F->opt, figures_option, F);
    if (rc)
        return rc;
    if (F->quick && F->smoke)
        return fail_line("%s", "--quick and --smoke: expected one of them (or neither, for the full run)");
    if (F->plot && strchr(F->opt.out, '\''))
        return fail_line("--out %s: a folder name with a quote cannot be passed to gnuplot (or use --no-plot)",
                         F->opt.out);
    fl_error err;
    if (F->device && fl_device_check(F->device, &err))
        return fail_line("%s", err.msg);
    /* figure 6 gains the GPU's lines wherever one is usable */
    F->fig6_device = F->device ? F->device : fl_device_check("cuda", &err) == FL_OK ? "cuda" : NULL;
    return 0;
}

static void resolutions(figures *F)
{
    static const int sub[] = {1, 2, 4, 10, 20, 40, 80};
    F->n_sub = 7;
    memcpy(F->substeps, sub, sizeof sub);
    F->tscale = 1.0;
    if (F->smoke) { /* the pipeline in seconds: figures of no physical meaning */
        F->d_drop = 0.05, F->d_conv = 0.04, F->d_dam = 0.04, F->d_stab = 0.05, F->tscale = 0.1;
        static const int counts[] = {10, 14};
        F->n_counts = 2;
        memcpy(F->counts, counts, sizeof counts);
        F->d_tool = 0.02;
        static const int rates[] = {1000, 2000};
        F->n_rates = 2, F->rate_steps = 10, F->rate_skip = 2;
        memcpy(F->rates, rates, sizeof rates);
        static const int grids[] = {32, 64};
        F->n_grids = 2;
        memcpy(F->grids, grids, sizeof grids);
    } else if (F->quick) {
        F->d_drop = 0.02, F->d_conv = 0.01, F->d_dam = 0.01, F->d_stab = 0.01;
        F->n_sub = 6; /* up to 40 steps per frame: the 80s would take half the time */
        static const int counts[] = {22, 31, 46, 58};
        F->n_counts = 4;
        memcpy(F->counts, counts, sizeof counts);
        F->d_tool = 0.012;
        static const int rates[] = {10000, 20000};
        F->n_rates = 2, F->rate_steps = 50, F->rate_skip = 5;
        memcpy(F->rates, rates, sizeof rates);
        static const int grids[] = {32, 64, 128};
        F->n_grids = 3;
        memcpy(F->grids, grids, sizeof grids);
    } else {
        F->d_drop = 0.0125, F->d_conv = 0.01, F->d_dam = 0.00666667, F->d_stab = 0.01;
        static const int counts[] = {22, 27, 31, 37, 46, 52, 58};
        F->n_counts = 7;
        memcpy(F->counts, counts, sizeof counts);
        static const int rates[] = {10000, 20000, 40000, 80000};
        F->n_rates = 4, F->rate_steps = 100, F->rate_skip = 5;
        memcpy(F->rates, rates, sizeof rates);
        static const int grids[] = {32, 64, 128, 256};
        F->n_grids = 4;
        memcpy(F->grids, grids, sizeof grids);
    }
}

/* Plans and runs every case, then makes the figures asked for. */
static int figures_run(figures *F)
{
    plan(F);
    /* every rank runs its share of the cases; rank 0 alone writes the rest
     * (so nothing before the runs may end rank 0 alone: the others would
     * wait for it) */
    double t0 = fl_now_ms();
    fl_jobs jobs;
    int resumed;
    int rc = run_cases(F, &jobs, &resumed);
    if (fl_dispatch_rank() != 0)
        return 0;
    fl_error clear_err;
    if (fl_report_clear(F->opt.out, &clear_err)) /* whatever comes next: a new report or none */
        return fail_line("%s", clear_err.msg) + 1;
    if (rc)
        return rc;
    if (F->plot && !fl_plot_available()) {
        fprintf(stderr, "fluidlab: figures: plots skipped: gnuplot not found (install it: apt-get install "
                        "gnuplot-nox); the CSV files and report.md are written\n");
        F->plots_skipped = 1;
    }
    if (fl_interrupted()) {
        int done = 0;
        for (int i = 0; i < F->n; i++)
            done += F->cases[i].ran;
        fprintf(stderr, "fluidlab: figures: interrupted by %s after %d of %d runs; no figure was made, the runs "
                        "are in %s/runs/ (each run.json says how it ended)\n",
                fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", done, F->n, F->opt.out);
        return 128 + fl_interrupted();
    }
    char report_path[1100];
    snprintf(report_path, sizeof report_path, "%s/report.md", F->opt.out);
    fl_error err;
    if (!(F->report = fl_part_open(report_path, &err)))
        return fail_line("%s", err.msg) + 1;
    char note[1024];
    device_note(F, note, sizeof note);
    fprintf(F->report, "# fluidlab figures\n\n");
    fl_report_made_by(F->report, F->opt.command, F->smoke ? "smoke-test resolutions" : F->quick ? "quick resolutions"
                                                                                          : "full resolutions",
                      &jobs, F->opt.threads, resumed, (fl_now_ms() - t0) * 1e-3);
    fprintf(F->report, " Each run's folder (stats.csv, convergence.csv, run.json) is in `runs/`.%s\n", note);
    int (*const make[FIG_COUNT + 1])(figures *) = {NULL,    figure1, figure2, figure3, figure4,
                                                   figure5, figure6, figure7, figure8, figure9};
    for (int f = 1; f <= FIG_COUNT && rc == 0; f++)
        if (F->only[f])
            rc = make[f](F);
    if (F->only[FIG_TABLE2] && rc == 0)
        rc = table2(F);
    if (rc == 0 && F->not_drawn)
        rc = 2;
    if (fl_part_close(F->report, report_path, rc == 0, &err) && rc == 0)
        rc = fail_line("%s", err.msg) + 1;
    if (rc)
        return rc;
    int unstable = 0, failed = 0;
    for (int i = 0; i < F->n; i++) { /* interrupted: a rank stopped alone (rank 0 was not) */
        const int stopped = !F->cases[i].ran || F->cases[i].res.status == FL_RUN_INTERRUPTED;
        unstable += !stopped && F->cases[i].res.status != FL_RUN_STABLE, failed += stopped;
    }
    char on[32] = "";
    if (jobs.ranks > 1)
        snprintf(on, sizeof on, " on %d ranks", jobs.ranks);
    fprintf(stderr, "fluidlab: figures: %d runs (%d unstable, %d did not run or finish, all recorded) in %.0f s%s; "
                    "output in %s/ (report.md)\n",
            F->n, unstable, failed, (fl_now_ms() - t0) * 1e-3, on, F->opt.out);
    return failed ? 4 : 0;
}

int fl_figures_main(int argc, char **argv)
{
    static figures F; /* the cases are large */
    memset(&F, 0, sizeof F);
    F.opt.out = "out/figures";
    F.plot = 1;
    /* every figure; the report's Table 2 too at --quick and --smoke, but at
     * the full sizes (hours) only when --only names it (-1: decided after
     * the options, which --only replaces) */
    for (int f = 1; f < FIG_TABLE2; f++)
        F.only[f] = 1;
    F.only[FIG_TABLE2] = -1;
    int prc = parse_args(&F, argc, argv);
    if (prc)
        return prc < 0 ? 0 : 1;
    if (F.only[FIG_TABLE2] < 0)
        F.only[FIG_TABLE2] = F.quick || F.smoke;
    resolutions(&F);
    if (F.only[7] || F.only[8]) { /* the tool's figures: the path and the spacing of tool_cup as shipped */
        char path[1024];
        fl_error err;
        fl_resolve_scene("tool_cup", path, sizeof path);
        if (fl_scene_load(path, NULL, 0, &F.tool_cup, &err))
            return fail_line("%s", err.msg);
    }
    int rc = figures_run(&F);
    fl_scene_free(&F.tool_cup);
    return rc;
}
