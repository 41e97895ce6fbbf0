/* fold.c -- ductiled's part for process folding (docs/folding.md): a
 * folded job keeps its processes but holds fewer cores.  The cores per host
 * a job is folded to live in the job's picture (j->fold_cores, jobs_place.c:
 * its running processes hold at most that many slots per host); here
 * `ductilectl fold/unfold`, the job's answers (a refused fold gives the
 * cores back), the fold's end at a resize, the cores in status, and
 * --fold-to-admit: when the first waiting job of the queue lacks cores, fold
 * running jobs to half their cores per host (at least 1), each decision a
 * "fold_to_admit" event; unfold them when their cores would otherwise idle
 * (the core asks every part, core_admit). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define FOLD_MAX 256

static int fold_to_admit;
/* jobs folded by --fold-to-admit, and the queue entry each was folded for */
static struct {
    int job, qid;
} admitted[FOLD_MAX];

static int admit_of(int jid)
{
    for (int i = 0; i < FOLD_MAX; i++)
        if (admitted[i].job == jid && jid) return admitted[i].qid;
    return 0;
}

static void admit_set(int jid, int qid)
{
    for (int i = 0; i < FOLD_MAX; i++)
        if (admitted[i].job == jid || (!admitted[i].job && qid)) {
            admitted[i].job = qid ? jid : 0;
            admitted[i].qid = qid;
            return;
        }
}

/* Slots job j would hold folded to `cores` per host (0: unfolded). */
static int held_at(const struct job *j, int cores)
{
    int n = 0;
    for (int i = 0; i < rm.nhosts; i++) {
        int run = jobs_procs_on(j, i);
        n += (cores > 0 && run > cores ? cores : run) + j->parked_on[i] + jobs_reserved_on(j, i);
    }
    return n;
}

static int fold_freed(const struct job *j, int cores)
{
    int n = rm_alloc_total(&rm, j->alloc) - held_at(j, cores);
    return n > 0 ? n : 0;
}

static int fold_cores_held(const struct job *j) { return rm_alloc_total(&rm, j->alloc); }

/* Send cmd to job j for client ci, or for ductiled itself (ci < 0: nobody waits). */
static void send_cmd(int ci, long long id, struct job *j, const char *cmd, json_t *args)
{
    core_send(ci, id, j, cmd, args);
}

static int usable(const struct job *j, char *reason, size_t rlen)
{
    if (j->state != JOB_RUNNING || j->conn < 0) {
        snprintf(reason, rlen, "job %d is %s", j->id, job_state_name(j->state));
        return 0;
    }
    return 1;
}

static int fold_job(struct job *j, int cores, int ci, long long id, char *reason, size_t rlen)
{
    if (!usable(j, reason, rlen)) return -1;
    if (cores < 1) {
        snprintf(reason, rlen, "cannot fold job %d to %d cores per host", j->id, cores);
        return -1;
    }
    /* the job's own model holds the fold: its running processes hold at most `cores` slots per host */
    j->fold_cores = cores;
    jobs_place(&jobs, j);
    logmsg("job %d folded to %d core(s) per host: holds %d slot(s)", j->id, cores, fold_cores_held(j));
    jobs_event(j, "fold", json_pack("{s:i, s:i}", "cores_per_host", cores, "cores", fold_cores_held(j)), wall());
    state_dirty = 1;
    send_cmd(ci, id, j, "fold", json_pack("{s:i}", "cores", cores));
    return 0;
}

static int unfold_job(struct job *j, int ci, long long id, char *reason, size_t rlen)
{
    if (!usable(j, reason, rlen)) return -1;
    if (j->fold_cores > 0) {
        for (int i = 0; i < rm.nhosts; i++) {
            int run = jobs_procs_on(j, i), need = run - (run > j->fold_cores ? j->fold_cores : run);
            if (need > 0 && rm.hosts[i].used + need > rm.hosts[i].slots) {
                snprintf(reason, rlen, "host '%s' has %d free slot(s), job %d needs %d to unfold", rm.hosts[i].name,
                         rm.hosts[i].slots - rm.hosts[i].used, j->id, need);
                return -1;
            }
        }
        j->fold_cores = 0;
        jobs_place(&jobs, j);
        admit_set(j->id, 0);
        logmsg("job %d unfolded: holds %d slot(s)", j->id, fold_cores_held(j));
        jobs_event(j, "unfold", json_pack("{s:i}", "cores", fold_cores_held(j)), wall());
        state_dirty = 1;
    }
    send_cmd(ci, id, j, "unfold", json_object());
    return 0;
}

static void fold_request(int ci, long long id, const char *cmd, const json_t *req)
{
    int jid = (int)proto_get_int(req, "job", 0);
    struct job *j = jobs_get(&jobs, jid);
    if (!j) {
        reply_err(ci, id, PERR_UNKNOWN_JOB, "no job %d (ductilectl list shows the jobs)", jid);
        return;
    }
    char reason[600];
    int rc = !strcmp(cmd, "fold") ? fold_job(j, (int)proto_get_int(req, "cores", 0), ci, id, reason, sizeof reason)
                                  : unfold_job(j, ci, id, reason, sizeof reason);
    if (rc != 0) {
        int busy = j->state == JOB_RUNNING && j->conn >= 0;
        reply_err(ci, id, busy ? (strcmp(cmd, "fold") ? PERR_NO_SLOTS : PERR_BAD_ARGUMENT) : PERR_JOB_UNREACHABLE,
                  "%s", reason);
    }
}

