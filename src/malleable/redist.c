/* redist.c -- the data movement of a resize for one distributed array:
 * COL (Alltoallv), P2P (Isend/Irecv + local copy), NB (Ialltoallv), and the
 * dispatch to RMA-Lock / RMA-Lockall (src/rma/xfer.c).
 * Counts are computed in rows by src/redist/plan.c and scaled to bytes here;
 * where they do not fit an int, the collectives go through
 * src/redist/bigcoll.c (MPI_Alltoallv_c, or MPI_Alltoallw with derived
 * datatypes) and P2P sends pieces below 1 GiB (src/redist/chunk.h).  The
 * collective's form is the same on every process: a function of the layout
 * (a2a_layout_kind), never of one process's counts. */
#include "config.h"

#include "redist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../redist/bigcoll.h"
#include "persist.h"
#include "pmpi_exports.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "../core/state.h"
#include "../redist/chunk.h"
#include "../redist/plan.h"
#include "../rma/xfer.h"

int redist_rma_create;
static double rma_setup_acc;

double redist_take_setup_s(void)
{
    double s = rma_setup_acc;
    rma_setup_acc = 0;
    return s;
}

#define REDIST_TAG 0x5d17

struct redist_pending {
    MPI_Request req;
    struct a2a_args args; /* must live until the request completes */
};

struct counts {
    int64_t *sc, *sd, *rc, *rd; /* rows */
};

static int make_counts(const struct redist_layout *L, int64_t nrows, struct counts *c, char *err, size_t errlen)
{
    size_t n = (size_t)L->comm_size;
    c->sc = txn_calloc(4 * n, sizeof(int64_t));
    if (!c->sc) {
        snprintf(err, errlen, "out of memory for the redistribution plan");
        return -1;
    }
    c->sd = c->sc + n;
    c->rc = c->sd + n;
    c->rd = c->rc + n;
    if (plan_alltoallv_arrays(nrows, L->ns, L->nd, L->my_old, L->my_new, L->old_to_comm, L->new_to_comm,
                              L->comm_size, c->sc, c->sd, c->rc, c->rd) != 0) {
        snprintf(err, errlen, "invalid redistribution plan (%lld rows, %d -> %d)", (long long)nrows, L->ns, L->nd);
        free(c->sc);
        c->sc = NULL;
        return -1;
    }
    return 0;
}

static uint64_t sent_elsewhere(const struct redist_layout *L, const struct counts *c, size_t rowbytes)
{
    uint64_t s = 0;
    int me = -1;
    PMPI_Comm_rank(L->comm, &me);
    for (int i = 0; i < L->comm_size; i++)
        if (i != me) s += (uint64_t)c->sc[i] * rowbytes;
    return s;
}

/* The collective form: its arguments (src/redist/bigcoll.c) built locally
 * in the form every process derives from the layout alike, then the
 * checkpoint, then the Alltoallv of any size, blocking, or started
 * nonblocking when req != NULL (the arguments then live in *args_out).
 * src == dst (the same rows before and after: Alltoallv must not alias)
 * receives into a copy. */
static int do_alltoallv(const struct redist_layout *L, int64_t nrows, const struct counts *c, size_t rowbytes,
                        const void *src, void *dst, int ok, MPI_Request *req, struct a2a_args *args_out, char *err,
                        size_t errlen)
{
    struct a2a_args a;
    memset(&a, 0, sizeof a);
    int me = -1;
    PMPI_Comm_rank(L->comm, &me);
    size_t bytes = ok && me >= 0 ? (size_t)(c->rc[me] * (int64_t)rowbytes) : 0;
    void *tmp = NULL;
    if (ok && src && src == dst && !req) {
        tmp = txn_malloc(bytes ? bytes : 1);
        if (!tmp) { snprintf(err, errlen, "out of memory"); ok = 0; }
    }
    int kind = a2a_layout_kind(nrows, L->ns, L->nd, rowbytes);
    if (ok && kind != A2A_INT)
        ductile_log(2, "%s of %lld rows of %zu bytes, %d -> %d: the %s form on every process",
                    req ? "MPI_Ialltoallv" : "MPI_Alltoallv", (long long)nrows, rowbytes, L->ns, L->nd,
                    a2a_kind_name(kind));
    int mine = ok && a2a_prepare(&a, kind, L->comm_size, c->sc, c->sd, c->rc, c->rd, rowbytes, src, tmp ? tmp : dst,
                                 err, errlen) == 0;
    if (!txn_all_ok(L->comm, mine)) {
        if (mine) a2a_free(&a);
        free(tmp);
        return MOVE_STOPPED;
    }
    /* blocking: started nonblocking and waited for yielding the core between tests (the same MPI call
     * counted once) */
    MPI_Request own = MPI_REQUEST_NULL;
    int rc = txn_mpi_req(a2a_run(&a, L->comm, req ? req : &own), req ? req : &own);
    if (!req && rc == MPI_SUCCESS) rc = wait_all_yielding(1, &own);
    if (req && rc == MPI_SUCCESS) *args_out = a;
    else a2a_free(&a);
    if (tmp && rc == MPI_SUCCESS) memcpy(dst, tmp, bytes);
    free(tmp);
    if (rc != MPI_SUCCESS) {
        ductile_mpi_failed(rc, req ? "MPI_Ialltoallv" : "MPI_Alltoallv", err, errlen);
        return MOVE_FAILED;
    }
    return MOVE_OK;
}

