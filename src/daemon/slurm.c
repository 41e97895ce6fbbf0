/* slurm.c -- ductiled's resources from a Slurm allocation; see slurm.h and
 * docs/cluster.md.  Everything Slurm says comes from scontrol, run with
 * fork/exec and a bounded wait (SLURM_WAIT seconds, then SIGKILL). */
#include "config.h"

#include "slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "daemon.h"
#include "slurm_grow.h"
#include "slurm_launch.h"
#include "slurm_run.h"

#define SLURM_OUT_MAX (256 * 1024)
#define MAX_PLACED 256

/* where the processes of one ductile job run: host index (in rm) per rank */
struct placement {
    int job, used;
    int n, *host;          /* rank -> rm host, n = the job's size as ductiled knows it */
    int known;             /* 0: the job resized without ductiled (schedule): no give-back */
    int npend, *pend;      /* hosts granted to an expansion not yet reported */
    int nleave, *leave;    /* ranks ductiled chose for a shrink not yet reported */
    struct slurm_launch la; /* mpiexec or srun (direct launch), and what that allows */
    int *parked;           /* per rm host: processes that left the world but still run */
    json_t *pmix;          /* what PMIx told the job at start (src/cluster/pmix.c), or NULL */
};

static struct {
    int on;
    char id[32];
    double period, last;
    struct rm *rm;
    int *shrunk;   /* per rm host: a shrink took processes from it (a candidate to give back) */
    int self;      /* rm host ductiled runs on (never given back), -1 unknown */
    int grow;      /* --slurm-grow: ask Slurm for hosts when the allocation is full */
    char frozen[256]; /* why Slurm will not change the job's node list any more ("": it will) */
    int noacct;       /* Slurm has no accounting storage: a resized job cannot change again */
    struct placement pl[MAX_PLACED];
} S;

static struct placement *place_of(int job, int create)
{
    struct placement *fr = NULL;
    for (int i = 0; i < MAX_PLACED; i++) {
        if (S.pl[i].used && S.pl[i].job == job) return &S.pl[i];
        if (!S.pl[i].used && !fr) fr = &S.pl[i];
    }
    if (!create || !fr) return NULL;
    memset(fr, 0, sizeof *fr);
    fr->used = 1;
    fr->job = job;
    return fr;
}

int slurm_enabled(void) { return S.on; }

int slurm_enable_grow(char *err, size_t errlen)
{
    S.grow = slurm_grow_hosts(S.rm, err, errlen) == 0; /* S.shrunk has room for RM_MAX_HOSTS */
    return S.grow ? 0 : -1;
}

int slurm_make_room(const struct job *j, int n, char *reason, size_t rlen)
{
    const struct placement *p = S.on ? place_of(j->id, 0) : NULL;
    if (p && slurm_launch_refuse(&p->la, j->id, reason, rlen)) return -1; /* the job would refuse it too */
    if (!S.on || !S.grow || n < 1 || rm_free_slots(S.rm) >= n) return 0;
    if (strcmp(j->mpi, "openmpi") != 0) {
        int rc = slurm_grow_room(S.rm, S.id, n, S.shrunk, reason, rlen);
        if (rc == 0 && S.noacct) slurm_freeze(S.id, S.frozen, sizeof S.frozen);
        return rc;
    }
    snprintf(reason, rlen, "not enough free slots: %d requested, %d of %d free in %s; not asking Slurm for more: Open MPI's "
             "mpiexec cannot start processes on a host added to its allocation after it started", n, rm_free_slots(S.rm),
             rm_total(S.rm), S.rm->source);
    return -1;
}

/* ------------------------------------------------------------ allocation */

static char outbuf[SLURM_OUT_MAX];

