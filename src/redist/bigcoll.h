/* bigcoll.h -- an Alltoallv of bytes of any size, blocking, nonblocking or
 * persistent, for the collective transfer methods (COL, COL-NB, COL-WD,
 * COL-T, persistent col).
 *
 * The counts come from src/redist/plan.c in rows; the byte counts and
 * displacements of one process can exceed INT_MAX.  Then:
 *   - with the MPI-4 large-count calls (MPICH 5: MPI_Alltoallv_c,
 *     MPI_Ialltoallv_c, MPI_Alltoallv_init_c): those, with MPI_Count and
 *     MPI_Aint arrays;
 *   - without them (Open MPI 4.1): MPI_Alltoallw / MPI_Ialltoallw /
 *     (P)MPIX_Alltoallw_init over MPI_BOTTOM with one derived datatype per
 *     peer and direction, built on absolute addresses: a struct of q pieces
 *     of CHUNK_MAX bytes and a remainder (src/redist/chunk.h), counts 1,
 *     displacements 0.
 * Below INT_MAX, the classic int Alltoallv of MPI_BYTE.  Not on the
 * per-call path.
 *
 * Every process of the communicator must call the same form (a process
 * in MPI_Alltoallw and another in MPI_Alltoallv hang for good with Open MPI
 * 4.1), and one process's counts do not tell whether another's fit: the
 * caller agrees on the form first (a2a_layout_kind for block-distributed
 * arrays: a function of the layout every process holds, no message; other
 * data: an agreement over the communicator, src/data/exchange.c) and passes
 * it to a2a_prepare. */
#ifndef DUCTILE_BIGCOLL_H
#define DUCTILE_BIGCOLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "chunk.h"

enum { A2A_INT = CHUNK_FORM_INT, A2A_C = CHUNK_FORM_C, A2A_W = CHUNK_FORM_W };

struct a2a_args {
    int kind, n;
    const void *s;
    void *d;
    int *ia;               /* A2A_INT: [4n] bytes; A2A_W: [4n] counts (1/0) and zero displacements */
    MPI_Count *cc;         /* A2A_C: [2n] */
    MPI_Aint *ca;          /* A2A_C: [2n] */
    MPI_Datatype *types;   /* A2A_W: [2n] send types then receive types (MPI_BYTE where empty) */
};

/* The agreed form of the transfer of a block-distributed array of nrows
 * rows of rowbytes bytes from ns to nd ranks: the same on every process
 * (chunk_layout_fits, the form forced by the tests, this MPI's calls). */
int a2a_layout_kind(int64_t nrows, int ns, int nd, size_t rowbytes);
/* The agreed form when every process's counts fit (fits_all, agreed by the
 * caller) or not. */
int a2a_kind(int fits_all);

/* Build the arguments for sc/sd (send counts and displacements inside src)
 * and rc/rd (receive, inside dst), in rows of rowbytes bytes, n = comm size,
 * in the form `kind`, which every process of the communicator must have
 * agreed on (above; A2A_C where this MPI lacks the calls means A2A_W).
 * Returns 0, or -1 with a message (out of memory; the int form for counts
 * that do not fit, which an agreement never gives). */
int a2a_prepare(struct a2a_args *a, int kind, int n, const int64_t *sc, const int64_t *sd, const int64_t *rc,
                const int64_t *rd, size_t rowbytes, const void *src, void *dst, char *err, size_t errlen);
/* Blocking (req == NULL) or nonblocking (req != NULL) Alltoallv.  An MPI
 * error code. */
int a2a_run(const struct a2a_args *a, MPI_Comm comm, MPI_Request *req);
/* Persistent form (MPI_Alltoallv_init and its twins).  MPI_ERR_UNSUPPORTED_OPERATION
 * when this MPI has none for the form. */
int a2a_init(const struct a2a_args *a, MPI_Comm comm, MPI_Request *req);
/* 1 when a2a_init can work for this form. */
int a2a_have_init(int kind);
/* Free the arrays and datatypes (after the request completed / was freed). */
void a2a_free(struct a2a_args *a);
/* The form forced by DUCTILE_TEST_BIGCOLL (test hook: int, c, w), or -1. */
int a2a_forced_kind(void);
/* "int", "c" (MPI_Alltoallv_c and twins) or "w" (MPI_Alltoallw): for logs. */
const char *a2a_kind_name(int kind);

#endif
