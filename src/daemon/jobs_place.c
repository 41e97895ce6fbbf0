/* jobs_place.c -- where a job's processes are and the slots they hold (see
 * jobs.h): the host of each rank from the registration, ranks joining on
 * the hosts reserved for their command (or their standby hosts) and leaving
 * to park, exit or stand by, per the job's "resized" events; the job's
 * slots in the resource manager drawn from that at every change. */
#include "jobs.h"

#include <stdlib.h>
#include <string.h>

#include "../common/rankset.h"
#include "../proto/protocol.h"

/* rm host of a name the job reports: ours, or the only host (a job on
 * "localhost" under --slots); -1: a host ductiled does not manage. */
static int host_of(const struct jobs *t, const char *name)
{
    int h = name ? rm_find(t->rm, name) : -1;
    if (h < 0 && t->rm->nhosts == 1) h = 0;
    return h;
}

static int ensure_ranks(struct job *j, int n)
{
    if (n <= j->rank_cap) return 0;
    int cap = j->rank_cap ? j->rank_cap : 8;
    while (cap < n) cap *= 2;
    int *v = realloc(j->rank_host, (size_t)cap * sizeof *v);
    if (!v) return -1;
    j->rank_host = v;
    j->rank_cap = cap;
    return 0;
}

/* cnt[h] = the job's running processes on each of the nh hosts, in one pass over the ranks */
static void count_hosts(const struct job *j, int nh, int *cnt)
{
    memset(cnt, 0, (size_t)nh * sizeof *cnt);
    for (int r = 0; r < j->procs && j->rank_host; r++)
        if (j->rank_host[r] >= 0 && j->rank_host[r] < nh) cnt[j->rank_host[r]]++;
}

int jobs_procs_on(const struct job *j, int h)
{
    int n = 0;
    for (int r = 0; r < j->procs && j->rank_host; r++) n += j->rank_host[r] == h;
    return n;
}

int jobs_reserved_on(const struct job *j, int h)
{
    int n = 0;
    for (int c = 0; c < j->ncmds; c++)
        for (int k = 0; k < j->cmds[c].nres; k++) n += j->cmds[c].res[k] == h;
    return n;
}

int jobs_main_host(const struct jobs *t, const struct job *j)
{
    int best = -1, bn = 0, *cnt = malloc(((size_t)t->rm->nhosts + 1) * sizeof *cnt);
    if (cnt) count_hosts(j, t->rm->nhosts, cnt);
    for (int h = 0; h < t->rm->nhosts; h++) {
        int n = cnt ? cnt[h] : jobs_procs_on(j, h);
        if (n > bn) best = h, bn = n;
    }
    free(cnt);
    for (int h = 0; best < 0 && h < t->rm->nhosts; h++)
        if (!t->rm->hosts[h].away) best = h;
    return best < 0 ? 0 : best;
}

static int finished(const struct job *j) { return j->state == JOB_EXITED || j->state == JOB_CRASHED || j->state == JOB_LOST; }

void jobs_place(struct jobs *t, struct job *j)
{
    int nh = t->rm->nhosts;
    if (finished(j)) {
        rm_release_all(t->rm, j->alloc);
        memset(j->parked_on, 0, (size_t)nh * sizeof(int));
        j->nstandby = 0;
        jobs_cmds_clear(j);
        j->pending = j->parked = 0;
        j->fold_cores = 0;
        return;
    }
    int pend = 0, parked = 0, *cnt = malloc(((size_t)nh + 1) * sizeof *cnt);
    if (cnt) count_hosts(j, nh, cnt); /* O(P + H), not a pass over the ranks per host */
    if (j->exited > PROTO_MAX_PROCS) j->exited = PROTO_MAX_PROCS; /* counts stay bounded, whatever events come */
    for (int h = 0; h < nh; h++) {
        if (j->parked_on[h] > PROTO_MAX_PROCS) j->parked_on[h] = PROTO_MAX_PROCS;
        int run = cnt ? cnt[h] : jobs_procs_on(j, h), res = jobs_reserved_on(j, h);
        if (j->fold_cores > 0 && run > j->fold_cores) run = j->fold_cores; /* folded: fewer cores */
        int want = run + j->parked_on[h] + res;
        if (j->alloc[h] != want) rm_set_host(t->rm, j->alloc, h, want);
        pend += res;
        parked += j->parked_on[h];
    }
    j->pending = pend;
    j->parked = parked;
    free(cnt);
}

struct place_arg {
    int *rank_host, procs, h;
};

static int place_rank(void *arg, int r, char *why, size_t wl)
{
    (void)why, (void)wl;
    struct place_arg *a = arg;
    if (r < a->procs) a->rank_host[r] = a->h;
    return 0;
}

