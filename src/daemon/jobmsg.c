/* jobmsg.c -- what jobs say to ductiled (see daemon.h and docs/protocol.md):
 * the registration (a new job, or the same job back: a new connection, a
 * restarted daemon, a new rank 0), samples, events, the hand-over of a job
 * whose rank 0 left, the note of a job that reconnects, and its exit.  The
 * job's picture is brought up to date first (jobs*.c); then every part
 * hears it (core.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "edge.h"

/* Expansions in the job's queue that ductiled did not know (sent just before a restart whose state
 * file missed them) hold no slots: reserve them again now, where the command named hosts there, or
 * say why not (the slots were taken meanwhile: the operator sees it in the log and in status). */
static void reserve_again(struct job *j)
{
    for (int k = 0; k < j->ncmds; k++) {
        struct jcmd *c = &j->cmds[k];
        int need = !strcmp(c->op, "expand") ? c->n : !strcmp(c->op, "resize") && c->n > j->procs ? c->n - j->procs : 0;
        if (c->state != CMD_QUEUED || c->nres > 0 || need <= 0) continue;
        char why[256] = "";
        const char **wanted = NULL;
        int nw = 0;
        char *hosts = strdup(!strcmp(c->op, "expand") && c->list ? c->list : "");
        if (!hosts) continue;
        if (hosts[0] && (wanted = calloc((size_t)need + 1, sizeof *wanted)))
            for (char *save = NULL, *h = strtok_r(hosts, ";", &save); h && nw < need; h = strtok_r(NULL, ";", &save))
                wanted[nw++] = h;
        int *where = calloc((size_t)need, sizeof(int));
        if (where && (!hosts[0] || wanted) && rm_grant(&rm, j->alloc, need, nw == need ? wanted : NULL, where, why, sizeof why) == 0) {
            c->res = where;
            c->nres = need;
            logmsg("job %d: command %d (%s %d): %d slot%s reserved again (it was sent before ductiled restarted)", j->id,
                   c->id, c->op, c->n, need, need == 1 ? "" : "s");
        } else {
            free(where);
            logmsg("job %d: warning: command %d (%s %d) has no reserved slots after ductiled restarted: %s", j->id, c->id,
                   c->op, c->n, why[0] ? why : "out of memory");
        }
        free(wanted);
        free(hosts);
    }
}

