/* bytes.c -- byte-counting helpers for the generated wrappers and the
 * table of pending (nonblocking and persistent) operations, whose bytes are
 * counted when they complete (fixed size, lock-free, no allocation). */
#include "bytes.h"

#include <stdlib.h>
#include <string.h>

#include "../core/hotpath.h"
#include "pmpi_exports.h"

uint64_t ductile_type_size(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) return 0;
#if HAVE_PMPI_Type_size_x
    MPI_Count size = 0;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size < 0) return 0;
    return (uint64_t)size;
#else
    int size = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size < 0) return 0;
    return (uint64_t)size;
#endif
}

int ductile_group_size(MPI_Comm c)
{
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(c, &inter);
    if (inter) PMPI_Comm_remote_size(c, &n);
    else PMPI_Comm_size(c, &n);
    return n;
}

int ductile_local_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

int ductile_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

int ductile_root_role(int root, MPI_Comm c)
{
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    if (inter) {
        if (root == MPI_ROOT) return DUCTILE_ROOT_INTER;
        if (root == MPI_PROC_NULL) return DUCTILE_NO_ROLE;
        return DUCTILE_NONROOT;
    }
    return root == ductile_rank(c) ? DUCTILE_ROOT_INTRA : DUCTILE_NONROOT;
}

void ductile_neighbor_degrees(MPI_Comm c, int *in, int *out)
{
    int topo = MPI_UNDEFINED;
    *in = *out = 0;
    PMPI_Topo_test(c, &topo);
    if (topo == MPI_CART) {
        int ndims = 0;
        PMPI_Cartdim_get(c, &ndims);
        *in = *out = 2 * ndims;
    } else if (topo == MPI_GRAPH) {
        int n = 0;
        PMPI_Graph_neighbors_count(c, ductile_rank(c), &n);
        *in = *out = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(c, in, out, &weighted);
    }
}

void ductile_neighbor_slots(MPI_Comm c, int *in, int *out, uint64_t *null_mask)
{
    ductile_neighbor_degrees(c, in, out);
    *null_mask = 0;
    int topo = MPI_UNDEFINED;
    PMPI_Topo_test(c, &topo);
    if (topo != MPI_CART) return;
    /* neighbour 2d is the one below in dimension d (MPI_PROC_NULL at the edge
     * of a non-periodic dimension), 2d+1 the one above */
    int ndims = *in / 2;
    for (int d = 0; d < ndims && d < 32; d++) {
        int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
        PMPI_Cart_shift(c, d, 1, &below, &above);
        if (below == MPI_PROC_NULL) *null_mask |= 1ull << (2 * d);
        if (above == MPI_PROC_NULL) *null_mask |= 1ull << (2 * d + 1);
    }
}

int ductile_real_neighbors(int slots, uint64_t null_mask)
{
    return slots - __builtin_popcountll(null_mask);
}

uint64_t ductile_sum_mask_i(const int *counts, int n, uint64_t null_mask)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && !(i < 64 && (null_mask >> i) & 1)) s += (uint64_t)counts[i];
    return s;
}

uint64_t ductile_sum_mask_c(const MPI_Count *counts, int n, uint64_t null_mask)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && !(i < 64 && (null_mask >> i) & 1)) s += (uint64_t)counts[i];
    return s;
}

uint64_t ductile_sumw_mask_i(const int *counts, const MPI_Datatype *types, int n, uint64_t null_mask)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && !(i < 64 && (null_mask >> i) & 1)) s += (uint64_t)counts[i] * ductile_type_size(types[i]);
    return s;
}

uint64_t ductile_sumw_mask_c(const MPI_Count *counts, const MPI_Datatype *types, int n, uint64_t null_mask)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 && !(i < 64 && (null_mask >> i) & 1)) s += (uint64_t)counts[i] * ductile_type_size(types[i]);
    return s;
}

uint64_t ductile_sum_i(const int *counts, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++) s += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return s;
}

uint64_t ductile_sum_c(const MPI_Count *counts, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++) s += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return s;
}

