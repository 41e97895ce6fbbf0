/* children.c -- commands ductiled runs without waiting for them; see
 * children.h.  A child's life: fork/exec with its output on a non-blocking
 * pipe; the loop reads the pipe when poll says so; at end of output (or
 * when the output is full) it is reaped with waitpid(WNOHANG), checked again
 * at every turn of the loop; at its deadline it is killed and its callback
 * told so at once (the zombie is reaped at a later turn).  The loop's
 * clock (child_poll's now) is net_now(). */
#include "config.h"

#include "children.h"

#include "../proto/net.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
    int used;
    pid_t pid;
    int fd;          /* read end of the output pipe, -1 once closed */
    char *out;
    size_t len;
    double deadline, timeout;
    int told;        /* the callback ran (killed at its deadline): only the reap is left */
    child_done_fn done;
    void *arg;
    char name[64];
};

static struct child ch[CHILD_MAX];

int child_running(void)
{
    int n = 0;
    for (int i = 0; i < CHILD_MAX; i++) n += ch[i].used && !ch[i].told;
    return n;
}

int child_start(char *const argv[], const char *dir, double timeout, child_done_fn done, void *arg, char *why, size_t wl)
{
    struct child *c = NULL;
    for (int i = 0; i < CHILD_MAX && !c; i++)
        if (!ch[i].used) c = &ch[i];
    if (!c) {
        snprintf(why, wl, "%d commands already running", CHILD_MAX);
        return -1;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(why, wl, "pipe: %s", strerror(errno));
        return -1;
    }
    char *out = malloc(CHILD_OUT_MAX);
    if (!out) {
        close(p[0]);
        close(p[1]);
        snprintf(why, wl, "out of memory");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, wl, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        free(out);
        return -1;
    }
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, 0);
        signal(SIGPIPE, SIG_DFL);
        if (chdir(dir ? dir : "/") != 0 && chdir("/") != 0) _exit(126);
        execvp(argv[0], argv);
        dprintf(1, "cannot run %s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    memset(c, 0, sizeof *c);
    c->used = 1;
    c->pid = pid;
    c->fd = p[0];
    c->out = out;
    c->out[0] = '\0';
    c->timeout = timeout;
    c->deadline = net_now() + timeout;
    c->done = done;
    c->arg = arg;
    snprintf(c->name, sizeof c->name, "%s", argv[0]);
    return 0;
}

int child_pollfds(struct pollfd *pfd, int max)
{
    int n = 0;
    for (int i = 0; i < CHILD_MAX && n < max; i++)
        if (ch[i].used && ch[i].fd >= 0) {
            pfd[n].fd = ch[i].fd;
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            n++;
        }
    return n;
}

static void finish(struct child *c, int rc, const char *why)
{
    if (!c->told) {
        if (why) snprintf(c->out, CHILD_OUT_MAX, "%s", why);
        c->told = 1;
        c->done(c->arg, rc, c->out);
    }
}

static void release(struct child *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->out);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

static void drain(struct child *c)
{
    for (;;) {
        char buf[4096];
        ssize_t k = read(c->fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k <= 0) { /* end of output (or an error): now it ends */
            close(c->fd);
            c->fd = -1;
            return;
        }
        size_t room = CHILD_OUT_MAX - 1 - c->len, n = (size_t)k < room ? (size_t)k : room;
        memcpy(c->out + c->len, buf, n);
        c->len += n;
        c->out[c->len] = '\0';
    }
}

void child_poll(const struct pollfd *pfd, int n, double now)
{
    for (int k = 0; k < n; k++) {
        if (!pfd[k].revents) continue;
        for (int i = 0; i < CHILD_MAX; i++)
            if (ch[i].used && ch[i].fd == pfd[k].fd) drain(&ch[i]);
    }
    for (int i = 0; i < CHILD_MAX; i++) {
        struct child *c = &ch[i];
        if (!c->used) continue;
        if (!c->told && now > c->deadline) {
            kill(c->pid, SIGKILL);
            char why[160];
            snprintf(why, sizeof why, "%s did not answer within %.0f s (killed)", c->name, c->timeout);
            if (c->fd >= 0) close(c->fd), c->fd = -1;
            finish(c, -1, why);
        }
        if (c->fd >= 0) continue; /* still talking */
        int st;
        pid_t w = waitpid(c->pid, &st, WNOHANG);
        if (w == c->pid) {
            finish(c, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), NULL);
            release(c);
        } else if (w < 0 && errno != EINTR) {
            finish(c, -1, "lost track of the command");
            release(c);
        }
    }
}

double child_wait_hint(double now)
{
    double h = 1e9;
    for (int i = 0; i < CHILD_MAX; i++) {
        if (!ch[i].used) continue;
        if (ch[i].fd < 0) return 0.01; /* output done: reap soon */
        double d = ch[i].told ? 0.05 : ch[i].deadline - now; /* a killed one: reap it soon */
        if (d < h) h = d;
    }
    return h < 0 ? 0 : h;
}
