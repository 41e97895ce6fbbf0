/* cost.h -- the automatic choice of redistribution method and constant-data
 * strategy (DUCTILE_REDIST=auto; docs/rma.md).  Pure C, no MPI, unit-tested
 * (tests/unit/test_rma_cost.c).  For every applicable version V = (method,
 * strategy) it predicts the redistribution time R, the iterations N_it the
 * program runs while it is in the background, and the MaM RMA paper's Eq. 2,
 * f(V,P) = R + T_it(ND) x (M - N_it) with M = max N_it (Eq. 1), and picks the
 * version with the smallest f (Eq. 3). */
#ifndef DUCTILE_RMA_COST_H
#define DUCTILE_RMA_COST_H

#include <stddef.h>

enum { COST_COL = 0, COST_RMA_LOCK = 2, COST_RMA_LOCKALL = 3 };          /* = REDIST_* values */
enum { COST_BLOCKING = 0, COST_NB = 1, COST_WD = 2, COST_THREAD = 3 };   /* = constant-data strategies */

struct cost_input {
    int ns, nd;
    double var_bytes;    /* variable distributed data that changes process (moves blocking) */
    double const_bytes;  /* constant distributed data that changes process (may move in the background) */
    double bw_col;       /* bytes/s of COL (measured at earlier resizes, else a default) */
    double bw_rma;       /* bytes/s of the rma-* reads */
    double win_setup_s;  /* window set-up the rma-* methods would pay (0: the world's window exists) */
    double t_it;         /* seconds per iteration at NS (0: unknown) */
    int thread_multiple; /* Threading allowed (MPI_THREAD_MULTIPLE) */
    int rma_ok;          /* one-sided windows usable */
    int rma_background_ok; /* one-sided transfers may run in the background (wd, thread); 0 with Open MPI 4 */
};

/* Expected slowdown of an iteration while a transfer runs in the background
 * (omega), per strategy; RMA-WD disturbs the least (the sources only expose
 * memory), Threading the most on oversubscribed cores (the paper's Fig. 8). */
#define COST_OMEGA_NB 1.30
#define COST_OMEGA_WD_COL 1.30
#define COST_OMEGA_WD_RMA 1.05
#define COST_OMEGA_THREAD 1.60

struct cost_version {
    int method, strategy;
    double r;      /* predicted redistribution time (blocking part + background until complete) */
    int n_it;      /* iterations overlapped */
    double f;      /* Eq. 2 */
};

#define COST_MAX_VERSIONS 12

/* Evaluate every applicable version into all[0..*nall) and return the index
 * of the best (smallest f; ties: the earlier, simpler version), or -1 on bad
 * input.  reason (may be NULL) gets one line: the choice, its f, R, N_it, M,
 * and the runner-up. */
int cost_choose(const struct cost_input *in, struct cost_version *all, int *nall, char *reason, size_t reasonlen);

/* "col", "rma-lock+wd", ... */
const char *cost_version_name(const struct cost_version *v, char *buf, size_t len);

#endif
