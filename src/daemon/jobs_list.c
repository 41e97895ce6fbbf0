/* jobs_list.c -- the `list` answer's jobs as JSON text, written directly
 * (issue 25, item 4): 2,000 jobs made a tree of some 40,000 objects per
 * request, allocated, dumped and freed again; here each job is one
 * formatted run of text into one growing buffer.  The fields are those of
 * jobs_summary (jobs.c); brief keeps only what ductilectl's table shows
 * (job, tag, binary, state, procs, pending, iteration, iteration_s, uid,
 * start).  Strings are escaped as JSON wants (jansson's dump does the same:
 * quote, backslash and control characters). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"

struct sbuf {
    char *p;
    size_t n, cap;
    int err;
};

static int sb_room(struct sbuf *b, size_t more)
{
    if (b->err) return -1;
    if (b->n + more + 1 <= b->cap) return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + more + 1) nc *= 2;
    char *np = realloc(b->p, nc);
    if (!np) {
        b->err = 1;
        return -1;
    }
    b->p = np;
    b->cap = nc;
    return 0;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    if (sb_room(b, n) != 0) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_lit(struct sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    for (int pass = 0; pass < 2; pass++) {
        size_t left = b->cap > b->n ? b->cap - b->n : 0;
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(left ? b->p + b->n : NULL, left, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->err = 1;
            return;
        }
        if ((size_t)w < left) {
            b->n += (size_t)w;
            return;
        }
        if (sb_room(b, (size_t)w) != 0) return;
    }
}

/* a JSON string: quote, backslash and control characters escaped (the
 * strings are UTF-8, checked at the edge, and pass as they are) */
static void sb_str(struct sbuf *b, const char *s)
{
    sb_put(b, "\"", 1);
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 32 && c != '"' && c != '\\' && c != 127) continue;
        sb_put(b, run, (size_t)(p - run));
        char e[8];
        if (c == '"' || c == '\\') snprintf(e, sizeof e, "\\%c", c);
        else if (c == '\n') snprintf(e, sizeof e, "\\n");
        else if (c == '\t') snprintf(e, sizeof e, "\\t");
        else snprintf(e, sizeof e, "\\u%04x", c);
        sb_lit(b, e);
        run = p + 1;
    }
    sb_put(b, run, strlen(run));
    sb_put(b, "\"", 1);
}

/* a real as JSON: finite, with a fraction or an exponent so that it reads back as a real */
static void sb_real(struct sbuf *b, double v, const char *fmt)
{
    if (!isfinite(v)) v = 0;
    char t[64];
    int w = snprintf(t, sizeof t, fmt, v);
    if (w < 0 || (size_t)w >= sizeof t) w = snprintf(t, sizeof t, "%.17g", v);
    if (!strpbrk(t, ".eEn")) strcat(t, ".0");
    sb_lit(b, t);
}

/* an epoch time with 6 decimals, as "%.6f" writes it, in integers: a double's "%.6f" goes through
 * glibc's multi-precision digits (with 2,000 jobs listed 4 times a second the list's reals were
 * about a sixth of the daemon's time, bench/daemon-scale under perf) */
static void sb_micro(struct sbuf *b, double v)
{
    if (!isfinite(v) || v < 0 || v > 1e12) {
        sb_real(b, isfinite(v) ? v : 0, "%.6f");
        return;
    }
    /* v's fraction is exact, and so is its product by 10^6 for an epoch time (its fraction has 22
     * bits); nearbyint rounds a tie to even, as printf does */
    double sec = floor(v), us = nearbyint((v - sec) * 1e6);
    if (us >= 1e6) sec += 1, us -= 1e6;
    sb_printf(b, "%lld.%06lld", (long long)sec, (long long)us);
}

static void one_job(struct sbuf *b, const struct jobs *t, const struct job *j, double now, int brief)
{
    sb_printf(b, "{\"job\":%d,\"tag\":", j->id);
    sb_str(b, j->tag);
    sb_lit(b, ",\"binary\":");
    sb_str(b, j->binary);
    sb_printf(b, ",\"state\":\"%s\",\"procs\":%d,\"pending\":%d,\"iteration\":%lld,\"iteration_s\":", job_state_name(j->state),
              j->procs, j->pending, (long long)j->iteration);
    sb_real(b, jobs_iter_time(j), "%.9g");
    if (j->uid >= 0) sb_printf(b, ",\"uid\":%lld", (long long)j->uid);
    if (j->time_sample > 1) sb_printf(b, ",\"time_sample\":%d", j->time_sample); /* its times are estimates */
    sb_lit(b, ",\"start\":");
    sb_micro(b, j->start > 0 ? j->start : j->registered);
    if (!brief) {
        sb_printf(b, ",\"pid\":%lld,\"io_held\":%s,\"age_s\":", (long long)j->pid, j->io_held ? "true" : "false");
        sb_real(b, now - j->last_seen, "%.6f");
        sb_lit(b, ",\"slots\":{");
        int first = 1;
        for (int i = 0; i < t->rm->nhosts; i++)
            if (j->alloc[i]) {
                if (!first) sb_put(b, ",", 1);
                first = 0;
                sb_str(b, t->rm->hosts[i].name);
                sb_printf(b, ":%d", j->alloc[i]);
            }
        sb_printf(b, "},\"exit_status\":%d,\"samples\":%lld,\"parked\":%d,\"exited\":%d", j->exit_status,
                  (long long)j->samples, j->parked, j->exited);
    }
    sb_put(b, "}", 1);
}

char *jobs_list_text(const struct jobs *t, double now, int brief, size_t *len)
{
    struct sbuf b = {0};
    sb_room(&b, (size_t)t->n * (brief ? 200 : 320) + 16);
    sb_put(&b, "[", 1);
    for (int k = 0; k < t->n; k++) {
        if (k) sb_put(&b, ",", 1);
        one_job(&b, t, t->v[k], now, brief);
    }
    sb_put(&b, "]", 1);
    if (b.err) {
        free(b.p);
        return NULL;
    }
    *len = b.n;
    return b.p;
}
