/* cost.h -- the automatic choice of redistribution method and constant-data
 * strategy (DUCTILE_REDIST=auto; docs/rma.md).  Pure C, no MPI, unit-tested
 * (tests/unit/test_rma_cost.c).  For every applicable version V = (method,
 * strategy) it predicts the redistribution time R, the iterations N_it the
 * program runs while it is in the background, and the MaM RMA paper's Eq. 2,
 * f(V,P) = R + T_it(ND) x (M - N_it) with M = max N_it (Eq. 1), and picks the
 * version with the smallest f (Eq. 3).
 *
 * R counts messages and steps, not only bytes: every exchange pays
 * bytes / bandwidth + latency x steps, where the steps are what the method
 * costs on the process with the most partners (cost_steps): the collective's
 * algorithm (Open MPI's pairwise exchange: P - 1 steps, partners or not;
 * MPICH's scattered one: a message per real partner, in rounds of 32 ranks),
 * or a message per real partner for p2p.  So at large P with few partners
 * per process (a block expansion or shrink) p2p wins, at small P or in dense
 * exchanges the collective does (ties go to the simpler, earlier version). */
#ifndef DUCTILE_RMA_COST_H
#define DUCTILE_RMA_COST_H

#include <stddef.h>

enum { COST_COL = 0, COST_P2P = 1, COST_RMA_LOCK = 2, COST_RMA_LOCKALL = 3 }; /* = REDIST_* values */
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
    /* messages and steps (0 everywhere: bandwidth only, as before) */
    int np;              /* processes of the transfer communicator (0: max(ns, nd)) */
    int partners;        /* the most other processes one process exchanges data with in one array (plan_max_partners;
                          * 0: np - 1, dense) */
    int nx;              /* exchanges: arrays that move, each its own collective or set of messages (0: 1) */
    double lat_s;        /* seconds per message or step (0: no latency term) */
    int col_alg;         /* the MPI's MPI_Alltoallv: COST_A2A_PAIRWISE or COST_A2A_SCATTERED */
    double bw_p2p;       /* bytes/s of p2p (0: bw_col) */
};

/* What one MPI_Alltoallv costs in steps (cost_steps): Open MPI's coll/tuned
 * pairwise exchange (P - 1 MPI_Sendrecv steps, zero-byte ones included, each
 * waiting for its partner), or MPICH's scattered algorithm
 * (MPIR_Alltoallv_intra_scattered: MPI_Isend/MPI_Irecv only for non-zero
 * counts, posted for MPIR_CVAR_ALLTOALL_THROTTLE = 32 ranks at a time with a
 * wait after each round: a message per real partner + a step per extra round). */
enum { COST_A2A_PAIRWISE = 0, COST_A2A_SCATTERED = 1 };
#define COST_A2A_THROTTLE 32
#define COST_LAT_DEFAULT 20e-6 /* s per message or step before any measurement */
#define COST_LAT_MIN 1e-6 /* a fitted latency below this (noise: "no latency seen") counts as this: steps never free */

/* Steps of one exchange by `method` (COST_COL, COST_P2P, COST_RMA_*), with the
 * inputs' np, partners and col_alg. */
double cost_steps(const struct cost_input *in, int method);

/* Bandwidth and latency from measured blocking transfers: t[i] = bytes[i] /
 * bw + lat x steps[i], least squares over n >= 2 transfers whose bytes per
 * step differ.  Returns 1 with *bw, *lat set (lat >= 0), or 0 when they do
 * not tell the two apart (then the caller keeps its latency). */
int cost_fit(const double *bytes, const double *t, const double *steps, int n, double *bw, double *lat);

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

#define COST_MAX_VERSIONS 16

/* Evaluate every applicable version into all[0..*nall) and return the index
 * of the best (smallest f; ties: the earlier, simpler version), or -1 on bad
 * input.  reason (may be NULL) gets one line: the choice, its f, R, N_it, M,
 * and the runner-up. */
int cost_choose(const struct cost_input *in, struct cost_version *all, int *nall, char *reason, size_t reasonlen);

/* "col", "p2p", "rma-lock+wd", ... */
const char *cost_version_name(const struct cost_version *v, char *buf, size_t len);

#endif