void jobs_place_registered(struct jobs *t, struct job *j, const json_t *req)
{
    if (ensure_ranks(j, j->procs) != 0) return;
    j->guessed = 0;
    const json_t *rh = json_object_get(req, "rank_hosts");
    int r = 0;
    if (json_is_object(rh)) { /* {host: rank set} (validated at the edge: each rank once) */
        for (r = 0; r < j->procs; r++) j->rank_host[r] = -1;
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)rh, k, e) {
            struct place_arg a = {j->rank_host, j->procs, host_of(t, k)};
            char why[160];
            const char *s = json_string_value(e);
            if (s) rankset_each(s, strlen(s), PROTO_MAX_PROCS, place_rank, &a, why, sizeof why);
        }
        return;
    }
    if (json_is_array(rh) && (int)json_array_size(rh) == j->procs) {
        for (; r < j->procs; r++) j->rank_host[r] = host_of(t, json_string_value(json_array_get(rh, (size_t)r)));
    } else {
        /* hosts {name, procs} as blocks of consecutive ranks (mpiexec's default) */
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(req, "hosts"), i, e) {
            int h = host_of(t, json_string_value(json_object_get(e, "name")));
            for (long long c = proto_get_int(e, "procs", 0); c > 0 && r < j->procs; c--) j->rank_host[r++] = h;
        }
        if (r < j->procs && json_array_size(json_object_get(req, "hosts")) > 0) j->guessed = 1;
        for (int h = t->rm->nhosts == 1 ? 0 : -1; r < j->procs; r++) j->rank_host[r] = h;
    }
}

/* Ranks [from, to) join: on the hosts of standby processes coming back, else
 * those reserved for the command, else (nobody placed them) the job's main host. */
static void grow(struct jobs *t, struct job *j, int from, int to, const struct jcmd *c, int standby)
{
    int main = jobs_main_host(t, j);
    for (int r = from, k = 0; r < to; r++) {
        int h;
        if (standby > 0 && j->nstandby > 0) h = j->standby_host[--j->nstandby];
        else if (c && k < c->nres) h = c->res[k++];
        else h = main, j->guessed = 1;
        j->rank_host[r] = h;
    }
}

/* from - to ranks leave: the command's list, else the highest (the engine's default). */
static void shrink(struct job *j, int from, int to, const struct jcmd *c, int standby, int exited)
{
    char *gone = calloc((size_t)from, 1);
    if (!gone) return;
    int n = 0;
    if (c && c->list && c->list[0] && !strcmp(c->op, "shrink")) { /* a rank set ("0-511,1024-2047") */
        char why[160];
        long k = rankset_mark(c->list, from, (unsigned char *)gone, why, sizeof why);
        n = k == from - to ? (int)k : 0;
        if (n == 0) memset(gone, 0, (size_t)from);
    }
    if (n == 0)
        for (int r = to; r < from; r++) gone[r] = 1;
    int w = 0;
    for (int r = 0; r < from; r++) {
        int h = j->rank_host[r];
        if (!gone[r]) {
            j->rank_host[w++] = h;
            continue;
        }
        if (h >= 0) j->shrunk_on[h] = 1;
        if (standby > 0) {
            if (j->nstandby == j->standby_cap) {
                int cap = j->standby_cap ? 2 * j->standby_cap : 8;
                int *v = realloc(j->standby_host, (size_t)cap * sizeof *v);
                if (!v) continue;
                j->standby_host = v, j->standby_cap = cap;
            }
            j->standby_host[j->nstandby++] = h;
        } else if (exited >= from - to) {
            j->exited++; /* the whole newest spawned group ended: its slots are free */
        } else if (h >= 0) {
            j->parked_on[h]++;
        }
    }
    free(gone);
}

/* Standby processes become parked ones when any other resize happens (the engine releases the pool). */
static void release_standby(struct job *j)
{
    for (int k = 0; k < j->nstandby; k++)
        if (j->standby_host[k] >= 0) j->parked_on[j->standby_host[k]]++;
    j->nstandby = 0;
}

/* Bring the ranks to `procs` without knowing who joined or left (guessed). */
static void resync(struct jobs *t, struct job *j, int procs, double now, const char *why)
{
    if (procs == j->procs || ensure_ranks(j, procs) != 0) return;
    jobs_event(j, "size", json_pack("{s:i, s:i, s:s}", "from", j->procs, "to", procs, "why", why), now);
    if (procs > j->procs) grow(t, j, j->procs, procs, NULL, 0);
    else j->exited += j->procs - procs; /* the highest ranks left; their slots are freed */
    j->guessed = 1;
    j->procs = procs;
    j->ev_size = procs; /* a resize event now starts here (edge.c) */
}

