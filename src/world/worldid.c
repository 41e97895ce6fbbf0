/* worldid.c -- the program's world stays the program's (docs/virtual-world.md):
 *
 * - Ductile's children carry a marker: Ductile spawns "ductile-spawn-env (or env) _DUCTILE_SPAWNED=job
 *   PROGRAM ARGS", so only they join Ductile's world in MPI_Init; a process the
 *   program spawned itself sees its parent as without Ductile, and a process
 *   Ductile spawned sees MPI_COMM_NULL from MPI_Comm_get_parent, like one
 *   started by mpiexec.
 * - The program's keyvals get trampoline callbacks (the program's functions
 *   and extra state sit behind them), so that at a world swap the program's
 *   attributes move to the new world without a copy or delete callback, and
 *   callbacks run "on the world" receive MPI_COMM_WORLD.
 * - The error handler and name of the old world go to the new one; the info
 *   hints the program set on the world are answered from here.
 * - Under MPI_THREAD_MULTIPLE an old world is freed only at MPI_Finalize:
 *   another thread may have read it from ductile_world just before the swap
 *   (the hot path reads it without a lock, so there is no other point at
 *   which no thread can hold it).
 */
#include "config.h"

#include "worldid.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/hotpath.h"
#include "pmpi_exports.h"
#include "../core/state.h"

/* The environment entry Ductile's spawn sets (not DUCTILE_*: that prefix is
 * reserved for settings, and an unknown setting is an error). */
#define MARKER "_DUCTILE_SPAWNED"

static int spawned_by_ductile;

void ductile_worldid_early_init(void)
{
    const char *v = getenv(MARKER);
    spawned_by_ductile = v != NULL && *v != '\0';
    /* the program's own children (and anything it runs) must not inherit it */
    unsetenv(MARKER);
}

int ductile_spawned_by_ductile(void) { return spawned_by_ductile; }

void ductile_worldid_mpi_env(void)
{
#if defined(OMPI_MAJOR_VERSION)
    /* Open MPI: OMPIO's shared-file-pointer component sharedfp/sm hangs
     * MPI_File_open on a world that spans the original and a spawned job
     * (4.1), or dies of SIGBUS in MPI_File_get_position_shared there (5.0.11)
     * (measured; sharedfp lockedfile/individual work): leave it out unless
     * the user chose the components */
    if (!getenv("OMPI_MCA_sharedfp")) setenv("OMPI_MCA_sharedfp", "^sm", 0);
#elif defined(I_MPI_VERSION)
    /* Intel MPI: a job on one node gets the fabric shm, which cannot spawn
     * ("shm fabric does not support Spawns, please use shm:ofi"): no
     * expansion could start.  shm:ofi (its default across nodes) keeps shared
     * memory within a node and reaches spawned processes through libfabric;
     * read by MPI_Init in this process, so setting it here is enough
     * (measured with Intel MPI 2021.19, docs/cluster.md "Intel MPI").  Left
     * alone if the user chose a fabric. */
    if (!getenv("I_MPI_FABRICS")) setenv("I_MPI_FABRICS", "shm:ofi", 0);
#endif
}

/* The marker program: ductile-spawn-env (src/world/spawn_env.c, static: the
 * LD_PRELOAD of libductile.so is not loaded into it), beside this library in
 * the build tree or where it is installed; else env(1). */
static const char *env_path(void)
{
    static char helper[4096];
    static int found = -1;
    if (found < 0) {
        found = 0;
        Dl_info di;
        if (dladdr((void *)env_path, &di) && di.dli_fname) { /* build tree: src/.libs/libductile.so */
            const char *slash = strrchr(di.dli_fname, '/');
            if (slash && snprintf(helper, sizeof helper, "%.*s/../ductile-spawn-env", (int)(slash - di.dli_fname),
                                  di.dli_fname) < (int)sizeof helper && access(helper, X_OK) == 0)
                found = 1;
        }
#ifdef DUCTILE_SPAWN_HELPER
        if (!found && access(DUCTILE_SPAWN_HELPER, X_OK) == 0) {
            snprintf(helper, sizeof helper, "%s", DUCTILE_SPAWN_HELPER);
            found = 1;
        }
#endif
    }
    if (found) return helper;
    static const char *const cand[] = {"/usr/bin/env", "/bin/env", NULL};
    for (int i = 0; cand[i]; i++)
        if (access(cand[i], X_OK) == 0) return cand[i];
    return NULL;
}

const char *ductile_spawn_env_program(void) { return env_path(); }

void ductile_spawn_marker(char *buf, size_t len)
{
    snprintf(buf, len, MARKER "=%s", ductile_rt.job_id[0] ? ductile_rt.job_id : "1");
}

