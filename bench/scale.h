/* bench/scale.h -- what the parts of bench/scale share: the workers
 * (scale_workers.c), the resize driver (scale.c) and the spawn timing
 * (scale_spawn.c).  See scale.c for what the benchmark measures. */
#ifndef BENCH_SCALE_H
#define BENCH_SCALE_H

#include <limits.h>
#include <stdint.h>

#define SC_ROWB 1024 /* bytes per row of the distributed array */

/* the launcher and libductile.so (from $MPIEXEC / $LIBDUCTILE or the build's tests/env.sh) and the MPI's name */
extern char sc_mpiexec[2048], sc_libductile[PATH_MAX], sc_mpiname[128];

/* What one mpiexec run printed: the RES line of its rank 0 and the MEM lines
 * of every process (peak resident set, KiB). */
struct sc_run {
    char res[1024];
    long mem_max, mem_sum, nmem;
    int nhosts; /* distinct host names among them */
};

double sc_now(void);
/* Run a command; 0 when it exited 0 and printed a RES line. */
int sc_exec(const char *cmd, struct sc_run *r);
/* The value of `key=` (or "key": ) in text, or -1. */
#include "resval.h"
/* Every process: print its peak resident set (getrusage ru_maxrss) and host as "MEM KiB HOST". */
void sc_print_mem(void);

/* scale_workers.c: the MPI programs the drivers start (argv: mode P Q BYTES) */
int sc_worker(int argc, char **argv, const char *self);
/* scale_spawn.c */
int sc_spawn_worker(int argc, char **argv, const char *self);
int sc_spawn_bench(const char *self, const char *counts, int reps, const char *csv);

#endif
