/* schedule.c -- parsing DUCTILE_SCHEDULE and the thread-safe resize request
 * queue (pure C, no MPI; see schedule.h). */
#include "schedule.h"

#include "../common/rankset.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_host_char(int c) { return isalnum(c) || c == '.' || c == '-' || c == '_'; }

int schedule_check_hosts(const char *list, int *nhosts, char *err, size_t errlen)
{
    int n = 0;
    const char *p = list;
    if (nhosts) *nhosts = 0;
    while (*p) {
        const char *e = p;
        while (*e && *e != ';' && *e != ',') e++;
        size_t len = (size_t)(e - p);
        if (len == 0 || len > 255) {
            snprintf(err, errlen, "host list '%s': empty or too long host name", list);
            return -1;
        }
        for (const char *c = p; c < e; c++)
            if (!is_host_char((unsigned char)*c)) {
                snprintf(err, errlen, "host list '%s': '%.*s' is not a valid host name", list, (int)len, p);
                return -1;
            }
        n++;
        p = *e ? e + 1 : e;
        if (*e && !*p) {
            snprintf(err, errlen, "host list '%s': ends with a separator", list);
            return -1;
        }
    }
    if (nhosts) *nhosts = n;
    return 0;
}

struct collect {
    int *ranks, cap, n;
};

static int collect(void *arg, int r, char *why, size_t wl)
{
    struct collect *c = arg;
    for (int i = 0; i < c->n; i++) /* small lists only (cap): the callers with a world use schedule_mark_ranks */
        if (c->ranks[i] == r) {
            snprintf(why, wl, "rank %d appears twice", r);
            return -1;
        }
    if (c->n >= c->cap) {
        snprintf(why, wl, "more than %d ranks", c->cap);
        return -1;
    }
    c->ranks[c->n++] = r;
    return 0;
}

static long rank_list_error(const char *list, const char *w, char *err, size_t errlen)
{
    snprintf(err, errlen, "rank list '%.200s': %s (non-negative ranks R, A-B or A-B:S separated by ';')", list, w);
    return -1;
}

int schedule_parse_ranks(const char *list, int *ranks, int cap, char *err, size_t errlen)
{
    struct collect c = {ranks, cap, 0};
    char w[200];
    if (rankset_each(list, strlen(list), INT_MAX, collect, &c, w, sizeof w) < 0) return (int)rank_list_error(list, w, err, errlen);
    return c.n;
}

struct world_mark {
    unsigned char *mark;
    int ns, out; /* out: a rank >= ns (said as such) */
};

static int world_mark(void *arg, int r, char *why, size_t wl)
{
    struct world_mark *m = arg;
    if (r >= m->ns) {
        snprintf(why, wl, "rank %d does not exist (world of %d)", r, m->ns);
        m->out = 1;
        return -1;
    }
    if (m->mark[r]) {
        snprintf(why, wl, "rank %d appears twice", r);
        return -1;
    }
    m->mark[r] = 1;
    return 0;
}

long schedule_mark_ranks(const char *list, int ns, unsigned char *mark, char *err, size_t errlen)
{
    char w[200];
    struct world_mark m = {mark, ns, 0};
    long n = rankset_each(list, strlen(list), INT_MAX, world_mark, &m, w, sizeof w);
    if (n < 0 && m.out) snprintf(err, errlen, "%s", w);
    else if (n < 0) return rank_list_error(list, w, err, errlen);
    return n;
}

long schedule_count_ranks(const char *list, char *err, size_t errlen)
{
    char w[200];
    long n = rankset_each(list, strlen(list), 1 << 20, NULL, NULL, w, sizeof w);
    if (n < 0) return rank_list_error(list, w, err, errlen);
    return n;
}

