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

/* Sampled timing on this process from now on: time 1 wrapped MPI call in
 * `every` (at random, `every` calls apart on average) instead of every call;
 * 1 times every call (exact, the default); 0 only asks.  Calls and bytes stay
 * exact; each function's time is estimated from its timed calls and the
 * report says so (docs/report.md).  DUCTILE_TIME_SAMPLE sets it at MPI_Init.
 * Returns the rate in effect before (1: every call), or -1 (nothing changed)
 * when `every` is outside 0 .. 1000000.  Thread-safe. */
int ductile_time_sample(int every);

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
 * N-D blocks, EMPI_Register_block(_grid), have their new communicator and halos, as
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

/* ---- Reconfiguration hooks (docs/malleability.md, "Reconfiguration hooks") ---- */

/* What a committed resize changed, as seen by one process. */
enum { DUCTILE_RECONF_EXPAND = 1, DUCTILE_RECONF_SHRINK = 2, DUCTILE_RECONF_REPLACE = 3 };
enum {
    DUCTILE_ROLE_CONTINUES = 1, /* in the old world and in the new one */
    DUCTILE_ROLE_NEW = 2,       /* started by this resize (or taken back from standby): not in the old world */
    DUCTILE_ROLE_REMOVED = 3    /* in the old world only: it leaves (EMPI_REMOVED) */
};
struct ductile_reconfig {
    int id;                   /* the resize's id (the report's reconfigurations[].id) */
    int kind;                 /* DUCTILE_RECONF_EXPAND (more processes), _SHRINK (fewer), _REPLACE (as many) */
    int baseline;             /* 1: the Baseline method (every old process left), 0: Merge */
    int role;                 /* DUCTILE_ROLE_* of this process */
    int old_size, old_rank;   /* the world before; old_rank -1 in a new process */
    int new_size, new_rank;   /* the world after; new_rank -1 in a removed process */
    int iteration;            /* the control point at which the world switched */
};
typedef void (*ductile_reconfig_fn)(const struct ductile_reconfig *info, void *arg);

/* Register fn(info, arg): it runs on every process that took part in a
 * resize -- continuing, new and removed ones -- once the resize has
 * committed, inside the control point (EMPI_Monitor_end,
 * ductile_control_point) before it returns, and in a spawned process inside
 * EMPI_Get_shared once its data has arrived; never after a resize that was
 * rolled back.  The world is already the new one (a removed process has a
 * world of its own), every registered item matches it, and N-D blocks have
 * their new communicators.  The place to rebuild what depends on the world:
 * derived communicators (MPI_Cart_create, MPI_Comm_split), datatypes,
 * persistent requests, preconditioners.  Inside fn, EMPI_Reconfig_comm
 * (<empi.h>) gives a communicator over the old and the new processes.
 * Callbacks run in the order registered; register them on every process
 * (spawned ones before EMPI_Get_shared).  Returns 0, or -1 (fn NULL, or no
 * memory). */
int ductile_on_reconfigure(ductile_reconfig_fn fn, void *arg);
/* Remove a callback registered with the same fn and arg.  0, or -1 if none. */
int ductile_off_reconfigure(ductile_reconfig_fn fn, void *arg);
/* After a control point (or EMPI_Get_shared in a spawned process): 1 when
 * it changed the world, with *info (may be NULL) saying how; 0 when it did
 * not (nothing happened, a resize is pending in the background, or it was
 * rolled back), with *info zeroed but for the sizes and ranks (old = new =
 * the current world).  Local, no MPI call. */
int ductile_last_reconfig(struct ductile_reconfig *info);

/* The executable spawned processes run (default: DUCTILE_SPAWN_COMMAND, or
 * this program, /proc/self/exe, with this process's arguments).  For
 * interpreters: a Python program sets it to sys.executable, so that the
 * spawned processes start the same interpreter (a virtual environment's
 * python, not the file it links to) with the same script and arguments.
 * Call it on every process (the ductile Python module does).  0, or -1
 * (NULL or too long). */
int ductile_set_spawn_command(const char *path);

/* The process counts this job can use (issue 26; docs/malleability.md, "Size
 * constraints"), as in DUCTILE_SIZES: "min=N,max=N,step=K,allowed=A|B,
 * preferred=N", the alternatives of allowed being squares, pow2,
 * multiples:K or a count (e.g. "allowed=squares|multiples:3").  Keys given
 * replace the current values (DUCTILE_MIN_PROCS, DUCTILE_MAX_PROCS,
 * DUCTILE_SIZES at the start; EMPI_Set_maxprocs sets max).  A resize to any
 * other count is refused with the reason: at once by ductile_request_resize
 * (and so to a controller), at the control point for a scheduled one (the
 * report's reconfiguration says "refused" and why).  Call it on every
 * process, spawned ones too (like the registrations): rank 0 decides, and
 * rank 0 may be a new process after a resize.  Returns 0, or -1 with err
 * saying why (then nothing changed). */
int ductile_set_sizes(const char *spec, char *err, size_t errlen);
/* The constraints in force, as a specification ("" when there are none). */
void ductile_get_sizes(char *spec, size_t len);

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
