/* slurm.c -- ductiled's part for the resources of a Slurm allocation
 * (ductiled --slurm, docs/cluster.md): the job's hosts and CPUs from Slurm's
 * environment and scontrol (the resource manager's hosts), shrinks that
 * empty hosts (the ranks it chooses when none are named), hosts given back
 * to Slurm when a shrink emptied them and nothing runs there any more
 * (scontrol update JobId=J NodeList=...), a periodic check that ductiled's
 * view matches Slurm's (hosts lost, the job ended), and --slurm-grow's
 * growth beyond the allocation (slurm_grow.c).  Where each job's processes
 * run is the job's own picture (jobs_place.c).  Everything Slurm says comes from scontrol and sinfo: at
 * start-up with a bounded wait (slurm_run), afterwards without waiting
 * (children.c: the loop polls their output and reaps them; killed after
 * SLURM_WAIT seconds): the periodic check and the give-back are chains of
 * such commands, one of each at a time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "../common/rankset.h"
#include "children.h"
#include "core.h"
#include "rankpick.h"
#include "slurm_grow.h"
#include "slurm_launch.h"
#include "slurm_run.h"

#define SLURM_OUT_MAX (256 * 1024)

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
    unsigned grown;   /* growths completed (a check begun before one is stale) */
} S;

static int slurm_enable_grow(char *err, size_t errlen)
{
    S.grow = slurm_grow_hosts(S.rm, err, errlen) == 0; /* S.shrunk has room for RM_MAX_HOSTS */
    return S.grow ? 0 : -1;
}

/* the caller's continuation, after what a growth means for give-backs */
static struct {
    core_room_fn cont;
    void *arg;
} R;

static void room_made(void *arg, int ok, const char *reason)
{
    (void)arg;
    if (ok) S.grown++;
    if (ok && S.noacct) slurm_freeze(S.id, S.frozen, sizeof S.frozen);
    R.cont(R.arg, ok, reason);
}

static int slurm_make_room(const struct job *j, int n, core_room_fn cont, void *arg, char *reason, size_t rlen)
{
    if (S.on && slurm_launch_refuse(j, reason, rlen)) return -1; /* the job would refuse it too */
    if (!S.on || !S.grow || n < 1 || rm_free_slots(S.rm) >= n) return 0;
    if (strcmp(j->mpi, "openmpi") != 0) {
        R.cont = cont, R.arg = arg;
        return slurm_grow_room(S.rm, S.id, n, S.shrunk, room_made, NULL, reason, rlen);
    }
    snprintf(reason, rlen, "not enough free slots: %d requested, %d of %d free in %s; not asking Slurm for more: Open MPI's "
             "mpiexec cannot start processes on a host added to its allocation after it started", n, rm_free_slots(S.rm),
             rm_total(S.rm), S.rm->source);
    return -1;
}

/* ------------------------------------------------------------ allocation */

static char outbuf[SLURM_OUT_MAX];

static int slurm_init(struct rm *rm, const char *jobid, double sync_period, char *err, size_t errlen)
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

/* Where each job's processes run is the job's own model (jobs_place.c):
 * rank -> host from the registration, the hosts granted to its expansions,
 * the ranks its shrinks removed; here only what Slurm needs of it. */

static int live(const struct job *j) { return j->state == JOB_RUNNING || j->state == JOB_DISCONNECTED; }

static int parked_on(int h)
{
    int n = 0;
    for (int i = 0; i < jobs.n; i++)
        if (live(jobs.v[i])) n += jobs.v[i]->parked_on[h];
    return n;
}

static int procs_on(int h)
{
    int n = 0;
    for (int i = 0; i < jobs.n; i++)
        if (live(jobs.v[i])) n += jobs_procs_on(jobs.v[i], h);
    return n;
}

/* PMIx facts the job sent: logged; under --slurm, hosts PMIx names that are
 * not in the allocation are reported (ductiled's view and the MPI's differ) */
static void pmix_facts(const struct job *j, const json_t *pm)
{
    if (!json_is_object(pm)) return;
    const char *nl = json_string_value(json_object_get(pm, "node_list"));
    long long js = json_integer_value(json_object_get(pm, "job_size")), us = json_integer_value(json_object_get(pm, "univ_size"));
    logmsg("job %d: PMIx: namespace %.64s, job size %lld, universe size %lld, nodes %.200s", j->id,
           json_string_value(json_object_get(pm, "nspace")) ? json_string_value(json_object_get(pm, "nspace")) : "?", js, us,
           nl ? nl : "?");
    if (!S.on || !nl) return;
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", nl);
    for (char *save = NULL, *h = strtok_r(buf, ",", &save); h; h = strtok_r(NULL, ",", &save))
        if (rm_find(S.rm, h) < 0)
            logmsg("job %d: PMIx names host %.64s, which is not in %s", j->id, h, S.rm->source);
}

