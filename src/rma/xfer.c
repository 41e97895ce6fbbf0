/* xfer.c -- RMA-Lock / RMA-Lockall redistribution, blocking and in the
 * background (Wait Drains, Threading), and COL-WD / COL-T (see xfer.h). */
#include "config.h"

#include "xfer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "window.h"
#include "../common/clock.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "../redist/bigcoll.h"
#include "../redist/chunk.h"
#include "../redist/plan.h"

#define CHUNK chunk_piece_max() /* pieces below INT_MAX, the same on every process (src/redist/chunk.h) */

/* Open MPI 4.1.4's osc/ucx (the only component that spans spawned processes
 * there) crashes now and then in MPI_Rget on a dynamic window
 * (ucp_ep_rkey_unpack, "mm_posix ... open ... failed"; every time inside
 * MPI_Win_lock_all).  There, Wait Drains issues MPI_Get and completes the
 * local phase with the unlocks at the first control point (docs/rma.md). */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define RGET_BROKEN 1
#else
#define RGET_BROKEN 0
#endif

int rma_thread_ok(void)
{
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    return level == MPI_THREAD_MULTIPLE;
}

/* One array exposed and read: its window, the base address (dynamic window)
 * or 0 (created window) of every comm rank, and my reads. */
struct item {
    int64_t nrows;
    size_t rowbytes;
    const void *src;
    void *dst;
    MPI_Win win;        /* the window the reads go to */
    int own_win;        /* created for this item (DUCTILE_RMA_WINDOW=create) */
    int attached;       /* src attached to the dynamic window */
    MPI_Aint *base;     /* [comm_size] */
    plan_transfer *tr;  /* my reads (drain side) */
    long ntr;
};

/* My reads (drain side) and room for every process's base: local. */
static int item_plan(const struct redist_layout *L, struct item *it, char *err, size_t errlen)
{
    it->base = txn_calloc((size_t)L->comm_size, sizeof *it->base);
    size_t cap = plan_max_transfers(L->ns, L->nd);
    it->tr = txn_calloc(cap ? cap : 1, sizeof *it->tr);
    if (!it->base || !it->tr) { snprintf(err, errlen, "out of memory"); return -1; }
    it->ntr = 0;
    if (L->my_new >= 0) {
        it->ntr = plan_recvs_of(it->nrows, L->ns, L->nd, L->my_new, it->tr, cap);
        if (it->ntr < 0) { snprintf(err, errlen, "invalid RMA plan"); return -1; }
    }
    return 0;
}

/* Expose src and learn every process's base (after item_plan and the
 * checkpoint).  Collective. */
static int item_setup(const struct redist_layout *L, struct item *it, struct rma_win *w, int create, double *setup_s,
                      char *err, size_t errlen)
{
    int rc;
    plan_block ob = {0, 0};
    if (L->my_old >= 0) ob = plan_block_of(it->nrows, L->ns, L->my_old);
    MPI_Aint bytes = (MPI_Aint)ob.count * (MPI_Aint)it->rowbytes;
    if (create) {
        double t0 = ductile_now();
        static char dummy;
        rc = PMPI_Win_create(bytes ? (void *)it->src : &dummy, bytes, 1, MPI_INFO_NULL, L->comm, &it->win);
        if (rc != MPI_SUCCESS) { ductile_mpi_failed(rc, "MPI_Win_create", err, errlen); return -1; }
        PMPI_Win_set_errhandler(it->win, MPI_ERRORS_RETURN);
        it->own_win = 1;
        *setup_s += ductile_now() - t0;
        return 0; /* displacements are relative to each window's base (0) */
    }
    it->win = w->win;
    MPI_Aint mine = 0;
    if (bytes > 0) {
        rc = PMPI_Win_attach(w->win, (void *)it->src, bytes);
        if (rc == MPI_SUCCESS) it->attached = 1;
        else ductile_mpi_failed(rc, "MPI_Win_attach", err, errlen);
        PMPI_Get_address(it->src, &mine);
    }
    /* every process takes part, also after a failed attach (its reads are then not issued) */
    int arc = txn_mpi(PMPI_Allgather(&mine, 1, MPI_AINT, it->base, 1, MPI_AINT, w->comm));
    if (arc != MPI_SUCCESS) { ductile_mpi_failed(arc, "address exchange", err, errlen); return -1; }
    return bytes > 0 && !it->attached ? -1 : 0;
}

