/* filekeep.c -- files opened on MPI_COMM_WORLD survive a resize
 * (docs/virtual-world.md, "Open files"):
 *
 * - MPI_File_open / MPI_File_close are written here: a file opened on the
 *   world is remembered (name, access mode, a duplicate of the info) in open
 *   order, which is the same on every process (opening is collective).
 * - At a control point with a resize, every process of the old world saves
 *   each such file's view (MPI_File_get_view: duplicates of etype and
 *   filetype), individual and shared file pointers, atomicity and error
 *   handler, and closes it (collective over the old world).
 * - After the resize, every process of the new world reopens the files on
 *   it (collective), restores view, pointers, atomicity and error handler.
 *   A new process gets each file with a byte view of the same etype extent
 *   and data representation (required by MPI_File_set_view); its program
 *   obtains the handle by calling MPI_File_open(MPI_COMM_WORLD, same name,
 *   ...), which returns the reopened file without a collective call.
 * - The program keeps the handle it got from MPI_File_open: every wrapper
 *   taking an MPI_File maps it to the current one (DUCTILE_FILE_IN,
 *   filekeep.h; a flag test until the first file moved).  An open that
 *   returns a handle equal to a stale one (the MPI reused the address)
 *   opens again, collectively, and keeps the colliding one aside until close.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filekeep.h"
#include "../core/hotpath.h"
#include "pmpi_exports.h"
#include "../core/state.h"
#include "worldid.h"
#include "../core/hooks.h"

#define KEEP_MAX 64
#define NAME_MAX_LEN 1024

struct kept {
    MPI_File prog;   /* the program's handle (MPI_FILE_NULL: a new process has not asked for it yet) */
    MPI_File cur;    /* the MPI's handle now */
    MPI_File shadow; /* an open kept aside because its handle collided with a stale one */
    char name[NAME_MAX_LEN];
    int amode;
    MPI_Info info;
    /* saved at detach */
    MPI_Offset disp, pos, shpos;
    MPI_Datatype etype, ftype;
    char datarep[MPI_MAX_DATAREP_STRING];
    int has_pos, has_shpos, atomic;
    MPI_Errhandler eh;
    MPI_Aint eext;
};

static struct kept K[KEEP_MAX];
static int nk;
static int detached; /* files closed for a resize, to be reopened */
int ductile_files_moved;

MPI_File ductile_file_current(MPI_File fh)
{
    for (int i = 0; i < nk; i++)
        if (K[i].prog == fh && fh != MPI_FILE_NULL) return K[i].cur;
    return fh;
}

MPI_File ductile_file_program(MPI_File cur)
{
    if (!ductile_files_moved || cur == MPI_FILE_NULL) return cur;
    for (int i = 0; i < nk; i++)
        if (K[i].cur == cur && K[i].prog != MPI_FILE_NULL) return K[i].prog;
    return cur;
}

static int find_prog(MPI_File fh)
{
    for (int i = 0; i < nk; i++)
        if (K[i].prog == fh) return i;
    return -1;
}

/* A handle the program holds for another file (its handle was freed by a move). */
static int stale(MPI_File fh)
{
    if (fh == MPI_FILE_NULL) return 0; /* an open that failed */
    for (int i = 0; i < nk; i++)
        if (K[i].prog == fh && K[i].cur != fh) return 1;
    return 0;
}

int ductile_files_block_resize(int method_keeps_files)
{
    if (!method_keeps_files) return nk;
    int n = 0;
    for (int i = 0; i < nk; i++)
        if (K[i].amode & MPI_MODE_DELETE_ON_CLOSE) n++;
    return n;
}

static void remember(const char *name, int amode, MPI_Info info, MPI_File fh, MPI_File shadow)
{
    if (nk == KEEP_MAX) {
        fprintf(stderr, "ductile: warning: more than %d files open on MPI_COMM_WORLD: '%s' will not survive a resize\n",
                KEEP_MAX, name);
        return;
    }
    struct kept *k = &K[nk++];
    memset(k, 0, sizeof *k);
    k->prog = k->cur = fh;
    k->shadow = shadow;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->amode = amode;
    k->info = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &k->info);
    k->etype = k->ftype = MPI_DATATYPE_NULL;
    k->eh = MPI_ERRHANDLER_NULL;
}

