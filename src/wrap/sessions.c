/* sessions.c -- programs of the MPI-4 Sessions model (docs/virtual-world.md,
 * "MPI Sessions"): MPI_Session_init, MPI_Session_finalize and
 * MPI_Comm_create_from_group, written by hand.
 *
 * A program that never calls MPI_Init is monitored from its first
 * MPI_Session_init on (src/wrap/runtime.c).  Ductile then opens a session of
 * its own and takes the group of mpi://WORLD from it (both local calls).
 * The report is combined over a private communicator; without
 * MPI_COMM_WORLD, Ductile makes it from its own group when the program makes
 * a communicator of the whole of mpi://WORLD (MPI_Comm_create_from_group is
 * collective over that group, so every process is in the same call: no
 * collective call where the program makes none).  The report is written at
 * the program's last MPI_Session_finalize.  Communicators made from session
 * process sets are the MPI's own: not virtualised, not resized. */
#include "config.h"

#include <string.h>

#include "../core/hotpath.h"
#include "pmpi_exports.h"
#include "runtime.h"

#if HAVE_PMPI_Session_init && HAVE_PMPI_Session_finalize && HAVE_PMPI_Comm_create_from_group &&                    \
    HAVE_PMPI_Group_from_session_pset && HAVE_PMPI_Session_get_info && HAVE_PMPI_Info_get_string

static int nsessions;                     /* the program's sessions alive */
static MPI_Session own = MPI_SESSION_NULL; /* Ductile's session (monitoring by session only) */
static MPI_Group world_group = MPI_GROUP_NULL; /* mpi://WORLD, from Ductile's session */
static int private_claimed;               /* the private communicator is being made or exists */

/* The thread level the MPI granted the program's session: 1 for MPI_THREAD_MULTIPLE (or unknown). */
static int thread_multiple(MPI_Session s)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[64] = "";
    int len = (int)sizeof v, flag = 0;
    if (PMPI_Session_get_info(s, &info) != MPI_SUCCESS || info == MPI_INFO_NULL) return 1;
    PMPI_Info_get_string(info, "mpi_thread_support_level", &len, v, &flag);
    PMPI_Info_free(&info);
    return !flag || strstr(v, "MULTIPLE") != NULL;
}

static void own_session(void)
{
    if (own != MPI_SESSION_NULL) return;
    if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &own) != MPI_SUCCESS) {
        own = MPI_SESSION_NULL;
        ductile_log(1, "sessions: cannot open Ductile's own session: no report");
        return;
    }
    if (PMPI_Group_from_session_pset(own, "mpi://WORLD", &world_group) != MPI_SUCCESS) world_group = MPI_GROUP_NULL;
}

static void own_session_end(void)
{
    if (world_group != MPI_GROUP_NULL) PMPI_Group_free(&world_group);
    if (own != MPI_SESSION_NULL) PMPI_Session_finalize(&own);
    own = MPI_SESSION_NULL;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    ductile_runtime_session_begin(); /* no MPI_Init (yet): monitoring starts here */
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Session_init(info, errhandler, session);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Session_init);
        ret = PMPI_Session_init(info, errhandler, session);
        DUCTILE_END(DUCTILE_FN_MPI_Session_init, 0, 0);
    }
    if (ret == MPI_SUCCESS) {
        __atomic_add_fetch(&nsessions, 1, __ATOMIC_ACQ_REL);
        if (ductile_runtime_by_session()) {
            ductile_depth++;
            ductile_runtime_session_threads(thread_multiple(*session));
            own_session();
            ductile_depth--;
        }
    }
    return ret;
}

/* The program made a communicator of `group` (every process of the group is
 * in this call): when it is all of mpi://WORLD, make the private one too. */
static void private_from(MPI_Group group)
{
    int cmp = MPI_UNEQUAL;
    if (PMPI_Group_compare(group, world_group, &cmp) != MPI_SUCCESS || (cmp != MPI_IDENT && cmp != MPI_SIMILAR))
        return;
    if (__atomic_exchange_n(&private_claimed, 1, __ATOMIC_ACQ_REL)) return;
    MPI_Comm c = MPI_COMM_NULL;
    if (PMPI_Comm_create_from_group(world_group, "org.ductile.private", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) !=
        MPI_SUCCESS) {
        ductile_log(1, "sessions: cannot make the private communicator: no report");
        return;
    }
    PMPI_Comm_set_name(c, "ductile-private");
    ductile_runtime_session_world(c);
}

int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                               MPI_Comm *newcomm)
{
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_create_from_group);
        ret = PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm);
        DUCTILE_END(DUCTILE_FN_MPI_Comm_create_from_group, 0, 0);
    }
    if (ret == MPI_SUCCESS && world_group != MPI_GROUP_NULL && ductile_runtime_by_session() &&
        !__atomic_load_n(&private_claimed, __ATOMIC_ACQUIRE)) {
        ductile_depth++;
        private_from(group);
        ductile_depth--;
    }
    return ret;
}

int MPI_Session_finalize(MPI_Session *session)
{
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Session_finalize(session);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Session_finalize);
        ret = PMPI_Session_finalize(session);
        DUCTILE_END(DUCTILE_FN_MPI_Session_finalize, 0, 0);
    }
    if (ret == MPI_SUCCESS && __atomic_sub_fetch(&nsessions, 1, __ATOMIC_ACQ_REL) == 0) {
        /* the program's last session: the report (monitoring by session), then Ductile's session */
        ductile_depth++;
        ductile_runtime_session_end();
        own_session_end(); /* its private communicator, if any, is gone (here, or replaced in MPI_Init) */
        ductile_depth--;
    }
    return ret;
}

#endif