void job_register(int ci, long long id, json_t *req)
{
    struct conn *c = &conns[ci];
    double now = wall();
    char reason[300];
    const char *code = edge_register(ci, req, reason, sizeof reason); /* one job per connection, hosts, owner, key */
    if (code) {
        reply_err(ci, id, code, "%s", reason);
        return;
    }
    struct job *prev = jobs_get(&jobs, (int)proto_get_int(req, "job", 0));
    if (draining && !(prev && !strcmp(prev->tag, proto_get_str(req, "tag", "")) && prev->pid == proto_get_int(req, "pid", 0))) {
        logmsg("registration of %.64s (pid %lld) from %s refused: draining", proto_get_str(req, "tag", "?"),
               proto_get_int(req, "pid", 0), c->peer);
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
    int resumed = proto_get_int(req, "job", 0) == j->id;
    /* the size the job says it has now (a resumed job's picture catches up with its events) */
    logmsg("job %d %s: %s (tag %s, pid %ld), %lld processes", j->id, resumed ? "re-registered" : "registered", j->binary,
           j->tag, j->pid, proto_get_int(req, "procs", j->procs));
    json_t *r = json_pack("{s:i, s:b}", "job", j->id, "resumed", resumed);
    if (j->key[0]) json_object_set_new(r, "key", json_string(j->key)); /* a take-over must show it */
    if (j->period > 0) json_object_set_new(r, "period", json_real(j->period));
    if (j->io_held) json_object_set_new(r, "io_held", json_true());
    reply_ok(ci, id, r);
    core_on_registered(j, req);
    save_state();
}

/* A job's controller moves to its new rank 0 (event "handover"): this
 * connection is no longer the job's (its close is no crash, an exit from it
 * is refused); the job waits as disconnected, holding its slots, until the
 * new rank 0 registers (else it is lost after RESTORE_GRACE); commands in
 * flight are answered; the parts hear that it left (the I/O token goes back:
 * the new rank 0 asks again). */
static void handed_over(int ci, struct job *j, const json_t *d, double now)
{
    conns[ci].job = 0;
    conns[ci].handed = j->id; /* no operator's powers for the old rank 0's connection (edge.c) */
    jobs_disconnected(&jobs, j, now, "its rank 0 left the world; the new rank 0 registers");
    for (size_t f = 0; f < MAX_FORWARDS; f++)
        if (fwds[f].used && fwds[f].job == j->id)
            finish_forward(&fwds[f], 0, NULL, PERR_JOB_UNREACHABLE,
                           "the job's rank 0 left the world and its controller is moving to the new rank 0; try again");
    jobs_event(j, "handover", json_pack("{s:I, s:s}", "from_pid", (json_int_t)proto_get_int(d, "pid", 0), "reason",
                                        proto_get_str(d, "reason", "")), now);
    core_on_left(j);
    logmsg("job %d: rank 0 (pid %lld) left the world; its controller moves to the new rank 0 (waiting for it to register)",
           j->id, proto_get_int(d, "pid", 0));
    state_dirty = 1;
}

/* An event: the job's picture first (where its processes are, its command
 * done), then the parts. */
static void job_event(struct job *j, const char *kind, const json_t *det, double now)
{
    if (strncmp(kind, "io_", 3) != 0 || !strcmp(kind, "io_phase")) /* token requests are not history */
        jobs_event(j, kind, edge_kept_details(det), now); /* bounded (edge.c) */
    if (!strcmp(kind, "resized")) jobs_resized(&jobs, j, det, now);
    else if (!strcmp(kind, "exited")) jobs_parked_exited(&jobs, j, det, now);
    core_on_event(j, kind, det, now);
    state_dirty = 1;
}

void job_message(int ci, long long id, const char *cmd, const json_t *req)
{
    struct conn *c = &conns[ci];
    double now = wall();
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
    const char *kind = proto_get_str(req, "kind", "event");
    const json_t *det = json_object_get(req, "details");
    if (!strcmp(cmd, "sample")) {
        jobs_sample(&jobs, j, req, now);
        core_on_sample(j, req);
        state_samples = 1; /* samples alone: the state file every STATE_SAMPLES_PERIOD s */
    } else if (!strcmp(cmd, "exit")) {
        int st = (int)proto_get_int(req, "status", 0);
        jobs_exit(&jobs, j, st, now);
        core_on_left(j);
        logmsg("job %d exited (status %d)", jid, st);
        c->job = 0;
        save_state();
    } else if (!strcmp(cmd, "event") && !strcmp(kind, "handover")) {
        /* the job's rank 0 left the world; its controller moves to the new rank 0,
         * which registers as this job: the job keeps its slots meanwhile */
        reply_ok(ci, id, json_object());
        handed_over(ci, j, det, now);
        return;
    } else if (!strcmp(cmd, "event") && !strcmp(kind, "reconnect")) {
        /* the job took this daemon for silent: it closes this connection and registers again */
        c->parting = 1;
        logmsg("job %d: %s", jid, proto_get_str(det, "reason", "reconnects"));
    } else if (!strcmp(cmd, "event") && !strcmp(kind, "queue")) {
        /* the job's queue of delayed commands changed (status shows it) */
        if (jobs_queue_set(&jobs, j, json_object_get(det, "queued"), now) != 0) {
            reply_err(ci, id, PERR_BAD_ARGUMENT, "malformed queue of delayed commands");
            return;
        }
        reserve_again(j);
        jobs_place(&jobs, j);
    } else if (!strcmp(cmd, "event")) {
        job_event(j, kind, det, now);
    }
    reply_ok(ci, id, json_object());
}

/* The job's connection ended (server.c): it crashed, or it said it comes back. */
void job_connection_closed(int ci, struct job *j)
{
    int was_running = j->state == JOB_RUNNING;
    if (conns[ci].parting) {
        /* it gave up on a silent daemon and reconnects: it keeps its slots meanwhile */
        jobs_disconnected(&jobs, j, wall(), "the job took ductiled for silent and reconnects");
        logmsg("job %d (%s) left its connection to reconnect: disconnected, its slots held for %.0f s", j->id, j->tag,
               RESTORE_GRACE);
    } else {
        jobs_lost_connection(&jobs, j, wall());
        if (was_running) logmsg("job %d (%s) lost its connection without an exit message: crashed", j->id, j->tag);
    }
    core_on_left(j);
    save_state();
}
