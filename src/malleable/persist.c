/* persist.c -- prepared (persistent) transfers of block-distributed arrays:
 * one-time set-up, per-use execution, reuse across resizes (see persist.h). */
#include "config.h"

#include "persist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef OMPI_MAJOR_VERSION
#include <mpi-ext.h>
#endif

#include "pmpi_exports.h"
#include "../common/clock.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "../core/state.h"
#include "../redist/chunk.h"
#include "../redist/plan.h"
#include "../redist/bigcoll.h"

#if HAVE_PMPI_Alltoallv_init
#define A2AV_INIT PMPI_Alltoallv_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define A2AV_INIT PMPIX_Alltoallv_init
#endif

#define PERSIST_TAG 0x5d1b

/* A shared block: one array's layout over nd processes in one shared window. */
struct shblock {
    MPI_Comm comm;
    int nd, slot;
    MPI_Win win;
    char *mine;
    size_t bytes;
    char **peer; /* every comm rank's segment */
    struct shblock *next;
};

static struct shblock *shblocks;
static MPI_Comm refused[16]; /* communicators where shared blocks are not possible */
static int nrefused;

struct prepared {
    /* the key: same on every process of comm */
    MPI_Comm comm;
    int ns, nd, slot, method;
    int64_t nrows;
    size_t rowbytes;
    /* local buffers it was prepared for */
    const void *src;
    void *dst;
    int me;
    uint64_t moved;
    /* col: one request; p2p: one per message */
    MPI_Request *reqs;
    int nreq;
    struct a2a_args a2a; /* col: the Alltoallv arguments (must live as long as the request) */
    int col;
    int64_t self_from, self_to, self_bytes; /* p2p: the local part */
    /* rma-* */
    MPI_Win win;
    plan_transfer *tr;
    long ntr;
    int *targets;      /* rma-lock: distinct remote sources I read from */
    int ntargets;
    struct shblock *shm; /* the sources' shared block: direct copies, no window of its own */
    struct prepared *next;
};

static struct prepared *kept;
static int nkept;

static int fail(int rc, const char *what, char *err, size_t errlen)
{
    ductile_mpi_failed(rc, what, err, errlen);
    return -1;
}

int persist_have_alltoallv_init(void)
{
#ifdef A2AV_INIT
    return 1;
#else
    return 0;
#endif
}

int persist_count(void) { return nkept; }

int persist_prepared_method(MPI_Comm comm, int ns, int nd)
{
    for (struct prepared *p = kept; p && comm != MPI_COMM_NULL; p = p->next)
        if (p->comm == comm && p->ns == ns && p->nd == nd) return p->method;
    return -1;
}

static void prepared_free(struct prepared *p)
{
    for (int i = 0; i < p->nreq; i++)
        if (p->reqs[i] != MPI_REQUEST_NULL) PMPI_Request_free(&p->reqs[i]);
    if (p->win != MPI_WIN_NULL) PMPI_Win_free(&p->win); /* collective over comm */
    free(p->reqs);
    if (p->col) a2a_free(&p->a2a);
    free(p->tr);
    free(p->targets);
    free(p);
}

/* ------------------------------------------------------------------ set-up */

static int setup_p2p(struct prepared *p, const struct redist_layout *L, const int64_t *sc, const int64_t *sd,
                     const int64_t *rc, const int64_t *rd, char *err, size_t errlen);

/* Persistent Alltoallv of any size (src/redist/bigcoll.c), in the form
 * every process derives from the layout alike; where this MPI has no
 * persistent call for that form (the same answer everywhere), persistent
 * p2p. */
