/* handwritten.c -- the wrappers whose semantics need care, written by hand:
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort, predefined attributes
 * and the name of the world, error handlers on the world (also through the
 * MPI-1 MPI_Errhandler_set/_get), MPI_Pcontrol, and the persistent-request
 * calls that carry byte counts across MPI_Start. */
#include "config.h"

#include <stdlib.h>

#include "bytes.h"
#include "../core/hotpath.h"
#include "pmpi_exports.h"
#include "runtime.h"

int MPI_Init(int *argc, char ***argv)
{
    return ductile_runtime_init(argc, argv, MPI_THREAD_SINGLE, NULL, 0);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return ductile_runtime_init(argc, argv, required, provided, 1);
}

int MPI_Finalize(void)
{
    return ductile_runtime_finalize();
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    /* Abort what the application calls the world: the current virtual world. */
    comm = DUCTILE_COMM_IN(comm);
    return PMPI_Abort(comm, errorcode);
}

/* Predefined attributes (MPI_TAG_UB, MPI_UNIVERSE_SIZE, MPI_APPNUM, ...)
 * live on the real MPI_COMM_WORLD: answer those from it, user attributes
 * from the virtual world. */
static int is_predefined_keyval(int keyval)
{
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
           keyval == MPI_LASTUSEDCODE || keyval == MPI_APPNUM;
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    if (comm == MPI_COMM_WORLD && !is_predefined_keyval(comm_keyval)) comm = ductile_world;
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Comm_get_attr(comm, comm_keyval, attribute_val, flag);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_get_attr);
    int ret = PMPI_Comm_get_attr(comm, comm_keyval, attribute_val, flag);
    DUCTILE_END(DUCTILE_FN_MPI_Comm_get_attr, 0, 0);
    return ret;
}

#if HAVE_PMPI_Attr_get
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    if (comm == MPI_COMM_WORLD && !is_predefined_keyval(keyval)) comm = ductile_world;
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Attr_get(comm, keyval, attribute_val, flag);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Attr_get);
    int ret = PMPI_Attr_get(comm, keyval, attribute_val, flag);
    DUCTILE_END(DUCTILE_FN_MPI_Attr_get, 0, 0);
    return ret;
}
#pragma GCC diagnostic pop
#endif

/* An error handler set on MPI_COMM_WORLD goes to the virtual world and to the
 * real world (errors not tied to a communicator are raised there). */
static int set_errhandler(int fn, MPI_Comm comm, MPI_Errhandler errhandler, void *caller)
{
    int also_real = comm == MPI_COMM_WORLD && ductile_world != MPI_COMM_WORLD;
    comm = DUCTILE_COMM_IN(comm);
    int monitored = DUCTILE_SHOULD_MONITOR();
    uint64_t t0 = monitored ? ductile_enter(fn, caller) : 0;
    int ret = PMPI_Comm_set_errhandler(comm, errhandler);
    if (ret == MPI_SUCCESS && also_real) ret = PMPI_Comm_set_errhandler(MPI_COMM_WORLD, errhandler);
    if (monitored) ductile_leave(fn, t0, 0, 0);
    return ret;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(DUCTILE_FN_MPI_Comm_set_errhandler, comm, errhandler, __builtin_return_address(0));
}

/* The MPI-1 names, removed in MPI-3.0 (mpi.h no longer declares them; Open
 * MPI's defines macros in their place) but still exported by the MPIs, which
 * old binaries call: the same as MPI_Comm_set_errhandler and
 * MPI_Comm_get_errhandler (src/wrap/removed.c has the datatype ones). */
#if HAVE_PMPI_Errhandler_set
#undef MPI_Errhandler_set
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return set_errhandler(DUCTILE_FN_MPI_Errhandler_set, comm, errhandler, __builtin_return_address(0));
}
#endif

#if HAVE_PMPI_Errhandler_get
#undef MPI_Errhandler_get
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    comm = DUCTILE_COMM_IN(comm);
    if (DUCTILE_SHOULD_MONITOR()) ductile_count_call(DUCTILE_FN_MPI_Errhandler_get); /* untimed, as MPI_Comm_get_errhandler */
    return PMPI_Comm_get_errhandler(comm, errhandler);
}
#endif

int MPI_Pcontrol(const int level, ...)
{
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Pcontrol(level);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Pcontrol);
    int ret = PMPI_Pcontrol(level);
    DUCTILE_END(DUCTILE_FN_MPI_Pcontrol, 0, 0);
    return ret;
}

int MPI_Start(MPI_Request *request)
{
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Start(request);
    uint64_t s = 0, r = 0;
    ductile_persist_lookup(*request, &s, &r);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Start);
    int ret = PMPI_Start(request);
    if (ret != MPI_SUCCESS) s = r = 0;
    DUCTILE_END(DUCTILE_FN_MPI_Start, s, r);
    return ret;
}

int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Startall(count, array_of_requests);
    uint64_t s = 0, r = 0;
    for (int i = 0; i < count; i++) {
        uint64_t si, ri;
        ductile_persist_lookup(array_of_requests[i], &si, &ri);
        s += si;
        r += ri;
    }
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Startall);
    int ret = PMPI_Startall(count, array_of_requests);
    if (ret != MPI_SUCCESS) s = r = 0;
    DUCTILE_END(DUCTILE_FN_MPI_Startall, s, r);
    return ret;
}

int MPI_Request_free(MPI_Request *request)
{
    if (request) ductile_persist_remove(*request);
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Request_free(request);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Request_free);
    int ret = PMPI_Request_free(request);
    DUCTILE_END(DUCTILE_FN_MPI_Request_free, 0, 0);
    return ret;
}
