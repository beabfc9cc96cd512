/* dispatch.c: the jobs of a command, whichever backend runs them
 * (dispatch.h): the order, the queue the ranks take from, the one-rank
 * loop; and runs as jobs: their cost, their completion marker and the
 * result read back for --resume. */
#define _POSIX_C_SOURCE 200809L
#include "dispatch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fl_commit.h"

#include "dispatch_queue.h"

int fl_job_queue_take(fl_job_queue *q)
{
    pthread_mutex_lock(&q->lock);
    const int k = q->stop || fl_interrupted() || q->next == q->count ? -1 : q->order[q->next++];
    pthread_mutex_unlock(&q->lock);
    return k;
}

void fl_job_queue_stop(fl_job_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    pthread_mutex_unlock(&q->lock);
}

int fl_dispatch_launched(int *rank)
{
    static const char *const ranks[3] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    const char *r = NULL;
    for (int k = 0; k < 3 && !r; k++)
        r = getenv(ranks[k]);
    *rank = r ? atoi(r) : 0;
    static const char *const sizes[2] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (int k = 0; k < 2; k++) {
        const char *v = getenv(sizes[k]);
        if (v)
            return atoi(v) > 1 ? atoi(v) : 1;
    }
    return !r ? 0 : *rank != 0 ? 2 : 1;
}

