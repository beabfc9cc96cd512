/* harness.c: `fluidlab run`: one scene, one solver, one output folder.
 *
 * The harness owns the metrics: after every step it bins the fluid in its
 * own neighbor grid and evaluates the shared poly6 density estimator
 * (fl_density_poly6), so that every solver is measured the same way. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef FL_HAVE_CUDA
#include "cuda_device.h"
#endif

#include "blobby.h"
#include "fl_commit.h"
#include "dev.h"
#include "flip.h"
#include "harness.h"
#include "io.h"
#include "live.h"
#include "obj_write.h"
#include "vtp_write.h"
#include "pictures.h"
#include "plot.h"
#include "tool.h"

/* How the run advances: a fixed step, or ("dt": "cfl") each step as large
 * as the solver's last dt_limit allows, cut so that frames fall on their
 * times. */
typedef struct run_clock {
    int adaptive;
    double dt;          /* the fixed step, or the largest adaptive one (a frame), s */
    int spf;            /* fixed: steps per frame */
    long long steps;    /* fixed: steps planned */
    double t_end;       /* s */
    double frame_dt;    /* s */
} run_clock;

/* An adaptive step of at most dt that lands on the next frame time,
 * remaining away: the whole of it when dt reaches it; half of it when it
 * is less than two steps away, so that two even steps land there instead
 * of a full one and a sliver (a step cut to a sliver pushes PCISPH's
 * pressure as 1/dt^2); else dt. So no step is shorter than half the
 * solver's limit, unless the limit falls between the two. */
static double landing_step(double dt, double remaining)
{
    if (dt >= remaining)
        return remaining;
    return 2.0 * dt > remaining ? 0.5 * remaining : dt;
}

int fl_parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* strtod also reads hexadecimal ("0x10" = 16): not what a user means;
     * and it skips leading blanks, which the end may not have either */
    if (end == s || *end != '\0' || errno || !isfinite(v) || strpbrk(s, "xX") || isspace((unsigned char)s[0]))
        return 0;
    *out = v;
    return 1;
}

int fl_option_repeated(fl_seen_options *seen, const char *a)
{
    for (int q = 0; q < seen->count; q++)
        if (strcmp(seen->name[q], a) == 0)
            return 1;
    if (seen->count < (int)(sizeof seen->name / sizeof seen->name[0]))
        seen->name[seen->count++] = a;
    return 0;
}

void fl_run_config_default(fl_run_config *c)
{
    memset(c, 0, sizeof *c);
    c->solver = "sph";
    c->device = "cpu";
    c->out_dir = "out";
    c->measure_every = 1;
}

int fl_device_known(const char *name)
{
    return strcmp(name, "cpu") == 0 || strcmp(name, "cuda") == 0 || strcmp(name, "emu") == 0;
}

int fl_device_check(const char *device, fl_error *err)
{
    if (!device || strcmp(device, "cpu") == 0 || strcmp(device, "emu") == 0)
        return FL_OK;
    if (!fl_device_known(device))
        return fl_fail(err, FL_ERR_INPUT, "--device %s: unknown device (cpu, cuda, or emu: the CUDA kernels on the "
                       "CPU)", device);
#ifdef FL_HAVE_CUDA
    char name[256];
    fl_error why;
    if (fl_cuda_device_query(name, sizeof name, &why) != FL_OK)
        return fl_fail(err, FL_ERR_DEVICE, "--device cuda: %s", why.msg);
    return FL_OK;
#else
    return fl_fail(err, FL_ERR_DEVICE, "--device cuda: this build has no CUDA backend (no CUDA compiler was found "
                   "when it was configured)");
#endif
}

void fl_device_solvers(char *out, int len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; fl_solvers[k] && used < (size_t)len; k++)
        if (fl_dev_solver_ops(&fl_dev_emu, fl_solvers[k]->name))
            used += (size_t)snprintf(out + used, (size_t)len - used, "%s%s", used ? ", " : "", fl_solvers[k]->name);
}

const fl_solver_ops *fl_solver_on(const char *name, const char *device, fl_error *err)
{
    const fl_solver_ops *cpu = fl_solver_find(name);
    if (!cpu) {
        char names[256] = "";
        size_t len = 0;
        for (int k = 0; fl_solvers[k] && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", fl_solvers[k]->name);
        fl_fail(err, FL_ERR_INPUT, "--solver %s: unknown solver (available: %s)", name, names);
        return NULL;
    }
    if (!device || strcmp(device, "cpu") == 0)
        return cpu;
    if (fl_device_check(device, err) != FL_OK)
        return NULL;
#ifdef FL_HAVE_CUDA
    const fl_dev_backend *be = strcmp(device, "emu") == 0 ? &fl_dev_emu : &fl_dev_cuda;
#else
    const fl_dev_backend *be = &fl_dev_emu; /* fl_device_check refuses cuda in this build */
#endif
    const fl_solver_ops *ops = fl_dev_solver_ops(be, name);
    if (!ops) {
        char names[128];
        fl_device_solvers(names, sizeof names);
        fl_fail(err, FL_ERR_INPUT, "--device %s: the %s solver runs on the CPU only (on the device: %s)", device, name,
                names);
    }
    return ops;
}

void fl_resolve_scene(const char *name, char *out, int len)
{
    struct stat sb;
    if (stat(name, &sb) == 0 || strchr(name, '/') || strstr(name, ".json"))
        snprintf(out, (size_t)len, "%s", name);
    else
        snprintf(out, (size_t)len, "%s/scenes/%s.json", FL_SOURCE_DIR, name);
}

int fl_build_world(const fl_scene *s, fl_world *w, fl_error *err)
{
    int rc = fl_scene_build_world(s, w, err);
    if (rc == FL_OK && (rc = fl_boundary_compute_volumes(w, err)) != FL_OK)
        fl_world_free(w);
    return rc;
}

void fl_stability_init(fl_stability *s, const fl_world *w)
{
    double g = sqrt(w->gravity[0] * w->gravity[0] + w->gravity[1] * w->gravity[1] +
                    w->gravity[2] * w->gravity[2]);
    double height = w->domain.hi[1] - w->domain.lo[1];
    /* the scene's speed scale: free fall over the domain's height, unless
     * gravity is tiny or zero and the fluid's own initial speed, or the
     * stated floor, is larger (docs/design.md, "Stability") */
    s->speed_scale = fmax(fmax(sqrt(2.0 * g * height), fl_max_speed(&w->fluid, NULL)), FL_STABILITY_MIN_SPEED);
    s->speed_limit = 10.0 * s->speed_scale;
    s->over_compressed = 0;
}

int fl_stability_check(fl_stability *s, const fl_step_stats *st, char *reason, int len)
{
    if (st->nan_count > 0) {
        snprintf(reason, (size_t)len, "%d particle(s) with a NaN or Inf position or velocity", st->nan_count);
        return 1;
    }
    if (!(st->max_speed <= s->speed_limit)) {
        snprintf(reason, (size_t)len, "max speed %.3g m/s above the limit 10 U = %.3g m/s", st->max_speed,
                 s->speed_limit);
        return 1;
    }
    s->over_compressed = st->density_err_avg > 0.20 ? s->over_compressed + 1 : 0;
    if (s->over_compressed >= 10) {
        snprintf(reason, (size_t)len, "compression error above 20 %% for 10 consecutive steps (%.1f %%)",
                 100.0 * st->density_err_avg);
        return 1;
    }
    return 0;
}

int fl_measure_density(const fl_world *w, fl_nbgrid *g, float *rho, fl_step_stats *st, fl_error *err)
{
    const fl_particles *f = &w->fluid;
    int rc = fl_nbgrid_update_boundary(g, w, err);
    if (rc == FL_OK)
        rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, err);
    if (rc == FL_OK)
        rc = fl_nbgrid_search(g, f->x, f->y, f->z, err);
    if (rc)
        return rc;
    fl_density_poly6(w, g, f->x, f->y, f->z, rho);
    fl_compression(rho, f->count, w->rho0, &st->density_err_avg, &st->density_err_max);
    return FL_OK;
}

/* ---- output files ------------------------------------------------------ */

