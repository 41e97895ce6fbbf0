/* background.c -- constant data moved in the background
 * (DUCTILE_REDIST_CONSTANT=nb|wd|thread) and the pending resize that waits
 * for it: tests at control points, adoption of the new buffers, the
 * go/cancel message to the spawned processes, cancellation. */
#include "engine.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

/* ------------------------------------------------------------------ NB (background) transfer of constant data
 *
 * With DUCTILE_REDIST_CONSTANT=nb, distributed items registered as constant
 * (EMPI_CONSTANT) move with one MPI_Ialltoallv each, started at the resize
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

/* Test every request of this process: 1 when all are complete, 0 not yet,
 * -1 on an error (the reason in NB.why; the resize then fails, the world keeps
 * its size and data). */
int nb_test_local(void)
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
    if (all) NB.quiet = 1; /* nothing of this process's part is pending any more (an injected failure follows) */
    /* bgtransfer-first: only the background transfer of the job's first resize fails (the same on
     * every process: the decision's id), so a later resize can show that the failure left nothing behind */
    if (all && ductile_rt.rank == ductile_rt.size - 1 && !M.spawned &&
        (test_fail("bgtransfer") || (test_fail("bgtransfer-first") && NB.id == 0))) {
        snprintf(NB.why, sizeof NB.why, "rank %d: background transfer of constant data failed (injected: "
                 "DUCTILE_TEST_FAIL=bgtransfer)", ductile_rt.rank);
        NB.failed = 1;
        return -1;
    }
    return all;
}

/* Complete this process's part, bounded; sleeping between tests when nap.
 * 0, or -1 (error or time limit; the reason in NB.why). */
int nb_wait_local(int nap)
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
void nb_finish(int adopt)
{
    for (int i = 0; i < NB.n; i++) {
        struct nb_entry *e = &NB.e[i];
        struct reg_item *it = reg_find(e->name);
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

/* A process about to end: the new buffers and the pending transfers'
 * state stay with the MPI until the process exits (their requests may be
 * pending), not a leak to report. */
void nb_abandon_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__)
    for (int i = 0; i < NB.n; i++) {
        if (NB.e[i].dst && !NB.e[i].in_place) __lsan_ignore_object(NB.e[i].dst);
        if (NB.e[i].p) __lsan_ignore_object(NB.e[i].p); /* and what it points to (the collective's arguments) */
    }
#endif
    nb_abandon();
}

/* A failed background transfer: forget it without touching its buffers,
 * requests or windows (MPI may still use them); its window leaves the
 * cache, so that no later transfer frees it with processes that never will. */
void nb_abandon(void)
{
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
    if (!NB.quiet && !NB.failed) (void)nb_test_local();
    return NB.quiet;
}

/* A resize that will not happen, on every process of c (an expansion's
 * merged communicator: old and new processes; a shrink's old world), at the
 * same point: do they all have their background part quiet?  Then what the
 * transfer holds (windows, communicators) can be freed together and the new
 * processes of an expansion can disconnect and end (item 7 of issue 22);
 * otherwise it is abandoned (never freed: the MPI may still use it) and they
 * park.  One MIN allreduce, bounded; the same answer everywhere (0 when it
 * does not complete in time here). */
int nb_agree_quiet(MPI_Comm c)
{
    int q = nb_quiet();
    MPI_Request rq;
    if (PMPI_Iallreduce(MPI_IN_PLACE, &q, 1, MPI_INT, MPI_MIN, c, &rq) != MPI_SUCCESS ||
        wait_bounded(&rq, NB_WAIT_LIMIT_S) != 0)
        return 0;
    return q;
}

/* The transfers of an expansion that will not happen, on every process of
 * its merged communicator in the same order (after nb_agree_quiet): quiet --
 * the background part is released (its windows detached or freed) and the
 * one-sided window over the merged communicator is freed, collectively with
 * the new processes (a cancelled background rma-* expansion left it cached,
 * and the next one-sided resize or MPI_Finalize then called the collective
 * MPI_Win_free without them: issue 22, item 5); not quiet -- both are
 * abandoned (at_exit: in a process about to end). */
void rollback_transfers(int quiet, int nitems, int at_exit)
{
    if (quiet) {
        if (NB.active) nb_finish(0);
        if (nitems) rma_win_transfer_done(0);
        return;
    }
    if (NB.active) {
        if (at_exit) nb_abandon_at_exit();
        else nb_abandon();
    }
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
             NB.col_instead ? " by the collective (Open MPI 4: background one-sided transfers are not safe)" : "");
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

/* Old processes of a pending expansion: tell the spawned ones to switch
 * (status 1) at `iteration` or to leave (0), over the merged communicator
 * (they wait in ductile_malleable_get_shared).  0, or -1 when they do not
 * answer within NB_WAIT_LIMIT_S: no abort, the caller rolls back. */
int pending_go(int status, int iteration)
{
    struct go_msg g = {status, iteration, request_queue_position(&M.q), M.next_id};
    MPI_Request rq;
    if (PMPI_Ibcast(&g, (int)sizeof g, MPI_BYTE, 0, PEND.merged, &rq) != MPI_SUCCESS ||
        wait_bounded(&rq, NB_WAIT_LIMIT_S) != 0) {
        fprintf(stderr, "ductile: warning: rank %d: the spawned processes of resize %d did not answer within %.0f s\n",
                ductile_rt.rank, PEND.d.id, NB_WAIT_LIMIT_S);
        return -1; /* the request stays with the MPI (it cannot be cancelled); the caller rolls back */
    }
    return 0;
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
    (void)nb_wait_local(1); /* bounded: a part still in flight after it is not quiet */
    if (PEND.expand) {
        int quiet = 0;
        if (pending_go(0, M.iteration) == 0) quiet = nb_agree_quiet(PEND.merged); /* with them: join.c */
        rollback_transfers(quiet, PEND.nitems, 0);
        expand_abort(why, quiet);
    } else {
        int quiet = nb_agree_quiet(ductile_rt.private_comm);
        if (quiet) nb_finish(0); /* the world stays, and so does its window */
        else rollback_transfers(0, 0, 0);
        shrink_abort(why);
    }
    reg_thaw(!NB.left_alone); /* the registry changes again; what the program freed meanwhile goes, if safe */
    request_queue_set_busy(&M.q, 0);
}