int ductile_spawn_marked(const char *cmd, char **args, int n, MPI_Info info, MPI_Comm comm, MPI_Comm *inter,
                         int *errcodes)
{
    const char *env = env_path();
    if (!env) {
        fprintf(stderr, "ductile: error: cannot mark the processes to spawn: no env(1) at /usr/bin/env or /bin/env\n");
        return MPI_ERR_SPAWN;
    }
    int nargs = 0;
    while (args && args[nargs]) nargs++;
    char **argv = calloc((size_t)nargs + 3, sizeof *argv);
    char mark[128];
    snprintf(mark, sizeof mark, MARKER "=%s", ductile_rt.job_id[0] ? ductile_rt.job_id : "1");
    if (!argv) return MPI_ERR_NO_MEM;
    argv[0] = mark;
    argv[1] = (char *)cmd;
    for (int i = 0; i < nargs; i++) argv[2 + i] = args[i];
    argv[2 + nargs] = NULL;
    int rc = PMPI_Comm_spawn(env, argv, n, info, 0, comm, inter, errcodes);
    free(argv);
    return rc;
}

#if HAVE_PMPI_Comm_get_parent
int MPI_Comm_get_parent(MPI_Comm *parent)
{
    if (spawned_by_ductile && ductile_rt.active) {
        /* Ductile's parents are Ductile's business: a process Ductile started
         * into the world has no parent, like one started by mpiexec */
        if (DUCTILE_SHOULD_MONITOR()) ductile_count_call(DUCTILE_FN_MPI_Comm_get_parent);
        *parent = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!DUCTILE_SHOULD_MONITOR()) return PMPI_Comm_get_parent(parent);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_get_parent);
    int ret = PMPI_Comm_get_parent(parent);
    DUCTILE_END(DUCTILE_FN_MPI_Comm_get_parent, 0, 0);
    return ret;
}
#endif

/* ------------------------------------------------------------------ keyvals */

struct keyval {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
    int keyval;
    int freed; /* the program freed the keyval: its attributes cannot be moved any more */
    struct keyval *next;
};
static struct keyval *keyvals;
static pthread_mutex_t keyvals_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set while Ductile moves or strips the program's attributes on this thread:
 * the program's delete callback must not run for a value that lives on. */
static __thread int quiet;

static MPI_Comm program_view(MPI_Comm c) { return c == ductile_world && c != MPI_COMM_NULL ? MPI_COMM_WORLD : c; }

static int tramp_copy(MPI_Comm oldcomm, int kv, void *extra, void *in, void *out, int *flag)
{
    struct keyval *k = extra;
    if (!k->copy) { /* MPI_COMM_NULL_COPY_FN may be a null pointer (MPICH) */
        *flag = 0;
        return MPI_SUCCESS;
    }
    return k->copy(program_view(oldcomm), kv, k->extra, in, out, flag);
}

static int tramp_delete(MPI_Comm comm, int kv, void *val, void *extra)
{
    struct keyval *k = extra;
    if (quiet || !k->del) return MPI_SUCCESS;
    return k->del(program_view(comm), kv, val, k->extra);
}

static int create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del, int *keyval,
                         void *extra, int *tracked)
{
    *tracked = 0;
    struct keyval *k = calloc(1, sizeof *k);
    if (!k) return PMPI_Comm_create_keyval(copy, del, keyval, extra);
    k->copy = copy;
    k->del = del;
    k->extra = extra;
    int ret = PMPI_Comm_create_keyval(tramp_copy, tramp_delete, keyval, k);
    if (ret != MPI_SUCCESS) {
        free(k);
        return ret;
    }
    k->keyval = *keyval;
    pthread_mutex_lock(&keyvals_lock);
    k->next = keyvals;
    keyvals = k;
    pthread_mutex_unlock(&keyvals_lock);
    *tracked = 1;
    return ret;
}

static void keyval_freed(int keyval)
{
    pthread_mutex_lock(&keyvals_lock);
    for (struct keyval *k = keyvals; k; k = k->next)
        if (k->keyval == keyval && !k->freed) {
            k->freed = 1; /* kept: the MPI still calls its trampolines for attributes that remain */
            break;
        }
    pthread_mutex_unlock(&keyvals_lock);
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    int tracked;
    if (!ductile_rt.active) return PMPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
    if (!DUCTILE_SHOULD_MONITOR())
        return create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, &tracked);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_create_keyval);
    int ret = create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, &tracked);
    DUCTILE_END(DUCTILE_FN_MPI_Comm_create_keyval, 0, 0);
    return ret;
}

