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
 * per-call path. */
#ifndef DUCTILE_BIGCOLL_H
#define DUCTILE_BIGCOLL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum { A2A_INT = 0, A2A_C = 1, A2A_W = 2 };

struct a2a_args {
    int kind, n;
    const void *s;
    void *d;
    int *ia;               /* A2A_INT: [4n] bytes; A2A_W: [4n] counts (1/0) and zero displacements */
    MPI_Count *cc;         /* A2A_C: [2n] */
    MPI_Aint *ca;          /* A2A_C: [2n] */
    MPI_Datatype *types;   /* A2A_W: [2n] send types then receive types (MPI_BYTE where empty) */
};

/* Build the arguments for sc/sd (send counts and displacements inside src)
 * and rc/rd (receive, inside dst), in rows of rowbytes bytes, n = comm size.
 * force_kind >= 0 picks the form (tests); -1 the smallest that fits.
 * Returns 0, or -1 with a message. */
int a2a_prepare(struct a2a_args *a, int n, const int64_t *sc, const int64_t *sd, const int64_t *rc,
                const int64_t *rd, size_t rowbytes, const void *src, void *dst, int force_kind, char *err,
                size_t errlen);
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

#endif
