/* txnfault.c -- counted allocations and MPI calls of a resize, the failures
 * and delays the tests inject into them, and the checkpoint (see txnfault.h). */
#include "txnfault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <execinfo.h>

enum { FAULT_NONE = 0, FAULT_ALLOC, FAULT_MPI, FAULT_COUNT };

static struct {
    int mode, target; /* DUCTILE_TEST_FAIL: what, on which process */
    long k, every;    /* the k-th event, of every `every`-th resize */
    char delay_step[32]; /* DUCTILE_TEST_DELAY */
    double delay_s;
    int delay_rank;
    int armed, me, id, begun; /* the running resize on this process */
    long nalloc, nmpi;        /* atomics: the Threading strategy's thread counts too */
} T = {.id = -1};

/* "K@RANK" or "@RANK" (k == NULL), then "%N" when every != NULL (1 without it) */
static int parse_at(const char *p, long *k, int *rank, long *every)
{
    char *end;
    if (k) {
        *k = strtol(p, &end, 10);
        if (end == p || *k < 1) return -1;
        p = end;
    }
    if (*p != '@') return -1;
    long r = strtol(p + 1, &end, 10);
    if (end == p + 1 || r < 0 || r > 1 << 24) return -1;
    *rank = (int)r;
    if (every) *every = 1;
    if (every && *end == '%') { /* only every N-th resize of the job */
        const char *q = end + 1;
        *every = strtol(q, &end, 10);
        if (end == q || *every < 1 || *every > 1000000) return -1;
    }
    return *end ? -1 : 0;
}

int txn_fault_setup(const char *f, const char *d, char *err, size_t errlen)
{
    T.mode = FAULT_NONE;
    T.delay_step[0] = '\0';
    if (f && strncmp(f, "alloc:", 6) == 0) {
        T.mode = FAULT_ALLOC;
        if (parse_at(f + 6, &T.k, &T.target, &T.every) != 0) goto bad_fail;
    } else if (f && strncmp(f, "mpi:", 4) == 0) {
        T.mode = FAULT_MPI;
        if (parse_at(f + 4, &T.k, &T.target, &T.every) != 0) goto bad_fail;
    } else if (f && strncmp(f, "count", 5) == 0) {
        T.mode = FAULT_COUNT;
        if (parse_at(f + 5, NULL, &T.target, NULL) != 0) goto bad_fail;
    } else if (f && strncmp(f, "pspawn", 6) == 0) { /* pspawn@RANK: that parent's share of a parallel spawn fails */
        int r;
        if (parse_at(f + 6, NULL, &r, NULL) != 0) goto bad_fail;
    } else if (f && strncmp(f, "blockcache", 10) == 0) { /* blockcache@RANK: memory pressure with blocks kept */
        int r;
        if (parse_at(f + 10, NULL, &r, NULL) != 0) goto bad_fail;
    } else if (f && *f && strcmp(f, "none") && strcmp(f, "spawn") && strcmp(f, "alloc") && strcmp(f, "register") &&
               strcmp(f, "transfer") && strcmp(f, "bgtransfer") && strcmp(f, "bgtransfer-first") && strcmp(f, "step") &&
               strcmp(f, "connect") && strcmp(f, "list")) {
        goto bad_fail;
    }
    if (d && *d) {
        const char *c = strchr(d, ':');
        char *end;
        if (!c || c == d || (size_t)(c - d) >= sizeof T.delay_step) goto bad_delay;
        T.delay_s = strtod(c + 1, &end);
        if (end == c + 1 || T.delay_s < 0 || T.delay_s > 3600 || parse_at(end, NULL, &T.delay_rank, NULL) != 0)
            goto bad_delay;
        snprintf(T.delay_step, sizeof T.delay_step, "%.*s", (int)(c - d), d);
        static const char *const steps[] = {"agree", "go", "wake", "spawn", "connect", NULL};
        int known = 0;
        for (int i = 0; steps[i]; i++) known |= strcmp(T.delay_step, steps[i]) == 0;
        if (!known) goto bad_delay;
    }
    return 0;
bad_fail:
    T.mode = FAULT_NONE;
    snprintf(err, errlen, "DUCTILE_TEST_FAIL='%s' is not valid: expected none, spawn, alloc, register, transfer, "
             "bgtransfer, bgtransfer-first, step, connect, list, pspawn@RANK, blockcache@RANK, alloc:K@RANK, mpi:K@RANK or count@RANK (K >= 1), the counted ones "
             "optionally followed by %%N (every N-th resize)", f);
    return -1;
bad_delay:
    T.delay_step[0] = '\0';
    snprintf(err, errlen, "DUCTILE_TEST_DELAY='%s' is not valid: expected STEP:SECONDS@RANK with STEP one of agree, go, "
             "wake, spawn, connect (e.g. agree:3@1)", d);
    return -1;
}

