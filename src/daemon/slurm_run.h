/* slurm_run.h -- running Slurm's commands from ductiled (slurm.c): bounded
 * fork/exec and the parsing of scontrol's answers. */
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

/* Hosts and CPUs Slurm added to a job. */
struct slurm_piece {
    char name[256];
    int cpus;
};
/* Grow Slurm job `jobid` by ncpus CPUs on hosts not in `exclude` (the job's
 * hosts; Slurm's job expansion, which needs
 * SchedulerParameters=permit_job_expansion): salloc --no-shell --immediate
 * --dependency=expand:J -n ncpus --exclude gets a job J2, whose hosts and
 * CPUs go to got[], then scontrol update JobId=J2 NumNodes=0 hands them to J.
 * Every step bounded (SLURM_WAIT); J2 is cancelled when a step fails.  The
 * number of pieces, or -1 with Slurm's reason in why. */
int slurm_expand(const char *jobid, int ncpus, const char *exclude, struct slurm_piece *got, int max, char *why, size_t len);
/* Remove the slurm_job_J_resize.sh/.csh that scontrol update of a node list
 * writes into its working directory (slurm_run's private directory). */
void slurm_resize_files_remove(const char *jobid);

#endif