int fl_make_dirs(const char *path, fl_error *err)
{
    char buf[1024];
    if (!path[0] || strlen(path) >= sizeof buf)
        return fl_fail(err, FL_ERR_IO, "'%.100s': cannot create folder: expected a name of 1 to %zu characters", path,
                       sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return fl_fail(err, FL_ERR_IO, "%s: cannot create folder: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return fl_fail(err, FL_ERR_IO, "%s: cannot create folder: %s", buf, strerror(errno));
    struct stat sb;
    if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return fl_fail(err, FL_ERR_IO, "%s: cannot create folder: a file of that name is there", buf);
    return FL_OK;
}

static void write_stats_header(FILE *f)
{
    fprintf(f, "step,time,dt,density_err_avg,density_err_max,max_speed,min_x,max_x,min_y,max_y,"
               "min_z,max_z,front_x,iterations,cfl,nan_count,substeps");
    for (int s = 0; s < FL_STAGE_COUNT; s++)
        fprintf(f, ",ms_%s", fl_stage_names[s]);
    fprintf(f, ",ms_step\n");
}

static void extent(const fl_particles *p, double lo[3], double hi[3])
{
    double x0 = INFINITY, y0 = INFINITY, z0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY, z1 = -INFINITY;
    #pragma omp parallel for schedule(static) reduction(min : x0, y0, z0) reduction(max : x1, y1, z1)
    for (int i = 0; i < p->count; i++) {
        x0 = fmin(x0, p->x[i]), x1 = fmax(x1, p->x[i]);
        y0 = fmin(y0, p->y[i]), y1 = fmax(y1, p->y[i]);
        z0 = fmin(z0, p->z[i]), z1 = fmax(z1, p->z[i]);
    }
    lo[0] = x0, lo[1] = y0, lo[2] = z0, hi[0] = x1, hi[1] = y1, hi[2] = z1;
}

int fl_metrics_init(fl_metrics *m, const fl_solver_ops *ops, void *solver, const fl_world *w, fl_error *err)
{
    memset(m, 0, sizeof *m);
    m->ops = ops;
    m->solver = solver;
    if (ops->measure)
        return FL_OK;
    int rc = fl_nbgrid_init(&m->grid, w, err);
    if (rc)
        return rc;
    if (!(m->rho = fl_alloc(sizeof(float) * (size_t)(w->fluid.count > 0 ? w->fluid.count : 1))))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the metrics of %d particles", w->fluid.count);
    return FL_OK;
}

int fl_metrics_step(fl_metrics *m, const fl_world *w, fl_step_stats *st, double lo[3], double hi[3], fl_error *err)
{
    if (m->ops->measure) /* on the device, where the particles are */
        return m->ops->measure(m->solver, st, lo, hi, err);
    int rc = fl_measure_density(w, &m->grid, m->rho, st, err);
    if (rc == FL_OK)
        extent(&w->fluid, lo, hi);
    return rc;
}

void fl_metrics_free(fl_metrics *m)
{
    fl_nbgrid_free(&m->grid);
    fl_free(m->rho);
    m->rho = NULL;
}

static void write_stats_row(FILE *f, long long step, double time, double dt, const fl_world *w,
                            const fl_step_stats *st, const double lo[3], const double hi[3], double step_ms)
{
    fprintf(f, "%lld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%.6g,%d,%d", step, time, dt,
            st->density_err_avg, st->density_err_max, st->max_speed, lo[0], hi[0], lo[1], hi[1], lo[2],
            hi[2], hi[0] - w->domain.lo[0], st->iterations, st->cfl, st->nan_count, st->substeps);
    for (int s = 0; s < FL_STAGE_COUNT; s++)
        fprintf(f, ",%.4f", st->stage_ms[s]);
    fprintf(f, ",%.4f\n", step_ms);
}

static void write_convergence(FILE *f, long long step, double time, const fl_step_stats *st)
{
    int n = st->iterations < FL_MAX_HISTORY ? st->iterations : FL_MAX_HISTORY;
    for (int k = 0; k < n; k++)
        fprintf(f, "%lld,%.9g,%d,%.9g,%.9g\n", step, time, k + 1, st->residual[k], st->residual_max[k]);
}

/* The frames saved with --save vtu, listed in DIR/frames.pvd. */
typedef struct pvd_list {
    char (*names)[32]; /* "frames/NNNN.vtu", "frames/NNNN_tool.vtp" */
    const char **files;
    double *times;     /* s */
    int count, capacity;
} pvd_list;

static void pvd_free(pvd_list *l)
{
    free(l->names);
    free(l->files);
    free(l->times);
    memset(l, 0, sizeof *l);
}

/* Room for a run's frames: the initial one, `frames` more, and one at
 * the end. */
static int pvd_reserve(pvd_list *l, double frames, fl_error *err)
{
    double n = frames + 2.0;
    if (!(n < 1e7))
        return fl_fail(err, FL_ERR_INPUT, "--save vtu: %.3g frames are more than frames.pvd lists (at most 1e7)", n);
    l->capacity = (int)n;
    l->names = malloc((size_t)l->capacity * sizeof *l->names);
    l->files = malloc((size_t)l->capacity * sizeof *l->files);
    l->times = malloc((size_t)l->capacity * sizeof *l->times);
    if (!l->names || !l->files || !l->times)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the list of %d frames", l->capacity);
    return FL_OK;
}

/* 1 when the run saves particle frames (--save, any format). */
static int saves_frames(const fl_run_config *c)
{
    return c->save_bin || c->save_vtk || c->save_vtu || c->save_obj || c->save_png || c->save_grid;
}

double fl_surface_spacing(const fl_run_config *c, const fl_world *w)
{
    return c->surface_spacing > 0.0 ? c->surface_spacing : fl_blobby_default_spacing(w->spacing);
}

/* The fluid's surface (grid/blobby.h: the report's parameters at the
 * run's surface spacing, closed at the domain's walls) into path as OBJ. */
static int write_surface(const char *path, const fl_run_config *c, const fl_world *w, fl_error *err)
{
    const fl_blobby_def def = fl_default_blobby_def(fl_surface_spacing(c, w));
    fl_trimesh mesh;
    int rc = fl_blobby_surface(&w->fluid, &def, &w->domain, &mesh, err);
    if (rc == FL_OK)
        rc = fl_obj_write(path, &mesh, FL_OBJ_SURFACE, err);
    fl_trimesh_free(&mesh);
    return rc;
}

typedef struct run_state {
    fl_scene scene;
    fl_world world;
    fl_params params;
    const fl_solver_ops *ops;
    void *solver;
    fl_metrics metrics;
    fl_step_stats *stats;
    fl_tool tool;                 /* the scene's tool, when it has one (world.tool.active) */
    FILE *stats_csv, *conv_csv, *tool_csv;
    char stats_path[1200], conv_path[1200], tool_path[1200];
    pvd_list pvd, tool_pvd;        /* --save vtu: frames.pvd's and tool.pvd's files */
    fl_live_plot *live;
    char caption[300];            /* "<scene>, <solver>": the start of the pictures' titles */
    fl_pictures pictures;         /* --save png */
    const fl_mac_grid *mac;       /* --save grid: the solver's MAC grid */
    double last_density_err;      /* fluidlab tool: the last measured avg compression */
    fl_params taken;              /* the parameters the solver ran with (fl_params.taken) */
} run_state;

/* File (a name under the run folder, at most 31 characters) at time t added
 * to l, and DIR/collection rewritten to list l, so that an interrupted run
 * leaves a series ParaView opens. */
static int pvd_add(pvd_list *l, const char *dir, const char *collection, const char *file, double t, fl_error *err)
{
    if (l->count == l->capacity)
        return fl_fail(err, FL_ERR_IO, "%s: more frames than the %d planned", collection, l->capacity);
    snprintf(l->names[l->count], sizeof l->names[0], "%s", file);
    l->files[l->count] = l->names[l->count];
    l->times[l->count] = t;
    l->count++;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, collection);
    return fl_pvd_write(path, l->files, l->times, l->count, err) ? FL_ERR_IO : FL_OK;
}

/* The tool's surface where its particles were in the last step (the
 * link's pose) beside frame number frame: frames/NNNN_tool.obj, and with
 * vtu frames/NNNN_tool.vtp, listed in DIR/tool.pvd. */
static int write_tool_surface(const fl_run_config *c, run_state *r, int frame, fl_error *err)
{
    fl_trimesh mesh;
    char path[1200], file[32];
    int rc = fl_tool_surface(&r->tool, &r->world.tool.pose, &mesh, err);
    if (rc == FL_OK) {
        snprintf(path, sizeof path, "%s/frames/%04d_tool.obj", c->out_dir, frame);
        rc = fl_obj_write(path, &mesh, "rigid tool's surface", err);
    }
    if (rc == FL_OK && c->save_vtu) {
        snprintf(file, sizeof file, "frames/%04d_tool.vtp", frame);
        snprintf(path, sizeof path, "%s/%s", c->out_dir, file);
        rc = fl_vtp_write(path, &mesh, r->world.time, err);
        if (rc == FL_OK)
            rc = pvd_add(&r->tool_pvd, c->out_dir, "tool.pvd", file, r->world.time, err);
    }
    fl_trimesh_free(&mesh);
    return rc;
}

/* Frame number frame of the world into DIR/frames/ in every format asked
 * for, and with a tool its surface (write_tool_surface); with vtu,
 * DIR/frames.pvd is rewritten to list it too. The grid's pictures start at
 * frame 1: before the first step there has been no projection. */
static int write_frame(const fl_run_config *c, run_state *r, int frame, fl_error *err)
{
    const fl_world *w = &r->world;
    char path[1200];
    int rc;
    if (c->save_png && (rc = fl_pictures_particles(&r->pictures, w, c->out_dir, frame, err)))
        return rc;
    const double slice = c->slice_set ? c->slice_z : NAN;
    if (c->save_grid && frame > 0 && (rc = fl_pictures_grid(r->mac, w, slice, r->caption, c->out_dir, frame, err)))
        return rc;
    if (c->save_bin) {
        snprintf(path, sizeof path, "%s/frames/%04d.bin", c->out_dir, frame);
        if (fl_frame_write_bin(path, &w->fluid, w->time, err))
            return FL_ERR_IO;
    }
    if (c->save_vtk) {
        snprintf(path, sizeof path, "%s/frames/%04d.vtk", c->out_dir, frame);
        if (fl_frame_write_vtk(path, &w->fluid, w->time, err))
            return FL_ERR_IO;
    }
    if (c->save_obj) {
        snprintf(path, sizeof path, "%s/frames/%04d.obj", c->out_dir, frame);
        int rc = write_surface(path, c, w, err);
        if (rc)
            return rc;
    }
    if (w->tool.active && saves_frames(c) && (rc = write_tool_surface(c, r, frame, err)))
        return rc;
    if (c->save_vtu) {
        char file[32];
        snprintf(file, sizeof file, "frames/%04d.vtu", frame);
        snprintf(path, sizeof path, "%s/%s", c->out_dir, file);
        if (fl_frame_write_vtu(path, &w->fluid, w->time, err))
            return FL_ERR_IO;
        if ((rc = pvd_add(&r->pvd, c->out_dir, "frames.pvd", file, w->time, err)))
            return rc;
    }
    return FL_OK;
}

const char *fl_run_status_name(fl_run_status s)
{
    static const char *const names[] = {"stable", "unstable", "interrupted", "incomplete"};
    return s >= FL_RUN_STABLE && s <= FL_RUN_INCOMPLETE ? names[s] : "unknown";
}

FILE *fl_open_written(const char *path, fl_error *err)
{
    errno = 0;
    FILE *f = fopen(path, "w");
    if (!f)
        fl_fail(err, FL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

int fl_close_written(FILE *f, const char *path, fl_error *err)
{
    errno = 0;
    int failed = fflush(f) != 0 || ferror(f), e = errno;
    if (fclose(f) != 0 && !failed)
        failed = 1, e = errno;
    if (failed)
        return fl_fail(err, FL_ERR_IO, "%s: write failed: %s", path,
                       e ? strerror(e) : "an earlier write did not reach the file");
    return FL_OK;
}

/* run.json is written when the run starts, with status "running" and
 * this many spaces after it, and rewritten in place when the run ends:
 * on a full disk the final status ("incomplete") still fits in the space
 * the file already holds. */
#define RUN_JSON_RESERVE 4096

/* Writes run.json's text to path: first (the run starts) a new file with
 * RUN_JSON_RESERVE blanks after the text, so that the final status still
 * fits on a full disk, else in place, cut to the text. */
static int put_run_json(const char *path, const char *text, int first, fl_error *err)
{
    errno = 0;
    FILE *f = first ? fopen(path, "w") : fopen(path, "r+");
    if (!f && !first)
        f = fopen(path, "w");
    if (!f)
        return fl_fail(err, FL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    const size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
    for (int k = 0; ok && first && k < RUN_JSON_RESERVE; k += 64)
        ok = fputs("                                                               \n", f) >= 0;
    ok = ok && fflush(f) == 0;
    if (ok && !first)
        ok = ftruncate(fileno(f), (off_t)(len + 1)) == 0;
    int e = errno;
    if (!ok) {
        fclose(f);
        return fl_fail(err, FL_ERR_IO, "%s: write failed: %s", path, e ? strerror(e) : "unknown error");
    }
    return fl_close_written(f, path, err);
}

/* status: "running" before the first step, else the result's. input:
 * the streamed tool loop's input (`fluidlab tool`), NULL for a run. */
static int write_run_json(const fl_run_config *c, const fl_scene *s, const fl_params *prm, const fl_params *taken,
                          const fl_world *w, const run_clock *clk, const fl_run_result *res, const char *status,
                          const char *input, fl_error *err)
{
    char machine[256], path[1200];
    fl_machine_description(machine, sizeof machine);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "fluidlab", FL_VERSION);
    cJSON_AddStringToObject(root, "commit", FL_COMMIT);
    cJSON_AddStringToObject(root, "machine", machine);
    cJSON_AddNumberToObject(root, "threads", omp_get_max_threads());
    /* absolute, so that the meshes it names are found from anywhere (fluidlab render) */
    char *scene_file = realpath(s->path, NULL);
    cJSON_AddStringToObject(root, "scene_file", scene_file ? scene_file : s->path);
    free(scene_file);
    cJSON_AddItemToObject(root, "scene", cJSON_Parse(s->json));
    cJSON_AddStringToObject(root, "solver", c->solver);
    cJSON_AddStringToObject(root, "device", c->device ? c->device : "cpu");
    cJSON *params = cJSON_AddObjectToObject(root, "parameters");
    for (int k = 0; k < prm->count; k++)
        cJSON_AddNumberToObject(params, prm->items[k].key, prm->items[k].value);
    cJSON *ran = cJSON_AddObjectToObject(root, "parameters_taken");
    for (int k = 0; k < taken->count; k++)
        cJSON_AddNumberToObject(ran, taken->items[k].key, taken->items[k].value);
    if (input) { /* ticks of any length, each cut into steps of dt */
        cJSON_AddNumberToObject(root, "dt", clk->dt);
        cJSON *stream = cJSON_AddObjectToObject(root, "tool_stream");
        cJSON_AddStringToObject(stream, "input", input);
        cJSON_AddNumberToObject(stream, "ticks", (double)res->ticks);
        cJSON_AddNumberToObject(stream, "measure_every", c->measure_every);
        cJSON_AddNumberToObject(stream, "ticks_without_a_step", (double)res->deferred);
    } else if (clk->adaptive) {
        cJSON_AddStringToObject(root, "dt", "cfl");
        cJSON_AddNumberToObject(root, "dt_max", clk->dt);
    } else {
        cJSON_AddNumberToObject(root, "dt", clk->dt);
        cJSON_AddNumberToObject(root, "steps_per_frame", clk->spf);
        cJSON_AddNumberToObject(root, "steps_planned", (double)clk->steps);
    }
    cJSON_AddNumberToObject(root, "fluid_particles", w->fluid.count);
    cJSON_AddNumberToObject(root, "boundary_particles", w->boundary.count);
    cJSON_AddNumberToObject(root, "particle_mass", w->mass);
    cJSON_AddNumberToObject(root, "support_radius", w->h);
    if (c->save_obj) { /* what `fluidlab surface` needs to rebuild the same OBJ from .bin frames */
        const fl_blobby_def def = fl_default_blobby_def(fl_surface_spacing(c, w));
        cJSON *surface = cJSON_AddObjectToObject(root, "surface");
        cJSON_AddNumberToObject(surface, "spacing", def.spacing);
        cJSON_AddNumberToObject(surface, "radius", def.radius);
        cJSON_AddNumberToObject(surface, "search_radius", def.support);
    }
    cJSON *r = cJSON_AddObjectToObject(root, "result");
    cJSON_AddStringToObject(r, "status", status);
    cJSON_AddStringToObject(r, "reason", res->reason);
    cJSON_AddNumberToObject(r, "steps", (double)res->steps);
    cJSON_AddNumberToObject(r, "frames_saved", res->frames_saved);
    cJSON_AddNumberToObject(r, "simulated_time", res->sim_time);
    cJSON_AddNumberToObject(r, "wall_seconds", res->wall_s);
    cJSON_AddNumberToObject(r, "mean_density_err_avg", res->mean_err_avg);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for run.json");
    snprintf(path, sizeof path, "%s/run.json", c->out_dir);
    int rc = put_run_json(path, text, strcmp(status, "running") == 0, err);
    free(text);
    return rc;
}

void fl_summary_lost(const char *dir, const fl_run_result *res, char *reason, int len)
{
    snprintf(reason, (size_t)len, "an output could not be written: %.600s/summary.png and .svg, not whole (the run "
             "was %s%s%.300s)", dir, fl_run_status_name(res->status), res->reason[0] ? ": " : "", res->reason);
}

int fl_run_json_mark_incomplete(const char *dir, const char *reason, fl_error *err)
{
    cJSON *root;
    int rc = fl_run_json_read(dir, &root, err);
    if (rc)
        return rc;
    cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "result");
    char *text = NULL;
    if (cJSON_IsObject(r)) {
        cJSON_DeleteItemFromObjectCaseSensitive(r, "status");
        cJSON_DeleteItemFromObjectCaseSensitive(r, "reason");
        cJSON_AddStringToObject(r, "status", fl_run_status_name(FL_RUN_INCOMPLETE));
        cJSON_AddStringToObject(r, "reason", reason);
        text = cJSON_Print(root);
    }
    cJSON_Delete(root);
    char path[FL_MAX_PATH + 300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (!text)
        return fl_fail(err, FL_ERR_INPUT, "%s: no result to mark incomplete", path);
    rc = put_run_json(path, text, 0, err);
    free(text);
    return rc;
}

static void progress(const char *solver, double t, double t_end, long long step, double wall_ms)
{
    double done = t_end > 0 ? t / t_end : 1.0;
    double eta = done > 0 ? wall_ms * 1e-3 * (1.0 - done) / done : 0.0;
    fprintf(stderr, "\r[%s] t = %.4g / %.4g s, step %lld, %.0f steps/s, ETA %.0f s   ", solver, t, t_end, step,
            wall_ms > 0 ? step / (wall_ms * 1e-3) : 0.0, eta);
    fflush(stderr);
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t pending_signal;
static struct timespec first_signal_at;

/* The first SIGINT or SIGTERM is noted and the run stops at the end of its
 * step. Another within 0.1 s of it is the same request delivered twice
 * (`timeout -s INT` signals the process and then its group); a second
 * signal after that stops the process where it is (the default action,
 * raised again). clock_gettime and raise are async-signal-safe. */
static void on_signal(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!pending_signal) {
        first_signal_at = now;
        pending_signal = sig;
        return;
    }
    const double since = (double)(now.tv_sec - first_signal_at.tv_sec) +
                         1e-9 * (double)(now.tv_nsec - first_signal_at.tv_nsec);
    if (since < 0.1)
        return;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    raise(sig);
}

void fl_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int fl_interrupted(void)
{
    return pending_signal;
}

/* ---- the run ------------------------------------------------------------ */

static void run_state_free(run_state *r)
{
    char msg[256];
    if (r->live && fl_live_close(&r->live, msg, sizeof msg))
        fprintf(stderr, "fluidlab: %s\n", msg);
    if (r->stats_csv)
        fclose(r->stats_csv);
    if (r->conv_csv)
        fclose(r->conv_csv);
    if (r->tool_csv)
        fclose(r->tool_csv);
    if (r->solver)
        r->ops->destroy(r->solver);
    fl_metrics_free(&r->metrics);
    fl_pictures_free(&r->pictures);
    fl_tool_free(&r->tool);
    free(r->stats);
    pvd_free(&r->pvd);
    pvd_free(&r->tool_pvd);
    fl_world_free(&r->world);
    fl_scene_free(&r->scene);
}
int fl_build_world_tool(const fl_scene *s, fl_world *w, fl_tool *t, fl_error *err)
{
    int rc = fl_build_world(s, w, err);
    if (rc || s->tool.shape.kind == FL_TOOL_NONE || (rc = fl_tool_init(t, &s->tool, w, err)) == FL_OK)
        return rc;
    char why[FL_ERROR_LEN];
    snprintf(why, sizeof why, "%s", err->msg);
    fl_world_free(w);
    return fl_fail(err, rc, "%s: %s", s->path, why);
}

int fl_tool_loop_step(const fl_solver_ops *ops, void *solver, fl_world *w, fl_tool *t, double dt, fl_step_stats *st,
                      fl_tool_report *row, fl_error *err)
{
    int rc = w->tool.active ? fl_tool_before_step(t, w, dt, err) : FL_OK;
    if (rc != FL_OK) { /* err holds the tool's reason */
        w->time += dt;
        return rc;
    }
    rc = ops->step(solver, w, dt, st);
    w->time += dt;
    if (rc == FL_OK && w->tool.active)
        fl_tool_after_step(t, w, dt, row);
    else if (rc != FL_OK && st->failure[0])
        snprintf(err->msg, sizeof err->msg, "%s", st->failure);
    else if (rc == FL_ERR_OUTSIDE)
        snprintf(err->msg, sizeof err->msg, "a particle left the neighbor grid (NaN or blow-up)");
    else if (rc != FL_OK)
        snprintf(err->msg, sizeof err->msg, "the solver's step failed (code %d)", rc);
    return rc;
}

/* The solver, the command line's step and the scene (with its overrides)
 * of a run or a tool loop: their problems, before anything is built. */
static int run_load(const fl_run_config *c, run_state *r, fl_error *err)
{
    char path[1024];
    fl_resolve_scene(c->scene, path, sizeof path);
    if (!(r->ops = fl_solver_on(c->solver, c->device, err)))
        return FL_ERR_INPUT;
    if (!(c->dt >= 0.0))
        return fl_fail(err, FL_ERR_INPUT, "--dt: expected a positive number of seconds, got %g", c->dt);
    if (!(c->surface_spacing >= 0.0 && isfinite(c->surface_spacing)))
        return fl_fail(err, FL_ERR_INPUT, "--surface-spacing: expected a positive number of metres, got %g",
                       c->surface_spacing);
    if (c->surface_spacing > 0.0 && !c->save_obj)
        return fl_fail(err, FL_ERR_INPUT, "--surface-spacing: the surfaces' grid, only with --save obj");
    return fl_scene_load(path, c->sets, c->set_count, &r->scene, err);
}

/* The scene's solver names and their sections' keys checked, then its world and tool built, and
 * the solver, the metrics and the step's stats set up. */
static int run_build(const fl_run_config *c, run_state *r, fl_error *err)
{
    const fl_scene *s = &r->scene;
    for (int k = 0; k < s->solver_count; k++) {
        const fl_solver_ops *o = fl_solver_find(s->solvers[k].name);
        if (!o)
            return fl_fail(err, FL_ERR_INPUT, "%s: solvers.%s: unknown solver", s->path, s->solvers[k].name);
        /* a mistyped key for a solver that does not run would go unseen */
        if (o->param_keys && fl_params_check_known(&s->solvers[k].params, o->param_keys, err))
            return FL_ERR_INPUT;
    }
    /* a surface grid coarser than a quarter of the tank cannot close the
     * surface at its walls (10 m put vertices 1.6 m outside it) */
    double least = INFINITY;
    for (int a = 0; a < s->dims; a++)
        least = fmin(least, s->domain.hi[a] - s->domain.lo[a]);
    if (c->surface_spacing > 0.25 * least)
        return fl_fail(err, FL_ERR_INPUT, "--surface-spacing %g m: expected at most a quarter of the domain's "
                       "smallest extent, %g m", c->surface_spacing, 0.25 * least);
    int rc = fl_build_world_tool(s, &r->world, &r->tool, err);
    if (rc)
        return rc;
    /* the values in the sections of the solvers it does not run: a bad one
     * would stop only the run that uses it (compare's, after the others) */
    for (int k = 0; k < s->solver_count; k++) {
        const fl_solver_ops *o = fl_solver_find(s->solvers[k].name);
        if (strcmp(s->solvers[k].name, c->solver) != 0 && o->check_params &&
            (rc = o->check_params(&r->world, &s->solvers[k].params, err)))
            return rc;
    }
    fl_scene_solver_params(s, c->solver, &r->params);
    fl_params_init(&r->taken, r->params.source);
    r->params.taken = &r->taken; /* what the solver reads, defaults included */
    r->solver = fl_solver_create(r->ops, &r->world, &r->params, err);
    r->params.taken = NULL;
    if (!r->solver)
        return FL_ERR_INPUT;
    if ((rc = fl_metrics_init(&r->metrics, r->ops, r->solver, &r->world, err)))
        return rc;
    if (!(r->stats = calloc(1, sizeof *r->stats)))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the metrics of %d particles", r->world.fluid.count);
    return FL_OK;
}

/* --save png, --save grid, --color and --slice: one line on what is
 * wrong with them for the solver ops, before anything is built. */
static int pictures_check(const fl_run_config *c, const fl_solver_ops *ops, fl_error *err)
{
    if (c->color && !c->save_png)
        return fl_fail(err, FL_ERR_INPUT, "--color %s: the colour of --save png's pictures, only with --save png",
                       c->color);
    if (c->slice_set && !c->save_png && !c->save_grid)
        return fl_fail(err, FL_ERR_INPUT, "--slice %g: the plane of --save png's and --save grid's pictures, only "
                       "with one of them", c->slice_z);
    if (c->color && fl_color_find(c->color) < 0)
        return fl_fail(err, FL_ERR_INPUT, "--color %s: unknown field (speed, density, pressure, vorticity or "
                       "neighbors)", c->color);
    if (c->save_grid && !fl_flip_is(ops))
        return fl_fail(err, FL_ERR_INPUT, "--save grid: the %s solver has no MAC grid (flip and pic have one)",
                       c->solver);
    if (c->color && fl_color_find(c->color) == FL_COLOR_PRESSURE && fl_flip_is(ops))
        return fl_fail(err, FL_ERR_INPUT, "--color pressure: the %s solver keeps no pressure on its particles "
                       "(--save grid draws its grid's pressure)", c->solver);
    if ((c->save_png || c->save_grid) && !fl_plot_available())
        return fl_fail(err, FL_ERR_INPUT, "--save %s: gnuplot not found (install it: apt-get install gnuplot-nox)",
                       c->save_png ? "png" : "grid");
    return FL_OK;
}

int fl_write_gif(const char *dir, const char *pics, const char *name, int w, int h, double fps, fl_error *err)
{
    char v_dir[1000], v_pics[80], v_fmt[80], v_out[1000], gif[960], tmp[970], log[960], msg[512];
    snprintf(gif, sizeof gif, "%.900s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", gif);
    snprintf(log, sizeof log, "%.900s/gnuplot.log", dir);
    snprintf(v_dir, sizeof v_dir, "dir=%.900s", dir);
    snprintf(v_pics, sizeof v_pics, "pics=%s", pics);
    snprintf(v_fmt, sizeof v_fmt, "fmt=%d %d %d", w, h, (int)(100.0 / fps + 0.5));
    snprintf(v_out, sizeof v_out, "out=%s", tmp);
    const char *const vars[] = {v_dir, v_pics, v_fmt, v_out, NULL};
    int failed = fl_plot_run(FL_SOURCE_DIR "/plots/run_gif.gp", vars, log, msg, sizeof msg);
    if (!failed && rename(tmp, gif) != 0) {
        failed = 1;
        snprintf(msg, sizeof msg, "cannot replace it with %s.tmp: %s", name, strerror(errno));
    }
    if (failed) {
        remove(tmp);
        return fl_fail(err, FL_ERR_IO, "%s: %s", gif, msg);
    }
    return FL_OK;
}

/* Everything that can be wrong with the input is found here, before any
 * file is written. */
static int run_prepare(const fl_run_config *c, run_state *r, run_clock *clk, fl_error *err)
{
    int rc = run_load(c, r, err);
    if (rc)
        return rc;
    if ((rc = pictures_check(c, r->ops, err)))
        return rc;
    const fl_scene *s = &r->scene;
    if (c->slice_set && s->dims == 2)
        return fl_fail(err, FL_ERR_INPUT, "--slice %g: %s is a 2D scene, whose pictures are its plane", c->slice_z,
                       s->path);
    if (c->slice_set && !(c->slice_z >= s->domain.lo[2] && c->slice_z <= s->domain.hi[2]))
        return fl_fail(err, FL_ERR_INPUT, "--slice %g: outside %s's domain, z from %g to %g m", c->slice_z, s->path,
                       s->domain.lo[2], s->domain.hi[2]);
    if (s->dims == 2 && c->save_obj)
        return fl_fail(err, FL_ERR_INPUT, "--save obj: %s is a 2D scene, which has no surface to save (--save bin "
                       "and fluidlab render draw its particles)", s->path);
    clk->frame_dt = 1.0 / s->fps;
    clk->dt = c->dt > 0.0 ? c->dt : fl_scene_dt(s);
    if (c->substeps > 0 && c->dt == 0.0)
        clk->dt = 1.0 / (s->fps * c->substeps);
    /* --dt S and --substeps N each fix the step, over a scene's "cfl" too */
    clk->adaptive = c->dt_cfl || (s->dt_cfl && c->dt == 0.0 && c->substeps == 0);
    if (clk->adaptive)
        clk->dt = clk->frame_dt; /* the largest step: one frame */
    clk->t_end = c->frames > 0 ? c->frames * clk->frame_dt : s->duration;
    /* the scene's own clock is checked by the loader; these are the
     * command line's, to the same limits */
    const char *opt = c->dt > 0.0 ? "--dt" : c->substeps > 0 ? "--substeps" : "time.dt";
    const double spf = floor(clk->frame_dt / clk->dt + 0.5);
    if (!clk->adaptive && !(clk->dt <= clk->frame_dt * (1.0 + 1e-9)))
        return fl_fail(err, FL_ERR_INPUT, "%s %g s: longer than a frame, 1 / time.fps = %.3g s (lower time.fps for "
                       "longer steps)", opt, clk->dt, clk->frame_dt);
    if (!clk->adaptive && !(spf <= FL_SCENE_MAX_STEPS_PER_FRAME))
        return fl_fail(err, FL_ERR_INPUT, "%s %g s: %.3g steps a frame, expected at most 1e5 (a step of at least %.3g s)",
                       opt, clk->dt, spf, clk->frame_dt / FL_SCENE_MAX_STEPS_PER_FRAME);
    clk->spf = (int)fmax(1.0, spf);
    const double steps = c->frames > 0 ? (double)c->frames * clk->spf : ceil(s->duration / clk->dt - 1e-9);
    if (!clk->adaptive && !(steps <= FL_SCENE_MAX_STEPS))
        return fl_fail(err, FL_ERR_INPUT, "%s: %.3g steps, expected at most 1e9 (fewer --frames, or longer steps)",
                       c->frames > 0 ? "--frames" : opt, steps);
    clk->steps = (long long)steps;
    if ((rc = run_build(c, r, err)))
        return rc;
    snprintf(r->caption, sizeof r->caption, "%s, %s", s->name, c->solver);
    if (c->save_png &&
        (rc = fl_pictures_init(&r->pictures, &r->world, c->color ? fl_color_find(c->color) : FL_COLOR_SPEED,
                               r->caption, c->slice_set ? c->slice_z : NAN, err)))
        return rc;
    if (c->save_grid && !(r->mac = fl_flip_grid(r->solver, err)))
        return FL_ERR_MEMORY;
    /* an adaptive run lands on every frame time; a fixed one saves every
     * spf steps, which is not a frame apart when the step does not divide
     * the frame */
    const double frames = clk->adaptive ? ceil(clk->t_end / clk->frame_dt - 1e-9) : (double)(clk->steps / clk->spf);
    if (c->save_vtu && r->world.tool.active && (rc = pvd_reserve(&r->tool_pvd, frames, err)))
        return rc;
    return c->save_vtu ? pvd_reserve(&r->pvd, frames, err) : FL_OK;
}

/* DIR/tool.csv, with its header. */
static int open_tool_csv(const fl_run_config *c, run_state *r, fl_error *err)
{
    snprintf(r->tool_path, sizeof r->tool_path, "%s/tool.csv", c->out_dir);
    if (!(r->tool_csv = fl_open_written(r->tool_path, err)))
        return FL_ERR_IO;
    fprintf(r->tool_csv, "%s\n", fl_tool_csv_header());
    return FL_OK;
}

/* A frame file of a run: NNNN, NNNN_grid or NNNN_tool, then .bin, .vtu,
 * .vtk, .obj, .png, .csv or .vtp. */
static int is_frame_file(const char *name)
{
    static const char *const ext[] = {".bin", ".vtu", ".vtk", ".obj", ".png", ".csv", ".vtp"};
    if (strspn(name, "0123456789") != 4)
        return 0;
    const char *rest = name + 4 + (strncmp(name + 4, "_grid", 5) == 0 || strncmp(name + 4, "_tool", 5) == 0 ? 5 : 0);
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++)
        if (strcmp(rest, ext[k]) == 0)
            return 1;
    return 0;
}

/* Removes path when it is a regular file (fluidlab writes no links: a
 * link or a device there was put by hand, and stays). FL_OK, or FL_ERR_IO
 * naming it. */
static int remove_earlier(const char *path, fl_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || unlink(path) == 0 || errno == ENOENT)
        return FL_OK;
    return fl_fail(err, FL_ERR_IO, "%s: cannot remove the earlier run's file: %s", path, strerror(errno));
}

/* The frame files (is_frame_file) in dir/sub removed, and the folder when
 * it is left empty. */
static int clear_frame_files(const char *dir, const char *sub, fl_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%.900s/%s", dir, sub);
    DIR *d = opendir(path);
    if (!d)
        return FL_OK;
    int rc = FL_OK;
    for (struct dirent *e; rc == FL_OK && (e = readdir(d));) {
        char file[1500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (is_frame_file(e->d_name))
            rc = remove_earlier(file, err);
    }
    closedir(d);
    if (rc == FL_OK)
        rmdir(path); /* fails, as it should, when other files are there */
    return rc;
}

/* Removes what an earlier run into dir left that this one may not write
 * again: its completion marker (a command's run.complete), its summary
 * pictures, run.gif, frames.pvd, tool.csv, tool.pvd and its frames
 * (frames/NNNN.* and the folder when it is left empty), and the pictures `fluidlab render` drew of
 * them (render/NNNN.png, render.gif), so that a run cut short does not sit
 * beside the last one's finished-looking files. Other files stay. */
static int clear_earlier_run(const char *dir, fl_error *err)
{
    static const char *const files[] = {"run.complete", "summary.png", "summary.svg", "run.gif", "frames.pvd",
                                        "tool.csv", "tool.pvd", "render.gif"};
    char path[1200];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(path, sizeof path, "%.900s/%s", dir, files[k]);
        if (remove_earlier(path, err))
            return FL_ERR_IO;
    }
    int rc = clear_frame_files(dir, "frames", err);
    return rc ? rc : clear_frame_files(dir, "render", err);
}

static int open_outputs(const fl_run_config *c, run_state *r, fl_error *err)
{
    char path[1200];
    int rc = fl_make_dirs(c->out_dir, err);
    if (rc == FL_OK)
        rc = clear_earlier_run(c->out_dir, err);
    if (rc == FL_OK && saves_frames(c)) {
        snprintf(path, sizeof path, "%s/frames", c->out_dir);
        rc = fl_make_dirs(path, err);
    }
    if (rc)
        return rc;
    snprintf(r->stats_path, sizeof r->stats_path, "%s/stats.csv", c->out_dir);
    if (!(r->stats_csv = fl_open_written(r->stats_path, err)))
        return FL_ERR_IO;
    snprintf(r->conv_path, sizeof r->conv_path, "%s/convergence.csv", c->out_dir);
    if (!(r->conv_csv = fl_open_written(r->conv_path, err)))
        return FL_ERR_IO;
    write_stats_header(r->stats_csv);
    fprintf(r->conv_csv, "step,time,iteration,residual,residual_max\n");
    return r->world.tool.active ? open_tool_csv(c, r, err) : FL_OK;
}

static void write_tool_row(const run_state *r, long long step, const fl_tool_report *row, double step_ms)
{
    char line[640];
    fl_tool_csv_row(line, sizeof line, step, row, step_ms);
    fprintf(r->tool_csv, "%s\n", line);
}

/* FL_OK while the step's rows reached the open tables (stats.csv,
 * convergence.csv, tool.csv; as far as the stream buffers tell), else
 * FL_ERR_IO naming the file. */
static int rows_written(const run_state *r, fl_error *err)
{
    int e = errno;
    FILE *const files[3] = {r->stats_csv, r->conv_csv, r->tool_csv};
    const char *const paths[3] = {r->stats_path, r->conv_path, r->tool_path};
    for (int k = 0; k < 3; k++)
        if (files[k] && ferror(files[k]))
            return fl_fail(err, FL_ERR_IO, "%s: write failed: %s", paths[k], e ? strerror(e) : "unknown error");
    return FL_OK;
}

/* Closes the open tables, checking that everything reached the files;
 * the first failure is the one reported. */
static int close_tables(run_state *r, fl_error *err)
{
    FILE **const files[3] = {&r->stats_csv, &r->conv_csv, &r->tool_csv};
    const char *const paths[3] = {r->stats_path, r->conv_path, r->tool_path};
    int rc = FL_OK;
    fl_error later;
    for (int k = 0; k < 3; k++) {
        int rk = *files[k] ? fl_close_written(*files[k], paths[k], rc ? &later : err) : FL_OK;
        rc = rc ? rc : rk;
        *files[k] = NULL;
    }
    return rc;
}

int fl_run(const fl_run_config *c, fl_run_result *res, fl_error *err)
{
    memset(res, 0, sizeof *res);
    if (c->threads > 0)
        omp_set_num_threads(c->threads);
    run_state r;
    memset(&r, 0, sizeof r);
    run_clock clk;
    memset(&clk, 0, sizeof clk);
    int rc = run_prepare(c, &r, &clk, err);
    if (rc == FL_OK)
        rc = open_outputs(c, &r, err);
    if (rc == FL_OK)
        rc = write_run_json(c, &r.scene, &r.params, &r.taken, &r.world, &clk, res, "running", NULL, err);
    if (rc == FL_OK && (rc = write_frame(c, &r, 0, err)) == FL_OK)
        res->frames_saved = saves_frames(c);
    if (rc) {
        run_state_free(&r);
        return rc;
    }
    if (c->live_plot) {
        char title[400], msg[256];
        snprintf(title, sizeof title, "fluidlab: %s on %s", c->solver, r.scene.name);
        r.live = fl_live_open(title, msg, sizeof msg);
        if (!r.live)
            fprintf(stderr, "fluidlab: %s\n", msg);
    }

    fl_stability stab;
    fl_stability_init(&stab, &r.world);
    fl_step_stats *st = r.stats;
    double start = fl_now_ms(), err_sum = 0.0;
    fl_error step_err;
    /* the first adaptive step: the CFL step of the stability criterion's
     * speed limit, at least the solver's own (WCSPH's default uses the fluid's) */
    double dt = clk.adaptive ? fmin(clk.dt, fl_explicit_dt_limit(r.world.h, stab.speed_limit, 0.0, 0.0)) : clk.dt;
    int frame = 0;
    for (long long k = 1; clk.adaptive ? r.world.time < clk.t_end * (1.0 - 1e-12) : k <= clk.steps; k++) {
        if (fl_interrupted()) {
            res->status = FL_RUN_INTERRUPTED;
            snprintf(res->reason, sizeof res->reason, "interrupted by %s after step %lld (t = %.4g s)",
                     fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", k - 1, r.world.time);
            break;
        }
        if (clk.adaptive)
            dt = landing_step(dt, fmin((frame + 1) * clk.frame_dt, clk.t_end) - r.world.time);
        fl_step_stats_reset(st);
        double t0 = fl_now_ms();
        fl_tool_report tool_row;
        int src = fl_tool_loop_step(r.ops, r.solver, &r.world, &r.tool, dt, st, &tool_row, &step_err);
        double step_ms = fl_now_ms() - t0;
        res->steps = k;
        res->sim_time = r.world.time;
        double lo[3], hi[3];
        if (src == FL_OK)
            src = fl_metrics_step(&r.metrics, &r.world, st, lo, hi, &step_err);
        if (src != FL_OK) {
            res->status = FL_RUN_UNSTABLE;
            snprintf(res->reason, sizeof res->reason, "step %lld (t = %.4g s): %.200s", k, r.world.time,
                     step_err.msg);
            break;
        }
        err_sum += st->density_err_avg;
        int frame_done = clk.adaptive ? r.world.time >= (frame + 1) * clk.frame_dt * (1.0 - 1e-9)
                                      : k % clk.spf == 0;
        /* a device solver's particles come back for a frame (the copy timed as the transfer stage) */
        if (frame_done && saves_frames(c) && r.ops->download && (rc = r.ops->download(r.solver, &r.world, st, err)))
            break;
        write_stats_row(r.stats_csv, k, r.world.time, dt, &r.world, st, lo, hi, step_ms);
        write_convergence(r.conv_csv, k, r.world.time, st);
        if (r.tool_csv)
            write_tool_row(&r, k, &tool_row, step_ms);
        if ((rc = rows_written(&r, err)))
            break;
        if (r.live) {
            fl_live_add(r.live, r.world.time, st->density_err_avg, st->density_err_max, st->max_speed);
            if (fl_live_due(r.live)) {
                if (c->progress && fl_live_text(r.live))
                    fputc('\n', stderr); /* the text plot starts below the progress line */
                fl_live_draw(r.live);
            }
        }
        char why[200];
        if (fl_stability_check(&stab, st, why, sizeof why)) {
            res->status = FL_RUN_UNSTABLE;
            snprintf(res->reason, sizeof res->reason, "step %lld (t = %.4g s): %s", k, r.world.time, why);
            break;
        }
        if (frame_done && (rc = write_frame(c, &r, ++frame, err)))
            break;
        res->frames_saved += frame_done && saves_frames(c);
        if (clk.adaptive) {
            if (!(st->dt_limit > 0.0)) {
                res->status = FL_RUN_UNSTABLE;
                snprintf(res->reason, sizeof res->reason,
                         "\"dt\": \"cfl\" needs a step limit, and the %s solver gives none", c->solver);
                break;
            }
            dt = fmin(st->dt_limit, clk.dt);
        }
        if (c->progress && k % 20 == 0)
            progress(c->solver, r.world.time, clk.t_end, k, fl_now_ms() - start);
    }
    if (c->progress)
        fputc('\n', stderr);
    res->wall_s = (fl_now_ms() - start) * 1e-3;
    res->mean_err_avg = res->steps ? err_sum / res->steps : 0.0;
    if (rc == FL_OK)
        rc = close_tables(&r, err);
    if (rc == FL_OK && c->save_png && res->status != FL_RUN_INTERRUPTED)
        rc = fl_write_gif(c->out_dir, "frames", "run.gif", r.pictures.width, r.pictures.height, r.scene.fps, err);
    if (rc) { /* an output was not written: say so in run.json, where it still fits */
        res->status = FL_RUN_INCOMPLETE;
        snprintf(res->reason, sizeof res->reason, "an output could not be written: %.200s", err->msg);
    }
    fl_error json_err;
    int jrc = write_run_json(c, &r.scene, &r.params, &r.taken, &r.world, &clk, res, fl_run_status_name(res->status),
                             NULL, rc ? &json_err : err);
    run_state_free(&r);
    return rc ? rc : jrc;
}

/* ---- the streamed tool loop (`fluidlab tool`) ---------------------------- */

/* SIGINT and SIGTERM from now on also interrupt a blocking read (their
 * handler without SA_RESTART), so that a loop waiting for its next tick
 * stops at once. */
static void interrupt_reads(void)
{
    static const int sigs[2] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        struct sigaction sa;
        if (sigaction(sigs[k], NULL, &sa) == 0 && sa.sa_handler == on_signal) {
            sa.sa_flags &= ~SA_RESTART;
            sigaction(sigs[k], &sa, NULL);
        }
    }
}

/* A tick's line "t x y z": exactly four finite decimal numbers (no hex)
 * separated by blanks, into v; 0 when it is anything else. */
static int parse_tick(const char *line, double v[4])
{
    const char *p = line;
    for (int k = 0; k < 4; k++) {
        char *end;
        errno = 0;
        v[k] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[k]) || (*end && *end != ' ' && *end != '\t'))
            return 0;
        for (const char *q = p; q < end; q++)
            if (*q == 'x' || *q == 'X')
                return 0;
        p = end;
    }
    return p[strspn(p, " \t")] == '\0';
}

