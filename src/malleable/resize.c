/* resize.c -- the malleability engine (see resize.h): control points, the
 * Merge and Baseline methods, shrinking, redistribution of registered data,
 * parking of removed processes, reconfiguration records. */
#include "config.h"

#include "../controller/appctl.h"

#include "resize.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "ductile.h"
#include "hotpath.h"
#include "persist.h"
#include "pmpi_exports.h"
#include "../common/clock.h"
#include "../common/mpierror.h"
#include "registry.h"
#include "redist.h"
#include "runtime.h"
#include "schedule.h"
#include "worldid.h"
#include "filekeep.h"
#include "../redist/plan.h"
#include "../io/iomon.h"
#include "../monitor/report.h"
#include "../rma/cost.h"
#include "../rma/window.h"
#include "../rma/xfer.h"

#define TAG_RELEASE 0x5d18
#define TAG_HISTORY 0x5d19
#define TAG_ICREATE 0x5d1a
#define TAG_STANDBY 0x5d1c
#define BCAST_CHUNK ((int64_t)1 << 30)

enum { OP_NONE = 0, OP_RESIZE = 1 };
enum { METHOD_MERGE = 0, METHOD_BASELINE = 1 };

/* Rank 0's decision, broadcast at every control point. */
struct decision {
    int32_t op, nd, method, redist, nb, listlen, sched_next, iteration, id;
    int32_t auto_choice;  /* DUCTILE_REDIST=auto: redist and nb come from the cost model (src/rma/cost.c) */
    int32_t pool;         /* DUCTILE_PERSISTENT: expand by taking the standby processes back (no spawn) */
    char why[224];        /* its reason, for the record */
};
static void note_choice(struct report_reconfig *r, const struct decision *d);

/* Sent by the parents to the spawned processes over the intercommunicator. */
struct join_header {
    int32_t status; /* 1 join, 0 cancelled (the spawn failed on the parents' side) */
    int32_t method, redist, nb, ns, nd, nnew, iteration, sched_next, nitems, id, nhist, zombies, prepare, persistent;
    int64_t job_pid;
    double spawn_s, begin_epoch, start_s;
    char job_id[64];
};

struct duty {
    MPI_Comm comm;
    int n;
    int *ranks;
};

static struct {
    int ready;
    MPI_Comm self; /* MPI_COMM_SELF duplicate with MPI_ERRORS_RETURN: rank 0 spawns from it */
    struct request_queue q;
    int method, redist, nb;
    int thread_refused; /* DUCTILE_REDIST_CONSTANT=thread without MPI_THREAD_MULTIPLE: blocking instead */
    int auto_redist;    /* DUCTILE_REDIST=auto (src/rma/cost.c) */
    double last_cp, t_it; /* rank 0: time of the last control point, seconds per iteration (smoothed) */
    int spawned, removed;
    int iteration;
    int zombies; /* removed processes of this job still alive (they hold slots), standby ones included */
    int persistent; /* DUCTILE_PERSISTENT (src/malleable/persist.c) */
    int rma_shared; /* DUCTILE_RMA_MEMORY=shared: new blocks of rma-* transfers in shared windows */
    int iter_api;   /* the program calls EMPI_Get_iteration: a standby process can come back */
    MPI_Comm xfer;  /* persistent mode: the world's transfer communicator (prepared transfers live on it) */
    /* a spawned process between MPI_Init and EMPI_Get_shared */
    int join_pending, join_done;
    MPI_Comm join_comm;
    struct join_header jh;
    struct reg_desc *jdesc;
    double join_merge_s;
    /* parent/child intercommunicators, disconnected at MPI_Finalize */
    MPI_Comm *inters;
    int ninters, capinters;
    /* communicators freed at MPI_Finalize */
    MPI_Comm *keep;
    int nkeep, capkeep;
    /* removed processes this one releases at MPI_Finalize */
    struct duty *duties;
    int nduties, capduties;
    /* where this removed process waits for its release */
    MPI_Comm park_comm;
    int park_releaser;
    /* reconfiguration records (complete on the world's rank 0) */
    struct report_reconfig *hist;
    int nhist, caphist, next_id;
    /* counters of the processes that left the world (complete on the world's rank 0) */
    struct report_departed *dep;
    int ndep, capdep;
} M = {.self = MPI_COMM_NULL, .join_comm = MPI_COMM_NULL, .park_comm = MPI_COMM_NULL, .xfer = MPI_COMM_NULL};

/* DUCTILE_PERSISTENT: the standby pool.  After a shrink of world W (nbig
 * processes) to its first nsmall ranks, the leaving processes stand by
 * inside the control point, and W's communicators stay alive on all its
 * members, with the prepared transfers on W's transfer communicator.  An
 * expansion from nsmall back to nbig wakes them (no spawn, no merge) and
 * reuses those transfers; any other resize, or the end of the job, releases
 * them (they become ordinary removed processes). */
static struct {
    int active;                 /* this process belongs to a kept world W */
    int waiting;                /* this process stands by */
    MPI_Comm world, priv, xfer; /* W's virtual world, private and transfer communicators */
    int nbig, nsmall;
    int left_at;                /* the iteration of the shrink that formed the pool */
} SB = {.world = MPI_COMM_NULL, .priv = MPI_COMM_NULL, .xfer = MPI_COMM_NULL};

/* Sent by the kept world's rank 0 to each standby process. */
enum { STANDBY_WAKE = 1, STANDBY_RELEASE = 2 };

static double epoch(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static void *grow(void *arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return arr;
    int nc = *cap ? 2 * *cap : 8;
    while (nc < need) nc *= 2;
    void *p = realloc(arr, (size_t)nc * elem);
    if (!p) {
        fprintf(stderr, "ductile: error: out of memory\n");
        abort();
    }
    *cap = nc;
    return p;
}

static void add_inter(MPI_Comm c)
{
    M.inters = grow(M.inters, &M.capinters, M.ninters + 1, sizeof *M.inters);
    M.inters[M.ninters++] = c;
}

static void add_keep(MPI_Comm c)
{
    M.keep = grow(M.keep, &M.capkeep, M.nkeep + 1, sizeof *M.keep);
    M.keep[M.nkeep++] = c;
}

static void add_duty(MPI_Comm c, const int *ranks, int n)
{
    M.duties = grow(M.duties, &M.capduties, M.nduties + 1, sizeof *M.duties);
    struct duty *d = &M.duties[M.nduties++];
    d->comm = c;
    d->n = n;
    d->ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!d->ranks) abort();
    memcpy(d->ranks, ranks, (size_t)n * sizeof(int));
}

static void add_record(const struct report_reconfig *r)
{
    M.hist = grow(M.hist, &M.caphist, M.nhist + 1, sizeof *M.hist);
    M.hist[M.nhist++] = *r;
    if (r->id >= M.next_id) M.next_id = r->id + 1;
    if (ductile_rt.rank == 0) ductile_appctl_resized(r); /* tell the controller (no-op without one) */
}

const struct report_reconfig *ductile_malleable_history(int *n)
{
    *n = M.nhist;
    return M.hist;
}

const struct report_departed *ductile_malleable_departed(int *n)
{
    *n = M.ndep;
    return M.dep;
}

int ductile_malleable_active(void) { return !M.removed; }

int ductile_malleable_iteration(void)
{
    M.iter_api = 1; /* the program follows the world's iteration: standby processes may come back */
    return M.iteration;
}
int ductile_malleable_spawned(void) { return M.spawned; }

/* ------------------------------------------------------------------ settings */

