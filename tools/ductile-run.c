/* ductile-run.c -- launcher helper: runs a command (usually mpiexec ...) with
 * libductile.so preloaded and DUCTILE_* settings set from its options.  It
 * validates the settings first, so a typo fails here, before any MPI job.
 * With --html it waits for the command and turns the job's report into an
 * HTML page with ductile-report. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/common/settings.h"
#include "../src/common/sizes.h"

extern char **environ;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: ductile-run [OPTIONS] -- COMMAND [ARGS...]\n"
            "\n"
            "Run COMMAND (normally 'mpiexec -n N ./app ...') with Ductile preloaded into every\n"
            "MPI process: MPI_COMM_WORLD is virtualised, each MPI call is counted and timed,\n"
            "the main loop is detected, and at MPI_Finalize rank 0 prints a summary on stderr\n"
            "and writes a JSON report (docs/report.md).  The program's results do not change.\n"
            "\n"
            "Options:\n"
            "  -r, --report PATH     write the JSON report to PATH (DUCTILE_REPORT; %%j = job id)\n"
            "      --no-report       do not write a report\n"
            "      --html FILE       when the command ends, write the report as an HTML page to FILE\n"
            "                        (ductile-report: charts of time, imbalance, functions, iterations,\n"
            "                        resizes, processes and I/O)\n"
            "  -q, --quiet           no summary on stderr (DUCTILE_SUMMARY=0)\n"
            "  -v, --verbose         trace Ductile's decisions (repeat for more detail)\n"
            "      --no-monitor      keep the virtual world, measure nothing (DUCTILE_MONITOR=0)\n"
            "      --disable         pure pass-through (DUCTILE_DISABLE=1)\n"
            "      --min N           the job never runs on fewer than N processes: it refuses such resizes,\n"
            "                        ductiled's policy never asks for them (DUCTILE_MIN_PROCS)\n"
            "      --max N           ... nor on more than N (DUCTILE_MAX_PROCS; docs/policies.md)\n"
            "      --sizes SPEC      the counts the job can use: min=N,max=N,step=K,preferred=N,\n"
            "                        allowed=squares|pow2|multiples:K|N... (DUCTILE_SIZES)\n"
            "      --library PATH    preload this libductile.so instead of the default\n"
            "      --print-library   print the library that would be preloaded and exit\n"
            "  -h, --help            this help\n"
            "      --version         print the version and exit\n"
            "\n"
            "Settings (environment variables; the options above set some of them):\n");
    settings_print_help(f);
    fprintf(f,
            "An unknown DUCTILE_* variable or a bad value stops the job with a message naming\n"
            "it (libductile(7) and docs/*.md list the settings too).\n"
            "\n"
            "Examples:\n"
            "  $ ductile-run -- mpiexec -n 4 ./app input.dat\n"
            "  $ ductile-run -r run1.json -v -- mpiexec -n 2 ./jacobi\n"
            "  $ ductile-run --html job.html -- mpiexec -n 4 ./app\n"
            "  $ DUCTILE_ITER_FRAMES=1 ductile-run -- mpiexec -n 8 ./solver\n"
            "\n"
            "Open MPI as root needs --allow-run-as-root, and more ranks than cores --oversubscribe.\n"
            "With MPICH's or Intel MPI's mpiexec (hydra) the library goes to the MPI processes only\n"
            "(mpiexec -genv LD_PRELOAD ...): the launcher's own processes do not load it.\n");
}

static int exists(const char *path) { return access(path, R_OK) == 0; }

/* The library next to this executable (build tree or install tree), else the
 * configured install location. */
static int find_library(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *dir = dirname(self);
        const char *candidates[] = {"%s/../src/.libs/libductile.so", "%s/../lib/libductile.so",
                                    "%s/../lib64/libductile.so", "%s/.libs/../../src/.libs/libductile.so"};
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            snprintf(out, len, candidates[i], dir);
            char real[PATH_MAX];
            if (exists(out) && realpath(out, real)) {
                snprintf(out, len, "%s", real);
                return 0;
            }
        }
    }
    snprintf(out, len, "%s/libductile.so", DUCTILE_LIBDIR);
    return exists(out) ? 0 : -1;
}

/* --html: the job's report, found from the DUCTILE_REPORT template (%j and
 * %p are known only to the job: the newest matching file written since
 * `start`).  Returns 0 and fills out, or -1. */
static int find_report(const char *tmpl, time_t start, char *out, size_t len)
{
    char pat[PATH_MAX];
    size_t o = 0;
    for (const char *p = tmpl; *p && o + 2 < sizeof pat; p++) {
        if (*p == '%' && (p[1] == 'j' || p[1] == 'p')) pat[o++] = '*', p++;
        else if (*p == '%' && p[1] == '%') pat[o++] = '%', p++;
        else pat[o++] = *p;
    }
    pat[o] = '\0';
    glob_t g;
    int found = -1;
    time_t best = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            struct stat st;
            if (stat(g.gl_pathv[i], &st) != 0 || st.st_mtime + 1 < start || (found >= 0 && st.st_mtime < best)) continue;
            best = st.st_mtime;
            found = (int)i;
            snprintf(out, len, "%s", g.gl_pathv[i]);
        }
        globfree(&g);
    }
    return found >= 0 ? 0 : -1;
}

