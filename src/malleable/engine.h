/* engine.h -- internal to the resize engine (the .c files of src/malleable, not for
 * other folders): the engine's state, the messages between old and new
 * processes, and the functions the engine's modules share.  Who does what:
 *   resize.c      control point, decision, request queue entry points
 *   policy.c      pure checks of a request (unit-tested: tests/unit/test_policy.c)
 *   records.c     reconfiguration records, history hand-over, departed counters
 *   world.c       world swap, removed processes' own world, transfer communicators
 *   transaction.c new blocks staged until the commit or dropped at a rollback
 *   agree.c       the agreement and every decision taken together, bounded
 *   transfer.c    moving the registered items (all methods), every failure taking part to the end
 *   prep_thread.c the prepare step's new blocks (in a thread during Open MPI 4.1's spawn)
 *   background.c  constant data moved in the background, the pending resize
 *   spawn.c       expansion: spawn, connect, merge, commit
 *   shrink.c      shrink: leaving ranks' data, split, commit
 *   standby.c     the standby pool (DUCTILE_PERSISTENT)
 *   join.c        spawned processes: join in MPI_Init, data in EMPI_Get_shared
 *   departure.c   MPI_Finalize: removed processes park, responsible ones release
 * Nothing here runs on the per-call path. */
#ifndef DUCTILE_ENGINE_H
#define DUCTILE_ENGINE_H

#include "config.h"

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
#include "../core/hotpath.h"
#include "persist.h"
#include "pmpi_exports.h"
#include "../common/clock.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"
#include "registry.h"
#include "redist.h"
#include "../core/state.h"
#include "schedule.h"
#include "../world/worldid.h"
#include "../world/filekeep.h"
#include "../redist/plan.h"
#include "../io/iomon.h"
#include "../monitor/report.h"
#include "../rma/cost.h"
#include "../rma/window.h"
#include "../rma/xfer.h"
#include "resize.h"
#include "policy.h"
#include "../core/hooks.h"

/* How an expansion starts and connects its new processes, chosen at compile
 * time by the MPI's identity (spawn.c, join.c):
 *   collective (MPICH, Open MPI 5): every parent calls MPI_Comm_spawn over
 *     the private communicator (root 0) and one MPI_Intercomm_merge joins the
 *     two jobs; both report a failed spawn on every rank.  Open MPI 5 needs
 *     it: after a rank-0 path the parents other than rank 0 lack the new
 *     processes' locality (only a spawn or connect/accept computes it, open-mpi/ompi
 *     PR 13059), coll/han's first collective on the merged communicator
 *     splits it differently on different processes and hangs;
 *   from rank 0 (Open MPI 4.1): rank 0 opens a port and spawns alone over
 *     MPI_COMM_SELF; all parents MPI_Comm_accept (root 0) the children's
 *     MPI_Comm_connect on that port, then one merge.  Open MPI 4.1 leaves the
 *     non-root ranks of a failed collective spawn waiting forever: its root
 *     returns before the connect/accept stage, whose first step is a
 *     broadcast from the root (ompi/mpi/c/comm_spawn.c, ompi/dpm/dpm.c);
 *     seen with a refused host.
 * -DSPAWN_COLLECTIVE=0/1 forces one. */
#ifndef SPAWN_COLLECTIVE
#if defined(MPICH_VERSION) || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define SPAWN_COLLECTIVE 1
#else
#define SPAWN_COLLECTIVE 0
#endif
#endif

void join_failed(const char *what, int rc); /* join.c: the job ends (MPI cannot go on) */
void join_world(MPI_Comm inter, int high, MPI_Comm merged, MPI_Comm *w, MPI_Comm *p); /* join.c */

#define TAG_RELEASE 0x5d18
#define TAG_HISTORY 0x5d19
#define TAG_STANDBY 0x5d1c
#define TAG_CONTROLLER 0x5d1d /* the controller's hand-over to a new rank 0 (records.c) */
#define TAG_READY 0x5d1e /* Open MPI 4.1: the new processes are at their MPI_Comm_connect (spawn.c, join.c) */
#define TAG_NEWWORLD 0x5d1f /* a shrink's MPI_Comm_create_group of the staying processes (shrink.c) */
#define TAG_PSPAWN 0x5d20 /* a parallel spawn's MPI_Intercomm_create between groups (pspawn.c) */
#define TXN_WHY_MAX 256 /* a failure's reason, as in the record (report_reconfig.reason) */
#define BCAST_CHUNK ((int64_t)1 << 30)

