/* state.h -- Ductile's process-wide state, shared by every folder: the
 * settings in effect, the virtual world's rank and size, the private
 * communicator, the clocks' origin, the job's identity, and the log.
 * Written by src/wrap/runtime.c in MPI_Init (and by the engine when the world
 * changes); read by everyone.  src/core is the floor of the include graph:
 * this header includes only <mpi.h>, the C library and src/common. */
#ifndef DUCTILE_CORE_STATE_H
#define DUCTILE_CORE_STATE_H

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

/* Trace on stderr when DUCTILE_VERBOSE >= level ("ductile[rank]: ..."). */
void ductile_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Seconds since Ductile's start, from the tick counter. */
double ductile_elapsed(void);

#endif
