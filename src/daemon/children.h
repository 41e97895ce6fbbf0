/* children.h -- commands ductiled runs without waiting for them (Slurm's
 * scontrol, sinfo, salloc, scancel): each is spawned with its output on a
 * pipe, the pipe is watched by the daemon's poll loop, the child is reaped
 * without blocking (waitpid WNOHANG) and killed (SIGKILL) at its deadline;
 * its callback gets the exit status and the output.  The loop never waits on
 * a child.  Bounded: at most CHILD_MAX at once, CHILD_OUT_MAX bytes of
 * output each. */
#ifndef DUCTILE_CHILDREN_H
#define DUCTILE_CHILDREN_H

#include <poll.h>
#include <stddef.h>

#define CHILD_MAX 16
#define CHILD_OUT_MAX (256 * 1024)

/* rc: the exit status (128 + signal when killed by one), or -1 when it did
 * not run or did not end in time, with out saying why.  out is the child's
 * stdout and stderr, NUL-terminated (owned by the caller of the callback:
 * valid during the call only). */
typedef void (*child_done_fn)(void *arg, int rc, char *out);

/* Run argv (PATH searched) in `dir` (NULL: "/"; Slurm's: slurm_workdir()), stdin /dev/null,
 * stdout+stderr to the pipe, killed after `timeout` seconds.  0, or -1 when
 * it cannot start (too many children, no pipe or fork: why).  `done` is
 * always called later from child_poll, never from here. */
int child_start(char *const argv[], const char *dir, double timeout, child_done_fn done, void *arg, char *why,
                size_t wl);
/* The loop: the pipes to watch (up to max; returns how many), after poll
 * the same array back (reads what is ready, reaps and kills, runs the
 * callbacks), and the seconds until the next deadline or reap check (a large
 * number when no child runs). */
int child_pollfds(struct pollfd *pfd, int max);
void child_poll(const struct pollfd *pfd, int n, double now);
double child_wait_hint(double now);
int child_running(void);

#endif