/* The loop's set-up: what fl_run's run_prepare checks and builds, with
 * the scene's tool (it must have one) driven by the stream, at a fixed step. */
static int tool_prepare(const fl_run_config *c, run_state *r, run_clock *clk, fl_error *err)
{
    if (c->dt_cfl)
        return fl_fail(err, FL_ERR_INPUT, "--dt cfl: the tool loop takes steps of a fixed dt (give --dt S)");
    int rc = run_load(c, r, err);
    if (rc)
        return rc;
    fl_scene *s = &r->scene;
    if (s->tool.shape.kind == FL_TOOL_NONE)
        return fl_fail(err, FL_ERR_INPUT, "%s: the scene has no tool (a \"tool\" key, as in scenes/tool_cup.json)",
                       s->path);
    if (s->dt_cfl && c->dt == 0.0)
        return fl_fail(err, FL_ERR_INPUT, "%s: time.dt \"cfl\": the tool loop takes steps of a fixed dt (give --dt S)",
                       s->path);
    clk->dt = c->dt > 0.0 ? c->dt : fl_scene_dt(s);
    s->tool.motion = FL_TOOL_STREAM; /* from its start pose, wherever the input moves it */
    return run_build(c, r, err);
}

/* Writes "t fx fy fz" to out and flushes it: FL_OK, or FL_ERR_IO naming
 * the stream (a closed pipe: EPIPE, SIGPIPE being ignored). */
