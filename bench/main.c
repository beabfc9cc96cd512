/* main.c: the `fluidlab` command. Parses the command line, prints the one
 * line of an error, and chooses the exit code:
 *   0 done (and stable), 1 bad input or usage, 2 an output could not be
 *   written, 3 the run went unstable (its output is written), 4 figures,
 *   sweep, compare or validate done but some runs failed or are missing
 *   (recorded).
 * Under MPI (dispatch.h) every rank parses the same command line; rank 0
 * alone prints its errors and writes the command's files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "dispatch.h"
#include "figures.h"
#include "fl_commit.h"
#include "harness.h"
#include "kernels_plot.h"
#include "plot.h"
#include "render.h"
#include "surface.h"
#include "course.h"
#include "validate.h"
#ifdef FL_HAVE_CUDA
#include "cuda_device.h"
#endif

static const char *usage =
    "usage: fluidlab [COMMAND] [OPTIONS]\n"
    "\n"
    "Runs fluid solvers on identical scenes and measures them the same way.\n"
    "\n"
    "commands:\n"
    "  (none)                 the default job: figures --quick (every figure, coarse)\n"
    "  run SCENE --solver NAME [options]\n"
    "                         simulate SCENE (a .json path, or a name from scenes/)\n"
    "  compare SCENE [--solvers LIST] [--devices LIST] [run options]\n"
    "                         the same scene through each solver (default: all), one\n"
    "                         folder each in DIR/<solver>/ (DIR default out/compare),\n"
    "                         then DIR/compare.csv and .md (device, status, steps,\n"
    "                         time, compression) and DIR/compare_density.png, .svg;\n"
    "                         an unstable or failed solver is recorded, not fatal.\n"
    "                         --resume: into a DIR of an earlier compare, run only\n"
    "                         the solvers without a finished run of the same\n"
    "                         request (run.complete: scene, step, frames, sets)\n"
    "                         --devices cpu,emu (or cpu,cuda): every solver on each\n"
    "                         device, in DIR/<solver>_<device>/; --device D: all on\n"
    "                         D. A solver without a version on a device is recorded\n"
    "                         as unsupported. Solver parameters:\n"
    "                         --per-solver NAME.KEY=VALUE\n"
    "  sweep SCENE [--solver NAME] (--dt LIST | --substeps LIST) [--iters LIST]\n"
    "                         [run options]: the stability sweep (solver default\n"
    "                         sph): every step (and iteration count, PCISPH and\n"
    "                         PBF) to the end of the scene or until it breaks the\n"
    "                         stability criteria (on --device, default cpu); each\n"
    "                         case in DIR/case_NN/\n"
    "                         (DIR default out/sweep), and DIR/sweep.csv and .md:\n"
    "                         when and why each case broke; --resume: only the cases\n"
    "                         without a finished run of the same request\n"
    "  figures [--quick | --smoke] [--only LIST] [--out DIR] [--device cuda|emu] [--resume]\n"
    "                         every figure of docs/figures.md (density over time,\n"
    "                         convergence, stage timings, stability, the dam-break\n"
    "                         front, cost scaling) from fresh runs into DIR (default\n"
    "                         out/figures): PNG, SVG, CSV and report.md; --device:\n"
    "                         the particle solvers on it (figure 6: on it and the\n"
    "                         CPU); see fluidlab figures --help\n"
    "  validate [--quick] [--only LIST] [--out DIR] [--threads N] [--resume] [--quiet]\n"
    "                         the solvers against physics with known answers, each\n"
    "                         case at three resolutions: the hydrostatic tank's\n"
    "                         pressure slope, the Martin & Moyce dam break (front and\n"
    "                         column height), a still tank's spurious speeds and\n"
    "                         volume drift, the Taylor-Green vortex's decay and the\n"
    "                         Poiseuille channel's profile; DIR/report.md (default\n"
    "                         out/validate) with\n"
    "                         the order of convergence, one figure per case (PNG, SVG,\n"
    "                         CSV); --quick: about 80 s on two cores; see fluidlab\n"
    "                         validate --help\n"
    "  tool SCENE --solver NAME [--input FILE|-] [--out DIR] [--threads N]\n"
    "       [--set KEY=VALUE]... [--dt S] [--measure-every N]\n"
    "                         the streamed tool loop: SCENE's tool driven by lines\n"
    "                         \"t x y z\" on stdin (or FILE), one \"t fx fy fz\" (the\n"
    "                         fluid's force on it, N) on stdout per line; tool.csv\n"
    "                         and run.json in DIR (default out/tool); see\n"
    "                         fluidlab tool --help\n"
    "  surface RUN_DIR [--spacing S] [--radius R] [--threads N] [--quiet]\n"
    "                         the fluid's surface from a run's saved frames: every\n"
    "                         RUN_DIR/frames/NNNN.bin (--save bin) to NNNN.obj, the\n"
    "                         same mesh --save obj writes; see fluidlab surface --help\n"
    "  bench [grid | surface | voxelize | SOLVER...] [options]\n"
    "                         timed benchmarks; rows appended to docs/perf/*.csv;\n"
    "                         bench surface: the surface of --scene's particles at rest\n"
    "                         (default flip_case1) rebuilt --repeat times, the field and\n"
    "                         marching cubes timed (--surface-spacing S: its grid;\n"
    "                         --frame FILE.bin: a saved frame's particles instead, on\n"
    "                         --scene as it is, which must be the frame's run's);\n"
    "                         bench voxelize: each mesh of --scene (default pbf_bunny)\n"
    "                         filled onto a grid of its particle spacing\n"
    "                         bench --tool: the tool loop's rate (see bench options)\n"
    "  render RUN_DIR [--frame N] [--gif]\n"
    "                         pictures of a run's saved frames (surfaces, or else\n"
    "                         particles, and the rigid tool) to DIR/render/NNNN.png,\n"
    "                         and with --gif DIR/render.gif; see fluidlab render --help\n"
    "  course [N [--out DIR] | --check [--only LIST]]\n"
    "                         the lessons of docs/course/, which follow the course\n"
    "                         deck into the code: the list, lesson N's commands and\n"
    "                         pictures (into DIR/N/, default out/course), or every\n"
    "                         exercise's outcome checked; see fluidlab course --help\n"
    "  kernels [--dims 2|3] [--h H] [--out DIR]\n"
    "                         the SPH kernels side by side (W, dW/dr, Laplacian) to\n"
    "                         DIR/kernels.csv, .png, .svg; see fluidlab kernels --help\n"
    "  list                   the solvers, the devices and the shipped scenes\n"
    "  --help, --version\n"
    "\n"
    "run options (each given once, but --set, --per-solver, --save and --plot, which add up;\n"
    "every command takes an option's value as the next word or after '=': --frames=3):\n"
    "  --solver NAME          solver to use (see `fluidlab list`), default sph\n"
    "  --dt S | cfl           fixed step in seconds, or cfl: each step at the solver's\n"
    "                         stability limit (overrides the scene's time.dt)\n"
    "  --substeps N           steps per frame (dt = 1 / (fps N))\n"
    "  --frames N             simulate N frames instead of the scene's duration\n"
    "  --set KEY=VALUE        override a scene key by its path, e.g. --set fluid.spacing=0.02\n"
    "                         or --set solvers.sph.stiffness=2000 (repeatable)\n"
    "  --per-solver NAME.KEY=VALUE\n"
    "                         a solver's parameter: --set solvers.NAME.KEY=VALUE\n"
    "  --out DIR              output folder, default out\n"
    "  --save LIST            also write particle frames, LIST of: bin (frames/NNNN.bin,\n"
    "                         positions), vtu (frames/NNNN.vtu, binary VTK XML, and\n"
    "                         frames.pvd: open it in ParaView as one time series),\n"
    "                         vtk (frames/NNNN.vtk, legacy ASCII VTK), obj (frames/NNNN.obj,\n"
    "                         the fluid's surface: a closed triangle mesh with normals),\n"
    "                         png (frames/NNNN.png: the particles coloured by --color,\n"
    "                         their numbers in NNNN.csv; run.gif at the end; a 3D run:\n"
    "                         the slice |z - z_mid| < d), grid (flip, pic: frames/\n"
    "                         NNNN_grid.png and .csv: pressure, velocity, divergence\n"
    "                         before and after the projection; a rigid tool's outline in\n"
    "                         NNNN_grid_tool.csv, solid meshes' in NNNN_grid_meshes.csv);\n"
    "                         png and grid need gnuplot\n"
    "  --color FIELD          --save png's colour: speed (default), density, pressure,\n"
    "                         vorticity or neighbors\n"
    "  --slice Z              a 3D run's pictures (--save png, grid) about the plane\n"
    "                         z = Z in metres (default the domain's middle)\n"
    "  --surface-spacing S    grid spacing of --save obj's surfaces in metres (default half\n"
    "                         the particle spacing; see fluidlab surface --help)\n"
    "  --device cpu|cuda|emu  where the particles live (default cpu): cuda runs sph,\n"
    "                         wcsph, pcisph and pbf on the GPU; emu runs the same GPU\n"
    "                         kernels on the CPU over the GPU's data layout (a check)\n"
    "  --threads N            OpenMP threads\n"
    "  --quiet                no progress line\n"
    "  --no-plot, --plot none do not draw DIR/summary.png and .svg with gnuplot\n"
    "  --plot live            also plot compression and max speed while it runs: a\n"
    "                         gnuplot window (qt or x11) when DISPLAY is set, else\n"
    "                         text on stdout every 2 s (compare: one plot per solver)\n"
    "\n"
    "bench options:\n"
    "  --particles N          fluid particles (the scene is resampled; 0: as it is);\n"
    "                         default 100000 for the dam break, other scenes as they are\n"
    "  --scene SCENE          workload scene, default dam_break\n"
    "  --set KEY=VALUE        override a scene key, as for run (repeatable)\n"
    "  --dt S                 fixed step in seconds (default: the scene's, scaled with\n"
    "                         the spacing)\n"
    "  --repeat R, --steps S  R timed runs of S steps (default 7 x 10), median/min/max\n"
    "                         of the step and of each stage (flip: each stage's parts\n"
    "                         under it, as (transfer: p2g))\n"
    "  --warmup W             untimed steps first (default 3)\n"
    "  --threads N            OpenMP threads\n"
    "  --device cpu|cuda|emu  where the solver steps (default cpu); a device's rows\n"
    "                         go to <solver>_<device>.csv, cpu's to <solver>.csv\n"
    "  --metrics              also compute the run's per-step metrics (compression with\n"
    "                         the shared estimator) inside the timed step, as run does\n"
    "                         (a device solver: on the device); timed as stage other\n"
    "  --log DIR, --no-log    where to append the CSV rows (default docs/perf)\n"
    "  --tool [SOLVER...]     the tool loop's rate (default pbf): scenes/tool_cup.json\n"
    "                         with its sphere submerged, moving (docs/figures.md,\n"
    "                         figure 8), or --scene's tool as the scene moves it, at\n"
    "                         the scene's dt (or --dt) whatever the size; --warmup W\n"
    "                         (default 5) then --steps S (default 100) steps of the\n"
    "                         tool loop (place the tool, step, sum its force; with\n"
    "                         --metrics the run's metrics too), timed one by one:\n"
    "                         mean, median, min, max ms and the rate 1000 / mean Hz;\n"
    "                         rows to tool_<solver>_<device>.csv\n"
    "  --sizes LIST           --tool: fluid particles of each case (default\n"
    "                         10000,20000; the scene resampled, its geometry kept)\n"
    "                         (where a step's time goes: the stages on stderr)\n"
    "  --solves N             flip, pic: after the timed runs, one more step keeps its\n"
    "                         last pressure system, solved again N times with MIC(0)\n"
    "                         and N times with the multigrid, taking turns, with the\n"
    "                         run's tolerance and warm start: iterations, ms (median,\n"
    "                         min, max), the preconditioner's set-up and applications\n"
    "                         (medians) and the ratio; rows to <solver>_solves.csv\n"
    "  --scaling [--out DIR]  each solver given (default sph wcsph pcisph pbf flip)\n"
    "                         at 1, 2, 4, ... threads up to --threads N (default every\n"
    "                         core), a benchmark each, then the speed-up over one\n"
    "                         thread: a table, DIR/scaling.csv and DIR/scaling.png,\n"
    "                         .svg (default DIR out/bench; the CPU solvers)\n"
    "\n"
    "output: DIR/stats.csv (one row per step), DIR/convergence.csv, DIR/run.json,\n"
    "DIR/summary.png and .svg (when gnuplot is installed), DIR/frames/ and\n"
    "DIR/frames.pvd with --save.\n"
    "Exit codes: 0 done, 1 bad input, 2 output error (run.json says incomplete),\n"
    "3 the run went unstable (see run.json), 4 figures, sweep, compare or validate: some\n"
    "runs failed or are missing (each recorded; --resume runs the missing),\n"
    "130 / 143 interrupted by SIGINT / SIGTERM (the run stops at the end of its\n"
    "step, run.json says interrupted; a second signal, 0.1 s or more after the\n"
    "first, stops at once).\n"
    "\n"
    "MPI: mpirun -np N fluidlab figures (or sweep, compare, validate) spreads the runs over\n"
    "N ranks, each run on --threads threads; the files are those of one rank.\n"
    "See docs/mpi.md.\n";

static int die(const char *fmt, const char *a)
{
    if (fl_dispatch_rank() != 0) /* every rank finds the same error: one says it */
        return 1;
    fprintf(stderr, "fluidlab: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 1;
}

