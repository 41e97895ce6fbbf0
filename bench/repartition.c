/* repartition.c -- seed 003's experiment on Ductile's patch sets
 * (EMPI_Register_patches): a global grid block-distributed over the
 * processes is repartitioned onto an imposed patch grid with the greedy and
 * the balanced placement and the per-patch and per-rank schemes (and auto),
 * REPS times each; every element is checked.  Prints one CSV line per rank,
 * repetition and configuration (rank 0 gathers them):
 *   placement,scheme,chosen,rep,rank,patches,elements,bytes_sent,bytes_copied,messages,time_s
 * and a summary per configuration on stderr (slowest rank, bytes, messages,
 * load imbalance).  bench/repartition-plot.py draws the per-rank box plots
 * (seed 003, Fig. 5) and the load.
 *
 * usage: mpiexec -n P repartition [NDIMS G PATCH REPS [greedy|balanced|both] [patch|rank|auto|all]]
 *        mpiexec -n P repartition --resize ITERS NDIMS G PATCH greedy|balanced patch|rank|auto
 *          (malleable mode, for tests: repartition once, then ITERS control points; resizes from
 *          DUCTILE_SCHEDULE; after each the patches are checked element by element and the
 *          balanced placement's counts; prints "FINAL size=N ok" or FAIL lines) */
#include <mpi.h>
#include <empi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nd_, g_[3];

static double value(int64_t i, int64_t j, int64_t k) { return (double)((i * g_[1] + j) * g_[2] + k); }

static void fill_block(const char *id)
{
    EMPI_Block b;
    if (EMPI_Get_patch_block(id, &b) != 0) return;
    double *a = b.addr;
    size_t q = 0;
    for (int i = 0; i < b.subsizes[0]; i++)
        for (int j = 0; j < b.subsizes[1]; j++)
            for (int k = 0; k < b.subsizes[2]; k++) a[q++] = value(b.starts[0] + i, b.starts[1] + j, b.starts[2] + k);
}

