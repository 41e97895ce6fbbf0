/* spawn_check.c -- what an expansion starts from (spawn.c): the program to
 * spawn and its arguments, the spawn's info (hosts; Open MPI 5's mapping,
 * spawn_ompi5.c), and rank 0's checks of what can be known to fail before
 * anything starts. */
#include "engine.h"
#include "launch_step.h"

/* The program to start and its arguments (argv[1..] of this process). */
int spawn_command(char *cmd, size_t len, char ***args_out)
{
    const char *sc = ductile_rt.settings.spawn_command;
    if (sc && *sc) {
        snprintf(cmd, len, "%s", sc);
    } else {
        ssize_t n = readlink("/proc/self/exe", cmd, len - 1);
        if (n <= 0) {
            if (!ductile_rt.cmdline) return -1;
            snprintf(cmd, len, "%s", ductile_rt.cmdline);
        } else {
            cmd[n] = '\0';
        }
    }
    int nargs = 0;
    for (int off = 0; ductile_rt.cmdline && off < ductile_rt.cmdline_len;) {
        nargs++;
        off += (int)strlen(ductile_rt.cmdline + off) + 1;
    }
    char **args = txn_calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *args);
    if (!args) return -1;
    int k = 0, i = 0;
    for (int off = 0; ductile_rt.cmdline && off < ductile_rt.cmdline_len; i++) {
        if (i > 0) args[k++] = ductile_rt.cmdline + off;
        off += (int)strlen(ductile_rt.cmdline + off) + 1;
    }
    args[k] = NULL;
    *args_out = args;
    return 0;
}

MPI_Info spawn_info(const char *hosts)
{
    MPI_Info info = MPI_INFO_NULL;
    int need = (hosts && *hosts) || ompi5_may_oversubscribe(); /* Open MPI 5: map-by (spawn_ompi5.c) */
    if (!need) return MPI_INFO_NULL;
    PMPI_Info_create(&info);
    if (hosts && *hosts) {
        /* one name per new process, as runs "a:2,b:3" (precheck_spawn checked they fit an info value) */
        char *h = schedule_host_runs(hosts, NULL);
        if (h && strlen(h) < MPI_MAX_INFO_VAL) {
            PMPI_Info_set(info, "host", h);
#ifdef MPICH_VERSION
            PMPI_Info_set(info, "hosts", h);
#endif
        }
        free(h);
    }
    ompi5_spawn_info(info);
    return info;
}

/* Checks before MPI_Comm_spawn, on rank 0.  A spawn that fails is not
 * always harmless (with Open MPI 4.1 mpiexec then never exits, and a later
 * spawn kills the job), so what can be known to fail is refused here. */
int precheck_spawn(const char *cmd, const char *hosts, int ns, int nnew, int groups, char *why, size_t len)
{
    (void)ns;
    if (launch_step_refused(why, len) != 0) return -1; /* started by srun: what this MPI cannot do there */
    struct stat st;
    if (stat(cmd, &st) != 0) {
        snprintf(why, len, "executable '%.300s' is not runnable: %s", cmd, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(cmd, X_OK) != 0) {
        snprintf(why, len, "executable '%.300s' is not runnable: %s", cmd,
                 !S_ISREG(st.st_mode) ? "not a regular file" : strerror(errno));
        return -1;
    }
    FILE *f = fopen(cmd, "rb");
    unsigned char magic[4] = {0, 0, 0, 0};
    size_t got = f ? fread(magic, 1, sizeof magic, f) : 0;
    if (f) fclose(f);
    if (!(got == 4 && memcmp(magic, "\x7f" "ELF", 4) == 0) && !(got >= 2 && magic[0] == '#' && magic[1] == '!')) {
        snprintf(why, len, "executable '%.300s' is not runnable: neither an ELF binary nor a script", cmd);
        return -1;
    }
#ifdef MPICH_VERSION
    /* hydra (MPICH's process manager) cannot parse a spawn command holding an empty argument and
     * ends the whole job ("unable to parse PMI command"): refused here, the job goes on */
    for (int off = 0, i = 0; !launch_step_direct() && ductile_rt.cmdline && off < ductile_rt.cmdline_len; i++) {
        size_t l = strlen(ductile_rt.cmdline + off);
        if (i > 0 && l == 0) {
            snprintf(why, len, "argument %d of the program is empty, and MPICH's process manager ends the whole job "
                     "when it spawns such a command line: start the program without empty arguments", i);
            return -1;
        }
        off += (int)l + 1;
    }
#endif
    long nruns = 0;
    char *runs = hosts && *hosts ? schedule_host_runs(hosts, &nruns) : NULL;
    if (hosts && *hosts && !runs) {
        snprintf(why, len, "out of memory for the host list");
        return -1;
    }
    /* a parallel spawn's parents each pass their share's runs (pspawn.c): the longest must fit */
    size_t need = runs && groups > 1 ? schedule_share_runs_max(hosts, nnew, groups) : runs ? strlen(runs) : 0;
    if (runs && !launch_step_direct() && need >= MPI_MAX_INFO_VAL) { /* srun takes its own list */
        snprintf(why, len, "the host list (%ld runs of hosts, '%.60s...') takes %zu characters as %s \"host\" "
                 "info value, more than this MPI allows (MPI_MAX_INFO_VAL %d): give the new processes fewer hosts, "
                 "or grouped by host", nruns, runs, need,
                 groups > 1 ? "the longest of the parallel spawn's shares'" : "the spawn's", MPI_MAX_INFO_VAL);
        free(runs);
        return -1;
    }
    /* each host named once: one lookup per run, not per new process */
    for (const char *p = runs ? runs : ""; *p;) {
        const char *e = p;
        while (*e && *e != ',') e++;
        char h[256];
        snprintf(h, sizeof h, "%.*s", (int)(e - p), p);
        char *colon = strchr(h, ':');
        if (colon) *colon = '\0';
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        int rc = getaddrinfo(h, NULL, &hints, &res);
        if (rc != 0) {
            snprintf(why, len, "unknown host '%s': %s", h, gai_strerror(rc));
            free(runs);
            return -1;
        }
        freeaddrinfo(res);
        p = *e ? e + 1 : e;
    }
    free(runs);
#ifdef OMPI_MAJOR_VERSION
    /* Open MPI: without --oversubscribe the job may not exceed its slots */
    const char *ov = getenv("OMPI_MCA_rmaps_base_oversubscribe");
    if (!(ov && strcmp(ov, "1") == 0) && !ompi5_may_oversubscribe() && !(hosts && *hosts)) {
        int *usize = NULL, flag = 0;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        int live = ns + M.zombies;
        if (flag && usize && *usize > 0 && live + nnew > *usize) {
            snprintf(why, len, "more processes than slots: %d running + %d new > %d slots (mpiexec --oversubscribe allows it)",
                     live, nnew, *usize);
            return -1;
        }
    }
#endif
    return 0;
}