static int setup_col(struct prepared *p, const struct redist_layout *L, const int64_t *sc, const int64_t *sd,
                     const int64_t *rc, const int64_t *rd, char *err, size_t errlen)
{
    int kind = a2a_layout_kind(p->nrows, L->ns, L->nd, p->rowbytes);
    if (!a2a_have_init(kind)) return setup_p2p(p, L, sc, sd, rc, rd, err, errlen); /* the same everywhere */
    if (kind != A2A_INT)
        ductile_log(2, "persistent MPI_Alltoallv of %lld rows of %zu bytes, %d -> %d: the %s form on every process",
                    (long long)p->nrows, p->rowbytes, L->ns, L->nd, a2a_kind_name(kind));
    /* the preparation (and the request's room) succeeded everywhere before anyone starts the collective */
    int ok = a2a_prepare(&p->a2a, kind, L->comm_size, sc, sd, rc, rd, p->rowbytes, p->src, p->dst, err, errlen) == 0;
    int mine = ok;
    p->reqs = ok ? txn_malloc(sizeof *p->reqs) : NULL;
    if (ok && !p->reqs) { snprintf(err, errlen, "out of memory"); ok = 0; }
    int r = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, L->comm);
    if (r != MPI_SUCCESS || !ok) {
        if (mine) a2a_free(&p->a2a);
        free(p->reqs);
        p->reqs = NULL;
        if (r != MPI_SUCCESS) return fail(r, "agreeing on the persistent collective", err, errlen);
        if (mine && !err[0]) snprintf(err, errlen, "preparing the collective failed on another process");
        return -1;
    }
    p->col = 1;
    p->reqs[0] = MPI_REQUEST_NULL;
    p->nreq = 1;
    r = a2a_init(&p->a2a, L->comm, &p->reqs[0]);
    if (r != MPI_SUCCESS) { p->reqs[0] = MPI_REQUEST_NULL; return fail(r, "MPI_Alltoallv_init", err, errlen); }
    return 0;
}

static int setup_p2p(struct prepared *p, const struct redist_layout *L, const int64_t *sc, const int64_t *sd,
                     const int64_t *rc, const int64_t *rd, char *err, size_t errlen)
{
    int n = L->comm_size, me = p->me;
    int64_t rb = (int64_t)p->rowbytes;
    size_t nreq = 0; /* one message per piece below 1 GiB (src/redist/chunk.h) */
    const int64_t piece = chunk_piece_max();
    for (int i = 0; i < n; i++)
        if (i != me) nreq += (size_t)chunk_count(sc[i] * rb, piece) + (size_t)chunk_count(rc[i] * rb, piece);
    p->reqs = txn_malloc((nreq ? nreq : 1) * sizeof *p->reqs);
    if (!p->reqs) { snprintf(err, errlen, "out of memory"); return -1; }
    int r = MPI_SUCCESS;
    for (int dir = 0; dir < 2; dir++) /* receives first, then sends */
        for (int i = 0; i < n && r == MPI_SUCCESS; i++) {
            int64_t bytes = dir ? sc[i] * rb : rc[i] * rb, off = dir ? sd[i] * rb : rd[i] * rb;
            if (i == me || !bytes) continue;
            for (int64_t k = 0, np = chunk_count(bytes, piece); k < np && r == MPI_SUCCESS; k++) {
                int64_t o = 0;
                int len = 0;
                chunk_piece(bytes, piece, k, &o, &len);
                r = dir ? PMPI_Send_init((const char *)p->src + off + o, len, MPI_BYTE, i, PERSIST_TAG, L->comm,
                                         &p->reqs[p->nreq])
                        : PMPI_Recv_init((char *)p->dst + off + o, len, MPI_BYTE, i, PERSIST_TAG, L->comm,
                                         &p->reqs[p->nreq]);
                if (r == MPI_SUCCESS) p->nreq++;
            }
        }
    if (r != MPI_SUCCESS) return fail(r, "MPI_Send_init / MPI_Recv_init", err, errlen);
    if (me >= 0 && sc[me]) {
        p->self_from = sd[me] * rb;
        p->self_to = rd[me] * rb;
        p->self_bytes = sc[me] * rb;
    }
    return 0;
}

static struct shblock *shblock_find(MPI_Comm comm, int nd, int slot)
{
    for (struct shblock *b = shblocks; b; b = b->next)
        if (b->comm == comm && b->nd == nd && b->slot == slot) return b;
    return NULL;
}