int fl_command_fail(const char *command, const char *fmt, ...)
{
    if (fl_dispatch_rank() != 0)
        return 1;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fluidlab: %s: ", command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

void *fl_job_record(const fl_jobs *j, int k)
{
    return (char *)j->results + (size_t)k * j->result_size;
}

void fl_dispatch_local(fl_jobs *j, fl_job_queue *q)
{
    for (int k; (k = fl_job_queue_take(q)) >= 0;) {
        memset(fl_job_record(j, k), 0, j->result_size);
        j->state[k] = j->run(k, fl_job_record(j, k), j->ctx);
        if (j->state[k] == FL_JOB_FATAL)
            fl_job_queue_stop(q);
    }
}

typedef struct costed {
    double cost;
    int job;
} costed;

/* costliest first; equal costs in index order */
static int by_cost(const void *a, const void *b)
{
    const costed *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return (x->job > y->job) - (x->job < y->job);
}

void fl_dispatch_run(fl_jobs *j)
{
    /* where these few bytes cannot be had, no job runs: each is reported missing */
    int *order = malloc(sizeof(int) * (size_t)(j->n > 0 ? j->n : 1));
    fl_job_queue q = {.order = order};
    pthread_mutex_init(&q.lock, NULL);
    for (int k = 0; order && k < j->n; k++)
        if (j->state[k] != FL_JOB_DONE)
            order[q.count++] = k;
    costed *c = j->cost && fl_dispatch_size() > 1 ? malloc(sizeof(costed) * (size_t)(q.count + 1)) : NULL;
    if (c) { /* on one rank the order is the plan's */
        for (int k = 0; k < q.count; k++)
            c[k] = (costed){j->cost(order[k], j->ctx), order[k]};
        qsort(c, (size_t)q.count, sizeof *c, by_cost);
        for (int k = 0; k < q.count; k++)
            order[k] = c[k].job;
        free(c);
    }
    j->ranks = fl_dispatch_size();
    j->lost = 0;
    fl_dispatch_ranks(j, &q);
    pthread_mutex_destroy(&q.lock);
    free(order);
}

/* ---- runs as jobs --------------------------------------------------------- */

#define MARKER "run.complete"

/* FNV-1a, 64 bits, of n bytes, continuing from h */
static unsigned long long hash_bytes(unsigned long long h, const void *p, size_t n)
{
    for (const unsigned char *b = p; n--; b++)
        h = (h ^ *b) * 0x100000001b3ULL;
    return h;
}

static unsigned long long hash_text(unsigned long long h, const char *s)
{
    return hash_bytes(h, s ? s : "", strlen(s ? s : "") + 1);
}

/* The request a run's marker names: a hash of what decides the run's
 * result (the scene file's path and bytes, its meshes as read, the
 * solver, the device, the step, the frames, the overrides in order, what
 * it saves), as 16 hex digits in out. Not its folder, threads or progress
 * line. */
static void run_request(const fl_run_config *c, char out[17])
{
    char path[1024];
    fl_resolve_scene(c->scene, path, sizeof path);
    unsigned long long h = hash_text(0xcbf29ce484222325ULL, path);
    FILE *f = fopen(path, "rb");
    if (f) {
        char buf[4096];
        for (size_t got; (got = fread(buf, 1, sizeof buf, f)) > 0;)
            h = hash_bytes(h, buf, got);
        fclose(f);
    }
    /* an OBJ file the scene names may change while the scene does not */
    fl_scene s;
    fl_error err;
    if (fl_scene_load(path, c->sets, c->set_count, &s, &err) == FL_OK) {
        for (int k = 0; k <= s.mesh_count; k++) { /* and the tool's */
            const fl_mesh *m = k < s.mesh_count ? &s.meshes[k].mesh : &s.tool.mesh;
            h = hash_bytes(h, m->v, 3 * (size_t)m->vertex_count * sizeof *m->v);
            h = hash_bytes(h, m->tri, 3 * (size_t)m->triangle_count * sizeof *m->tri);
        }
        fl_scene_free(&s);
    }
    h = hash_text(hash_text(h, c->solver), c->device ? c->device : "cpu");
    char num[160];
    snprintf(num, sizeof num, "%.17g %d %d %d %d %d %d %d %d %d %.17g %d", c->dt, c->dt_cfl, c->substeps, c->frames,
             c->save_bin, c->save_vtk, c->save_vtu, c->save_obj, c->save_png, c->save_grid, c->surface_spacing,
             c->set_count);
    h = hash_text(hash_text(h, num), c->color);
    for (int k = 0; k < c->set_count; k++)
        h = hash_text(h, c->sets[k]);
    snprintf(out, 17, "%016llx", h);
}

fl_job_state fl_run_job(const fl_run_config *c, int input_fatal, int (*finish)(const char *dir, void *ctx),
                        void *finish_ctx, fl_run_outcome *out)
{
    memset(out, 0, sizeof *out);
    char marker[1200];
    snprintf(marker, sizeof marker, "%s/" MARKER, c->out_dir);
    /* a rerun replaces the run: until it finishes, the folder is not a finished one
     * (ENOTDIR: the folder's parent is a file, which fl_run reports as such) */
    if (unlink(marker) != 0 && errno != ENOENT && errno != ENOTDIR) {
        out->code = FL_ERR_IO;
        snprintf(out->error, sizeof out->error, "%.500s: cannot remove: %s", marker, strerror(errno));
        return FL_JOB_FATAL;
    }
    fl_error err;
    out->code = fl_run(c, &out->result, &err);
    out->ran = out->code == FL_OK;
    if (out->code != FL_OK) {
        snprintf(out->error, sizeof out->error, "%s", err.msg);
        return out->code == FL_ERR_IO || (out->code == FL_ERR_INPUT && input_fatal) ? FL_JOB_FATAL : FL_JOB_DONE;
    }
    if (out->result.status != FL_RUN_STABLE && out->result.status != FL_RUN_UNSTABLE)
        return FL_JOB_DONE; /* interrupted: a rerun with --resume runs it again */
    if (finish && finish(c->out_dir, finish_ctx)) { /* a picture not written: the run is not whole */
        char reason[1200];
        fl_summary_lost(c->out_dir, &out->result, reason, sizeof reason);
        out->code = FL_ERR_IO;
        snprintf(out->error, sizeof out->error, "%.590s", reason);
        out->result.status = FL_RUN_INCOMPLETE;
        if (fl_run_json_mark_incomplete(c->out_dir, reason, &err))
            snprintf(out->error, sizeof out->error, "%s", err.msg);
        return FL_JOB_FATAL;
    }
    FILE *f = fl_open_written(marker, &err);
    if (f) {
        char request[17];
        run_request(c, request);
        fprintf(f, "%s\nrequest %s\n", fl_run_status_name(out->result.status), request);
        if (fl_close_written(f, marker, &err) == FL_OK)
            return FL_JOB_DONE;
    }
    out->code = FL_ERR_IO;
    snprintf(out->error, sizeof out->error, "%s", err.msg);
    return FL_JOB_FATAL;
}

double fl_run_cost(const fl_run_config *c)
{
    char path[1024];
    fl_resolve_scene(c->scene, path, sizeof path);
    fl_scene s;
    fl_error err;
    if (fl_scene_load(path, c->sets, c->set_count, &s, &err) != FL_OK)
        return 0.0;
    /* the step as the harness takes it (run_prepare) */
    double dt = c->dt > 0.0 ? c->dt : c->substeps > 0 ? 1.0 / (s.fps * c->substeps) : fl_scene_dt(&s);
    /* an adaptive step: an explicit solver's CFL step in a tank a metre deep
     * (sound at ten times sqrt(2 g H), about 45 m/s; 0.4 h / c with h = 2 d) */
    if (c->dt_cfl || (s.dt_cfl && c->dt == 0.0))
        dt = fmin(1.0 / s.fps, 0.4 * 2.0 * s.spacing / 45.0);
    const double t = c->frames > 0 ? c->frames / s.fps : s.duration;
    const double cost = (double)s.fluid_count * ceil(t / dt);
    fl_scene_free(&s);
    return cost;
}

int fl_run_reload(const fl_run_config *c, fl_run_outcome *out)
{
    memset(out, 0, sizeof *out);
    const char *dir = c->out_dir;
    char marker[1200], line[2][64] = {"", ""}, want[17];
    snprintf(marker, sizeof marker, "%s/" MARKER, dir);
    FILE *f = fopen(marker, "r");
    if (!f)
        return 0;
    for (int k = 0; k < 2 && fgets(line[k], sizeof line[k], f); k++)
        ;
    fclose(f);
    run_request(c, want);
    if (strncmp(line[1], "request ", 8) != 0 || strncmp(line[1] + 8, want, 16) != 0)
        return 0; /* another request's run, or a marker of an older fluidlab */
    cJSON *root;
    fl_error err;
    if (fl_run_json_read(dir, &root, &err) != FL_OK)
        return 0;
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(root, "result");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(r, "status");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(r, "reason");
    static const char *const keys[5] = {"steps", "frames_saved", "simulated_time", "wall_seconds",
                                        "mean_density_err_avg"};
    double v[5];
    int ok = cJSON_IsString(status) && cJSON_IsString(reason);
    for (int k = 0; k < 5 && ok; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(r, keys[k]);
        ok = cJSON_IsNumber(x);
        v[k] = ok ? x->valuedouble : 0.0;
    }
    fl_run_result *res = &out->result;
    if (ok && strcmp(status->valuestring, fl_run_status_name(FL_RUN_STABLE)) == 0)
        res->status = FL_RUN_STABLE;
    else if (ok && strcmp(status->valuestring, fl_run_status_name(FL_RUN_UNSTABLE)) == 0)
        res->status = FL_RUN_UNSTABLE;
    else
        ok = 0;
    if (ok) {
        snprintf(res->reason, sizeof res->reason, "%s", reason->valuestring);
        res->steps = (long long)v[0];
        res->frames_saved = (int)v[1];
        res->sim_time = v[2];
        res->wall_s = v[3];
        res->mean_err_avg = v[4];
        out->ran = 1;
    }
    cJSON_Delete(root);
    return ok;
}

int fl_run_jobs_resume(int n, const fl_run_config *configs, int resume, fl_run_outcome *out, fl_job_state *state)
{
    int done = 0;
    for (int k = 0; k < n; k++) {
        state[k] = resume && fl_run_reload(&configs[k], &out[k]) ? FL_JOB_DONE : FL_JOB_MISSING;
        done += state[k] == FL_JOB_DONE;
    }
    return done;
}

int fl_run_jobs_gather(fl_jobs *j, fl_run_outcome *out, const fl_run_config *configs, int *missing)
{
    *missing = 0;
    for (int k = 0; k < j->n; k++)
        if (j->state[k] == FL_JOB_FATAL)
            return k;
    for (int k = 0; k < j->n; k++) {
        if (j->state[k] == FL_JOB_MISSING && fl_run_reload(&configs[k], &out[k])) /* finished, not reported */
            j->state[k] = FL_JOB_DONE;
        *missing += j->state[k] == FL_JOB_MISSING || !out[k].ran || out[k].result.status == FL_RUN_INTERRUPTED;
    }
    return -1;
}

/* ---- commands made of run jobs ---------------------------------------------- */

/* One of fl_jobs_options' words: 1 (2 with its value), 0 when it is not
 * one, -1 after one line for a bad value. */
static int jobs_option(const char *command, const char *a, const char *v, fl_jobs_options *o)
{
    if (strcmp(a, "--resume") == 0) {
        o->resume = 1;
    } else if (strcmp(a, "--quiet") == 0) {
        o->quiet = 1;
    } else if ((strcmp(a, "--out") == 0 || strcmp(a, "--threads") == 0) && !v) {
        return -fl_command_fail(command, "%s: expected a value", a);
    } else if (strcmp(a, "--out") == 0 && v) {
        if (!*v || strlen(v) > FL_MAX_PATH)
            return -fl_command_fail(command, "--out: expected a folder name of 1 to %d characters, got %zu",
                                    FL_MAX_PATH, strlen(v));
        o->out = v;
        return 2;
    } else if (strcmp(a, "--threads") == 0 && v) {
        char *end;
        long t = strtol(v, &end, 10);
        if (*end || t < 1 || t > 256) /* as run's: the neighbor search's limit */
            return -fl_command_fail(command, "--threads %s: expected a whole number from 1 to 256", v);
        o->threads = (int)t;
        return 2;
    } else {
        return 0;
    }
    return 1;
}

int fl_jobs_parse(const char *command, const char *usage, int argc, char **argv, fl_jobs_options *o,
                  int (*own)(const char *word, const char *value, void *ctx), void *ctx)
{
    fl_seen_options seen = {.count = 0};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (fl_dispatch_rank() == 0)
                fputs(usage, stdout);
            return -1;
        }
        int took = jobs_option(command, a, v, o);
        if (took == 0)
            took = own(a, v, ctx);
        if (took < 0)
            return 1;
        if (took == 0)
            return fl_command_fail(command, "%s: unknown option%s (see fluidlab %s --help)", a,
                                   v || a[0] != '-' ? "" : " or missing value", command);
        if (took == 2 && fl_option_repeated(&seen, a)) /* the first value would be dropped unseen */
            return fl_command_fail(command, "%s: given twice, expected it once", a);
        i += took - 1;
    }
    snprintf(o->command, sizeof o->command, "fluidlab %s", command);
    for (int i = 0; i < argc; i++)
        snprintf(o->command + strlen(o->command), sizeof o->command - strlen(o->command), " %s", argv[i]);
    if (o->threads == 0)
        o->threads = omp_get_max_threads();
    return 0;
}