static void item_cleanup(struct item *it, struct rma_win *w)
{
    if (it->own_win) PMPI_Win_free(&it->win);
    else if (it->attached && w) PMPI_Win_detach(w->win, it->src);
    it->attached = it->own_win = 0;
    free(it->base);
    free(it->tr);
    it->base = NULL;
    it->tr = NULL;
}

/* My comm rank in L. */
static int comm_rank(const struct redist_layout *L)
{
    int me = -1;
    PMPI_Comm_rank(L->comm, &me);
    return me;
}

/* The self part of my reads: a local copy. */
static void copy_self(const struct redist_layout *L, const struct item *it, int me)
{
    for (long k = 0; k < it->ntr; k++) {
        const plan_transfer *t = &it->tr[k];
        if (L->old_to_comm[t->src] != me) continue;
        const char *from = (const char *)it->src + t->src_offset * (int64_t)it->rowbytes;
        char *to = (char *)it->dst + t->dst_offset * (int64_t)it->rowbytes;
        if (from != to) memmove(to, from, (size_t)(t->count * (int64_t)it->rowbytes));
    }
}

/* Issue the reads of one item (Get, or Rget into reqs when reqs != NULL).
 * Returns the number of requests added, or -1. */
static long issue_reads(const struct redist_layout *L, const struct item *it, int me, MPI_Request *reqs, long *nreq,
                        uint64_t *moved, char *err, size_t errlen)
{
    for (long k = 0; k < it->ntr; k++) {
        const plan_transfer *t = &it->tr[k];
        int tgt = L->old_to_comm[t->src];
        if (tgt == me) continue;
        int64_t bytes = t->count * (int64_t)it->rowbytes, off = t->src_offset * (int64_t)it->rowbytes;
        char *to = (char *)it->dst + t->dst_offset * (int64_t)it->rowbytes;
        if (!it->own_win && !it->base[tgt] && bytes) { /* the source could not attach its block */
            snprintf(err, errlen, "the source (rank %d of the transfer) exposed nothing", tgt);
            return -1;
        }
        for (int64_t o = 0; o < bytes; o += CHUNK) {
            int len = (int)(bytes - o < CHUNK ? bytes - o : CHUNK);
            MPI_Aint disp = it->base[tgt] + (MPI_Aint)(off + o);
            int rc = reqs ? PMPI_Rget(to + o, len, MPI_BYTE, tgt, disp, len, MPI_BYTE, it->win, &reqs[*nreq])
                          : PMPI_Get(to + o, len, MPI_BYTE, tgt, disp, len, MPI_BYTE, it->win);
            if (reqs && rc != MPI_SUCCESS) reqs[*nreq] = MPI_REQUEST_NULL;
            rc = reqs ? txn_mpi_req(rc, &reqs[(*nreq)++]) : txn_mpi(rc);
            if (rc != MPI_SUCCESS) { ductile_mpi_failed(rc, reqs ? "MPI_Rget" : "MPI_Get", err, errlen); return -1; }
        }
        if (moved) *moved += (uint64_t)bytes;
    }
    return 0;
}

static long count_chunks(const struct redist_layout *L, const struct item *it, int me)
{
    long n = 0;
    for (long k = 0; k < it->ntr; k++)
        if (L->old_to_comm[it->tr[k].src] != me)
            n += (long)((it->tr[k].count * (int64_t)it->rowbytes + CHUNK - 1) / CHUNK);
    return n;
}

