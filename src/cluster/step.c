/* step.c -- direct launch: the launcher of this process, starting new
 * processes as a new step of the Slurm job (srun, forked by the parents'
 * rank 0) and the ready message they send back over TCP.  See step.h.
 *
 * Why a ready message: the parents can only call MPI_Comm_accept, which has
 * no time limit, once they know the other side exists.  The new processes'
 * rank 0 sends it after MPI_Init and a barrier over their own world, just
 * before MPI_Comm_connect; until it arrives the parents' rank 0 watches srun
 * (a step that cannot start ends it) and a deadline (a process that never
 * connects: the step is ended), and the other parents wait asleep. */
#include "config.h"

#include "step.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define ENV_PORT "_DUCTILE_JOIN_PORT"
#define ENV_READY "_DUCTILE_JOIN_READY"

int ductile_launcher(void)
{
    static int cached = -1;
    if (cached >= 0) return cached;
    const char *t = getenv("SLURM_MPI_TYPE"), *ns = getenv("PMIX_NAMESPACE");
    cached = LAUNCH_MPIEXEC;
    if (getenv("OMPI_COMM_WORLD_RANK")) return cached; /* started by Open MPI's orted (mpiexec) */
    if (ns && !strncmp(ns, "slurm.pmix.", 11)) cached = LAUNCH_SRUN_PMIX;
    else if (t && !strncmp(t, "pmi2", 4) && getenv("PMI_JOBID") && !getenv("PMI_HOSTNAME")) /* hydra sets PMI_HOSTNAME */
        cached = LAUNCH_SRUN_PMI2;
    else if (t && *t && strcmp(t, "none") != 0 && getenv("SLURM_STEP_ID") && !getenv("PMI_HOSTNAME"))
        cached = LAUNCH_SRUN_OTHER;
    return cached;
}

const char *ductile_launcher_tag(int l)
{
    switch (l) {
    case LAUNCH_SRUN_PMI2: return "srun-pmi2";
    case LAUNCH_SRUN_PMIX: return "srun-pmix";
    case LAUNCH_SRUN_OTHER: return "srun";
    default: return "mpiexec";
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

int step_listen(struct step_run *s, char *why, size_t len)
{
    s->pid = -1;
    s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s->lfd < 0) {
        snprintf(why, len, "socket for the new step's ready message: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t al = sizeof a;
    if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->lfd, 16) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al) != 0) {
        snprintf(why, len, "listening for the new step's ready message: %s", strerror(errno));
        step_unlisten(s);
        return -1;
    }
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        snprintf(why, len, "no random token for the new step: %s", strerror(errno));
        step_unlisten(s);
        return -1;
    }
    for (int i = 0; i < 16; i++) snprintf(s->token + 2 * i, 3, "%02x", r[i]);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(s->ready, sizeof s->ready, "%s:%d:%s", host, ntohs(a.sin_port), s->token);
    return 0;
}

void step_unlisten(struct step_run *s)
{
    if (s->lfd >= 0) close(s->lfd);
    s->lfd = -1;
}

/* the variables of this process's own step that must not describe the new one */
static int step_own_var(const char *e)
{
    static const char *const drop[] = {"SLURM_STEP", "SLURM_PROCID=", "SLURM_LOCALID=", "SLURM_NODEID=",
                                       "SLURM_TASK_PID=", "SLURM_GTIDS=", "SLURM_NTASKS=", "SLURM_NPROCS=",
                                       "SLURM_NNODES=", "SLURM_TASKS_PER_NODE=", "SLURM_DISTRIBUTION=",
                                       "SLURM_SRUN_COMM_", "SLURM_LAUNCH_NODE_IPADDR=", "SLURM_CPU_BIND",
                                       "SLURM_TOPOLOGY_ADDR", "SLURM_JOB_NAME=", "PMI_", "PMIX_", "LD_PRELOAD=",
                                       ENV_PORT "=", ENV_READY "=", NULL};
    for (int i = 0; drop[i]; i++)
        if (!strncmp(e, drop[i], strlen(drop[i]))) return 1;
    return 0;
}

static int find_in_path(const char *prog, char *out, size_t len)
{
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l && l + strlen(prog) + 2 <= len) {
            snprintf(out, len, "%.*s/%s", (int)l, p, prog);
            if (access(out, X_OK) == 0) return 0;
        }
        p += l + (e ? 1 : 0);
    }
    return -1;
}