int ductile_malleable_settings(const struct ductile_settings *s, char *err, size_t errlen)
{
    struct resize_request *rs = NULL;
    int n = 0;
    if (s->schedule && *s->schedule) {
        if (schedule_parse(s->schedule, &rs, &n, err, errlen) != 0) return -1;
        free(rs);
    }
#ifdef OMPI_MAJOR_VERSION
    /* rma-* (src/rma/): Open MPI 4.1's default one-sided components cannot create a window over a
     * communicator that spans spawned processes (MPI_ERR_WIN); osc/ucx can.  Set before PMPI_Init. */
    const char *rd = s->redist ? s->redist : "";
    if ((strncmp(rd, "rma-", 4) == 0 || strcmp(rd, "auto") == 0) && s->rma_osc && strcmp(s->rma_osc, "keep") != 0 &&
        !getenv("OMPI_MCA_osc"))
        setenv("OMPI_MCA_osc",
               strcmp(s->rma_osc, "auto") != 0 && *s->rma_osc ? s->rma_osc
               /* shared blocks (DUCTILE_RMA_MEMORY=shared) need osc/sm; ucx spans spawned processes */
               : s->persistent && s->rma_memory && strcmp(s->rma_memory, "shared") == 0 ? "ucx,sm" : "ucx", 1);
#endif
    if (s->spawn_hosts && *s->spawn_hosts) {
        char why[300];
        if (schedule_check_hosts(s->spawn_hosts, NULL, why, sizeof why) != 0) {
            snprintf(err, errlen, "DUCTILE_SPAWN_HOSTS='%s' is not valid: %s", s->spawn_hosts, why);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ world switching */

static void set_world(MPI_Comm world, MPI_Comm priv)
{
    MPI_Comm old_w = ductile_world, old_p = ductile_rt.private_comm;
    ductile_world_carry(old_w, world); /* world identity hook (src/wrap/worldid.c): error handler, name, attributes */
    ductile_world = world;
    ductile_rt.private_comm = priv;
    if (old_w != MPI_COMM_WORLD && old_w != MPI_COMM_NULL && old_w != world && !(SB.active && old_w == SB.world))
        ductile_world_retire(old_w); /* world identity hook: freed now, or at MPI_Finalize with threads */
    else if (old_w != world)
        ductile_world_strip(old_w); /* world identity hook: kept world, the program's attributes moved on */
    (void)old_p; /* the caller decides what happens to the old private communicator */
    PMPI_Comm_rank(world, &ductile_rt.rank);
    PMPI_Comm_size(world, &ductile_rt.size);
}

static void new_world_from(MPI_Comm base, MPI_Comm *w, MPI_Comm *p)
{
    PMPI_Comm_dup(base, w);
    PMPI_Comm_set_name(*w, "MPI_COMM_WORLD");
    PMPI_Comm_dup(base, p);
    PMPI_Comm_set_name(*p, "ductile-private");
    PMPI_Comm_set_errhandler(*p, MPI_ERRORS_RETURN);
}

/* A removed process: a world of its own, so that stray calls do not hang. */
static void leave_world(void)
{
    MPI_Comm w, p;
    new_world_from(MPI_COMM_SELF, &w, &p);
    set_world(w, p);
    M.removed = 1;
}

/* Persistent mode: the current world's transfer communicator, where its
 * prepared transfers live (collective over the world when first needed). */
static MPI_Comm world_xfer(void)
{
    if (M.xfer == MPI_COMM_NULL) {
        PMPI_Comm_dup(ductile_rt.private_comm, &M.xfer);
        PMPI_Comm_set_errhandler(M.xfer, MPI_ERRORS_RETURN);
    }
    return M.xfer;
}

/* Free the prepared transfers and shared blocks over x (collective over x),
 * first copying the registered arrays that live in x's shared blocks
 * (DUCTILE_RMA_MEMORY=shared) into ordinary memory. */
static void release_transfers(MPI_Comm x)
{
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        size_t bytes = 0;
        if (it->d.kind != REG_DISTRIBUTED || persist_shared_owner(it->addr, &bytes) != x) continue;
        void *copy = malloc(bytes ? bytes : 1);
        if (!copy) {
            fprintf(stderr, "ductile: error: out of memory copying '%s' out of shared memory\n", it->d.name);
            PMPI_Abort(MPI_COMM_WORLD, 3);
        }
        memcpy(copy, it->addr, bytes);
        it->addr = copy;
        it->owned = 1;
    }
    persist_release(x);
}

/* The world ends for this process: its prepared transfers and transfer
 * communicator go (collective over the world), unless the standby pool
 * keeps them. */
static void drop_world_xfer(void)
{
    if (M.xfer == MPI_COMM_NULL) return;
    if (!(SB.active && M.xfer == SB.xfer)) {
        release_transfers(M.xfer);
        PMPI_Comm_free(&M.xfer);
    }
    M.xfer = MPI_COMM_NULL;
}

/* Old blocks of arrays moved by the one-sided methods over a dynamic window
 * with Open MPI 4.1's osc/ucx: freed at the next control point, not right
 * after the transfer.  Measured: freeing them at once crashed 3 runs in 5
 * (64 MiB arrays, rma-lockall) -- UCX's shared-memory transport was still
 * copying from the unmapped block while it progressed the next collective;
 * with the free one iteration later, 0 crashes in 10. */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define DEFER_RMA_FREE 1
#else
#define DEFER_RMA_FREE 0
#endif
/* Background (Wait Drains, Threading) one-sided transfers of constant data
 * with Open MPI 4.1's osc/ucx are not safe while the program goes on with its
 * own MPI calls: with 64 MiB of constant data, 1 -> 2 -> 4 -> 2 -> 1 -> 4 -> 1,
 * rma-lock(all)+thread crashed or delivered wrong rows in 2 of 24 runs (1 of
 * 36 with old blocks freed a control point later, 6 of 40 with
 * DUCTILE_RMA_WINDOW=create), rma-lock(all)+wd in 1 of 80, always inside
 * UCX's shared-memory transport (uct_mm_ep_am_bcopy reading an unmapped
 * address); without that transport (UCX_TLS=^mm) Wait Drains hung instead.
 * The collective versions of the same strategies had no failure (19 runs).
 * There the constant data moves by the collective in the background; the
 * variable data still moves by the one-sided method. */
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define RMA_BACKGROUND_UNSAFE 1
#else
#define RMA_BACKGROUND_UNSAFE 0
#endif

static struct {
    void **p;
    int n, cap;
} GRAVE;

static void free_block(void *p)
{
    if (reg_is_tracked(p)) reg_untrack_free(p);
    else free(p);
}

static void bury(void *p)
{
    GRAVE.p = grow(GRAVE.p, &GRAVE.cap, GRAVE.n + 1, sizeof *GRAVE.p);
    GRAVE.p[GRAVE.n++] = p;
}

static void free_buried(void)
{
    for (int i = 0; i < GRAVE.n; i++) free_block(GRAVE.p[i]);
    GRAVE.n = 0;
}

/* ------------------------------------------------------------------ data transfer */

struct xfer_times {
    double plan_s, transfer_s;
    uint64_t bytes;
    double window_s; /* rma-*: window set-up (src/rma/), not part of transfer_s */
    double prepare_s; /* persistent mode: set-up of prepared transfers, not part of transfer_s */
    int n_prepared, n_reused; /* persistent mode: arrays whose transfer was prepared now / reused */
    int n_shared;             /* ... of which by direct copies from shared blocks (DUCTILE_RMA_MEMORY=shared) */
};

/* Constant-data strategies (DUCTILE_REDIST_CONSTANT), carried in decision.nb / join_header.nb. */
enum { CONST_BLOCKING = 0, CONST_NB = 1, CONST_WD = 2, CONST_THREAD = 3 };
static const char *const const_label[] = {"", "+nb", "+wd", "+thread"};
static const char *const redist_label[] = {"col", "p2p", "rma-lock", "rma-lockall", "rma-fence"};

/* ------------------------------------------------------------------ NB (background) transfer of constant data
 *
 * With DUCTILE_REDIST_CONSTANT=nb, distributed items registered as constant
 * (EMPI_CONSTANT) move with one MPI_Ialltoallv each, started at the resize
 * over a duplicate of the transfer communicator, into new buffers owned by
 * Ductile.  Until the transfer is complete the item keeps its old buffer
 * (old processes: their old block, untouched; spawned processes: the buffer
 * they registered, not yet filled).  Every later control point tests the
 * requests (MPI_Test, no waiting) and agrees on completion over the world
 * (one small MPI_Allreduce per control point, only while a transfer is
 * pending); then every process switches the item to its new buffer at the
 * same control point and frees the old one if Ductile owns it.  A resize
 * decided while a transfer is pending completes it first (bounded wait);
 * processes that leave complete their part in MPI_Finalize, asleep between
 * tests. */

#define NB_WAIT_LIMIT_S 300.0

struct nb_entry {
    char name[REG_NAME_MAX];
    struct redist_pending *p; /* NULL once complete */
    void *dst;                /* my new buffer (NULL: no new block here) */
    int has_new;
};

static struct {
    int active;
    MPI_Comm comm;
    struct nb_entry *e;
    int n, cap;
    int id, start_it;
    uint64_t bytes;
    double t_start;
    struct bg_group *bg; /* WD / Threading (src/rma/xfer.c): all constant items of the resize */
    int col_instead;     /* one-sided method asked, constant data moved by the collective (RMA_BACKGROUND_UNSAFE) */
    int failed;          /* this process's part failed (why) */
    char why[200];
} NB = {.comm = MPI_COMM_NULL};

int ductile_constant_pending(void) { return NB.active; }

/* DUCTILE_TEST_FAIL=STEP (for tests only, docs/malleability.md): make one
 * step of a resize fail on purpose -- "spawn" (rank 0's spawn is refused),
 * "bgtransfer" (the background transfer of constant data reports an error on
 * the world's last rank).  Read once. */
static int test_fail(const char *step)
{
    const char *f = getenv("DUCTILE_TEST_FAIL");
    return f && strcmp(f, step) == 0;
}

/* Test every request of this process: 1 when all are complete, 0 not yet,
 * -1 on an error (the reason in NB.why; the resize then fails, the world keeps
 * its size and data). */
static int nb_test_local(void)
{
    if (NB.failed) return -1;
    int all = 1;
    for (int i = 0; i < NB.n; i++) {
        if (!NB.e[i].p) continue;
        int done = 0;
        if (redist_test(NB.e[i].p, &done) != 0) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of '%s' failed", ductile_rt.rank,
                     NB.e[i].name);
            NB.failed = 1;
            return -1;
        }
        if (done) NB.e[i].p = NULL;
        else all = 0;
    }
    if (NB.bg) {
        int done = 0;
        if (bg_test(NB.bg, &done) != 0) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data failed", ductile_rt.rank);
            NB.failed = 1;
            return -1;
        }
        if (!done) all = 0;
    }
    if (all && ductile_rt.rank == ductile_rt.size - 1 && !M.spawned && test_fail("bgtransfer")) {
        snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data failed (injected: "
                 "DUCTILE_TEST_FAIL=bgtransfer)", ductile_rt.rank);
        NB.failed = 1;
        return -1;
    }
    return all;
}

/* Complete this process's part, bounded; sleeping between tests when nap.
 * 0, or -1 (error or time limit; the reason in NB.why). */
static int nb_wait_local(int nap)
{
    double deadline = ductile_now() + NB_WAIT_LIMIT_S;
    struct timespec ts = {0, (nap ? 20 : 1) * 1000 * 1000};
    int st;
    while ((st = nb_test_local()) == 0) {
        if (ductile_now() > deadline) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data not complete after %.0f s",
                     ductile_rt.rank, NB_WAIT_LIMIT_S);
            NB.failed = 1;
            return -1;
        }
        nanosleep(&ts, NULL);
    }
    return st < 0 ? -1 : 0;
}

/* All requests complete (every process saw it): adopt the new buffers and
 * free the old ones (adopt = 1), or drop the new ones (adopt = 0: the resize
 * did not happen). */
static void nb_finish(int adopt)
{
    for (int i = 0; i < NB.n; i++) {
        struct nb_entry *e = &NB.e[i];
        struct reg_item *it = reg_find(e->name);
        if (!e->has_new) continue;
        if (!it || !adopt) { free(e->dst); continue; } /* deregistered meanwhile, or cancelled */
        if (it->owned && it->addr && it->addr != e->dst) {
            if (reg_is_tracked(it->addr)) reg_untrack_free(it->addr);
            else free(it->addr);
        }
        it->addr = e->dst;
        it->owned = 1;
    }
    if (NB.bg) {
        bg_release(NB.bg); /* windows detached / freed only now, after every process saw completion */
        NB.bg = NULL;
    }
    if (NB.comm != MPI_COMM_NULL) PMPI_Comm_free(&NB.comm);
    free(NB.e);
    NB.e = NULL;
    NB.n = NB.cap = 0;
    NB.active = 0;
}

/* A failed background transfer: forget it without touching its buffers,
 * requests or windows (MPI may still use them). */
static void nb_abandon(void)
{
    free(NB.e);
    NB.e = NULL;
    NB.n = NB.cap = 0;
    NB.bg = NULL;
    NB.comm = MPI_COMM_NULL;
    NB.active = 0;
}

/* The record of a resize whose constant data moved in the background and
 * that switched at the control point of `iteration`. */
static void nb_note(struct report_reconfig *r, int iteration)
{
    r->overlap_it = iteration - NB.start_it;
    r->background_s = ductile_now() - NB.t_start;
    snprintf(r->reason, sizeof r->reason,
             "constant data (%llu bytes) moved in the background: overlapped %d iteration%s at the old size "
             "(switch at the control point of iteration %d, %.4f s after the start)%s",
             (unsigned long long)NB.bytes, iteration - NB.start_it, iteration - NB.start_it == 1 ? "" : "s", iteration,
             r->background_s,
             NB.col_instead ? " by the collective (Open MPI 4: background one-sided transfers are not safe)" : "");
    ductile_log(1, "%s", r->reason);
}

/* A resize whose constant data moves in the background (seed 000, MaM): the
 * sources go on iterating at the old size, the new processes wait inside
 * EMPI_Get_shared, and the world switches at the first control point where
 * every process's part is complete (agreed over the old world).  Until then
 * the decision, the new communicators and the layout live here. */
static struct {
    int active; /* started, not yet switched */
    int expand, bg;
    struct decision d;
    double t_begin;
    struct report_reconfig rec;
    int nitems, warm, ns, nd, nnew;
    void **prep;
    MPI_Comm merged, inter, nw, np, nx; /* expand */
    int *o2c, *n2c;
    char *leaving; /* shrink */
    int standby, my_new, new0;
    char list[RESIZE_LIST_MAX];
    struct redist_layout L;
    struct xfer_times xt; /* the background start */
} PEND;

/* Parents -> spawned processes at the switch (or the cancellation). */
struct go_msg {
    int32_t status; /* 1 switch now, 0 cancelled: leave */
    int32_t iteration, sched_next, next_id;
    int64_t pid; /* the parents' rank 0 (the releaser) */
    char host[64];
};

