/* rankpick.c -- ranks that empty hosts (see rankpick.h).  The choice is the
 * one of the earlier loop (for each leaving rank, scan every host for the
 * fewest processes, then every rank for the highest on it): taking a rank
 * from the emptiest host keeps it the emptiest, so the hosts are emptied
 * one after the other in the order of their counts, each from its highest
 * rank down; here that order comes from one sort. */
#include "rankpick.h"

#include <stdlib.h>

struct hc {
    int host, count;
};

static int by_count(const void *a, const void *b)
{
    const struct hc *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? -1 : 1;
    return x->host > y->host ? -1 : x->host < y->host; /* ties: the later host first */
}

int rankpick_empty_hosts(const int *rank_host, int procs, int nhosts, int n, int *leave, struct rankpick_cost *cost)
{
    struct rankpick_cost dummy;
    if (!cost) cost = &dummy;
    cost->ops = 0;
    cost->bytes = 0;
    if (n < 1 || n >= procs || nhosts < 1) return 0;
    size_t bh = (size_t)nhosts * sizeof(int), bp = (size_t)procs * sizeof(int), bo = (size_t)nhosts * sizeof(struct hc);
    int *first = calloc((size_t)nhosts, sizeof(int)), *end = malloc(bh), *byhost = malloc(bp);
    struct hc *order = malloc(bo);
    cost->bytes = 2 * bh + bp + bo;
    if (!first || !end || !byhost || !order) {
        free(first), free(end), free(byhost), free(order);
        return -1;
    }
    /* a counting sort: host h's ranks, ascending, are byhost[first[h] .. first[h] + count) */
    for (int h = 0; h < nhosts; h++, cost->ops++) order[h] = (struct hc){h, 0};
    for (int r = 0; r < procs; r++, cost->ops++)
        if (rank_host[r] >= 0 && rank_host[r] < nhosts) order[rank_host[r]].count++;
    for (int h = 0, at = 0; h < nhosts; h++, cost->ops++) first[h] = end[h] = at, at += order[h].count;
    for (int r = 0; r < procs; r++, cost->ops++)
        if (rank_host[r] >= 0 && rank_host[r] < nhosts) byhost[end[rank_host[r]]++] = r;
    qsort(order, (size_t)nhosts, sizeof *order, by_count);
    unsigned long long lg = 1;
    for (int x = nhosts; x > 1; x >>= 1) lg++;
    cost->ops += (unsigned long long)nhosts * lg; /* the sort's comparisons, O(H log H) */
    int k = 0;
    for (int o = 0; o < nhosts && k < n; o++, cost->ops++) {
        int h = order[o].host; /* emptied from its highest rank down; rank 0 stays */
        for (int i = end[h] - 1; i >= first[h] && k < n; i--, cost->ops++)
            if (byhost[i] != 0) leave[k++] = byhost[i];
    }
    free(first), free(end), free(byhost), free(order);
    return k == n ? n : 0;
}
