/* state_writer.c -- ductiled's state file written off its event loop
 * (issue 23, item 3; issue 25, item 4): the loop forks, and the child,
 * which holds a copy of the job table as it was at that instant (the
 * kernel's copy-on-write: nothing is copied by us), turns it into text and
 * writes it through a fresh temporary file, fsyncs and renames it
 * (jobs_save), then exits.  The loop's whole cost is the fork (a copy of
 * the page tables), not a pass over every job: before, the loop took a
 * snapshot of the table (every job's picture as JSON and its 64 newest
 * samples copied) and a thread made the text (tens of MB of short-lived
 * buffers in the daemon's heap).  One
 * writer at a time: a save due while one runs waits for it (the loop asks
 * again, state_writer_busy), so the disk sees the states in order.  When
 * fork fails the loop writes the file itself (slow, still crash-safe).
 * See daemon.h. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"

static struct {
    pid_t pid;      /* the writer running, 0 none */
    int fork_failed; /* logged once */
    char path[4096];
} W;

int state_writer_start(const char *path)
{
    snprintf(W.path, sizeof W.path, "%s", path);
    return 0;
}

/* The child: only what it needs open, at a lower priority than the loop.  It dies with the
 * daemon (killed -9, crashed): an orphan finishing its write after a new daemon has started
 * could rename that daemon's temporary file, half written, over the state. */
static void child(const struct jobs *t, pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(2);
    signal(SIGTERM, SIG_DFL); /* a stop of the daemon's group: the temporary file is cleared by the next save */
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_IGN);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
    {
        long m = sysconf(_SC_OPEN_MAX);
        for (int fd = 3; fd < (m > 0 && m < (1 << 20) ? m : 65536); fd++) close(fd);
    }
    (void)setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 5);
    char err[512];
    if (jobs_save(t, W.path, err, sizeof err) != 0) {
        /* no logmsg: its clock takes a lock another thread may have held at the fork */
        dprintf(2, "ductiled (state writer): %s\n", err);
        _exit(1);
    }
    _exit(0);
}

int state_writer_busy(void)
{
    if (W.pid <= 0) return 0;
    int st;
    pid_t r = waitpid(W.pid, &st, WNOHANG);
    if (r == 0) return 1;
    if (r == W.pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        logmsg("the state file's writer (pid %ld) %s %d: the state is written again", (long)W.pid,
               WIFSIGNALED(st) ? "was killed by signal" : "exited with status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        state_dirty = 1;
    }
    W.pid = 0; /* r < 0: not ours any more (ECHILD) */
    return 0;
}

void state_writer_save(const struct jobs *t)
{
    if (state_writer_busy()) return; /* the caller checked; a late one waits for the next turn */
    fflush(stderr);                  /* nothing buffered is written twice */
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) child(t, parent);
    if (pid > 0) {
        W.pid = pid;
        W.fork_failed = 0;
        return;
    }
    if (!W.fork_failed++)
        logmsg("cannot fork the state file's writer (%s): the loop writes the state file itself until it can", strerror(errno));
    char err[512];
    if (jobs_save(t, W.path, err, sizeof err) != 0) logmsg("%s", err);
}

void state_writer_stop(void)
{
    if (W.pid <= 0) return;
    int st;
    while (waitpid(W.pid, &st, 0) < 0 && errno == EINTR) {
    }
    W.pid = 0;
}
