/* sparse.c -- CSR sparse matrices distributed by rows (EMPI_Register_sparse,
 * FlexMPI's, with int indices; EMPI_Register_csr, 64-bit row pointers and
 * column indices).  Each process holds a contiguous range of rows, in rank
 * order, as local CSR (row pointers from 0, rows + 1 of them).  At a resize
 * the rows move to the new processes either as block-distributed rows
 * (EMPI_ROWS: the rows of EMPI_Get_wsize) or balanced by non-zeros
 * (EMPI_NNZ, FlexMPI's load-balanced distribution: new rank k takes the rows
 * that start in the k-th chunk of ceil(nnz/P) non-zeros).  One Allgather of
 * the old ranges, one Allreduce of the new row counts, one Alltoall of the
 * counts and three Alltoallv (row lengths, column indices, values) over the
 * transfer communicator; non-zero counts are 64-bit throughout.  The new
 * arrays (row pointers, columns, values) and row range are kept aside until
 * the resize commits (sparse_commit); a rollback (sparse_abort) frees them
 * and the item keeps its old arrays, range and distribution. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "empi.h"
#include "../core/state.h"
#include "../common/txnfault.h"
#include "sparse.h"
#include "../redist/plan.h"

static void free_if_owned(void *p)
{
    if (p && reg_is_tracked(p)) reg_untrack_free(p);
}

int sparse_register(const char *id, void *row, void *col, void *val, MPI_Datatype type, int64_t n, int64_t row0,
                    int64_t rows, int balance, int wide, char *err, size_t errlen)
{
    if (n < 0 || row0 < 0 || rows < 0 || row0 + rows > n) {
        snprintf(err, errlen, "'%s': rows %lld+%lld outside the %lld rows of the matrix", id ? id : "",
                 (long long)row0, (long long)rows, (long long)n);
        return -1;
    }
    if (balance != EMPI_ROWS && balance != EMPI_NNZ) {
        snprintf(err, errlen, "'%s': balance must be EMPI_ROWS or EMPI_NNZ", id ? id : "");
        return -1;
    }
    int64_t nnz = 0;
    if (rows > 0) {
        if (!row) {
            snprintf(err, errlen, "'%s': no row pointers", id ? id : "");
            return -1;
        }
        nnz = wide ? ((int64_t *)row)[rows] - ((int64_t *)row)[0] : (int64_t)((int *)row)[rows] - ((int *)row)[0];
        if (nnz < 0) {
            snprintf(err, errlen, "'%s': decreasing row pointers", id ? id : "");
            return -1;
        }
    }
    struct sp_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "'%s': out of memory", id ? id : "");
        return -1;
    }
    s->n = n;
    s->row0 = row0;
    s->rows = rows;
    s->nnz = nnz;
    s->balance = balance;
    s->wide = wide;
    /* what every process must agree on: rows, balance, index width (not the local nnz) */
    if (reg_add(id, val, type, REG_SPARSE, 0, n, balance * 2 + wide, 0, err, errlen) != 0) {
        free(s);
        return -1;
    }
    struct reg_item *it = reg_find(id);
    it->ext = s;
    it->sp_row = row;
    it->sp_col = col;
    it->rows.row0 = row0;
    it->rows.rows = rows;
    it->rows.vrows = NULL;
    it->rows.nv = 0;
    return 0;
}

/* New owner of global row g (starting at non-zero prefix p). */
static int owner(const struct sp_state *s, int nd, int64_t g, int64_t p, int64_t total)
{
    if (s->balance == EMPI_NNZ && total > 0) {
        int64_t chunk = (total + nd - 1) / nd;
        int64_t k = p / chunk;
        return k >= nd ? nd - 1 : (int)k;
    }
    return plan_owner_of(s->n, nd, g);
}

static int64_t rowlen(const struct sp_state *s, const void *row, int64_t i)
{
    if (s->wide) return ((const int64_t *)row)[i + 1] - ((const int64_t *)row)[i];
    return (int64_t)((const int *)row)[i + 1] - ((const int *)row)[i];
}

/* The metadata a move needs (O(processes)), allocated before its first collective. */
static int meta_alloc(struct sp_meta *m, int n, int nd, int ns)
{
    m->all = txn_malloc(3 * (size_t)n * sizeof *m->all);
    m->newrows = txn_calloc((size_t)nd, sizeof *m->newrows);
    m->cnt = txn_calloc(12 * (size_t)n, sizeof *m->cnt);
    m->byold = txn_calloc(2 * (size_t)ns + 1, sizeof *m->byold);
    m->nz = txn_calloc((size_t)n, sizeof *m->nz);
    m->sp = txn_calloc(2 * (size_t)n, sizeof *m->sp);
    m->rp = txn_calloc(2 * (size_t)n, sizeof *m->rp);
    m->arr = txn_calloc(12 * (size_t)n, sizeof *m->arr);
    return m->all && m->newrows && m->cnt && m->byold && m->nz && m->sp && m->rp && m->arr ? 0 : -1;
}