int MPI_Comm_free_keyval(int *comm_keyval)
{
    int kv = comm_keyval ? *comm_keyval : MPI_KEYVAL_INVALID;
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Comm_free_keyval(comm_keyval);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_free_keyval);
        ret = PMPI_Comm_free_keyval(comm_keyval);
        DUCTILE_END(DUCTILE_FN_MPI_Comm_free_keyval, 0, 0);
    }
    if (ret == MPI_SUCCESS) keyval_freed(kv);
    return ret;
}

/* The MPI-1 names (deprecated, not in the generated set): same callbacks in C. */
#if HAVE_PMPI_Keyval_create
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    int tracked;
    if (!ductile_rt.active) return PMPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state);
    if (!DUCTILE_SHOULD_MONITOR())
        return create_keyval((MPI_Comm_copy_attr_function *)copy_fn, (MPI_Comm_delete_attr_function *)delete_fn,
                             keyval, extra_state, &tracked);
    DUCTILE_BEGIN(DUCTILE_FN_MPI_Keyval_create);
    int ret = create_keyval((MPI_Comm_copy_attr_function *)copy_fn, (MPI_Comm_delete_attr_function *)delete_fn, keyval,
                            extra_state, &tracked);
    DUCTILE_END(DUCTILE_FN_MPI_Keyval_create, 0, 0);
    return ret;
}
#if HAVE_PMPI_Keyval_free
int MPI_Keyval_free(int *keyval)
{
    int kv = keyval ? *keyval : MPI_KEYVAL_INVALID;
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Keyval_free(keyval);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Keyval_free);
        ret = PMPI_Keyval_free(keyval);
        DUCTILE_END(DUCTILE_FN_MPI_Keyval_free, 0, 0);
    }
    if (ret == MPI_SUCCESS) keyval_freed(kv);
    return ret;
}
#endif
#pragma GCC diagnostic pop
#endif

/* ------------------------------------------------------------------ info hints */

/* The hints the program set on MPI_COMM_WORLD (merged over its calls),
 * answered by MPI_Comm_get_info(MPI_COMM_WORLD) after any resize.  They are
 * not applied to a new world: MPI_Comm_set_info is collective over it, and
 * the new processes reach that point in a different order of collectives. */
static MPI_Info world_hints = MPI_INFO_NULL;
static pthread_mutex_t hints_lock = PTHREAD_MUTEX_INITIALIZER;

static void info_merge(MPI_Info dst, MPI_Info src)
{
    int nkeys = 0;
    if (PMPI_Info_get_nkeys(src, &nkeys) != MPI_SUCCESS) return;
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[1024];
        int vlen = 0, flag = 0;
        if (PMPI_Info_get_nthkey(src, i, key) != MPI_SUCCESS) continue;
        if (PMPI_Info_get_valuelen(src, key, &vlen, &flag) != MPI_SUCCESS || !flag || vlen >= (int)sizeof val) continue;
        if (PMPI_Info_get(src, key, (int)sizeof val - 1, val, &flag) == MPI_SUCCESS && flag) PMPI_Info_set(dst, key, val);
    }
}

#if HAVE_PMPI_Comm_set_info && HAVE_PMPI_Comm_get_info
int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    int world = comm == MPI_COMM_WORLD && ductile_world != MPI_COMM_WORLD;
    comm = DUCTILE_COMM_IN(comm);
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Comm_set_info(comm, info);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_set_info);
        ret = PMPI_Comm_set_info(comm, info);
        DUCTILE_END(DUCTILE_FN_MPI_Comm_set_info, 0, 0);
    }
    if (ret == MPI_SUCCESS && world && info != MPI_INFO_NULL) {
        pthread_mutex_lock(&hints_lock);
        if (world_hints == MPI_INFO_NULL) PMPI_Info_create(&world_hints);
        info_merge(world_hints, info);
        pthread_mutex_unlock(&hints_lock);
    }
    return ret;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int world = comm == MPI_COMM_WORLD && ductile_world != MPI_COMM_WORLD;
    comm = DUCTILE_COMM_IN(comm);
    int ret;
    if (!DUCTILE_SHOULD_MONITOR()) {
        ret = PMPI_Comm_get_info(comm, info_used);
    } else {
        DUCTILE_BEGIN(DUCTILE_FN_MPI_Comm_get_info);
        ret = PMPI_Comm_get_info(comm, info_used);
        DUCTILE_END(DUCTILE_FN_MPI_Comm_get_info, 0, 0);
    }
    if (ret == MPI_SUCCESS && world && *info_used != MPI_INFO_NULL) {
        pthread_mutex_lock(&hints_lock);
        if (world_hints != MPI_INFO_NULL) info_merge(*info_used, world_hints);
        pthread_mutex_unlock(&hints_lock);
    }
    return ret;
}
#endif

