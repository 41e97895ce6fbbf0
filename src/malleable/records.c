/* records.c -- reconfiguration records (complete on the world's rank 0):
 * filling, failures and refusals, reduced phase times, the hand-over of the
 * history to a new rank 0, and the counters of processes that left. */
#include "engine.h"

double epoch(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

void *grow(void *arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) return arr;
    int nc = *cap ? 2 * *cap : 8;
    while (nc < need) nc *= 2;
    void *p = realloc(arr, (size_t)nc * elem);
    if (!p) {
        fprintf(stderr, "ductile: error: out of memory\n");
        abort();
    }
    *cap = nc;
    return p;
}

void add_inter(MPI_Comm c)
{
    M.inters = grow(M.inters, &M.capinters, M.ninters + 1, sizeof *M.inters);
    M.inters[M.ninters++] = c;
}

void add_keep(MPI_Comm c)
{
    M.keep = grow(M.keep, &M.capkeep, M.nkeep + 1, sizeof *M.keep);
    M.keep[M.nkeep++] = c;
}

void add_duty(MPI_Comm c, const int *ranks, int n)
{
    M.duties = grow(M.duties, &M.capduties, M.nduties + 1, sizeof *M.duties);
    struct duty *d = &M.duties[M.nduties++];
    d->comm = c;
    d->n = n;
    d->ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!d->ranks) abort();
    memcpy(d->ranks, ranks, (size_t)n * sizeof(int));
}

void add_record(const struct report_reconfig *r)
{
    M.hist = grow(M.hist, &M.caphist, M.nhist + 1, sizeof *M.hist);
    M.hist[M.nhist++] = *r;
    if (r->id >= M.next_id) M.next_id = r->id + 1;
    if (ductile_rt.rank == 0) DUCTILE_HOOK_VOID(on_resize_recorded, (r)); /* tell the controller (no-op without one) */
}

const struct report_reconfig *ductile_malleable_history(int *n)
{
    *n = M.nhist;
    return M.hist;
}

const struct report_departed *ductile_malleable_departed(int *n, const struct report_fn **fns,
                                                          const struct report_departed_fns **sum)
{
    *n = M.ndep;
    *fns = M.depfns_off ? NULL : M.depfns;
    *sum = &M.depsum;
    return M.dep;
}

/* A record's total: rank 0's elapsed time, or the sum of its phases when that
 * is longer -- the phases are maxima over ranks (reduce_times), and the
 * slowest rank's transfer may outlast rank 0's view of the whole resize. */
double record_total(const struct report_reconfig *r, double elapsed_rank0)
{
    double phases = r->spawn_s + r->merge_s + r->plan_s + r->transfer_s + r->window_s + r->prepare_s;
    return phases > elapsed_rank0 ? phases : elapsed_rank0;
}

/* Max of the times, sum of the bytes, at `root` of comm. */
void reduce_times(struct xfer_times *t, int root, MPI_Comm comm)
{
    /* one gather (each collective costs milliseconds on an oversubscribed
     * node), the maxima and the sum at the root */
    enum { NV = 8 };
    double in[NV] = {t->plan_s, t->transfer_s, t->window_s, t->prepare_s,
                     (double)t->bytes, t->n_prepared, t->n_reused, t->n_shared};
    int me = -1, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    double *all = me == root ? malloc((size_t)n * NV * sizeof(double)) : NULL;
    if (me == root && !all) n = 0; /* no memory: the root keeps its own times */
    int rc = PMPI_Gather(in, NV, MPI_DOUBLE, all, NV, MPI_DOUBLE, root, comm);
    if (me != root || rc != MPI_SUCCESS || !all) {
        free(all);
        return;
    }
    double out[NV] = {0};
    for (int r = 0; r < n; r++)
        for (int k = 0; k < NV; k++)
            out[k] = k == 4 ? out[k] + all[r * NV + k] : (all[r * NV + k] > out[k] ? all[r * NV + k] : out[k]);
    free(all);
    t->plan_s = out[0];
    t->transfer_s = out[1];
    t->window_s = out[2];
    t->prepare_s = out[3];
    t->bytes = (unsigned long long)out[4];
    t->n_prepared = (int)out[5];
    t->n_reused = (int)out[6];
    t->n_shared = (int)out[7];
}

