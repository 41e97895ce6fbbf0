/* requests.c -- what clients ask ductiled (see daemon.h and
 * docs/protocol.md): authentication of TCP peers, the views (list, slots,
 * status, events, cost), resizes decided with the resource manager,
 * cancel, commands forwarded to a job (io, period), drain and shutdown; a
 * job's own messages go to jobmsg.c, a part's requests (submit, queue,
 * fold, ...) to the part that serves them (core.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/rankset.h"
#include "daemon.h"
#include "edge.h"

int draining, shutdown_requested;

static struct job *need_job(int ci, long long id, const json_t *req, int running)
{
    int jid = (int)proto_get_int(req, "job", 0);
    struct job *j = jobs_get(&jobs, jid);
    if (!j) {
        reply_err(ci, id, PERR_UNKNOWN_JOB, "no job %d (ductilectl list shows the jobs)", jid);
        return NULL;
    }
    if (running && (j->state != JOB_RUNNING || j->conn < 0)) {
        reply_err(ci, id, PERR_JOB_UNREACHABLE, "job %d is %s", jid, job_state_name(j->state));
        return NULL;
    }
    return j;
}

/* expand / shrink / resize: resource manager decision, then forward. */
/* A resize command refused here: counted (metrics.c), then answered. */
#define refuse(j, cmd, ci, id, code, ...) \
    do { \
        core_note((j), "command_refused", (cmd), (code), 1); \
        reply_err((ci), (id), (code), __VA_ARGS__); \
    } while (0)

static void do_resize(int ci, long long id, const char *cmd, const json_t *req)
{
    struct job *j = need_job(ci, id, req, 1);
    if (!j) return;
    if (!j->malleable) {
        refuse(j, cmd, ci, id, PERR_NOT_SUPPORTED, "job %d cannot be resized: its libductile has no malleability support",
                  j->id);
        return;
    }
    /* an unmodified program never reaches a control point: a command would wait there for good, its
     * slots reserved (a malleable program's first samples may come before its first control point:
     * three samples and 5 s after its registration) */
    if (!j->cp_seen && j->samples >= 3 && j->last_seen - j->registered >= 5.0) {
        refuse(j, cmd, ci, id, PERR_NOT_SUPPORTED,
                  "job %d cannot be resized: in %.0f s it reached no control point (EMPI_Monitor_end, "
                  "ductile_control_point, MAM_Checkpoint); a program without them keeps its size",
                  j->id, j->last_seen - j->registered);
        return;
    }
    int cur = j->procs + j->pending, delta;
    if (strcmp(cmd, "expand") == 0) delta = (int)proto_get_int(req, "n", 0);
    else if (strcmp(cmd, "shrink") == 0) delta = -(int)proto_get_int(req, "n", 0);
    else delta = (int)proto_get_int(req, "to", cur) - cur;
    if (cur + delta < 1) {
        refuse(j, cmd, ci, id, PERR_BAD_ARGUMENT, "job %d has %d processes: cannot remove %d", j->id, cur, -delta);
        return;
    }
    if (delta == 0) {
        reply_ok(ci, id, json_pack("{s:i, s:i, s:s}", "job", j->id, "procs", cur, "note", "already at that size"));
        return;
    }
    json_t *args = json_object();
    json_t *at = json_object_get(req, "at_iteration");
    if (at) json_object_set(args, "at_iteration", at);
    char reason[768]; /* --slurm-grow: Slurm's answer to a growth beyond the allocation */
    const char **wanted = NULL;
    if (delta > 0) {
        json_t *hosts = json_object_get(req, "hosts");
        if (hosts && json_array_size(hosts) > 0) {
            if ((int)json_array_size(hosts) != delta) {
                refuse(j, cmd, ci, id, PERR_BAD_ARGUMENT, "%d hosts given for %d new processes: give one per process", (int)json_array_size(hosts), delta);
                json_decref(args);
                return;
            }
            wanted = calloc((size_t)delta, sizeof *wanted);
            for (int k = 0; wanted && k < delta; k++) wanted[k] = json_string_value(json_array_get(hosts, (size_t)k));
        }
    } else {
        json_t *ranks = json_object_get(req, "ranks"); /* a rank set: the schema made an array one, each rank once */
        if (ranks && json_string_length(ranks) > 0) {
            char w[200];
            long n = rankset_each(json_string_value(ranks), json_string_length(ranks), j->procs, NULL, NULL, w, sizeof w);
            if (n < 0) {
                refuse(j, cmd, ci, id, PERR_BAD_ARGUMENT, "job %d (%d processes): %s", j->id, j->procs, w);
                json_decref(args);
                return;
            }
            if (n != -delta) {
                refuse(j, cmd, ci, id, PERR_BAD_ARGUMENT, "%ld ranks given for removing %d processes", n, -delta);
                json_decref(args);
                return;
            }
            json_object_set(args, "ranks", ranks);
        }
    }
    if (forward_resize(ci, id, NULL, j, delta > 0 ? "expand" : "shrink", delta > 0 ? delta : -delta, args, wanted, reason,
                       sizeof reason) != 0) {
        refuse(j, cmd, ci, id, delta > 0 ? PERR_NO_SLOTS : PERR_BUSY, "job %d: %s by %d refused: %s", j->id,
                  delta > 0 ? "expansion" : "shrink", delta > 0 ? delta : -delta, reason);
        logmsg("refused to %s job %d by %d: %s", delta > 0 ? "expand" : "shrink", j->id, delta > 0 ? delta : -delta, reason);
    }
    free(wanted);
}

