/* forward.c -- commands ductiled sends to jobs (see daemon.h, core.h):
 * resizes decided with the resource manager (an expansion's slots granted
 * and reserved for its command, jobs_queue.c; room asked of the parts --
 * Slurm's growth -- without waiting; a shrink's ranks chosen by a part),
 * other commands, their answers matched back to the client or the part that
 * sent them (bounded by FORWARD_TIMEOUT), and the job's acknowledgement of
 * a revoke. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/schema.h"
#include "daemon.h"

struct forward fwds[MAX_FORWARDS];
long long next_job_req = 1;

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

/* A command's list as jobs_queue keeps it: the rank set of a shrink as it
 * is, an expansion's hosts ';'-separated (malloc'ed; NULL out of memory). */
static char *list_of(const json_t *v)
{
    if (json_is_string(v)) return strdup(json_string_value(v));
    size_t i, len = 1;
    json_t *e;
    json_array_foreach(v, i, e) len += (json_is_string(e) ? json_string_length(e) : 12) + 1;
    char *out = malloc(len);
    size_t o = 0;
    if (!out) return NULL;
    out[0] = '\0';
    json_array_foreach(v, i, e) {
        int n = json_is_string(e) ? snprintf(out + o, len - o, "%s%s", o ? ";" : "", json_string_value(e))
                                  : snprintf(out + o, len - o, "%s%lld", o ? ";" : "", (long long)json_integer_value(e));
        if (n < 0 || (size_t)n >= len - o) break;
        o += (size_t)n;
    }
    return out;
}

/* An expansion waiting for a part to make room (Slurm's growth). */
struct grow_wait {
    int cli, job, n;
    unsigned gen;
    long long cli_req;
    const struct dpart *by;
    json_t *args;
};

static void grown(void *arg, int ok, const char *reason)
{
    struct grow_wait *w = arg;
    struct job *j = jobs_get(&jobs, w->job);
    char why[1024];
    snprintf(why, sizeof why, "%s", reason);
    if (ok && j && j->state == JOB_RUNNING && j->conn >= 0) {
        /* the client's connection may be gone: the expansion goes on, its reply is dropped (finish_forward) */
        int cli = w->cli >= 0 && !(conns[w->cli].kind == C_PEER && conns[w->cli].gen == w->gen) ? -1 : w->cli;
        json_t *args = w->args;
        w->args = NULL;
        if (forward_resize(cli, w->cli_req, w->by, j, "expand", w->n, args, NULL, why, sizeof why) == 0) {
            free(w);
            return;
        }
    } else if (ok) {
        snprintf(why, sizeof why, "the job is no longer running");
    }
    /* refused as if by the job: the client hears, the part that sent it too */
    struct forward f = {.used = 1, .job = w->job, .cli = w->cli, .cli_gen = w->gen, .cli_req = w->cli_req, .by = w->by};
    snprintf(f.cmd, sizeof f.cmd, "expand");
    finish_forward(&f, 0, NULL, PERR_NO_SLOTS, why);
    json_decref(w->args);
    free(w);
}

int forward_resize(int ci, long long id, const struct dpart *by, struct job *j, const char *op, int n, json_t *args,
                   const char *const *wanted, char *why, size_t wl)
{
    int expand = !strcmp(op, "expand");
    int *where = expand ? calloc((size_t)n, sizeof(int)) : NULL;
    if (j->ncmds >= 3 * JOBS_MAX_QUEUED || (expand && !where)) {
        snprintf(why, wl, j->ncmds ? "too many commands on their way to the job; try again" : "out of memory");
        free(where);
        json_decref(args);
        return -1;
    }
    if (expand) {
        /* beyond the free slots a part may make room (Slurm's growth), without waiting */
        struct grow_wait *w = wanted ? NULL : calloc(1, sizeof *w);
        int room = wanted ? 0 : w ? core_make_room(j, n, grown, w, why, wl) : (snprintf(why, wl, "out of memory"), -1);
        if (room == 1) {
            *w = (struct grow_wait){.cli = ci, .job = j->id, .n = n, .gen = ci >= 0 ? conns[ci].gen : 0, .cli_req = id,
                                    .by = by, .args = args};
            free(where);
            logmsg("job %d: expansion by %d waits for room to be made", j->id, n);
            return 0;
        }
        free(w);
        if (room != 0 || rm_grant(&rm, j->alloc, n, wanted, where, why, wl) != 0) {
            free(where);
            json_decref(args);
            return -1;
        }
        if (core_hosts_named || wanted) { /* where the new processes go */
            json_t *h = json_array();
            for (int k = 0; k < n; k++) json_array_append_new(h, json_string(rm.hosts[where[k]].name));
            json_object_set_new(args, "hosts", h);
        }
    } else {
        core_choose_ranks(j, n, args); /* a part may choose the ranks (Slurm: those that empty hosts), unless given */
    }
    char *list = list_of(json_object_get(args, expand ? "hosts" : "ranks"));
    json_object_set_new(args, "n", json_integer(n));
    struct forward *f = new_forward();
    if (!f) {
        snprintf(why, wl, "too many commands in flight; try again");
        free(where);
        free(list);
        json_decref(args);
        jobs_place(&jobs, j); /* the grant goes back */
        return -1;
    }
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = ci;
    f->cli_gen = ci >= 0 ? conns[ci].gen : 0;
    f->cli_req = id;
    f->by = by;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    snprintf(f->cmd, sizeof f->cmd, "%s", op);
    jobs_cmd_sent(j, f->job_req, op, n, where, expand ? n : 0, list, by != NULL, wall());
    jobs_place(&jobs, j);
    free(where);
    free(list);
    json_object_set_new(args, "job", json_integer(j->id));
    queue_out(j->conn, proto_request(f->job_req, op, args));
    json_decref(args);
    state_dirty = 1;
    if (verbose) logmsg("forwarded %s %d to job %d", op, n, j->id);
    return 0;
}

