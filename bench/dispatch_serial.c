/* dispatch_serial.c: the backend of dispatch.h in a build without MPI:
 * one rank, every job run here in turn. */
#include <stdio.h>

#include "dispatch_queue.h"

int fl_dispatch_init(int *argc, char ***argv, fl_error *err)
{
    (void)argc, (void)argv;
    /* under mpirun every copy of this build would run every job into the same folders */
    int rank;
    if (fl_dispatch_launched(&rank) <= 1)
        return FL_OK;
    if (rank != 0) { /* the launcher's rank 0 says why */
        err->msg[0] = '\0';
        return FL_ERR_INPUT;
    }
    return fl_fail(err, FL_ERR_INPUT, "started by an MPI launcher with several ranks, but this build has no MPI: "
                                      "every rank would run every job (install libopenmpi-dev and build again, "
                                      "docs/mpi.md)");
}

int fl_dispatch_rank(void)
{
    return 0;
}

int fl_dispatch_size(void)
{
    return 1;
}

void fl_dispatch_finish(int code)
{
    (void)code;
}

void fl_dispatch_describe(char *out, int len)
{
    snprintf(out, (size_t)len, "not built (no MPI at configure time)");
}

void fl_dispatch_ranks(fl_jobs *j, fl_job_queue *q)
{
    fl_dispatch_local(j, q);
}
