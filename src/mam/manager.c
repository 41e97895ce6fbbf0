/* manager.c -- MaM's life cycle on Ductile's engine (include/MAM_Manager.h,
 * MAM_Times_retrieve.h): MAM_Init (sources, or a new process that receives
 * its data), MAM_Checkpoint as MaM's state machine over control points,
 * the user function in a reconfiguration hook with a communicator over
 * sources and targets, MAM_Resume_redistribution, MAM_Get_Reconf_Info,
 * MAM_Retrieve_times, MAM_Finalize.  docs/mam.md. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ductile.h"
#include "empi.h"
#include "mam_int.h"
#include "../core/state.h"
#include "../malleable/empi_int.h"
#include "../malleable/resize.h"
#include "../redist/plan.h"

struct mam_state MS;

/* ------------------------------------------------------------------ the user phase (a reconfiguration hook) */

/* The last reconfiguration's times, from the new world's rank 0, which holds
 * its record (the engine's history), to everybody over span. */
static void share_times(const struct ductile_reconfig *info, MPI_Comm span, double user_s)
{
    int me = 0, root = -1;
    PMPI_Comm_rank(span, &me);
    int mine = info->new_rank == 0 ? me : -1;
    PMPI_Allreduce(&mine, &root, 1, MPI_INT, MPI_MAX, span);
    double t[6] = {0, 0, 0, 0, user_s, user_s};
    if (me == root) {
        int n = 0;
        const struct report_reconfig *h = ductile_malleable_history(&n);
        for (int i = n - 1; i >= 0; i--) {
            if (h[i].id != info->id) continue;
            t[1] = h[i].spawn_s + h[i].merge_s;
            t[2] = h[i].transfer_s;
            t[3] = h[i].overlap_it >= 0 ? h[i].background_s : 0;
            t[5] = h[i].total_s + user_s;
            break;
        }
    }
    if (root >= 0) PMPI_Bcast(t, 6, MPI_DOUBLE, root, span);
    memcpy(MS.times, t, sizeof t);
}

static void hook(const struct ductile_reconfig *info, void *arg)
{
    (void)arg;
    MPI_Comm span = MPI_COMM_NULL;
    if (EMPI_Reconfig_comm(&span) != 0) return; /* DUCTILE_PERSISTENT standby: no user phase */
    mam_data_give_buffers();
    double t0 = PMPI_Wtime();
    if (MS.fn) {
        MS.reconf.numS = info->old_size;
        MS.reconf.numT = info->new_size;
        MS.reconf.rank_state = info->role == DUCTILE_ROLE_NEW       ? MAM_PROC_NEW_RANK
                               : info->role == DUCTILE_ROLE_REMOVED ? MAM_PROC_ZOMBIE
                                                                    : MAM_PROC_CONTINUE;
        MS.reconf.comm = span;
        MS.in_user = 1;
        MS.resumed = 0;
        /* as MaM's MAM_WAIT_COMPLETION: called again until it resumes (the world has switched already) */
        do MS.fn(MS.args);
        while (!MS.resumed);
        MS.in_user = 0;
        MS.reconf.comm = MPI_COMM_NULL;
    }
    share_times(info, span, PMPI_Wtime() - t0);
    PMPI_Comm_free(&span);
}

void MAM_Resume_redistribution(int *state)
{
    MS.resumed = 1;
    if (state) *state = MAM_PENDING;
}

int MAM_Get_Reconf_Info(mam_user_reconf_t *reconf_info)
{
    if (!MS.in_user || !reconf_info) return MAM_DENIED;
    *reconf_info = MS.reconf;
    return MAM_OK;
}

void MAM_Retrieve_times(double *rms_time, double *sp_time, double *sy_time, double *asy_time, double *user_time,
                        double *mall_time)
{
    double *o[6] = {rms_time, sp_time, sy_time, asy_time, user_time, mall_time};
    for (int i = 0; i < 6; i++)
        if (o[i]) *o[i] = MS.times[i];
}

/* ------------------------------------------------------------------ init, finalize */

/* MAM_Init's name_exec: when it names another program than this one, the
 * spawned processes run it (else this program, with its arguments). */
static void spawn_program(const char *name)
{
    if (!name || !*name) return;
    char want[PATH_MAX], self[PATH_MAX];
    int found = 0;
    if (strchr(name, '/')) {
        found = realpath(name, want) != NULL;
    } else {
        const char *path = getenv("PATH");
        char dir[PATH_MAX];
        for (const char *p = path ? path : ""; *p && !found;) {
            size_t n = strcspn(p, ":");
            snprintf(dir, sizeof dir, "%.*s/%s", (int)n, p, name);
            found = access(dir, X_OK) == 0 && realpath(dir, want) != NULL;
            p += n + (p[n] == ':');
        }
    }
    if (!found || !realpath("/proc/self/exe", self) || strcmp(want, self) == 0) return;
    ductile_set_spawn_command(want);
}

