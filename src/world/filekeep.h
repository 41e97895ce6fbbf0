/* filekeep.h -- files opened on MPI_COMM_WORLD survive a resize: closed on
 * the old world and reopened on the new one with the same view, file
 * pointers, atomicity and error handler; the program keeps its handle
 * (src/world/filekeep.c, docs/virtual-world.md). */
#ifndef DUCTILE_FILEKEEP_H
#define DUCTILE_FILEKEEP_H

#include <mpi.h>

/* Rank 0, deciding a resize: how many open world files stop it (all of them
 * when the method cannot move files, else those that would be deleted by
 * the close: MPI_MODE_DELETE_ON_CLOSE). */
int ductile_files_block_resize(int method_keeps_files);
/* Every process of the old world, at the control point before the resize:
 * save each world file's state and close it (collective over the old world). */
void ductile_files_detach(void);
/* Every process of the new world after the resize (the old ones when the
 * resize failed), new processes at the end of their join: reopen the files
 * (collective over the new world). */
void ductile_files_reattach(void);
/* A process that left the world: drop what detach saved. */
void ductile_files_left(void);

/* The program keeps its MPI_File across a resize: every wrapper taking one
 * maps it to the MPI's current handle.  Until the first file moved this is
 * one test of a flag. */
extern int ductile_files_moved;
MPI_File ductile_file_current(MPI_File fh);
/* The other way, for callbacks the MPI calls with its handle (error
 * handlers, src/world/errhandler.c): the program's handle of a moved file. */
MPI_File ductile_file_program(MPI_File cur);
#define DUCTILE_FILE_IN(f) (__builtin_expect(ductile_files_moved, 0) ? ductile_file_current(f) : (f))

#endif
