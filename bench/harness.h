/* harness.h: runs one scene under one solver and writes its output folder,
 * with the metrics computed the same way for every solver (docs/design.md,
 * Metrics); and the benchmarks of `fluidlab bench`. Only bench/ prints. */
#ifndef FL_HARNESS_H
#define FL_HARNESS_H

#include <stdio.h>

#include "scene.h"
#include "solver.h"
#include "tool.h"

#define FL_MAX_SETS 64

/* The longest path fluidlab takes for a scene or an output folder: the
 * files inside it must still fit in its path buffers. */
#define FL_MAX_PATH 900

typedef struct fl_run_config {
    const char *scene;            /* path, or a name from scenes/ */
    const char *solver;
    const char *device;           /* "cpu" (default), "cuda", or "emu" (the CUDA kernels on the CPU) */
    double dt;                    /* s; 0 = from the scene */
    int dt_cfl;                   /* --dt cfl: adapt each step to the solver's stability limit */
    int substeps;                 /* steps per frame; 0 = from the scene */
    int frames;                   /* frames to simulate; 0 = the scene's duration */
    const char *sets[FL_MAX_SETS];
    int set_count;
    const char *out_dir;          /* default "out" */
    int save_bin, save_vtk;       /* --save bin, vtk: frames/NNNN.bin, .vtk (legacy ASCII) */
    int save_vtu;                 /* --save vtu: frames/NNNN.vtu (binary VTK XML) and frames.pvd */
    int save_obj;                 /* --save obj: frames/NNNN.obj, the fluid's surface (grid/blobby.h) */
    double surface_spacing;       /* --surface-spacing: its grid spacing, m; 0 = half the particle spacing */
    int save_png;                 /* --save png: frames/NNNN.png (and .csv), the particles coloured by a field,
                                     and run.gif at the end (bench/pictures.h) */
    int save_grid;                /* --save grid: frames/NNNN_grid.csv and .png, a grid solver's MAC grid */
    const char *color;            /* --color: the field of --save png (fl_color_names); NULL = speed */
    int slice_set;                /* --slice Z given: */
    double slice_z;               /* the plane z = Z (m) of a 3D run's pictures; else the domain's middle */
    int threads;                  /* 0 = OpenMP's default */
    int progress;                 /* progress line on stderr */
    int live_plot;                /* --plot live: compression and speed streamed to gnuplot (plots/live.h) */
    int measure_every;            /* fluidlab tool: the density metric every N steps (default 1), the last
                                     measurement standing between */
} fl_run_config;

/* How a run ended; run.json's result.status is its name
 * (fl_run_status_name), or "running" while it goes on. */
typedef enum fl_run_status {
    FL_RUN_STABLE = 0,      /* to the end, within the stability criteria */
    FL_RUN_UNSTABLE = 1,    /* broke a stability criterion; reason says which, at which step */
    FL_RUN_INTERRUPTED = 2, /* SIGINT or SIGTERM: stopped at the end of a step */
    FL_RUN_INCOMPLETE = 3   /* an output could not be written (fl_run returned FL_ERR_IO) */
} fl_run_status;

/* "stable", "unstable", "interrupted", "incomplete". */
const char *fl_run_status_name(fl_run_status s);

typedef struct fl_run_result {
    fl_run_status status;
    char reason[256];             /* why it was unstable, "" when stable */
    long long steps;              /* steps taken */
    int frames_saved;             /* particle frames written (--save), the initial one included */
    double sim_time;              /* s */
    double wall_s;                /* s */
    double mean_err_avg;          /* mean over steps of the avg compression error */
    long long ticks;              /* fl_tool_stream: the input's ticks run to their end */
    long long deferred;           /* and those of them less than dt / 2 after the simulation's time: no step */
} fl_run_result;

void fl_run_config_default(fl_run_config *c);

/* The scene path for a name ("dam_break") or a path ("x/y.json"): a path
 * that exists is used as it is, otherwise <source>/scenes/<name>.json. */
void fl_resolve_scene(const char *name, char *out, int len);

/* A run folder's DIR/run.json parsed into *root (free it with
 * cJSON_Delete): FL_OK, or FL_ERR_INPUT with one line in err when it
 * cannot be read or does not parse as JSON. */
struct cJSON;
int fl_run_json_read(const char *dir, struct cJSON **root, fl_error *err);

/* The domain of the scene a parsed run.json records (scene.domain; a 2D
 * scene's is the world's, one spacing thick in z): 1, or 0 when it has
 * none with min < max on every axis. */
int fl_run_json_domain(const struct cJSON *root, fl_box *box);

/* Rewrites DIR/run.json's result as "incomplete" with reason (an output
 * written after the run, such as its summary plot, could not be): FL_OK, or
 * FL_ERR_IO / FL_ERR_INPUT with one line in err. */
int fl_run_json_mark_incomplete(const char *dir, const char *reason, fl_error *err);

/* The reason a run becomes incomplete when its summary plot in dir cannot
 * be written: the files, and the run's own result (res) kept in words. */