int slurm_init(struct rm *rm, const char *jobid, double sync_period, char *err, size_t errlen)
{
    memset(rm, 0, sizeof *rm);
    if (!jobid || !*jobid) jobid = getenv("SLURM_JOB_ID");
    if (!jobid || !*jobid) {
        snprintf(err, errlen, "--slurm: no Slurm job (SLURM_JOB_ID is not set: run ductiled inside salloc/sbatch, or give --slurm-job J)");
        return -1;
    }
    if (strspn(jobid, "0123456789") != strlen(jobid) || strlen(jobid) >= sizeof S.id) {
        snprintf(err, errlen, "--slurm: '%s' is not a Slurm job id", jobid);
        return -1;
    }
    char *argv[] = {"scontrol", "show", "job", "-o", (char *)jobid, NULL};
    char nodelist[8192] = "", state[64] = "", numcpus[32] = "";
    if (slurm_run(argv, outbuf, sizeof outbuf) != 0) {
        slurm_chomp(outbuf);
        snprintf(err, errlen, "--slurm: scontrol show job %s failed: %.300s", jobid, outbuf);
        return -1;
    }
    slurm_field(outbuf, "NodeList", nodelist, sizeof nodelist);
    slurm_field(outbuf, "JobState", state, sizeof state);
    slurm_field(outbuf, "NumCPUs", numcpus, sizeof numcpus);
    if (strcmp(state, "RUNNING") != 0) {
        snprintf(err, errlen, "--slurm: Slurm job %s is %s, not RUNNING", jobid, state[0] ? state : "unknown");
        return -1;
    }
    if (!nodelist[0] || !strcmp(nodelist, "(null)")) {
        snprintf(err, errlen, "--slurm: Slurm job %s has no node list", jobid);
        return -1;
    }
    static char names[SLURM_OUT_MAX];
    if (slurm_hostnames(nodelist, names, sizeof names) != 0) {
        snprintf(err, errlen, "--slurm: scontrol show hostnames %s failed: %.300s", nodelist, names);
        return -1;
    }
    int cpus[RM_MAX_HOSTS], ncpus = -1;
    const char *env_id = getenv("SLURM_JOB_ID"), *env_cpn = getenv("SLURM_JOB_CPUS_PER_NODE");
    const char *env_nl = getenv("SLURM_JOB_NODELIST");
    /* the environment's CPUs per node hold for the node list it names */
    if (env_id && !strcmp(env_id, jobid) && env_cpn && env_nl && !strcmp(env_nl, nodelist))
        ncpus = slurm_parse_cpus(env_cpn, cpus, RM_MAX_HOSTS);
    if (slurm_fill_hosts(rm, names, ncpus >= 0 ? cpus : NULL, ncpus, strtol(numcpus, NULL, 10), err, errlen) != 0) {
        rm_destroy(rm);
        return -1;
    }
    if (rm->nhosts == 0) {
        snprintf(err, errlen, "--slurm: Slurm job %s lists no hosts", jobid);
        return -1;
    }
    snprintf(rm->source, sizeof rm->source, "Slurm job %s", jobid);
    memset(&S, 0, sizeof S);
    S.on = 1;
    snprintf(S.id, sizeof S.id, "%s", jobid);
    S.period = sync_period > 0 ? sync_period : 5.0;
    S.last = net_now();
    S.rm = rm;
    S.shrunk = calloc(RM_MAX_HOSTS, sizeof(int));
    if (!S.shrunk) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char me[256] = "";
    gethostname(me, sizeof me - 1);
    S.self = rm_find(rm, me);
    S.noacct = slurm_no_accounting();
    return 0;
}

/* ------------------------------------------------------------ placement */

static void place_free(struct placement *p)
{
    free(p->host);
    free(p->pend);
    free(p->leave);
    free(p->parked);
    json_decref(p->pmix);
    memset(p, 0, sizeof *p);
}

static int parked_on(int h)
{
    int n = 0;
    for (int i = 0; i < MAX_PLACED; i++)
        if (S.pl[i].used && S.pl[i].parked) n += S.pl[i].parked[h];
    return n;
}

static int procs_on(int h)
{
    int n = 0;
    for (int i = 0; i < MAX_PLACED; i++)
        if (S.pl[i].used)
            for (int r = 0; r < S.pl[i].n; r++) n += S.pl[i].host[r] == h;
    return n;
}

/* PMIx facts the job sent: logged; under --slurm, hosts PMIx names that are
 * not in the allocation are reported (ductiled's view and the MPI's differ) */
static void pmix_facts(const struct job *j, const json_t *pm, struct placement *p)
{
    if (!json_is_object(pm)) return;
    const char *nl = json_string_value(json_object_get(pm, "node_list"));
    long long js = json_integer_value(json_object_get(pm, "job_size")), us = json_integer_value(json_object_get(pm, "univ_size"));
    logmsg("job %d: PMIx: namespace %.64s, job size %lld, universe size %lld, nodes %.200s", j->id,
           json_string_value(json_object_get(pm, "nspace")) ? json_string_value(json_object_get(pm, "nspace")) : "?", js, us,
           nl ? nl : "?");
    if (!p) return;
    json_decref(p->pmix);
    p->pmix = json_deep_copy(pm);
    if (!nl) return;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", nl);
    for (char *save = NULL, *h = strtok_r(buf, ",", &save); h; h = strtok_r(NULL, ",", &save))
        if (rm_find(S.rm, h) < 0)
            logmsg("job %d: PMIx names host %.64s, which is not in %s", j->id, h, S.rm->source);
}

