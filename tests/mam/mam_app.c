/* mam_app.c -- a malleable program written against MaM's public API only
 * (MAM.h and its documentation: MAM_Init, MAM_Checkpoint, the user function,
 * MAM_Get_Reconf_Info, MAM_Resume_redistribution, MAM_Data_*,
 * MAM_Set_configuration / _key_configuration / _target_number,
 * MAM_Retrieve_times, MAM_Finalize), in the shape of Proteo's synthetic
 * application: the sources register their data, the targets find it in
 * MaM's registries, the user function hands over what MaM does not manage.
 *
 * Data: x (distributed, variable: updated every iteration from its
 * neighbours, periodic), c (distributed, constant: coefficients), r
 * (replicated, variable: global counters), p (replicated, constant:
 * parameters, int), and the iteration itself (replicated, variable: an int,
 * re-registered with MAM_Data_modify before each reconfiguration, as
 * Proteo's application does).  The user function broadcasts a token from
 * the sources' rank 0 to every target over MaM's communicator (Merge
 * expansions, shrinks and Baseline alike: zombies take part) and checks
 * MAM_Get_Reconf_Info.  Everything is decomposition-independent, so the
 * final checksum (exact: bit patterns) is a static run's.
 *
 * usage: mam_app N ITERS PLAN MODE
 *   PLAN: "it:target,it:target,..." -- at the end of iteration it, ask for
 *         target processes and checkpoint ("" or "-": never; "it:0" checkpoints
 *         without a target, for resizes Ductile schedules itself)
 *   MODE: wait (MAM_WAIT_COMPLETION) or check (MAM_CHECK_COMPLETION: iterate
 *         while MAM_PENDING, then wait)
 * Prints "checksum HEX on P processes, N reconfigurations, failures F" on
 * rank 0, one "zombie ..." line per source that leaves, and FAIL lines. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "MAM.h"

#define K 7   /* replicated counters */
#define K2 5  /* replicated parameters */

static MPI_Comm comm;
static int failures, reconfs, iter, token, user_calls, step;

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            printf("FAIL: " __VA_ARGS__);                                                                              \
            printf("\n");                                                                                              \
            fflush(stdout);                                                                                            \
        }                                                                                                              \
    } while (0)

static void block(size_t n, int rank, int size, size_t *ini, size_t *cnt)
{
    size_t b = n / (size_t)size, rem = n % (size_t)size, r = (size_t)rank;
    *ini = r * b + (r < rem ? r : rem);
    *cnt = b + (r < rem);
}

/* The user function: runs on every source and target when the reconfiguration commits. */
static void user_redistribution(void *args)
{
    int expect_src = *(int *)args; /* sources' size as this process knows it (-1: a new process) */
    mam_user_reconf_t info;
    user_calls++;
    CHECK(MAM_Get_Reconf_Info(&info) == MAM_OK, "MAM_Get_Reconf_Info inside the user function");
    int me = -1, n = 0;
    MPI_Comm_rank(info.comm, &me);
    MPI_Comm_size(info.comm, &n);
    if (info.rank_state != MAM_PROC_NEW_RANK) CHECK(info.numS == expect_src, "numS %d, expected %d", info.numS, expect_src);
    if (info.rank_state == MAM_PROC_NEW_RANK) CHECK(me >= info.numS, "a new rank at %d of the user communicator", me);
    else CHECK(me < info.numS, "a source at %d of the user communicator (%d sources)", me, info.numS);
    /* from the sources' rank 0 to everybody: what MaM does not manage (the zombies pass it on too) */
    int t[2] = {me == 0 ? token : -1, me == 0 ? step + 1 : -1};
    MPI_Bcast(t, 2, MPI_INT, 0, info.comm);
    if (info.rank_state == MAM_PROC_NEW_RANK) {
        token = t[0];
        step = t[1];
    }
    CHECK(t[0] == token, "token %d, expected %d", t[0], token);
    if (info.rank_state == MAM_PROC_ZOMBIE) {
        printf("zombie: source %d of %d leaves (%d targets), failures %d\n", me, info.numS, info.numT, failures);
        fflush(stdout);
    }
    MAM_Resume_redistribution(NULL);
}

