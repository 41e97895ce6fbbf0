/* pspawn.c -- parallel spawning (DUCTILE_SPAWN_PARALLEL; Open MPI 4.1, the
 * path where rank 0 spawns alone, SPAWN_COLLECTIVE == 0).  One
 * MPI_Comm_spawn of n processes there grows linearly with n (0.36 s for 1,
 * 2.2 s for 8, 10.7 s for 32: docs/rma.md), so k = min(P, n) parents each
 * spawn a share over MPI_COMM_SELF at the same time, with their run of the
 * hosts.  Every parent's outcome is agreed (bounded, txn_agree); a failure
 * anywhere sends every started group away by its own parent (spawn_cancel).
 * Then each parent sends its group rank 0's header and registrations, the
 * groups say they are ready (bounded, agreed), and the groups join:
 * each parent's intercommunicator merged (parent low), log2(P) rounds of
 * MPI_Intercomm_create between the groups' leaders (the parents, over the
 * private communicator) + MPI_Intercomm_merge, one MPI_Comm_split ordering
 * the parents first (by rank) and the new processes after them (group
 * offset + rank in the group), and the intercommunicator parents <-> new
 * processes from it.  The rest of the expansion runs as after the port's
 * accept (spawn.c).  Parents without a share take part as groups of one. */
#include "pspawn.h"
#include "launch_step.h"

int pspawn_wanted(const struct decision *d, int nnew)
{
#if SPAWN_COLLECTIVE
    (void)d;
    (void)nnew;
    return 0; /* one collective spawn is faster there (docs/rma.md) */
#else
    const char *v = ductile_rt.settings.spawn_parallel;
    if (!v || !strcmp(v, "off")) return 0;
    int on = !strcmp(v, "on");
    int min = on ? 2 : PSPAWN_AUTO_MIN, parents = on ? 2 : PSPAWN_AUTO_MIN_PARENTS;
    return d->method == METHOD_MERGE && !d->pool && !launch_step_direct() && ductile_rt.size >= parents && nnew >= min;
#endif
}

/* The hosts of new processes off .. off+n-1 (one name per new process, as
 * in spawn_info); NULL when there is no list. */
static char *share_hosts(const char *hosts, int off, int n)
{
    if (!hosts || !*hosts) return NULL;
    char *out = malloc(strlen(hosts) + 1), *o = out;
    if (!out) return NULL;
    int i = 0;
    for (const char *p = hosts; *p;) {
        const char *e = p;
        while (*e && *e != ';' && *e != ',') e++;
        if (e > p) {
            if (i >= off && i < off + n) {
                if (o > out) *o++ = ',';
                memcpy(o, p, (size_t)(e - p));
                o += e - p;
            }
            i++;
        }
        p = *e ? e + 1 : e;
    }
    *o = '\0';
    if (!*out) {
        free(out);
        return NULL;
    }
    return out;
}

