/* errhandler.h -- the program's error handlers see the program's handles
 * (src/world/errhandler.c, docs/virtual-world.md, "Callbacks"): the C
 * MPI_Comm_create_errhandler, MPI_File_create_errhandler and
 * MPI_Errhandler_create are wrapped there; this is the Fortran bindings'
 * way in (src/wrap/fortran.c). */
#ifndef DUCTILE_ERRHANDLER_H
#define DUCTILE_ERRHANDLER_H

#include <mpi.h>

/* A Fortran error handler (SUBROUTINE HANDLER(HANDLE, ERROR_CODE)) for
 * communicators (file 0) or files (file 1), behind a trampoline that passes
 * the program's handle.  Returns an MPI error code, or
 * DUCTILE_ERRHANDLER_NOT_HANDLED: the library's own binding is to create it
 * (Ductile disabled, no memory, or an MPI whose handlers cannot be
 * trampolined under MPI_THREAD_MULTIPLE).  Not counted: the caller counts. */
#define DUCTILE_ERRHANDLER_NOT_HANDLED (-1)
int ductile_errhandler_create_fortran(int file, void (*function)(void), MPI_Errhandler *errhandler);

#endif
