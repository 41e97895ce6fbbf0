/* iopolicy.c -- ductiled's part for MPI-IO coordination (docs/io.md): the
 * exclusive-I/O token (iotoken.c) handed to jobs (their io_request and
 * io_release events; taken back after --io-lease), and the I/O interference
 * controller (--io-policy): per job the predictor of iopredict.c is fed with
 * samples and I/O phases, and Phase Shifting / Period Coupling plans become
 * resize commands ductiled sends itself (core_resize), for jobs the parts
 * allow to be resized (core_may_resize). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iopolicy_int.h"

#define IO_LEASE_DEFAULT 60.0

struct iotoken iotok;
static struct ioj *ioj_get(struct job *j);
static const struct dpart io_part;

static void io_request(int jid, double now);
static void io_leave(int jid);

/* Job jid asks for the token.  Under --io-policy auto with a prediction that
 * serialising does not pay, every request is granted at once (no
 * coordination); the job's release then leaves the token untouched. */
static void io_request(int jid, double now)
{
    if (io_policy == IOPOL_AUTO && !io_serialise) {
        io_grant(jid);
        return;
    }
    int g = iotoken_request(&iotok, jid, now);
    if (g) io_grant(g);
}

/* Tell job jid it holds the I/O token (a request the job acknowledges). */
void io_grant(int jid)
{
    struct job *j = jobs_get(&jobs, jid);
    if (!j || j->conn < 0) {
        if (jid) {
            int next = iotoken_release(&iotok, jid, wall());
            if (next && next != jid) io_grant(next);
        }
        return;
    }
    core_notify(j, "io", json_pack("{s:s}", "action", "grant"));
    if (verbose) logmsg("I/O token granted to job %d", jid);
}

static void io_leave(int jid)
{
    int next = iotoken_release(&iotok, jid, wall());
    if (next) io_grant(next);
}

/* The job gave it back after its phase, `kept` seconds after the phase's last I/O call (<0 unknown). */
static void io_released(int jid, double kept)
{
    /* how long after its phase the job kept the token: --io-policy auto predicts with it */
    struct job *j = jid ? jobs_get(&jobs, jid) : NULL;
    struct ioj *x = j ? ioj_get(j) : NULL;
    if (x && kept >= 0 && kept < 1e6) x->kept = x->kept >= 0 ? 0.5 * x->kept + 0.5 * kept : kept;
    io_leave(jid);
    if (io_policy == IOPOL_AUTO && j) io_auto_released(j);
}

static double io_lease = IO_LEASE_DEFAULT;

/* Take the token back from a holder that kept it past the lease while others wait. */
static void io_check_lease(double now)
{
    int h = iotok.holder;
    if (!h || iotok.n == 0 || io_lease <= 0 || now - iotok.granted_at <= io_lease) return;
    struct job *j = jobs_get(&jobs, h);
    logmsg("I/O token: job %d held it %.0f s (lease %.0f s) while %d job(s) wait: revoked", h, now - iotok.granted_at,
           io_lease, iotok.n);
    /* the job is told (it acknowledges); a phase already writing finishes,
     * but the others are no longer blocked behind it */
    if (j) jobs_event(j, "io_revoked", json_pack("{s:f}", "held_s", now - iotok.granted_at), now);
    core_revoke(j, "token", 0, "I/O lease expired");
    io_leave(h);
}

/* ------------------------------------------------------------ I/O interference controller (iopredict.c) */

int io_policy = IOPOL_NONE;
struct iop_params io_prm = {.uncertainty = 0.2, .overhead = 0.3, .similar = 0.25, .max_procs = 0};
struct ioj ioj[IOJ_MAX];

static struct ioj *ioj_get(struct job *j)
{
    static int warned;
    for (int i = 0; i < IOJ_MAX; i++)
        if (ioj[i].used && ioj[i].m.id == j->id) return &ioj[i];
    for (int i = 0; i < IOJ_MAX; i++)
        if (!ioj[i].used) {
            memset(&ioj[i], 0, sizeof ioj[i]);
            ioj[i].kept = -1;
            ioj[i].used = 1;
            iop_job_init(&ioj[i].m, j->id, j->procs);
            return &ioj[i];
        }
    if (!warned++) logmsg("I/O interference: more than %d jobs at once: job %d and later ones are not followed", IOJ_MAX, j->id);
    return NULL;
}

