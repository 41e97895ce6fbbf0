/* agree.c -- decisions every process of a resize takes together, with
 * bounded waits (DUCTILE_RESIZE_TIMEOUT, T below): the transaction's
 * agreement (txn_agree), the decision after a wait that only some processes
 * may have seen complete (any_completed), and the requests such waits leave
 * behind (late requests, completed at later control points).
 *
 * One process decides -- rank 0 of the communicator, an old process -- so
 * that a timeout cannot split the processes: it waits at most T for every
 * contribution, and decides as if some were missing when they are not all
 * there (the safe outcome: roll back, give up); every other process waits
 * for its decision, at most 3 T (rank 0 reaches its own decision within T of
 * arriving; a process that hears nothing in 3 T takes rank 0 as lost, which
 * MPI cannot continue from).  A process that arrives late still contributes
 * and then hears the same decision. */
#include "engine.h"

#include <time.h>

/* ------------------------------------------------------------------ bounded waits */

int wait_for(MPI_Request *rq, double limit_s)
{
    double deadline = ductile_now() + limit_s;
    struct timespec nap = {0, 50 * 1000}; /* asleep: waiting processes leave the cores to the ones that work */
    for (;;) {
        int done = 0;
        if (PMPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (done) return 1;
        if (ductile_now() > deadline) return 0;
        nanosleep(&nap, NULL);
    }
}

/* Requests a bounded wait gave up on, with the buffer they use (freed when
 * the last of them completes) and their communicator: a communicator is not
 * freed while one of them is pending (Open MPI 4.1 crashed progressing a
 * collective of a freed communicator), but once they completed
 * (comm_free_later). */
struct late_buf {
    int refs;
    void *p;
};
struct late {
    MPI_Request rq;
    MPI_Comm comm;
    struct late_buf *b;
};
static struct late *LATE;
static int nlate, caplate;
static MPI_Comm *DEFER; /* communicators to free once no late request uses them */
static int ndefer, capdefer;

static void late_add(MPI_Request *rq, MPI_Comm comm, struct late_buf *b)
{
    if (*rq == MPI_REQUEST_NULL) return;
    if (nlate == caplate) {
        int nc = caplate ? 2 * caplate : 8;
        struct late *l = realloc(LATE, (size_t)nc * sizeof *l);
        if (!l) return; /* not tracked: the request and its buffer stay with the MPI (leaked) */
        LATE = l;
        caplate = nc;
    }
    if (b) b->refs++;
    LATE[nlate++] = (struct late){*rq, comm, b};
    *rq = MPI_REQUEST_NULL;
}

static int late_uses(MPI_Comm c)
{
    for (int i = 0; i < nlate; i++)
        if (LATE[i].comm == c) return 1;
    return 0;
}

void settle(void *p, MPI_Request *r, const MPI_Comm *c, int n)
{
    int pending = 0;
    for (int i = 0; i < n; i++) {
        int done = 0;
        if (r[i] != MPI_REQUEST_NULL && PMPI_Test(&r[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) pending++;
    }
    struct late_buf *b = pending && p ? malloc(sizeof *b) : NULL;
    if (pending && p && !b) return; /* no memory to track them: the buffer stays with the MPI (leaked) */
    if (b) *b = (struct late_buf){0, p};
    for (int i = 0; i < n; i++) late_add(&r[i], c[i], b);
    if (!pending) free(p);
}

void comm_free_later(MPI_Comm *c)
{
    if (*c == MPI_COMM_NULL) return;
    if (!late_uses(*c)) {
        PMPI_Comm_free(c);
        return;
    }
    if (ndefer == capdefer) {
        int nc = capdefer ? 2 * capdefer : 4;
        MPI_Comm *d = realloc(DEFER, (size_t)nc * sizeof *d);
        if (!d) { /* not tracked: kept until MPI_Finalize */
            *c = MPI_COMM_NULL;
            return;
        }
        DEFER = d;
        capdefer = nc;
    }
    DEFER[ndefer++] = *c;
    *c = MPI_COMM_NULL;
}

void late_progress(void)
{
    for (int i = 0; i < nlate;) {
        int done = 0;
        if (PMPI_Test(&LATE[i].rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 1; /* in error: forgotten */
        if (done) {
            struct late_buf *b = LATE[i].b;
            if (b && --b->refs == 0) {
                free(b->p);
                free(b);
            }
            LATE[i] = LATE[--nlate];
        } else {
            i++;
        }
    }
    for (int i = 0; i < ndefer;) {
        if (late_uses(DEFER[i])) {
            i++;
            continue;
        }
        PMPI_Comm_free(&DEFER[i]);
        DEFER[i] = DEFER[--ndefer];
    }
}

/* At MPI_Finalize: the late processes are alive (a dead one ends the job):
 * they arrive, take their part and only then wait for their release, so
 * their requests complete here, before the communicators they use are
 * freed.  Bounded by DUCTILE_LEAVE_TIMEOUT, as a parked process's wait for
 * the job's end. */
void late_finish(void)
{
    double deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (late_progress(); nlate && ductile_now() < deadline; late_progress()) nanosleep(&nap, NULL);
    if (nlate)
        fprintf(stderr, "ductile: warning: rank %d: %d request%s of timed-out waits still pending at the end\n",
                ductile_rt.rank, nlate, nlate == 1 ? "" : "s");
    nlate = 0; /* left to the MPI, with their communicators */
    ndefer = 0;
}

/* ------------------------------------------------------------------ decisions */

enum { DEC_TIMEOUT = -2, DEC_ERROR = -3, DEC_NO_ROOT = -4 };


/* The bounded decision over c (see the top): every process contributes v
 * (combined by op); dec[0] is the combined v[0], or 0 when rank 0 did not
 * get every contribution within T; dec[1] the combined v[1] (v[2] where that
 * is INT_MAX), or a DEC_* code. */
static void decide(MPI_Comm c, const int v[3], MPI_Op op, int dec[2])
{
    int me = 0;
    PMPI_Comm_rank(c, &me);
    double T = resize_timeout();
    int *b = malloc(8 * sizeof *b); /* in[3], out[3], dec[2]: live as long as the requests */
    if (!b) { /* no memory even for this: the plain (unbounded) collective */
        int w[3] = {v[0], v[1], v[2]};
        PMPI_Allreduce(MPI_IN_PLACE, w, 3, MPI_INT, op, c);
        dec[0] = w[0];
        dec[1] = w[1] != INT_MAX ? w[1] : w[2];
        return;
    }
    int *in = b, *out = b + 3, *d = b + 6;
    memcpy(in, v, 3 * sizeof *in);
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int got = PMPI_Ireduce(in, out, 3, MPI_INT, op, 0, c, &r[0]) == MPI_SUCCESS ? 0 : -1;
    if (me == 0) {
        if (got == 0) got = wait_for(&r[0], T);
        d[0] = got == 1 ? out[0] : 0;
        d[1] = got == 1 ? (out[1] != INT_MAX ? out[1] : out[2]) : got == 0 ? DEC_TIMEOUT : DEC_ERROR;
    }
    if (PMPI_Ibcast(d, 2, MPI_INT, 0, c, &r[1]) != MPI_SUCCESS) {
        r[1] = MPI_REQUEST_NULL;
        d[0] = 0;
        d[1] = DEC_ERROR;
    } else if (wait_for(&r[1], me == 0 ? T : 3 * T) != 1 && me != 0) {
        d[0] = 0; /* rank 0 did not answer: taken as lost */
        d[1] = DEC_NO_ROOT;
    }
    dec[0] = d[0];
    dec[1] = d[1];
    MPI_Comm cc[2] = {c, c};
    settle(b, r, cc, 2);
}

int txn_agree(MPI_Comm c, int ok, char *why, size_t len)
{
    txn_delay("agree");
    int me = 0;
    PMPI_Comm_rank(c, &me);
    /* the decision, and the reason of the first process that failed on its own (a non-empty why),
     * else of the first that failed */
    int v[3] = {ok ? 1 : 0, !ok && why[0] ? me : INT_MAX, ok ? INT_MAX : me}, dec[2];
    decide(c, v, MPI_MIN, dec);
    if (dec[0]) return 1;
    double T = resize_timeout();
    char *msg = dec[1] >= 0 && dec[1] != INT_MAX ? calloc(1, TXN_WHY_MAX) : NULL;
    if (msg) {
        if (me == dec[1]) snprintf(msg, TXN_WHY_MAX, "%s", why);
        MPI_Request rq = MPI_REQUEST_NULL;
        int got = PMPI_Ibcast(msg, TXN_WHY_MAX, MPI_CHAR, dec[1], c, &rq) == MPI_SUCCESS ? wait_for(&rq, 2 * T) : -1;
        if (got == 1) snprintf(why, len, "%s", msg[0] ? msg : "a process of the resize failed");
        else snprintf(why, len, "rank %d: the failure's reason did not arrive within %.0f s", ductile_rt.rank, 2 * T);
        settle(msg, &rq, &c, 1); /* the decision stands; only its reason may be missing here */
    } else if (dec[1] == DEC_TIMEOUT) {
        snprintf(why, len, "a process did not reach the agreement within %.0f s (DUCTILE_RESIZE_TIMEOUT)", T);
    } else if (dec[1] == DEC_NO_ROOT) {
        snprintf(why, len, "rank %d: no decision from the agreement's rank 0 within %.0f s", ductile_rt.rank, 3 * T);
        fprintf(stderr, "ductile: warning: %s: rolling back here (rank 0 is taken as lost)\n", why);
    } else if (dec[1] == DEC_ERROR) {
        snprintf(why, len, "rank %d: the agreement failed (an MPI error)", ductile_rt.rank);
    } else {
        snprintf(why, len, "a process of the resize failed");
    }
    return 0;
}

int txn_agree_commit(MPI_Comm c, int ok, char *why, size_t len)
{
    if (!txn_agree(c, ok, why, len)) return 0;
    int stages = 0; /* the same on every process: the registrations match */
    for (int i = 0; i < reg_count(); i++) stages |= REG_KIND_STAGES(reg_at(i)->d.kind);
    if (!stages) return 1;
    /* the program's code at the commit (custom data's unpack): staged, then agreed on again (bounded) */
    int okc = 1;
    char mine[TXN_WHY_MAX] = "";
    for (int i = 0; i < reg_count() && okc; i++)
        if (REG_KIND_STAGES(reg_at(i)->d.kind) && DUCTILE_HOOK(data_stage, (reg_at(i), mine, sizeof mine)) != 0)
            okc = 0;
    if (txn_agree(c, okc, mine, sizeof mine)) return 1;
    for (int i = 0; i < reg_count(); i++)
        if (REG_KIND_STAGES(reg_at(i)->d.kind)) DUCTILE_HOOK_VOID(data_unstage, (reg_at(i)));
    snprintf(why, len, "%s", mine);
    return 0;
}

int all_agree(MPI_Comm c, int yes)
{
    int v[3] = {yes ? 1 : 0, 0, 0}, dec[2];
    decide(c, v, MPI_MIN, dec);
    return dec[0];
}

int any_completed(MPI_Comm c, int completed)
{
    int v[3] = {completed ? 1 : 0, 0, 0}, dec[2];
    decide(c, v, MPI_MAX, dec);
    return dec[0];
}
