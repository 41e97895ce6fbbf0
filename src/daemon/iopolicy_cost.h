/* iopolicy_cost.h -- what I/O coordination would cost: the predictor behind
 * ductiled's `--io-policy auto` (and `--policy io`).  Pure C, no I/O;
 * unit-tested (tests/unit/test_iocost.c).
 *
 * From each job's measured I/O period, I/O phase length alone on the device
 * and bandwidth share, a small event simulation over a horizon gives the
 * total I/O time (every phase from its start to its end, waits included) of
 * all jobs under
 *   (a) no coordination: overlapping phases share the device's bandwidth
 *       (each job's rate scaled down so that the shares sum to at most 1);
 *   (b) exclusive I/O: phases served one at a time, first come first served
 *       (a phase that finds the device taken waits, also for the tail during
 *       which the holder keeps the token after its phase);
 *   (c) Phase Shifting: (b) with one job's next phase moved earlier, plus
 *       the cost of its two resizes; Period Coupling: (b) with one job's
 *       compute time between phases changed by a permanent resize, plus its
 *       cost.
 * ioc_choose() picks the cheapest, with a margin: a mode with more machinery
 * is taken only when it beats the simpler one by the margin, so that a
 * resize or a serialisation is made only where it is predicted to pay. */
#ifndef DUCTILE_IOPOLICY_COST_H
#define DUCTILE_IOPOLICY_COST_H

#include <stddef.h>

#define IOC_MAX_JOBS 64

struct ioc_job {
    double next;    /* seconds from now to the start of its next I/O phase (>= 0) */
    double compute; /* seconds between the end of a phase and the start of the next */
    double length;  /* seconds a phase takes alone on the device */
    double share;   /* fraction of the device's bandwidth a phase uses alone (0, 1] */
    double tail;    /* exclusive I/O: seconds the job keeps the token after its phase ends
                     * (0 when it gives it back at a close, else until it sees the phase has
                     * ended: its phase gap) */
    double end;     /* seconds from now after which it starts no phase (it will have ended);
                     * <= 0: unknown (phases until the horizon) */
};

enum { IOC_NONE, IOC_EXCLUSIVE, IOC_SHIFT, IOC_COUPLE, IOC_MODES };

/* A resize plan to evaluate (job < 0: none). */
struct ioc_alt {
    int job;            /* index into the jobs */
    double shift;       /* Phase Shifting: seconds its next phase comes earlier */
    double compute;     /* Period Coupling: its compute time between phases after the resize */
    double cost;        /* seconds the resize(s) cost the job */
};

struct ioc_params {
    double horizon;     /* seconds of phases to count (phases starting before it) */
    double margin;      /* relative gain a more involved mode must show (0.1: 10 %) */
    double min_gain;    /* and at least this many seconds */
    double grant;       /* seconds a handover adds to a phase that waited for the token under
                         * exclusive I/O (the release and the grant through ductiled) */
};

struct ioc_choice {
    int mode;                  /* IOC_* */
    int valid[IOC_MODES];
    double t[IOC_MODES];       /* predicted seconds: I/O time (+ resize cost for shift, coupling) */
    char why[256];
};

const char *ioc_mode_name(int mode);

/* Total I/O seconds of the phases that would start before p->horizon (and
 * before each job's end) if nothing delayed them -- the same phases in every
 * mode -- simulated until they end; `exclusive` serialises them.  <0 on bad
 * input. */
double ioc_simulate(const struct ioc_job *j, int n, int exclusive, const struct ioc_params *p);

/* Device seconds of a phase that ran from s to e (after its token wait)
 * while other jobs' phases [os[i], oe[i]) ran too, with equal shares: the
 * integral of 1 / (1 + number of others running).  Its bandwidth share is
 * this over (e - s). */
double ioc_alone(double s, double e, const double *os, const double *oe, int n);

/* The prior, before any prediction (docs/policies.md "The prior"): first come,
 * first served holds unless a job keeps the token after its phase (more than
 * 25 % of the phase + 50 ms after its last I/O call) or two jobs' phases differ
 * by more than 2x with the longer over 0.2 s.  For each of n jobs: id, its last
 * phase's length and how long it kept the token after it (0: given back at the
 * phase's end, or unknown).  1 when the prior holds; else 0 and why (naming the
 * job). */
int ioc_prior_holds(const int *id, const double *len, const double *tail, int n, char *why, size_t wl);

/* Predict every mode (shift / couple only when given) and choose.  `current`
 * (IOC_NONE or IOC_EXCLUSIVE; -1: none yet) is kept unless another mode beats
 * it by the margin (hysteresis). */
void ioc_choose(const struct ioc_job *j, int n, const struct ioc_alt *shift, const struct ioc_alt *couple, int current,
                const struct ioc_params *p, struct ioc_choice *c);

#endif
