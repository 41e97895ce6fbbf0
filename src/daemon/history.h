/* history.h -- a job's monitoring samples in ductiled (the performance
 * modeler's records), kept compact: a fixed ring of JOBS_HISTORY plain
 * structs per job, allocated (and touched) once when the job is created, so
 * that 2,000 jobs sending a sample a second hold their memory flat (issue
 * 25, item 4; a JSON object per sample took about 1.5 KB, 1.5 GB at that
 * scale).  When the ring is full its older half is merged pairwise (times,
 * iterations and bytes added; the later sample's time, iteration and size
 * kept; "merged" counts the samples in one), so the newest samples stay
 * exact and the run's beginning stays visible, ever coarser.  JSON only at
 * the edges: a sample in, the views and the state file out.  Pure C. */
#ifndef DUCTILE_HISTORY_H
#define DUCTILE_HISTORY_H

#include <jansson.h>

struct hsample {
    double t, recv, interval_s, compute_s, comm_s, io_s;
    long long iteration, iters, bytes, io_calls, dropped, maxiter, merged;
    int procs;
    unsigned short has; /* which optional members the sample had (H_*) */
    unsigned char io_held, control_point;
};

struct history {
    struct hsample *v;
    int n, cap;
};

/* 0, or -1 out of memory; cap samples (JOBS_HISTORY). */
int hist_init(struct history *h, int cap);
void hist_free(struct history *h);
/* A validated sample (its members as the "sample" schema names them), received at recv. */
void hist_add(struct history *h, const json_t *sample, double recv);
/* The newest sample (NULL: none). */
const struct hsample *hist_last(const struct history *h);
/* The sample as the protocol shows it: {t, iteration, procs, recv, and the optional members it had}. */
json_t *hist_json(const struct hsample *s);
/* The newest n samples as a JSON array, oldest first. */
json_t *hist_tail_json(const struct history *h, int n);
/* Samples from the state file (an array as hist_tail_json writes it), replacing the ring's. */
void hist_load(struct history *h, const json_t *a);

#endif