/* Post one message of the point-to-point form; a failed post leaves a null
 * request, and the rest are posted all the same (their peers wait for them). */
static void post(int recv, void *buf, int len, int peer, MPI_Comm comm, MPI_Request *rq, int *rc)
{
    int r = recv ? PMPI_Irecv(buf, len, MPI_BYTE, peer, REDIST_TAG, comm, rq)
                 : PMPI_Isend(buf, len, MPI_BYTE, peer, REDIST_TAG, comm, rq);
    if (r != MPI_SUCCESS) *rq = MPI_REQUEST_NULL; /* (an injected failure completed it: txn_mpi_req) */
    r = txn_mpi_req(r, rq);
    if (r != MPI_SUCCESS && *rc == MPI_SUCCESS) *rc = r;
}

static int do_p2p(const struct redist_layout *L, const struct counts *c, size_t rowbytes, const void *src,
                  void *dst, int ok, char *err, size_t errlen)
{
    int me = -1, n = L->comm_size;
    PMPI_Comm_rank(L->comm, &me);
    size_t nreq = 0;
    const int64_t piece = chunk_piece_max(); /* the same on both sides of every message */
    for (int i = 0; ok && i < n; i++) {
        if (i == me) continue;
        nreq += (size_t)((c->sc[i] * (int64_t)rowbytes + piece - 1) / piece);
        nreq += (size_t)((c->rc[i] * (int64_t)rowbytes + piece - 1) / piece);
    }
    MPI_Request *reqs = ok ? txn_malloc((nreq ? nreq : 1) * sizeof *reqs) : NULL;
    if (ok && !reqs) snprintf(err, errlen, "out of memory");
    if (!txn_all_ok(L->comm, reqs != NULL)) {
        free(reqs);
        return MOVE_STOPPED;
    }
    size_t k = 0;
    int rc = MPI_SUCCESS;
    for (int pass = 0; pass < 2; pass++) /* every receive, then every send */
        for (int i = 0; i < n; i++) {
            int64_t cnt = pass ? c->sc[i] : c->rc[i], d = pass ? c->sd[i] : c->rd[i];
            if (i == me || !cnt) continue;
            int64_t bytes = cnt * (int64_t)rowbytes, off = d * (int64_t)rowbytes;
            for (int64_t o = 0; o < bytes; o += piece) {
                int len = (int)(bytes - o < piece ? bytes - o : piece);
                post(!pass, pass ? (char *)(uintptr_t)src + off + o : (char *)dst + off + o, len, i, L->comm,
                     &reqs[k++], &rc);
            }
        }
    /* the overlap of my old and my new block: a local copy */
    if (me >= 0 && c->sc[me]) {
        const char *from = (const char *)src + c->sd[me] * (int64_t)rowbytes;
        char *to = (char *)dst + c->rd[me] * (int64_t)rowbytes;
        if (from != to) memmove(to, from, (size_t)(c->sc[me] * (int64_t)rowbytes));
    }
    int wrc = k ? txn_mpi(PMPI_Waitall((int)k, reqs, MPI_STATUSES_IGNORE)) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) rc = wrc;
    free(reqs);
    if (rc != MPI_SUCCESS) {
        ductile_mpi_failed(rc, "point-to-point redistribution", err, errlen);
        return MOVE_FAILED;
    }
    return MOVE_OK;
}

