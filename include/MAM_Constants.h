/* MAM_Constants.h -- MaM's constants, states and configuration values (the
 * same names and values as MaM's), implemented by Ductile (docs/mam.md). */
#ifndef MAM_CONSTANTS_H
#define MAM_CONSTANTS_H

#include <mpi.h>

#define MAM_DENIED -1
#define MAM_OK 0

/* The state MAM_Checkpoint reports. */
enum mam_states { MAM_UNRESERVED, MAM_NOT_STARTED, MAM_PENDING, MAM_USER_PENDING, MAM_COMPLETED };

/* MAM_Get_Reconf_Info, inside the user function: sources (numS), targets
 * (numT), this process's role, and a communicator over sources and
 * targets (sources first). */
typedef struct {
    int numS;
    int numT;
    int rank_state; /* enum mam_proc_states */
    MPI_Comm comm;
} mam_user_reconf_t;

enum mam_proc_states {
    MAM_PROC_CONTINUE, /* a source that goes on as a target (Merge) */
    MAM_PROC_NEW_RANK, /* a target started by the reconfiguration */
    MAM_PROC_ZOMBIE    /* a source that leaves */
};

enum mam_spawn_methods { MAM_SPAWN_BASELINE, MAM_SPAWN_MERGE, MAM_METHODS_SPAWN_LEN };

/* Spawn strategies (ordinals for MAM_Set_key_configuration / MAM_Contains_strat). */
enum mam_spawn_strategies {
    MAM_STRAT_SPAWN_CLEAR,
    MAM_STRAT_SPAWN_PTHREAD,
    MAM_STRAT_SPAWN_SINGLE,
    MAM_STRAT_SPAWN_INTERCOMM,
    MAM_STRAT_SPAWN_MULTIPLE,
    MAM_STRAT_SPAWN_PARALLEL,
    MAM_STRATS_SPAWN_LEN
};

enum mam_phy_dist_methods { MAM_PHY_DIST_SPREAD = 1, MAM_PHY_DIST_COMPACT, MAM_METHODS_PHYSICAL_DISTRIBUTION_LEN };

enum mam_phy_info_methods { MAM_PHY_TYPE_STRING = 1, MAM_PHY_TYPE_HOSTFILE };

/* Redistribution methods: Ductile's col, p2p, rma-lock, rma-lockall. */
enum mam_redistribution_methods {
    MAM_RED_BASELINE,
    MAM_RED_POINT,
    MAM_RED_RMA_LOCK,
    MAM_RED_RMA_LOCKALL,
    MAM_METHODS_RED_LEN
};

/* Redistribution strategies (ordinals): Ductile's Threading, NB, Wait Drains. */
enum mam_red_strategies {
    MAM_STRAT_RED_CLEAR,
    MAM_STRAT_RED_PTHREAD,
    MAM_STRAT_RED_WAIT_SOURCES,
    MAM_STRAT_RED_WAIT_TARGETS,
    MAM_STRATS_RED_LEN
};

enum mam_key_values {
    MAM_SPAWN_METHOD = 0,
    MAM_SPAWN_STRATEGIES,
    MAM_PHYSICAL_DISTRIBUTION,
    MAM_RED_METHOD,
    MAM_RED_STRATEGIES,
    MAM_NUM_TARGETS,
    MAM_KEY_COUNT
};

/* Environment variables read by MAM_Init (integer values, as the keys above). */
#define MAM_SPAWN_METHOD_ENV "MAM_SPAWN_METHOD"
#define MAM_SPAWN_STRATS_ENV "MAM_SPAWN_STRATS"
#define MAM_PHYSICAL_DISTRIBUTION_METHOD_ENV "MAM_PHYSICAL_DISTRIBUTION_METHOD"
#define MAM_RED_METHOD_ENV "MAM_RED_METHOD"
#define MAM_RED_STRATS_ENV "MAM_RED_STRATS"
#define MAM_NUM_TARGETS_ENV "MAM_NUM_TARGETS"

/* MAM_Checkpoint's second argument. */
#define MAM_CHECK_COMPLETION 0
#define MAM_WAIT_COMPLETION 1

/* MAM_Init's answer. */
#define MAM_SOURCES 0
#define MAM_TARGETS 1

/* MAM_Data_* selectors. */
#define MAM_DATA_DISTRIBUTED 0
#define MAM_DATA_REPLICATED 1
#define MAM_DATA_VARIABLE 0
#define MAM_DATA_CONSTANT 1

#define MAM_MPITAG_STRAT_SINGLE 130
#define MAM_MPITAG_STRAT_MULTIPLE 131

#endif
