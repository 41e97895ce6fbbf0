/* state_writer.c -- ductiled's state file written off its event loop
 * (issue 23, item 3): the loop takes a snapshot of the job table
 * (jobs_snapshot: no system call, no sample turned into JSON) and hands it
 * over; one writer thread makes its text (issue 25: 2,000 jobs' samples
 * are seconds of work) and writes it
 * through a fresh temporary file, fsyncs and renames it (jobs_write_text).
 * One write at a time: a text handed over while one is written replaces
 * the one waiting, so the disk sees the newest state and the loop never
 * waits on it.  See daemon.h. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t th;
    int running, stop, busy;
    struct jobs_snapshot *next; /* the newest state not written yet */
    char path[4096];
} W = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void *writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&W.lock);
    for (;;) {
        while (!W.next && !W.stop) pthread_cond_wait(&W.cond, &W.lock);
        if (!W.next) break;
        struct jobs_snapshot *sn = W.next;
        W.next = NULL;
        W.busy = 1;
        pthread_mutex_unlock(&W.lock);
        char err[512];
        char *text = jobs_snapshot_text(sn);
        int rc = text ? jobs_write_text(text, W.path, err, sizeof err) : (snprintf(err, sizeof err, "cannot write the state file: out of memory"), -1);
        free(text);
        pthread_mutex_lock(&W.lock);
        W.busy = 0;
        pthread_cond_broadcast(&W.cond);
        if (rc != 0) {
            pthread_mutex_unlock(&W.lock);
            logmsg("%s", err); /* stderr: the loop's logmsg never holds W.lock */
            pthread_mutex_lock(&W.lock);
        }
    }
    pthread_mutex_unlock(&W.lock);
    return NULL;
}

int state_writer_start(const char *path)
{
    snprintf(W.path, sizeof W.path, "%s", path);
    /* the thread takes no signal meant for the loop (SIGTERM, SIGINT) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&W.th, NULL, writer, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    W.running = rc == 0;
    return rc == 0 ? 0 : -1;
}

void state_writer_submit(struct jobs_snapshot *sn)
{
    if (!sn) return;
    if (!W.running) { /* no thread: written here */
        char err[512], *text = jobs_snapshot_text(sn);
        if (text && jobs_write_text(text, W.path, err, sizeof err) != 0) logmsg("%s", err);
        free(text);
        return;
    }
    pthread_mutex_lock(&W.lock);
    jobs_snapshot_free(W.next);
    W.next = sn;
    pthread_cond_broadcast(&W.cond);
    pthread_mutex_unlock(&W.lock);
}

void state_writer_stop(void)
{
    if (!W.running) return;
    pthread_mutex_lock(&W.lock);
    W.stop = 1; /* what is waiting is written first */
    pthread_cond_broadcast(&W.cond);
    pthread_mutex_unlock(&W.lock);
    pthread_join(W.th, NULL);
    W.running = 0;
}