char *schedule_host_runs(const char *list, long *nruns)
{
    size_t len = strlen(list), seps = 0;
    for (const char *c = list; *c; c++) seps += *c == ';' || *c == ',';
    char *out = malloc(len + 12 * (seps + 1) + 1), *o = out;
    if (!out) return NULL;
    long runs = 0;
    const char *p = list;
    while (*p) {
        const char *e = p;
        while (*e && *e != ';' && *e != ',') e++;
        size_t n = (size_t)(e - p);
        long count = 1;
        const char *q = *e ? e + 1 : e;
        for (;;) { /* the next names equal to this one */
            const char *f = q;
            while (*f && *f != ';' && *f != ',') f++;
            if (q == e || (size_t)(f - q) != n || memcmp(q, p, n) != 0) break;
            count++;
            e = f;
            q = *f ? f + 1 : f;
        }
        if (n) {
            o += sprintf(o, "%s%.*s", runs ? "," : "", (int)n, p);
            if (count > 1) o += sprintf(o, ":%ld", count);
            runs++;
        }
        p = q;
    }
    *o = '\0';
    if (nruns) *nruns = runs;
    return out;
}

/* The characters of one run "name" or "name:count" after `runs` others. */
static size_t run_chars(size_t n, long count, long runs)
{
    size_t c = n + (runs ? 1 : 0);
    if (count > 1) c += 1 + (size_t)snprintf(NULL, 0, "%ld", count);
    return c;
}

size_t schedule_share_runs_max(const char *list, long n, long k)
{
    if (k < 1 || n < 1) return 0;
    long q = n / k, r = n % k, share = 0, in = 0, runs = 0, count = 0;
    size_t best = 0, cur = 0, rn = 0;
    const char *rp = NULL;
    for (const char *p = list; *p && share < k;) {
        const char *e = p;
        while (*e && *e != ';' && *e != ',') e++;
        size_t m = (size_t)(e - p);
        if (m) {
            if (count && (m != rn || memcmp(p, rp, m) != 0)) { /* a new run in this share */
                cur += run_chars(rn, count, runs++);
                count = 0;
            }
            if (!count) rp = p, rn = m;
            count++;
            if (++in == q + (share < r)) { /* the share is complete */
                cur += run_chars(rn, count, runs);
                if (cur > best) best = cur;
                share++, in = 0, runs = 0, count = 0, cur = 0;
            }
        }
        p = *e ? e + 1 : e;
    }
    if (count) cur += run_chars(rn, count, runs); /* a list shorter than n names */
    return cur > best ? cur : best;
}

/* Parse one entry [p, e) into r; returns 0 or -1 with a reason in why. */
static int parse_entry(const char *p, const char *e, struct resize_request *r, char *why, size_t wl)
{
    memset(r, 0, sizeof *r);
    r->source = REQUEST_FROM_SCHEDULE;
    const char *c = p;
    if (c == e || !isdigit((unsigned char)*c)) {
        snprintf(why, wl, "expected ITER:+N, ITER:-N or ITER:=N");
        return -1;
    }
    long it = 0;
    while (c < e && isdigit((unsigned char)*c)) {
        it = it * 10 + (*c - '0');
        if (it > INT_MAX) { snprintf(why, wl, "iteration too large"); return -1; }
        c++;
    }
    if (c == e || *c != ':') { snprintf(why, wl, "expected ':' after the iteration"); return -1; }
    c++;
    if (c == e || (*c != '+' && *c != '-' && *c != '=')) {
        snprintf(why, wl, "expected +N, -N or =N after ':'");
        return -1;
    }
    char op = *c++;
    if (c == e || !isdigit((unsigned char)*c)) { snprintf(why, wl, "expected a number after '%c'", op); return -1; }
    long v = 0;
    while (c < e && isdigit((unsigned char)*c)) {
        v = v * 10 + (*c - '0');
        if (v > 1000000) { snprintf(why, wl, "number of processes too large"); return -1; }
        c++;
    }
    if (op != '=' && v == 0) { snprintf(why, wl, "a change of 0 processes"); return -1; }
    if (op == '=' && v == 0) { snprintf(why, wl, "a world of 0 processes"); return -1; }
    r->iteration = (int)it;
    r->kind = op == '=' ? RESIZE_TARGET : RESIZE_DELTA;
    r->value = op == '-' ? -(int)v : (int)v;
    if (c < e) {
        if (*c != '@') { snprintf(why, wl, "unexpected '%c'", *c); return -1; }
        c++;
        size_t len = (size_t)(e - c);
        if (len == 0) { snprintf(why, wl, "empty list after '@'"); return -1; }
        r->list = strndup(c, len);
        if (!r->list) { snprintf(why, wl, "out of memory"); return -1; }
        char err2[256];
        if (op == '-') {
            long n = schedule_count_ranks(r->list, err2, sizeof err2);
            unsigned char *m = n > 0 ? calloc(1 << 20, 1) : NULL; /* each rank once */
            if (n > 0 && (!m || schedule_mark_ranks(r->list, 1 << 20, m, err2, sizeof err2) < 0)) n = -1;
            free(m);
            if (n < 0) { snprintf(why, wl, "%s", err2); return -1; }
            if (n != v) { snprintf(why, wl, "%ld ranks listed to remove %ld", n, v); return -1; }
        } else if (op == '+') {
            int nh = 0;
            if (schedule_check_hosts(r->list, &nh, err2, sizeof err2) != 0) {
                snprintf(why, wl, "%s", err2);
                return -1;
            }
            if (nh != v) {
                snprintf(why, wl, "%d host%s listed for %ld new process%s (one per new process)", nh, nh == 1 ? "" : "s",
                         v, v == 1 ? "" : "es");
                return -1;
            }
        } else {
            /* =N@list: hosts or ranks, known only at run time; only the characters are checked */
            for (const char *x = r->list; *x; x++)
                if (!is_host_char((unsigned char)*x) && *x != ';' && *x != ':') {
                    snprintf(why, wl, "bad character '%c' in list", *x);
                    return -1;
                }
        }
    }
    return 0;
}