void sp_plan_free(struct sp_plan *p)
{
    struct sp_meta *m = &p->m;
    free(m->all); free(m->newrows); free(m->cnt); free(m->byold); free(m->nz); free(m->sp); free(m->rp); free(m->arr);
    memset(m, 0, sizeof *m);
}

/* Old ranges by old rank: contiguous, in rank order, covering the matrix
 * (the same answer on every process: from the gathered ranges). */
static int check_ranges(const struct sp_state *s, const struct reg_item *it, const struct redist_layout *L,
                        struct sp_meta *m, int n, char *err, size_t errlen)
{
    for (int c = 0; c < n; c++)
        if (m->all[3 * c] >= 0 && m->all[3 * c] < L->ns) {
            m->byold[2 * m->all[3 * c]] = m->all[3 * c + 1];
            m->byold[2 * m->all[3 * c] + 1] = m->all[3 * c + 2];
        }
    int64_t expect = 0;
    for (int r = 0; r < L->ns; r++) {
        if (m->byold[2 * r] != expect && m->byold[2 * r + 1] > 0) {
            snprintf(err, errlen, "'%s': the processes' rows are not contiguous in rank order (old rank %d starts "
                     "at row %lld, expected %lld)", it->d.name, r, (long long)m->byold[2 * r], (long long)expect);
            return -1;
        }
        expect += m->byold[2 * r + 1];
    }
    if (expect != s->n) {
        snprintf(err, errlen, "'%s': the processes hold %lld rows, the matrix has %lld", it->d.name,
                 (long long)expect, (long long)s->n);
        return -1;
    }
    return 0;
}

/* After the checkpoint every process takes part in each collective below; a
 * process that failed on the way (*ok = 0) sends zero counts, and the next
 * exchange's agreement stops every process. */
int sp_plan_make(struct reg_item *it, const struct redist_layout *L, int *ok, struct sp_plan *p, char *err,
                 size_t errlen)
{
    struct sp_state *s = it->ext;
    int n = L->comm_size;
    memset(p, 0, sizeof *p);
    PMPI_Comm_rank(L->comm, &p->me);
    p->ext = (size_t)it->d.extent;
    p->iw = s->wide ? 8 : 4;
    int64_t mine[3] = {-1, 0, 0}; /* old rank, first row, rows; */
    if (L->my_old >= 0) {
        mine[0] = L->my_old;
        mine[1] = s->row0;
        mine[2] = s->rows;
    }
    struct sp_meta *m = &p->m;
    if (*ok && meta_alloc(m, n, L->nd, L->ns) != 0) {
        snprintf(err, errlen, "'%s': out of memory", it->d.name);
        *ok = 0;
    }
    if (!txn_all_ok(L->comm, *ok)) return MOVE_STOPPED; /* the checkpoint */
    if (txn_mpi(PMPI_Allgather(mine, 3, MPI_INT64_T, m->all, 3, MPI_INT64_T, L->comm)) != MPI_SUCCESS) {
        snprintf(err, errlen, "'%s': MPI_Allgather of the row ranges failed", it->d.name);
        *ok = 0;
    }
    if (*ok && check_ranges(s, it, L, m, n, err, errlen) != 0) *ok = 0;
    /* non-zero prefix before my rows (in old-rank order: comm order may differ), and the total */
    int64_t my_nnz = L->my_old >= 0 ? s->nnz : 0, pre = 0, total = 0;
    if (txn_mpi(PMPI_Allgather(&my_nnz, 1, MPI_INT64_T, m->nz, 1, MPI_INT64_T, L->comm)) != MPI_SUCCESS && *ok) {
        snprintf(err, errlen, "'%s': MPI_Allgather of the non-zeros failed", it->d.name);
        *ok = 0;
    }
    for (int c = 0; c < n; c++) {
        total += m->nz[c];
        if (L->my_old >= 0 && m->all[3 * c] >= 0 && m->all[3 * c] < L->my_old) pre += m->nz[c];
    }
    /* my rows and non-zeros per destination comm rank */
    int64_t *srow = m->cnt, *snz = m->cnt + n, *rrow = m->cnt + 2 * n, *rnz = m->cnt + 3 * n;
    if (*ok && L->my_old >= 0) {
        int64_t q = pre;
        for (int64_t i = 0; i < s->rows; i++) {
            int k = owner(s, L->nd, s->row0 + i, q, total);
            int c = L->new_to_comm[k];
            srow[c]++;
            snz[c] += rowlen(s, it->sp_row, i);
            m->newrows[k]++;
            q += rowlen(s, it->sp_row, i);
        }
    }
    if (txn_mpi(PMPI_Allreduce(MPI_IN_PLACE, m->newrows, L->nd, MPI_INT64_T, MPI_SUM, L->comm)) != MPI_SUCCESS &&
        *ok) {
        snprintf(err, errlen, "'%s': MPI_Allreduce of the new row counts failed", it->d.name);
        *ok = 0;
    }
    for (int c = 0; *ok && c < n; c++) { m->sp[2 * c] = srow[c]; m->sp[2 * c + 1] = snz[c]; }
    if (txn_mpi(PMPI_Alltoall(m->sp, 2, MPI_INT64_T, m->rp, 2, MPI_INT64_T, L->comm)) != MPI_SUCCESS && *ok) {
        snprintf(err, errlen, "'%s': MPI_Alltoall of the counts failed", it->d.name);
        *ok = 0;
    }
    for (int c = 0; c < n; c++) { rrow[c] = m->rp[2 * c]; rnz[c] = m->rp[2 * c + 1]; }
    /* three exchanges: row lengths (int64), column indices, values; my rows go out in order (destinations
     * are nondecreasing along them), and arrive in old-rank (= row) order */
    size_t unit[3] = {8, p->iw, p->ext};
    for (int k = 0; k < 3; k++) {
        p->sc[k] = m->arr + (4 * k) * n;
        p->sd[k] = m->arr + (4 * k + 1) * n;
        p->rc[k] = m->arr + (4 * k + 2) * n;
        p->rd[k] = m->arr + (4 * k + 3) * n;
        for (int c = 0; c < n; c++) {
            p->sc[k][c] = (k == 0 ? srow[c] : snz[c]) * (int64_t)unit[k];
            p->rc[k][c] = (k == 0 ? rrow[c] : rnz[c]) * (int64_t)unit[k];
        }
        for (int d = 0; d < L->nd; d++) {
            int c = L->new_to_comm[d];
            if (c < 0) continue;
            p->sd[k][c] = p->stot[k];
            p->stot[k] += p->sc[k][c];
        }
        for (int r = 0; r < L->ns; r++) {
            int c = L->old_to_comm[r];
            if (c < 0) continue;
            p->rd[k][c] = p->rtot[k];
            p->rtot[k] += p->rc[k][c];
        }
    }
    return MOVE_OK;
}

