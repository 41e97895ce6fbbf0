/* policy.h -- ductiled's global performance policies (the global performance
 * scheduler of the FlexMPI/CLARISSE design, seed 002 section 4.3.2,
 * Algorithms 5 and 6): pure decision functions over a snapshot of the jobs
 * (size, --min/--max, performance model, predicted resize cost) and the free
 * slots.  No I/O; unit-tested (tests/unit/test_policy.c); the daemon side is
 * policyd.c; the rules are documented in docs/policies.md.
 *
 *   fair        the slots of the malleable jobs plus the free ones (less what
 *               the first queued job needs) shared evenly, within --min/--max
 *   efficiency  a job grows while its predicted efficiency at the next size
 *               stays at or above the threshold, and shrinks when its
 *               efficiency at its size falls below threshold - band
 *   throughput  slots go one by one to the job whose predicted progress rate
 *               (fraction of its work per second) grows most (Algorithm 5)
 *   io          with throughput or efficiency: the marginal value is divided
 *               by 1 + w * IOR (Algorithm 6: prefer jobs with less I/O);
 *               alone: throughput with that weighting.  ductiled also runs the
 *               I/O interference controller (Phase Shifting) with it.
 *
 * Every resize must pay for itself (Eq. 2): over the job's remaining
 * iterations (or the horizon when its maxiter is unknown) the predicted
 * seconds saved exceed the predicted cost of the resize by the margin.
 * Hysteresis: the margin, the efficiency band, a cooldown after each resize,
 * a bonus for the size a job has (throughput), and no decision while a
 * resize is in flight. */
#ifndef DUCTILE_POLICY_H
#define DUCTILE_POLICY_H

#include <stddef.h>

#include "model.h"
#include "../common/sizes.h"

enum { POL_FAIR = 1, POL_EFFICIENCY = 2, POL_THROUGHPUT = 4, POL_IO = 8 };

struct pol_params {
    double threshold; /* efficiency: grow while E(p+1) >= threshold */
    double band;      /* efficiency: shrink when E(p) < threshold - band */
    double margin;    /* a resize must gain (1 + margin) x its cost; throughput: bonus of the current size */
    double cooldown;  /* seconds after a job's resize before the next decision about it */
    double horizon;   /* seconds of work assumed left when a job's maxiter is unknown */
    double io_weight; /* io: value / (1 + io_weight * IOR) */
};

struct pol_job {
    int id, procs, min, max;
    int malleable;       /* 0: fixed size (counted, never resized) */
    int busy;            /* a resize is in flight */
    double last_resize;  /* epoch seconds of its last resize (or start) */
    double cost_s;       /* predicted seconds one resize of this job costs */
    const struct model *m;
    const struct ductile_sizes *sizes; /* the counts the job can use (DUCTILE_SIZES), or NULL: any in min..max */
};

struct pol_snapshot {
    struct pol_job *jobs;
    int n;
    int free;    /* free slots now */
    int reserve; /* slots the first waiting job needs (taken from the malleable jobs if needed) */
    double now;
};

struct pol_decision {
    int job, from, to;
    double t_from, t_to, eff_to, gain_s, cost_s, remaining;
    char reason[256];
};

void policy_defaults(struct pol_params *p);
/* "fair", "efficiency", "throughput", "io", combined with ',' or '+'
 * (fair, efficiency and throughput exclude each other).  0, or -1 and a
 * message. */
int policy_parse(const char *text, int *flags, char *err, size_t errlen);
/* Name of the flags ("efficiency+io"). */
const char *policy_name(int flags);
/* The resizes to make now: shrinks (the slots they free go to the next
 * round) and expansions within the free slots.  Returns how many (<= max). */
int policy_decide(int flags, const struct pol_params *prm, const struct pol_snapshot *s, struct pol_decision *out,
                  int max);

#endif