void fl_job_run_config(fl_run_config *c, const fl_jobs_options *o, const char *scene, const char *solver, double dt,
                       int dt_cfl, const char *out_dir)
{
    fl_run_config_default(c);
    c->scene = scene;
    c->solver = solver;
    c->dt = dt;
    c->dt_cfl = dt_cfl;
    c->out_dir = out_dir;
    c->threads = o->threads;
    c->progress = !o->quiet && isatty(STDERR_FILENO);
}

void fl_job_progress(const char *command, const fl_jobs_options *o, const char *noun, int i, int n, double start_ms,
                     const char *what)
{
    if (o->quiet)
        return;
    const double elapsed = (fl_now_ms() - start_ms) * 1e-3;
    char more[64] = "";
    if (fl_dispatch_size() > 1) /* the jobs go out in order of cost, i is not a count */
        snprintf(more, sizeof more, ", rank %d", fl_dispatch_rank());
    else if (i > 0)
        snprintf(more, sizeof more, ", ETA %.0f s", elapsed / i * (n - i));
    fprintf(stderr, "fluidlab: %s: %s %d of %d (%s), %.0f s so far%s\n", command, noun, i + 1, n, what, elapsed, more);
}

fl_job_state fl_run_job_noted(const char *command, const fl_jobs_options *o, const char *label,
                              const fl_run_config *c, fl_run_outcome *out)
{
    const fl_job_state st = fl_run_job(c, 0, NULL, NULL, out);
    if (!o->quiet && out->ran && out->result.status == FL_RUN_UNSTABLE)
        fprintf(stderr, "fluidlab: %s: %s: unstable, %s (recorded)\n", command, label, out->result.reason);
    else if (!o->quiet && st == FL_JOB_DONE && !out->ran)
        fprintf(stderr, "fluidlab: %s: %s did not run: %s (recorded)\n", command, label, out->error);
    return st;
}

