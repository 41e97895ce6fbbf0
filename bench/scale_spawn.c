/* bench/scale_spawn.c -- bench/scale --spawn (issue 25, item 6): the time to
 * start n new processes from n running ones and end with one communicator
 * of all 2n, two ways, in alternated rounds:
 *   single    one MPI_Comm_spawn of n (root 0, all parents), then
 *             MPI_Intercomm_merge (what Ductile's resize does now);
 *   parallel  every parent spawns its share (here one process) on
 *             MPI_COMM_SELF at the same time, merges with it, then the n
 *             groups join pairwise in log2(n) rounds of
 *             MPI_Intercomm_create (the parents' world as the peer
 *             communicator) + MPI_Intercomm_merge (MaM's parallel spawn).
 * Times are from a barrier of the parents to the last parent holding the
 * final communicator, whose size is checked (2n).
 * Workers: --w-sp1 N N 0 (parents, single), --w-spc1 (children),
 *          --w-spk N N 0 (parents, parallel), --w-spck N N G (children of G). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

/* join group `id` (intracomm *m, the parent of group id at rank 0) with the
 * others pairwise; returns the final intracomm */
static MPI_Comm tree_join(MPI_Comm m, int id, int k, MPI_Comm peer)
{
    for (int s = 1; s < k; s *= 2) {
        int partner = -1, high = 0;
        if (id % (2 * s) == 0 && id + s < k) partner = id + s;
        else if (id % (2 * s) == s) partner = id - s, high = 1;
        if (partner < 0) continue;
        MPI_Comm inter, merged;
        MPI_Intercomm_create(m, 0, peer, partner, 100 + s, &inter);
        MPI_Intercomm_merge(inter, high, &merged);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&m);
        m = merged;
        if (high) id -= s;
    }
    return m;
}

int sc_spawn_worker(int argc, char **argv, const char *self)
{
    MPI_Init(&argc, &argv);
    int k = atoi(argv[2]), n = atoi(argv[3]), g = atoi(argv[4]);
    int par = strcmp(argv[1], "--w-spk") == 0 || strcmp(argv[1], "--w-spck") == 0;
    MPI_Comm parent = MPI_COMM_NULL, inter, m, fin;
    MPI_Comm_get_parent(&parent);
    double t0 = 0, tspawn = 0;
    int child = parent != MPI_COMM_NULL, me = 0;
    if (!child) {
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        g = me;
        char a[3][16];
        snprintf(a[0], sizeof a[0], "%d", k);
        snprintf(a[1], sizeof a[1], "%d", n);
        snprintf(a[2], sizeof a[2], "%d", g);
        char *args[] = {par ? "--w-spck" : "--w-spc1", a[0], a[1], a[2], NULL};
        int share = par ? n / k + (g < n % k) : n;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = sc_now();
        if (par && share > 0)
            MPI_Comm_spawn((char *)self, args, share, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
        else if (par) inter = MPI_COMM_NULL;
        else MPI_Comm_spawn((char *)self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        tspawn = sc_now() - t0;
    } else inter = parent;
    if (inter != MPI_COMM_NULL) MPI_Intercomm_merge(inter, child, &m);
    else MPI_Comm_dup(MPI_COMM_SELF, &m);
    fin = par ? tree_join(m, g, k, MPI_COMM_WORLD) : m;
    double total = child ? 0 : sc_now() - t0;
    int size = 0, all = 0;
    MPI_Comm_size(fin, &size);
    MPI_Allreduce(&size, &all, 1, MPI_INT, MPI_MIN, fin); /* every process holds the same communicator */
    if (!child) {
        double in[2] = {tspawn, total}, out[2];
        MPI_Reduce(in, out, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0) printf("RES spawn=%.6f merge=%.6f total=%.6f size=%d\n", out[0], out[1] - out[0], out[1], all);
    }
    sc_print_mem();
    MPI_Comm_free(&fin);
    if (inter != MPI_COMM_NULL) MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}

int sc_spawn_bench(const char *self, const char *counts, int reps, const char *csv)
{
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "mpi,n,round,mode,spawn_s,merge_s,total_s\n");
    printf("%s   mpiexec: %s\nCSV: %s   (n parents start n processes; %d alternated round%s, medians; seconds)\n\n",
           sc_mpiname, sc_mpiexec, csv, reps, reps > 1 ? "s" : "");
    printf("%4s  %-9s %8s %8s %8s   %-9s %8s %8s %8s  %s\n", "n", "single:", "spawn", "merge", "total", "parallel:",
           "spawn", "merge", "total", "single/parallel");
    char cl[256];
    snprintf(cl, sizeof cl, "%s", counts);
    int failed = 0;
    for (char *sp = NULL, *tok = strtok_r(cl, ",", &sp); tok; tok = strtok_r(NULL, ",", &sp)) {
        int n = atoi(tok);
        if (n < 1) continue;
        double v[2][3][64];
        int c[2] = {0, 0};
        for (int k = 0; k < reps && k < 64; k++)
            for (int mode = 0; mode < 2; mode++) {
                char cmd[16384];
                struct sc_run r;
                snprintf(cmd, sizeof cmd, "timeout -k 10 600 %s -n %d %s %s %d %d 0 2>/dev/null", sc_mpiexec, n, self,
                         mode ? "--w-spk" : "--w-sp1", n, n);
                if (sc_exec(cmd, &r) != 0 || (int)res_val(r.res, "size") != 2 * n) {
                    printf("n=%d round %d: %s spawn failed\n", n, k, mode ? "parallel" : "single");
                    failed = 1;
                    continue;
                }
                double s = res_val(r.res, "spawn"), mg = res_val(r.res, "merge"), t = res_val(r.res, "total");
                v[mode][0][c[mode]] = s, v[mode][1][c[mode]] = mg, v[mode][2][c[mode]] = t, c[mode]++;
                fprintf(out, "\"%s\",%d,%d,%s,%.6f,%.6f,%.6f\n", sc_mpiname, n, k, mode ? "parallel" : "single", s, mg,
                        t);
                fflush(out);
            }
        double md[2][3] = {{0}};
        for (int mode = 0; mode < 2; mode++)
            for (int j = 0; j < 3 && c[mode]; j++) {
                double *a = v[mode][j];
                for (int i = 1; i < c[mode]; i++)
                    for (int q = i; q > 0 && a[q] < a[q - 1]; q--) { double x = a[q]; a[q] = a[q - 1]; a[q - 1] = x; }
                md[mode][j] = c[mode] % 2 ? a[c[mode] / 2] : 0.5 * (a[c[mode] / 2 - 1] + a[c[mode] / 2]);
            }
        printf("%4d  %-9s %8.4f %8.4f %8.4f   %-9s %8.4f %8.4f %8.4f  %.2fx\n", n, "", md[0][0], md[0][1], md[0][2], "",
               md[1][0], md[1][1], md[1][2], md[1][2] > 0 ? md[0][2] / md[1][2] : 0);
        fflush(stdout);
    }
    fclose(out);
    return failed;
}