enum { OP_NONE = 0, OP_RESIZE = 1 };
enum { METHOD_MERGE = 0, METHOD_BASELINE = 1 };

/* Rank 0's decision, broadcast at every control point. */
struct decision {
    int32_t op, nd, method, redist, nb, listlen, sched_next, iteration, id;
    int32_t auto_choice;  /* DUCTILE_REDIST=auto: redist and nb come from the cost model (src/rma/cost.c) */
    int32_t pool;         /* DUCTILE_PERSISTENT: expand by taking the standby processes back (no spawn) */
    int32_t release_pool; /* the pool waited DUCTILE_LEAVE_TIMEOUT: it is released first */
    int32_t command;      /* the queue id of the request (ductiled's command id; 0: DUCTILE_SCHEDULE) */
    int32_t depfns_room;  /* departed_fns_room() on rank 0 (records.c): no broadcast of it in a shrink */
    char why[220];        /* its reason, for the record */
};

/* The registrations' descriptions follow the header in broadcasts of at most this many
 * (spawn.c, connect_group; join.c): a new process that cannot allocate room for them all
 * still takes part in each (into a piece of scratch) and then rolls the resize back. */
#define JOIN_DESC_CHUNK 64

/* Sent by the parents to the spawned processes over the intercommunicator. */
struct join_header {
    int32_t status; /* 1 join, 0 cancelled (the spawn failed on the parents' side) */
    int32_t method, redist, nb, ns, nd, nnew, iteration, sched_next, nitems, id, nhist, zombies, prepare, persistent;
    int32_t command; /* the request's queue id (the record's "command") */
    int32_t auto_choice; /* the decision's (DUCTILE_REDIST=auto): a Baseline record is written by a new process */
    int32_t spawn_groups; /* the record's (as auto_choice) */
    int32_t groups, gindex, goffset; /* a parallel spawn (pspawn.c): the number of groups (0: one spawn), this
                                      * group's parent (its rank) and its first process among the new ones */
    int64_t job_pid;
    double spawn_s, begin_epoch, start_s;
    char job_id[64];
    char why[220]; /* the decision's reason (struct decision's why) */
};

struct duty {
    MPI_Comm comm;
    int n;
    int *ranks;
};

struct engine_state {
    int ready;
    MPI_Comm self; /* MPI_COMM_SELF duplicate with MPI_ERRORS_RETURN: rank 0 spawns from it */
    struct request_queue q;
    int method, redist, nb;
    int thread_refused; /* DUCTILE_REDIST_CONSTANT=thread without MPI_THREAD_MULTIPLE: blocking instead */
    int auto_redist;    /* DUCTILE_REDIST=auto (src/rma/cost.c) */
    double last_cp, t_it; /* rank 0: time of the last control point, seconds per iteration (smoothed) */
    int spawned, removed;
    unsigned world_epoch; /* set_world calls: a control point that changed it changed this process's world */
    int iteration;
    int command; /* the queue id of the request being executed (records; 0: none or DUCTILE_SCHEDULE) */
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
    /* the newest spawned group (departure.c): the world size before it, its size, and the two
     * intercommunicators between it and the rest (inter: all parents; inter0: the parents' rank 0) */
    int g_valid, g_ns, g_nnew;
    MPI_Comm g_inter, g_inter0;
    int exited;   /* this removed process disconnected from the rest: it ends at MPI_Finalize at once */
    /* reconfiguration records (complete on the world's rank 0) */
    struct report_reconfig *hist;
    int nhist, caphist, next_id;
    /* counters of the processes that left the world (complete on the world's rank 0): each one's
     * totals; their functions combined by reductions (depsum); each one's functions (depfns,
     * ndep x DUCTILE_FN_COUNT) only while at most DUCTILE_REPORT_RANKS left (depfns_off after) */
    struct report_departed *dep;
    int ndep, capdep;
    struct report_departed_fns depsum;
    struct report_fn *depfns;
    int capdepfns, depfns_off;
};
extern struct engine_state M;

/* DUCTILE_PERSISTENT: the standby pool.  After a shrink of world W (nbig
 * processes) to its first nsmall ranks, the leaving processes stand by
 * inside the control point, and W's communicators stay alive on all its
 * members, with the prepared transfers on W's transfer communicator.  An
 * expansion from nsmall back to nbig wakes them (no spawn, no merge) and
 * reuses those transfers; any other resize, or the end of the job, releases
 * them (they become ordinary removed processes). */