static int setup_rma(struct prepared *p, const struct redist_layout *L, char *err, size_t errlen)
{
    plan_block ob = {0, 0};
    if (L->my_old >= 0) ob = plan_block_of(p->nrows, L->ns, L->my_old);
    MPI_Aint bytes = (MPI_Aint)ob.count * (MPI_Aint)p->rowbytes;
    size_t cap = plan_max_transfers(L->ns, L->nd);
    p->tr = txn_calloc(cap ? cap : 1, sizeof *p->tr);
    p->targets = txn_calloc((size_t)L->ns + 1, sizeof *p->targets);
    int mine = p->tr && p->targets;
    if (!mine) snprintf(err, errlen, "out of memory");
    if (mine && L->my_new >= 0) {
        p->ntr = plan_recvs_of(p->nrows, L->ns, L->nd, L->my_new, p->tr, cap);
        if (p->ntr < 0) { snprintf(err, errlen, "invalid RMA plan"); mine = 0; }
    }
    /* from here on tr[k].src is the comm rank of the source; the distinct remote ones in O(transfers) */
    unsigned char *seen = mine ? txn_calloc((size_t)L->comm_size + 1, 1) : NULL;
    if (mine && !seen) { snprintf(err, errlen, "out of memory"); mine = 0; }
    if (mine) {
        long nt = plan_recv_sources(p->tr, p->ntr, L->old_to_comm, L->comm_size, p->me, seen, p->targets, NULL);
        if (nt < 0) { snprintf(err, errlen, "invalid RMA plan"); mine = 0; }
        else p->ntargets = (int)nt;
    }
    free(seen);
    /* the sources' old blocks in a shared block (DUCTILE_RMA_MEMORY=shared): every process agrees */
    struct shblock *b = p->slot >= 0 ? shblock_find(L->comm, L->ns, p->slot) : NULL;
    int v[2] = {b && (L->my_old < 0 || (const void *)b->mine == p->src), mine};
    int r = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, L->comm);
    if (r != MPI_SUCCESS) return fail(r, "agreeing on shared memory", err, errlen);
    if (!v[1]) return -1; /* a process could not prepare: no window anywhere */
    if (v[0]) {
        p->shm = b;
        return 0;
    }
    static char dummy;
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "accumulate_ordering", "none");
    if (p->method == REDIST_RMA_FENCE) PMPI_Info_set(info, "no_locks", "true");
    r = PMPI_Win_create(bytes ? (void *)p->src : &dummy, bytes, 1, info, L->comm, &p->win);
    PMPI_Info_free(&info);
    if (r != MPI_SUCCESS) { p->win = MPI_WIN_NULL; return fail(r, "MPI_Win_create", err, errlen); }
    PMPI_Win_set_errhandler(p->win, MPI_ERRORS_RETURN);
    return 0;
}

/* A new prepared transfer and its counts: local (allocation and plan), so
 * that its outcome is agreed before the set-up's collectives. */
