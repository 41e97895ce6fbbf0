/* callbacks.c -- the callbacks the MPI calls with a handle get the handle the
 * program knows (docs/virtual-world.md, "Callbacks"), before and after
 * resizes (DUCTILE_SCHEDULE):
 *
 *   communicator error handlers, on MPI_COMM_WORLD and on a duplicate,
 *     raised by the program (MPI_Comm_call_errhandler) and by the library (a
 *     send to an invalid rank): the handler gets MPI_COMM_WORLD / the duplicate;
 *   the same through the MPI-1 names removed in MPI-3.0 that the MPIs still
 *     export (MPI_Errhandler_create, _set, _get), as old binaries call them;
 *   window error handlers (MPI_Win_call_errhandler, a put to an invalid rank);
 *   file error handlers on a file opened on MPI_COMM_WORLD before the first
 *     resize and kept open across all of them (MPI_File_call_errhandler, a
 *     read of a write-only file) and on MPI_FILE_NULL (an open that fails);
 *   attribute callbacks: communicator keyvals (MPI_Comm_create_keyval and
 *     the MPI-1 MPI_Keyval_create / MPI_Attr_put / MPI_Attr_delete) copying
 *     from and deleting on MPI_COMM_WORLD, window and datatype keyvals.
 *
 * Each check counts the callback's calls and compares the handle it got.
 * usage: callbacks ITERATIONS DIR [multiple]   (multiple: MPI_THREAD_MULTIPLE)
 * Rank 0 prints "RESULT size=S failures=F". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <empi.h>

#include "check.h"

/* MPI_Keyval_create, MPI_Attr_put, MPI_NULL_COPY_FN, ...: deprecated, and used on purpose */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* The MPI-1 names, as an old binary declares them (mpi.h no longer does;
 * Open MPI's defines macros that stop a compilation using them). */
#undef MPI_Errhandler_create
#undef MPI_Errhandler_set
#undef MPI_Errhandler_get
#undef MPI_Type_extent
typedef void old_handler(MPI_Comm *, int *, ...);
int MPI_Errhandler_create(old_handler *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Type_extent(MPI_Datatype type, MPI_Aint *extent);

static int size;

/* what each callback saw last, and how often it ran */
static struct {
    int n, code;
    MPI_Comm comm;
} ceh, oldeh, copyfn, delfn, olddel;
static int nwin, wcode, nfile, fcode, nwdel, ntcopy;
static MPI_Win wgot, wdelgot;
static MPI_File fgot;
static MPI_Datatype tgot;

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    ceh.n++;
    ceh.comm = *c;
    ceh.code = *code;
}
static void old_comm_handler(MPI_Comm *c, int *code, ...)
{
    oldeh.n++;
    oldeh.comm = *c;
    oldeh.code = *code;
}
static void win_handler(MPI_Win *w, int *code, ...)
{
    nwin++;
    wgot = *w;
    wcode = *code;
}
static void file_handler(MPI_File *f, int *code, ...)
{
    nfile++;
    fgot = *f;
    fcode = *code;
}
static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)kv;
    (void)extra;
    copyfn.n++;
    copyfn.comm = old;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int del_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv;
    (void)val;
    (void)extra;
    delfn.n++;
    delfn.comm = c;
    return MPI_SUCCESS;
}
static int old_del_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv;
    (void)val;
    (void)extra;
    olddel.n++;
    olddel.comm = c;
    return MPI_SUCCESS;
}
static int win_del_fn(MPI_Win w, int kv, void *val, void *extra)
{
    (void)kv;
    (void)val;
    (void)extra;
    nwdel++;
    wdelgot = w;
    return MPI_SUCCESS;
}
static int type_copy_fn(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)kv;
    (void)extra;
    ntcopy++;
    tgot = t;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int cls(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static MPI_Errhandler eh_comm, eh_old, eh_win, eh_file;
static int kv_comm, kv_old, kv_win, kv_type, value = 5;
static MPI_File fh; /* opened on MPI_COMM_WORLD, write-only, across every resize */
static char missing[4200];

static void check_comm(int it)
{
    int x = 1, n = ceh.n;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK(ceh.n == n + 1 && ceh.comm == MPI_COMM_WORLD && cls(ceh.code) == MPI_ERR_OTHER,
          "it %d: comm handler raised by the program: %d calls, world %d, class %d", it, ceh.n - n,
          ceh.comm == MPI_COMM_WORLD, cls(ceh.code));
    n = ceh.n;
    MPI_Send(&x, 1, MPI_INT, size + 7, 0, MPI_COMM_WORLD);
    CHECK(ceh.n == n + 1 && ceh.comm == MPI_COMM_WORLD && cls(ceh.code) == MPI_ERR_RANK,
          "it %d: comm handler raised by the library: %d calls, world %d, class %d", it, ceh.n - n,
          ceh.comm == MPI_COMM_WORLD, cls(ceh.code));
    /* a duplicate inherits the handler; the handle is the duplicate's.  The
     * attribute kept on the world is copied by the program's callback from MPI_COMM_WORLD */
    MPI_Comm dup;
    n = copyfn.n;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(copyfn.n == n + 1 && copyfn.comm == MPI_COMM_WORLD, "it %d: copy callback: %d calls, world %d", it,
          copyfn.n - n, copyfn.comm == MPI_COMM_WORLD);
    n = ceh.n;
    MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK(ceh.n == n + 1 && ceh.comm == dup, "it %d: handler on the duplicate: %d calls, dup %d", it, ceh.n - n,
          ceh.comm == dup);
    n = delfn.n;
    MPI_Comm dup0 = dup;
    MPI_Comm_free(&dup);
    CHECK(delfn.n == n + 1 && delfn.comm == dup0, "it %d: delete callback at the duplicate's free: %d calls", it,
          delfn.n - n);
    /* a value set and deleted on the world: the delete callback gets MPI_COMM_WORLD */
    static int transient = 9;
    int kvt = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &kvt, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kvt, &transient);
    n = delfn.n;
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kvt);
    CHECK(delfn.n == n + 1 && delfn.comm == MPI_COMM_WORLD, "it %d: delete callback on the world: %d calls, world %d",
          it, delfn.n - n, delfn.comm == MPI_COMM_WORLD);
    MPI_Comm_free_keyval(&kvt);
    /* the MPI-1 attribute names */
    MPI_Attr_put(MPI_COMM_WORLD, kv_old, &transient);
    n = olddel.n;
    MPI_Attr_delete(MPI_COMM_WORLD, kv_old);
    CHECK(olddel.n == n + 1 && olddel.comm == MPI_COMM_WORLD, "it %d: MPI-1 delete callback: %d calls, world %d", it,
          olddel.n - n, olddel.comm == MPI_COMM_WORLD);
}

