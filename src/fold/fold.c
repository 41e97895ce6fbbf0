/* fold.c -- process folding in the job (see fold.h, docs/folding.md).
 *
 * Set-up (MPI_Init, only when a controller runs): every rank keeps its own
 * affinity, learns its host's ranks with MPI_Comm_split_type(SHARED) on the
 * private communicator and the union of their affinities (the host's cores),
 * posts a receive for fold commands from rank 0, and starts a poller thread
 * that makes no MPI call: every FOLD_POLL_MS it sets the PENDING bit of
 * ductile_fold_flag, so the rank's next MPI call tests that receive.  On rank
 * 0 the controller thread sets the bit itself when a command arrives.
 *
 * Safe point (ductile_fold_point, the wrappers' slow path): rank 0 prefers the
 * loop head the iteration detector found (for at most FOLD_HEAD_WAIT s), else
 * the next MPI call; it sends the command to every rank (MPI_Isend, tag
 * FOLD_TAG, on the private communicator) and applies it.  Each rank applies
 * the last command it received: all its threads are pinned to the first N
 * cores of its host's set (N = cores per host), or back to the affinity they
 * had at MPI_Init.  No collective is made there: ranks reach their safe
 * points at different moments, inside any MPI call.
 *
 * While a rank shares its cores (more ranks on the host than folded cores)
 * the YIELD bit makes the wrappers of blocking point-to-point and completion
 * calls wait by test-and-yield (yield.c), and Open MPI's progress loop is
 * told to yield (opal_progress_set_yield_when_idle, which Open MPI reads at
 * every progress round; MPI_Init only reads the default from
 * mpi_yield_when_idle); MPICH's, through the tool interface, to sleep a
 * microsecond after 64 polls without progress (MPIR_CVAR_CH4_PROGRESS_THROTTLE
 * and _NO_PROGRESS_COUNT, writable at run time).  A resize replaces the private communicator: each
 * rank then unfolds (ductiled forgets the fold when it learns of the resize). */
#include "config.h"

#include "fold.h"
#include "../core/fold_hot.h"
#include "../core/hooks.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/clock.h"
#include "../monitor/iteration.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "../world/worldid.h"

#define FOLD_TAG 32001       /* within the smallest MPI_TAG_UB the standard allows */
#define FOLD_POLL_MS 50
#define FOLD_HEAD_WAIT 1.0   /* seconds rank 0 waits for the loop head */
#define MASK_WORDS (sizeof(cpu_set_t) / sizeof(unsigned long))

unsigned ductile_fold_flag;

static struct {
    int ready;
    cpu_set_t orig, host;     /* this process's affinity at MPI_Init; its host's cores */
    int host_ranks, hosts;
    int resized;              /* the world changed since MPI_Init: host_ranks is stale */
    int cores;                /* applied (0: not folded), read by other threads */
    unsigned applied_gen;
    /* rank 0: the command from the controller thread (atomics) */
    int req_cores;
    unsigned req_gen;
    double head_wait_since;
    int sendbuf[2];
    MPI_Request *sends;
    int nsends;
    /* every rank: the receive for commands, on `comm` */
    MPI_Comm comm;
    MPI_Request rreq;
    int rbuf[2];
    pthread_t poller;
    int poller_on, stop;
    pthread_mutex_t busy;     /* one thread in the slow path (MPI_THREAD_MULTIPLE) */
    /* Open MPI's progress loop */
    void (*ompi_set_yield)(bool);
    bool *ompi_yield;
    int yield_saved, yield_set;
    /* MPICH: control variables written at run time through the tool interface */
    int mpit;
    MPI_T_cvar_handle cv[2];
    int cv_saved[2];
} F = {.comm = MPI_COMM_NULL, .rreq = MPI_REQUEST_NULL, .busy = PTHREAD_MUTEX_INITIALIZER};

