/* ndgrid.c -- the process grids of N-D blocks (see ndgrid.h).  Blocks
 * registered with the same number of dimensions, periodicity and grid
 * function (and argument) share one grid, hence one Cartesian communicator:
 * made once per resize, when the first of its blocks needs it
 * (ndblock_world_changed), in registration order -- the same order on every
 * process, so the collective MPI_Cart_create calls match.  The grids are a
 * list (no fixed limit), freed with their last block. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndgrid.h"
#include "../core/hotpath.h"
#include "../core/state.h"

static struct nd_grid *grids;
static unsigned cur_round = 1;

struct nd_grid *ndgrid_get(int ndims, const int periods[3], EMPI_Grid_fn fn, void *arg)
{
    for (struct nd_grid *g = grids; g; g = g->next)
        if (g->ndims == ndims && g->fn == fn && g->arg == arg && !memcmp(g->periods, periods, sizeof g->periods)) {
            g->refs++;
            return g;
        }
    struct nd_grid *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->ndims = ndims;
    memcpy(g->periods, periods, sizeof g->periods);
    g->fn = fn;
    g->arg = arg;
    g->refs = 1;
    g->cart = g->fill = MPI_COMM_NULL;
    g->next = grids;
    grids = g;
    return g;
}

static void free_comms(struct nd_grid *g)
{
    int fin = 1;
    PMPI_Finalized(&fin);
    if (!fin && g->cart != MPI_COMM_NULL) PMPI_Comm_free(&g->cart);
    if (!fin && g->fill != MPI_COMM_NULL) PMPI_Comm_free(&g->fill);
    g->cart = g->fill = MPI_COMM_NULL;
    g->nprocs = 0;
}

void ndgrid_put(struct nd_grid *g)
{
    if (!g || --g->refs > 0) return;
    for (struct nd_grid **p = &grids; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    free_comms(g);
    free(g);
}

int ndgrid_dims(const struct nd_grid *g, int P, int dims[3], char *why, size_t len)
{
    int d3[3] = {0, 0, 0};
    if (P < 1) {
        snprintf(why, len, "no grid for %d processes", P);
        return -1;
    }
    if (!g->fn) {
        PMPI_Dims_create(P, g->ndims, d3);
    } else {
        if (g->fn(P, g->ndims, d3, g->arg) != 0) {
            snprintf(why, len, "the program's process grid function refuses %d processes", P);
            return -1;
        }
        long prod = 1;
        for (int d = 0; d < g->ndims; d++) {
            if (d3[d] < 1) {
                snprintf(why, len, "the program's process grid function gave %d processes in dimension %d for %d",
                         d3[d], d, P);
                return -1;
            }
            prod *= d3[d];
            if (prod > P) break;
        }
        if (prod != P) {
            snprintf(why, len, "the program's process grid function gave a grid of %s%ld processes for %d",
                     prod > P ? "more than " : "", prod, P);
            return -1;
        }
    }
    for (int d = 0; d < 3; d++) dims[d] = d < g->ndims ? d3[d] : 1;
    return 0;
}

void ndgrid_new_round(void) { cur_round++; }

int ndgrid_comm(struct nd_grid *g, int nprocs, const int dims[3], int stale, const char *name)
{
    if (g->cart != MPI_COMM_NULL && (!stale || g->round == cur_round)) return 0; /* current */
    free_comms(g);
    g->round = cur_round;
    if (PMPI_Cart_create(ductile_world, g->ndims, (int *)dims, g->periods, 0, &g->cart) != MPI_SUCCESS ||
        PMPI_Comm_dup(g->cart, &g->fill) != MPI_SUCCESS) {
        fprintf(stderr, "ductile: error: '%s': MPI_Cart_create over the world of %d processes failed\n", name, nprocs);
        free_comms(g);
        return -1;
    }
    g->nprocs = nprocs;
    return 0;
}

int ndgrid_allows(int P, char *why, size_t len)
{
    int dims[3];
    for (struct nd_grid *g = grids; g; g = g->next)
        if (g->fn && ndgrid_dims(g, P, dims, why, len) != 0) return 0;
    return 1;
}
