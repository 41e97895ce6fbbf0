/* report_build.h -- builds the JSON report and the human summary from the
 * ranks' counters combined by reductions (and, for small jobs, the gathered
 * per-rank tables) (pure: no MPI; unit-tested). */
#ifndef DUCTILE_REPORT_BUILD_H
#define DUCTILE_REPORT_BUILD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/functions.gen.h"
#include "iterdetect.h"

struct report_fn {
    uint64_t calls;
    double time_s;
    uint64_t bytes_sent, bytes_recv;
};

struct report_rank {
    int32_t rank, pid;
    char host[64];
    double wall_s;
};

/* Per-rank totals derived from the counters. */
struct report_rank_totals {
    uint64_t calls, bytes_sent, bytes_recv;
    double mpi_s, io_s, comm_s, compute_s;
};
/* A process that left the world during the run (a shrink, or the Baseline
 * method replacing every process); collected by src/malleable/records.c.
 * Small (its totals, not its functions): rank 0 holds one per departed process. */
struct report_departed {
    struct report_rank who;     /* rank: its rank in the world it left; wall_s: from MPI_Init to leaving */
    int32_t left_at_iteration;
    int32_t exited; /* 1: ended at once (its group disconnected); 0: parked until the job's end */
    struct report_rank_totals tot; /* its counters' totals (report_fn_totals) */
};

/* The departed processes' functions combined by reductions when they leave:
 * sums, and the largest single-process time (records.c). */
struct report_departed_fns {
    struct report_fn sum[DUCTILE_FN_COUNT];
    double tmax[DUCTILE_FN_COUNT];
};

struct report_iter {
    int detected;
    const char *state;      /* "locked", "detecting", "gave-up", "off" */
    const char *head;       /* description of the loop head */
    unsigned period_calls;
    uint64_t count;
    double total_s, mean_s, min_s, max_s;
    const double *recent_s; /* most recent iteration times, oldest first */
    size_t nrecent;
    const iterdetect_bucket *timeline; /* the whole run, at most ITERDETECT_BUCKETS buckets, oldest first */
    size_t ntimeline;
    uint64_t timeline_width;           /* iterations per bucket */
};

/* One reconfiguration (resize) of a malleable job; filled by src/malleable/records.c. */
struct report_reconfig {
    int32_t id, iteration, from, to;
    char kind[16];      /* "expand" or "shrink" */
    char method[16];    /* "merge" or "baseline" */
    char redist[32];    /* "col", "p2p", "rma-lock" or "rma-lockall" (with "+nb", "+wd" or "+thread" when
                         * constant data moved in the background) */
    char status[16];    /* "ok", "failed" or "refused" */
    char reason[256];   /* why it failed or was refused; "" when ok */
    double start_s;     /* since the job's start (rank 0's clock) */
    double spawn_s, merge_s, plan_s, transfer_s, total_s;
    uint64_t bytes_moved; /* registered data that changed process */
    /* one-sided and background redistribution (src/rma/, docs/rma.md) */
    double window_s;      /* window set-up of the rma-* methods (max over processes; not part of transfer_s) */
    int32_t overlap_it;   /* N_it: iterations a background transfer overlapped; -1: nothing moved in the background */
    double background_s;  /* background transfer: from its start to the control point that completed it */
    char choice[16];      /* who chose method and strategy: "setting" or "auto" (the cost model) */
    char choice_reason[256]; /* the cost model's reason (empty for "setting") */
    /* persistent redistribution (DUCTILE_PERSISTENT, src/malleable/persist.c) */
    char persistent[16];  /* "" (off), "prepared" (set up now), "reused" (every array reused a prepared transfer) */
    double prepare_s;     /* set-up of prepared transfers (max over processes; not part of transfer_s) */
    int32_t standby;      /* processes taken back from standby instead of spawned (expand) or put on standby (shrink) */
    int32_t exited;       /* processes that left and ended at once: a shrink's removed ones, a failed expansion's new ones */
    int32_t parked;       /* a failed expansion's new processes left parked (holding slots until the job ends) */
    int32_t shared_memory; /* 1: arrays moved by direct copies from shared blocks (DUCTILE_RMA_MEMORY=shared) */
    int32_t command;      /* the request's queue id: ductiled's command id (0: DUCTILE_SCHEDULE) */
    int32_t spawn_groups; /* an expansion's MPI_Comm_spawn calls: 1, or k parents' in a parallel spawn; 0: none */
};