/* Wait for one request, bounded, progressing the background transfer. */
static int wait_bounded(MPI_Request *rq, double limit_s)
{
    double deadline = ductile_now() + limit_s;
    struct timespec ts = {0, 1000 * 1000};
    for (;;) {
        int flag = 0;
        if (PMPI_Test(rq, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (flag) return 0;
        if (NB.active) (void)nb_test_local();
        if (ductile_now() > deadline) return -1;
        nanosleep(&ts, NULL);
    }
}

static void expand_commit(int iteration);
static void pending_cancel(const char *why);
static void shrink_commit(int iteration);

/* Old processes of a pending expansion: tell the spawned ones to switch
 * (status 1) at `iteration` or to leave (0).  Collective over the merged
 * communicator (the spawned processes wait in pending_wait_go). */
static void pending_go(int status, int iteration)
{
    struct go_msg g = {status, iteration, request_queue_position(&M.q), M.next_id, (int64_t)getpid(), ""};
    gethostname(g.host, sizeof g.host - 1);
    MPI_Request rq;
    if (PMPI_Ibcast(&g, (int)sizeof g, MPI_BYTE, 0, PEND.merged, &rq) != MPI_SUCCESS ||
        wait_bounded(&rq, NB_WAIT_LIMIT_S) != 0) {
        fprintf(stderr, "ductile: error: rank %d: the spawned processes of resize %d did not answer within %.0f s; "
                        "the job cannot continue\n", ductile_rt.rank, PEND.d.id, NB_WAIT_LIMIT_S);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Phases of transfer_items: everything blocking; only the constant
 * distributed items, started in the background with strategy nb; everything
 * but those (at the control point where the background part is complete). */
enum { XF_ALL = 0, XF_BG = 1, XF_REST = 2 };

/* 1 when a resize with constant-data strategy nb moves something in the
 * background: some distributed item is registered constant. */
static int bg_wanted(int nb)
{
    if (nb == CONST_BLOCKING) return 0;
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_DISTRIBUTED && reg_at(i)->d.constant) return 1;
    return 0;
}

/* Move the registered items of `phase` for the layout L.  has_new: processes
 * without an old rank take part (they receive replicated data and scalars).
 * XF_BG: constant distributed items only start moving (strategy nb, see above).
 * Collective over L->comm in registration order. */
static int transfer_items(const struct redist_layout *L, int has_new, int method, int nb, int phase, int id,
                          int iteration, void **prep, int warm, struct xfer_times *t, char *err, size_t errlen)
{
    double t0 = ductile_now();
    memset(t, 0, sizeof *t);
    if (phase != XF_BG) nb = CONST_BLOCKING;
    if (warm && phase != XF_REST) {
        /* open the connections between every pair (old and new processes) with
         * one tiny exchange before the large transfers (DUCTILE_REDIST_PREPARE) */
        char *wb = calloc(2 * (size_t)L->comm_size, 1);
        if (wb) PMPI_Alltoall(wb, 1, MPI_BYTE, wb + L->comm_size, 1, MPI_BYTE, L->comm);
        free(wb);
    }
    int root = L->old_to_comm[0];
    int any_const = 0;
    if (phase == XF_BG) any_const = bg_wanted(nb);
    struct redist_layout LX = *L;
    if (any_const) {
        if (NB.active) { snprintf(err, errlen, "a background transfer is still pending"); return -1; }
        PMPI_Comm_dup(L->comm, &NB.comm);
        PMPI_Comm_set_errhandler(NB.comm, MPI_ERRORS_RETURN);
        t0 = ductile_now(); /* the dup waited for the slowest process: not transfer time */
        LX.comm = NB.comm;
        NB.active = 1;
        NB.failed = 0;
        NB.why[0] = '\0';
        NB.col_instead = 0;
        NB.id = id;
        NB.start_it = iteration;
        NB.bytes = 0;
        NB.t_start = ductile_now();
        /* Wait Drains / Threading, and every background rma-* transfer: one group (src/rma/xfer.c) */
        int rma = method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL;
        if (nb == CONST_WD || nb == CONST_THREAD || rma) {
            int bm = method == REDIST_RMA_LOCK ? BG_METHOD_RMA_LOCK : method == REDIST_RMA_LOCKALL ? BG_METHOD_RMA_LOCKALL
                                                                                                 : BG_METHOD_COL;
            NB.col_instead = rma && RMA_BACKGROUND_UNSAFE;
            if (NB.col_instead) {
                bm = BG_METHOD_COL;
                static int noted;
                if (!noted++ && ductile_rt.rank == 0)
                    fprintf(stderr, "ductile: note: with Open MPI 4 (osc/ucx) background one-sided transfers are not "
                                    "safe (docs/rma.md); constant data moves by the collective (col%s) in the "
                                    "background, the other data by %s\n",
                            const_label[nb], redist_label[method]);
            }
            NB.bg = bg_begin(&LX, bm, nb == CONST_THREAD ? BG_THREAD : BG_WD, redist_rma_create, err, errlen);
            if (!NB.bg) return -1;
        }
    }
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        int bgitem = it->d.kind == REG_DISTRIBUTED && it->d.constant;
        if (phase == XF_BG && !bgitem) continue;
        if (phase == XF_REST && bgitem) continue; /* moved in the background */
        if (it->d.kind == REG_DISTRIBUTED && any_const && it->d.constant) {
            size_t rowb = reg_unit_bytes(it);
            plan_block nbk = {0, 0};
            if (L->my_new >= 0) nbk = plan_block_of(it->d.nrows, L->nd, L->my_new);
            void *dst = NULL;
            if (L->my_new >= 0) {
                size_t nbytes = (size_t)nbk.count * rowb;
                dst = malloc(nbytes ? nbytes : 1);
                if (!dst) {
                    snprintf(err, errlen, "out of memory for '%s' (%zu bytes)", it->d.name, nbytes);
                    return -1;
                }
            }
            NB.e = grow(NB.e, &NB.cap, NB.n + 1, sizeof *NB.e);
            struct nb_entry *e = &NB.e[NB.n++];
            memset(e, 0, sizeof *e);
            snprintf(e->name, sizeof e->name, "%s", it->d.name);
            e->dst = dst;
            e->has_new = L->my_new >= 0;
            uint64_t moved = 0;
            if (NB.bg) {
                if (bg_add(NB.bg, it->d.nrows, rowb, L->my_old >= 0 ? it->addr : NULL, dst, &moved, err, errlen) != 0)
                    return -1;
            } else if (redist_start(&LX, it->d.nrows, rowb, L->my_old >= 0 ? it->addr : NULL, dst, &e->p, &moved, err,
                                    errlen) != 0)
                return -1;
            t->bytes += moved;
            NB.bytes += moved;
        } else if (it->d.kind == REG_DISTRIBUTED) {
            double tp = ductile_now();
            size_t rowb = reg_unit_bytes(it);
            plan_block ob = {0, 0}, nb = {0, 0};
            if (L->my_old >= 0) ob = plan_block_of(it->d.nrows, L->ns, L->my_old);
            if (L->my_new >= 0) nb = plan_block_of(it->d.nrows, L->nd, L->my_new);
            void *src = L->my_old >= 0 ? it->addr : NULL;
            void *dst = NULL;
            /* persistent mode: the same buffers come back at every +P/-P cycle (the old block
             * becomes the item's spare, and the spare of the right layout is the new block) */
            int persist = M.persistent;
            /* DUCTILE_RMA_MEMORY=shared: every process's new block from the shared block (comm, nd, i),
             * created by the first such transfer (collective) and the same memory at every later one */
            int shared = 0;
            if (persist && M.rma_shared &&
                (method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL || method == REDIST_RMA_FENCE)) {
                int applies = 0;
                double ts = ductile_now();
                void *seg = persist_shared_block(L->comm, L->nd, i, L->my_new >= 0 ? (size_t)nb.count * rowb : 0,
                                                 &applies, err, errlen);
                t->prepare_s += ductile_now() - ts; /* set-up, not planning */
                tp += ductile_now() - ts;
                if (applies && !seg && L->my_new >= 0 && nb.count) return -1;
                if (applies) {
                    shared = 1;
                    dst = L->my_new >= 0 ? seg : NULL;
                }
            }
            if (L->my_new >= 0 && !shared) {
                if (L->my_old < 0) dst = it->addr; /* a spawned (or standby) process receives into its own buffer */
                else if (persist && it->spare && it->spare_size == L->nd) {
                    dst = it->spare;
                    it->spare = NULL;
                } else if (!persist && ob.count == nb.count && ob.displ == nb.displ) dst = it->addr;
                else if (prep && prep[i]) {
                    dst = prep[i]; /* allocated and touched during the spawn */
                    prep[i] = NULL;
                } else {
                    size_t nbytes = (size_t)nb.count * rowb;
                    dst = malloc(nbytes ? nbytes : 1);
                    if (!dst) {
                        snprintf(err, errlen, "out of memory for '%s' (%lld bytes)", it->d.name,
                                 (long long)nb.count * (long long)rowb);
                        return -1;
                    }
                }
                if (!dst && nb.count) {
                    snprintf(err, errlen, "'%s' has no buffer on a spawned process", it->d.name);
                    return -1;
                }
            }
            t->plan_s += ductile_now() - tp;
            uint64_t moved = 0;
            if (persist) {
                struct persist_outcome o;
                if (persist_move(L, method, i, it->d.nrows, rowb, src, dst, 1, &o, err, errlen) != 0) return -1;
                moved = o.moved;
                t->prepare_s += o.setup_s;
                if (o.reused) t->n_reused++;
                else t->n_prepared++;
                t->n_shared += o.shared;
            } else if (redist_move(L, method, it->d.nrows, rowb, src, dst, &moved, err, errlen) != 0) {
                return -1;
            }
            t->bytes += moved;
            if (L->my_new >= 0 && dst != it->addr) {
                if (persist_shared_owner(it->addr, NULL) != MPI_COMM_NULL) {
                    /* a shared block: freed with its window */
                } else if (it->owned && it->addr) {
                    if (persist && L->my_old >= 0 && !shared) {
                        reg_drop_spare(it); /* at most one spare per item */
                        it->spare = it->addr;
                        it->spare_size = L->ns;
                    } else if (DEFER_RMA_FREE && !persist && !redist_rma_create &&
                               (method == REDIST_RMA_LOCK || method == REDIST_RMA_LOCKALL)) {
                        bury(it->addr); /* freed at the next control point (see DEFER_RMA_FREE) */
                    } else {
                        free_block(it->addr);
                    }
                }
                it->addr = dst;
                it->owned = !shared; /* shared blocks are never free()d */
            }
        } else if ((it->d.kind == REG_REPLICATED || it->d.kind == REG_SCALAR) && has_new) {
            int64_t bytes = (int64_t)reg_unit_bytes(it);
            for (int64_t o = 0; o < bytes; o += BCAST_CHUNK) {
                int len = (int)(bytes - o < BCAST_CHUNK ? bytes - o : BCAST_CHUNK);
                int rc = PMPI_Bcast((char *)it->addr + o, len, MPI_BYTE, root, L->comm);
                if (rc != MPI_SUCCESS) {
                    char m[256];
                    ductile_mpi_error_text(rc, m, sizeof m);
                    snprintf(err, errlen, "broadcast of '%s' failed: %s", it->d.name, m);
                    return -1;
                }
            }
            int me = -1;
            PMPI_Comm_rank(L->comm, &me);
            if (me == root) t->bytes += (uint64_t)bytes * (uint64_t)(L->comm_size - L->ns);
        }
    }
    if (NB.bg && any_const && bg_launch(NB.bg, err, errlen) != 0) return -1;
    if (any_const) {
        unsigned long long b = NB.bytes;
        PMPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, L->comm);
        NB.bytes = b; /* all processes' share, for the record */
    }
    t->window_s = redist_take_setup_s() + (any_const ? bg_setup_s(NB.bg) : 0);
    t->transfer_s = ductile_now() - t0 - t->plan_s - t->window_s - t->prepare_s;
    return 0;
}

/* Max of the times, sum of the bytes, at `root` of comm. */
/* A record's total: rank 0's elapsed time, or the sum of its phases when that
 * is longer -- the phases are maxima over ranks (reduce_times), and the
 * slowest rank's transfer may outlast rank 0's view of the whole resize. */
static double record_total(const struct report_reconfig *r, double elapsed_rank0)
{
    double phases = r->spawn_s + r->merge_s + r->plan_s + r->transfer_s + r->window_s + r->prepare_s;
    return phases > elapsed_rank0 ? phases : elapsed_rank0;
}

static void reduce_times(struct xfer_times *t, int root, MPI_Comm comm)
{
    double in[4] = {t->plan_s, t->transfer_s, t->window_s, t->prepare_s}, out[4] = {0, 0, 0, 0};
    unsigned long long b = t->bytes, bsum = 0;
    int n[3] = {t->n_prepared, t->n_reused, t->n_shared}, nmax[3] = {0, 0, 0};
    PMPI_Reduce(in, out, 4, MPI_DOUBLE, MPI_MAX, root, comm);
    PMPI_Reduce(&b, &bsum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, root, comm);
    PMPI_Reduce(n, nmax, 3, MPI_INT, MPI_MAX, root, comm);
    int me = -1;
    PMPI_Comm_rank(comm, &me);
    if (me == root) {
        t->plan_s = out[0];
        t->transfer_s = out[1];
        t->window_s = out[2];
        t->prepare_s = out[3];
        t->bytes = bsum;
        t->n_prepared = nmax[0];
        t->n_reused = nmax[1];
        t->n_shared = nmax[2];
    }
}

/* A record's times from the reduced transfer times (the world's new rank 0). */
static void note_transfer(struct report_reconfig *r, const struct xfer_times *xt)
{
    r->plan_s = xt->plan_s;
    r->transfer_s = xt->transfer_s;
    r->window_s = xt->window_s;
    r->prepare_s = xt->prepare_s;
    r->bytes_moved = xt->bytes;
    r->shared_memory = xt->n_shared > 0;
    if (M.persistent)
        snprintf(r->persistent, sizeof r->persistent, "%s",
                 xt->n_prepared == 0 && xt->n_reused > 0 ? "reused" : xt->n_prepared + xt->n_reused ? "prepared" : "");
}

static void fatal_transfer(const char *what, MPI_Comm comm)
{
    fprintf(stderr, "ductile: error: rank %d: redistribution failed: %s; aborting (the data is inconsistent)\n",
            ductile_rt.rank, what);
    fflush(stderr);
    PMPI_Abort(comm, 3);
}

/* History of reconfigurations and the departed processes' counters: old rank 0
 * hands them to the new rank 0. */
static void send_history(int to, MPI_Comm comm)
{
    int n[2] = {M.nhist, M.ndep};
    PMPI_Send(n, 2, MPI_INT, to, TAG_HISTORY, comm);
    if (n[0]) PMPI_Send(M.hist, n[0] * (int)sizeof *M.hist, MPI_BYTE, to, TAG_HISTORY, comm);
    for (int i = 0; i < n[1]; i++) /* one message each: a departed entry is about 20 KB */
        PMPI_Send(&M.dep[i], (int)sizeof *M.dep, MPI_BYTE, to, TAG_HISTORY, comm);
}

static void recv_history(int from, MPI_Comm comm)
{
    int n[2] = {0, 0};
    PMPI_Recv(n, 2, MPI_INT, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    M.hist = grow(M.hist, &M.caphist, n[0], sizeof *M.hist);
    if (n[0]) PMPI_Recv(M.hist, n[0] * (int)sizeof *M.hist, MPI_BYTE, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    M.nhist = n[0];
    for (int i = 0; i < n[0]; i++)
        if (M.hist[i].id >= M.next_id) M.next_id = M.hist[i].id + 1;
    M.dep = grow(M.dep, &M.capdep, n[1], sizeof *M.dep);
    for (int i = 0; i < n[1]; i++)
        PMPI_Recv(&M.dep[i], (int)sizeof *M.dep, MPI_BYTE, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    M.ndep = n[1];
}

/* The leaving processes (leaving[r] set, or all when leaving is NULL) send
 * their counters in the report's form to `root`, which appends them to its
 * list of departed processes.  Collective over comm (the old world's private
 * communicator, so that ranks are former ranks); the staying ranks contribute
 * nothing. */
static void gather_departed(MPI_Comm comm, int root, const char *leaving, int iteration)
{
    int me = 0, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    int leaves = !leaving || leaving[me];
    struct report_departed *mine = NULL;
    if (leaves) {
        mine = calloc(1, sizeof *mine);
        if (!mine) abort();
        ductile_report_snapshot(me, ductile_ticks(), &mine->who, mine->fns);
        mine->left_at_iteration = iteration;
    }
    int *counts = NULL, *displs = NULL, k = 0;
    if (me == root) {
        counts = calloc((size_t)n, sizeof *counts);
        displs = calloc((size_t)n, sizeof *displs);
        if (!counts || !displs) abort();
        for (int r = 0; r < n; r++) {
            int l = !leaving || leaving[r];
            counts[r] = l ? (int)sizeof *mine : 0;
            displs[r] = k * (int)sizeof *mine;
            k += l;
        }
        M.dep = grow(M.dep, &M.capdep, M.ndep + k, sizeof *M.dep);
    }
    char dummy = 0;
    PMPI_Gatherv(mine ? (void *)mine : (void *)&dummy, leaves ? (int)sizeof *mine : 0, MPI_BYTE,
                 me == root ? (void *)(M.dep + M.ndep) : NULL, counts, displs, MPI_BYTE, root, comm);
    if (me == root) M.ndep += k;
    free(mine);
    free(counts);
    free(displs);
}

static void fill_record(struct report_reconfig *r, int id, int it, int from, int to, int method, int redist, int nb)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->iteration = it;
    r->from = from;
    r->to = to;
    snprintf(r->kind, sizeof r->kind, "%s", to > from ? "expand" : "shrink");
    snprintf(r->method, sizeof r->method, "%s", method == METHOD_BASELINE ? "baseline" : "merge");
    snprintf(r->redist, sizeof r->redist, "%s%s", redist_label[redist >= 0 && redist < 5 ? redist : 0],
             const_label[nb >= 0 && nb < 4 ? nb : 0]);
    r->overlap_it = -1;
    snprintf(r->choice, sizeof r->choice, "setting");
    if (M.thread_refused)
        snprintf(r->reason, sizeof r->reason, "DUCTILE_REDIST_CONSTANT=thread refused: MPI_THREAD_MULTIPLE not "
                 "provided (thread level %d); constant data moved blocking", ductile_rt.thread_level);
    snprintf(r->status, sizeof r->status, "ok");
    r->start_s = ductile_elapsed();
}

static void record_problem(struct report_reconfig *r, const char *status, const char *reason)
{
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    fprintf(stderr, "ductile: resize %d -> %d at iteration %d %s: %s; continuing with %d process%s\n", r->from,
            r->to, r->iteration, status, reason, r->from, r->from == 1 ? "" : "es");
    fflush(stderr);
    add_record(r);
}

/* ------------------------------------------------------------------ spawning */

/* The program to start and its arguments (argv[1..] of this process). */
static int spawn_command(char *cmd, size_t len, char ***args_out)
{
    const char *sc = ductile_rt.settings.spawn_command;
    if (sc && *sc) {
        snprintf(cmd, len, "%s", sc);
    } else {
        ssize_t n = readlink("/proc/self/exe", cmd, len - 1);
        if (n <= 0) {
            if (!ductile_rt.cmdline) return -1;
            snprintf(cmd, len, "%s", ductile_rt.cmdline);
        } else {
            cmd[n] = '\0';
        }
    }
    int nargs = 0;
    for (int off = 0; ductile_rt.cmdline && off < ductile_rt.cmdline_len;) {
        nargs++;
        off += (int)strlen(ductile_rt.cmdline + off) + 1;
    }
    char **args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *args);
    if (!args) return -1;
    int k = 0, i = 0;
    for (int off = 0; ductile_rt.cmdline && off < ductile_rt.cmdline_len; i++) {
        if (i > 0) args[k++] = ductile_rt.cmdline + off;
        off += (int)strlen(ductile_rt.cmdline + off) + 1;
    }
    args[k] = NULL;
    *args_out = args;
    return 0;
}

static MPI_Info spawn_info(const char *hosts)
{
    MPI_Info info = MPI_INFO_NULL;
    int need = (hosts && *hosts);
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    need = 1;
#endif
    if (!need) return MPI_INFO_NULL;
    PMPI_Info_create(&info);
    if (hosts && *hosts) {
        char h[RESIZE_LIST_MAX];
        snprintf(h, sizeof h, "%s", hosts);
        for (char *c = h; *c; c++)
            if (*c == ';') *c = ',';
        PMPI_Info_set(info, "host", h);
#ifdef MPICH_VERSION
        PMPI_Info_set(info, "hosts", h);
#endif
    }
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    PMPI_Info_set(info, "map-by", ":OVERSUBSCRIBE");
#endif
    return info;
}

/* Checks before MPI_Comm_spawn, on rank 0.  A spawn that fails is not
 * always harmless (with Open MPI 4.1 mpiexec then never exits, and a later
 * spawn kills the job), so what can be known to fail is refused here. */
static int precheck_spawn(const char *cmd, const char *hosts, int ns, int nnew, char *why, size_t len)
{
    (void)ns;
    (void)nnew;
    struct stat st;
    if (stat(cmd, &st) != 0) {
        snprintf(why, len, "executable '%.300s' is not runnable: %s", cmd, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(cmd, X_OK) != 0) {
        snprintf(why, len, "executable '%.300s' is not runnable: %s", cmd,
                 !S_ISREG(st.st_mode) ? "not a regular file" : strerror(errno));
        return -1;
    }
    FILE *f = fopen(cmd, "rb");
    unsigned char magic[4] = {0, 0, 0, 0};
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    if (!(got == 4 && memcmp(magic, "\x7f" "ELF", 4) == 0) && !(got >= 2 && magic[0] == '#' && magic[1] == '!')) {
        snprintf(why, len, "executable '%.300s' is not runnable: neither an ELF binary nor a script", cmd);
        return -1;
    }
    for (const char *p = hosts ? hosts : ""; *p;) {
        const char *e = p;
        while (*e && *e != ';' && *e != ',') e++;
        char h[256];
        snprintf(h, sizeof h, "%.*s", (int)(e - p), p);
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        int rc = getaddrinfo(h, NULL, &hints, &res);
        if (rc != 0) {
            snprintf(why, len, "unknown host '%s': %s", h, gai_strerror(rc));
            return -1;
        }
        freeaddrinfo(res);
        p = *e ? e + 1 : e;
    }
#ifdef OMPI_MAJOR_VERSION
    /* Open MPI: without --oversubscribe the job may not exceed its slots */
    const char *ov = getenv("OMPI_MCA_rmaps_base_oversubscribe");
    if (!(ov && strcmp(ov, "1") == 0) && !(hosts && *hosts)) {
        int *usize = NULL, flag = 0;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        int live = ns + M.zombies;
        if (flag && usize && *usize > 0 && live + nnew > *usize) {
            snprintf(why, len, "more processes than slots: %d running + %d new > %d slots (mpiexec --oversubscribe allows it)",
                     live, nnew, *usize);
            return -1;
        }
    }
#endif
    return 0;
}

/* New buffers of this (old) process's new blocks, touched, for the
 * distributed items whose block changes (NULL entries elsewhere). */
static void **prepare_buffers(int ns, int nd, int me, int nb)
{
    void **prep = calloc((size_t)reg_count(), sizeof *prep);
    for (int i = 0; prep && i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED || (nb && it->d.constant)) continue;
        plan_block ob = plan_block_of(it->d.nrows, ns, me), nbk = plan_block_of(it->d.nrows, nd, me);
        if (ob.count == nbk.count && ob.displ == nbk.displ) continue;
        size_t bytes = (size_t)nbk.count * reg_unit_bytes(it);
        prep[i] = malloc(bytes ? bytes : 1);
        if (prep[i]) memset(prep[i], 0, bytes);
    }
    return prep;
}

static void free_prepared(void **prep)
{
    for (int i = 0; prep && i < reg_count(); i++) free(prep[i]);
    free(prep);
}

/* ------------------------------------------------------------------ standby pool (DUCTILE_PERSISTENT) */

struct standby_msg {
    int32_t op; /* STANDBY_WAKE or STANDBY_RELEASE */
    int32_t left_at;
    struct decision d;
};

/* Every member of the kept world W: W becomes the world again, and the
 * registered data moves from its first nsmall ranks to all nbig over W's
 * transfer communicator, reusing the transfers prepared for this pair. */
static void pool_join(const struct decision *d, struct xfer_times *xt)
{
    int me = -1, nbig = SB.nbig, nsmall = SB.nsmall;
    PMPI_Comm_rank(SB.priv, &me);
    memset(xt, 0, sizeof *xt);
    if (reg_count() > 0) {
        int *ident = malloc((size_t)nbig * sizeof(int));
        if (!ident) abort();
        for (int i = 0; i < nbig; i++) ident[i] = i;
        struct redist_layout L = {SB.xfer, nbig, nsmall, nbig, me < nsmall ? me : -1, me, ident, ident};
        char err[512];
        if (transfer_items(&L, 1, d->redist, CONST_BLOCKING, XF_ALL, d->id, d->iteration, NULL, 0, xt, err, sizeof err) != 0)
            fatal_transfer(err, SB.priv);
        reduce_times(xt, 0, SB.priv);
        rma_win_transfer_done(1); /* W is the world again: its window (if any) serves it */
        free(ident);
    }
    MPI_Comm oldp = ductile_rt.private_comm;
    set_world(SB.world, SB.priv); /* frees the small world's communicator (not W's) */
    if (oldp != SB.priv) PMPI_Comm_free(&oldp);
    M.xfer = SB.xfer;
    M.zombies -= nbig - nsmall;
    M.iteration = d->iteration;
    SB.active = 0; /* used up; the next eligible shrink of W forms the pool again */
    SB.waiting = 0;
}

/* Every member of W: the standby processes become ordinary removed
 * processes (their counters go to W's rank 0, they park in MPI_Finalize
 * until W's rank 0 releases them), and W's communicators and prepared
 * transfers are freed. */
static void pool_dissolve(int left_at)
{
    int me = -1, nbig = SB.nbig, nsmall = SB.nsmall;
    PMPI_Comm_rank(SB.priv, &me);
    char *leaving = calloc((size_t)nbig, 1);
    if (!leaving) abort();
    for (int r = nsmall; r < nbig; r++) leaving[r] = 1;
    gather_departed(SB.priv, 0, leaving, left_at);
    free(leaving);
    release_transfers(SB.xfer);
    PMPI_Comm_free(&SB.xfer);
    rma_win_finalize(); /* W's one-sided window, if the pool kept one (collective over W) */
    SB.active = 0;
    if (me >= nsmall) {
        SB.waiting = 0;
        leave_world(); /* frees W's world communicator */
        M.park_comm = SB.priv;
        M.park_releaser = 0;
    } else {
        PMPI_Comm_free(&SB.world);
        if (me == 0) {
            int *lv = malloc((size_t)(nbig - nsmall) * sizeof(int));
            if (!lv) abort();
            for (int r = nsmall; r < nbig; r++) lv[r - nsmall] = r;
            add_duty(SB.priv, lv, nbig - nsmall);
            free(lv);
        } else {
            PMPI_Comm_free(&SB.priv);
        }
    }
    SB.world = SB.priv = SB.xfer = MPI_COMM_NULL;
}


/* The small world (all its members): tell the standby processes what
 * happens, then take part. */
static void pool_send(int op, const struct decision *d)
{
    if (ductile_rt.rank != 0) return;
    struct standby_msg m;
    memset(&m, 0, sizeof m);
    m.op = op;
    m.left_at = SB.left_at;
    if (d) m.d = *d;
    for (int r = SB.nsmall; r < SB.nbig; r++)
        PMPI_Send(&m, (int)sizeof m, MPI_BYTE, r, TAG_STANDBY, SB.priv);
}

static void pool_release(void)
{
    pool_send(STANDBY_RELEASE, NULL);
    pool_dissolve(SB.left_at);
    ductile_log(1, "standby processes released");
}

/* Expansion back to W by waking the standby processes (the small world's side). */
static void pool_wake(const struct decision *d, double t_begin)
{
    int ns = ductile_rt.size, nd = d->nd;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);
    double tw = ductile_now();
    pool_send(STANDBY_WAKE, d);
    drop_world_xfer(); /* the small world's own transfers (collective over it) */
    PMPI_Barrier(SB.priv); /* with the standby processes: the wake-up */
    double wake_s = ductile_now() - tw;
    struct xfer_times xt;
    pool_join(d, &xt);
    if (ductile_rt.rank == 0) {
        rec.merge_s = wake_s;
        note_transfer(&rec, &xt);
        rec.standby = nd - ns;
        rec.total_s = record_total(&rec, ductile_now() - t_begin);
        add_record(&rec);
        ductile_log(1, "expanded %d -> %d in %.3f s by taking back %d standby process%s (transfer %.4f, %s)", ns, nd,
                    rec.total_s, nd - ns, nd - ns == 1 ? "" : "es", xt.transfer_s, rec.persistent);
    }
}

/* A standby process, inside the control point of the shrink that removed
 * it: wait (asleep between probes) for W's rank 0 to take it back or to
 * release it.  Bounded by DUCTILE_LEAVE_TIMEOUT. */
static void standby_wait(void)
{
    double deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (;;) {
        int flag = 0;
        if (PMPI_Iprobe(0, TAG_STANDBY, SB.priv, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = -1;
        if (flag == 1) {
            struct standby_msg m;
            PMPI_Recv(&m, (int)sizeof m, MPI_BYTE, 0, TAG_STANDBY, SB.priv, MPI_STATUS_IGNORE);
            if (m.op == STANDBY_WAKE) {
                struct xfer_times xt;
                request_queue_set_position(&M.q, m.d.sched_next);
                if (m.d.id >= M.next_id) M.next_id = m.d.id + 1;
                PMPI_Barrier(SB.priv); /* the wake-up (pool_wake) */
                pool_join(&m.d, &xt);
                ductile_log(1, "taken back from standby as rank %d of %d at iteration %d", ductile_rt.rank,
                            ductile_rt.size, m.d.iteration);
            } else {
                pool_dissolve(m.left_at);
            }
            return;
        }
        if (flag < 0 || ductile_now() > deadline) {
            fprintf(stderr, "ductile: warning: standby process (pid %ld) %s; leaving\n", (long)getpid(),
                    flag < 0 ? "lost its world" : "was not taken back within DUCTILE_LEAVE_TIMEOUT");
            SB.active = SB.waiting = 0;
            leave_world();
            return;
        }
        nanosleep(&nap, NULL);
    }
}

/* Expansion (Merge: ND-NS new processes; Baseline: ND new processes, the old
 * ones leave).  Collective over the old world. */
static void expand(const struct decision *d, const char *hosts, double t_begin, double begin_epoch)
{
    if (d->pool) {
        pool_wake(d, t_begin);
        return;
    }
    MPI_Comm P = ductile_rt.private_comm;
    int ns = ductile_rt.size, nd = d->nd, me = ductile_rt.rank;
    int baseline = d->method == METHOD_BASELINE;
    int nnew = baseline ? nd : nd - ns;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);

    char cmd[4096], why[512] = "";
    char **args = NULL;
    int ok = spawn_command(cmd, sizeof cmd, &args) == 0;
    if (!ok) snprintf(why, sizeof why, "cannot determine the program to spawn");
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, P);
    if (!ok) {
        free(args);
        if (me == 0) record_problem(&rec, "failed", why[0] ? why : "cannot determine the program to spawn");
        return;
    }
    /* Rank 0 spawns alone (over MPI_COMM_SELF): with Open MPI, a failed
     * collective spawn leaves the non-root ranks waiting forever.  The other
     * parents learn the outcome from a broadcast and join through
     * MPI_Intercomm_create. */
    MPI_Comm inter0 = MPI_COMM_NULL;
    double spawn_s = 0;
    /* DUCTILE_REDIST_PREPARE: allocate and touch the new blocks now, while
     * rank 0 spawns (the others would only wait), instead of page-faulting
     * them inside the transfer */
    void **prep = NULL;
    int prepare = !baseline && ductile_rt.settings.redist_prepare && reg_count() > 0;
    if (prepare) prep = prepare_buffers(ns, nd, me, d->nb);
    if (me == 0 && test_fail("spawn")) {
        ok = 0;
        snprintf(why, sizeof why, "MPI_Comm_spawn refused (injected: DUCTILE_TEST_FAIL=spawn)");
    } else if (me == 0 && precheck_spawn(cmd, hosts, ns, nnew, why, sizeof why) != 0) {
        ok = 0;
    } else if (me == 0) {
        MPI_Info info = spawn_info(hosts);
        int *errcodes = calloc((size_t)nnew, sizeof *errcodes);
        double ts = ductile_now();
        ductile_log(1, "spawning %d process%s of %s", nnew, nnew == 1 ? "" : "es", cmd);
        int rc = ductile_spawn_marked(cmd, args, nnew, info, M.self, &inter0, errcodes); /* marker hook (src/wrap/worldid.c) */
        spawn_s = ductile_now() - ts;
        if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
        if (rc != MPI_SUCCESS) inter0 = MPI_COMM_NULL; /* not a usable handle after a failed spawn */
        ok = rc == MPI_SUCCESS && inter0 != MPI_COMM_NULL;
        if (rc != MPI_SUCCESS) {
            char m[400];
            ductile_mpi_error_text(rc, m, sizeof m);
            snprintf(why, sizeof why, "MPI_Comm_spawn of %d process%s of %.200s failed: %.250s", nnew,
                     nnew == 1 ? "" : "es", cmd, m);
        } else {
            for (int i = 0; i < nnew && errcodes; i++)
                if (errcodes[i] != MPI_SUCCESS) {
                    char m[400];
                    ductile_mpi_error_text(errcodes[i], m, sizeof m);
                    snprintf(why, sizeof why, "MPI_Comm_spawn: process %d of %d did not start: %.300s", i, nnew, m);
                    ok = 0;
                    break;
                }
        }
        free(errcodes);
    }
    free(args);
    int okall = ok;
    PMPI_Bcast(&okall, 1, MPI_INT, 0, P);
    struct join_header h;
    memset(&h, 0, sizeof h);
    h.status = okall;
    h.method = d->method;
    h.redist = d->redist;
    h.nb = d->nb;
    h.ns = ns;
    h.nd = nd;
    h.nnew = nnew;
    h.iteration = d->iteration;
    h.sched_next = d->sched_next;
    h.nitems = reg_count();
    h.id = d->id;
    h.nhist = M.nhist;
    h.zombies = M.zombies;
    h.prepare = prepare;
    h.persistent = M.persistent;
    h.job_pid = ductile_rt.job_pid;
    h.spawn_s = spawn_s;
    h.begin_epoch = begin_epoch;
    h.start_s = rec.start_s;
    snprintf(h.job_id, sizeof h.job_id, "%s", ductile_rt.job_id);
    if (!okall) {
        free_prepared(prep);
        if (me == 0) {
            if (inter0 != MPI_COMM_NULL) {
                /* the children are running: tell them to leave */
                PMPI_Comm_set_errhandler(inter0, MPI_ERRORS_RETURN);
                PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, MPI_ROOT, inter0);
                PMPI_Comm_disconnect(&inter0);
            }
            rec.spawn_s = spawn_s;
            rec.total_s = ductile_now() - t_begin;
            record_problem(&rec, "failed", why);
        }
        return;
    }
    double tm = ductile_now();
    MPI_Comm m0 = MPI_COMM_NULL;
    if (me == 0) {
        PMPI_Comm_set_errhandler(inter0, MPI_ERRORS_RETURN);
        PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, MPI_ROOT, inter0);
        if (h.nitems) {
            struct reg_desc *ds = calloc((size_t)h.nitems, sizeof *ds);
            if (!ds) abort();
            for (int i = 0; i < h.nitems; i++) ds[i] = reg_at(i)->d;
            PMPI_Bcast(ds, h.nitems * (int)sizeof *ds, MPI_BYTE, MPI_ROOT, inter0);
            free(ds);
        }
        PMPI_Intercomm_merge(inter0, 0, &m0); /* rank 0 here, the children 1.. */
        add_inter(inter0);
    }
    MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
    PMPI_Intercomm_create(P, 0, me == 0 ? m0 : MPI_COMM_NULL, 1, TAG_ICREATE, &inter);
    PMPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    PMPI_Intercomm_merge(inter, 0, &merged);
    PMPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    if (m0 != MPI_COMM_NULL) PMPI_Comm_free(&m0);
    MPI_Comm nw = MPI_COMM_NULL, np = MPI_COMM_NULL, nx = MPI_COMM_NULL;
    if (!baseline) new_world_from(merged, &nw, &np);
    if (!baseline && M.persistent) { /* the new world's transfer communicator: its prepared transfers live there */
        PMPI_Comm_dup(np, &nx);
        PMPI_Comm_set_errhandler(nx, MPI_ERRORS_RETURN);
    }
    double merge_s = ductile_now() - tm;

    int *o2c = malloc((size_t)ns * sizeof(int)), *n2c = malloc((size_t)nd * sizeof(int));
    if (!o2c || !n2c) abort();
    for (int i = 0; i < ns; i++) o2c[i] = i;
    for (int j = 0; j < nd; j++) n2c[j] = baseline ? ns + j : j;
    memset(&PEND, 0, sizeof PEND);
    PEND.expand = 1;
    PEND.d = *d;
    PEND.t_begin = t_begin;
    PEND.rec = rec;
    PEND.rec.spawn_s = spawn_s;
    PEND.rec.merge_s = merge_s;
    PEND.nitems = h.nitems;
    PEND.warm = h.prepare;
    PEND.prep = prep;
    PEND.merged = merged;
    PEND.inter = inter;
    PEND.nw = nw;
    PEND.np = np;
    PEND.nx = nx;
    PEND.o2c = o2c;
    PEND.n2c = n2c;
    PEND.ns = ns;
    PEND.nd = nd;
    PEND.nnew = nnew;
    PEND.L = (struct redist_layout){nx != MPI_COMM_NULL ? nx : merged, ns + nnew, ns, nd, me, baseline ? -1 : me,
                                    o2c, n2c};
    if (h.nitems && bg_wanted(d->nb)) {
        /* constant data starts moving; the world stays at the old size until it has arrived */
        char err[512];
        if (transfer_items(&PEND.L, 1, d->redist, d->nb, XF_BG, d->id, d->iteration, NULL, h.prepare, &PEND.xt, err,
                           sizeof err) != 0)
            fatal_transfer(err, merged);
        PEND.bg = 1;
        PEND.active = 1;
        return;
    }
    expand_commit(d->iteration);
}