static void io_policy_forget(int jid)
{
    int left = 0;
    for (int i = 0; i < IOJ_MAX; i++) {
        if (ioj[i].used && ioj[i].m.id == jid) ioj[i].used = 0;
        left += ioj[i].used;
    }
    if (!left) io_auto_reset();
}

/* a planned resize failed or was cancelled */
static void io_policy_refused(struct job *j, const char *cmd, const char *reason)
{
    if (!j) return;
    for (int i = 0; i < IOJ_MAX; i++) {
        if (!ioj[i].used || ioj[i].m.id != j->id || !ioj[i].busy) continue;
        logmsg("I/O interference: job %d refused the planned %s (%s): plan cancelled", j->id, cmd, reason ? reason : "?");
        jobs_event(j, "io_plan", json_pack("{s:s, s:s}", "status", "cancelled", "why", reason ? reason : "refused"), wall());
        ioj[i].busy = ioj[i].shrink_pending = 0;
    }
    j->io_shrink_n = 0;
    state_dirty = 1;
}

/* A resize ductiled decides itself; its refusal comes back to io_resize_done. */
int io_resize(struct job *j, int delta, long long at, char *why, size_t wl)
{
    return core_resize(&io_part, j, delta, at, why, wl);
}

static void io_resize_done(struct job *j, int ok, const char *reason)
{
    if (!ok) io_policy_refused(j, "resize", reason);
}

void io_plan_event(struct job *j, const struct iop_plan *pl, const char *status)
{
    jobs_event(j, "io_plan", json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:f, s:f, s:f, s:f, s:s}", "strategy",
                                       pl->kind == 2 ? "period-coupling" : "phase-shift", "status", status, "delta",
                                       pl->delta, "new_procs", pl->new_procs, "iter1", (json_int_t)pl->iter1, "iter2",
                                       (json_int_t)pl->iter2, "shift_s", pl->shift, "treconf_s", pl->treconf, "torig_s",
                                       pl->torig, "speedup", pl->speedup, "why", pl->why),
               wall());
    logmsg("I/O interference: %s: %s", status, pl->why);
}

static void io_policy_sample(struct job *j, const json_t *req)
{
    struct ioj *x = ioj_get(j);
    if (!x) return;
    double iv = proto_get_num(req, "interval_s", 0) - proto_get_num(req, "io_s", 0);
    long long it = proto_get_int(req, "iters", 0);
    int procs = (int)proto_get_int(req, "procs", j->procs);
    /* a sample across a resize mixes two sizes: only steady ones count */
    if (it > 0 && procs == x->m.procs && !j->pending) iop_add_iterations(&x->m, procs, iv, (double)it);
    x->m.procs = procs;
}

/* The iteration job j will have passed when a command sent now reaches it:
 * its last known iteration (samples are up to a controller period old, an
 * I/O phase is reported a phase gap after its end) plus IO_LEAD seconds of
 * iterations.  Planning +P at the iteration after this one makes it happen
 * at the planned iteration instead of at some later control point. */
#define IO_LEAD 1.0
long long io_cur_iter(const struct job *j, const struct ioj *x, long long known)
{
    long long c = j->iteration > known ? j->iteration : known;
    double t = iop_iter_time(&x->m, x->m.procs);
    if (c >= 0 && t > 0) c += (long long)ceil(IO_LEAD / t);
    return c;
}

void io_plan_sent(struct job *k, struct ioj *xk, const struct iop_plan *pl)
{
    xk->busy = 1;
    if (pl->kind == 1) {
        xk->shrink_pending = 1;
        xk->shrink_n = pl->delta;
        xk->shrink_at = pl->iter2;
        k->io_shrink_n = pl->delta;
        k->io_shrink_from = k->procs;
        k->io_shrink_at = pl->iter2;
    }
    io_plan_event(k, pl, "planned");
}

