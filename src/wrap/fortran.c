/* fortran.c -- the hand-written Fortran bindings (mpif.h / use mpi:
 * mpi_init_ etc.; use mpi_f08: mpi_init_f08_ etc.): MPI_INIT,
 * MPI_INIT_THREAD and MPI_FINALIZE, and the helpers of the generated ones
 * (src/wrap/fortran.gen.c, tools/gen-fortran.py; inline helpers: fortran.h).
 *
 * Open MPI's own Fortran MPI_INIT calls PMPI_Init, so without these Ductile
 * would never initialise in a Fortran program.  A Fortran MPI_Init passes
 * no argc/argv: the C wrapper gets NULL, NULL (allowed by the standard). */
#include "config.h"

#if DUCTILE_FORTRAN

#include <stdio.h>

#include "pmpi_exports.h"

#include "fortran.h"
#include "../world/errhandler.h"

void mpi_init_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_init)
DUCTILE_F_UPPER(mpi_init, "MPI_INIT")
DUCTILE_F_CNAMES(mpi_init, "MPI_Init")
/* mpi_f08: IERROR is OPTIONAL (NULL when absent). */
void mpi_init_f08_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);
    if (ierr) *ierr = (MPI_Fint)rc;
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int c_provided = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(NULL, NULL, (int)*required, &c_provided);
    if (rc == MPI_SUCCESS) *provided = (MPI_Fint)c_provided;
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_init_thread)
DUCTILE_F_UPPER(mpi_init_thread, "MPI_INIT_THREAD")
DUCTILE_F_CNAMES(mpi_init_thread, "MPI_Init_thread")
void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    MPI_Fint e = MPI_SUCCESS;
    mpi_init_thread_(required, provided, &e);
    if (ierr) *ierr = e;
}

void mpi_finalize_(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_finalize)
DUCTILE_F_UPPER(mpi_finalize, "MPI_FINALIZE")
DUCTILE_F_CNAMES(mpi_finalize, "MPI_Finalize")
void mpi_finalize_f08_(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();
    if (ierr) *ierr = (MPI_Fint)rc;
}

/* ------------------------------------- MPI-1 names removed in MPI-3.0
 * Open MPI 4.1 still exports them.  The error-handler ones act on a
 * communicator, so they go through Ductile's C wrappers of their MPI-2
 * successors (and are counted under those names). */
#if HAVE_PMPI_Comm_set_errhandler && HAVE_PMPI_Comm_get_errhandler
void mpi_errhandler_set_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MPI_Comm_set_errhandler(PMPI_Comm_f2c(*comm), PMPI_Errhandler_f2c(*errhandler));
}
DUCTILE_F_ALIASES(mpi_errhandler_set)
DUCTILE_F_UPPER(mpi_errhandler_set, "MPI_ERRHANDLER_SET")
DUCTILE_F_CNAMES(mpi_errhandler_set, "MPI_Errhandler_set")

void mpi_errhandler_get_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = MPI_Comm_get_errhandler(PMPI_Comm_f2c(*comm), &c);
    if (rc == MPI_SUCCESS) *errhandler = PMPI_Errhandler_c2f(c);
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_errhandler_get)
DUCTILE_F_UPPER(mpi_errhandler_get, "MPI_ERRHANDLER_GET")
DUCTILE_F_CNAMES(mpi_errhandler_get, "MPI_Errhandler_get")
#endif

/* ------------------------------------- error handlers
 * Created behind Ductile's trampoline (src/world/errhandler.c), so that the
 * program's SUBROUTINE gets MPI_COMM_WORLD, not Ductile's world, and its own
 * handle of a file a resize moved.  The procedure argument arrives as the
 * address of the procedure. */
static void f_create_errhandler(int file, void *function, MPI_Fint *errhandler, MPI_Fint *ierr,
                               void (*library)(void *, MPI_Fint *, MPI_Fint *), const char *library_name)
{
    MPI_Errhandler c = MPI_ERRHANDLER_NULL;
    int rc = ductile_errhandler_create_fortran(file, (void (*)(void))function, &c);
    if (rc == DUCTILE_ERRHANDLER_NOT_HANDLED) { /* the library's own binding */
        if (library) library(function, errhandler, ierr);
        else *ierr = ductile_f_missing(library_name);
        return;
    }
    if (rc == MPI_SUCCESS) *errhandler = PMPI_Errhandler_c2f(c);
    *ierr = (MPI_Fint)rc;
}

