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

int data_post_bytes(void *buf, int64_t bytes, int peer, int tag, int send, MPI_Comm comm, MPI_Request *rq, int *nrq)
{
    int rc = MPI_SUCCESS;
    for (int64_t k = 0, piece = chunk_piece_max(), np = data_pieces(bytes); k < np && rc == MPI_SUCCESS; k++) {
        int64_t o = 0;
        int len = 0;
        chunk_piece(bytes, piece, k, &o, &len);
        rc = send ? PMPI_Isend((char *)buf + o, len, MPI_BYTE, peer, tag, comm, &rq[*nrq])
                  : PMPI_Irecv((char *)buf + o, len, MPI_BYTE, peer, tag, comm, &rq[*nrq]);
        if (rc == MPI_SUCCESS) ++*nrq;
    }
    return rc;
}

/* Point-to-point: every pair's bytes in pieces (data_post_bytes), all
 * posted at once (receives first), then one MPI_Waitall; a process's bytes
 * to itself are copied. */
static int exchange_by_p2p(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                           const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, char *err, size_t errlen)
{
    int n = 0, me = 0;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    int64_t nreq = 0;
    for (int c = 0; c < n; c++)
        if (c != me) nreq += data_pieces(scounts[c]) + data_pieces(rcounts[c]);
    if (nreq > INT_MAX) {
        snprintf(err, errlen, "point-to-point exchange: too many messages");
        return MPI_ERR_COUNT;
    }
    MPI_Request *req = malloc((size_t)(nreq ? nreq : 1) * sizeof *req);
    if (!req) {
        snprintf(err, errlen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    int k = 0, rc = MPI_SUCCESS;
    for (int pass = 0; pass < 2 && rc == MPI_SUCCESS; pass++) /* receives, then sends */
        for (int c = 0; c < n && rc == MPI_SUCCESS; c++) {
            if (c == me || !(pass ? scounts[c] : rcounts[c])) continue;
            if (pass)
                rc = data_post_bytes((char *)(uintptr_t)sbuf + sdispls[c], scounts[c], c, P2P_TAG, 1, comm, req, &k);
            else
                rc = data_post_bytes((char *)rbuf + rdispls[c], rcounts[c], c, P2P_TAG, 0, comm, req, &k);
        }
    if (rc != MPI_SUCCESS) err_text(rc, "posting the point-to-point exchange", err, errlen);
    if (scounts[me] != rcounts[me] && rc == MPI_SUCCESS) {
        snprintf(err, errlen, "point-to-point exchange: %lld bytes to myself, %lld expected", (long long)scounts[me],
                 (long long)rcounts[me]);
        rc = MPI_ERR_COUNT;
    } else if (scounts[me] > 0) {
        memcpy((char *)rbuf + rdispls[me], (const char *)sbuf + sdispls[me], (size_t)scounts[me]);
    }
    /* the requests already posted complete in any case (the peers posted theirs) */
    int wrc = PMPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    if (wrc != MPI_SUCCESS && rc == MPI_SUCCESS) rc = err_text(wrc, "MPI_Waitall of the point-to-point exchange", err, errlen);
    free(req);
    return rc;
}

int data_alltoallv_bytes(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                         const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, char *err, size_t errlen)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    if (exchange_p2p) return exchange_by_p2p(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, err, errlen);
    /* one form on every process: the counts differ between processes, so whether everyone's fit an int is
     * agreed (src/redist/bigcoll.h) */
    int fits = chunk_fits_int(scounts, sdispls, n, 1) && chunk_fits_int(rcounts, rdispls, n, 1);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return err_text(rc, "MPI_Allreduce of the exchange's form", err, errlen);
    struct a2a_args a;
    if (a2a_prepare(&a, a2a_kind(fits), n, scounts, sdispls, rcounts, rdispls, 1, sbuf, rbuf, err, errlen) != 0)
        return MPI_ERR_NO_MEM;
    rc = a2a_run(&a, comm, NULL);
    const char *what = a.kind == A2A_INT ? "MPI_Alltoallv" : a.kind == A2A_C ? "MPI_Alltoallv_c" : "MPI_Alltoallw";
    a2a_free(&a);
    return rc == MPI_SUCCESS ? rc : err_text(rc, what, err, errlen);
}