/* The rest of an expansion (old processes), at the control point where the
 * background part (if any) is complete everywhere: variable data, world switch. */
static void expand_commit(int iteration)
{
    const struct decision *d = &PEND.d;
    int ns = PEND.ns, nd = PEND.nd, me = ductile_rt.rank, baseline = d->method == METHOD_BASELINE;
    MPI_Comm merged = PEND.merged;
    struct report_reconfig rec = PEND.rec;
    if (PEND.bg) {
        pending_go(1, iteration);
        if (nb_wait_local(0) != 0) fatal_transfer(NB.why, merged); /* every process reported completion */
        nb_finish(1);
        if (me == 0) nb_note(&rec, iteration);
    }
    if (baseline) gather_departed(ductile_rt.private_comm, 0, NULL, iteration); /* all old processes leave */
    if (baseline && me == 0) send_history(ns, merged);
    struct xfer_times xt;
    memset(&xt, 0, sizeof xt);
    if (PEND.nitems) {
        char err[512];
        if (transfer_items(&PEND.L, 1, d->redist, CONST_BLOCKING, PEND.bg ? XF_REST : XF_ALL, d->id, iteration,
                           PEND.prep, PEND.warm, &xt, err, sizeof err) != 0)
            fatal_transfer(err, merged);
        xt.transfer_s += PEND.xt.transfer_s; /* the background start */
        xt.window_s += PEND.xt.window_s;
        xt.bytes += PEND.xt.bytes;
        reduce_times(&xt, PEND.n2c[0], merged);
        rma_win_transfer_done(!baseline); /* Merge: the window serves the new world too (src/rma/window.c) */
    }
    free(PEND.o2c);
    free(PEND.n2c);
    free_prepared(PEND.prep);
    PEND.prep = NULL;
    PEND.active = 0;
    add_inter(PEND.inter);
    if (baseline) {
        /* all old processes leave; the new rank 0 (merged rank ns) releases them at its MPI_Finalize */
        M.zombies += ns;
        MPI_Comm oldp = ductile_rt.private_comm;
        leave_world();
        PMPI_Comm_free(&oldp);
        M.park_comm = merged;
        M.park_releaser = ns;
        if (me == 0) ductile_log(1, "baseline resize %d -> %d: old processes leave", ns, nd);
    } else {
        MPI_Comm oldp = ductile_rt.private_comm;
        drop_world_xfer(); /* the old world's prepared transfers (collective over it) */
        M.xfer = PEND.nx;
        set_world(PEND.nw, PEND.np);
        PMPI_Comm_free(&oldp);
        PMPI_Comm_free(&merged);
        if (ductile_rt.rank == 0) {
            note_transfer(&rec, &xt);
            rec.total_s = record_total(&rec, ductile_now() - PEND.t_begin);
            add_record(&rec);
            ductile_log(1, "expanded %d -> %d in %.3f s (spawn %.3f, merge %.3f, transfer %.4f)", ns, nd,
                        rec.total_s, rec.spawn_s, rec.merge_s, xt.transfer_s);
        }
    }
}

