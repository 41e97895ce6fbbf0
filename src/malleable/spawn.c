/* spawn.c -- expansion (Merge: ND-NS new processes; Baseline: ND new
 * processes, the old ones leave), a transaction (transaction.c): prepare
 * (what can fail is checked, new blocks allocated), spawn (collectively with
 * MPICH, from rank 0 alone with Open MPI: SPAWN_COLLECTIVE in engine.h),
 * connect and merge, agree on the preparation with the new processes,
 * transfer, agree on the transfer, then commit (expand_commit: the world
 * switches) or roll back (expand_abort, or spawn_cancel before the merge: the
 * new processes park, the old world goes on).  With Open MPI 4.1 the spawn
 * can be parallel (DUCTILE_SPAWN_PARALLEL, pspawn.c). */
#include "engine.h"
#include "prep_thread.h"
#include "reconf.h"
#include "launch_step.h"
#include "pspawn.h"

/* ------------------------------------------------------------------ spawning */
#if !SPAWN_COLLECTIVE
/* rank 0: the port the spawned processes connect to (connect_group, join.c's join_parents) */
static char spawn_port[MPI_MAX_PORT_NAME];

/* Opened with the checks, before anything starts: its failure is a refused spawn. */
static int open_spawn_port(char *why, size_t len)
{
    int rc = PMPI_Open_port(MPI_INFO_NULL, spawn_port);
    if (rc == MPI_SUCCESS) return 0;
    char m[400];
    ductile_mpi_error_text(rc, m, sizeof m);
    snprintf(why, len, "MPI_Open_port failed: %.300s", m);
    spawn_port[0] = '\0';
    return -1;
}

static void close_spawn_port(void)
{
    if (ductile_rt.rank == 0 && spawn_port[0]) PMPI_Close_port(spawn_port);
    spawn_port[0] = '\0';
}
#endif

/* Start the nnew processes (cmd and args matter on rank 0 only).  Returns
 * 1 when they all started, the same answer on every parent; *inter is the
 * intercommunicator to them on every parent (SPAWN_COLLECTIVE) or on rank 0
 * only (the other path), MPI_COMM_NULL where there is none; why (rank 0)
 * names a failure. */
static int spawn_group(const char *cmd, char **args, int nnew, const char *hosts, int *errcodes, MPI_Comm *inter,
                       double *spawn_s, char *why, size_t len)
{
    MPI_Comm P = ductile_rt.private_comm;
    int me = ductile_rt.rank, ok = 1;
    *inter = MPI_COMM_NULL;
    if (launch_step_direct()) return launch_step_group(cmd, args, nnew, hosts, inter, spawn_s, why, len); /* srun */
#if SPAWN_COLLECTIVE
    MPI_Comm over = P;
#else
    MPI_Comm over = M.self;
    if (me == 0) {
#endif
    MPI_Info info = me == 0 ? spawn_info(hosts) : MPI_INFO_NULL;
    /* errcodes: an array on every parent (MPICH broadcasts the root's codes to the parents that pass one:
     * all or none must), allocated and agreed before the spawn */
    double ts = ductile_now();
    if (me == 0) ductile_log(1, "spawning %d process%s of %s", nnew, nnew == 1 ? "" : "es", cmd);
    txn_delay("spawn");
    int rc = ductile_spawn_marked(cmd, args, nnew, info, over, inter, errcodes); /* marker hook (src/world/worldid.c) */
    *spawn_s = ductile_now() - ts;
    if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS) *inter = MPI_COMM_NULL; /* not a usable handle after a failed spawn */
    ok = rc == MPI_SUCCESS && *inter != MPI_COMM_NULL;
    if (rc != MPI_SUCCESS) {
        char m[400];
        ductile_mpi_error_text(rc, m, sizeof m);
        snprintf(why, len, "MPI_Comm_spawn of %d process%s of %.200s failed: %.250s", nnew, nnew == 1 ? "" : "es",
                 cmd, m);
    } else {
        for (int i = 0; me == 0 && i < nnew && errcodes; i++) /* the codes are the root's */
            if (errcodes[i] != MPI_SUCCESS) {
                char m[400];
                ductile_mpi_error_text(errcodes[i], m, sizeof m);
                snprintf(why, len, "MPI_Comm_spawn: process %d of %d did not start: %.300s", i, nnew, m);
                ok = 0;
                break;
            }
    }
#if SPAWN_COLLECTIVE
    if (ok && me == 0 && test_fail("spawn")) {
        /* injected after the spawn: the new processes run and must be sent away (spawn_cancel) */
        ok = 0;
        snprintf(why, len, "MPI_Comm_spawn refused (injected: DUCTILE_TEST_FAIL=spawn, after the processes started)");
    }
    /* one answer for all: the outcome, and whether every parent holds the intercommunicator */
    int v[2] = {ok, *inter != MPI_COMM_NULL};
    PMPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, P);
    if (!v[1] && *inter != MPI_COMM_NULL) {
        /* the MPI answered differently on different parents (not seen with MPICH): nothing
         * collective with the children is possible; the handle goes */
        fprintf(stderr, "ductile: warning: rank %d: MPI_Comm_spawn succeeded here but not on every process\n", me);
        PMPI_Comm_free(inter);
    }
    if (!v[0] && !why[0]) snprintf(why, len, "MPI_Comm_spawn of %d process%s failed on another process", nnew,
                                   nnew == 1 ? "" : "es");
    return v[0];
