/* standby.c -- the standby pool (DUCTILE_PERSISTENT): processes removed by
 * a shrink wait inside the control point with their old world kept, and an
 * expansion back to that size wakes them (no spawn); any other resize
 * releases them.  After DUCTILE_LEAVE_TIMEOUT W's rank 0 releases the pool
 * at its next control point (pool_expired) while the standby processes wait
 * for that release instead of leaving on their own, so that nobody is left
 * waiting for them in a collective call; the wake-up is a bounded wait whose
 * outcome the small world decides together and tells the standby processes
 * (pool_barrier, standby_barrier). */
#include "engine.h"
#include "reconf.h"

struct standby_pool SB = {.world = MPI_COMM_NULL, .priv = MPI_COMM_NULL, .xfer = MPI_COMM_NULL};

/* ------------------------------------------------------------------ standby pool (DUCTILE_PERSISTENT) */

struct standby_msg {
    int32_t op; /* STANDBY_WAKE or STANDBY_RELEASE */
    int32_t left_at;
    struct decision d;
};

/* Every member of the kept world W: W becomes the world again, and the
 * registered data moves from its first nsmall ranks to all nbig over W's
 * transfer communicator, reusing the transfers prepared for this pair. */
int pool_join(const struct decision *d, struct xfer_times *xt, char *why, size_t len)
{
    int me = -1, nbig = SB.nbig, nsmall = SB.nsmall;
    PMPI_Comm_rank(SB.priv, &me);
    memset(xt, 0, sizeof *xt);
    if (reg_count() > 0) {
        int *ident = txn_malloc((size_t)nbig * sizeof(int));
        for (int i = 0; ident && i < nbig; i++) ident[i] = i;
        struct redist_layout L = {SB.xfer, nbig, nsmall, nbig, me < nsmall ? me : -1, me, ident, ident};
        struct transfer x = {.L = &L, .has_new = 1, .method = d->redist, .nb = CONST_BLOCKING, .phase = XF_ALL,
                             .id = d->id, .iteration = d->iteration, .ok = 1};
        int ok = 0;
        if (txn_all_ok(SB.priv, ident != NULL)) { /* every process has its layout */
            transfer_run(&x);
            ok = x.ok;
            snprintf(why, len, "%s", x.err);
            *xt = x.t;
        } else {
            snprintf(why, len, "%s", ident ? "" : "out of memory");
        }
        free(ident);
        rma_win_transfer_done(1); /* W is the world again, or stays kept: its window (if any) serves it */
        if (!txn_agree_commit(SB.priv, ok, why, len)) {
            /* rolled back: every process as it was -- the small world goes on and the standby processes
             * stand by again (the pool stays); W's prepared transfers, which the failed run may have left
             * half-used, are prepared anew at the next wake-up (collective over W) */
            stage_abort();
            release_transfers(SB.xfer);
            return -1;
        }
        stage_commit();
        reduce_times(xt, 0, SB.priv);
    }
    MPI_Comm oldp = ductile_rt.private_comm;
    set_world(SB.world, SB.priv); /* frees the small world's communicator (not W's) */
    if (oldp != SB.priv) comm_free_later(&oldp);
    M.xfer = SB.xfer;
    M.zombies -= nbig - nsmall;
    M.iteration = d->iteration;
    SB.active = 0; /* used up; the next eligible shrink of W forms the pool again */
    SB.waiting = 0;
    reconf_committed(d->id, nsmall, nbig, 0, me < nsmall ? me : -1, me, d->iteration, RECONF_SPAN_WORLD,
                     MPI_COMM_NULL); /* the reconfiguration hooks, at the end of the control point */
    return 0;
}

/* Every member of W: the standby processes become ordinary removed
 * processes (their counters go to W's rank 0, they park in MPI_Finalize
 * until W's rank 0 releases them), and W's communicators and prepared
 * transfers are freed. */
void pool_dissolve(int left_at)
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
            comm_free_later(&SB.priv);
        }
    }
    SB.world = SB.priv = SB.xfer = MPI_COMM_NULL;
}


/* The small world (all its members): tell the standby processes what
 * happens, then take part. */
void pool_send(int op, const struct decision *d)
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

void pool_release(void)
{
    pool_send(STANDBY_RELEASE, NULL);
    pool_dissolve(SB.left_at);
    ductile_log(1, "standby processes released");
}

/* Expansion back to W by waking the standby processes (the small world's side). */
void pool_wake(const struct decision *d, double t_begin)
{
    int ns = ductile_rt.size, nd = d->nd;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);
    double tw = ductile_now();
    pool_send(STANDBY_WAKE, d);
    drop_world_xfer(); /* the small world's own transfers (collective over it) */
    char why[TXN_WHY_MAX] = "";
    if (pool_barrier(why, sizeof why) != 0) { /* with the standby processes: the wake-up, bounded */
        SB.active = SB.waiting = 0; /* W is not usable any more: left alone */
        if (ductile_rt.rank == 0) {
            rec.total_s = ductile_now() - t_begin;
            record_problem(&rec, "failed", why);
        }
        return;
    }
    double wake_s = ductile_now() - tw;
    struct xfer_times xt;
    if (pool_join(d, &xt, why, sizeof why) != 0) {
        if (ductile_rt.rank == 0) {
            rec.total_s = ductile_now() - t_begin;
            record_problem(&rec, "failed", why);
        }
        return;
    }
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

/* The wake-up, the small world's side: a barrier over W, each waiting at
 * most T; then the small world decides together (any_completed over its own
 * communicator: one of them saw the barrier complete, so every standby
 * process is there) and W's rank 0 tells the standby processes.  0, or -1
 * with why set (the pool is abandoned). */