static void set_user_comm(void)
{
    MPI_Comm old = *MS.user_comm;
    if (MS.user_is_world) {
        *MS.user_comm = MPI_COMM_WORLD;
        return;
    }
    if (old != MPI_COMM_NULL && old != MPI_COMM_WORLD) MPI_Comm_free(&old);
    MPI_Comm_dup(MPI_COMM_WORLD, MS.user_comm);
}

int MAM_Init(int root, MPI_Comm *comm, char *name_exec, void (*user_function)(void *), void *user_args)
{
    if (!comm) {
        fprintf(stderr, "ductile: error: MAM_Init: comm is NULL\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(&MS, 0, sizeof MS);
    MS.root = root;
    MS.user_comm = comm;
    MS.user_is_world = *comm == MPI_COMM_WORLD;
    MS.active = ductile_active();
    int cmp = MPI_UNEQUAL;
    if (!MS.user_is_world && *comm != MPI_COMM_NULL) MPI_Comm_compare(*comm, MPI_COMM_WORLD, &cmp);
    if (!MS.user_is_world && cmp != MPI_CONGRUENT && cmp != MPI_IDENT) {
        fprintf(stderr, "ductile: error: MAM_Init: Ductile resizes the whole world: pass MPI_COMM_WORLD (or a "
                        "communicator congruent with it), not a part of it\n");
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* MaM's block distribution: the extra elements on the first ranks (every process alike) */
    empi_layout_once();
    plan_set_remainder_last(0);
    MS.init = 1;
    mam_config_init();
    if (!MS.active) {
        if (ductile_rt.rank == 0)
            fprintf(stderr, "ductile: note: MAM_Init: Ductile is not active (DUCTILE_DISABLE=1?): the job keeps "
                            "its size\n");
        return MAM_SOURCES;
    }
    ductile_on_reconfigure(hook, NULL);
    int type = EMPI_NATIVE;
    EMPI_Get_type(&type);
    if (type != EMPI_SPAWNED) {
        spawn_program(name_exec);
        return MAM_SOURCES;
    }
    /* a target: register what the sources registered, receive it; the hook runs the user function */
    MS.fn = user_function;
    MS.args = user_args;
    if (mam_data_targets() != 0) {
        /* EMPI_Get_shared fails the registration check: the reconfiguration is rolled back and this
         * process leaves without returning */
    }
    int it = 0;
    EMPI_Get_shared(&it);
    MS.iteration = it - 1; /* the sources' checkpoint count */
    set_user_comm();
    return MAM_TARGETS;
}

int MAM_Finalize(void)
{
    if (!MS.init) return MAM_OK;
    ductile_off_reconfigure(hook, NULL);
    mam_data_free();
    MS.init = 0;
    return MAM_OK;
}

/* ------------------------------------------------------------------ the checkpoint */

static void nap_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

int MAM_Checkpoint(int *state, int wait_completed, void (*user_function)(void *), void *user_args)
{
    int dummy;
    if (!state) state = &dummy;
    if (!MS.init) {
        *state = MAM_UNRESERVED;
        return MAM_DENIED;
    }
    if (!MS.active) {
        *state = MAM_NOT_STARTED;
        return MAM_OK;
    }
    MS.fn = user_function;
    MS.args = user_args;
    if (!ductile_constant_pending()) {
        /* MAM_NOT_STARTED: this checkpoint starts the reconfiguration to the target number */
        mam_config_apply(wait_completed);
        if (MS.numC > 0 && (int)MS.numC != ductile_rt.size && ductile_rt.rank == 0) {
            char err[300];
            if (ductile_request_resize((int)MS.numC, 1, -1, NULL, err, sizeof err) != 0)
                fprintf(stderr, "ductile: MAM_Checkpoint: the reconfiguration to %u processes was not asked: %s\n",
                        MS.numC, err);
        }
    }
    MS.iteration++;
    int changed = ductile_control_point(MS.iteration);
    while (!changed && wait_completed == MAM_WAIT_COMPLETION && ductile_constant_pending()) {
        nap_ms(1); /* the background transfer progresses; every process tests it at each control point */
        changed = ductile_control_point(MS.iteration);
    }
    if (!changed) {
        *state = ductile_constant_pending() ? MAM_PENDING : MAM_NOT_STARTED;
        return MAM_OK;
    }
    *state = MAM_COMPLETED;
    if (!ductile_malleable_active()) {
        /* a zombie: MaM ends it here */
        if (!MS.user_is_world && *MS.user_comm != MPI_COMM_NULL) MPI_Comm_free(MS.user_comm);
        MAM_Finalize();
        MPI_Finalize();
        exit(0);
    }
    set_user_comm();
    return MAM_OK;
}