int schedule_parse(const char *text, struct resize_request **out, int *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (!text || !*text) return 0;
    int cap = 1;
    for (const char *c = text; *c; c++)
        if (*c == ',') cap++;
    struct resize_request *rs = calloc((size_t)cap, sizeof *rs);
    if (!rs) {
        snprintf(err, errlen, "DUCTILE_SCHEDULE: out of memory");
        return -1;
    }
    int k = 0;
    const char *p = text;
    for (;;) {
        const char *e = p;
        while (*e && *e != ',') e++;
        char why[320];
        if (parse_entry(p, e, &rs[k], why, sizeof why) != 0) {
            snprintf(err, errlen, "DUCTILE_SCHEDULE='%s' is not valid: entry %d '%.*s': %s", text, k + 1,
                     (int)(e - p), p, why);
            resize_request_free(rs, k + 1);
            free(rs);
            return -1;
        }
        if (k > 0 && rs[k].iteration < rs[k - 1].iteration) {
            snprintf(err, errlen, "DUCTILE_SCHEDULE='%s' is not valid: entry %d '%.*s': iterations must not decrease",
                     text, k + 1, (int)(e - p), p);
            resize_request_free(rs, k + 1);
            free(rs);
            return -1;
        }
        k++;
        if (!*e) break;
        p = e + 1;
    }
    *out = rs;
    *n = k;
    return 0;
}

void resize_request_free(struct resize_request *r, int n)
{
    for (int k = 0; k < n; k++) {
        free(r[k].list);
        r[k].list = NULL;
    }
}

static struct request_queue *active_queue;

struct request_queue *request_queue_active(void)
{
    return __atomic_load_n(&active_queue, __ATOMIC_ACQUIRE);
}

void request_queue_init(struct request_queue *q, struct resize_request *sched, int nsched)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    q->sched = sched;
    q->nsched = nsched;
    q->next_id = 1;
    __atomic_store_n(&active_queue, q, __ATOMIC_RELEASE);
}