#else
    }
    /* the other parents wait here while rank 0 spawns, asleep (the cores go to the spawn and the new
     * processes' start), bounded: rank 0 takes a spawn longer than T as failed (its processes are sent
     * away), the others give up at 2 T -- by then rank 0's spawn took more than T: the same decision */
    double T = resize_timeout();
    if (me == 0 && ok && *spawn_s > T) {
        ok = 0;
        snprintf(why, len, "MPI_Comm_spawn took %.1f s, more than DUCTILE_RESIZE_TIMEOUT (%.0f s)", *spawn_s, T);
    }
    int *b = malloc(sizeof *b);
    int got = -1;
    MPI_Request rq = MPI_REQUEST_NULL;
    if (b) {
        *b = ok;
        got = PMPI_Ibcast(b, 1, MPI_INT, 0, P, &rq) == MPI_SUCCESS ? wait_for(&rq, me == 0 ? T : 2 * T) : -1;
        if (got == 1) ok = *b;
    }
    if (me != 0 && got != 1) {
        ok = 0;
        snprintf(why, len, "rank %d: no outcome of rank 0's MPI_Comm_spawn within %.0f s", me, 2 * T);
    }
    if (b) settle(b, &rq, &P, 1); /* rank 0's answer arriving later: b kept until then */
    return ok;
#endif
}

#if !SPAWN_COLLECTIVE
/* Before the accept (rank 0 spawned alone), bounded: the new processes tell
 * rank 0 that all of them are at their MPI_Comm_connect (join.c); rank 0
 * decides within T whether the parents accept (also no when more than 1.5 T
 * passed since `since`, when the other parents began to wait: they give up
 * at 2 T), and tells the parents and the new processes.  The accept then
 * waits only for processes that are there.  0: they did not come in time:
 * they park until rank 0 releases them (departure.c), the resize fails. */
