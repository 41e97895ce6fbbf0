/* join.c -- the spawned processes' side of an expansion: joining the
 * parents inside MPI_Init (ductile_malleable_init), checking the
 * registration and receiving the data in EMPI_Get_shared. */
#include "engine.h"
#include "steer.h"
#include "../redist/chunk.h"
#include "reconf.h"
#include "launch_step.h"
#include "pspawn.h"

/* ------------------------------------------------------------------ init / join */

/* The new world's two communicators once the two jobs are merged (Merge
 * method; both sides at the same point): merged becomes the private
 * communicator, as in new_world_adopt.  The world itself is a duplicate of
 * it with MPICH; with Open MPI a second merge of the intercommunicator,
 * which costs half as much as a duplicate across the two jobs (Open MPI
 * 4.1.4, 2 -> 4, medians of 6 runs: 0.047 s against 0.11 s): its
 * context-id agreement crosses between the jobs once, through the two
 * leaders, where a duplicate's crosses in every round. */
void join_world(MPI_Comm inter, int high, MPI_Comm merged, MPI_Comm *w, MPI_Comm *p)
{
#if SPAWN_COLLECTIVE
    (void)inter;
    (void)high;
    new_world_adopt(merged, w, p);
#else
    int rc = PMPI_Intercomm_merge(inter, high, w);
    if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_merge (the new world)", rc);
    PMPI_Comm_set_name(*w, "MPI_COMM_WORLD");
    *p = merged;
    PMPI_Comm_set_name(*p, "ductile-private");
    PMPI_Comm_set_errhandler(*p, MPI_ERRORS_RETURN);
#endif
}

/* The parents and the new processes could not be joined after the spawn
 * succeeded (both sides committed to it): MPI cannot go on with half a
 * connection, so the job ends with the cause rather than hang. */
