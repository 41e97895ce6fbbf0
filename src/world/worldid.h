/* worldid.h -- the identity of the program's world across resizes, and who
 * is Ductile's: the marker that tells a process Ductile spawned from one the
 * program spawned itself, the program's view of MPI_Comm_get_parent, the
 * state of MPI_COMM_WORLD the program set (error handler, name, cached
 * attributes with their keyvals' callbacks) carried from the old world to
 * the new one, and the deferred free of old worlds under
 * MPI_THREAD_MULTIPLE.  docs/virtual-world.md. */
#ifndef DUCTILE_WORLDID_H
#define DUCTILE_WORLDID_H

#include <stddef.h>

#include <mpi.h>

/* MPI_Init, before PMPI_Init: read (and remove from the environment) the
 * marker Ductile's spawn gives its children. */
void ductile_worldid_early_init(void);

/* MPI_Init, after the settings, before PMPI_Init: MCA settings the world's
 * files need after a resize (Open MPI: OMPIO without sharedfp/sm). */
void ductile_worldid_mpi_env(void);

/* 1 if Ductile spawned this process (it joins its parents' world); 0 for
 * every other process, also one the program spawned. */
int ductile_spawned_by_ductile(void);

/* MPI_Comm_spawn as Ductile's resize does it (root 0 of `comm`): the same
 * program and arguments, started through env(1) with the marker in its
 * environment.  Returns an MPI error code. */
int ductile_spawn_marked(const char *cmd, char **args, int n, MPI_Info info, MPI_Comm comm, MPI_Comm *inter,
                         int *errcodes);

/* For processes Ductile starts another way (a new Slurm step under direct
 * launch, src/malleable/launch_step.c): the NAME=VALUE runner (a program
 * path, or NULL), and the marker "NAME=VALUE" to put into their environment. */
const char *ductile_spawn_env_program(void);
void ductile_spawn_marker(char *buf, size_t len);

/* World swap (src/malleable/world.c, set_world): before `to` becomes the
 * world, give it what the program set on `from` (error handler, name,
 * attributes of the program's keyvals; attributes are moved, no copy or
 * delete callback runs). */
void ductile_world_carry(MPI_Comm from, MPI_Comm to);
/* After the swap: the old world is freed -- at once, or under
 * MPI_THREAD_MULTIPLE at MPI_Finalize (another thread may still hold it). */
void ductile_world_retire(MPI_Comm old);
/* The old world is kept by Ductile (not freed): drop the program's
 * attributes from it without callbacks (they live on in the new world). */
void ductile_world_strip(MPI_Comm old);

/* The end of Ductile's worlds, just before PMPI_Finalize: the program's world
 * attributes go back to the real MPI_COMM_WORLD (where the MPI finalizes them
 * as without Ductile), the virtual world, every old world kept for other
 * threads and the private communicator are freed (a spawned process must not
 * reach MPI_Finalize still connected to its parents: Open MPI kills it with
 * SIGPIPE).  Used by MPI_Finalize (src/wrap/runtime.c) and by the spawned
 * processes of a cancelled expansion (src/malleable/join.c). */
void ductile_world_end(void);

#endif
