/* resize.c -- the control point and the decision (see resize.h): rank 0
 * takes a due request, checks it, chooses method and strategy, and
 * broadcasts the decision; every process then runs the expansion
 * (spawn.c), the shrink (shrink.c) or the switch of a pending background
 * resize (background.c).  Also the engine's state (M) and its entry points
 * for src/wrap, registered in the hook table (src/core/hooks.h). */
#include "engine.h"
#include "reconf.h"
#include "steer.h"

struct engine_state M = {.self = MPI_COMM_NULL, .join_comm = MPI_COMM_NULL, .park_comm = MPI_COMM_NULL, .xfer = MPI_COMM_NULL};

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
    if (txn_fault_setup(s->test_fail, s->test_delay, err, errlen) != 0) return -1; /* tests only */
    if (s->schedule && *s->schedule) {
        if (schedule_parse(s->schedule, &rs, &n, err, errlen) != 0) return -1;
        resize_request_free(rs, n);
        free(rs);
    }
#ifdef OMPI_MAJOR_VERSION
    /* rma-* (src/rma/): Open MPI 4.1's default one-sided components cannot create a window over a
     * communicator that spans spawned processes (MPI_ERR_WIN); osc/ucx can.  Set before PMPI_Init. */
    const char *rd = s->redist ? s->redist : "";
    /* a MaM program (src/mam) asking for MaM's one-sided methods (MAM_RED_METHOD 2 or 3) */
    const char *mam = getenv("MAM_RED_METHOD");
    if (!getenv("DUCTILE_REDIST") && mam && (strcmp(mam, "2") == 0 || strcmp(mam, "3") == 0)) rd = "rma-";
    int osc_keep = !s->rma_osc || strcmp(s->rma_osc, "keep") == 0;
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    /* Open MPI 5: its own choice (osc/rdma over btl/sm or tcp) spans spawned processes, and osc/ucx
     * refuses every window without pml/ucx (MPI_ERR_WIN): 'auto' keeps OMPI_MCA_osc as it is */
    if (s->rma_osc && (strcmp(s->rma_osc, "auto") == 0 || !*s->rma_osc)) osc_keep = 1;
#endif
    /* Open MPI 5's mpi_pmix_connect_timeout would bound its spawn's and connect's PMIx_Connect, but with
     * any value set, mpiexec (prterun 5.0.11) never ends after a job that spawned: it spins at 100 % in
     * its own PMIx finalize (pmix_progress_thread_stop -> event_base_free), every process gone.  So it
     * is left as the user set it (docs/malleability.md, "Known limits"). */
    if ((strncmp(rd, "rma-", 4) == 0 || strcmp(rd, "auto") == 0) && !osc_keep && !getenv("OMPI_MCA_osc"))
        setenv("OMPI_MCA_osc",
               strcmp(s->rma_osc, "auto") != 0 && *s->rma_osc ? s->rma_osc
               /* shared blocks (DUCTILE_RMA_MEMORY=shared) need osc/sm; ucx spans spawned processes */
               : s->persistent && s->rma_memory && strcmp(s->rma_memory, "shared") == 0 ? "ucx,sm" : "ucx", 1);
#endif
    if (engine_sizes_from_settings(0, err, errlen) != 0) return -1;
    if (s->spawn_hosts && *s->spawn_hosts) {
        char why[300];
        if (schedule_check_hosts(s->spawn_hosts, NULL, why, sizeof why) != 0) {
            snprintf(err, errlen, "DUCTILE_SPAWN_HOSTS='%s' is not valid: %s", s->spawn_hosts, why);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ decisions */

/* The messages of a transfer for the cost model: the distributed arrays that
 * move (each its own exchange) and the most partners one process has in any
 * of them (plan_max_partners: O(ns + nd) per array, on rank 0). */
static void auto_shape(int ns, int nd, int merge, struct cost_input *in)
{
    in->ns = ns;
    in->nd = nd;
    in->np = merge ? (ns > nd ? ns : nd) : ns + nd;
    in->nx = 0;
    in->partners = 0;
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED || plan_moved_elements(it->d.nrows, ns, nd) <= 0) continue;
        int p = plan_max_partners(it->d.nrows, ns, nd, merge);
        in->nx++;
        if (p > in->partners) in->partners = p;
    }
}