static int parse_count(const char *s, int *out)
{
    double v;
    if (!fl_parse_number(s, &v) || v < 1 || v > 1e9 || v != floor(v))
        return 0;
    *out = (int)v;
    return 1;
}

static void list_scenes(void)
{
    static const char *names[] = {"dam_break",  "hydrostatic", "drop",       "dam_break_59k", "pbf_table1",
                                  "pbf_bunny",  "flip_case1",  "flip_case2", "flip_case3",    "flip_case4",
                                  "flip_case5", "flip_150",    "tool_cup",   "tool_drop",     "tool_buoyancy", "tool_bunny",
                                  "dam_break_2d", "hydrostatic_2d", "taylor_green_2d", "poiseuille_2d"};
    printf("scenes (in %s/scenes):\n", FL_SOURCE_DIR);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[1024];
        fl_resolve_scene(names[k], path, sizeof path);
        fl_scene s;
        fl_error err;
        if (fl_scene_load(path, NULL, 0, &s, &err) == FL_OK) {
            printf("  %-15s %lld particles%s, %.2f s: %s\n", names[k], s.fluid_count, s.dims == 2 ? " (2D)" : "",
                   s.duration, s.description);
            fl_scene_free(&s);
        } else {
            printf("  %-15s (%s)\n", names[k], err.msg);
        }
    }
}