/* Epochs over several items: (window, target) pairs for RMA-Lock, windows for RMA-Lockall. */
struct epochs {
    MPI_Win *win;
    int *tgt;
    int n, cap;
};

static int epoch_has(const struct epochs *e, MPI_Win w, int t)
{
    for (int i = 0; i < e->n; i++)
        if (e->win[i] == w && e->tgt[i] == t) return 1;
    return 0;
}

static int epoch_add(struct epochs *e, MPI_Win w, int t)
{
    if (e->n == e->cap) {
        int nc = e->cap ? 2 * e->cap : 16;
        MPI_Win *a = txn_realloc(e->win, (size_t)nc * sizeof *a);
        if (!a) return -1;
        e->win = a;
        int *b = txn_realloc(e->tgt, (size_t)nc * sizeof *b);
        if (!b) return -1;
        e->tgt = b;
        e->cap = nc;
    }
    e->win[e->n] = w;
    e->tgt[e->n++] = t;
    return 0;
}

/* Open the epochs the reads of items[0..n) need.  lockall: one lock_all per window. */
static int open_epochs(const struct redist_layout *L, struct item *items, int n, int lockall, int me,
                       struct epochs *e, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        for (long k = 0; k < items[i].ntr; k++) {
            int tgt = lockall ? -1 : L->old_to_comm[items[i].tr[k].src];
            if (!lockall && tgt == me) continue;
            if (epoch_has(e, items[i].win, tgt)) continue;
            if (lockall && count_chunks(L, &items[i], me) == 0) continue;
            int rc = lockall ? PMPI_Win_lock_all(MPI_MODE_NOCHECK, items[i].win)
                             : PMPI_Win_lock(MPI_LOCK_SHARED, tgt, MPI_MODE_NOCHECK, items[i].win);
            if (rc == MPI_SUCCESS && epoch_add(e, items[i].win, tgt) != 0) { /* open, not recorded: closed now */
                if (lockall) PMPI_Win_unlock_all(items[i].win);
                else PMPI_Win_unlock(tgt, items[i].win);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            rc = txn_mpi(rc); /* an injected failure: the epoch is open and recorded, closed by close_epochs */
            if (rc != MPI_SUCCESS) { ductile_mpi_failed(rc, lockall ? "MPI_Win_lock_all" : "MPI_Win_lock", err, errlen); return -1; }
        }
    }
    return 0;
}

static int close_epochs(struct epochs *e, char *err, size_t errlen)
{
    int bad = 0;
    for (int i = 0; i < e->n; i++) {
        int rc = txn_mpi(e->tgt[i] < 0 ? PMPI_Win_unlock_all(e->win[i]) : PMPI_Win_unlock(e->tgt[i], e->win[i]));
        if (rc != MPI_SUCCESS && !bad) { ductile_mpi_failed(rc, "MPI_Win_unlock", err, errlen); bad = 1; }
    }
    free(e->win);
    free(e->tgt);
    memset(e, 0, sizeof *e);
    return bad ? -1 : 0;
}

/* The blocking algorithm over items[0..n): epochs, reads, unlocks (Alg. 2 / 3). */
static int read_blocking(const struct redist_layout *L, struct item *items, int n, int lockall, uint64_t *moved,
                         char *err, size_t errlen)
{
    int me = comm_rank(L);
    struct epochs e = {0};
    int rc = open_epochs(L, items, n, lockall, me, &e, err, errlen);
    for (int i = 0; i < n && rc == 0; i++)
        if (issue_reads(L, &items[i], me, NULL, NULL, moved, err, errlen) != 0) rc = -1;
    if (close_epochs(&e, err, errlen) != 0) rc = -1;
    for (int i = 0; i < n && rc == 0; i++) copy_self(L, &items[i], me);
    return rc;
}