int core_resize(const struct dpart *by, struct job *j, int delta, long long at, char *why, size_t wl)
{
    json_t *args = json_object();
    if (at >= 0) json_object_set_new(args, "at_iteration", json_integer(at));
    return forward_resize(-1, 0, by, j, delta > 0 ? "expand" : "shrink", delta > 0 ? delta : -delta, args, NULL, why, wl);
}

void core_send(int ci, long long id, struct job *j, const char *cmd, json_t *args)
{
    struct forward *f = new_forward();
    if (!f) {
        if (ci >= 0) reply_err(ci, id, PERR_BUSY, "too many commands in flight; try again");
        json_decref(args);
        return;
    }
    f->job_req = next_job_req++;
    f->job = j->id;
    f->cli = ci < 0 ? -1 : ci;
    f->cli_gen = ci >= 0 ? conns[ci].gen : 0;
    f->cli_req = id;
    f->deadline = net_now() + FORWARD_TIMEOUT;
    snprintf(f->cmd, sizeof f->cmd, "%s", cmd);
    json_object_set_new(args, "job", json_integer(j->id));
    queue_out(j->conn, proto_request(f->job_req, cmd, args));
    json_decref(args);
    if (verbose) logmsg("forwarded %s to job %d", cmd, j->id);
}

void core_notify(struct job *j, const char *cmd, json_t *args)
{
    if (j->conn >= 0) {
        json_object_set_new(args, "job", json_integer(j->id));
        queue_out(j->conn, proto_request(next_job_req++, cmd, args)); /* its answer is not waited for */
    }
    json_decref(args);
}

void core_revoke(struct job *j, const char *what, int command, const char *reason)
{
    if (!j || j->conn < 0) return;
    json_t *a = json_pack("{s:s, s:s}", "what", what, "reason", reason);
    if (command > 0) json_object_set_new(a, "command", json_integer(command));
    core_send(-1, 0, j, "revoke", a);
}

void finish_forward(struct forward *f, int ok, json_t *result, const char *code, const char *reason)
{
    struct job *j = jobs_get(&jobs, f->job);
    /* a resize: queued with its id (its reservation stays), or refused (the reservation goes back) */
    struct jcmd *qc = j ? jobs_cmd_answered(&jobs, j, f->job_req, ok, result, wall()) : NULL;
    if (j) state_dirty = 1;
    if (j && f->by && f->by->resize_done) f->by->resize_done(j, ok, reason); /* the part that sent it */
    if (j) {
        json_t *d = json_pack("{s:s, s:b}", "command", f->cmd, "ok", ok);
        if (!ok) json_object_set_new(d, "reason", json_string(reason ? reason : ""));
        if (qc) {
            /* a delayed command the job queued: its id (ductilectl cancel JOB ID) */
            json_object_set_new(d, "id", json_integer(qc->id));
            json_object_set_new(d, "at_iteration", json_integer(qc->at));
            json_object_set_new(d, "reserved", json_integer(qc->nres));
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

/* The job's acknowledgement of a revoke: slots of cancelled expansions go
 * back to the resource manager; the parts hear which commands went
 * (event "cancelled") and the answer itself (the I/O token). */
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
    const char *what = proto_get_str(res, "revoked", "?");
    j->io_held = json_is_true(json_object_get(res, "io_held"));
    jobs_event(j, "revoked", json_pack("{s:s, s:O, s:i, s:b}", "what", what, "cancelled", ids, "slots_freed", freed,
                                       "io_held", j->io_held), now);
    if (json_array_size(ids)) {
        json_t *d = json_pack("{s:O, s:b}", "ids", ids, "by_ductiled", planned);
        core_on_event(j, "cancelled", d, now); /* a part whose own resize went ends its plan */
        json_decref(d);
    }
    json_decref(ids);
    logmsg("job %d acknowledged the revoke of %s (%d command(s) cancelled, %d slot(s) freed)", j->id, what,
           (int)json_array_size(c), freed);
    state_dirty = 1;
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
        json_t *result = m->ok ? json_object_get(m->root, "result") : NULL;
        json_t *r = m->ok ? (result ? json_deep_copy(result) : json_object()) : NULL;
        if (m->ok && !strcmp(fwds[f].cmd, "io")) j->io_held = json_is_true(json_object_get(r, "io_held"));
        if (m->ok && !strcmp(fwds[f].cmd, "revoke")) revoked(j, r);
        /* the parts hear the answer, whoever sent the command (a refused fold gives its cores back) */
        core_on_answered(j, fwds[f].cmd, m->ok, r, m->ok ? NULL : proto_get_str(m->root, "reason", ""));
        if (m->ok) finish_forward(&fwds[f], 1, r, NULL, NULL);
        else finish_forward(&fwds[f], 0, NULL, proto_get_str(m->root, "error", PERR_INTERNAL), proto_get_str(m->root, "reason", ""));
        json_decref(r);
        return;
    }
    /* acks of nothing we wait for (e.g. hello, an I/O grant): ignored */
}
