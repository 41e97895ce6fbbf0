/* commands.c -- ductiled's requests (see daemon.h and docs/protocol.md):
 * authentication of TCP peers, job registration and monitoring messages,
 * the views (list, slots, status, cost), resizes decided with the resource
 * manager, and commands forwarded to a job with their replies matched back
 * to the client that asked (bounded by FORWARD_TIMEOUT). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/schema.h"
#include "daemon.h"
#include "edge.h"
#include "fold.h"
#include "slurm.h"

struct forward fwds[MAX_FORWARDS];
long long next_job_req = 1;
int draining, shutdown_requested;

struct forward *new_forward(void)
{
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++)
        if (!fwds[f].used) {
            memset(&fwds[f], 0, sizeof fwds[f]);
            fwds[f].used = 1;
            return &fwds[f];
        }
    return NULL;
}

/* A resize ductiled decides itself (I/O policy, global policy): slots from the
 * resource manager, then forwarded like a ductilectl command; nobody waits for
 * the reply (cli: -1 I/O policy, -2 global policy, for finish_forward). */
int forward_own_resize(struct job *j, int delta, long long at, int cli, char *why, size_t wl)
{
    struct forward *f = new_forward();
    if (!f) {
        snprintf(why, wl, "too many commands in flight");
        return -1;
    }
    json_t *args = json_object();
    if (at >= 0) json_object_set_new(args, "at_iteration", json_integer(at));
    int reserved = 0;
    if (delta > 0) {
        int *where = calloc((size_t)delta, sizeof(int));
        if (!where || slurm_make_room(j, delta, why, wl) != 0 || rm_grant(&rm, j->alloc, delta, NULL, where, why, wl) != 0) {
            free(where);
            json_decref(args);
            f->used = 0;
            return -1;
        }
        if (from_hostfile) {
            json_t *h = json_array();
            for (int k = 0; k < delta; k++) json_array_append_new(h, json_string(rm.hosts[where[k]].name));
            json_object_set_new(args, "hosts", h);
        }
        free(where);
        reserved = delta;
        j->pending += delta;
        j->pending_since = wall();
    }
    json_object_set_new(args, "n", json_integer(delta > 0 ? delta : -delta));
    json_object_set_new(args, "job", json_integer(j->id));
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = cli;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    f->reserved = reserved;
    snprintf(f->cmd, sizeof f->cmd, "%s", delta > 0 ? "expand" : "shrink");
    queue_out(j->conn, proto_request(f->job_req, f->cmd, args));
    json_decref(args);
    state_dirty = 1;
    return 0;
}

/* Send `cmd` to job j on behalf of connection ci's request id. */
void forward(int ci, long long id, struct job *j, const char *cmd, json_t *args, int reserved)
{
    struct forward *f = new_forward();
    if (!f) {
        if (reserved) rm_release(&rm, j->alloc, reserved), j->pending -= reserved;
        if (ci >= 0) reply_err(ci, id, PERR_BUSY, "too many commands in flight; try again");
        json_decref(args);
        return;
    }
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = ci;
    f->cli_gen = ci >= 0 ? conns[ci].gen : 0; /* ci -1: ductiled's own command */
    f->cli_req = id;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    f->reserved = reserved;
    snprintf(f->cmd, sizeof f->cmd, "%s", cmd);
    json_object_set_new(args, "job", json_integer(j->id));
    queue_out(j->conn, proto_request(f->job_req, cmd, args));
    json_decref(args);
    if (verbose) logmsg("forwarded %s to job %d", cmd, j->id);
}

