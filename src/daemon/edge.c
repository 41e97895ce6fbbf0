/* edge.c -- ductiled's checks of what peers say against what it knows,
 * before the other parts see it; see edge.h. */
#include "config.h"

#include "edge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/rankset.h"
#include "daemon.h"

/* ------------------------------------------------------------ hosts */

/* The rm host a job's host name stands for, or -1.  Under --slots (one host,
 * this machine) "localhost" and the machine's short or long name are the
 * same host; elsewhere a name must be one of the resource manager's. */
static int host_index(const char *name)
{
    int i = rm_find(&rm, name);
    if (i >= 0 || core_hosts_named || rm.nhosts != 1) return i; /* a hostfile or Slurm named the hosts */
    const char *me = rm.hosts[0].name;
    size_t a = strcspn(name, "."), b = strcspn(me, ".");
    if (!strcmp(name, "localhost") || !strcmp(me, "localhost") || (a == b && !strncmp(name, me, a))) return 0;
    return -1;
}

static const char *check_hosts(const json_t *req, char *why, size_t wl)
{
    long long procs = proto_get_int(req, "procs", 1);
    const json_t *hosts = json_object_get(req, "hosts");
    if (!hosts || json_array_size(hosts) == 0) {
        if (rm.nhosts == 1 && procs <= rm.hosts[0].slots && !rm.hosts[0].away) return NULL;
        if (rm.nhosts == 1) {
            snprintf(why, wl, "register: %lld processes, but %s has %d slots", procs, rm.hosts[0].name, rm.hosts[0].slots);
            return PERR_NO_SLOTS;
        }
        snprintf(why, wl, "register: ductiled manages %d hosts: say on which ones the processes run ('hosts')", rm.nhosts);
        return PERR_BAD_ARGUMENT;
    }
    int *count = calloc((size_t)rm.nhosts, sizeof(int));
    if (!count) {
        snprintf(why, wl, "out of memory");
        return PERR_INTERNAL;
    }
    long long sum = 0;
    const char *code = NULL;
    size_t i;
    json_t *h;
    json_array_foreach(hosts, i, h) {
        const char *name = proto_get_str(h, "name", "");
        int k = host_index(name);
        long long n = proto_get_int(h, "procs", 0);
        sum += n;
        if (k < 0) {
            snprintf(why, wl, "register: host '%s' is not one of ductiled's (%s)", name, rm.source[0] ? rm.source : "ductiled slots");
            code = PERR_BAD_ARGUMENT;
            break;
        }
        if (rm.hosts[k].away) {
            snprintf(why, wl, "register: host '%s' is %s", name, rm_host_state(&rm, k));
            code = PERR_NO_SLOTS;
            break;
        }
        count[k] += (int)n;
        if (count[k] > rm.hosts[k].slots) {
            snprintf(why, wl, "register: %d processes on host '%s', which has %d slots", count[k], rm.hosts[k].name,
                     rm.hosts[k].slots);
            code = PERR_NO_SLOTS;
            break;
        }
    }
    free(count);
    if (!code && sum != procs) {
        snprintf(why, wl, "register: the hosts hold %lld processes, not the %lld of 'procs'", sum, procs);
        code = PERR_BAD_ARGUMENT;
    }
    const json_t *rh = json_object_get(req, "rank_hosts");
    if (!code && json_is_object(rh)) { /* {host: rank set}: the schema saw each rank once; here: every rank below procs */
        const char *k;
        json_t *e;
        long long total = 0;
        json_object_foreach((json_t *)rh, k, e) {
            char w[200];
            long n = rankset_each(json_string_value(e), json_string_length(e), (int)procs, NULL, NULL, w, sizeof w);
            if (n < 0) {
                snprintf(why, wl, "register: 'rank_hosts.%.64s': %s (%lld processes)", k, w, procs);
                return PERR_BAD_ARGUMENT;
            }
            if (host_index(k) < 0) {
                snprintf(why, wl, "register: 'rank_hosts' names host '%s', which is not one of ductiled's", k);
                return PERR_BAD_ARGUMENT;
            }
            total += n;
        }
        if (total != procs) {
            snprintf(why, wl, "register: 'rank_hosts' places %lld ranks, not the %lld of 'procs'", total, procs);
            return PERR_BAD_ARGUMENT;
        }
        return NULL;
    }
    if (!code && rh && (long long)json_array_size(rh) != procs) {
        snprintf(why, wl, "register: 'rank_hosts' names %zu hosts for %lld processes", json_array_size(rh), procs);
        code = PERR_BAD_ARGUMENT;
    }
    json_array_foreach(rh, i, h) {
        if (code) break;
        if (host_index(json_string_value(h)) < 0) {
            snprintf(why, wl, "register: rank %zu's host '%s' is not one of ductiled's", i, json_string_value(h));
            code = PERR_BAD_ARGUMENT;
        }
    }
    return code;
}