static void io_policy_phase(struct job *j, const json_t *d, double now)
{
    struct ioj *x = ioj_get(j);
    if (!x || !d) return;
    if (x->m.nph == IOP_PHASES) memmove(x->delay, x->delay + 1, (IOP_PHASES - 1) * sizeof x->delay[0]);
    x->delay[x->m.nph == IOP_PHASES ? IOP_PHASES - 1 : x->m.nph] = proto_get_num(d, "delay_s", 0);
    iop_add_phase(&x->m, proto_get_num(d, "start", 0), proto_get_num(d, "duration_s", 0),
                  proto_get_int(d, "iteration", -1), (int)proto_get_int(d, "procs", j->procs));
    if (io_policy == IOPOL_NONE) return;
    if (io_policy == IOPOL_AUTO) {
        io_auto_phase(j, now);
        return;
    }
    /* the decision is taken after a job's I/O phase (the paper's CLARISSE control point) */
    for (int i = 0; i < IOJ_MAX; i++) {
        if (!ioj[i].used || ioj[i].m.id == j->id) continue;
        struct job *o = jobs_get(&jobs, ioj[i].m.id);
        if (!o || o->state != JOB_RUNNING || o->conn < 0 || x->busy || ioj[i].busy) continue;
        struct iop_params prm = io_prm;
        prm.max_procs = rm_total(&rm);
        /* the +P goes to the first control point the command can still reach */
        long long cj = io_cur_iter(j, x, proto_get_int(d, "iteration", -1)), co = io_cur_iter(o, &ioj[i], -1);
        struct iop_plan pl;
        int ok = 0;
        if (io_policy == IOPOL_COUPLE) ok = iop_period_coupling(&x->m, cj, &ioj[i].m, co, &prm, &pl);
        if (!ok && (io_policy == IOPOL_SHIFT || pl.fallback))
            ok = iop_phase_shift(&x->m, cj, &ioj[i].m, co, &prm, &pl);
        if (!ok) {
            if (verbose || pl.job) logmsg("I/O interference check jobs %d/%d: %s", j->id, o->id, pl.why);
            continue;
        }
        struct job *k = jobs_get(&jobs, pl.job);
        struct ioj *xk = pl.job == j->id ? x : &ioj[i];
        char why[256];
        /* a job that is not malleable, or at its --max, is not resized */
        if (!core_may_resize(k, pl.new_procs, why, sizeof why) || io_resize(k, pl.delta, pl.iter1, why, sizeof why) != 0) {
            snprintf(pl.why + strlen(pl.why), sizeof pl.why - strlen(pl.why), "; refused: %.80s", why);
            io_plan_event(k, &pl, "cancelled");
            continue;
        }
        io_plan_sent(k, xk, &pl);
        return;
    }
}

/* The job reported a finished (or failed) resize: the second half of a phase shift. */
static void io_policy_resized(struct job *j, const json_t *d)
{
    struct ioj *x = ioj_get(j);
    if (!x || !x->busy) return;
    const char *st = proto_get_str(d, "status", "ok"), *op = proto_get_str(d, "op", "");
    if (strcmp(st, "ok") != 0) {
        logmsg("I/O interference: job %d: the planned %s failed (%s): plan cancelled", j->id, op, st);
        jobs_event(j, "io_plan", json_pack("{s:s, s:s}", "status", "cancelled", "why", proto_get_str(d, "reason", st)), wall());
        x->busy = x->shrink_pending = 0;
        j->io_shrink_n = 0;
        return;
    }
    if (x->shrink_pending && !strcmp(op, "expand")) {
        char why[256];
        x->shrink_pending = 0;
        j->io_shrink_n = 0;
        state_dirty = 1;
        if (io_resize(j, -x->shrink_n, x->shrink_at, why, sizeof why) != 0) {
            logmsg("I/O interference: job %d: the -%d could not be sent: %s", j->id, x->shrink_n, why);
            x->busy = 0;
        }
        return;
    }
    x->busy = 0;
}

/* A job (re-)registered, e.g. with a restarted ductiled: a Phase Shift whose
 * +P was done but whose -P was not sent yet is completed now; one whose +P
 * never happened is cancelled. */
static void io_policy_registered(struct job *j, const json_t *req)
{
    (void)req;
    if (j->io_shrink_n <= 0) return;
    int n = j->io_shrink_n;
    j->io_shrink_n = 0;
    state_dirty = 1;
    /* the job's own word (its registration): its resize events may still be on their way */
    if (j->reg_procs < j->io_shrink_from + n) {
        logmsg("I/O interference: job %d: the planned +%d did not happen: plan cancelled", j->id, n);
        return;
    }
    char why[256];
    long long at = j->io_shrink_at > j->iteration ? j->io_shrink_at : -1;
    if (io_resize(j, -n, at, why, sizeof why) != 0) {
        logmsg("I/O interference: job %d: the pending -%d could not be sent: %s", j->id, n, why);
        return;
    }
    struct ioj *x = ioj_get(j);
    if (x) x->busy = 1;
    logmsg("I/O interference: job %d: sending the -%d its Phase Shift still owed (at iteration %lld)", j->id, n, at);
}

