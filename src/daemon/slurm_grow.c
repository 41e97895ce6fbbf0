/* slurm_grow.c -- hosts outside the allocation and the growth of the job
 * onto them for ductiled --slurm-grow, without blocking the loop; see
 * slurm_grow.h and docs/cluster.md. */
#include "config.h"

#include "slurm_grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "children.h"
#include "slurm_run.h"

#define GROW_PIECES 256

/* Hosts and CPUs Slurm added to the job. */
struct slurm_piece {
    char name[256];
    int cpus;
};

int slurm_grow_hosts(struct rm *rm, char *err, size_t len)
{
    static char out[256 * 1024];
    char *argv[] = {"sinfo", "-h", "-N", "-o", "%N %c", NULL};
    if (slurm_run(argv, out, sizeof out) != 0) {
        slurm_chomp(out);
        snprintf(err, len, "--slurm-grow: sinfo failed: %.300s", out);
        return -1;
    }
    for (char *save = NULL, *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char name[256];
        int cpus;
        if (sscanf(l, "%255s %d", name, &cpus) != 2 || cpus < 1 || !proto_valid_hostname(name)) continue;
        if (rm_find(rm, name) >= 0 || rm->nhosts >= RM_MAX_HOSTS) continue; /* also: a node in two partitions */
        int h = rm_add_host(rm, name, cpus);
        if (h < 0) {
            snprintf(err, len, "out of memory");
            return -1;
        }
        rm->hosts[h].away = RM_OUTSIDE;
    }
    return 0;
}

/* The growth in flight (one at a time), a chain of commands that never
 * blocks the loop: salloc --dependency=expand:J gets a job J2 on new hosts,
 * scontrol show job -d J2 tells its hosts and CPUs (one scontrol show
 * hostnames per group of hosts), scontrol update J2 NumNodes=0 hands them
 * to J; then they go into rm and the caller's continuation runs.  J2 is
 * cancelled when a step fails. */
static struct {
    int busy;
    struct rm *rm;
    int *shrunk;
    char job[32], j2[32];
    int need, miss, free0;
    double t0;
    struct slurm_piece got[GROW_PIECES];
    int k;
    char *groups;   /* scontrol show job -d: "... Nodes=H CPU_IDs=I ..." */
    char *save;     /* strtok_r's place in it */
    int first;      /* no token taken yet */
    int per;        /* CPUs per host of the group being resolved */
    core_room_fn cont;
    void *arg;
} W;

static void scancelled(void *arg, int rc, char *out) { (void)arg, (void)rc, (void)out; }

static void grow_end(int ok, const char *why)
{
    char reason[1024] = "";
    if (!ok) {
        snprintf(reason, sizeof reason, "not enough free slots: %d requested, %d of %d free in %s, and Slurm added none: %s",
                 W.need, W.free0, rm_total(W.rm), W.rm->source, why);
        if (W.j2[0]) {
            char e[128], *argv[] = {"scancel", W.j2, NULL};
            child_start(argv, slurm_workdir(), SLURM_WAIT, scancelled, NULL, e, sizeof e);
        }
    }
    free(W.groups);
    W.groups = NULL;
    W.busy = 0;
    W.cont(W.arg, ok, reason);
}

static void grow_added(void *arg, int rc, char *out)
{
    (void)arg;
    slurm_resize_files_remove(W.j2);
    if (rc != 0) {
        slurm_chomp(out);
        char why[512];
        snprintf(why, sizeof why, "scontrol update JobId=%s NumNodes=0: %.300s", W.j2, out);
        grow_end(0, why);
        return;
    }
    char added[1024] = "";
    size_t al = 0;
    for (int i = 0; i < W.k; i++) {
        int h = rm_find(W.rm, W.got[i].name);
        if (h < 0) {
            logmsg("slurm: Slurm added host %s, which was not in sinfo when ductiled started: not used", W.got[i].name);
            continue;
        }
        if (W.rm->hosts[h].away) { /* outside, or given back before: its CPUs now */
            W.rm->hosts[h].away = RM_UP;
            W.rm->hosts[h].slots = W.got[i].cpus;
            W.shrunk[h] = 0;
        } else {
            W.rm->hosts[h].slots += W.got[i].cpus;
        }
        al += (size_t)snprintf(added + al, sizeof added - al, "%s%s (%d CPU%s)", al ? ", " : "", W.got[i].name,
                               W.got[i].cpus, W.got[i].cpus == 1 ? "" : "s");
        if (al >= sizeof added) al = sizeof added - 1;
    }
    logmsg("slurm: Slurm job %s grew by %s in %.3f s (asked for %d CPUs)", W.job, added, net_now() - W.t0, W.miss);
    W.j2[0] = '\0'; /* merged into J: nothing to cancel */
    state_dirty = 1;
    grow_end(1, "");
}

static void grow_next_group(void);

static void grow_names(void *arg, int rc, char *out)
{
    (void)arg;
    if (rc != 0) {
        slurm_chomp(out);
        char why[512];
        snprintf(why, sizeof why, "cannot read the hosts of Slurm job %s: %.300s", W.j2, out);
        grow_end(0, why);
        return;
    }
    for (char *s2 = NULL, *h = strtok_r(out, "\n", &s2); h && W.k < GROW_PIECES; h = strtok_r(NULL, "\n", &s2)) {
        snprintf(W.got[W.k].name, sizeof W.got[W.k].name, "%s", h);
        W.got[W.k++].cpus = W.per;
    }
    grow_next_group();
}

