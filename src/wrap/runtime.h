/* runtime.h -- Ductile's life cycle, for the hand-written MPI_Init and
 * MPI_Finalize wrappers only: set-up of the process-wide state
 * (src/core/state.h) and its tear-down. */
#ifndef DUCTILE_RUNTIME_H
#define DUCTILE_RUNTIME_H

#include "../core/state.h"

/* Called by the hand-written MPI_Init / MPI_Init_thread wrappers. */
int ductile_runtime_init(int *argc, char ***argv, int required, int *provided, int with_thread);
/* Called by the hand-written MPI_Finalize wrapper. */
int ductile_runtime_finalize(void);

/* MPI-4 Sessions (src/wrap/sessions.c).  Before a program's first
 * PMPI_Session_init, when MPI_Init was not called: settings, clock and
 * monitoring start; 1 if they did (the program is monitored "by session"). */
int ductile_runtime_session_begin(void);
/* 1 while the program is monitored by session (no MPI_Init yet). */
int ductile_runtime_by_session(void);
/* A session granted MPI_THREAD_MULTIPLE (1): the counters are updated atomically. */
void ductile_runtime_session_threads(int multiple);
/* Ductile's private communicator over mpi://WORLD now exists (made from
 * Ductile's own session): rank, size and job id. */
void ductile_runtime_session_world(MPI_Comm private_comm);
/* The program's last session was finalized: the report (collective over the
 * private communicator, if there is one), then the end of monitoring. */
void ductile_runtime_session_end(void);

#endif
