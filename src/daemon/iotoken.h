/* iotoken.h -- ductiled's exclusive-I/O token (CLARISSE's I/O scheduling
 * policy): one holder at a time, waiting jobs served first come, first
 * served.  Pure C, no I/O; unit-tested (tests/unit/test_io.c). */
#ifndef DUCTILE_IOTOKEN_H
#define DUCTILE_IOTOKEN_H

#define IOTOKEN_MAX 256

struct iotoken {
    int holder;               /* job id, 0 = free */
    int queue[IOTOKEN_MAX];   /* waiting jobs, oldest first */
    int n;
    double granted_at;
    long grants;
};

void iotoken_init(struct iotoken *t);
/* Job wants the token.  Returns the job to notify of a grant now (this one
 * when the token was free), else 0 (queued; a repeated request is ignored). */
int iotoken_request(struct iotoken *t, int job, double now);
/* Job gives the token back (or leaves: exit, lost connection; also removes
 * it from the queue).  Returns the next job to notify of its grant, or 0. */
int iotoken_release(struct iotoken *t, int job, double now);

#endif