struct standby_pool {
    int active;                 /* this process belongs to a kept world W */
    int waiting;                /* this process stands by */
    MPI_Comm world, priv, xfer; /* W's virtual world, private and transfer communicators */
    int nbig, nsmall;
    int left_at;                /* the iteration of the shrink that formed the pool */
    double formed_at;           /* when (ductile_now): the pool is released DUCTILE_LEAVE_TIMEOUT later */
};
extern struct standby_pool SB;

/* Sent by the kept world's rank 0 to each standby process. */
enum { STANDBY_WAKE = 1, STANDBY_RELEASE = 2, STANDBY_GO = 3, STANDBY_ABANDON = 4 }; /* GO / ABANDON: after the wake-up */
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
struct grave {
    void **p;
    int n, cap;
};
extern struct grave GRAVE;

struct xfer_times {
    double plan_s, transfer_s;
    uint64_t bytes;
    double window_s; /* rma-*: window set-up (src/rma/), not part of transfer_s */
    double prepare_s; /* persistent mode: set-up of prepared transfers, not part of transfer_s */
    int n_prepared, n_reused; /* persistent mode: arrays whose transfer was prepared now / reused */
    int n_shared;             /* ... of which by direct copies from shared blocks (DUCTILE_RMA_MEMORY=shared) */
};

/* Constant-data strategies (DUCTILE_REDIST_CONSTANT, CONST_* in policy.h), carried in decision.nb / join_header.nb. */
static const char *const const_label[] = {"", "+nb", "+wd", "+thread"};
static const char *const redist_label[] = {"col", "p2p", "rma-lock", "rma-lockall", "rma-fence"};


/* DUCTILE_RESIZE_TIMEOUT: the bound of every wait inside a resize (seconds). */
static inline double resize_timeout(void)
{
    return (double)ductile_rt.settings.resize_timeout;
}

struct nb_entry {
    char name[REG_NAME_MAX];
    struct redist_pending *p; /* NULL once complete */
    void *dst;                /* my new buffer (NULL: no new block here) */
    int has_new;
    int in_place;             /* dst is the item's own buffer (a spawned process's): never freed or adopted */
    int data;                 /* a general data kind's item (sparse): its new state is staged in the item
                               * (src/data), adopted / dropped through the hook table */
};
struct nb_state {
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
    int left_alone;      /* abandoned (nb_abandon): its buffers may still be in MPI's hands */
    int quiet;           /* every operation of this process's part is complete (even if it failed after) */
    char why[200];
};
extern struct nb_state NB;


/* A resize whose constant data moves in the background (seed 000, MaM): the
 * sources go on iterating at the old size, the new processes wait inside
 * EMPI_Get_shared, and the world switches at the first control point where
 * every process's part is complete (agreed over the old world).  Until then
 * the decision, the new communicators and the layout live here. */
struct pending_resize {
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
    int exiting; /* shrink: the leaving processes are the whole newest spawned group: they exit */
    struct redist_layout L;
    struct xfer_times xt; /* the background start */
};
extern struct pending_resize PEND;

/* Parents -> spawned processes at the switch (or the cancellation). */
struct go_msg {
    int32_t status; /* 1 switch now, 0 cancelled: leave */
    int32_t iteration, sched_next, next_id;
};

/* Phases of a transfer (struct transfer): everything blocking; only the constant
 * distributed items, started in the background with strategy nb; everything
 * but those (at the control point where the background part is complete). */
enum { XF_ALL = 0, XF_BG = 1, XF_REST = 2 };

/* DUCTILE_VERBOSE=3: how long each step of a resize took on this process
 * (since the previous mark), for tuning the engine against the raw MPI path
 * (bench/redistribute --vs-raw).  Not on the per-call path. */
static inline void step_mark(double *t, const char *what)
{
    if (ductile_rt.settings.verbose < 3) return;
    double n = ductile_now();
    ductile_log(3, "resize step %-22s %.4f s", what, n - *t);
    *t = n;
}

