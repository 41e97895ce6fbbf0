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

/* Number of iterations of the main loop detected so far (0 while no loop
 * has been found).  The detector runs on rank 0 only (its result is the one
 * the report and the controller use): other ranks always get 0. */
unsigned long long ductile_iterations(void);

/* ---- Malleability (see <empi.h> and docs/malleability.md) ---- */

#include <stddef.h>

/* Ask for a resize, to happen at the first control point whose iteration is
 * >= at_iteration (-1: the next one).  is_target = 0: delta_or_target is a
 * change (+N adds, -N removes processes); is_target = 1: it is the new world
 * size.  hosts: where new processes go ("a;b"), or, when removing, which
 * ranks leave ("3;5"); NULL or "" for the default (the launcher's placement;
 * the highest ranks leave).  Thread-safe and makes no MPI call: a controller
 * thread may call it.  Requests are taken by the world's rank 0: call it in
 * the process that is rank 0 of EMPI_COMM_WORLD (MPI_COMM_WORLD) when it is
 * called; on any other rank it is refused (-1, "requests are taken by the
 * world's rank 0, and this process is rank N").  A request queued on rank 0
 * is lost if that process leaves the world before the resize (a shrink that
 * removes rank 0, or the Baseline method).  Returns 0 when queued, or -1 with
 * the reason in err (e.g. another request is pending, a resize is in
 * progress, bad list, not rank 0). */
int ductile_request_resize(int delta_or_target, int is_target, int at_iteration, const char *hosts, char *err,
                           size_t errlen);

/* A control point for programs that do not use <empi.h>: collective over the
 * world; a due resize happens here.  Returns 1 if the world changed (then
 * N-D blocks, EMPI_Register_block, have their new communicator and halos, as
 * after EMPI_Monitor_end).  With
 * DUCTILE_PERSISTENT=1 a removed process may wait here and come back at a
 * later expansion: read the iteration with EMPI_Get_iteration() (<empi.h>)
 * after this call (docs/rma.md). */
int ductile_control_point(int iteration);

/* 1 while constant registered data (EMPI_CONSTANT) is still moving in the
 * background after a resize (DUCTILE_REDIST_CONSTANT=nb, wd or thread): the
 * world keeps its size and an old process's constant items their old blocks
 * (the spawned processes wait inside EMPI_Get_shared, which returns with
 * their registered buffers filled); 0 once every process switched at a
 * control point (or the resize was cancelled).  Meanwhile the registry does
 * not change: registrations and EMPI_Deregister_shared are refused, EMPI_free
 * of a registered item waits for the transfer.  Local, no MPI call.  See
 * docs/malleability.md and docs/rma.md. */
int ductile_constant_pending(void);

/* ---- Controllers (ductiled, ductilectl; see docs/controller.md) ---- */

/* I/O gate, collective over the world: call it before an I/O phase.  While
 * ductiled holds this job's I/O ('ductilectl io hold JOB'), rank 0 waits
 * until it is released, and every rank returns together.  Returns 1 if the
 * job waited, 0 otherwise (also when no controller is connected). */
int ductile_io_gate(void);

#ifdef __cplusplus
}
#endif

#endif
