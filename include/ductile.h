/* ductile.h -- Ductile's native public API.
 *
 * Most programs need no header at all: preload libductile.so (tools/ductile-run)
 * and every MPI call is monitored and MPI_COMM_WORLD is virtualised.  This
 * header is for programs that want to talk to Ductile directly.
 * FlexMPI-compatible malleability calls live in <empi.h>. */
#ifndef DUCTILE_H
#define DUCTILE_H

#ifdef __cplusplus
extern "C" {
#endif

#define DUCTILE_VERSION_MAJOR 0
#define DUCTILE_VERSION_MINOR 1
#define DUCTILE_VERSION_PATCH 0

/* The library's version, "MAJOR.MINOR.PATCH". */
const char *ductile_version(void);

/* 1 when Ductile is active in this process (between MPI_Init and MPI_Finalize
 * and not disabled with DUCTILE_DISABLE=1), else 0. */
int ductile_active(void);

/* Number of iterations of the main loop detected so far on this rank
 * (0 while no loop has been found). */
unsigned long long ductile_iterations(void);

#ifdef __cplusplus
}
#endif

#endif