static void slurm_registered(struct job *j, const json_t *req)
{
    pmix_facts(j, json_object_get(req, "pmix"));
    if (!S.on) return;
    slurm_launch_log(j, S.id);
    int unmanaged = 0;
    for (int r = 0; r < j->procs; r++) unmanaged += j->rank_host[r] < 0;
    if (j->guessed || unmanaged)
        logmsg("slurm: job %d: where its processes run is not known (%s): no host is given back while it runs", j->id,
               unmanaged ? "hosts outside the allocation" : "resizes ductiled did not place");
}

static void slurm_choose_ranks(const struct job *j, int n, json_t *args)
{
    const json_t *given = json_object_get(args, "ranks"); /* a rank set (the schema made arrays one) */
    if (!S.on || j->guessed || n < 1 || n >= j->procs || (given && json_string_length(given) > 0)) return;
    /* empty hosts: the host with the fewest of the job's processes first
     * (ties: the later host), never rank 0; within a host the highest ranks
     * (rankpick.c, O(P + H log H)); sent as a rank set ("0-511,1024-2047") */
    int *leave = malloc((size_t)n * sizeof(int));
    if (!leave) return;
    if (rankpick_empty_hosts(j->rank_host, j->procs, S.rm->nhosts, n, leave, NULL) == n) {
        unsigned char *m = calloc((size_t)j->procs, 1);
        char *set = NULL;
        for (int k = 0; m && k < n; k++) m[leave[k]] = 1;
        if (m && (set = rankset_encode_marked(m, j->procs, 1)) != NULL) json_object_set_new(args, "ranks", json_string(set));
        free(set);
        free(m);
    }
    free(leave);
}

/* ------------------------------------------------------------ give back */

/* The live jobs' processes on every host and whether some job's placement
 * is not known, counted once for a pass over the hosts (give_back, the
 * slots view): O(ranks + hosts), not a pass over every rank per host. */
static struct {
    int *procs, unknown, valid;
} K;

static void census_begin(void)
{
    free(K.procs);
    K.procs = calloc((size_t)S.rm->nhosts + 1, sizeof(int));
    K.unknown = 0;
    K.valid = K.procs != NULL;
    for (int i = 0; K.valid && i < jobs.n; i++) {
        const struct job *j = jobs.v[i];
        if (!live(j)) continue;
        K.unknown |= j->guessed;
        for (int r = 0; r < j->procs && j->rank_host; r++) {
            if (j->rank_host[r] >= 0 && j->rank_host[r] < S.rm->nhosts) K.procs[j->rank_host[r]]++;
            else K.unknown = 1;
        }
    }
}

static void census_end(void) { K.valid = 0; }

/* Why host h cannot be given back now (NULL: it can). */
static const char *hold_reason(int h, char *buf, size_t len)
{
    if (S.rm->hosts[h].away) return "not in the allocation";
    if (h == S.self) return "ductiled runs there";
    int used = S.rm->hosts[h].used, procs = K.valid ? K.procs[h] : procs_on(h);
    if (procs || (used && !parked_on(h))) {
        snprintf(buf, len, "%d process(es) of ductile jobs run there (%d slots in use)", procs, used);
        return buf;
    }
    int ompi = 0;
    for (int i = 0; i < jobs.n && !ompi; i++) ompi = live(jobs.v[i]) && slurm_launch_ompi_mpiexec(jobs.v[i]);
    if (parked_on(h)) { /* they hold their slots there */
        snprintf(buf, len, "%d process(es) that left their world still run there (parked until they exit%s)", parked_on(h),
                 ompi ? "; under Open MPI's mpiexec that is the job's end" : "");
        return buf;
    }
    if (S.frozen[0]) return S.frozen;
    if (ompi) return "an Open MPI job runs: its mpiexec ends the whole job when a host of its daemons leaves the allocation";
    int unknown = K.valid && K.unknown;
    for (int i = 0; !K.valid && !unknown && i < jobs.n; i++) {
        int unmanaged = 0;
        for (int r = 0; r < jobs.v[i]->procs && jobs.v[i]->rank_host; r++) unmanaged += jobs.v[i]->rank_host[r] < 0;
        unknown = live(jobs.v[i]) && (jobs.v[i]->guessed || unmanaged);
    }
    if (unknown) return "a job's placement is not known (it resized without ductiled, or runs outside the allocation)";
    int up = 0;
    for (int i = 0; i < S.rm->nhosts; i++) up += !S.rm->hosts[i].away;
    if (up <= 1) return "the job's last host";
    return NULL;
}