static volatile sig_atomic_t child_pid;
static void forward(int sig)
{
    if (child_pid > 0) kill((pid_t)child_pid, sig);
}

/* Run argv and wait (SIGINT and SIGQUIT reach the command from the terminal;
 * SIGTERM and SIGHUP are passed on).  Returns its exit status (128 + signal). */
static int run_and_wait(char **argv, int out_to_err)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ductile-run: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        if (out_to_err) dup2(2, 1); /* our own tools' words stay out of the program's output */
        execvp(argv[0], argv);
        fprintf(stderr, "ductile-run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward}, oint, oquit, oterm, ohup;
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    sigaction(SIGTERM, &fwd, &oterm);
    sigaction(SIGHUP, &fwd, &ohup);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    child_pid = 0;
    sigaction(SIGINT, &oint, NULL);
    sigaction(SIGQUIT, &oquit, NULL);
    sigaction(SIGTERM, &oterm, NULL);
    sigaction(SIGHUP, &ohup, NULL);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --html: run the command, then ductile-report on its report. */
static int run_with_html(char **cmd, const char *html)
{
    const char *tmpl = getenv("DUCTILE_REPORT");
    if (!tmpl) tmpl = "ductile-%j.json";
    time_t start = time(NULL);
    int rc = run_and_wait(cmd, 0);
    char report[PATH_MAX];
    if (find_report(tmpl, start, report, sizeof report) != 0) {
        fprintf(stderr, "ductile-run: no report of this job matches '%s': no HTML page\n", tmpl);
        return rc ? rc : 1;
    }
    /* ductile-report next to this program (build or install tree), else on the PATH */
    char tool[PATH_MAX] = "ductile-report", self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char cand[PATH_MAX + 32];
        snprintf(cand, sizeof cand, "%s/ductile-report", dirname(self));
        if (access(cand, X_OK) == 0 && strlen(cand) < sizeof tool) snprintf(tool, sizeof tool, "%s", cand);
    }
    char *argv[] = {tool, report, "-o", (char *)html, NULL};
    /* the preloads were for the job's command, not for this tool (a Python program: Ductile's library
     * or a sanitizer's runtime in it would only get in the way) */
    unsetenv("LD_PRELOAD");
    int hrc = run_and_wait(argv, 1);
    if (hrc != 0) fprintf(stderr, "ductile-run: ductile-report failed (exit %d): no HTML page\n", hrc);
    return rc ? rc : (hrc ? 1 : 0);
}

/* MPICH's and Intel MPI's mpiexec (hydra) take the preload as `-genv LD_PRELOAD LIB` and give it to the
 * MPI processes only, spawned ones included.  On mpiexec's own environment it reaches every process of
 * the launcher too (mpiexec, the srun or ssh it starts, each host's hydra_pmi_proxy), and each loads
 * libductile.so and through it the MPI library and UCX: 0.04-0.08 s per process, paid again by the
 * proxy and srun of every MPI_Comm_spawn onto other hosts (docs/rma.md, "Expansion across the test
 * hosts").  1 when cmd is such an mpiexec. */
static int hydra_mpiexec(const char *cmd)
{
    if (strcmp(DUCTILE_MPI_FAMILY, "mpich") != 0 && strcmp(DUCTILE_MPI_FAMILY, "impi") != 0) return 0;
    const char *b = strrchr(cmd, '/');
    b = b ? b + 1 : cmd;
    static const char *const names[] = {"mpiexec", "mpiexec.hydra", "mpirun", "mpiexec.mpich", "mpirun.mpich", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(b, names[i]) == 0) return 1;
    return 0;
}

static void set_or_die(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0) {
        fprintf(stderr, "ductile-run: cannot set %s: %s\n", name, strerror(errno));
        exit(2);
    }
}