void fl_summary_lost(const char *dir, const fl_run_result *res, char *reason, int len);

/* The fluid spacing of the scene a parsed run.json records (scene.fluid.spacing), m; 0
 * when it has none above 0. */
double fl_run_json_spacing(const struct cJSON *root);

/* The dimensions of the scene a parsed run.json records: 2 or 3. */
int fl_run_json_dims(const struct cJSON *root);

/* Validates everything (scene, overrides, solver, parameters, memory), then
 * creates the output folder and runs. Bad input returns FL_ERR_INPUT (or
 * FL_ERR_MEMORY) before anything is written. An unstable or interrupted
 * run is a result, not an error. A write that fails ends the run with
 * FL_ERR_IO, status FL_RUN_INCOMPLETE and run.json saying "incomplete"
 * (where the disk still takes it; it says "running" otherwise). */
int fl_run(const fl_run_config *c, fl_run_result *res, fl_error *err);

/* `fluidlab tool`: the streamed tool loop. The scene (c->scene, with
 * c->sets) must have a tool; it starts at the tool's first pose and is
 * then driven by input ("-": stdin), a tick a line: "t x y z", the time
 * (s, after the previous tick's) and the centre (m) to reach by then.
 * Each tick is cut into steps of c->dt (0: the scene's), the last one
 * shortened to land on t, each the tool loop's fl_tool_loop_step with the
 * run's stability criteria and metrics (the density, a neighbor search,
 * every c->measure_every steps from the first; between, the last
 * measurement stands for the compression criterion and the mean); then "t fx fy fz" (the last step's
 * force on the tool, N) goes to stdout, flushed. Blank lines and lines
 * starting with '#' are skipped. c->out_dir gets tool.csv (a row per step)
 * and run.json, as fl_run writes them.
 * The answers go to out; NULL (the caller's stdout was closed): FL_ERR_IO
 * once the options and the scene are checked, nothing written.
 * Bad options or scene: FL_ERR_INPUT before anything is written. Bad
 * input on a line (not four finite numbers, a time not after the last, a
 * target that puts the tool outside the domain): FL_ERR_INPUT with
 * "<input>:<line>: ..." in err, and run.json says "incomplete" with it; a
 * failed write (tool.csv, or stdout: a closed pipe) FL_ERR_IO, the same.
 * An unstable or interrupted loop is a result (res->status). */
int fl_tool_stream(const fl_run_config *c, const char *input, FILE *out, fl_run_result *res, fl_error *err);

/* Builds the world of a scene with its tool, as fl_run does: the world
 * (fl_build_world) and, when the scene has a tool, the tool in it
 * (fl_tool_init, s->tool's motion). FL_ERR_INPUT with "<scene>: tool: ..."
 * when it does not fit; the world is freed after a failure. */
int fl_build_world_tool(const fl_scene *s, fl_world *w, fl_tool *t, fl_error *err);

/* One step of the tool loop, and of every run: the tool placed
 * (fl_tool_before_step), the solver's step, w->time += dt (after a failed
 * step too), and the fluid's force on the tool into *row
 * (fl_tool_after_step); without a tool (w->tool.active 0) the solver's step
 * alone. FL_OK, or the failure's code with its reason in err: the tool's,
 * the solver's (st->failure), else for FL_ERR_OUTSIDE "a particle left the
 * neighbor grid (NaN or blow-up)", or "the solver's step failed (code N)". */
int fl_tool_loop_step(const fl_solver_ops *ops, void *solver, fl_world *w, fl_tool *t, double dt, fl_step_stats *st,
                      fl_tool_report *row, fl_error *err);

/* The tool-loop rate's workload (`fluidlab bench --tool`, `figures`'
 * figure 8), an override of scenes/tool_cup.json: the sphere in its
 * sideways phase from the start, submerged at the cup's bottom and moving
 * towards the wall at 0.19 m/s, with the scene's adhesion and damping. */
#define FL_TOOL_RATE_PATH \
    "tool.path=[{\"t\":0,\"position\":[0.15,0.08,0.15]},{\"t\":0.45,\"position\":[0.065,0.08,0.15]}]"

/* SIGINT and SIGTERM from now on: the running fl_run stops at the end of
 * its step (status FL_RUN_INTERRUPTED) and the callers stop starting new
 * runs; a second signal ends the process at once. */
void fl_interrupt_install(void);

/* The signal received since fl_interrupt_install (SIGINT or SIGTERM), or 0. */
int fl_interrupted(void);

/* Opens path for writing (replacing it), or NULL with "<path>: cannot
 * write: <why>" in err. */
FILE *fl_open_written(const char *path, fl_error *err);

/* Closes f, written to path: FL_OK when every write reached the file,
 * else FL_ERR_IO with "<path>: write failed: <why>" (a full disk often
 * shows only when the last buffer is flushed). */
int fl_close_written(FILE *f, const char *path, fl_error *err);