/* The give-back in flight (one at a time): scontrol update JobId=J
 * NodeList=KEEP; the hosts going are "releasing" (nothing is granted on
 * them) until Slurm answers; another request waits for the answer. */
static struct {
    int busy, again;
    double t0;
    char names[1024], keep[8192];
} G;

static void give_back(void);

static void given_back(void *arg, int rc, char *out)
{
    (void)arg;
    double dt = net_now() - G.t0;
    slurm_chomp(out);
    int nh = S.rm->nhosts;
    if (rc == 0) {
        for (int h = 0; h < nh; h++)
            if (S.rm->hosts[h].away == RM_RELEASING) S.rm->hosts[h].away = RM_RELEASED, S.shrunk[h] = 0;
        logmsg("slurm: gave %s back to Slurm (job %s keeps %s) in %.3f s", G.names, S.id, G.keep, dt);
        slurm_resize_files_remove(S.id);
        if (S.noacct) slurm_freeze(S.id, S.frozen, sizeof S.frozen);
    } else {
        for (int h = 0; h < nh; h++)
            if (S.rm->hosts[h].away == RM_RELEASING) S.rm->hosts[h].away = RM_UP;
        if (strstr(out, "DB index is being set")) { /* slurmctld waited 5 s for it already */
            slurm_freeze(S.id, S.frozen, sizeof S.frozen);
            logmsg("slurm: giving back %s failed (%.300s): %s; not trying again", G.names, out, S.frozen);
        } else {
            /* tried again at the next check (slurm_tick, every --slurm-sync s); not
             * at once: that would ask Slurm at every turn of the poll loop */
            logmsg("slurm: giving back %s to Slurm job %s failed (%.300s); they stay in ductiled's view", G.names, S.id, out);
            G.again = 0;
        }
    }
    state_dirty = 1;
    G.busy = 0;
    if (G.again) give_back();
}

static void give_back(void)
{
    if (G.busy) {
        G.again = 1; /* after the answer to the one in flight */
        return;
    }
    G.again = 0;
    int nh = S.rm->nhosts;
    char why[160];
    size_t kl = 0, nl = 0;
    int *go = calloc((size_t)nh, sizeof(int)), ngo = 0;
    if (!go) return;
    G.keep[0] = G.names[0] = '\0';
    census_begin();
    for (int h = 0; h < nh; h++) {
        if (S.rm->hosts[h].away) continue;
        if (S.shrunk[h] && !hold_reason(h, why, sizeof why)) {
            go[h] = 1;
            ngo++;
            nl += (size_t)snprintf(G.names + nl, sizeof G.names - nl, "%s%s", nl ? "," : "", S.rm->hosts[h].name);
            if (nl >= sizeof G.names) nl = sizeof G.names - 1;
        } else {
            kl += (size_t)snprintf(G.keep + kl, sizeof G.keep - kl, "%s%s", kl ? "," : "", S.rm->hosts[h].name);
            if (kl >= sizeof G.keep) kl = sizeof G.keep - 1;
        }
    }
    census_end();
    if (!ngo || !kl) {
        free(go);
        return;
    }
    char arg1[64], arg2[8300];
    snprintf(arg1, sizeof arg1, "JobId=%s", S.id);
    snprintf(arg2, sizeof arg2, "NodeList=%s", G.keep);
    char *argv[] = {"scontrol", "update", arg1, arg2, NULL};
    G.t0 = net_now();
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, given_back, NULL, why, sizeof why) != 0) {
        logmsg("slurm: cannot give %s back now: %s", G.names, why);
        free(go);
        return;
    }
    for (int h = 0; h < nh; h++)
        if (go[h]) S.rm->hosts[h].away = RM_RELEASING; /* no process goes there while Slurm answers */
    G.busy = 1;
    free(go);
}