static int cmd_list(void)
{
    printf("solvers:\n");
    for (int k = 0; fl_solvers[k]; k++)
        printf("  %-8s %s\n", fl_solvers[k]->name, fl_solvers[k]->summary);
    char names[128], cuda[600];
    fl_device_solvers(names, sizeof names);
#ifdef FL_HAVE_CUDA
    char dev[256];
    fl_error err;
    if (fl_cuda_device_query(dev, sizeof dev, &err) == FL_OK) {
        printf("CUDA: %s\n", dev);
        snprintf(cuda, sizeof cuda, "cuda (%s): %s", names, dev);
    } else {
        printf("CUDA: built, but %s\n", err.msg);
        snprintf(cuda, sizeof cuda, "cuda: built, but %s", err.msg);
    }
#else
    printf("CUDA: not built (no CUDA compiler at configure time)\n");
    snprintf(cuda, sizeof cuda, "cuda: not built");
#endif
    char mpi[128];
    fl_dispatch_describe(mpi, sizeof mpi);
    printf("MPI: %s\n", mpi);
    /* what --device takes, and which solvers each runs */
    printf("devices: cpu (all solvers); emu (%s: the CUDA kernels on the CPU); %s\n", names, cuda);
    list_scenes();
    return 0;
}

/* 1 when the CSV file at path has a data row under its header. */
static int has_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int lines = 0, ch;
    while (lines < 2 && (ch = fgetc(f)) != EOF)
        lines += ch == '\n';
    fclose(f);
    return lines >= 2;
}

/* Draws pictures NAME.png and .svg in dir with plots/SCRIPT: 0, or 2 with
 * one line on stderr when gnuplot drew them but either is not whole (a
 * full disk); when gnuplot fails, one line (what says which) and 0. */
static int plot_pair(const char *script, const char *dir, const char *name, const char *what)
{
    char msg[512];
    const int rc = fl_plot_render_pair(script, dir, name, msg, sizeof msg);
    if (rc == 1)
        fprintf(stderr, "fluidlab: %s skipped: %s\n", what, msg);
    else if (rc == 2)
        fprintf(stderr, "fluidlab: %s\n", msg);
    return rc == 2 ? 2 : 0;
}

/* DIR/summary.png and .svg from DIR/stats.csv, or one line saying why not:
 * 0, or 2 when a picture could not be written (plot_pair). */
static int plot_summary(const char *dir)
{
    char stats[1100];
    snprintf(stats, sizeof stats, "%s/stats.csv", dir);
    if (!has_rows(stats)) {
        fprintf(stderr, "fluidlab: summary plot skipped: no step completed, %s has no rows\n", stats);
        return 0;
    }
    if (!fl_plot_available()) {
        fprintf(stderr, "fluidlab: plots skipped: gnuplot not found (install it: apt-get install gnuplot-nox); "
                        "the CSV files are written\n");
        return 0;
    }
    return plot_pair(FL_SOURCE_DIR "/plots/run_summary.gp", dir, "summary", "summary plot");
}

/* The exit code of an interrupted command: 128 + the signal (130 SIGINT,
 * 143 SIGTERM). */
static int interrupted_exit(void)
{
    return 128 + fl_interrupted();
}

/* --per-solver SOLVER.KEY=VALUE is --set solvers.SOLVER.KEY=VALUE; the
 * spelled-out overrides live here, as the argv strings of --set do. */
static char per_solver_sets[FL_MAX_SETS][256];
static int per_solver_count;

/* The options run and compare share. Returns 1 when a is one of them (its
 * value, when it takes one, is v, and *takes says so), 0 when it is not, and
 * the exit code of die() on a bad value. */
static int run_option(const char *a, const char *v, fl_run_config *c, int *plot, int *takes)
{
    *takes = strcmp(a, "--dt") == 0 || strcmp(a, "--substeps") == 0 || strcmp(a, "--frames") == 0 ||
             strcmp(a, "--set") == 0 || strcmp(a, "--out") == 0 || strcmp(a, "--save") == 0 ||
             strcmp(a, "--threads") == 0 || strcmp(a, "--plot") == 0 || strcmp(a, "--per-solver") == 0 ||
             strcmp(a, "--device") == 0 || strcmp(a, "--surface-spacing") == 0 || strcmp(a, "--color") == 0 ||
             strcmp(a, "--slice") == 0;
    if (*takes && !v)
        return -die("%s: expected a value", a);
    if (strcmp(a, "--dt") == 0) {
        if (strcmp(v, "cfl") == 0)
            c->dt_cfl = 1;
        else if (!fl_parse_number(v, &c->dt) || c->dt <= 0.0)
            return -die("--dt: expected a positive number of seconds or cfl, got '%s'", v);
    } else if (strcmp(a, "--substeps") == 0) {
        /* the bound of the scene's time.substeps (scenes/README.md) */
        if (!parse_count(v, &c->substeps) || c->substeps > FL_SCENE_MAX_STEPS_PER_FRAME)
            return -die("--substeps: expected a whole number in [1, 1e5], got '%s'", v);
    } else if (strcmp(a, "--frames") == 0) {
        if (!parse_count(v, &c->frames))
            return -die("--frames: expected a whole number >= 1, got '%s'", v);
    } else if (strcmp(a, "--device") == 0) {
        if (!fl_device_known(v))
            return -die("--device: expected cpu, cuda or emu, got '%s'", v);
        c->device = v;
    } else if (strcmp(a, "--threads") == 0) {
        if (!parse_count(v, &c->threads) || c->threads > 256)
            return -die("--threads: expected a whole number in [1, 256], got '%s'", v);
    } else if (strcmp(a, "--set") == 0) {
        if (c->set_count == FL_MAX_SETS)
            return -die("--set %s: too many overrides", v);
        c->sets[c->set_count++] = v;
    } else if (strcmp(a, "--per-solver") == 0) {
        const char *dot = strchr(v, '.'), *eq = strchr(v, '=');
        if (!dot || dot == v || !eq || eq < dot + 2 || strlen(v) > 200)
            return -die("--per-solver %s: expected SOLVER.KEY=VALUE, e.g. pbf.solver_iterations=10", v);
        if (c->set_count == FL_MAX_SETS || per_solver_count == FL_MAX_SETS)
            return -die("--per-solver %s: too many overrides", v);
        char *s = per_solver_sets[per_solver_count++];
        snprintf(s, sizeof per_solver_sets[0], "solvers.%s", v);
        c->sets[c->set_count++] = s;
    } else if (strcmp(a, "--out") == 0) {
        if (v[0] == '\0')
            return -die("%s", "--out: expected a folder name, got an empty string");
        if (strlen(v) > FL_MAX_PATH) {
            fprintf(stderr, "fluidlab: --out: a path of %zu characters, expected at most %d\n", strlen(v),
                    FL_MAX_PATH);
            return -1;
        }
        c->out_dir = v;
    } else if (strcmp(a, "--save") == 0) {
        char buf[64];
        if (strlen(v) >= sizeof buf || strspn(v, ",") == strlen(v)) /* too long to be a list of the six, or empty */
            return -die("--save: expected a comma-separated list of bin, vtu, vtk, obj, png and grid, got '%s'", v);
        snprintf(buf, sizeof buf, "%s", v);
        for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
            if (strcmp(t, "bin") == 0)
                c->save_bin = 1;
            else if (strcmp(t, "vtk") == 0)
                c->save_vtk = 1;
            else if (strcmp(t, "vtu") == 0)
                c->save_vtu = 1;
            else if (strcmp(t, "obj") == 0)
                c->save_obj = 1;
            else if (strcmp(t, "png") == 0)
                c->save_png = 1;
            else if (strcmp(t, "grid") == 0)
                c->save_grid = 1;
            else
                return -die("--save: expected a comma-separated list of bin, vtu, vtk, obj, png and grid, got '%s'", v);
        }
    } else if (strcmp(a, "--color") == 0) {
        c->color = v;
    } else if (strcmp(a, "--slice") == 0) {
        if (!fl_parse_number(v, &c->slice_z))
            return -die("--slice: expected the z of the pictures' plane in metres, got '%s'", v);
        c->slice_set = 1;
    } else if (strcmp(a, "--surface-spacing") == 0) {
        if (!fl_parse_number(v, &c->surface_spacing) || c->surface_spacing <= 0.0)
            return -die("--surface-spacing: expected a positive number of metres, got '%s'", v);
    } else if (strcmp(a, "--quiet") == 0) {
        c->progress = 0;
    } else if (strcmp(a, "--no-plot") == 0 || (strcmp(a, "--plot") == 0 && strcmp(v, "none") == 0)) {
        *plot = 0;
    } else if (strcmp(a, "--plot") == 0) {
        if (strcmp(v, "live") != 0)
            return -die("--plot: expected live or none, got '%s'", v);
        c->live_plot = 1;
    } else {
        return 0;
    }
    return 1;
}