void jobs_resized(struct jobs *t, struct job *j, const json_t *d, double now)
{
    int from = (int)proto_get_int(d, "from", j->procs), to = (int)proto_get_int(d, "to", from);
    int standby = (int)proto_get_int(d, "standby", 0), exited = (int)proto_get_int(d, "exited", 0);
    long long cid = proto_get_int(d, "command", 0);
    struct jcmd *c = cid > 0 ? jobs_cmd_find(j, (int)cid) : NULL;
    if (!c && !json_object_get(d, "command")) { /* a job that does not name it: the oldest taken command, */
        for (int k = 0; k < j->ncmds && !c; k++)
            if (j->cmds[k].state == CMD_TAKEN) c = &j->cmds[k];
        /* else the oldest one of this resize's direction and count (a job that says neither) */
        const char *op = to > from ? "expand" : "shrink";
        int n = to > from ? to - from : from - to;
        for (int k = 0; k < j->ncmds && !c && from != to; k++)
            if (!strcmp(j->cmds[k].op, op) && j->cmds[k].n == n) c = &j->cmds[k];
    }
    int ok = !strcmp(proto_get_str(d, "status", "ok"), "ok");
    if (!ok && to > from) {
        /* a failed expansion's new processes ended, or parked on the hosts granted to it: they
         * hold their slots until the job ends (issue 22 item 7); at most the event's "to" of them */
        long long pk = proto_get_int(d, "parked", 0), ex = proto_get_int(d, "exited", 0);
        int main = jobs_main_host(t, j);
        for (long long k = 0; pk <= to && k < pk; k++) j->parked_on[c && k < c->nres ? c->res[k] : main]++;
        if (ex > 0 && ex <= to) j->exited += (int)ex;
    }
    if (ok && from >= 1 && to >= 1 && to <= PROTO_MAX_PROCS && from <= PROTO_MAX_PROCS && from != to) {
        if (from != j->procs) resync(t, j, from, now, "a resize reported a size ductiled did not know");
        if (j->procs == from && ensure_ranks(j, to > from ? to : from) == 0) {
            int pool = to > from && standby > 0;
            if (!pool && !(to < from && standby > 0)) release_standby(j);
            if (!strcmp(proto_get_str(d, "method", "merge"), "baseline")) {
                /* every old process leaves (parked until the job ends), to new ones come */
                for (int r = 0; r < from; r++)
                    if (j->rank_host[r] >= 0) j->parked_on[j->rank_host[r]]++, j->shrunk_on[j->rank_host[r]] = 1;
                grow(t, j, 0, to, c, 0);
            } else if (to > from) {
                grow(t, j, from, to, c, standby);
            } else {
                shrink(j, from, to, c, standby, exited);
            }
            jobs_event(j, "size", json_pack("{s:i, s:i, s:I}", "from", from, "to", to, "iteration",
                                           (json_int_t)proto_get_int(d, "iteration", 0)), now);
            j->procs = to;
            j->fold_cores = 0; /* the job's fold ends with its world (src/fold/fold.c) */
        }
    }
    j->size_seen_n = 0;
    if (c) jobs_cmd_drop(j, c);
    jobs_place(t, j);
}

void jobs_parked_exited(struct jobs *t, struct job *j, const json_t *d, double now)
{
    (void)now;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(d, "hosts"), k, v) {
        int h = host_of(t, k);
        long long n = json_integer_value(v);
        if (h < 0 || n < 1) continue;
        if (n > j->parked_on[h]) n = j->parked_on[h];
        j->parked_on[h] -= (int)n;
        j->exited += (int)n;
    }
    jobs_place(t, j);
}

/* A sample's size: adopted (guessed placement) only when three samples in a
 * row show it and no command of ductiled's is running (its "resized" event
 * follows the sample that first shows the new size). */
void jobs_size_seen(struct jobs *t, struct job *j, int procs, double now)
{
    if (procs == j->procs || procs < 1) {
        j->size_seen_n = 0;
        return;
    }
    for (int k = 0; k < j->ncmds; k++)
        if (j->cmds[k].state == CMD_TAKEN) return;
    j->size_seen_n = j->size_seen == procs ? j->size_seen_n + 1 : 1;
    j->size_seen = procs;
    if (j->size_seen_n < 3) return;
    resync(t, j, procs, now, "the job's samples show another size and no resize event came");
    j->size_seen_n = 0;
    jobs_place(t, j);
}