/* the next "Nodes=... CPU_IDs=..." group of J2, or the hand-over to J */
static void grow_next_group(void)
{
    char why[512];
    for (char *t; (t = strtok_r(W.first ? W.groups : NULL, " \n", &W.save)) != NULL;) {
        W.first = 0;
        if (strncmp(t, "Nodes=", 6) != 0) continue;
        char *c = strtok_r(NULL, " \n", &W.save);
        W.per = c && !strncmp(c, "CPU_IDs=", 8) ? slurm_count_ids(c + 8) : -1;
        if (W.per < 1) {
            snprintf(why, sizeof why, "cannot read the CPUs of Slurm job %s (%.100s %.100s)", W.j2, t, c ? c : "");
            grow_end(0, why);
            return;
        }
        char *argv[] = {"scontrol", "show", "hostnames", t + 6, NULL};
        if (child_start(argv, slurm_workdir(), SLURM_WAIT, grow_names, NULL, why, sizeof why) != 0) grow_end(0, why);
        return;
    }
    if (W.k == 0) {
        snprintf(why, sizeof why, "Slurm job %s lists no hosts", W.j2);
        grow_end(0, why);
        return;
    }
    char a1[64];
    snprintf(a1, sizeof a1, "JobId=%s", W.j2);
    char *argv[] = {"scontrol", "update", a1, "NumNodes=0", NULL};
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, grow_added, NULL, why, sizeof why) != 0) grow_end(0, why);
}

static void grow_shown(void *arg, int rc, char *out)
{
    (void)arg;
    if (rc != 0) {
        slurm_chomp(out);
        char why[512];
        snprintf(why, sizeof why, "scontrol show job %s: %.300s", W.j2, out);
        grow_end(0, why);
        return;
    }
    /* where J2's CPUs are: "Nodes=dnode[3-4] CPU_IDs=0-1 ..." per group of hosts */
    W.groups = strdup(out);
    if (!W.groups) {
        grow_end(0, "out of memory");
        return;
    }
    W.first = 1;
    grow_next_group();
}

static void grow_granted(void *arg, int rc, char *out)
{
    (void)arg;
    const char *g = strstr(out, "Granted job allocation ");
    if (g) sscanf(g + strlen("Granted job allocation "), "%31[0-9]", W.j2);
    if (rc != 0 || !W.j2[0]) {
        slurm_chomp(out);
        const char *e = strstr(out, "error: ");
        char why[512];
        snprintf(why, sizeof why, "salloc --dependency=expand:%s -n%d: %.300s%s", W.job, W.miss,
                 e ? e + 7 : out[0] ? out : "no answer",
                 strstr(out, "timed out") ? " (not granted within --immediate=2 s: no free host)" : "");
        grow_end(0, why);
        return;
    }
    char *argv[] = {"scontrol", "show", "job", "-d", "-o", W.j2, NULL}, why[512];
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, grow_shown, NULL, why, sizeof why) != 0) grow_end(0, why);
}

int slurm_grow_room(struct rm *rm, const char *jobid, int need, int *shrunk, core_room_fn cont, void *arg,
                    char *reason, size_t rlen)
{
    int fr = rm_free_slots(rm), miss = need - fr;
    if (miss <= 0) return 0;
    if (W.busy) {
        snprintf(reason, rlen, "not enough free slots: %d requested, %d free; Slurm job %s is being grown for another "
                 "expansion: try again when it is done", need, fr, jobid);
        return -1;
    }
    memset(&W, 0, sizeof W);
    W.rm = rm;
    W.shrunk = shrunk;
    snprintf(W.job, sizeof W.job, "%s", jobid);
    W.need = need, W.miss = miss, W.free0 = fr;
    W.cont = cont, W.arg = arg;
    W.t0 = net_now();
    /* new hosts only: on a host of the job Slurm may give J2 CPUs the job
     * already holds (seen here), and after the merge scontrol no longer
     * tells which CPUs of it are the job's */
    static char ex[8300];
    size_t el = (size_t)snprintf(ex, sizeof ex, "--exclude=");
    int any = 0;
    for (int h = 0; h < rm->nhosts; h++)
        if (!rm->hosts[h].away && el < sizeof ex - 1)
            el += (size_t)snprintf(ex + el, sizeof ex - el, "%s%s", any++ ? "," : "", rm->hosts[h].name);
    char dep[64], n[32], jname[64];
    snprintf(dep, sizeof dep, "--dependency=expand:%s", jobid);
    snprintf(n, sizeof n, "-n%d", miss);
    snprintf(jname, sizeof jname, "--job-name=ductile-grow-%s", jobid);
    /* --immediate: no pending job is left behind when Slurm cannot grant it at
     * once (a free allocation starts at once here); --exclude: new hosts only */
    char *argv[] = {"salloc", "--no-shell", "--immediate=2", dep, n, jname, any ? ex : NULL, NULL};
    char why[256];
    if (child_start(argv, slurm_workdir(), SLURM_WAIT, grow_granted, NULL, why, sizeof why) != 0) {
        snprintf(reason, rlen, "not enough free slots: %d requested, %d free, and Slurm cannot be asked now: %s", need, fr, why);
        return -1;
    }
    W.busy = 1;
    return 1;
}

int slurm_no_accounting(void)
{
    static char out[64 * 1024];
    char *argv[] = {"scontrol", "show", "config", NULL};
    return slurm_run(argv, out, sizeof out) == 0 && strstr(out, "accounting_storage/none") != NULL;
}

void slurm_freeze(const char *jobid, char *buf, size_t len)
{
    snprintf(buf, len, "Slurm refuses to change job %s's node list again: it was resized, and Slurm without accounting "
             "storage then refuses every update of it (\"the DB index is being set\")", jobid);
}