static void check_old_names(int it)
{
    int x = 1, n = oldeh.n;
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    MPI_Errhandler_set(MPI_COMM_WORLD, eh_old);
    MPI_Errhandler_get(MPI_COMM_WORLD, &got);
    CHECK(got == eh_old, "it %d: MPI_Errhandler_get returns another handler", it);
    if (got != MPI_ERRHANDLER_NULL) MPI_Errhandler_free(&got);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK(oldeh.n == n + 1 && oldeh.comm == MPI_COMM_WORLD, "it %d: MPI_Errhandler_set's handler: %d calls, world %d",
          it, oldeh.n - n, oldeh.comm == MPI_COMM_WORLD);
    n = oldeh.n;
    MPI_Send(&x, 1, MPI_INT, size + 7, 0, MPI_COMM_WORLD);
    CHECK(oldeh.n == n + 1 && oldeh.comm == MPI_COMM_WORLD && cls(oldeh.code) == MPI_ERR_RANK,
          "it %d: MPI_Errhandler_set's handler raised by the library: %d calls, world %d", it, oldeh.n - n,
          oldeh.comm == MPI_COMM_WORLD);
    MPI_Aint ext = 0, lb = 0, ext2 = 0;
    MPI_Type_extent(MPI_DOUBLE, &ext);
    MPI_Type_get_extent(MPI_DOUBLE, &lb, &ext2);
    CHECK(ext == ext2, "it %d: MPI_Type_extent %ld, MPI_Type_get_extent %ld", it, (long)ext, (long)ext2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_comm);
}