void slurm_registered(const struct job *j, const json_t *req)
{
    if (!S.on) {
        pmix_facts(j, json_object_get(req, "pmix"), NULL);
        return;
    }
    int resumed = proto_get_int(req, "job", 0) == j->id;
    struct placement *p = place_of(j->id, 0);
    if (p && resumed) return; /* the same job back on a new connection: nothing moved */
    if (!p) p = place_of(j->id, 1);
    if (!p) return;
    free(p->host);
    free(p->pend);
    free(p->leave);
    p->host = p->pend = p->leave = NULL;
    p->npend = p->nleave = 0;
    p->n = j->procs;
    p->known = 1;
    slurm_launch_read(&p->la, j->id, j->mpi, req, S.id);
    pmix_facts(j, json_object_get(req, "pmix"), p);
    p->host = calloc((size_t)(p->n ? p->n : 1), sizeof(int));
    if (!p->parked) p->parked = calloc((size_t)S.rm->nhosts, sizeof(int));
    if (!p->host || !p->parked) {
        p->known = 0;
        return;
    }
    /* rank_hosts (one per rank) when the job sends it, else hosts {name,
     * procs} taken as blocks of consecutive ranks (mpiexec's default) */
    const json_t *rh = json_object_get(req, "rank_hosts");
    if (json_is_array(rh) && (int)json_array_size(rh) == p->n) {
        for (int r = 0; r < p->n; r++) {
            const char *h = json_string_value(json_array_get(rh, (size_t)r));
            p->host[r] = h ? rm_find(S.rm, h) : -1;
            if (p->host[r] < 0) p->known = 0;
        }
    } else {
        int r = 0;
        size_t i;
        json_t *e;
        json_array_foreach(j->hosts, i, e) {
            int h = rm_find(S.rm, json_string_value(json_object_get(e, "name")));
            int c = (int)json_integer_value(json_object_get(e, "procs"));
            if (h < 0) p->known = 0;
            for (int k = 0; k < c && r < p->n; k++) p->host[r++] = h;
        }
        if (r != p->n) p->known = 0;
    }
    if (resumed) {
        /* registered with an earlier ductiled: what it sends is its size at
         * start, not where its processes run now */
        p->known = 0;
        logmsg("slurm: job %d came back from an earlier ductiled: where its processes run is not known; no host is given back for it", j->id);
        return;
    }
    if (!p->known) logmsg("slurm: job %d: where its processes run is not known (hosts outside %s?): no host is given back for it", j->id, S.rm->source);
}

void slurm_granted(const struct job *j, const int *where, int n)
{
    struct placement *p = S.on ? place_of(j->id, 0) : NULL;
    if (!p) return;
    if (j->pending == 0) p->npend = 0; /* grants the job refused or let expire are gone */
    int *np = realloc(p->pend, (size_t)(p->npend + n) * sizeof(int));
    if (!np) {
        p->known = 0;
        return;
    }
    p->pend = np;
    memcpy(p->pend + p->npend, where, (size_t)n * sizeof(int));
    p->npend += n;
}