int pspawn_start(struct pspawn *ps, const char *cmd, char **args, int nnew, const char *hosts, double *spawn_s,
                 char *why, size_t len)
{
    int P = ductile_rt.size, me = ductile_rt.rank, ok = 1;
    double T = resize_timeout(), ts = ductile_now();
    ps->k = P < nnew ? P : nnew;
    int q = nnew / ps->k, r = nnew % ps->k;
    ps->share = me < ps->k ? q + (me < r) : 0;
    ps->off = me * q + (me < r ? me : r);
    ps->inter = MPI_COMM_NULL;
    char mine[TXN_WHY_MAX] = "";
    if (me == 0)
        ductile_log(1, "spawning %d process%s of %s in %d groups (parallel)", nnew, nnew == 1 ? "" : "es", cmd, ps->k);
    if (ps->share) {
        char *hs = share_hosts(hosts, ps->off, ps->share);
        MPI_Info info = spawn_info(hs);
        int *codes = txn_calloc((size_t)ps->share, sizeof *codes);
        if (!codes) {
            ok = 0;
            snprintf(mine, sizeof mine, "rank %d: out of memory", me);
        } else {
            txn_delay("spawn");
            double t0 = ductile_now();
            int rc = ductile_spawn_marked(cmd, args, ps->share, info, M.self, &ps->inter, codes);
            double took = ductile_now() - t0;
            if (rc != MPI_SUCCESS) {
                char m[300];
                ductile_mpi_error_text(rc, m, sizeof m);
                ps->inter = MPI_COMM_NULL; /* not a usable handle after a failed spawn */
                snprintf(mine, sizeof mine, "rank %d: MPI_Comm_spawn of its %d process%s failed: %.180s", me,
                         ps->share, ps->share == 1 ? "" : "es", m);
            }
            ok = rc == MPI_SUCCESS && ps->inter != MPI_COMM_NULL;
            for (int i = 0; ok && i < ps->share; i++)
                if (codes[i] != MPI_SUCCESS) {
                    char m[300];
                    ductile_mpi_error_text(codes[i], m, sizeof m);
                    snprintf(mine, sizeof mine, "rank %d: MPI_Comm_spawn: its process %d of %d did not start: %.180s",
                             me, i, ps->share, m);
                    ok = 0;
                }
            if (ok && took > T) {
                ok = 0;
                snprintf(mine, sizeof mine, "rank %d: MPI_Comm_spawn of its %d process%s took %.1f s, more than "
                         "DUCTILE_RESIZE_TIMEOUT (%.0f s)", me, ps->share, ps->share == 1 ? "" : "es", took, T);
            }
            if (ok && test_fail_here("pspawn")) {
                ok = 0;
                snprintf(mine, sizeof mine, "rank %d: MPI_Comm_spawn of its %d process%s refused (injected: "
                         "DUCTILE_TEST_FAIL=pspawn@%d, after they started)", me, ps->share, ps->share == 1 ? "" : "es",
                         me);
            }
        }
        free(codes);
        free(hs);
        if (info != MPI_INFO_NULL) PMPI_Info_free(&info);
    }
    /* one decision for all, bounded (a parent later than T is taken as failed, and hears it) */
    int okall = txn_agree(ductile_rt.private_comm, ok, mine, sizeof mine);
    if (!okall) snprintf(why, len, "parallel spawn of %d processes in %d groups: %s", nnew, ps->k, mine);
    *spawn_s = ductile_now() - ts; /* until every group started, as agreed */
    return okall;
}

void pspawn_cancel(struct pspawn *ps, const struct join_header *h, int *exited, int *parked)
{
    int started = ps->inter != MPI_COMM_NULL ? ps->share : 0, gone = 0;
    if (started) {
        struct join_header g = *h; /* this group's */
        g.status = 0;
        g.nnew = ps->share;
        g.gindex = ductile_rt.rank;
        g.goffset = ps->off;
        gone = spawn_cancel(&g, &ps->inter, 1); /* this parent holds their release (departure.c) */
    }
    /* rank 0's record: how many ended and parked, summed (bounded: a parent later than T is not counted) */
    MPI_Comm P = ductile_rt.private_comm;
    int *b = calloc(4, sizeof *b);
    *exited = gone ? started : 0;
    *parked = gone ? 0 : started;
    if (!b) return;
    b[0] = *exited;
    b[1] = *parked;
    MPI_Request rq = MPI_REQUEST_NULL;
    int got = PMPI_Ireduce(b, b + 2, 2, MPI_INT, MPI_SUM, 0, P, &rq) == MPI_SUCCESS
                  ? wait_for(&rq, ductile_rt.rank == 0 ? resize_timeout() : 0) : -1;
    if (ductile_rt.rank == 0 && got == 1) {
        *exited = b[2];
        *parked = b[3];
    } else if (ductile_rt.rank == 0) { /* a parent was late: it still spawns, then cancels; all are counted */
        int all = h->nnew;
        *exited = departure_rollback_exits(h->persistent) ? all : 0;
        *parked = all - *exited;
    }
    settle(b, &rq, &P, 1);
}

/* The groups' join (both sides): g is this process's group (its parent
 * first), gi that parent's rank, np the number of parents; peer is the
 * parents' private communicator (significant at the leaders only).  Returns
 * the merged communicator ordered by key; *inter parents <-> new processes. */