int rma_move(const struct redist_layout *L, int lockall, int create, int64_t nrows, size_t rowbytes, const void *src,
             void *dst, int ok, uint64_t *moved, double *setup_s, char *err, size_t errlen)
{
    *setup_s = 0;
    if (moved) *moved = 0;
    struct item it = {nrows, rowbytes, src, dst, MPI_WIN_NULL, 0, 0, NULL, NULL, 0};
    int mine = ok && item_plan(L, &it, err, errlen) == 0;
    if (!txn_all_ok(L->comm, mine)) {
        item_cleanup(&it, NULL);
        return MOVE_STOPPED;
    }
    struct rma_win *w = NULL;
    if (!create) {
        w = rma_win_get(L->comm, setup_s, err, errlen); /* NULL on every process, or an MPI error */
        if (!w) {
            item_cleanup(&it, NULL);
            return MOVE_FAILED;
        }
    }
    int rc = item_setup(L, &it, w, create, setup_s, err, errlen);
    /* src == dst (same rows): the only read is the self part, a no-op copy */
    if (rc == 0) rc = read_blocking(L, &it, 1, lockall, moved, err, errlen);
    /* the sources keep their arrays exposed until every drain has read */
    if (!create) {
        int brc = txn_mpi(PMPI_Barrier(w->comm));
        if (brc != MPI_SUCCESS && rc == 0) {
            ductile_mpi_failed(brc, "the barrier after the RMA reads", err, errlen);
            rc = -1;
        }
    }
    item_cleanup(&it, w);
    return rc == 0 ? MOVE_OK : MOVE_FAILED;
}

/* ------------------------------------------------------------------ background */

struct bg_group {
    struct redist_layout L;
    int *o2c, *n2c;
    int method, strategy, create, lockall;
    struct rma_win *w;
    struct item *items;
    int n, cap;
    double setup_s;
    /* COL: the Alltoallv arguments of each item (any size, src/redist/bigcoll.c) */
    struct a2a_args *a2a;
    int failed; /* this process's part failed: reported at completion (the steps go on for the others) */
    int finished, result; /* bg_test saw the end (and its outcome) */
    int launched;         /* past the launch's checkpoint (on every process, or on none) */
    /* WD */
    int state; /* 0 local reads / collectives, 1 barrier posted, 2 done */
    MPI_Request *reqs;
    long nreq;
    MPI_Request bar;
    struct epochs e;
    /* T */
    pthread_t th;
    int th_started;
    int th_go; /* atomic: 0 wait, 1 run, -1 leave (the launch's checkpoint said stop) */
    volatile int th_done, th_rc;
    char th_err[256];
};

double bg_setup_s(const struct bg_group *g) { return g ? g->setup_s : 0; }

void bg_forget(struct bg_group *g)
{
    if (g && g->w) rma_win_abandon(g->w);
}

struct bg_group *bg_begin(const struct redist_layout *L, int method, int strategy, int create, char *err,
                          size_t errlen)
{
    if (strategy == BG_THREAD && !rma_thread_ok()) {
        snprintf(err, errlen, "the Threading strategy needs MPI_THREAD_MULTIPLE, which this process does not have");
        return NULL;
    }
    struct bg_group *g = txn_calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return NULL; }
    g->L = *L;
    g->o2c = txn_malloc((size_t)L->ns * sizeof(int));
    g->n2c = txn_malloc((size_t)L->nd * sizeof(int));
    if (!g->o2c || !g->n2c) { free(g->o2c); free(g->n2c); free(g); snprintf(err, errlen, "out of memory"); return NULL; }
    memcpy(g->o2c, L->old_to_comm, (size_t)L->ns * sizeof(int));
    memcpy(g->n2c, L->new_to_comm, (size_t)L->nd * sizeof(int));
    g->L.old_to_comm = g->o2c;
    g->L.new_to_comm = g->n2c;
    g->method = method;
    g->strategy = strategy;
    g->create = create;
    g->lockall = method == BG_METHOD_RMA_LOCKALL;
    g->bar = MPI_REQUEST_NULL;
    return g;
}