static void forget(int i)
{
    if (K[i].info != MPI_INFO_NULL) PMPI_Info_free(&K[i].info);
    memmove(&K[i], &K[i + 1], (size_t)(nk - i - 1) * sizeof K[0]);
    nk--;
}

static int open_world(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    int ret = PMPI_File_open(comm, name, amode, info, fh);
    MPI_File shadow = MPI_FILE_NULL;
    /* after a move the MPI may hand out a freed handle the program still holds for a moved file */
    for (int tries = 0; ret == MPI_SUCCESS && ductile_files_moved && tries < 4; tries++) {
        int clash = stale(*fh);
        PMPI_Allreduce(MPI_IN_PLACE, &clash, 1, MPI_INT, MPI_MAX, comm);
        if (!clash) break;
        MPI_File again = MPI_FILE_NULL;
        if (shadow != MPI_FILE_NULL) break; /* one aside is enough for all practical purposes */
        if (PMPI_File_open(comm, name, amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL), info, &again) != MPI_SUCCESS) break;
        shadow = *fh;
        *fh = again;
    }
    /* a failed open whose error handler returned can end in MPI_SUCCESS (MPICH) with no file */
    if (ret == MPI_SUCCESS && *fh != MPI_FILE_NULL) remember(name, amode, info, *fh, shadow);
    return ret;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    int world = comm == MPI_COMM_WORLD && ductile_rt.active && ductile_world != MPI_COMM_WORLD;
    if (world && filename) {
        /* a new process asks for a file the world had open: the reopened one */
        for (int i = 0; i < nk; i++)
            if (K[i].prog == MPI_FILE_NULL && strcmp(K[i].name, filename) == 0) {
                K[i].prog = *fh = K[i].cur;
                if (DUCTILE_SHOULD_MONITOR()) {
                    ductile_count_call(DUCTILE_FN_MPI_File_open);
                    DUCTILE_HOOK_VOID(io_opened, (ductile_world, filename, K[i].amode, K[i].cur));
                }
                return MPI_SUCCESS;
            }
    }
    comm = DUCTILE_COMM_IN(comm);
    if (!DUCTILE_SHOULD_MONITOR())
        return world ? open_world(comm, filename, amode, info, fh) : PMPI_File_open(comm, filename, amode, info, fh);
    ductile_hook_io_before(DUCTILE_FN_MPI_File_open, MPI_FILE_NULL, comm);
    DUCTILE_BEGIN_TIMED(DUCTILE_FN_MPI_File_open); /* the I/O monitor needs the start tick */
    int ret = world ? open_world(comm, filename, amode, info, fh) : PMPI_File_open(comm, filename, amode, info, fh);
    DUCTILE_HOOK_VOID(io_opened, (comm, filename, amode, ret == MPI_SUCCESS ? *fh : MPI_FILE_NULL));
    ductile_hook_io_after(DUCTILE_FN_MPI_File_open, MPI_FILE_NULL, ductile_t0_, 0, 0);
    DUCTILE_END(DUCTILE_FN_MPI_File_open, 0, 0);
    return ret;
}

int MPI_File_close(MPI_File *fh)
{
    int i = fh ? find_prog(*fh) : -1;
    MPI_File cur = fh ? DUCTILE_FILE_IN(*fh) : MPI_FILE_NULL;
    if (fh) *fh = cur;
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_File_close(fh);
    } else {
        ductile_hook_io_before(DUCTILE_FN_MPI_File_close, cur, MPI_COMM_NULL);
        DUCTILE_BEGIN_TIMED(DUCTILE_FN_MPI_File_close);
        ret = PMPI_File_close(fh);
        ductile_hook_io_after(DUCTILE_FN_MPI_File_close, cur, ductile_t0_, 0, 0);
        DUCTILE_END(DUCTILE_FN_MPI_File_close, 0, 0);
    }
    if (ret == MPI_SUCCESS && i >= 0) {
        if (K[i].shadow != MPI_FILE_NULL) PMPI_File_close(&K[i].shadow);
        forget(i);
    }
    return ret;
}

