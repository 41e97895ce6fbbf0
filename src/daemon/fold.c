/* fold.c -- ductiled's side of process folding: per job, the processes it
 * had on each host when it was folded and the cores per host it was folded
 * to; the slots follow (see fold.h). */
#include "config.h"

#include "fold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

#define FOLD_MAX 256

struct fold {
    int job;     /* 0: free entry */
    int cores;   /* per host */
    int *procs;  /* processes per rm host when folded (rm.nhosts) */
    int admit;   /* folded by --fold-to-admit (to start queue entry q<admit>) */
};
int fold_to_admit;
static struct fold folds[FOLD_MAX];

static struct fold *find(int jid)
{
    for (int i = 0; i < FOLD_MAX; i++)
        if (folds[i].job == jid && jid) return &folds[i];
    return NULL;
}

static void forget(struct fold *f)
{
    if (!f) return;
    free(f->procs);
    memset(f, 0, sizeof *f);
}

/* Bring the job's slots on each host to min(procs there, cores). */
static void hold(struct job *j, const struct fold *f)
{
    for (int i = 0; i < rm.nhosts; i++) {
        int want = f->procs[i] < f->cores ? f->procs[i] : f->cores;
        rm_set_host(&rm, j->alloc, i, want);
    }
}

int fold_freed(const struct job *j, int cores)
{
    const struct fold *f = find(j->id);
    int n = 0;
    for (int i = 0; i < rm.nhosts; i++) {
        int procs = f ? f->procs[i] : j->alloc[i];
        int want = procs < cores ? procs : cores;
        if (j->alloc[i] > want) n += j->alloc[i] - want;
    }
    return n;
}

int fold_cores_held(const struct job *j) { return rm_alloc_total(&rm, j->alloc); }

int fold_cores_per_host(const struct job *j)
{
    const struct fold *f = find(j->id);
    return f ? f->cores : 0;
}

/* Send cmd to job j for client ci (forward), or for ductiled itself (ci < 0,
 * a policy: nobody waits for the reply, as iopolicy.c's resizes). */
static void send_cmd(int ci, long long id, struct job *j, const char *cmd, json_t *args)
{
    if (ci >= 0) {
        forward(ci, id, j, cmd, args, 0);
        return;
    }
    struct forward *f = new_forward();
    json_object_set_new(args, "job", json_integer(j->id));
    if (f) {
        f->job_req = next_job_req++;
        f->job = j->id;
        f->cli = -1;
        f->deadline = net_now() + FORWARD_TIMEOUT;
        snprintf(f->cmd, sizeof f->cmd, "%s", cmd);
    }
    queue_out(j->conn, proto_request(f ? f->job_req : next_job_req++, cmd, args));
    json_decref(args);
}

static int usable(const struct job *j, char *reason, size_t rlen)
{
    if (j->state != JOB_RUNNING || j->conn < 0) {
        snprintf(reason, rlen, "job %d is %s", j->id, job_state_name(j->state));
        return 0;
    }
    return 1;
}

int fold_job(struct job *j, int cores, int ci, long long id, char *reason, size_t rlen)
{
    if (!usable(j, reason, rlen)) return -1;
    if (cores < 1) {
        snprintf(reason, rlen, "cannot fold job %d to %d cores per host", j->id, cores);
        return -1;
    }
    struct fold *f = find(j->id);
    if (!f) {
        for (int i = 0; i < FOLD_MAX && !f; i++)
            if (!folds[i].job) f = &folds[i];
        if (!f) {
            snprintf(reason, rlen, "too many folded jobs (%d)", FOLD_MAX);
            return -1;
        }
        f->procs = calloc((size_t)(rm.nhosts ? rm.nhosts : 1), sizeof(int));
        if (!f->procs) {
            snprintf(reason, rlen, "out of memory");
            return -1;
        }
        memcpy(f->procs, j->alloc, (size_t)rm.nhosts * sizeof(int));
        f->job = j->id;
    }
    f->cores = cores;
    hold(j, f);
    logmsg("job %d folded to %d core(s) per host: holds %d slot(s)", j->id, cores, fold_cores_held(j));
    jobs_event(j, "fold", json_pack("{s:i, s:i}", "cores_per_host", cores, "cores", fold_cores_held(j)), wall());
    state_dirty = 1;
    send_cmd(ci, id, j, "fold", json_pack("{s:i}", "cores", cores));
    return 0;
}

int unfold_job(struct job *j, int ci, long long id, char *reason, size_t rlen)
{
    if (!usable(j, reason, rlen)) return -1;
    struct fold *f = find(j->id);
    if (f) {
        for (int i = 0; i < rm.nhosts; i++) {
            int need = f->procs[i] - j->alloc[i];
            if (need > 0 && rm.hosts[i].used + need > rm.hosts[i].slots) {
                snprintf(reason, rlen, "host '%s' has %d free slot(s), job %d needs %d to unfold", rm.hosts[i].name,
                         rm.hosts[i].slots - rm.hosts[i].used, j->id, need);
                return -1;
            }
        }
        for (int i = 0; i < rm.nhosts; i++) rm_set_host(&rm, j->alloc, i, f->procs[i]);
        forget(f);
        logmsg("job %d unfolded: holds %d slot(s)", j->id, fold_cores_held(j));
        jobs_event(j, "unfold", json_pack("{s:i}", "cores", fold_cores_held(j)), wall());
        state_dirty = 1;
    }
    send_cmd(ci, id, j, "unfold", json_object());
    return 0;
}