/* Whether the caller started the program with standard output closed
 * (main, reopen_closed_std). */
static int stdout_closed;

/* An option that takes one value (a, just read) given a second time: the
 * first value would be dropped unseen, so it is refused (1 and one line;
 * else 0). --set, --per-solver, --save and --plot (live and none are
 * switches of their own) add up, and may repeat (repeats: the command's
 * of them, for the message). */
static int given_twice(const char *a, fl_seen_options *seen, const char *repeats)
{
    if (strcmp(a, "--set") == 0 || strcmp(a, "--per-solver") == 0 || strcmp(a, "--save") == 0 ||
        strcmp(a, "--plot") == 0 || !fl_option_repeated(seen, a))
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg, "%s: given twice, expected it once (only %s repeat)", a, repeats);
    return die("%s", msg);
}

/* The command line of run, compare and sweep: each command's own options
 * that take a value (own[k], its value into *val[k]; checked first, so a
 * command may take over a run option's name), --resume where resume is
 * not NULL, the run options, and the one scene. Returns 0, or the exit
 * code of die(). */
static int parse_command(int argc, char **argv, fl_run_config *c, int *plot, const char *const *own,
                         const char **const *val, int *resume)
{
    const char *first_scene = c->scene;
    fl_seen_options seen = {.count = 0};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (resume && strcmp(a, "--resume") == 0) {
            *resume = 1;
            continue;
        }
        int mine = -1;
        for (int q = 0; own[q]; q++)
            if (strcmp(a, own[q]) == 0)
                mine = q;
        if (mine >= 0) {
            if (!v)
                return die("%s: expected a value", a);
            if (given_twice(a, &seen, "--set, --per-solver, --save and --plot"))
                return 1;
            *val[mine] = v;
            k++;
            continue;
        }
        int takes = 0, rc = run_option(a, v, c, plot, &takes);
        if (rc < 0)
            return -rc;
        if (takes && given_twice(a, &seen, "--set, --per-solver, --save and --plot"))
            return 1;
        if (rc == 0 && a[0] == '-')
            return die("%s: unknown option (see fluidlab --help)", a);
        if (rc == 0 && c->scene && c->scene != first_scene)
            return die("%s: more than one scene given", a);
        if (rc == 0 && strlen(a) > FL_MAX_PATH) {
            fprintf(stderr, "fluidlab: the scene's path has %zu characters, expected at most %d\n", strlen(a),
                    FL_MAX_PATH);
            return 1;
        }
        if (rc == 0)
            c->scene = a;
        k += takes;
    }
    if ((c->dt > 0.0 || c->dt_cfl) && c->substeps > 0) /* --substeps was ignored beside --dt */
        return die("%s", "--substeps: not with --dt (each sets the step: give one of them)");
    return 0;
}

/* Runs a command's run jobs over the ranks (fl_dispatch_run). Returns the
 * command's exit code on a rank other than 0 (0: rank 0 writes the files)
 * and after a fatal job (an output error, or bad input on the first run:
 * the scene or an override; printed, 2 or 1); else -1, with the runs
 * gathered by fl_run_jobs_gather (the missing counted in *missing). */
static int gather_runs(fl_jobs *j, fl_run_outcome *out, const fl_run_config *configs, int *missing)
{
    fl_dispatch_run(j);
    if (fl_dispatch_rank() != 0)
        return 0;
    const int k = fl_run_jobs_gather(j, out, configs, missing);
    return k >= 0 ? die("%s", out[k].error) + (out[k].code == FL_ERR_IO) : -1;
}

/* " on 3 ranks" after an MPI dispatch, "" on one rank. */
static const char *ranks_text(const fl_jobs *j, char *out, size_t len)
{
    if (j->ranks > 1)
        snprintf(out, len, " on %d ranks", j->ranks);
    else
        out[0] = '\0';
    return out;
}

static int cmd_run(int argc, char **argv)
{
    int plot = 1;
    fl_run_config c;
    fl_run_config_default(&c);
    c.progress = isatty(STDERR_FILENO);
    const char *own[] = {"--solver", NULL};
    const char **val[] = {&c.solver};
    int prc = parse_command(argc, argv, &c, &plot, own, val, NULL);
    if (prc)
        return prc;
    if (!c.scene)
        return die("%s", "run: expected a scene (a .json file or a name from `fluidlab list`)");
    fl_run_result res;
    fl_error err;
    int rc = fl_run(&c, &res, &err);
    if (rc) {
        die("%s", err.msg);
        return rc == FL_ERR_IO ? 2 : 1;
    }
    if (res.status == FL_RUN_INTERRUPTED) {
        fprintf(stderr, "fluidlab: %s: %s; the output so far is in %s/ (run.json: interrupted)\n", c.solver,
                res.reason, c.out_dir);
        return interrupted_exit();
    }
    if (plot && plot_summary(c.out_dir)) { /* run.json says so: the run's output is not whole */
        char reason[1200];
        fl_summary_lost(c.out_dir, &res, reason, sizeof reason);
        if (fl_run_json_mark_incomplete(c.out_dir, reason, &err))
            die("%s", err.msg);
        return 2;
    }
    if (res.status == FL_RUN_UNSTABLE) {
        fprintf(stderr, "fluidlab: %s: unstable at %s\n", c.solver, res.reason);
        return 3;
    }
    fprintf(stderr, "fluidlab: %s: %lld steps, %.4g s simulated in %.1f s, mean compression %.3f %%; output in %s/\n",
            c.solver, res.steps, res.sim_time, res.wall_s, 100.0 * res.mean_err_avg, c.out_dir);
    return 0;
}