int bg_window(struct bg_group *g, char *err, size_t errlen)
{
    if (g->method == BG_METHOD_COL || g->create) return 0;
    g->w = rma_win_get(g->L.comm, &g->setup_s, err, errlen);
    if (!g->w) return -1;
    rma_win_hold(g->w);
    return 0;
}

/* Room for one more item: 0, or -1 with a message. */
static int bg_room(struct bg_group *g, char *err, size_t errlen)
{
    if (g->n < g->cap) return 0;
    int nc = g->cap ? 2 * g->cap : 4;
    struct item *a = txn_realloc(g->items, (size_t)nc * sizeof *a);
    if (a) g->items = a;
    struct a2a_args *b = a ? txn_realloc(g->a2a, (size_t)nc * sizeof *b) : NULL;
    if (b) g->a2a = b;
    if (b) g->cap = nc;
    else snprintf(err, errlen, "out of memory");
    return b ? 0 : -1;
}

int bg_collective(const struct bg_group *g) { return g->method == BG_METHOD_COL; }

int bg_add_bytes(struct bg_group *g, int kind, const struct bytes_xfer *xf, char *err, size_t errlen)
{
    if (g->method != BG_METHOD_COL || bg_room(g, err, errlen) != 0) {
        if (g->method != BG_METHOD_COL) snprintf(err, errlen, "bg_add_bytes: not a collective group");
        return MOVE_FAILED; /* the launch's checkpoint stops every process */
    }
    struct item *it = &g->items[g->n];
    memset(it, 0, sizeof *it);
    it->win = MPI_WIN_NULL;
    memset(&g->a2a[g->n], 0, sizeof g->a2a[g->n]);
    g->n++; /* local only, as bg_add's collective items: the collective starts at the launch */
    return a2a_prepare(&g->a2a[g->n - 1], kind, g->L.comm_size, xf->sc, xf->sd, xf->rc, xf->rd, 1, xf->src, xf->dst,
                       err, errlen) == 0 ? MOVE_OK : MOVE_FAILED;
}

int bg_add(struct bg_group *g, int64_t nrows, size_t rowbytes, const void *src, void *dst, int ok, uint64_t *moved,
           char *err, size_t errlen)
{
    if (moved) *moved = 0;
    int col = g->method == BG_METHOD_COL;
    if (ok && bg_room(g, err, errlen) != 0) ok = 0;
    if (!ok && col) return MOVE_FAILED; /* the launch's checkpoint stops every process */
    if (!ok) {
        txn_all_ok(g->L.comm, 0); /* the checkpoint of this item (below on the others) */
        return MOVE_STOPPED;
    }
    struct item *it = &g->items[g->n];
    memset(it, 0, sizeof *it);
    it->nrows = nrows;
    it->rowbytes = rowbytes;
    it->src = src;
    it->dst = dst;
    it->win = MPI_WIN_NULL;
    memset(&g->a2a[g->n], 0, sizeof g->a2a[g->n]);
    g->n++;
    int me = comm_rank(&g->L);
    if (col) { /* local only: the collectives start at the launch, after its checkpoint */
        int cs = g->L.comm_size;
        int64_t *c = txn_calloc(4 * (size_t)cs, sizeof *c);
        if (!c) { snprintf(err, errlen, "out of memory"); return MOVE_FAILED; }
        if (plan_alltoallv_arrays(nrows, g->L.ns, g->L.nd, g->L.my_old, g->L.my_new, g->o2c, g->n2c, cs, c, c + cs,
                                  c + 2 * cs, c + 3 * cs) != 0) {
            free(c);
            snprintf(err, errlen, "invalid redistribution plan");
            return MOVE_FAILED;
        }
        for (int i = 0; i < cs; i++)
            if (i != me && moved) *moved += (uint64_t)(c[i] * (int64_t)rowbytes);
        /* the form every process derives from the layout alike (src/redist/bigcoll.h) */
        int rc = a2a_prepare(&g->a2a[g->n - 1], a2a_layout_kind(nrows, g->L.ns, g->L.nd, rowbytes), cs, c, c + cs,
                             c + 2 * cs, c + 3 * cs, rowbytes, src, dst, err, errlen);
        free(c);
        return rc == 0 ? MOVE_OK : MOVE_FAILED;
    }
    int mine = item_plan(&g->L, it, err, errlen) == 0;
    if (!txn_all_ok(g->L.comm, mine)) { /* nobody exposes this item */
        item_cleanup(it, NULL);
        g->n--;
        return MOVE_STOPPED;
    }
    if (item_setup(&g->L, it, g->w, g->create, &g->setup_s, err, errlen) != 0) return MOVE_FAILED;
    for (long k = 0; k < it->ntr && moved; k++)
        if (g->L.old_to_comm[it->tr[k].src] != me) *moved += (uint64_t)(it->tr[k].count * (int64_t)rowbytes);
    return MOVE_OK;
}