int pool_barrier(char *why, size_t len)
{
    txn_delay("wake");
    double T = resize_timeout();
    MPI_Request rq = MPI_REQUEST_NULL;
    int done = PMPI_Ibarrier(SB.priv, &rq) == MPI_SUCCESS && wait_for(&rq, T) == 1;
    int go = any_completed(ductile_rt.private_comm, done);
    if (go && !done) wait_for(&rq, T); /* everyone is there: it completes */
    settle(NULL, &rq, &SB.priv, 1);
    pool_send(go ? STANDBY_GO : STANDBY_ABANDON, NULL);
    if (!go) snprintf(why, len, "the standby processes were not there at the wake-up within %.0f s "
                      "(DUCTILE_RESIZE_TIMEOUT)", T);
    return go ? 0 : -1;
}

/* The wake-up, a standby process's side: the barrier, then W's rank 0's word,
 * both bounded (3 T).  0: taken back; -1: abandoned, why set. */
static int standby_barrier(char *why, size_t len)
{
    txn_delay("wake");
    double T = resize_timeout();
    MPI_Request rq = MPI_REQUEST_NULL;
    if (PMPI_Ibarrier(SB.priv, &rq) != MPI_SUCCESS || wait_for(&rq, 3 * T) != 1) settle(NULL, &rq, &SB.priv, 1);
    struct standby_msg m;
    memset(&m, 0, sizeof m);
    MPI_Request r2 = MPI_REQUEST_NULL;
    int got = PMPI_Irecv(&m, (int)sizeof m, MPI_BYTE, 0, TAG_STANDBY, SB.priv, &r2) == MPI_SUCCESS &&
              wait_for(&r2, 3 * T) == 1;
    if (!got && r2 != MPI_REQUEST_NULL) { /* its word never came: the receive is withdrawn */
        PMPI_Cancel(&r2);
        PMPI_Wait(&r2, MPI_STATUS_IGNORE);
    }
    if (got && m.op == STANDBY_GO) return 0;
    snprintf(why, len, "the wake-up %s", got ? "was abandoned by the kept world" : "got no word within the time limit");
    return -1;
}

/* W's rank 0, at a control point while the pool waits: 1 once the standby
 * processes have waited DUCTILE_LEAVE_TIMEOUT (they then wait for their
 * release, see standby_wait).  Local; no message, so nothing is left
 * unmatched on W's communicators. */
int pool_expired(void)
{
    return ductile_now() > SB.formed_at + (double)ductile_rt.settings.leave_timeout;
}

/* A standby process, inside the control point of the shrink that removed
 * it: wait (asleep between probes) for W's rank 0 to take it back or to
 * release it.  After DUCTILE_LEAVE_TIMEOUT W's rank 0 releases it at its
 * next control point (at the latest at its MPI_Finalize): it goes on
 * waiting for that; only when W does not answer for another
 * DUCTILE_LEAVE_TIMEOUT does it leave on its own (W is gone). */
void standby_wait(void)
{
    double deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
    int asked = 0;
    struct timespec nap = {0, 2 * 1000 * 1000};
    for (;;) {
        int flag = 0;
        if (PMPI_Iprobe(0, TAG_STANDBY, SB.priv, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) flag = -1;
        if (flag == 1) {
            struct standby_msg m;
            PMPI_Recv(&m, (int)sizeof m, MPI_BYTE, 0, TAG_STANDBY, SB.priv, MPI_STATUS_IGNORE);
            if (m.op == STANDBY_WAKE) {
                struct xfer_times xt;
                int me = -1;
                PMPI_Comm_rank(SB.priv, &me);
                txn_begin(m.d.id, me); /* a standby process counts after the small world's (txnfault.h) */
                request_queue_set_position(&M.q, m.d.sched_next);
                if (m.d.id >= M.next_id) M.next_id = m.d.id + 1;
                char why[TXN_WHY_MAX] = "";
                if (standby_barrier(why, sizeof why) != 0) { /* the wake-up (pool_wake), bounded */
                    fprintf(stderr, "ductile: warning: standby process (pid %ld): %s; leaving\n", (long)getpid(), why);
                    SB.active = SB.waiting = 0;
                    leave_world();
                } else if (pool_join(&m.d, &xt, why, sizeof why) == 0) {
                    ductile_log(1, "taken back from standby as rank %d of %d at iteration %d", ductile_rt.rank,
                                ductile_rt.size, m.d.iteration);
                } else { /* rolled back (pool_join): stands by again for the next wake-up or the release */
                    txn_end();
                    ductile_log(1, "standby process (pid %ld): the wake-up was rolled back (%s); stands by again",
                                (long)getpid(), why);
                    deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
                    continue;
                }
                txn_end();
            } else {
                pool_dissolve(m.left_at);
            }
            return;
        }
        if (flag == 0 && !asked && ductile_now() > deadline) {
            /* W's rank 0 releases the pool at its first control point after the same time (pool_expired) */
            ductile_log(1, "standby process (pid %ld) not taken back within DUCTILE_LEAVE_TIMEOUT: waits for its "
                        "release", (long)getpid());
            asked = 1;
            deadline = ductile_now() + (double)ductile_rt.settings.leave_timeout;
        } else if (flag < 0 || ductile_now() > deadline) {
            fprintf(stderr, "ductile: warning: standby process (pid %ld) %s; leaving\n", (long)getpid(),
                    flag < 0 ? "lost its world" : "was not released by its world within DUCTILE_LEAVE_TIMEOUT");
            SB.active = SB.waiting = 0;
            leave_world();
            return;
        }
        nanosleep(&nap, NULL);
    }
}
