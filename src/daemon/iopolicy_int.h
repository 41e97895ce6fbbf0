/* iopolicy_int.h -- what iopolicy.c (the I/O token and the interference
 * controller, a part of ductiled: core.h) shares with iopolicy_auto.c
 * (--io-policy auto: the coordination that the cost predictor of
 * iopolicy_cost.c says pays). */
#ifndef DUCTILE_IOPOLICY_INT_H
#define DUCTILE_IOPOLICY_INT_H

#include "core.h"
#include "iopredict.h"
#include "iotoken.h"

enum { IOPOL_NONE, IOPOL_SHIFT, IOPOL_COUPLE, IOPOL_AUTO };
extern int io_policy;
extern struct iop_params io_prm;
extern struct iotoken iotok;
void io_grant(int jid); /* tell job jid it holds the I/O token */

#define IOJ_MAX 64
struct ioj {
    int used;
    struct iop_job m;
    double delay[IOP_PHASES];     /* token wait at the start of each kept phase (same ring as m) */
    int shrink_pending, shrink_n; /* phase shift: the -P to send once the +P is done */
    long long shrink_at;
    int busy;                     /* a plan is in progress: no new plan */
    double kept;                  /* mean seconds it kept the I/O token after a phase's last I/O
                                   * call, as the job measures it (io_release; <0 unknown): 0
                                   * when it gives it back at a close, else its phase gap */
};
extern struct ioj ioj[IOJ_MAX];

/* A resize ductiled decides itself (slots from the resource manager). 0, or -1 and why. */
int io_resize(struct job *j, int delta, long long at, char *why, size_t wl);
void io_plan_event(struct job *j, const struct iop_plan *pl, const char *status);
/* The iteration job j will have passed when a command sent now reaches it. */
long long io_cur_iter(const struct job *j, const struct ioj *x, long long known);
/* A plan was sent: remember its second half (phase shift). */
void io_plan_sent(struct job *k, struct ioj *xk, const struct iop_plan *pl);

/* iopolicy_auto.c: after a job's I/O phase, predict and choose (j reported it) */
extern int io_serialise;          /* the token serialises I/O phases (exclusive I/O) */
void io_auto_phase(struct job *j, double now);
/* Job j gave the token back after a phase (its tail is known): the prior is checked. */
void io_auto_released(struct job *j);
/* No job is followed any more: the prior holds again for the next ones. */
void io_auto_reset(void);

#endif