#define COL_BW_DEFAULT 1e9 /* bytes/s before any measurement */
#define RMA_BW_DEFAULT 0.8e9

/* Bandwidths and the latency per message or step from the run's blocking
 * resizes (the latest win): the latency fitted over the col and p2p records
 * when their shapes tell bytes and steps apart (cost_fit), else the default;
 * each method's bandwidth from its latest record, net of its steps. */
static void auto_learn(struct cost_input *in)
{
    enum { FIT = 16 }; /* the latest transfers only */
    double by[FIT], t[FIT], st[FIT], last[3][3] = {{0}};
    int n = 0;
    in->lat_s = COST_LAT_DEFAULT;
    for (int i = M.nhist - 1; i >= 0; i--) { /* the latest first; a shape is computed only when it is used */
        const struct report_reconfig *r = &M.hist[i];
        if (strcmp(r->status, "ok") != 0 || r->bytes_moved == 0 || !(r->transfer_s > 0) || strchr(r->redist, '+'))
            continue;
        int m = strncmp(r->redist, "col", 3) == 0 ? 0 : strncmp(r->redist, "p2p", 3) == 0 ? 1
              : strncmp(r->redist, "rma-lock", 8) == 0 ? 2 : -1;
        if (m < 0 || r->from < 1 || r->to < 1 || (last[m][1] > 0 && (m == 2 || n == FIT))) continue;
        struct cost_input h = *in;
        auto_shape(r->from, r->to, strcmp(r->method, "baseline") != 0, &h);
        int cm = m == 0 ? COST_COL : m == 1 ? COST_P2P : strcmp(r->redist, "rma-lock") == 0 ? COST_RMA_LOCK
                                                                                            : COST_RMA_LOCKALL;
        double steps = (h.nx > 0 ? h.nx : 1) * cost_steps(&h, cm);
        if (!(last[m][1] > 0)) {
            last[m][0] = (double)r->bytes_moved;
            last[m][1] = r->transfer_s;
            last[m][2] = steps;
        }
        if (m < 2 && n < FIT) {
            by[n] = (double)r->bytes_moved;
            t[n] = r->transfer_s;
            st[n++] = steps;
        }
        if (n == FIT && last[2][1] > 0) break;
    }
    double fbw = 0, flat = 0;
    if (cost_fit(by, t, st, n, &fbw, &flat)) in->lat_s = flat > COST_LAT_MIN ? flat : COST_LAT_MIN;
    double *bw[3] = {&in->bw_col, &in->bw_p2p, &in->bw_rma};
    for (int m = 0; m < 3; m++) {
        if (!(last[m][1] > 0)) continue;
        double net = last[m][1] - in->lat_s * last[m][2]; /* the time the bytes took */
        *bw[m] = last[m][0] / (net > 0.1 * last[m][1] ? net : 0.1 * last[m][1]);
    }
    /* col and p2p move the same bytes over the same transport: one measured, both known */
    if (last[0][1] > 0 && !(last[1][1] > 0)) in->bw_p2p = in->bw_col;
    if (last[1][1] > 0 && !(last[0][1] > 0)) in->bw_col = in->bw_p2p;
    /* one-sided never measured: its default keeps its ratio to the measured two-sided bandwidth
     * (a small, latency-bound col transfer must not make an unmeasured rma-* look faster), and
     * the other way round */
    if ((last[0][1] > 0 || last[1][1] > 0) && !(last[2][1] > 0)) in->bw_rma = in->bw_col * (RMA_BW_DEFAULT / COL_BW_DEFAULT);
    if (last[2][1] > 0 && !(last[0][1] > 0 || last[1][1] > 0))
        in->bw_col = in->bw_p2p = in->bw_rma * (COL_BW_DEFAULT / RMA_BW_DEFAULT);
}

/* DUCTILE_REDIST=auto (rank 0): pick method and constant-data strategy with
 * the cost model of src/rma/cost.c, from the registered sizes, the pair, the
 * partners of the block plan, bandwidths and the latency measured at earlier
 * resizes and the iteration time. */
