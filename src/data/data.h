/* data.h -- registered data kinds beyond row blocks (issue 14): N-D blocks
 * over a process grid with halos (ndblock.c), CSR sparse matrices balanced by
 * rows or by non-zeros (sparse.c) and custom data moved by the program's
 * pack/size/unpack callbacks (custom.c).  Each kind keeps its state in
 * reg_item.ext and moves itself at a resize over the transfer layout of the
 * resize engine (struct redist_layout: every old and new process), with its
 * own collective calls; the engine calls data_move() for these items in
 * registration order, like the other kinds.  A resize is a transaction
 * (src/malleable/transaction.c): data_move() builds the item's new state aside
 * (new buffers, new layout) and keeps the old one intact and current;
 * data_commit() adopts it once every process agreed, data_abort() drops it
 * when the resize is rolled back.  Nothing here runs on the per-call path. */
#ifndef DUCTILE_DATA_H
#define DUCTILE_DATA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../redist/layout.h"
#include "../malleable/registry.h"

/* Move one REG_SPARSE / REG_NDBLOCK / REG_CUSTOM / REG_PATCHES item from the
 * old layout to the new one (collective over L->comm).  ok = 0: this process
 * already failed; it takes part in the item's checkpoint only.  *moved: bytes
 * this process sent to other processes.  Returns MOVE_OK, MOVE_FAILED (with
 * a message) or MOVE_STOPPED (src/redist/layout.h); the old buffers are
 * intact whatever happens.  Each kind allocates what its collectives need
 * before its first one, a checkpoint (txn_all_ok), and what the exchange of
 * the data needs before the exchange's own agreement (data_alltoallv_bytes):
 * a process that could not allocate is never missing from a collective. */
int data_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
              size_t errlen);

/* Every item moved and every process agreed: the steps of the commit that
 * run the program's code and can fail, before a second agreement (custom
 * data: a snapshot of this process's data by size/pack(user, 0, 1), then the
 * unpack callbacks).  0, or -1 with why; data_unstage undoes it when the
 * resize is rolled back after all (custom data: unpack(user, 0, 1) of the
 * snapshot). */
int data_stage(struct reg_item *it, char *why, size_t len);
void data_unstage(struct reg_item *it);
/* The resize committed: the item adopts the new state its data_move staged
 * (its old buffers are freed; custom data: staged already, its bytes and
 * snapshot go).  Nothing staged: nothing happens. */
void data_commit(struct reg_item *it);
/* The resize was rolled back (or the move failed half-way): the staged state
 * is dropped, the item keeps its old buffers, layout and data. */
void data_abort(struct reg_item *it);

/* After the world changed (or, in a spawned process, after its data
 * arrived): collective over the new world; N-D blocks whose layout a commit
 * changed (or not created yet) get their Cartesian communicator and their
 * halos filled; the others keep theirs (after a rolled-back resize: all). */
void data_world_changed(void);

/* Free an item's kind state (reg_item.ext), if any. */
void data_ext_free(struct reg_item *it);

/* Shared by the kinds: post the nonblocking receive (send = 0) or send
 * (send = 1) of `bytes` bytes at buf with peer over comm, in messages of at
 * most chunk_piece_max() bytes (below an int count; both sides cut a pair's
 * bytes alike), into rq[*nrq...] (data_pieces(bytes) of them; *nrq
 * advances by those posted).  Returns an MPI error code. */
int data_post_bytes(void *buf, int64_t bytes, int peer, int tag, int send, MPI_Comm comm, MPI_Request *rq,
                    int *nrq);
int64_t data_pieces(int64_t bytes);
/* The exchange every kind's move uses (exchange.c): an all-to-all of bytes
 * over comm with 64-bit counts and displacements.  With the method
 * REDIST_COL (and by default) one collective: MPI_Alltoallv, or past
 * 2 GiB on any process MPI_Alltoallv_c (MPI-4) or MPI_Alltoallw with derived
 * datatypes (Open MPI 4.1), the form agreed over comm since one process's
 * counts do not tell another's; with any other method (REDIST_P2P, and the
 * one-sided ones: the counts are known on both sides already, so a window
 * would add only its set-up) nonblocking sends and receives in pieces of at
 * most 1 GiB.  Its first collective agrees on the form and on ok (0: this
 * process cannot take part: its arrays are not read).  MOVE_OK, MOVE_FAILED
 * (a message in err) or MOVE_STOPPED. */
void data_exchange_method(int method);
int data_alltoallv_bytes(const void *sbuf, const int64_t *scounts, const int64_t *sdispls, void *rbuf,
                         const int64_t *rcounts, const int64_t *rdispls, int ok, MPI_Comm comm, char *err,
                         size_t errlen);

/* The kinds (called by data_move / data_commit / data_abort / data_world_changed / data_ext_free).
 * A *_move stages the new state in the kind's ext; *_free frees a staged one too. */
int ndblock_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                 size_t errlen);
void ndblock_commit(struct reg_item *it);
void ndblock_abort(struct reg_item *it);
void ndblock_world_changed(struct reg_item *it);
/* ndblock_bg.c: a constant N-D block in the background (the hook data_bg_start, src/core/hooks.h) */
int ndblock_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                     char *err, size_t errlen);
void ndblock_bg_forget(struct reg_item *it);
void ndblock_free(struct reg_item *it);
int sparse_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                size_t errlen);
/* sparse_bg.c: a constant matrix in the background (the hook data_bg_start, src/core/hooks.h) */
int sparse_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                    char *err, size_t errlen);
void sparse_bg_forget(struct reg_item *it);
void sparse_commit(struct reg_item *it);
void sparse_abort(struct reg_item *it);
void sparse_free(struct reg_item *it);
int custom_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                size_t errlen);
/* custom.c: constant custom data in the background (the hook data_bg_start) */
int custom_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                    char *err, size_t errlen);
void custom_bg_forget(struct reg_item *it);
int custom_stage(struct reg_item *it, char *why, size_t len);
void custom_unstage(struct reg_item *it);
void custom_commit(struct reg_item *it);
void custom_abort(struct reg_item *it);
void custom_free(struct reg_item *it);
int patches_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                 size_t errlen);
/* patches_bg.c / patches.c: a constant patch set in the background (the hook data_bg_start) */
int patches_bg_start(struct reg_item *it, const struct redist_layout *L, int ok, struct bytes_xfer *xf, int *nxf,
                     char *err, size_t errlen);
void patches_bg_forget(struct reg_item *it);
void patches_commit(struct reg_item *it);
void patches_abort(struct reg_item *it);
void patches_free(struct reg_item *it);

#endif