static struct prepared *prepare_new(const struct redist_layout *L, int method, int slot, int64_t nrows,
                                    size_t rowbytes, const void *src, void *dst, int64_t **counts, char *err,
                                    size_t errlen)
{
    struct prepared *p = txn_calloc(1, sizeof *p);
    size_t n = (size_t)L->comm_size;
    int64_t *c = p ? txn_calloc(4 * n, sizeof *c) : NULL;
    if (!c) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->comm = L->comm;
    p->ns = L->ns;
    p->nd = L->nd;
    p->slot = slot;
    p->method = method;
    p->nrows = nrows;
    p->rowbytes = rowbytes;
    p->src = src;
    p->dst = dst;
    p->win = MPI_WIN_NULL;
    PMPI_Comm_rank(L->comm, &p->me);
    if (plan_alltoallv_arrays(nrows, L->ns, L->nd, L->my_old, L->my_new, L->old_to_comm, L->new_to_comm,
                              L->comm_size, c, c + n, c + 2 * n, c + 3 * n) != 0) {
        snprintf(err, errlen, "invalid redistribution plan (%lld rows, %d -> %d)", (long long)nrows, L->ns, L->nd);
        free(c);
        free(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (i != (size_t)p->me) p->moved += (uint64_t)c[i] * rowbytes;
    }
    *counts = c;
    return p;
}

/* The set-up of p (collective over L->comm); c is freed. */
static int prepare_setup(struct prepared *p, const struct redist_layout *L, int64_t *c, char *err, size_t errlen)
{
    size_t n = (size_t)L->comm_size;
    int rc, method = p->method;
    if (method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL || method == REDIST_RMA_FENCE) {
        uint64_t rd = 0; /* rma-*: bytes read from others */
        for (size_t i = 0; i < n; i++)
            if (i != (size_t)p->me) rd += (uint64_t)c[2 * n + i] * p->rowbytes;
        p->moved = rd;
        rc = setup_rma(p, L, err, errlen);
    } else if (method == REDIST_COL) {
        rc = setup_col(p, L, c, c + n, c + 2 * n, c + 3 * n, err, errlen);
    } else {
        rc = setup_p2p(p, L, c, c + n, c + 2 * n, c + 3 * n, err, errlen);
    }
    free(c);
    return rc;
}

/* ------------------------------------------------------------------ execution */

/* Every step runs on every process, also after a failed one (the reads of a
 * failed epoch are skipped): the others wait for the fences and barriers. */
static int run_rma(struct prepared *p, char *err, size_t errlen)
{
    int r = MPI_SUCCESS;
    if (p->method == REDIST_RMA_FENCE) r = txn_mpi(PMPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, p->win));
    else if (p->method == REDIST_RMA_LOCKALL && p->ntargets) r = txn_mpi(PMPI_Win_lock_all(MPI_MODE_NOCHECK, p->win));
    else if (p->method == REDIST_RMA_LOCK)
        for (int j = 0; j < p->ntargets && r == MPI_SUCCESS; j++)
            r = txn_mpi(PMPI_Win_lock(MPI_LOCK_SHARED, p->targets[j], MPI_MODE_NOCHECK, p->win));
    if (r != MPI_SUCCESS) fail(r, "opening the RMA epoch", err, errlen);
    for (long k = 0; k < p->ntr && r == MPI_SUCCESS; k++) {
        const plan_transfer *t = &p->tr[k];
        int64_t bytes = t->count * (int64_t)p->rowbytes, off = t->src_offset * (int64_t)p->rowbytes;
        char *to = (char *)p->dst + t->dst_offset * (int64_t)p->rowbytes;
        if (t->src == p->me) memcpy(to, (const char *)p->src + off, (size_t)bytes);
        else /* pieces below 1 GiB (src/redist/chunk.h) */
            for (int64_t j = 0, piece = chunk_piece_max(), np = chunk_count(bytes, piece); j < np && r == MPI_SUCCESS;
                 j++) {
                int64_t o = 0;
                int len = 0;
                chunk_piece(bytes, piece, j, &o, &len);
                r = txn_mpi(PMPI_Get(to + o, len, MPI_BYTE, t->src, (MPI_Aint)(off + o), len, MPI_BYTE, p->win));
                if (r != MPI_SUCCESS) fail(r, "MPI_Get", err, errlen);
            }
    }
    int r2 = MPI_SUCCESS;
    if (p->method == REDIST_RMA_FENCE) r2 = txn_mpi(PMPI_Win_fence(MPI_MODE_NOSUCCEED, p->win));
    else if (p->method == REDIST_RMA_LOCKALL && p->ntargets) r2 = txn_mpi(PMPI_Win_unlock_all(p->win));
    else if (p->method == REDIST_RMA_LOCK)
        for (int j = 0; j < p->ntargets; j++) {
            int u = txn_mpi(PMPI_Win_unlock(p->targets[j], p->win));
            if (u != MPI_SUCCESS) r2 = u;
        }
    /* lock-based: the sources keep their blocks until every drain has read */
    if (p->method != REDIST_RMA_FENCE) {
        int b = txn_mpi(PMPI_Barrier(p->comm));
        if (r2 == MPI_SUCCESS) r2 = b;
    }
    if (r == MPI_SUCCESS && r2 != MPI_SUCCESS) fail(r2, "closing the RMA epoch", err, errlen);
    return r == MPI_SUCCESS && r2 == MPI_SUCCESS ? 0 : -1;
}

/* Sources in shared memory: their writes are visible after the sync and the
 * barrier; the second barrier keeps them from changing their blocks before
 * every drain has copied. */
static int run_shm(struct prepared *p, char *err, size_t errlen)
{
    PMPI_Win_sync(p->shm->win);
    int r = txn_mpi(PMPI_Barrier(p->comm));
    if (r != MPI_SUCCESS) fail(r, "barrier before the shared-memory copies", err, errlen);
    PMPI_Win_sync(p->shm->win);
    for (long k = 0; k < p->ntr && r == MPI_SUCCESS; k++) {
        const plan_transfer *t = &p->tr[k];
        int64_t bytes = t->count * (int64_t)p->rowbytes, off = t->src_offset * (int64_t)p->rowbytes;
        char *to = (char *)p->dst + t->dst_offset * (int64_t)p->rowbytes;
        if (bytes) memcpy(to, p->shm->peer[t->src] + off, (size_t)bytes);
    }
    int r2 = txn_mpi(PMPI_Barrier(p->comm));
    if (r == MPI_SUCCESS && r2 != MPI_SUCCESS) fail(r2, "barrier after the shared-memory copies", err, errlen);
    return r == MPI_SUCCESS && r2 == MPI_SUCCESS ? 0 : -1;
}

