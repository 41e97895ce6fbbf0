/* pmix.h -- job and allocation facts from the PMIx server that runs this
 * process (Open MPI's mpiexec/orted, srun --mpi=pmix), read with the PMIx
 * client API from a libpmix loaded at run time (no link dependency). */
#ifndef DUCTILE_CLUSTER_PMIX_H
#define DUCTILE_CLUSTER_PMIX_H

#include <stddef.h>

#include <jansson.h>

/* {"nspace", "job_size", "univ_size", "node_list"} (the keys PMIx answered),
 * or NULL with the reason in why: no PMIx server runs this process
 * (PMIX_NAMESPACE unset), no libpmix, or PMIx_Init failed.  Call after
 * MPI_Init (the MPI has connected to the server); bounded by the server. */
json_t *ductile_pmix_facts(char *why, size_t len);

/* A job-level string fact of this process's job (e.g. "pmix.mapby") into
 * out: 0, or -1 when there is no PMIx server, no libpmix or no such string. */
int ductile_pmix_job_string(const char *key, char *out, size_t len);

#endif