/* My row lengths, in order (the first exchange's send buffer). */
void sp_pack_lengths(const struct reg_item *it, int64_t *lens)
{
    const struct sp_state *s = it->ext;
    for (int64_t i = 0; i < s->rows; i++) lens[i] = rowlen(s, it->sp_row, i);
}

int sp_stage_new(struct reg_item *it, const struct redist_layout *L, struct sp_plan *p, const int64_t *lens,
                 char *err, size_t errlen)
{
    struct sp_state *s = it->ext;
    int64_t nr = p->rtot[0] / 8, nz = p->rtot[1] / (int64_t)p->iw, r0 = 0;
    for (int k = 0; k < L->my_new; k++) r0 += p->m.newrows[k];
    if (!s->wide && nz > 0x7fffffff) {
        snprintf(err, errlen, "'%s': %lld non-zeros on one process do not fit FlexMPI's int row pointers (use "
                 "EMPI_Register_csr)", it->d.name, (long long)nz);
        return -1;
    }
    /* EMPI_malloc'ed: freed by Ductile at the next resize, or by the program's EMPI_free */
    void *nrow = reg_malloc((size_t)(nr + 1) * p->iw, 0);
    void *ncol = reg_malloc(nz ? (size_t)nz * p->iw : 1, 0);
    void *nval = reg_malloc(nz ? (size_t)nz * p->ext : 1, 0);
    if (!nrow || !ncol || !nval) {
        free_if_owned(nrow);
        free_if_owned(ncol);
        free_if_owned(nval);
        snprintf(err, errlen, "'%s': out of memory", it->d.name);
        return -1;
    }
    int64_t acc = 0;
    for (int64_t i = 0; i <= nr; i++) {
        if (s->wide) ((int64_t *)nrow)[i] = acc;
        else ((int *)nrow)[i] = (int)acc;
        if (i < nr) acc += lens[i];
    }
    /* staged: adopted at the commit (sparse_commit), dropped on a rollback */
    s->next.row = nrow;
    s->next.col = ncol;
    s->next.val = nval;
    s->next.row0 = r0;
    s->next.rows = nr;
    s->next.nnz = nz;
    s->next.vcounts = p->m.newrows;
    s->next.nv = L->nd;
    s->next.set = 1;
    p->m.newrows = NULL;
    return 0;
}

