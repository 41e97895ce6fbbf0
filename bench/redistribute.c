/* bench/redistribute -- cost of a reconfiguration, split into spawn, merge
 * and transfer, per Ductile method (merge/baseline x col/p2p), next to
 * references measured in the same run:
 *   raw     MPI_Comm_spawn + MPI_Intercomm_merge (no Ductile), then the first,
 *           second and third MPI_Alltoallv of the same pattern between the
 *           parents and the fresh children ("cold" vs "warm"), with and
 *           without preparation (buffers touched before the spawn; one small
 *           exchange after the merge to open the connections);
 *   static  MPI_Alltoallv of the same pattern between already running,
 *           warmed-up ranks (max(NS, ND) processes);
 *   memcpy  every rank copies the bytes it sends elsewhere (in parallel).
 * Prints numbers; it is not a test.
 *
 * usage: bench/redistribute [--full] [--max-mib N] [--pairs 1:2,2:4] [--csv FILE]
 *        bench/redistribute --paper ... | --cycles [--cycle-kib LIST] | --vs-raw (see below;
 *        --paper and --cycles live in bench/redistribute_paper.c)
 *   default sizes 8 and 64 MiB in total (about 2 minutes here); --full adds
 *   256 MiB and 1 GiB.  The launcher and libductile.so come from
 *   $MPIEXEC / $LIBDUCTILE, else from the build's tests/env.sh.
 *   Plot: python3 bench/redistribute-plot.py FILE.csv
 *
 * Internal modes (started by the driver through mpiexec):
 *   --w-static NS ND BYTES | --w-spawn NS ND BYTES PREP | --w-child NS ND BYTES PREP
 *   --w-ductile NS ND BYTES (run with libductile.so preloaded)
 *   --w-cg NS ND BYTES THREAD (the synthetic CG of --paper, libductile.so preloaded)
 *
 * --paper: the MaM RMA paper's evaluation (Section V) on a synthetic CG-like
 * program (see w_cg): for every pair and version (COL, RMA-Lock, RMA-Lockall
 * blocking; COL-NB/WD/T, RMA-Lock-WD/T, RMA-Lockall-WD/T in the background)
 * the redistribution time R, the iterations overlapped N_it, omega (iteration
 * time while redistributing in the background, at the old size / before), alpha (background R /
 * blocking R of the same method) and f(V,P) = R + T_it(ND) x (M - N_it).
 *
 * --cycles: persistent redistribution (DUCTILE_PERSISTENT, docs/rma.md) on the
 * same synthetic CG, everything blocking: three Phase Shifting cycles A ->
 * B -> A (resizes at iterations 5, 9, 13, ...; A:B = 2:4 starts small and
 * spawns, 4:2 starts large and shrinks first), for each blocking method
 * with DUCTILE_PERSISTENT=0, =1, and =1 with DUCTILE_RMA_MEMORY=shared
 * (rma-*), at several sizes.  Per run: R (set-up + transfer, max over
 * processes) and the whole reconfiguration time of the first cycle against
 * the mean of the later ones, and the block size (bytes one source sends
 * one drain, about matrix / (A x B)). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "redistribute.h"

/* ------------------------------------------------------------------ the pattern */

static void block(int64_t n, int p, int r, int64_t *d, int64_t *c)
{
    int64_t q = n / p, m = n % p;
    *c = q + (r < m);
    *d = r * q + (r < m ? r : m);
}

static int64_t isect(int64_t a, int64_t ac, int64_t b, int64_t bc, int64_t *start)
{
    int64_t lo = a > b ? a : b, hi = (a + ac) < (b + bc) ? a + ac : b + bc;
    *start = lo;
    return hi > lo ? hi - lo : 0;
}

/* Alltoallv arrays (in rows) over a communicator of `cs` ranks where old rank
 * i is comm rank i and new rank j is comm rank newoff + j. */
