/* spawn_ompi5.c -- what an expansion needs under Open MPI 5 (PRRTE runtime),
 * kept apart from spawn.c (docs/cluster.md, "Open MPI 5"):
 *   - whether the job may oversubscribe its slots: under PRRTE, mpiexec's
 *     --oversubscribe is not in the environment (OMPI_MCA_rmaps_base_oversubscribe
 *     stays unset); the job's mapping policy is, as the PMIx job fact
 *     "pmix.mapby" ("BYCORE:OVERSUBSCRIBE" or "BYCORE:NOOVERSUBSCRIBE");
 *   - the spawn's info: a job that may oversubscribe passes map-by
 *     ":OVERSUBSCRIBE" on to its spawned jobs (some 5.0 releases did not
 *     inherit it).
 * With Open MPI 4.1 and MPICH these answer "no" and add nothing. */
#include "engine.h"

#include "../cluster/pmix.h"

#include <ctype.h>

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
/* "...:OVERSUBSCRIBE..." (any case), not "...:NOOVERSUBSCRIBE" */
static int mapby_oversubscribes(const char *m)
{
    char u[256];
    size_t i = 0;
    for (; m[i] && i < sizeof u - 1; i++) u[i] = (char)toupper((unsigned char)m[i]);
    u[i] = '\0';
    for (const char *p = strstr(u, "OVERSUBSCRIBE"); p; p = strstr(p + 1, "OVERSUBSCRIBE"))
        if (!(p - u >= 2 && p[-2] == 'N' && p[-1] == 'O')) return 1;
    return 0;
}
#endif

int ompi5_may_oversubscribe(void)
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    static int known = -1; /* the job's mapping policy does not change */
    if (known < 0) {
        char m[256] = "";
        known = ductile_pmix_job_string("pmix.mapby", m, sizeof m) == 0 && mapby_oversubscribes(m);
        ductile_log(2, "Open MPI 5: job mapping policy '%s': %s", m,
                    known ? "may oversubscribe" : "no oversubscription");
    }
    return known;
#else
    return 0;
#endif
}

void ompi5_spawn_info(MPI_Info info)
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
    if (ompi5_may_oversubscribe()) PMPI_Info_set(info, "map-by", ":OVERSUBSCRIBE");
#else
    (void)info;
#endif
}