static const char *tool_usage =
    "usage: fluidlab tool SCENE --solver NAME [--input FILE|-] [--out DIR] [--threads N]\n"
    "                     [--set KEY=VALUE]... [--per-solver NAME.KEY=VALUE]... [--dt S]\n"
    "                     [--measure-every N]\n"
    "\n"
    "The streamed tool loop: SCENE's tool (it must have one, e.g. tool_cup) starts\n"
    "at its first pose and then follows the input, one tick a line:\n"
    "  t x y z      the time (s, after the previous tick's; the loop starts at 0)\n"
    "               and the tool's centre (m) to reach by then\n"
    "Each tick is simulated in steps of the scene's dt (or --dt) that land on t\n"
    "(where a full step would leave a sliver, the last two are split evenly; a\n"
    "tick dt/2 to dt long is one step), the tool moving on the straight line to\n"
    "the target; then one line goes to stdout, flushed at once (for a haptic\n"
    "loop or a pipe):\n"
    "  t fx fy fz   the fluid's force on the tool after the tick's last step, N\n"
    "A tick less than dt/2 after the simulated time takes no step (no solver\n"
    "step is that short): it is answered with the force as it stands, and the\n"
    "next tick's steps take the tool on from where it is.\n"
    "Blank lines and lines starting with '#' are skipped. DIR (default out/tool)\n"
    "gets tool.csv (a row per step, docs/file_formats.md) and run.json.\n"
    "\n"
    "  --solver NAME  the solver (default sph; see fluidlab list)\n"
    "  --input FILE   the ticks (default -, stdin)\n"
    "  --out DIR      output folder, default out/tool\n"
    "  --dt S         the step, s (default: the scene's time.dt)\n"
    "  --measure-every N  measure the fluid's density (the run's compression\n"
    "                 metric: a neighbor search of its own) on steps 1, 1 + N,\n"
    "                 1 + 2N, ... (default 1: every step); between, the last\n"
    "                 measurement stands for the stability criterion (compression\n"
    "                 above 20 % for 10 steps) and run.json's mean. NaN and speed\n"
    "                 are checked every step. In a 1 kHz loop, 10 saves about a\n"
    "                 quarter of PBF's tick (docs/methods/tool.md)\n"
    "  --set KEY=VALUE, --per-solver NAME.KEY=VALUE, --threads N, --device D:\n"
    "                 as for fluidlab run\n"
    "\n"
    "Exit codes: 0 the input ended, 1 bad options or scene (nothing written) or a\n"
    "bad line (one line on stderr, <input>:<line>: why; run.json says incomplete),\n"
    "2 an output could not be written (stdout closed, a full disk), 3 unstable\n"
    "(run.json says why), 130 / 143 interrupted by SIGINT / SIGTERM.\n"
    "Example: printf '0.01 0.15 0.29 0.15\\n0.02 0.15 0.28 0.15\\n' |\n"
    "         fluidlab tool tool_cup --solver pbf\n";

static int cmd_tool(int argc, char **argv)
{
    int plot = 0;
    fl_run_config c;
    fl_run_config_default(&c);
    c.out_dir = "out/tool";
    const char *input = "-";
    /* the run options that apply to the loop */
    static const char *const shared[] = {"--out", "--threads", "--set", "--per-solver", "--dt", "--device", NULL};
    fl_seen_options seen = {.count = 0};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(tool_usage, stdout);
            return 0;
        }
        if (strcmp(a, "--measure-every") == 0) {
            if (given_twice(a, &seen, "--set and --per-solver"))
                return 1;
            if (!v)
                return die("%s: expected a value", a);
            if (!parse_count(v, &c.measure_every) || c.measure_every > 1000000)
                return die("--measure-every %s: expected a whole number of steps from 1 to 1000000", v);
            k++;
            continue;
        }
        if (strcmp(a, "--solver") == 0 || strcmp(a, "--input") == 0) {
            if (!v || !*v)
                return die("%s: expected a value", a);
            if (given_twice(a, &seen, "--set and --per-solver"))
                return 1;
            *(strcmp(a, "--solver") == 0 ? &c.solver : &input) = v;
            k++;
            continue;
        }
        int q = 0;
        while (shared[q] && strcmp(a, shared[q]) != 0)
            q++;
        if (shared[q]) {
            int takes, rc = run_option(a, v, &c, &plot, &takes);
            if (rc < 0)
                return -rc;
            if (given_twice(a, &seen, "--set and --per-solver"))
                return 1;
            k += takes;
        } else if (a[0] == '-') {
            return die("%s: unknown option (see fluidlab tool --help)", a);
        } else if (c.scene) {
            return die("%s: more than one scene given", a);
        } else if (strlen(a) > FL_MAX_PATH) {
            fprintf(stderr, "fluidlab: the scene's path has %zu characters, expected at most %d\n", strlen(a),
                    FL_MAX_PATH);
            return 1;
        } else {
            c.scene = a;
        }
    }
    if (!c.scene)
        return die("%s", "tool: expected a scene with a tool (a .json file or a name from `fluidlab list`)");
    fl_run_result res;
    fl_error err;
    int rc = fl_tool_stream(&c, input, stdout_closed ? NULL : stdout, &res, &err);
    if (rc) {
        die("%s", err.msg);
        return rc == FL_ERR_IO ? 2 : 1;
    }
    if (res.status == FL_RUN_INTERRUPTED) {
        fprintf(stderr, "fluidlab: tool: %s: %s; the output so far is in %s/ (run.json: interrupted)\n", c.solver,
                res.reason, c.out_dir);
        return interrupted_exit();
    }
    if (res.status == FL_RUN_UNSTABLE) {
        fprintf(stderr, "fluidlab: tool: %s: unstable at %s\n", c.solver, res.reason);
        return 3;
    }
    fprintf(stderr, "fluidlab: tool: %s: %lld ticks, %lld steps, %.4g s simulated in %.1f s; output in %s/\n",
            c.solver, res.ticks, res.steps, res.sim_time, res.wall_s, c.out_dir);
    return 0;
}

#define FL_MAX_COMPARE 16
#define FL_DEVICE_COUNT 3

/* DIR/compare_density.png and .svg from DIR/density.csv: 0, or 2 when a
 * picture could not be written (plot_pair). */
static int plot_compare(const char *dir)
{
    return plot_pair(FL_SOURCE_DIR "/plots/compare.gp", dir, "compare_density", "plots");
}

/* The devices of a comparison from a comma-separated list (--devices, or
 * the one of --device) into out, each usable here. Returns their count, or
 * minus the exit code of die(). */
static int compare_devices(const char *list, const char **out)
{
    static const char *const known[FL_DEVICE_COUNT] = {"cpu", "cuda", "emu"};
    char buf[64];
    if (strlen(list) >= sizeof buf || strspn(list, ",") == strlen(list))
        return -die("--devices: expected a comma-separated list of cpu, cuda and emu, got '%s'", list);
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int q = 0;
        while (q < FL_DEVICE_COUNT && strcmp(t, known[q]) != 0)
            q++;
        if (q == FL_DEVICE_COUNT)
            return -die("--devices: expected a comma-separated list of cpu, cuda and emu, got '%s'", list);
        for (int p = 0; p < n; p++)
            if (out[p] == known[q])
                return -die("--devices: '%s' given twice", t);
        out[n++] = known[q];
    }
    for (int p = 0; p < n; p++) {
        fl_error err;
        if (fl_device_check(out[p], &err))
            return -die("%s", err.msg);
    }
    return n;
}

/* The jobs of a comparison: the (solver, device) pairs that run. */
typedef struct compare_jobs {
    fl_run_config c;        /* the comparison's options */
    fl_compare_entry *e;
    int *entry;             /* the entry of each job */
    char (*sub)[1024];      /* each entry's run folder */
    int plot;
    int n;                  /* jobs */
} compare_jobs;

/* a run's summary plot, when the command draws them (ctx: its plot
 * flag, an int): 0, or 2 when it could not be written (plot_summary) */