json_t *jobs_hosts_json(const struct jobs *t, const struct job *j)
{
    json_t *a = json_array();
    int unmanaged = 0;
    for (int r = 0; r < j->procs && j->rank_host; r++) unmanaged += j->rank_host[r] < 0;
    int *cnt = malloc(((size_t)t->rm->nhosts + 1) * sizeof *cnt);
    if (cnt) count_hosts(j, t->rm->nhosts, cnt);
    for (int h = 0; h < t->rm->nhosts; h++) {
        int p = cnt ? cnt[h] : jobs_procs_on(j, h), res = jobs_reserved_on(j, h);
        if (!p && !j->parked_on[h] && !res && !j->alloc[h]) continue;
        json_array_append_new(a, json_pack("{s:s, s:i, s:i, s:i, s:i}", "name", t->rm->hosts[h].name, "procs", p, "parked",
                                           j->parked_on[h], "reserved", res, "slots", j->alloc[h]));
    }
    if (unmanaged)
        json_array_append_new(a, json_pack("{s:n, s:i, s:i, s:i, s:i}", "name", "procs", unmanaged, "parked", 0,
                                           "reserved", 0, "slots", 0));
    free(cnt);
    return a;
}

json_t *jobs_rank_hosts_json(const struct jobs *t, const struct job *j)
{
    /* {host: rank set}: a counting sort of the ranks by host, O(P + H) ("null" for unmanaged ranks is left out) */
    int nh = t->rm->nhosts, *cnt = calloc((size_t)nh + 1, sizeof *cnt), *first = malloc(((size_t)nh + 1) * sizeof *first);
    int *byhost = malloc(((size_t)j->procs + 1) * sizeof *byhost);
    json_t *o = json_object();
    if (!cnt || !first || !byhost || !o || !j->rank_host) goto out;
    count_hosts(j, nh, cnt);
    for (int h = 0, at = 0; h < nh; h++) first[h] = at, at += cnt[h];
    for (int r = 0; r < j->procs; r++)
        if (j->rank_host[r] >= 0 && j->rank_host[r] < nh) byhost[first[j->rank_host[r]]++] = r;
    for (int h = 0, at = 0; h < nh; at += cnt[h], h++) {
        if (!cnt[h]) continue;
        char *s = rankset_encode(byhost + at, cnt[h]);
        if (s) json_object_set_new(o, t->rm->hosts[h].name, json_string(s));
        free(s);
    }
out:
    free(cnt), free(first), free(byhost);
    return o;
}

void jobs_place_save(const struct jobs *t, const struct job *j, json_t *o)
{
    json_t *ranks = jobs_rank_hosts_json(t, j), *parked = json_object(), *sb = json_array();
    for (int h = 0; h < t->rm->nhosts; h++)
        if (j->parked_on[h]) json_object_set_new(parked, t->rm->hosts[h].name, json_integer(j->parked_on[h]));
    for (int k = 0; k < j->nstandby; k++)
        json_array_append_new(sb, j->standby_host[k] >= 0 ? json_string(t->rm->hosts[j->standby_host[k]].name) : json_null());
    json_object_set_new(o, "rank_hosts", ranks);
    json_object_set_new(o, "parked", parked);
    json_object_set_new(o, "standby", sb);
    json_object_set_new(o, "exited", json_integer(j->exited));
    json_object_set_new(o, "guessed", json_boolean(j->guessed));
    json_object_set_new(o, "fold_cores", json_integer(j->fold_cores));
}

void jobs_place_load(struct jobs *t, struct job *j, const json_t *o)
{
    const json_t *ranks = json_object_get(o, "rank_hosts");
    if (json_is_object(ranks) || (json_is_array(ranks) && (int)json_array_size(ranks) == j->procs)) {
        json_t *reg = json_pack("{s:O}", "rank_hosts", ranks);
        jobs_place_registered(t, j, reg);
        json_decref(reg);
    } else {
        jobs_place_registered(t, j, o); /* an older state file: its hosts as blocks */
        j->guessed = 1;
    }
    j->guessed |= json_is_true(json_object_get(o, "guessed"));
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)json_object_get(o, "parked"), k, v) {
        int h = rm_find(t->rm, k);
        long long n = json_integer_value(v);
        if (h >= 0 && n > 0 && n <= PROTO_MAX_PROCS) j->parked_on[h] += (int)n;
    }
    size_t i;
    json_array_foreach(json_object_get(o, "standby"), i, v) {
        if ((int)i >= PROTO_MAX_PROCS) break;
        if (j->nstandby == j->standby_cap) {
            int cap = j->standby_cap ? 2 * j->standby_cap : 8;
            int *nv = realloc(j->standby_host, (size_t)cap * sizeof *nv);
            if (!nv) break;
            j->standby_host = nv, j->standby_cap = cap;
        }
        j->standby_host[j->nstandby++] = json_is_string(v) ? rm_find(t->rm, json_string_value(v)) : -1;
    }
    long long ex = proto_get_int(o, "exited", 0), fc = proto_get_int(o, "fold_cores", 0);
    j->exited = ex >= 0 && ex <= PROTO_MAX_PROCS ? (int)ex : 0;
    j->fold_cores = fc >= 0 && fc <= PROTO_MAX_PROCS ? (int)fc : 0;
}
