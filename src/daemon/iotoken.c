/* iotoken.c -- ductiled's FCFS exclusive-I/O token (see iotoken.h). */
#include "iotoken.h"

#include <string.h>

void iotoken_init(struct iotoken *t)
{
    memset(t, 0, sizeof *t);
}

int iotoken_request(struct iotoken *t, int job, double now)
{
    if (job <= 0) return 0;
    if (t->holder == job) return job; /* already holds it: grant again (the job may have missed it) */
    for (int i = 0; i < t->n; i++)
        if (t->queue[i] == job) return 0;
    if (!t->holder) {
        t->holder = job;
        t->granted_at = now;
        t->grants++;
        return job;
    }
    if (t->n < IOTOKEN_MAX) t->queue[t->n++] = job;
    return 0;
}

int iotoken_release(struct iotoken *t, int job, double now)
{
    for (int i = 0; i < t->n; i++)
        if (t->queue[i] == job) {
            memmove(&t->queue[i], &t->queue[i + 1], (size_t)(t->n - i - 1) * sizeof t->queue[0]);
            t->n--;
            i--;
        }
    if (t->holder != job) return 0;
    t->holder = 0;
    if (t->n == 0) return 0;
    t->holder = t->queue[0];
    memmove(&t->queue[0], &t->queue[1], (size_t)(t->n - 1) * sizeof t->queue[0]);
    t->n--;
    t->granted_at = now;
    t->grants++;
    return t->holder;
}