static int run(struct prepared *p, char *err, size_t errlen)
{
    if (p->shm) return run_shm(p, err, errlen);
    if (p->win != MPI_WIN_NULL) return run_rma(p, err, errlen);
    int r = p->nreq == 0 ? MPI_SUCCESS : p->nreq == 1 && p->col ? PMPI_Start(&p->reqs[0])
                                                                    : PMPI_Startall(p->nreq, p->reqs);
    r = txn_mpi(r); /* started (an injected failure too): completed below all the same */
    if (r != MPI_SUCCESS) fail(r, "MPI_Start", err, errlen);
    if (r == MPI_SUCCESS && p->self_bytes)
        memcpy((char *)p->dst + p->self_to, (const char *)p->src + p->self_from, (size_t)p->self_bytes);
    int w = p->nreq ? txn_mpi(PMPI_Waitall(p->nreq, p->reqs, MPI_STATUSES_IGNORE)) : MPI_SUCCESS;
    if (r == MPI_SUCCESS && w != MPI_SUCCESS) fail(w, "completing the persistent transfer", err, errlen);
    return r == MPI_SUCCESS && w == MPI_SUCCESS ? 0 : -1;
}

/* ------------------------------------------------------------------ cache */

static struct prepared **find(MPI_Comm comm, int ns, int nd, int slot)
{
    for (struct prepared **pp = &kept; *pp; pp = &(*pp)->next)
        if ((*pp)->comm == comm && (*pp)->ns == ns && (*pp)->nd == nd && (*pp)->slot == slot) return pp;
    return NULL;
}

int persist_move(const struct redist_layout *L, int method, int slot, int64_t nrows, size_t rowbytes, const void *src,
                 void *dst, int keep, int ok, struct persist_outcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (ok && src && dst && src == dst) {
        snprintf(err, errlen, "a persistent transfer needs distinct old and new buffers");
        ok = 0;
    }
    double t0 = ductile_now();
    struct prepared **pp = find(L->comm, L->ns, L->nd, slot);
    /* prepared transfers exist on every process of comm or on none; reuse
     * only if every process still has the same buffers and shape */
    int same = pp && (*pp)->method == method && (*pp)->nrows == nrows && (*pp)->rowbytes == rowbytes &&
               (*pp)->src == src && (*pp)->dst == dst;
    int have = pp != NULL;
    struct prepared *fresh = NULL; /* allocated before the checkpoint, used when some process needs a set-up */
    int64_t *counts = NULL;
    if (ok) {
        fresh = prepare_new(L, method, slot, nrows, rowbytes, src, dst, &counts, err, errlen);
        ok = fresh != NULL;
    }
    int agree[3] = {same, have, ok}; /* the checkpoint, with the persistent state */
    int r = PMPI_Allreduce(MPI_IN_PLACE, agree, 3, MPI_INT, MPI_MIN, L->comm);
    if (r != MPI_SUCCESS || !agree[2]) {
        if (fresh) prepared_free(fresh);
        free(counts);
        if (r != MPI_SUCCESS) fail(r, "agreeing on persistent state", err, errlen);
        return r != MPI_SUCCESS ? MOVE_FAILED : MOVE_STOPPED;
    }
    struct prepared *p = NULL;
    if (agree[0]) {
        p = *pp;
        out->reused = 1;
    } else {
        if (pp) { /* stale: free it (every process has one: collective) */
            struct prepared *old = *pp;
            *pp = old->next;
            prepared_free(old);
            nkept--;
        }
        p = fresh;
        fresh = NULL;
        int su = prepare_setup(p, L, counts, err, errlen);
        counts = NULL; /* freed */
        if (su != 0) {
            prepared_free(p);
            p = NULL;
        }
        /* agree on success before anyone uses a half-made transfer */
        if (!txn_all_ok(L->comm, p != NULL)) {
            if (p) prepared_free(p);
            return MOVE_STOPPED;
        }
        out->setup_s = ductile_now() - t0;
        if (keep) {
            p->next = kept;
            kept = p;
            nkept++;
        }
    }
    if (fresh) prepared_free(fresh); /* not needed: reused */
    free(counts);
    int rc = run(p, err, errlen);
    out->moved = p->moved;
    out->shared = p->shm != NULL;
    if (!keep && !out->reused) prepared_free(p);
    return rc == 0 ? MOVE_OK : MOVE_FAILED;
}