static void check_win(int it)
{
    int buf[4] = {0}, x = 1;
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, eh_win);
    MPI_Win_set_attr(win, kv_win, &value);
    int n = nwin;
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(nwin == n + 1 && wgot == win, "it %d: window handler raised by the program: %d calls, same window %d", it,
          nwin - n, wgot == win);
    MPI_Win_fence(0, win);
    n = nwin;
    MPI_Put(&x, 1, MPI_INT, size + 7, 0, 1, MPI_INT, win);
    CHECK(nwin == n + 1 && wgot == win && cls(wcode) == MPI_ERR_RANK,
          "it %d: window handler raised by the library: %d calls, same window %d, class %d", it, nwin - n, wgot == win,
          cls(wcode));
    MPI_Win_fence(0, win);
    MPI_Win w0 = win;
    n = nwdel;
    MPI_Win_free(&win);
    CHECK(nwdel == n + 1 && wdelgot == w0, "it %d: window delete callback: %d calls", it, nwdel - n);
}

static void check_file(int it)
{
    int n = nfile;
    MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
    CHECK(nfile == n + 1 && fgot == fh, "it %d: file handler raised by the program: %d calls, same file %d", it,
          nfile - n, fgot == fh);
    int x = 0;
    n = nfile;
    MPI_File_read_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(nfile == n + 1 && fgot == fh && cls(fcode) == MPI_ERR_ACCESS,
          "it %d: file handler raised by the library: %d calls, same file %d, class %d", it, nfile - n, fgot == fh,
          cls(fcode));
    /* MPI_FILE_NULL's handler: an open that fails */
    MPI_File f = MPI_FILE_NULL;
    MPI_File_set_errhandler(MPI_FILE_NULL, eh_file);
    n = nfile;
    MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    CHECK(nfile == n + 1 && fgot == MPI_FILE_NULL, "it %d: MPI_FILE_NULL's handler: %d calls, MPI_FILE_NULL %d", it,
          nfile - n, fgot == MPI_FILE_NULL);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    /* a datatype keyval's copy callback gets the datatype */
    MPI_Datatype t, t2;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, kv_type, &value);
    n = ntcopy;
    MPI_Type_dup(t, &t2);
    CHECK(ntcopy == n + 1 && tgot == t, "it %d: datatype copy callback: %d calls", it, ntcopy - n);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);
}

static void check_all(int it)
{
    check_comm(it);
    check_old_names(it);
    check_win(it);
    check_file(it);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    if (argc > 3 && strcmp(argv[3], "multiple") == 0) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    if (argc < 3) return 2;
    int iters = atoi(argv[1]);
    char path[4096];
    snprintf(path, sizeof path, "%s/cb.dat", argv[2]);
    snprintf(missing, sizeof missing, "%s/no-such-file", argv[2]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_create_errhandler(comm_handler, &eh_comm);
    MPI_Errhandler_create(old_comm_handler, &eh_old);
    MPI_Win_create_errhandler(win_handler, &eh_win);
    MPI_File_create_errhandler(file_handler, &eh_file);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh_comm);
    MPI_Comm_create_keyval(copy_fn, del_fn, &kv_comm, NULL);
    MPI_Keyval_create(MPI_NULL_COPY_FN, old_del_fn, &kv_old, NULL);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_del_fn, &kv_win, NULL);
    MPI_Type_create_keyval(type_copy_fn, MPI_TYPE_NULL_DELETE_FN, &kv_type, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kv_comm, &value); /* kept on the world across the resizes */
    long long token = 1;
    EMPI_Register_scalar("token", &token, MPI_LONG_LONG, 1);
    int type, it = 0, status = EMPI_ACTIVE;
    EMPI_Get_type(&type);
    /* a process Ductile spawned takes the world's file by its name */
    if (type == EMPI_SPAWNED) EMPI_Get_shared(&it);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_errhandler(fh, eh_file);
    /* the checks (collective: window creation, duplicates, file opens) at the top of each
     * iteration, where a process spawned at the previous control point starts */
    for (; it < iters; it++) {
        EMPI_Monitor_init();
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        check_all(it);
        EMPI_Monitor_end(NULL, NULL, it, iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
        EMPI_Get_status(&status);
        if (status == EMPI_REMOVED) break;
    }
    if (status != EMPI_REMOVED) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        check_all(iters);
        MPI_File_close(&fh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) printf("RESULT size=%d failures=%d\n", size, failures);
    }
    MPI_Errhandler_free(&eh_comm);
    MPI_Errhandler_free(&eh_old);
    MPI_Errhandler_free(&eh_win);
    MPI_Errhandler_free(&eh_file);
    MPI_Finalize();
    return 0;
}
