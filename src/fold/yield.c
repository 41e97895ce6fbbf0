/* yield.c -- blocking MPI calls that do not spin while the job is folded:
 * the nonblocking form of the call, then MPI_Test* with sched_yield and,
 * after a few rounds, short sleeps doubling up to YIELD_MAX_NS.  Results,
 * statuses and error codes are those of the blocking call.  Used by the
 * generated wrappers only while DUCTILE_FOLD_YIELD is set (src/fold/fold_hot.h);
 * collectives are not converted: a nonblocking collective does not match a
 * blocking one, and the ranks of a job fold at different moments (they rely
 * on the MPI's own yield setting, see fold.c). */
#include "config.h"

#include "../core/fold_hot.h"

#include <sched.h>
#include <time.h>

#define YIELD_SPINS 8            /* sched_yield rounds before the first sleep */
#define YIELD_MIN_NS 2000L
#define YIELD_MAX_NS 200000L

struct backoff {
    int round;
    long ns;
};

static void pause_once(struct backoff *b)
{
    if (b->round++ < YIELD_SPINS) {
        sched_yield();
        return;
    }
    b->ns = b->ns ? b->ns * 2 : YIELD_MIN_NS;
    if (b->ns > YIELD_MAX_NS) b->ns = YIELD_MAX_NS;
    struct timespec ts = {0, b->ns};
    nanosleep(&ts, NULL);
}

/* Test one request until it completes (MPI_Wait semantics). */
static int test_loop(MPI_Request *r, MPI_Status *status)
{
    struct backoff b = {0, 0};
    for (;;) {
        int done = 0;
        int rc = PMPI_Test(r, &done, status);
        if (rc != MPI_SUCCESS || done) return rc;
        pause_once(&b);
    }
}

int ductile_yield_Wait(MPI_Request *request, MPI_Status *status) { return test_loop(request, status); }

int ductile_yield_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
    struct backoff b = {0, 0};
    for (;;) {
        int done = 0;
        int rc = PMPI_Testall(count, array_of_requests, &done, array_of_statuses);
        if (rc != MPI_SUCCESS || done) return rc;
        pause_once(&b);
    }
}

int ductile_yield_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    struct backoff b = {0, 0};
    for (;;) {
        int done = 0;
        int rc = PMPI_Testany(count, array_of_requests, index, &done, status);
        if (rc != MPI_SUCCESS || done) return rc;
        pause_once(&b);
    }
}

int ductile_yield_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status *array_of_statuses)
{
    struct backoff b = {0, 0};
    for (;;) {
        int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc; /* MPI_UNDEFINED: no active request */
        pause_once(&b);
    }
}

int ductile_yield_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : test_loop(&r, status);
}

int ductile_yield_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Isend(buf, count, datatype, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : test_loop(&r, MPI_STATUS_IGNORE);
}

int ductile_yield_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Issend(buf, count, datatype, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : test_loop(&r, MPI_STATUS_IGNORE);
}

int ductile_yield_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Irsend(buf, count, datatype, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : test_loop(&r, MPI_STATUS_IGNORE);
}

int ductile_yield_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status *status)
{
    MPI_Request r[2];
    MPI_Status st[2];
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
    if (rc != MPI_SUCCESS) {
        /* the receive was posted: take it back (local for a receive) */
        PMPI_Cancel(&r[0]);
        PMPI_Wait(&r[0], MPI_STATUS_IGNORE);
        return rc;
    }
    rc = ductile_yield_Waitall(2, r, st);
    if (rc == MPI_ERR_IN_STATUS) rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) *status = st[0];
    return rc;
}

int ductile_yield_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct backoff b = {0, 0};
    for (;;) {
        int found = 0;
        int rc = PMPI_Iprobe(source, tag, comm, &found, status);
        if (rc != MPI_SUCCESS || found) return rc;
        pause_once(&b);
    }
}

int ductile_yield_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    struct backoff b = {0, 0};
    for (;;) {
        int found = 0;
        int rc = PMPI_Improbe(source, tag, comm, &found, message, status);
        if (rc != MPI_SUCCESS || found) return rc;
        pause_once(&b);
    }
}

int ductile_yield_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    MPI_Request r;
    int rc = PMPI_Imrecv(buf, count, datatype, message, &r);
    return rc != MPI_SUCCESS ? rc : test_loop(&r, status);
}
