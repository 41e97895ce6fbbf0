/* mpierror.c -- wording of failed MPI calls (see mpierror.h). */
#include "mpierror.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

void ductile_mpi_error_text(int rc, char *buf, size_t len)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int l = 0;
    if (PMPI_Error_string(rc, msg, &l) != MPI_SUCCESS || !msg[0]) snprintf(msg, sizeof msg, "MPI error %d", rc);
    /* MPICH and its derivatives give the class, then a stack of the calls,
     * innermost last ("Other MPI error, error stack:\ninternal_Comm_spawn
     * (101): MPI_Comm_spawn(command=..., 200 characters)\n
     * MPID_Comm_spawn_multiple(86): Error in spawn call"): the class and the
     * innermost line say what failed, and fit on one line of a report */
    char *stack = strstr(msg, ", error stack:\n");
    char *last = strrchr(msg, '\n');
    if (stack && last && last[1]) {
        *stack = '\0';
        snprintf(buf, len, "%s: %s", msg, last + 1);
        return;
    }
    snprintf(buf, len, "%s", msg);
}

void ductile_mpi_failed(int rc, const char *what, char *err, size_t errlen)
{
    char msg[MPI_MAX_ERROR_STRING];
    ductile_mpi_error_text(rc, msg, sizeof msg);
    snprintf(err, errlen, "%s failed: %s", what, msg);
}
