/* bigcoll.c -- an Alltoallv of bytes of any size (see bigcoll.h). */
#include "config.h"

#include "bigcoll.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OMPI_MAJOR_VERSION
#include <mpi-ext.h>
#endif

#include "pmpi_exports.h"
#include "chunk.h"

#if HAVE_PMPI_Alltoallv_c && HAVE_PMPI_Ialltoallv_c
#define HAVE_A2A_C 1
#else
#define HAVE_A2A_C 0
#endif

#if HAVE_PMPI_Alltoallw_init
#define A2AW_INIT PMPI_Alltoallw_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define A2AW_INIT PMPIX_Alltoallw_init
#endif
#if HAVE_PMPI_Alltoallv_init
#define A2AV_INIT PMPI_Alltoallv_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define A2AV_INIT PMPIX_Alltoallv_init
#endif

static char dummy;

int a2a_forced_kind(void)
{
    const char *f = getenv("DUCTILE_TEST_BIGCOLL");
    if (!f || !*f) return -1;
    if (!strcmp(f, "int")) return A2A_INT;
    if (!strcmp(f, "c")) return HAVE_A2A_C ? A2A_C : A2A_W;
    if (!strcmp(f, "w")) return A2A_W;
    return -1;
}

int a2a_kind(int fits_all) { return chunk_a2a_form(fits_all, a2a_forced_kind(), HAVE_A2A_C); }

int a2a_layout_kind(int64_t nrows, int ns, int nd, size_t rowbytes)
{
    return a2a_kind(chunk_layout_fits(nrows, ns, nd, rowbytes));
}

const char *a2a_kind_name(int kind) { return kind == A2A_INT ? "int" : kind == A2A_C ? "c" : "w"; }

/* One datatype covering [base + off, base + off + bytes) by absolute address. */
static int range_type(const void *base, int64_t off, int64_t bytes, MPI_Datatype *t)
{
    int q = 0, r = 0;
    int64_t unit = chunk_piece_max();
    if (chunk_split(bytes, unit, &q, &r) != 0) return -1;
    MPI_Datatype piece;
    if (PMPI_Type_contiguous((int)unit, MPI_BYTE, &piece) != MPI_SUCCESS) return -1;
    MPI_Aint a0 = 0, a1 = 0;
    PMPI_Get_address((const char *)base + off, &a0);
    PMPI_Get_address((const char *)base + off + (int64_t)q * unit, &a1);
    int bl[2] = {q, r};
    MPI_Aint dp[2] = {a0, a1};
    MPI_Datatype ty[2] = {piece, MPI_BYTE};
    int rc = PMPI_Type_create_struct(2, bl, dp, ty, t);
    PMPI_Type_free(&piece);
    if (rc != MPI_SUCCESS) return -1;
    return PMPI_Type_commit(t) == MPI_SUCCESS ? 0 : -1;
}

int a2a_prepare(struct a2a_args *a, int kind, int n, const int64_t *sc, const int64_t *sd, const int64_t *rc,
                const int64_t *rd, size_t rowbytes, const void *src, void *dst, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->n = n;
    a->s = src ? src : &dummy;
    a->d = dst ? dst : &dummy;
    int64_t rb = (int64_t)rowbytes;
    if (kind == A2A_C && !HAVE_A2A_C) kind = A2A_W;
    if (kind != A2A_INT && kind != A2A_C && kind != A2A_W) {
        snprintf(err, errlen, "unknown collective form %d", kind);
        return -1;
    }
    if (kind == A2A_INT && !(chunk_fits_int(sc, sd, n, rowbytes) && chunk_fits_int(rc, rd, n, rowbytes))) {
        /* never truncate: the agreement gives the int form only where everything fits */
        snprintf(err, errlen, "the agreed int form of the collective transfer does not fit this process's counts "
                              "(past %lld bytes)", (long long)chunk_int_limit());
        return -1;
    }
    a->kind = kind;
    if (kind == A2A_INT) {
        a->ia = malloc(4 * (size_t)n * sizeof(int) + 1);
        if (!a->ia) goto oom;
        for (int i = 0; i < n; i++) {
            a->ia[i] = (int)(sc[i] * rb);
            a->ia[n + i] = (int)(sd[i] * rb);
            a->ia[2 * n + i] = (int)(rc[i] * rb);
            a->ia[3 * n + i] = (int)(rd[i] * rb);
        }
        return 0;
    }
    if (kind == A2A_C) {
        a->cc = malloc(2 * (size_t)n * sizeof *a->cc + 1);
        a->ca = malloc(2 * (size_t)n * sizeof *a->ca + 1);
        if (!a->cc || !a->ca) goto oom;
        for (int i = 0; i < n; i++) {
            a->cc[i] = (MPI_Count)(sc[i] * rb);
            a->ca[i] = (MPI_Aint)(sd[i] * rb);
            a->cc[n + i] = (MPI_Count)(rc[i] * rb);
            a->ca[n + i] = (MPI_Aint)(rd[i] * rb);
        }
        return 0;
    }
    /* A2A_W: per-peer datatypes on absolute addresses over MPI_BOTTOM */
    a->ia = calloc(4 * (size_t)n + 1, sizeof(int));
    a->types = malloc(2 * (size_t)n * sizeof *a->types + 1);
    if (!a->ia || !a->types) goto oom;
    for (int i = 0; i < 2 * n; i++) a->types[i] = MPI_BYTE;
    for (int i = 0; i < 2 * n; i++) {
        int64_t cnt = i < n ? sc[i] : rc[i - n], dsp = i < n ? sd[i] : rd[i - n];
        if (!cnt) continue;
        const void *base = i < n ? a->s : a->d;
        if (range_type(base, dsp * rb, cnt * rb, &a->types[i]) != 0) {
            a->types[i] = MPI_BYTE;
            a2a_free(a);
            snprintf(err, errlen, "cannot build the datatype for a block of %lld bytes", (long long)(cnt * rb));
            return -1;
        }
        a->ia[i < n ? i : 2 * n + (i - n)] = 1; /* counts: [0,n) send, [2n,3n) receive; displacements stay 0 */
    }
    return 0;
oom:
    a2a_free(a);
    snprintf(err, errlen, "out of memory for the redistribution arguments");
    return -1;
}

