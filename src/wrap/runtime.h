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

#endif
