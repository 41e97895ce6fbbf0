/* exchange.c -- the all-to-all exchange of bytes the general data kinds
 * (src/data) move with: the collective (src/redist/bigcoll.c: MPI_Alltoallv,
 * past 2 GiB MPI_Alltoallv_c or MPI_Alltoallw, in a form every process
 * agreed on) or point-to-point (nonblocking sends and receives, in pieces
 * below 1 GiB), chosen by the resize's redistribution method (see data.h). */
#include "config.h"

#include "data.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_exports.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "../redist/bigcoll.h"

#define P2P_TAG 7411 /* on the transfer communicator, which only Ductile uses */

static int exchange_p2p = 0; /* set per move by data_exchange_method() (the control point is single-threaded) */

void data_exchange_method(int method) { exchange_p2p = method != REDIST_COL; }

static int err_text(int rc, const char *what, char *err, size_t errlen)
{
    char m[256];
    ductile_mpi_error_text(rc, m, sizeof m);
    snprintf(err, errlen, "%s failed: %s", what, m);
    return rc;
}

int64_t data_pieces(int64_t bytes) { return bytes > 0 ? chunk_count(bytes, chunk_piece_max()) : 0; }

/* Every piece is posted, also after a failed one (the peer waits for each;
 * a failed one leaves a null request), and counted (txn_mpi_req). */
int data_post_bytes(void *buf, int64_t bytes, int peer, int tag, int send, MPI_Comm comm, MPI_Request *rq, int *nrq)
{
    int rc = MPI_SUCCESS;
    for (int64_t k = 0, piece = chunk_piece_max(), np = data_pieces(bytes); k < np; k++) {
        int64_t o = 0;
        int len = 0;
        chunk_piece(bytes, piece, k, &o, &len);
        int r = send ? PMPI_Isend((char *)buf + o, len, MPI_BYTE, peer, tag, comm, &rq[*nrq])
                     : PMPI_Irecv((char *)buf + o, len, MPI_BYTE, peer, tag, comm, &rq[*nrq]);
        if (r != MPI_SUCCESS) rq[*nrq] = MPI_REQUEST_NULL;
        r = txn_mpi_req(r, &rq[(*nrq)++]);
        if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = r;
    }
    return rc;
}

/* Point-to-point: every pair's bytes in pieces (data_post_bytes), all
 * posted at once (receives first; all of them, also after a failed one:
 * the peers wait for each), then one MPI_Waitall; a process's bytes to
 * itself are copied.  req: room for every message. */
static int exchange_by_p2p(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                           const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, MPI_Request *req,
                           char *err, size_t errlen)
{
    int n = 0, me = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    int k = 0, rc = MPI_SUCCESS;
    for (int pass = 0; pass < 2; pass++) /* receives, then sends */
        for (int c = 0; c < n; c++) {
            if (c == me || !(pass ? scounts[c] : rcounts[c])) continue;
            int r = pass ? data_post_bytes((char *)(uintptr_t)sbuf + sdispls[c], scounts[c], c, P2P_TAG, 1, comm, req, &k)
                         : data_post_bytes((char *)rbuf + rdispls[c], rcounts[c], c, P2P_TAG, 0, comm, req, &k);
            if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = err_text(r, "posting the point-to-point exchange", err, errlen);
        }
    if (scounts[me] != rcounts[me] && rc == MPI_SUCCESS) {
        snprintf(err, errlen, "point-to-point exchange: %lld bytes to myself, %lld expected", (long long)scounts[me],
                 (long long)rcounts[me]);
        rc = MPI_ERR_COUNT;
    } else if (scounts[me] > 0 && scounts[me] == rcounts[me]) {
        memcpy((char *)rbuf + rdispls[me], (const char *)sbuf + sdispls[me], (size_t)scounts[me]);
    }
    /* the requests already posted complete in any case (the peers posted theirs) */
    int wrc = txn_mpi(PMPI_Waitall(k, req, MPI_STATUSES_IGNORE));
    if (wrc != MPI_SUCCESS && rc == MPI_SUCCESS) rc = err_text(wrc, "MPI_Waitall of the point-to-point exchange", err, errlen);
    return rc;
}

int data_alltoallv_bytes(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                         const int64_t *rcounts, const int64_t *rdispls, int ok, MPI_Comm comm, char *err,
                         size_t errlen)
{
    int n = 0, me = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* what the point-to-point form needs, allocated before the agreement */
    int64_t nreq = 0;
    for (int c = 0; ok && exchange_p2p && c < n; c++)
        if (c != me) nreq += data_pieces(scounts[c]) + data_pieces(rcounts[c]);
    if (ok && nreq > INT_MAX) {
        snprintf(err, errlen, "point-to-point exchange: too many messages");
        ok = 0;
    }
    MPI_Request *req = ok && exchange_p2p ? txn_malloc((size_t)(nreq ? nreq : 1) * sizeof *req) : NULL;
    if (ok && exchange_p2p && !req) {
        snprintf(err, errlen, "out of memory");
        ok = 0;
    }
    /* one form on every process: the counts differ between processes, so whether everyone's fit an int is
     * agreed (src/redist/bigcoll.h), together with whether every process can take part */
    int v[2] = {ok && chunk_fits_int(scounts, sdispls, n, 1) && chunk_fits_int(rcounts, rdispls, n, 1), ok};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS || !v[1]) {
        free(req);
        if (rc != MPI_SUCCESS) err_text(rc, "MPI_Allreduce of the exchange's form", err, errlen);
        return rc != MPI_SUCCESS ? MOVE_FAILED : MOVE_STOPPED;
    }
    if (exchange_p2p) {
        rc = exchange_by_p2p(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, req, err, errlen);
        free(req);
        return rc == MPI_SUCCESS ? MOVE_OK : MOVE_FAILED;
    }
    struct a2a_args a;
    int mine = a2a_prepare(&a, a2a_kind(v[0]), n, scounts, sdispls, rcounts, rdispls, 1, sbuf, rbuf, err, errlen) == 0;
    if (!txn_all_ok(comm, mine)) { /* the checkpoint: a process without its arguments stops everyone */
        if (mine) a2a_free(&a);
        return MOVE_STOPPED;
    }
    rc = txn_mpi(a2a_run(&a, comm, NULL));
    const char *what = a.kind == A2A_INT ? "MPI_Alltoallv" : a.kind == A2A_C ? "MPI_Alltoallv_c" : "MPI_Alltoallw";
    a2a_free(&a);
    if (rc != MPI_SUCCESS) err_text(rc, what, err, errlen);
    return rc == MPI_SUCCESS ? MOVE_OK : MOVE_FAILED;
}
