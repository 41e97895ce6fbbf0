/* fortran.c -- C entry points for the Fortran EMPI module (include/empi.f90,
 * `use empi`): the calls that take an MPI datatype receive its Fortran handle
 * (MPI_Fint, from mpi_f08's type(MPI_Datatype)%MPI_VAL or the integer of
 * `use mpi`) and convert it with MPI_Type_f2c, so the module works with any
 * MPI; EMPI_Monitor_end without the C-only reallocated arrays. */
#include "config.h"

#include <mpi.h>

#include "empi.h"

void EMPI_F_Register_dense(char *id, void *addr, MPI_Fint type, int size, int mapping)
{
    EMPI_Register_dense(id, addr, PMPI_Type_f2c(type), size, mapping);
}

void EMPI_F_Register_vector(char *id, void *addr, MPI_Fint type, int size, int mapping)
{
    EMPI_Register_vector(id, addr, PMPI_Type_f2c(type), size, mapping);
}

int EMPI_F_Register_scalar(const char *id, void *addr, MPI_Fint type, int count)
{
    return EMPI_Register_scalar(id, addr, PMPI_Type_f2c(type), count);
}

int EMPI_F_Register_array(const char *id, void *addr, MPI_Fint type, int64_t rows, int64_t row_elems,
                                  int mapping, int flags)
{
    return EMPI_Register_array(id, addr, PMPI_Type_f2c(type), rows, row_elems, mapping, flags);
}

void EMPI_F_Monitor_end(int *rank, int *size, int iter, int maxiter, int *count, int *disp)
{
    EMPI_Monitor_end(rank, size, iter, maxiter, count, disp, NULL, NULL, NULL, NULL, NULL);
}

void EMPI_F_Monitor_end64(int *rank, int *size, int iter, int maxiter, int64_t *count, int64_t *disp)
{
    EMPI_Monitor_end64(rank, size, iter, maxiter, count, disp, NULL, NULL, NULL, NULL, NULL);
}

void EMPI_F_Monitor_init(void) { ductile_empi_monitor_init0(); }
