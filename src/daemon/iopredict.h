/* iopredict.h -- ductiled's application performance predictor and I/O
 * interference scheduler (the CLARISSE/FlexMPI paper, section 4).  Pure C,
 * no I/O; unit-tested (tests/unit/test_io.c).
 *
 * Predictor: per job, the I/O period (Eq. 1: P_IO = T_cpu + T_comm + T_IO,
 * the time between the starts of consecutive I/O phases) and duration,
 * averaged over the recent phases at the current number of processes; the
 * next phase by extrapolation; per-configuration iteration times (every
 * configuration the job ran at adds samples; linear interpolation between
 * measured sizes, ideal scaling beyond them).  Interference: the predicted
 * phases of two jobs, each widened by the uncertainty margin, intersect.
 *
 * Scheduler: Phase Shifting (Algorithm 3: temporary +P at the next control
 * point, -P at the last one before the predicted phase, so that the phase
 * comes T_shift earlier; T_reconf = T_shift + 2 overhead + uncertainty,
 * speedup S = T_orig / (T_orig - T_reconf), Eq. 2) and Period Coupling
 * (Algorithm 4: a permanent resize of the job with the longer period so
 * that its period becomes a multiple of the other's). */
#ifndef DUCTILE_IOPREDICT_H
#define DUCTILE_IOPREDICT_H

#define IOP_PHASES 32
#define IOP_CONFIGS 32

struct iop_job {
    int id, procs;
    int nph;                       /* phases kept (ring, oldest first when < IOP_PHASES) */
    long long total_phases;
    double start[IOP_PHASES], dur[IOP_PHASES];
    long long iter[IOP_PHASES];
    int procs_at[IOP_PHASES];
    int ncfg;
    int cfg_procs[IOP_CONFIGS];
    double cfg_sum[IOP_CONFIGS];   /* seconds of iterations */
    double cfg_iters[IOP_CONFIGS]; /* iterations */
};

struct iop_pred {
    int valid;                     /* at least two phases at the current size (the job's procs, also
                                    * after a resize that no phase has seen yet) */
    double period, duration;       /* seconds */
    double next_start;             /* epoch seconds */
    double iters_per_period;       /* iterations between phase starts (0 unknown) */
    long long next_iter;           /* iteration of the next phase (-1 unknown) */
};

struct iop_params {
    double uncertainty;            /* seconds added to each predicted phase (paper: 2 s) */
    double overhead;               /* seconds one reconfiguration costs */
    double similar;                /* relative period difference under which periods are "similar" */
    int max_procs;                 /* most processes the job may get (resource manager) */
};

struct iop_plan {
    int kind;                      /* 0 none, 1 phase shift, 2 period coupling */
    int job, delta, new_procs;
    long long iter1, iter2;        /* +delta at iter1; phase shift: -delta at iter2 */
    double shift, treconf, torig, speedup;
    int fallback;                  /* period coupling: no plan, but the periods are coupled
                                    * already and the phases still interfere: try a phase shift */
    char why[160];                 /* why no plan (or a description of the plan) */
};

/* Eq. 1: the I/O period is the time from the start of one I/O phase to the
 * start of the next, P_IO = T_cpu + T_comm + T_IO.  The one implementation:
 * iop_period() measures it from phase starts (iop_predict uses it, and so
 * does ductiled's status view, jobs_io_period); iop_eq1() sums its terms. */
struct iop_terms {
    double t_cpu, t_comm, t_io;
};
double iop_eq1(const struct iop_terms *t);
/* Mean period over the phases started at start[first..last] (last > first). */
double iop_period(const double *start, int first, int last);

void iop_job_init(struct iop_job *j, int id, int procs);
void iop_add_phase(struct iop_job *j, double start, double duration, long long iteration, int procs);
void iop_add_iterations(struct iop_job *j, int procs, double seconds, double iterations);
/* Seconds per iteration at `procs` (measured, interpolated or scaled); <0 unknown. */
double iop_iter_time(const struct iop_job *j, int procs);
/* Smallest p in (from, max] with iter_time(from)/iter_time(p) >= speedup, or -1. */
int iop_procs_for_speedup(const struct iop_job *j, int from, double speedup, int max);
void iop_predict(const struct iop_job *j, struct iop_pred *p);
/* Do the next predicted phases of a and b (widened by u) intersect?  Returns
 * 1 and the seconds of overlap. */
int iop_interfere(const struct iop_pred *a, const struct iop_pred *b, double u, double *overlap);
/* Algorithm 3; `cur_iter_*` are the jobs' current iterations.  Returns 1 and
 * a plan, or 0 with plan->why. */
int iop_phase_shift(const struct iop_job *a, long long cur_iter_a, const struct iop_job *b, long long cur_iter_b,
                    const struct iop_params *prm, struct iop_plan *plan);
/* Algorithm 4. */
int iop_period_coupling(const struct iop_job *a, long long cur_iter_a, const struct iop_job *b, long long cur_iter_b,
                        const struct iop_params *prm, struct iop_plan *plan);

#endif
