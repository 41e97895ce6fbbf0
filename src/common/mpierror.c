/* mpierror.c -- wording of failed MPI calls (see mpierror.h). */
#include "mpierror.h"

#include <mpi.h>
#include <stdio.h>

void ductile_mpi_error_text(int rc, char *buf, size_t len)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int l = 0;
    if (PMPI_Error_string(rc, msg, &l) != MPI_SUCCESS || !msg[0]) snprintf(msg, sizeof msg, "MPI error %d", rc);
    snprintf(buf, len, "%s", msg);
}

void ductile_mpi_failed(int rc, const char *what, char *err, size_t errlen)
{
    char msg[MPI_MAX_ERROR_STRING];
    ductile_mpi_error_text(rc, msg, sizeof msg);
    snprintf(err, errlen, "%s failed: %s", what, msg);
}
