/* settings.c -- the DUCTILE_* settings table, parsing and validation.
 * Pure C (no MPI): unit-tested by tests/unit/test_settings.c, and linked into
 * tools/ductile-run for its --help text. */
#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct setting_def ductile_setting_defs[] = {
    {"DUCTILE_DISABLE", SETTING_BOOL, "0", 0, 0, NULL,
     "Kill switch: the shim becomes a pure pass-through (no virtual world, no monitoring, no report)."},
    {"DUCTILE_MONITOR", SETTING_BOOL, "1", 0, 0, NULL,
     "Count calls, time and bytes per MPI function. 0 keeps the virtual world but measures nothing."},
    {"DUCTILE_REPORT", SETTING_STRING, "ductile-%j.json", 0, 0, NULL,
     "Path of the JSON report written by rank 0 at MPI_Finalize; %j is the job id, %p rank 0's pid. Empty or 'none': no report."},
    {"DUCTILE_SUMMARY", SETTING_BOOL, "1", 0, 0, NULL,
     "Print a short summary on rank 0's stderr at MPI_Finalize."},
    {"DUCTILE_REPORT_RANKS", SETTING_INT, "256", 0, 2000000000L, NULL,
     "Largest job whose report lists every rank's functions (the \"ranks\" array, gathered on rank 0); larger jobs "
     "get only the figures combined by reductions."},
    {"DUCTILE_VERBOSE", SETTING_INT, "0", 0, 3, NULL,
     "Trace Ductile's decisions on stderr: 0 quiet, 1 decisions, 2 details, 3 everything."},
    {"DUCTILE_ITER_DETECT", SETTING_BOOL, "1", 0, 0, NULL,
     "Detect the main loop of unmodified programs from the call sites of their MPI calls."},
    {"DUCTILE_ITER_FRAMES", SETTING_INT, "3", 1, 8, NULL,
     "Stack frames (return addresses) that identify a call site for the iteration detector."},
    {"DUCTILE_ITER_REPEATS", SETTING_INT, "3", 2, 64, NULL,
     "How many times the loop body must repeat in a row before it counts as the main loop."},
    {"DUCTILE_ITER_MAX_CALLS", SETTING_INT, "1000000", 0, 2000000000L, NULL,
     "Stop looking for a loop after this many MPI calls without finding one (0: never stop)."},
    {"DUCTILE_JOB_ID", SETTING_STRING, "", 0, 0, NULL,
     "Job identifier used in the report name and by the controller. Default: rank 0's pid."},
    {"DUCTILE_SCHEDULE", SETTING_STRING, "", 0, 0, NULL,
     "Scheduled resizes of a malleable (EMPI) program, e.g. '10:+2,40:-3': at iteration 10 add 2 processes, "
     "at 40 remove 3. Also ITER:=N (resize to N), ITER:+N@host1;host2 (place new processes), "
     "ITER:-N@r1;r2 (these ranks leave). Empty: no scheduled resizes."},
    {"DUCTILE_RESIZE_METHOD", SETTING_ENUM, "merge", 0, 0, "merge,baseline",
     "How a resize is done: merge (spawn only the difference, old ranks keep their numbers) or baseline "
     "(spawn the whole new world, all old processes leave)."},
    {"DUCTILE_REDIST", SETTING_ENUM, "col", 0, 0, "col,p2p,rma-lock,rma-lockall,rma-fence,auto",
     "How registered data moves at a resize: col (one MPI_Alltoallv per array), p2p (MPI_Isend/MPI_Irecv "
     "and a local copy of the overlap), rma-lock / rma-lockall (drains MPI_Get their new block from the sources' "
     "window, one lock per source or one lock_all epoch; docs/rma.md), rma-fence (MPI_Win_create over the old "
     "block, gets between two fences; blocking only), or auto (a cost model picks method and "
     "constant-data strategy per resize)."},
    {"DUCTILE_REDIST_CONSTANT", SETTING_ENUM, "blocking", 0, 0, "blocking,nb,wd,thread",
     "Constant registered data: blocking (moves with the variable data), nb (nonblocking MPI_Ialltoallv "
     "overlapped with iterations, col only), wd (Wait Drains: nonblocking transfer, then an MPI_Ibarrier polled "
     "at control points) or thread (an auxiliary thread moves it; needs MPI_THREAD_MULTIPLE)."},
    /* one-sided redistribution (src/rma/, docs/rma.md) */
    {"DUCTILE_RMA_WINDOW", SETTING_ENUM, "reuse", 0, 0, "reuse,create",
     "Windows of the rma-* methods: reuse (one dynamic window per world, created at its first use and reused by "
     "every later redistribution while the world lasts) or create (MPI_Win_create per array and resize, as in "
     "the MaM RMA paper)."},
    {"DUCTILE_RMA_MEMORY", SETTING_ENUM, "private", 0, 0, "private,shared",
     "With DUCTILE_PERSISTENT=1 and an rma-* method: private (the arrays' new blocks are ordinary memory, read "
     "through MPI windows) or shared (when every process of the job is on one node, Ductile allocates the new "
     "blocks from MPI_Win_allocate_shared windows, and later transfers are direct copies from the sources' "
     "memory; docs/rma.md)."},
    {"DUCTILE_RMA_OSC", SETTING_STRING, "auto", 0, 0, NULL,
     "Open MPI only: one-sided component set as OMPI_MCA_osc before MPI_Init when an rma-* or auto method is "
     "selected and OMPI_MCA_osc is unset ('auto': ucx, the only component of Open MPI 4.1 that creates windows "
     "spanning spawned processes, plus sm with DUCTILE_RMA_MEMORY=shared; with Open MPI 5 'auto' is 'keep', its "
     "own choice spans them; 'keep': do not touch OMPI_MCA_osc)."},
    {"DUCTILE_REDIST_PREPARE", SETTING_INT, "1", 0, 1, NULL,
     "1: prepare an expansion's data transfer while the new processes start (old ranks allocate and touch their "
     "new buffers during the spawn; one small exchange opens the connections after the merge). 0: do not."},
    {"DUCTILE_PERSISTENT", SETTING_BOOL, "0", 0, 0, NULL,
     "1: persistent redistribution (docs/rma.md). Removed processes stand by inside the control point, and the "
     "next expansion back to the same size takes them back instead of spawning; transfers between the two sizes "
     "are prepared once (MPI_Alltoallv_init, persistent send/receive, one-sided windows) and reused. The program "
     "must read the iteration with EMPI_Get_iteration() after each control point, or its removed processes leave "
     "as usual."},
    {"DUCTILE_TEST_FAIL", SETTING_ENUM, "none", 0, 0, "none,spawn,alloc,register,transfer,bgtransfer,bgtransfer-first,step,connect",
     "For tests only: make one step of every resize fail on purpose (spawn: rank 0's spawn is refused; alloc: a "
     "process cannot allocate its new blocks; register: a new process's registration differs; transfer: the "
     "blocking transfer reports an error; bgtransfer: the background transfer of constant data reports an "
     "error; bgtransfer-first: only that of the job's first resize; under srun: step: the new step cannot start, "
     "connect: its last process never connects), to check that the job goes on at its old size with its data (docs/malleability.md)."},
    {"DUCTILE_STEP_TIMEOUT", SETTING_INT, "120", 1, 86400, NULL,
     "Jobs started by srun: seconds rank 0 waits for the processes of a new step (an expansion) to report ready; "
     "then the step is ended and the job goes on at its old size (docs/cluster.md, \"Direct launch\")."},
    {"DUCTILE_DEPARTURE", SETTING_ENUM, "auto", 0, 0, "auto,exit,park",
     "What processes removed by a shrink do when they are a whole spawned group, and the new processes of a "
     "rolled-back or cancelled expansion (docs/malleability.md): exit "
     "(disconnect and end at once, giving back cores and memory), park (wait asleep until the job ends), or auto: "
     "exit with MPICH and Open MPI 5, park with Open MPI 4 (its runtime hung or timed out in later spawns after spawned jobs "
     "ended)."},
    {"DUCTILE_TEST_BIGCOLL", SETTING_ENUM, "auto", 0, 0, "auto,int,c,w",
     "For tests only: the form of the collective transfers (src/redist/bigcoll.c): auto picks the int "
     "MPI_Alltoallv below 2 GiB, else the MPI-4 large-count calls where the MPI has them, else MPI_Alltoallw with "
     "derived datatypes (w); int, c or w force one (c falls back to w without the large-count calls)."},
    {"DUCTILE_TEST_INT_LIMIT", SETTING_INT, "0", 0, 2147483647L, NULL,
     "For tests only: treat byte counts and displacements above this many bytes as past an int's range (0: the "
     "real limit, INT_MAX), so that small data takes the large-count paths of the transfers (src/redist/chunk.h: "
     "the collectives' agreed form, messages and reads cut into pieces of half of it). Same value in every process."},
    {"DUCTILE_SPAWN_HOSTS", SETTING_STRING, "", 0, 0, NULL,
     "Default hosts for new processes, separated by ';' or ',' (e.g. 'node1;node2'). Empty: the launcher decides."},
    {"DUCTILE_SPAWN_COMMAND", SETTING_STRING, "", 0, 0, NULL,
     "Executable started for new processes. Empty: this program (from /proc/self/exe), with the same arguments."},
    {"DUCTILE_LEAVE_TIMEOUT", SETTING_INT, "86400", 1, 31536000L, NULL,
     "Seconds a removed process waits (asleep) in MPI_Finalize for the rest of the job before it finalizes anyway."},
    {"DUCTILE_CONTROLLER", SETTING_STRING, "auto", 0, 0, NULL,
     "Where the application controller (a thread on rank 0) finds ductiled: unix:PATH, tcp:HOST:PORT, 'off', "
     "or 'auto' (the per-user socket $XDG_RUNTIME_DIR/ductile/ductiled.sock or /tmp/ductile-UID/ductiled.sock, "
     "used only when a ductiled answers there)."},
    {"DUCTILE_CONTROLLER_SECRET", SETTING_STRING, "", 0, 0, NULL,
     "File holding the shared secret for a tcp: controller (must be readable by its owner only)."},
    {"DUCTILE_CONTROLLER_PERIOD", SETTING_INT, "1000", 10, 3600000L, NULL,
     "Milliseconds between the monitoring samples the application controller sends to ductiled."},
    {"DUCTILE_MIN_PROCS", SETTING_INT, "0", 0, 1048576L, NULL,
     "Fewest processes ductiled's global policy (ductiled --policy) may shrink the job to (0: 1). Told to ductiled "
     "at registration (ductile-run --min)."},
    {"DUCTILE_MAX_PROCS", SETTING_INT, "0", 0, 1048576L, NULL,
     "Most processes ductiled's global policy may grow the job to (0: no limit but the slots; ductile-run --max)."},
    {"DUCTILE_IO_EXCLUSIVE", SETTING_BOOL, "0", 0, 0, NULL,
     "Exclusive I/O: a collective MPI-IO call on a file opened on MPI_COMM_WORLD first waits until ductiled grants "
     "the job the I/O token (first come, first served between jobs; docs/io.md)."},
    {"DUCTILE_IO_HOLD_MAX", SETTING_INT, "300", 1, 86400L, NULL,
     "Longest an I/O hold of ductiled (ductilectl io hold) lasts, in seconds: the job's I/O gate opens after it, and "
     "a shorter limit the hold names is kept (docs/controller.md)."},
    {"DUCTILE_IO_PHASE_GAP", SETTING_INT, "100", 1, 3600000L, NULL,
     "Milliseconds without MPI-IO calls that end an I/O phase (the next I/O call starts a new one)."},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

