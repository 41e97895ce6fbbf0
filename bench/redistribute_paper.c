/* redistribute_paper.c -- bench/redistribute's --paper (the MaM RMA paper's
 * evaluation on a synthetic CG: R, N_it, omega, alpha, f(V,P) per pair and
 * version) and --cycles (persistent redistribution over Phase Shifting
 * cycles): their worker (w_cg, run under Ductile) and their drivers.  The
 * rest of the benchmark, and the description of both modes, is in
 * bench/redistribute.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "redistribute.h"

/* ------------------------------------------------------------------ the paper's evaluation (--paper)
 *
 * A synthetic CG-like malleable program under Ductile (preloaded): a large
 * constant matrix (EMPI_CONSTANT, MIB MiB in rows of ROWB bytes) and three
 * variable vectors; per iteration a compute stage (one pass over my matrix
 * block, like a matrix-vector product), two small MPI_Allreduce and one
 * MPI_Allgatherv of the vector, then a control point.  One resize NS -> ND at
 * iteration 5.  Rank 0 prints the iteration times before, during (constant
 * data still moving: ductile_constant_pending()) and after the background
 * transfer. */
#define CG_ITERS 40
#define CG_RESIZE_AT 5
#define CG_VEC 200000 /* vector elements (doubles) */

int w_cg(int ns, int nd, int64_t bytes, int thread)
{
    (void)ns; (void)nd; (void)thread;
    int (*reg)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int) = (int (*)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int))dlsym(RTLD_DEFAULT, "EMPI_Register_array");
    void (*wsize)(int, int, int64_t, int64_t *, int64_t *) = (void (*)(int, int, int64_t, int64_t *, int64_t *))dlsym(RTLD_DEFAULT, "EMPI_Get_wsize64");
    void (*gtype)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_type");
    void (*gshared)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_shared");
    void (*gstatus)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_status");
    void *(*gaddr)(const char *) = (void *(*)(const char *))dlsym(RTLD_DEFAULT, "EMPI_Get_addr");
    int (*cp)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ductile_control_point");
    int (*pend)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "ductile_constant_pending");
    void (*giter)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_iteration");
    void *(*emalloc)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "EMPI_malloc");
    if (!reg || !wsize || !gtype || !gshared || !gstatus || !cp || !pend || !gaddr || !giter || !emalloc) {
        fprintf(stderr, "redistribute: --w-cg needs libductile.so preloaded\n");
        return 1;
    }
    int rank, size, type = 0, it = 0, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t nrows = bytes / ROWB, d, c, vd, vc;
    wsize(rank, size, nrows, &d, &c);
    char *a = emalloc((size_t)(c ? c : 1) * ROWB); /* Ductile's memory, as in examples/jacobi.c */
    if (reg("matrix", a, MPI_BYTE, nrows, ROWB, 674782 /* EMPI_DISJOINT */, 1 /* EMPI_CONSTANT */) != 0) return 1;
    wsize(rank, size, CG_VEC, &vd, &vc);
    double *v[3];
    static const char *vn[3] = {"x", "r", "p"};
    for (int k = 0; k < 3; k++) {
        v[k] = emalloc((size_t)(vc ? vc : 1) * sizeof(double));
        if (reg(vn[k], v[k], MPI_DOUBLE, CG_VEC, 1, 674782, 0) != 0) return 1;
    }
    gtype(&type);
    if (type == 938594 /* EMPI_SPAWNED */) gshared(&it);
    else {
        memset(a, 3, (size_t)c * ROWB);
        for (int k = 0; k < 3; k++)
            for (int64_t i = 0; i < vc; i++) v[k][i] = (double)(vd + i);
    }
    double *full = malloc(CG_VEC * sizeof(double));
    int *cnt = malloc(64 * sizeof(int)), *dsp = malloc(64 * sizeof(int));
    double tb = 0, td = 0, ta = 0;
    int nb = 0, ndur = 0, na = 0, was_pending = 0;
    int crank = rank, csize = size; /* the guarantee: my matrix buffer holds my block at the size the world reports */
    for (; it < CG_ITERS; it++) {
        double t0 = now();
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        wsize(rank, size, nrows, &d, &c);
        wsize(rank, size, CG_VEC, &vd, &vc);
        for (int k = 0; k < 3; k++) v[k] = gaddr(vn[k]);
        /* compute: one pass over my matrix block (the old block while it is still moving) */
        const unsigned char *m = gaddr("matrix");
        int64_t md = 0, mc = 0;
        if (crank >= 0) wsize(crank, csize, nrows, &md, &mc); /* old block while the new one is still moving */
        unsigned long sum = 0;
        for (int64_t i = 0; i < mc * ROWB; i += 64) sum += m[i];
        for (int64_t i = 0; i < vc; i++) v[0][i] = v[0][i] * 0.5 + v[1][i] * 0.25 + (double)(sum & 1);
        double dots[2] = {0, 0}, g[2];
        for (int64_t i = 0; i < vc; i++) { dots[0] += v[0][i] * v[1][i]; dots[1] += v[2][i] * v[2][i]; }
        MPI_Allreduce(dots, g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(dots + 1, g + 1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int r = 0; r < size && size <= 64; r++) {
            int64_t dd, cc;
            wsize(r, size, CG_VEC, &dd, &cc);
            cnt[r] = (int)cc;
            dsp[r] = (int)dd;
        }
        MPI_Allgatherv(v[0], (int)vc, MPI_DOUBLE, full, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
        int r0 = rank, s0 = size;
        int resized = cp(it);
        gstatus(&status);
        if (status == 787634 /* EMPI_REMOVED */) break;
        giter(&it); /* a standby process comes back later (DUCTILE_PERSISTENT) */
        double t = now() - t0;
        int p = pend();
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        (void)r0;
        (void)s0;
        crank = rank, csize = size; /* pending: still the old size (the switch comes with the data) */
        if (it < CG_RESIZE_AT && it > 0) tb += t, nb++;
        else if (it > CG_RESIZE_AT && (p || was_pending) ) td += t, ndur++;
        else if (it > CG_RESIZE_AT + 2 && !p && !resized) ta += t, na++;
        was_pending = p;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (status != 787634 && rank == 0)
        printf("RES t_base=%.6f t_during=%.6f t_after=%.6f n_during=%d\n", nb ? tb / nb : 0, ndur ? td / ndur : 0,
               na ? ta / na : 0, ndur);
    free(full); free(cnt); free(dsp);
    return 0;
}


/* The paper's versions (Section V): blocking COL / RMA-Lock / RMA-Lockall
 * (with the reusable window, and RMA-Lockall with a window per array as in
 * the paper), and the background ones (NB, WD, T). */
static const struct { const char *redist, *cons, *window, *name; int thread; } versions[] = {
    {"col", "blocking", "reuse", "COL", 0},
    {"rma-lock", "blocking", "reuse", "RMA-Lock", 0},
    {"rma-lockall", "blocking", "reuse", "RMA-Lockall", 0},
    {"rma-lockall", "blocking", "create", "RMA-Lockall (window/array)", 0},
    {"col", "nb", "reuse", "COL-NB", 0},
    {"col", "wd", "reuse", "COL-WD", 0},
    {"col", "thread", "reuse", "COL-T", 1},
    {"rma-lock", "wd", "reuse", "RMA-Lock-WD", 0},
    {"rma-lock", "thread", "reuse", "RMA-Lock-T", 1},
    {"rma-lockall", "wd", "reuse", "RMA-Lockall-WD", 0},
    {"rma-lockall", "thread", "reuse", "RMA-Lockall-T", 1},
};
#define NVERS ((int)(sizeof versions / sizeof versions[0]))

struct pres {
    int ok, n_it;
    int by_col; /* one-sided version whose constant data moved by the collective (Open MPI 4, docs/rma.md) */
    double r, window, transfer, bg, t_base, t_during, t_after;
};

static int run_cg(const char *self, int ns, int nd, long long bytes, int v, struct pres *o)
{
    char rep[256], cmd[16384];
    memset(o, 0, sizeof *o);
    snprintf(rep, sizeof rep, "/tmp/ductile-bench-cg-%d.json", (int)getpid());
    unlink(rep);
    snprintf(cmd, sizeof cmd,
             "env LD_PRELOAD=%s DUCTILE_REPORT=%s DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER=off DUCTILE_SCHEDULE=%d:=%d "
             "DUCTILE_REDIST=%s DUCTILE_REDIST_CONSTANT=%s DUCTILE_RMA_WINDOW=%s timeout 300 %s -n %d %s "
             "--w-cg %d %d %lld %d 2>/dev/null",
             libductile, rep, CG_RESIZE_AT, nd, versions[v].redist, versions[v].cons, versions[v].window, mpiexec, ns,
             self, ns, nd, bytes, versions[v].thread);
    struct res r;
    int rc = run(cmd, &r);
    const char *text = take_report(rep);
    const char *rc0 = strstr(text, "\"reconfigurations\"");
    if (rc != 0 || !rc0 || !strstr(rc0, "\"ok\"")) return -1;
    const char *ts = strstr(rc0, "\"times_s\"");
    if (!ts) return -1;
    o->transfer = res_val(ts, "transfer");
    o->window = res_val(ts, "window");
    o->bg = res_val(ts, "background");
    const char *ov = strstr(rc0, "\"overlapped_iterations\"");
    o->n_it = ov ? atoi(ov + strlen("\"overlapped_iterations\"") + 1) : 0;
    if (o->n_it < 0) o->n_it = 0;
    o->r = o->transfer + o->window + (strcmp(versions[v].cons, "blocking") != 0 ? o->bg : 0);
    o->by_col = strstr(rc0, "by the collective") != NULL;
    o->t_base = res_val(r.line, "t_base");
    o->t_during = res_val(r.line, "t_during");
    o->t_after = res_val(r.line, "t_after");
    o->ok = 1;
    return 0;
}

int run_paper(const char *self, const char *pairs, long mib, const char *csv, int reps)
{
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "ns,nd,mib,version,window_s,transfer_s,R_s,N_it,omega,alpha,f_s,t_base_s,t_during_s,t_after_s\n");
    printf("mpiexec: %s\nlibductile: %s\nCSV: %s\nsynthetic CG: constant matrix %ld MiB, 3 variable vectors of %d "
           "doubles, resize at iteration %d; median of %d runs\n",
           mpiexec, libductile, csv, mib, CG_VEC, CG_RESIZE_AT, reps);
    char pl[256];
    snprintf(pl, sizeof pl, "%s", pairs);
    for (char *save = NULL, *tok = strtok_r(pl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int ns = 0, nd = 0;
        if (sscanf(tok, "%d:%d", &ns, &nd) != 2 || ns < 1 || nd < 1 || ns == nd) continue;
        struct pres P[NVERS];
        for (int v = 0; v < NVERS; v++) {
            struct pres runs[9];
            int k = 0;
            for (int i = 0; i < reps && i < 9; i++)
                if (run_cg(self, ns, nd, (long long)mib << 20, v, &runs[k]) == 0) k++;
            memset(&P[v], 0, sizeof P[v]);
            if (!k) continue;
            /* the median run by R */
            for (int i = 0; i < k; i++)
                for (int j = i + 1; j < k; j++)
                    if (runs[j].r < runs[i].r) { struct pres t = runs[i]; runs[i] = runs[j]; runs[j] = t; }
            P[v] = runs[k / 2];
        }
        int mx = 0;
        for (int v = 0; v < NVERS; v++)
            if (P[v].ok && P[v].n_it > mx) mx = P[v].n_it;
        double t_nd = P[0].ok ? P[0].t_after : 0; /* T_it(ND): COL, after the resize */
        printf("\n%d -> %d, %ld MiB constant: M = %d, T_it(ND) = %.4f s\n", ns, nd, mib, mx, t_nd);
        printf("  %-27s %8s %9s %8s %5s %7s %7s %8s %8s\n", "version", "window", "transfer", "R", "N_it", "omega",
               "alpha", "f(V,P)", "vs COL");
        double fcol = 0;
        int any_by_col = 0;
        for (int v = 0; v < NVERS; v++) {
            if (!P[v].ok) { printf("  %-27s failed\n", versions[v].name); continue; }
            char name[64];
            snprintf(name, sizeof name, "%s%s", versions[v].name, P[v].by_col ? " *" : "");
            any_by_col |= P[v].by_col;
            int bg = strcmp(versions[v].cons, "blocking") != 0;
            /* overlapped iterations run at the old size: omega against the iteration time before the resize */
            double omega = bg && P[v].t_base > 0 ? P[v].t_during / P[v].t_base : 1.0;
            /* alpha: background R over the blocking R of the same method */
            double rb = 0;
            for (int w = 0; w < NVERS; w++)
                if (strcmp(versions[w].redist, versions[v].redist) == 0 && strcmp(versions[w].cons, "blocking") == 0 &&
                    strcmp(versions[w].window, "reuse") == 0 && P[w].ok)
                    rb = P[w].r;
            double alpha = bg && rb > 0 ? P[v].r / rb : 1.0;
            double f = P[v].r + t_nd * (double)(mx - P[v].n_it);
            if (v == 0) fcol = f;
            printf("  %-27s %8.4f %9.4f %8.4f %5d %7.3f %7.3f %8.4f %7.2fx\n", name, P[v].window,
                   P[v].transfer, P[v].r, P[v].n_it, omega, alpha, f, f > 0 ? fcol / f : 0);
            fprintf(out, "%d,%d,%ld,%s%s,%.6f,%.6f,%.6f,%d,%.4f,%.4f,%.6f,%.6f,%.6f,%.6f\n", ns, nd, mib,
                    versions[v].name, P[v].by_col ? " (constant data by col)" : "", P[v].window, P[v].transfer, P[v].r, P[v].n_it, omega, alpha, f, P[v].t_base,
                    P[v].t_during, P[v].t_after);
            fflush(stdout);
        }
        if (any_by_col)
            printf("  * constant data moved by the collective in the background: background one-sided transfers "
                   "are not safe with Open MPI 4 (docs/rma.md)\n");
    }
    fclose(out);
    return 0;
}

/* ------------------------------------------------------------------ --cycles (persistent redistribution) */

struct rrec {
    int expand;
    double spawn, merge, transfer, window, prepare, total;
    int reused, standby, shared;
};

/* The report's reconfiguration records (a small scanner for our own JSON). */
static int parse_reconfigs(const char *text, struct rrec *out, int max)
{
    const char *p = strstr(text, "\"reconfigurations\"");
    if (!p || !(p = strchr(p, '['))) return 0;
    const char *end = p;
    for (int depth = 0; *end; end++) {
        if (*end == '[' || *end == '{') depth++;
        else if ((*end == ']' || *end == '}') && --depth == 0) break;
    }
    int n = 0;
    for (const char *q = strstr(p, "\"id\""); q && q < end && n < max; q = strstr(q + 4, "\"id\"")) {
        const char *nx = strstr(q + 4, "\"id\"");
        size_t len = (size_t)((nx && nx < end ? nx : end) - q);
        char chunk[8192];
        snprintf(chunk, sizeof chunk, "%.*s", (int)(len < sizeof chunk - 1 ? len : sizeof chunk - 1), q);
        if (!strstr(chunk, "\"ok\"")) continue;
        struct rrec *r = &out[n++];
        r->expand = strstr(chunk, "\"expand\"") != NULL;
        r->spawn = res_val(chunk, "spawn");
        r->merge = res_val(chunk, "merge");
        r->transfer = res_val(chunk, "transfer");
        r->window = res_val(chunk, "window");
        r->prepare = res_val(chunk, "prepare");
        r->total = res_val(chunk, "total");
        r->reused = strstr(chunk, "\"reused\"") != NULL;
        r->standby = (int)res_val(chunk, "standby_processes");
        r->shared = strstr(chunk, "\"shared_memory\": true") != NULL;
    }
    return n;
}

int run_cycles(const char *self, const char *pairs, const char *sizes_kib, const char *csv, int throttle)
{
    static const char *methods[] = {"col", "p2p", "rma-lock", "rma-lockall", "rma-fence"};
    /* modes: 0 not persistent, 1 persistent, 2 persistent + shared blocks (rma-* only) */
    static const char *mode_name[] = {"off", "on", "shared"};
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "ns,nd,kib,block_bytes,method,persistent,first_ab_R,later_ab_R,first_ba_R,later_ba_R,"
                 "first_ab_total,later_ab_total,first_ba_total,later_ba_total,reused,shared\n");
    /* with more processes than cores, MPICH's busy polling turns waits into scheduler time slices */
    const char *thr = throttle ? "MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=1 " : "";
    printf("mpiexec: %s\nlibductile: %s\nCSV: %s\nsynthetic CG, all data blocking: matrix of the given size + 3 "
           "vectors of %d doubles; 3 cycles A -> B -> A (resizes at iterations 5, 9, ..., 25)%s\n"
           "R = set-up (window/prepare) + transfer, max over processes; total = the whole reconfiguration (spawn, "
           "merge or wake-up, R); '1st' = first cycle, 'later' = mean of the 2nd and 3rd; ratio = later / 1st\n",
           mpiexec, libductile, csv, CG_VEC, throttle ? "; MPICH progress throttled (--no-throttle: not)" : "");
    char pl[256];
    snprintf(pl, sizeof pl, "%s", pairs);
    for (char *save = NULL, *tok = strtok_r(pl, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a = 0, b = 0;
        if (sscanf(tok, "%d:%d", &a, &b) != 2 || a < 1 || b < 1 || a == b) continue;
        char sl[256];
        snprintf(sl, sizeof sl, "%s", sizes_kib);
        for (char *s2 = NULL, *st = strtok_r(sl, ",", &s2); st; st = strtok_r(NULL, ",", &s2)) {
            long kib = atol(st);
            if (kib <= 0) continue;
            long long bytes = (long long)kib << 10;
            long long block = bytes / ((long long)a * b); /* a typical source -> drain message */
            printf("\n%d -> %d -> %d ..., matrix %ld KiB (blocks of about %lld bytes)\n", a, b, a, kib, block);
            printf("  %-12s %-6s | %9s %9s %6s | %9s %9s %6s | %9s %9s %6s | %s\n", "method", "pers", "R A->B 1st",
                   "later", "ratio", "R B->A 1st", "later", "ratio", "total A->B", "later", "ratio", "reused");
            for (int m = 0; m < 5; m++)
                for (int mode = 0; mode < 3; mode++) {
                    if (mode == 2 && strncmp(methods[m], "rma", 3) != 0) continue;
                    char rep[256], cmd[16384];
                    snprintf(rep, sizeof rep, "/tmp/ductile-bench-cyc-%d.json", (int)getpid());
                    unlink(rep);
                    int d = b - a;
                    snprintf(cmd, sizeof cmd,
                             "env %sLD_PRELOAD=%s DUCTILE_REPORT=%s DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER=off "
                             "DUCTILE_SCHEDULE=5:%+d,9:%+d,13:%+d,17:%+d,21:%+d,25:%+d DUCTILE_REDIST=%s "
                             "DUCTILE_PERSISTENT=%d DUCTILE_RMA_MEMORY=%s timeout 300 %s -n %d %s --w-cg %d %d %lld 0 "
                             ">/dev/null 2>&1",
                             thr, libductile, rep, d, -d, d, -d, d, -d, methods[m], mode > 0,
                             mode == 2 ? "shared" : "private", mpiexec, a, self, a, b, bytes);
                    int rc = system(cmd);
                    const char *text = take_report(rep);
                    struct rrec rr[16];
                    int k = rc == 0 ? parse_reconfigs(text, rr, 16) : 0;
                    if (k != 6) {
                        printf("  %-12s %-6s   failed (exit %d, %d records)\n", methods[m], mode_name[mode], rc, k);
                        continue;
                    }
                    double R[6], T[6];
                    int reused = 0, shared = 0;
                    for (int i = 0; i < 6; i++) {
                        R[i] = rr[i].transfer + rr[i].window + rr[i].prepare;
                        T[i] = rr[i].total;
                        reused += rr[i].reused;
                        shared += rr[i].shared;
                    }
                    double r1 = R[0], rl = (R[2] + R[4]) / 2, q1 = R[1], ql = (R[3] + R[5]) / 2;
                    double t1 = T[0], tl = (T[2] + T[4]) / 2, u1 = T[1], ul = (T[3] + T[5]) / 2;
                    printf("  %-12s %-6s | %9.4f %9.4f %5.2fx | %9.4f %9.4f %5.2fx | %9.4f %9.4f %5.2fx | %d/6%s\n",
                           methods[m], mode_name[mode], r1, rl, r1 > 0 ? rl / r1 : 0, q1, ql, q1 > 0 ? ql / q1 : 0, t1,
                           tl, t1 > 0 ? tl / t1 : 0, reused, shared ? " (shared memory)" : "");
                    fprintf(out, "%d,%d,%ld,%lld,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d\n", a, b, kib,
                            block, methods[m], mode_name[mode], r1, rl, q1, ql, t1, tl, u1, ul, reused, shared);
                    fflush(stdout);
                }
        }
    }
    fclose(out);
    return 0;
}