void handle_request(int ci, struct proto_msg *m)
{
    struct conn *c = &conns[ci];
    const char *cmd = m->cmd;
    long long id = m->id;
    json_t *req = m->root;
    double now = wall();
    if (!c->authed || (!strcmp(cmd, "auth") && c->nonce[0] && !c->tcp)) {
        if (strcmp(cmd, "auth") != 0) {
            reply_err(ci, id, PERR_AUTH_REQUIRED, "authenticate first (TCP connections need the shared secret)");
            logmsg("unauthenticated '%s' from %s: dropped", cmd, c->peer);
            c->closing = 1;
            return;
        }
        const char *nc = proto_get_str(req, "nonce", "");
        if (!have_secret || !auth_verify(&secret, "client", c->nonce, nc, proto_get_str(req, "mac", ""))) {
            reply_err(ci, id, PERR_AUTH_FAILED, "authentication failed");
            logmsg("authentication failed from %s: dropped", c->peer);
            c->closing = 1;
            return;
        }
        char mac[AUTH_MAC_HEX + 1];
        if (auth_mac(&secret, "server", nc, c->nonce, mac) != 0) {
            reply_err(ci, id, PERR_INTERNAL, "cannot compute the authentication code");
            c->closing = 1;
            return;
        }
        c->authed = 1;
        c->lb.max = PROTO_MAX_MSG; /* authenticated: messages up to 1 MiB (a job's rank lists) */
        if (verbose) logmsg("%s authenticated", c->peer);
        reply_ok(ci, id, json_pack("{s:s}", "mac", mac));
        /* from now on every message each way carries a MAC (seal.h) */
        if (seal_start(&c->seal, &secret, 1, c->nonce, nc) != 0) {
            logmsg("cannot derive the stream keys for %s: connection closed", c->peer);
            c->closing = 1;
        }
        c->nonce[0] = '\0'; /* one answer per challenge */
        return;
    }
    if (strcmp(cmd, "auth") == 0) {
        reply_ok(ci, id, json_object());
        return;
    }
    if (strcmp(cmd, "hello") == 0) {
        reply_err(ci, id, PERR_BAD_REQUEST, "hello is sent by the server");
        return;
    }
    {   /* who may do what (edge.c): a job on itself, an operator on its jobs */
        char why[300];
        const char *code = edge_authority(ci, cmd, req, why, sizeof why);
        if (!code) code = edge_resize(cmd, req, why, sizeof why); /* expand --hosts: the rm's names */
        if (code) {
            logmsg("refused '%s' from %s: %s", cmd, c->peer, why);
            reply_err(ci, id, code, "%s", why);
            return;
        }
    }
    if (!strcmp(cmd, "register")) {
        job_register(ci, id, req);
        return;
    }
    if (!strcmp(cmd, "sample") || !strcmp(cmd, "heartbeat") || !strcmp(cmd, "exit") || !strcmp(cmd, "event")) {
        job_message(ci, id, cmd, req);
        return;
    }
    if (!strcmp(cmd, "list")) {
        /* the jobs as text, written directly (jobs_list.c); brief: only ductilectl's table's fields */
        size_t na = 0;
        char *a = jobs_list_text(&jobs, now, json_is_true(json_object_get(req, "brief")), &na);
        json_t *rest = json_pack("{s:o, s:b, s:s}", "slots", jobs_slots(&jobs), "draining", draining, "version", PACKAGE_VERSION);
        char *rt = rest ? json_dumps(rest, JSON_COMPACT) : NULL;
        json_decref(rest);
        char *res = NULL;
        size_t nr = 0;
        if (a && rt && rt[0] == '{' && (res = malloc(na + strlen(rt) + 16)))
            nr = (size_t)sprintf(res, "{\"jobs\":%s,%s", a, rt + 1);
        free(a);
        free(rt);
        if (!res) {
            reply_err(ci, id, PERR_INTERNAL, "out of memory for the list");
            return;
        }
        char *line = proto_reply_ok_text(id, res, nr);
        free(res);
        if (!line) {
            reply_err(ci, id, PERR_TOO_LARGE, "the list would be larger than %d bytes: ask for less (brief)", PROTO_MAX_REPLY);
            return;
        }
        queue_out(ci, line);
        return;
    }
    if (!strcmp(cmd, "events")) {
        struct job *j = need_job(ci, id, req, 0);
        if (!j) return;
        double since = proto_get_num(req, "since", 0);
        long long max = proto_get_int(req, "max", 4096);
        json_t *a = json_array();
        size_t k, n = json_array_size(j->events);
        for (k = 0; k < n; k++) {
            json_t *e = json_array_get(j->events, k);
            if (proto_get_num(e, "t", 0) > since) json_array_append(a, e);
        }
        while ((long long)json_array_size(a) > max) json_array_remove(a, 0);
        reply_ok(ci, id, json_pack("{s:i, s:o}", "job", j->id, "events", a));
        return;
    }
    if (!strcmp(cmd, "drain")) {
        draining = !json_is_false(json_object_get(req, "on"));
        logmsg("%s by %s", draining ? "draining (no new jobs)" : "drain ended", c->peer);
        reply_ok(ci, id, json_pack("{s:b}", "draining", draining));
        return;
    }
    if (!strcmp(cmd, "shutdown")) {
        if (c->tcp) {
            reply_err(ci, id, PERR_NOT_ALLOWED, "shutdown is accepted only on the local Unix socket");
            return;
        }
        logmsg("shutdown requested by %s", c->peer);
        int running = 0;
        for (int k = 0; k < jobs.n; k++) running += jobs.v[k]->state == JOB_RUNNING;
        reply_ok(ci, id, json_pack("{s:i}", "running_jobs", running));
        shutdown_requested = 1;
        return;
    }
    if (!strcmp(cmd, "slots")) {
        json_t *sv = jobs_slots(&jobs);
        core_slots(sv); /* the parts' views (Slurm: the allocation's hosts and their states) */
        reply_ok(ci, id, sv);
        return;
    }
    if (!strcmp(cmd, "status")) {
        struct job *j = need_job(ci, id, req, 0);
        if (!j) return;
        json_t *st = jobs_status(&jobs, j, (int)proto_get_int(req, "history", 20), now);
        core_status(j, st); /* the parts' views (fold: cores held) */
        reply_ok(ci, id, st);
        return;
    }
    if (!strcmp(cmd, "cost")) {
        struct job *j = need_job(ci, id, req, 0);
        if (j) reply_ok(ci, id, jobs_cost(&jobs, j, (int)proto_get_int(req, "to", 1)));
        return;
    }
    if (!strcmp(cmd, "expand") || !strcmp(cmd, "shrink") || !strcmp(cmd, "resize")) {
        if (!json_object_get(req, "job")) {
            reply_err(ci, id, PERR_BAD_ARGUMENT, "%s: missing 'job'", cmd);
            return;
        }
        do_resize(ci, id, cmd, req);
        return;
    }
    if (!strcmp(cmd, "cancel")) {
        /* operator: cancel one delayed command (by id), or all of them */
        struct job *j = need_job(ci, id, req, 1);
        if (!j) return;
        int qid = (int)proto_get_int(req, "command", 0);
        if (qid > 0) {
            struct jcmd *qc = jobs_cmd_find(j, qid);
            if (!qc || qc->state != CMD_QUEUED) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "job %d has no queued command %d (ductilectl status %d lists them)",
                          j->id, qid, j->id);
                return;
            }
        }
        char why[160];
        snprintf(why, sizeof why, "cancelled by the operator (%s)", c->peer);
        json_t *a = json_pack("{s:s, s:s}", "what", qid > 0 ? "command" : "all", "reason", why);
        if (qid > 0) json_object_set_new(a, "command", json_integer(qid));
        if (qid > 0) logmsg("job %d: command %d %s", j->id, qid, why);
        else logmsg("job %d: every queued command, the I/O hold and the I/O token %s", j->id, why);
        core_send(ci, id, j, "revoke", a);
        return;
    }
    if (!strcmp(cmd, "io") || !strcmp(cmd, "period")) {
        if (!json_object_get(req, "job")) {
            reply_err(ci, id, PERR_BAD_ARGUMENT, "%s: missing 'job'", cmd);
            return;
        }
        if (!strcmp(cmd, "io") && !strcmp(proto_get_str(req, "action", ""), "grant")) {
            reply_err(ci, id, PERR_NOT_ALLOWED, "io: the exclusive-I/O token is ductiled's to grant (hold or release)");
            return;
        }
        struct job *j = need_job(ci, id, req, 1);
        if (!j) return;
        json_t *args = json_deep_copy(req);
        json_object_del(args, "v");
        json_object_del(args, "id");
        json_object_del(args, "cmd");
        json_object_del(args, "user");
        if (!strcmp(cmd, "period")) j->period = proto_get_num(req, "seconds", j->period);
        core_send(ci, id, j, cmd, args);
        return;
    }
    if (core_serve(ci, id, cmd, req)) return; /* a part's request (the job queue, folding, ...) */
    reply_err(ci, id, PERR_UNKNOWN_COMMAND, "'%s' is not a command ductiled serves", cmd);
}

int core_peer_local(int ci) { return ci >= 0 && ci < MAX_CONNS && conns[ci].kind == C_PEER && !conns[ci].tcp; }