struct pat {
    int cs;
    int *sc, *sd, *rc, *rd; /* bytes */
    int64_t send_b, recv_b, moved_b;
};

static void pattern(struct pat *P, int64_t nrows, int ns, int nd, int cs, int newoff, int me)
{
    P->cs = cs;
    P->sc = calloc(4 * (size_t)cs, sizeof(int));
    P->sd = P->sc + cs;
    P->rc = P->sd + cs;
    P->rd = P->rc + cs;
    P->send_b = P->recv_b = P->moved_b = 0;
    int my_old = me < ns ? me : -1, my_new = (me >= newoff && me - newoff < nd) ? me - newoff : -1;
    int64_t od = 0, oc = 0, nd0 = 0, nc = 0, s;
    if (my_old >= 0) block(nrows, ns, my_old, &od, &oc);
    if (my_new >= 0) block(nrows, nd, my_new, &nd0, &nc);
    for (int j = 0; j < nd && my_old >= 0; j++) {
        int64_t d, c;
        block(nrows, nd, j, &d, &c);
        int64_t k = isect(od, oc, d, c, &s);
        P->sc[newoff + j] = (int)(k * ROWB);
        P->sd[newoff + j] = (int)((s - od) * ROWB);
        if (newoff + j != me) P->moved_b += k * ROWB;
    }
    for (int i = 0; i < ns && my_new >= 0; i++) {
        int64_t d, c;
        block(nrows, ns, i, &d, &c);
        int64_t k = isect(d, c, nd0, nc, &s);
        P->rc[i] = (int)(k * ROWB);
        P->rd[i] = (int)((s - nd0) * ROWB);
    }
    P->send_b = oc * ROWB;
    P->recv_b = nc * ROWB;
}

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *buf(int64_t bytes, int touch)
{
    char *p = malloc((size_t)(bytes ? bytes : 1));
    if (!p) { fprintf(stderr, "redistribute: out of memory (%lld bytes)\n", (long long)bytes); exit(1); }
    if (touch) memset(p, 1, (size_t)bytes);
    return p;
}

static double a2a(const struct pat *P, void *s, void *r, MPI_Comm c)
{
    MPI_Barrier(c);
    double t = now();
    MPI_Alltoallv(s, P->sc, P->sd, MPI_BYTE, r, P->rc, P->rd, MPI_BYTE, c);
    t = now() - t;
    double mx = 0;
    MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, c);
    return mx;
}

/* ------------------------------------------------------------------ workers */

static int w_static(int ns, int nd, int64_t bytes)
{
    int me, cs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &cs);
    struct pat P;
    pattern(&P, bytes / ROWB, ns, nd, cs, 0, me);
    char *s = buf(P.send_b, 1), *r = buf(P.recv_b, 1);
    a2a(&P, s, r, MPI_COMM_WORLD);
    a2a(&P, s, r, MPI_COMM_WORLD);
    double best = 1e30;
    for (int i = 0; i < 3; i++) {
        double t = a2a(&P, s, r, MPI_COMM_WORLD);
        if (t < best) best = t;
    }
    /* memcpy of the bytes each rank sends elsewhere, all ranks at once (warm buffers) */
    char *m = buf(P.moved_b, 1);
    double mc = 1e30;
    for (int i = 0; i < 3; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = now();
        memcpy(m, s, (size_t)P.moved_b);
        t = now() - t;
        double mx;
        MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (mx < mc) mc = mx;
    }
    long long moved = P.moved_b, tot = 0;
    MPI_Reduce(&moved, &tot, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("RES static_a2a=%.6f memcpy=%.6f moved=%lld\n", best, mc, tot);
    free(s); free(r); free(m);
    return 0;
}

/* Parents (prep: 1 touch buffers before the spawn, 2 also a small exchange
 * after the merge) and children of the raw spawn reference. */
