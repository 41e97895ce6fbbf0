/* plan.c -- block-distribution arithmetic and the redistribution plan (pure, no MPI).
 *
 * Implementation of plan.h.  Every plan is produced by one sweep over a global
 * index range: at position `pos` the old owner and the new owner are found in
 * O(1) (plan_owner_of), the transfer runs to the nearer of the two block ends,
 * and the sweep continues from there.  Empty blocks never own a position, so
 * they are skipped naturally, and each step emits one non-empty transfer:
 * the cost is O(k) for k transfers, with no O(ns*nd) loop anywhere.
 */
#include "plan.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The one piece of process-wide state: where the remainder goes (see plan.h). */
static int remainder_last;

void plan_set_remainder_last(int on) { remainder_last = on != 0; }
int plan_remainder_last(void) { return remainder_last; }

plan_block plan_block_of(int64_t n, int nprocs, int rank)
{
    plan_block b = {0, 0};
    if (n < 0 || nprocs < 1 || rank < 0 || rank >= nprocs)
        return b;
    int64_t q = n / nprocs, rem = n % nprocs;
    if (remainder_last) {
        /* FlexMPI: the last rem ranks hold one more; displ <= n as below */
        int64_t small = nprocs - rem;
        b.count = q + (rank >= small ? 1 : 0);
        b.displ = (int64_t)rank * q + max64(0, rank - small);
        return b;
    }
    /* rank*q <= n and min(rank, rem) <= rem, so displ <= n: no overflow. */
    b.count = q + (rank < rem ? 1 : 0);
    b.displ = (int64_t)rank * q + min64(rank, rem);
    return b;
}

int plan_owner_of(int64_t n, int nprocs, int64_t index)
{
    if (n < 0 || nprocs < 1 || index < 0 || index >= n)
        return -1;
    int64_t q = n / nprocs, rem = n % nprocs;
    if (remainder_last) {
        /* the first nprocs-rem ranks hold q each (index < small implies q >= 1) */
        int64_t small = (nprocs - rem) * q;
        if (index < small)
            return (int)(index / q);
        return (int)((nprocs - rem) + (index - small) / (q + 1));
    }
    /* elements held by the first rem ranks: rem*q + rem <= n (no overflow;
     * q + 1 is only formed when rem > 0, i.e. nprocs >= 2 and q < n) */
    int64_t big = rem * q + rem;
    if (index < big)
        return (int)(index / (q + 1));
    /* index >= big and index < n imply q >= 1 */
    return (int)(rem + (index - big) / q);
}

/* The transfer that starts at global position pos (0 <= pos < n), clipped to
 * end at hi; arguments already validated.  Returns the end position. */
static int64_t transfer_at(int64_t n, int ns, int nd, int64_t pos, int64_t hi, plan_transfer *t)
{
    int s = plan_owner_of(n, ns, pos);
    int d = plan_owner_of(n, nd, pos);
    plan_block sb = plan_block_of(n, ns, s);
    plan_block db = plan_block_of(n, nd, d);
    int64_t end = min64(min64(sb.displ + sb.count, db.displ + db.count), hi);
    t->src = s;
    t->dst = d;
    t->global_displ = pos;
    t->count = end - pos;
    t->src_offset = pos - sb.displ;
    t->dst_offset = pos - db.displ;
    return end;
}

/* All transfers covering global range [lo, hi), in increasing global order. */
static long sweep(int64_t n, int ns, int nd, int64_t lo, int64_t hi,
                  plan_transfer *out, size_t capacity)
{
    size_t k = 0;
    int64_t pos = lo;
    if (out == NULL && capacity != 0)
        return -1;
    while (pos < hi) {
        if (k >= capacity)
            return -1;
        pos = transfer_at(n, ns, nd, pos, hi, &out[k]);
        k++;
    }
    return (long)k;
}

static int valid_sizes(int64_t n, int ns, int nd)
{
    return n >= 0 && ns >= 1 && nd >= 1;
}

size_t plan_max_transfers(int ns, int nd)
{
    if (ns < 1 || nd < 1)
        return 0;
    return (size_t)ns + (size_t)nd - 1;
}

long plan_compute(int64_t n, int ns, int nd, plan_transfer *out, size_t capacity)
{
    if (!valid_sizes(n, ns, nd))
        return -1;
    return sweep(n, ns, nd, 0, n, out, capacity);
}

long plan_sends_of(int64_t n, int ns, int nd, int src, plan_transfer *out, size_t capacity)
{
    if (!valid_sizes(n, ns, nd) || src < 0 || src >= ns)
        return -1;
    plan_block b = plan_block_of(n, ns, src);
    return sweep(n, ns, nd, b.displ, b.displ + b.count, out, capacity);
}

long plan_recvs_of(int64_t n, int ns, int nd, int dst, plan_transfer *out, size_t capacity)
{
    if (!valid_sizes(n, ns, nd) || dst < 0 || dst >= nd)
        return -1;
    plan_block b = plan_block_of(n, nd, dst);
    return sweep(n, ns, nd, b.displ, b.displ + b.count, out, capacity);
}

/* Check one rank->comm map; `seen` (comm_size long, zeroed) detects duplicates.
 * Ranks 0..nonempty-1 hold non-empty blocks and must be present. */
static int check_map(const int *map, int nranks, int64_t n, int comm_size, int64_t *seen)
{
    for (int r = 0; r < nranks; r++) {
        int c = map[r];
        if (c < -1 || c >= comm_size)
            return -1;
        if (c == -1) {
            if (plan_block_of(n, nranks, r).count > 0)
                return -1;
            continue;
        }
        if (seen[c])
            return -1;
        seen[c] = 1;
    }
    return 0;
}