/* Shrink by the Merge method: the leaving ranks' data moves first, then the
 * staying ranks form the new world.  Collective over the old world. */
static void shrink(const struct decision *d, const char *list, double t_begin)
{
    MPI_Comm P = ductile_rt.private_comm;
    int ns = ductile_rt.size, nd = d->nd, me = ductile_rt.rank;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);
    char *leaving = calloc((size_t)ns, 1);
    int *n2c = malloc((size_t)nd * sizeof(int)), *o2c = malloc((size_t)ns * sizeof(int));
    if (!leaving || !n2c || !o2c) abort();
    if (list && *list) {
        int ranks[RESIZE_LIST_MAX];
        char err[256];
        int n = schedule_parse_ranks(list, ranks, RESIZE_LIST_MAX, err, sizeof err);
        for (int i = 0; i < n; i++) leaving[ranks[i]] = 1;
    } else {
        for (int r = nd; r < ns; r++) leaving[r] = 1;
    }
    int j = 0, my_new = -1;
    for (int r = 0; r < ns; r++) {
        o2c[r] = r;
        if (!leaving[r]) {
            if (r == me) my_new = j;
            n2c[j++] = r;
        }
    }
    int new0 = n2c[0];
    /* DUCTILE_PERSISTENT: the highest ranks leave and the program reads the
     * iteration after control points: they stand by (the standby pool) */
    int standby = 0;
    if (M.persistent && d->method == METHOD_MERGE) {
        int top = 1, api = M.iter_api;
        for (int r = 0; r < ns; r++)
            if (!!leaving[r] != (r >= nd)) top = 0;
        PMPI_Allreduce(MPI_IN_PLACE, &api, 1, MPI_INT, MPI_MIN, P);
        standby = top && api;
        if (!standby && me == 0)
            snprintf(rec.reason, sizeof rec.reason, "DUCTILE_PERSISTENT: the removed processes leave instead of "
                     "standing by (%s)", !api ? "the program does not call EMPI_Get_iteration()"
                                              : "they are not the highest ranks");
    }
    memset(&PEND, 0, sizeof PEND);
    PEND.d = *d;
    PEND.t_begin = t_begin;
    PEND.rec = rec;
    PEND.ns = ns;
    PEND.nd = nd;
    PEND.o2c = o2c;
    PEND.n2c = n2c;
    PEND.leaving = leaving;
    PEND.standby = standby;
    PEND.my_new = my_new;
    PEND.new0 = new0;
    PEND.L = (struct redist_layout){M.persistent ? world_xfer() : P, ns, ns, nd, me, my_new, o2c, n2c};
    if (bg_wanted(d->nb)) {
        char err[512];
        if (transfer_items(&PEND.L, 0, d->redist, d->nb, XF_BG, d->id, d->iteration, NULL, 0, &PEND.xt, err,
                           sizeof err) != 0)
            fatal_transfer(err, P);
        PEND.bg = 1;
        PEND.active = 1;
        return;
    }
    shrink_commit(d->iteration);
}

