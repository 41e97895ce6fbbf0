/* rm.c -- slots, grants and releases of ductiled's resource manager; see rm.h. */
#include "rm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/protocol.h"

int rm_add_host(struct rm *rm, const char *name, int slots)
{
    int i = rm_find(rm, name);
    if (i >= 0) {
        rm->hosts[i].slots += slots;
        return i;
    }
    if (rm->nhosts >= RM_MAX_HOSTS) return -1;
    struct rm_host *h = realloc(rm->hosts, (size_t)(rm->nhosts + 1) * sizeof *h);
    if (!h) return -1;
    rm->hosts = h;
    memset(&h[rm->nhosts], 0, sizeof *h);
    snprintf(h[rm->nhosts].name, sizeof h[rm->nhosts].name, "%s", name);
    h[rm->nhosts].slots = slots;
    return rm->nhosts++;
}

int rm_init_slots(struct rm *rm, const char *hostname, int n)
{
    memset(rm, 0, sizeof *rm);
    return rm_add_host(rm, hostname, n) < 0 ? -1 : 0;
}

int rm_init_hostfile(struct rm *rm, const char *path, char *err, size_t errlen)
{
    memset(rm, 0, sizeof *rm);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read hostfile %s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char host[300] = "", rest[300] = "";
        int k = sscanf(line, "%299s %299s", host, rest);
        if (k <= 0) continue;
        int slots = 1;
        char *colon = strchr(host, ':');
        if (colon) {
            *colon = '\0';
            char *end;
            long v = strtol(colon + 1, &end, 10);
            if (*end || v < 1 || v > 65536) goto bad;
            slots = (int)v;
        }
        if (k == 2) {
            char *end;
            long v;
            if (strncmp(rest, "slots=", 6) != 0) goto bad;
            v = strtol(rest + 6, &end, 10);
            if (*end || v < 1 || v > 65536) goto bad;
            slots = (int)v;
        }
        if (!proto_valid_hostname(host)) goto bad;
        if (rm_add_host(rm, host, slots) < 0) goto bad;
        continue;
    bad:
        snprintf(err, errlen, "%s:%d: expected 'HOST [slots=N]' with a valid host name", path, lineno);
        fclose(f);
        rm_destroy(rm);
        return -1;
    }
    fclose(f);
    if (rm->nhosts == 0) {
        snprintf(err, errlen, "hostfile %s lists no hosts", path);
        return -1;
    }
    return 0;
}

void rm_destroy(struct rm *rm)
{
    free(rm->hosts);
    memset(rm, 0, sizeof *rm);
}

int rm_total(const struct rm *rm)
{
    int t = 0;
    for (int i = 0; i < rm->nhosts; i++)
        if (!rm->hosts[i].away) t += rm->hosts[i].slots;
    return t;
}

int rm_free_slots(const struct rm *rm)
{
    int t = 0;
    for (int i = 0; i < rm->nhosts; i++)
        if (!rm->hosts[i].away && rm->hosts[i].used < rm->hosts[i].slots) t += rm->hosts[i].slots - rm->hosts[i].used;
    return t;
}

int rm_find(const struct rm *rm, const char *name)
{
    for (int i = 0; i < rm->nhosts; i++)
        if (strcmp(rm->hosts[i].name, name) == 0) return i;
    return -1;
}

void rm_names(const struct rm *rm, char *out, size_t len)
{
    size_t o = 0;
    int shown = rm->nhosts < 4 ? rm->nhosts : 4;
    if (len) out[0] = '\0';
    for (int i = 0; i < shown && o < len; i++) {
        int w = snprintf(out + o, len - o, "%s%s", i ? ", " : "", rm->hosts[i].name);
        if (w < 0) return;
        o += (size_t)w;
    }
    if (rm->nhosts > shown && o < len) snprintf(out + o, len - o, ", ... (%d hosts)", rm->nhosts);
}

const char *rm_host_state(const struct rm *rm, int i)
{
    switch (i >= 0 && i < rm->nhosts ? rm->hosts[i].away : RM_UP) {
    case RM_RELEASED: return "released";
    case RM_LOST: return "lost";
    case RM_OUTSIDE: return "outside";
    case RM_RELEASING: return "releasing";
    default: return "up";
    }
}

int *rm_alloc_new(const struct rm *rm) { return calloc((size_t)(rm->nhosts ? rm->nhosts : 1), sizeof(int)); }