void finish_forward(struct forward *f, int ok, json_t *result, const char *code, const char *reason)
{
    struct job *j = jobs_get(&jobs, f->job);
    if (!ok && f->reserved && j) {
        j->pending -= f->reserved;
        if (j->pending < 0) j->pending = 0;
        jobs_reconcile(&jobs, j, wall());
        state_dirty = 1;
    }
    if (!ok && f->cli == -1 && j && strcmp(f->cmd, "revoke") != 0) io_policy_refused(j, f->cmd, reason);
    if (f->cli == -2 && j) gpolicy_done(j, ok, reason); /* a resize of the global policy (policyd.c) */
    if (j) {
        json_t *d = json_pack("{s:s, s:b}", "command", f->cmd, "ok", ok);
        if (!ok) json_object_set_new(d, "reason", json_string(reason ? reason : ""));
        if (ok && json_is_integer(json_object_get(result, "id"))) {
            /* a delayed command the job queued: its id (ductilectl cancel JOB ID) */
            json_object_set(d, "id", json_object_get(result, "id"));
            json_object_set(d, "at_iteration", json_object_get(result, "at_iteration"));
            jobs_queue_add(j, result, f->cmd, f->reserved, f->cli == -1);
        }
        jobs_event(j, "command", d, wall());
    }
    if (f->cli >= 0 && conns[f->cli].kind == C_PEER && conns[f->cli].gen == f->cli_gen) {
        if (ok) {
            json_t *r = result ? json_deep_copy(result) : json_object();
            json_object_set_new(r, "job", json_integer(f->job));
            if (j) json_object_set_new(r, "pending_slots", json_integer(j->pending));
            reply_ok(f->cli, f->cli_req, r);
        } else {
            reply_err(f->cli, f->cli_req, code ? code : PERR_INTERNAL, "job %d: %s", f->job, reason ? reason : "");
        }
    }
    f->used = 0;
}

void revoke_job(struct job *j, const char *what, int command, const char *reason)
{
    if (!j || j->conn < 0) return;
    json_t *a = json_pack("{s:s, s:s}", "what", what, "reason", reason);
    if (command > 0) json_object_set_new(a, "command", json_integer(command));
    forward(-1, 0, j, "revoke", a, 0);
}

/* The job's acknowledgement of a revoke: slots of cancelled expansions go
 * back to the resource manager, a revoked token to the next job waiting. */