static int w_spawn(int ns, int nd, int64_t bytes, int prep, MPI_Comm parent, char *self)
{
    int child = parent != MPI_COMM_NULL;
    double t0 = now(), tspawn = 0, tmerge = 0, tprep = 0;
    MPI_Comm inter = parent, merged;
    int me0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me0);
    int64_t nrows = bytes / ROWB, d, c;
    /* buffers: parents hold an old block and get a new one; the pattern needs the merged rank */
    int my_new_guess = child ? ns + me0 : me0;
    block(nrows, nd, my_new_guess, &d, &c);
    int64_t od = 0, oc = 0;
    if (!child) block(nrows, ns, me0, &od, &oc);
    char *s = buf(oc * ROWB, 1); /* the old block holds data */
    double tp = now();
    char *r = buf(c * ROWB, prep >= 1);
    tprep = now() - tp;
    if (!child) {
        char nds[16], nss[16], bs[32], ps[8];
        snprintf(nss, sizeof nss, "%d", ns);
        snprintf(nds, sizeof nds, "%d", nd);
        snprintf(bs, sizeof bs, "%lld", (long long)bytes);
        snprintf(ps, sizeof ps, "%d", prep);
        char *args[] = {"--w-child", nss, nds, bs, ps, NULL};
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now();
        MPI_Comm_spawn(self, args, nd - ns, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        tspawn = now() - t0;
    }
    double tm = now();
    MPI_Intercomm_merge(inter, child, &merged);
    tmerge = now() - tm;
    int me, cs;
    MPI_Comm_rank(merged, &me);
    MPI_Comm_size(merged, &cs);
    struct pat P;
    pattern(&P, nrows, ns, nd, cs, 0, me);
    double twarm = 0;
    if (prep >= 2) {
        /* open every connection with a small exchange */
        tm = now();
        char sb[64 * 64], rb[64 * 64];
        int n = cs < 64 ? cs : 64;
        MPI_Alltoall(sb, 64 * n / cs, MPI_BYTE, rb, 64 * n / cs, MPI_BYTE, merged);
        twarm = now() - tm;
    }
    double t1 = a2a(&P, s, r, merged);
    double t2 = a2a(&P, s, r, merged);
    double t3 = a2a(&P, s, r, merged);
    double in[3] = {tprep, twarm, tmerge}, out[3];
    MPI_Reduce(in, out, 3, MPI_DOUBLE, MPI_MAX, 0, merged);
    if (me == 0)
        printf("RES raw_spawn=%.6f raw_merge=%.6f raw_first=%.6f raw_second=%.6f raw_third=%.6f prep=%.6f "
               "warm=%.6f\n", tspawn, out[2], t1, t2, t3, out[0], out[1]);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    free(s); free(r);
    return 0;
}

/* A malleable program under Ductile (preloaded): one distributed array. */
static int w_ductile(int ns, int nd, int64_t bytes)
{
    (void)ns; (void)nd;
    int (*reg)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int) = (int (*)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int))dlsym(RTLD_DEFAULT, "EMPI_Register_array");
    void (*wsize)(int, int, int64_t, int64_t *, int64_t *) = (void (*)(int, int, int64_t, int64_t *, int64_t *))dlsym(RTLD_DEFAULT, "EMPI_Get_wsize64");
    void (*gtype)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_type");
    void (*gshared)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_shared");
    void (*gstatus)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_status");
    int (*cp)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ductile_control_point");
    if (!reg || !wsize || !gtype || !gshared || !gstatus || !cp) {
        fprintf(stderr, "redistribute: --w-ductile needs libductile.so preloaded\n");
        return 1;
    }
    int rank, size, type = 0, it = 0, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t nrows = bytes / ROWB, d, c;
    wsize(rank, size, nrows, &d, &c);
    char *a = malloc((size_t)(c ? c : 1) * ROWB);
    if (reg("data", a, MPI_BYTE, nrows, ROWB, 674782 /* EMPI_DISJOINT */, 0) != 0) return 1;
    gtype(&type);
    if (type == 938594 /* EMPI_SPAWNED */) gshared(&it);
    else memset(a, 7, (size_t)c * ROWB);
    for (; it < 2; it++) {
        cp(it);
        gstatus(&status);
        if (status == 787634 /* EMPI_REMOVED */) break;
    }
    return 0;
}