/* every element of my patches, the total count, and the balanced counts */
static int check(const char *id, int placement, int size, int rank, const char *when)
{
    int n, bad = 0;
    EMPI_Patch *p;
    EMPI_Get_patches(id, &n, &p);
    int64_t elems = 0;
    for (int x = 0; x < n; x++) {
        const double *a = p[x].addr;
        size_t q = 0;
        for (int i = 0; i < p[x].size[0]; i++)
            for (int j = 0; j < p[x].size[1]; j++)
                for (int k = 0; k < p[x].size[2]; k++, q++)
                    if (a[q] != value(p[x].lo[0] + i, p[x].lo[1] + j, p[x].lo[2] + k) && !bad) {
                        printf("FAIL: %s: rank %d: patch %d element (%d,%d,%d) is %g\n", when, rank, p[x].id, i, j, k, a[q]);
                        bad = 1;
                    }
        elems += (int64_t)p[x].size[0] * p[x].size[1] * p[x].size[2];
    }
    int64_t tot = 0;
    int m = 0;
    MPI_Allreduce(&elems, &tot, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &m, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (tot != (int64_t)g_[0] * g_[1] * g_[2]) {
        if (rank == 0) printf("FAIL: %s: %lld elements in all\n", when, (long long)tot);
        bad = 1;
    }
    if (placement == EMPI_PLACE_BALANCED && (n < m / size || n > m / size + 1)) {
        printf("FAIL: %s: balanced: rank %d holds %d of %d patches on %d processes\n", when, rank, n, m, size);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, resize_iters = -1, a = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "--resize") == 0) { resize_iters = atoi(argv[2]); a = 3; }
    nd_ = argc > a ? atoi(argv[a]) : 3;
    int G = argc > a + 1 ? atoi(argv[a + 1]) : 96, P = argc > a + 2 ? atoi(argv[a + 2]) : 20;
    int reps = resize_iters >= 0 ? 1 : argc > a + 3 ? atoi(argv[a + 3]) : 5;
    const char *pl = argc > a + (resize_iters >= 0 ? 3 : 4) ? argv[a + (resize_iters >= 0 ? 3 : 4)] : "both";
    const char *sc = argc > a + (resize_iters >= 0 ? 4 : 5) ? argv[a + (resize_iters >= 0 ? 4 : 5)] : "all";
    int gs[3], ps[3];
    for (int d = 0; d < 3; d++) {
        g_[d] = d < nd_ ? G : 1;
        gs[d] = G;
        ps[d] = P;
    }
    const char *pn[] = {"", "greedy", "balanced"}, *sn[] = {"auto", "patch", "rank"};
    if (resize_iters >= 0) {
        int placement = strcmp(pl, "greedy") == 0 ? EMPI_PLACE_GREEDY : EMPI_PLACE_BALANCED;
        int scheme = strcmp(sc, "patch") == 0 ? EMPI_COMM_PER_PATCH : strcmp(sc, "rank") == 0 ? EMPI_COMM_PER_RANK : EMPI_COMM_AUTO;
        int type, it = 0, status = EMPI_ACTIVE, bad = 0;
        EMPI_Register_patches("grid", MPI_DOUBLE, nd_, gs, ps, placement, scheme);
        EMPI_Get_type(&type);
        if (type == EMPI_SPAWNED) {
            EMPI_Get_shared(&it);
            bad |= check("grid", placement, size, rank, "after a resize (spawned)");
        } else {
            fill_block("grid");
            EMPI_Repartition("grid");
            bad |= check("grid", placement, size, rank, "after the first repartition");
        }
        for (; it < resize_iters; it++) {
            EMPI_Monitor_init();
            int old = size;
            EMPI_Monitor_end(&rank, &size, it, resize_iters, NULL, NULL, NULL, NULL, NULL, argv + 1, argv[0]);
            EMPI_Get_status(&status);
            if (status == EMPI_REMOVED) break;
            if (size != old) {
                EMPI_Patch_stats st;
                EMPI_Get_patch_stats("grid", &st);
                bad |= check("grid", placement, size, rank, "after a resize");
                if (rank == 0)
                    printf("resize %d->%d at %d: scheme %s%s%s\n", old, size, it, sn[st.scheme],
                           st.reason[0] ? ": " : "", st.reason);
            }
        }
        if (status != EMPI_REMOVED) {
            int any = 0;
            MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (rank == 0) printf("FINAL size=%d %s\n", size, any ? "FAIL" : "ok");
        }
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) printf("placement,scheme,chosen,rep,rank,patches,elements,bytes_sent,bytes_copied,messages,time_s\n");
    int bad = 0;
    for (int placement = 1; placement <= 2; placement++) {
        if (strcmp(pl, "both") != 0 && strcmp(pl, pn[placement]) != 0) continue;
        for (int scheme = 0; scheme <= 2; scheme++) {
            if (strcmp(sc, "all") != 0 && strcmp(sc, sn[scheme]) != 0) continue;
            double tmax = 0;
            long long bytes = 0, msgs = 0;
            int64_t emax = 0, esum = 0;
            for (int r = 0; r < reps; r++) {
                EMPI_Register_patches("grid", MPI_DOUBLE, nd_, gs, ps, placement, scheme);
                fill_block("grid");
                MPI_Barrier(MPI_COMM_WORLD);
                EMPI_Repartition("grid");
                bad |= check("grid", placement, size, rank, "repartition");
                EMPI_Patch_stats st;
                EMPI_Get_patch_stats("grid", &st);
                double row[7] = {st.patches, (double)st.elements, (double)st.bytes_sent, (double)st.bytes_copied,
                                 st.messages, st.time_s, st.scheme};
                double *all = rank == 0 ? malloc(7 * (size_t)size * sizeof *all) : NULL;
                MPI_Gather(row, 7, MPI_DOUBLE, all, 7, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                if (rank == 0) {
                    double t = 0;
                    for (int k = 0; k < size; k++) {
                        double *w = all + 7 * k;
                        printf("%s,%s,%s,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%.9f\n", pn[placement], sn[scheme],
                               sn[(int)w[6]], r, k, w[0], w[1], w[2], w[3], w[4], w[5]);
                        if (w[5] > t) t = w[5];
                        bytes += (long long)w[2];
                        msgs += (long long)w[4];
                        if (r == 0) { esum += (int64_t)w[1]; if ((int64_t)w[1] > emax) emax = (int64_t)w[1]; }
                    }
                    tmax += t;
                    if (r == 0 && scheme == 0 && st.reason[0]) fprintf(stderr, "# auto (%s): %s\n", pn[placement], st.reason);
                }
                free(all);
            }
            if (rank == 0)
                fprintf(stderr, "# %-8s %-5s P=%d: slowest rank %.6f s (mean over %d), %.0f bytes and %.0f messages per "
                                "repartition, load max/mean %.2f\n", pn[placement], sn[scheme], size, tmax / reps, reps,
                        (double)bytes / reps, (double)msgs / reps, esum ? (double)emax * size / (double)esum : 0);
        }
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) fprintf(stderr, "# check: %s\n", any ? "FAIL" : "every element ok");
    MPI_Finalize();
    return any;
}