static void revoked(struct job *j, const json_t *res)
{
    double now = wall();
    json_t *c = json_object_get(res, "cancelled");
    size_t i;
    json_t *e;
    json_t *ids = json_array();
    int freed = 0, planned = 0;
    json_array_foreach(c, i, e) {
        int id = (int)proto_get_int(e, "id", 0);
        if (id <= 0) continue;
        freed += jobs_queue_cancelled(&jobs, j, id, now, &planned);
        json_array_append_new(ids, json_integer(id));
    }
    /* a cancelled resize of the I/O policy ends its plan (never a plan left busy) */
    if (planned) io_policy_refused(j, "resize", "cancelled by the operator");
    const char *what = proto_get_str(res, "revoked", "?");
    j->io_held = json_is_true(json_object_get(res, "io_held"));
    if ((!strcmp(what, "token") || !strcmp(what, "all")) && iotok.holder == j->id) io_leave(j->id);
    jobs_event(j, "revoked", json_pack("{s:s, s:o, s:i, s:b}", "what", what, "cancelled", ids, "slots_freed", freed,
                                       "io_held", j->io_held), now);
    logmsg("job %d acknowledged the revoke of %s (%d command(s) cancelled, %d slot(s) freed)", j->id, what,
           (int)json_array_size(c), freed);
    state_dirty = 1;
}

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
static void do_resize(int ci, long long id, const char *cmd, const json_t *req)
{
    struct job *j = need_job(ci, id, req, 1);
    if (!j) return;
    if (!j->malleable) {
        reply_err(ci, id, PERR_NOT_SUPPORTED, "job %d cannot be resized: its libductile has no malleability support",
                  j->id);
        return;
    }
    int cur = j->procs + j->pending, delta;
    if (strcmp(cmd, "expand") == 0) delta = (int)proto_get_int(req, "n", 0);
    else if (strcmp(cmd, "shrink") == 0) delta = -(int)proto_get_int(req, "n", 0);
    else delta = (int)proto_get_int(req, "to", cur) - cur;
    if (cur + delta < 1) {
        reply_err(ci, id, PERR_BAD_ARGUMENT, "job %d has %d processes: cannot remove %d", j->id, cur, -delta);
        return;
    }
    if (delta == 0) {
        reply_ok(ci, id, json_pack("{s:i, s:i, s:s}", "job", j->id, "procs", cur, "note", "already at that size"));
        return;
    }
    json_t *args = json_object();
    json_t *at = json_object_get(req, "at_iteration");
    if (at) json_object_set(args, "at_iteration", at);
    int reserved = 0;
    if (delta > 0) {
        json_t *hosts = json_object_get(req, "hosts");
        const char **wanted = NULL;
        if (hosts && json_array_size(hosts) > 0) {
            if ((int)json_array_size(hosts) != delta) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "%d hosts given for %d new processes: give one per process", (int)json_array_size(hosts), delta);
                json_decref(args);
                return;
            }
            wanted = calloc((size_t)delta, sizeof *wanted);
            for (int k = 0; k < delta; k++) wanted[k] = json_string_value(json_array_get(hosts, (size_t)k));
        }
        int *where = calloc((size_t)delta, sizeof(int));
        char reason[768]; /* --slurm-grow: Slurm's answer to a growth beyond the allocation */
        if (!where || (!wanted && slurm_make_room(j, delta, reason, sizeof reason) != 0) ||
            rm_grant(&rm, j->alloc, delta, wanted, where, reason, sizeof reason) != 0) {
            reply_err(ci, id, PERR_NO_SLOTS, "job %d: expansion by %d refused: %s", j->id, delta, where ? reason : "out of memory");
            free(where);
            free(wanted);
            json_decref(args);
            logmsg("refused to expand job %d by %d: %s", j->id, delta, reason);
            return;
        }
        slurm_granted(j, where, delta); /* Slurm: where the new ranks will run */
        reserved = delta;
        j->pending += delta;
        j->pending_since = wall();
        if (from_hostfile || wanted || slurm_enabled()) {
            json_t *h = json_array();
            for (int k = 0; k < delta; k++) json_array_append_new(h, json_string(rm.hosts[where[k]].name));
            json_object_set_new(args, "hosts", h);
        }
        free(where);
        free(wanted);
        json_object_set_new(args, "n", json_integer(delta));
        forward(ci, id, j, "expand", args, reserved);
    } else {
        json_t *ranks = json_object_get(req, "ranks");
        if (ranks && json_array_size(ranks) > 0) {
            if ((int)json_array_size(ranks) != -delta) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "%d ranks given for removing %d processes", (int)json_array_size(ranks), -delta);
                json_decref(args);
                return;
            }
            size_t k;
            json_t *r;
            json_array_foreach(ranks, k, r) {
                if (json_integer_value(r) >= j->procs) {
                    reply_err(ci, id, PERR_BAD_ARGUMENT, "job %d has no rank %lld", j->id, json_integer_value(r));
                    json_decref(args);
                    return;
                }
            }
            json_object_set(args, "ranks", ranks);
        }
        json_object_set_new(args, "n", json_integer(-delta));
        slurm_choose_ranks(j, -delta, args); /* Slurm: ranks that empty hosts, unless given */
        forward(ci, id, j, "shrink", args, 0);
    }
    state_dirty = 1;
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
        if (code) {
            logmsg("refused '%s' from %s: %s", cmd, c->peer, why);
            reply_err(ci, id, code, "%s", why);
            return;
        }
    }
    if (strcmp(cmd, "register") == 0) {
        char reason[300];
        const char *code = edge_register(ci, req, reason, sizeof reason); /* one job per connection, hosts, owner, key */
        if (code) {
            reply_err(ci, id, code, "%s", reason);
            return;
        }
        struct job *prev = jobs_get(&jobs, (int)proto_get_int(req, "job", 0));
        if (draining && !(prev && !strcmp(prev->tag, proto_get_str(req, "tag", "")) && prev->pid == proto_get_int(req, "pid", 0))) {
            reply_err(ci, id, PERR_NOT_ALLOWED, "ductiled is draining: it takes no new jobs");
            return;
        }
        struct job *j = jobs_register(&jobs, req, now, reason, sizeof reason);
        if (!j) {
            reply_err(ci, id, PERR_BAD_REQUEST, "%s", reason);
            return;
        }
        if (j->conn >= 0 && j->conn != ci && conns[j->conn].kind == C_PEER) {
            int o = j->conn;
            logmsg("job %d re-registered from %s: its old connection %s is closed", j->id, c->peer, conns[o].peer);
            conns[o].job = 0;
            j->conn = -1;
            close_conn(o, "replaced by a new connection of the same job");
        }
        j->conn = ci;
        c->job = j->id;
        edge_registered(ci, j, req); /* owner, key, known size; the program's name without control characters */
        slurm_registered(j, req);
        int resumed = proto_get_int(req, "job", 0) == j->id;
        logmsg("job %d %s: %s (tag %s, pid %ld), %d processes", j->id, resumed ? "re-registered" : "registered",
               j->binary, j->tag, j->pid, j->procs);
        json_t *r = json_pack("{s:i, s:b}", "job", j->id, "resumed", resumed);
        if (j->key[0]) json_object_set_new(r, "key", json_string(j->key)); /* a take-over must show it */
        if (j->period > 0) json_object_set_new(r, "period", json_real(j->period));
        if (j->io_held) json_object_set_new(r, "io_held", json_true());
        reply_ok(ci, id, r);
        gpolicy_registered(j, req);
        intake_registered(j);
        io_policy_registered(j);
        save_state();
        return;
    }
    if (!strcmp(cmd, "sample") || !strcmp(cmd, "heartbeat") || !strcmp(cmd, "exit") || !strcmp(cmd, "event")) {
        int jid = (int)proto_get_int(req, "job", 0);
        struct job *j = jobs_get(&jobs, jid);
        if (!j || c->job != jid || j->conn != ci) {
            reply_err(ci, id, PERR_UNKNOWN_JOB, "job %d is not registered on this connection", jid);
            return;
        }
        if (!strcmp(cmd, "event") || !strcmp(cmd, "sample")) { /* sizes and counts checked (edge.c) */
            char why[300];
            const char *code = edge_event(j, cmd, req, why, sizeof why);
            if (code) {
                if (verbose) logmsg("job %d: event refused: %s", jid, why);
                reply_err(ci, id, code, "%s", why);
                return;
            }
        }
        j->last_seen = now;
        if (!strcmp(cmd, "sample")) {
            jobs_sample(&jobs, j, req, now);
            fold_after_sample(j); /* a folded job holds cores, not processes (fold.c) */
            io_policy_sample(j, req);
            gpolicy_sample(j, req);
            state_dirty = 1;
        } else if (!strcmp(cmd, "exit")) {
            int st = (int)proto_get_int(req, "status", 0);
            jobs_exit(&jobs, j, st, now);
            slurm_job_ended(j);
            io_leave(jid);
            io_policy_forget(jid);
            gpolicy_forget(jid);
            logmsg("job %d exited (status %d)", jid, st);
            c->job = 0;
            save_state();
        } else if (!strcmp(cmd, "event") && !strncmp(proto_get_str(req, "kind", ""), "io_", 3)) {
            /* MPI-IO (src/io/): the exclusive-I/O token and the I/O phases */
            const char *kind = proto_get_str(req, "kind", "");
            if (!strcmp(kind, "io_request")) {
                io_request(jid, now);
            } else if (!strcmp(kind, "io_release")) {
                io_released(jid, proto_get_num(json_object_get(req, "details"), "kept_s", -1));
            } else if (!strcmp(kind, "io_phase")) {
                json_t *d = json_object_get(req, "details");
                jobs_event(j, "io_phase", edge_kept_details(d), now);
                io_policy_phase(j, d, now);
                state_dirty = 1;
            }
        } else if (!strcmp(cmd, "event") && !strcmp(proto_get_str(req, "kind", ""), "queue")) {
            /* the job's queue of delayed commands changed (status shows it) */
            if (jobs_queue_set(j, json_object_get(json_object_get(req, "details"), "queued")) != 0) {
                reply_err(ci, id, PERR_BAD_ARGUMENT, "malformed queue of delayed commands");
                return;
            }
        } else if (!strcmp(cmd, "event")) {
            jobs_event(j, proto_get_str(req, "kind", "event"), edge_kept_details(json_object_get(req, "details")), now);
            if (!strcmp(proto_get_str(req, "kind", ""), "resized"))
                io_policy_resized(j, json_object_get(req, "details")), gpolicy_resized(j, json_object_get(req, "details")),
                    jobs_note_departures(j, json_object_get(req, "details"));
            if (!strcmp(proto_get_str(req, "kind", ""), "resized")) fold_job_resized(j);
            slurm_event(j, proto_get_str(req, "kind", ""), json_object_get(req, "details"));
            if (!strcmp(proto_get_str(req, "kind", ""), "resized") &&
                strcmp(proto_get_str(json_object_get(req, "details"), "status", "ok"), "ok") != 0) {
                j->pending = 0;
                jobs_reconcile(&jobs, j, now);
            }
            state_dirty = 1;
        }
        reply_ok(ci, id, json_object());
        return;
    }
    if (!strcmp(cmd, "list")) {
        json_t *a = json_array();
        for (int k = 0; k < jobs.n; k++) json_array_append_new(a, jobs_summary(&jobs, jobs.v[k], now));
        reply_ok(ci, id, json_pack("{s:o, s:o, s:b, s:s}", "jobs", a, "slots", jobs_slots(&jobs), "draining", draining,
                                   "version", PACKAGE_VERSION));
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
        json_t *sv = jobs_slots(&jobs), *sl = slurm_view();
        if (sl) json_object_set_new(sv, "slurm", sl); /* hosts of the Slurm allocation and their states */
        reply_ok(ci, id, sv);
        return;
    }
    if (!strcmp(cmd, "status")) {
        struct job *j = need_job(ci, id, req, 0);
        if (!j) return;
        json_t *st = jobs_status(&jobs, j, (int)proto_get_int(req, "history", 20), now);
        fold_status(j, st); /* cores held (fold.c) */
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
            size_t k;
            json_t *e;
            int known = 0;
            json_array_foreach(j->queued, k, e) known |= proto_get_int(e, "id", 0) == qid;
            if (!known) {
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
        forward(ci, id, j, "revoke", a, 0);
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
        forward(ci, id, j, cmd, args, 0);
        return;
    }
    if (!strcmp(cmd, "submit") || !strcmp(cmd, "queue")) {
        intake_request(ci, id, cmd, req); /* the job queue (intake.c) */
        return;
    }
    if (!strcmp(cmd, "fold") || !strcmp(cmd, "unfold")) {
        fold_request(ci, id, cmd, req); /* process folding (fold.c) */
        return;
    }
    reply_err(ci, id, PERR_UNKNOWN_COMMAND, "'%s' is not a command ductiled serves", cmd);
}

