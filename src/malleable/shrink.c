/* shrink.c -- shrinking by the Merge method, a transaction
 * (transaction.c): the staying ranks prepare their new blocks, everybody
 * agrees, the leaving ranks' data moves, everybody agrees again; then the
 * staying ranks form the new world and the leaving ones park
 * (departure.c) or stand by (standby.c), or, after a failed agreement, the
 * world keeps its size, buffers and data (shrink_abort). */
#include "engine.h"
#include "reconf.h"

static double tmark; /* step_mark (DUCTILE_VERBOSE=3) */

/* Shrink by the Merge method: the leaving ranks' data moves first, then the
 * staying ranks form the new world.  Collective over the old world. */
void shrink(const struct decision *d, const char *list, double t_begin)
{
    MPI_Comm P = ductile_rt.private_comm;
    int ns = ductile_rt.size, nd = d->nd, me = ductile_rt.rank;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);
    tmark = t_begin;
    step_mark(&tmark, "decided");
    /* without memory for these this process still takes part up to the preparation's agreement */
    char *leaving = txn_calloc((size_t)ns, 1);
    int *n2c = txn_malloc((size_t)nd * sizeof(int)), *o2c = txn_malloc((size_t)ns * sizeof(int));
    int room = leaving && n2c && o2c;
    if (room && list && *list) {
        char err[300]; /* checked at the decision (policy.c): each rank once, below ns */
        if (schedule_mark_ranks(list, ns, (unsigned char *)leaving, err, sizeof err) < 0) memset(leaving, 0, (size_t)ns);
    } else if (room) {
        for (int r = nd; r < ns; r++) leaving[r] = 1;
    }
    int j = 0, my_new = -1;
    for (int r = 0; room && r < ns; r++) {
        o2c[r] = r;
        if (!leaving[r]) {
            if (r == me) my_new = j;
            n2c[j++] = r;
        }
    }
    int new0 = room ? n2c[0] : 0;
    /* DUCTILE_PERSISTENT: the highest ranks leave and the program reads the
     * iteration after control points: they stand by (the standby pool) */
    int standby = 0;
    if (M.persistent && d->method == METHOD_MERGE) {
        int top = room, api = M.iter_api;
        for (int r = 0; room && r < ns; r++)
            if (!!leaving[r] != (r >= nd)) top = 0;
        PMPI_Allreduce(MPI_IN_PLACE, &api, 1, MPI_INT, MPI_MIN, P);
        standby = top && api;
        if (!standby && me == 0)
            snprintf(rec.reason, sizeof rec.reason, "DUCTILE_PERSISTENT: the removed processes leave instead of "
                     "standing by (%s)", !api ? "the program does not call EMPI_Get_iteration()"
                                              : "they are not the highest ranks");
    }
    step_mark(&tmark, "standby agreed");
    int exiting = departure_group_exits(ns, room ? leaving : NULL, d->method == METHOD_MERGE, standby); /* departure.c */
    memset(&PEND, 0, sizeof PEND);
    PEND.exiting = exiting;
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
    /* prepare: the staying ranks' new blocks, then agree */
    char why[TXN_WHY_MAX] = "";
    if (room)
        PEND.prep = prepare_buffers(ns, nd, me, my_new, bg_wanted(d->nb) ? d->nb : 0,
                                    ductile_rt.settings.redist_prepare, why, sizeof why);
    else
        snprintf(why, sizeof why, "rank %d: out of memory", me);
    step_mark(&tmark, "new blocks prepared");
    if (!txn_agree(P, PEND.prep != NULL, why, sizeof why)) {
        shrink_abort(why);
        return;
    }
    step_mark(&tmark, "preparation agreed");
    if (bg_wanted(d->nb)) {
        struct transfer x = {.L = &PEND.L, .method = d->redist, .nb = d->nb, .phase = XF_BG, .id = d->id,
                             .iteration = d->iteration, .ok = 1};
        transfer_run(&x);
        PEND.xt = x.t;
        if (!txn_agree(P, x.ok, x.err, sizeof x.err)) {
            /* what was started completes (bounded), then goes everywhere or nowhere (agreed) */
            (void)nb_drain();
            if (nb_agree_quiet(P)) nb_finish(0);
            else rollback_transfers(0, 0);
            shrink_abort(x.err);
            return;
        }
        PEND.bg = 1;
        PEND.active = 1;
        return;
    }
    shrink_commit(d->iteration);
}

/* The rest of a shrink, at the control point where the background part (if
 * any) is complete everywhere.  Collective over the old world. */
