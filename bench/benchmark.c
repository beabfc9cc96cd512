/* benchmark.c: `fluidlab bench`, the timed benchmarks every issue reports.
 *
 * The workload is a shipped scene (default: the dam break) resampled at the
 * spacing that gives about --particles fluid particles, with dt scaled with
 * the spacing so that the CFL number stays that of the scene. Warm-up steps
 * are kept out; then --repeat runs of --steps steps are timed, and the median,
 * min and max of the ms per step (and of each stage) are reported, with the
 * machine, thread count, commit and command. --set overrides scene keys
 * (solver parameters among them) as in `fluidlab run`; --dt fixes the step
 * instead of scaling the scene's. Rows are appended to
 * docs/perf/<benchmark>.csv (or --log DIR) for docs/PERFORMANCE.md. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "blobby.h"
#include "io.h"
#include "voxelize.h"
#include "fl_commit.h"
#include "flip.h"
#include "harness.h"
#include "plot.h"
#ifdef FL_HAVE_CUDA
#include "cuda_device.h"
#endif

typedef struct bench_opts {
    const char *scene;
    const char *device;                /* --device: "cpu", "cuda", "emu" */
    const char *sets[FL_MAX_SETS];     /* --set overrides */
    int set_count;
    double dt;                         /* s; 0: the scene's, scaled with the spacing */
    double surface_spacing;            /* bench surface: the grid's spacing, m; 0: half the particle spacing */
    const char *frame;                 /* bench surface --frame: a saved frame's particles instead of the scene's */
    long long particles;
    int repeat, steps, warmup;
    int metrics;                       /* --metrics: the run's per-step metrics inside the timed step */
    int tool;                          /* --tool: the tool loop's rate */
    long long sizes[8];                /* --tool: fluid particles of each case (--sizes) */
    int n_sizes;
    const char *log_dir;
    int scaling;                       /* --scaling: each solver at 1, 2, 4, ... threads up to this many */
    int solves;                        /* --solves: FLIP's last pressure system solved again this many times */
    const char *out_dir;               /* --scaling: the figure's folder */
    char command[1024];
} bench_opts;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, min and max of v[0..n) (v is sorted in place). */
static void summarize(double *v, int n, double out[3])
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out[0] = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    out[1] = v[0];
    out[2] = v[n - 1];
}

/* Loads the benchmark scene, with the --set overrides, at the spacing that
 * gives about o->particles fluid particles; *dt is o->dt when given, else
 * the scene's step scaled with the spacing. With o->particles = 0 the
 * scene is taken as it is, with its own dt. */
static int load_scaled_scene(const bench_opts *o, fl_scene *s, double *dt, fl_error *err)
{
    char path[1024];
    fl_resolve_scene(o->scene, path, sizeof path);
    int rc = fl_scene_load(path, o->sets, o->set_count, s, err);
    if (rc)
        return rc;
    double d0 = s->spacing, dt0 = fl_scene_dt(s);
    if (o->particles <= 0) { /* the scene as it is */
        *dt = o->dt > 0.0 ? o->dt : dt0;
        return FL_OK;
    }
    double d = d0 * cbrt((double)s->fluid_count / (double)o->particles);
    fl_scene_free(s);
    char set[64];
    snprintf(set, sizeof set, "fluid.spacing=%.9g", d);
    const char *sets[FL_MAX_SETS + 1];
    for (int k = 0; k < o->set_count; k++)
        sets[k] = o->sets[k];
    sets[o->set_count] = set;
    rc = fl_scene_load(path, sets, o->set_count + 1, s, err);
    *dt = o->dt > 0.0 ? o->dt : dt0 * d / d0;
    return rc;
}

/* Opens LOG_DIR/<name>.csv (path) for appending, with the header when the
 * file is new; *f stays NULL with --no-log. Returns 0, or 2 with one line
 * when the log cannot be opened. */
static int open_log(const bench_opts *o, const char *name, const char *header, FILE **f, char *path, int len)
{
    *f = NULL;
    if (!o->log_dir)
        return 0;
    snprintf(path, (size_t)len, "%s/%s.csv", o->log_dir, name);
    struct stat sb;
    int fresh = stat(path, &sb) != 0;
    errno = 0;
    *f = fopen(path, "a");
    if (!*f) {
        fprintf(stderr, "fluidlab: %s: cannot append the benchmark log: %s\n", path, strerror(errno));
        return 2;
    }
    if (fresh)
        fprintf(*f, "%s\n", header);
    return 0;
}

/* Closes the log with its row: 0, or 2 with one line when the row did not
 * reach the file. */
