/* settings.h -- every DUCTILE_* environment setting: the one table, parsing
 * and validation (pure C, no MPI).  A bad or unknown DUCTILE_* variable is an
 * error that names the variable, its value and what is allowed.  The table
 * (settings.gen.c) is generated from settings.toml by tools/gen-settings.py,
 * like the docs' settings tables and the man page libductile(7): to add a
 * setting, see the head of settings.toml. */
#ifndef DUCTILE_SETTINGS_H
#define DUCTILE_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

/* SETTING_ADDRESS: where ductiled is (auto, off, none, unix:PATH,
 * tcp:HOST:PORT, or a path with a '/'), checked for form here; the same
 * form src/proto/net.c's net_parse_addr takes (tests/unit/test_settings.c
 * checks that they agree). */
enum settings_type { SETTING_BOOL, SETTING_INT, SETTING_STRING, SETTING_ENUM, SETTING_ADDRESS };

struct setting_def {
    const char *name;          /* DUCTILE_... */
    enum settings_type type;
    const char *default_value; /* as text */
    long min, max;             /* SETTING_INT bounds (inclusive) */
    const char *choices;       /* SETTING_ENUM: comma-separated words */
    const char *values;        /* SETTING_STRING, SETTING_ADDRESS: what values look like (--help) */
    const char *none_word;     /* SETTING_STRING: a word that means "" (NULL: none) */
    const char *help;          /* what it does, for --help */
    size_t field_offset;       /* where the value goes in struct ductile_settings ... */
    unsigned char field_size;  /* ... and its size (0: no field; read with getenv where used) */
};

/* The parsed settings.  Strings point into the environment or the defaults
 * and stay valid while the environment is not modified. */
struct ductile_settings {
    int disable;             /* DUCTILE_DISABLE: pure pass-through */
    int monitor;             /* DUCTILE_MONITOR */
    int time_sample;         /* DUCTILE_TIME_SAMPLE: time 1 call in N (1: every call) */
    const char *report;      /* DUCTILE_REPORT: path template, "" = none */
    int summary;             /* DUCTILE_SUMMARY */
    int verbose;             /* DUCTILE_VERBOSE: 0..3 */
    int iter_detect;         /* DUCTILE_ITER_DETECT */
    int iter_frames;         /* DUCTILE_ITER_FRAMES */
    int iter_repeats;        /* DUCTILE_ITER_REPEATS */
    long iter_max_calls;     /* DUCTILE_ITER_MAX_CALLS */
    const char *job_id;      /* DUCTILE_JOB_ID: "" = derived from rank 0's pid */
    /* malleability (src/malleable/) */
    const char *schedule;    /* DUCTILE_SCHEDULE: "" = no scheduled resizes */
    const char *resize_method; /* DUCTILE_RESIZE_METHOD: merge | baseline */
    const char *redist;      /* DUCTILE_REDIST: col | p2p | rma-lock | rma-lockall | auto */
    const char *redist_constant; /* DUCTILE_REDIST_CONSTANT: blocking | nb | wd | thread */
    const char *spawn_parallel;  /* DUCTILE_SPAWN_PARALLEL: auto | on | off (src/malleable/pspawn.c) */
    int redist_prepare;      /* DUCTILE_REDIST_PREPARE: prepare the transfer during the spawn */
    long block_cache_mib;    /* DUCTILE_BLOCK_CACHE_MIB: old blocks kept for the next resize (blockcache.c) */
    int persistent;          /* DUCTILE_PERSISTENT: standby processes and prepared transfers (persist.c) */
    const char *rma_window;  /* DUCTILE_RMA_WINDOW: reuse | create (src/rma/) */
    const char *rma_memory;  /* DUCTILE_RMA_MEMORY: private | shared (persist.c) */
    const char *rma_osc;     /* DUCTILE_RMA_OSC: Open MPI osc component for rma-* ("auto", "keep", or a name) */
    long test_int_limit;     /* DUCTILE_TEST_INT_LIMIT: int range of the transfers, for tests (0: INT_MAX) */
    const char *spawn_hosts; /* DUCTILE_SPAWN_HOSTS: default host list for expansions */
    const char *spawn_command; /* DUCTILE_SPAWN_COMMAND: executable to spawn ("" = this program) */
    long leave_timeout;      /* DUCTILE_LEAVE_TIMEOUT: seconds a removed process waits for the job's end */
    const char *wsize;       /* DUCTILE_WSIZE: flexmpi | first (EMPI_Get_wsize's extra rows) */
    long resize_timeout;     /* DUCTILE_RESIZE_TIMEOUT: seconds every bounded wait inside a resize waits */
    const char *test_fail;   /* DUCTILE_TEST_FAIL (tests only): a step, or alloc:K@RANK, mpi:K@RANK, count@RANK */
    const char *test_delay;  /* DUCTILE_TEST_DELAY (tests only): STEP:SECONDS@RANK */
    /* controllers (src/controller/) */
    const char *controller;  /* DUCTILE_CONTROLLER: "" / auto, off, unix:PATH, tcp:HOST:PORT */
    const char *controller_secret; /* DUCTILE_CONTROLLER_SECRET: shared-secret file for TCP */
    long controller_period;  /* DUCTILE_CONTROLLER_PERIOD: milliseconds between monitoring samples */
    int min_procs, max_procs; /* DUCTILE_MIN_PROCS / DUCTILE_MAX_PROCS: the job's bounds (0: none) */
    const char *sizes;       /* DUCTILE_SIZES: size constraints (src/common/sizes.h), "" none */
    /* MPI-IO (src/io/) */
    int io_exclusive;        /* DUCTILE_IO_EXCLUSIVE: wait for ductiled's I/O token */
    long io_phase_gap;       /* DUCTILE_IO_PHASE_GAP: ms without I/O that end an I/O phase */
    long io_hold_max;        /* DUCTILE_IO_HOLD_MAX: seconds an I/O hold of ductiled lasts at most */
};

/* The table of all settings (settings.gen.c), terminated by a {NULL} entry. */
extern const struct setting_def ductile_setting_defs[];

/* Look up a variable in `envp` (a NULL-terminated "NAME=value" array, such as
 * `environ`) and fill `out`.  Returns 0 on success.  On the first bad or
 * unknown DUCTILE_* variable returns -1 and writes a one-line message (no
 * trailing newline) into errbuf. */
int settings_parse(char *const *envp, struct ductile_settings *out,
                   char *errbuf, size_t errlen);

/* Parse one boolean word (1/0, yes/no, on/off, true/false; case-insensitive).
 * Returns 0 or 1, or -1 when the word is not a boolean. */
int settings_parse_bool(const char *text);

/* Check the form of a controller address (SETTING_ADDRESS).  Returns 0, or
 * -1 with the reason in why. */
int settings_check_address(const char *value, char *why, size_t whylen);

/* Print the settings table as --help text (wrapped for an 80-column terminal). */
void settings_print_help(void *file);

/* Expand a report path template: %j -> job id, %p -> pid of rank 0, %% -> %.
 * Returns 0, or -1 when the result does not fit. */
int settings_expand_path(const char *tmpl, const char *job_id, long pid,
                         char *out, size_t outlen);

#endif
