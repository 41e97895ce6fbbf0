/* hooks.h -- the registration table through which Ductile's modules reach
 * each other without including each other (docs/ARCHITECTURE.md).
 *
 * src/core is the bottom of the include graph: it includes only <mpi.h> and
 * the C library, and every other folder may include it.  A module fills its
 * own slots from a registration function (DUCTILE_REGISTER) that MPI_Init
 * runs first of all, on one thread, e.g. src/io/iomon.c sets
 * io_before/io_after; callers in lower
 * folders (src/wrap's MPI_Init, the generated MPI_File_* wrappers, the
 * engine's control point) call through the slot.  An empty slot is a module
 * that is not linked in (unit tests, tools): the call does nothing and
 * returns 0.  The table is written only then and read without a
 * lock: a plain global load of a function pointer, no allocation, no system
 * call, so the inline callers below may run on the wrapped-call path. */
#ifndef DUCTILE_CORE_HOOKS_H
#define DUCTILE_CORE_HOOKS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct ductile_settings;
struct report_reconfig;
struct report_departed;
struct report_departed_fns;
struct report_fn;
struct io_phase;
struct reg_item;
struct redist_layout;
struct bytes_xfer;

struct ductile_hooks {
    /* ---- life cycle, in the order src/wrap/runtime.c calls them */
    /* malleability settings, before PMPI_Init (src/malleable): 0 or -1 with err */
    int (*check_settings)(const struct ductile_settings *s, char *err, size_t errlen);
    /* rank 0: is a controller (ductiled) listening? (src/controller) */
    int (*ctl_probe)(void);
    /* process folding (src/fold): set up before a spawned process joins; affinity back at MPI_Finalize */
    void (*fold_init)(int controller);
    void (*fold_finalize)(void);
    /* after the virtual world is set up: request queue; spawned processes join (src/malleable) */
    void (*engine_init)(void);
    /* the controller thread (src/controller) */
    void (*ctl_start)(int enabled);
    void (*ctl_stop)(void);
    /* MPI-IO accounting (src/io) */
    void (*io_init)(void);
    /* iteration detector (src/monitor) */
    void (*monitor_start)(int enabled, int frames, int repeats, long max_calls);
    void (*monitor_stop)(void);
    uint64_t (*iteration_count)(void);
    /* MPI_Finalize: removed processes wait (returns 1: no report here), the
     * report is written, the engine releases what it holds */
    int (*engine_finalize_begin)(void);
    void (*report_write)(uint64_t t_end);
    void (*engine_finalize_end)(void);

    /* ---- MPI-IO calls (generated MPI_File_* wrappers, src/world/filekeep.c) -> src/io */
    void (*io_before)(int fn, MPI_File fh, MPI_Comm comm);
    void (*io_after)(int fn, MPI_File fh, uint64_t t0, uint64_t sent, uint64_t recv);
    void (*io_opened)(MPI_Comm comm, const char *name, int amode, MPI_File fh);
    void (*io_rehandle)(MPI_File old, MPI_File now);

    /* ---- engine events -> the controller (src/controller/appctl_msg.c) */
    void (*on_control_point)(int iteration);          /* world rank 0, every control point */
    void (*on_resize_recorded)(const struct report_reconfig *r); /* world rank 0: a record (ok, failed, refused) */
    void (*on_maxiter)(int maxiter);                  /* world rank 0: EMPI_Monitor_end's maxiter (docs/policies.md) */
    /* rank 0 leaves the world (a shrink that names it, a Baseline resize): the old rank 0 hands its
     * controller (registration, I/O state) to the process that becomes rank 0, point to point on comm
     * with this tag (src/malleable/records.c, both sides call); the new one starts it at its first record */
    void (*ctl_send)(int to, MPI_Comm comm, int tag);
    void (*ctl_recv)(int from, MPI_Comm comm, int tag);

    /* ---- I/O phases and the exclusive-I/O token: src/io -> the controller */
    void (*io_phase)(const struct io_phase *p, double start_epoch);
    long long (*ctl_iteration)(void);
    int (*io_acquire)(double *waited);
    void (*io_release)(double kept); /* seconds the token was kept after the phase's last I/O call */