static int close_log(FILE *f, const char *path)
{
    fl_error err;
    if (f && fl_close_written(f, path, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 2;
    }
    return 0;
}

static void log_prefix(FILE *f, const bench_opts *o, const char *bench, int particles)
{
    char machine[256], date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fl_machine_description(machine, sizeof machine);
#ifdef FL_HAVE_CUDA
    char gpu[160];
    fl_error err;
    /* a GPU's row names the GPU beside the host */
    if (strcmp(o->device, "cuda") == 0 && fl_cuda_device_query(gpu, sizeof gpu, &err) == FL_OK) {
        size_t used = strlen(machine);
        snprintf(machine + used, sizeof machine - used, ", %s", gpu);
    }
#endif
    fprintf(f, "%s,%s,%s,\"%s\",%d,%d,\"%s\"", date, FL_COMMIT, bench, machine, omp_get_max_threads(),
            particles, o->command);
}

/* After SIGINT or SIGTERM: one line, benchmark name's row not logged, and
 * 128 + the signal. */
static int bench_stopped(const char *name)
{
    fprintf(stderr, "fluidlab: bench: interrupted by %s; %s not logged (the rows before it were)\n",
            fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", name);
    return 128 + fl_interrupted();
}

/* One row of benchmark name appended to its log (open_log; the header
 * when the file is new): the common columns (log_prefix), then the row's
 * own, printed with fmt, which begins with a comma and ends the line.
 * Returns 0 (and writes nothing with --no-log), or 2 with one line when
 * the log cannot be opened or the row did not reach it. After SIGINT or
 * SIGTERM nothing is written (bench_stopped), which ends the command: the
 * tool loop's timings stop at the signal, the other benchmarks' at their
 * end (a second signal stops them at once). */
__attribute__((format(printf, 5, 6))) static int log_row(const bench_opts *o, const char *name,
                                                         const char *header, int particles, const char *fmt, ...)
{
    if (fl_interrupted())
        return bench_stopped(name);
    FILE *f;
    char path[1200];
    const int rc = open_log(o, name, header, &f, path, sizeof path);
    if (!f)
        return rc;
    log_prefix(f, o, name, particles);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    return close_log(f, path);
}

static int bench_grid(const bench_opts *o)
{
    fl_scene s;
    fl_world w;
    fl_nbgrid g;
    fl_error err;
    double dt;
    if (load_scaled_scene(o, &s, &dt, &err) || fl_build_world(&s, &w, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    fl_particles *f = &w.fluid;
    float *scratch = fl_alloc((size_t)f->count * sizeof(float));
    if (!scratch || fl_nbgrid_init(&g, &w, &err)) {
        fprintf(stderr, "fluidlab: %s\n", scratch ? err.msg : "out of memory");
        return 1;
    }
    /* the solvers keep their store sorted by cell: measure that state */
    fl_nbgrid_build(&g, f->x, f->y, f->z, f->count, &err);
    fl_particles_permute(f, fl_nbgrid_order(&g), scratch);
    int n = o->repeat;
    double *build = calloc((size_t)n, sizeof *build), *search = calloc((size_t)n, sizeof *search);
    double *total = calloc((size_t)n, sizeof *total);
    long long pairs = 0;
    for (int r = -o->warmup; r < n; r++) {
        double t0 = fl_now_ms();
        fl_nbgrid_build(&g, f->x, f->y, f->z, f->count, &err);
        double t1 = fl_now_ms();
        fl_nbgrid_search(&g, f->x, f->y, f->z, &err);
        double t2 = fl_now_ms();
        if (r >= 0)
            build[r] = t1 - t0, search[r] = t2 - t1, total[r] = t2 - t0;
        pairs = g.nb_start[f->count] + g.bnb_start[f->count];
    }
    double sb[3], ss[3], st[3];
    summarize(build, n, sb), summarize(search, n, ss), summarize(total, n, st);
    printf("grid: %d fluid + %d boundary particles, %lld neighbor pairs, %d threads, %d repeats\n", f->count,
           w.boundary.count, pairs, omp_get_max_threads(), n);
    printf("| stage | median ms | min ms | max ms |\n|---|---|---|---|\n");
    printf("| build | %.3f | %.3f | %.3f |\n| search | %.3f | %.3f | %.3f |\n| total | %.3f | %.3f | %.3f |\n",
           sb[0], sb[1], sb[2], ss[0], ss[1], ss[2], st[0], st[1], st[2]);
    int rc = log_row(o, "grid",
                     "date,commit,benchmark,machine,threads,particles,command,repeats,"
                     "build_ms_median,build_ms_min,build_ms_max,search_ms_median,search_ms_min,"
                     "search_ms_max,total_ms_median,total_ms_min,total_ms_max,pairs",
                     f->count, ",%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%lld\n", n, sb[0], sb[1], sb[2],
                     ss[0], ss[1], ss[2], st[0], st[1], st[2], pairs);
    free(build), free(search), free(total), fl_free(scratch);
    fl_nbgrid_free(&g);
    fl_world_free(&w);
    fl_scene_free(&s);
    return rc;
}

/* bench surface --frame F: where F lies in a run's frames/ folder beside
 * its run.json, that run's domain and fluid spacing must be the scene's
 * (w): they set the surface's grid, and the default --scene is another
 * scene's. Returns 0, or 1 with one line naming the run's scene. */
static int frame_matches_scene(const char *frame, const fl_world *w)
{
    /* the folder the frame is really in, whatever the path's spelling (./, //, links) */
    char *real = realpath(frame, NULL), dir[PATH_MAX + 64];
    if (!real)
        return 0; /* reading it says why */
    snprintf(dir, sizeof dir, "%s", real);
    free(real);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    const char *base = strrchr(dir, '/');
    if (strcmp(base ? base + 1 : dir, "frames") != 0)
        return 0;
    snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/..");
    char path[PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/run.json", dir);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0; /* frames without their run: the scene is all there is */
    cJSON *root;
    fl_error err;
    if (fl_run_json_read(dir, &root, &err)) {
        fprintf(stderr, "fluidlab: bench surface --frame: %s\n", err.msg);
        return 1;
    }
    fl_box box;
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(root, "scene_file");
    int same = fl_run_json_domain(root, &box) && fabs(fl_run_json_spacing(root) - w->spacing) <= 1e-9 * w->spacing;
    for (int a = 0; a < 3 && same; a++)
        same = fabs(box.lo[a] - w->domain.lo[a]) <= 1e-9 * (1.0 + fabs(box.lo[a])) &&
               fabs(box.hi[a] - w->domain.hi[a]) <= 1e-9 * (1.0 + fabs(box.hi[a]));
    if (!same)
        fprintf(stderr, "fluidlab: bench surface --frame %s: its run (%s) has another domain or fluid.spacing than "
                "--scene's; give its scene (%s) as --scene, with the run's --set overrides\n", frame, path,
                cJSON_IsString(file) ? file->valuestring : "see run.json");
    cJSON_Delete(root);
    return !same;
}

/* bench surface: the scene's particles at rest (its initial state, as the
 * world is built), or with --frame those of a saved frame (a run's
 * frames/NNNN.bin, the scene giving the domain and the spacing: the run's,
 * checked where its run.json is beside the frames, frame_matches_scene),
 * reconstructed --repeat times, each timed in its two stages: the
 * blobbies field (fl_blobby_sample) and marching cubes with the wall
 * padding (fl_marching_cubes), as --save obj runs them. */
static int bench_surface(const bench_opts *o)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    double dt;
    bench_opts as_saved = *o; /* a frame's particles are as they were saved: the scene is not resampled */
    if (o->frame)
        as_saved.particles = 0;
    if (load_scaled_scene(&as_saved, &s, &dt, &err) || fl_build_world(&s, &w, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    int bad = o->frame && frame_matches_scene(o->frame, &w);
    if (o->frame && !bad && fl_frame_read_bin(o->frame, &w.fluid, NULL, &err)) {
        fprintf(stderr, "fluidlab: bench surface --frame: %s\n", err.msg);
        bad = 1;
    }
    if (bad) {
        fl_world_free(&w);
        fl_scene_free(&s);
        return 1;
    }
    const fl_blobby_def def =
        fl_default_blobby_def(o->surface_spacing > 0.0 ? o->surface_spacing : fl_blobby_default_spacing(w.spacing));
    const int n = o->repeat;
    double *field = calloc((size_t)n, sizeof *field), *mesh = calloc((size_t)n, sizeof *mesh);
    double *total = calloc((size_t)n, sizeof *total);
    int dim[3] = {0, 0, 0}, nvert = 0, ntri = 0, rc = field && mesh && total ? 0 : 1;
    for (int r = -o->warmup; r < n && rc == 0; r++) {
        fl_blobby_field f;
        fl_trimesh m;
        memset(&m, 0, sizeof m);
        double t0 = fl_now_ms();
        rc = fl_blobby_sample(&w.fluid, &def, &w.domain, &f, &err) != FL_OK;
        double t1 = fl_now_ms();
        rc = rc || fl_marching_cubes(&f.field, f.outside, &m, &err) != FL_OK;
        double t2 = fl_now_ms();
        if (r >= 0 && rc == 0)
            field[r] = t1 - t0, mesh[r] = t2 - t1, total[r] = t2 - t0;
        memcpy(dim, f.field.dim, sizeof dim);
        nvert = m.nvert, ntri = m.ntri;
        fl_blobby_field_free(&f);
        fl_trimesh_free(&m);
    }
    if (rc)
        fprintf(stderr, "fluidlab: bench surface: %s\n", field && mesh && total ? err.msg : "out of memory");
    if (rc == 0) {
        double sf[3], sm[3], st[3];
        summarize(field, n, sf), summarize(mesh, n, sm), summarize(total, n, st);
        printf("surface: %d particles, grid %d x %d x %d at %.4g m, %d vertices, %d triangles, %d threads, %d "
               "repeats\n",
               w.fluid.count, dim[0], dim[1], dim[2], def.spacing, nvert, ntri, omp_get_max_threads(), n);
        printf("| stage | median ms | min ms | max ms |\n|---|---|---|---|\n");
        printf("| field | %.3f | %.3f | %.3f |\n| mesh | %.3f | %.3f | %.3f |\n| total | %.3f | %.3f | %.3f |\n",
               sf[0], sf[1], sf[2], sm[0], sm[1], sm[2], st[0], st[1], st[2]);
        rc = log_row(o, "surface",
                     "date,commit,benchmark,machine,threads,particles,command,repeats,spacing,nodes_x,nodes_y,"
                     "nodes_z,vertices,triangles,field_ms_median,field_ms_min,field_ms_max,mesh_ms_median,"
                     "mesh_ms_min,mesh_ms_max,total_ms_median,total_ms_min,total_ms_max",
                     w.fluid.count, ",%d,%.6g,%d,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", n,
                     def.spacing, dim[0], dim[1], dim[2], nvert, ntri, sf[0], sf[1], sf[2], sm[0], sm[1], sm[2],
                     st[0], st[1], st[2]);
    }
    free(field), free(mesh), free(total);
    fl_world_free(&w);
    fl_scene_free(&s);
    return rc;
}

/* bench voxelize: each mesh object of the scene (default pbf_bunny, its
 * bunny as placed) filled onto the domain's lattice of the scene's
 * particle spacing over the mesh's bounds (fl_voxelize, as the scene
 * loader fills a fluid mesh), --repeat times after --warmup. */
static int bench_voxelize(const bench_opts *o)
{
    fl_scene s;
    fl_error err;
    double dt;
    if (load_scaled_scene(o, &s, &dt, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    if (s.mesh_count == 0) {
        fprintf(stderr, "fluidlab: bench voxelize: %s has no mesh objects (\"meshes\")\n", s.path);
        fl_scene_free(&s);
        return 1;
    }
    FILE *log = NULL;
    char log_path[1200];
    int rc = open_log(o, "voxelize",
                      "date,commit,benchmark,machine,threads,particles,command,repeats,mesh,triangles,spacing,"
                      "cells_x,cells_y,cells_z,inside,ms_median,ms_min,ms_max",
                      &log, log_path, sizeof log_path);
    for (int k = 0; k < s.mesh_count && rc == 0; k++) {
        const fl_scene_mesh *m = &s.meshes[k];
        fl_voxel_grid g;
        fl_scene_mesh_lattice(&s, m, &g); /* as the loader places the particles */
        const size_t cells = (size_t)g.dims[0] * (size_t)g.dims[1] * (size_t)g.dims[2];
        unsigned char *inside = malloc(cells);
        double *ms = calloc((size_t)o->repeat, sizeof *ms);
        if (!inside || !ms)
            rc = fprintf(stderr, "fluidlab: bench voxelize: out of memory for %zu cells\n", cells) > 0;
        for (int r = -o->warmup; r < o->repeat && rc == 0; r++) {
            double t0 = fl_now_ms();
            if (fl_voxelize(&m->mesh, &g, inside, &err)) {
                fprintf(stderr, "fluidlab: bench voxelize: mesh %d: %s\n", k, err.msg);
                rc = 1;
            }
            if (r >= 0)
                ms[r] = fl_now_ms() - t0;
        }
        if (rc == 0) {
            size_t in = 0;
            for (size_t c = 0; c < cells; c++)
                in += inside[c];
            double t[3];
            summarize(ms, o->repeat, t);
            printf("voxelize: mesh %d of %s (%d triangles), %d x %d x %d cells of %.4g m, %zu inside, %d threads: "
                   "median %.2f ms (min %.2f, max %.2f) over %d repeats\n",
                   k, s.name, m->mesh.triangle_count, g.dims[0], g.dims[1], g.dims[2], s.spacing, in,
                   omp_get_max_threads(), t[0], t[1], t[2], o->repeat);
            if (log) {
                log_prefix(log, o, "voxelize", (int)in);
                fprintf(log, ",%d,%d,%d,%.6g,%d,%d,%d,%zu,%.4f,%.4f,%.4f\n", o->repeat, k, m->mesh.triangle_count,
                        s.spacing, g.dims[0], g.dims[1], g.dims[2], in, t[0], t[1], t[2]);
            }
        }
        free(inside);
        free(ms);
    }
    if (log) {
        int lc = close_log(log, log_path);
        rc = rc ? rc : lc;
    }
    fl_scene_free(&s);
    return rc;
}

/* --metrics: the metrics fluidlab run computes after each step
 * (fl_metrics_step), timed into the step's `other` stage. */
static int step_metrics(fl_metrics *m, const fl_world *w, fl_step_stats *st, fl_error *err)
{
    double lo[3], hi[3], t0 = fl_now_ms();
    int rc = fl_metrics_step(m, w, st, lo, hi, err);
    st->stage_ms[FL_STAGE_OTHER] += fl_now_ms() - t0;
    return rc;
}

/* --solves N (flip, pic): one more step keeps its last pressure system
 * (fl_flip_system), which is then solved again 2N times, MIC(0) and the
 * multigrid taking turns, each from the pressure the run's solve started
 * from and with the run's options (tolerance, warm start): the same
 * system, the same tolerance, and the host's slow spells shared between
 * the two. Their iterations and ms (fl_pcg_result.ms: the solve itself,
 * the preconditioner's set-up included), median, min and max, and the
 * ratio on stdout; a row in DIR/flip_solves.csv. */
static int bench_solves(const bench_opts *o, const fl_solver_ops *ops, void *solver, fl_world *w, double dt,
                        const char *name)
{
    fl_error err;
    fl_pcg_options opt;
    const fl_mac_grid *g = fl_flip_system(solver, &opt, &err);
    fl_step_stats *st = calloc(1, sizeof *st);
    if (!g || !st) {
        fprintf(stderr, "fluidlab: bench %s --solves: %s\n", name, st ? err.msg : "out of memory");
        free(st);
        return 3;
    }
    if (g->wrap) {
        free(st);
        fprintf(stderr, "fluidlab: bench %s --solves: the scene has a periodic axis, which the multigrid does not "
                        "take\n", name);
        return 1;
    }
    fl_step_stats_reset(st);
    int bad = ops->step(solver, w, dt, st) != FL_OK;
    free(st);
    if (bad) {
        fprintf(stderr, "fluidlab: bench %s --solves: the step failed\n", name);
        return 3;
    }
    static const fl_precond kinds[2] = {FL_PRECOND_MIC0, FL_PRECOND_MG};
    static const char *const kind_names[2] = {"MIC(0)", "multigrid"};
    const int n = o->solves;
    const size_t bytes = (size_t)g->ncells * sizeof(double);
    fl_pcg *pcg[2] = {NULL, NULL};
    /* per preconditioner k: the solves' ms from k n, their set-ups' from (2 + k) n, their
     * applications' from (4 + k) n */
    double *p = fl_alloc(bytes), *ms = calloc(6 * (size_t)n, sizeof *ms);
    int iterations[2] = {0, 0}, short_of[2] = {0, 0}, fluid = 0;
    bad = !p || !ms;
    for (int k = 0; k < 2 && !bad; k++)
        bad = fl_pcg_create(g->nx, g->ny, g->nz, &pcg[k], &err) != FL_OK;
    for (int r = 0; r < n && !bad; r++)
        for (int k = 0; k < 2 && !bad; k++) {
            fl_pcg_options take = opt;
            take.precond = kinds[k];
            fl_pcg_result res;
            memcpy(p, g->sys_p, bytes);
            bad = fl_pcg_solve(pcg[k], g->sys_label, g->sys_rhs, p, &take, &res, &err) != FL_OK;
            ms[(size_t)k * n + r] = res.ms;
            ms[(size_t)(2 + k) * n + r] = res.setup_ms;
            ms[(size_t)(4 + k) * n + r] = res.apply_ms;
            iterations[k] = res.iterations;
            short_of[k] |= res.reason < 0;
            fluid = res.fluid_cells;
        }
    int rc = 0;
    if (bad)
        fprintf(stderr, "fluidlab: bench %s --solves: %s\n", name, p && ms ? err.msg : "out of memory");
    else {
        double sum[6][3];
        for (int k = 0; k < 6; k++)
            summarize(ms + (size_t)k * n, n, sum[k]);
        printf("%s's last pressure system (%d FLUID cells, tolerance %g, %s), solved %d times with each "
               "preconditioner, taking turns:\n",
               name, fluid, opt.tol, opt.warm_start ? "from the pressure the run started from" : "from p = 0", n);
        printf("| preconditioner | iterations | median ms | min ms | max ms | set-up, median ms | applied, median ms "
               "|\n|---|---|---|---|---|---|---|\n");
        for (int k = 0; k < 2; k++)
            printf("| %s | %d%s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", kind_names[k], iterations[k],
                   short_of[k] ? " (short of the tolerance)" : "", sum[k][0], sum[k][1], sum[k][2], sum[2 + k][0],
                   sum[4 + k][0]);
        printf("MIC(0) / multigrid: %.2f by the medians, %.2f by the mins\n", sum[0][0] / sum[1][0],
               sum[0][1] / sum[1][1]);
        char bench[64];
        snprintf(bench, sizeof bench, "%s_solves", name);
        rc = log_row(o, bench,
                     "date,commit,benchmark,machine,threads,particles,command,solves,fluid_cells,tolerance,"
                     "mic0_iterations,mic0_ms_median,mic0_ms_min,mg_iterations,mg_ms_median,mg_ms_min,"
                     "ratio_median,ratio_min",
                     w->fluid.count, ",%d,%d,%g,%d,%.4f,%.4f,%d,%.4f,%.4f,%.4f,%.4f\n", n, fluid, opt.tol,
                     iterations[0], sum[0][0], sum[0][1], iterations[1], sum[1][0], sum[1][1],
                     sum[0][0] / sum[1][0], sum[0][1] / sum[1][1]);
    }
    fl_pcg_destroy(&pcg[0]);
    fl_pcg_destroy(&pcg[1]);
    fl_free(p);
    free(ms);
    return bad ? 3 : rc;
}

/* One solver's benchmark: its table on stdout and its row in the log;
 * the median ms a step into *median when it is not NULL. */
static int bench_solver(const bench_opts *o, const char *name, double *median)
{
    fl_error err;
    const fl_solver_ops *ops = fl_solver_on(name, o->device, &err);
    if (!ops) {
        fprintf(stderr, "fluidlab: bench %s: %s\n", name, err.msg);
        return 1;
    }
    fl_scene s;
    fl_world w;
    fl_params prm;
    double dt;
    if (load_scaled_scene(o, &s, &dt, &err) || fl_build_world(&s, &w, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    fl_scene_solver_params(&s, name, &prm);
    void *solver = fl_solver_create(ops, &w, &prm, &err);
    if (!solver) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        fl_world_free(&w), fl_scene_free(&s);
        return 1;
    }
    fl_step_stats *st = calloc(1, sizeof *st);
    int n = o->repeat, bad = 0, log_rc = 0;
    fl_metrics metrics;
    memset(&metrics, 0, sizeof metrics);
    if (o->metrics && fl_metrics_init(&metrics, ops, solver, &w, &err) != FL_OK) {
        fprintf(stderr, "fluidlab: bench %s: %s\n", name, err.msg);
        bad = 1;
    }
    double *per_step = calloc((size_t)n, sizeof *per_step);
    /* the stages' times, then FLIP's parts' (FL_PART_LIST) */
    enum { NQ = FL_STAGE_COUNT + FL_PART_COUNT };
    double *stage = calloc((size_t)n * NQ, sizeof *stage);
    double *iters = calloc((size_t)n, sizeof *iters), *subs = calloc((size_t)n, sizeof *subs);
    double *per_solve = calloc((size_t)n, sizeof *per_solve), *solve_ms = calloc(3 * (size_t)n, sizeof *solve_ms);
    int solve_max = 0, unconverged = 0;
    const int oom = !per_step || !stage || !iters || !subs || !per_solve || !solve_ms;
    if (oom && !bad) {
        fprintf(stderr, "fluidlab: bench %s: out of memory for %d repeats\n", name, n);
        bad = 1;
    }
    for (int r = -1; r < n && !bad; r++) {
        int count = r < 0 ? o->warmup : o->steps;
        double sum_stage[NQ] = {0}, sum_iter = 0.0, sum_sub = 0.0, sum_solve[3] = {0};
        double t0 = fl_now_ms();
        for (int k = 0; k < count && !bad; k++) {
            fl_step_stats_reset(st);
            bad = ops->step(solver, &w, dt, st) != FL_OK;
            if (!bad && o->metrics)
                bad = step_metrics(&metrics, &w, st, &err) != FL_OK;
            for (int q = 0; q < NQ; q++)
                sum_stage[q] += q < FL_STAGE_COUNT ? st->stage_ms[q] : st->part_ms[q - FL_STAGE_COUNT];
            sum_iter += st->iterations;
            sum_sub += st->substeps;
            sum_solve[0] += st->solve_ms;
            sum_solve[1] += st->precond_setup_ms;
            sum_solve[2] += st->precond_apply_ms;
            if (st->solve_iterations_max > solve_max)
                solve_max = st->solve_iterations_max;
            unconverged += st->solves_unconverged;
        }
        double elapsed = fl_now_ms() - t0;
        if (r < 0 || count == 0)
            continue;
        per_step[r] = elapsed / count;
        iters[r] = sum_iter / count;
        subs[r] = sum_sub / count;
        per_solve[r] = sum_iter / sum_sub;
        for (int q = 0; q < 3; q++)
            solve_ms[(size_t)q * n + r] = sum_solve[q] / count;
        for (int q = 0; q < NQ; q++)
            stage[(size_t)q * n + r] = sum_stage[q] / count;
    }
    if (bad) {
        if (!oom)
            fprintf(stderr, "fluidlab: bench %s: the step failed; timings are not reported\n", name);
    } else {
        double sum[3], sq[NQ][3], si[3], ss[3], sp[3], sl[3][3];
        summarize(per_step, n, sum);
        summarize(iters, n, si);
        summarize(subs, n, ss);
        summarize(per_solve, n, sp);
        for (int q = 0; q < 3; q++)
            summarize(solve_ms + (size_t)q * n, n, sl[q]);
        for (int q = 0; q < NQ; q++)
            summarize(stage + (size_t)q * n, n, sq[q]);
        printf("%s on %s: %d fluid + %d boundary particles, dt %.3g s, %d threads, %d repeats x %d steps\n", name,
               o->device, w.fluid.count, w.boundary.count, dt, omp_get_max_threads(), n, o->steps);
        printf("| stage | median ms | min ms | max ms | share |\n|---|---|---|---|---|\n");
        for (int q = 0; q < FL_STAGE_COUNT; q++) {
            if (sq[q][2] > 0.0)
                printf("| %s | %.3f | %.3f | %.3f | %.1f %% |\n", fl_stage_names[q], sq[q][0], sq[q][1], sq[q][2],
                       100.0 * sq[q][0] / sum[0]);
            /* FLIP: the linear solves' own time, and their preconditioner's */
            static const char *const solve_rows[3] = {"pressure_solve's linear solves",
                                                      "linear solves: preconditioner set-up",
                                                      "linear solves: preconditioner applied"};
            for (int k = 0; k < 3 && q == FL_STAGE_PRESSURE_SOLVE && sl[0][2] > 0.0; k++)
                printf("| (%s) | %.3f | %.3f | %.3f | %.1f %% |\n", solve_rows[k], sl[k][0], sl[k][1], sl[k][2],
                       100.0 * sl[k][0] / sum[0]);
            for (int k = 0; k < FL_PART_COUNT; k++) {
                const double *pk = sq[FL_STAGE_COUNT + k];
                if (fl_part_stage[k] == (fl_stage)q && pk[2] > 0.0) /* FLIP: the stage's parts */
                    printf("| (%s: %s) | %.3f | %.3f | %.3f | %.1f %% |\n", fl_stage_names[q], fl_part_names[k], pk[0],
                           pk[1], pk[2], 100.0 * pk[0] / sum[0]);
            }
        }
        printf("| **step** | **%.3f** | %.3f | %.3f | |\n", sum[0], sum[1], sum[2]);
        if (median)
            *median = sum[0];
        printf("mean iterations per step: %.2f\n", si[0]);
        if (ss[2] > 1.0) { /* solvers that substep (FLIP): one pressure solve each */
            printf("mean substeps per step: %.2f, iterations per substep: %.2f\n", ss[0], sp[0]);
            printf("most iterations in one solve: %d, solves short of the tolerance: %d (warm-up included)\n",
                   solve_max, unconverged);
        }
        char header[1024] = "date,commit,benchmark,machine,threads,particles,command,repeats,steps,dt,"
                            "step_ms_median,step_ms_min,step_ms_max,iterations";
        for (int q = 0; q < FL_STAGE_COUNT; q++)
            strcat(strcat(strcat(header, ",ms_"), fl_stage_names[q]), "_median");
        /* a device's rows go to a log of their own, <solver>_<device>.csv, with the same columns */
        char bench[64];
        snprintf(bench, sizeof bench, strcmp(o->device, "cpu") ? "%s_%s" : "%s", name, o->device);
        FILE *log;
        char log_path[1200];
        log_rc = open_log(o, bench, header, &log, log_path, sizeof log_path);
        if (log) {
            log_prefix(log, o, bench, w.fluid.count);
            fprintf(log, ",%d,%d,%.6g,%.4f,%.4f,%.4f,%.3f", n, o->steps, dt, sum[0], sum[1], sum[2], si[0]);
            for (int q = 0; q < FL_STAGE_COUNT; q++)
                fprintf(log, ",%.4f", sq[q][0]);
            fputc('\n', log);
            log_rc = close_log(log, log_path);
        }
        if (o->solves && !log_rc)
            log_rc = bench_solves(o, ops, solver, &w, dt, name);
    }
    ops->destroy(solver);
    fl_metrics_free(&metrics);
    free(st), free(per_step), free(stage), free(iters), free(subs), free(per_solve), free(solve_ms);
    fl_world_free(&w);
    fl_scene_free(&s);
    return bad ? 3 : log_rc;
}

/* --scaling: every solver of targets at 1, 2, 4, ... threads up to
 * o->scaling (and o->scaling itself), each a benchmark of its own (its
 * table and log row), then the speed-up against one thread as a table,
 * DIR/scaling.csv (one block per solver: threads, median ms, speed-up,
 * efficiency) and DIR/scaling.png and .svg (plots/bench_scaling.gp). */
static int bench_scaling(const bench_opts *o, const char *const *targets, int ntargets)
{
    enum { MAX_COUNTS = 16 };
    int counts[MAX_COUNTS], ncounts = 0;
    for (int t = 1; t < o->scaling && ncounts < MAX_COUNTS - 1; t *= 2)
        counts[ncounts++] = t;
    counts[ncounts++] = o->scaling;
    double *ms = calloc((size_t)ntargets * ncounts, sizeof *ms);
    if (!ms) {
        fprintf(stderr, "fluidlab: bench --scaling: out of memory\n");
        return 1;
    }
    int rc = 0;
    for (int t = 0; t < ntargets && rc == 0; t++)
        for (int c = 0; c < ncounts && rc == 0; c++) {
            omp_set_num_threads(counts[c]);
            rc = bench_solver(o, targets[t], &ms[(size_t)t * ncounts + c]);
        }
    fl_error err;
    char path[FL_MAX_PATH + 32], msg[512];
    FILE *f = NULL;
    if (rc == 0 && fl_make_dirs(o->out_dir, &err)) {
        fprintf(stderr, "fluidlab: bench --out: %s\n", err.msg);
        rc = 2;
    }
    snprintf(path, sizeof path, "%s/scaling.csv", o->out_dir);
    if (rc == 0 && !(f = fl_open_written(path, &err))) {
        fprintf(stderr, "fluidlab: bench --scaling: %s\n", err.msg);
        rc = 2;
    }
    if (rc == 0) {
        printf("thread scaling (%s, %d fluid particles asked, the median ms a step):\n"
               "| solver | threads | ms a step | speed-up | efficiency |\n|---|---|---|---|---|\n",
               o->scene, (int)o->particles);
        for (int t = 0; t < ntargets; t++) {
            fprintf(f, "%sthreads,%s,speedup,efficiency\n", t ? "\n\n" : "", targets[t]);
            for (int c = 0; c < ncounts; c++) {
                const double m = ms[(size_t)t * ncounts + c], up = ms[(size_t)t * ncounts] / m;
                printf("| %s | %d | %.3f | %.2fx | %.0f %% |\n", targets[t], counts[c], m, up,
                       100.0 * up / counts[c]);
                fprintf(f, "%d,%.4f,%.4f,%.4f\n", counts[c], m, up, up / counts[c]);
            }
        }
        if (fl_close_written(f, path, &err)) {
            fprintf(stderr, "fluidlab: bench --scaling: %s\n", err.msg);
            rc = 2;
        }
    }
    if (rc == 0 && !fl_plot_available())
        fprintf(stderr, "fluidlab: bench --scaling: gnuplot not found (apt-get install gnuplot-nox): %s is not drawn\n",
                path);
    else if (rc == 0) {
        char gp[FL_MAX_PATH];
        snprintf(gp, sizeof gp, "%s/plots/bench_scaling.gp", FL_SOURCE_DIR);
        for (int k = 0; k < 2 && rc == 0; k++)
            if (fl_plot_render(gp, o->out_dir, k ? "svg" : "png", msg, sizeof msg)) {
                fprintf(stderr, "fluidlab: bench --scaling: %s\n", msg);
                rc = 2;
            }
        if (rc == 0)
            printf("figure: %s/scaling.png, .svg (data %s)\n", o->out_dir, path);
    }
    free(ms);
    return rc;
}

/* Where a tool-loop step's time goes: the solver's stages, mean ms a
 * step (a device's are its own timers, e.g. CUDA events), and the rest of
 * the step's mean wall time, to stderr (the table stays one table). */
static void print_tool_stages(const double stage[FL_STAGE_COUNT], double mean)
{
    double timed = 0.0;
    fflush(stdout);
    fprintf(stderr, "  stages, mean ms a step:");
    for (int q = 0; q < FL_STAGE_COUNT; q++)
        if (stage[q] > 0.0)
            fprintf(stderr, " %s %.3f", fl_stage_names[q], stage[q]), timed += stage[q];
    fprintf(stderr, "; not in a stage %.3f\n", mean - timed);
}

/* --tool: the tool loop's rate, one row per size: the scene at about that
 * many fluid particles, o->warmup untimed steps, then o->steps timed steps
 * of the tool loop (fl_tool_loop_step: the tool placed, the solver's step,
 * the fluid's force on it; with --metrics the run's metrics too, as
 * `fluidlab tool` computes them). dt is the scene's (or --dt), whatever
 * the spacing: the rate is per step. */
static int bench_tool_size(const bench_opts *o, const char *name, const fl_solver_ops *ops, long long size,
                           int first)
{
    bench_opts at = *o;
    at.particles = size;
    fl_scene s;
    fl_world w;
    fl_tool tool;
    fl_params prm;
    fl_error err;
    double dt;
    memset(&tool, 0, sizeof tool);
    if (load_scaled_scene(&at, &s, &dt, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        return 1;
    }
    dt = o->dt > 0.0 ? o->dt : fl_scene_dt(&s);
    if (s.tool.shape.kind == FL_TOOL_NONE || s.dt_cfl) {
        fprintf(stderr, "fluidlab: bench --tool: %s: %s\n", s.path,
                s.dt_cfl ? "time.dt \"cfl\": the tool loop takes steps of a fixed dt (give --dt S)"
                         : "the scene has no tool (a \"tool\" key, as in scenes/tool_cup.json)");
        fl_scene_free(&s);
        return 1;
    }
    if (fl_build_world_tool(&s, &w, &tool, &err)) {
        fprintf(stderr, "fluidlab: %s\n", err.msg);
        fl_scene_free(&s);
        return 1;
    }
    fl_scene_solver_params(&s, name, &prm);
    void *solver = fl_solver_create(ops, &w, &prm, &err);
    fl_step_stats *st = calloc(1, sizeof *st);
    double *ms = calloc((size_t)o->steps, sizeof *ms);
    fl_metrics metrics;
    memset(&metrics, 0, sizeof metrics);
    int setup = !solver || !st || !ms; /* the set-up failed: bad input (the solver's parameters), or memory */
    if (setup)
        fprintf(stderr, "fluidlab: bench --tool %s: %s\n", name, solver ? "out of memory" : err.msg);
    if (!setup && o->metrics && fl_metrics_init(&metrics, ops, solver, &w, &err) != FL_OK) {
        fprintf(stderr, "fluidlab: bench --tool %s: %s\n", name, err.msg);
        setup = 1;
    }
    int bad = setup;
    double contacts = 0.0, stage[FL_STAGE_COUNT] = {0};
    char bench[64];
    snprintf(bench, sizeof bench, "tool_%s_%s", name, o->device);
    for (int k = -o->warmup; k < o->steps && !bad && !fl_interrupted(); k++) {
        fl_tool_report row;
        fl_step_stats_reset(st);
        double t0 = fl_now_ms();
        bad = fl_tool_loop_step(ops, solver, &w, &tool, dt, st, &row, &err) != FL_OK;
        if (!bad && o->metrics)
            bad = step_metrics(&metrics, &w, st, &err) != FL_OK;
        if (bad)
            fprintf(stderr, "fluidlab: bench --tool %s: step %d: %s; timings are not reported\n", name,
                    k + o->warmup + 1, err.msg);
        else if (k >= 0) {
            ms[k] = fl_now_ms() - t0, contacts += row.contacts;
            for (int q = 0; q < FL_STAGE_COUNT; q++)
                stage[q] += st->stage_ms[q] / o->steps;
        }
    }
    const int stopped = !bad && fl_interrupted(); /* the timings cut short: not reported */
    int rc = setup ? 1 : bad ? 3 : stopped ? bench_stopped(bench) : 0;
    if (!bad && !stopped && first) {
        printf("tool loop (%s, %d threads, %d steps after %d untimed%s):\n", o->scene, omp_get_max_threads(),
               o->steps, o->warmup, o->metrics ? ", with the metrics" : "");
        printf("| solver | device | fluid particles | tool particles | dt s | mean ms | median ms | min ms | max ms "
               "| rate Hz |\n|---|---|---|---|---|---|---|---|---|---|\n");
    }
    if (!bad && !stopped) {
        double mean = 0.0, q[3]; /* the mean; the median, min and max */
        for (int k = 0; k < o->steps; k++)
            mean += ms[k] / o->steps;
        summarize(ms, o->steps, q);
        printf("| %s | %s | %d | %d | %.3g | %.3f | %.3f | %.3f | %.3f | %.0f |\n", name, o->device, w.fluid.count,
               tool.count, dt, mean, q[0], q[1], q[2], 1000.0 / mean);
        print_tool_stages(stage, mean);
        rc = log_row(o, bench,
                     "date,commit,benchmark,machine,threads,particles,command,steps,warmup,dt,step_ms_mean,"
                     "step_ms_median,step_ms_min,step_ms_max,rate_hz_mean,rate_hz_median,tool_particles,"
                     "contacts_mean,metrics",
                     w.fluid.count, ",%d,%d,%.6g,%.4f,%.4f,%.4f,%.4f,%.1f,%.1f,%d,%.1f,%d\n", o->steps, o->warmup,
                     dt, mean, q[0], q[1], q[2], 1000.0 / mean, 1000.0 / q[0], tool.count, contacts / o->steps,
                     o->metrics);
    }
    if (solver)
        ops->destroy(solver);
    fl_metrics_free(&metrics);
    free(st), free(ms);
    fl_tool_free(&tool);
    fl_world_free(&w);
    fl_scene_free(&s);
    return rc;
}

static int bench_tool(const bench_opts *o, const char *name)
{
    fl_error err;
    const fl_solver_ops *ops = fl_solver_on(name, o->device, &err);
    if (!ops) {
        fprintf(stderr, "fluidlab: bench --tool %s: %s\n", name, err.msg);
        return 1;
    }
    int rc = 0;
    for (int k = 0; k < o->n_sizes && rc == 0; k++)
        rc = bench_tool_size(o, name, ops, o->sizes[k], k == 0);
    return rc;
}

/* --tool's defaults: scenes/tool_cup.json in the rate's workload
 * (FL_TOOL_RATE_PATH, before the --set overrides),
 * 10 000 and 20 000 particles or --sizes, 100 steps after 5. 0, or 1 with
 * one line. */
static int tool_defaults(bench_opts *o, const char *sizes)
{
    if (!o->scene) {
        o->scene = "tool_cup";
        if (o->set_count + 1 > FL_MAX_SETS) {
            fprintf(stderr, "fluidlab: bench --tool: too many --set overrides\n");
            return 1;
        }
        memmove(o->sets + 1, o->sets, sizeof o->sets[0] * (size_t)o->set_count);
        o->sets[0] = FL_TOOL_RATE_PATH;
        o->set_count += 1;
    }
    o->steps = o->steps ? o->steps : 100;
    o->warmup = o->warmup >= 0 ? o->warmup : 5;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sizes ? sizes : "10000,20000");
    /* every item between commas, an empty one too (strtok would skip it) */
    for (char *t = buf, *next; t; t = next) {
        next = strchr(t, ',');
        if (next)
            *next++ = '\0';
        double n;
        if (!fl_parse_number(t, &n) || !(n >= 100 && n <= 1e8) || n != floor(n) || o->n_sizes == 8) {
            fprintf(stderr, "fluidlab: bench --sizes %s: expected up to 8 whole numbers from 100 to 1e8, "
                            "comma-separated\n", sizes);
            return 1;
        }
        o->sizes[o->n_sizes++] = (long long)n;
    }
    return 0;
}

int fl_bench_main(int argc, char **argv)
{
    /* 0, -1, NULL: not given (the defaults depend on --tool) */
    bench_opts o = {.device = "cpu", .particles = -1, .warmup = -1, .log_dir = FL_SOURCE_DIR "/docs/perf"};
    const char *sizes = NULL;
    size_t len = (size_t)snprintf(o.command, sizeof o.command, "fluidlab bench");
    const char *targets[32];
    int ntargets = 0, threads = 0, rc = 0;
    for (int k = 0; k < argc && len < sizeof o.command; k++)
        len += (size_t)snprintf(o.command + len, sizeof o.command - len, " %s", argv[k]);
    fl_seen_options seen = {.count = 0};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        int takes = !strcmp(a, "--particles") || !strcmp(a, "--repeat") || !strcmp(a, "--steps") ||
                    !strcmp(a, "--threads") || !strcmp(a, "--scene") || !strcmp(a, "--log") ||
                    !strcmp(a, "--warmup") || !strcmp(a, "--set") || !strcmp(a, "--dt") || !strcmp(a, "--device") ||
                    !strcmp(a, "--sizes") || !strcmp(a, "--surface-spacing") || !strcmp(a, "--frame") ||
                    !strcmp(a, "--out") || !strcmp(a, "--solves");
        if (takes && !v) {
            fprintf(stderr, "fluidlab: bench %s: expected a value\n", a);
            return 1;
        }
        if (takes && strcmp(a, "--set") != 0 && fl_option_repeated(&seen, a)) {
            fprintf(stderr, "fluidlab: bench %s: given twice, expected it once (only --set repeats)\n", a);
            return 1;
        }
        /* the numeric options: the whole value a decimal number, and the
         * counts whole numbers */
        const int numeric = !strcmp(a, "--particles") || !strcmp(a, "--repeat") || !strcmp(a, "--steps") ||
                            !strcmp(a, "--threads") || !strcmp(a, "--warmup") || !strcmp(a, "--solves") ||
                            !strcmp(a, "--dt") || !strcmp(a, "--surface-spacing");
        double num = 0.0;
        if (numeric && !fl_parse_number(v, &num)) {
            fprintf(stderr, "fluidlab: bench %s: expected a number, got '%s'\n", a, v);
            return 1;
        }
        if (numeric && strcmp(a, "--dt") && strcmp(a, "--surface-spacing") && num != floor(num)) {
            fprintf(stderr, "fluidlab: bench %s: expected a whole number, got '%s'\n", a, v);
            return 1;
        }
        if (!strcmp(a, "--particles") && ((num >= 100 && num <= 1e8) || num == 0))
            o.particles = (long long)num;
        else if (!strcmp(a, "--repeat") && num >= 1 && num <= 1000)
            o.repeat = (int)num;
        else if (!strcmp(a, "--steps") && num >= 1 && num <= 1e6)
            o.steps = (int)num;
        else if (!strcmp(a, "--warmup") && num >= 0 && num <= 1e6)
            o.warmup = (int)num;
        else if (!strcmp(a, "--threads") && num >= 1 && num <= 256)
            threads = (int)num;
        else if (!strcmp(a, "--solves") && num >= 1 && num <= 1000)
            o.solves = (int)num;
        else if (!strcmp(a, "--scene"))
            o.scene = v;
        else if (!strcmp(a, "--device") && fl_device_known(v))
            o.device = v;
        else if (!strcmp(a, "--device")) {
            fprintf(stderr, "fluidlab: bench --device: expected cpu, cuda or emu, got '%s'\n", v);
            return 1;
        }
        else if (!strcmp(a, "--set") && o.set_count < FL_MAX_SETS)
            o.sets[o.set_count++] = v;
        else if (!strcmp(a, "--dt") && num > 0.0 && num <= 10.0)
            o.dt = num;
        else if (!strcmp(a, "--surface-spacing") && num > 0.0 && num <= 10.0)
            o.surface_spacing = num;
        else if (!strcmp(a, "--frame") && *v)
            o.frame = v;
        else if (!strcmp(a, "--log") && *v && strlen(v) <= FL_MAX_PATH)
            o.log_dir = v;
        else if (!strcmp(a, "--no-log"))
            o.log_dir = NULL;
        else if (!strcmp(a, "--metrics"))
            o.metrics = 1;
        else if (!strcmp(a, "--tool"))
            o.tool = 1;
        else if (!strcmp(a, "--scaling"))
            o.scaling = 1;
        else if (!strcmp(a, "--out") && *v && strlen(v) <= FL_MAX_PATH && !strchr(v, '\''))
            o.out_dir = v;
        else if (!strcmp(a, "--sizes"))
            sizes = v;
        else if (!strcmp(a, "--out")) {
            fprintf(stderr, "fluidlab: bench --out: expected a folder name of 1 to %d characters, without a quote\n",
                    FL_MAX_PATH);
            return 1;
        } else if (!strcmp(a, "--log")) {
            fprintf(stderr, "fluidlab: bench --log: expected a folder name of 1 to %d characters\n", FL_MAX_PATH);
            return 1;
        } else if (takes) {
            fprintf(stderr, "fluidlab: bench %s: '%s' is out of range\n", a, v);
            return 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "fluidlab: bench %s: unknown option (see fluidlab --help)\n", a);
            return 1;
        } else if (ntargets < 32)
            targets[ntargets++] = a;
        k += takes;
    }
    if (threads)
        omp_set_num_threads(threads);
    if (o.out_dir && !o.scaling) {
        fprintf(stderr, "fluidlab: bench --out: only with --scaling (the figure's folder)\n");
        return 1;
    }
    if (o.scaling && (o.tool || strcmp(o.device, "cpu") != 0)) {
        fprintf(stderr, "fluidlab: bench --scaling: the CPU solvers' thread scaling (not with %s)\n",
                o.tool ? "--tool" : "--device");
        return 1;
    }
    if (o.scaling) { /* up to --threads, else every core */
        o.scaling = threads ? threads : omp_get_num_procs();
        o.out_dir = o.out_dir ? o.out_dir : "out/bench";
    }
    if (o.tool && (o.particles >= 0 || o.repeat)) {
        fprintf(stderr, "fluidlab: bench --tool: %s does not apply (--sizes LIST: the particle counts; one run of "
                        "--steps steps each)\n", o.particles >= 0 ? "--particles" : "--repeat");
        return 1;
    }
    if (o.solves && (o.tool || o.scaling || strcmp(o.device, "cpu") != 0)) {
        fprintf(stderr, "fluidlab: bench --solves: FLIP's pressure solves on the CPU (not with %s)\n",
                o.tool ? "--tool" : o.scaling ? "--scaling" : "--device");
        return 1;
    }
    if (sizes && !o.tool) {
        fprintf(stderr, "fluidlab: bench --sizes: only with --tool (else --particles N)\n");
        return 1;
    }
    if (o.tool) {
        if ((rc = tool_defaults(&o, sizes)))
            return rc;
    } else {
        /* bench surface alone: the report's case 1; voxelize alone: the bunny drop */
        const int surface_only = ntargets == 1 && !strcmp(targets[0], "surface");
        const int voxelize_only = ntargets == 1 && !strcmp(targets[0], "voxelize");
        o.scene = o.scene ? o.scene : surface_only ? "flip_case1" : voxelize_only ? "pbf_bunny" : "dam_break";
        o.repeat = o.repeat ? o.repeat : 7;
        o.steps = o.steps ? o.steps : 10;
        o.warmup = o.warmup >= 0 ? o.warmup : 3;
    }
    if (o.frame && (ntargets != 1 || strcmp(targets[0], "surface") != 0 || o.tool)) {
        fprintf(stderr, "fluidlab: bench --frame: only with bench surface (a saved frame's particles as its "
                "workload)\n");
        return 1;
    }
    if (o.frame && o.particles > 0) {
        fprintf(stderr, "fluidlab: bench surface --frame: not with --particles (the frame's particles are the "
                "workload, on its scene as it is)\n");
        return 1;
    }
    if (o.particles < 0) /* default: 100 000 for the dam break, any other scene as it is */
        o.particles = strcmp(o.scene, "dam_break") == 0 ? 100000 : 0;
    if (ntargets == 0 && o.scaling) {
        static const char *const all[] = {"sph", "wcsph", "pcisph", "pbf", "flip"};
        for (int k = 0; k < 5; k++)
            targets[ntargets++] = all[k];
    }
    if (ntargets == 0)
        targets[ntargets++] = o.tool ? "pbf" : "grid";
    fl_error err;
    for (int t = 0; t < ntargets; t++) { /* every target, and its device, before anything is written */
        const int cpu_only = !strcmp(targets[t], "grid") || !strcmp(targets[t], "surface") ||
                             !strcmp(targets[t], "voxelize");
        if (cpu_only && (o.tool || o.scaling)) {
            fprintf(stderr, "fluidlab: bench %s %s: expected solvers (%s)\n", o.tool ? "--tool" : "--scaling",
                    targets[t], o.tool ? "the tool loop's, default pbf" : "e.g. bench sph pbf flip --scaling");
            return 1;
        }
        if (!strcmp(targets[t], "grid") && strcmp(o.device, "cpu") != 0) {
            fprintf(stderr, "fluidlab: bench grid: --device %s: the grid benchmark times the CPU's neighbor grid "
                            "(a device's grid is timed in its solvers' grid_build stage)\n", o.device);
            return 1;
        }
        if ((!strcmp(targets[t], "surface") || !strcmp(targets[t], "voxelize")) && strcmp(o.device, "cpu") != 0) {
            fprintf(stderr, "fluidlab: bench %s: --device %s: it runs on the CPU\n", targets[t], o.device);
            return 1;
        }
        if (cpu_only)
            continue;
        if (!fl_solver_find(targets[t])) {
            fprintf(stderr, "fluidlab: bench %s: unknown solver or benchmark (grid, surface, voxelize, or see fluidlab "
                            "list)\n",
                    targets[t]);
            return 1;
        }
        if (o.solves && !fl_flip_is(fl_solver_find(targets[t]))) {
            fprintf(stderr, "fluidlab: bench %s --solves: only for the solvers on a MAC grid (flip, pic)\n",
                    targets[t]);
            return 1;
        }
        if (!fl_solver_on(targets[t], o.device, &err)) {
            fprintf(stderr, "fluidlab: bench %s: %s\n", targets[t], err.msg);
            return 1;
        }
    }
    if (o.log_dir && fl_make_dirs(o.log_dir, &err)) { /* before the timings, not after */
        fprintf(stderr, "fluidlab: bench --log: %s\n", err.msg);
        return 2;
    }
    if (o.scaling)
        return bench_scaling(&o, targets, ntargets);
    for (int t = 0; t < ntargets && rc == 0; t++)
        rc = o.tool                             ? bench_tool(&o, targets[t])
             : !strcmp(targets[t], "grid")    ? bench_grid(&o)
             : !strcmp(targets[t], "surface") ? bench_surface(&o)
             : !strcmp(targets[t], "voxelize") ? bench_voxelize(&o)
                                               : bench_solver(&o, targets[t], NULL);
    return rc;
}
