/* runtime.h -- Ductile's process-wide state and its life cycle: set-up in
 * MPI_Init (settings, virtual world, private communicator, clocks) and
 * tear-down in MPI_Finalize (report, summary, freeing what we created). */
#ifndef DUCTILE_RUNTIME_H
#define DUCTILE_RUNTIME_H

#include <mpi.h>
#include <stdint.h>

#include "../common/settings.h"

struct ductile_runtime {
    struct ductile_settings settings;
    int active;               /* set up and not yet finalized */
    int rank, size;           /* in the virtual world */
    MPI_Comm private_comm;    /* Ductile's own traffic, never the application's */
    int thread_level;         /* granted by the MPI */
    uint64_t start_ticks;     /* right before PMPI_Init: wall time counts from here */
    uint64_t calib_ticks;     /* right after PMPI_Init ... */
    double start_sec;         /* ... and CLOCK_MONOTONIC at the same moment */
    double start_epoch;       /* wall-clock time (epoch seconds) at start */
    char job_id[64];
    long job_pid;             /* pid of rank 0 */
    char *cmdline;            /* the program's command line, NUL-separated */
    int cmdline_len;
};
extern struct ductile_runtime ductile_rt;

/* Called by the hand-written MPI_Init / MPI_Init_thread wrappers. */
int ductile_runtime_init(int *argc, char ***argv, int required, int *provided, int with_thread);
/* Called by the hand-written MPI_Finalize wrapper. */
/* The end of Ductile's worlds, just before PMPI_Finalize: the program's world
 * attributes go back to the real MPI_COMM_WORLD, the virtual world, every old
 * world kept for other threads and the private communicator are freed (a
 * spawned process must not reach MPI_Finalize still connected to its parents:
 * Open MPI kills it with SIGPIPE).  Used by ductile_runtime_finalize and by
 * the spawned processes of a cancelled expansion. */
void ductile_runtime_end_worlds(void);
int ductile_runtime_finalize(void);

/* Trace on stderr when DUCTILE_VERBOSE >= level ("ductile[rank]: ..."). */
void ductile_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Seconds since Ductile's start, from the tick counter. */
double ductile_elapsed(void);

#endif