    /* ---- general data kinds (src/data: N-D blocks, sparse, custom, patches) <- src/malleable */
    /* move one such registered item at a resize (transfer.c) by the resize's method (REDIST_*); ok = 0: this
     * process already failed (the item's checkpoint only); MOVE_OK, MOVE_FAILED with err, MOVE_STOPPED
     * (src/redist/layout.h) */
    int (*data_move)(struct reg_item *it, const struct redist_layout *L, int method, int ok, uint64_t *moved,
                     char *err, size_t errlen);
    /* the resize committed / was rolled back (transaction.c): the item adopts / drops the new
     * state its data_move built aside (no-op when it has none) */
    void (*data_commit)(struct reg_item *it);
    void (*data_abort)(struct reg_item *it);
    /* the steps of a commit that run the program's code and can fail (custom data's unpack), once
     * every item moved and every process agreed, before the second agreement (transaction.c,
     * txn_agree_commit): 0, or -1 with why; data_unstage undoes a data_stage when that agreement
     * fails (custom data: restored from a snapshot taken by data_stage) */
    int (*data_stage)(struct reg_item *it, char *why, size_t len);
    void (*data_unstage)(struct reg_item *it);
    /* a constant item of such a kind moving in the background (transfer.c, phase XF_BG; every kind):
     * its small metadata moves now, blocking (or its bytes are packed now: N-D blocks, patch sets, custom
     * data), its new state is staged (data_commit unpacks and adopts it, data_abort drops it) with room
     * for the rest, and *nxf exchanges (src/redist/layout.h), the
     * same number on every process that did not stop, say what the engine moves into it in the
     * background; MOVE_OK, MOVE_FAILED, MOVE_STOPPED as data_move */
    int (*data_bg_start)(struct reg_item *it, const struct redist_layout *L, int method, int ok,
                         struct bytes_xfer *xf, int *nxf, char *err, size_t errlen);
    /* such a background transfer was abandoned (the MPI may still write into its buffers): the staged
     * state is forgotten, its buffers never freed (background.c, nb_abandon) */
    void (*data_bg_forget)(struct reg_item *it);
    /* the world changed: Cartesian communicators and halos of N-D blocks (empi.c) */
    void (*data_world_changed)(void);
    /* free an item's kind state (registry.c) */
    void (*data_ext_free)(struct reg_item *it);
    /* rank 0, deciding a resize to nprocs processes (resize.c): 1 when the registered data can live
     * on them (the program's process grids of N-D blocks), else 0 with why */
    int (*data_allows)(int nprocs, char *why, size_t len);

    /* ---- report sections: the engine's records -> src/monitor/report.c */
    const struct report_reconfig *(*reconfig_history)(int *n);
    /* the departed processes (n), each one's functions (*fns: n x DUCTILE_FN_COUNT, or NULL) and all
     * their functions combined (*sum) */
    const struct report_departed *(*departed)(int *n, const struct report_fn **fns,
                                              const struct report_departed_fns **sum);
};

/* The one table (src/core/hooks.c).  Written only by ductile_hooks_load(). */
extern struct ductile_hooks ductile_hooks;

/* Callers: the slot if registered, else nothing (0).  args in parentheses:
 * DUCTILE_HOOK(io_acquire, (&waited)), DUCTILE_HOOK_VOID(ctl_stop, ()). */
#define DUCTILE_HOOK(slot, args) (ductile_hooks.slot ? ductile_hooks.slot args : 0)
#define DUCTILE_HOOK_VOID(slot, args)                                                                                  \
    do {                                                                                                               \
        if (ductile_hooks.slot) ductile_hooks.slot args;                                                               \
    } while (0)

/* A module's registration: a function that fills the module's slots, listed
 * in the linker section "ductile_hook_reg" (not the table's own name: the
 * assembler would take that section's symbol for the table).  No load-time
 * constructor: a preloaded process that never calls MPI_Init runs none of it.
 *   DUCTILE_REGISTER(iomon_register) { h->io_init = ductile_io_init; ... } */
typedef void (*ductile_hook_registrar)(struct ductile_hooks *h);
#define DUCTILE_REGISTER(name)                                                                                         \
    static void name(struct ductile_hooks *h);                                                                         \
    __attribute__((used, section("ductile_hook_reg"))) static const ductile_hook_registrar name##_entry = name;           \
    static void name(struct ductile_hooks *h)

/* Run every registration once: first thing in MPI_Init (src/wrap/runtime.c),
 * before any slot is read. */
void ductile_hooks_load(void);

/* The MPI-IO hooks the generated wrappers call (tools/gen-wrappers.py). */
static inline void ductile_hook_io_before(int fn, MPI_File fh, MPI_Comm comm)
{
    if (ductile_hooks.io_before) ductile_hooks.io_before(fn, fh, comm);
}
static inline void ductile_hook_io_after(int fn, MPI_File fh, uint64_t t0, uint64_t sent, uint64_t recv)
{
    if (ductile_hooks.io_after) ductile_hooks.io_after(fn, fh, t0, sent, recv);
}

#endif
