/* iosched.c -- exclusive-I/O token wait on the job side (see iosched.h). */
#include "config.h"

#include "iosched.h"

#include <mpi.h>

#include "../core/hooks.h"
#include "../core/hotpath.h"
#include "../core/state.h"

static int held; /* rank 0: the job holds the token (app thread and controller thread: atomics) */

int ductile_iosched_enabled(void)
{
    return ductile_rt.active && ductile_rt.settings.io_exclusive && !ductile_threaded;
}

double ductile_iosched_gate(void)
{
    double waited = 0;
    if (ductile_rt.rank == 0 && !__atomic_load_n(&held, __ATOMIC_ACQUIRE)) {
        if (DUCTILE_HOOK(io_acquire, (&waited)) == 1) __atomic_store_n(&held, 1, __ATOMIC_RELEASE);
        ductile_log(2, "io: token %s after %.3f s", __atomic_load_n(&held, __ATOMIC_ACQUIRE) ? "granted" : "not used",
                    waited);
    }
    PMPI_Bcast(&waited, 1, MPI_DOUBLE, 0, ductile_rt.private_comm);
    return waited;
}

void ductile_iosched_phase_closed(double kept)
{
    if (__atomic_exchange_n(&held, 0, __ATOMIC_ACQ_REL)) DUCTILE_HOOK_VOID(io_release, (kept));
}