uint64_t ductile_sumw_i(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0) s += (uint64_t)counts[i] * ductile_type_size(types[i]);
    return s;
}

uint64_t ductile_sumw_c(const MPI_Count *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] > 0) s += (uint64_t)counts[i] * ductile_type_size(types[i]);
    return s;
}

uint64_t ductile_status_bytes(const MPI_Status *status)
{
#if HAVE_PMPI_Get_elements_x
    MPI_Count n = 0;
    if (PMPI_Get_elements_x(status, MPI_BYTE, &n) != MPI_SUCCESS || n < 0) return 0;
#else
    int n = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &n) != MPI_SUCCESS || n < 0) return 0;
#endif
    return (uint64_t)n;
}

/* ------------------------------------------------------ pending operations
 * Fixed table, open addressing with a bounded probe window; lock-free: a slot
 * is claimed with a compare-and-swap of its key, its payload is read and
 * written with relaxed atomics (a request is posted and completed by threads
 * the program itself orders).  Removed slots become tombstones, which later
 * insertions reuse; look-ups probe at most PEND_PROBE slots.  An entry
 * whose completion is never seen (request freed by a path we do not wrap)
 * stays until its slot is needed: it may then be taken by a later request
 * with the same handle value. */
#define PEND_SLOTS 4096 /* power of two */
#define PEND_PROBE 64
#define KEY_EMPTY 0
#define KEY_TOMB UINT64_MAX

struct pend_slot {
    uint64_t key;
    uint64_t sent, recv;
    uint32_t fn, flags;
};
static struct pend_slot pend[PEND_SLOTS];
static uint64_t pend_live; /* entries in the table (relaxed; a hint for the completion calls) */

static uint64_t request_key(MPI_Request req)
{
    uint64_t key = 0;
    if (req == MPI_REQUEST_NULL) return KEY_EMPTY;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key == KEY_TOMB ? KEY_EMPTY : key;
}

static unsigned slot_of(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (unsigned)key & (PEND_SLOTS - 1);
}

#define LD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static void fill(struct pend_slot *p, int fn, uint64_t sent, uint64_t recv, unsigned flags)
{
    ST(&p->sent, sent);
    ST(&p->recv, recv);
    ST(&p->fn, (uint32_t)fn);
    ST(&p->flags, (uint32_t)flags);
}

static struct pend_slot *find(uint64_t key)
{
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PEND_PROBE; n++, i = (i + 1) & (PEND_SLOTS - 1)) {
        uint64_t k = __atomic_load_n(&pend[i].key, __ATOMIC_ACQUIRE);
        if (k == key) return &pend[i];
        if (k == KEY_EMPTY) return NULL;
    }
    return NULL;
}

int ductile_pending_add(MPI_Request req, int fn, uint64_t sent, uint64_t recv, unsigned flags)
{
    uint64_t key = request_key(req);
    if (key == KEY_EMPTY) return 0;
    /* Several live requests may share one handle value (both MPIs hand out
     * one static "already complete" request for sends that finished at
     * once), so a key may occur more than once; each completion takes one. */
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PEND_PROBE; n++, i = (i + 1) & (PEND_SLOTS - 1)) {
        uint64_t k = __atomic_load_n(&pend[i].key, __ATOMIC_RELAXED);
        if (k != KEY_EMPTY && k != KEY_TOMB) continue;
        if (__atomic_compare_exchange_n(&pend[i].key, &k, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            /* nobody looks this key up before the post returns */
            fill(&pend[i], fn, sent, recv, flags);
            __atomic_fetch_add(&pend_live, 1, __ATOMIC_RELAXED);
            return 1;
        }
    }
    return 0; /* table full around this key: the caller counts at the post */
}

static void drop(struct pend_slot *p)
{
    __atomic_store_n(&p->key, KEY_TOMB, __ATOMIC_RELEASE);
    __atomic_fetch_sub(&pend_live, 1, __ATOMIC_RELAXED);
}