/* The rest of a shrink, at the control point where the background part (if
 * any) is complete everywhere.  Collective over the old world. */
static void shrink_commit(int iteration)
{
    const struct decision *d = &PEND.d;
    MPI_Comm P = ductile_rt.private_comm;
    int ns = PEND.ns, nd = PEND.nd, me = ductile_rt.rank, new0 = PEND.new0, standby = PEND.standby;
    char *leaving = PEND.leaving;
    struct report_reconfig rec = PEND.rec;
    if (PEND.bg) {
        if (nb_wait_local(0) != 0) fatal_transfer(NB.why, P); /* every process reported completion */
        nb_finish(1);
        if (me == new0) nb_note(&rec, iteration);
    }
    struct xfer_times xt;
    char err[512];
    if (transfer_items(&PEND.L, 0, d->redist, CONST_BLOCKING, PEND.bg ? XF_REST : XF_ALL, d->id, iteration, NULL, 0,
                       &xt, err, sizeof err) != 0)
        fatal_transfer(err, P);
    xt.transfer_s += PEND.xt.transfer_s;
    xt.window_s += PEND.xt.window_s;
    xt.bytes += PEND.xt.bytes;
    PEND.active = 0;
    reduce_times(&xt, new0, P);
    /* the world changes: its window is freed (src/rma/window.c); the standby pool keeps it for W's return */
    rma_win_transfer_done(standby);
    if (!standby) drop_world_xfer(); /* collective over the old world */
    if (new0 != 0) {
        if (me == 0) send_history(new0, P);
        if (me == new0) recv_history(0, P);
    }
    if (!standby) gather_departed(P, new0, leaving, iteration);
    double tm = ductile_now();
    MPI_Comm S = MPI_COMM_NULL;
    PMPI_Comm_split(P, leaving[me] ? MPI_UNDEFINED : 0, me, &S);
    M.zombies += ns - nd;
    if (standby) { /* the old world W and its transfers stay alive on all its members */
        SB.active = 1;
        SB.world = ductile_world;
        SB.priv = P;
        SB.xfer = M.xfer;
        SB.nbig = ns;
        SB.nsmall = nd;
        SB.left_at = iteration;
        M.xfer = MPI_COMM_NULL;
    }
    if (leaving[me] && standby) {
        SB.waiting = 1;
        standby_wait(); /* returns taken back into W, or removed */
    } else if (leaving[me]) {
        leave_world();
        M.park_comm = P; /* wait here for the release from new0 */
        M.park_releaser = new0;
    } else {
        MPI_Comm nw, np;
        new_world_from(S, &nw, &np);
        PMPI_Comm_free(&S);
        set_world(nw, np);
        if (standby) {
            /* P is W's private communicator: kept by the pool */
        } else if (me == new0) {
            int *lv = malloc((size_t)(ns - nd) * sizeof(int)), k = 0;
            if (!lv) abort();
            for (int r = 0; r < ns; r++)
                if (leaving[r]) lv[k++] = r;
            add_duty(P, lv, k);
            free(lv);
        } else {
            PMPI_Comm_free(&P);
        }
        if (ductile_rt.rank == 0) {
            rec.merge_s = ductile_now() - tm;
            note_transfer(&rec, &xt);
            rec.standby = standby ? ns - nd : 0;
            rec.total_s = record_total(&rec, ductile_now() - PEND.t_begin);
            add_record(&rec);
            ductile_log(1, "shrank %d -> %d in %.3f s (transfer %.4f)%s", ns, nd, rec.total_s, xt.transfer_s,
                        standby ? "; the removed processes stand by" : "");
        }
    }
    free(leaving);
    free(PEND.n2c);
    free(PEND.o2c);
    PEND.leaving = NULL;
}

/* ------------------------------------------------------------------ decisions */

static int has_sparse(void)
{
    for (int i = 0; i < reg_count(); i++)
        if (reg_at(i)->d.kind == REG_SPARSE) return 1;
    return 0;
}

/* DUCTILE_REDIST=auto (rank 0): pick method and constant-data strategy with
 * the cost model of src/rma/cost.c, from the registered sizes, the pair,
 * bandwidths measured at earlier resizes and the iteration time. */
static void choose_auto(int ns, int nd, struct decision *d)
{
    struct cost_input in;
    memset(&in, 0, sizeof in);
    in.ns = ns;
    in.nd = nd;
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED) continue;
        double b = (double)plan_moved_elements(it->d.nrows, ns, nd) * (double)reg_unit_bytes(it);
        if (it->d.constant) in.const_bytes += b;
        else in.var_bytes += b;
    }
    in.bw_col = 1e9;
    in.bw_rma = 0.8e9;
    in.win_setup_s = 0.02;
    for (int i = 0; i < M.nhist; i++) { /* the latest measurements win */
        const struct report_reconfig *r = &M.hist[i];
        if (strcmp(r->status, "ok") != 0) continue;
        if (r->bytes_moved > 0 && r->transfer_s > 0 && !strchr(r->redist, '+')) {
            if (strncmp(r->redist, "col", 3) == 0) in.bw_col = (double)r->bytes_moved / r->transfer_s;
            if (strncmp(r->redist, "rma", 3) == 0) in.bw_rma = (double)r->bytes_moved / r->transfer_s;
        }
        if (r->window_s > 0) in.win_setup_s = r->window_s;
        if (r->prepare_s > 0 && strncmp(r->redist, "rma", 3) == 0) in.win_setup_s = r->prepare_s; /* persistent */
    }
    if (nd < ns && rma_win_ready_for(ductile_rt.private_comm)) in.win_setup_s = 0; /* the world's window exists */
    /* DUCTILE_PERSISTENT: one-sided transfers prepared for this pair need no set-up (the window is kept) */
    int pm = persist_prepared_method(d->pool ? SB.xfer : M.xfer, ns, nd);
    if (pm == REDIST_RMA_LOCK || pm == REDIST_RMA_LOCKALL) in.win_setup_s = 0;
    in.t_it = M.t_it;
    in.thread_multiple = rma_thread_ok();
    in.rma_ok = 1;
    in.rma_background_ok = !RMA_BACKGROUND_UNSAFE;
    struct cost_version all[COST_MAX_VERSIONS];
    int n = 0;
    int best = cost_choose(&in, all, &n, d->why, sizeof d->why);
    d->auto_choice = 1;
    if (best < 0) {
        d->redist = REDIST_COL;
        d->nb = CONST_BLOCKING;
        snprintf(d->why, sizeof d->why, "cost model not applicable: col");
        return;
    }
    d->redist = all[best].method;
    d->nb = in.const_bytes > 0 ? all[best].strategy : CONST_BLOCKING;
    ductile_log(1, "auto redistribution: %s", d->why);
}

static void note_choice(struct report_reconfig *r, const struct decision *d)
{
    if (!d->auto_choice) return;
    snprintf(r->choice, sizeof r->choice, "auto");
    snprintf(r->choice_reason, sizeof r->choice_reason, "%s", d->why);
}

/* Rank 0: turn the due request (if any) into a decision.  Refusals are
 * recorded here and become OP_NONE. */
static void decide(int iteration, struct decision *d, char *list)
{
    memset(d, 0, sizeof *d);
    d->iteration = iteration;
    struct resize_request r;
    /* MPI-IO (src/io/, docs/io.md): a resize waits while a file opened on the
     * virtual world is open; the request stays queued for a later control point. */
    if (ductile_files_block_resize(M.method == METHOD_MERGE && !M.persistent) > 0) { /* file hook (src/wrap/filekeep.c) */
        d->sched_next = request_queue_position(&M.q);
        return;
    }
    int got = request_queue_take(&M.q, iteration, &r);
    d->sched_next = request_queue_position(&M.q);
    if (!got) return;
    int ns = ductile_rt.size;
    int nd = r.kind == RESIZE_TARGET ? r.value : ns + r.value;
    struct report_reconfig rec;
    int id = M.next_id++;
    fill_record(&rec, id, iteration, ns, nd, M.method, M.redist, M.nb);
    char why[400] = "";
    if (nd < 1)
        snprintf(why, sizeof why, "shrinking below one process (%d %+d) is not possible", ns, nd - ns);
    else if (nd == ns)
        snprintf(why, sizeof why, "the world already has %d process%s", ns, ns == 1 ? "" : "es");
    else if (has_sparse())
        snprintf(why, sizeof why, "sparse (EMPI_Register_sparse) data cannot be redistributed yet");
    if (!why[0] && (nd > ns || M.method == METHOD_BASELINE)) {
        const char *hosts = r.list[0] && nd > ns ? r.list : ductile_rt.settings.spawn_hosts;
        char e[300];
        if (hosts && *hosts && schedule_check_hosts(hosts, NULL, e, sizeof e) != 0)
            snprintf(why, sizeof why, "%s", e);
        else if (hosts) snprintf(list, RESIZE_LIST_MAX, "%s", hosts);
        if (nd < ns) list[0] = '\0'; /* baseline shrink: placement by the launcher */
        if (nd < ns && r.list[0] && !why[0])
            snprintf(why, sizeof why, "the baseline method replaces every process: a list of leaving ranks makes no sense");
    } else if (!why[0] && r.list[0]) {
        int ranks[RESIZE_LIST_MAX];
        char e[300];
        int n = schedule_parse_ranks(r.list, ranks, RESIZE_LIST_MAX, e, sizeof e);
        if (n < 0) snprintf(why, sizeof why, "%s", e);
        else if (n != ns - nd) snprintf(why, sizeof why, "%d ranks listed to leave, %d must", n, ns - nd);
        for (int i = 0; i < n && !why[0]; i++)
            if (ranks[i] >= ns) snprintf(why, sizeof why, "rank %d does not exist (world of %d)", ranks[i], ns);
        if (!why[0]) snprintf(list, RESIZE_LIST_MAX, "%s", r.list);
    }
    if (why[0]) {
        list[0] = '\0';
        record_problem(&rec, "refused", why);
        return;
    }
    d->op = OP_RESIZE;
    d->nd = nd;
    /* DUCTILE_PERSISTENT: back to the kept world's size, standby processes waiting */
    d->pool = SB.active && ductile_world != SB.world && ns == SB.nsmall && nd == SB.nbig && M.method == METHOD_MERGE &&
              !r.list[0];
    d->method = M.method;
    d->redist = M.redist;
    d->nb = M.nb;
    if (M.auto_redist) choose_auto(ns, nd, d);
    /* standby processes come back with everything at once; with DUCTILE_PERSISTENT constant data
     * moves blocking too (a background transfer of the first expansion over the prepared world's
     * transfer communicator did not complete with Open MPI 4: not yet supported) */
    if (d->pool || M.persistent) d->nb = CONST_BLOCKING;
    d->id = id;
    d->listlen = (int)strlen(list);
}

