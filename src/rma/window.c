/* window.c -- the per-world reusable dynamic window of the rma-* methods
 * (see window.h and docs/rma.md). */
#include "config.h"

#include "window.h"
#include "../common/clock.h"
#include "../common/mpierror.h"
#include "../common/txnfault.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static struct rma_win *cached;
static double total_setup;

static void win_free(struct rma_win *w)
{
    PMPI_Win_free(&w->win);
    PMPI_Group_free(&w->group);
    PMPI_Comm_free(&w->comm);
    free(w);
}

struct rma_win *rma_win_get(MPI_Comm comm, double *setup_s, char *err, size_t errlen)
{
    *setup_s = 0;
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    if (cached && !cached->retired) {
        int cmp = MPI_UNEQUAL;
        PMPI_Group_compare(g, cached->group, &cmp);
        if (cmp == MPI_IDENT) {
            PMPI_Group_free(&g);
            cached->uses++;
            return cached;
        }
    }
    double t0 = ductile_now();
    if (cached && !cached->busy) {
        /* the world changed since it was created: every member of its group is here */
        win_free(cached);
        cached = NULL;
    }
    /* every process of comm is here: what it allocated is agreed before the collective creation */
    struct rma_win *w = txn_calloc(1, sizeof *w);
    if (!w) snprintf(err, errlen, "out of memory");
    if (!txn_all_ok(comm, w != NULL)) {
        free(w);
        PMPI_Group_free(&g);
        return NULL;
    }
    w->group = g;
    PMPI_Comm_dup(comm, &w->comm);
    PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
    MPI_Info info;
    PMPI_Info_create(&info);
    PMPI_Info_set(info, "no_locks", "false");
    PMPI_Info_set(info, "accumulate_ordering", "none");
    int rc = PMPI_Win_create_dynamic(info, w->comm, &w->win);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        ductile_mpi_failed(rc, "MPI_Win_create_dynamic", err, errlen);
        PMPI_Group_free(&w->group);
        PMPI_Comm_free(&w->comm);
        free(w);
        return NULL;
    }
    PMPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    w->uses = 1;
    if (!cached) cached = w; /* else the old one is still busy: this one is used once and not cached */
    else w->retired = 1;
    *setup_s = ductile_now() - t0;
    total_setup += *setup_s;
    return w;
}


void rma_win_transfer_done(int keep)
{
    if (!cached) return;
    if (!keep) cached->retired = 1;
    if (cached->retired && !cached->busy) {
        win_free(cached);
        cached = NULL;
    }
}

void rma_win_hold(struct rma_win *w)
{
    w->busy++;
}

void rma_win_unhold(struct rma_win *w)
{
    if (--w->busy > 0) return;
    if (w->retired) {
        if (w == cached) cached = NULL;
        win_free(w);
    }
}

int rma_win_ready_for(MPI_Comm comm)
{
    if (!cached || cached->retired) return 0;
    MPI_Group g;
    int cmp = MPI_UNEQUAL;
    PMPI_Comm_group(comm, &g);
    PMPI_Group_compare(g, cached->group, &cmp);
    PMPI_Group_free(&g);
    return cmp == MPI_IDENT;
}

void rma_win_abandon(struct rma_win *w)
{
    if (!w || w == cached) cached = NULL; /* never freed: its group may not meet again */
}

double rma_win_total_setup(void) { return total_setup; }

void rma_win_finalize(void)
{
    if (cached && !cached->busy) win_free(cached);
    cached = NULL;
}
