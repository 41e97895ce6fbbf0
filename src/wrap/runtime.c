/* runtime.c -- Ductile's life cycle: MPI_Init-time set-up of the process-wide
 * state (src/core/state.h: settings, virtual world, private communicator,
 * clock) and MPI_Finalize-time tear-down (report and summary, freeing
 * Ductile's communicators), the modules reached through the hook table.
 * A program of the MPI-4 Sessions model that never calls MPI_Init is
 * monitored from its first MPI_Session_init to its last
 * MPI_Session_finalize (the ductile_runtime_session_* functions, called by
 * src/wrap/sessions.c): no virtual world, no engine, no controller. */
#include "config.h"

#include "runtime.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "../core/hotpath.h"
#include "../core/hooks.h" /* the modules: engine, controller, I/O, monitor */
#include "../world/worldid.h"

extern char **environ;

/* Rank from the launcher's environment, before MPI is up (-1 if unknown). */
static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return -1;
}

static void read_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY);
    if (fd < 0) return;
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return;
    ductile_rt.cmdline = malloc((size_t)n + 1);
    if (!ductile_rt.cmdline) return;
    memcpy(ductile_rt.cmdline, buf, (size_t)n);
    ductile_rt.cmdline[n] = '\0';
    ductile_rt.cmdline_len = (int)n;
}

/* Once per process, at MPI_Init or at the first MPI_Session_init: the hook
 * table, the settings (a bad value exits with a message naming it).  Returns
 * 1 when Ductile is disabled (DUCTILE_DISABLE=1). */
static int settings_once(void)
{
    static int done, disabled;
    if (done) return disabled;
    done = 1;
    char err[512];
    ductile_hooks_load(); /* the modules above src/wrap fill their slots of the hook table */
    ductile_worldid_early_init(); /* was this process spawned by Ductile? (src/world/worldid.c) */
    /* The kill switch is read on its own, so that a bad value elsewhere cannot stop a disabled shim. */
    const char *disable = getenv("DUCTILE_DISABLE");
    if (disable && settings_parse_bool(disable) == 1) {
        ductile_rt.settings.disable = 1;
        return disabled = 1;
    }
    if (settings_parse(environ, &ductile_rt.settings, err, sizeof err) != 0 ||
        DUCTILE_HOOK(check_settings, (&ductile_rt.settings, err, sizeof err)) != 0) {
        int r = launcher_rank();
        if (r <= 0) fprintf(stderr, "ductile: error: %s\n", err);
        fflush(stderr);
        if (r > 0) {
            /* let rank 0 print and end first: a launcher that kills the job at the first exit
             * (Open MPI 5's prterun) would otherwise drop its message */
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
        }
        exit(2);
    }
    return 0;
}