const char *edge_resize(const char *cmd, json_t *req, char *why, size_t wl)
{
    if (strcmp(cmd, "expand") != 0 && strcmp(cmd, "resize") != 0) return NULL;
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(req, "hosts"), i, h) { /* the schema: host names */
        int k = host_index(json_string_value(h));
        if (k < 0) {
            char names[200];
            rm_names(&rm, names, sizeof names);
            snprintf(why, wl, "%s: host '%s' is not managed by this ductiled (its hosts: %s)%s%s", cmd, json_string_value(h),
                     names, rm.source[0] ? ": not in " : "", rm.source);
            return PERR_BAD_ARGUMENT;
        }
        json_string_set(h, rm.hosts[k].name);
    }
    return NULL;
}

/* ------------------------------------------------------------ owners and keys */

static int is_admin(long long uid) { return uid == 0 || uid == (long long)geteuid(); }

/* The uid a connection acts as: the Unix socket's peer; over TCP the
 * `user` its request names (-1: none). */
static long long acting_uid(int ci, const json_t *req)
{
    if (!conns[ci].tcp) return conns[ci].uid;
    return proto_get_int(req, "user", -1);
}

static int key_matches(const char *key, const char *given)
{
    if (!given || strlen(given) != 64 || strlen(key) != 64) return 0;
    unsigned d = 0; /* constant time */
    for (int i = 0; i < 64; i++) d |= (unsigned)(unsigned char)(key[i] ^ given[i]);
    return d == 0;
}

const char *edge_register(int ci, json_t *req, char *why, size_t wl)
{
    struct conn *c = &conns[ci];
    int want = (int)proto_get_int(req, "job", 0);
    /* one job per connection: a second job here would leave the first one
     * running without a connection, holding its slots */
    const struct job *mine = c->job ? jobs_get(&jobs, c->job) : NULL;
    if (c->job && (want != c->job || !mine || strcmp(mine->tag, proto_get_str(req, "tag", "")) != 0 ||
                   mine->pid != proto_get_int(req, "pid", 0))) {
        snprintf(why, wl, "this connection registered job %d: one job per connection (a new job opens its own)", c->job);
        return PERR_BAD_REQUEST;
    }
    long long uid = proto_get_int(req, "uid", -1);
    if (!c->tcp && uid >= 0 && uid != c->uid) {
        snprintf(why, wl, "register: uid %lld is not the uid of this connection (%lld)", uid, c->uid);
        return PERR_NOT_ALLOWED;
    }
    struct job *j = want > 0 ? jobs_get(&jobs, want) : NULL;
    if (j && c->job != want) {
        /* taking over a registration: the job's key (from its first
         * registration), and on the Unix socket its owner or an administrator */
        long long who = c->tcp ? uid : c->uid;
        int owner = j->uid < 0 || who == j->uid || (!c->tcp && is_admin(who));
        if ((j->key[0] && !key_matches(j->key, proto_get_str(req, "key", NULL))) || !owner) {
            logmsg("job %d: a registration from %s names it without its %s: registered as a new job", j->id, c->peer,
                   owner ? "key" : "owner's uid");
            json_object_del(req, "job");
            j = NULL;
        }
    }
    if (j && !json_object_get(req, "hosts") && !json_object_get(req, "rank_hosts")) {
        /* the job itself back (its key shown) after a resize, a hand-over to a
         * new rank 0 or a restart: ductiled's picture of where its processes
         * run stands (jobs_place.c); only its size is checked */
        long long procs = proto_get_int(req, "procs", 1);
        if (procs > rm_total(&rm)) {
            snprintf(why, wl, "register: %lld processes, more than ductiled's %d slots", procs, rm_total(&rm));
            return PERR_NO_SLOTS;
        }
        return NULL;
    }
    return check_hosts(req, why, wl);
}

void edge_registered(int ci, struct job *j, const json_t *req)
{
    j->uid = conns[ci].tcp ? proto_get_int(req, "uid", -1) : conns[ci].uid;
    j->ev_size = j->procs;
    if (!j->key[0] && auth_nonce(j->key) != 0) j->key[0] = '\0';
    for (char *p = j->binary; *p; p++) /* shown by list and status: no control characters */
        if ((unsigned char)*p < 32 || *p == 127) *p = '?';
    for (char *p = j->mpi; *p; p++)
        if ((unsigned char)*p < 32 || *p == 127) *p = '?';
}

/* ------------------------------------------------------------ events */

