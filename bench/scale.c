/* bench/scale -- resize cost against the number of processes (issue 25,
 * item 1): for every P of a list, the expansion P -> 2P and the shrink
 * 2P -> P under Ductile next to the raw MPI path of the same bytes, in the
 * same run and alternated rounds:
 *   expansion: raw MPI_Comm_spawn + MPI_Intercomm_merge + one cold
 *              MPI_Alltoallv (old block layout -> new one);
 *   shrink:    a warm MPI_Alltoallv of the same pattern among running ranks.
 * Ductile's phases come from its report's record (times_s: spawn, merge,
 * plan, transfer, total; "other" = total minus those four: agreements,
 * registries, set-up); each process's peak resident set (ru_maxrss) is
 * gathered from every process of the run (the parents, the spawned and the
 * leaving ones): max and sum.  Every run checks every byte of the data it
 * ends with; a run whose data is wrong or that fails makes the exit status 1.
 * The table gives medians over the rounds and the ratio Ductile / raw.
 *
 * usage: bench/scale [--quick] [--procs 2,4,8,16,32,64] [--mib N] [--reps N]
 *                    [--redist METHOD] [--csv FILE]
 *                    [--expand NS:ND,...] [--spawn-parallel on|off|both]
 *                    [--preload launcher|app|both]
 *        bench/scale --spawn [--counts 1,2,4,...,64] [--reps N] [--csv FILE]
 *   --quick: P = 2,4, 4 MiB, 1 round (what make check runs).
 *   --expand: these expansions instead of P -> 2P and 2P -> P (no shrinks).
 *   --spawn-parallel: DUCTILE_SPAWN_PARALLEL for the Ductile runs; both: one
 *     run with off and one with on in every round (alternated), two rows.
 *   --preload: how the Ductile runs get libductile.so (duc_run): launcher
 *     (on mpiexec's environment), app (given to the MPI processes only), both
 *     (alternated, two rows); default as tools/ductile-run does: app with
 *     MPICH (hydra's -genv), launcher with Open MPI.
 *   default: P = 2,4,8,16,32,64, 64 MiB in total, 3 rounds.
 *   --spawn: spawn time against the number of new processes (scale_spawn.c).
 * The launcher and libductile.so come from $MPIEXEC / $LIBDUCTILE, else from
 * the build's tests/env.sh; run it once per build (Open MPI, MPICH).  The
 * report of each Ductile run goes to $TMPDIR (else /tmp): across the test
 * hosts, a folder they share (bench/scale-cluster.sh).
 * Plot: python3 bench/scale-plot.py scale-*.csv OUT.png */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <libgen.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scale.h"

char sc_mpiexec[2048], sc_libductile[PATH_MAX], sc_mpiname[128];
static char sc_sanpre[PATH_MAX]; /* a sanitizer build's runtime, preloaded before libductile.so */

double sc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int sc_exec(const char *cmd, struct sc_run *r)
{
    r->res[0] = 0;
    r->mem_max = r->mem_sum = r->nmem = 0;
    r->nhosts = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024], **hosts = NULL;
    while (fgets(line, sizeof line, p)) {
        if (strncmp(line, "RES ", 4) == 0) snprintf(r->res, sizeof r->res, "%s", line + 4);
        else if (strncmp(line, "MEM ", 4) == 0) {
            char *end, h[256] = "";
            long k = strtol(line + 4, &end, 10);
            sscanf(end, "%255s", h);
            r->mem_sum += k, r->nmem++;
            if (k > r->mem_max) r->mem_max = k;
            int seen = 0;
            for (int i = 0; i < r->nhosts && !seen; i++) seen = strcmp(hosts[i], h) == 0;
            char **nh = seen ? hosts : realloc(hosts, (size_t)(r->nhosts + 1) * sizeof *hosts);
            if (!seen && nh && (nh[r->nhosts] = strdup(h))) hosts = nh, r->nhosts++;
            else if (!seen && nh) hosts = nh;
        }
    }
    for (int i = 0; i < r->nhosts; i++) free(hosts[i]);
    free(hosts);
    int rc = pclose(p);
    return rc == 0 && r->res[0] ? 0 : -1;
}