static int children_ready(MPI_Comm inter0, int nnew, double since)
{
    double T = resize_timeout();
    int me = ductile_rt.rank;
    int *b = calloc(2, sizeof *b); /* the decision, and the word of the new processes */
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (!b) return 0;
    if (me == 0) {
        int got = PMPI_Irecv(&b[1], 1, MPI_INT, 0, TAG_READY, inter0, &r[0]) == MPI_SUCCESS ? wait_for(&r[0], T) : -1;
        b[0] = got == 1 && b[1] == 1 && ductile_now() - since <= 1.5 * T;
    }
    int go = PMPI_Ibcast(b, 1, MPI_INT, 0, ductile_rt.private_comm, &r[1]) == MPI_SUCCESS &&
             wait_for(&r[1], me == 0 ? T : 2 * T) == 1 && b[0];
    if (me == 0) { /* the new processes hear it too */
        if (PMPI_Ibcast(b, 1, MPI_INT, MPI_ROOT, inter0, &r[2]) == MPI_SUCCESS) wait_for(&r[2], T);
        if (!go) {
            int *lv = malloc((size_t)(nnew ? nnew : 1) * sizeof *lv);
            for (int i = 0; lv && i < nnew; i++) lv[i] = i; /* the new processes in inter0's remote group */
            if (lv) add_duty(inter0, lv, nnew);
            free(lv);
            M.zombies += nnew;
        }
    }
    MPI_Comm cc[3] = {inter0, ductile_rt.private_comm, inter0};
    settle(b, r, cc, 3); /* requests still pending (a late word, a slow peer) keep b until they complete */
    if (!go)
        fprintf(stderr, "ductile: warning: rank %d: the new processes did not reach MPI_Comm_connect within %.0f s; "
                        "the resize fails\n", me, T);
    return go;
}
#endif

/* The header and the registrations (ds, rank 0) to the new processes, then
 * the merged communicator (the parents first, the new processes after them).
 * *inter becomes the intercommunicator between all parents and the new
 * processes; the one from rank 0 alone (other path) goes to departure.c.
 * *ok = 0 when an MPI call here reported an error (the preparation's
 * agreement then rolls back). */
static MPI_Comm connect_group(const struct join_header *h, const struct reg_desc *ds, MPI_Comm *inter, int *ok,
                              double since)
{
    (void)since;
    int me = ductile_rt.rank;
    MPI_Comm merged = MPI_COMM_NULL;
    if (*inter != MPI_COMM_NULL) {
        int root = me == 0 ? MPI_ROOT : MPI_PROC_NULL;
        PMPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
        if (txn_mpi(PMPI_Bcast((void *)h, (int)sizeof *h, MPI_BYTE, root, *inter)) != MPI_SUCCESS) *ok = 0;
        for (int k = 0; k < h->nitems; k += JOIN_DESC_CHUNK) { /* in pieces: see JOIN_DESC_CHUNK */
            int n = h->nitems - k < JOIN_DESC_CHUNK ? h->nitems - k : JOIN_DESC_CHUNK;
            if (txn_mpi(PMPI_Bcast(me == 0 ? (void *)(ds + k) : NULL, me == 0 ? n * (int)sizeof *ds : 0, MPI_BYTE,
                                   root, *inter)) != MPI_SUCCESS)
                *ok = 0;
        }
    }
#if SPAWN_COLLECTIVE
    PMPI_Intercomm_merge(*inter, 0, &merged);
#else
    /* rank 0 spawned alone: one MPI_Comm_accept (all parents, root 0) meets the
     * children's MPI_Comm_connect (all of them, root 0) on a port rank 0 opened
     * and sent them with the header; then one merge (join.c, join_parents) */
    MPI_Comm inter0 = *inter;
    double tc = ductile_now();
    if (me == 0) {
        if (txn_mpi(PMPI_Bcast(spawn_port, MPI_MAX_PORT_NAME, MPI_CHAR, MPI_ROOT, inter0)) != MPI_SUCCESS) *ok = 0;
        add_inter(inter0);
        departure_inter0_pending = inter0;
    }
    *inter = MPI_COMM_NULL;
    if (!children_ready(inter0, h->nnew, since)) { /* they park; the caller rolls back */
        close_spawn_port();
        return MPI_COMM_NULL;
    }
    step_mark(&tc, "new processes ready");
    int rc = PMPI_Comm_accept(spawn_port, MPI_INFO_NULL, 0, ductile_rt.private_comm, inter);
    close_spawn_port();
    if (rc != MPI_SUCCESS) join_failed("MPI_Comm_accept", rc);
    step_mark(&tc, "accepted");
    PMPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
    rc = PMPI_Intercomm_merge(*inter, 0, &merged);
    if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_merge", rc);
#endif
    PMPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    return merged;
}

