/* resize.h -- the malleability engine: control points (rank 0 decides,
 * everybody executes), expansion by the Merge method (spawn + intercomm
 * merge; spawned processes join in MPI_Init), shrinking (leaving ranks park
 * asleep until the job ends), the Baseline method, redistribution of the
 * registered data, timing records, and the MPI_Init / MPI_Finalize entry
 * points src/wrap/runtime.c calls through the hook table (src/core/hooks.h).
 * The engine's modules are listed in engine.h.  Nothing here runs on the
 * per-call path. */
#ifndef DUCTILE_RESIZE_H
#define DUCTILE_RESIZE_H

#include <stddef.h>

#include "../common/settings.h"
#include "../monitor/report_build.h"

/* Validate the malleability settings (DUCTILE_SCHEDULE, host list) before
 * PMPI_Init.  Returns 0, or -1 with a message naming the variable. */
int ductile_malleable_settings(const struct ductile_settings *s, char *err, size_t errlen);

/* After PMPI_Init and the virtual world's set-up: prepare the request queue;
 * in a spawned process, join the parents (merge) and replace the world. */
void ductile_malleable_init(void);

/* At MPI_Finalize, before the report: a removed process waits (asleep,
 * bounded) for the job's end.  Returns 1 when this process must not take
 * part in the report (it left the world). */
int ductile_malleable_finalize_begin(void);
/* At MPI_Finalize, after the report, before the world is freed: release the
 * processes this one is responsible for, disconnect parent/child
 * intercommunicators. */
void ductile_malleable_finalize_end(void);

/* A control point (EMPI_Monitor_end, ductile_control_point): collective over
 * the current world.  Returns 1 when this process's world changed (a
 * committed resize, a standby process taken back) or it was removed; in a
 * changed world the N-D blocks get their new communicators and halos here. */
int ductile_malleable_control_point(int iteration);

/* Spawned processes: receive the registered data and the iteration. */
int ductile_malleable_get_shared(int *iteration);

/* 1 while this process takes part in the world; 0 once it was removed. */
int ductile_malleable_active(void);
/* 1 when this process was started by a resize. */
int ductile_malleable_spawned(void);
/* EMPI_Get_iteration: the iteration of the world's latest control point
 * (marks that the program reads it, which lets removed processes stand by
 * under DUCTILE_PERSISTENT). */
int ductile_malleable_iteration(void);

/* 1 while a background (DUCTILE_REDIST_CONSTANT=nb) transfer of constant
 * data is pending: constant items still have their old buffers.  Exported
 * from libductile (not yet declared in a public header). */
int ductile_constant_pending(void);

/* Reconfiguration history (meaningful on the world's rank 0). */
const struct report_reconfig *ductile_malleable_history(int *n);
/* Processes that left the world: their counters when they left (meaningful
 * on the world's rank 0; handed on with the history). */
const struct report_departed *ductile_malleable_departed(int *n, const struct report_fn **fns,
                                                          const struct report_departed_fns **sum);

#endif