void slurm_choose_ranks(const struct job *j, int n, json_t *args)
{
    struct placement *p = S.on ? place_of(j->id, 0) : NULL;
    if (!p || !p->known || n < 1 || n >= p->n) return;
    const json_t *given = json_object_get(args, "ranks");
    free(p->leave);
    p->leave = calloc((size_t)n, sizeof(int));
    p->nleave = 0;
    if (!p->leave) return;
    if (json_array_size(given) > 0) {
        size_t i;
        json_t *e;
        json_array_foreach(given, i, e) if ((int)i < n) p->leave[p->nleave++] = (int)json_integer_value(e);
        return;
    }
    /* empty hosts: the host with the fewest of the job's processes first
     * (ties: the later host), never rank 0; within a host the highest ranks */
    int nh = S.rm->nhosts;
    int *cnt = calloc((size_t)nh, sizeof(int));
    char *taken = calloc((size_t)p->n, 1);
    if (!cnt || !taken) {
        free(cnt);
        free(taken);
        return;
    }
    for (int r = 0; r < p->n; r++)
        if (p->host[r] >= 0) cnt[p->host[r]]++;
    while (p->nleave < n) {
        int best = -1;
        for (int h = 0; h < nh; h++) {
            int avail = cnt[h] - (h == p->host[0]);
            if (avail <= 0) continue;
            if (best < 0 || cnt[h] <= cnt[best]) best = h;
        }
        if (best < 0) break;
        for (int r = p->n - 1; r > 0 && p->nleave < n; r--)
            if (!taken[r] && p->host[r] == best) {
                taken[r] = 1;
                p->leave[p->nleave++] = r;
                cnt[best]--;
                break;
            }
    }
    free(cnt);
    free(taken);
    if (p->nleave == n) {
        json_t *a = json_array();
        for (int k = 0; k < n; k++) json_array_append_new(a, json_integer(p->leave[k]));
        json_object_set_new(args, "ranks", a);
    }
}

/* ------------------------------------------------------------ give back */

/* Why host h cannot be given back now (NULL: it can). */
static const char *hold_reason(int h, char *buf, size_t len)
{
    if (S.rm->hosts[h].away) return "not in the allocation";
    if (h == S.self) return "ductiled runs there";
    int used = S.rm->hosts[h].used, procs = procs_on(h);
    if (used || procs) {
        snprintf(buf, len, "%d process(es) of ductile jobs run there (%d slots in use)", procs, used);
        return buf;
    }
    if (parked_on(h)) {
        snprintf(buf, len, "%d process(es) that left their world still run there (parked until they exit)", parked_on(h));
        return buf;
    }
    if (S.frozen[0]) return S.frozen;
    for (int i = 0; i < MAX_PLACED; i++)
        if (S.pl[i].used && S.pl[i].la.openmpi)
            return "an Open MPI job runs: its mpiexec ends the whole job when a host of its daemons leaves the allocation";
    for (int i = 0; i < MAX_PLACED; i++)
        if (S.pl[i].used && !S.pl[i].known) return "a job's placement is not known (it resized without ductiled)";
    int up = 0;
    for (int i = 0; i < S.rm->nhosts; i++) up += !S.rm->hosts[i].away;
    if (up <= 1) return "the job's last host";
    return NULL;
}

static void give_back(void)
{
    int nh = S.rm->nhosts;
    char keep[8192] = "", why[160], names[1024] = "";
    size_t kl = 0, nl = 0;
    int *go = calloc((size_t)nh, sizeof(int)), ngo = 0;
    if (!go) return;
    for (int h = 0; h < nh; h++) {
        if (S.rm->hosts[h].away) continue;
        if (S.shrunk[h] && !hold_reason(h, why, sizeof why)) {
            go[h] = 1;
            ngo++;
            nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", nl ? "," : "", S.rm->hosts[h].name);
            if (nl >= sizeof names) nl = sizeof names - 1;
        } else {
            kl += (size_t)snprintf(keep + kl, sizeof keep - kl, "%s%s", kl ? "," : "", S.rm->hosts[h].name);
            if (kl >= sizeof keep) kl = sizeof keep - 1;
        }
    }
    if (!ngo || !kl) {
        free(go);
        return;
    }
    char arg1[64], arg2[8300];
    snprintf(arg1, sizeof arg1, "JobId=%s", S.id);
    snprintf(arg2, sizeof arg2, "NodeList=%s", keep);
    char *argv[] = {"scontrol", "update", arg1, arg2, NULL};
    double t0 = net_now();
    int rc = slurm_run(argv, outbuf, sizeof outbuf);
    double dt = net_now() - t0;
    slurm_chomp(outbuf);
    if (rc != 0 && strstr(outbuf, "DB index is being set")) { /* slurmctld waited 5 s for it already */
        slurm_freeze(S.id, S.frozen, sizeof S.frozen);
        logmsg("slurm: giving back %s failed (%.300s): %s; not trying again", names, outbuf, S.frozen);
    } else if (rc != 0) {
        /* tried again at the next check (slurm_tick, every --slurm-sync s); not
         * at once: that would ask Slurm at every turn of the poll loop */
        logmsg("slurm: giving back %s to Slurm job %s failed (%.300s); they stay in ductiled's view", names, S.id, outbuf);
    } else {
        for (int h = 0; h < nh; h++)
            if (go[h]) S.rm->hosts[h].away = RM_RELEASED;
        logmsg("slurm: gave %s back to Slurm (job %s keeps %s) in %.3f s", names, S.id, keep, dt);
        slurm_resize_files_remove(S.id);
        if (S.noacct) slurm_freeze(S.id, S.frozen, sizeof S.frozen);
        state_dirty = 1;
    }
    free(go);
}

