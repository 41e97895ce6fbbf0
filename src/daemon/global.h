/* global.h -- ductiled's global controller (issue 16, docs/policies.md):
 *   policyd.c  per-job performance models (model.c) fed by the monitoring,
 *              and the policy (policy.c) applied once a second: its resizes
 *              are sent like ductilectl's and recorded as "policy" events
 *   intake.c   the job queue: ductilectl submit / queue, jobs started with
 *              fork/exec of ductile-run + the launcher when slots are free. */
#ifndef DUCTILE_GLOBAL_H
#define DUCTILE_GLOBAL_H

#include <jansson.h>

#include "jobs.h"
#include "policy.h"

/* ---- policyd.c */
extern int gpolicy;               /* POL_* flags; 0: no global policy */
extern struct pol_params gprm;
/* --policy and --policy-params (key=value,...): 0, or -1 and a message */
int gpolicy_option(const char *text, char *err, size_t errlen);
int gpolicy_params_option(const char *text, char *err, size_t errlen);
void gpolicy_registered(struct job *j, const json_t *req);
void gpolicy_sample(struct job *j, const json_t *req);
void gpolicy_resized(struct job *j, const json_t *details);
void gpolicy_forget(int jid);
void gpolicy_done(struct job *j, int ok, const char *reason); /* a resize the policy sent was answered */
void gpolicy_tick(double now);
/* May job j be taken to `procs` processes (malleable, within its --min/--max)?  1, or 0 and why. */
int gpolicy_may_resize(const struct job *j, int procs, char *why, size_t wl);

/* ---- intake.c */
extern char intake_launcher[1024]; /* "mpiexec ..." (split at spaces); -n SIZE is appended */
extern char intake_runner[4096];   /* ductile-run ("" : next to ductiled) */
extern char intake_logdir[4096];   /* where the jobs' output goes ("" : next to the state file) */
extern char intake_socket[4096];   /* ductiled's Unix socket, given to the jobs */
void intake_request(int ci, long long id, const char *cmd, const json_t *req);
void intake_registered(struct job *j);
void intake_tick(double now);
/* slots the first waiting job needs to start (its --min), 0 when none waits */
int intake_reserve(void);
/* the queue entry's --min/--max for a job it started (0: none) */
void intake_bounds(const struct job *j, int *min, int *max);

#endif