void *persist_shared_block(MPI_Comm comm, int nd, int slot, size_t bytes, int *applies, char *err, size_t errlen)
{
    *applies = 1;
    struct shblock *b = shblock_find(comm, nd, slot);
    if (b) return b->mine;
    for (int i = 0; i < nrefused; i++)
        if (refused[i] == comm) { *applies = 0; return NULL; }
    /* only when the whole communicator shares one node */
    MPI_Comm node = MPI_COMM_NULL;
    int n = 0, nn = 0;
    PMPI_Comm_size(comm, &n);
    b = txn_calloc(1, sizeof *b); /* before the collectives: its outcome is agreed with the node's */
    if (b) b->peer = txn_calloc((size_t)n, sizeof *b->peer);
    if (b && !b->peer) {
        free(b);
        b = NULL;
    }
    int r = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (r != MPI_SUCCESS) { *applies = 0; if (b) free(b->peer); free(b); return NULL; }
    PMPI_Comm_size(node, &nn);
    PMPI_Comm_free(&node);
    int all[2] = {nn == n, b != NULL};
    PMPI_Allreduce(MPI_IN_PLACE, all, 2, MPI_INT, MPI_MIN, comm);
    if (!all[0] || !all[1]) {
        if (b) free(b->peer);
        free(b);
        if (!all[0]) {
            if (nrefused < (int)(sizeof refused / sizeof refused[0])) refused[nrefused++] = comm; /* asked once */
            *applies = 0;
        } else {
            snprintf(err, errlen, "%s", b ? "" : "out of memory"); /* every process: no shared block now */
        }
        return NULL;
    }
    b->comm = comm;
    b->nd = nd;
    b->slot = slot;
    b->bytes = bytes;
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each segment on its owner's pages */
    r = PMPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, comm, &b->mine, &b->win);
    PMPI_Info_free(&info);
    /* MPICH keeps processes of different jobs (spawned ones) in different
     * shared-memory domains even on one node: then the block does not apply
     * to this communicator (the same outcome everywhere, remembered) */
    int ok = r == MPI_SUCCESS;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    if (!ok) {
        (void)err;
        (void)errlen;
        free(b->peer);
        free(b); /* a window made on some processes only cannot be freed collectively: left to MPI_Finalize */
        if (nrefused < (int)(sizeof refused / sizeof refused[0])) refused[nrefused++] = comm;
        *applies = 0;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        MPI_Aint sz = 0;
        int du = 0;
        void *ptr = NULL;
        PMPI_Win_shared_query(b->win, i, &sz, &du, &ptr);
        b->peer[i] = ptr;
    }
    /* one passive epoch for the block's lifetime: MPI_Win_sync orders the copies */
    PMPI_Win_lock_all(MPI_MODE_NOCHECK, b->win);
    if (bytes) memset(b->mine, 0, bytes); /* first touch by the owner */
    b->next = shblocks;
    shblocks = b;
    return b->mine;
}

MPI_Comm persist_shared_owner(const void *p, size_t *bytes)
{
    for (struct shblock *b = shblocks; b && p; b = b->next)
        if (b->bytes && (const char *)p >= b->mine && (const char *)p < b->mine + b->bytes) {
            if (bytes) *bytes = b->bytes - (size_t)((const char *)p - b->mine);
            return b->comm;
        }
    return MPI_COMM_NULL;
}

void persist_release(MPI_Comm comm)
{
    /* the same order everywhere: the list is built in the same order on every process */
    struct prepared **pp = &kept;
    while (*pp) {
        if ((*pp)->comm == comm) {
            struct prepared *p = *pp;
            *pp = p->next;
            prepared_free(p);
            nkept--;
        } else {
            pp = &(*pp)->next;
        }
    }
    for (int i = 0; i < nrefused; i++)
        if (refused[i] == comm) refused[i--] = refused[--nrefused];
    for (struct shblock **bp = &shblocks; *bp;) {
        if ((*bp)->comm == comm) {
            struct shblock *b = *bp;
            *bp = b->next;
            PMPI_Win_unlock_all(b->win);
            PMPI_Win_free(&b->win); /* collective over comm */
            free(b->peer);
            free(b);
        } else {
            bp = &(*bp)->next;
        }
    }
}