/* ------------------------------------------------------------------ driver (helpers below) */

char mpiexec[2048], libductile[PATH_MAX];

static void load_env(const char *self)
{
    const char *m = getenv("MPIEXEC"), *l = getenv("LIBDUCTILE");
    if (m) snprintf(mpiexec, sizeof mpiexec, "%s", m);
    if (l) snprintf(libductile, sizeof libductile, "%s", l);
    char path[PATH_MAX], tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", self);
    snprintf(path, sizeof path, "%s/../tests/env.sh", dirname(tmp));
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        char *v;
        line[strcspn(line, "\n")] = 0;
        if (!m && strncmp(line, "MPIEXEC=\"", 9) == 0 && (v = line + 9)) {
            v[strcspn(v, "\"")] = 0;
            snprintf(mpiexec, sizeof mpiexec, "%.2000s", v);
        }
        if (!l && strncmp(line, "LIBDUCTILE=\"", 12) == 0 && (v = line + 12)) {
            v[strcspn(v, "\"")] = 0;
            snprintf(libductile, sizeof libductile, "%.2000s", v);
        }
    }
    if (f) fclose(f);
    if (!mpiexec[0]) snprintf(mpiexec, sizeof mpiexec, "mpiexec");
}

/* Run a command; its RES line goes to r (see redistribute.h). */
int run(const char *cmd, struct res *r)
{
    r->line[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024];
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "RES ", 4) == 0) snprintf(r->line, sizeof r->line, "%s", line + 4);
    int rc = pclose(p);
    return rc == 0 && r->line[0] ? 0 : -1;
}


/* The text of a run's JSON report (empty if there is none); the file is removed.
 * The buffer is reused by the next call. */
const char *take_report(const char *path)
{
    static char text[1 << 20];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    unlink(path);
    return text;
}

static char chosen[32]; /* the last run's record: its redistribution (what auto chose) */
static int run_ductile(const char *self, int ns, int nd, long long bytes, const char *method, const char *redist,
                       int prepare, double out[4])
{
    char rep[256], cmd[16384];
    snprintf(rep, sizeof rep, "/tmp/ductile-bench-%d.json", (int)getpid());
    unlink(rep);
    snprintf(cmd, sizeof cmd,
             "env LD_PRELOAD=%s DUCTILE_REPORT=%s DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER=off DUCTILE_SCHEDULE=0:=%d "
             "DUCTILE_RESIZE_METHOD=%s DUCTILE_REDIST=%s DUCTILE_REDIST_PREPARE=%d timeout 300 %s -n %d %s "
             "--w-ductile %d %d %lld 2>/dev/null",
             libductile, rep, nd, method, redist, prepare, mpiexec, ns, self, ns, nd, bytes);
    int rc = system(cmd);
    const char *text = take_report(rep);
    const char *rc0 = strstr(text, "\"reconfigurations\"");
    if (rc != 0 || !rc0 || !strstr(rc0, "\"ok\"")) return -1;
    const char *rd = strstr(rc0, "\"redistribution\"");
    if (rd && (rd = strchr(rd + 16, '"'))) sscanf(rd + 1, "%31[^\"]", chosen);
    rc0 = strstr(rc0, "\"times_s\"");
    if (!rc0) return -1;
    out[0] = res_val(rc0, "spawn");
    out[1] = res_val(rc0, "merge");
    out[2] = res_val(rc0, "transfer");
    out[3] = res_val(rc0, "total");
    return 0;
}