int plan_alltoallv_arrays(int64_t n, int ns, int nd, int my_old_rank, int my_new_rank,
                          const int *old_to_comm, const int *new_to_comm, int comm_size,
                          int64_t *sendcounts, int64_t *sdispls,
                          int64_t *recvcounts, int64_t *rdispls)
{
    if (!valid_sizes(n, ns, nd) || comm_size < 1 || !old_to_comm || !new_to_comm ||
        !sendcounts || !sdispls || !recvcounts || !rdispls)
        return -1;
    if (my_old_rank < -1 || my_old_rank >= ns || my_new_rank < -1 || my_new_rank >= nd)
        return -1;

    for (int c = 0; c < comm_size; c++)
        sendcounts[c] = recvcounts[c] = 0;
    if (check_map(old_to_comm, ns, n, comm_size, sendcounts) != 0 ||
        check_map(new_to_comm, nd, n, comm_size, recvcounts) != 0)
        return -1;
    if (my_old_rank >= 0 && old_to_comm[my_old_rank] < 0)
        return -1;
    if (my_new_rank >= 0 && new_to_comm[my_new_rank] < 0)
        return -1;
    if (my_old_rank >= 0 && my_new_rank >= 0 &&
        old_to_comm[my_old_rank] != new_to_comm[my_new_rank])
        return -1;

    for (int c = 0; c < comm_size; c++)
        sendcounts[c] = sdispls[c] = recvcounts[c] = rdispls[c] = 0;

    plan_transfer t;
    if (my_old_rank >= 0) {
        plan_block b = plan_block_of(n, ns, my_old_rank);
        int64_t pos = b.displ, hi = b.displ + b.count;
        while (pos < hi) {
            pos = transfer_at(n, ns, nd, pos, hi, &t);
            int c = new_to_comm[t.dst]; /* >= 0: t.dst has a non-empty block */
            sendcounts[c] = t.count;
            sdispls[c] = t.src_offset;
        }
    }
    if (my_new_rank >= 0) {
        plan_block b = plan_block_of(n, nd, my_new_rank);
        int64_t pos = b.displ, hi = b.displ + b.count;
        while (pos < hi) {
            pos = transfer_at(n, ns, nd, pos, hi, &t);
            int c = old_to_comm[t.src];
            recvcounts[c] = t.count;
            rdispls[c] = t.dst_offset;
        }
    }
    return 0;
}

int64_t plan_moved_elements(int64_t n, int ns, int nd)
{
    if (!valid_sizes(n, ns, nd))
        return -1;
    int m = ns < nd ? ns : nd;
    int64_t kept = 0;
    for (int r = 0; r < m; r++) {
        plan_block a = plan_block_of(n, ns, r);
        plan_block b = plan_block_of(n, nd, r);
        int64_t lo = max64(a.displ, b.displ);
        int64_t hi = min64(a.displ + a.count, b.displ + b.count);
        if (hi > lo)
            kept += hi - lo;
    }
    return n - kept;
}

/* The next transfer of a sweep over [*pos, hi) (the counterpart's rank in *peer;
 * the new owner when `to_new`, else the old one), or 0 at the end. */
static int next_peer(int64_t n, int ns, int nd, int to_new, int64_t *pos, int64_t hi, int *peer)
{
    if (*pos >= hi) return 0;
    plan_transfer t;
    *pos = transfer_at(n, ns, nd, *pos, hi, &t);
    *peer = to_new ? t.dst : t.src;
    return 1;
}

int plan_max_partners(int64_t n, int ns, int nd, int same_process)
{
    if (!valid_sizes(n, ns, nd))
        return -1;
    int most = 0, np = same_process ? (ns > nd ? ns : nd) : ns + nd;
    for (int p = 0; p < np; p++) {
        /* process p: old rank o (or -1), new rank w (or -1) */
        int o = p < ns ? p : -1;
        int w = same_process ? (p < nd ? p : -1) : (p >= ns ? p - ns : -1);
        plan_block ob = o >= 0 ? plan_block_of(n, ns, o) : (plan_block){0, 0};
        plan_block wb = w >= 0 ? plan_block_of(n, nd, w) : (plan_block){0, 0};
        int64_t sp = ob.displ, se = ob.displ + ob.count, rp = wb.displ, re = wb.displ + wb.count;
        /* destinations (new ranks) and sources (old ranks) both come in increasing order: with
         * same_process new rank d and old rank d are one process, so merge the two to count it once */
        int d = -1, s = -1, k = 0;
        int hd = next_peer(n, ns, nd, 1, &sp, se, &d), hs = next_peer(n, ns, nd, 0, &rp, re, &s);
        while (hd || hs) {
            int take_d = hd && (!hs || !same_process || d <= s), take_s = hs && (!hd || !same_process || s <= d);
            int peer = take_d ? d : s;
            if (!same_process || peer != p) k += same_process ? 1 : take_d + take_s;
            if (take_d) hd = next_peer(n, ns, nd, 1, &sp, se, &d);
            if (take_s) hs = next_peer(n, ns, nd, 0, &rp, re, &s);
        }
        if (k > most) most = k;
    }
    return most;
}

long plan_recv_sources(plan_transfer *tr, long ntr, const int *o2c, int comm_size, int me, unsigned char *seen,
                       int *out, uint64_t *ops)
{
    long n = 0, k;
    int bad = 0;
    for (k = 0; k < ntr; k++) {
        int t = o2c[tr[k].src];
        if (ops)
            ++*ops;
        if (t < 0 || t >= comm_size) {
            bad = 1;
            break;
        }
        tr[k].src = t;
        if (t == me || seen[t])
            continue;
        seen[t] = 1;
        out[n++] = t;
    }
    for (long j = 0; j < n; j++) /* the scratch back to zeros: O(sources) */
        seen[out[j]] = 0;
    return bad ? -1 : n;
}