/* A keyval whose values are not inherited by duplicates (MPI_COMM_NULL_COPY_FN) and are freed
 * with their communicator by a delete callback: per-communicator state (a library's cached
 * duplicate, such as mpi4py's), which describes the old world only. */
static int world_bound(const struct keyval *k)
{
    return (!k->copy || k->copy == MPI_COMM_NULL_COPY_FN) && k->del && k->del != MPI_COMM_NULL_DELETE_FN;
}

/* Move the program's attributes from `from` to `to` (to == MPI_COMM_NULL:
 * only drop them from `from`), with no program callback. */
static void move_attrs(MPI_Comm from, MPI_Comm to)
{
    quiet++;
    pthread_mutex_lock(&keyvals_lock);
    for (struct keyval *k = keyvals; k; k = k->next) {
        if (k->freed) continue;
        void *val = NULL;
        int flag = 0;
        if (PMPI_Comm_get_attr(from, k->keyval, &val, &flag) != MPI_SUCCESS || !flag) continue;
        if (to != MPI_COMM_NULL) PMPI_Comm_set_attr(to, k->keyval, val);
        PMPI_Comm_delete_attr(from, k->keyval);
    }
    pthread_mutex_unlock(&keyvals_lock);
    quiet--;
}

/* ------------------------------------------------------------------ world swap */

void ductile_world_carry(MPI_Comm from, MPI_Comm to)
{
    if (from == to || from == MPI_COMM_NULL || to == MPI_COMM_NULL || from == MPI_COMM_WORLD) return;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(from, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(to, eh);
        PMPI_Errhandler_free(&eh);
    }
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    if (PMPI_Comm_get_name(from, name, &len) == MPI_SUCCESS) PMPI_Comm_set_name(to, name);
    /* attributes: copied to the new world now; dropped from the old one when
     * it is retired or stripped (until then a thread may still read them there) */
    quiet++;
    pthread_mutex_lock(&keyvals_lock);
    for (struct keyval *k = keyvals; k; k = k->next) {
        if (k->freed) continue;
        void *val = NULL;
        int flag = 0;
        if (PMPI_Comm_get_attr(from, k->keyval, &val, &flag) != MPI_SUCCESS || !flag) continue;
        if (world_bound(k)) {
            /* state kept for the old world itself (a cached duplicate of it, as mpi4py's for its
             * pickle-based collectives): deleted with its callback, made again on the new world */
            quiet--;
            PMPI_Comm_delete_attr(from, k->keyval);
            quiet++;
            continue;
        }
        PMPI_Comm_set_attr(to, k->keyval, val); /* replaces a stale value without the delete callback */
    }
    pthread_mutex_unlock(&keyvals_lock);
    quiet--;
}

void ductile_world_strip(MPI_Comm old)
{
    if (old == MPI_COMM_NULL || old == MPI_COMM_WORLD) return;
    move_attrs(old, MPI_COMM_NULL);
}

static MPI_Comm *retired;
static int nretired, capretired;

void ductile_world_retire(MPI_Comm old)
{
    if (old == MPI_COMM_NULL || old == MPI_COMM_WORLD) return;
    if (ductile_rt.thread_level == MPI_THREAD_MULTIPLE) {
        if (nretired == capretired) {
            int cap = capretired ? 2 * capretired : 8;
            MPI_Comm *a = realloc(retired, (size_t)cap * sizeof *a);
            if (a) {
                retired = a;
                capretired = cap;
            }
        }
        if (nretired < capretired) {
            retired[nretired++] = old;
            return;
        }
        /* out of memory: keep it forever rather than free it under another thread */
        return;
    }
    ductile_world_strip(old);
    PMPI_Comm_free(&old);
}

static void free_retired(void)
{
    for (int i = 0; i < nretired; i++) {
        ductile_world_strip(retired[i]);
        PMPI_Comm_free(&retired[i]);
    }
    free(retired);
    retired = NULL;
    nretired = capretired = 0;
}

static void worldid_finalize(MPI_Comm current)
{
    if (current != MPI_COMM_NULL && current != MPI_COMM_WORLD) {
        /* the MPI finalizes the program's world attributes as without Ductile */
        move_attrs(current, MPI_COMM_WORLD);
        PMPI_Comm_free(&current);
    }
    free_retired();
    if (world_hints != MPI_INFO_NULL) PMPI_Info_free(&world_hints);
}

void ductile_world_end(void)
{
    MPI_Comm world = ductile_world;
    ductile_world = MPI_COMM_WORLD;
    worldid_finalize(world); /* the program's attributes go back to the real world; old worlds freed */
    if (ductile_rt.private_comm != MPI_COMM_NULL) PMPI_Comm_free(&ductile_rt.private_comm);
    ductile_rt.active = 0;
}