/* The clocks' origin: `t_before` was read right before the MPI's start-up call. */
static void clock_start(uint64_t t_before)
{
    ductile_rt.start_ticks = t_before;
    ductile_rt.calib_ticks = ductile_ticks();
    ductile_rt.start_sec = ductile_now();
    struct timeval tv;
    gettimeofday(&tv, NULL);
    ductile_rt.start_epoch = (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* by_session: 1 from a program's first MPI_Session_init (no MPI_Init before)
 * until its last MPI_Session_finalize or its MPI_Init, whichever comes first.
 * life_over: the report was written (MPI_Finalize, or the last session's end):
 * no second start, no second report. */
static int by_session;
static int life_over;

/* rank 0's pid for the job id, and whether rank 0 found a controller */
static long agree_job(int probe)
{
    long hdr[2] = {(long)getpid(), probe && ductile_rt.rank == 0 ? DUCTILE_HOOK(ctl_probe, ()) : 0};
    PMPI_Bcast(hdr, 2, MPI_LONG, 0, ductile_rt.private_comm);
    ductile_rt.job_pid = hdr[0];
    if (ductile_rt.settings.job_id && *ductile_rt.settings.job_id)
        snprintf(ductile_rt.job_id, sizeof ductile_rt.job_id, "%s", ductile_rt.settings.job_id);
    else
        snprintf(ductile_rt.job_id, sizeof ductile_rt.job_id, "%ld", hdr[0]);
    return hdr[1];
}

int ductile_runtime_init(int *argc, char ***argv, int required, int *provided, int with_thread)
{
    if (settings_once() && !life_over) {
        /* disabled: a pure pass-through; the EMPI calls still see MPI's rank and size (a static run) */
        int rc = with_thread ? PMPI_Init_thread(argc, argv, required, provided) : PMPI_Init(argc, argv);
        if (rc == MPI_SUCCESS) {
            PMPI_Comm_rank(MPI_COMM_WORLD, &ductile_rt.rank);
            PMPI_Comm_size(MPI_COMM_WORLD, &ductile_rt.size);
        }
        return rc;
    }
    if (life_over) return with_thread ? PMPI_Init_thread(argc, argv, required, provided) : PMPI_Init(argc, argv);
    int from_session = by_session; /* a session started monitoring before this MPI_Init */
    ductile_worldid_mpi_env(); /* before PMPI_Init (src/world/worldid.c) */
    uint64_t t_before = ductile_ticks();
    int rc = with_thread ? PMPI_Init_thread(argc, argv, required, provided) : PMPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) return rc;

    /* a process Ductile spawned calibrates its clock (a 5 ms busy loop) after it has
     * joined its parents (engine_init below): they wait for it (issue 10, item 7) */
    int joins = ductile_spawned_by_ductile();
    if (!from_session) {
        if (!joins) ductile_clock_calibrate();
        clock_start(t_before);
    }
    PMPI_Query_thread(&ductile_rt.thread_level);
    ductile_threaded |= ductile_rt.thread_level == MPI_THREAD_MULTIPLE;
    /* the session's private communicator (every process is here: MPI_Init is collective) */
    if (ductile_rt.private_comm != MPI_COMM_NULL) PMPI_Comm_free(&ductile_rt.private_comm);
    by_session = 0;

    MPI_Comm world;
    PMPI_Comm_dup(MPI_COMM_WORLD, &world);
    PMPI_Comm_set_name(world, "MPI_COMM_WORLD");
    PMPI_Comm_dup(MPI_COMM_WORLD, &ductile_rt.private_comm);
    PMPI_Comm_set_name(ductile_rt.private_comm, "ductile-private");
    ductile_world = world;
    PMPI_Comm_rank(world, &ductile_rt.rank);
    PMPI_Comm_size(world, &ductile_rt.size);
    if (!ductile_rt.cmdline) read_cmdline();

    /* whether rank 0 found a controller (src/controller/appctl.c) */
    int ctl = (int)agree_job(1);
    DUCTILE_HOOK_VOID(fold_init, (ctl)); /* process folding (src/fold/): before a spawned process joins its parents */
    /* malleability: request queue; a spawned process joins its parents here */
    DUCTILE_HOOK_VOID(engine_init, ());
    if (joins && !from_session) ductile_clock_calibrate();
    DUCTILE_HOOK_VOID(ctl_start, (ctl));
    DUCTILE_HOOK_VOID(io_init, ()); /* MPI-IO accounting and phases (src/io/) */

    ductile_rt.active = 1;
    ductile_time_sample_set((uint32_t)ductile_rt.settings.time_sample);
    ductile_monitoring = ductile_rt.settings.monitor;
    if (ductile_monitoring) {
        DUCTILE_HOOK_VOID(monitor_start, (ductile_rt.settings.iter_detect && !ductile_threaded,
                                          ductile_rt.settings.iter_frames, ductile_rt.settings.iter_repeats,
                                          ductile_rt.settings.iter_max_calls));
        ductile_count(with_thread ? DUCTILE_FN_MPI_Init_thread : DUCTILE_FN_MPI_Init,
                      ductile_ticks() - t_before, 0, 0);
    }
    ductile_log(1, "initialised: job %s, %d ranks, %s, thread level %d, monitoring %s", ductile_rt.job_id,
                ductile_rt.size, DUCTILE_MPI_FAMILY, ductile_rt.thread_level,
                ductile_monitoring ? "on" : "off");
    return rc;
}

int ductile_runtime_finalize(void)
{
    if (!ductile_rt.active) return PMPI_Finalize();
    DUCTILE_HOOK_VOID(ctl_stop, ()); /* the controller thread says goodbye to ductiled (bounded) */
    DUCTILE_HOOK_VOID(fold_finalize, ()); /* original affinity back (src/fold/) */
    uint64_t t_fin = ductile_ticks();
    if (ductile_monitoring) {
        ductile_count(DUCTILE_FN_MPI_Finalize, 0, 0, 0);
        DUCTILE_HOOK_VOID(monitor_stop, ());
    }
    ductile_monitoring = 0;
    ductile_clock_refine(ductile_rt.calib_ticks, ductile_rt.start_sec, t_fin, ductile_now());
    /* a process removed by a resize waits here (asleep) and takes no part in the report */
    int removed = DUCTILE_HOOK(engine_finalize_begin, ());
    if (ductile_rt.settings.monitor && !removed) DUCTILE_HOOK_VOID(report_write, (t_fin));
    DUCTILE_HOOK_VOID(engine_finalize_end, ());

    ductile_world_end(); /* src/world/worldid.c */
    free(ductile_rt.cmdline);
    ductile_rt.cmdline = NULL;
    life_over = 1;
    return PMPI_Finalize();
}

/* ------------------------------------------------------------------ MPI-4 Sessions */

int ductile_runtime_session_begin(void)
{
    if (ductile_rt.active || by_session || life_over) return 0;
    if (settings_once()) return 0;
    ductile_worldid_mpi_env(); /* before the MPI starts (src/world/worldid.c) */
    ductile_clock_calibrate();
    clock_start(ductile_ticks());
    read_cmdline();
    by_session = 1;
    ductile_rt.rank = 0;
    ductile_rt.size = 1;
    snprintf(ductile_rt.job_id, sizeof ductile_rt.job_id, "%ld", (long)getpid());
    ductile_rt.job_pid = (long)getpid();
    DUCTILE_HOOK_VOID(io_init, ()); /* MPI-IO accounting (src/io/) */
    ductile_time_sample_set((uint32_t)ductile_rt.settings.time_sample);
    ductile_monitoring = ductile_rt.settings.monitor;
    return 1;
}

int ductile_runtime_by_session(void) { return by_session; }

void ductile_runtime_session_threads(int multiple)
{
    if (!by_session) return;
    if (multiple) ductile_rt.thread_level = MPI_THREAD_MULTIPLE;
    ductile_threaded |= multiple;
}

void ductile_runtime_session_world(MPI_Comm private_comm)
{
    ductile_rt.private_comm = private_comm;
    PMPI_Comm_rank(private_comm, &ductile_rt.rank);
    PMPI_Comm_size(private_comm, &ductile_rt.size);
    agree_job(0);
    ductile_log(1, "sessions: monitoring job %s, %d processes in mpi://WORLD, %s, monitoring %s", ductile_rt.job_id,
                ductile_rt.size, DUCTILE_MPI_FAMILY, ductile_monitoring ? "on" : "off");
}

void ductile_runtime_session_end(void)
{
    if (!by_session) return;
    uint64_t t_fin = ductile_ticks();
    ductile_monitoring = 0;
    ductile_clock_refine(ductile_rt.calib_ticks, ductile_rt.start_sec, t_fin, ductile_now());
    if (ductile_rt.private_comm != MPI_COMM_NULL) {
        if (ductile_rt.settings.monitor) DUCTILE_HOOK_VOID(report_write, (t_fin));
        PMPI_Comm_free(&ductile_rt.private_comm);
    } else if (ductile_rt.settings.monitor) {
        /* the report is combined over a communicator of mpi://WORLD, made when the program made one */
        ductile_log(1, "sessions: no report (the program made no communicator of mpi://WORLD)");
    }
    free(ductile_rt.cmdline);
    ductile_rt.cmdline = NULL;
    by_session = 0;
    life_over = 1;
}