int step_start(struct step_run *s, const struct step_spec *sp, char *why, size_t len)
{
    char srun[4096];
    if (find_in_path("srun", srun, sizeof srun) != 0) {
        snprintf(why, len, "srun not found in PATH: the job was started by srun, but new processes cannot be");
        return -1;
    }
    const char *mpi = getenv("SLURM_MPI_TYPE");
    int nargs = 0;
    while (sp->args && sp->args[nargs]) nargs++;
    size_t hl = sp->hosts ? strlen(sp->hosts) : 0;
    char *wlist = NULL;
    if (hl) { /* one host per process, in order: srun --distribution=arbitrary */
        wlist = malloc((hl + 2) * (size_t)sp->n + 1);
        if (!wlist) return -1;
        size_t w = 0;
        const char *h = sp->hosts;
        for (int k = 0; k < sp->n; k++) {
            const char *e = h;
            while (*e && *e != ';' && *e != ',') e++;
            w += (size_t)sprintf(wlist + w, "%s%.*s", k ? "," : "", (int)(e - h), h);
            h = *e ? e + 1 : sp->hosts; /* round-robin over the list */
        }
    }
    char ntask[32], mpiopt[96], pre[8192];
    snprintf(ntask, sizeof ntask, "--ntasks=%d", sp->n);
    snprintf(mpiopt, sizeof mpiopt, "--mpi=%.80s", mpi && *mpi ? mpi : "pmi2");
    char **argv = calloc((size_t)nargs + 24, sizeof *argv);
    int a = 0;
    if (!argv) {
        free(wlist);
        return -1;
    }
    argv[a++] = "srun";
    argv[a++] = "--overlap";          /* the running step holds CPUs of the hosts it shares */
    argv[a++] = "--input=none";       /* the program's stdin stays the program's */
    argv[a++] = "--export=ALL";       /* this environment: the settings, the join and the marker */
    argv[a++] = "--kill-on-bad-exit=1";
    argv[a++] = "--job-name=ductile-join";
    argv[a++] = mpiopt;
    argv[a++] = ntask;
    char *wopt = NULL;
    if (sp->fail) {
        argv[a++] = "--nodelist=ductile-test-no-such-host"; /* srun cannot create the step */
    } else if (wlist) {
        argv[a++] = "--distribution=arbitrary";
        wopt = malloc(strlen(wlist) + 16);
        if (!wopt) {
            free(wlist);
            free(argv);
            return -1;
        }
        sprintf(wopt, "--nodelist=%s", wlist);
        argv[a++] = wopt;
    } else {
        argv[a++] = "--nodes=1-1000000"; /* not the running step's node count (SLURM_NNODES is dropped too) */
    }
    if (sp->preload && *sp->preload && sp->helper) {
        snprintf(pre, sizeof pre, "LD_PRELOAD=%s", sp->preload);
        argv[a++] = (char *)sp->helper;
        argv[a++] = pre;
    }
    argv[a++] = (char *)sp->cmd;
    for (int i = 0; i < nargs; i++) argv[a++] = sp->args[i];
    argv[a] = NULL;

    /* the environment srun exports to the new processes */
    int ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc((size_t)ne + 4, sizeof *envp);
    char *ep = malloc(strlen(ENV_PORT) + strlen(sp->port) + 2), *er = malloc(strlen(ENV_READY) + strlen(s->ready) + 2);
    if (!envp || !ep || !er) {
        free(envp), free(ep), free(er), free(wopt), free(wlist), free(argv);
        return -1;
    }
    int k = 0;
    for (int i = 0; i < ne; i++)
        if (!step_own_var(environ[i]) && !(sp->marker && !strncmp(environ[i], sp->marker, strcspn(sp->marker, "=") + 1)))
            envp[k++] = environ[i];
    sprintf(ep, "%s=%s", ENV_PORT, sp->port);
    sprintf(er, "%s=%s", ENV_READY, s->ready);
    envp[k++] = ep;
    envp[k++] = er;
    if (sp->marker) envp[k++] = (char *)sp->marker;
    envp[k] = NULL;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
        if (devnull >= 0) dup2(devnull, 0);
        execve(srun, argv, envp);
        _exit(127);
    }
    int err = errno;
    if (devnull >= 0) close(devnull);
    free(envp), free(ep), free(er), free(wopt), free(wlist), free(argv);
    if (pid < 0) {
        snprintf(why, len, "cannot start srun: %s", strerror(err));
        return -1;
    }
    s->pid = pid;
    return 0;
}

static void describe_exit(int st, char *buf, size_t len)
{
    if (WIFEXITED(st)) snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) snprintf(buf, len, "signal %d", WTERMSIG(st));
    else snprintf(buf, len, "status %d", st);
}