void handle_reply(int ci, struct proto_msg *m)
{
    for (size_t f = 0; f < sizeof fwds / sizeof fwds[0]; f++) {
        if (!fwds[f].used || fwds[f].job_req != m->id) continue;
        struct job *j = jobs_get(&jobs, fwds[f].job);
        if (!j || j->conn != ci) continue;
        char why[300];
        if (m->ok && !json_object_get(m->root, "result")) json_object_set_new(m->root, "result", json_object());
        if (m->ok && schema_check_result(fwds[f].cmd, json_object_get(m->root, "result"), why, sizeof why) != 0) {
            /* what the job answered is checked like any message (schema.c) */
            logmsg("job %d: malformed reply to %s: %s", j->id, fwds[f].cmd, why);
            m->ok = 0;
            json_object_set_new(m->root, "error", json_string(PERR_BAD_REQUEST));
            json_object_set_new(m->root, "reason", json_string(why));
        }
        fold_reply(j, fwds[f].cmd, m->ok); /* a refused fold gives the cores back to the job (fold.c) */
        if (m->ok) {
            if (!strcmp(fwds[f].cmd, "io"))
                j->io_held = json_is_true(json_object_get(json_object_get(m->root, "result"), "io_held"));
            if (!strcmp(fwds[f].cmd, "revoke")) revoked(j, json_object_get(m->root, "result"));
            finish_forward(&fwds[f], 1, json_object_get(m->root, "result"), NULL, NULL);
        } else {
            finish_forward(&fwds[f], 0, NULL, proto_get_str(m->root, "error", PERR_INTERNAL),
                           proto_get_str(m->root, "reason", ""));
        }
        return;
    }
    /* acks of nothing we wait for (e.g. hello): ignored */
}
