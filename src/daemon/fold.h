/* fold.h -- ductiled's side of process folding (docs/folding.md): a folded
 * job keeps its processes but holds fewer cores, so the resource manager
 * counts cores.  Folding to C cores per host: on each host the job holds
 * min(its processes there, C) slots; the rest are free for other jobs.
 * Unfolding takes them back (refused when another job holds them).
 *
 * API for the global controller's policies: fold_job() / unfold_job() act
 * at once on the slots (a policy may admit a new job right after a fold) and
 * send the command to the job; fold_freed() says how many slots a fold would
 * give back.  Folds live in the daemon's memory only (a restarted ductiled
 * sees the job unfolded until it is folded again). */
#ifndef DUCTILE_DAEMON_FOLD_H
#define DUCTILE_DAEMON_FOLD_H

#include <stddef.h>

#include <jansson.h>

#include "jobs.h"

/* Fold job j to `cores` cores per host (>= 1): slots released now, "fold"
 * forwarded to the job.  The reply goes to connection ci with request id
 * (ci = -1: ductiled itself, e.g. a policy).  0, or -1 and a reason (nothing
 * changed). */
int fold_job(struct job *j, int cores, int ci, long long id, char *reason, size_t rlen);
/* Unfold job j: its slots taken back (refused if another job holds them),
 * "unfold" forwarded.  0, or -1 and a reason. */
int unfold_job(struct job *j, int ci, long long id, char *reason, size_t rlen);
/* Slots a fold of j to `cores` cores per host would free now (0 if none). */
int fold_freed(const struct job *j, int cores);
/* Cores (slots) job j holds, and its fold (0: not folded). */
int fold_cores_held(const struct job *j);
int fold_cores_per_host(const struct job *j);

/* Hooks (commands.c). */
void fold_request(int ci, long long id, const char *cmd, const json_t *req); /* ductilectl fold/unfold */
void fold_after_sample(struct job *j);   /* the sample's reconcile gave the slots back: fold them again */
void fold_job_resized(struct job *j);    /* a resize ends the fold in the job */
void fold_reply(struct job *j, const char *cmd, int ok); /* the job refused: undo the accounting */
/* --fold-to-admit (docs/folding.md): 1 when on */
extern int fold_to_admit;
/* The first waiting queue entry q<qid> needs `need` free slots: fold running,
 * not yet folded jobs to half their cores per host (at least 1) when that
 * frees enough, each decision a "fold_to_admit" event.  1 if any was folded. */
int fold_admit(int need, int qid, double now);
/* Unfold the jobs folded to admit others when their cores would otherwise
 * stay idle: no entry waits (need 0), or the first waiting one needs `need`
 * slots and fewer are free (no fold admitted it); only where the slots are free. */
void fold_admit_release(int need, double now);
void fold_status(const struct job *j, json_t *status);
/* A fold's reply: the job's hosts and most ranks on one host as ductiled knows them now (the job's
 * own figures are those of its last MPI call, stale right after a resize). */
void fold_reply_view(const struct job *j, json_t *reply);   /* "cores", "fold" in status and list */

#endif
