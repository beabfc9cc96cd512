/* dispatch.h: a command's independent jobs (the runs of figures, sweep and
 * compare), run one after another in this process, or spread over the
 * ranks of an MPI job (`mpirun -np N fluidlab figures`, docs/mpi.md):
 * rank 0 hands them out, costliest first, to every rank (itself included)
 * as each asks for its next, and gathers each job's result record.
 *
 * The layer knows nothing of runs: a job is a callback with an index that
 * fills a result record of a fixed size. A command that uses it (figures,
 * sweep, compare; later validate and course --check) plans the same jobs
 * on every rank, calls fl_dispatch_run, and on rank 0 writes its files from
 * the gathered records; the other ranks return. Every rank runs the same
 * build, so a record travels as its bytes.
 *
 * The run-level helpers below make a run a job that a rerun can skip: the
 * completion marker, written last into a finished run's folder, and the
 * result read back from its run.json (`--resume`).
 *
 * The MPI side lives in dispatch_mpi.c, built when CMake finds MPI; without
 * it dispatch_serial.c stands in (one rank); dispatch_queue.h is what they
 * share with dispatch.c. Only bench/ prints. */
#ifndef FL_DISPATCH_H
#define FL_DISPATCH_H

#include <stddef.h>

#include "harness.h"

/* ---- ranks ---------------------------------------------------------------- */

/* Joins the MPI job this process was started in (mpirun, or srun with
 * PMIx: the launcher's environment says so); a process started otherwise
 * is the one rank of its own. Call it first in main, before the signal
 * handlers. FL_OK, or FL_ERR_INPUT with one line in err when MPI cannot be
 * started, or when the launcher started several processes that this
 * build cannot join into one job (a build without MPI, another MPI's
 * launcher; the line empty on all but the launcher's rank 0: one says it). */
int fl_dispatch_init(int *argc, char ***argv, fl_error *err);

/* This process's rank (0 where there is one), and the ranks in the job. */
int fl_dispatch_rank(void);
int fl_dispatch_size(void);

/* Leaves the MPI job (a no-op without one): MPI_Finalize, or, when ranks
 * were left without an answer (an interrupt), MPI_Abort with code, which
 * ends them. Call it last in main, on every rank. */
void fl_dispatch_finish(int code);

/* "Open MPI v4.1.4", or "not built (no MPI at configure time)". */
void fl_dispatch_describe(char *out, int len);

/* ---- jobs ----------------------------------------------------------------- */

typedef enum fl_job_state {
    FL_JOB_MISSING = 0, /* no result: not started (an interrupt or a fatal job came first), or its
                         * rank stopped answering */
    FL_JOB_DONE = 1,    /* its result record is filled (whatever it says: an unstable run is done) */
    FL_JOB_FATAL = 2    /* done, and it ends the command (an output error): its record says why;
                         * no job starts after it */
} fl_job_state;

/* Runs job index into result (result_size bytes, zeroed first), on
 * whichever rank it was handed to; returns FL_JOB_DONE or FL_JOB_FATAL. */
typedef fl_job_state (*fl_job_fn)(int index, void *result, void *ctx);

typedef struct fl_jobs {
    int n;
    fl_job_fn run;
    void *ctx;
    void *results;          /* n records of result_size bytes */
    size_t result_size;
    double (*cost)(int index, void *ctx); /* a job's estimated cost (any unit; fl_run_cost), asked
                             * on several ranks only, where the costliest go first; NULL: in
                             * index order */
    fl_job_state *state;    /* in: FL_JOB_DONE for a job done before (--resume), not run again, its
                             * record filled; out: every job's state */
    int ranks;              /* out: the ranks that took part */
    int lost;               /* out: ranks that did not answer after an interrupt (their jobs MISSING) */
} fl_jobs;

/* Runs every job not already done, and returns when all are done, or
 * after an interrupt (fl_interrupted: no new job starts, the running ones
 * stop at the end of their step) or a FL_JOB_FATAL job. Every rank calls
 * it with the same jobs (rank 0's cost and state decide the order). On one
 * rank: in index order, here.
 * Under MPI: rank 0 returns with every job's state and record; another
 * rank returns with only the jobs it ran, and its command should return
 * (fl_dispatch_rank() != 0) without writing anything else. */
void fl_dispatch_run(fl_jobs *j);

/* ---- runs as jobs --------------------------------------------------------- */

/* What a run job reports: fl_run's result, or why it did not run. */
typedef struct fl_run_outcome {
    int ran;                /* 1: fl_run finished (stable, unstable, interrupted); 0: it did not run */
    fl_run_result result;
    int code;               /* fl_run's return: FL_OK, or FL_ERR_INPUT, FL_ERR_IO, ... */
    char error[600];        /* fl_run's message when code is not FL_OK */
} fl_run_outcome;

/* Runs c into c->out_dir as a job: its completion marker removed first,
 * fl_run, and the marker written when the run finished (stable or
 * unstable; after, if given, finish(c->out_dir, finish_ctx), which draws
 * what the command draws of a run). Returns FL_JOB_FATAL for an output
 * error, and for bad input when input_fatal is set (the first case of a
 * command: the scene or an override is wrong for every case); else
 * FL_JOB_DONE. */
fl_job_state fl_run_job(const fl_run_config *c, int input_fatal, void (*finish)(const char *dir, void *ctx),
                        void *finish_ctx, fl_run_outcome *out);

/* The estimated cost of a run, fluid particles x steps, for the order of
 * the jobs: its scene loaded with its overrides, the steps from --frames
 * or the duration at c's step (an adaptive step estimated as an explicit
 * solver's CFL step at the scene's spacing). 0 when the scene does not
 * load (the run fails at once). */
double fl_run_cost(const fl_run_config *c);

/* 1 when dir holds a finished run: its completion marker
 * (dir/run.complete, written after everything else) is there and its
 * run.json's result reads back into *out (ran, with the status, reason,
 * steps, frames, times and mean compression it records); else 0. */
int fl_run_reload(const char *dir, fl_run_outcome *out);

/* After fl_dispatch_run of run jobs (fl_run_job), on rank 0: the index of
 * the first fatal job (out[k].error says why, out[k].code is FL_ERR_IO for
 * an output error), or -1 when there is none; then each job left missing
 * whose run finished (its rank stopped before reporting it) read back from
 * its folder dirs[k] and marked done, and *missing the jobs still missing,
 * failed (did not run) or interrupted. */
int fl_run_jobs_gather(fl_jobs *j, fl_run_outcome *out, const char *const *dirs, int *missing);

#endif
