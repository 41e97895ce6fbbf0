/* registry.h -- the data a malleable program registered (EMPI_Register_*):
 * distributed arrays (block-distributed rows), replicated arrays and scalars,
 * with their MPI datatype, element extent and current local buffer.  After a
 * resize Ductile owns the new buffers of distributed arrays.  No fixed limit on
 * the number of items: the registry grows as the program registers. */
#ifndef DUCTILE_REGISTRY_H
#define DUCTILE_REGISTRY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define REG_NAME_MAX 64

enum reg_kind {
    REG_DISTRIBUTED = 1, REG_REPLICATED = 2, REG_SCALAR = 3,
    REG_SPARSE = 4,  /* CSR rows (src/data/sparse.c) */
    REG_NDBLOCK = 5, /* 1-3-D block over a process grid with halos (src/data/ndblock.c) */
    REG_CUSTOM = 6,  /* pack/size/unpack callbacks (src/data/custom.c) */
    REG_PATCHES = 7  /* patch sets repartitioned as in seed 003 (src/data/patches.c) */
};
/* The kinds that move themselves through src/data/data.h (data_move). */
#define REG_KIND_IS_DATA(k) ((k) == REG_SPARSE || (k) == REG_NDBLOCK || (k) == REG_CUSTOM || (k) == REG_PATCHES)
/* The kinds whose commit runs the program's code, which can fail (custom data's unpack): staged
 * and agreed on before the commit (src/malleable/transaction.c, txn_agree_commit). */
#define REG_KIND_STAGES(k) ((k) == REG_CUSTOM)

/* What must agree between the processes of a resize (sent to new processes). */
struct reg_desc {
    char name[REG_NAME_MAX];
    int32_t kind, constant;
    int64_t extent;     /* bytes per element */
    int64_t nrows;      /* REG_DISTRIBUTED: global rows, block-distributed */
    int64_t row_elems;  /* REG_DISTRIBUTED: elements per row */
    int64_t elems;      /* REG_REPLICATED / REG_SCALAR: elements held by every process */
};

struct reg_item {
    struct reg_desc d;
    void *addr;          /* current local buffer (the block of this rank, or the whole array) */
    MPI_Datatype type;
    int owned;           /* Ductile allocated addr (or it came from EMPI_malloc): freed when replaced */
    void *sp_row, *sp_col; /* REG_SPARSE: row pointers and column indices (addr: values) */
    void *ext;           /* REG_SPARSE / REG_NDBLOCK / REG_CUSTOM / REG_PATCHES: the kind's state (src/data/),
                          * freed with the item */
    struct {             /* REG_SPARSE: my rows and, balanced by non-zeros, every rank's row count */
        int64_t row0, rows;  /*   (kept by src/data/sparse.c, read by EMPI_Monitor_end) */
        int64_t *vrows;
        int nv;
    } rows;
    void *spare;         /* DUCTILE_PERSISTENT: this process's block for a world of spare_size processes, */
    int spare_size;      /*   kept (owned) so that a +P/-P cycle finds the same buffers again */
    void *decl_addr;     /* REG_DISTRIBUTED: the buffer whose rows the program declared (EMPI_Set_buffer_rows), */
    int64_t decl_rows;   /*   and how many it holds (-1: none declared) */
    int dropping;        /* freed by the program (EMPI_free) while a resize was pending: leaves at reg_thaw */
};

/* Register (or re-register under the same name) an item.  Returns 0 or -1
 * with a message (bad datatype, negative size, out of memory).  A registered
 * item's address (reg_find, reg_at) stays the same until it is removed. */
int reg_add(const char *name, void *addr, MPI_Datatype type, int kind, int constant, int64_t nrows,
            int64_t row_elems, int64_t elems, char *err, size_t errlen);
struct reg_item *reg_find(const char *name);
int reg_count(void);
struct reg_item *reg_at(int i);
/* Remove an item (freeing its buffer if Ductile owns it).  0, or -1 while
 * the registry is frozen (nothing changes). */
int reg_remove(const char *name);
/* A resize is pending (its constant data moves in the background): the
 * registry is frozen until reg_thaw -- its slots do not move (the pending
 * resize indexes its new blocks by them) and no buffer a transfer may read is
 * freed.  reg_add and reg_remove refuse (-1). */
void reg_freeze(void);
int reg_frozen(void);
/* EMPI_free(addr, id) while frozen: the item named id leaves at reg_thaw, and
 * addr, if it is a registered buffer, becomes Ductile's, freed then (or when
 * the switch replaces it).  1: deferred (the caller frees nothing), 0: addr
 * is no registered buffer (free it now). */
int reg_free_later(void *addr, const char *id);
/* The pending resize is over (switched or cancelled): items freed meanwhile
 * leave, their memory is freed -- unless release = 0 (a failed transfer's
 * requests may still use it: left alone). */
void reg_thaw(int release);
/* Free an item's spare block (DUCTILE_PERSISTENT), if any. */
void reg_drop_spare(struct reg_item *it);
/* Bytes of one row of a distributed item, or of a whole replicated item / scalar. */
size_t reg_unit_bytes(const struct reg_item *it);

/* EMPI_malloc bookkeeping: remember / forget blocks allocated for the program. */
void *reg_malloc(size_t size, int zero);
int reg_is_tracked(void *p);
/* The bytes an item's current buffer holds, when Ductile knows them: the rows
 * the program declared for that buffer (EMPI_Set_buffer_rows), or the rest
 * of the EMPI_malloc'ed block it lies in.  1 with *bytes (and *how, a phrase
 * for messages), or 0: unknown (the program's own memory). */
int reg_buffer_bytes(const struct reg_item *it, int64_t *bytes, const char **how);
void reg_untrack_free(void *p);
/* Another thread reading the registry (the controller's, src/controller/): between
 * reg_lock and reg_unlock, items are neither added, removed nor renamed. */
void reg_lock(void);
void reg_unlock(void);
/* Forget all items (at MPI_Finalize; buffers are not freed). */
void reg_clear(void);
/* Collective over comm: 0 when every process registered the same items (names, kinds and
 * EMPI_CONSTANT flags, in order), else -1 on every process with why naming the first item that
 * differs (one MPI_Allreduce of 16 bytes when they agree; a resize checks it before moving data). */
int reg_agree(MPI_Comm comm, char *why, size_t wl);

#endif