#define F_CREATE_ERRHANDLER(name, cname, upper, fn_id, file)                                                           \
    extern void p##name##_(void *, MPI_Fint *, MPI_Fint *) __attribute__((weak));                                      \
    void name##_(void *function, MPI_Fint *errhandler, MPI_Fint *ierr)                                                 \
    {                                                                                                                  \
        DUCTILE_F_FORWARD((fn_id), f_create_errhandler((file), function, errhandler, ierr, p##name##_, "p" #name "_")); \
    }                                                                                                                  \
    DUCTILE_F_ALIASES(name)                                                                                            \
    DUCTILE_F_UPPER(name, upper)                                                                                       \
    DUCTILE_F_CNAMES(name, cname)                                                                                      \
    /* mpi_f08: TYPE(MPI_Errhandler) holds one INTEGER; IERROR is OPTIONAL */                                       \
    void name##_f08_(void *function, MPI_Fint *errhandler, MPI_Fint *ierr)                                             \
    {                                                                                                                  \
        MPI_Fint e = MPI_SUCCESS;                                                                                      \
        name##_(function, errhandler, &e);                                                                             \
        if (ierr) *ierr = e;                                                                                           \
    }
F_CREATE_ERRHANDLER(mpi_comm_create_errhandler, "MPI_Comm_create_errhandler", "MPI_COMM_CREATE_ERRHANDLER",
                    DUCTILE_FN_MPI_Comm_create_errhandler, 0)
F_CREATE_ERRHANDLER(mpi_file_create_errhandler, "MPI_File_create_errhandler", "MPI_FILE_CREATE_ERRHANDLER",
                    DUCTILE_FN_MPI_File_create_errhandler, 1)
/* MPI-1's name, removed in MPI-3.0 (Open MPI 4.1 still exports it) */
F_CREATE_ERRHANDLER(mpi_errhandler_create, "MPI_Errhandler_create", "MPI_ERRHANDLER_CREATE",
                    DUCTILE_FN_MPI_Errhandler_create, 0)

/* ---------------------------------------------------------------- helpers */

char **ductile_f_argv(const char *argv, size_t len, int *ok)
{
    *ok = 1;
    if (argv == NULL || argv == &mpi_fortran_argv_null_) return MPI_ARGV_NULL;
    size_t n = 0;
    for (;; n++) {
        const char *e = argv + n * len;
        size_t k = 0;
        while (k < len && e[k] == ' ') k++;
        if (k == len) break; /* a blank entry ends the list */
    }
    char **c = calloc(n + 1, sizeof *c);
    if (!c) {
        *ok = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        /* MPI: "in Fortran, leading and trailing spaces are always stripped" */
        size_t l = len;
        const char *e = argv + i * len;
        while (l > 0 && e[l - 1] == ' ') l--;
        while (l > 0 && e[0] == ' ') e++, l--;
        c[i] = malloc(l + 1);
        if (!c[i]) {
            ductile_f_argv_free(c);
            *ok = 0;
            return NULL;
        }
        memcpy(c[i], e, l);
        c[i][l] = 0;
    }
    return c;
}

void ductile_f_argv_free(char **argv)
{
    if (argv == NULL || argv == MPI_ARGV_NULL) return;
    for (char **p = argv; *p; p++) free(*p);
    free(argv);
}

int ductile_f_ntypes(MPI_Comm comm, int neighbor, int recv)
{
    comm = DUCTILE_COMM_IN(comm);
    int n = 0, inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    if (!neighbor) {
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
        if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) return 0;
        return n;
    }
    int topo = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return 0;
    if (topo == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank = 0;
        if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return 0;
        if (PMPI_Graph_neighbors_count(comm, rank, &n) != MPI_SUCCESS) return 0;
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in = 0, out = 0, weighted = 0;
        if (PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS) return 0;
        return recv ? in : out;
    }
    return 0;
}

MPI_Fint ductile_f_missing(const char *symbol)
{
    fprintf(stderr, "ductile: the MPI library has no Fortran binding %s; the call fails with MPI_ERR_INTERN\n", symbol);
    return (MPI_Fint)MPI_ERR_INTERN;
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int ductile_fortran_unused;
#endif
