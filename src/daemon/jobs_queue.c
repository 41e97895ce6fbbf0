/* jobs_queue.c -- ductiled's view of a job's delayed commands: a command
 * the job queued (with the slots ductiled reserved for it), the queue as
 * the job reports it (validated), and a cancelled command's slots given
 * back; see jobs.h. */
#include "jobs.h"

#include <string.h>

#include "../proto/protocol.h"

#define JOBS_MAX_QUEUED 16 /* the job's REQUEST_QUEUE_MAX */

static json_t *queued_find(const struct job *j, long long id, size_t *at)
{
    size_t i;
    json_t *e;
    json_array_foreach(j->queued, i, e) {
        if (proto_get_int(e, "id", 0) == id) {
            if (at) *at = i;
            return e;
        }
    }
    return NULL;
}

void jobs_queue_add(struct job *j, const json_t *accepted, const char *op, int reserved, int by_daemon)
{
    long long id = proto_get_int(accepted, "id", 0);
    if (id <= 0) return;
    json_t *e = queued_find(j, id, NULL);
    if (!e) {
        if (json_array_size(j->queued) >= JOBS_MAX_QUEUED) return;
        e = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)id, "op", op, "at_iteration",
                      (json_int_t)proto_get_int(accepted, "at_iteration", -1));
        json_array_append_new(j->queued, e);
    }
    json_object_set_new(e, "reserved", json_integer(reserved));
    if (by_daemon) json_object_set_new(e, "by_ductiled", json_true());
}

int jobs_queue_set(struct job *j, const json_t *list)
{
    if (!json_is_array(list) || json_array_size(list) > JOBS_MAX_QUEUED) return -1;
    json_t *nq = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        static const char *const ops[] = {"expand", "shrink", "resize"};
        const char *op = proto_get_str(e, "op", "");
        long long id = proto_get_int(e, "id", 0), at = proto_get_int(e, "at_iteration", -1);
        long long n = proto_get_int(e, json_object_get(e, "to") ? "to" : "n", 0);
        int known = 0;
        for (size_t k = 0; k < 3; k++) known |= !strcmp(op, ops[k]);
        json_t *l = json_object_get(e, "list");
        if (!json_is_object(e) || !known || id <= 0 || id > 2147483647LL || at < -1 || n < 1 || n > PROTO_MAX_PROCS ||
            (l && (!json_is_string(l) || strlen(json_string_value(l)) > 1024))) {
            json_decref(nq);
            return -1;
        }
        json_t *o = json_pack("{s:I, s:s, s:I, s:I}", "id", (json_int_t)id, "op", op, !strcmp(op, "resize") ? "to" : "n",
                              (json_int_t)n, "at_iteration", (json_int_t)at);
        if (l) json_object_set(o, "list", l);
        json_t *old = queued_find(j, id, NULL);
        json_object_set_new(o, "reserved", json_integer(old ? proto_get_int(old, "reserved", 0) : 0));
        if (old && json_is_true(json_object_get(old, "by_ductiled"))) json_object_set_new(o, "by_ductiled", json_true());
        json_array_append_new(nq, o);
    }
    json_decref(j->queued);
    j->queued = nq;
    return 0;
}

int jobs_queue_cancelled(struct jobs *t, struct job *j, int id, double now, int *by_daemon)
{
    size_t at;
    json_t *e = queued_find(j, id, &at);
    if (!e) return 0;
    int r = (int)proto_get_int(e, "reserved", 0);
    if (json_is_true(json_object_get(e, "by_ductiled"))) *by_daemon = 1;
    json_array_remove(j->queued, at);
    if (r > 0) {
        j->pending -= r;
        if (j->pending < 0) j->pending = 0;
        jobs_reconcile(t, j, now);
    }
    return r;
}