int a2a_run(const struct a2a_args *a, MPI_Comm comm, MPI_Request *req)
{
    int n = a->n;
    switch (a->kind) {
    case A2A_INT:
        return req ? PMPI_Ialltoallv(a->s, a->ia, a->ia + n, MPI_BYTE, a->d, a->ia + 2 * n, a->ia + 3 * n, MPI_BYTE,
                                     comm, req)
                   : PMPI_Alltoallv(a->s, a->ia, a->ia + n, MPI_BYTE, a->d, a->ia + 2 * n, a->ia + 3 * n, MPI_BYTE,
                                    comm);
#if HAVE_A2A_C
    case A2A_C:
        return req ? PMPI_Ialltoallv_c(a->s, a->cc, a->ca, MPI_BYTE, a->d, a->cc + n, a->ca + n, MPI_BYTE, comm, req)
                   : PMPI_Alltoallv_c(a->s, a->cc, a->ca, MPI_BYTE, a->d, a->cc + n, a->ca + n, MPI_BYTE, comm);
#endif
    case A2A_W:
        return req ? PMPI_Ialltoallw(MPI_BOTTOM, a->ia, a->ia + n, a->types, MPI_BOTTOM, a->ia + 2 * n,
                                     a->ia + 3 * n, a->types + n, comm, req)
                   : PMPI_Alltoallw(MPI_BOTTOM, a->ia, a->ia + n, a->types, MPI_BOTTOM, a->ia + 2 * n, a->ia + 3 * n,
                                    a->types + n, comm);
    default:
        return MPI_ERR_ARG;
    }
}

int a2a_have_init(int kind)
{
    switch (kind) {
#ifdef A2AV_INIT
    case A2A_INT: return 1;
#endif
#if HAVE_PMPI_Alltoallv_init_c
    case A2A_C: return 1;
#endif
#ifdef A2AW_INIT
    case A2A_W: return 1;
#endif
    default: return 0;
    }
}

int a2a_init(const struct a2a_args *a, MPI_Comm comm, MPI_Request *req)
{
    int n = a->n;
    (void)n;
    (void)comm;
    (void)req;
    switch (a->kind) {
#ifdef A2AV_INIT
    case A2A_INT:
        return A2AV_INIT(a->s, a->ia, a->ia + n, MPI_BYTE, a->d, a->ia + 2 * n, a->ia + 3 * n, MPI_BYTE, comm,
                         MPI_INFO_NULL, req);
#endif
#if HAVE_PMPI_Alltoallv_init_c
    case A2A_C:
        return PMPI_Alltoallv_init_c(a->s, a->cc, a->ca, MPI_BYTE, a->d, a->cc + n, a->ca + n, MPI_BYTE, comm,
                                     MPI_INFO_NULL, req);
#endif
#ifdef A2AW_INIT
    case A2A_W:
        return A2AW_INIT(MPI_BOTTOM, a->ia, a->ia + n, a->types, MPI_BOTTOM, a->ia + 2 * n, a->ia + 3 * n,
                         a->types + n, comm, MPI_INFO_NULL, req);
#endif
    default:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
}

void a2a_free(struct a2a_args *a)
{
    if (a->types)
        for (int i = 0; i < 2 * a->n; i++)
            if (a->types[i] != MPI_BYTE) PMPI_Type_free(&a->types[i]);
    free(a->ia);
    free(a->cc);
    free(a->ca);
    free(a->types);
    memset(a, 0, sizeof *a);
}