int settings_parse_bool(const char *text)
{
    static const char *const yes[] = {"1", "yes", "on", "true", NULL};
    static const char *const no[] = {"0", "no", "off", "false", NULL};
    for (int i = 0; yes[i]; i++)
        if (strcasecmp(text, yes[i]) == 0) return 1;
    for (int i = 0; no[i]; i++)
        if (strcasecmp(text, no[i]) == 0) return 0;
    return -1;
}

static const struct setting_def *find_def(const char *name, size_t len)
{
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, name, len) == 0) return d;
    return NULL;
}

/* Levenshtein distance, for "did you mean" on misspelt names. */
static size_t edit_distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    size_t row[64 + 1];
    if (la > 64 || lb > 64) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (toupper((unsigned char)a[i - 1]) == b[j - 1]) ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int apply(struct ductile_settings *out, const struct setting_def *d, const char *value,
                 char *errbuf, size_t errlen)
{
    long iv = 0;
    switch (d->type) {
    case SETTING_BOOL:
        iv = settings_parse_bool(value);
        if (iv < 0) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected a boolean (1/0, yes/no, on/off, true/false)",
                     d->name, value);
            return -1;
        }
        break;
    case SETTING_INT: {
        char *end = NULL;
        errno = 0;
        iv = strtol(value, &end, 10);
        if (errno || end == value || *end != '\0' || iv < d->min || iv > d->max) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected an integer from %ld to %ld",
                     d->name, value, d->min, d->max);
            return -1;
        }
        break;
    }
    case SETTING_ENUM: {
        size_t vl = strlen(value);
        int found = 0;
        for (const char *c = d->choices; c && *c && !found;) {
            const char *e = strchr(c, ',');
            size_t cl = e ? (size_t)(e - c) : strlen(c);
            if (cl == vl && strncmp(c, value, vl) == 0) found = 1;
            c = e ? e + 1 : c + cl;
        }
        if (!found) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: expected one of %s", d->name, value, d->choices);
            return -1;
        }
        break;
    }
    case SETTING_STRING:
        break;
    }
    const char *n = d->name + strlen("DUCTILE_");
    if (strcmp(n, "DISABLE") == 0) out->disable = (int)iv;
    else if (strcmp(n, "MONITOR") == 0) out->monitor = (int)iv;
    else if (strcmp(n, "REPORT") == 0) out->report = strcmp(value, "none") == 0 ? "" : value;
    else if (strcmp(n, "SUMMARY") == 0) out->summary = (int)iv;
    else if (strcmp(n, "VERBOSE") == 0) out->verbose = (int)iv;
    else if (strcmp(n, "ITER_DETECT") == 0) out->iter_detect = (int)iv;
    else if (strcmp(n, "ITER_FRAMES") == 0) out->iter_frames = (int)iv;
    else if (strcmp(n, "ITER_REPEATS") == 0) out->iter_repeats = (int)iv;
    else if (strcmp(n, "ITER_MAX_CALLS") == 0) out->iter_max_calls = iv;
    else if (strcmp(n, "JOB_ID") == 0) out->job_id = value;
    else if (strcmp(n, "SCHEDULE") == 0) out->schedule = value;
    else if (strcmp(n, "RESIZE_METHOD") == 0) out->resize_method = value;
    else if (strcmp(n, "REDIST") == 0) out->redist = value;
    else if (strcmp(n, "REDIST_CONSTANT") == 0) out->redist_constant = value;
    else if (strcmp(n, "REDIST_PREPARE") == 0) out->redist_prepare = (int)iv;
    else if (strcmp(n, "PERSISTENT") == 0) out->persistent = (int)iv;
    else if (strcmp(n, "RMA_WINDOW") == 0) out->rma_window = value;
    else if (strcmp(n, "RMA_MEMORY") == 0) out->rma_memory = value;
    else if (strcmp(n, "RMA_OSC") == 0) out->rma_osc = value;
    else if (strcmp(n, "TEST_INT_LIMIT") == 0) out->test_int_limit = iv;
    else if (strcmp(n, "SPAWN_HOSTS") == 0) out->spawn_hosts = value;
    else if (strcmp(n, "SPAWN_COMMAND") == 0) out->spawn_command = value;
    else if (strcmp(n, "LEAVE_TIMEOUT") == 0) out->leave_timeout = iv;
    else if (strcmp(n, "CONTROLLER") == 0) out->controller = value;
    else if (strcmp(n, "CONTROLLER_SECRET") == 0) out->controller_secret = value;
    else if (strcmp(n, "CONTROLLER_PERIOD") == 0) out->controller_period = iv;
    else if (strcmp(n, "MIN_PROCS") == 0) out->min_procs = (int)iv;
    else if (strcmp(n, "MAX_PROCS") == 0) out->max_procs = (int)iv;
    else if (strcmp(n, "IO_EXCLUSIVE") == 0) out->io_exclusive = (int)iv;
    else if (strcmp(n, "IO_PHASE_GAP") == 0) out->io_phase_gap = iv;
    else if (strcmp(n, "IO_HOLD_MAX") == 0) out->io_hold_max = iv;
    return 0;
}

