/* fortran_check.c -- a warning, when libductile.so is loaded, if the
 * program has Fortran MPI bindings that Ductile does not replace.
 *
 * Ductile wraps the Fortran bindings by defining their symbols (mpi_send_,
 * mpi_send_f08_, ...; src/wrap/fortran*.c), which is done for Open MPI only
 * (DUCTILE_FORTRAN).  Where the MPI library's Fortran layer calls PMPI_*
 * directly, a Fortran program whose bindings Ductile does not define is
 * neither initialised, monitored nor virtualised; MPI_Init from Fortran
 * never reaches Ductile, so this can only be said at load time.  The check
 * looks up each binding family's MPI_Init (mpif.h / use mpi: mpi_init_;
 * use mpi_f08: the Open MPI and MPICH linker names) in the global scope and
 * warns once per job (from the process whose rank variable is 0) when one
 * resolves outside libductile.so.  Processes that no MPI launcher started
 * (no rank variable: shells, mpiexec, tools) return at once: the only
 * load-time work is three getenv calls. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const init_names[] = {
    "mpi_init_",        /* mpif.h and use mpi (gfortran) */
    "mpi_init_f08_",    /* use mpi_f08, Open MPI */
    "mpi_init_f08",     /* use mpi_f08, bind(C) spellings (MPICH) */
    "MPI_Init_f08",
    "mpi_init_f08ts_",
    "MPI_Init_f08ts",
};

/* The launcher's rank variable, or NULL in a process no MPI launcher
 * started (a shell, mpiexec itself, a tool): those are left alone. */
static const char *launcher_rank(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v) return v;
    }
    return NULL;
}

__attribute__((constructor)) static void ductile_fortran_check(void)
{
    const char *rank = launcher_rank();
    if (!rank) return; /* not an MPI rank: no work at load */
    Dl_info self;
    if (!dladdr((void *)&ductile_fortran_check, &self)) return;
    for (size_t i = 0; i < sizeof init_names / sizeof *init_names; i++) {
        void *p = dlsym(RTLD_DEFAULT, init_names[i]);
        Dl_info where;
        if (!p || !dladdr(p, &where) || where.dli_fbase == self.dli_fbase) continue;
        if (strcmp(rank, "0") == 0)
            fprintf(stderr,
                    "ductile: warning: this program's Fortran MPI bindings (%s in %s) are not wrapped by "
                    "Ductile for this MPI library: MPI calls made from Fortran bypass Ductile (no "
                    "monitoring, MPI_COMM_WORLD not virtualised, no malleability)\n",
                    init_names[i], where.dli_fname ? where.dli_fname : "?");
        return;
    }
}