void txn_begin(int id, int rank)
{
    if (id != T.id || !T.begun) {
        __atomic_store_n(&T.nalloc, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&T.nmpi, 0, __ATOMIC_RELAXED);
    }
    T.id = id;
    T.me = rank;
    T.begun = 1;
    __atomic_store_n(&T.armed, 1, __ATOMIC_RELEASE);
}

void txn_pause(void)
{
    __atomic_store_n(&T.armed, 0, __ATOMIC_RELEASE);
}

void txn_end(void)
{
    if (!T.begun) return;
    txn_pause();
    T.begun = 0;
    if (T.mode == FAULT_COUNT && T.me == T.target)
        fprintf(stderr, "ductile: test: rank %d: resize %d made %ld counted allocations and %ld counted MPI calls\n",
                T.me, T.id, __atomic_load_n(&T.nalloc, __ATOMIC_RELAXED), __atomic_load_n(&T.nmpi, __ATOMIC_RELAXED));
}

/* Count one event; 1 when it is the one to fail. */
static int hit(long *counter, int mode)
{
    if (!__atomic_load_n(&T.armed, __ATOMIC_ACQUIRE)) return 0;
    long c = __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
    if (T.mode != mode || T.me != T.target || c != T.k) return 0;
    if (T.every > 1 && T.id % T.every != 0) return 0; /* resize ids count from 0 on every process */
    fprintf(stderr, "ductile: test: rank %d: %s %ld of resize %d fails (injected: DUCTILE_TEST_FAIL=%s:%ld@%d)\n",
            T.me, mode == FAULT_ALLOC ? "allocation" : "MPI call", c, T.id, mode == FAULT_ALLOC ? "alloc" : "mpi", c,
            T.target);
    if (getenv("TXNFAULT_TRACE")) { /* where it failed (TXNFAULT_TRACE=1: for debugging the tests) */
        void *bt[12];
        backtrace_symbols_fd(bt, backtrace(bt, 12), 2);
    }
    return 1;
}

void *txn_malloc(size_t size)
{
    return hit(&T.nalloc, FAULT_ALLOC) ? NULL : malloc(size ? size : 1);
}

void *txn_calloc(size_t n, size_t size)
{
    return hit(&T.nalloc, FAULT_ALLOC) ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *txn_realloc(void *p, size_t size)
{
    return hit(&T.nalloc, FAULT_ALLOC) ? NULL : realloc(p, size ? size : 1);
}

int txn_mpi(int rc)
{
    return hit(&T.nmpi, FAULT_MPI) ? MPI_ERR_OTHER : rc;
}

int txn_mpi_req(int rc, MPI_Request *rq)
{
    if (!hit(&T.nmpi, FAULT_MPI)) return rc;
    if (rc == MPI_SUCCESS && *rq != MPI_REQUEST_NULL) PMPI_Wait(rq, MPI_STATUS_IGNORE);
    *rq = MPI_REQUEST_NULL;
    return MPI_ERR_OTHER;
}

int txn_mpi_test(int rc, const int *flag)
{
    if (rc != MPI_SUCCESS || !*flag) return rc;
    return hit(&T.nmpi, FAULT_MPI) ? MPI_ERR_OTHER : rc;
}

int wait_all_asleep(int n, MPI_Request *rq)
{
    struct timespec nap = {0, 50 * 1000};
    for (;;) {
        int done = 0, rc = PMPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        nanosleep(&nap, NULL);
    }
}

int wait_all_yielding(int n, MPI_Request *rq)
{
    for (;;) {
        int done = 0, rc = PMPI_Testall(n, rq, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        sched_yield();
    }
}

int txn_all_ok(MPI_Comm c, int ok)
{
    int all = ok ? 1 : 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (PMPI_Iallreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, c, &rq) != MPI_SUCCESS ||
        wait_all_asleep(1, &rq) != MPI_SUCCESS)
        return 0;
    return all;
}

void txn_delay(const char *step)
{
    if (!T.delay_step[0] || !T.begun || T.me != T.delay_rank || strcmp(step, T.delay_step) != 0) return;
    fprintf(stderr, "ductile: test: rank %d: %.1f s delay before '%s' (DUCTILE_TEST_DELAY)\n", T.me, T.delay_s, step);
    struct timespec ts = {(time_t)T.delay_s, (long)((T.delay_s - (double)(time_t)T.delay_s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}