static int write_tick(FILE *out, double t, const fl_tool_report *row, fl_error *err)
{
    errno = 0;
    int ok = fprintf(out, "%.15g %.6g %.6g %.6g\n", t, row->f_total[0], row->f_total[1], row->f_total[2]) > 0;
    ok = fflush(out) == 0 && ok;
    if (!ok)
        return fl_fail(err, FL_ERR_IO, "standard output: write failed: %s", errno ? strerror(errno) : "unknown error");
    return FL_OK;
}

/* The steps of one tick, from w->time to t: steps of clk->dt landing on t
 * as a run's land on a frame (landing_step: the last two split evenly
 * when a full step would leave a sliver; at least one step). Each step's
 * row goes to tool.csv; *row is the last step's. The density is measured
 * on steps 1, 1 + measure_every, ...; the others keep the last
 * measurement. FL_OK with res->status still STABLE, or a result
 * (unstable, interrupted) in res, or FL_ERR_IO. */
static int tool_tick(run_state *r, const run_clock *clk, int measure_every, double t, fl_stability *stab,
                     fl_tool_report *row, fl_run_result *res, fl_error *err)
{
    fl_step_stats *st = r->stats;
    fl_world *w = &r->world;
    for (int last = 0; !last;) {
        if (fl_interrupted()) {
            res->status = FL_RUN_INTERRUPTED;
            snprintf(res->reason, sizeof res->reason, "interrupted by %s after step %lld (t = %.4g s)",
                     fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", res->steps, w->time);
            return FL_OK;
        }
        /* the last step ends on t exactly (a remainder within rounding of dt is one step) */
        const double remaining = t - w->time;
        last = remaining <= clk->dt * (1.0 + 1e-9);
        const double dt = last ? remaining : landing_step(clk->dt, remaining);
        fl_step_stats_reset(st);
        fl_error step_err;
        double t0 = fl_now_ms();
        int src = fl_tool_loop_step(r->ops, r->solver, w, &r->tool, dt, st, row, &step_err);
        double step_ms = fl_now_ms() - t0;
        if (last)
            w->time = t;
        res->steps++;
        res->sim_time = w->time;
        double lo[3], hi[3];
        if (src == FL_OK && (res->steps - 1) % measure_every == 0)
            src = fl_metrics_step(&r->metrics, w, st, lo, hi, &step_err);
        else
            st->density_err_avg = r->last_density_err;
        r->last_density_err = st->density_err_avg;
        char why[200];
        if (src != FL_OK) {
            res->status = FL_RUN_UNSTABLE;
            snprintf(res->reason, sizeof res->reason, "step %lld (t = %.4g s): %.200s", res->steps, w->time,
                     step_err.msg);
            return FL_OK;
        }
        res->mean_err_avg += st->density_err_avg; /* a sum until the loop ends */
        write_tool_row(r, res->steps, row, step_ms);
        int rc = rows_written(r, err);
        if (rc)
            return rc;
        if (fl_stability_check(stab, st, why, sizeof why)) {
            res->status = FL_RUN_UNSTABLE;
            snprintf(res->reason, sizeof res->reason, "step %lld (t = %.4g s): %s", res->steps, w->time, why);
            return FL_OK;
        }
    }
    return FL_OK;
}

int fl_tool_stream(const fl_run_config *c, const char *input, FILE *out, fl_run_result *res, fl_error *err)
{
    memset(res, 0, sizeof *res);
    if (c->threads > 0)
        omp_set_num_threads(c->threads);
    const int from_stdin = strcmp(input, "-") == 0;
    const char *name = from_stdin ? "stdin" : input;
    run_state r;
    memset(&r, 0, sizeof r);
    run_clock clk;
    memset(&clk, 0, sizeof clk);
    errno = 0;
    FILE *in = from_stdin ? stdin : fopen(input, "r");
    if (!in)
        return fl_fail(err, FL_ERR_INPUT, "%s: cannot read: %s", input, strerror(errno));
    struct stat sb;
    if (fstat(fileno(in), &sb) == 0 && S_ISDIR(sb.st_mode)) { /* fopen takes a folder, and so does < */
        if (!from_stdin)
            fclose(in);
        return fl_fail(err, FL_ERR_INPUT, "%s: cannot read: %s", name, strerror(EISDIR));
    }
    int rc = tool_prepare(c, &r, &clk, err);
    if (rc == FL_OK && !out) /* the options and the scene are good, but the answers have nowhere to go */
        rc = fl_fail(err, FL_ERR_IO, "tool: standard output is closed: the loop writes each tick's force there "
                     "(give it a pipe or a file)");
    if (rc == FL_OK)
        rc = fl_make_dirs(c->out_dir, err);
    if (rc == FL_OK)
        rc = clear_earlier_run(c->out_dir, err);
    if (rc == FL_OK)
        rc = open_tool_csv(c, &r, err);
    if (rc == FL_OK)
        rc = write_run_json(c, &r.scene, &r.params, &r.taken, &r.world, &clk, res, "running", name, err);
    if (rc) {
        if (!from_stdin)
            fclose(in);
        run_state_free(&r);
        return rc;
    }
    signal(SIGPIPE, SIG_IGN); /* a reader that goes away is a failed write, not the end of the process */
    interrupt_reads();
    fl_stability stab;
    fl_stability_init(&stab, &r.world);
    double start = fl_now_ms();
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    double last_t = r.world.time; /* the last tick's time */
    fl_tool_report row;           /* the last step's report (no step yet: no force) */
    memset(&row, 0, sizeof row);
    for (;;) {
        errno = 0;
        ssize_t len = fl_interrupted() ? -1 : getline(&line, &cap, in);
        if (len < 0) {
            if (fl_interrupted()) {
                res->status = FL_RUN_INTERRUPTED;
                snprintf(res->reason, sizeof res->reason, "interrupted by %s after step %lld (t = %.4g s)",
                         fl_interrupted() == SIGINT ? "SIGINT" : "SIGTERM", res->steps, r.world.time);
            } else if (ferror(in)) {
                rc = fl_fail(err, FL_ERR_INPUT, "%s: read failed: %s", name, errno ? strerror(errno) : "unknown error");
            }
            break;
        }
        lineno++;
        if ((size_t)len != strlen(line)) { /* a NUL byte: the rest of the line would go unseen */
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: expected four numbers 't x y z', got a line with a NUL byte",
                         name, lineno);
            break;
        }
        const size_t end = strcspn(line, "\r\n");
        if (line[strspn(line, " \t")] == '#')
            continue; /* a comment, whatever it holds */
        if (line[end] == '\r' && line[end + 1] != '\n' && line[end + 1] != '\0') {
            /* a CR inside: the rest of the line (old Mac line ends) would go unseen */
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: expected one tick a line, ended by LF or CR LF, got a CR inside "
                         "the line", name, lineno);
            break;
        }
        line[end] = '\0';
        const char *text = line + strspn(line, " \t");
        if (!*text)
            continue;
        double v[4];
        if (!parse_tick(text, v)) {
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: expected four numbers 't x y z', got '%.120s%s'", name, lineno,
                         line, strlen(line) > 120 ? "..." : "");
            break;
        }
        if (!(v[0] > last_t)) {
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: time t = %.15g s is not after the %s %.15g s", name, lineno, v[0],
                         res->ticks ? "previous tick's" : "loop's start,", last_t);
            break;
        }
        const double steps = ceil((v[0] - last_t) / clk.dt - 1e-9);
        if (!(steps <= FL_SCENE_MAX_STEPS_PER_FRAME)) {
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: time t = %.15g s is %.0f steps of %g s after the %s %.15g s, "
                         "expected at most 100000 (a time in the wrong unit?)", name, lineno, v[0], steps, clk.dt,
                         res->ticks ? "previous tick's" : "loop's start,", last_t);
            break;
        }
        char why[160];
        if (fl_tool_outside(&r.tool, v + 1, r.world.tool.pose.rot, &r.world.domain, why, sizeof why)) {
            rc = fl_fail(err, FL_ERR_INPUT, "%s:%ld: the target (%g, %g, %g) puts the tool outside the domain: %s", name,
                         lineno, v[1], v[2], v[3], why);
            break;
        }
        last_t = v[0];
        /* a tick less than half a step after the simulation's time takes no
         * step of its own (a solver's step that short: PBF's velocities and
         * FLIP's pressure forces go as 1 / dt): the next tick's steps carry
         * the tool on from where it is, and this one is answered with the
         * force as it stands */
        if (v[0] - r.world.time >= 0.5 * clk.dt * (1.0 - 1e-9)) {
            fl_tool_stream_to(&r.tool, r.world.time, v[0], v + 1);
            rc = tool_tick(&r, &clk, c->measure_every, v[0], &stab, &row, res, err);
            if (rc || res->status != FL_RUN_STABLE)
                break;
        } else {
            res->deferred++;
        }
        res->ticks++;
        if ((rc = write_tick(out, v[0], &row, err)))
            break;
    }
    free(line);
    if (!from_stdin)
        fclose(in);
    res->wall_s = (fl_now_ms() - start) * 1e-3;
    res->mean_err_avg = res->steps ? res->mean_err_avg / res->steps : 0.0;
    fl_error json_err;
    int crc = close_tables(&r, rc ? &json_err : err);
    rc = rc ? rc : crc;
    if (rc) { /* bad input or an output not written: the loop did not complete */
        res->status = FL_RUN_INCOMPLETE;
        snprintf(res->reason, sizeof res->reason, "%s: %.200s",
                 rc == FL_ERR_IO ? "an output could not be written" : "stopped by its input", err->msg);
    }
    int jrc = write_run_json(c, &r.scene, &r.params, &r.taken, &r.world, &clk, res, fl_run_status_name(res->status),
                             name, rc ? &json_err : err);
    run_state_free(&r);
    return rc ? rc : jrc;
}

