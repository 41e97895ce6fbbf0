/* exchange.c -- the all-to-all exchange of bytes the general data kinds
 * (src/data) move with: the collective (MPI_Alltoallv, large-count past
 * 2 GiB) or point-to-point (nonblocking sends and receives, in chunks),
 * chosen by the resize's redistribution method (see data.h). */
#include "config.h"

#include "data.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_exports.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"

#define P2P_CHUNK ((int64_t)1 << 30) /* bytes per message: well inside an int count */
#define P2P_TAG 7411                  /* on the transfer communicator, which only Ductile uses */

static int exchange_p2p = 0; /* set per move by data_exchange_method() (the control point is single-threaded) */

void data_exchange_method(int method) { exchange_p2p = method != REDIST_COL; }

int data_int_count(int64_t bytes) { return bytes < 0 || bytes > INT_MAX ? -1 : (int)bytes; }

static int err_text(int rc, const char *what, char *err, size_t errlen)
{
    char m[256];
    ductile_mpi_error_text(rc, m, sizeof m);
    snprintf(err, errlen, "%s failed: %s", what, m);
    return rc;
}

/* Point-to-point: every pair's bytes in messages of at most P2P_CHUNK, all
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
            if (c == me) continue;
            int64_t len = pass ? scounts[c] : rcounts[c];
            for (int64_t o = 0; o < len; o += P2P_CHUNK) {
                int m = (int)(len - o < P2P_CHUNK ? len - o : P2P_CHUNK);
                int r = pass ? PMPI_Isend((const char *)sbuf + sdispls[c] + o, m, MPI_BYTE, c, P2P_TAG, comm, &req[k])
                             : PMPI_Irecv((char *)rbuf + rdispls[c] + o, m, MPI_BYTE, c, P2P_TAG, comm, &req[k]);
                if (r != MPI_SUCCESS) req[k] = MPI_REQUEST_NULL;
                r = txn_mpi_req(r, &req[k++]);
                if (r != MPI_SUCCESS && rc == MPI_SUCCESS) rc = err_text(r, "posting the point-to-point exchange", err, errlen);
            }
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

/* a: room for 4n ints */
static int exchange_by_alltoallv(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                                 const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, int n, int *a,
                                 char *err, size_t errlen)
{
    for (int c = 0; c < n; c++) {
        a[c] = (int)scounts[c];
        a[n + c] = (int)sdispls[c];
        a[2 * n + c] = (int)rcounts[c];
        a[3 * n + c] = (int)rdispls[c];
    }
    int rc = txn_mpi(PMPI_Alltoallv(sbuf, a, a + n, MPI_BYTE, rbuf, a + 2 * n, a + 3 * n, MPI_BYTE, comm));
    return rc == MPI_SUCCESS ? rc : err_text(rc, "MPI_Alltoallv", err, errlen);
}

#if HAVE_PMPI_Alltoallv_c
/* a: room for 2n counts and 2n displacements */
static int exchange_by_alltoallv_c(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                                   const int64_t *rcounts, const int64_t *rdispls, MPI_Comm comm, int n, void *room,
                                   char *err, size_t errlen)
{
    MPI_Count *a = room;
    MPI_Aint *d = (MPI_Aint *)(void *)(a + 2 * n);
    for (int c = 0; c < n; c++) {
        a[c] = scounts[c];
        d[c] = (MPI_Aint)sdispls[c];
        a[n + c] = rcounts[c];
        d[n + c] = (MPI_Aint)rdispls[c];
    }
    int rc = txn_mpi(PMPI_Alltoallv_c(sbuf, a, d, MPI_BYTE, rbuf, a + n, d + n, MPI_BYTE, comm));
    return rc == MPI_SUCCESS ? rc : err_text(rc, "MPI_Alltoallv_c", err, errlen);
}
#endif

int data_alltoallv_bytes(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                         const int64_t *rcounts, const int64_t *rdispls, int ok, MPI_Comm comm, char *err,
                         size_t errlen)
{
    int n = 0, me = 0, fits = 1;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    /* what any form needs, allocated before the agreement */
    int64_t nreq = 0;
    for (int c = 0; ok && c < n; c++) {
        if (data_int_count(scounts[c]) < 0 || data_int_count(sdispls[c]) < 0 || data_int_count(rcounts[c]) < 0 ||
            data_int_count(rdispls[c]) < 0)
            fits = 0;
        if (c != me) nreq += (scounts[c] + P2P_CHUNK - 1) / P2P_CHUNK + (rcounts[c] + P2P_CHUNK - 1) / P2P_CHUNK;
    }
    if (ok && nreq > INT_MAX) {
        snprintf(err, errlen, "point-to-point exchange: too many messages");
        ok = 0;
    }
    size_t room = 2 * (size_t)n * (sizeof(MPI_Count) + sizeof(MPI_Aint));
    if ((size_t)nreq * sizeof(MPI_Request) > room) room = (size_t)nreq * sizeof(MPI_Request);
    void *scratch = ok ? txn_malloc(room) : NULL;
    if (ok && !scratch) {
        snprintf(err, errlen, "out of memory");
        ok = 0;
    }
    /* one form on every process (the counts differ between processes), and whether all can take part */
    int v[2] = {fits, ok};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS || !v[1]) {
        free(scratch);
        if (rc != MPI_SUCCESS) err_text(rc, "MPI_Allreduce of the exchange's form", err, errlen);
        return rc != MPI_SUCCESS ? MOVE_FAILED : MOVE_STOPPED;
    }
    if (exchange_p2p)
        rc = exchange_by_p2p(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, scratch, err, errlen);
    else if (v[0])
        rc = exchange_by_alltoallv(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, n, scratch, err, errlen);
    else
#if HAVE_PMPI_Alltoallv_c
        rc = exchange_by_alltoallv_c(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, n, scratch, err, errlen);
#else
        rc = exchange_by_p2p(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, scratch, err, errlen);
#endif
    free(scratch);
    return rc == MPI_SUCCESS ? MOVE_OK : MOVE_FAILED;
}
