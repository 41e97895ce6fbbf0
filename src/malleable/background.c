/* background.c -- constant data moved in the background
 * (DUCTILE_REDIST_CONSTANT=nb|wd|thread) and the pending resize that waits
 * for it: tests at control points, adoption of the new buffers, the
 * go/cancel message to the spawned processes, cancellation. */
#include "engine.h"

#include "../common/leftmpi.h"

/* ------------------------------------------------------------------ NB (background) transfer of constant data
 *
 * With DUCTILE_REDIST_CONSTANT=nb, distributed items registered as constant
 * (EMPI_CONSTANT; sparse matrices: their column indices and values, their
 * row lengths having moved at the start; N-D blocks, patch sets and custom
 * data: the bytes they packed at the start, transfer.c) move with one
 * MPI_Ialltoallv each, started at the resize
 * over a duplicate of the transfer communicator, into new buffers owned by
 * Ductile on the old processes and into the buffers they registered on the
 * spawned ones (nb_entry.in_place: they wait in EMPI_Get_shared until it is
 * there).  Until the transfer is complete the item keeps its old buffer
 * (old processes: their old block, untouched).  Every later control point
 * tests the requests (MPI_Test, no waiting) and agrees on completion over the
 * world (one small MPI_Allreduce per control point, only while a transfer is
 * pending); then every old process switches the item to its new buffer at the
 * same control point and frees the old one if Ductile owns it.  Meanwhile the
 * registry is frozen (registry.h, reg_freeze; resize.c freezes it, the switch
 * and pending_cancel thaw it).  A resize
 * decided while a transfer is pending completes it first (bounded wait);
 * processes that leave complete their part in MPI_Finalize, asleep between
 * tests. */

struct nb_state NB = {.comm = MPI_COMM_NULL};

int ductile_constant_pending(void) { return NB.active; }

/* A constant item's entry (its new buffer dst, owned by the entry from now
 * on), or NULL when there is no memory for it. */
struct nb_entry *nb_entry_add(const char *name, void *dst, int has_new)
{
    if (NB.n == NB.cap) {
        int nc = NB.cap ? 2 * NB.cap : 8;
        struct nb_entry *e = txn_realloc(NB.e, (size_t)nc * sizeof *e);
        if (!e) return NULL;
        NB.e = e;
        NB.cap = nc;
    }
    struct nb_entry *e = &NB.e[NB.n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->dst = dst;
    e->has_new = has_new;
    return e;
}

/* Test every request and the group of this process, failed ones too (the
 * others complete theirs with them): 1 when all are complete, 0 not yet.
 * A failure sets NB.failed and NB.why. */
static int nb_progress(void)
{
    int all = 1;
    for (int i = 0; i < NB.n; i++) {
        if (!NB.e[i].p) continue;
        int done = 0;
        if (redist_test(NB.e[i].p, &done) != 0 && !NB.failed) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of '%s' failed", ductile_rt.rank,
                     NB.e[i].name);
            NB.failed = 1;
        }
        if (done) NB.e[i].p = NULL; /* freed by redist_test */
        else all = 0;
    }
    if (NB.bg) {
        int done = 0;
        if (bg_test(NB.bg, &done) != 0 && !NB.failed) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data failed", ductile_rt.rank);
            NB.failed = 1;
        }
        if (!done) all = 0;
    }
    if (all) NB.quiet = 1; /* nothing of this process's part is pending any more (an injected failure follows) */
    return all;
}

/* Test every request of this process: 1 when all are complete, 0 not yet,
 * -1 on an error (the reason in NB.why; the resize then fails, the world keeps
 * its size and data). */
int nb_test_local(void)
{
    int all = nb_progress();
    if (NB.failed) return -1;
    /* bgtransfer-first: only the background transfer of the job's first resize fails (the same on
     * every process: the decision's id), so a later resize can show that the failure left nothing behind */
    if (all && ductile_rt.rank == ductile_rt.size - 1 && !M.spawned &&
        (test_fail("bgtransfer") || (test_fail("bgtransfer-first") && NB.id == 0))) {
        snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data failed (injected: "
                 "DUCTILE_TEST_FAIL=%s)", ductile_rt.rank, test_fail("bgtransfer") ? "bgtransfer" : "bgtransfer-first");
        NB.failed = 1;
        return -1;
    }
    return all;
}

/* Complete this process's part, bounded (DUCTILE_RESIZE_TIMEOUT); sleeping
 * between tests when nap.  0, or -1 (error or time limit; the reason in
 * NB.why). */
int nb_wait_local(int nap)
{
    double limit = resize_timeout(), deadline = ductile_now() + limit;
    struct timespec ts = {0, (nap ? 20 : 1) * 1000 * 1000};
    int st;
    while ((st = nb_test_local()) == 0) {
        if (ductile_now() > deadline) {
            snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data not complete after %.0f s",
                     ductile_rt.rank, limit);
            NB.failed = 1;
            return -1;
        }
        nanosleep(&ts, NULL);
    }
    return st < 0 ? -1 : 0;
}