int settings_parse(char *const *envp, struct ductile_settings *out, char *errbuf, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++)
        if (apply(out, d, d->default_value, errbuf, errlen) != 0) return -1;
    if (!envp) return 0;
    for (char *const *e = envp; *e; e++) {
        const char *var = *e;
        if (strncmp(var, "DUCTILE_", 8) != 0) continue;
        const char *eq = strchr(var, '=');
        if (!eq) continue;
        size_t len = (size_t)(eq - var);
        const struct setting_def *d = find_def(var, len);
        if (!d) {
            const struct setting_def *best = NULL;
            size_t bestd = 4;
            for (const struct setting_def *c = ductile_setting_defs; c->name; c++) {
                size_t dist = edit_distance(var, len, c->name);
                if (dist < bestd) { bestd = dist; best = c; }
            }
            int n = snprintf(errbuf, errlen, "unknown setting %.*s='%s'", (int)len, var, eq + 1);
            if (best && n > 0 && (size_t)n < errlen)
                snprintf(errbuf + n, errlen - (size_t)n, " (did you mean %s?)", best->name);
            n = (int)strlen(errbuf);
            if ((size_t)n < errlen)
                snprintf(errbuf + n, errlen - (size_t)n, "; 'ductile-run --help' lists every setting");
            return -1;
        }
        if (apply(out, d, eq + 1, errbuf, errlen) != 0) return -1;
    }
    return 0;
}