static int summary_finish(const char *dir, void *ctx)
{
    return *(const int *)ctx ? plot_summary(dir) : 0;
}

/* The run of job k. */
static fl_run_config compare_config(const compare_jobs *cj, int k)
{
    const int q = cj->entry[k];
    fl_run_config c = cj->c;
    c.solver = cj->e[q].solver;
    c.device = cj->e[q].device;
    c.out_dir = cj->sub[q];
    return c;
}

static double compare_cost(int k, void *ctx)
{
    const fl_run_config c = compare_config(ctx, k);
    return fl_run_cost(&c);
}

/* ", rank 2" under MPI */
static const char *rank_text(char *out, size_t len)
{
    if (fl_dispatch_size() > 1)
        snprintf(out, len, ", rank %d", fl_dispatch_rank());
    else
        out[0] = '\0';
    return out;
}

static fl_job_state compare_job(int k, void *record, void *ctx)
{
    compare_jobs *cj = ctx;
    const fl_run_config c = compare_config(cj, k);
    char rank[32];
    if (c.progress)
        fprintf(stderr, "fluidlab: compare: run %d of %d, %s%s\n", k + 1, cj->n, cj->e[cj->entry[k]].label,
                rank_text(rank, sizeof rank));
    return fl_run_job(&c, k == 0, summary_finish, (void *)&cj->plot, record);
}

static int cmd_compare(int argc, char **argv)
{
    int plot = 1;
    fl_run_config c;
    fl_run_config_default(&c);
    c.out_dir = "out/compare";
    c.device = NULL; /* set only by --device, so that it can be told from --devices */
    c.progress = isatty(STDERR_FILENO);
    char list[512] = "";
    for (int k = 0; fl_solvers[k]; k++) /* default: every registered solver */
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? "," : "", fl_solvers[k]->name);
    const char *given = NULL, *devices = NULL;
    const char *own[] = {"--solvers", "--devices", NULL};
    const char **val[] = {&given, &devices};
    int resume = 0;
    int prc = parse_command(argc, argv, &c, &plot, own, val, &resume);
    if (prc)
        return prc;
    if (given)
        snprintf(list, sizeof list, "%s", given);
    if (!c.scene)
        return die("%s", "compare: expected a scene (a .json file or a name from `fluidlab list`)");
    if (devices && c.device)
        return die("%s", "compare: expected one of --device NAME and --devices LIST");
    if (plot && strchr(c.out_dir, '\''))
        return die("--out %s: a folder name with a quote cannot be passed to gnuplot (use another name, or --no-plot)",
                   c.out_dir);
    const char *solvers[FL_MAX_COMPARE];
    int ns = 0;
    char names[512];
    snprintf(names, sizeof names, "%s", list);
    for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!fl_solver_find(t))
            return die("--solvers: unknown solver '%s' (see fluidlab list)", t);
        for (int q = 0; q < ns; q++)
            if (strcmp(solvers[q], t) == 0)
                return die("--solvers: '%s' given twice", t);
        if (ns == FL_MAX_COMPARE)
            return die("--solvers %s: too many solvers", list);
        solvers[ns++] = t;
    }
    if (ns == 0)
        return die("%s", "--solvers: expected a comma-separated list of solvers");
    const char *dev[FL_DEVICE_COUNT];
    const int nd = compare_devices(devices ? devices : c.device ? c.device : "cpu", dev);
    if (nd < 0)
        return -nd;
    /* every (solver, device) pair, a solver's side by side; a solver
     * without a version on a device is recorded as unsupported, and only
     * when no pair can run is the comparison refused */
    fl_compare_entry e[FL_MAX_COMPARE * FL_DEVICE_COUNT];
    memset(e, 0, sizeof e);
    int n = 0, first = -1;
    for (int s = 0; s < ns; s++)
        for (int d = 0; d < nd; d++, n++) {
            fl_compare_entry *x = &e[n];
            x->solver = solvers[s];
            x->device = dev[d];
            snprintf(x->folder, sizeof x->folder, nd > 1 ? "%s_%s" : "%s", x->solver, x->device);
            snprintf(x->label, sizeof x->label, nd > 1 ? "%s (%s)" : "%s", x->solver, x->device);
            fl_error err;
            if (!fl_solver_on(x->solver, x->device, &err)) {
                x->unsupported = 1;
                snprintf(x->error, sizeof x->error, "%s", err.msg);
            } else if (first < 0) {
                first = n;
            }
        }
    if (first < 0)
        return die("%s", e[0].error);
    const char *dir = c.out_dir;
    static char sub[FL_MAX_COMPARE * FL_DEVICE_COUNT][1024];
    static int entry[FL_MAX_COMPARE * FL_DEVICE_COUNT];
    static fl_run_outcome out[FL_MAX_COMPARE * FL_DEVICE_COUNT];
    fl_job_state state[FL_MAX_COMPARE * FL_DEVICE_COUNT];
    compare_jobs cj = {c, e, entry, sub, plot, 0};
    fl_jobs jobs = {.run = compare_job, .ctx = &cj, .results = out, .result_size = sizeof out[0],
                    .cost = compare_cost, .state = state};
    static fl_run_config configs[FL_MAX_COMPARE * FL_DEVICE_COUNT];
    for (int k = 0; k < n; k++) { /* the first job is the first pair that runs: its bad input is everyone's */
        snprintf(sub[k], sizeof sub[k], "%s/%s", dir, e[k].folder);
        if (e[k].unsupported)
            continue;
        entry[jobs.n] = k;
        configs[jobs.n] = compare_config(&cj, jobs.n);
        state[jobs.n] = resume && fl_run_reload(&configs[jobs.n], &out[jobs.n]) ? FL_JOB_DONE : FL_JOB_MISSING;
        jobs.n++;
    }
    cj.n = jobs.n;
    int missing, rc = gather_runs(&jobs, out, configs, &missing);
    if (rc >= 0)
        return rc;
    for (int k = 0; k < jobs.n; k++) {
        fl_compare_entry *x = &e[entry[k]];
        x->ran = out[k].ran;
        x->result = out[k].result;
        snprintf(x->error, sizeof x->error, "%s", out[k].error);
    }
    fl_error err;
    if (fl_compare_write(dir, e, n, &err))
        return die("%s", err.msg) + 1;
    if (fl_interrupted()) {
        fprintf(stderr, "fluidlab: compare: interrupted; the runs so far and compare.csv, compare.md (the rest "
                        "marked not run; --resume runs them) are in %s/\n", dir);
        return interrupted_exit();
    }
    if (plot && fl_plot_available() && plot_compare(dir))
        return 2;
    int width = 8;
    for (int k = 0; k < n; k++)
        width = (int)strlen(e[k].label) > width ? (int)strlen(e[k].label) : width;
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &e[k].result;
        if (!e[k].ran)
            fprintf(stderr, "fluidlab: %-*s %s: %s\n", width, e[k].label,
                    e[k].unsupported ? "unsupported" : "did not run", e[k].error);
        else
            fprintf(stderr, "fluidlab: %-*s %s%s%s, %lld steps, %.1f s, mean compression %.3f %%\n", width,
                    e[k].label, fl_run_status_name(r->status), r->status == FL_RUN_STABLE ? "" : ": ",
                    r->status == FL_RUN_STABLE ? "" : r->reason, r->steps, r->wall_s, 100.0 * r->mean_err_avg);
    }
    char on[32];
    fprintf(stderr, "fluidlab: compare: output in %s/ (compare.csv, compare.md, density.csv%s)%s\n", dir,
            plot && fl_plot_available() ? ", compare_density.png/.svg" : "", ranks_text(&jobs, on, sizeof on));
    if (missing)
        fprintf(stderr, "fluidlab: compare: %d of %d runs failed or are missing (recorded in compare.csv; "
                        "--resume runs them again)\n", missing, jobs.n);
    return missing ? 4 : 0;
}