int fl_report_clear(const char *dir, fl_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%.900s/report.md", dir);
    if (fl_dispatch_rank() == 0 && unlink(path) != 0 && errno != ENOENT)
        return fl_fail(err, FL_ERR_IO, "%s: cannot remove the earlier report: %s", path, strerror(errno));
    return FL_OK;
}

FILE *fl_part_open(const char *path, fl_error *err)
{
    char part[1200], dir[1200];
    snprintf(part, sizeof part, "%s.part", path);
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (slash && fl_make_dirs(dir, err))
        return NULL;
    return fl_open_written(part, err);
}

int fl_part_close(FILE *f, const char *path, int keep, fl_error *err)
{
    char part[1200];
    snprintf(part, sizeof part, "%s.part", path);
    int rc = fl_close_written(f, part, err);
    if (rc == FL_OK && keep && rename(part, path) != 0)
        rc = fl_fail(err, FL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    if (rc != FL_OK || !keep)
        unlink(part);
    return rc;
}

void fl_report_made_by(FILE *r, const char *command, const char *sizes, const fl_jobs *jobs, int threads, int resumed,
                       double seconds)
{
    char machine[256], date[32], ranks[64] = "", earlier[96] = "";
    fl_machine_description(machine, sizeof machine);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    if (jobs->ranks > 1)
        snprintf(ranks, sizeof ranks, "%d MPI ranks x ", jobs->ranks);
    if (resumed)
        snprintf(earlier, sizeof earlier, " (%d of them from an earlier command, `--resume`)", resumed);
    fprintf(r, "Made by `%s` (%s) on %s, %s%d thread%s, commit %s, %s; %d runs%s in %.0f s.", command, sizes, machine,
            ranks, threads, threads == 1 ? "" : "s", FL_COMMIT, date, jobs->n, earlier, seconds);
}