static void *poll_main(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&F.stop, __ATOMIC_ACQUIRE)) {
        struct timespec ts = {0, FOLD_POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
        __atomic_fetch_or(&ductile_fold_flag, DUCTILE_FOLD_PENDING, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void post_receive(void)
{
    F.comm = ductile_rt.private_comm;
    PMPI_Irecv(F.rbuf, 2, MPI_INT, 0, FOLD_TAG, F.comm, &F.rreq);
}

/* MPICH's progress engine sleeps (usleep(1)) after this many polls without
 * progress when CH4_PROGRESS_THROTTLE is on; both are writable at run time. */
static const struct {
    const char *name;
    int shared;
} mpich_cvars[2] = {{"MPIR_CVAR_CH4_PROGRESS_THROTTLE", 1}, {"MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT", 64}};

static void mpit_init(void)
{
    int provided, n = 0;
    if (F.ompi_set_yield || PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    F.mpit = 1;
    for (int i = 0; i < 2; i++) {
        int idx, count, verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        F.cv[i] = MPI_T_CVAR_HANDLE_NULL;
        if (PMPI_T_cvar_get_index(mpich_cvars[i].name, &idx) != MPI_SUCCESS) continue;
        if (PMPI_T_cvar_get_info(idx, NULL, NULL, &verbosity, &dt, &en, NULL, NULL, &bind, &scope) != MPI_SUCCESS ||
            dt != MPI_INT || scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY)
            continue;
        if (PMPI_T_cvar_handle_alloc(idx, NULL, &F.cv[i], &count) != MPI_SUCCESS || count != 1) {
            F.cv[i] = MPI_T_CVAR_HANDLE_NULL;
            continue;
        }
        n++;
    }
    ductile_log(2, "fold: %d MPICH progress variable(s) found", n);
}

static void mpit_finalize(void)
{
    if (!F.mpit) return;
    for (int i = 0; i < 2; i++)
        if (F.cv[i] != MPI_T_CVAR_HANDLE_NULL) PMPI_T_cvar_handle_free(&F.cv[i]);
    PMPI_T_finalize();
    F.mpit = 0;
}

void ductile_fold_init(int wanted)
{
    if (ductile_rt.private_comm == MPI_COMM_NULL) return;
    if (!wanted) { /* a process spawned by a resize: its parents' controller folds it too */
        const char *c = ductile_rt.settings.controller;
        wanted = ductile_spawned_by_ductile() && !(c && (!strcmp(c, "off") || !strcmp(c, "none")));
    }
    if (!wanted) return;
    if (sched_getaffinity(0, sizeof F.orig, &F.orig) != 0) {
        CPU_ZERO(&F.orig);
        for (long c = 0, n = sysconf(_SC_NPROCESSORS_ONLN); c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, &F.orig);
    }
    MPI_Comm host;
    PMPI_Comm_split_type(ductile_rt.private_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    unsigned long bits[MASK_WORDS];
    memcpy(bits, &F.orig, sizeof bits);
    PMPI_Allreduce(MPI_IN_PLACE, bits, (int)MASK_WORDS, MPI_UNSIGNED_LONG, MPI_BOR, host);
    memcpy(&F.host, bits, sizeof bits);
    int hr;
    PMPI_Comm_size(host, &F.host_ranks);
    PMPI_Comm_rank(host, &hr);
    int leader = hr == 0;
    PMPI_Allreduce(&leader, &F.hosts, 1, MPI_INT, MPI_SUM, ductile_rt.private_comm);
    PMPI_Comm_free(&host);
    post_receive();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the program's signals are not for the poller */
    F.poller_on = pthread_create(&F.poller, NULL, poll_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    *(void **)&F.ompi_set_yield = dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle");
    F.ompi_yield = dlsym(RTLD_DEFAULT, "opal_progress_yield_when_idle");
    mpit_init();
    __atomic_store_n(&F.ready, 1, __ATOMIC_RELEASE);
    ductile_log(2, "fold: %d rank(s) on this host, %d host(s), %d core(s) here", F.host_ranks, F.hosts,
                CPU_COUNT(&F.host));
}

/* Pin every thread of this process (the program's, the MPI's, Ductile's). */
static void pin_all(const cpu_set_t *set)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        sched_setaffinity(0, sizeof *set, set);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        sched_setaffinity((pid_t)atoi(e->d_name), sizeof *set, set); /* a thread that just ended: ignored */
    }
    closedir(d);
}

static void set_mpi_yield(int on)
{
    if (on == F.yield_set) return;
    if (F.ompi_set_yield) {
        if (on) F.yield_saved = F.ompi_yield ? *F.ompi_yield : 0;
        F.ompi_set_yield(on ? true : F.yield_saved != 0);
    }
    for (int i = 0; i < 2 && F.mpit; i++) {
        if (F.cv[i] == MPI_T_CVAR_HANDLE_NULL) continue;
        if (on) PMPI_T_cvar_read(F.cv[i], &F.cv_saved[i]);
        int v = on ? mpich_cvars[i].shared : F.cv_saved[i];
        PMPI_T_cvar_write(F.cv[i], &v);
    }
    F.yield_set = on;
}

static void apply(int cores, unsigned gen)
{
    cpu_set_t set;
    if (cores <= 0) {
        set = F.orig;
        cores = 0;
    } else {
        CPU_ZERO(&set);
        for (int c = 0, taken = 0; c < CPU_SETSIZE && taken < cores; c++)
            if (CPU_ISSET(c, &F.host)) CPU_SET(c, &set), taken++;
    }
    pin_all(&set);
    /* shared: more ranks here than folded cores (after a resize the count
     * from MPI_Init may be stale: a fold then always counts as shared) */
    int shared = cores > 0 && (F.resized || F.host_ranks > (cores < CPU_COUNT(&F.host) ? cores : CPU_COUNT(&F.host)));
    set_mpi_yield(shared);
    if (shared) __atomic_fetch_or(&ductile_fold_flag, DUCTILE_FOLD_YIELD, __ATOMIC_RELAXED);
    else __atomic_fetch_and(&ductile_fold_flag, ~DUCTILE_FOLD_YIELD, __ATOMIC_RELAXED);
    __atomic_store_n(&F.cores, cores, __ATOMIC_RELAXED);
    __atomic_store_n(&F.applied_gen, gen, __ATOMIC_RELAXED);
    ductile_log(1, "fold: %s (%d core(s) on this host, %d rank(s) here)", cores ? "folded" : "unfolded",
                cores ? CPU_COUNT(&set) : CPU_COUNT(&F.orig), F.host_ranks);
}

/* Rank 0's sends of earlier commands: completed (small, eager) or freed. */
static void drop_sends(int wait)
{
    if (!F.nsends) return;
    if (wait) PMPI_Waitall(F.nsends, F.sends, MPI_STATUSES_IGNORE);
    for (int i = 0; i < F.nsends; i++)
        if (F.sends[i] != MPI_REQUEST_NULL) PMPI_Request_free(&F.sends[i]);
    free(F.sends);
    F.sends = NULL;
    F.nsends = 0;
}

/* The private communicator was replaced by a resize: the fold ends. */
static void world_changed(void)
{
    if (F.rreq != MPI_REQUEST_NULL) {
        PMPI_Cancel(&F.rreq);
        PMPI_Wait(&F.rreq, MPI_STATUS_IGNORE);
    }
    drop_sends(0);
    F.resized = 1;
    if (F.cores) apply(0, F.applied_gen);
    post_receive();
}

static void root_point(int fn)
{
    unsigned gen = __atomic_load_n(&F.req_gen, __ATOMIC_ACQUIRE);
    if (gen == F.applied_gen) return;
    int head = ductile_iteration_head_fn();
    if (head >= 0 && fn != head) {
        double now = ductile_now();
        if (F.head_wait_since == 0) F.head_wait_since = now;
        if (now - F.head_wait_since < FOLD_HEAD_WAIT) {
            __atomic_fetch_or(&ductile_fold_flag, DUCTILE_FOLD_PENDING, __ATOMIC_RELAXED); /* try again */
            return;
        }
    }
    F.head_wait_since = 0;
    int cores = __atomic_load_n(&F.req_cores, __ATOMIC_RELAXED);
    drop_sends(1);
    int size;
    PMPI_Comm_size(F.comm, &size);
    F.sendbuf[0] = (int)gen;
    F.sendbuf[1] = cores;
    if (size > 1 && (F.sends = malloc((size_t)(size - 1) * sizeof *F.sends))) {
        for (int r = 1; r < size; r++) PMPI_Isend(F.sendbuf, 2, MPI_INT, r, FOLD_TAG, F.comm, &F.sends[r - 1]);
        F.nsends = size - 1;
    }
    apply(cores, gen);
}

static void member_point(void)
{
    int got = 0, cores = 0;
    unsigned gen = 0;
    for (;;) {
        int done = 0;
        if (PMPI_Test(&F.rreq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done) break;
        got = 1;
        gen = (unsigned)F.rbuf[0];
        cores = F.rbuf[1];
        PMPI_Irecv(F.rbuf, 2, MPI_INT, 0, FOLD_TAG, F.comm, &F.rreq);
    }
    if (got) apply(cores, gen);
}

unsigned ductile_fold_point(int fn)
{
    if (!__atomic_load_n(&F.ready, __ATOMIC_ACQUIRE) || !ductile_rt.active || ductile_depth > 0)
        return __atomic_load_n(&ductile_fold_flag, __ATOMIC_RELAXED) & ~DUCTILE_FOLD_PENDING;
    if (pthread_mutex_trylock(&F.busy) != 0) return __atomic_load_n(&ductile_fold_flag, __ATOMIC_RELAXED);
    __atomic_fetch_and(&ductile_fold_flag, ~DUCTILE_FOLD_PENDING, __ATOMIC_ACQ_REL);
    if (ductile_rt.private_comm != F.comm) world_changed();
    if (ductile_rt.rank == 0) root_point(fn);
    else member_point();
    if (F.nsends) { /* complete rank 0's sends as they go */
        int all = 0;
        PMPI_Testall(F.nsends, F.sends, &all, MPI_STATUSES_IGNORE);
        if (all) drop_sends(0);
    }
    pthread_mutex_unlock(&F.busy);
    return __atomic_load_n(&ductile_fold_flag, __ATOMIC_RELAXED);
}

int ductile_fold_request(int cores, char *err, size_t len)
{
    if (!__atomic_load_n(&F.ready, __ATOMIC_ACQUIRE)) {
        snprintf(err, len, "folding is not set up in this job (it runs only under a controller)");
        return -1;
    }
    if (cores < 0) {
        snprintf(err, len, "cannot fold to %d cores", cores);
        return -1;
    }
    __atomic_store_n(&F.req_cores, cores, __ATOMIC_RELAXED);
    __atomic_fetch_add(&F.req_gen, 1, __ATOMIC_RELEASE);
    __atomic_fetch_or(&ductile_fold_flag, DUCTILE_FOLD_PENDING, __ATOMIC_RELEASE);
    return 0;
}

void ductile_fold_get_info(struct ductile_fold_info *o)
{
    memset(o, 0, sizeof *o);
    o->ready = __atomic_load_n(&F.ready, __ATOMIC_ACQUIRE);
    if (!o->ready) return;
    o->cores = __atomic_load_n(&F.cores, __ATOMIC_RELAXED);
    o->hosts = F.hosts;
    o->host_ranks = F.host_ranks;
    o->host_cpus = CPU_COUNT(&F.host);
    o->applied_gen = __atomic_load_n(&F.applied_gen, __ATOMIC_RELAXED);
    o->requested_gen = __atomic_load_n(&F.req_gen, __ATOMIC_RELAXED);
}

void ductile_fold_finalize(void)
{
    if (!__atomic_load_n(&F.ready, __ATOMIC_ACQUIRE)) return;
    __atomic_store_n(&F.stop, 1, __ATOMIC_RELEASE);
    if (F.poller_on) pthread_join(F.poller, NULL);
    F.poller_on = 0;
    pthread_mutex_lock(&F.busy);
    __atomic_store_n(&F.ready, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ductile_fold_flag, 0, __ATOMIC_RELAXED);
    if (F.rreq != MPI_REQUEST_NULL) {
        PMPI_Cancel(&F.rreq);
        PMPI_Wait(&F.rreq, MPI_STATUS_IGNORE);
    }
    drop_sends(0);
    if (F.cores) apply(0, F.applied_gen);
    mpit_finalize();
    __atomic_store_n(&ductile_fold_flag, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&F.busy);
}

/* src/wrap's MPI_Init and MPI_Finalize reach folding through the hook table. */
DUCTILE_REGISTER(fold_register)
{
    h->fold_init = ductile_fold_init;
    h->fold_finalize = ductile_fold_finalize;
}
