/* bench/scale_workers.c -- the MPI programs bench/scale starts, each checking
 * the data it ends with (every byte of every row against the row's global
 * index) and each process printing its peak memory ("MEM KiB"):
 *   --w-rawx P Q BYTES   raw expansion: P parents spawn Q-P children, merge,
 *                        one cold MPI_Alltoallv from the old block layout
 *                        (P ranks) to the new one (Q ranks);
 *   --w-rawc ...         those children;
 *   --w-raws P Q BYTES   raw shrink: a warm MPI_Alltoallv (the best of 3
 *                        after 2 warm-up calls) of the same pattern among P
 *                        running ranks, the first Q of which keep the rows;
 *   --w-duc P Q BYTES    the same resize under Ductile (libductile.so
 *                        preloaded, DUCTILE_SCHEDULE=0:=Q): one distributed
 *                        array registered, checked after the resize. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "scale.h"

void sc_print_mem(void)
{
    struct rusage ru;
    char host[256] = "?";
    getrusage(RUSAGE_SELF, &ru);
    gethostname(host, sizeof host - 1);
    host[strcspn(host, " \n")] = 0;
    printf("MEM %ld %s\n", (long)ru.ru_maxrss, host);
    fflush(stdout);
}

static void block(int64_t n, int p, int r, int64_t *d, int64_t *c)
{
    int64_t q = n / p, m = n % p;
    *c = q + (r < m);
    *d = r * q + (r < m ? r : m);
}

/* row g: its index, then bytes derived from it */
static void fill(char *a, int64_t first, int64_t rows)
{
    for (int64_t i = 0; i < rows; i++) {
        int64_t g = first + i;
        memset(a + i * SC_ROWB, (int)((g * 7 + 3) & 0xff), SC_ROWB);
        memcpy(a + i * SC_ROWB, &g, sizeof g);
    }
}

/* rows that do not match: 0 when the block [first, first+rows) is intact */
static long check(const char *a, int64_t first, int64_t rows)
{
    long bad = 0;
    char want[SC_ROWB];
    for (int64_t i = 0; i < rows; i++) {
        int64_t g = first + i;
        memset(want, (int)((g * 7 + 3) & 0xff), SC_ROWB);
        memcpy(want, &g, sizeof g);
        bad += memcmp(a + i * SC_ROWB, want, SC_ROWB) != 0;
    }
    return bad;
}

/* Alltoallv arrays (bytes) in a communicator of cs ranks: old rank i is rank
 * i, new rank j is rank j (ns old, nd new ranks). */
struct pat { int *sc, *sd, *rc, *rd; int64_t od, oc, nd0, nc; };

static void pattern(struct pat *P, int64_t nrows, int ns, int nd, int cs, int me)
{
    P->sc = calloc(4 * (size_t)cs, sizeof(int));
    P->sd = P->sc + cs, P->rc = P->sd + cs, P->rd = P->rc + cs;
    P->od = P->oc = P->nd0 = P->nc = 0;
    if (me < ns) block(nrows, ns, me, &P->od, &P->oc);
    if (me < nd) block(nrows, nd, me, &P->nd0, &P->nc);
    for (int j = 0; j < nd && me < ns; j++) {
        int64_t d, c, lo, hi;
        block(nrows, nd, j, &d, &c);
        lo = d > P->od ? d : P->od, hi = d + c < P->od + P->oc ? d + c : P->od + P->oc;
        if (hi > lo) P->sc[j] = (int)((hi - lo) * SC_ROWB), P->sd[j] = (int)((lo - P->od) * SC_ROWB);
    }
    for (int i = 0; i < ns && me < nd; i++) {
        int64_t d, c, lo, hi;
        block(nrows, ns, i, &d, &c);
        lo = d > P->nd0 ? d : P->nd0, hi = d + c < P->nd0 + P->nc ? d + c : P->nd0 + P->nc;
        if (hi > lo) P->rc[i] = (int)((hi - lo) * SC_ROWB), P->rd[i] = (int)((lo - P->nd0) * SC_ROWB);
    }
}

static void *buf(int64_t rows)
{
    char *p = malloc((size_t)(rows > 0 ? rows : 1) * SC_ROWB);
    if (!p) { fprintf(stderr, "scale: out of memory\n"); exit(1); }
    return p;
}

static double maxall(double t, MPI_Comm c)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, c);
    return m;
}