void shrink_commit(int iteration)
{
    const struct decision *d = &PEND.d;
    MPI_Comm P = ductile_rt.private_comm;
    int ns = PEND.ns, nd = PEND.nd, me = ductile_rt.rank, new0 = PEND.new0, standby = PEND.standby;
    char *leaving = PEND.leaving;
    struct report_reconfig rec = PEND.rec;
    int ok = 1;
    char why[TXN_WHY_MAX] = "";
    if (PEND.bg && nb_wait_local(0) != 0) {
        ok = 0;
        snprintf(why, sizeof why, "%s", NB.why);
    }
    struct transfer x = {.L = &PEND.L, .method = d->redist, .nb = CONST_BLOCKING, .phase = PEND.bg ? XF_REST : XF_ALL,
                         .id = d->id, .iteration = iteration, .prep = PEND.prep, .ok = ok};
    transfer_run(&x);
    if (ok && !x.ok) snprintf(why, sizeof why, "%s", x.err);
    ok = x.ok;
    struct xfer_times xt = x.t;
    step_mark(&tmark, "transferred");
    /* agree: every process of the old world completed its part */
    if (!txn_agree_commit(P, ok, why, sizeof why)) {
        rma_win_transfer_done(1); /* the world stays: so does its window */
        if (PEND.bg) {
            /* what was started completes (bounded), then released everywhere or nowhere (a per-process
             * choice freed per-array windows on some only) */
            (void)nb_drain();
            if (nb_agree_quiet(P)) nb_finish(0);
            else rollback_transfers(0, 0);
        }
        shrink_abort(why);
        return;
    }
    /* commit */
    if (PEND.bg) {
        nb_finish(1);
        if (me == new0) nb_note(&rec, iteration);
    }
    step_mark(&tmark, "transfer agreed");
    stage_commit();
    free_prepared(PEND.prep);
    PEND.prep = NULL;
    step_mark(&tmark, "committed");
    xt.transfer_s += PEND.xt.transfer_s;
    xt.window_s += PEND.xt.window_s;
    xt.bytes += PEND.xt.bytes;
    PEND.active = 0;
    if (standby) reduce_times(&xt, new0, P); /* else with the departures' counters (gather_departed_ex) */
    /* the world changes: its window is freed (src/rma/window.c); the standby pool keeps it for W's return */
    rma_win_transfer_done(standby);
    if (!standby) drop_world_xfer(); /* collective over the old world */
    step_mark(&tmark, "window, transfers");
    if (new0 != 0) {
        if (me == 0) send_history(new0, P);
        if (me == new0) recv_history(0, P);
    }
    departing_exit = PEND.exiting;
    if (!standby) gather_departed_ex(P, new0, leaving, iteration, &xt, d->depfns_room);
    departing_exit = 0;
    step_mark(&tmark, "history, departures");
    double tm = ductile_now();
    /* the staying processes alone form the new world (one collective among them, where a split
     * over the old world took an allgather and a context agreement across all): the leaving
     * ones go on at once */
    MPI_Comm S = MPI_COMM_NULL;
    if (!leaving[me]) {
        MPI_Group pg = MPI_GROUP_NULL, sg = MPI_GROUP_NULL;
        PMPI_Comm_group(P, &pg);
        PMPI_Group_incl(pg, nd, PEND.n2c, &sg); /* by old rank, as the world's ranks */
        PMPI_Comm_create_group(P, sg, TAG_NEWWORLD, &S);
        PMPI_Group_free(&sg);
        PMPI_Group_free(&pg);
    }
    step_mark(&tmark, "new world's group");
    if (!PEND.exiting) M.zombies += ns - nd; /* exited processes hold no slot */
    if (standby) { /* the old world W and its transfers stay alive on all its members */
        SB.active = 1;
        SB.world = ductile_world;
        SB.priv = P;
        SB.xfer = M.xfer;
        SB.nbig = ns;
        SB.nsmall = nd;
        SB.left_at = iteration;
        SB.formed_at = ductile_now();
        M.xfer = MPI_COMM_NULL;
    }
    /* the reconfiguration hooks (reconf.c), before the control point returns, over the old world
     * (P, freed only after them); standby processes run them only when they come back (pool_join) */
    reconf_committed(d->id, ns, nd, 0, me, leaving[me] ? -1 : PEND.my_new, iteration,
                     standby ? RECONF_SPAN_NONE : RECONF_SPAN_COMM, P);
    if (leaving[me] && standby) {
        SB.waiting = 1;
        standby_wait(); /* returns taken back into W, or removed */
    } else if (leaving[me] && PEND.exiting) {
        /* the whole newest group leaves: disconnect from the rest, end at MPI_Finalize (departure.c) */
        leave_world();
        reconf_defer_free(&P);
        departure_group_disconnect();
        M.exited = 1;
    } else if (leaving[me]) {
        leave_world();
        M.park_comm = P; /* wait here for the release from new0 */
        M.park_releaser = new0;
    } else {
        MPI_Comm nw, np;
        new_world_adopt(S, &nw, &np); /* S becomes the private communicator */
        set_world(nw, np);
        step_mark(&tmark, "new world");
        if (standby) {
            /* P is W's private communicator: kept by the pool */
        } else if (PEND.exiting) {
            reconf_defer_free(&P); /* nobody to release: the group that left ends on its own */
            departure_group_disconnect();
        } else if (me == new0) {
            int *lv = malloc((size_t)(ns - nd) * sizeof(int)), k = 0;
            if (!lv) abort();
            for (int r = 0; r < ns; r++)
                if (leaving[r]) lv[k++] = r;
            add_duty(P, lv, k);
            free(lv);
        } else {
            reconf_defer_free(&P);
        }
        if (ductile_rt.rank == 0) {
            rec.merge_s = ductile_now() - tm;
            note_transfer(&rec, &xt);
            rec.standby = standby ? ns - nd : 0;
            rec.exited = PEND.exiting ? ns - nd : 0;
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

/* Roll back a shrink (every process of the old world, after a failed
 * agreement): the new blocks go, nobody leaves, the world keeps its size,
 * buffers and data; the record says why. */
void shrink_abort(const char *why)
{
    stage_abort();
    free_prepared(PEND.prep);
    PEND.prep = NULL;
    free(PEND.leaving);
    free(PEND.o2c);
    free(PEND.n2c);
    PEND.leaving = NULL;
    PEND.o2c = PEND.n2c = NULL;
    PEND.active = 0;
    if (ductile_rt.rank == 0) {
        struct report_reconfig rec = PEND.rec;
        rec.total_s = ductile_now() - PEND.t_begin;
        record_problem(&rec, "failed", why);
    }
}
