/* slurm_grow.c -- hosts outside the allocation and the growth of the job
 * onto them for ductiled --slurm-grow; see slurm_grow.h and docs/cluster.md. */
#include "config.h"

#include "slurm_grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "daemon.h"
#include "slurm.h"
#include "slurm_run.h"

#define GROW_PIECES 256

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

int slurm_grow_room(struct rm *rm, const char *jobid, int need, int *shrunk, char *reason, size_t rlen)
{
    int fr = rm_free_slots(rm), miss = need - fr;
    if (miss <= 0) return 0;
    static struct slurm_piece got[GROW_PIECES];
    char why[512], added[1024] = "";
    size_t al = 0;
    double t0 = net_now();
    /* new hosts only: on a host of the job Slurm may give J2 CPUs the job
     * already holds (seen here), and after the merge scontrol no longer
     * tells which CPUs of it are the job's */
    static char ex[8192];
    size_t el = 0;
    ex[0] = '\0';
    for (int h = 0; h < rm->nhosts; h++)
        if (!rm->hosts[h].away && el < sizeof ex - 1)
            el += (size_t)snprintf(ex + el, sizeof ex - el, "%s%s", el ? "," : "", rm->hosts[h].name);
    int k = slurm_expand(jobid, miss, ex, got, GROW_PIECES, why, sizeof why);
    if (k < 0) {
        snprintf(reason, rlen, "not enough free slots: %d requested, %d of %d free in %s, and Slurm added none: %s", need, fr,
                 rm_total(rm), rm->source, why);
        return -1;
    }
    for (int i = 0; i < k; i++) {
        int h = rm_find(rm, got[i].name);
        if (h < 0) {
            logmsg("slurm: Slurm added host %s, which was not in sinfo when ductiled started: not used", got[i].name);
            continue;
        }
        if (rm->hosts[h].away) { /* outside, or given back before: its CPUs now */
            rm->hosts[h].away = RM_UP;
            rm->hosts[h].slots = got[i].cpus;
            shrunk[h] = 0;
        } else {
            rm->hosts[h].slots += got[i].cpus;
        }
        al += (size_t)snprintf(added + al, sizeof added - al, "%s%s (%d CPU%s)", al ? ", " : "", got[i].name, got[i].cpus,
                               got[i].cpus == 1 ? "" : "s");
        if (al >= sizeof added) al = sizeof added - 1;
    }
    logmsg("slurm: Slurm job %s grew by %s in %.3f s (asked for %d CPUs)", jobid, added, net_now() - t0, miss);
    state_dirty = 1;
    return 0;
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