/* Spread of one per-rank figure over the ranks (min/max with the lowest rank
 * that has them, as MPI_MINLOC/MPI_MAXLOC give). */
struct report_spread {
    double sum, min, max;
    int32_t min_rank, max_rank;
};

/* What the report needs from the ranks, combined by reductions (sum, max,
 * min/max with location) instead of gathering every rank's table. */
struct report_reduced {
    struct report_fn fn_sum[DUCTILE_FN_COUNT]; /* over the ranks (not the departed) */
    double fn_tmax[DUCTILE_FN_COUNT];          /* the largest single-rank time */
    struct report_spread wall, mpi, compute, io;
};
/* One rank's contribution (a reduction over one rank). */
void report_reduce_one(const struct report_fn *fns, double wall_s, int rank, struct report_reduced *out);
/* acc += b (the reduction operators, for gathered input and the unit tests). */
void report_reduce_merge(struct report_reduced *acc, const struct report_reduced *b);

struct report_input {
    const char *job;
    const char *mpi_family;
    const char *mpi_library;        /* MPI_Get_library_version, first line */
    int mpi_version, mpi_subversion;
    const char *const *command;     /* argv of the program */
    int ncommand;
    double start_epoch;             /* seconds since the epoch */
    int nprocs;
    /* Per-rank detail for the "ranks" array: nprocs entries / nprocs *
     * DUCTILE_FN_COUNT entries (rank-major), or both NULL for large jobs
     * (then "ranks" is empty and only the reduced figures are reported). */
    const struct report_rank *ranks;
    const struct report_fn *fns;
    /* The combined figures; NULL: computed here from ranks and fns. */
    const struct report_reduced *reduced;
    struct report_iter iter;
    const char *const *setting_names; /* nsettings effective settings */
    const char *const *setting_values;
    int nsettings;
    const struct report_reconfig *reconfigs; /* nreconfigs entries, oldest first */
    int nreconfigs;
    json_t *io;                     /* MPI-IO section (src/io/iomon.c), borrowed; NULL = none */
    const struct report_departed *departed; /* ndeparted processes that left the world, oldest first */
    int ndeparted;
    /* Each departed process's functions (ndeparted x DUCTILE_FN_COUNT, in the
     * order of departed), or NULL when more than DUCTILE_REPORT_RANKS left
     * (then the entries have no "functions"; the combined figures are unchanged). */
    const struct report_fn *departed_fns;
    /* The departed processes' functions combined; NULL: computed from departed_fns. */
    const struct report_departed_fns *departed_sum;
    /* Sampled timing (DUCTILE_TIME_SAMPLE, ductile_time_sample()): the largest
     * rate any process used (0 or 1: every call timed), and the calls of all
     * ranks whose time was not read but estimated (0: every time is measured). */
    uint32_t time_sample_every;
    uint64_t time_estimated_calls;
};

void report_rank_totals(const struct report_input *in, int rank, struct report_rank_totals *out);
/* The same for one process's counters (DUCTILE_FN_COUNT entries) and wall time. */
void report_fn_totals(const struct report_fn *f, double wall_s, struct report_rank_totals *out);

/* The whole report as a new JSON object (caller json_decref()s it). */
json_t *report_build_json(const struct report_input *in);

/* The concise summary (a few lines, each prefixed "ductile: "). */
void report_print_summary(FILE *f, const struct report_input *in, const char *report_path);

/* "1.5 MB" style, into buf. */
const char *report_human_bytes(double bytes, char *buf, size_t len);

#endif