/* spawn_check.c: the program to spawn, the spawn's info, rank 0's checks before anything starts */
int spawn_command(char *cmd, size_t len, char ***args_out);
MPI_Info spawn_info(const char *hosts);
int precheck_spawn(const char *cmd, const char *hosts, int ns, int nnew, int groups, char *why, size_t len);
/* spawn_ompi5.c: Open MPI 5 (PRRTE); 0 and nothing with other MPIs */
int ompi5_may_oversubscribe(void);
void ompi5_spawn_info(MPI_Info info);
/* records.c */
double epoch(void);
void *grow(void *arr, int *cap, int need, size_t elem);
void add_inter(MPI_Comm c);
void add_keep(MPI_Comm c);
void add_duty(MPI_Comm c, const int *ranks, int n);
void add_record(const struct report_reconfig *r);
double record_total(const struct report_reconfig *r, double elapsed_rank0);
void reduce_times(struct xfer_times *t, int root, MPI_Comm comm);
void note_transfer(struct report_reconfig *r, const struct xfer_times *xt);
void send_history(int to, MPI_Comm comm);
void recv_history(int from, MPI_Comm comm);
void gather_departed(MPI_Comm comm, int root, const char *leaving, int iteration);
/* the same, with the transfer times reduced alongside and the room for each one's functions known */
#define GATHER_ROOM_ASK INT_MIN
void gather_departed_ex(MPI_Comm comm, int root, const char *leaving, int iteration, struct xfer_times *xt, int room);
int departed_fns_room(void);
extern int departing_exit; /* set around gather_departed: the leaving processes exit (report: "exited") */
/* departure.c: processes released on shrink (exit instead of parking) */
void departure_group_joined(int valid, int ns, int nnew, MPI_Comm inter, MPI_Comm inter0);
void departure_group_forget(void);
int departure_group_exits(int ns, const char *leaving, int merge_method, int standby);
void departure_group_disconnect(void);
int departure_rollback_exits(int persistent);
void departure_disconnect(MPI_Comm *inter, MPI_Comm *inter0);
extern MPI_Comm departure_inter0_pending; /* rank 0: inter0 of the expansion in progress */
/* resize.c: at MPI_Finalize (world's rank 0), the requests that were due and never ran, said on stderr */
void unrun_requests_note(void);
void fill_record(struct report_reconfig *r, int id, int it, int from, int to, int method, int redist, int nb);
void record_problem(struct report_reconfig *r, const char *status, const char *reason);
/* world.c */
void set_world(MPI_Comm world, MPI_Comm priv);
void new_world_from(MPI_Comm base, MPI_Comm *w, MPI_Comm *p);
void new_world_adopt(MPI_Comm base, MPI_Comm *w, MPI_Comm *p);
void leave_world(void);
MPI_Comm world_xfer(void);
void release_transfers(MPI_Comm x);
void drop_world_xfer(void);
void free_block(void *p);
void bury(void *p);
void free_buried(void);
/* transfer.c */
int test_fail(const char *step);
/* DUCTILE_TEST_FAIL=STEP@RANK names this process (pspawn@RANK, blockcache@RANK; validated in txnfault.c) */
int test_fail_here(const char *step);
int bg_wanted(int nb);
/* One transfer of a resize: what moves, over which layout, how (filled by
 * the caller), and how it went.  Collective over L->comm: every process
 * calls it for the same phase, also one that already failed (ok = 0: it
 * takes part with nothing to move, and its peers stop with it at the first
 * checkpoint). */
struct transfer {
    const struct redist_layout *L; /* every old and new process of the transfer */
    int has_new;                   /* processes without an old rank take part (replicated items, scalars) */
    int method, nb;                /* REDIST_*; CONST_* (phase XF_BG only) */
    int phase;                     /* XF_ALL, XF_BG, XF_REST */
    int id, iteration;
    void **prep;                   /* new blocks of the prepare step, taken by the items (NULL: none) */
    int warm;                      /* open the connections first (DUCTILE_REDIST_PREPARE) */
    int ok;                        /* in: 0 when this process already failed; out: this process's part went well */
    struct xfer_times t;           /* out */
    char err[TXN_WHY_MAX];         /* out: why this process failed ("" when it only stopped with the others) */
    /* while it runs */
    struct redist_layout LX;       /* L over NB.comm: the background part */
    int bg, stopped;               /* constant items start in the background; every process stopped */
};
int transfer_run(struct transfer *x); /* 0, or -1 (x->ok = 0) */
/* prep_thread.c */
void **prepare_buffers(int ns, int nd, int my_old, int my_new, int nb, int touch, char *why, size_t len);
void free_prepared(void **prep);
/* blockcache.c: a new block of a distributed item (free() releases it; NULL: out of memory), a kept one
 * of the item slot's (or another's) when one fits (*warm = 1: resident already; warm may be NULL) */
