/* reconf.c -- reconfiguration hooks (include/ductile.h, include/empi.h):
 * after a resize commits, every process that took part (continuing, new and
 * removed ones) is told what changed and runs the program's callbacks, once,
 * before the control point (or a spawned process's EMPI_Get_shared) returns;
 * never after a rolled-back resize, since only the commit paths report
 * (reconf_committed).  During the callbacks EMPI_Reconfig_comm gives a
 * communicator over the old and the new processes.  Nothing here runs on the
 * per-call path. */
#include "engine.h"
#include "empi.h"
#include "reconf.h"

struct hook {
    ductile_reconfig_fn fn;
    void *arg;
};
static struct hook *hooks;
static int nhooks, caphooks;

static struct ductile_reconfig last; /* the latest change */
static int last_valid;               /* the latest control point changed the world */
static int pending;                  /* committed, callbacks not run yet */
static int in_hooks;                 /* the callbacks are running: EMPI_Reconfig_comm may be called */
static int span_kind = RECONF_SPAN_NONE;
static MPI_Comm span_base = MPI_COMM_NULL;
static MPI_Comm *deferred;
static int ndeferred, capdeferred;

int ductile_on_reconfigure(ductile_reconfig_fn fn, void *arg)
{
    if (!fn) return -1;
    struct hook *h = hooks;
    if (nhooks == caphooks) {
        int nc = caphooks ? 2 * caphooks : 4;
        h = realloc(hooks, (size_t)nc * sizeof *h);
        if (!h) return -1;
        hooks = h;
        caphooks = nc;
    }
    hooks[nhooks++] = (struct hook){fn, arg};
    return 0;
}

int ductile_off_reconfigure(ductile_reconfig_fn fn, void *arg)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i].fn == fn && hooks[i].arg == arg) {
            memmove(&hooks[i], &hooks[i + 1], (size_t)(nhooks - i - 1) * sizeof *hooks);
            nhooks--;
            return 0;
        }
    return -1;
}

int EMPI_Set_reconfig_hook(EMPI_Reconfig_fn fn, void *arg) { return ductile_on_reconfigure(fn, arg); }

int ductile_last_reconfig(struct ductile_reconfig *info)
{
    if (last_valid) {
        if (info) *info = last;
        return 1;
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->old_size = info->new_size = ductile_rt.size;
        info->old_rank = info->new_rank = ductile_malleable_active() ? ductile_rt.rank : -1;
        info->iteration = M.iteration;
        info->id = -1;
    }
    return 0;
}

int EMPI_Get_reconfig(EMPI_Reconfig *info) { return ductile_last_reconfig(info); }

void reconf_begin(void)
{
    if (!pending) last_valid = 0;
}

void reconf_committed(int id, int ns, int nd, int baseline, int old_rank, int new_rank, int iteration, int span,
                      MPI_Comm base)
{
    last.id = id;
    last.kind = nd > ns ? DUCTILE_RECONF_EXPAND : nd < ns ? DUCTILE_RECONF_SHRINK : DUCTILE_RECONF_REPLACE;
    last.baseline = baseline;
    last.role = old_rank < 0 ? DUCTILE_ROLE_NEW : new_rank < 0 ? DUCTILE_ROLE_REMOVED : DUCTILE_ROLE_CONTINUES;
    last.old_size = ns;
    last.old_rank = old_rank;
    last.new_size = nd;
    last.new_rank = new_rank;
    last.iteration = iteration;
    last_valid = 1;
    pending = 1;
    span_kind = span;
    span_base = base;
}

void reconf_defer_free(MPI_Comm *c)
{
    if (*c == MPI_COMM_NULL) return;
    MPI_Comm *d = deferred;
    if (ndeferred == capdeferred) {
        int nc = capdeferred ? 2 * capdeferred : 4;
        d = realloc(deferred, (size_t)nc * sizeof *d);
        if (!d) { /* no memory: freed now (the span is then not available over it) */
            PMPI_Comm_free(c);
            return;
        }
        deferred = d;
        capdeferred = nc;
    }
    deferred[ndeferred++] = *c;
    *c = MPI_COMM_NULL;
}

void reconf_end(void)
{
    /* inside MPI_Init (a process spawned without data joins there) the program has no hook yet:
     * they run at its EMPI_Get_shared or first control point */
    if (pending && ductile_rt.active) {
        pending = 0;
        /* the new world's N-D blocks get their communicators and halos first (idempotent:
         * EMPI_Monitor_end and EMPI_Get_shared call it again afterwards) */
        if (!M.removed) DUCTILE_HOOK_VOID(data_world_changed, ());
        struct ductile_reconfig info = last;
        in_hooks = 1;
        for (int i = 0; i < nhooks; i++) {
            int n = nhooks;
            hooks[i].fn(&info, hooks[i].arg);
            if (nhooks < n) i -= n - nhooks; /* the callback removed itself (or earlier ones) */
        }
        in_hooks = 0;
        span_kind = RECONF_SPAN_NONE;
        span_base = MPI_COMM_NULL;
    }
    for (int i = 0; i < ndeferred; i++) comm_free_later(&deferred[i]); /* (late requests may use them: agree.c) */
    ndeferred = 0;
}

int EMPI_Reconfig_comm(MPI_Comm *comm)
{
    if (!comm) return -1;
    *comm = MPI_COMM_NULL;
    MPI_Comm base = span_kind == RECONF_SPAN_WORLD ? ductile_rt.private_comm
                    : span_kind == RECONF_SPAN_COMM ? span_base
                                                    : MPI_COMM_NULL;
    if (!in_hooks || base == MPI_COMM_NULL) {
        fprintf(stderr, "ductile: error: EMPI_Reconfig_comm: %s\n",
                !in_hooks ? "only inside a reconfiguration hook (EMPI_Set_reconfig_hook, ductile_on_reconfigure)"
                          : "no communicator over the old and the new processes for this resize (its removed "
                            "processes stand by, DUCTILE_PERSISTENT)");
        return -1;
    }
    int rc = PMPI_Comm_dup(base, comm);
    if (rc != MPI_SUCCESS) {
        char m[300];
        ductile_mpi_error_text(rc, m, sizeof m);
        fprintf(stderr, "ductile: error: EMPI_Reconfig_comm: MPI_Comm_dup failed: %s\n", m);
        *comm = MPI_COMM_NULL;
        return -1;
    }
    PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
    PMPI_Comm_set_name(*comm, "ductile-reconfig");
    return 0;
}