/* ------------------------------------------------------------------ the move */

static int named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 1;
    return comb == MPI_COMBINER_NAMED;
}

void ductile_files_detach(void)
{
    for (int i = 0; i < nk; i++) {
        struct kept *k = &K[i];
        /* errors here must not abort: the file's own handler is saved and restored */
        PMPI_File_get_errhandler(k->cur, &k->eh);
        PMPI_File_set_errhandler(k->cur, MPI_ERRORS_RETURN);
        k->has_pos = !(k->amode & MPI_MODE_SEQUENTIAL) && PMPI_File_get_position(k->cur, &k->pos) == MPI_SUCCESS;
        k->has_shpos = PMPI_File_get_position_shared(k->cur, &k->shpos) == MPI_SUCCESS;
        if (PMPI_File_get_view(k->cur, &k->disp, &k->etype, &k->ftype, k->datarep) != MPI_SUCCESS) {
            k->etype = k->ftype = MPI_DATATYPE_NULL;
            k->disp = 0;
            snprintf(k->datarep, sizeof k->datarep, "native");
        }
        MPI_Aint lb = 0;
        k->eext = 1;
        if (k->etype != MPI_DATATYPE_NULL) PMPI_Type_get_extent(k->etype, &lb, &k->eext);
        k->atomic = 0;
        PMPI_File_get_atomicity(k->cur, &k->atomic);
        MPI_File c = k->cur;
        PMPI_File_close(&k->cur); /* collective over the old world */
        k->cur = c;              /* kept only to retarget the monitor's slot */
        if (k->shadow != MPI_FILE_NULL) PMPI_File_close(&k->shadow);
    }
    detached = 1;
}

/* What the new processes need to reopen a file like the others (from the
 * lowest rank that had it). */
struct file_desc {
    char name[NAME_MAX_LEN];
    char datarep[MPI_MAX_DATAREP_STRING];
    int32_t amode, has_shpos, atomic, eidx, fidx, pad;
    int64_t eext, shpos, disp;
};

/* Predefined datatypes travel as an index into this list (their handles
 * differ between processes with Open MPI: addresses). */
static int predefined(MPI_Datatype t, MPI_Datatype *out, int idx)
{
    const MPI_Datatype list[] = {
        MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED,
        MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T,
        MPI_C_BOOL, MPI_WCHAR, MPI_PACKED, MPI_AINT, MPI_OFFSET, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
    };
    int n = (int)(sizeof list / sizeof list[0]);
    if (out) {
        *out = idx >= 0 && idx < n ? list[idx] : MPI_DATATYPE_NULL;
        return idx;
    }
    for (int i = 0; i < n; i++)
        if (list[i] == t) return i;
    return -1;
}

