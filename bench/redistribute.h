/* redistribute.h -- what bench/redistribute.c (the workers, the drivers'
 * helpers, --vs-raw, main) shares with bench/redistribute_paper.c (--paper
 * and --cycles). */
#ifndef BENCH_REDISTRIBUTE_H
#define BENCH_REDISTRIBUTE_H

#include <limits.h>
#include <stdint.h>

#define ROWB 1024 /* bytes per row of the distributed array */

/* the launcher and libductile.so (from $MPIEXEC / $LIBDUCTILE or the build's tests/env.sh) */
extern char mpiexec[2048], libductile[PATH_MAX];

/* the RES line a worker prints */
struct res { char line[1024]; };

double now(void);
/* Run a command; 0 when it succeeded and printed a RES line (in r). */
int run(const char *cmd, struct res *r);
/* The value of `key=` (or "key": ) in text, or -1. */
#include "resval.h"
/* The contents of a report file (static buffer; "" when missing); the file goes. */
const char *take_report(const char *path);
int cmp_dbl(const void *a, const void *b);
double median(double *v, int n);

/* redistribute_paper.c */
int w_cg(int ns, int nd, int64_t bytes, int thread);
int run_paper(const char *self, const char *pairs, long mib, const char *csv, int reps);
int run_cycles(const char *self, const char *pairs, const char *sizes_kib, const char *csv, int throttle);

#endif