/* DIR/NAME, an animated GIF of the pictures DIR/PICS/NNNN.png (w x h
 * pixels) in name order at fps frames a second (plots/run_gif.gp),
 * written whole to NAME.tmp and renamed; gnuplot's messages in
 * DIR/gnuplot.log. FL_ERR_IO with one line when it fails (the .tmp
 * removed). The GIF of `run --save png` (frames, run.gif) and of `render
 * --gif` (render, render.gif). */
int fl_write_gif(const char *dir, const char *pics, const char *name, int w, int h, double fps, fl_error *err);

/* The floor of the stability criterion's speed scale, m/s. */
#define FL_STABILITY_MIN_SPEED 1.0

/* Stability criteria of docs/design.md ("Stability"): stable until one of
 * them fails: no NaN or Inf; max speed at most 10 U, with the speed scale
 * U = max(sqrt(2 |g| H), the largest initial fluid speed, 1 m/s) and H the
 * domain's height; average compression above 20 % for fewer than 10
 * consecutive steps. */
typedef struct fl_stability {
    double speed_scale;           /* U, m/s */
    double speed_limit;           /* 10 U, m/s */
    int over_compressed;          /* consecutive steps with avg compression > 20 % */
} fl_stability;

void fl_stability_init(fl_stability *s, const fl_world *w);

/* Returns 0 while stable, else 1 with the reason in reason. */
int fl_stability_check(fl_stability *s, const fl_step_stats *st, char *reason, int len);

/* Compression error of the world's fluid with the shared estimator; g is
 * the harness's own neighbor grid. Returns FL_ERR_OUTSIDE when a particle
 * left the grid. */
int fl_measure_density(const fl_world *w, fl_nbgrid *g, float *rho, fl_step_stats *st,
                       fl_error *err);

/* The harness's metrics of a step (docs/design.md, Metrics): the
 * compression of the shared estimator and the fluid's bounding box,
 * computed where the particles are: on the device for a device solver
 * (fl_solver_ops.measure), else from the world's particles on the
 * harness's own neighbor grid. */
typedef struct fl_metrics {
    const fl_solver_ops *ops;
    void *solver;
    fl_nbgrid grid;               /* a CPU solver's: the harness's grid */
    float *rho;                   /* and its densities */
} fl_metrics;

/* Sets up the metrics of solver (ops) on the world w; FL_ERR_MEMORY with
 * one line in err when they do not fit. Zeroed first, so that
 * fl_metrics_free is safe after a failure. */
int fl_metrics_init(fl_metrics *m, const fl_solver_ops *ops, void *solver, const fl_world *w, fl_error *err);

/* The metrics after a step into st (density_err_avg, density_err_max) and
 * lo, hi; FL_ERR_OUTSIDE when a particle left the grid. */
int fl_metrics_step(fl_metrics *m, const fl_world *w, fl_step_stats *st, double lo[3], double hi[3], fl_error *err);

void fl_metrics_free(fl_metrics *m);

/* The names of the solvers that the devices (cuda, emu) run, as a list
 * ("sph, wcsph, pcisph, pbf"); every solver runs on the CPU. */
void fl_device_solvers(char *out, int len);

/* 1 when name is one of the devices: "cpu", "cuda", "emu". */
int fl_device_known(const char *name);

/* FL_OK when device ("cpu", "cuda", "emu"; NULL: "cpu") can run solvers
 * here, else one line in err: FL_ERR_INPUT for an unknown name,
 * FL_ERR_DEVICE for a CUDA backend not built or without a usable device
 * (the CUDA runtime's reason). */
int fl_device_check(const char *device, fl_error *err);

/* The solver `name` on `device` ("cpu", "cuda", "emu"; NULL: "cpu"), or
 * NULL with one line in err: an unknown solver or device, a solver the
 * device does not run, a CUDA backend not built or without a usable
 * device (the CUDA runtime's reason). */
const fl_solver_ops *fl_solver_on(const char *name, const char *device, fl_error *err);

/* The grid spacing of --save obj's surfaces, m: c->surface_spacing, or
 * half the world's particle spacing when that is 0. */
double fl_surface_spacing(const fl_run_config *c, const fl_world *w);

/* Builds the world of a scene, boundary volumes included. */
int fl_build_world(const fl_scene *s, fl_world *w, fl_error *err);

/* Creates the folder path and its parents (mkdir -p). */
int fl_make_dirs(const char *path, fl_error *err);

/* Machine description ("cpu model, N cores, M GiB") for logs. */
void fl_machine_description(char *out, int len);

/* `fluidlab bench`: argv are the words after "bench". Returns an exit code. */
int fl_bench_main(int argc, char **argv);

/* The options of one value seen so far on a command line. */
typedef struct fl_seen_options {
    const char *name[32];
    int count;
} fl_seen_options;

/* 1 when option a was seen before on this command line (given twice: the
 * first value would be dropped unseen, and the commands refuse it), else
 * 0, and a is remembered. */
int fl_option_repeated(fl_seen_options *seen, const char *a);

/* Parses the whole string s as a finite decimal number into *out; 0 when it
 * is not one (empty, trailing characters, out of range, hexadecimal). */
int fl_parse_number(const char *s, double *out);

#endif
