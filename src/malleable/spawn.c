/* spawn.c -- expansion (Merge: ND-NS new processes; Baseline: ND new
 * processes, the old ones leave), a transaction (transaction.c): prepare
 * (new blocks allocated while rank 0 spawns alone), connect and merge, agree
 * on the preparation with the new processes, transfer, agree on the
 * transfer, then commit (expand_commit: the world switches) or roll back
 * (expand_abort: the new processes leave, the old world goes on). */
#include "engine.h"

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

/* Expansion (Merge: ND-NS new processes; Baseline: ND new processes, the old
 * ones leave).  Collective over the old world. */
void expand(const struct decision *d, const char *hosts, double t_begin, double begin_epoch)
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
    /* prepare: allocate the new blocks now, while rank 0 spawns (the others
     * would only wait); DUCTILE_REDIST_PREPARE also touches them, instead of
     * page-faulting them inside the transfer */
    int prepare = !baseline && ductile_rt.settings.redist_prepare && reg_count() > 0;
    char prep_why[TXN_WHY_MAX] = "";
    void **prep = prepare_buffers(ns, nd, me, baseline ? -1 : me, bg_wanted(d->nb) ? d->nb : 0, prepare, prep_why,
                                  sizeof prep_why);
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
    h.releaser_pid = (int64_t)getpid(); /* rank 0 releases the new processes if the resize is rolled back */
    gethostname(h.releaser_host, sizeof h.releaser_host - 1);
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
        departure_inter0_pending = inter0;
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
    /* agree on the preparation (the new processes: their registrations, their buffers) */
    if (!txn_agree(merged, prep != NULL, prep_why, sizeof prep_why)) {
        expand_abort(prep_why);
        return;
    }
    if (h.nitems && bg_wanted(d->nb)) {
        /* constant data starts moving; the world stays at the old size until it has arrived */
        char err[TXN_WHY_MAX] = "";
        int okb = transfer_items(&PEND.L, 1, d->redist, d->nb, XF_BG, d->id, d->iteration, NULL, h.prepare, &PEND.xt,
                                 err, sizeof err) == 0;
        if (!txn_agree(merged, okb, err, sizeof err)) {
            nb_abandon(); /* started requests of the others may never complete: left alone */
            expand_abort(err);
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
        if (pending_go(1, iteration) != 0) {
            /* the new processes do not answer: nothing collective with them is possible any more */
            nb_abandon();
            expand_abort("the spawned processes did not answer the switch within the time limit");
            return;
        }
        if (nb_wait_local(0) != 0) {
            ok = 0;
            snprintf(why, sizeof why, "%s", NB.why);
        }
    }
    struct xfer_times xt;
    memset(&xt, 0, sizeof xt);
    if (PEND.nitems) {
        char err[TXN_WHY_MAX] = "";
        if (transfer_items(&PEND.L, 1, d->redist, CONST_BLOCKING, PEND.bg ? XF_REST : XF_ALL, d->id, iteration,
                           PEND.prep, PEND.warm, &xt, err, sizeof err) != 0 && ok) {
            ok = 0;
            snprintf(why, sizeof why, "%s", err);
        }
    }
    /* agree: every process of the merged communicator completed its part */
    if (!txn_agree(merged, ok, why, sizeof why)) {
        if (PEND.nitems) rma_win_transfer_done(0); /* the window over the merged communicator goes */
        if (PEND.bg) {
            if (NB.failed) nb_abandon(); /* its requests may still be pending: left alone */
            else nb_finish(0);
        }
        expand_abort(why);
        return;
    }
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

/* Roll back an expansion (old processes, after a failed agreement or when
 * the new ones do not answer): the new blocks go, the old world goes on, and
 * the new processes leave (join.c's join_abort) and park until this world's
 * rank 0 releases them at its MPI_Finalize (departure.c), like processes
 * removed by a shrink.  No collective call. */
void expand_abort(const char *why)
{
    int me = ductile_rt.rank;
    stage_abort();
    free_prepared(PEND.prep);
    PEND.prep = NULL;
    add_inter(PEND.inter);
    departure_group_forget(); /* the spawned group never joined the world */
    MPI_Comm *c[] = {&PEND.nw, &PEND.np, &PEND.nx};
    for (int i = 0; i < 3; i++)
        if (*c[i] != MPI_COMM_NULL) PMPI_Comm_free(c[i]);
    if (me == 0) {
        int *lv = malloc((size_t)(PEND.nnew ? PEND.nnew : 1) * sizeof(int));
        if (!lv) abort();
        for (int i = 0; i < PEND.nnew; i++) lv[i] = PEND.ns + i; /* merged ranks of the new processes */
        add_duty(PEND.merged, lv, PEND.nnew);
        free(lv);
        M.zombies += PEND.nnew;
    } else {
        PMPI_Comm_free(&PEND.merged);
    }
    free(PEND.o2c);
    free(PEND.n2c);
    PEND.o2c = PEND.n2c = NULL;
    PEND.active = 0;
    if (me == 0) {
        struct report_reconfig rec = PEND.rec;
        rec.total_s = ductile_now() - PEND.t_begin;
        record_problem(&rec, "failed", why);
    }
}