static void choose_auto(int ns, int nd, struct decision *d)
{
    struct cost_input in;
    memset(&in, 0, sizeof in);
    auto_shape(ns, nd, d->method != METHOD_BASELINE, &in);
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED) continue;
        double b = (double)plan_moved_elements(it->d.nrows, ns, nd) * (double)reg_unit_bytes(it);
        if (it->d.constant) in.const_bytes += b;
        else in.var_bytes += b;
    }
#ifdef OMPI_MAJOR_VERSION
    in.col_alg = COST_A2A_PAIRWISE; /* coll/tuned's pairwise exchange */
#else
    in.col_alg = COST_A2A_SCATTERED; /* MPICH's MPIR_Alltoallv_intra_scattered */
#endif
    in.bw_col = COL_BW_DEFAULT;
    in.bw_rma = RMA_BW_DEFAULT;
    in.win_setup_s = 0.02;
    auto_learn(&in);
    for (int i = 0; i < M.nhist; i++) { /* the latest measurements win */
        const struct report_reconfig *r = &M.hist[i];
        if (strcmp(r->status, "ok") != 0) continue;
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

void note_choice(struct report_reconfig *r, const struct decision *d)
{
    if (!d->auto_choice) return;
    snprintf(r->choice, sizeof r->choice, "auto");
    snprintf(r->choice_reason, sizeof r->choice_reason, "%s", d->why);
}

/* Rank 0: turn the due request (if any) into a decision.  Refusals are
 * recorded here and become OP_NONE. */
static void decide(int iteration, struct decision *d, char **list)
{
    memset(d, 0, sizeof *d);
    d->iteration = iteration;
    struct resize_request r;
    /* MPI-IO (src/io/, docs/io.md): a resize waits while a file opened on the
     * virtual world is open; the request stays queued for a later control point. */
    if (ductile_files_block_resize(M.method == METHOD_MERGE && !M.persistent) > 0) { /* file hook (src/world/filekeep.c) */
        d->sched_next = request_queue_position(&M.q);
        return;
    }
    int got = request_queue_take(&M.q, iteration, &r);
    d->sched_next = request_queue_position(&M.q);
    if (!got) return;
    M.command = d->command = r.source == REQUEST_FROM_CONTROLLER ? r.id : 0; /* the records name the command */
    int ns = ductile_rt.size;
    int nd = r.kind == RESIZE_TARGET ? r.value : ns + r.value;
    struct report_reconfig rec;
    int id = M.next_id++;
    /* a delta past the world's size: the record and the message say 0, never a negative size */
    fill_record(&rec, id, iteration, ns, nd < 0 ? 0 : nd, M.method, M.redist, M.nb);
    char why[400] = "";
    /* sparse data is redistributed (src/data/sparse.c): never refused for it */
    struct ductile_sizes sz;
    engine_sizes(&sz); /* the job's size constraints (ductile_set_sizes, DUCTILE_SIZES) */
    struct policy_request pr = {ns, nd, M.method == METHOD_BASELINE, 0, request_list(&r),
                                ductile_rt.settings.spawn_hosts, &sz};
    const char *chosen;
    if (policy_check(&pr, &chosen, why, sizeof why) != 0) { /* pure checks (policy.c) */
        record_problem(&rec, "refused", why);
        resize_request_free(&r, 1);
        return;
    }
    if (*chosen && !(*list = strdup(chosen))) {
        record_problem(&rec, "refused", "out of memory for the request's list");
        resize_request_free(&r, 1);
        return;
    }
    /* the data's own constraints (the program's process grids of N-D blocks: src/data/ndgrid.c) */
    if (ductile_hooks.data_allows && nd >= 1 && !ductile_hooks.data_allows(nd, why, sizeof why)) {
        char full[480];
        snprintf(full, sizeof full, "the job cannot run on %d process%s: %s", nd, nd == 1 ? "" : "es", why);
        record_problem(&rec, "refused", full);
        resize_request_free(&r, 1);
        free(*list);
        *list = NULL;
        return;
    }
    d->op = OP_RESIZE;
    d->nd = nd;
    /* DUCTILE_PERSISTENT: back to the kept world's size, standby processes waiting */
    d->pool = SB.active && ductile_world != SB.world && ns == SB.nsmall && nd == SB.nbig && M.method == METHOD_MERGE &&
              !r.list;
    resize_request_free(&r, 1);
    d->method = M.method;
    d->redist = M.redist;
    d->nb = M.nb;
    if (M.auto_redist) choose_auto(ns, nd, d);
    /* standby processes come back with everything at once; with DUCTILE_PERSISTENT constant data
     * moves blocking too (a background transfer of the first expansion over the prepared world's
     * transfer communicator did not complete with Open MPI 4: not yet supported) */
    if (d->pool || M.persistent) d->nb = CONST_BLOCKING;
    d->id = id;
    size_t ll = *list ? strlen(*list) : 0;
    d->listlen = ll < INT_MAX ? (int)ll : 0; /* a list of 2 GiB: the default placement */
}

/* At MPI_Finalize, on the world's rank 0: requests that were due at the last
 * control point but never ran (behind a background resize still pending, or
 * due at the last control point itself) would vanish without a word; one
 * line on stderr names how many and the first.  Requests for later
 * iterations are not counted: the program ended before them. */
void unrun_requests_note(void)
{
    struct resize_request r;
    int n = 0;
    char first[160] = "";
    while (request_queue_take(&M.q, M.iteration, &r)) {
        if (!n++)
            snprintf(first, sizeof first, "%s %s%d%s%s, due at iteration %d",
                     r.source == REQUEST_FROM_CONTROLLER ? "command" : "DUCTILE_SCHEDULE entry",
                     r.kind == RESIZE_TARGET ? "=" : r.value >= 0 ? "+" : "", r.value, r.list ? "@" : "",
                     r.list ? "LIST" : "", r.iteration < 0 ? M.iteration : r.iteration);
        resize_request_free(&r, 1);
    }
    request_queue_set_busy(&M.q, 0);
    if (n)
        fprintf(stderr, "ductile: warning: %d requested resize%s never ran: the program ended first (at iteration %d) "
                        "while %s (the first: %s)\n", n, n == 1 ? "" : "s", M.iteration,
                "a resize was pending or the request came due at the last control point", first);
}

static int control_point(int iteration);

/* A control point: the resize (if any), then, in a world that changed, the
 * N-D blocks' Cartesian communicators and halos (src/data, through the hook
 * table), collective over the new world: its old processes are here, spawned
 * ones here or in EMPI_Get_shared, standby processes taken back here too
 * (their world is the kept one again, the same handle: hence the epoch, not
 * the handle, tells).  So EMPI_Monitor_end and ductile_control_point behave
 * alike.  Then the reconfiguration hooks of a resize that committed in it
 * (reconf.c): once, before it returns.  Returns 1 when this process's world
 * changed (or it was removed). */
int ductile_malleable_control_point(int iteration)
{
    unsigned e0 = M.world_epoch;
    reconf_begin();
    int changed = control_point(iteration);
    if (!M.removed) {
        if (M.world_epoch != e0) changed = 1;
        if (changed) DUCTILE_HOOK_VOID(data_world_changed, ());
    }
    reconf_end();
    return changed;
}

static int control_point(int iteration)
{
    if (M.removed) return 0;
    if (!M.ready || !ductile_rt.active) {
        M.iteration = iteration; /* Ductile off (DUCTILE_DISABLE=1): EMPI_Get_iteration gives the program's own */
        return 0;
    }
    /* a spawned process at its first control point without EMPI_Get_shared: the
     * parents are waiting in the transfer; receive the data first */
    if (M.join_pending) {
        /* this control point is, for this process, the end of the one where the world grew
         * (the others are already past it, maybe in the program's own collective calls):
         * receive the data and return, without a decision of its own */
        ductile_malleable_get_shared(NULL);
        M.iteration = M.jh.iteration; /* EMPI_Get_iteration: the resize's control point */
        return 1;
    }
    M.iteration = iteration;
    free_buried();
    late_progress(); /* requests of timed-out waits (agree.c) */
    if (ductile_rt.rank == 0) DUCTILE_HOOK_VOID(on_control_point, (iteration)); /* exact iteration for the controller */
    if (ductile_rt.rank == 0) { /* iteration time for the cost model (DUCTILE_REDIST=auto) */
        double t = ductile_now();
        if (M.last_cp > 0 && !NB.active) M.t_it = M.t_it > 0 ? 0.7 * M.t_it + 0.3 * (t - M.last_cp) : t - M.last_cp;
        M.last_cp = t;
    }
    MPI_Comm P = ductile_rt.private_comm;
    if (PEND.active) {
        /* a resize whose constant data moves in the background: the world keeps its
         * size until every process's part is complete; then it switches, here */
        txn_begin(PEND.d.id, ductile_rt.rank); /* its allocations and MPI calls count again (txnfault.h) */
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
            txn_end();
            return 0;
        }
        if (!v[0]) {
            txn_pause();
            return 0;
        }
        MPI_Comm w0 = ductile_world; /* the switch may still be rolled back (its agreement): then it stays */
        ductile_files_detach(); /* file hook: world files closed on the old world */
        if (PEND.expand) expand_commit(iteration);
        else shrink_commit(iteration);
        reg_thaw(!NB.left_alone); /* the registry changes again; what the program freed meanwhile goes */
        if (M.removed) ductile_files_left();                 /* file hook */
        else if (!M.persistent) ductile_files_reattach(); /* file hook: reopened on the new world */
        M.last_cp = ductile_now();
        request_queue_set_busy(&M.q, 0);
        txn_end();
        return M.removed || ductile_world != w0;
    }
    struct decision d;
    char *list = NULL; /* rank 0's decision's hosts or leaving ranks, then everyone's copy */
    if (ductile_rt.rank == 0) {
        decide(iteration, &d, &list);
        d.depfns_room = departed_fns_room(); /* a shrink's departures: no broadcast (records.c) */
        /* the standby processes waited DUCTILE_LEAVE_TIMEOUT (standby.c): the pool goes first, no wake-up */
        if (SB.active && ductile_world != SB.world && pool_expired()) {
            d.release_pool = 1;
            d.pool = 0;
        }
    }
    PMPI_Bcast(&d, (int)sizeof d, MPI_BYTE, 0, P);
    if (ductile_rt.rank != 0) {
        request_queue_set_position(&M.q, d.sched_next);
        if (d.id >= M.next_id) M.next_id = d.id + 1;
    }
    M.command = d.command;
    if (d.release_pool && SB.active && ductile_world != SB.world) pool_release();
    if (d.op != OP_RESIZE) {
        if (ductile_rt.rank == 0) request_queue_set_busy(&M.q, 0); /* a request taken and refused */
        free(list);
        return 0;
    }
    if (d.listlen) { /* the hosts or leaving ranks, of any length: everyone's copy, or the resize refused on all */
        if (ductile_rt.rank != 0) list = malloc((size_t)d.listlen + 1);
        if (ductile_rt.rank == ductile_rt.size - 1 && ductile_rt.rank != 0 && test_fail("list")) { /* injected */
            free(list);
            list = NULL;
        }
        int ok = list != NULL;
        PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, P);
        if (!ok) {
            if (ductile_rt.rank == 0) {
                struct report_reconfig rec;
                fill_record(&rec, d.id, iteration, ductile_rt.size, d.nd, M.method, M.redist, M.nb);
                record_problem(&rec, "refused", "a process is out of memory for the request's host or rank list");
                request_queue_set_busy(&M.q, 0);
            }
            free(list);
            return 0;
        }
        PMPI_Bcast(list, d.listlen + 1, MPI_CHAR, 0, P);
    }
    /* every process registered the same items alike (a flag set on some processes only would put
     * them in different collectives of the transfer): else refused on all, with the item named */
    char rwhy[400];
    if (reg_agree(P, rwhy, sizeof rwhy) != 0) {
        if (ductile_rt.rank == 0) {
            struct report_reconfig rec;
            fill_record(&rec, d.id, iteration, ductile_rt.size, d.nd, M.method, M.redist, M.nb);
            record_problem(&rec, "refused", rwhy);
            request_queue_set_busy(&M.q, 0);
        }
        free(list);
        return 0;
    }
    request_queue_set_busy(&M.q, 1);
    if (SB.active && !d.pool) {
        /* any other resize: standby processes become removed ones; a kept world
         * that is the current one is simply the world again */
        if (ductile_world != SB.world) pool_release();
        else SB.active = 0;
    }
    double t0 = ductile_now(), e0 = epoch();
    int ns = ductile_rt.size;
    txn_begin(d.id, ductile_rt.rank); /* the resize's allocations and MPI calls are counted (txnfault.h) */
    MPI_Comm w0 = ductile_world; /* a committed resize gives a new world; a rolled-back one keeps this one */
    ductile_log(1, "resize %d -> %d at iteration %d (%s%s)", ns, d.nd, iteration,
                d.method == METHOD_BASELINE ? "baseline" : "merge", d.pool ? ", standby processes" : "");
    ductile_files_detach(); /* file hook: world files closed on the old world (src/world/filekeep.c) */
    if (d.nd > ns || d.method == METHOD_BASELINE) expand(&d, list, t0, e0);
    else shrink(&d, list, t0);
    free(list); /* used by the spawn or the choice of leavers: both done */
    if (PEND.active) {
        /* the registry keeps its slots and buffers until the switch (registry.h, reg_freeze) */
        NB.left_alone = 0;
        reg_freeze();
        /* background: the old size goes on (busy until the switch); its files are
         * reopened on the old world until then */
        ductile_files_reattach(); /* file hook */
        txn_pause();
        return 0;
    }
    txn_end();
    if (M.removed) ductile_files_left();                 /* file hook */
    else if (!M.persistent) ductile_files_reattach(); /* file hook: reopened on the new world */
    M.last_cp = ductile_now(); /* the next iteration time excludes the resize */
    request_queue_set_busy(&M.q, 0);
    return M.removed || ductile_world != w0; /* 0: rolled back, nothing changed for the program */
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
    /* the world's rank 0 takes the requests at control points (decide): one queued anywhere else
     * would never be seen, or fire whenever this process became rank 0 */
    int rank = __atomic_load_n(&ductile_rt.rank, __ATOMIC_RELAXED);
    if (rank != 0) {
        snprintf(err, errlen, "resize refused: requests are taken by the world's rank 0, and this process is rank %d "
                 "(call ductile_request_resize on rank 0)", rank);
        return -1;
    }
    /* what can be checked now against the current world (the control point checks again) */
    int ns = __atomic_load_n(&ductile_rt.size, __ATOMIC_RELAXED);
    if (!is_target && delta_or_target < 0 && ns + delta_or_target < 1) {
        snprintf(err, errlen, "resize refused: shrinking below one process is not possible (removing %d of %d "
                 "process%s)", -delta_or_target, ns, ns == 1 ? "" : "es");
        return -1;
    }
    if (!is_target && delta_or_target < 0 && hosts && *hosts) {
        char why[300];
        unsigned char *m = calloc((size_t)ns, 1);
        long n = m ? schedule_mark_ranks(hosts, ns, m, why, sizeof why) : 0;
        free(m);
        if (n < 0) {
            snprintf(err, errlen, "resize refused: %s", why);
            return -1;
        }
    }
    /* a count the job cannot use is refused now, with the reason (and again at the decision,
     * against the size and the constraints of then) */
    int nd = is_target ? delta_or_target : ns + delta_or_target;
    struct ductile_sizes sz;
    engine_sizes(&sz);
    char why[400];
    if (nd != ns && nd >= 1 && !sizes_allows(&sz, nd, why, sizeof why)) {
        snprintf(err, errlen, "resize refused: the job cannot run on %d process%s: %s", nd, nd == 1 ? "" : "es", why);
        return -1;
    }
    if (nd != ns && nd >= 1 && ductile_hooks.data_allows && !ductile_hooks.data_allows(nd, why, sizeof why)) {
        snprintf(err, errlen, "resize refused: the job cannot run on %d process%s: %s", nd, nd == 1 ? "" : "es", why);
        return -1;
    }
    return request_queue_submit(&M.q, delta_or_target, is_target ? RESIZE_TARGET : RESIZE_DELTA, at_iteration,
                                hosts, err, errlen);
}

int ductile_control_point(int iteration) { return ductile_malleable_control_point(iteration); }

/* src/wrap (MPI_Init, MPI_Finalize) and the report reach the engine through the hook table. */
DUCTILE_REGISTER(engine_register)
{
    h->check_settings = ductile_malleable_settings;
    h->engine_init = ductile_malleable_init;
    h->engine_finalize_begin = ductile_malleable_finalize_begin;
    h->engine_finalize_end = ductile_malleable_finalize_end;
    h->reconfig_history = ductile_malleable_history;
    h->departed = ductile_malleable_departed;
}