/* Expansion (Merge: ND-NS new; Baseline: ND new, the old ones leave).  Collective over the old world. */
void expand(const struct decision *d, const char *hosts, double t_begin, double begin_epoch)
{
    if (d->pool) {
        pool_wake(d, t_begin);
        return;
    }
    int ns = ductile_rt.size, nd = d->nd, me = ductile_rt.rank;
    int baseline = d->method == METHOD_BASELINE;
    int nnew = baseline ? nd : nd - ns;
    struct report_reconfig rec;
    fill_record(&rec, d->id, d->iteration, ns, nd, d->method, d->redist, d->nb);
    note_choice(&rec, d);
    rec.start_s = ductile_elapsed() - (ductile_now() - t_begin);
    double tmark = t_begin;
    step_mark(&tmark, "decided");

    char cmd[4096], why[512] = "";
    char **args = NULL;
    int ok = spawn_command(cmd, sizeof cmd, &args) == 0;
    if (!ok) snprintf(why, sizeof why, "rank %d: cannot determine the program to spawn (or out of memory)", me);
    /* rank 0: the registrations sent to the new processes */
    struct reg_desc *ds = me == 0 && reg_count() ? txn_calloc((size_t)reg_count(), sizeof *ds) : NULL;
    if (ok && me == 0 && reg_count() && !ds) {
        ok = 0;
        snprintf(why, sizeof why, "rank 0: out of memory");
    }
    for (int i = 0; ds && i < reg_count(); i++) ds[i] = reg_at(i)->d;
    int *errcodes = txn_calloc((size_t)nnew, sizeof *errcodes); /* the spawn's error codes (spawn_group) */
    if (ok && !errcodes) {
        ok = 0;
        snprintf(why, sizeof why, "rank %d: out of memory", me);
    }
    int par = pspawn_wanted(d, nnew); /* the same on every process */
    /* what can be known to fail is refused before anything starts (rank 0) */
    if (ok && me == 0 && !SPAWN_COLLECTIVE && test_fail("spawn")) {
        ok = 0;
        snprintf(why, sizeof why, "MPI_Comm_spawn refused (injected: DUCTILE_TEST_FAIL=spawn)");
    } else if (ok && me == 0 &&
               precheck_spawn(cmd, hosts, ns, nnew, par ? (ns < nnew ? ns : nnew) : 1, why, sizeof why) != 0) {
        ok = 0;
    }
#if !SPAWN_COLLECTIVE
    if (ok && me == 0 && !par && open_spawn_port(why, sizeof why) != 0) ok = 0;
#endif
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ductile_rt.private_comm);
    if (!ok) {
        free(args);
        free(ds);
        free(errcodes);
#if !SPAWN_COLLECTIVE
        close_spawn_port();
#endif
        if (me == 0) {
            rec.total_s = ductile_now() - t_begin;
            record_problem(&rec, "failed", why[0] ? why : "cannot determine the program to spawn");
        }
        return;
    }
    step_mark(&tmark, "checked");
    /* prepare: allocate the new blocks now (Open MPI: during the spawn and the merge,
     * prep_start); DUCTILE_REDIST_PREPARE also touches them, instead of page-faulting
     * them inside the transfer */
    int prepare = !baseline && ductile_rt.settings.redist_prepare && reg_count() > 0;
    struct prep_job pj = {.ns = ns, .nd = nd, .me = me, .my_new = baseline ? -1 : me,
                          .nb = bg_wanted(d->nb) ? d->nb : 0, .touch = prepare};
    prep_start(&pj);
    MPI_Comm inter = MPI_COMM_NULL;
    double spawn_s = 0;
    struct pspawn ps = {0};
    int okall = par ? pspawn_start(&ps, cmd, args, nnew, hosts, &spawn_s, why, sizeof why)
                    : spawn_group(cmd, args, nnew, hosts, errcodes, &inter, &spawn_s, why, sizeof why);
    rec.spawn_groups = par ? ps.k : launch_step_direct() ? 0 : 1;
    double since = ductile_now(); /* the other parents wait for rank 0's words from about now */
    free(args);
    free(errcodes);
    step_mark(&tmark, "spawned");
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
    h.command = d->command;
    h.auto_choice = d->auto_choice;
    snprintf(h.why, sizeof h.why, "%s", d->why);
    h.groups = par ? ps.k : 0;
    h.spawn_groups = rec.spawn_groups;
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
#if !SPAWN_COLLECTIVE
        close_spawn_port();