void *block_alloc(size_t bytes, int item, int *warm);
void block_keep(void *p, int item); /* an old block of Ductile's own the commit replaced: kept or freed */
void block_cache_drop(void);        /* free every kept block */
/* background.c */
struct nb_entry *nb_entry_add(const char *name, void *dst, int has_new); /* NULL: out of memory */
int nb_test_local(void);
int nb_wait_local(int nap);
int nb_drain(void); /* complete what was started (bounded), failed or not: 0, or -1 when it did not complete */
void nb_finish(int adopt);
void nb_abandon(void);
void nb_note(struct report_reconfig *r, int iteration);
int wait_bounded(MPI_Request *rq, double limit_s);
int pending_go(int status, int iteration);
struct go_msg pending_wait_go(MPI_Comm merged, double limit_s);
void pending_cancel(const char *why);
int nb_quiet(void);
int nb_agree_quiet(MPI_Comm c);
void rollback_transfers(int quiet, int nitems);
/* resize.c */
void note_choice(struct report_reconfig *r, const struct decision *d);
/* spawn.c */
void expand(const struct decision *d, const char *hosts, double t_begin, double begin_epoch);
void expand_commit(int iteration);
void expand_abort(const char *why, int together);
/* shrink.c */
void shrink(const struct decision *d, const char *list, double t_begin);
void shrink_commit(int iteration);
void shrink_abort(const char *why);
/* standby.c */
int pool_join(const struct decision *d, struct xfer_times *xt, char *why, size_t len);
int pool_barrier(char *why, size_t len);
int pool_expired(void);
void pool_dissolve(int left_at);
void pool_send(int op, const struct decision *d);
void pool_release(void);
void pool_wake(const struct decision *d, double t_begin);
void standby_wait(void);

/* transaction.c */
/* A new block written by the transfer, adopted by the item only at the commit. */
struct staged {
    int item;
    void *dst;
    int from_spare, shared, persist, rma_lock, ns, nd, has_old;
};
struct stage_list {
    struct staged *s;
    int n, cap;
};
extern struct stage_list STAGE;
/* agree.c: decisions taken together, bounded by DUCTILE_RESIZE_TIMEOUT (T).
 * txn_agree: collective over c; 1 when every process passes ok = 1 within T
 * of rank 0's arrival; else 0 on every process, and why is the reason of the
 * first process that failed on its own (a non-empty why), or the timeout. */
int txn_agree(MPI_Comm c, int ok, char *why, size_t len);
/* After a bounded wait on an operation that completes only once every
 * process entered it (a barrier, an allreduce): collective over c (processes
 * that all reach this point); 1 on every process when some process of c saw
 * it complete (so everyone entered it), else 0. */
int any_completed(MPI_Comm c, int completed);
/* Collective over c, bounded as txn_agree (rank 0 decides within T): 1 on
 * every process when every process passed yes != 0, else 0 on every process
 * (also when a process was late: the safe answer). */
int all_agree(MPI_Comm c, int yes);
/* Wait for *rq at most limit_s, asleep between tests: 1 complete, 0 not yet (*rq still pending), -1 MPI error. */
int wait_for(MPI_Request *rq, double limit_s);
/* A buffer p used by the requests r[0..n): freed now if all are complete, else kept with the pending ones
 * (late requests) until they complete. */
void settle(void *p, MPI_Request *r, const MPI_Comm *c, int n); /* c[i]: the communicator of r[i] */
/* Free *c now, or once no late request uses it (Open MPI 4.1 crashed progressing a collective of a
 * freed communicator); *c becomes MPI_COMM_NULL. */
void comm_free_later(MPI_Comm *c);
void late_progress(void); /* requests of waits that gave up: test them (every control point) */
void late_finish(void);   /* ... and at the end, bounded */
/* The agreement on a transfer, before its commit: txn_agree, then, when some
 * item's commit runs the program's code (REG_KIND_STAGES: custom data's
 * unpack), that code (data_stage) and a second txn_agree; if that one fails,
 * every process undoes its stage (data_unstage) and 0 is returned as for any
 * failed agreement (the caller rolls back).  Bounded as txn_agree (agree.c). */
int txn_agree_commit(MPI_Comm c, int ok, char *why, size_t len);
int stage_add(int item, void *dst, int from_spare, int shared, int persist, int rma_lock, int ns, int nd, int has_old);
void stage_commit(void);
void stage_abort(void);

#endif
