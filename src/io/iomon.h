/* iomon.h -- MPI-IO monitoring: per-file and per-phase accounting (bytes,
 * time, access sizes) and I/O phase detection (a burst of I/O calls between
 * compute phases: a new phase starts when an I/O call comes more than
 * DUCTILE_IO_PHASE_GAP ms after the previous one ended).  Called only from
 * the generated wrappers of MPI_File_* (depth 0, monitoring on): nothing is
 * added to non-I/O calls.  Closed phases go to the controller (rank 0) and
 * to the report's "io" section. */
#ifndef DUCTILE_IOMON_H
#define DUCTILE_IOMON_H

#include <mpi.h>
#include <stdint.h>

#include <jansson.h>

/* One detected I/O phase of this rank. */
struct io_phase {
    double start_s;       /* since the job's start */
    double duration_s;    /* first I/O call entered .. last I/O call left */
    double io_s;          /* time inside I/O calls */
    double delay_s;       /* waiting for the exclusive-I/O token */
    uint64_t bytes_written, bytes_read, calls;
    int64_t iteration;    /* job iteration when the phase started (-1 unknown) */
    int32_t procs;
    int32_t pad;
    uint64_t files;       /* the files it accessed: bit i = this process's file i (at most 64 files) */
};

/* MPI_Init (every rank, after the settings): reset and classify functions. */
void ductile_io_init(void);

/* Wrapper hooks.  `fh` is the file (MPI_FILE_NULL for open and delete),
 * `comm` the communicator of MPI_File_open (MPI_COMM_NULL otherwise). */
void ductile_io_before(int fn, MPI_File fh, MPI_Comm comm);
void ductile_io_after(int fn, MPI_File fh, uint64_t t0, uint64_t sent, uint64_t recv);
/* MPI_File_open succeeded (or not: fh == MPI_FILE_NULL). */
void ductile_io_opened(MPI_Comm comm, const char *name, int amode, MPI_File fh);

/* Rank 0's controller thread: close the current phase when it is older than
 * the gap and no I/O call is running; returns the seconds until it should
 * be called again (large when no phase is open). */
double ductile_io_poll(void);

/* A file moved to a new world by a resize (src/world/filekeep.c): its
 * accounting goes on under the new handle (MPI_FILE_NULL: closed for good). */
void ductile_io_rehandle(MPI_File old, MPI_File now);

/* Files opened on the whole virtual world and not yet closed (this rank). */
int ductile_io_open_world_files(void);

/* MPI_Finalize, collective over `comm` (the private communicator): gathers
 * every rank's files and phases; returns the report's "io" object on rank 0
 * (NULL elsewhere, or when there was no I/O). */
json_t *ductile_io_report(MPI_Comm comm);

#endif