#endif
        free_prepared(prep_finish(&pj));
        free(ds);
        int started = inter != MPI_COMM_NULL; /* the injected failure, an error code: they run */
        int gone = spawn_cancel(&h, &inter, me == 0); /* the new processes (if running) end, or park */
        if (started) {
            rec.exited = gone ? nnew : 0;
            rec.parked = gone ? 0 : nnew;
        }
        if (par) pspawn_cancel(&ps, &h, &rec.exited, &rec.parked); /* each group by its parent */
        if (me == 0) {
            rec.spawn_s = spawn_s;
            M.zombies += rec.parked;
            rec.total_s = ductile_now() - t_begin;
            record_problem(&rec, "failed", why);
        }
        return;
    }
    double tm = ductile_now();
    int okc = 1;
    MPI_Comm merged = par ? pspawn_connect(&ps, &h, ds, &inter, &okc, why, sizeof why)
                          : connect_group(&h, ds, &inter, &okc, since);
    free(ds);
    if (merged == MPI_COMM_NULL) { /* the new processes did not connect in time (Open MPI 4.1): they park */
        free_prepared(prep_finish(&pj));
        if (me == 0) {
            rec.spawn_s = spawn_s;
            rec.total_s = ductile_now() - t_begin;
            rec.parked = nnew;
            if (!par)
                snprintf(why, sizeof why, "the new processes did not reach MPI_Comm_connect within %.0f s "
                         "(DUCTILE_RESIZE_TIMEOUT)", resize_timeout());
            record_problem(&rec, "failed", why);
        }
        return;
    }
    step_mark(&tmark, "merged");
    MPI_Comm nw = MPI_COMM_NULL, np = MPI_COMM_NULL, nx = MPI_COMM_NULL;
    if (!baseline) join_world(inter, 0, merged, &nw, &np); /* merged becomes the new world's private communicator */
    if (!baseline && M.persistent) { /* the new world's transfer communicator: its prepared transfers live there */
        PMPI_Comm_dup(np, &nx);
        PMPI_Comm_set_errhandler(nx, MPI_ERRORS_RETURN);
    }
    double merge_s = ductile_now() - tm;
    step_mark(&tmark, "new world made");
    char prep_why[TXN_WHY_MAX];
    void **prep = prep_finish(&pj);
    snprintf(prep_why, sizeof prep_why, "%s", pj.why);
    step_mark(&tmark, "new blocks prepared");

    int *o2c = txn_malloc((size_t)ns * sizeof(int)), *n2c = txn_malloc((size_t)nd * sizeof(int));
    if (!okc) snprintf(prep_why, sizeof prep_why, "rank %d: sending the registrations to the new processes failed",
                       me);
    if (!o2c || !n2c) snprintf(prep_why, sizeof prep_why, "rank %d: out of memory", me);
    for (int i = 0; o2c && i < ns; i++) o2c[i] = i;
    for (int j = 0; n2c && j < nd; j++) n2c[j] = baseline ? ns + j : j;
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
    /* agree on the preparation (the new processes: their registrations, their buffers) */
    if (!txn_agree(merged, prep && o2c && n2c && okc, prep_why, sizeof prep_why)) {
        expand_abort(prep_why, 1); /* the new processes are at the same agreement (join.c) */
        return;
    }
    step_mark(&tmark, "preparation agreed");
    if (h.nitems && bg_wanted(d->nb)) {
        /* constant data starts moving; the world stays at the old size until it has arrived */
        struct transfer x = {.L = &PEND.L, .has_new = 1, .method = d->redist, .nb = d->nb, .phase = XF_BG,
                             .id = d->id, .iteration = d->iteration, .warm = h.prepare, .ok = 1};
        transfer_run(&x);
        PEND.xt = x.t;
        if (!txn_agree(merged, x.ok, x.err, sizeof x.err)) {
            /* what was started completes (bounded); with the new processes (join.c): released together
             * when nothing is in flight anywhere, else left alone */
            (void)nb_drain();
            int quiet = nb_agree_quiet(merged);
            rollback_transfers(quiet, PEND.nitems);
            expand_abort(x.err, quiet);
            return;
        }
        PEND.bg = 1;
        PEND.active = 1;
        return;
    }
    expand_commit(d->iteration);
}