/* A committed resize ended the fold in the job (jobs_resized cleared fold_cores). */
static void fold_event(struct job *j, const char *kind, const json_t *d, double now)
{
    (void)d, (void)now;
    if (strcmp(kind, "resized") != 0 || j->fold_cores || !admit_of(j->id)) return;
    admit_set(j->id, 0);
    logmsg("job %d resized: its fold ended", j->id);
}

/* The job's answer to fold or unfold: a refusal undoes the accounting; the
 * client hears the job's hosts and most ranks on one host as ductiled knows
 * them now (the job's own figures are those of its last MPI call, stale
 * right after a resize). */
static void fold_answered(struct job *j, const char *cmd, int ok, json_t *r, const char *reason)
{
    (void)reason;
    if (strcmp(cmd, "fold") != 0 && strcmp(cmd, "unfold") != 0) return;
    if (!ok && !strcmp(cmd, "fold") && j->fold_cores) {
        j->fold_cores = 0;
        jobs_place(&jobs, j);
        admit_set(j->id, 0);
        logmsg("job %d refused to fold: its slots are counted again", j->id);
        return;
    }
    if (!r) return;
    int hosts = 0, most = 0;
    for (int i = 0; i < rm.nhosts; i++) {
        int n = jobs_procs_on(j, i);
        hosts += n > 0;
        if (n > most) most = n;
    }
    json_object_set_new(r, "hosts", json_integer(hosts));
    json_object_set_new(r, "host_ranks", json_integer(most));
    json_object_set_new(r, "cores_held", json_integer(fold_cores_held(j)));
}

/* "cores" (held) and "fold_cores_per_host" (0: not folded) in status and list */
static void fold_status(const struct job *j, json_t *o)
{
    json_object_set_new(o, "cores", json_integer(fold_cores_held(j)));
    json_object_set_new(o, "fold_cores_per_host", json_integer(j->fold_cores));
}

/* ---- --fold-to-admit: fold running jobs so that a queued job starts */

/* Half the most processes the job has on one host, at least 1. */
static int half_cores(const struct job *j)
{
    int most = 0;
    for (int i = 0; i < rm.nhosts; i++)
        if (jobs_procs_on(j, i) > most) most = jobs_procs_on(j, i);
    return most / 2 > 1 ? most / 2 : 1;
}

static int fold_admit(int need, int qid, double now)
{
    int freen = rm_free_slots(&rm), can = 0;
    if (!fold_to_admit || freen >= need) return 0;
    for (int k = 0; k < jobs.n; k++) {
        struct job *j = jobs.v[k];
        if (j->state == JOB_RUNNING && j->conn >= 0 && !j->fold_cores) can += fold_freed(j, half_cores(j));
    }
    if (freen + can < need) return 0; /* folding every job would not be enough: fold none */
    int folded = 0;
    for (int k = 0; k < jobs.n && freen < need; k++) {
        struct job *j = jobs.v[k];
        if (j->state != JOB_RUNNING || j->conn < 0 || j->fold_cores) continue;
        int cores = half_cores(j), gain = fold_freed(j, cores);
        if (gain <= 0) continue;
        char reason[600], why[600];
        snprintf(reason, sizeof reason,
                 "queue entry q%d needs %d free slot(s), %d free: job %d folded to %d core(s) per host frees %d", qid, need,
                 freen, j->id, cores, gain);
        if (fold_job(j, cores, -1, 0, why, sizeof why) != 0) continue;
        admit_set(j->id, qid);
        jobs_event(j, "fold_to_admit", json_pack("{s:s, s:i, s:i, s:s}", "action", "fold", "queue_id", qid,
                                                 "cores_per_host", cores, "reason", reason), now);
        logmsg("fold-to-admit: %s", reason);
        freen = rm_free_slots(&rm);
        folded = 1;
    }
    return folded;
}

static void fold_admit_release(int need, double now)
{
    int freen0 = rm_free_slots(&rm);
    if (need > 0 && freen0 >= need) return; /* the first waiting entry can start with them: keep them for it */
    for (int i = 0; i < FOLD_MAX; i++) {
        if (!admitted[i].job) continue;
        struct job *j = jobs_get(&jobs, admitted[i].job);
        if (!j || j->state != JOB_RUNNING || j->conn < 0 || !j->fold_cores) { /* ended, or its fold ended */
            if (!j || j->state != JOB_RUNNING || !j->fold_cores) admitted[i].job = 0;
            continue;
        }
        int qid = admitted[i].qid, freen = rm_free_slots(&rm);
        char why[600], reason[600];
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

static int set_fold_to_admit(const char *arg, char *err, size_t errlen)
{
    (void)arg, (void)err, (void)errlen;
    fold_to_admit = 1;
    return 0;
}

static const struct dpart_option fold_options[] = {
    {"fold-to-admit", NULL,
     "when a submitted job cannot start for lack of free cores, fold running\njobs to half their cores per host (at least 1); "
     "unfold them when their\ncores would idle (docs/folding.md; run such jobs unbound)",
     set_fold_to_admit},
    {NULL, NULL, NULL, NULL},
};
static const struct dpart_request fold_requests[] = {{"fold", fold_request}, {"unfold", fold_request}, {NULL, NULL}};
static const struct dpart fold_part = {.name = "fold",
                                       .options = fold_options,
                                       .requests = fold_requests,
                                       .event = fold_event,
                                       .answered = fold_answered,
                                       .admit = fold_admit,
                                       .admit_release = fold_admit_release,
                                       .status = fold_status};
DUCTILED_PART(fold_part);
