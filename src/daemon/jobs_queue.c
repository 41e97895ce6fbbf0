/* jobs_queue.c -- the resizes ductiled sent a job (see jobs.h): sent,
 * queued in the job's queue of delayed commands (as the job reports it,
 * validated), taken (running until the job's "resized" event names it),
 * cancelled; an expansion's reserved slots last as long as its command. */
#include "jobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/protocol.h"

struct jcmd *jobs_cmd_find(struct job *j, int id)
{
    for (int k = 0; k < j->ncmds && id > 0; k++)
        if (j->cmds[k].id == id) return &j->cmds[k];
    return NULL;
}

void jobs_cmd_drop(struct job *j, struct jcmd *c)
{
    int k = (int)(c - j->cmds);
    if (k < 0 || k >= j->ncmds) return;
    free(c->res);
    free(c->list);
    memmove(&j->cmds[k], &j->cmds[k + 1], (size_t)(j->ncmds - k - 1) * sizeof *c);
    j->ncmds--;
}

void jobs_cmds_clear(struct job *j)
{
    for (int k = 0; k < j->ncmds; k++) free(j->cmds[k].res), free(j->cmds[k].list);
    free(j->cmds);
    j->cmds = NULL;
    j->ncmds = 0;
}

static struct jcmd *cmd_new(struct job *j)
{
    /* at most the job's queue, one running and a few on their way: bounded */
    if (j->ncmds >= 4 * JOBS_MAX_QUEUED) return NULL;
    struct jcmd *v = realloc(j->cmds, (size_t)(j->ncmds + 1) * sizeof *v);
    if (!v) return NULL;
    j->cmds = v;
    struct jcmd *c = &v[j->ncmds++];
    memset(c, 0, sizeof *c);
    c->at = -1;
    return c;
}

struct jcmd *jobs_cmd_sent(struct job *j, long long fwd, const char *op, int n, const int *res, int nres,
                           const char *list, int by_daemon, double now)
{
    struct jcmd *c = cmd_new(j);
    if (!c) return NULL;
    if (nres > 0 && !(c->res = malloc((size_t)nres * sizeof(int)))) {
        j->ncmds--;
        return NULL;
    }
    if (nres > 0) memcpy(c->res, res, (size_t)nres * sizeof(int));
    c->nres = nres;
    c->fwd = fwd;
    c->state = CMD_SENT;
    snprintf(c->op, sizeof c->op, "%s", op);
    c->n = n;
    if (!(c->list = strdup(list ? list : ""))) {
        free(c->res);
        j->ncmds--;
        return NULL;
    }
    c->since = now;
    c->by_daemon = by_daemon;
    return c;
}

struct jcmd *jobs_cmd_answered(struct jobs *t, struct job *j, long long fwd, int ok, const json_t *result, double now)
{
    struct jcmd *c = NULL;
    for (int k = 0; k < j->ncmds && !c; k++)
        if (j->cmds[k].state == CMD_SENT && j->cmds[k].fwd == fwd) c = &j->cmds[k];
    if (!c) return NULL;
    long long id = proto_get_int(result, "id", 0);
    if (!ok) {
        jobs_cmd_drop(j, c);
        jobs_place(t, j);
        return NULL;
    }
    if (id <= 0 || id > 2147483647LL || jobs_cmd_find(j, (int)id)) {
        /* accepted without a queue id (a job that runs it at once): running until its "resized" event */
        c->state = CMD_TAKEN;
        c->since = now;
        return NULL;
    }
    c->id = (int)id;
    c->at = proto_get_int(result, "at_iteration", -1);
    c->state = CMD_QUEUED;
    c->since = now;
    return c;
}

int jobs_queue_set(struct jobs *t, struct job *j, const json_t *list, double now)
{
    if (!json_is_array(list) || json_array_size(list) > JOBS_MAX_QUEUED) return -1;
    size_t i;
    json_t *e;
    /* validated whole before anything changes */
    json_array_foreach(list, i, e) {
        static const char *const ops[] = {"expand", "shrink", "resize"};
        const char *op = proto_get_str(e, "op", "");
        long long id = proto_get_int(e, "id", 0), at = proto_get_int(e, "at_iteration", -1);
        long long n = proto_get_int(e, json_object_get(e, "to") ? "to" : "n", 0);
        int known = 0;
        for (size_t k = 0; k < 3; k++) known |= !strcmp(op, ops[k]);
        json_t *l = json_object_get(e, "list");
        if (!json_is_object(e) || !known || id <= 0 || id > 2147483647LL || at < -1 || n < 1 || n > PROTO_MAX_PROCS ||
            (l && (!json_is_string(l) || json_string_length(l) > PROTO_MAX_MSG)))
            return -1;
    }
    char *seen = calloc((size_t)j->ncmds + 1, 1);
    if (!seen) return -1;
    int nold = j->ncmds;
    json_array_foreach(list, i, e) {
        int id = (int)proto_get_int(e, "id", 0);
        struct jcmd *c = jobs_cmd_find(j, id);
        if (!c && !(c = cmd_new(j))) continue; /* one ductiled does not know (sent before a restart) */
        int k = (int)(c - j->cmds);
        if (k < nold) seen[k] = 1;
        const char *op = proto_get_str(e, "op", "");
        c->id = id;
        c->state = CMD_QUEUED;
        snprintf(c->op, sizeof c->op, "%s", op);
        c->n = (int)proto_get_int(e, !strcmp(op, "resize") ? "to" : "n", 1);
        c->at = proto_get_int(e, "at_iteration", -1);
        char *nl = strdup(proto_get_str(e, "list", c->list ? c->list : ""));
        if (nl) free(c->list), c->list = nl;
        if (!c->list) c->list = strdup(""); /* a new one when out of memory */
    }
    /* queued before, not now: taken (running) -- its "resized" event settles it */
    for (int k = 0; k < nold; k++)
        if (!seen[k] && j->cmds[k].state == CMD_QUEUED) j->cmds[k].state = CMD_TAKEN, j->cmds[k].since = now;
    free(seen);
    jobs_place(t, j);
    return 0;
}

