/* history.c -- a job's monitoring samples, compact (see history.h). */
#include "history.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    H_ITERS = 1, H_INTERVAL = 2, H_COMPUTE = 4, H_COMM = 8, H_IO = 16, H_BYTES = 32, H_IO_CALLS = 64, H_DROPPED = 128,
    H_IO_HELD = 256, H_CONTROL = 512, H_MAXITER = 1024, H_MERGED = 2048
};

int hist_init(struct history *h, int cap)
{
    h->n = 0;
    h->cap = cap;
    h->v = malloc((size_t)cap * sizeof *h->v);
    if (!h->v) return -1;
    memset(h->v, 0, (size_t)cap * sizeof *h->v); /* touched now: the job's memory does not grow with its samples */
    return 0;
}

void hist_free(struct history *h)
{
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* a + b without overflow (the values come from the network): saturated */
static long long sat_add(long long a, long long b)
{
    long long r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? LLONG_MAX : LLONG_MIN;
    return r;
}

static void merge_into(struct hsample *a, const struct hsample *b)
{
    a->iters = sat_add(a->iters, b->iters);
    a->bytes = sat_add(a->bytes, b->bytes);
    a->io_calls = sat_add(a->io_calls, b->io_calls);
    a->dropped = sat_add(a->dropped, b->dropped);
    a->interval_s += b->interval_s;
    a->compute_s += b->compute_s;
    a->comm_s += b->comm_s;
    a->io_s += b->io_s;
    a->t = b->t, a->iteration = b->iteration, a->procs = b->procs, a->recv = b->recv;
    if (b->has & H_IO_HELD) a->io_held = b->io_held;
    if (b->has & H_CONTROL) a->control_point = b->control_point;
    a->has |= b->has & (unsigned short)~H_MAXITER;
    a->merged = sat_add(a->has & H_MERGED ? a->merged : 1, b->has & H_MERGED ? b->merged : 1);
    a->has |= H_MERGED;
}

static void downsample(struct history *h)
{
    int half = h->n / 2, out = 0;
    for (int i = 0; i < half; out++) {
        /* a change of size stays a sample boundary */
        if (i + 1 >= half || h->v[i].procs != h->v[i + 1].procs) {
            h->v[out] = h->v[i++];
            continue;
        }
        struct hsample m = h->v[i];
        merge_into(&m, &h->v[i + 1]);
        h->v[out] = m;
        i += 2;
    }
    memmove(h->v + out, h->v + half, (size_t)(h->n - half) * sizeof *h->v);
    h->n -= half - out;
}

static void from_json(struct hsample *s, const json_t *o)
{
    memset(s, 0, sizeof *s);
    json_t *v;
#define NUM(f, key, bit) if ((v = json_object_get(o, key)) && json_is_number(v)) s->f = json_number_value(v), s->has |= (bit)
#define INT(f, key, bit) if ((v = json_object_get(o, key)) && json_is_integer(v)) s->f = json_integer_value(v), s->has |= (bit)
    NUM(t, "t", 0);
    NUM(recv, "recv", 0);
    INT(iteration, "iteration", 0);
    INT(procs, "procs", 0);
    INT(iters, "iters", H_ITERS);
    NUM(interval_s, "interval_s", H_INTERVAL);
    NUM(compute_s, "compute_s", H_COMPUTE);
    NUM(comm_s, "comm_s", H_COMM);
    NUM(io_s, "io_s", H_IO);
    INT(bytes, "bytes", H_BYTES);
    INT(io_calls, "io_calls", H_IO_CALLS);
    INT(dropped, "dropped", H_DROPPED);
    INT(maxiter, "maxiter", H_MAXITER);
    INT(merged, "merged", H_MERGED);
#undef NUM
#undef INT
    if ((v = json_object_get(o, "io_held")) && json_is_boolean(v)) s->io_held = json_is_true(v), s->has |= H_IO_HELD;
    if ((v = json_object_get(o, "control_point")) && json_is_boolean(v))
        s->control_point = json_is_true(v), s->has |= H_CONTROL;
}

void hist_add(struct history *h, const json_t *sample, double recv)
{
    if (!h->v || h->cap < 2) return;
    if (h->n == h->cap) downsample(h);
    if (h->n == h->cap) memmove(h->v, h->v + 1, (size_t)--h->n * sizeof *h->v); /* every sample a size of its own */
    struct hsample *s = &h->v[h->n++];
    from_json(s, sample);
    s->recv = recv;
}

const struct hsample *hist_last(const struct history *h) { return h->n ? &h->v[h->n - 1] : NULL; }

json_t *hist_json(const struct hsample *s)
{
    json_t *o = json_pack("{s:f, s:I, s:i, s:f}", "t", s->t, "iteration", (json_int_t)s->iteration, "procs", s->procs, "recv",
                          s->recv);
    if (!o) return NULL;
#define PUT(bit, key, val) if (s->has & (bit)) json_object_set_new(o, key, val)
    PUT(H_ITERS, "iters", json_integer(s->iters));
    PUT(H_INTERVAL, "interval_s", json_real(s->interval_s));
    PUT(H_COMPUTE, "compute_s", json_real(s->compute_s));
    PUT(H_COMM, "comm_s", json_real(s->comm_s));
    PUT(H_IO, "io_s", json_real(s->io_s));
    PUT(H_BYTES, "bytes", json_integer(s->bytes));
    PUT(H_IO_CALLS, "io_calls", json_integer(s->io_calls));
    PUT(H_DROPPED, "dropped", json_integer(s->dropped));
    PUT(H_IO_HELD, "io_held", json_boolean(s->io_held));
    PUT(H_CONTROL, "control_point", json_boolean(s->control_point));
    PUT(H_MAXITER, "maxiter", json_integer(s->maxiter));
    PUT(H_MERGED, "merged", json_integer(s->merged));
#undef PUT
    return o;
}

json_t *hist_tail_json(const struct history *h, int n)
{
    json_t *a = json_array();
    for (int i = n < h->n ? h->n - n : 0; a && i < h->n; i++) json_array_append_new(a, hist_json(&h->v[i]));
    return a;
}

void hist_load(struct history *h, const json_t *a)
{
    if (!h->v || !json_is_array(a)) return;
    h->n = 0;
    size_t n = json_array_size(a);
    for (size_t i = n > (size_t)h->cap ? n - (size_t)h->cap : 0; i < n; i++) {
        const json_t *o = json_array_get(a, i);
        if (!json_is_object(o)) continue;
        from_json(&h->v[h->n], o);
        if (h->v[h->n].procs < 0) h->v[h->n].procs = 0;
        h->n++;
    }
}
