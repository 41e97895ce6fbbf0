/* errhandler.c -- the program's error handlers see the program's handles
 * (docs/virtual-world.md, "Callbacks").
 *
 * The MPI calls an error handler with the communicator or file the error
 * was raised on: Ductile's virtual world where the program said
 * MPI_COMM_WORLD, the MPI's current handle of a file that a resize moved
 * (src/world/filekeep.c).  So MPI_Comm_create_errhandler,
 * MPI_File_create_errhandler and the MPI-1 MPI_Errhandler_create (and their
 * Fortran bindings, src/wrap/fortran.c) give the MPI a trampoline instead of
 * the program's function; the trampoline calls the program's function with
 * the program's handle (MPI_COMM_WORLD for the current virtual world, the
 * program's MPI_File for a moved file, a Fortran program's INTEGER handles)
 * and the error code.  How the trampoline knows the program's function:
 *
 * - MPICH 5 (PMPIX_Comm_create_errhandler_x and its file twin): the
 *   handler's extra state, freed by the MPI's destructor call.
 * - Otherwise (Open MPI): a list of (error handler, program function); the
 *   trampoline asks the MPI which handler the object it was given has (the
 *   one being invoked) and looks it up.  It passes on what Open MPI gives
 *   after the code (its message and a NULL).  The list grows only when the
 *   MPI hands out a handle it never handed out before, and is read without
 *   a lock (entries published by an atomic exchange, never freed).  An
 *   MPICH without handlers with extra state holds the object's lock while it
 *   calls the handler, so under MPI_THREAD_MULTIPLE it gets the program's
 *   function as it is.
 *
 * Window and session error handlers are left to the MPI: Ductile substitutes
 * no window or session handle, so the MPI already passes the program's.
 * The trampolines run only when an error is raised: nothing here is on the
 * path of a wrapped call. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "errhandler.h"
#include "../core/hotpath.h"
#include "../core/state.h"
#include "filekeep.h"
#include "pmpi_exports.h"

#if defined(MPICH) && HAVE_PMPIX_Comm_create_errhandler_x && HAVE_PMPIX_File_create_errhandler_x
#define EXTRA_STATE 1
#else
#define EXTRA_STATE 0
#endif

/* The program's function (C or Fortran: its trampoline says which). */
typedef void (*program_fn)(void);
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

#if !EXTRA_STATE
/* ------------------------------------------------------------------ by lookup */

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

#endif /* !EXTRA_STATE */

/* ------------------------------------------------------------------ creation */

#define NOT_HANDLED DUCTILE_ERRHANDLER_NOT_HANDLED /* the program's function goes to the MPI as it is */

#if EXTRA_STATE
struct xrec {
    program_fn fn;
    int fortran;
};

static void xrec_free(void *extra) { free(extra); }

static void comm_x(MPI_Comm comm, int code, void *extra)
{
    const struct xrec *r = extra;
    MPI_Comm c = comm == ductile_world ? MPI_COMM_WORLD : comm; /* MPI_COMM_WORLD for Ductile's world */
    if (r->fortran) {
        MPI_Fint fc = PMPI_Comm_c2f(c), fcode = (MPI_Fint)code;
        ((fortran_handler *)r->fn)(&fc, &fcode);
        return;
    }
    ((comm_handler *)r->fn)(&c, &code);
}

static void file_x(MPI_File fh, int code, void *extra)
{
    const struct xrec *r = extra;
    MPI_File f = ductile_file_program(fh); /* the program's handle of a file a resize moved */
    if (r->fortran) {
        MPI_Fint ff = PMPI_File_c2f(f), fcode = (MPI_Fint)code;
        ((fortran_handler *)r->fn)(&ff, &fcode);
        return;
    }
    ((file_handler *)r->fn)(&f, &code);
}
#endif

/* A communicator (file 0) or file (file 1) error handler for the program's
 * C or Fortran function `fn`: an MPI error code, or NOT_HANDLED. */
static int create(int file, program_fn fn, int fortran, MPI_Errhandler *errhandler)
{
    if (ductile_rt.settings.disable) return NOT_HANDLED;
#if EXTRA_STATE
    struct xrec *r = malloc(sizeof *r);
    if (!r) return NOT_HANDLED;
    r->fn = fn;
    r->fortran = fortran;
    int ret = file ? PMPIX_File_create_errhandler_x(file_x, xrec_free, r, errhandler)
                   : PMPIX_Comm_create_errhandler_x(comm_x, xrec_free, r, errhandler);
    if (ret != MPI_SUCCESS) free(r);
    return ret;
#else
#ifdef MPICH
    /* an MPICH without handlers with extra state holds the object's lock
     * while it calls the handler: the trampoline could not ask it which one */
    if (ductile_rt.thread_level == MPI_THREAD_MULTIPLE) return NOT_HANDLED;
#endif
    struct handler *n = malloc(sizeof *n);
    if (!n) return NOT_HANDLED;
    int ret = file ? PMPI_File_create_errhandler(fortran ? file_trampoline_fortran : file_trampoline, errhandler)
                   : PMPI_Comm_create_errhandler(fortran ? comm_trampoline_fortran : comm_trampoline, errhandler);
    if (ret == MPI_SUCCESS) remember(n, *errhandler, fn);
    else free(n);
    return ret;
#endif
}

/* The wrappers: counted and timed like the generated ones. */
#define CREATE_WRAPPER(fn_id, file, program, pmpi_direct, errhandler)                                                  \
    do {                                                                                                               \
        int monitored_ = DUCTILE_SHOULD_MONITOR();                                                                     \
        uint64_t t0_ = monitored_ ? ductile_enter((fn_id), __builtin_return_address(0)) : 0;                          \
        ret = create((file), (program_fn)(program), 0, (errhandler));                                                  \
        if (ret == NOT_HANDLED) ret = pmpi_direct((program), (errhandler));                                            \
        if (monitored_) ductile_leave((fn_id), t0_, 0, 0);                                                             \
    } while (0)

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int ret;
    CREATE_WRAPPER(DUCTILE_FN_MPI_Comm_create_errhandler, 0, comm_errhandler_fn, PMPI_Comm_create_errhandler,
                   errhandler);
    return ret;
}

int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    int ret;
    CREATE_WRAPPER(DUCTILE_FN_MPI_File_create_errhandler, 1, file_errhandler_fn, PMPI_File_create_errhandler,
                   errhandler);
    return ret;
}

/* MPI-1's MPI_Errhandler_create, removed in MPI-3.0 (no longer declared by
 * mpi.h; Open MPI's defines a macro in its place): the same as
 * MPI_Comm_create_errhandler. */
#if HAVE_PMPI_Errhandler_create
#undef MPI_Errhandler_create
int MPI_Errhandler_create(comm_handler *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_create(comm_handler *function, MPI_Errhandler *errhandler)
{
    int ret;
    CREATE_WRAPPER(DUCTILE_FN_MPI_Errhandler_create, 0, function, PMPI_Comm_create_errhandler, errhandler);
    return ret;
}
#endif

int ductile_errhandler_create_fortran(int file, void (*function)(void), MPI_Errhandler *errhandler)
{
    return create(file, function, 1, errhandler);
}