/* ------------------------------------------------------------------ --vs-raw (issue 10, item 7)
 *
 * Side by side in one run, alternated rounds: the whole expansion under
 * Ductile (spawn, merge, plan, transfer: the record's total) against a raw
 * MPI_Comm_spawn + MPI_Intercomm_merge + first MPI_Alltoallv of the same
 * bytes (w_spawn, cold: nothing prepared); and the shrink under Ductile
 * against a warm MPI_Alltoallv of the same pattern among running ranks
 * (w_static).  Medians over the rounds; ratio = Ductile / raw.  --redists
 * col,p2p,auto: one Ductile run per DUCTILE_REDIST in each round. */
int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
    if (n <= 0) return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int run_vs_raw(const char *self, const char *pairs, const char *sizes, int reps, const char *csv,
                      const char *redists)
{
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "ns,nd,mib,round,kind,spawn_s,merge_s,transfer_s,total_s\n");
    printf("mpiexec: %s\nlibductile: %s\nCSV: %s   (%d alternated rounds, medians; seconds)\n\n", mpiexec, libductile,
           csv, reps);
    printf("%-6s %6s  %-34s %8s %8s %9s %8s %7s\n", "pair", "MiB", "what", "spawn", "merge", "transfer", "total", "ratio");
    char pl[256], sl[256];
    snprintf(pl, sizeof pl, "%s", pairs);
    for (char *sp = NULL, *tok = strtok_r(pl, ",", &sp); tok; tok = strtok_r(NULL, ",", &sp)) {
        int ns = 0, nd = 0;
        if (sscanf(tok, "%d:%d", &ns, &nd) != 2 || ns < 1 || nd < 1 || ns == nd) continue;
        snprintf(sl, sizeof sl, "%s", sizes);
        for (char *ss = NULL, *st = strtok_r(sl, ",", &ss); st; st = strtok_r(NULL, ",", &ss)) {
            long mib = atol(st);
            long long bytes = (long long)mib << 20;
            char rl[128], *rn[8], *rs = NULL, ch[8][32] = {{0}};
            int nrd = 0, nr = 0, ndc[8] = {0};
            snprintf(rl, sizeof rl, "%s", redists);
            for (char *t = strtok_r(rl, ",", &rs); t && nrd < 8; t = strtok_r(NULL, ",", &rs)) rn[nrd++] = t;
            double raw[4][64], duc[8][4][64];
            for (int k = 0; k < reps && k < 64; k++) {
                char cmd[16384];
                struct res r;
                if (nd > ns) /* raw: spawn + merge + first Alltoallv, cold */
                    snprintf(cmd, sizeof cmd, "timeout 300 %s -n %d %s --w-spawn %d %d %lld 0 2>/dev/null", mpiexec, ns,
                             self, ns, nd, bytes);
                else /* raw shrink: a warm Alltoallv of the same pattern among running ranks */
                    snprintf(cmd, sizeof cmd, "timeout 300 %s -n %d %s --w-static %d %d %lld 2>/dev/null", mpiexec, ns,
                             self, ns, nd, bytes);
                if (run(cmd, &r) == 0) {
                    if (nd > ns) {
                        raw[0][nr] = res_val(r.line, "raw_spawn");
                        raw[1][nr] = res_val(r.line, "raw_merge");
                        raw[2][nr] = res_val(r.line, "raw_first");
                    } else {
                        raw[0][nr] = raw[1][nr] = 0;
                        raw[2][nr] = res_val(r.line, "static_a2a");
                    }
                    raw[3][nr] = raw[0][nr] + raw[1][nr] + raw[2][nr];
                    fprintf(out, "%d,%d,%ld,%d,raw,%.6f,%.6f,%.6f,%.6f\n", ns, nd, mib, k, raw[0][nr], raw[1][nr],
                            raw[2][nr], raw[3][nr]);
                    nr++;
                } else printf("%d->%d %ld MiB round %d: raw reference failed\n", ns, nd, mib, k);
                for (int q = 0; q < nrd; q++) {
                    double t[4];
                    chosen[0] = 0;
                    if (run_ductile(self, ns, nd, bytes, "merge", rn[q], 1, t) == 0) {
                        for (int j = 0; j < 4; j++) duc[q][j][ndc[q]] = t[j];
                        fprintf(out, "%d,%d,%ld,%d,ductile %s (%s),%.6f,%.6f,%.6f,%.6f\n", ns, nd, mib, k, rn[q], chosen,
                                t[0], t[1], t[2], t[3]);
                        ndc[q]++;
                        snprintf(ch[q], sizeof ch[q], "%s", chosen);
                    } else printf("%d->%d %ld MiB round %d: ductile %s run failed\n", ns, nd, mib, k, rn[q]);
                }
                fflush(out);
            }
            double m[9][4];
            for (int j = 0; j < 4; j++) {
                m[0][j] = median(raw[j], nr);
                for (int q = 0; q < nrd; q++) m[1 + q][j] = median(duc[q][j], ndc[q]);
            }
            printf("%d->%-3d %6ld  %-34s %8.4f %8.4f %9.4f %8.4f\n", ns, nd, mib,
                   nd > ns ? "raw spawn+merge+first Alltoallv" : "raw warm Alltoallv", m[0][0], m[0][1], m[0][2],
                   m[0][3]);
            for (int q = 0; q < nrd; q++) {
                char nm[320];
                snprintf(nm, sizeof nm, "ductile %.40s%s%.31s%s (whole resize)", rn[q], strcmp(rn[q], ch[q]) ? " [" : "",
                         strcmp(rn[q], ch[q]) ? ch[q] : "", strcmp(rn[q], ch[q]) ? "]" : "");
                printf("%-6s %6s  %-34s %8.4f %8.4f %9.4f %8.4f %6.2fx\n", "", "", nm, m[1 + q][0], m[1 + q][1],
                       m[1 + q][2], m[1 + q][3], m[0][3] > 0 ? m[1 + q][3] / m[0][3] : 0);
            }
            fflush(stdout);
        }
    }
    fclose(out);
    return 0;
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) return 1;
    self[sl] = 0;
    if (argc >= 5 && strncmp(argv[1], "--w-", 4) == 0) {
        int provided = 0;
        if (strcmp(argv[1], "--w-cg") == 0 && argc >= 6 && atoi(argv[5]))
            MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided); /* the Threading versions */
        else
            MPI_Init(&argc, &argv);
        int ns = atoi(argv[2]), nd = atoi(argv[3]), rc = 0;
        int64_t bytes = atoll(argv[4]);
        MPI_Comm parent = MPI_COMM_NULL;
        if (strcmp(argv[1], "--w-static") == 0) rc = w_static(ns, nd, bytes);
        else if (strcmp(argv[1], "--w-spawn") == 0 && argc >= 6) rc = w_spawn(ns, nd, bytes, atoi(argv[5]), MPI_COMM_NULL, self);
        else if (strcmp(argv[1], "--w-child") == 0 && argc >= 6) {
            MPI_Comm_get_parent(&parent);
            rc = w_spawn(ns, nd, bytes, atoi(argv[5]), parent, self);
        } else if (strcmp(argv[1], "--w-ductile") == 0) rc = w_ductile(ns, nd, bytes);
        else if (strcmp(argv[1], "--w-cg") == 0) rc = w_cg(ns, nd, bytes, argc >= 6 ? atoi(argv[5]) : 0);
        MPI_Finalize();
        return rc;
    }
    int full = 0, paper = 0, reps = 3, cycles = 0, throttle = 1, vsraw = 0;
    const char *vs_sizes = "64,1024", *redists = "col";
    const char *cycle_kib = "128,1024,8192,65536";
    long max_mib = 64, paper_mib = 64;
    const char *csv = "redistribute.csv", *pairs = "1:2,2:4,4:2,2:3,3:5";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--full") == 0) full = 1, max_mib = 1024;
        else if (strcmp(argv[i], "--max-mib") == 0 && i + 1 < argc) max_mib = atol(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv = argv[++i];
        else if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) pairs = argv[++i];
        else if (strcmp(argv[i], "--paper") == 0) paper = 1;
        else if (strcmp(argv[i], "--paper-mib") == 0 && i + 1 < argc) paper_mib = atol(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cycles") == 0) cycles = 1;
        else if (strcmp(argv[i], "--vs-raw") == 0) vsraw = 1;
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) vs_sizes = argv[++i];
        else if (strcmp(argv[i], "--redists") == 0 && i + 1 < argc) redists = argv[++i];
        else if (strcmp(argv[i], "--no-throttle") == 0) throttle = 0;
        else if (strcmp(argv[i], "--cycle-kib") == 0 && i + 1 < argc) cycle_kib = argv[++i];
        else {
            int help = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
            fprintf(help ? stdout : stderr, "usage: %s [--full] [--max-mib N] [--pairs 1:2,2:4] [--csv FILE]\n"
                            "       %s --paper [--paper-mib N] [--reps N] [--pairs ...] [--csv FILE]: the RMA paper's\n"
                            "         evaluation (R, N_it, omega, alpha, f(V,P) per pair and version) on a synthetic CG\n"
                            "       %s --cycles [--cycle-kib 128,1024,...] [--pairs 2:4,4:2] [--no-throttle] [--csv FILE]:\n"
                            "         persistent redistribution (DUCTILE_PERSISTENT=0/1, DUCTILE_RMA_MEMORY=shared) over\n"
                            "         3 Phase Shifting cycles A -> B -> A per method\n"
                            "       %s --vs-raw [--sizes 64,1024] [--reps N] [--pairs 2:4,4:2] [--redists col,p2p,auto]\n"
                            "         [--csv FILE]: Ductile's\n"
                            "         whole expansion against raw spawn+merge+first Alltoallv, and its shrink against a\n"
                            "         warm Alltoallv, side by side in alternated rounds\n"
                            "  default: 8 and 64 MiB in total; --full: 8, 64, 256 and 1024 MiB\n", argv[0], argv[0], argv[0], argv[0]);
            return help ? 0 : 2;
        }
    }
    (void)full;
    load_env(self);
    if (!libductile[0]) { fprintf(stderr, "redistribute: set LIBDUCTILE to libductile.so\n"); return 2; }
    if (paper) return run_paper(self, pairs, paper_mib, csv, reps < 1 ? 1 : reps);
    if (vsraw) return run_vs_raw(self, strcmp(pairs, "1:2,2:4,4:2,2:3,3:5") == 0 ? "2:4,4:2" : pairs, vs_sizes,
                                 reps < 1 ? 1 : reps, csv, redists);
    if (cycles) return run_cycles(self, strcmp(pairs, "1:2,2:4,4:2,2:3,3:5") == 0 ? "2:4,4:2" : pairs, cycle_kib, csv, throttle);
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "ns,nd,mib,kind,method,spawn_s,merge_s,transfer_s,total_s\n");
    printf("mpiexec: %s\nlibductile: %s\nCSV: %s   (times in seconds; transfer = max over processes)\n\n", mpiexec,
           libductile, csv);
    printf("%-6s %6s  %-22s %8s %8s %9s %8s\n", "pair", "MiB", "method", "spawn", "merge", "transfer", "total");
    long sizes[] = {8, 64, 256, 1024};
    char pl[256];
    snprintf(pl, sizeof pl, "%s", pairs);
    for (char *save = NULL, *tok = strtok_r(pl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int ns = 0, nd = 0;
        if (sscanf(tok, "%d:%d", &ns, &nd) != 2 || ns < 1 || nd < 1 || ns == nd) continue;
        for (int si = 0; si < 4 && sizes[si] <= max_mib; si++) {
            long long bytes = (long long)sizes[si] << 20;
            char cmd[16384];
            struct res r;
#define ROW(kind, m, sp, mg, tr, to)                                                                            \
    do {                                                                                                       \
        printf("%d->%-3d %6ld  %-22s %8.4f %8.4f %9.4f %8.4f\n", ns, nd, sizes[si], m, sp, mg, tr, to);          \
        fprintf(out, "%d,%d,%ld,%s,%s,%.6f,%.6f,%.6f,%.6f\n", ns, nd, sizes[si], kind, m, sp, mg, tr, to);       \
        fflush(stdout);                                                                                        \
    } while (0)
            int w = ns > nd ? ns : nd;
            snprintf(cmd, sizeof cmd, "timeout 300 %s -n %d %s --w-static %d %d %lld 2>/dev/null", mpiexec, w, self,
                     ns, nd, bytes);
            if (run(cmd, &r) == 0) {
                ROW("ref", "memcpy(moved bytes)", 0.0, 0.0, res_val(r.line, "memcpy"), res_val(r.line, "memcpy"));
                ROW("ref", "static warm alltoallv", 0.0, 0.0, res_val(r.line, "static_a2a"), res_val(r.line, "static_a2a"));
            } else printf("%d->%d %ld MiB: static reference failed\n", ns, nd, sizes[si]);
            if (nd > ns) {
                static const char *pn[] = {"raw spawn+merge cold", "raw spawn+merge touched", "raw spawn+merge tch+conn"};
                for (int prep = 0; prep < 3; prep++) {
                    snprintf(cmd, sizeof cmd, "timeout 300 %s -n %d %s --w-spawn %d %d %lld %d 2>/dev/null", mpiexec,
                             ns, self, ns, nd, bytes, prep);
                    if (run(cmd, &r) != 0) { printf("%d->%d: raw spawn reference failed\n", ns, nd); continue; }
                    double sp = res_val(r.line, "raw_spawn"), mg = res_val(r.line, "raw_merge"), t1 = res_val(r.line, "raw_first");
                    ROW("raw", pn[prep], sp, mg, t1, sp + mg + t1);
                    char nm[64];
                    snprintf(nm, sizeof nm, "  (2nd, 3rd a2a; prep)");
                    printf("%-6s %6s  %-22s %8s %8s %9.4f %8.4f  3rd %.4f, touch %.4f, conn %.4f\n", "", "", nm, "",
                           "", res_val(r.line, "raw_second"), res_val(r.line, "raw_second"), res_val(r.line, "raw_third"),
                           res_val(r.line, "prep"), res_val(r.line, "warm"));
                    fprintf(out, "%d,%d,%ld,raw,%s second,0,0,%.6f,%.6f\n", ns, nd, sizes[si], pn[prep],
                            res_val(r.line, "raw_second"), res_val(r.line, "raw_second"));
                }
            }
            static const char *ms[] = {"merge", "baseline"}, *rs[] = {"col", "p2p"};
            for (int mi = 0; mi < 2; mi++)
                for (int ri = 0; ri < 2; ri++)
                    for (int prep = 1; prep >= 0; prep--) {
                        if (prep == 0 && !(mi == 0 && ri == 0 && nd > ns)) continue;
                        double t[4];
                        char nm[64];
                        snprintf(nm, sizeof nm, "ductile %s %s%s", ms[mi], rs[ri], prep ? "" : " noprep");
                        if (run_ductile(self, ns, nd, bytes, ms[mi], rs[ri], prep, t) != 0) {
                            printf("%d->%-3d %6ld  %-22s failed\n", ns, nd, sizes[si], nm);
                            continue;
                        }
                        ROW("ductile", nm, t[0], t[1], t[2], t[3]);
                    }
        }
    }
    fclose(out);
    return 0;
}