static void print_wrapped(FILE *f, const char *text, int indent, int width)
{
    int col = indent;
    fprintf(f, "%*s", indent, "");
    const char *p = text;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ') w++;
        int len = (int)(w - p);
        if (col > indent && col + 1 + len > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, p);
        col += len;
        p = *w ? w + 1 : w;
    }
    fputc('\n', f);
}

void settings_print_help(void *file)
{
    FILE *f = file;
    for (const struct setting_def *d = ductile_setting_defs; d->name; d++) {
        char range[96] = "";
        switch (d->type) {
        case SETTING_BOOL: snprintf(range, sizeof range, "boolean"); break;
        case SETTING_INT: snprintf(range, sizeof range, "integer %ld..%ld", d->min, d->max); break;
        case SETTING_ENUM: snprintf(range, sizeof range, "one of %s", d->choices); break;
        case SETTING_STRING: snprintf(range, sizeof range, "text"); break;
        }
        fprintf(f, "  %s  (%s, default '%s')\n", d->name, range, d->default_value);
        print_wrapped(f, d->help, 6, 78);
    }
}

int settings_expand_path(const char *tmpl, const char *job_id, long pid, char *out, size_t outlen)
{
    size_t o = 0;
    for (const char *p = tmpl; *p; p++) {
        char buf[32];
        const char *ins = NULL;
        if (*p == '%' && p[1]) {
            p++;
            if (*p == 'j') ins = job_id;
            else if (*p == 'p') { snprintf(buf, sizeof buf, "%ld", pid); ins = buf; }
            else if (*p == '%') ins = "%";
            else { buf[0] = '%'; buf[1] = *p; buf[2] = '\0'; ins = buf; }
        } else {
            buf[0] = *p; buf[1] = '\0'; ins = buf;
        }
        size_t l = strlen(ins);
        if (o + l >= outlen) return -1;
        memcpy(out + o, ins, l);
        o += l;
    }
    if (o >= outlen) return -1;
    out[o] = '\0';
    return 0;
}