static void *bg_thread(void *arg)
{
    struct bg_group *g = arg;
    struct timespec nap = {0, 1000 * 1000};
    int go;
    while ((go = __atomic_load_n(&g->th_go, __ATOMIC_ACQUIRE)) == 0) nanosleep(&nap, NULL);
    int rc = 0;
    if (go < 0) {
        rc = -1;
    } else if (g->method == BG_METHOD_COL) {
        for (int i = 0; i < g->n; i++) /* every item, also after a failed one: the others wait in each */
            if (txn_mpi(a2a_run(&g->a2a[i], g->L.comm, NULL)) != MPI_SUCCESS && rc == 0) {
                rc = -1;
                snprintf(g->th_err, sizeof g->th_err, "MPI_Alltoallv failed in the auxiliary thread");
            }
    } else {
        rc = read_blocking(&g->L, g->items, g->n, g->lockall, NULL, g->th_err, sizeof g->th_err);
        /* sources keep their arrays exposed until every drain has read them */
        if (txn_mpi(PMPI_Barrier(g->L.comm)) != MPI_SUCCESS && rc == 0) rc = -1;
    }
    g->th_rc = rc;
    __atomic_store_n(&g->th_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Start the thread, waiting for the checkpoint's word. */
static int launch_thread(struct bg_group *g, int ok)
{
    int started = ok && pthread_create(&g->th, NULL, bg_thread, g) == 0;
    g->th_started = started;
    int all = txn_all_ok(g->L.comm, started);
    g->launched = all;
    if (started) __atomic_store_n(&g->th_go, all ? 1 : -1, __ATOMIC_RELEASE);
    if (!all && started) {
        pthread_join(g->th, NULL);
        g->th_started = 0;
    }
    return all ? MOVE_OK : MOVE_STOPPED;
}

int bg_launch(struct bg_group *g, int ok, char *err, size_t errlen)
{
    int me = comm_rank(&g->L);
    if (g->strategy == BG_THREAD) {
        int rc = launch_thread(g, ok);
        if (ok && !g->th_started && rc == MOVE_STOPPED) snprintf(err, errlen, "cannot start the auxiliary thread");
        return rc;
    }
    /* Wait Drains: Init_RMA (epochs + Rget) or the nonblocking collectives */
    long nreq = 0;
    for (int i = 0; ok && i < g->n; i++) nreq += g->method == BG_METHOD_COL ? 1 : count_chunks(&g->L, &g->items[i], me);
    g->reqs = ok ? txn_calloc((size_t)(nreq ? nreq : 1), sizeof *g->reqs) : NULL;
    if (ok && !g->reqs) snprintf(err, errlen, "out of memory");
    if (!txn_all_ok(g->L.comm, g->reqs != NULL)) return MOVE_STOPPED;
    g->launched = 1;
    if (g->method == BG_METHOD_COL) {
        for (int i = 0; i < g->n; i++) { /* all of them, also after a failed one */
            MPI_Request *rq = &g->reqs[g->nreq++];
            int rc = a2a_run(&g->a2a[i], g->L.comm, rq);
            if (rc != MPI_SUCCESS) *rq = MPI_REQUEST_NULL;
            rc = txn_mpi_req(rc, rq);
            if (rc != MPI_SUCCESS && !g->failed) {
                ductile_mpi_failed(rc, "MPI_Ialltoallv", err, errlen);
                g->failed = 1;
            }
        }
        return g->failed ? MOVE_FAILED : MOVE_OK;
    }
    int rc = open_epochs(&g->L, g->items, g->n, g->lockall, me, &g->e, err, errlen);
    int rget = !RGET_BROKEN;
    for (int i = 0; i < g->n && rc == 0; i++) {
        if (issue_reads(&g->L, &g->items[i], me, rget ? g->reqs : NULL, &g->nreq, NULL, err, errlen) != 0) rc = -1;
        else copy_self(&g->L, &g->items[i], me);
    }
    if (rc != 0) g->failed = 1; /* the epochs and the barrier follow in bg_test all the same */
    return g->failed ? MOVE_FAILED : MOVE_OK;
}

static int bg_step(struct bg_group *g, int *done);

int bg_test(struct bg_group *g, int *done)
{
    if (!g->finished) {
        g->result = bg_step(g, done);
        g->finished = *done;
    }
    *done = g->finished;
    return g->finished ? g->result : 0;
}

static int bg_step(struct bg_group *g, int *done)
{
    *done = !g->launched; /* never launched (on any process): nothing to complete */
    if (*done) return 0;
    if (g->strategy == BG_THREAD) {
        if (__atomic_load_n(&g->th_done, __ATOMIC_ACQUIRE)) {
            pthread_join(g->th, NULL);
            g->th_started = 0;
            *done = 1;
            return g->th_rc == 0 ? 0 : -1;
        }
        return 0;
    }
    if (g->state == 0) {
        int flag = 1;
        if (g->nreq) {
            int r = PMPI_Testall((int)g->nreq, g->reqs, &flag, MPI_STATUSES_IGNORE);
            if (r != MPI_SUCCESS) flag = 1; /* in error: go on with the epochs and the barrier */
            if (txn_mpi_test(r, &flag) != MPI_SUCCESS) g->failed = 1;
        }
        if (!flag) return 0;
        char err[256];
        if (close_epochs(&g->e, err, sizeof err) != 0) g->failed = 1;
        /* Complete_RMA, global phase: my reads (or sends) are done */
        if (PMPI_Ibarrier(g->L.comm, &g->bar) != MPI_SUCCESS) {
            g->failed = 1;
            g->state = 2;
        } else {
            g->state = 1;
        }
    }
    if (g->state == 1) {
        int flag = 0;
        int r = PMPI_Test(&g->bar, &flag, MPI_STATUS_IGNORE);
        if (r != MPI_SUCCESS) flag = 1;
        if (txn_mpi_test(r, &flag) != MPI_SUCCESS) g->failed = 1;
        if (flag) g->state = 2;
    }
    *done = g->state == 2;
    return *done && g->failed ? -1 : 0;
}

void bg_release(struct bg_group *g)
{
    if (!g) return;
    if (g->th_started) pthread_join(g->th, NULL);
    for (int i = 0; i < g->n; i++) {
        item_cleanup(&g->items[i], g->w);
        a2a_free(&g->a2a[i]);
    }
    if (g->e.n) {
        char err[64];
        close_epochs(&g->e, err, sizeof err);
    }
    if (g->w) rma_win_unhold(g->w);
    free(g->items);
    free(g->a2a);
    free(g->reqs);
    free(g->o2c);
    free(g->n2c);
    free(g);
}