/* A record's times from the reduced transfer times (the world's new rank 0). */
void note_transfer(struct report_reconfig *r, const struct xfer_times *xt)
{
    r->plan_s = xt->plan_s;
    r->transfer_s = xt->transfer_s;
    r->window_s = xt->window_s;
    r->prepare_s = xt->prepare_s;
    r->bytes_moved = xt->bytes;
    r->shared_memory = xt->n_shared > 0;
    if (M.persistent)
        snprintf(r->persistent, sizeof r->persistent, "%s",
                 xt->n_prepared == 0 && xt->n_reused > 0 ? "reused" : xt->n_prepared + xt->n_reused ? "prepared" : "");
}

#define LIST_PIECE 65536L /* a queued command's list moves in pieces of this many bytes */

/* Bytes in pieces below an int count (a history can outgrow INT_MAX bytes). */
static void send_bytes(const void *p, size_t len, int to, MPI_Comm comm)
{
    for (size_t off = 0; off < len; off += (size_t)1 << 30) {
        size_t k = len - off < ((size_t)1 << 30) ? len - off : (size_t)1 << 30;
        PMPI_Send((const char *)p + off, (int)k, MPI_BYTE, to, TAG_HISTORY, comm);
    }
}

static void recv_bytes(void *p, size_t len, int from, MPI_Comm comm)
{
    for (size_t off = 0; off < len; off += (size_t)1 << 30) {
        size_t k = len - off < ((size_t)1 << 30) ? len - off : (size_t)1 << 30;
        PMPI_Recv((char *)p + off, (int)k, MPI_BYTE, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    }
}

/* History of reconfigurations and the departed processes' counters, the
 * queue of delayed commands and the controller: old rank 0 hands them to the
 * new rank 0 (a departed entry is about 150 bytes; each one's functions only
 * while at most DUCTILE_REPORT_RANKS left).  The controller goes first: from
 * then on its thread takes no new command, so none is lost between the
 * queue's copy and the move. */
void send_history(int to, MPI_Comm comm)
{
    DUCTILE_HOOK_VOID(ctl_send, (to, comm, TAG_CONTROLLER)); /* src/controller/appctl.c */
    /* the queue: up to REQUEST_QUEUE_MAX requests, each its fields then its list (any length) */
    struct resize_request q[REQUEST_QUEUE_MAX];
    int nq_id[2];
    nq_id[0] = request_queue_export(&M.q, q, REQUEST_QUEUE_MAX, &nq_id[1]);
    PMPI_Send(nq_id, 2, MPI_INT, to, TAG_HISTORY, comm);
    for (int k = 0; k < nq_id[0]; k++) {
        long f[6] = {q[k].kind, q[k].value, q[k].iteration, q[k].source, q[k].id, (long)strlen(request_list(&q[k]))};
        PMPI_Send(f, 6, MPI_LONG, to, TAG_HISTORY, comm);
        for (long off = 0; off < f[5]; off += LIST_PIECE) /* in pieces: the receiver may drop it piece by piece */
            PMPI_Send(request_list(&q[k]) + off, (int)(f[5] - off < LIST_PIECE ? f[5] - off : LIST_PIECE), MPI_CHAR, to,
                      TAG_HISTORY, comm);
    }
    resize_request_free(q, nq_id[0]);
    int n[3] = {M.nhist, M.ndep, !M.depfns_off};
    PMPI_Send(n, 3, MPI_INT, to, TAG_HISTORY, comm);
    send_bytes(M.hist, (size_t)n[0] * sizeof *M.hist, to, comm);
    send_bytes(M.dep, (size_t)n[1] * sizeof *M.dep, to, comm);
    send_bytes(&M.depsum, sizeof M.depsum, to, comm);
    if (n[2]) send_bytes(M.depfns, (size_t)n[1] * DUCTILE_FN_COUNT * sizeof *M.depfns, to, comm);
}

void recv_history(int from, MPI_Comm comm)
{
    DUCTILE_HOOK_VOID(ctl_recv, (from, comm, TAG_CONTROLLER));
    int nq_id[2] = {0, 1};
    struct resize_request q[REQUEST_QUEUE_MAX];
    PMPI_Recv(nq_id, 2, MPI_INT, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    if (nq_id[0] < 0 || nq_id[0] > REQUEST_QUEUE_MAX) nq_id[0] = 0; /* never: the same library sent it */
    int nq = 0;
    for (int k = 0; k < nq_id[0]; k++) {
        long f[6];
        PMPI_Recv(f, 6, MPI_LONG, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
        char *l = f[5] > 0 ? malloc((size_t)f[5] + 1) : NULL;
        static char sink[LIST_PIECE]; /* out of memory: the pieces are received and dropped, and the command said lost */
        for (long off = 0; off < f[5]; off += LIST_PIECE)
            PMPI_Recv(l ? l + off : sink, (int)(f[5] - off < LIST_PIECE ? f[5] - off : LIST_PIECE), MPI_CHAR, from,
                      TAG_HISTORY, comm, MPI_STATUS_IGNORE);
        if (f[5] > 0 && !l) {
            ductile_log(0, "out of memory for the list of queued command %ld (%ld bytes): the command is dropped", f[4],
                        f[5]);
            continue;
        }
        if (l) l[f[5]] = '\0';
        q[nq++] = (struct resize_request){(int)f[0], (int)f[1], (int)f[2], (int)f[3], (int)f[4], l};
    }
    request_queue_import(&M.q, q, nq, nq_id[1]);
    int n[3] = {0, 0, 0};
    PMPI_Recv(n, 3, MPI_INT, from, TAG_HISTORY, comm, MPI_STATUS_IGNORE);
    M.hist = grow(M.hist, &M.caphist, n[0], sizeof *M.hist);
    recv_bytes(M.hist, (size_t)n[0] * sizeof *M.hist, from, comm);
    M.nhist = n[0];
    for (int i = 0; i < n[0]; i++)
        if (M.hist[i].id >= M.next_id) M.next_id = M.hist[i].id + 1;
    M.dep = grow(M.dep, &M.capdep, n[1], sizeof *M.dep);
    recv_bytes(M.dep, (size_t)n[1] * sizeof *M.dep, from, comm);
    M.ndep = n[1];
    recv_bytes(&M.depsum, sizeof M.depsum, from, comm);
    M.depfns_off = !n[2];
    if (n[2]) {
        M.depfns = grow(M.depfns, &M.capdepfns, n[1], DUCTILE_FN_COUNT * sizeof *M.depfns);
        recv_bytes(M.depfns, (size_t)n[1] * DUCTILE_FN_COUNT * sizeof *M.depfns, from, comm);
    }
}

/* Up to this many departed processes the report lists each one's functions:
 * DUCTILE_REPORT_RANKS, as for the ranks (src/monitor/report.c). */
static long departed_fns_max(void)
{
    const char *v = getenv("DUCTILE_REPORT_RANKS");
    return v && *v ? strtol(v, NULL, 10) : 256;
}

/* How many more departed processes may list their functions (-1: none may),
 * on the world's rank 0, which holds the list: carried by the decision so
 * that every process of a shrink knows it without a broadcast. */
int departed_fns_room(void)
{
    long r = departed_fns_max() - M.ndep;
    return M.depfns_off || r < 0 ? -1 : r > INT_MAX ? INT_MAX : (int)r;
}

/* What gather_departed reduces, in one reduction with one operation (each
 * collective costs milliseconds on an oversubscribed node): the functions'
 * calls and bytes (sums), times (sums and the largest), and the transfer
 * times (struct xfer_times: maxima, the bytes summed). */
enum { GD_N = DUCTILE_FN_COUNT, GD_NV = 8 };
struct gd_pack {
    uint64_t u[3 * GD_N]; /* calls, bytes sent, bytes received */
    double dsum[GD_N], dmax[GD_N];
    double xt[GD_NV];
};

static void gd_combine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const struct gd_pack *a = in;
    struct gd_pack *b = inout;
    for (int e = 0; e < *len; e++, a++, b++) {
        for (int i = 0; i < 3 * GD_N; i++) b->u[i] += a->u[i];
        for (int i = 0; i < GD_N; i++) {
            b->dsum[i] += a->dsum[i];
            if (a->dmax[i] > b->dmax[i]) b->dmax[i] = a->dmax[i];
        }
        for (int k = 0; k < GD_NV; k++)
            b->xt[k] = k == 4 ? b->xt[k] + a->xt[k] : a->xt[k] > b->xt[k] ? a->xt[k] : b->xt[k];
    }
}

/* The leaving processes (leaving[r] set, or all when leaving is NULL) hand
 * their counters in the report's form to `root`, which appends them to its
 * list of departed processes: their functions combined by one reduction
 * (sums, and the largest single-process time), each one's totals gathered
 * (about 150 bytes each), and each one's functions gathered only while the
 * run's departed processes stay within DUCTILE_REPORT_RANKS: root never holds
 * O(departed x functions) beyond that.  Collective over comm (the old world's
 * private communicator, so that ranks are former ranks); the staying ranks
 * contribute nothing (zeros to the reductions).
 *
 * xt (may be NULL): every process's transfer times, reduced in the same
 * reduction to root (as reduce_times).  room: departed_fns_room() of the
 * world's rank 0 when the resize was decided (struct decision), the same on
 * every process; GATHER_ROOM_ASK: root, holding the list, decides and
 * broadcasts it (one collective more). */
void gather_departed_ex(MPI_Comm comm, int root, const char *leaving, int iteration, struct xfer_times *xt, int room)
{
    enum { N = DUCTILE_FN_COUNT };
    int me = 0, n = 0;
    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &n);
    int leaves = !leaving || leaving[me];
    struct report_departed mine;
    memset(&mine, 0, sizeof mine);
    struct report_fn *fns = calloc(N, sizeof *fns);
    struct gd_pack *pk = calloc(2, sizeof *pk); /* mine, then the result at root */
    if (!fns || !pk) abort();
    if (leaves) {
        ductile_report_snapshot(me, ductile_ticks(), &mine.who, fns);
        report_fn_totals(fns, mine.who.wall_s, &mine.tot);
        mine.left_at_iteration = iteration;
        mine.exited = departing_exit;
        for (int i = 0; i < N; i++) {
            pk->u[3 * i] = fns[i].calls;
            pk->u[3 * i + 1] = fns[i].bytes_sent;
            pk->u[3 * i + 2] = fns[i].bytes_recv;
            pk->dsum[i] = pk->dmax[i] = fns[i].time_s;
        }
    }
    if (xt) {
        double v[GD_NV] = {xt->plan_s, xt->transfer_s, xt->window_s, xt->prepare_s,
                           (double)xt->bytes, xt->n_prepared, xt->n_reused, xt->n_shared};
        memcpy(pk->xt, v, sizeof v);
    }
    size_t fnb = N * sizeof *fns;
    int k = 0, keep = 0;
    for (int r = 0; r < n; r++) k += !leaving || leaving[r];
    if (room != GATHER_ROOM_ASK) keep = room >= k && (size_t)k * (fnb + sizeof mine) < INT_MAX;
    else if (me == root)
        keep = !M.depfns_off && M.ndep + k <= departed_fns_max() && (size_t)k * (fnb + sizeof mine) < INT_MAX;
    if (room == GATHER_ROOM_ASK) PMPI_Bcast(&keep, 1, MPI_INT, root, comm);
    /* one gather: each entry, followed by its functions while they are kept (then through a
     * buffer of at most DUCTILE_REPORT_RANKS x 18 KB at root) */
    int size = (int)(sizeof mine + (keep ? fnb : 0)); /* k x size below INT_MAX: checked with keep */
    int *counts = NULL, *displs = NULL;
    char *one = NULL, *all = NULL;
    if (leaves && keep) {
        one = malloc((size_t)size);
        if (!one) abort();
        memcpy(one, &mine, sizeof mine);
        memcpy(one + sizeof mine, fns, fnb);
    }
    if (me == root) {
        if (!keep) { /* too many for each one's functions: none has them (the sums count them all) */
            free(M.depfns);
            M.depfns = NULL;
            M.capdepfns = 0;
            M.depfns_off = 1;
        }
        M.dep = grow(M.dep, &M.capdep, M.ndep + k, sizeof *M.dep);
        if (keep) M.depfns = grow(M.depfns, &M.capdepfns, M.ndep + k, N * sizeof *M.depfns);
        counts = calloc((size_t)n, sizeof *counts);
        displs = calloc((size_t)n, sizeof *displs);
        if (!counts || !displs || (keep && !(all = malloc((size_t)k * (size_t)size + 1)))) abort();
        for (int r = 0, j = 0; r < n; r++) {
            int l = !leaving || leaving[r];
            counts[r] = l ? size : 0;
            displs[r] = j * size;
            j += l;
        }
    }
    /* the reduction (one element of a type of its own: the MPI cannot cut it into pieces) and the
     * gather at the same time: one collective's wait instead of two */
    MPI_Datatype ty = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int rc = PMPI_Type_contiguous((int)sizeof *pk, MPI_BYTE, &ty);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&ty);
    if (rc == MPI_SUCCESS) rc = PMPI_Op_create(gd_combine, 1, &op);
    if (rc == MPI_SUCCESS) rc = PMPI_Ireduce(pk, pk + 1, 1, ty, op, root, comm, &rq[0]);
    void *dst = me != root ? NULL : keep ? (void *)all : (void *)(M.dep + M.ndep);
    char dummy = 0;
    const void *src = !leaves ? (const void *)&dummy : keep ? (const void *)one : (const void *)&mine;
    PMPI_Igatherv(src, leaves ? size : 0, MPI_BYTE, dst, counts, displs, MPI_BYTE, root, comm, &rq[1]);
    wait_all_asleep(2, rq);
    if (op != MPI_OP_NULL) PMPI_Op_free(&op);
    if (ty != MPI_DATATYPE_NULL) PMPI_Type_free(&ty);
    if (me == root) {
        const struct gd_pack *o = pk + 1;
        if (rc == MPI_SUCCESS) {
            for (int i = 0; i < N; i++) {
                M.depsum.sum[i].calls += o->u[3 * i];
                M.depsum.sum[i].bytes_sent += o->u[3 * i + 1];
                M.depsum.sum[i].bytes_recv += o->u[3 * i + 2];
                M.depsum.sum[i].time_s += o->dsum[i];
                if (o->dmax[i] > M.depsum.tmax[i]) M.depsum.tmax[i] = o->dmax[i];
            }
            if (xt) {
                xt->plan_s = o->xt[0];
                xt->transfer_s = o->xt[1];
                xt->window_s = o->xt[2];
                xt->prepare_s = o->xt[3];
                xt->bytes = (unsigned long long)o->xt[4];
                xt->n_prepared = (int)o->xt[5];
                xt->n_reused = (int)o->xt[6];
                xt->n_shared = (int)o->xt[7];
            }
        }
        for (int j = 0; keep && j < k; j++) {
            memcpy(M.dep + M.ndep + j, all + (size_t)j * size, sizeof mine);
            memcpy(M.depfns + (size_t)(M.ndep + j) * N, all + (size_t)j * size + sizeof mine, fnb);
        }
        M.ndep += k;
    }
    free(one);
    free(all);
    free(fns);
    free(pk);
    free(counts);
    free(displs);
}