static void after_resize(struct placement *p, const json_t *d)
{
    const char *status = json_string_value(json_object_get(d, "status"));
    int from = (int)json_integer_value(json_object_get(d, "from")), to = (int)json_integer_value(json_object_get(d, "to"));
    if (status && strcmp(status, "ok") != 0) { /* failed: nothing moved */
        if (p->nleave && to < from) p->nleave = 0;
        /* the new processes of a failed expansion that park (Open MPI 4) still run on the hosts
         * granted to it until the job ends (issue 22, item 7): those hosts are not given back */
        long long pk = json_integer_value(json_object_get(d, "parked"));
        for (int k = 0; p->parked && k < p->npend && k < pk; k++)
            if (p->pend[k] >= 0 && p->pend[k] < S.rm->nhosts) p->parked[p->pend[k]]++;
        if (p->npend && to > from) p->npend = 0;
        return;
    }
    if (from != p->n || from < 1 || to < 1 || to > PROTO_MAX_PROCS) {
        /* not the size ductiled placed (a resize it did not see): where the
         * processes run is no longer known, and nothing is indexed by it */
        p->known = 0;
        p->npend = p->nleave = 0;
        return;
    }
    if (to > from) {
        int add = to - from;
        if (p->npend < add) {
            p->known = 0; /* not ductiled's expansion (a schedule in the job) */
            return;
        }
        int *nh = realloc(p->host, (size_t)to * sizeof(int));
        if (!nh) {
            p->known = 0;
            return;
        }
        p->host = nh;
        for (int k = 0; k < add; k++) {
            p->host[from + k] = p->pend[k];
        }
        memmove(p->pend, p->pend + add, (size_t)(p->npend - add) * sizeof(int));
        p->npend -= add;
        p->n = to;
    } else if (to < from) {
        if (p->nleave != from - to || !p->known) {
            p->known = 0;
            p->nleave = 0;
            return;
        }
        int all_exited = json_integer_value(json_object_get(d, "exited")) >= p->nleave;
        char *gone = calloc((size_t)p->n, 1);
        if (!gone) return;
        for (int k = 0; k < p->nleave; k++)
            if (p->leave[k] >= 0 && p->leave[k] < p->n) gone[p->leave[k]] = 1;
        int w = 0;
        for (int r = 0; r < p->n; r++) {
            if (gone[r]) {
                /* the removed processes park, unless the job says they exited at
                 * once (a whole spawned group: "exited" in the resized event) */
                if (p->host[r] >= 0) p->parked[p->host[r]] += !all_exited, S.shrunk[p->host[r]] = 1;
            } else {
                p->host[w++] = p->host[r];
            }
        }
        free(gone);
        p->n = w;
        p->nleave = 0;
    }
}

void slurm_event(struct job *j, const char *kind, const json_t *details)
{
    struct placement *p = S.on ? place_of(j->id, 0) : NULL;
    if (!p) return;
    if (!strcmp(kind, "resized")) {
        after_resize(p, details);
        if (p->known) { /* the job's slots are where its processes are */
            for (int h = 0; h < S.rm->nhosts; h++) {
                int want = 0;
                for (int r = 0; r < p->n; r++) want += p->host[r] == h;
                for (int k = 0; k < p->npend; k++) want += p->pend[k] == h;
                S.rm->hosts[h].used += want - j->alloc[h];
                if (S.rm->hosts[h].used < 0) S.rm->hosts[h].used = 0;
                j->alloc[h] = want;
            }
        }
    } else if (!strcmp(kind, "exited")) {
        /* processes that had left the world exited: {"hosts": {"NAME": n}} */
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)json_object_get(details, "hosts"), k, v) {
            int h = rm_find(S.rm, k);
            long long n = json_integer_value(v);
            if (h < 0 || n < 1 || !p->parked) continue;
            p->parked[h] -= n > p->parked[h] ? p->parked[h] : (int)n;
        }
    } else {
        return;
    }
    give_back();
}

