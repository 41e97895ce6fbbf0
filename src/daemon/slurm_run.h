/* slurm_run.h -- running Slurm's commands from ductiled at start-up
 * (slurm.c, slurm_grow.c): bounded fork/exec, and the parsing of scontrol's
 * answers; in the loop they run without waiting (children.h). */
#ifndef DUCTILE_SLURM_RUN_H
#define DUCTILE_SLURM_RUN_H

#include <stddef.h>

#define SLURM_WAIT 10.0

/* Run argv (PATH searched) in a private directory (mkdtemp, mode 0700,
 * removed at exit) with stdout+stderr into out
 * (NUL-terminated), bounded by SLURM_WAIT.  The exit status, or -1 with out
 * holding the reason. */
int slurm_run(char *const argv[], char *out, size_t outlen);
void slurm_chomp(char *s);
/* The private working directory of Slurm's commands (scontrol update of a
 * node list writes slurm_job_J_resize.* there): made once (mkdtemp, mode
 * 0700), removed at exit; "/" when it cannot be made. */
const char *slurm_workdir(void);
/* scontrol show hostnames LIST -> one name per line in buf; 0 or -1 (buf: why). */
int slurm_hostnames(const char *list, char *buf, size_t len);
/* The value of KEY=... in scontrol's one-line output; 0 or -1 (not there). */
int slurm_field(const char *line, const char *key, char *out, size_t len);
/* SLURM_JOB_CPUS_PER_NODE: "2(x3),1" -> cpus[0..n).  The count, or -1. */
int slurm_parse_cpus(const char *spec, int *cpus, int max);
struct rm;
/* rm's hosts from scontrol show hostnames' lines (names, modified), with
 * cpus[k] CPUs for the k-th (ncpus of them), or numcpus spread over the
 * hosts when cpus is NULL.  0, or -1 with err set. */
int slurm_fill_hosts(struct rm *rm, char *names, const int *cpus, int ncpus, long numcpus, char *err, size_t errlen);

/* "0-1,4" -> 3 (scontrol's CPU_IDs); -1 when malformed. */
int slurm_count_ids(const char *ids);
/* Remove the slurm_job_J_resize.sh/.csh that scontrol update of a node list
 * writes into its working directory (slurm_run's private directory). */
void slurm_resize_files_remove(const char *jobid);

#endif