static void slurm_event(struct job *j, const char *kind, const json_t *details, double now)
{
    (void)details, (void)now;
    if (!S.on || (strcmp(kind, "resized") != 0 && strcmp(kind, "exited") != 0)) return;
    /* hosts a shrink took processes from are candidates to give back (jobs_resized marks them) */
    for (int h = 0; h < S.rm->nhosts; h++)
        if (j->shrunk_on[h]) S.shrunk[h] = 1, j->shrunk_on[h] = 0;
    give_back();
}

static void slurm_left(struct job *j)
{
    if (!S.on || j->state == JOB_RUNNING || j->state == JOB_DISCONNECTED) return;
    /* its processes (parked ones too) are gone with the job (mpiexec has
     * ended); the hosts its shrinks emptied stay in the allocation for the
     * next job (only a shrink gives a host back) */
    for (int h = 0; h < S.rm->nhosts; h++) S.shrunk[h] = S.shrunk[h] && parked_on(h);
}

/* ------------------------------------------------------------ sync */

/* The check in flight (one at a time): scontrol show job, then scontrol
 * show hostnames of its node list, then sinfo of their states. */
static struct {
    int busy;
    unsigned grown; /* S.grown when it began */
    char nodelist[8192];
    char *names; /* scontrol show hostnames' answer */
} C;

static void check_states(void *arg, int rc, char *out);
static void check_names(void *arg, int rc, char *out);

static void check_failed(const char *what, const char *out)
{
    logmsg("slurm: cannot check Slurm job %s: %s: %.300s", S.id, what, out);
    free(C.names);
    C.names = NULL;
    C.busy = 0;
}

static void check_job(void *arg, int rc, char *out)
{
    (void)arg;
    char state[64] = "";
    slurm_field(out, "NodeList", C.nodelist, sizeof C.nodelist);
    slurm_field(out, "JobState", state, sizeof state);
    if (rc != 0) {
        slurm_chomp(out);
        check_failed("scontrol show job", out);
        return;
    }
    if (strcmp(state, "RUNNING") != 0) {
        for (int h = 0; h < S.rm->nhosts; h++)
            if (!S.rm->hosts[h].away || S.rm->hosts[h].away == RM_RELEASING) S.rm->hosts[h].away = RM_LOST;
        logmsg("slurm: Slurm job %s is %s: no hosts left to manage", S.id, state[0] ? state : "gone");
        S.period = 1e9;
        state_dirty = 1;
        C.busy = 0;
        return;
    }
    char *argv[] = {"scontrol", "show", "hostnames", C.nodelist, NULL}, why[160];
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, check_names, NULL, why, sizeof why) != 0) check_failed("scontrol show hostnames", why);
}

static void check_names(void *arg, int rc, char *out)
{
    (void)arg;
    if (rc != 0) {
        slurm_chomp(out);
        check_failed("scontrol show hostnames", out);
        return;
    }
    C.names = strdup(out);
    /* node states: a host Slurm marks down or not responding is lost */
    char *argv[] = {"sinfo", "-h", "-N", "-o", "%N %t", "-n", C.nodelist, NULL}, why[160];
    if (!C.names || child_start(argv, slurm_workdir(), SLURM_WAIT, check_states, NULL, why, sizeof why) != 0)
        check_failed("sinfo", C.names ? why : "out of memory");
}

static void check_states(void *arg, int rc, char *states)
{
    (void)arg;
    if (rc != 0) states[0] = '\0';
    if (C.grown != S.grown) {
        /* the job grew while this check ran: its node list predates the new
         * hosts, which it would call lost; check again at the next turn */
        free(C.names);
        C.names = NULL;
        C.busy = 0;
        S.last = 0;
        return;
    }
    const char *names = C.names;
    for (int h = 0; h < S.rm->nhosts; h++) {
        if (S.rm->hosts[h].away && S.rm->hosts[h].away != RM_RELEASING) continue;
        const char *nm = S.rm->hosts[h].name;
        int in = 0;
        size_t l = strlen(nm);
        for (const char *q = names; (q = strstr(q, nm)) != NULL; q += l)
            if ((q == names || q[-1] == '\n') && (q[l] == '\n' || q[l] == '\0')) in = 1;
        if (S.rm->hosts[h].away == RM_RELEASING) continue; /* Slurm's answer to the give-back decides */
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
    free(C.names);
    C.names = NULL;
    C.busy = 0;
    give_back(); /* what a refused or failed give-back left behind */
}

static void slurm_tick(double wall_now)
{
    (void)wall_now;
    double now = net_now();
    if (!S.on || C.busy || now - S.last < S.period) return;
    S.last = now;
    char *argv[] = {"scontrol", "show", "job", "-o", S.id, NULL}, why[160];
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, check_job, NULL, why, sizeof why) != 0) {
        logmsg("slurm: cannot check Slurm job %s now: %s", S.id, why);
        return;
    }
    C.busy = 1;
    C.grown = S.grown;
}