void gather_departed(MPI_Comm comm, int root, const char *leaving, int iteration)
{
    gather_departed_ex(comm, root, leaving, iteration, NULL, GATHER_ROOM_ASK);
}

void fill_record(struct report_reconfig *r, int id, int it, int from, int to, int method, int redist, int nb)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->iteration = it;
    r->from = from;
    r->to = to;
    snprintf(r->kind, sizeof r->kind, "%s", to > from ? "expand" : "shrink");
    snprintf(r->method, sizeof r->method, "%s", method == METHOD_BASELINE ? "baseline" : "merge");
    snprintf(r->redist, sizeof r->redist, "%s%s", redist_label[redist >= 0 && redist < 5 ? redist : 0],
             const_label[nb >= 0 && nb < 4 ? nb : 0]);
    r->overlap_it = -1;
    snprintf(r->choice, sizeof r->choice, "setting");
    if (M.thread_refused)
        snprintf(r->reason, sizeof r->reason, "DUCTILE_REDIST_CONSTANT=thread refused: MPI_THREAD_MULTIPLE not "
                 "provided (thread level %d); constant data moved blocking", ductile_rt.thread_level);
    snprintf(r->status, sizeof r->status, "ok");
    r->start_s = ductile_elapsed();
    r->command = M.command;
}

void record_problem(struct report_reconfig *r, const char *status, const char *reason)
{
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    fprintf(stderr, "ductile: resize %d -> %d at iteration %d %s: %s; continuing with %d process%s\n", r->from,
            r->to, r->iteration, status, reason, r->from, r->from == 1 ? "" : "es");
    fflush(stderr);
    add_record(r);
}
