/* bytes.c -- byte-counting helpers for the generated wrappers and the
 * persistent-request table (fixed size, open addressing; no allocation). */
#include "bytes.h"

#include <stdatomic.h>
#include <string.h>

#include "hotpath.h"
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

/* ---------------------------------------------------- persistent requests */
#define PERSIST_SLOTS 4096 /* power of two; more live persistent requests are not counted */

struct persist_slot {
    uint64_t key; /* 0 = empty */
    uint64_t sent, recv;
};
static struct persist_slot persist[PERSIST_SLOTS];
static atomic_flag persist_lock = ATOMIC_FLAG_INIT;

static uint64_t request_key(MPI_Request req)
{
    uint64_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key;
}

static unsigned slot_of(uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (unsigned)key & (PERSIST_SLOTS - 1);
}

static void lock(void)
{
    if (ductile_threaded)
        while (atomic_flag_test_and_set_explicit(&persist_lock, memory_order_acquire)) {}
}

static void unlock(void)
{
    if (ductile_threaded) atomic_flag_clear_explicit(&persist_lock, memory_order_release);
}

void ductile_persist_add(MPI_Request req, uint64_t sent, uint64_t recv)
{
    uint64_t key = request_key(req);
    if (key == 0 || req == MPI_REQUEST_NULL) return;
    lock();
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PERSIST_SLOTS; n++, i = (i + 1) & (PERSIST_SLOTS - 1)) {
        if (persist[i].key == 0 || persist[i].key == key) {
            persist[i].key = key;
            persist[i].sent = sent;
            persist[i].recv = recv;
            break;
        }
    }
    unlock();
}

int ductile_persist_lookup(MPI_Request req, uint64_t *sent, uint64_t *recv)
{
    uint64_t key = request_key(req);
    int found = 0;
    *sent = *recv = 0;
    if (key == 0 || req == MPI_REQUEST_NULL) return 0;
    lock();
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PERSIST_SLOTS && persist[i].key; n++, i = (i + 1) & (PERSIST_SLOTS - 1)) {
        if (persist[i].key == key) {
            *sent = persist[i].sent;
            *recv = persist[i].recv;
            found = 1;
            break;
        }
    }
    unlock();
    return found;
}

void ductile_persist_remove(MPI_Request req)
{
    uint64_t key = request_key(req);
    if (key == 0 || req == MPI_REQUEST_NULL) return;
    lock();
    unsigned i = slot_of(key);
    for (unsigned n = 0; n < PERSIST_SLOTS && persist[i].key; n++, i = (i + 1) & (PERSIST_SLOTS - 1)) {
        if (persist[i].key != key) continue;
        /* backward-shift deletion keeps probe chains intact */
        unsigned hole = i, j = i;
        for (;;) {
            j = (j + 1) & (PERSIST_SLOTS - 1);
            if (persist[j].key == 0) break;
            unsigned home = slot_of(persist[j].key);
            int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!between) {
                persist[hole] = persist[j];
                hole = j;
            }
        }
        persist[hole].key = 0;
        break;
    }
    unlock();
}