#define FL_MAX_SWEEP 64

/* Splits a comma-separated list of positive numbers into out (at most max);
 * the count, -1 on a bad entry (or a list too long to read), or -2 when it
 * holds more than max. whole: each must be a whole number. */
static int parse_list(const char *list, double *out, int max, int whole)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double v;
        if (n == max)
            return -2;
        if (!fl_parse_number(t, &v) || !(v > 0.0) || (whole && v != floor(v)))
            return -1;
        out[n++] = v;
    }
    return n;
}

/* The jobs of a sweep: its cases, each the sweep's options with its step,
 * iteration overrides and folder. */
typedef struct sweep_jobs {
    fl_run_config c;
    fl_sweep_case *cases;
    char (*sets)[4][128];   /* each case's iteration overrides */
    int *nsets;
    int n;
    int plot;               /* each case's summary plot drawn */
} sweep_jobs;

static fl_run_config sweep_config(const sweep_jobs *sj, int k)
{
    fl_run_config c = sj->c;
    c.dt = sj->cases[k].dt;
    c.substeps = sj->cases[k].substeps;
    for (int q = 0; q < sj->nsets[k]; q++)
        c.sets[c.set_count++] = sj->sets[k][q];
    c.out_dir = sj->cases[k].dir;
    return c;
}

static double sweep_cost(int k, void *ctx)
{
    const fl_run_config c = sweep_config(ctx, k);
    return fl_run_cost(&c);
}

static fl_job_state sweep_job(int k, void *record, void *ctx)
{
    const sweep_jobs *sj = ctx;
    const fl_run_config c = sweep_config(sj, k);
    char rank[32];
    if (c.progress)
        fprintf(stderr, "fluidlab: sweep: case %d of %d%s\n", k + 1, sj->n, rank_text(rank, sizeof rank));
    return fl_run_job(&c, k == 0, summary_finish, (void *)&sj->plot, record);
}

static int cmd_sweep(int argc, char **argv)
{
    int plot = 1;
    fl_run_config c;
    fl_run_config_default(&c);
    c.out_dir = "out/sweep";
    c.progress = isatty(STDERR_FILENO);
    const char *dt_list = NULL, *sub_list = NULL, *it_list = NULL;
    const char *own[] = {"--solver", "--dt", "--substeps", "--iters", NULL};
    const char **val[] = {&c.solver, &dt_list, &sub_list, &it_list};
    int resume = 0;
    int prc = parse_command(argc, argv, &c, &plot, own, val, &resume);
    if (prc)
        return prc;
    if (!c.scene)
        return die("%s", "sweep: expected a scene (a .json file or a name from `fluidlab list`)");
    if (!fl_solver_find(c.solver))
        return die("--solver: unknown solver '%s' (see fluidlab list)", c.solver);
    fl_error err;
    const fl_solver_ops *ops = fl_solver_on(c.solver, c.device, &err); /* every case runs on --device */
    if (!ops)
        return die("%s", err.msg);
    if (!dt_list == !sub_list)
        return die("%s", "sweep: expected one of --dt LIST (seconds) or --substeps LIST (steps per frame)");
    double steps[FL_MAX_SWEEP], iters[FL_MAX_SWEEP];
    int ns = parse_list(dt_list ? dt_list : sub_list, steps, FL_MAX_SWEEP, sub_list != NULL);
    if (ns == -2)
        return die("%s: more than 64 values (a sweep runs at most 64 cases)", dt_list ? "--dt" : "--substeps");
    for (int k = 0; sub_list && k < ns; k++)
        if (steps[k] > FL_SCENE_MAX_STEPS_PER_FRAME) /* the bound of time.substeps */
            ns = -1;
    if (ns <= 0)
        return die(dt_list ? "--dt %s: expected a comma-separated list of positive seconds"
                           : "--substeps %s: expected a comma-separated list of whole numbers in [1, 1e5]",
                   dt_list ? dt_list : sub_list);
    int ni = 1;
    iters[0] = 0.0;
    if (it_list) {
        if (!ops->iteration_keys)
            return die("--iters: solver '%s' has no iteration count to set", c.solver);
        ni = parse_list(it_list, iters, FL_MAX_SWEEP, 1);
        if (ni == -2)
            return die("%s", "--iters: more than 64 values (a sweep runs at most 64 cases)");
        if (ni <= 0)
            return die("--iters %s: expected a comma-separated list of whole numbers >= 1", it_list);
        /* what --iters sets besides the counts must not be given too: it would be set aside unseen */
        for (int q = 0; ops->iteration_fixed && ops->iteration_fixed[q]; q++) {
            char key[128];
            snprintf(key, sizeof key, "solvers.%s.%.*s=", c.solver,
                     (int)strcspn(ops->iteration_fixed[q], "="), ops->iteration_fixed[q]);
            for (int k = 0; k < c.set_count; k++)
                if (strncmp(c.sets[k], key, strlen(key)) == 0) {
                    char msg[300];
                    snprintf(msg, sizeof msg, "--iters: sets solvers.%s.%s so that nothing ends the iterations "
                             "early: not with --set %.100s", c.solver, ops->iteration_fixed[q], c.sets[k]);
                    return die("%s", msg);
                }
        }
    }
    if (ns * ni > FL_MAX_SWEEP)
        return die("sweep: more than 64 cases", "");
    const char *dir = c.out_dir;
    static fl_sweep_case cases[FL_MAX_SWEEP];
    memset(cases, 0, sizeof cases);
    static char set_text[FL_MAX_SWEEP][4][128];
    int nsets[FL_MAX_SWEEP];
    static fl_run_outcome out[FL_MAX_SWEEP];
    fl_job_state state[FL_MAX_SWEEP];
    const int n = ns * ni;
    sweep_jobs sj = {c, cases, set_text, nsets, n, plot};
    for (int a = 0, k = 0; a < ns; a++) /* the plan, so that sweep.csv lists the cases an interrupt leaves out */
        for (int b = 0; b < ni; b++, k++) {
            fl_sweep_case *sc = &cases[k];
            sc->dt = dt_list ? steps[a] : 0.0;
            sc->substeps = sub_list ? (int)steps[a] : 0;
            sc->iterations = (int)iters[b];
            snprintf(sc->dir, sizeof sc->dir, "%s/case_%02d", dir, k + 1);
            nsets[k] = 0;
            for (int q = 0; it_list && q < 4 && ops->iteration_keys[q]; q++) {
                if (c.set_count + nsets[k] == FL_MAX_SETS)
                    return die("%s", "sweep: too many --set overrides");
                snprintf(set_text[k][nsets[k]], sizeof set_text[k][0], "solvers.%s.%s=%d", c.solver,
                         ops->iteration_keys[q], sc->iterations);
                nsets[k]++;
            }
            for (int q = 0; it_list && ops->iteration_fixed && ops->iteration_fixed[q] && nsets[k] < 4; q++) {
                if (c.set_count + nsets[k] == FL_MAX_SETS)
                    return die("%s", "sweep: too many --set overrides");
                snprintf(set_text[k][nsets[k]], sizeof set_text[k][0], "solvers.%s.%s", c.solver,
                         ops->iteration_fixed[q]);
                nsets[k]++;
            }
        }
    fl_jobs jobs = {.n = n, .run = sweep_job, .ctx = &sj, .results = out, .result_size = sizeof out[0],
                    .cost = sweep_cost, .state = state};
    static fl_run_config configs[FL_MAX_SWEEP];
    for (int k = 0; k < n; k++) {
        configs[k] = sweep_config(&sj, k);
        state[k] = resume && fl_run_reload(&configs[k], &out[k]) ? FL_JOB_DONE : FL_JOB_MISSING;
    }
    int missing, rc = gather_runs(&jobs, out, configs, &missing);
    if (rc >= 0)
        return rc;
    for (int k = 0; k < n; k++) {
        cases[k].ran = out[k].ran;
        cases[k].result = out[k].result;
        snprintf(cases[k].error, sizeof cases[k].error, "%s", out[k].error);
    }
    if (fl_sweep_write(dir, cases, n, &err))
        return die("%s", err.msg) + 1;
    if (fl_interrupted()) {
        fprintf(stderr, "fluidlab: sweep: interrupted; the cases so far and sweep.csv, sweep.md (the rest marked "
                        "not run; --resume runs them) are in %s/\n", dir);
        return interrupted_exit();
    }
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &cases[k].result;
        if (!cases[k].ran)
            fprintf(stderr, "fluidlab: case %d did not run: %s\n", k + 1, cases[k].error);
        else if (r->status != FL_RUN_STABLE)
            fprintf(stderr, "fluidlab: case %d unstable at %s\n", k + 1, r->reason);
        else
            fprintf(stderr, "fluidlab: case %d stable, %lld steps, mean compression %.3f %%\n", k + 1, r->steps,
                    100.0 * r->mean_err_avg);
    }
    char on[32];
    fprintf(stderr, "fluidlab: sweep: output in %s/ (sweep.csv, sweep.md, case_NN/)%s\n", dir,
            ranks_text(&jobs, on, sizeof on));
    if (missing)
        fprintf(stderr, "fluidlab: sweep: %d of %d cases failed or are missing (recorded in sweep.csv; --resume "
                        "runs them again)\n", missing, n);
    return missing ? 4 : 0;
}