static uint64_t mix(double v, uint64_t pos)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t h = (bits ^ (pos * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

/* One iteration: x from its periodic neighbours, weighted by c and p; r counts exactly. */
static void iterate(size_t N, double *x, const double *c, double *r, const int *p)
{
    int rank, size;
    size_t ini, cnt;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    block(N, rank, size, &ini, &cnt);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double from_left = 0, from_right = 0;
    MPI_Sendrecv(&x[cnt - 1], 1, MPI_DOUBLE, right, 1, &from_left, 1, MPI_DOUBLE, left, 1, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&x[0], 1, MPI_DOUBLE, left, 2, &from_right, 1, MPI_DOUBLE, right, 2, comm, MPI_STATUS_IGNORE);
    double *y = malloc(cnt * sizeof *y);
    long long above = 0;
    for (size_t i = 0; i < cnt; i++) {
        double l = i ? x[i - 1] : from_left, rr = i + 1 < cnt ? x[i + 1] : from_right;
        y[i] = 0.5 * x[i] + 0.25 * c[i] * (l + rr) + 0.01 * p[(ini + i) % K2] + 0.001 * r[(ini + i) % K];
        above += y[i] > 1.5;
    }
    memcpy(x, y, cnt * sizeof *y);
    free(y);
    long long all = 0;
    MPI_Allreduce(&above, &all, 1, MPI_LONG_LONG, MPI_SUM, comm);
    r[iter % K] = r[iter % K] * 0.5 + (double)all;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc < 5) {
        fprintf(stderr, "usage: mam_app N ITERS PLAN MODE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t N = (size_t)atol(argv[1]);
    int iters = atoi(argv[2]), wait = strcmp(argv[4], "wait") == 0 ? MAM_WAIT_COMPLETION : MAM_CHECK_COMPLETION;
    int plan_it[16], plan_to[16], nplan = 0;
    for (char *p = argv[3]; *p && *p != '-' && nplan < 16;) {
        plan_it[nplan] = (int)strtol(p, &p, 10);
        if (*p == ':') p++;
        plan_to[nplan++] = (int)strtol(p, &p, 10);
        if (*p == ',') p++;
    }
    int rank, size, src_size = -1;
    comm = MPI_COMM_WORLD;
    token = 4711;
    mam_user_reconf_t dummy;
    int im_child = MAM_Init(0, &comm, argv[0], user_redistribution, &src_size);
    CHECK(MAM_Get_Reconf_Info(&dummy) == MAM_DENIED, "MAM_Get_Reconf_Info outside the user function");
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *x, *c, *r;
    int *p;
    size_t ini, cnt;
    block(N, rank, size, &ini, &cnt);
    if (im_child == MAM_TARGETS) {
        /* MaM registered everything: find it */
        size_t e[2][2], q;
        MPI_Datatype t;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) MAM_Data_get_entries(a, b, &e[a][b]);
        CHECK(e[0][0] == 1 && e[0][1] == 1 && e[1][0] == 2 && e[1][1] == 1, "entries %zu %zu %zu %zu", e[0][0],
              e[0][1], e[1][0], e[1][1]);
        MAM_Data_get_pointer((void **)&x, 0, &q, &t, MAM_DATA_DISTRIBUTED, MAM_DATA_VARIABLE);
        CHECK(q == N && t == MPI_DOUBLE, "x: %zu elements", q);
        MAM_Data_get_pointer((void **)&c, 0, &q, &t, MAM_DATA_DISTRIBUTED, MAM_DATA_CONSTANT);
        CHECK(q == N && t == MPI_DOUBLE, "c: %zu elements", q);
        MAM_Data_get_pointer((void **)&r, 0, &q, &t, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
        CHECK(q == K && t == MPI_DOUBLE, "r: %zu elements", q);
        int *itp;
        MAM_Data_get_pointer((void **)&itp, 1, &q, &t, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
        CHECK(q == 1 && t == MPI_INT, "iteration: %zu elements", q);
        iter = *itp;
        free(itp); /* MaM's buffers are the program's: keep the value in the program's own variable */
        MAM_Data_modify(&iter, 1, 1, MPI_INT, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
        MAM_Data_get_pointer((void **)&p, 0, &q, &t, MAM_DATA_REPLICATED, MAM_DATA_CONSTANT);
        CHECK(q == K2 && t == MPI_INT, "p: %zu elements", q);
        CHECK(token == 1000 + step - 1 && user_calls == 1, "new process: token %d at step %d, %d user calls", token, step,
              user_calls);
        reconfs = 1;
    } else {
        x = malloc((cnt ? cnt : 1) * sizeof *x);
        c = malloc((cnt ? cnt : 1) * sizeof *c);
        r = calloc(K, sizeof *r);
        p = malloc(K2 * sizeof *p);
        for (size_t i = 0; i < cnt; i++) {
            size_t g = ini + i;
            x[i] = (double)(g % 17) * 0.25 + 1.0;
            c[i] = 1.0 / (double)(1 + g % 13);
        }
        for (int k = 0; k < K2; k++) p[k] = 3 + k;
        MAM_Data_add(x, NULL, N, MPI_DOUBLE, MAM_DATA_DISTRIBUTED, MAM_DATA_VARIABLE);
        MAM_Data_add(c, NULL, N, MPI_DOUBLE, MAM_DATA_DISTRIBUTED, MAM_DATA_CONSTANT);
        size_t idx = 99;
        MAM_Data_add(r, &idx, K, MPI_DOUBLE, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
        CHECK(idx == 0, "index %zu", idx);
        MAM_Data_add(&iter, &idx, 1, MPI_INT, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
        CHECK(idx == 1, "index %zu", idx);
        MAM_Data_add(p, NULL, K2, MPI_INT, MAM_DATA_REPLICATED, MAM_DATA_CONSTANT);
    }
    for (; iter < iters; iter++) {
        iterate(N, x, c, r, p);
        if (step < nplan && plan_it[step] <= iter) {
            /* the reconfiguration: as Proteo's application, configure, register the iteration again, checkpoint */
            int state = MAM_NOT_STARTED, req;
            MPI_Comm_size(comm, &size);
            src_size = size;
            token = 1000 + step;
            MAM_Set_configuration(-1, MAM_STRAT_SPAWN_CLEAR, -1, -1, -1);
            if (plan_to[step] > 0) {
                if (step % 2) MAM_Set_key_configuration(MAM_NUM_TARGETS, plan_to[step], &req);
                else req = MAM_Set_target_number((unsigned)plan_to[step]);
                CHECK(req == plan_to[step], "target number %d: %d", plan_to[step], req);
            }
            iter++; /* the next iteration: what the targets continue from */
            MAM_Data_modify(&iter, 1, 1, MPI_INT, MAM_DATA_REPLICATED, MAM_DATA_VARIABLE);
            int w = wait, limit = step + 1 < nplan && plan_it[step + 1] < iters ? plan_it[step + 1] : iters;
            MAM_Checkpoint(&state, w, user_redistribution, &src_size);
            while (state == MAM_PENDING) {
                /* the sources go on at the old size while constant data moves, as Proteo's application,
                 * until the next reconfiguration is due: then they wait */
                CHECK(wait == MAM_CHECK_COMPLETION, "MAM_PENDING after MAM_WAIT_COMPLETION");
                if (iter < limit) iterate(N, x, c, r, p), iter++;
                else w = MAM_WAIT_COMPLETION;
                MAM_Checkpoint(&state, w, user_redistribution, &src_size);
            }
            iter--;
            CHECK(state == MAM_COMPLETED || (state == MAM_NOT_STARTED && getenv("DUCTILE_TEST_FAIL")),
                  "state %d after the checkpoint of iteration %d", state, iter);
            if (state == MAM_COMPLETED) {
                reconfs++;
                size_t q;
                MPI_Datatype t;
                double tm[6] = {-1, -1, -1, -1, -1, -1};
                MAM_Retrieve_times(&tm[0], &tm[1], &tm[2], &tm[3], &tm[4], &tm[5]);
                CHECK(tm[5] > 0 && tm[0] >= 0 && tm[1] >= 0 && tm[2] >= 0 && tm[3] >= 0 && tm[4] >= 0,
                      "times %g %g %g %g %g %g", tm[0], tm[1], tm[2], tm[3], tm[4], tm[5]);
                /* the new buffers: the old ones are the program's to free (MaM's rule) */
                double *nx, *nc;
                MAM_Data_get_pointer((void **)&nx, 0, &q, &t, MAM_DATA_DISTRIBUTED, MAM_DATA_VARIABLE);
                MAM_Data_get_pointer((void **)&nc, 0, &q, &t, MAM_DATA_DISTRIBUTED, MAM_DATA_CONSTANT);
                if (nx != x) free(x);
                if (nc != c) free(c);
                x = nx;
                c = nc;
                MPI_Comm_size(comm, &size);
                CHECK(plan_to[step] <= 0 || size == plan_to[step], "size %d after the reconfiguration to %d", size,
                      plan_to[step]);
            }
            step++;
        }
    }
    uint64_t h = 0, tot = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    block(N, rank, size, &ini, &cnt);
    for (size_t i = 0; i < cnt; i++) h += mix(x[i], ini + i) + mix(c[i], N + ini + i);
    if (rank == 0)
        for (int k = 0; k < K; k++) h += mix(r[k], 2 * N + (size_t)k);
    int f = failures, allf = 0, maxr = 0;
    MPI_Allreduce(&h, &tot, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(&f, &allf, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce(&reconfs, &maxr, 1, MPI_INT, MPI_MAX, comm);
    if (rank == 0)
        printf("checksum %016llx on %d processes, %d reconfigurations, failures %d\n", (unsigned long long)tot, size,
               maxr, allf);
    MAM_Finalize();
    free(x);
    free(c);
    free(r);
    free(p);
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
