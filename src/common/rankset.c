/* rankset.c -- sets of ranks as text (see rankset.h). */
#include "rankset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number at s[*i..len), at most 10 digits; -1 when none. */
static long long number(const char *s, size_t len, size_t *i)
{
    long long v = 0;
    size_t d = 0;
    while (*i < len && isdigit((unsigned char)s[*i]) && d < 11) v = v * 10 + (s[(*i)++] - '0'), d++;
    return d == 0 || d > 10 ? -1 : v;
}

long rankset_each(const char *s, size_t len, int limit, rankset_fn fn, void *arg, char *why, size_t wl)
{
    long n = 0;
    size_t i = 0;
    while (len > 0 && i < len) {
        size_t at = i;
        long long a = number(s, len, &i), b = a, st = 1;
        if (a >= 0 && i < len && s[i] == '-') {
            i++;
            b = number(s, len, &i);
            if (b >= 0 && i < len && s[i] == ':') {
                i++;
                st = number(s, len, &i);
            }
        }
        if (a < 0 || b < 0 || st < 1 || b < a || (i < len && s[i] != ',' && s[i] != ';') ||
            (i < len && i + 1 == len)) {
            snprintf(why, wl, "rank set: item %zu ('%.24s') is not R, A-B or A-B:S with A <= B, S >= 1, separated by ',' or ';'", at,
                     s + at);
            return -1;
        }
        if (b >= limit) {
            snprintf(why, wl, "rank set: rank %lld is out of range (0 to %d)", b, limit - 1);
            return -1;
        }
        for (long long r = a; r <= b; r += st) {
            if (fn && fn(arg, (int)r, why, wl) != 0) return -1;
            n++;
        }
        if (i < len) i++; /* the separator */
    }
    return n;
}

struct marker {
    unsigned char *mark;
};

static int mark_one(void *arg, int r, char *why, size_t wl)
{
    struct marker *m = arg;
    if (m->mark[r]) {
        snprintf(why, wl, "rank set: rank %d appears twice", r);
        return -1;
    }
    m->mark[r] = 1;
    return 0;
}

long rankset_mark(const char *s, int limit, unsigned char *mark, char *why, size_t wl)
{
    struct marker m = {mark};
    return rankset_each(s, strlen(s), limit, mark_one, &m, why, wl);
}

/* Append one item for the run r[i..k] of stride st. */
static size_t item(char *out, size_t o, const int *r, int i, int k, int st)
{
    if (o) out[o++] = ',';
    if (k == i) return o + (size_t)sprintf(out + o, "%d", r[i]);
    if (st == 1) return o + (size_t)sprintf(out + o, "%d-%d", r[i], r[k]);
    return o + (size_t)sprintf(out + o, "%d-%d:%d", r[i], r[k], st);
}

char *rankset_encode(const int *r, int n)
{
    /* at most one item of 11 characters + ',' per rank */
    char *out = malloc((size_t)(n > 0 ? n : 0) * 12 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (int i = 0; i < n;) {
        int k = i;
        if (i + 1 < n) {
            int st = r[i + 1] - r[i];
            while (k + 1 < n && r[k + 1] - r[k] == st) k++;
            if (st == 1 || k - i >= 2) {
                o = item(out, o, r, i, k, st);
                i = k + 1;
                continue;
            }
        }
        o = item(out, o, r, i, i, 1);
        i++;
    }
    out[o] = '\0';
    char *small = realloc(out, o + 1);
    return small ? small : out;
}

char *rankset_encode_marked(const unsigned char *mark, int limit, unsigned char want)
{
    int n = 0;
    for (int r = 0; r < limit; r++) n += mark[r] == want;
    int *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (int r = 0, k = 0; r < limit; r++)
        if (mark[r] == want) v[k++] = r;
    char *s = rankset_encode(v, n);
    free(v);
    return s;
}
