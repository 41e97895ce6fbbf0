/* procstat.h -- what a test process holds, read from /proc/self (the long
 * tests' STAT lines: tests/long/cycle_app.c, soak_app.c), and the comma
 * lists of iterations at which they print it, and their last line.  Header-only: each test
 * program includes it once. */
#ifndef DUCTILE_TESTS_PROCSTAT_H
#define DUCTILE_TESTS_PROCSTAT_H

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries of a directory (/proc/self/fd, /proc/self/task), its own descriptor included. */
static inline int procstat_entries(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

/* Open file descriptors, not counting the one used to count them. */
static inline int procstat_fds(void) { return procstat_entries("/proc/self/fd") - 1; }

static inline long procstat_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

/* Is `it` in the comma list `list` (NULL: no)? */
static inline int procstat_listed(const char *list, int it)
{
    for (const char *p = list; p && *p;) {
        if (atoi(p) == it) return 1;
        p = strchr(p, ',');
        if (p) p++;
    }
    return 0;
}

/* The program's last line on rank 0 of the world: "FINAL size=S iterations=I failures=F" (F summed over the world). */
static inline void procstat_final(MPI_Comm world, int failures, int it)
{
    int fl = 0, rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Allreduce(&failures, &fl, 1, MPI_INT, MPI_SUM, world);
    if (rank == 0) printf("FINAL size=%d iterations=%d failures=%d\n", size, it, fl);
    fflush(stdout);
}

#endif