/* raw expansion (parents and children) */
static int w_rawx(int ns, int nd, int64_t bytes, MPI_Comm parent, const char *self)
{
    int child = parent != MPI_COMM_NULL;
    MPI_Comm inter = parent, merged;
    int64_t nrows = bytes / SC_ROWB;
    double tspawn = 0;
    if (!child) {
        char a[3][32];
        snprintf(a[0], sizeof a[0], "%d", ns);
        snprintf(a[1], sizeof a[1], "%d", nd);
        snprintf(a[2], sizeof a[2], "%lld", (long long)bytes);
        char *args[] = {"--w-rawc", a[0], a[1], a[2], NULL};
        MPI_Barrier(MPI_COMM_WORLD);
        double t = sc_now();
        MPI_Comm_spawn((char *)self, args, nd - ns, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
        tspawn = sc_now() - t;
    }
    double t = sc_now();
    MPI_Intercomm_merge(inter, child, &merged);
    double tmerge = sc_now() - t;
    int me, cs;
    MPI_Comm_rank(merged, &me);
    MPI_Comm_size(merged, &cs);
    struct pat P;
    pattern(&P, nrows, ns, nd, cs, me);
    char *s = buf(P.oc), *r = buf(P.nc); /* the new block is not touched before (cold) */
    fill(s, P.od, P.oc);
    MPI_Barrier(merged);
    t = sc_now();
    MPI_Alltoallv(s, P.sc, P.sd, MPI_BYTE, r, P.rc, P.rd, MPI_BYTE, merged);
    double ttr = maxall(sc_now() - t, merged);
    long bad = check(r, P.nd0, P.nc), allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, merged);
    double tm = maxall(tmerge, merged);
    if (me == 0)
        printf("RES spawn=%.6f merge=%.6f transfer=%.6f bad=%ld size=%d\n", tspawn, tm, ttr, allbad, cs);
    sc_print_mem();
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    free(s); free(r); free(P.sc);
    return 0;
}

/* raw shrink: a warm Alltoallv among running ranks */
static int w_raws(int ns, int nd, int64_t bytes)
{
    int me, cs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &cs);
    struct pat P;
    pattern(&P, bytes / SC_ROWB, ns, nd, cs, me);
    char *s = buf(P.oc), *r = buf(P.nc);
    fill(s, P.od, P.oc);
    double best = 1e30;
    for (int i = 0; i < 5; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = sc_now();
        MPI_Alltoallv(s, P.sc, P.sd, MPI_BYTE, r, P.rc, P.rd, MPI_BYTE, MPI_COMM_WORLD);
        t = maxall(sc_now() - t, MPI_COMM_WORLD);
        if (i >= 2 && t < best) best = t;
    }
    long bad = check(r, P.nd0, P.nc), allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) printf("RES spawn=0 merge=0 transfer=%.6f bad=%ld size=%d\n", best, allbad, nd);
    sc_print_mem();
    free(s); free(r); free(P.sc);
    return 0;
}

/* the buffer w_duc registered: the program's own (Ductile frees only what it
 * or EMPI_malloc allocated), freed after MPI_Finalize */
static char *duc_buf;

/* the resize under Ductile */
static int w_duc(int ns, int nd, int64_t bytes)
{
    (void)ns; (void)nd;
    int (*reg)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int) =
        (int (*)(const char *, void *, MPI_Datatype, int64_t, int64_t, int, int))dlsym(RTLD_DEFAULT, "EMPI_Register_array");
    void (*wsize)(int, int, int64_t, int64_t *, int64_t *) =
        (void (*)(int, int, int64_t, int64_t *, int64_t *))dlsym(RTLD_DEFAULT, "EMPI_Get_wsize64");
    void *(*addr)(char *) = (void *(*)(char *))dlsym(RTLD_DEFAULT, "EMPI_Get_addr");
    void (*gtype)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_type");
    void (*gshared)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_shared");
    void (*gstatus)(int *) = (void (*)(int *))dlsym(RTLD_DEFAULT, "EMPI_Get_status");
    int (*cp)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "ductile_control_point");
    if (!reg || !wsize || !addr || !gtype || !gshared || !gstatus || !cp) {
        fprintf(stderr, "scale: --w-duc needs libductile.so preloaded\n");
        return 1;
    }
    int rank, size, type = 0, it = 0, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t nrows = bytes / SC_ROWB, d, c;
    wsize(rank, size, nrows, &d, &c);
    char *a = duc_buf = buf(c);
    if (reg("data", a, MPI_BYTE, nrows, SC_ROWB, 674782 /* EMPI_DISJOINT */, 0) != 0) return 1;
    gtype(&type);
    if (type == 938594 /* EMPI_SPAWNED */) gshared(&it);
    else fill(a, d, c);
    for (; it < 2; it++) {
        cp(it);
        gstatus(&status);
        if (status == 787634 /* EMPI_REMOVED */) break;
    }
    if (status != 787634) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        wsize(rank, size, nrows, &d, &c);
        long bad = check(addr("data"), d, c), allbad = 0;
        MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) printf("RES bad=%ld size=%d\n", allbad, size);
    }
    sc_print_mem();
    return 0;
}

int sc_worker(int argc, char **argv, const char *self)
{
    if (strncmp(argv[1], "--w-sp", 6) == 0) return sc_spawn_worker(argc, argv, self);
    MPI_Init(&argc, &argv);
    int ns = atoi(argv[2]), nd = atoi(argv[3]), rc = 2;
    int64_t bytes = atoll(argv[4]);
    MPI_Comm parent = MPI_COMM_NULL;
    if (strcmp(argv[1], "--w-rawx") == 0) rc = w_rawx(ns, nd, bytes, MPI_COMM_NULL, self);
    else if (strcmp(argv[1], "--w-rawc") == 0) {
        MPI_Comm_get_parent(&parent);
        rc = w_rawx(ns, nd, bytes, parent, self);
    } else if (strcmp(argv[1], "--w-raws") == 0) rc = w_raws(ns, nd, bytes);
    else if (strcmp(argv[1], "--w-duc") == 0) rc = w_duc(ns, nd, bytes);
    MPI_Finalize();
    free(duc_buf);
    return rc;
}