/* The command of argv[1] (none: the default job); its exit code. */
static int command(int argc, char **argv)
{
    const char *cmd = argc < 2 ? "figures" : argv[1];
    /* the commands that run scenes stop cleanly at the end of a step (surface, render: of a frame; bench:
     * of a benchmark) */
    if (strcmp(cmd, "run") == 0 || strcmp(cmd, "compare") == 0 || strcmp(cmd, "sweep") == 0 ||
        strcmp(cmd, "figures") == 0 || strcmp(cmd, "tool") == 0 || strcmp(cmd, "surface") == 0 ||
        strcmp(cmd, "course") == 0 || strcmp(cmd, "validate") == 0 || strcmp(cmd, "render") == 0 ||
        strcmp(cmd, "bench") == 0)
        fl_interrupt_install();
    /* under MPI, the commands whose runs are spread over the ranks; another
     * would run once per rank into the same folder */
    if (fl_dispatch_size() > 1 && strcmp(cmd, "figures") != 0 && strcmp(cmd, "sweep") != 0 &&
        strcmp(cmd, "compare") != 0 && strcmp(cmd, "course") != 0 && strcmp(cmd, "validate") != 0)
        return die("%s: runs on one rank; under mpirun use figures, sweep, compare, validate or course --check "
                   "(docs/mpi.md)",
                   cmd);
    if (argc < 2) {
        char *def[] = {"--quick"};
        return fl_figures_main(1, def);
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "kernels") == 0) /* with its own help */
        return fl_kernels_main(argc - 2, argv + 2);
    /* COMMAND --help: run, compare, sweep, bench and list are described in
     * the one help (tool, figures, validate, render and surface have their own) */
    for (int k = 2; k < argc && strcmp(cmd, "tool") != 0 && strcmp(cmd, "figures") != 0 && strcmp(cmd, "render") != 0 &&
                    strcmp(cmd, "surface") != 0 && strcmp(cmd, "course") != 0 && strcmp(cmd, "validate") != 0;
         k++)
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
    if ((strcmp(cmd, "--version") == 0 || strcmp(cmd, "list") == 0) && argc > 2)
        return die("%s: unexpected argument (see fluidlab --help)", argv[2]);
    if (strcmp(cmd, "--version") == 0) {
        printf("fluidlab %s (commit %s)\n", FL_VERSION, FL_COMMIT);
        return 0;
    }
    if (strcmp(cmd, "list") == 0)
        return cmd_list();
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 2, argv + 2);
    if (strcmp(cmd, "sweep") == 0)
        return cmd_sweep(argc - 2, argv + 2);
    if (strcmp(cmd, "tool") == 0)
        return cmd_tool(argc - 2, argv + 2);
    if (strcmp(cmd, "figures") == 0)
        return fl_figures_main(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0)
        return fl_bench_main(argc - 2, argv + 2);
    if (strcmp(cmd, "render") == 0)
        return fl_render_main(argc - 2, argv + 2);
    if (strcmp(cmd, "surface") == 0)
        return fl_surface_main(argc - 2, argv + 2);
    if (strcmp(cmd, "course") == 0)
        return fl_course_main(argc - 2, argv + 2);
    if (strcmp(cmd, "validate") == 0)
        return fl_validate_main(argc - 2, argv + 2);
    return die("%s: unknown command (see fluidlab --help)", cmd);
}

/* Standard input, output and error that the caller closed are opened on
 * /dev/null, so that the next file opened does not take their number (a
 * run's CSV would get what is printed); returns 1 when stdout was closed. */
static int reopen_closed_std(void)
{
    int out_closed = 0;
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            out_closed |= fd == 1;
            if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
                return -1;
        }
    return out_closed;
}

/* GNU's --option=value as --option value, for every command: argv with
 * each such word split at its first '=' (the words live as long as the
 * process; argv itself when there is none). */
static char **split_option_values(int *argc, char **argv)
{
    static char **out;
    int extra = 0;
    for (int k = 1; k < *argc; k++)
        extra += strncmp(argv[k], "--", 2) == 0 && strchr(argv[k], '=') != NULL;
    if (!extra || !(out = malloc(sizeof *out * (size_t)(*argc + extra + 1))))
        return argv;
    int m = 0;
    for (int k = 0; k < *argc; k++) {
        const char *eq = k > 0 && strncmp(argv[k], "--", 2) == 0 ? strchr(argv[k], '=') : NULL;
        char *name = eq ? strndup(argv[k], (size_t)(eq - argv[k])) : NULL;
        if (!name) {
            out[m++] = argv[k];
            continue;
        }
        out[m++] = name;
        out[m++] = (char *)eq + 1;
    }
    out[m] = NULL;
    *argc = m;
    return out;
}

int main(int argc, char **argv)
{
    /* a file-size limit (ulimit -f) then fails a write with EFBIG, which is
     * reported like a full disk, instead of killing the process */
    signal(SIGXFSZ, SIG_IGN);
    if ((stdout_closed = reopen_closed_std()) < 0)
        return 2;
    fl_error err;
    if (fl_dispatch_init(&argc, &argv, &err) != FL_OK) {
        if (err.msg[0])
            fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    argv = split_option_values(&argc, argv);
    const int rc = command(argc, argv);
    fl_dispatch_finish(rc);
    return rc;
}