void slurm_job_ended(const struct job *j)
{
    struct placement *p = S.on ? place_of(j->id, 0) : NULL;
    if (!p) return;
    /* its processes (parked ones too) are gone with the job (mpiexec has
     * ended); the hosts its shrinks emptied stay in the allocation for the
     * next job (only a shrink gives a host back) */
    place_free(p);
    for (int h = 0; h < S.rm->nhosts; h++) S.shrunk[h] = S.shrunk[h] && parked_on(h);
}

/* ------------------------------------------------------------ sync */

void slurm_tick(double now)
{
    if (!S.on || now - S.last < S.period) return;
    S.last = now;
    char *argv[] = {"scontrol", "show", "job", "-o", S.id, NULL};
    char nodelist[8192] = "", state[64] = "";
    if (slurm_run(argv, outbuf, sizeof outbuf) != 0) {
        slurm_chomp(outbuf);
        logmsg("slurm: cannot check Slurm job %s: %.300s", S.id, outbuf);
        return;
    }
    slurm_field(outbuf, "NodeList", nodelist, sizeof nodelist);
    slurm_field(outbuf, "JobState", state, sizeof state);
    static char names[SLURM_OUT_MAX];
    names[0] = '\0';
    if (strcmp(state, "RUNNING") != 0) {
        for (int h = 0; h < S.rm->nhosts; h++)
            if (!S.rm->hosts[h].away) S.rm->hosts[h].away = RM_LOST;
        logmsg("slurm: Slurm job %s is %s: no hosts left to manage", S.id, state[0] ? state : "gone");
        S.period = 1e9;
        state_dirty = 1;
        return;
    }
    if (slurm_hostnames(nodelist, names, sizeof names) != 0) return;
    /* node states: a host Slurm marks down or not responding is lost */
    char *sargv[] = {"sinfo", "-h", "-N", "-o", "%N %t", "-n", nodelist, NULL};
    static char states[SLURM_OUT_MAX];
    if (slurm_run(sargv, states, sizeof states) != 0) states[0] = '\0';
    for (int h = 0; h < S.rm->nhosts; h++) {
        if (S.rm->hosts[h].away) continue;
        const char *nm = S.rm->hosts[h].name;
        int in = 0;
        size_t l = strlen(nm);
        for (const char *q = names; (q = strstr(q, nm)) != NULL; q += l)
            if ((q == names || q[-1] == '\n') && (q[l] == '\n' || q[l] == '\0')) in = 1;
        char st[32] = "";
        for (const char *q = states; (q = strstr(q, nm)) != NULL; q += l)
            if ((q == states || q[-1] == '\n') && q[l] == ' ') {
                sscanf(q + l + 1, "%31s", st);
                break;
            }
        int bad = !in || strstr(st, "down") || strchr(st, '*') || strstr(st, "fail");
        if (bad) {
            S.rm->hosts[h].away = RM_LOST;
            logmsg("slurm: host %s is lost (%s%s): %d process(es) of ductile jobs were there; no more processes go there",
                   nm, in ? "Slurm says " : "no longer in the Slurm job's node list", in ? st : "", procs_on(h));
            state_dirty = 1;
        }
    }
    give_back(); /* what a refused or failed give-back left behind */
}

json_t *slurm_view(void)
{
    if (!S.on) return NULL;
    json_t *a = json_array();
    char why[160];
    for (int h = 0; h < S.rm->nhosts; h++) {
        const char *r = S.rm->hosts[h].away ? NULL : hold_reason(h, why, sizeof why);
        json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:i}", "name", S.rm->hosts[h].name, "cpus", S.rm->hosts[h].slots, "state",
                              rm_host_state(S.rm, h), "procs", procs_on(h), "parked", parked_on(h));
        if (r) json_object_set_new(o, "kept_because", json_string(r));
        json_array_append_new(a, o);
    }
    json_t *pj = json_object();
    for (int i = 0; i < MAX_PLACED; i++)
        if (S.pl[i].used && S.pl[i].pmix) {
            char k[16];
            snprintf(k, sizeof k, "%d", S.pl[i].job);
            json_object_set(pj, k, S.pl[i].pmix);
        }
    return json_pack("{s:s, s:o, s:o}", "job", S.id, "hosts", a, "pmix", pj);
}
