/* MAM_Manager.h -- MaM's life cycle, checkpoint and data registration,
 * implemented by Ductile (docs/mam.md). */
#ifndef MAM_MANAGER_H
#define MAM_MANAGER_H

#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "MAM_Constants.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every process, after MPI_Init: MAM_SOURCES in the processes mpiexec
 * started; in a process a reconfiguration started, MAM_TARGETS once its data
 * has arrived and user_function has run (its role MAM_PROC_NEW_RANK).
 * *comm must be MPI_COMM_WORLD (or a communicator congruent with it): Ductile
 * resizes the whole world; it is set to the new world after every
 * reconfiguration.  root: the sources' root (replicated data comes from the
 * world's rank 0, which holds the same copy).  name_exec: the program to
 * spawn (NULL or "": this one; a relative name resolves in PATH). */
int MAM_Init(int root, MPI_Comm *comm, char *name_exec, void (*user_function)(void *), void *user_args);
/* Forget MaM's registries (the buffers stay the program's).  MAM_OK. */
int MAM_Finalize(void);
/* Collective over the world: a control point.  From MAM_NOT_STARTED it asks
 * for the target number set (MAM_Set_target_number, MAM_NUM_TARGETS) when it
 * differs from the world's size, and takes any resize Ductile has queued
 * (DUCTILE_SCHEDULE, ductilectl).  MAM_WAIT_COMPLETION: the reconfiguration
 * completes before it returns (*state MAM_COMPLETED) or does not happen
 * (MAM_NOT_STARTED); MAM_CHECK_COMPLETION: constant data moves in the
 * background and *state stays MAM_PENDING (the world keeps its size) until
 * a later MAM_Checkpoint finds it complete everywhere.  user_function(args)
 * runs in every source and target when the reconfiguration commits, until it
 * calls MAM_Resume_redistribution.  A source that leaves (MAM_PROC_ZOMBIE)
 * does not return: it calls MPI_Finalize and exits (status 0), as in MaM.
 * MAM_OK, or MAM_DENIED before MAM_Init. */
int MAM_Checkpoint(int *state, int wait_completed, void (*user_function)(void *), void *user_args);
/* Inside the user function: its part is done. */
void MAM_Resume_redistribution(int *state);
/* Inside the user function: sources, targets, role and the communicator over
 * both.  MAM_OK, or MAM_DENIED outside it. */
int MAM_Get_Reconf_Info(mam_user_reconf_t *reconf_info);
/* Register a buffer: total_qty elements of type over the world, the local
 * block (MAM_DATA_DISTRIBUTED, MaM's block distribution: the total_qty % P
 * extra elements on the first ranks) or all of them (MAM_DATA_REPLICATED);
 * MAM_DATA_CONSTANT data may move in the background.  *index (may be NULL)
 * gets its place in its registry. */
void MAM_Data_add(void *data, size_t *index, size_t total_qty, MPI_Datatype type, int is_replicated, int is_constant);
/* Replace entry index of a registry (another buffer, size or type). */
void MAM_Data_modify(void *data, size_t index, size_t total_qty, MPI_Datatype type, int is_replicated,
                     int is_constant);
void MAM_Data_get_entries(int is_replicated, int is_constant, size_t *entries);
/* The entry's current buffer (after a reconfiguration: a new one, the
 * program's to free), its global size and its type. */
void MAM_Data_get_pointer(void **data, size_t index, size_t *total_qty, MPI_Datatype *type, int is_replicated,
                          int is_constant);

#ifdef __cplusplus
}
#endif

#endif