static MPI_Comm join_all(MPI_Comm g, int gi, int np, MPI_Comm peer, int key, int isnew, MPI_Comm *inter)
{
    int rc;
    PMPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    for (int s = 1; s < np; s *= 2) {
        int low = gi % (2 * s) == 0; /* else gi % (2 s) == s: every group is a leader's at this step */
        if (low && gi + s >= np) continue;
        MPI_Comm ic = MPI_COMM_NULL, m = MPI_COMM_NULL;
        rc = PMPI_Intercomm_create(g, 0, peer, low ? gi + s : gi - s, TAG_PSPAWN, &ic);
        if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_create (parallel spawn)", rc);
        PMPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        rc = PMPI_Intercomm_merge(ic, !low, &m);
        if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_merge (parallel spawn)", rc);
        PMPI_Comm_free(&ic);
        PMPI_Comm_free(&g);
        g = m;
        PMPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        if (!low) gi -= s;
    }
    MPI_Comm merged = MPI_COMM_NULL, half = MPI_COMM_NULL;
    rc = PMPI_Comm_split(g, 0, key, &merged);
    if (rc != MPI_SUCCESS) join_failed("MPI_Comm_split (parallel spawn)", rc);
    PMPI_Comm_free(&g);
    PMPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    rc = PMPI_Comm_split(merged, isnew, key, &half);
    if (rc != MPI_SUCCESS) join_failed("MPI_Comm_split (parallel spawn, old and new)", rc);
    rc = PMPI_Intercomm_create(half, 0, merged, isnew ? 0 : np, TAG_PSPAWN, inter);
    if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_create (parallel spawn, old and new)", rc);
    PMPI_Comm_free(&half);
    PMPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
    return merged;
}

MPI_Comm pspawn_connect(struct pspawn *ps, struct join_header *h, const struct reg_desc *ds, MPI_Comm *inter,
                        int *ok, char *why, size_t len)
{
    MPI_Comm P = ductile_rt.private_comm, c = ps->inter;
    int me = ductile_rt.rank, np = ductile_rt.size;
    double T = resize_timeout();
    /* rank 0's header and registrations to every parent (all are here: the spawn's agreement passed),
     * each forwarded to the parent's group, piece by piece (no copy of them all on the other parents) */
    if (txn_mpi(PMPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, P)) != MPI_SUCCESS) *ok = 0;
    h->gindex = me;
    h->goffset = ps->off;
    if (c != MPI_COMM_NULL) {
        PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        add_inter(c); /* disconnected at MPI_Finalize, or with the group (departure.c) */
        departure_inter0_pending = c;
        if (txn_mpi(PMPI_Bcast(h, (int)sizeof *h, MPI_BYTE, MPI_ROOT, c)) != MPI_SUCCESS) *ok = 0;
    }
    static struct reg_desc scratch[JOIN_DESC_CHUNK];
    for (int k = 0; k < h->nitems; k += JOIN_DESC_CHUNK) {
        int n = h->nitems - k < JOIN_DESC_CHUNK ? h->nitems - k : JOIN_DESC_CHUNK;
        void *buf = me == 0 ? (void *)(ds + k) : (void *)scratch;
        if (txn_mpi(PMPI_Bcast(buf, n * (int)sizeof *ds, MPI_BYTE, 0, P)) != MPI_SUCCESS) *ok = 0;
        if (c != MPI_COMM_NULL && txn_mpi(PMPI_Bcast(buf, n * (int)sizeof *ds, MPI_BYTE, MPI_ROOT, c)) != MPI_SUCCESS)
            *ok = 0;
    }
    /* bounded: every group says it is there (join.c, ready_to_connect), the parents agree, the groups hear
     * it.  A parent waits T/2 for its group: the agreement (T from rank 0's arrival) then hears its reason */
    int *b = calloc(2, sizeof *b), ready = 1;
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (c != MPI_COMM_NULL)
        ready = b && PMPI_Irecv(&b[1], 1, MPI_INT, 0, TAG_READY, c, &r[0]) == MPI_SUCCESS &&
                wait_for(&r[0], T / 2) == 1 && b[1] == 1;
    char w[TXN_WHY_MAX] = "";
    if (!ready)
        snprintf(w, sizeof w, "rank %d: its %d new process%s not ready to join within %.0f s "
                 "(DUCTILE_RESIZE_TIMEOUT / 2)", me, ps->share, ps->share == 1 ? " was" : "es were", T / 2);
    int go = txn_agree(P, ready, w, sizeof w);
    if (c != MPI_COMM_NULL && b) {
        b[0] = go;
        if (PMPI_Ibcast(b, 1, MPI_INT, MPI_ROOT, c, &r[1]) == MPI_SUCCESS) wait_for(&r[1], T);
    }
    if (b) {
        MPI_Comm cc[2] = {c, c};
        settle(b, r, cc, 2);
    }
    if (!go) { /* they park until their parent releases them at its MPI_Finalize (departure.c) */
        int *lv = c != MPI_COMM_NULL ? malloc((size_t)ps->share * sizeof *lv) : NULL;
        for (int i = 0; lv && i < ps->share; i++) lv[i] = i; /* the group in c's remote group */
        if (lv) add_duty(c, lv, ps->share);
        free(lv);
        if (me == 0) M.zombies += h->nnew;
        departure_inter0_pending = MPI_COMM_NULL;
        ps->inter = MPI_COMM_NULL;
        snprintf(why, len, "parallel spawn: %s", w);
        return MPI_COMM_NULL;
    }
    MPI_Comm g = MPI_COMM_NULL;
    int rc = c != MPI_COMM_NULL ? PMPI_Intercomm_merge(c, 0, &g) : PMPI_Comm_dup(M.self, &g);
    if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_merge (a parallel spawn's group)", rc);
    return join_all(g, me, np, P, me, 0, inter);
}