void request_queue_destroy(struct request_queue *q)
{
    struct request_queue *self = q;
    __atomic_compare_exchange_n(&active_queue, &self, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    pthread_mutex_destroy(&q->lock);
    resize_request_free(q->pending, q->npending);
    q->npending = 0;
    resize_request_free(q->sched, q->nsched);
    free(q->sched);
    q->sched = NULL;
    q->nsched = q->next = 0;
}

/* Validate a request; 0 or -1 with a message. */
static int check_request(int delta_or_target, int kind, const char *list, char *err, size_t errlen)
{
    char why[320];
    if (kind != RESIZE_DELTA && kind != RESIZE_TARGET) {
        snprintf(err, errlen, "resize refused: unknown kind %d", kind);
        return -1;
    }
    if (kind == RESIZE_DELTA && delta_or_target == 0) {
        snprintf(err, errlen, "resize refused: a change of 0 processes");
        return -1;
    }
    if (kind == RESIZE_TARGET && delta_or_target < 1) {
        snprintf(err, errlen, "resize refused: a world needs at least one process (target %d)", delta_or_target);
        return -1;
    }
    if (list && *list) {
        int rc;
        if (kind == RESIZE_DELTA && delta_or_target < 0) {
            long n = schedule_count_ranks(list, why, sizeof why);
            unsigned char *m = n > 0 ? calloc(1 << 20, 1) : NULL; /* each rank once */
            if (n > 0 && (!m || schedule_mark_ranks(list, 1 << 20, m, why, sizeof why) < 0)) n = -1;
            free(m);
            rc = n < 0 ? -1 : 0;
            if (n >= 0 && n != -delta_or_target) {
                snprintf(why, sizeof why, "%ld ranks listed to remove %d", n, -delta_or_target);
                rc = -1;
            }
        } else if (kind == RESIZE_DELTA) {
            int nh = 0;
            rc = schedule_check_hosts(list, &nh, why, sizeof why);
            if (rc == 0 && nh != delta_or_target) {
                snprintf(why, sizeof why, "%d host%s listed for %d new process%s (one per new process)", nh,
                         nh == 1 ? "" : "s", delta_or_target, delta_or_target == 1 ? "" : "es");
                rc = -1;
            }
        } else {
            rc = 0;
        }
        if (rc < 0) {
            snprintf(err, errlen, "resize refused: %s", why);
            return -1;
        }
    }
    return 0;
}

/* Append a checked request (lock held), taking over `list` (malloc'ed or NULL). */
static int push(struct request_queue *q, int delta_or_target, int kind, int at_iteration, char *list)
{
    struct resize_request *r = &q->pending[q->npending++];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->value = delta_or_target;
    r->iteration = at_iteration < 0 ? -1 : at_iteration;
    r->source = REQUEST_FROM_CONTROLLER;
    r->id = q->next_id++;
    if (q->next_id <= 0) q->next_id = 1;
    r->list = list;
    q->version++;
    return r->id;
}

int request_queue_submit(struct request_queue *q, int delta_or_target, int kind, int at_iteration,
                         const char *list, char *err, size_t errlen)
{
    if (check_request(delta_or_target, kind, list, err, errlen) != 0) return -1;
    char *own = NULL;
    if (list && *list && !(own = strdup(list))) {
        snprintf(err, errlen, "resize refused: out of memory");
        return -1;
    }
    pthread_mutex_lock(&q->lock);
    int rc = 0;
    if (q->busy) {
        snprintf(err, errlen, "resize refused: a reconfiguration is in progress");
        rc = -1;
    } else if (q->npending > 0) {
        snprintf(err, errlen, "resize refused: another resize request is pending");
        rc = -1;
    } else {
        push(q, delta_or_target, kind, at_iteration, own);
        own = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    free(own);
    return rc;
}

int request_queue_submit_id(struct request_queue *q, int delta_or_target, int kind, int at_iteration,
                            const char *list, int *id, char *err, size_t errlen)
{
    if (check_request(delta_or_target, kind, list, err, errlen) != 0) return -1;
    char *own = NULL;
    if (list && *list && !(own = strdup(list))) {
        snprintf(err, errlen, "resize refused: out of memory");
        return -1;
    }
    pthread_mutex_lock(&q->lock);
    int rc = 0;
    if (q->npending >= REQUEST_QUEUE_MAX) {
        snprintf(err, errlen, "resize refused: %d commands are already queued for this job (the most it keeps); "
                              "cancel one or wait until one has run", REQUEST_QUEUE_MAX);
        rc = -1;
    } else {
        int k = push(q, delta_or_target, kind, at_iteration, own);
        own = NULL;
        if (id) *id = k;
    }
    pthread_mutex_unlock(&q->lock);
    free(own);
    return rc;
}

/* Remove pending[k] (lock held); its list goes with whoever copied it out. */
static void drop(struct request_queue *q, int k)
{
    memmove(&q->pending[k], &q->pending[k + 1], (size_t)(q->npending - k - 1) * sizeof q->pending[0]);
    q->npending--;
    q->version++;
}

int request_queue_cancel(struct request_queue *q, int id, struct resize_request *out, int cap)
{
    int n = 0;
    pthread_mutex_lock(&q->lock);
    for (int k = 0; k < q->npending;) {
        if (id == 0 || q->pending[k].id == id) {
            if (out && n < cap) out[n] = q->pending[k];
            else free(q->pending[k].list);
            n++;
            drop(q, k);
        } else {
            k++;
        }
    }
    pthread_mutex_unlock(&q->lock);
    return n;
}

int request_queue_list(struct request_queue *q, struct resize_request *out, int cap, unsigned *version)
{
    pthread_mutex_lock(&q->lock);
    int n = q->npending < cap ? q->npending : cap;
    if (n > 0) memcpy(out, q->pending, (size_t)n * sizeof *out);
    for (int k = 0; k < n; k++)
        if (out[k].list && !(out[k].list = strdup(out[k].list))) {
            resize_request_free(out, k);
            n = -1;
            break;
        }
    if (version) *version = q->version;
    pthread_mutex_unlock(&q->lock);
    return n;
}

int request_queue_take(struct request_queue *q, int iteration, struct resize_request *out)
{
    int got = 0;
    pthread_mutex_lock(&q->lock);
    for (int k = 0; k < q->npending; k++)
        if (q->pending[k].iteration < 0 || q->pending[k].iteration <= iteration) {
            *out = q->pending[k];
            drop(q, k);
            got = 1;
            break;
        }
    if (!got && q->next < q->nsched && q->sched[q->next].iteration <= iteration) {
        *out = q->sched[q->next]; /* the schedule keeps its entries: a new rank 0 may take them again */
        if (out->list) out->list = strdup(out->list);
        if (!q->sched[q->next].list || out->list) {
            q->next++;
            got = 1;
        }
    }
    /* the engine is busy from the moment it holds a request: an application
     * request cannot slip in between the take and the resize */
    if (got) q->busy = 1;
    pthread_mutex_unlock(&q->lock);
    return got;
}

void request_queue_set_busy(struct request_queue *q, int busy)
{
    pthread_mutex_lock(&q->lock);
    q->busy = busy;
    pthread_mutex_unlock(&q->lock);
}

int request_queue_export(struct request_queue *q, struct resize_request *out, int cap, int *next_id)
{
    pthread_mutex_lock(&q->lock);
    int n = q->npending < cap ? q->npending : cap;
    if (n > 0) memcpy(out, q->pending, (size_t)n * sizeof *out);
    resize_request_free(q->pending + n, q->npending - n);
    *next_id = q->next_id;
    q->npending = 0;
    q->version++;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void request_queue_import(struct request_queue *q, struct resize_request *in, int n, int next_id)
{
    pthread_mutex_lock(&q->lock);
    for (int k = 0; k < n; k++) {
        if (q->npending < REQUEST_QUEUE_MAX) q->pending[q->npending++] = in[k];
        else free(in[k].list);
        in[k].list = NULL;
    }
    if (next_id > q->next_id) q->next_id = next_id;
    if (n > 0) q->version++;
    pthread_mutex_unlock(&q->lock);
}

int request_queue_position(struct request_queue *q)
{
    pthread_mutex_lock(&q->lock);
    int n = q->next;
    pthread_mutex_unlock(&q->lock);
    return n;
}

void request_queue_set_position(struct request_queue *q, int next)
{
    pthread_mutex_lock(&q->lock);
    q->next = next < 0 ? 0 : next > q->nsched ? q->nsched : next;
    pthread_mutex_unlock(&q->lock);
}
