/* dispatch_queue.h: what the backends of dispatch.h (dispatch_mpi.c,
 * dispatch_serial.c) share with dispatch.c: the queue of jobs the ranks
 * take from, and the one-rank loop. Not for commands. */
#ifndef FL_DISPATCH_QUEUE_H
#define FL_DISPATCH_QUEUE_H

#include <pthread.h>

#include "dispatch.h"

typedef struct fl_job_queue {
    const int *order;       /* the jobs to run, in the order they are handed out */
    int count, next;
    int stop;               /* a job was fatal: hand out no more */
    pthread_mutex_t lock;   /* rank 0 takes from two threads (dispatch_mpi.c) */
} fl_job_queue;

/* The next job, or -1 when none is left, the queue is stopped, or the
 * process was interrupted (fl_interrupted). */
int fl_job_queue_take(fl_job_queue *q);

void fl_job_queue_stop(fl_job_queue *q);

/* Job k's result record. */
void *fl_job_record(const fl_jobs *j, int k);

/* Runs the jobs it takes from q here, one after another, each record
 * zeroed first; a fatal job stops q. */
void fl_dispatch_local(fl_jobs *j, fl_job_queue *q);

/* What the environment says of an MPI launcher (mpirun, srun): 0 when
 * none started this process; else the job's size where it says (Open
 * MPI's OMPI_COMM_WORLD_SIZE, PMI_SIZE), or 2 for a rank other than 0 of
 * a PMIx launch of unknown size, or 1. *rank: this process's rank where
 * it says (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK), else 0. */
int fl_dispatch_launched(int *rank);

/* The backend: runs q's jobs over the ranks (one rank: fl_dispatch_local). */
void fl_dispatch_ranks(fl_jobs *j, fl_job_queue *q);

#endif