/* The rest of an expansion (old processes), at the control point where the
 * background part (if any) is complete everywhere: variable data, world switch. */
void expand_commit(int iteration)
{
    const struct decision *d = &PEND.d;
    int ns = PEND.ns, nd = PEND.nd, me = ductile_rt.rank, baseline = d->method == METHOD_BASELINE;
    MPI_Comm merged = PEND.merged;
    struct report_reconfig rec = PEND.rec;
    int ok = 1;
    char why[TXN_WHY_MAX] = "";
    if (PEND.bg) {
        if (!pending_go(1, iteration)) {
            /* the new processes were not all there in time: they are told to leave (background.c); what
             * was started completes (bounded), then goes together with them when quiet everywhere (join.c) */
            (void)nb_drain();
            int quiet = nb_agree_quiet(merged);
            rollback_transfers(quiet, PEND.nitems);
            snprintf(why, sizeof why, "the spawned processes were not there at the switch within %.0f s "
                     "(DUCTILE_RESIZE_TIMEOUT)", resize_timeout());
            expand_abort(why, quiet);
            return;
        }
        if (nb_wait_local(0) != 0) {
            ok = 0;
            snprintf(why, sizeof why, "%s", NB.why);
        }
    }
    struct transfer x = {.L = &PEND.L, .has_new = 1, .method = d->redist, .nb = CONST_BLOCKING,
                         .phase = PEND.bg ? XF_REST : XF_ALL, .id = d->id, .iteration = iteration, .prep = PEND.prep,
                         .warm = PEND.warm, .ok = ok};
    double tmark = ductile_now();
    if (PEND.nitems) transfer_run(&x);
    if (ok && !x.ok) snprintf(why, sizeof why, "%s", x.err);
    ok = x.ok;
    struct xfer_times xt = x.t;
    step_mark(&tmark, "transferred");
    /* agree: every process of the merged communicator completed its part */
    if (!txn_agree_commit(merged, ok, why, sizeof why)) {
        /* with the new processes (join.c): the window over the merged communicator and the background
         * part go together when nothing is in flight anywhere, else they are left alone */
        (void)nb_drain();
        int quiet = nb_agree_quiet(merged);
        rollback_transfers(quiet, PEND.nitems);
        expand_abort(why, quiet);
        return;
    }
    step_mark(&tmark, "transfer agreed");
    /* commit */
    if (PEND.bg) {
        nb_finish(1);
        if (me == 0) nb_note(&rec, iteration);
    }
    stage_commit();
    if (baseline) gather_departed(ductile_rt.private_comm, 0, NULL, iteration); /* all old processes leave */
    if (baseline && me == 0) send_history(ns, merged);
    if (PEND.nitems) {
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
    departure_group_joined(!baseline && !M.persistent, ns, PEND.nnew, PEND.inter, departure_inter0_pending);
    if (baseline) {
        /* all old processes leave; the new rank 0 (merged rank ns) releases them at its MPI_Finalize */
        M.zombies += ns;
        MPI_Comm oldp = ductile_rt.private_comm;
        leave_world();
        comm_free_later(&oldp);
        M.park_comm = merged;
        M.park_releaser = ns;
        if (me == 0) ductile_log(1, "baseline resize %d -> %d: old processes leave", ns, nd);
    } else {
        MPI_Comm oldp = ductile_rt.private_comm;
        drop_world_xfer(); /* the old world's prepared transfers (collective over it) */
        M.xfer = PEND.nx;
        set_world(PEND.nw, PEND.np); /* PEND.np is merged (join_world) */
        comm_free_later(&oldp);
        step_mark(&tmark, "committed");
        if (ductile_rt.rank == 0) {
            note_transfer(&rec, &xt);
            rec.total_s = record_total(&rec, ductile_now() - PEND.t_begin);
            add_record(&rec);
            ductile_log(1, "expanded %d -> %d in %.3f s (spawn %.3f, merge %.3f, transfer %.4f)", ns, nd,
                        rec.total_s, rec.spawn_s, rec.merge_s, xt.transfer_s);
        }
    }
    /* the hooks (reconf.c), before the control point returns; Baseline: old and new meet over merged */
    reconf_committed(d->id, ns, nd, baseline, me, baseline ? -1 : me, iteration,
                     baseline ? RECONF_SPAN_COMM : RECONF_SPAN_WORLD, baseline ? merged : MPI_COMM_NULL);
}

/* Roll back an expansion (old processes): the new blocks go, the old world
 * goes on, the new processes leave (join.c's join_abort).  together: they
 * are at the matching point and nothing is in flight; where the runtime
 * allows it (departure_rollback_exits) both sides free every communicator
 * between them and disconnect, and they end at once (issue 22, item 7);
 * else they park until this world's rank 0 releases them at its
 * MPI_Finalize (departure.c), and nothing collective is called here. */
void expand_abort(const char *why, int together)
{
    int me = ductile_rt.rank;
    int leave = together && departure_rollback_exits(M.persistent);
    stage_abort();
    free_prepared(PEND.prep);
    PEND.prep = NULL;
    MPI_Comm inter0 = departure_inter0_pending; /* Open MPI 4: rank 0's spawn, or each parent's (pspawn.c) */
    departure_group_forget(); /* the spawned group never joined the world */
    if (PEND.np == PEND.merged) PEND.np = MPI_COMM_NULL; /* one communicator (join_world): handled below */
    MPI_Comm *c[] = {&PEND.nw, &PEND.np, &PEND.nx};
    for (int i = 0; i < 3; i++)
        if (*c[i] != MPI_COMM_NULL) PMPI_Comm_free(c[i]);
    if (leave) {
        comm_free_later(&PEND.merged);
        departure_disconnect(&PEND.inter, &inter0); /* collective with the new processes (join_cancelled) */
    } else if (me == 0) {
        add_inter(PEND.inter);
        int *lv = malloc((size_t)(PEND.nnew ? PEND.nnew : 1) * sizeof(int));
        if (!lv) abort();
        for (int i = 0; i < PEND.nnew; i++) lv[i] = PEND.ns + i; /* merged ranks of the new processes */
        add_duty(PEND.merged, lv, PEND.nnew);
        free(lv);
        M.zombies += PEND.nnew;
    } else {
        add_inter(PEND.inter);
        comm_free_later(&PEND.merged); /* (requests of timed-out waits may still use it: agree.c) */
    }
    free(PEND.o2c);
    free(PEND.n2c);
    PEND.o2c = PEND.n2c = NULL;
    PEND.active = 0;
    if (me == 0) {
        struct report_reconfig rec = PEND.rec;
        rec.total_s = ductile_now() - PEND.t_begin;
        rec.exited = leave ? PEND.nnew : 0; /* the resized event tells ductiled which hold slots */
        rec.parked = leave ? 0 : PEND.nnew;
        record_problem(&rec, "failed", why);
    }
}
