/* errhandler.c -- the program's error handlers see the program's handles
 * (docs/virtual-world.md, "Callbacks").
 *
 * The MPI calls an error handler with the communicator or file the error
 * was raised on: Ductile's virtual world where the program said
 * MPI_COMM_WORLD, the MPI's current handle of a file that a resize moved
 * (src/world/filekeep.c).  So MPI_Comm_create_errhandler,
 * MPI_File_create_errhandler and the MPI-1 MPI_Errhandler_create give the MPI
 * a trampoline instead of the program's function, and remember which
 * function the new error handler stands for.  When the MPI calls the
 * trampoline, it asks the MPI for the error handler of the object it was
 * given (the one being invoked), finds the program's function behind it,
 * and calls it with the program's handle (MPI_COMM_WORLD for the current
 * virtual world, the program's MPI_File for a moved file) and the error
 * code, plus what Open MPI passes after them (its message and a NULL).
 *
 * Fortran handlers (Open MPI's mpif.h, use mpi and use mpi_f08 bindings,
 * src/wrap/fortran.c) go the same way: the trampoline converts the
 * program's handle and the code to Fortran INTEGERs and calls the
 * program's SUBROUTINE with them (a trampoline of their own: the MPI tells
 * which kind of function stands behind it).
 *
 * Window and session error handlers are left to the MPI: Ductile substitutes
 * no window or session handle, so the MPI already passes the program's.
 *
 * The list of handlers grows only when the MPI hands out an error-handler
 * handle it never handed out before (a reused handle takes its entry over);
 * it is read without a lock (entries are published by an atomic exchange and
 * never freed).  The trampolines run only when an error is raised: nothing
 * here is on the path of a wrapped call. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "errhandler.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "filekeep.h"
#include "pmpi_exports.h"

/* The program's function (C or Fortran: the trampoline the MPI was given says which). */
typedef void (*program_fn)(void);

struct handler {
    MPI_Errhandler eh;
    program_fn fn;
    struct handler *next;
};
static struct handler *handlers;

static program_fn find(MPI_Errhandler eh)
{
    for (struct handler *h = __atomic_load_n(&handlers, __ATOMIC_ACQUIRE); h; h = h->next)
        if (h->eh == eh) return __atomic_load_n(&h->fn, __ATOMIC_ACQUIRE);
    return NULL;
}