/* {job, hosts: [{name, cpus, state, procs, parked, kept_because?}], pmix} in the slots view */
static void slurm_slots(json_t *sv)
{
    if (!S.on) return;
    json_t *a = json_array();
    char why[160];
    census_begin();
    for (int h = 0; h < S.rm->nhosts; h++) {
        const char *r = S.rm->hosts[h].away ? NULL : hold_reason(h, why, sizeof why);
        json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:i}", "name", S.rm->hosts[h].name, "cpus", S.rm->hosts[h].slots, "state",
                              rm_host_state(S.rm, h), "procs", K.valid ? K.procs[h] : procs_on(h), "parked", parked_on(h));
        if (r) json_object_set_new(o, "kept_because", json_string(r));
        json_array_append_new(a, o);
    }
    census_end();
    json_t *pj = json_object();
    for (int i = 0; i < jobs.n; i++)
        if (live(jobs.v[i]) && jobs.v[i]->pmix) {
            char k[16];
            snprintf(k, sizeof k, "%d", jobs.v[i]->id);
            json_object_set(pj, k, jobs.v[i]->pmix);
        }
    json_object_set_new(sv, "slurm", json_pack("{s:s, s:o, s:o}", "job", S.id, "hosts", a, "pmix", pj));
}

/* ------------------------------------------------------------ the part */

static struct {
    int use, grow;
    const char *job;
    double sync;
} O = {.sync = 5.0};

static int set_slurm(const char *arg, char *err, size_t errlen) { (void)arg, (void)err, (void)errlen; O.use = 1; return 0; }
static int set_grow(const char *arg, char *err, size_t errlen) { (void)arg, (void)err, (void)errlen; O.use = O.grow = 1; return 0; }
static int set_job(const char *arg, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    O.use = 1, O.job = arg;
    return 0;
}
static int set_sync(const char *arg, char *err, size_t errlen)
{
    char *end;
    O.sync = strtod(arg, &end);
    if (*end || !(O.sync >= 0.1 && O.sync <= 3600)) {
        snprintf(err, errlen, "--slurm-sync wants seconds from 0.1 to 3600, not '%s'", arg);
        return -1;
    }
    return 0;
}

/* chosen by --slurm, --slurm-job or --slurm-grow: the resource manager is the allocation's */
static int slurm_resources(struct rm *rm, char *err, size_t errlen)
{
    if (!O.use) return 0;
    if (slurm_init(rm, O.job, O.sync, err, errlen) != 0 || (O.grow && slurm_enable_grow(err, errlen) != 0)) return -1;
    core_hosts_named = 1; /* an expansion tells the job where its new processes go */
    return 1;
}

static const struct dpart_option slurm_options[] = {
    {"slurm", NULL, "manage the hosts and CPUs of the Slurm job ductiled runs in ($SLURM_JOB_ID);\nhosts a shrink empties are "
     "given back to Slurm (docs/cluster.md)", set_slurm},
    {"slurm-job", "J", "the same for Slurm job J", set_job},
    {"slurm-sync", "SEC", "how often to check the allocation against Slurm (default 5)", set_sync},
    {"slurm-grow", NULL, "with --slurm: an expansion the allocation cannot hold asks Slurm to add\nhosts to the job (job "
     "expansion; needs SchedulerParameters=permit_job_expansion;\nMPICH jobs only: docs/cluster.md)", set_grow},
    {NULL, NULL, NULL, NULL},
};
static const struct dpart slurm_part = {.name = "slurm",
                                        .options = slurm_options,
                                        .resources = slurm_resources,
                                        .registered = slurm_registered,
                                        .event = slurm_event,
                                        .left = slurm_left,
                                        .tick = slurm_tick,
                                        .make_room = slurm_make_room,
                                        .choose_ranks = slurm_choose_ranks,
                                        .slots = slurm_slots};
DUCTILED_PART(slurm_part);