int ductile_malleable_control_point(int iteration)
{
    if (!M.ready || M.removed || !ductile_rt.active) return 0;
    /* a spawned process at its first control point without EMPI_Get_shared: the
     * parents are waiting in the transfer; receive the data first */
    if (M.join_pending) {
        ductile_malleable_get_shared(NULL);
        iteration = M.jh.iteration + 1; /* the world's control point this one meets (EMPI_Get_iteration) */
    }
    M.iteration = iteration;
    free_buried();
    if (ductile_rt.rank == 0) ductile_appctl_control_point(iteration); /* exact iteration for the controller */
    if (ductile_rt.rank == 0) { /* iteration time for the cost model (DUCTILE_REDIST=auto) */
        double t = ductile_now();
        if (M.last_cp > 0 && !NB.active) M.t_it = M.t_it > 0 ? 0.7 * M.t_it + 0.3 * (t - M.last_cp) : t - M.last_cp;
        M.last_cp = t;
    }
    MPI_Comm P = ductile_rt.private_comm;
    if (PEND.active) {
        /* a resize whose constant data moves in the background: the world keeps its
         * size until every process's part is complete; then it switches, here */
        int st = nb_test_local();
        int v[2] = {st == 1, st < 0 ? ductile_rt.rank : -1};
        PMPI_Allreduce(MPI_IN_PLACE, &v[0], 1, MPI_INT, MPI_MIN, P);
        PMPI_Allreduce(MPI_IN_PLACE, &v[1], 1, MPI_INT, MPI_MAX, P);
        if (v[1] >= 0) {
            /* a process's part failed: the resize does not happen (transaction), the job goes on */
            char why[sizeof NB.why];
            snprintf(why, sizeof why, "%s", NB.why);
            PMPI_Bcast(why, (int)sizeof why, MPI_CHAR, v[1], P);
            pending_cancel(why);
            return 0;
        }
        if (!v[0]) return 0;
        ductile_files_detach(); /* file hook: world files closed on the old world */
        if (PEND.expand) expand_commit(iteration);
        else shrink_commit(iteration);
        if (M.removed) ductile_files_left();                 /* file hook */
        else if (!M.persistent) ductile_files_reattach(); /* file hook: reopened on the new world */
        M.last_cp = ductile_now();
        request_queue_set_busy(&M.q, 0);
        return 1;
    }
    struct decision d;
    char list[RESIZE_LIST_MAX] = "";
    if (ductile_rt.rank == 0) decide(iteration, &d, list);
    PMPI_Bcast(&d, (int)sizeof d, MPI_BYTE, 0, P);
    if (ductile_rt.rank != 0) {
        request_queue_set_position(&M.q, d.sched_next);
        if (d.id >= M.next_id) M.next_id = d.id + 1;
    }
    if (d.op != OP_RESIZE) {
        if (ductile_rt.rank == 0) request_queue_set_busy(&M.q, 0); /* a request taken and refused */
        return 0;
    }
    if (d.listlen) PMPI_Bcast(list, d.listlen + 1, MPI_CHAR, 0, P);
    request_queue_set_busy(&M.q, 1);
    if (SB.active && !d.pool) {
        /* any other resize: standby processes become removed ones; a kept world
         * that is the current one is simply the world again */
        if (ductile_world != SB.world) pool_release();
        else SB.active = 0;
    }
    double t0 = ductile_now(), e0 = epoch();
    int ns = ductile_rt.size;
    ductile_log(1, "resize %d -> %d at iteration %d (%s%s)", ns, d.nd, iteration,
                d.method == METHOD_BASELINE ? "baseline" : "merge", d.pool ? ", standby processes" : "");
    ductile_files_detach(); /* file hook: world files closed on the old world (src/wrap/filekeep.c) */
    if (d.nd > ns || d.method == METHOD_BASELINE) expand(&d, list, t0, e0);
    else shrink(&d, list, t0);
    if (PEND.active) {
        /* background: the old size goes on (busy until the switch); its files are
         * reopened on the old world until then */
        ductile_files_reattach(); /* file hook */
        return 0;
    }
    if (M.removed) ductile_files_left();                 /* file hook */
    else if (!M.persistent) ductile_files_reattach(); /* file hook: reopened on the new world */
    M.last_cp = ductile_now(); /* the next iteration time excludes the resize */
    request_queue_set_busy(&M.q, 0);
    return 1;
}

int ductile_request_resize(int delta_or_target, int is_target, int at_iteration, const char *hosts, char *err,
                           size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) { err = dummy; errlen = sizeof dummy; }
    if (!M.ready) {
        snprintf(err, errlen, "resize refused: Ductile is not active (call it between MPI_Init and MPI_Finalize)");
        return -1;
    }
    if (M.removed) {
        snprintf(err, errlen, "resize refused: this process has left the world");
        return -1;
    }
    return request_queue_submit(&M.q, delta_or_target, is_target ? RESIZE_TARGET : RESIZE_DELTA, at_iteration,
                                hosts, err, errlen);
}

int ductile_control_point(int iteration) { return ductile_malleable_control_point(iteration); }

/* ------------------------------------------------------------------ init / join */

static void join_parents(MPI_Comm parent)
{
    PMPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    struct join_header h;
    memset(&h, 0, sizeof h);
    int rc = PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, parent);
    if (rc != MPI_SUCCESS || !h.status) {
        /* the parents gave up on this expansion: leave quietly */
        PMPI_Comm_disconnect(&parent);
        PMPI_Finalize();
        _exit(0);
    }
    M.spawned = 1;
    M.jh = h;
    if (h.nitems) {
        M.jdesc = calloc((size_t)h.nitems, sizeof *M.jdesc);
        if (!M.jdesc) abort();
        PMPI_Bcast(M.jdesc, h.nitems * (int)sizeof *M.jdesc, MPI_BYTE, 0, parent);
    }
    double tm = ductile_now();
    /* the parents' rank 0 spawned us alone: merge with it, then meet all parents */
    MPI_Comm m0, inter, merged;
    PMPI_Intercomm_merge(parent, 1, &m0);
    PMPI_Intercomm_create(MPI_COMM_WORLD, 0, m0, 0, TAG_ICREATE, &inter);
    PMPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    PMPI_Intercomm_merge(inter, 1, &merged);
    PMPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    PMPI_Comm_free(&m0);
    add_inter(parent);
    add_inter(inter);
    snprintf(ductile_rt.job_id, sizeof ductile_rt.job_id, "%s", h.job_id);
    ductile_rt.job_pid = (long)h.job_pid;
    M.iteration = h.iteration;
    M.zombies = h.zombies + (h.method == METHOD_BASELINE ? h.ns : 0);
    request_queue_set_position(&M.q, h.sched_next);
    if (h.id >= M.next_id) M.next_id = h.id + 1;
    if (h.method == METHOD_BASELINE) {
        /* the spawned processes are the new world (already set up from their MPI_COMM_WORLD) */
        /* the history comes at the switch (EMPI_Get_shared), when the old processes leave */
    } else {
        MPI_Comm nw, np, oldp = ductile_rt.private_comm;
        new_world_from(merged, &nw, &np);
        if (h.persistent) { /* the new world's transfer communicator (the parents make it at the same point) */
            PMPI_Comm_dup(np, &M.xfer);
            PMPI_Comm_set_errhandler(M.xfer, MPI_ERRORS_RETURN);
        }
        set_world(nw, np);
        PMPI_Comm_free(&oldp);
    }
    M.join_merge_s = ductile_now() - tm;
    M.join_comm = merged;
    M.join_pending = 1;
    if (!h.nitems) ductile_malleable_get_shared(NULL);
    ductile_log(1, "joined as rank %d of %d at iteration %d", ductile_rt.rank, ductile_rt.size, h.iteration);
}

void ductile_malleable_init(void)
{
    struct resize_request *rs = NULL;
    int n = 0;
    char err[512];
    const struct ductile_settings *s = &ductile_rt.settings;
    if (s->schedule && *s->schedule && schedule_parse(s->schedule, &rs, &n, err, sizeof err) != 0) {
        rs = NULL;
        n = 0;
    }
    request_queue_init(&M.q, rs, n);
    M.method = s->resize_method && strcmp(s->resize_method, "baseline") == 0 ? METHOD_BASELINE : METHOD_MERGE;
    const char *rd = s->redist ? s->redist : "col", *rc = s->redist_constant ? s->redist_constant : "blocking";
    M.auto_redist = strcmp(rd, "auto") == 0;
    M.redist = strcmp(rd, "p2p") == 0           ? REDIST_P2P
               : strcmp(rd, "rma-lock") == 0    ? REDIST_RMA_LOCK
               : strcmp(rd, "rma-lockall") == 0 ? REDIST_RMA_LOCKALL
                                                : REDIST_COL;
    M.nb = strcmp(rc, "nb") == 0 ? CONST_NB : strcmp(rc, "wd") == 0 ? CONST_WD : strcmp(rc, "thread") == 0 ? CONST_THREAD
                                                                                                        : CONST_BLOCKING;
    redist_rma_create = s->rma_window && strcmp(s->rma_window, "create") == 0;
    if (strcmp(rd, "rma-fence") == 0) M.redist = REDIST_RMA_FENCE;
    M.persistent = s->persistent && M.method == METHOD_MERGE;
    M.rma_shared = M.persistent && s->rma_memory && strcmp(s->rma_memory, "shared") == 0;
    if (s->persistent && !M.persistent && ductile_rt.rank == 0)
        fprintf(stderr, "ductile: note: DUCTILE_PERSISTENT=1 does not apply to the baseline method (every resize "
                        "replaces all processes); transfers are not kept\n");
    if (M.nb == CONST_NB && (M.redist == REDIST_RMA_LOCK || M.redist == REDIST_RMA_LOCKALL)) {
        /* NB does not apply to one-sided methods (sources cannot tell when reads are done): Wait Drains */
        M.nb = CONST_WD;
        if (ductile_rt.rank == 0)
            fprintf(stderr, "ductile: note: DUCTILE_REDIST_CONSTANT=nb does not apply to %s (the sources cannot tell "
                            "when the drains' reads are done); using wd (Wait Drains)\n", rd);
    }
    if (M.nb == CONST_THREAD && !rma_thread_ok()) {
        /* never run the Threading strategy without MPI_THREAD_MULTIPLE */
        M.thread_refused = 1;
        M.nb = CONST_BLOCKING;
        if (ductile_rt.rank == 0)
            fprintf(stderr, "ductile: DUCTILE_REDIST_CONSTANT=thread refused: it needs MPI_THREAD_MULTIPLE, and this "
                            "program has thread level %d (initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, "
                            "...) with an MPI that provides it); constant data moves blocking\n",
                    ductile_rt.thread_level);
    }
    PMPI_Comm_set_errhandler(ductile_rt.private_comm, MPI_ERRORS_RETURN);
    PMPI_Comm_dup(MPI_COMM_SELF, &M.self);
    PMPI_Comm_set_errhandler(M.self, MPI_ERRORS_RETURN);
    M.ready = 1;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL && ductile_spawned_by_ductile()) join_parents(parent); /* marker hook: only our children */
}