void ductile_files_reattach(void)
{
    MPI_Comm P = ductile_rt.private_comm;
    int me = ductile_rt.rank;
    int root = detached ? me : 1 << 30;
    PMPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MIN, P);
    if (root == 1 << 30) return; /* nobody had files (cannot happen after a detach) */
    int n = detached ? nk : 0;
    PMPI_Bcast(&n, 1, MPI_INT, root, P);
    for (int i = 0; i < n; i++) {
        struct file_desc d;
        memset(&d, 0, sizeof d);
        if (me == root) {
            snprintf(d.name, sizeof d.name, "%s", K[i].name);
            snprintf(d.datarep, sizeof d.datarep, "%s", K[i].datarep);
            d.amode = K[i].amode;
            d.has_shpos = K[i].has_shpos;
            d.atomic = K[i].atomic;
            d.eext = (int64_t)K[i].eext;
            d.shpos = (int64_t)K[i].shpos;
            d.disp = (int64_t)K[i].disp;
            d.eidx = K[i].etype != MPI_DATATYPE_NULL ? predefined(K[i].etype, NULL, 0) : -1;
            d.fidx = K[i].ftype != MPI_DATATYPE_NULL ? predefined(K[i].ftype, NULL, 0) : -1;
        }
        PMPI_Bcast(&d, (int)sizeof d, MPI_BYTE, root, P);
        int mine = detached && i < nk;
        if (!mine) { /* a new process: the file, not yet asked for by its program */
            remember(d.name, d.amode, MPI_INFO_NULL, MPI_FILE_NULL, MPI_FILE_NULL);
            K[i].prog = MPI_FILE_NULL;
        }
        struct kept *k = &K[i];
        MPI_File f = MPI_FILE_NULL;
        int rc = PMPI_File_open(ductile_world, d.name, d.amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL), k->info, &f);
        int okall = rc == MPI_SUCCESS;
        PMPI_Allreduce(MPI_IN_PLACE, &okall, 1, MPI_INT, MPI_MIN, P);
        if (!okall) {
            fprintf(stderr, "ductile: error: rank %d: could not reopen '%s' on the resized world; aborting\n", me,
                    d.name);
            fflush(stderr);
            PMPI_Abort(ductile_world, 3);
        }
        PMPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
        if (mine && k->etype != MPI_DATATYPE_NULL) {
            PMPI_File_set_view(f, k->disp, k->etype, k->ftype, d.datarep, MPI_INFO_NULL);
        } else if (d.eidx >= 0 && d.fidx >= 0) { /* predefined types: the same view as the root's */
            MPI_Datatype e, t;
            predefined(MPI_DATATYPE_NULL, &e, d.eidx);
            predefined(MPI_DATATYPE_NULL, &t, d.fidx);
            PMPI_File_set_view(f, (MPI_Offset)d.disp, e, t, d.datarep, MPI_INFO_NULL);
        } else { /* a byte view with the same etype extent and representation */
            MPI_Datatype b = MPI_BYTE;
            if (d.eext > 1) {
                PMPI_Type_contiguous((int)d.eext, MPI_BYTE, &b);
                PMPI_Type_commit(&b);
            }
            PMPI_File_set_view(f, 0, b, b, d.datarep, MPI_INFO_NULL);
            if (b != MPI_BYTE) PMPI_Type_free(&b);
        }
        if (d.atomic) PMPI_File_set_atomicity(f, 1);
        if (mine && k->has_pos) PMPI_File_seek(f, k->pos, MPI_SEEK_SET);
        if (d.has_shpos && d.shpos != 0) PMPI_File_seek_shared(f, (MPI_Offset)d.shpos, MPI_SEEK_SET);
        if (mine) {
            DUCTILE_HOOK_VOID(io_rehandle, (k->cur, f));
            if (k->eh != MPI_ERRHANDLER_NULL) {
                PMPI_File_set_errhandler(f, k->eh);
                PMPI_Errhandler_free(&k->eh);
            }
            if (k->etype != MPI_DATATYPE_NULL && !named(k->etype)) PMPI_Type_free(&k->etype);
            if (k->ftype != MPI_DATATYPE_NULL && !named(k->ftype)) PMPI_Type_free(&k->ftype);
            k->etype = k->ftype = MPI_DATATYPE_NULL;
        }
        k->cur = f;
        ductile_files_moved = 1;
    }
    detached = 0;
}

void ductile_files_left(void)
{
    /* a process that left the world: its closed files are gone */
    if (!detached) return;
    for (int i = 0; i < nk; i++) {
        struct kept *k = &K[i];
        if (k->eh != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&k->eh);
        if (k->etype != MPI_DATATYPE_NULL && !named(k->etype)) PMPI_Type_free(&k->etype);
        if (k->ftype != MPI_DATATYPE_NULL && !named(k->ftype)) PMPI_Type_free(&k->ftype);
        DUCTILE_HOOK_VOID(io_rehandle, (k->cur, MPI_FILE_NULL));
    }
    while (nk) forget(nk - 1);
    detached = 0;
}