void join_failed(const char *what, int rc)
{
    char m[400];
    ductile_mpi_error_text(rc, m, sizeof m);
    fprintf(stderr, "ductile: rank %d (%s): %s failed while joining the spawned processes: %s; ending the job\n",
            ductile_rt.rank, M.spawned ? "new" : "running", what, m);
    PMPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

static _Noreturn void join_cancelled(int together);

/* The end of a spawned process that leaves without running the program (its
 * expansion was cancelled or rolled back), after its MPI_Finalize: exit(),
 * which runs the exit handlers, as at the end of any MPI program.  MPICH
 * 5.0.2's MPI_Init registers one (atexit, seen with gdb); hydra's proxy takes
 * a process that ends without it for a crashed one and SIGKILLs the
 * processes it still runs -- here the parents still running after their
 * MPI_Finalize: mpiexec then printed "BAD TERMINATION ... EXIT CODE: 9" and
 * exited 9 (tests/malleable/linger.sh; a plain MPI program whose spawned
 * processes _exit(0) after MPI_Finalize shows the same).  No wait for the
 * parents is needed: a spawned process may end before them. */
static _Noreturn void join_end(void)
{
    exit(0);
}
static double join_mark; /* DUCTILE_VERBOSE=3: when the join ended (the program's start in between) */

#if !SPAWN_COLLECTIVE
/* Open MPI 4.1 (the parents' rank 0 spawned us alone): all of us are at the
 * connect (a barrier of ours), the first says so to the parents' rank 0, and
 * everyone waits for its decision, bounded (spawn.c, children_ready).
 * 1: connect; 0: park. */
static int ready_to_connect(MPI_Comm parent)
{
    double T = resize_timeout();
    int one = 1;
    PMPI_Barrier(MPI_COMM_WORLD); /* the spawned processes' own world */
    if (ductile_rt.rank == 0) PMPI_Send(&one, 1, MPI_INT, 0, TAG_READY, parent);
    int *go = calloc(1, sizeof *go);
    MPI_Request rq = MPI_REQUEST_NULL;
    int got = go && PMPI_Ibcast(go, 1, MPI_INT, 0, parent, &rq) == MPI_SUCCESS ? wait_for(&rq, 4 * T) : -1;
    int ok = got == 1 && *go;
    if (go) settle(go, &rq, &parent, 1);
    if (!ok) ductile_log(1, "the parents did not accept the connection in time; this process parks");
    return ok;
}
#endif
/* The running processes' registrations (M.jdesc points here while a join is pending): allocated
 * for the header's count, freed when the join ends (free_jdesc). */
static struct reg_desc *jdesc_store;
static void free_jdesc(void)
{
    free(jdesc_store);
    jdesc_store = NULL;
    M.jdesc = NULL;
}
/* A failure while joining (an MPI error seen here): the preparation's agreement rolls back. */
static char join_why[TXN_WHY_MAX];

/* This process's number in its resize (src/common/txnfault.h): after the old processes. */
static int join_child;
static int join_rank(void)
{
    return M.jh.ns + join_child;
}

static void join_parents(MPI_Comm parent)
{
    double tmark = ductile_rt.start_sec; /* right after PMPI_Init (src/wrap/runtime.c) */
    step_mark(&tmark, "MPI_Init to join");
    PMPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    struct join_header h;
    memset(&h, 0, sizeof h);
    int rc = PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, parent);
    if (rc != MPI_SUCCESS) {
        /* the parents are unreachable: leave quietly (exit, not _exit: see join_end) */
        PMPI_Comm_disconnect(&parent);
        PMPI_Finalize();
        join_end();
    }
    if (!h.status) {
        /* the parents gave up on this expansion (spawn.c, spawn_cancel): end, or park until released */
        MPI_Comm m = MPI_COMM_NULL;
        PMPI_Intercomm_merge(parent, 1, &m);
        add_inter(parent);
        departure_group_joined(0, 0, 0, parent, MPI_COMM_NULL); /* the one intercommunicator to disconnect */
        M.jh = h;
        M.join_comm = m;
        join_cancelled(1); /* does not return */
    }
    M.spawned = 1;
    M.jh = h;
    join_child = h.goffset + ductile_rt.rank; /* my group's first (parallel spawn, pspawn.c), my rank in it */
    txn_begin(h.id, join_rank());
    if (h.nitems < 0) { /* not from Ductile's parents */
        fprintf(stderr, "ductile: rank %d (new): the header names %d registered items\n", ductile_rt.rank,
                h.nitems);
        join_failed("MPI_Bcast of the header", MPI_ERR_COUNT);
    }
    /* the parents' descriptions arrive here, in pieces (spawn.c, connect_group); no room: the
     * resize rolls back, the pieces still received (into a scratch piece) so that the parents'
     * broadcasts complete */
    jdesc_store = h.nitems ? txn_calloc((size_t)h.nitems, sizeof *jdesc_store) : NULL;
    M.jdesc = jdesc_store;
    if (h.nitems && !jdesc_store)
        snprintf(join_why, sizeof join_why, "rank %d (new): out of memory for the %d registrations' descriptions",
                 ductile_rt.rank, h.nitems);
    static struct reg_desc scratch[JOIN_DESC_CHUNK];
    for (int k = 0; k < h.nitems; k += JOIN_DESC_CHUNK) {
        int n = h.nitems - k < JOIN_DESC_CHUNK ? h.nitems - k : JOIN_DESC_CHUNK;
        if (txn_mpi(PMPI_Bcast(jdesc_store ? jdesc_store + k : scratch, n * (int)sizeof *scratch, MPI_BYTE, 0,
                               parent)) != MPI_SUCCESS && !join_why[0])
            snprintf(join_why, sizeof join_why, "rank %d (new): receiving the registrations failed", ductile_rt.rank);
    }
    step_mark(&tmark, "header received");
    double tm = ductile_now();
    MPI_Comm inter, merged;
#if SPAWN_COLLECTIVE
    /* all parents spawned us (spawn.c, spawn_group): one merge */
    inter = parent;
    txn_delay("connect");
    PMPI_Intercomm_merge(inter, 1, &merged);
    add_inter(inter);
    departure_group_joined(h.method != METHOD_BASELINE && !h.persistent, h.ns, h.nnew, inter, MPI_COMM_NULL);
#else
    /* the parents' rank 0 spawned us alone: all parents accept us on its port (spawn.c,
     * connect_group), then one merge.  First, bounded, rank 0 hears that all of us are at
     * the connect and decides whether the parents accept (spawn.c, children_ready); if
     * not, we park until it releases us.  A process of either side that dies in the
     * accept and connect makes Open MPI's runtime end the job. */
    char port[MPI_MAX_PORT_NAME];
    memset(port, 0, sizeof port);
    int rp = h.groups ? MPI_SUCCESS : PMPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, parent); /* no port: pspawn.c */
    if (rp != MPI_SUCCESS) join_failed("MPI_Bcast of the port name", rp);
    txn_delay("connect");
    if (!ready_to_connect(parent)) {
        M.join_comm = parent; /* where we park: the parents' rank 0 releases us over it */
        txn_end();
        join_cancelled(0); /* parked; does not return */
    }
    port[MPI_MAX_PORT_NAME - 1] = '\0';
    inter = MPI_COMM_NULL;
    if (h.groups) { /* a parallel spawn: the groups join (pspawn.c) */
        pspawn_child_join(parent, &h, &inter, &merged);
    } else {
        rp = PMPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        if (rp != MPI_SUCCESS) join_failed("MPI_Comm_connect", rp);
        PMPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        rp = PMPI_Intercomm_merge(inter, 1, &merged);
        if (rp != MPI_SUCCESS) join_failed("MPI_Intercomm_merge", rp);
    }
    add_inter(parent);
    add_inter(inter);
    departure_group_joined(h.method != METHOD_BASELINE && !h.persistent, h.ns, h.nnew, inter, parent);
