/* slurm_run.c -- scontrol/sinfo for ductiled --slurm at start-up (see
 * slurm_run.h): fork/exec with the output read through a pipe and a bounded
 * wait (SLURM_WAIT seconds, then SIGKILL), and the parsing of their answers.
 * Once the loop runs, Slurm's commands run without waiting (children.c). */
#include "config.h"

#include "slurm_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../proto/net.h"
#include "../proto/protocol.h"
#include "rm.h"

/* The private working directory of Slurm's commands (scontrol update of a
 * node list writes slurm_job_J_resize.sh/.csh there): made once with
 * mkdtemp (mode 0700), emptied and removed at exit; "/" if it cannot be made. */
static char workdir[64];

static void workdir_remove(void)
{
    char f[128];
    DIR *d = opendir(workdir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strncmp(e->d_name, "slurm_job_", 10) && snprintf(f, sizeof f, "%s/%s", workdir, e->d_name) < (int)sizeof f)
            unlink(f);
    }
    if (d) closedir(d);
    rmdir(workdir);
}

const char *slurm_workdir(void)
{
    if (!workdir[0]) {
        snprintf(workdir, sizeof workdir, "%s/ductiled-slurm-XXXXXX", P_tmpdir);
        if (mkdtemp(workdir)) atexit(workdir_remove);
        else snprintf(workdir, sizeof workdir, "/");
    }
    return workdir;
}

/* Run argv with stdout+stderr into out (NUL-terminated); bounded by SLURM_WAIT.
 * Returns the exit status, or -1 with out holding the reason. */
int slurm_run(char *const argv[], char *out, size_t outlen)
{
    const char *dir = slurm_workdir();
    int p[2];
    out[0] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(out, outlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(out, outlen, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        /* scontrol update of a node list writes slurm_job_J_resize.* into the cwd: a private one */
        if (chdir(dir) != 0 && chdir("/") != 0) _exit(126);
        execvp(argv[0], argv);
        dprintf(1, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    size_t len = 0;
    double end = net_now() + SLURM_WAIT;
    int timed_out = 0;
    for (;;) {
        double left = end - net_now();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int r = poll(&pf, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        char buf[4096];
        ssize_t k = read(p[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        size_t c = (size_t)k;
        if (len + c >= outlen) c = outlen - 1 - len;
        memcpy(out + len, buf, c);
        len += c;
        out[len] = '\0';
    }
    close(p[0]);
    int st = 0;
    if (timed_out) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        snprintf(out, outlen, "%s did not answer within %.0f s", argv[0], SLURM_WAIT);
        return -1;
    }
    /* output closed: the child ends now (bounded like the read) */
    for (int i = 0; i < 1000; i++) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (w < 0 && errno != EINTR) break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    snprintf(out, outlen, "%s did not exit after closing its output", argv[0]);
    return -1;
}

void slurm_chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ')) s[--n] = '\0';
}

/* scontrol show hostnames LIST -> names (newline-separated, in buf). */
int slurm_hostnames(const char *list, char *buf, size_t len)
{
    char *argv[] = {"scontrol", "show", "hostnames", (char *)list, NULL};
    int rc = slurm_run(argv, buf, len);
    if (rc != 0) {
        slurm_chomp(buf);
        return -1;
    }
    return 0;
}

/* the value of " KEY=" in scontrol's one-line output (up to the next space) */
int slurm_field(const char *line, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == line || p[-1] == ' ' || p[-1] == '\n') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " \n");
            if (n >= len) n = len - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return 0;
        }
    }
    out[0] = '\0';
    return -1;
}

int slurm_parse_cpus(const char *spec, int *cpus, int max)
{
    int n = 0;
    const char *p = spec;
    while (*p) {
        char *e;
        long c = strtol(p, &e, 10), rep = 1;
        if (e == p || c < 1 || c > 1000000) return -1;
        p = e;
        if (*p == '(') {
            if (p[1] != 'x') return -1;
            rep = strtol(p + 2, &e, 10);
            if (e == p + 2 || *e != ')' || rep < 1 || rep > RM_MAX_HOSTS) return -1;
            p = e + 1;
        }
        for (long r = 0; r < rep; r++) {
            if (n >= max) return -1;
            cpus[n++] = (int)c;
        }
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}


int slurm_fill_hosts(struct rm *rm, char *names, const int *cpus, int ncpus, long numcpus, char *err, size_t errlen)
{
    int k = 0;
    for (char *save = NULL, *h = strtok_r(names, "\n", &save); h; h = strtok_r(NULL, "\n", &save)) {
        if (!proto_valid_hostname(h)) {
            snprintf(err, errlen, "--slurm: Slurm host name '%.64s' is not valid", h);
            return -1;
        }
        if (rm->nhosts >= RM_MAX_HOSTS) break;
        if (rm_add_host(rm, h, cpus && ncpus > k ? cpus[k] : 1) < 0) { /* no per-node count: spread below */
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        k++;
    }
    if (!cpus && rm->nhosts > 0) { /* spread NumCPUs over the hosts */
        for (int i = 0; i < rm->nhosts; i++)
            rm->hosts[i].slots = (int)(numcpus / rm->nhosts + (i < numcpus % rm->nhosts));
        for (int i = 0; i < rm->nhosts; i++)
            if (rm->hosts[i].slots < 1) rm->hosts[i].slots = 1;
    }
    return 0;
}

void slurm_resize_files_remove(const char *jobid)
{
    char f[256];
    snprintf(f, sizeof f, "%s/slurm_job_%s_resize.sh", slurm_workdir(), jobid);
    unlink(f);
    snprintf(f, sizeof f, "%s/slurm_job_%s_resize.csh", slurm_workdir(), jobid);
    unlink(f);
}

/* "0-1,4" -> 3 */
int slurm_count_ids(const char *ids)
{
    int n = 0;
    for (const char *p = ids; *p;) {
        char *e;
        long a = strtol(p, &e, 10), b = a;
        if (e == p) return -1;
        if (*e == '-') {
            const char *q = e + 1;
            b = strtol(q, &e, 10);
            if (e == q || b < a) return -1;
        }
        n += (int)(b - a + 1);
        p = e;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}