int nb_drain(void)
{
    double deadline = ductile_now() + resize_timeout();
    struct timespec ts = {0, 2 * 1000 * 1000};
    while (!nb_progress()) {
        if (ductile_now() > deadline) return -1;
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* All requests complete (every process saw it): adopt the new buffers and
 * free the old ones (adopt = 1), or drop the new ones (adopt = 0: the resize
 * did not happen). */
void nb_finish(int adopt)
{
    for (int i = 0; i < NB.n; i++) {
        struct nb_entry *e = &NB.e[i];
        struct reg_item *it = reg_find(e->name);
        if (e->data && it) { /* staged in the item (src/data): adopted, or dropped */
            if (adopt) DUCTILE_HOOK_VOID(data_commit, (it));
            else DUCTILE_HOOK_VOID(data_abort, (it));
        }
        if (!e->has_new || e->in_place) continue; /* a spawned process's own buffer: filled in place */
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
    NB.quiet = 0;
}

/* A failed background transfer: forget it without touching its buffers,
 * requests or windows (MPI may still use them); its window leaves the
 * cache, so that no later transfer frees it with processes that never will.
 * What it leaves allocated on purpose is not a leak to report. */
void nb_abandon(void)
{
    for (int i = 0; i < NB.n; i++) {
        if (!NB.e[i].in_place) left_to_mpi(NB.e[i].dst);
        left_to_mpi(NB.e[i].p); /* and what it points to (the collective's arguments) */
    }
    for (int i = 0; i < NB.n; i++) /* a general data item's staged buffers too: never freed */
        if (NB.e[i].data && reg_find(NB.e[i].name)) DUCTILE_HOOK_VOID(data_bg_forget, (reg_find(NB.e[i].name)));
    NB.left_alone = 1; /* the buffers its requests name stay allocated (reg_thaw) */
    if (NB.bg) bg_forget(NB.bg);
    free(NB.e);
    NB.e = NULL;
    NB.n = NB.cap = 0;
    NB.bg = NULL;
    NB.comm = MPI_COMM_NULL;
    NB.active = 0;
    NB.quiet = 0;
}

/* 1 when no operation of this process's background transfer is pending:
 * none is active, or every part completed (even if it failed afterwards,
 * as an injected failure does).  Local, never blocks. */
int nb_quiet(void)
{
    if (!NB.active) return 1;
    if (!NB.quiet) (void)nb_progress(); /* failed parts too: they complete with the others */
    return NB.quiet;
}

/* A resize that will not happen, on every process of c (an expansion's
 * merged communicator: old and new processes; a shrink's old world), at the
 * same point: do they all have their background part quiet?  Then what the
 * transfer holds (windows, communicators) can be freed together and the new
 * processes of an expansion can disconnect and end (item 7 of issue 22);
 * otherwise it is abandoned (never freed: the MPI may still use it) and they
 * park.  Decided by rank 0 of c within DUCTILE_RESIZE_TIMEOUT (all_agree,
 * agree.c): the same answer everywhere, 0 when a process was late. */
int nb_agree_quiet(MPI_Comm c)
{
    return all_agree(c, nb_quiet());
}

/* The transfers of an expansion that will not happen, on every process of
 * its merged communicator in the same order (after nb_agree_quiet): quiet --
 * the background part is released (its windows detached or freed) and the
 * one-sided window over the merged communicator is freed, collectively with
 * the new processes (a cancelled background rma-* expansion left it cached,
 * and the next one-sided resize or MPI_Finalize then called the collective
 * MPI_Win_free without them: issue 22, item 5); not quiet -- both are
 * abandoned. */
void rollback_transfers(int quiet, int nitems)
{
    if (quiet) {
        if (NB.active) nb_finish(0);
        if (nitems) rma_win_transfer_done(0);
        return;
    }
    if (NB.active) nb_abandon();
    rma_win_abandon(NULL); /* whatever is cached may span the new processes */
}

/* The record of a resize whose constant data moved in the background and
 * that switched at the control point of `iteration`. */
void nb_note(struct report_reconfig *r, int iteration)
{
    r->overlap_it = iteration - NB.start_it;
    r->background_s = ductile_now() - NB.t_start;
    snprintf(r->reason, sizeof r->reason,
             "constant data (%llu bytes) moved in the background: overlapped %d iteration%s at the old size "
             "(switch at the control point of iteration %d, %.4f s after the start)%s",
             (unsigned long long)NB.bytes, iteration - NB.start_it, iteration - NB.start_it == 1 ? "" : "s", iteration,
             r->background_s,
             NB.col_instead ? " by the collective (Open MPI 4: background one-sided transfers are not safe)"
             : strncmp(r->redist, "rma-fence", 9) == 0 ? " by the collective (rma-fence is blocking only; the other "
                                                          "data moved by rma-fence)"
                                                        : "");
    ductile_log(1, "%s", r->reason);
}

struct pending_resize PEND;

/* Wait for one request, bounded, progressing the background transfer. */
int wait_bounded(MPI_Request *rq, double limit_s)
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

/* What the parents and the spawned processes of a pending expansion
 * exchange at the switch or the cancellation, over the merged communicator
 * (the spawned ones posted both at the start and wait, join.c): an
 * allreduce that completes only when every process is there, then the word. */
struct go_buf {
    int here;
    struct go_msg g;
};

/* Old processes of a pending expansion: the switch (status 1) at
 * `iteration`, or the cancellation (0).  Bounded: each parent waits at most
 * T for the allreduce; the parents then decide together (any_completed over
 * the old world: if one of them saw it complete, every spawned process is
 * there) and rank 0 gives the word to all.  1: switch now; 0: the spawned
 * processes leave (join.c, join_abort), the caller rolls back. */
int pending_go(int status, int iteration)
{
    txn_delay("go");
    double T = resize_timeout();
    static struct go_buf spare; /* without memory for a buffer of its own (its requests then go unchecked) */
    struct go_buf *b = calloc(1, sizeof *b), *u = b ? b : &spare;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    u->here = 1;
    int posted = PMPI_Iallreduce(MPI_IN_PLACE, &u->here, 1, MPI_INT, MPI_MIN, PEND.merged, &r[0]) == MPI_SUCCESS;
    int done = posted && status && wait_for(&r[0], T) == 1;
    int go = status && any_completed(ductile_rt.private_comm, done);
    u->g = (struct go_msg){go, iteration, request_queue_position(&M.q), M.next_id};
    if (PMPI_Ibcast(&u->g, (int)sizeof u->g, MPI_BYTE, 0, PEND.merged, &r[1]) == MPI_SUCCESS) wait_for(&r[1], T);
    MPI_Comm cc[2] = {PEND.merged, PEND.merged};
    if (b) settle(b, r, cc, 2); /* requests of a spawned process that is not there yet keep b */
    if (status && !go)
        fprintf(stderr, "ductile: warning: rank %d: the spawned processes of resize %d were not there within %.0f s\n",
                ductile_rt.rank, PEND.d.id, T);
    return go;
}

/* A spawned process waiting for the switch (join.c): posts the allreduce and
 * the word (pending_go), then waits, progressing its part of the background
 * transfer, at most limit_s.  The word, or status -1 when none came. */
struct go_msg pending_wait_go(MPI_Comm merged, double limit_s)
{
    struct go_buf *b = calloc(1, sizeof *b);
    struct go_msg none = {-1, 0, 0, 0}, g = none;
    if (!b) return none;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    b->here = 1;
    txn_delay("go");
    if (PMPI_Iallreduce(MPI_IN_PLACE, &b->here, 1, MPI_INT, MPI_MIN, merged, &r[0]) == MPI_SUCCESS &&
        PMPI_Ibcast(&b->g, (int)sizeof b->g, MPI_BYTE, 0, merged, &r[1]) == MPI_SUCCESS &&
        wait_bounded(&r[1], limit_s) == 0)
        g = b->g;
    MPI_Comm cc[2] = {merged, merged};
    settle(b, r, cc, 2);
    return g;
}

/* A pending resize that will not happen (old processes, collectively): the
 * background part completes (bounded), everybody agrees whether it is quiet
 * (an expansion: with the spawned processes, after telling them), then its
 * new buffers, windows and communicators are freed together, or, when some
 * process's part may still be in flight, abandoned (leaked; MPI may still
 * use them); spawned processes leave (they end at once when the transfer was
 * quiet and their runtime allows it, else they park); the world keeps its
 * size and data; the record says why. */
void pending_cancel(const char *why)
{
    /* what was started completes (failed parts too: every process started the same), bounded; a part
     * still in flight after it is not quiet (then left alone, leaked: nb_agree_quiet decides together) */
    (void)nb_drain();
    if (PEND.expand) {
        (void)pending_go(0, M.iteration); /* the word "cancelled" (0 by then on every parent) */
        int quiet = nb_agree_quiet(PEND.merged); /* with them (join.c); a spawned process that never heard
                                                  * the word is missing: "not quiet" everywhere */
        rollback_transfers(quiet, PEND.nitems);
        expand_abort(why, quiet);
    } else {
        int quiet = nb_agree_quiet(ductile_rt.private_comm);
        if (quiet) nb_finish(0); /* the world stays, and so does its window */
        else rollback_transfers(0, 0);
        shrink_abort(why);
    }
    reg_thaw(!NB.left_alone); /* the registry changes again; what the program freed meanwhile goes, if safe */
    request_queue_set_busy(&M.q, 0);
}