void pspawn_child_join(MPI_Comm parent, const struct join_header *h, MPI_Comm *inter, MPI_Comm *merged)
{
    MPI_Comm g = MPI_COMM_NULL;
    int rc = PMPI_Intercomm_merge(parent, 1, &g);
    if (rc != MPI_SUCCESS) join_failed("MPI_Intercomm_merge (a parallel spawn's group)", rc);
    /* my number among all: after the parents, my group's offset, my rank in my group's own world */
    *merged = join_all(g, h->gindex, h->ns, ductile_rt.private_comm, h->ns + h->goffset + ductile_rt.rank, 1, inter);
}

/* The spawn or a check after it failed while the new processes run: they
 * are told (join.c, join_parents) and, like the new processes of a
 * rolled-back expansion, disconnect and end at once where the runtime
 * allows it (departure_rollback_exits; both sides decide alike), or park
 * until the root (rank 0, or in a parallel spawn the group's parent)
 * releases them at its MPI_Finalize.  Collective over *inter.  Returns 1
 * when they end now.  The caller counts the parked ones (M.zombies). */
int spawn_cancel(const struct join_header *h, MPI_Comm *inter, int root)
{
    if (*inter == MPI_COMM_NULL) return 0;
    PMPI_Comm_set_errhandler(*inter, MPI_ERRORS_RETURN);
    PMPI_Bcast((void *)h, (int)sizeof *h, MPI_BYTE, root ? MPI_ROOT : MPI_PROC_NULL, *inter);
    MPI_Comm m = MPI_COMM_NULL;
    int nparents = 0;
    PMPI_Comm_size(*inter, &nparents);
    int merged = PMPI_Intercomm_merge(*inter, 0, &m) == MPI_SUCCESS;
    if (merged && departure_rollback_exits(h->persistent)) {
        MPI_Comm none = MPI_COMM_NULL;
        PMPI_Comm_free(&m);
        departure_disconnect(inter, &none); /* with them (join.c, join_cancelled): they end */
        return 1;
    }
    if (merged && root) {
        int *lv = malloc((size_t)(h->nnew ? h->nnew : 1) * sizeof(int));
        if (!lv) abort();
        for (int i = 0; i < h->nnew; i++) lv[i] = nparents + i; /* the new processes in m */
        add_duty(m, lv, h->nnew);
        free(lv);
    } else if (m != MPI_COMM_NULL) {
        PMPI_Comm_free(&m);
    }
    add_inter(*inter); /* disconnected at MPI_Finalize (departure.c) */
    *inter = MPI_COMM_NULL;
    return 0;
}