int jobs_queue_cancelled(struct jobs *t, struct job *j, int id, double now, int *by_daemon)
{
    (void)now;
    struct jcmd *c = jobs_cmd_find(j, id);
    if (!c) return 0;
    int r = c->nres;
    if (c->by_daemon) *by_daemon = 1;
    jobs_cmd_drop(j, c);
    jobs_place(t, j);
    return r;
}

int jobs_cmds_expire(struct jobs *t, double now)
{
    int n = 0;
    double ttl = t->pending_ttl > 0 ? t->pending_ttl : JOBS_PENDING_TTL;
    for (int i = 0; i < t->n; i++) {
        struct job *j = t->v[i];
        for (int k = 0; k < j->ncmds;) {
            struct jcmd *c = &j->cmds[k];
            if (c->state == CMD_QUEUED || now - c->since <= ttl) {
                k++;
                continue;
            }
            jobs_event(j, "reservation_expired",
                       json_pack("{s:i, s:s, s:s, s:i, s:f}", "id", c->id, "op", c->op, "state",
                                 c->state == CMD_SENT ? "sent" : "taken", "slots", c->nres, "after_s", now - c->since),
                       now);
            jobs_cmd_drop(j, c);
            n++;
            jobs_place(t, j);
        }
    }
    return n;
}

static json_t *cmd_json(const struct jcmd *c)
{
    json_t *o = json_pack("{s:i, s:s, s:i, s:I, s:i}", "id", c->id, "op", c->op, !strcmp(c->op, "resize") ? "to" : "n",
                          c->n, "at_iteration", (json_int_t)c->at, "reserved", c->nres);
    if (o && c->list && c->list[0]) json_object_set_new(o, "list", json_string(c->list));
    if (o && c->by_daemon) json_object_set_new(o, "by_ductiled", json_true());
    return o;
}

json_t *jobs_queue_json(const struct job *j)
{
    json_t *a = json_array();
    for (int k = 0; k < j->ncmds; k++)
        if (j->cmds[k].state == CMD_QUEUED) json_array_append_new(a, cmd_json(&j->cmds[k]));
    return a;
}

void jobs_cmds_save(const struct jobs *t, const struct job *j, json_t *o)
{
    json_t *a = json_array();
    for (int k = 0; k < j->ncmds; k++) {
        const struct jcmd *c = &j->cmds[k];
        if (c->state == CMD_SENT) continue; /* its forward does not survive a restart */
        json_t *e = cmd_json(c), *res = json_array();
        for (int r = 0; r < c->nres; r++) json_array_append_new(res, json_string(t->rm->hosts[c->res[r]].name));
        json_object_set_new(e, "hosts", res);
        json_object_set_new(e, "state", json_string(c->state == CMD_QUEUED ? "queued" : "taken"));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "commands", a);
}

void jobs_cmds_load(struct jobs *t, struct job *j, const json_t *o, double now)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(o, "commands"), i, e) {
        long long id = proto_get_int(e, "id", 0), n = proto_get_int(e, json_object_get(e, "to") ? "to" : "n", 0);
        const json_t *hosts = json_object_get(e, "hosts");
        if (id <= 0 || id > 2147483647LL || jobs_cmd_find(j, (int)id) || n < 1 || n > PROTO_MAX_PROCS ||
            json_array_size(hosts) > PROTO_MAX_PROCS)
            continue;
        int nres = 0, *res = calloc(json_array_size(hosts) + 1, sizeof(int));
        if (!res) continue;
        size_t k;
        json_t *h;
        json_array_foreach(hosts, k, h) {
            int x = rm_find(t->rm, json_is_string(h) ? json_string_value(h) : "");
            if (x >= 0) res[nres++] = x;
        }
        struct jcmd *c = jobs_cmd_sent(j, 0, proto_get_str(e, "op", "expand"), (int)n, res, nres,
                                       proto_get_str(e, "list", ""), json_is_true(json_object_get(e, "by_ductiled")), now);
        free(res);
        if (!c) continue;
        c->id = (int)id;
        c->at = proto_get_int(e, "at_iteration", -1);
        c->state = strcmp(proto_get_str(e, "state", "queued"), "taken") ? CMD_QUEUED : CMD_TAKEN;
    }
}
