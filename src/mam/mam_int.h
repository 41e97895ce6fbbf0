/* mam_int.h -- what the MaM layer's files share (src/mam): its state, its
 * four registries, and the functions one file gives the others.  The layer
 * implements MaM's public API (include/MAM*.h) on Ductile's engine: the
 * registered data are Ductile's items (src/malleable/registry.h), a
 * checkpoint is a control point, the user function runs in a
 * reconfiguration hook (src/malleable/reconf.c).  docs/mam.md. */
#ifndef DUCTILE_MAM_INT_H
#define DUCTILE_MAM_INT_H

#include <stddef.h>

#include "MAM.h"
#include "../malleable/registry.h"

/* One entry of a MaM registry: the Ductile item that holds it. */
struct mam_entry {
    char name[REG_NAME_MAX]; /* "MaM/<d|r><v|c>/<index>/<type code>" */
    size_t qty;              /* global elements */
    MPI_Datatype type;
    int own_type;            /* a type this layer made (a spawned process's copy of a derived one): freed with it */
    int used;
};
struct mam_registry {
    struct mam_entry *e;
    size_t n, cap;
};

struct mam_state {
    int init, active;          /* MAM_Init called; Ductile is active (else nothing resizes) */
    int root;
    MPI_Comm *user_comm;       /* the program's communicator, updated after every reconfiguration */
    int user_is_world;         /* it was MPI_COMM_WORLD: it stays MPI_COMM_WORLD (Ductile's current world) */
    int iteration;             /* checkpoints so far: the control points' iteration */
    /* configuration (config.c); *_set: the program or a MAM_* variable set it, else Ductile's settings apply */
    unsigned numC;
    unsigned spawn_method, spawn_strats, spawn_dist, red_method, red_strats;
    int spawn_method_set, red_method_set, red_strats_set;
    int def_method, def_redist, def_nb, def_auto; /* Ductile's settings at MAM_Init (steer.h) */
    /* the user phase (manager.c) */
    void (*fn)(void *);
    void *args;
    int in_user, resumed;
    mam_user_reconf_t reconf;
    double times[6];           /* rms, spawn, sync, async, user, mall (MAM_Retrieve_times) */
    struct mam_registry reg[2][2]; /* [is_replicated][is_constant] */
};
extern struct mam_state MS;

/* data.c */
/* In a process a reconfiguration started: MaM's registries rebuilt from the
 * items the running processes registered, each with a buffer for this
 * process's block.  0, or -1 with a message (a non-MaM item). */
int mam_data_targets(void);
/* After a reconfiguration: the MaM items' new buffers are the program's (MaM's rule). */
void mam_data_give_buffers(void);
/* MAM_Finalize: the items leave Ductile's registry, the registries are emptied. */
void mam_data_free(void);

/* config.c */
/* MAM_Init: MaM's defaults and the MAM_* environment variables. */
void mam_config_init(void);
/* Before a checkpoint that may start a resize: the engine's methods for it
 * (MaM's configuration where set, else Ductile's settings; constant data in
 * the background under MAM_CHECK_COMPLETION, blocking under MAM_WAIT_COMPLETION). */
void mam_config_apply(int wait_completed);

#endif