int main(int argc, char **argv)
{
    enum { OPT_NO_REPORT = 256, OPT_NO_MONITOR, OPT_DISABLE, OPT_LIBRARY, OPT_PRINT_LIBRARY, OPT_VERSION, OPT_MIN, OPT_MAX,
           OPT_HTML, OPT_SIZES };
    static const struct option opts[] = {
        {"report", required_argument, NULL, 'r'},
        {"no-report", no_argument, NULL, OPT_NO_REPORT},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"no-monitor", no_argument, NULL, OPT_NO_MONITOR},
        {"disable", no_argument, NULL, OPT_DISABLE},
        {"library", required_argument, NULL, OPT_LIBRARY},
        {"print-library", no_argument, NULL, OPT_PRINT_LIBRARY},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {"min", required_argument, NULL, OPT_MIN},
        {"max", required_argument, NULL, OPT_MAX},
        {"sizes", required_argument, NULL, OPT_SIZES},
        {"html", required_argument, NULL, OPT_HTML},
        {NULL, 0, NULL, 0},
    };
    char library[PATH_MAX] = "";
    const char *html = NULL;
    int verbose = 0, print_library = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+r:qvh", opts, NULL)) != -1) {
        switch (c) {
        case 'r': set_or_die("DUCTILE_REPORT", optarg); break;
        case OPT_NO_REPORT: set_or_die("DUCTILE_REPORT", "none"); break;
        case 'q': set_or_die("DUCTILE_SUMMARY", "0"); break;
        case 'v': verbose++; break;
        case OPT_NO_MONITOR: set_or_die("DUCTILE_MONITOR", "0"); break;
        case OPT_DISABLE: set_or_die("DUCTILE_DISABLE", "1"); break;
        case OPT_LIBRARY: snprintf(library, sizeof library, "%s", optarg); break;
        case OPT_PRINT_LIBRARY: print_library = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: printf("ductile-run (Ductile) %s\n", PACKAGE_VERSION); return 0;
        case OPT_MIN: set_or_die("DUCTILE_MIN_PROCS", optarg); break; /* checked with the other settings below */
        case OPT_MAX: set_or_die("DUCTILE_MAX_PROCS", optarg); break;
        case OPT_SIZES: set_or_die("DUCTILE_SIZES", optarg); break;
        case OPT_HTML: html = optarg; break;
        default:
            fprintf(stderr, "Try 'ductile-run --help'.\n");
            return 2;
        }
    }
    if (verbose) {
        char v[16];
        snprintf(v, sizeof v, "%d", verbose > 3 ? 3 : verbose);
        set_or_die("DUCTILE_VERBOSE", v);
    }
    if (!library[0] && find_library(library, sizeof library) != 0) {
        fprintf(stderr, "ductile-run: cannot find libductile.so (looked next to %s and in %s); use --library PATH\n",
                argv[0], DUCTILE_LIBDIR);
        return 2;
    }
    if (!exists(library)) {
        fprintf(stderr, "ductile-run: %s: %s\n", library, strerror(errno));
        return 2;
    }
    if (print_library) {
        printf("%s\n", library);
        return 0;
    }
    if (optind >= argc) {
        fprintf(stderr, "ductile-run: no command given.\nUsage: ductile-run [OPTIONS] -- COMMAND [ARGS...]\n");
        return 2;
    }
    struct ductile_settings s;
    char err[512];
    if (settings_parse(environ, &s, err, sizeof err) != 0) {
        fprintf(stderr, "ductile-run: error: %s\n", err);
        return 2;
    }
    if (s.min_procs > 0 && s.max_procs > 0 && s.min_procs > s.max_procs) {
        fprintf(stderr, "ductile-run: error: --min %d is above --max %d\n", s.min_procs, s.max_procs);
        return 2;
    }
    struct ductile_sizes sz = {0};
    if (s.sizes && *s.sizes && sizes_parse(s.sizes, &sz, err, sizeof err) != 0) {
        fprintf(stderr, "ductile-run: error: DUCTILE_SIZES='%s' (--sizes) is not valid: %s\n", s.sizes, err);
        return 2;
    }
    if (html && !*s.report) {
        fprintf(stderr, "ductile-run: error: --html needs the JSON report (DUCTILE_REPORT is '%s')\n",
                getenv("DUCTILE_REPORT") ? getenv("DUCTILE_REPORT") : "");
        return 2;
    }
    const char *old = getenv("LD_PRELOAD");
    size_t need = strlen(library) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(need);
    if (!preload) return 2;
    if (old && *old) snprintf(preload, need, "%s:%s", library, old);
    else snprintf(preload, need, "%s", library);
    char **cmd = argv + optind;
    if (hydra_mpiexec(cmd[0])) { /* mpiexec -genv LD_PRELOAD LIB ARGS... (argv's last entry is NULL) */
        char **nc = calloc((size_t)(argc - optind) + 4, sizeof *nc);
        if (!nc) return 2;
        nc[0] = cmd[0], nc[1] = "-genv", nc[2] = "LD_PRELOAD", nc[3] = preload;
        for (int i = 1; i < argc - optind; i++) nc[3 + i] = cmd[i];
        cmd = nc; /* preload is kept: it is in the command now */
    } else {
        set_or_die("LD_PRELOAD", preload);
        free(preload);
    }
    if (html) return run_with_html(cmd, html);
    execvp(cmd[0], cmd);
    fprintf(stderr, "ductile-run: cannot run %s: %s\n", argv[optind], strerror(errno));
    return 127;
}