static void env_value(const char *line, const char *key, char *out, size_t n)
{
    size_t k = strlen(key);
    if (out[0] || strncmp(line, key, k) != 0) return;
    snprintf(out, n, "%s", line + k);
    out[strcspn(out, "\"")] = 0;
}

static void load_env(const char *self)
{
    const char *m = getenv("MPIEXEC"), *l = getenv("LIBDUCTILE"), *nm = getenv("MPI_NAME");
    const char *sp = getenv("SANITIZER_PRELOAD");
    if (sp) snprintf(sc_sanpre, sizeof sc_sanpre, "%s", sp);
    if (m) snprintf(sc_mpiexec, sizeof sc_mpiexec, "%s", m);
    if (l) snprintf(sc_libductile, sizeof sc_libductile, "%s", l);
    if (nm) snprintf(sc_mpiname, sizeof sc_mpiname, "%s", nm);
    char path[PATH_MAX + 32], tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", self);
    snprintf(path, sizeof path, "%s/../tests/env.sh", dirname(tmp));
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        env_value(line, "MPIEXEC=\"", sc_mpiexec, sizeof sc_mpiexec);
        env_value(line, "LIBDUCTILE=\"", sc_libductile, sizeof sc_libductile);
        env_value(line, "MPI_NAME=\"", sc_mpiname, sizeof sc_mpiname);
        if (!sp) env_value(line, "SANITIZER_PRELOAD=\"", sc_sanpre, sizeof sc_sanpre);
    }
    if (f) fclose(f);
    if (!sc_mpiexec[0]) snprintf(sc_mpiexec, sizeof sc_mpiexec, "mpiexec");
    if (!sc_mpiname[0]) snprintf(sc_mpiname, sizeof sc_mpiname, "MPI");
}

/* one measured run: 0 ok (data checked), -1 failed */
struct meas { double sp, mg, pl, tr, ot, to; long mmax, msum, nproc, nhosts; char redist[32]; };

static int raw_run(const char *self, int ns, int nd, long long bytes, struct meas *m)
{
    char cmd[16384];
    struct sc_run r;
    snprintf(cmd, sizeof cmd, "timeout -k 10 600 %s -n %d %s %s %d %d %lld 2>/dev/null", sc_mpiexec, ns, self,
             nd > ns ? "--w-rawx" : "--w-raws", ns, nd, bytes);
    if (sc_exec(cmd, &r) != 0 || res_val(r.res, "bad") != 0 || (int)res_val(r.res, "size") != nd) return -1;
    memset(m, 0, sizeof *m);
    m->sp = res_val(r.res, "spawn"), m->mg = res_val(r.res, "merge"), m->tr = res_val(r.res, "transfer");
    m->to = m->sp + m->mg + m->tr;
    m->mmax = r.mem_max, m->msum = r.mem_sum, m->nproc = r.nmem, m->nhosts = r.nhosts;
    snprintf(m->redist, sizeof m->redist, "raw");
    return 0;
}

/* How the Ductile runs get libductile.so: on the launcher's environment (`env LD_PRELOAD=... mpiexec`, what
 * tools/ductile-run does: mpiexec, srun and every MPI daemon load it, and through it the MPI library), or
 * passed by the launcher to the MPI processes only (MPICH's hydra `-genv LD_PRELOAD`, Open MPI
 * `-x LD_PRELOAD=`; the raw runs have no preload anywhere): --preload launcher|app|both. */

