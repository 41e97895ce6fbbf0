/* xfer.h -- one-sided redistribution of block-distributed arrays
 * (docs/rma.md): the drains read (MPI_Get / MPI_Rget) the block
 * intersection from the sources' windows.
 *
 * Blocking: rma_move(), the MaM RMA paper's Algorithm 2 (RMA-Lock: one
 * shared lock per source, all Gets, then every unlock) and Algorithm 3
 * (RMA-Lockall: one lock_all epoch), followed by a barrier before the
 * sources detach their arrays.
 *
 * Background (one group per resize, all constant arrays; the paper's
 * Section IV-C): Wait Drains (Init_RMA: epochs + MPI_Rget; Complete_RMA:
 * drains test their requests, then every process posts an MPI_Ibarrier that
 * is tested at control points; windows are released only after it) and
 * Threading (an auxiliary thread runs the blocking algorithm; needs
 * MPI_THREAD_MULTIPLE).  COL (MPI_Alltoallv) gets the same two strategies
 * here (COL-WD: MPI_Ialltoallv + MPI_Ibarrier; COL-T: MPI_Alltoallv in a
 * thread); COL-NB stays in src/malleable/redist.c.
 * Windows: the reusable per-world dynamic window (window.h), or, with
 * DUCTILE_RMA_WINDOW=create, MPI_Win_create per array as in the paper. */
#ifndef DUCTILE_RMA_XFER_H
#define DUCTILE_RMA_XFER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../redist/layout.h"

enum { RMA_LOCK = 0, RMA_LOCKALL = 1 };
enum { BG_METHOD_COL = 0, BG_METHOD_RMA_LOCK = 1, BG_METHOD_RMA_LOCKALL = 2 };
enum { BG_WD = 0, BG_THREAD = 1 };

/* Move nrows rows of rowbytes bytes from my old block (src, NULL if none) to
 * my new block (dst, NULL if none); src == dst allowed when the blocks are
 * the same rows.  create = 1: a window per call (MPI_Win_create), else the
 * reusable window.  ok = 0: this process already failed (the checkpoint
 * only).  *setup_s gets window set-up seconds, *moved the bytes this process
 * read from other processes.  Collective over L->comm.  MOVE_OK,
 * MOVE_FAILED (with a message) or MOVE_STOPPED (src/redist/layout.h). */
int rma_move(const struct redist_layout *L, int lockall, int create, int64_t nrows, size_t rowbytes, const void *src,
             void *dst, int ok, uint64_t *moved, double *setup_s, char *err, size_t errlen);

/* A background transfer group (collective calls over L->comm, in the same
 * order everywhere): begin (local; NULL with a message), the window
 * (collective for the rma-* methods with the reusable window: after a
 * checkpoint of the begin's outcome), add each array (src must stay
 * unchanged and dst unread until completion), launch, then test at control
 * points until done.  bg_add and bg_launch take and return as rma_move; a
 * failure after the launch is reported by bg_test at completion (every
 * step still runs, so that the others complete theirs). */
struct bg_group;
struct bg_group *bg_begin(const struct redist_layout *L, int method, int strategy, int create, char *err,
                          size_t errlen);
int bg_window(struct bg_group *g, char *err, size_t errlen);
int bg_add(struct bg_group *g, int64_t nrows, size_t rowbytes, const void *src, void *dst, int ok, uint64_t *moved,
           char *err, size_t errlen);
/* A collective group (BG_METHOD_COL) also takes exchanges with counts of
 * their own (struct bytes_xfer: a general data kind's, src/data), in the
 * form `kind` every process agreed on (src/redist/bigcoll.h), started with
 * the arrays at the launch in the order added (local: a failure here is
 * caught by the launch's checkpoint).  bg_collective: 1 for such a group. */
int bg_collective(const struct bg_group *g);
int bg_add_bytes(struct bg_group *g, int kind, const struct bytes_xfer *xf, char *err, size_t errlen);
int bg_launch(struct bg_group *g, int ok, char *err, size_t errlen);
/* Local progress, never blocks: *done = 1 once this process's part and (WD)
 * the barrier are complete.  Returns 0, or -1 once done when this
 * process's part failed. */
int bg_test(struct bg_group *g, int *done);
/* After every process saw completion (collective-safe point): detach or free
 * the windows, join the thread, free the group. */
void bg_release(struct bg_group *g);
/* A group given up with operations that may still be pending: nothing is
 * freed (the MPI may still use its buffers and windows); its window leaves
 * the cache (rma_win_abandon).  Local. */
void bg_forget(struct bg_group *g);
/* Window set-up seconds spent by this group (at begin / add). */
double bg_setup_s(const struct bg_group *g);
/* 1 when the MPI granted MPI_THREAD_MULTIPLE (Threading is allowed). */
int rma_thread_ok(void);

#endif
