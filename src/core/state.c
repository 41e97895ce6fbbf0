/* state.c -- the process-wide state (state.h) and the hot path's globals
 * (hotpath.h): defined here, at the floor, so that every folder reads them
 * without importing the wrappers. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "state.h"
#include "hotpath.h"

struct ductile_fn_stats ductile_stats[DUCTILE_FN_COUNT];
MPI_Comm ductile_world = MPI_COMM_WORLD;
int ductile_monitoring;
int ductile_threaded;
unsigned char ductile_iter_filter[DUCTILE_FN_COUNT];
__thread int ductile_depth __attribute__((tls_model("initial-exec")));

struct ductile_runtime ductile_rt = {.private_comm = MPI_COMM_NULL};

void ductile_log(int level, const char *fmt, ...)
{
    if (ductile_rt.settings.verbose < level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ductile[%d]: %s\n", ductile_rt.rank, buf);
}

double ductile_elapsed(void)
{
    return ductile_ticks_to_sec(ductile_ticks() - ductile_rt.start_ticks);
}