const char *edge_event(struct job *j, const char *cmd, const json_t *req, char *why, size_t wl)
{
    if (!strcmp(cmd, "sample")) { /* the slots follow a sample's size: never more than all of them */
        long long procs = proto_get_int(req, "procs", 1);
        if (procs > rm_total(&rm)) {
            snprintf(why, wl, "sample: %lld processes, more than ductiled's %d slots", procs, rm_total(&rm));
            return PERR_BAD_ARGUMENT;
        }
        return NULL;
    }
    const char *kind = proto_get_str(req, "kind", "");
    const json_t *d = json_object_get(req, "details");
    if (!strcmp(kind, "resized")) {
        long long from = proto_get_int(d, "from", 0), to = proto_get_int(d, "to", 0);
        if (to > rm_total(&rm)) {
            snprintf(why, wl, "resized: %lld processes, more than ductiled's %d slots", to, rm_total(&rm));
            return PERR_BAD_ARGUMENT;
        }
        long long sb = proto_get_int(d, "standby", 0), ex = proto_get_int(d, "exited", 0);
        long long moved = from > to ? from - to : to - from;
        if (from != j->ev_size) {
            snprintf(why, wl, "resized: 'from' %lld is not job %d's size (%d, as its registration and resizes left it)", from,
                     j->id, j->ev_size);
            return PERR_BAD_ARGUMENT;
        }
        int baseline = !strcmp(proto_get_str(d, "method", "merge"), "baseline");
        int ok = !strcmp(proto_get_str(d, "status", ""), "ok");
        if (!ok) { /* a failed expansion's new processes ended ("exited") or run parked ("parked"); at most to - from */
            long long pk = proto_get_int(d, "parked", 0), started = to > from ? (baseline ? to : to - from) : 0;
            if (ex + pk > started) {
                snprintf(why, wl, "resized %lld -> %lld (not done): %lld exited and %lld parked do not fit", from, to, ex, pk);
                return PERR_BAD_ARGUMENT;
            }
            return NULL;
        }
        if (baseline) moved = from; /* every old process left the world */
        if (sb + ex > moved || (to > from && ex > 0 && !baseline)) {
            snprintf(why, wl, "resized %lld -> %lld: %lld on standby and %lld exited do not fit", from, to, sb, ex);
            return PERR_BAD_ARGUMENT;
        }
        j->ev_size = (int)to;
    } else if (!strcmp(kind, "exited")) {
        long long n = 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)json_object_get(d, "hosts"), k, v) n += json_integer_value(v);
        if (n > j->parked) {
            snprintf(why, wl, "exited: %lld processes, but job %d has %d that left its world and still run", n, j->id, j->parked);
            return PERR_BAD_ARGUMENT;
        }
    }
    return NULL;
}

json_t *edge_kept_details(const json_t *d)
{
    if (!d) return json_object();
    char *s = json_dumps(d, JSON_COMPACT);
    size_t n = s ? strlen(s) : 0;
    free(s);
    if (n > EDGE_EVENT_BYTES) return json_pack("{s:I}", "truncated", (json_int_t)n);
    return json_deep_copy(d);
}

/* ------------------------------------------------------------ authority */

const char *edge_authority(int ci, const char *cmd, const json_t *req, char *why, size_t wl)
{
    static const char *const acting[] = {"expand", "shrink", "resize", "io", "period", "cancel", "fold", "unfold"};
    static const char *const daemon_wide[] = {"drain", "shutdown", "submit"};
    struct conn *c = &conns[ci];
    int on_job = 0, wide = 0;
    for (size_t k = 0; k < sizeof acting / sizeof acting[0]; k++) on_job |= !strcmp(cmd, acting[k]);
    for (size_t k = 0; k < sizeof daemon_wide / sizeof daemon_wide[0]; k++) wide |= !strcmp(cmd, daemon_wide[k]);
    if (!on_job && !wide) return NULL; /* views, registration and the job's own messages */
    int jid = (int)proto_get_int(req, "job", 0);
    if (!c->job && c->handed) { /* the old rank 0 of a job whose controller moved: nothing to act on */
        snprintf(why, wl, "%s: this connection handed job %d over to its new rank 0: it acts on no job", cmd, c->handed);
        return PERR_NOT_ALLOWED;
    }
    if (c->job) { /* a job's connection acts only on its own job */
        if (wide || (jid && jid != c->job)) {
            snprintf(why, wl, "%s: the connection of job %d acts only on job %d", cmd, c->job, c->job);
            return PERR_NOT_ALLOWED;
        }
        return NULL;
    }
    long long uid = acting_uid(ci, req);
    if (uid < 0) {
        snprintf(why, wl, "%s: over TCP a command that acts on jobs names its user ('user': the uid; ductilectl does)", cmd);
        return PERR_NOT_ALLOWED;
    }
    if (is_admin(uid)) return NULL;
    if (wide) {
        snprintf(why, wl, "%s: only an administrator (root or uid %u) may", cmd, (unsigned)geteuid());
        return PERR_NOT_ALLOWED;
    }
    struct job *j = jobs_get(&jobs, jid);
    if (j && j->uid != uid) {
        snprintf(why, wl, "%s: job %d belongs to uid %lld, not to uid %lld", cmd, j->id, j->uid, uid);
        return PERR_NOT_ALLOWED;
    }
    return NULL;
}