void fold_request(int ci, long long id, const char *cmd, const json_t *req)
{
    int jid = (int)proto_get_int(req, "job", 0);
    struct job *j = jobs_get(&jobs, jid);
    if (!j) {
        reply_err(ci, id, PERR_UNKNOWN_JOB, "no job %d (ductilectl list shows the jobs)", jid);
        return;
    }
    char reason[300];
    int rc = !strcmp(cmd, "fold") ? fold_job(j, (int)proto_get_int(req, "cores", 0), ci, id, reason, sizeof reason)
                                  : unfold_job(j, ci, id, reason, sizeof reason);
    if (rc != 0) {
        int busy = j->state == JOB_RUNNING && j->conn >= 0;
        reply_err(ci, id, busy ? (strcmp(cmd, "fold") ? PERR_NO_SLOTS : PERR_BAD_ARGUMENT) : PERR_JOB_UNREACHABLE,
                  "%s", reason);
    }
}

void fold_after_sample(struct job *j)
{
    struct fold *f = find(j->id);
    if (!f) return;
    if (j->state != JOB_RUNNING) {
        forget(f);
        return;
    }
    hold(j, f);
}

void fold_job_resized(struct job *j)
{
    struct fold *f = find(j->id);
    if (!f) return;
    forget(f);
    jobs_reconcile(&jobs, j, wall());
    logmsg("job %d resized: its fold ended", j->id);
}

void fold_reply(struct job *j, const char *cmd, int ok)
{
    if (ok || !j || strcmp(cmd, "fold") != 0) return;
    struct fold *f = find(j->id);
    if (!f) return;
    for (int i = 0; i < rm.nhosts; i++) rm_set_host(&rm, j->alloc, i, f->procs[i]);
    forget(f);
    logmsg("job %d refused to fold: its slots are counted again", j->id);
}

void fold_status(const struct job *j, json_t *o)
{
    json_object_set_new(o, "cores", json_integer(fold_cores_held(j)));
    json_object_set_new(o, "fold_cores_per_host", json_integer(fold_cores_per_host(j)));
}

/* ---- --fold-to-admit: fold running jobs so that a queued job starts */

/* Half the most processes the job has on one host, at least 1. */
static int half_cores(const struct job *j)
{
    int most = 0;
    for (int i = 0; i < rm.nhosts; i++)
        if (j->alloc[i] > most) most = j->alloc[i];
    return most / 2 > 1 ? most / 2 : 1;
}

int fold_admit(int need, int qid, double now)
{
    int freen = rm_free_slots(&rm), can = 0;
    if (!fold_to_admit || freen >= need) return 0;
    for (int k = 0; k < jobs.n; k++) {
        struct job *j = jobs.v[k];
        if (j->state == JOB_RUNNING && j->conn >= 0 && !find(j->id)) can += fold_freed(j, half_cores(j));
    }
    if (freen + can < need) return 0; /* folding every job would not be enough: fold none */
    int folded = 0;
    for (int k = 0; k < jobs.n && freen < need; k++) {
        struct job *j = jobs.v[k];
        if (j->state != JOB_RUNNING || j->conn < 0 || find(j->id)) continue;
        int cores = half_cores(j), gain = fold_freed(j, cores);
        if (gain <= 0) continue;
        char reason[300], why[300];
        snprintf(reason, sizeof reason,
                 "queue entry q%d needs %d free slot(s), %d free: job %d folded to %d core(s) per host frees %d", qid, need,
                 freen, j->id, cores, gain);
        if (fold_job(j, cores, -1, 0, why, sizeof why) != 0) continue;
        struct fold *f = find(j->id);
        if (f) f->admit = qid;
        jobs_event(j, "fold_to_admit", json_pack("{s:s, s:i, s:i, s:s}", "action", "fold", "queue_id", qid,
                                                 "cores_per_host", cores, "reason", reason), now);
        logmsg("fold-to-admit: %s", reason);
        freen = rm_free_slots(&rm);
        folded = 1;
    }
    return folded;
}

void fold_admit_release(int need, double now)
{
    int freen0 = rm_free_slots(&rm);
    if (need > 0 && freen0 >= need) return; /* the first waiting entry can start with them: keep them for it */
    for (int i = 0; i < FOLD_MAX; i++) {
        if (!folds[i].job || !folds[i].admit) continue;
        struct job *j = jobs_get(&jobs, folds[i].job);
        if (!j || j->state != JOB_RUNNING || j->conn < 0) continue; /* fold_after_sample forgets ended jobs */
        int qid = folds[i].admit, freen = rm_free_slots(&rm);
        char why[300], reason[300];
        if (unfold_job(j, -1, 0, why, sizeof why) != 0) continue; /* not enough free yet: later */
        if (need > 0)
            snprintf(reason, sizeof reason,
                     "the first waiting entry needs %d slot(s), %d free would stay idle: job %d (folded for q%d) "
                     "unfolded to %d core(s)", need, freen, j->id, qid, fold_cores_held(j));
        else
            snprintf(reason, sizeof reason, "no job waits and %d slot(s) were free: job %d (folded for q%d) unfolded to %d core(s)",
                     freen, j->id, qid, fold_cores_held(j));
        jobs_event(j, "fold_to_admit", json_pack("{s:s, s:i, s:s}", "action", "unfold", "queue_id", qid, "reason", reason), now);
        logmsg("fold-to-admit: %s", reason);
    }
}
