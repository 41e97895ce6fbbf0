/* policy.c -- pure checks of a resize request and of the constant-data
 * strategy (see policy.h).  Called by rank 0's decision in resize.c. */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

int policy_check(const struct policy_request *r, const char **list, char *why, size_t whylen)
{
    int ns = r->ns, nd = r->nd;
    const char *rl = r->req_list ? r->req_list : "";
    char e0[400];
    why[0] = '\0';
    *list = "";
    if (nd < 1)
        snprintf(why, whylen, "shrinking below one process is not possible (removing %d of %d process%s)", ns - nd,
                 ns, ns == 1 ? "" : "es");
    else if (nd == ns)
        snprintf(why, whylen, "the world already has %d process%s", ns, ns == 1 ? "" : "es");
    else if (r->sizes && !sizes_allows(r->sizes, nd, e0, sizeof e0))
        snprintf(why, whylen, "the job cannot run on %d process%s: %s", nd, nd == 1 ? "" : "es", e0);
    else if (r->sparse)
        snprintf(why, whylen, "sparse (EMPI_Register_sparse) data cannot be redistributed yet");
    if (!why[0] && (nd > ns || r->baseline)) {
        const char *hosts = rl[0] && nd > ns ? rl : r->spawn_hosts;
        char e[300];
        int nh = 0;
        if (hosts && *hosts && schedule_check_hosts(hosts, &nh, e, sizeof e) != 0)
            snprintf(why, whylen, "%s", e);
        else if (hosts == rl && rl[0] && nh != nd - ns) /* the request's list: one per new process (the setting's: a set) */
            snprintf(why, whylen, "%d host%s listed for %d new process%s (one per new process)", nh, nh == 1 ? "" : "s",
                     nd - ns, nd - ns == 1 ? "" : "es");
        else if (hosts) *list = hosts;
        if (nd < ns) *list = ""; /* baseline shrink: placement by the launcher */
        if (nd < ns && rl[0] && !why[0])
            snprintf(why, whylen, "the baseline method replaces every process: a list of leaving ranks makes no sense");
    } else if (!why[0] && rl[0]) {
        char e[300];
        long n = schedule_count_ranks(rl, e, sizeof e);
        unsigned char *m = n > 0 ? calloc((size_t)ns, 1) : NULL;
        if (n >= 0 && n != ns - nd) snprintf(why, whylen, "%ld ranks listed to leave, %d must", n, ns - nd);
        else if (n > 0 && !m) snprintf(why, whylen, "out of memory");
        else if (n < 0 || (m && schedule_mark_ranks(rl, ns, m, e, sizeof e) < 0)) snprintf(why, whylen, "%s", e);
        free(m);
        if (!why[0]) *list = rl;
    }
    if (why[0]) {
        *list = "";
        return -1;
    }
    return 0;
}

int policy_const_strategy(const char *s)
{
    if (!s) return CONST_BLOCKING;
    return strcmp(s, "nb") == 0 ? CONST_NB : strcmp(s, "wd") == 0 ? CONST_WD : strcmp(s, "thread") == 0 ? CONST_THREAD
                                                                                                    : CONST_BLOCKING;
}

int policy_const_effective(int strategy, int one_sided_lock, int thread_multiple, int *note)
{
    *note = 0;
    if (strategy == CONST_NB && one_sided_lock) {
        *note = 1;
        return CONST_WD;
    }
    if (strategy == CONST_THREAD && !thread_multiple) {
        *note = 2;
        return CONST_BLOCKING;
    }
    return strategy;
}