int fl_run_json_read(const char *dir, struct cJSON **root, fl_error *err)
{
    char path[FL_MAX_PATH + 300], *text;
    snprintf(path, sizeof path, "%s/run.json", dir);
    *root = NULL;
    int rc = fl_read_text(path, 64L << 20, "a run's run.json", &text, err);
    if (rc)
        return rc;
    *root = cJSON_Parse(text);
    free(text);
    return *root ? FL_OK : fl_fail(err, FL_ERR_INPUT, "%s: not a run's run.json (it does not parse as JSON)", path);
}

int fl_run_json_dims(const struct cJSON *root)
{
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "scene"), "dimensions");
    return cJSON_IsNumber(dims) && dims->valuedouble == 2.0 ? 2 : 3;
}

double fl_run_json_spacing(const struct cJSON *root)
{
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(root, "scene");
    const cJSON *spacing = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(scene, "fluid"), "spacing");
    return cJSON_IsNumber(spacing) && spacing->valuedouble > 0.0 ? spacing->valuedouble : 0.0;
}

int fl_run_json_domain(const struct cJSON *root, fl_box *box)
{
    const cJSON *domain = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "scene"), "domain");
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(domain, "min"), *hi = cJSON_GetObjectItemCaseSensitive(domain, "max");
    const int dims = fl_run_json_dims(root);
    if (cJSON_GetArraySize(lo) != dims || cJSON_GetArraySize(hi) != dims)
        return 0;
    if (dims == 2) { /* the world's slab, world.h */
        const double d = fl_run_json_spacing(root);
        if (!(d > 0.0))
            return 0;
        box->lo[2] = -0.5 * d, box->hi[2] = 0.5 * d;
    }
    for (int a = 0; a < dims; a++) {
        const cJSON *l = cJSON_GetArrayItem(lo, a), *h = cJSON_GetArrayItem(hi, a);
        if (!cJSON_IsNumber(l) || !cJSON_IsNumber(h) || !(l->valuedouble < h->valuedouble))
            return 0;
        box->lo[a] = l->valuedouble, box->hi[a] = h->valuedouble;
    }
    return 1;
}
