/* model.h -- ductiled's performance model of one job (the performance
 * modeler of the FlexMPI/CLARISSE design, seed 002 section 4.2), built only
 * from the job's monitoring samples.  Pure C, no I/O; unit-tested
 * (tests/unit/test_model.c); docs/policies.md states the model.
 *
 * Per size it has run at: iterations and their seconds, split into compute,
 * communication and I/O (the samples of the application controller).  For
 * any size p the iteration time t(p) is the measured mean where the job ran
 * at p, else a fitted model:
 *   >= 3 sizes: t(p) = a + b/p + c*log2(p), least squares over the measured
 *               sizes (Amdahl's serial part a, parallel part b, and a
 *               communication term c growing with log p); when that fit has a
 *               negative term or predicts a non-positive time it falls back to
 *   2 sizes:    t(p) = a + b/p (least squares; exact through two points);
 *   1 size:     the measured split: compute scales, communication and I/O do
 *               not (t(p) = comm + io + compute*p0/p);
 *   0 sizes:    unknown (-1).
 * Efficiency at p: t(1) / (p t(p)), t(1) from the same model.  Remaining work:
 * maxiter - iter of the last control point (EMPI_Monitor_end's iter and
 * maxiter).  Confidence: the number of sizes measured.  The resize's cost is
 * weighed with the seed's Eq. 2: the relative speedup needed so that a
 * reconfiguration that costs T_reconf of T_orig pays is S = T_orig / (T_orig -
 * T_reconf). */
#ifndef DUCTILE_MODEL_H
#define DUCTILE_MODEL_H

#define MODEL_SIZES 64
#define MODEL_MIN_ITERS 2.0 /* iterations at a size before its time counts as measured */

enum model_kind { MODEL_NONE, MODEL_SPLIT, MODEL_AMDAHL, MODEL_LOG };

struct model_size {
    int procs;
    double iters, secs, compute, comm, io;
};

struct model {
    int n;
    struct model_size s[MODEL_SIZES];
    int last_procs;          /* size of the previous sample (a sample across a resize is skipped) */
    double pend[4];          /* seconds, compute, comm, io of samples without a finished iteration */
    long long iter, maxiter; /* last control point; maxiter 0: unknown */
    enum model_kind kind;    /* of the last fit */
    double a, b, c;
};

void model_init(struct model *m);
/* One monitoring sample: `iters` iterations in `secs` seconds at `procs`
 * processes, of which compute/comm/io seconds.  The first sample after a
 * change of size is skipped (it mixes two sizes); a sample in which no
 * iteration ended (iterations longer than the sampling period) is carried
 * into the next one. */
void model_add(struct model *m, int procs, double iters, double secs, double compute, double comm, double io);
void model_progress(struct model *m, long long iter, long long maxiter);
/* Refit from the measured sizes; returns the kind of model. */
enum model_kind model_fit(struct model *m);
const char *model_kind_name(enum model_kind k);
/* Seconds per iteration at p (measured, else fitted); -1 unknown. */
double model_time(const struct model *m, int p);
int model_measured(const struct model *m, int p);
/* Efficiency t(1) / (p t(p)) in (0, ~1]; -1 unknown. */
double model_efficiency(const struct model *m, int p);
/* Fraction of the iteration time spent in I/O at the size nearest p (0 unknown). */
double model_io_ratio(const struct model *m, int p);
/* Iterations left (maxiter - iter), or -1 when maxiter is unknown. */
double model_remaining(const struct model *m);
int model_confidence(const struct model *m);
/* Eq. 2: relative speedup needed to gain t_reconf out of t_orig (inf when
 * t_reconf >= t_orig). */
double model_eq2_speedup(double t_orig, double t_reconf);
/* Seconds the job gains (negative: loses) over `iters` remaining iterations
 * by going from `from` to `to` processes, the resize's cost included. */
double model_gain(const struct model *m, int from, int to, double iters, double cost);

#endif