int redist_move(const struct redist_layout *L, int method, int64_t nrows, size_t rowbytes, const void *src,
                void *dst, int ok, uint64_t *moved, char *err, size_t errlen)
{
    if (moved) *moved = 0;
    if (method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL) {
        /* one-sided: the drains read; *moved counts the bytes read from other processes */
        double setup = 0;
        int rc = rma_move(L, method == REDIST_RMA_LOCKALL, redist_rma_create, nrows, rowbytes, src, dst, ok, moved,
                          &setup, err, errlen);
        rma_setup_acc += setup;
        return rc;
    }
    if (method == REDIST_RMA_FENCE) {
        /* one-off form of the fence-based transfer (src/malleable/persist.c): window, gets, fences, free */
        struct persist_outcome o;
        void *tmp = NULL;
        size_t bytes = dst ? (size_t)plan_block_of(nrows, L->nd, L->my_new).count * rowbytes : 0;
        if (ok && src && src == dst) { /* same rows: no read leaves this process; read into a copy */
            tmp = txn_malloc(bytes + 1);
            if (!tmp) { snprintf(err, errlen, "out of memory"); ok = 0; }
        }
        int rc = persist_move(L, method, -1, nrows, rowbytes, src, tmp ? tmp : dst, 0, ok, &o, err, errlen);
        if (tmp && rc == MOVE_OK) memcpy(dst, tmp, bytes);
        free(tmp);
        rma_setup_acc += o.setup_s;
        if (moved) *moved = o.moved;
        return rc;
    }
    struct counts c = {NULL, NULL, NULL, NULL};
    if (ok && make_counts(L, nrows, &c, err, errlen) != 0) ok = 0;
    if (ok && moved) *moved = sent_elsewhere(L, &c, rowbytes);
    int rc = method == REDIST_P2P ? do_p2p(L, &c, rowbytes, src, dst, ok, err, errlen)
                                  : do_alltoallv(L, nrows, &c, rowbytes, src, dst, ok, NULL, NULL, err, errlen);
    free(c.sc);
    return rc;
}

int redist_start(const struct redist_layout *L, int64_t nrows, size_t rowbytes, const void *src, void *dst, int ok,
                 struct redist_pending **out, uint64_t *moved, char *err, size_t errlen)
{
    struct counts c = {NULL, NULL, NULL, NULL};
    *out = NULL;
    if (moved) *moved = 0;
    if (ok && make_counts(L, nrows, &c, err, errlen) != 0) ok = 0;
    if (ok && moved) *moved = sent_elsewhere(L, &c, rowbytes);
    struct redist_pending *p = ok ? txn_calloc(1, sizeof *p) : NULL;
    if (ok && !p) { snprintf(err, errlen, "out of memory"); ok = 0; }
    int rc = do_alltoallv(L, nrows, &c, rowbytes, src, dst, ok, p ? &p->req : NULL, p ? &p->args : NULL, err, errlen);
    free(c.sc);
    if (rc != MOVE_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return MOVE_OK;
}

int redist_start_bytes(MPI_Comm comm, int kind, const struct bytes_xfer *xf, int ok, struct redist_pending **out,
                       char *err, size_t errlen)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    *out = NULL;
    struct redist_pending *p = ok ? txn_calloc(1, sizeof *p) : NULL;
    if (ok && !p) snprintf(err, errlen, "out of memory");
    int mine = p && a2a_prepare(&p->args, kind, n, xf->sc, xf->sd, xf->rc, xf->rd, 1, xf->src, xf->dst, err,
                                errlen) == 0;
    if (!txn_all_ok(comm, mine)) { /* the checkpoint: a process without its arguments stops everyone */
        if (mine) a2a_free(&p->args);
        free(p);
        return MOVE_STOPPED;
    }
    int rc = txn_mpi_req(a2a_run(&p->args, comm, &p->req), &p->req);
    if (rc != MPI_SUCCESS) {
        a2a_free(&p->args);
        free(p);
        ductile_mpi_failed(rc, "MPI_Ialltoallv", err, errlen);
        return MOVE_FAILED;
    }
    *out = p;
    return MOVE_OK;
}

static void pending_free(struct redist_pending *p)
{
    a2a_free(&p->args);
    free(p);
}

int redist_test(struct redist_pending *p, int *done)
{
    int r = PMPI_Test(&p->req, done, MPI_STATUS_IGNORE);
    int rc = txn_mpi_test(r, done);
    if (r == MPI_SUCCESS && *done) pending_free(p); /* complete (also when its failure is injected) */
    return rc == MPI_SUCCESS ? 0 : -1;
}

int redist_wait(struct redist_pending *p)
{
    int rc = txn_mpi(PMPI_Wait(&p->req, MPI_STATUS_IGNORE));
    pending_free(p);
    return rc == MPI_SUCCESS ? 0 : -1;
}
