/* fortran.c -- the hand-written Fortran (mpif.h / use mpi) bindings:
 * MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE.  The others are generated into
 * src/wrap/fortran.gen.c by tools/gen-fortran.py (helpers: fortran.h).
 *
 * Open MPI's own Fortran MPI_INIT calls PMPI_Init, so without these Ductile
 * would never initialise in a Fortran program.  A Fortran MPI_Init passes
 * no argc/argv: the C wrapper gets NULL, NULL (allowed by the standard). */
#include "config.h"

#if DUCTILE_FORTRAN

#include "fortran.h"

void mpi_init_(MPI_Fint *ierr)
{
    int rc = MPI_Init(NULL, NULL);
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_init)

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int c_provided = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(NULL, NULL, (int)*required, &c_provided);
    if (rc == MPI_SUCCESS) *provided = (MPI_Fint)c_provided;
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_init_thread)

void mpi_finalize_(MPI_Fint *ierr)
{
    int rc = MPI_Finalize();
    *ierr = (MPI_Fint)rc;
}
DUCTILE_F_ALIASES(mpi_finalize)

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int ductile_fortran_unused;
#endif
