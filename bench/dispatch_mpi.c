/* dispatch_mpi.c: the backend of dispatch.h under MPI (built when CMake
 * finds it; dispatch_serial.c otherwise).
 *
 * Rank 0 holds the queue (dispatch_queue.h). Every other rank asks it for
 * a job with a report, {job, state, leaving} and the job's record, and
 * gets back the next job's index, or -1: done. Rank 0 answers from a
 * thread of its own while its main thread runs jobs from the same queue,
 * so that N ranks run N jobs at a time (MPI_THREAD_SERIALIZED: only that
 * thread calls MPI while it lives; without it rank 0 only answers).
 * A rank that is interrupted finishes its job (the run stops at the end of
 * its step), reports it and leaves. After an interrupt, rank 0 waits
 * GRACE_S for the ranks still running, then counts them lost, and
 * fl_dispatch_finish ends them with MPI_Abort: mpirun, interrupted or
 * seeing a rank die, sends every rank SIGTERM and SIGKILL a second later
 * (odls_base_sigkill_timeout), so rank 0 must have written its files by
 * then. A job finished but not reported is still found by its completion
 * marker (fl_run_reload). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dispatch_queue.h"

enum { TAG_REPORT = 1, TAG_RECORD = 2, TAG_JOB = 3 };

/* after an interrupt, the wait for the other ranks' running jobs to stop
 * (each at the end of its step), s: well inside mpirun's second */
#define GRACE_S 0.3

static int started, rank, size = 1, threaded, lost;

int fl_dispatch_init(int *argc, char ***argv, fl_error *err)
{
    int launched_rank;
    const int launched = fl_dispatch_launched(&launched_rank);
    if (!launched)
        return FL_OK; /* not under a launcher: one rank, without starting MPI */
    int provided;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return fl_fail(err, FL_ERR_INPUT, "MPI could not be started (MPI_Init_thread failed)");
    started = 1;
    threaded = provided >= MPI_THREAD_SERIALIZED;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* another MPI's launcher: every process a job of one, each running every job */
    if (launched > 1 && size == 1) {
        if (launched_rank != 0) { /* the launcher's rank 0 says why */
            err->msg[0] = '\0';
            return FL_ERR_INPUT;
        }
        return fl_fail(err, FL_ERR_INPUT, "the launcher started %d processes, but MPI sees each alone: start "
                                          "this build with its own MPI's mpirun (or srun --mpi=pmix)", launched);
    }
    return FL_OK;
}

int fl_dispatch_rank(void)
{
    return rank;
}

int fl_dispatch_size(void)
{
    return size;
}

void fl_dispatch_finish(int code)
{
    if (!started)
        return;
    started = 0;
    if (lost)
        MPI_Abort(MPI_COMM_WORLD, code);
    else
        MPI_Finalize();
}

void fl_dispatch_describe(char *out, int len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n;
    MPI_Get_library_version(v, &n);
    v[strcspn(v, ",\n")] = '\0'; /* "Open MPI v4.1.4" of "Open MPI v4.1.4, package: ..." */
    snprintf(out, (size_t)len, "%s", v);
}

/* A rank other than 0: report, take the next job, run it, until told -1 or
 * interrupted. */
static void worker(fl_jobs *j)
{
    int head[3] = {-1, FL_JOB_MISSING, 0}; /* the job reported, its state, leaving */
    for (;;) {
        head[2] = fl_interrupted() != 0;
        MPI_Send(head, 3, MPI_INT, 0, TAG_REPORT, MPI_COMM_WORLD);
        if (head[0] >= 0)
            MPI_Send(fl_job_record(j, head[0]), (int)j->result_size, MPI_BYTE, 0, TAG_RECORD, MPI_COMM_WORLD);
        if (head[2])
            return;
        int k;
        MPI_Recv(&k, 1, MPI_INT, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (k < 0)
            return;
        memset(fl_job_record(j, k), 0, j->result_size);
        j->state[k] = j->run(k, fl_job_record(j, k), j->ctx);
        head[0] = k;
        head[1] = (int)j->state[k];
    }
}

typedef struct server {
    fl_jobs *j;
    fl_job_queue *q;
    int active;             /* ranks not yet told -1 and not left */
} server;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Rank 0's answers: each report's record stored, the next job sent. Polls
 * (a blocking receive would spin a core that rank 0's own jobs need). */
static void *serve(void *arg)
{
    server *s = arg;
    const struct timespec nap = {0, 1000000};
    double interrupted_at = -1.0;
    while (s->active > 0) {
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            if (fl_interrupted() && interrupted_at < 0.0)
                interrupted_at = now_s();
            if (interrupted_at >= 0.0 && now_s() - interrupted_at > GRACE_S)
                break;
            nanosleep(&nap, NULL);
            continue;
        }
        const int from = st.MPI_SOURCE;
        int head[3];
        MPI_Recv(head, 3, MPI_INT, from, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (head[0] >= 0) {
            MPI_Recv(fl_job_record(s->j, head[0]), (int)s->j->result_size, MPI_BYTE, from, TAG_RECORD,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            s->j->state[head[0]] = (fl_job_state)head[1];
            if (head[1] == FL_JOB_FATAL)
                fl_job_queue_stop(s->q);
        }
        if (head[2]) {
            s->active--;
            continue;
        }
        const int k = fl_job_queue_take(s->q);
        MPI_Send(&k, 1, MPI_INT, from, TAG_JOB, MPI_COMM_WORLD);
        s->active -= k < 0;
    }
    lost = s->active;
    return NULL;
}

void fl_dispatch_ranks(fl_jobs *j, fl_job_queue *q)
{
    if (size == 1) {
        fl_dispatch_local(j, q);
        return;
    }
    if (rank != 0) {
        worker(j);
        return;
    }
    server s = {j, q, size - 1};
    pthread_t t;
    if (threaded && pthread_create(&t, NULL, serve, &s) == 0) {
        fl_dispatch_local(j, q);
        pthread_join(t, NULL);
    } else {
        serve(&s);
    }
    j->lost = lost;
}