int rm_adopt(struct rm *rm, int *alloc, const char *name, int procs)
{
    int i = rm_find(rm, name);
    if (i < 0 && rm->nhosts == 1 && (strcmp(name, "localhost") == 0 || strcmp(rm->hosts[0].name, "localhost") == 0))
        i = 0;
    if (i < 0 && rm->nhosts == 1) i = 0;
    if (i < 0) return 0;
    alloc[i] += procs;
    rm->hosts[i].used += procs;
    return procs;
}

int rm_grant(struct rm *rm, int *alloc, int n, const char *const *wanted, int *out, char *reason, size_t rlen)
{
    if (n < 1) {
        snprintf(reason, rlen, "nothing to grant");
        return -1;
    }
    int *take = calloc((size_t)rm->nhosts, sizeof(int));
    if (!take) {
        snprintf(reason, rlen, "out of memory");
        return -1;
    }
    if (wanted) {
        for (int k = 0; k < n; k++) {
            int i = rm_find(rm, wanted[k]);
            if (i < 0) {
                char names[200];
                rm_names(rm, names, sizeof names);
                snprintf(reason, rlen, "host '%s' is not managed by this ductiled (its hosts: %s)%s%s", wanted[k], names,
                         rm->source[0] ? ": not in " : "", rm->source);
                free(take);
                return -1;
            }
            if (rm->hosts[i].away) {
                snprintf(reason, rlen, "host '%s' %s%s", wanted[k],
                         rm->hosts[i].away == RM_RELEASED   ? "was given back to the resource manager"
                         : rm->hosts[i].away == RM_OUTSIDE ? "is not in "
                                                           : "was lost",
                         rm->hosts[i].away == RM_OUTSIDE ? rm->source : "");
                free(take);
                return -1;
            }
            if (rm->hosts[i].used + take[i] >= rm->hosts[i].slots) {
                snprintf(reason, rlen, "host '%s' has no free slot (%d of %d in use)", wanted[k], rm->hosts[i].used,
                         rm->hosts[i].slots);
                free(take);
                return -1;
            }
            take[i]++;
            out[k] = i;
        }
    } else {
        int freen = rm_free_slots(rm);
        if (freen < n) {
            snprintf(reason, rlen, "not enough free slots: %d requested, %d of %d free%s%s", n, freen, rm_total(rm),
                     rm->source[0] ? " in " : "", rm->source);
            free(take);
            return -1;
        }
        /* order: hosts the job uses (most processes first), then the rest in order */
        int *order = malloc((size_t)rm->nhosts * sizeof(int));
        if (!order) {
            free(take);
            snprintf(reason, rlen, "out of memory");
            return -1;
        }
        int m = 0;
        for (int i = 0; i < rm->nhosts; i++) order[m++] = i;
        for (int a = 1; a < m; a++) { /* stable insertion sort by alloc desc */
            int x = order[a], b = a;
            while (b > 0 && alloc[order[b - 1]] < alloc[x]) {
                order[b] = order[b - 1];
                b--;
            }
            order[b] = x;
        }
        int k = 0;
        for (int o = 0; o < m && k < n; o++) {
            int i = order[o];
            while (k < n && !rm->hosts[i].away && rm->hosts[i].used + take[i] < rm->hosts[i].slots) {
                take[i]++;
                out[k++] = i;
            }
        }
        free(order);
    }
    for (int i = 0; i < rm->nhosts; i++) {
        rm->hosts[i].used += take[i];
        alloc[i] += take[i];
    }
    free(take);
    return 0;
}

int rm_release(struct rm *rm, int *alloc, int n)
{
    int done = 0;
    while (done < n) {
        int best = -1;
        for (int i = 0; i < rm->nhosts; i++)
            if (alloc[i] > 0 && (best < 0 || alloc[i] < alloc[best] || (alloc[i] == alloc[best] && i > best))) best = i;
        if (best < 0) break;
        alloc[best]--;
        if (rm->hosts[best].used > 0) rm->hosts[best].used--;
        done++;
    }
    return done;
}

void rm_release_all(struct rm *rm, int *alloc)
{
    for (int i = 0; i < rm->nhosts; i++) {
        rm->hosts[i].used -= alloc[i];
        if (rm->hosts[i].used < 0) rm->hosts[i].used = 0;
        alloc[i] = 0;
    }
}

int rm_alloc_total(const struct rm *rm, const int *alloc)
{
    int t = 0;
    for (int i = 0; i < rm->nhosts; i++) t += alloc[i];
    return t;
}

void rm_set_host(struct rm *rm, int *alloc, int i, int n)
{
    if (i < 0 || i >= rm->nhosts || n < 0) return;
    rm->hosts[i].used += n - alloc[i];
    if (rm->hosts[i].used < 0) rm->hosts[i].used = 0;
    alloc[i] = n;
}