int ductile_persist_lookup(MPI_Request req, uint64_t *sent, uint64_t *recv)
{
    uint64_t key = request_key(req);
    *sent = *recv = 0; /* counted when the started operation completes */
    struct pend_slot *p = key == KEY_EMPTY ? NULL : find(key);
    if (!p) return 0;
    ST(&p->flags, LD(&p->flags) | DUCTILE_PEND_ACTIVE);
    return 1;
}

void ductile_persist_remove(MPI_Request req)
{
    uint64_t key = request_key(req);
    struct pend_slot *p = key == KEY_EMPTY ? NULL : find(key);
    if (p) drop(p);
}

/* One completed request: count its bytes to the function that started it. */
static void complete(MPI_Request req, const MPI_Status *st)
{
    uint64_t key = request_key(req);
    if (key == KEY_EMPTY) return;
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PEND_PROBE; n++, i = (i + 1) & (PEND_SLOTS - 1)) {
        struct pend_slot *p = &pend[i];
        uint64_t k = __atomic_load_n(&p->key, __ATOMIC_ACQUIRE);
        if (k == KEY_EMPTY) return;
        if (k != key) continue;
        unsigned flags = LD(&p->flags);
        int fn = (int)LD(&p->fn);
        uint64_t sent = LD(&p->sent), recv = LD(&p->recv);
        if (flags & DUCTILE_PEND_PERSISTENT) {
            if (!(flags & DUCTILE_PEND_ACTIVE)) return; /* an inactive persistent request completes at once */
            ST(&p->flags, flags & ~(unsigned)DUCTILE_PEND_ACTIVE);
        } else {
            /* take this entry (another thread may be taking it: then look on) */
            if (!__atomic_compare_exchange_n(&p->key, &k, KEY_TOMB, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
                continue;
            __atomic_fetch_sub(&pend_live, 1, __ATOMIC_RELAXED);
        }
        /* only point-to-point operations can be cancelled (MPI-4); MPI-IO
         * requests of Open MPI carry no defined cancelled flag */
        int cancelled = 0, p2p = ductile_fn_category[fn] == DUCTILE_CAT_P2P;
        if (p2p && st && st != MPI_STATUS_IGNORE) PMPI_Test_cancelled(st, &cancelled);
        if (cancelled) return;
        if ((flags & DUCTILE_PEND_RECV_STATUS) && st && st != MPI_STATUS_IGNORE) recv = ductile_status_bytes(st);
        ductile_count_bytes(fn, sent, recv);
        return;
    }
}

MPI_Status *ductile_done_begin(struct ductile_done *d, int n, const MPI_Request *reqs, MPI_Status *st, int nst,
                               int many)
{
    d->on = 0;
    d->reqs = NULL;
    d->heap = 0;
    if (n <= 0 || __atomic_load_n(&pend_live, __ATOMIC_RELAXED) == 0) return st;
    int ignore = many ? st == MPI_STATUSES_IGNORE : st == MPI_STATUS_IGNORE;
    if (n <= DUCTILE_DONE_SMALL) {
        d->reqs = d->rbuf;
        if (ignore) st = d->sbuf;
    } else {
        d->reqs = malloc((size_t)n * sizeof *d->reqs + (ignore ? (size_t)nst * sizeof(MPI_Status) : 0));
        if (!d->reqs) return st;
        d->heap = 1;
        if (ignore) st = (MPI_Status *)(void *)(d->reqs + n);
    }
    memcpy(d->reqs, reqs, (size_t)n * sizeof *reqs);
    d->sts = st;
    d->on = 1;
    return st;
}

void ductile_done_end(struct ductile_done *d, int ndone, const int *indices, int by_position)
{
    if (!d->on) return;
    for (int j = 0; j < ndone; j++) {
        int i = indices ? indices[j] : j;
        if (i < 0) continue;
        complete(d->reqs[i], by_position ? &d->sts[j] : &d->sts[i]);
    }
    if (d->heap) free(d->reqs);
    d->on = 0;
}
