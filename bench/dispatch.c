/* dispatch.c: the jobs of a command, whichever backend runs them
 * (dispatch.h): the order, the queue the ranks take from, the one-rank
 * loop; and runs as jobs: their cost, their completion marker and the
 * result read back for --resume. */
#define _POSIX_C_SOURCE 200809L
#include "dispatch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

fl_job_state fl_run_job(const fl_run_config *c, int input_fatal, void (*finish)(const char *dir, void *ctx),
                        void *finish_ctx, fl_run_outcome *out)
{
    memset(out, 0, sizeof *out);
    char marker[1200];
    snprintf(marker, sizeof marker, "%s/" MARKER, c->out_dir);
    /* a rerun replaces the run: until it finishes, the folder is not a finished one */
    if (unlink(marker) != 0 && errno != ENOENT) {
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
    if (finish)
        finish(c->out_dir, finish_ctx);
    FILE *f = fl_open_written(marker, &err);
    if (f) {
        fprintf(f, "%s\n", fl_run_status_name(out->result.status));
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

int fl_run_reload(const char *dir, fl_run_outcome *out)
{
    memset(out, 0, sizeof *out);
    char marker[1200];
    snprintf(marker, sizeof marker, "%s/" MARKER, dir);
    if (access(marker, F_OK) != 0)
        return 0;
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

int fl_run_jobs_gather(fl_jobs *j, fl_run_outcome *out, const char *const *dirs, int *missing)
{
    *missing = 0;
    for (int k = 0; k < j->n; k++)
        if (j->state[k] == FL_JOB_FATAL)
            return k;
    for (int k = 0; k < j->n; k++) {
        if (j->state[k] == FL_JOB_MISSING && fl_run_reload(dirs[k], &out[k])) /* finished, not reported */
            j->state[k] = FL_JOB_DONE;
        *missing += j->state[k] == FL_JOB_MISSING || !out[k].ran || out[k].result.status == FL_RUN_INTERRUPTED;
    }
    return -1;
}