/* one line from a connection, bounded (2 s); 0 or -1 */
static int read_line(int fd, char *buf, size_t len)
{
    size_t got = 0;
    double end = now_s() + 2.0;
    while (got + 1 < len) {
        struct pollfd p = {fd, POLLIN, 0};
        int left = (int)((end - now_s()) * 1000);
        if (left <= 0 || poll(&p, 1, left) <= 0) return -1;
        ssize_t r = read(fd, buf + got, len - 1 - got);
        if (r <= 0) return -1;
        got += (size_t)r;
        buf[got] = '\0';
        if (strchr(buf, '\n')) return 0;
    }
    return -1;
}

int step_wait_ready(struct step_run *s, int n, double timeout, char *why, size_t len)
{
    double end = now_s() + timeout;
    for (;;) {
        int st = 0;
        if (s->pid > 0 && waitpid(s->pid, &st, WNOHANG) == s->pid) {
            char d[64];
            describe_exit(st, d, sizeof d);
            s->pid = -1;
            snprintf(why, len, "the new step ended before its processes were ready to connect (srun: %s; its message "
                     "is on the job's stderr)", d);
            return -1;
        }
        double left = end - now_s();
        if (left <= 0) {
            snprintf(why, len, "the new processes did not connect within %.0f s (DUCTILE_RESIZE_TIMEOUT); their step was "
                     "ended", timeout);
            return -1;
        }
        struct pollfd p = {s->lfd, POLLIN, 0};
        if (poll(&p, 1, left < 0.05 ? (int)(left * 1000) + 1 : 50) <= 0) continue;
        int c = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) continue;
        char line[160], tok[64];
        int cnt = -1;
        int ok = read_line(c, line, sizeof line) == 0 && sscanf(line, "ductile-ready %63s %d", tok, &cnt) == 2 &&
                 !strcmp(tok, s->token) && cnt == n;
        close(c);
        if (ok) return 0; /* anything else (a stray connection, a wrong token) is ignored */
    }
}

int step_reap(pid_t pid, double timeout)
{
    if (pid <= 0) return 0;
    double end = now_s() + timeout;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) return 0;
        if (now_s() >= end) return -1;
        nap_ms(10);
    }
}

void step_stop(struct step_run *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGTERM); /* srun ends the step's tasks */
    if (step_reap(s->pid, 5.0) != 0) {
        kill(s->pid, SIGKILL);
        step_reap(s->pid, 2.0);
    }
    s->pid = -1;
}

int step_join_info(char *port, size_t plen, char *ready, size_t rlen)
{
    const char *p = getenv(ENV_PORT), *r = getenv(ENV_READY);
    int yes = p && *p && r && *r;
    if (yes) {
        snprintf(port, plen, "%s", p);
        snprintf(ready, rlen, "%s", r);
    }
    unsetenv(ENV_PORT); /* the program's own children must not see them */
    unsetenv(ENV_READY);
    return yes;
}

int step_send_ready(const char *ready, int n, char *why, size_t len)
{
    char host[256], port[16], tok[64];
    const char *c2 = strrchr(ready, ':');
    const char *c1 = c2 ? c2 - 1 : NULL;
    while (c1 && c1 > ready && *c1 != ':') c1--;
    if (!c2 || !c1 || c1 == ready || *c1 != ':' || (size_t)(c1 - ready) >= sizeof host || (size_t)(c2 - c1) > sizeof port ||
        strlen(c2 + 1) >= sizeof tok) {
        snprintf(why, len, "malformed join address '%.100s'", ready);
        return -1;
    }
    snprintf(host, sizeof host, "%.*s", (int)(c1 - ready), ready);
    snprintf(port, sizeof port, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
    snprintf(tok, sizeof tok, "%s", c2 + 1);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, len, "cannot resolve the parents' host %s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, done = -1;
    for (struct addrinfo *ai = res; ai && done != 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) done = 0;
        else if (errno == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            int e = 0;
            socklen_t el = sizeof e;
            if (poll(&p, 1, 10000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0) done = 0;
        }
        if (done != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(why, len, "cannot reach the parents at %s:%s", host, port);
        return -1;
    }
    char msg[128];
    int m = snprintf(msg, sizeof msg, "ductile-ready %s %d\n", tok, n);
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    ssize_t w = write(fd, msg, (size_t)m);
    close(fd);
    if (w != m) {
        snprintf(why, len, "cannot send the ready message to %s:%s", host, port);
        return -1;
    }
    return 0;
}