#endif
    PMPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
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
        join_world(inter, 1, merged, &nw, &np); /* merged becomes the private communicator */
        if (h.persistent) { /* the new world's transfer communicator (the parents make it at the same point) */
            PMPI_Comm_dup(np, &M.xfer);
            PMPI_Comm_set_errhandler(M.xfer, MPI_ERRORS_RETURN);
        }
        set_world(nw, np);
        comm_free_later(&oldp);
    }
    M.join_merge_s = ductile_now() - tm;
    step_mark(&tmark, "joined");
    join_mark = tmark;
    M.join_comm = merged;
    M.join_pending = 1;
    txn_pause(); /* the program registers its data: not counted */
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
    engine_sizes_from_settings(1, err, sizeof err); /* validated before (check_settings) */
    M.method = s->resize_method && strcmp(s->resize_method, "baseline") == 0 ? METHOD_BASELINE : METHOD_MERGE;
    const char *rd = s->redist ? s->redist : "col", *rc = s->redist_constant ? s->redist_constant : "blocking";
    M.auto_redist = strcmp(rd, "auto") == 0;
    M.redist = strcmp(rd, "p2p") == 0           ? REDIST_P2P
               : strcmp(rd, "rma-lock") == 0    ? REDIST_RMA_LOCK
               : strcmp(rd, "rma-lockall") == 0 ? REDIST_RMA_LOCKALL
                                                : REDIST_COL;
    M.nb = policy_const_strategy(rc);
    redist_rma_create = s->rma_window && strcmp(s->rma_window, "create") == 0;
    if (strcmp(rd, "rma-fence") == 0) M.redist = REDIST_RMA_FENCE;
    M.persistent = s->persistent && M.method == METHOD_MERGE;
    chunk_set_int_limit(s->test_int_limit); /* 0: INT_MAX; the same in every process (src/redist/chunk.h) */
    M.rma_shared = M.persistent && s->rma_memory && strcmp(s->rma_memory, "shared") == 0;
    if (s->persistent && !M.persistent && ductile_rt.rank == 0)
        fprintf(stderr, "ductile: note: DUCTILE_PERSISTENT=1 does not apply to the baseline method (every resize "
                        "replaces all processes); transfers are not kept\n");
    int note = 0;
    M.nb = policy_const_effective(M.nb, M.redist == REDIST_RMA_LOCK || M.redist == REDIST_RMA_LOCKALL, rma_thread_ok(),
                                  &note);
    if (note == 1) {
        /* NB does not apply to one-sided methods (sources cannot tell when reads are done): Wait Drains */
        if (ductile_rt.rank == 0)
            fprintf(stderr, "ductile: note: DUCTILE_REDIST_CONSTANT=nb does not apply to %s (the sources cannot tell "
                            "when the drains' reads are done); using wd (Wait Drains)\n", rd);
    }
    if (M.redist == REDIST_RMA_FENCE && M.nb != CONST_BLOCKING && ductile_rt.rank == 0)
        /* fence epochs are collective over the world: no background form (transfer.c) */
        fprintf(stderr, "ductile: note: DUCTILE_REDIST=rma-fence is blocking only; constant data moves by the "
                        "collective (col, %s) in the background, the other data by rma-fence\n", rc);
    if (M.persistent && M.nb != CONST_BLOCKING && ductile_rt.rank == 0) /* resize.c: no background form yet */
        fprintf(stderr, "ductile: note: DUCTILE_REDIST_CONSTANT=%s does not apply with DUCTILE_PERSISTENT=1 (standby "
                        "processes and prepared transfers have no background form yet); constant data moves blocking\n",
                rc);
    if (note == 2) {
        /* never run the Threading strategy without MPI_THREAD_MULTIPLE */
        M.thread_refused = 1;
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
    if (parent == MPI_COMM_NULL && ductile_spawned_by_ductile()) launch_step_join(&parent); /* a new srun step */
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

/* A spawned process whose parents gave up on the resize (rolled back, or
 * cancelled: the program ended before the background transfer completed):
 * leave without running the program.  together: the parents are at the
 * matching point and nothing of the transfer is in flight; then, where the
 * runtime allows it (departure_rollback_exits, the parents decide alike),
 * every communicator to them is freed, the intercommunicators disconnected
 * (spawn.c, expand_abort and spawn_cancel, do the same) and this process
 * ends at once, giving back its core and slot (issue 22, item 7). */
static _Noreturn void join_cancelled(int together)
{
    int leave = together && departure_rollback_exits(M.jh.persistent);
    ductile_log(1, "the resize that spawned this process did not happen; %s",
                leave ? "ending now" : "leaving at the job's end");
    if (M.xfer != MPI_COMM_NULL) PMPI_Comm_free(&M.xfer);
    MPI_Comm oldp = ductile_rt.private_comm;
    leave_world(); /* frees the merged world (retires it under MPI_THREAD_MULTIPLE) */
    if (oldp != MPI_COMM_NULL && oldp != M.join_comm) PMPI_Comm_free(&oldp); /* else merged itself: below */
    if (leave) {
        PMPI_Comm_free(&M.join_comm);
        ductile_world_end(); /* retired worlds too: nothing but the intercommunicators is left */
        departure_disconnect(&M.g_inter, &M.g_inter0); /* with the parents */
        M.exited = 1;
        ductile_malleable_finalize_begin(); /* removed, nowhere to park: returns at once */
        ductile_malleable_finalize_end();
        PMPI_Finalize();
        join_end();
    }
    /* a removed process: parked (asleep) until the parents' rank 0 releases it at its MPI_Finalize,
     * as processes removed by a shrink (it stays connected to the parents through the merged
     * communicator rank 0 keeps until then); then it ends with exit (join_end) */
    M.park_comm = M.join_comm; /* merged: the parents' rank 0 is its rank 0 */
    M.join_comm = MPI_COMM_NULL;
    M.park_releaser = 0;
    ductile_malleable_finalize_begin();
    ductile_malleable_finalize_end();
    /* under MPI_THREAD_MULTIPLE the merged world (spanning the parents) was only
     * retired by leave_world: freed here, as in ductile_runtime_finalize */
    ductile_world_end();
    PMPI_Finalize();
    join_end();
}

/* The preparation of a new process: its registrations match the running
 * processes' and it has a buffer for each of its new blocks.  0, or -1 with
 * why set. */
static int join_prepare(int child, char *why, size_t len)
{
    const struct join_header *h = &M.jh;
    int last = child == h->nnew - 1;
    char err[320];
    if (join_why[0]) {
        snprintf(why, len, "%s", join_why);
        return -1;
    }
    if (h->nitems && last && test_fail("register")) {
        snprintf(why, len, "rank %d (new): registered item 0 differs from the running processes' (injected: "
                 "DUCTILE_TEST_FAIL=register)", ductile_rt.rank);
        return -1;
    }
    if (h->nitems && check_descs(err, sizeof err) != 0) {
        snprintf(why, len, "rank %d (new): %.220s", ductile_rt.rank, err);
        return -1;
    }
    if (last && test_fail("alloc")) {
        snprintf(why, len, "rank %d (new): out of memory for its new blocks (injected: DUCTILE_TEST_FAIL=alloc)",
                 ductile_rt.rank);
        return -1;
    }
    int my_new = h->method == METHOD_BASELINE ? child : h->ns + child;
    for (int i = 0; i < reg_count(); i++) {
        struct reg_item *it = reg_at(i);
        if (it->d.kind != REG_DISTRIBUTED && it->d.kind != REG_REPLICATED && it->d.kind != REG_SCALAR) continue;
        /* the data arrives in the buffer the program registered: it must hold the block (or the
         * whole replicated item), as far as Ductile knows its size (reg_buffer_bytes) */
        int dist = it->d.kind == REG_DISTRIBUTED;
        int64_t rows = dist ? plan_block_of(it->d.nrows, h->nd, my_new).count : 1;
        int64_t need = rows * (int64_t)reg_unit_bytes(it), have = 0;
        const char *how = "";
        if (rows && need && !it->addr) {
            snprintf(why, len, "rank %d (new): '%s' has no buffer for its %lld %s", ductile_rt.rank, it->d.name,
                     (long long)(dist ? rows : it->d.elems), dist ? "rows" : "elements");
            return -1;
        }
        if (need && reg_buffer_bytes(it, &have, &how) && have < need) {
            snprintf(why, len, "rank %d (new): the buffer registered for '%s' holds %lld bytes (%s), its %s needs "
                     "%lld (%lld %s)", ductile_rt.rank, it->d.name, (long long)have, how,
                     dist ? "block" : "copy", (long long)need, (long long)(dist ? rows : it->d.elems),
                     dist ? "rows" : "elements");
            return -1;
        }
    }
    return 0;
}

/* A new process whose resize was rolled back: it ends, or the parents' rank
 * 0 releases it at the job's end (join_cancelled does not return). */
static void join_abort(int *o2c, int *n2c, const char *why, int together)
{
    ductile_log(1, "resize rolled back: %s", why);
    free(o2c);
    free(n2c);
    stage_abort();
    free_jdesc();
    txn_end();
    join_cancelled(together);
}

int ductile_malleable_get_shared(int *iteration)
{
    if (!M.join_pending) {
        if (iteration && M.spawned) *iteration = M.jh.iteration + 1;
        reconf_end(); /* a process spawned without data joined inside MPI_Init: its hooks run here */
        return 0;
    }
    M.join_pending = 0;
    struct join_header *h = &M.jh;
    txn_begin(h->id, join_rank());
    MPI_Comm merged = M.join_comm;
    int me = -1;
    PMPI_Comm_rank(merged, &me);
    int baseline = h->method == METHOD_BASELINE;
    int child = me - h->ns;
    struct xfer_times xt, xb;
    memset(&xt, 0, sizeof xt);
    memset(&xb, 0, sizeof xb);
    int *o2c = txn_malloc((size_t)h->ns * sizeof(int)), *n2c = txn_malloc((size_t)h->nd * sizeof(int));
    for (int i = 0; o2c && i < h->ns; i++) o2c[i] = i;
    for (int j = 0; n2c && j < h->nd; j++) n2c[j] = baseline ? h->ns + j : j;
    struct redist_layout L = {M.xfer != MPI_COMM_NULL ? M.xfer : merged, h->ns + h->nnew, h->ns, h->nd, -1,
                              baseline ? child : me, o2c, n2c};
    char why[TXN_WHY_MAX] = "";
    /* agree on the preparation with the parents (spawn.c, expand) */
    step_mark(&join_mark, "program to EMPI_Get_shared");
    int okp = join_prepare(child, why, sizeof why) == 0;
    if (okp && (!o2c || !n2c)) {
        snprintf(why, sizeof why, "rank %d (new): out of memory", ductile_rt.rank);
        okp = 0;
    }
    if (!txn_agree(merged, okp, why, sizeof why)) join_abort(o2c, n2c, why, 1); /* nothing moved yet */
    step_mark(&join_mark, "preparation agreed");
    int bg = h->nitems && bg_wanted(h->nb), start_it = h->iteration;
    int ok = 1;
    if (bg) {
        /* constant data arrives in the background while the old processes go on at
         * the old size; wait here (asleep between tests) for the switch */
        struct transfer x = {.L = &L, .has_new = 1, .method = h->redist, .nb = h->nb, .phase = XF_BG, .id = h->id,
                             .iteration = h->iteration, .warm = h->prepare, .ok = 1};
        transfer_run(&x);
        xb = x.t;
        if (!txn_agree(merged, x.ok, x.err, sizeof x.err)) {
            /* what every process started completes (bounded); with the parents (spawn.c): released
             * together when nothing is in flight anywhere, else left alone (at exit) */
            (void)nb_drain();
            int quiet = nb_agree_quiet(merged);
            rollback_transfers(quiet, h->nitems);
            join_abort(o2c, n2c, x.err, quiet);
        }
        /* the parents' word (background.c, pending_go), bounded */
        struct go_msg g = pending_wait_go(merged, (double)ductile_rt.settings.leave_timeout + 3 * resize_timeout());
        if (g.status < 0) {
            /* no answer from the parents: this process leaves (no abort: the parents may go on) */
            nb_abandon();
            join_abort(o2c, n2c, "the running processes did not switch to the new size in time", 0);
        }
        if (g.status != 1) {
            /* cancelled (background.c, pending_cancel): agree with the parents whether nothing is in
             * flight, then free the transfer together with them, or leave it (at exit) */
            (void)nb_drain(); /* what was started completes, failed parts too (bounded) */
            int quiet = nb_agree_quiet(merged);
            rollback_transfers(quiet, h->nitems);
            join_abort(o2c, n2c, "the resize was cancelled", quiet);
        }
        if (nb_wait_local(1) != 0) {
            ok = 0;
            snprintf(why, sizeof why, "%s", NB.why);
        }
        h->iteration = g.iteration;
        M.iteration = g.iteration;
        request_queue_set_position(&M.q, g.sched_next);
        if (g.next_id > M.next_id) M.next_id = g.next_id;
    }
    if (h->nitems) {
        struct transfer x = {.L = &L, .has_new = 1, .method = h->redist, .nb = CONST_BLOCKING,
                             .phase = bg ? XF_REST : XF_ALL, .id = h->id, .iteration = h->iteration,
                             .warm = h->prepare, .ok = ok};
        transfer_run(&x);
        if (ok && !x.ok) snprintf(why, sizeof why, "%s", x.err);
        ok = x.ok;
        xt = x.t;
    }
    /* agree on the transfer with the parents (spawn.c, expand_commit) */
    if (!txn_agree_commit(merged, ok, why, sizeof why)) {
        (void)nb_drain(); /* (nothing, unless a background part is still in flight here) */
        int quiet = nb_agree_quiet(merged); /* with the parents (spawn.c, expand_commit) */
        rollback_transfers(quiet, h->nitems);
        join_abort(o2c, n2c, why, quiet);
    }
    txn_end();
    if (bg) nb_finish(1);
    stage_commit();
    if (baseline && me == h->ns) recv_history(0, merged);
    if (h->nitems) {
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
            M.command = h->command;
            fill_record(&rec, h->id, start_it, h->ns, h->nd, h->method, h->redist, h->nb);
            struct decision dd = {.auto_choice = h->auto_choice};
            snprintf(dd.why, sizeof dd.why, "%s", h->why);
            note_choice(&rec, &dd); /* DUCTILE_REDIST=auto: the cost model's choice, as the old rank 0 decided */
            rec.spawn_groups = h->spawn_groups;
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
    } /* Merge: merged is the world's private communicator now (new_world_adopt) */
    M.join_comm = MPI_COMM_NULL;
    free_jdesc();
    if (!baseline && !h->persistent) ductile_files_reattach(); /* file hook: the world's open files, with the parents */
    /* the reconfiguration hooks (reconf.c), now that the data is here, at the same point as the parents */
    reconf_committed(h->id, h->ns, h->nd, baseline, -1, ductile_rt.rank, h->iteration,
                     baseline ? RECONF_SPAN_COMM : RECONF_SPAN_WORLD, baseline ? merged : MPI_COMM_NULL);
    reconf_end();
    return 0;
}
