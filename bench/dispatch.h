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
#include <stdio.h>

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

/* Bad input or a failed write of a command run on every rank: the line
 * "fluidlab: <command>: <message>" on stderr, from rank 0 only (every
 * rank finds the same); returns 1. */
int fl_command_fail(const char *command, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

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
 * what the command draws of a run and returns non-zero when a picture
 * could not be written: then run.json says "incomplete" and no marker is
 * written). Returns FL_JOB_FATAL for an output error, and for bad input
 * when input_fatal is set (the first case of a command: the scene or an
 * override is wrong for every case); else FL_JOB_DONE. */
fl_job_state fl_run_job(const fl_run_config *c, int input_fatal, int (*finish)(const char *dir, void *ctx),
                        void *finish_ctx, fl_run_outcome *out);

/* The estimated cost of a run, fluid particles x steps, for the order of
 * the jobs: its scene loaded with its overrides, the steps from --frames
 * or the duration at c's step (an adaptive step estimated as an explicit
 * solver's CFL step at the scene's spacing). 0 when the scene does not
 * load (the run fails at once). */
double fl_run_cost(const fl_run_config *c);

/* 1 when c->out_dir holds c's finished run: its completion marker
 * (run.complete, written after everything else) is there and names the
 * same request as c (fl_run_job writes it: a hash of the scene file and of
 * every option that decides the run's result), and its run.json's result
 * reads back into *out (ran, with the status, reason, steps, frames, times
 * and mean compression it records); else 0: a folder that holds another
 * request's run (another scene, step, frame count, override...) is not
 * this run's. */
int fl_run_reload(const fl_run_config *c, fl_run_outcome *out);

/* Before fl_dispatch_run: with resume, each job k whose folder holds the
 * finished run of configs[k] (fl_run_reload) is marked done with its
 * result in out[k]; every other job missing. Returns the jobs marked done. */
int fl_run_jobs_resume(int n, const fl_run_config *configs, int resume, fl_run_outcome *out, fl_job_state *state);

/* After fl_dispatch_run of run jobs (fl_run_job), on rank 0: the index of
 * the first fatal job (out[k].error says why, out[k].code is FL_ERR_IO for
 * an output error), or -1 when there is none; then each job left missing
 * whose run finished (its rank stopped before reporting it) read back from
 * its folder (configs[k].out_dir) and marked done, and *missing the jobs
 * still missing, failed (did not run) or interrupted. */
int fl_run_jobs_gather(fl_jobs *j, fl_run_outcome *out, const fl_run_config *configs, int *missing);

/* ---- commands made of run jobs (figures, validate) ------------------------ */

/* The options they share: --out DIR, --threads N (1 to 256), --resume,
 * --quiet. */
typedef struct fl_jobs_options {
    const char *out;
    int threads;                  /* after fl_jobs_parse: the option's, or OpenMP's default */
    int resume, quiet;
    char command[512];            /* after fl_jobs_parse: "fluidlab <command> <words>", for the report */
} fl_jobs_options;

/* Parses a command's words: --help or -h (the usage on stdout, from rank
 * 0; returns -1), the options above, and the command's own through
 * own(word, value, ctx) (value: the next word, NULL after the last), which
 * returns 1 when it took the word, 2 when it took its value too, 0 when the
 * word is not its own, -1 after one line (fl_command_fail) for a bad
 * value. Anything else is one line, "<word>: unknown option (see fluidlab
 * <command> --help)". Returns 0 (o->command and o->threads then set),
 * -1 after --help, or 1 on bad input. */
int fl_jobs_parse(const char *command, const char *usage, int argc, char **argv, fl_jobs_options *o,
                  int (*own)(const char *word, const char *value, void *ctx), void *ctx);

/* A run of such a command: the defaults (fl_run_config_default), its
 * scene, solver, step (dt in s, or dt_cfl) and folder, and o's threads,
 * with the progress line where stderr is a terminal and o is not quiet. */
void fl_job_run_config(fl_run_config *c, const fl_jobs_options *o, const char *scene, const char *solver, double dt,
                       int dt_cfl, const char *out_dir);

/* Unless o->quiet, the line before job i of n on stderr: "fluidlab:
 * <command>: <noun> <i + 1> of <n> (<what>), <s> s so far" and an ETA on
 * one rank, or the rank under MPI (where the jobs go out by cost). */
void fl_job_progress(const char *command, const fl_jobs_options *o, const char *noun, int i, int n, double start_ms,
                     const char *what);

/* fl_run_job(c, 0, NULL, NULL, out), and unless o->quiet one line on
 * stderr for a run that went unstable or did not run ("fluidlab:
 * <command>: <label>: unstable, <reason> (recorded)"). */
fl_job_state fl_run_job_noted(const char *command, const fl_jobs_options *o, const char *label,
                              const fl_run_config *c, fl_run_outcome *out);

/* A command's report, written whole or not at all: fl_part_open opens
 * <path>.part (its folder made first); fl_part_close closes f and, when
 * keep is set and every write reached the file, renames it to path, else
 * removes it. NULL or FL_ERR_IO with one line in err. */
FILE *fl_part_open(const char *path, fl_error *err);

/* Before its runs, a command that ends by writing DIR/report.md removes
 * the one an earlier command left (rank 0 alone), so that one cut short
 * does not leave the last command's report beside its own runs. FL_OK, or
 * FL_ERR_IO with one line in err. */
int fl_report_clear(const char *dir, fl_error *err);
int fl_part_close(FILE *f, const char *path, int keep, fl_error *err);

/* The report's first words: "Made by `<command>` (<sizes>) on <machine>,
 * [R MPI ranks x ]T thread(s), commit C, <date>; N runs[ (k of them from an
 * earlier command, `--resume`)] in S s." (no newline). */
void fl_report_made_by(FILE *r, const char *command, const char *sizes, const fl_jobs *jobs, int threads, int resumed,
                       double seconds);

#endif