/* ------------------------------------------------------------ the part */

static void io_event(struct job *j, const char *kind, const json_t *d, double now)
{
    if (!strcmp(kind, "io_request")) io_request(j->id, now);
    else if (!strcmp(kind, "io_release")) io_released(j->id, proto_get_num(d, "kept_s", -1));
    else if (!strcmp(kind, "io_phase")) io_policy_phase(j, d, now);
    else if (!strcmp(kind, "resized")) io_policy_resized(j, d);
    else if (!strcmp(kind, "cancelled") && json_is_true(json_object_get(d, "by_ductiled")))
        io_policy_refused(j, "resize", "cancelled by the operator"); /* never a plan left busy */
}

/* the job left: the token goes back (or it leaves the queue); an ended job is forgotten */
static void io_left(struct job *j)
{
    io_leave(j->id);
    if (j->state != JOB_RUNNING && j->state != JOB_DISCONNECTED) io_policy_forget(j->id);
}

/* a revoke of the token acknowledged: the next job waiting gets it */
static void io_answered(struct job *j, const char *cmd, int ok, json_t *r, const char *reason)
{
    (void)reason;
    if (!ok || strcmp(cmd, "revoke") != 0) return;
    const char *what = proto_get_str(r, "revoked", "?");
    if ((!strcmp(what, "token") || !strcmp(what, "all")) && iotok.holder == j->id) io_leave(j->id);
}

static void io_tick(double now)
{
    (void)now;
    io_check_lease(wall());
}

static int io_start(char *err, size_t errlen)
{
    (void)err, (void)errlen;
    iotoken_init(&iotok);
    if (core_io_wanted && io_policy == IOPOL_NONE) io_policy = IOPOL_AUTO; /* a policy that weighs I/O (policyd.c) */
    return 0;
}

static int set_policy(const char *arg, char *err, size_t errlen)
{
    if (!strcmp(arg, "none")) io_policy = IOPOL_NONE;
    else if (!strcmp(arg, "phase-shift")) io_policy = IOPOL_SHIFT;
    else if (!strcmp(arg, "period-coupling")) io_policy = IOPOL_COUPLE;
    else if (!strcmp(arg, "auto")) io_policy = IOPOL_AUTO;
    else {
        snprintf(err, errlen, "--io-policy wants none, phase-shift, period-coupling or auto, not '%s'", arg);
        return -1;
    }
    return 0;
}

static int set_seconds(const char *what, const char *arg, double max, double *out, char *err, size_t errlen)
{
    char *end;
    double v = strtod(arg, &end);
    if (*end || !(v >= 0 && v <= max)) {
        snprintf(err, errlen, "--%s wants seconds from 0 to %.0f, not '%s'", what, max, arg);
        return -1;
    }
    *out = v;
    return 0;
}
static int set_uncertainty(const char *a, char *e, size_t l) { return set_seconds("io-uncertainty", a, 3600, &io_prm.uncertainty, e, l); }
static int set_overhead(const char *a, char *e, size_t l) { return set_seconds("io-overhead", a, 3600, &io_prm.overhead, e, l); }
static int set_lease(const char *a, char *e, size_t l) { return set_seconds("io-lease", a, 86400, &io_lease, e, l); }

static const struct dpart_option io_options[] = {
    {"io-policy", "P",
     "I/O interference controller: none (default), phase-shift (Algorithm 3)\nor period-coupling (Algorithm 4, then phase shifts); "
     "docs/io.md; auto:\npredicted I/O time decides none/exclusive/shift/coupling, first come\nfirst served until it can predict "
     "(docs/policies.md)",
     set_policy},
    {"io-uncertainty", "S", "seconds added to each predicted I/O phase (default 0.2)", set_uncertainty},
    {"io-overhead", "S", "seconds one reconfiguration is assumed to cost (default 0.3)", set_overhead},
    {"io-lease", "S",
     "the exclusive-I/O token is taken back from a job that holds it longer\nthan S seconds while others wait (default 60; 0: never)",
     set_lease},
    {NULL, NULL, NULL, NULL},
};
static const struct dpart io_part = {.name = "io",
                                     .options = io_options,
                                     .start = io_start,
                                     .registered = io_policy_registered,
                                     .sample = io_policy_sample,
                                     .event = io_event,
                                     .left = io_left,
                                     .answered = io_answered,
                                     .resize_done = io_resize_done,
                                     .tick = io_tick};
DUCTILED_PART(io_part);