static int check_descs(char *err, size_t errlen)
{
    if (reg_count() != M.jh.nitems) {
        snprintf(err, errlen, "this spawned process registered %d items, the running ones %d", reg_count(),
                 M.jh.nitems);
        return -1;
    }
    for (int i = 0; i < M.jh.nitems; i++) {
        const struct reg_desc *a = &M.jdesc[i], *b = &reg_at(i)->d;
        if (strcmp(a->name, b->name) != 0 || a->kind != b->kind || a->extent != b->extent ||
            a->nrows != b->nrows || a->row_elems != b->row_elems || a->elems != b->elems ||
            a->constant != b->constant) {
            snprintf(err, errlen, "registered item %d ('%s') differs from the running processes' ('%s')", i, b->name,
                     a->name);
            return -1;
        }
    }
    return 0;
}

/* A spawned process whose parents cancelled the resize (the program ended
 * before the background transfer completed): leave quietly. */
static void join_cancelled(int64_t releaser_pid, const char *releaser_host)
{
    ductile_log(1, "the resize that spawned this process was cancelled; leaving at the job's end");
    /* a removed process: parked (asleep) until the parents' rank 0 releases it at its MPI_Finalize,
     * as processes removed by a shrink (with MPICH, spawned processes that end while their parents
     * run get the whole job killed by the launcher) */
    if (M.xfer != MPI_COMM_NULL) PMPI_Comm_free(&M.xfer);
    MPI_Comm oldp = ductile_rt.private_comm;
    leave_world(); /* frees the merged world */
    if (oldp != MPI_COMM_NULL) PMPI_Comm_free(&oldp);
    M.park_comm = M.join_comm; /* merged: the parents' rank 0 is its rank 0 */
    M.join_comm = MPI_COMM_NULL;
    M.park_releaser = 0;
    ductile_malleable_finalize_begin();
    ductile_malleable_finalize_end();
    /* under MPI_THREAD_MULTIPLE the merged world (spanning the parents) was only
     * retired by leave_world: freed here, as in ductile_runtime_finalize */
    ductile_runtime_end_worlds();
    PMPI_Finalize();
    fflush(NULL);
    /* MPICH's launcher kills the parents when their spawned processes are all gone first:
     * end after the releaser (on this host; bounded) */
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    struct timespec nap = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 1000 && releaser_pid > 0 && strcmp(host, releaser_host) == 0 &&
                    kill((pid_t)releaser_pid, 0) == 0; i++)
        nanosleep(&nap, NULL);
    _exit(0);
}

int ductile_malleable_get_shared(int *iteration)
{
    if (!M.join_pending) {
        if (iteration && M.spawned) *iteration = M.jh.iteration + 1;
        return 0;
    }
    M.join_pending = 0;
    struct join_header *h = &M.jh;
    MPI_Comm merged = M.join_comm;
    int me = -1;
    PMPI_Comm_rank(merged, &me);
    int baseline = h->method == METHOD_BASELINE;
    int child = me - h->ns;
    struct xfer_times xt, xb;
    memset(&xt, 0, sizeof xt);
    memset(&xb, 0, sizeof xb);
    int *o2c = malloc((size_t)h->ns * sizeof(int)), *n2c = malloc((size_t)h->nd * sizeof(int));
    if (!o2c || !n2c) abort();
    for (int i = 0; i < h->ns; i++) o2c[i] = i;
    for (int j = 0; j < h->nd; j++) n2c[j] = baseline ? h->ns + j : j;
    struct redist_layout L = {M.xfer != MPI_COMM_NULL ? M.xfer : merged, h->ns + h->nnew, h->ns, h->nd, -1,
                              baseline ? child : me, o2c, n2c};
    char err[512];
    if (h->nitems && check_descs(err, sizeof err) != 0) {
        fprintf(stderr, "ductile: error: rank %d: %s; aborting\n", ductile_rt.rank, err);
        fflush(stderr);
        PMPI_Abort(merged, 3);
    }
    int bg = h->nitems && bg_wanted(h->nb), start_it = h->iteration;
    if (bg) {
        /* constant data arrives in the background while the old processes go on at
         * the old size; wait here (asleep between tests) for the switch */
        if (transfer_items(&L, 1, h->redist, h->nb, XF_BG, h->id, h->iteration, NULL, h->prepare, &xb, err,
                           sizeof err) != 0)
            fatal_transfer(err, merged);
        struct go_msg g;
        memset(&g, 0, sizeof g);
        MPI_Request rq;
        if (PMPI_Ibcast(&g, (int)sizeof g, MPI_BYTE, 0, merged, &rq) != MPI_SUCCESS ||
            wait_bounded(&rq, (double)ductile_rt.settings.leave_timeout + NB_WAIT_LIMIT_S) != 0) {
            fprintf(stderr, "ductile: error: spawned rank %d: the running processes did not switch to the new size "
                            "in time; the job cannot continue\n", ductile_rt.rank);
            fflush(stderr);
            PMPI_Abort(merged, 3);
        }
        if (g.status != 1) join_cancelled(g.pid, g.host); /* leaving: the new buffers go with the process */
        if (nb_wait_local(1) != 0) fatal_transfer(NB.why, merged); /* the parents saw it complete */
        nb_finish(1);
        h->iteration = g.iteration;
        M.iteration = g.iteration;
        request_queue_set_position(&M.q, g.sched_next);
        if (g.next_id > M.next_id) M.next_id = g.next_id;
    }
    if (baseline && me == h->ns) recv_history(0, merged);
    if (h->nitems) {
        if (transfer_items(&L, 1, h->redist, CONST_BLOCKING, bg ? XF_REST : XF_ALL, h->id, h->iteration, NULL,
                           h->prepare, &xt, err, sizeof err) != 0)
            fatal_transfer(err, merged);
        xt.transfer_s += xb.transfer_s;
        xt.window_s += xb.window_s;
        xt.bytes += xb.bytes;
        reduce_times(&xt, n2c[0], merged);
        rma_win_transfer_done(!baseline);
    }
    if (iteration) *iteration = h->iteration + 1;
    free(o2c);
    free(n2c);
    if (baseline) {
        if (me == h->ns) {
            int *lv = malloc((size_t)h->ns * sizeof(int));
            if (!lv) abort();
            for (int i = 0; i < h->ns; i++) lv[i] = i;
            add_duty(merged, lv, h->ns);
            free(lv);
            struct report_reconfig rec;
            fill_record(&rec, h->id, start_it, h->ns, h->nd, h->method, h->redist, h->nb);
            rec.start_s = h->start_s;
            rec.spawn_s = h->spawn_s;
            rec.merge_s = M.join_merge_s;
            note_transfer(&rec, &xt);
            if (bg) nb_note(&rec, h->iteration);
            rec.total_s = epoch() - h->begin_epoch;
            add_record(&rec);
        } else {
            add_keep(merged);
        }
    } else {
        PMPI_Comm_free(&merged);
    }
    M.join_comm = MPI_COMM_NULL;
    free(M.jdesc);
    M.jdesc = NULL;
    if (!baseline && !h->persistent) ductile_files_reattach(); /* file hook: the world's open files, with the parents */
    return 0;
}

/* ------------------------------------------------------------------ finalize */

/* A pending resize that will not happen (old processes, collectively): the
 * background part completes (bounded), the new buffers go, spawned processes
 * leave, the world keeps its size and data; the record says why. */
static void pending_cancel(const char *why)
{
    int me = ductile_rt.rank;
    /* a failed transfer may still hold requests on the new buffers: they are left alone (leaked) */
    int clean = nb_wait_local(1) == 0;
    if (!clean) nb_abandon();
    if (PEND.expand) {
        pending_go(0, M.iteration);
        if (clean) nb_finish(0);
        free_prepared(PEND.prep);
        add_inter(PEND.inter);
        MPI_Comm *c[] = {&PEND.nw, &PEND.np, &PEND.nx};
        for (int i = 0; i < 3; i++)
            if (*c[i] != MPI_COMM_NULL) PMPI_Comm_free(c[i]);
        if (me == 0) {
            /* the spawned processes park until this process's MPI_Finalize releases them */
            int *lv = malloc((size_t)PEND.nnew * sizeof(int));
            if (!lv) abort();
            for (int i = 0; i < PEND.nnew; i++) lv[i] = PEND.ns + i;
            add_duty(PEND.merged, lv, PEND.nnew);
            free(lv);
            M.zombies += PEND.nnew;
        } else {
            PMPI_Comm_free(&PEND.merged);
        }
    } else {
        if (clean) nb_finish(0);
        free(PEND.leaving);
    }
    free(PEND.o2c);
    free(PEND.n2c);
    PEND.active = 0;
    request_queue_set_busy(&M.q, 0);
    if (me == 0) {
        struct report_reconfig rec = PEND.rec;
        rec.total_s = ductile_now() - PEND.t_begin;
        record_problem(&rec, "failed", why);
    }
}

int ductile_malleable_finalize_begin(void)
{
    if (!M.ready) return 0;
    if (M.join_pending) {
        /* a spawned process that never called EMPI_Get_shared: the parents wait for it */
        fprintf(stderr, "ductile: warning: rank %d was spawned with registered data but never called "
                        "EMPI_Get_shared; receiving it now\n", ductile_rt.rank);
        ductile_malleable_get_shared(NULL);
    }
    if (PEND.active) pending_cancel("the program ended (MPI_Finalize) before the background transfer completed");
    /* standby processes still waiting: they become removed processes (collective over the kept world) */
    if (!M.removed && SB.active && ductile_world != SB.world) pool_release();
    if (!M.removed) return 0;
    if (M.park_comm != MPI_COMM_NULL) {
        double deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
        struct timespec nap = {0, 30 * 1000 * 1000};
        for (;;) {
            int flag = 0;
            MPI_Status st;
            if (PMPI_Iprobe(M.park_releaser, TAG_RELEASE, M.park_comm, &flag, &st) != MPI_SUCCESS) break;
            if (flag) {
                int one;
                PMPI_Recv(&one, 1, MPI_INT, M.park_releaser, TAG_RELEASE, M.park_comm, MPI_STATUS_IGNORE);
                break;
            }
            if (ductile_now() > deadline) {
                fprintf(stderr, "ductile: warning: removed process (pid %ld) waited %ld s for the job's end; "
                                "finalizing anyway\n", (long)getpid(), ductile_rt.settings.leave_timeout);
                break;
            }
            nanosleep(&nap, NULL);
        }
    }
    return 1;
}

void ductile_malleable_finalize_end(void)
{
    if (!M.ready) return;
    /* release the removed processes this one is responsible for (bounded waits) */
    for (int i = 0; i < M.nduties; i++) {
        struct duty *d = &M.duties[i];
        MPI_Request *reqs = calloc((size_t)(d->n ? d->n : 1), sizeof *reqs);
        static int one = 1;
        int k = 0;
        for (int j = 0; j < d->n && reqs; j++)
            if (PMPI_Isend(&one, 1, MPI_INT, d->ranks[j], TAG_RELEASE, d->comm, &reqs[k]) == MPI_SUCCESS) k++;
        double deadline = ductile_now() + 30.0;
        struct timespec nap = {0, 5 * 1000 * 1000};
        int done = 0;
        while (reqs && k && !done) {
            if (PMPI_Testall(k, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) break;
            if (!done) {
                if (ductile_now() > deadline) {
                    fprintf(stderr, "ductile: warning: could not release %d removed process%s\n", d->n,
                            d->n == 1 ? "" : "es");
                    break;
                }
                nanosleep(&nap, NULL);
            }
        }
        free(reqs);
    }
    for (int i = 0; i < M.nduties; i++) {
        if (M.duties[i].comm != MPI_COMM_NULL) PMPI_Comm_free(&M.duties[i].comm);
        free(M.duties[i].ranks);
    }
    M.nduties = 0;
    if (M.park_comm != MPI_COMM_NULL) PMPI_Comm_free(&M.park_comm);
    for (int i = 0; i < M.nkeep; i++)
        if (M.keep[i] != MPI_COMM_NULL) PMPI_Comm_free(&M.keep[i]);
    M.nkeep = 0;
    for (int i = 0; i < M.ninters; i++)
        if (M.inters[i] != MPI_COMM_NULL) PMPI_Comm_disconnect(&M.inters[i]);
    M.ninters = 0;
    if (M.self != MPI_COMM_NULL) PMPI_Comm_free(&M.self);
    if (!M.removed) {
        SB.active = 0; /* a kept world that is the current one: plain world communicators */
        drop_world_xfer(); /* prepared transfers (collective over the world) */
        rma_win_finalize(); /* the world's one-sided window (collective over the world) */
    }
    free_buried();
    free(GRAVE.p);
    GRAVE.p = NULL;
    GRAVE.cap = 0;
    reg_clear();
    M.ready = 0;
}