static int duc_run(const char *self, int ns, int nd, long long bytes, const char *redist, const char *par, int app,
                   struct meas *m)
{
    char rep[256], cmd[16384], rd[160] = "";
    struct sc_run r;
    const char *td = getenv("TMPDIR"); /* the report's folder: runs across the test hosts need a shared one */
    snprintf(rep, sizeof rep, "%.200s/ductile-scale-%d.json", td && td[0] ? td : "/tmp", (int)getpid());
    unlink(rep);
    if (redist && redist[0]) snprintf(rd, sizeof rd, "DUCTILE_REDIST=%.60s", redist);
    if (par && par[0]) snprintf(rd + strlen(rd), sizeof rd - strlen(rd), " DUCTILE_SPAWN_PARALLEL=%.8s", par);
    char pre[2 * PATH_MAX + 8], env[2 * PATH_MAX + 32] = "", opt[2 * PATH_MAX + 32] = "";
    snprintf(pre, sizeof pre, "%s%s%s", sc_sanpre, sc_sanpre[0] ? ":" : "", sc_libductile);
#ifdef MPICH_VERSION
    if (app) snprintf(opt, sizeof opt, "-genv LD_PRELOAD %s", pre);
#else
    if (app) snprintf(opt, sizeof opt, "-x LD_PRELOAD=%s", pre);
#endif
    else snprintf(env, sizeof env, "LD_PRELOAD=%s", pre);
    snprintf(cmd, sizeof cmd,
             "env %s DUCTILE_REPORT=%s DUCTILE_SUMMARY=0 DUCTILE_CONTROLLER=off DUCTILE_SCHEDULE=0:=%d %s "
             "timeout -k 10 600 %s %s -n %d %s --w-duc %d %d %lld 2>/dev/null",
             env, rep, nd, rd, sc_mpiexec, opt, ns, self, ns, nd, bytes);
    int rc = sc_exec(cmd, &r);
    static char text[1 << 20];
    FILE *f = fopen(rep, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = 0;
    unlink(rep);
    if (rc != 0 || res_val(r.res, "bad") != 0 || (int)res_val(r.res, "size") != nd) return -1;
    const char *rc0 = strstr(text, "\"reconfigurations\"");
    if (!rc0 || !strstr(rc0, "\"ok\"")) return -1;
    memset(m, 0, sizeof *m);
    const char *d = strstr(rc0, "\"redistribution\"");
    if (d && (d = strchr(d + 16, '"'))) sscanf(d + 1, "%31[^\"]", m->redist);
    if (!(rc0 = strstr(rc0, "\"times_s\""))) return -1;
    m->sp = res_val(rc0, "spawn"), m->mg = res_val(rc0, "merge"), m->pl = res_val(rc0, "plan");
    m->tr = res_val(rc0, "transfer"), m->to = res_val(rc0, "total");
    m->ot = m->to - m->sp - m->mg - m->pl - m->tr;
    m->mmax = r.mem_max, m->msum = r.mem_sum, m->nproc = r.nmem, m->nhosts = r.nhosts;
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double med(double *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, cmp_dbl);
    return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
}

static void median_of(struct meas *v, int n, struct meas *out)
{
    double a[64] = {0};
    memset(out, 0, sizeof *out);
    if (n <= 0) return;
    snprintf(out->redist, sizeof out->redist, "%s", v[0].redist);
#define MED(field)                                                                                                 \
    do {                                                                                                           \
        for (int i = 0; i < n; i++) a[i] = (double)v[i].field;                                                     \
        out->field = med(a, n);                                                                                    \
    } while (0)
    MED(sp); MED(mg); MED(pl); MED(tr); MED(ot); MED(to); MED(mmax); MED(msum); MED(nproc); MED(nhosts);
#undef MED
}

static void csv_row(FILE *out, const char *kind, int ns, int nd, long mib, int round, const char *what,
                    const struct meas *m, double ratio)
{
    fprintf(out, "\"%s\",%s,%d,%d,%d,%ld,%d,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%ld,%ld,%ld,%ld\n", sc_mpiname, kind,
            ns < nd ? ns : nd, ns, nd, mib, round, what, m->redist, m->sp, m->mg, m->pl, m->tr, m->ot, m->to, ratio,
            m->mmax, m->msum, m->nproc, m->nhosts);
}

static int run_scale(const char *self, const char *procs, long mib, int reps, const char *redist, const char *csv,
                     const char *pairs, const char *par, const char *preload)
{
    FILE *out = fopen(csv, "w");
    if (!out) { perror(csv); return 1; }
    fprintf(out, "mpi,kind,p,ns,nd,mib,round,what,redist,spawn_s,merge_s,plan_s,transfer_s,other_s,total_s,ratio,"
                 "mem_max_kib,mem_sum_kib,processes,hosts\n");
    printf("%s   mpiexec: %s\nlibductile: %s\nCSV: %s   (%ld MiB in total, %d alternated round%s, medians; seconds; "
           "memory: peak resident set per process, MiB)\n\n",
           sc_mpiname, sc_mpiexec, sc_libductile, csv, mib, reps, reps > 1 ? "s" : "");
#if defined(MPICH_VERSION) || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
    if (par && strcmp(par, "off") != 0) /* pspawn_wanted: one collective spawn there (docs/rma.md) */
        printf("note: DUCTILE_SPAWN_PARALLEL has no effect with this MPI (one collective spawn is faster): the rows "
               "with \"par\" run the same code, and their differences are the machine's noise\n\n");
#endif
    printf("%-9s %-18s %7s %7s %7s %8s %7s %7s %6s %8s %8s %5s\n", "resize", "what", "spawn", "merge", "plan",
           "transfer", "other", "total", "ratio", "mem max", "mem sum", "hosts");
    int failed = 0;
    char pl[256];
    snprintf(pl, sizeof pl, "%s", pairs ? pairs : procs);
    long long bytes = (long long)mib << 20;
    /* the Ductile variants of a round: the setting as given, or off then on (--spawn-parallel both), each
     * with the preload as given, or launcher then app (--preload both) */
    int both = par && !strcmp(par, "both"), pboth = !strcmp(preload, "both"), nv = 0;
    const char *vpar[4];
    int vapp[4];
    for (int a = 0; a < (pboth ? 2 : 1); a++)
        for (int b = 0; b < (both ? 2 : 1); b++)
            vpar[nv] = both ? (b ? "on" : "off") : par, vapp[nv++] = pboth ? a : !strcmp(preload, "app");
    for (char *sp = NULL, *tok = strtok_r(pl, ",", &sp); tok; tok = strtok_r(NULL, ",", &sp)) {
        int p = atoi(tok), q = 0;
        if (pairs && (sscanf(tok, "%d:%d", &p, &q) != 2 || q <= p)) continue; /* NS:ND, expansions */
        if (p < 1) continue;
        for (int dir = 0; dir < (pairs ? 1 : 2); dir++) {
            int ns = dir ? 2 * p : p, nd = dir ? p : pairs ? q : 2 * p;
            const char *kind = dir ? "shrink" : "expand";
            struct meas raw[64], duc[4][64], m;
            int nr = 0, ndc[4] = {0, 0, 0, 0};
            for (int k = 0; k < reps && k < 64; k++) {
                if (raw_run(self, ns, nd, bytes, &m) == 0) {
                    raw[nr++] = m;
                    csv_row(out, kind, ns, nd, mib, k, "raw", &m, 1.0);
                } else printf("%d->%d round %d: raw run failed or its data was wrong\n", ns, nd, k), failed = 1;
                for (int v = 0; v < (dir ? 1 : nv); v++) { /* shrinks: one variant (no spawn) */
                    char what[48];
                    snprintf(what, sizeof what, "ductile%s%.8s%s", vpar[v] && vpar[v][0] ? "-par-" : "",
                             vpar[v] ? vpar[v] : "", !pboth ? "" : vapp[v] ? "-app" : "-launcher");
                    if (duc_run(self, ns, nd, bytes, redist, dir ? NULL : vpar[v], vapp[v], &m) == 0) {
                        duc[v][ndc[v]++] = m;
                        csv_row(out, kind, ns, nd, mib, k, what, &m, nr ? m.to / raw[nr - 1].to : 0);
                    } else printf("%d->%d round %d: Ductile run (%s) failed or its data was wrong\n", ns, nd, k, what),
                           failed = 1;
                }
                fflush(out);
            }
            struct meas mr, md;
            median_of(raw, nr, &mr);
            char rs[32], dn[64];
            snprintf(rs, sizeof rs, "%d->%d", ns, nd);
            if (nr)
                printf("%-9s %-18s %7.4f %7.4f %7s %8.4f %7s %7.4f %6s %8.1f %8.1f %5ld\n", rs,
                       dir ? "raw warm a2av" : "raw spawn+mrg+a2av", mr.sp, mr.mg, "", mr.tr, "", mr.to, "",
                       mr.mmax / 1024.0, mr.msum / 1024.0, mr.nhosts);
            for (int v = 0; v < (dir ? 1 : nv); v++) {
                if (!ndc[v]) continue;
                median_of(duc[v], ndc[v], &md);
                snprintf(dn, sizeof dn, "ductile %.20s%s%.8s%s", md.redist, vpar[v] && !dir ? " par " : "",
                         vpar[v] && !dir ? vpar[v] : "", !pboth || dir ? "" : vapp[v] ? " app" : " launcher");
                printf("%-9s %-18s %7.4f %7.4f %7.4f %8.4f %7.4f %7.4f %5.2fx %8.1f %8.1f %5ld\n", nr || v ? "" : rs,
                       dn, md.sp, md.mg, md.pl, md.tr, md.ot, md.to, nr && mr.to > 0 ? md.to / mr.to : 0,
                       md.mmax / 1024.0, md.msum / 1024.0, md.nhosts);
            }
            fflush(stdout);
        }
    }
    fclose(out);
    return failed;
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) return 1;
    self[sl] = 0;
    if (argc >= 5 && strncmp(argv[1], "--w-", 4) == 0) return sc_worker(argc, argv, self);
    const char *procs = "2,4,8,16,32,64", *csv = NULL, *redist = NULL, *counts = "1,2,4,8,16,32,64";
#ifdef MPICH_VERSION
    const char *pairs = NULL, *par = NULL, *preload = "app"; /* as tools/ductile-run gives it to hydra */
#else
    const char *pairs = NULL, *par = NULL, *preload = "launcher";
#endif
    long mib = 64;
    int reps = 3, spawn = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) procs = "2,4", mib = 4, reps = 1, counts = "1,2,4";
        else if (strcmp(argv[i], "--procs") == 0 && i + 1 < argc) procs = argv[++i];
        else if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) mib = atol(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--redist") == 0 && i + 1 < argc) redist = argv[++i];
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) csv = argv[++i];
        else if (strcmp(argv[i], "--spawn") == 0) spawn = 1;
        else if (strcmp(argv[i], "--counts") == 0 && i + 1 < argc) counts = argv[++i];
        else if (strcmp(argv[i], "--expand") == 0 && i + 1 < argc) pairs = argv[++i];
        else if (strcmp(argv[i], "--preload") == 0 && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "launcher") || !strcmp(argv[i + 1], "app") || !strcmp(argv[i + 1], "both")))
            preload = argv[++i];
        else if (strcmp(argv[i], "--spawn-parallel") == 0 && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "auto") || !strcmp(argv[i + 1], "on") || !strcmp(argv[i + 1], "off") ||
                  !strcmp(argv[i + 1], "both")))
            par = argv[++i];
        else {
            int help = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
            fprintf(help ? stdout : stderr,
                    "usage: %s [--quick] [--procs 2,4,...,64] [--mib N] [--reps N] [--redist col|p2p|auto|...] "
                    "[--csv FILE] [--expand NS:ND,...] [--spawn-parallel auto|on|off|both] [--preload launcher|app|both]\n"
                    "         expansions P->2P and shrinks 2P->P under Ductile against the raw MPI path\n"
                    "       %s --spawn [--quick] [--counts 1,2,...,64] [--reps N] [--csv FILE]\n"
                    "         one MPI_Comm_spawn of n processes against n parents spawning one each + merges\n",
                    argv[0], argv[0]);
            return help ? 0 : 2;
        }
    }
    if (mib < 1 || reps < 1) { fprintf(stderr, "scale: --mib and --reps need at least 1\n"); return 2; }
    if (reps > 64) reps = 64;
    load_env(self);
    if (spawn) return sc_spawn_bench(self, counts, reps, csv ? csv : "scale-spawn.csv");
    if (!sc_libductile[0]) { fprintf(stderr, "scale: set LIBDUCTILE to libductile.so\n"); return 2; }
    return run_scale(self, procs, mib, reps, redist, csv ? csv : "scale.csv", pairs, par, preload);
}