/* The first byte of my rows' column indices and values (the sources of the
 * second and third exchanges). */
const void *sp_first(const struct reg_item *it, int val)
{
    const struct sp_state *s = it->ext;
    if (s->rows == 0 || !it->sp_row) return NULL;
    int64_t first = s->wide ? ((const int64_t *)it->sp_row)[0] : ((const int *)it->sp_row)[0];
    return val ? (const char *)it->addr + (size_t)first * (size_t)it->d.extent
               : (const char *)it->sp_col + (size_t)first * (s->wide ? 8 : 4);
}

int sparse_move(struct reg_item *it, const struct redist_layout *L, int ok, uint64_t *moved, char *err,
                size_t errlen)
{
    sparse_abort(it); /* nothing should be staged; if it were, it is not this resize's */
    struct sp_plan p;
    char *sb[3] = {NULL, NULL, NULL}, *rb[3] = {NULL, NULL, NULL};
    int rc = sp_plan_make(it, L, &ok, &p, err, errlen);
    if (rc == MOVE_STOPPED) goto out;
    rc = MOVE_FAILED;
    for (int k = 0; k < 3; k++) {
        if (ok) sb[k] = txn_malloc(p.stot[k] ? (size_t)p.stot[k] : 1);
        if (ok) rb[k] = txn_malloc(p.rtot[k] ? (size_t)p.rtot[k] : 1);
        if (ok && (!sb[k] || !rb[k])) { snprintf(err, errlen, "'%s': out of memory", it->d.name); ok = 0; }
    }
    if (ok && L->my_old >= 0) {
        sp_pack_lengths(it, (int64_t *)(void *)sb[0]);
        const void *c0 = sp_first(it, 0), *v0 = sp_first(it, 1);
        if (c0) memcpy(sb[1], c0, (size_t)p.stot[1]);
        if (v0) memcpy(sb[2], v0, (size_t)p.stot[2]);
    }
    /* the first exchange's agreement stops every process when one failed; after it, all three run */
    for (int k = 0; k < 3; k++) {
        int e = data_alltoallv_bytes(sb[k], p.sc[k], p.sd[k], rb[k], p.rc[k], p.rd[k], ok, L->comm, err, errlen);
        if (e == MOVE_STOPPED) {
            rc = MOVE_STOPPED;
            goto out; /* old arrays intact */
        }
        if (e != MOVE_OK) ok = 0;
    }
    if (!ok) goto out;
    for (int c = 0; c < L->comm_size; c++)
        if (c != p.me) *moved += (uint64_t)(p.sc[0][c] + p.sc[1][c] + p.sc[2][c]);
    if (L->my_new >= 0) {
        if (sp_stage_new(it, L, &p, (const int64_t *)(const void *)rb[0], err, errlen) != 0) goto out;
        struct sp_state *s = it->ext;
        memcpy(s->next.col, rb[1], (size_t)p.rtot[1]);
        memcpy(s->next.val, rb[2], (size_t)p.rtot[2]);
    }
    rc = MOVE_OK;
out:
    for (int k = 0; k < 3; k++) { free(sb[k]); free(rb[k]); }
    sp_plan_free(&p);
    return rc;
}

void sparse_commit(struct reg_item *it)
{
    struct sp_state *s = it->ext;
    if (s) sp_bg_plan_free(s);
    if (!s || !s->next.set) return;
    if (it->owned) free_if_owned(it->addr);
    free_if_owned(it->sp_row);
    free_if_owned(it->sp_col);
    it->sp_row = s->next.row;
    it->sp_col = s->next.col;
    it->addr = s->next.val;
    it->owned = 1;
    s->row0 = s->next.row0;
    s->rows = s->next.rows;
    s->nnz = s->next.nnz;
    free(s->vcounts);
    s->vcounts = s->next.vcounts;
    s->nv = s->next.nv;
    it->rows.row0 = s->row0;
    it->rows.rows = s->rows;
    it->rows.vrows = s->balance == EMPI_NNZ ? s->vcounts : NULL; /* borrowed */
    it->rows.nv = s->balance == EMPI_NNZ ? s->nv : 0;
    memset(&s->next, 0, sizeof s->next);
}

void sparse_abort(struct reg_item *it)
{
    struct sp_state *s = it->ext;
    if (s) sp_bg_plan_free(s);
    if (!s || !s->next.set) return;
    free_if_owned(s->next.row);
    free_if_owned(s->next.col);
    free_if_owned(s->next.val);
    free(s->next.vcounts);
    memset(&s->next, 0, sizeof s->next);
}

void sparse_free(struct reg_item *it)
{
    struct sp_state *s = it->ext;
    sparse_abort(it);
    free(s->vcounts);
    free(s);
}