/* Publish `n` (allocated before the handler was created) for `eh`. */
static void remember(struct handler *n, MPI_Errhandler eh, program_fn fn)
{
    for (struct handler *h = __atomic_load_n(&handlers, __ATOMIC_ACQUIRE); h; h = h->next)
        if (h->eh == eh) { /* the MPI reused a freed handle: the old handler is gone */
            __atomic_store_n(&h->fn, fn, __ATOMIC_RELEASE);
            free(n);
            return;
        }
    n->eh = eh;
    n->fn = fn;
    n->next = __atomic_load_n(&handlers, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(&handlers, &n->next, n, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

/* An error raised while a trampoline asks the MPI about the handler (an
 * invalid object) must not come back here. */
static __thread int in_trampoline;

static void not_found(const char *what)
{
    fprintf(stderr, "ductile: error: the MPI called an error handler on a %s whose handler Ductile does not know\n",
            what);
}

/* The program's function behind the handler the MPI is invoking on `comm`
 * (NULL: none, the message is printed), and the program's handle. */
static program_fn comm_program(MPI_Comm *comm, MPI_Comm *prog)
{
    if (in_trampoline || !comm || *comm == MPI_COMM_NULL) return NULL;
    in_trampoline = 1;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    program_fn fn = NULL;
    if (PMPI_Comm_get_errhandler(*comm, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL) {
        fn = find(eh);
        PMPI_Errhandler_free(&eh);
    }
    in_trampoline = 0;
    if (!fn) not_found("communicator");
    *prog = *comm == ductile_world ? MPI_COMM_WORLD : *comm; /* MPI_COMM_WORLD for Ductile's current world */
    return fn;
}

static program_fn file_program(MPI_File *fh, MPI_File *prog)
{
    if (in_trampoline || !fh) return NULL;
    in_trampoline = 1;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    program_fn fn = NULL;
    /* MPI_FILE_NULL too: its handler is the default for MPI_File_open */
    if (PMPI_File_get_errhandler(*fh, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL) {
        fn = find(eh);
        PMPI_Errhandler_free(&eh);
    }
    in_trampoline = 0;
    if (!fn) not_found("file");
    *prog = ductile_file_program(*fh); /* the program's handle of a file a resize moved */
    return fn;
}

typedef void comm_handler(MPI_Comm *, int *, ...);
typedef void file_handler(MPI_File *, int *, ...);
/* SUBROUTINE HANDLER(HANDLE, ERROR_CODE): two INTEGERs by reference (mpi_f08's
 * TYPE(MPI_Comm) and TYPE(MPI_File) hold one INTEGER: the same in memory) */
typedef void fortran_handler(MPI_Fint *, MPI_Fint *);

/* Open MPI passes its message and a NULL after the error code (both its C
 * handlers and its removed MPI_Handler_function); MPICH passes nothing more. */
#ifdef OPEN_MPI
#define CALL_PROGRAM(f, h, code)                                                                                       \
    do {                                                                                                               \
        va_list ap;                                                                                                    \
        va_start(ap, code);                                                                                            \
        void *a1_ = va_arg(ap, void *), *a2_ = va_arg(ap, void *);                                                     \
        va_end(ap);                                                                                                    \
        (f)((h), (code), a1_, a2_);                                                                                    \
    } while (0)
#else
#define CALL_PROGRAM(f, h, code) (f)((h), (code))
#endif

static void comm_trampoline(MPI_Comm *comm, int *code, ...)
{
    MPI_Comm c;
    program_fn fn = comm_program(comm, &c);
    if (fn) CALL_PROGRAM((comm_handler *)fn, &c, code);
}

static void file_trampoline(MPI_File *fh, int *code, ...)
{
    MPI_File f;
    program_fn fn = file_program(fh, &f);
    if (fn) CALL_PROGRAM((file_handler *)fn, &f, code);
}

static void comm_trampoline_fortran(MPI_Comm *comm, int *code, ...)
{
    MPI_Comm c;
    program_fn fn = comm_program(comm, &c);
    if (!fn) return;
    MPI_Fint fc = PMPI_Comm_c2f(c), fcode = (MPI_Fint)*code;
    ((fortran_handler *)fn)(&fc, &fcode);
}

static void file_trampoline_fortran(MPI_File *fh, int *code, ...)
{
    MPI_File f;
    program_fn fn = file_program(fh, &f);
    if (!fn) return;
    MPI_Fint ff = PMPI_File_c2f(f), fcode = (MPI_Fint)*code;
    ((fortran_handler *)fn)(&ff, &fcode);
}

/* PMPI create call with the trampoline; the program's function behind it.
 * Without memory for the entry, the program's function goes to the MPI
 * directly (the handler then sees the MPI's handles, as without this). */
#define CREATE(pmpi, trampoline, program, errhandler)                                                                  \
    do {                                                                                                               \
        struct handler *n_ = ductile_rt.settings.disable ? NULL : malloc(sizeof *n_);                                \
        if (!n_) {                                                                                                     \
            ret = pmpi((program), (errhandler));                                                                       \
            break;                                                                                                     \
        }                                                                                                              \
        ret = pmpi((trampoline), (errhandler));                                                                        \
        if (ret == MPI_SUCCESS) remember(n_, *(errhandler), (program_fn)(program));                                 \
        else free(n_);                                                                                                 \
    } while (0)

#if HAVE_PMPI_Comm_create_errhandler && HAVE_PMPI_Comm_get_errhandler
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        CREATE(PMPI_Comm_create_errhandler, comm_trampoline, comm_errhandler_fn, errhandler);
        return ret;
    }
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_create_errhandler);
    CREATE(PMPI_Comm_create_errhandler, comm_trampoline, comm_errhandler_fn, errhandler);
    DUCTILE_END(DUCTILE_FN_MPI_Comm_create_errhandler, 0, 0);
    return ret;
}
#endif

#if HAVE_PMPI_File_create_errhandler && HAVE_PMPI_File_get_errhandler
int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        CREATE(PMPI_File_create_errhandler, file_trampoline, file_errhandler_fn, errhandler);
        return ret;
    }
    DUCTILE_BEGIN(DUCTILE_FN_MPI_File_create_errhandler);
    CREATE(PMPI_File_create_errhandler, file_trampoline, file_errhandler_fn, errhandler);
    DUCTILE_END(DUCTILE_FN_MPI_File_create_errhandler, 0, 0);
    return ret;
}
#endif

/* MPI-1's MPI_Errhandler_create, removed in MPI-3.0 (no longer declared by
 * mpi.h; Open MPI's defines a macro in its place): the same as
 * MPI_Comm_create_errhandler. */
#if HAVE_PMPI_Errhandler_create && HAVE_PMPI_Comm_create_errhandler && HAVE_PMPI_Comm_get_errhandler
#undef MPI_Errhandler_create
int MPI_Errhandler_create(comm_handler *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_create(comm_handler *function, MPI_Errhandler *errhandler)
{
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        CREATE(PMPI_Comm_create_errhandler, comm_trampoline, function, errhandler);
        return ret;
    }
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Errhandler_create);
    CREATE(PMPI_Comm_create_errhandler, comm_trampoline, function, errhandler);
    DUCTILE_END(DUCTILE_FN_MPI_Errhandler_create, 0, 0);
    return ret;
}
#endif

#if HAVE_PMPI_Comm_create_errhandler && HAVE_PMPI_Comm_get_errhandler && HAVE_PMPI_File_create_errhandler &&          \
    HAVE_PMPI_File_get_errhandler
int ductile_errhandler_create_fortran(int fn_id, int file, void (*function)(void), MPI_Errhandler *errhandler)
{
    struct handler *n = ductile_rt.settings.disable ? NULL : malloc(sizeof *n);
    if (!n) return MPI_ERR_NO_MEM; /* a Fortran function cannot be handed to the MPI's C interface */
    int monitored = DUCTILE_SHOULD_MONITOR();
    uint64_t t0 = monitored ? ductile_enter(fn_id, __builtin_return_address(0)) : 0;
    int ret = file ? PMPI_File_create_errhandler(file_trampoline_fortran, errhandler)
                   : PMPI_Comm_create_errhandler(comm_trampoline_fortran, errhandler);
    if (monitored) ductile_leave(fn_id, t0, 0, 0);
    if (ret == MPI_SUCCESS) remember(n, *errhandler, function);
    else free(n);
    return ret;
}
#endif
