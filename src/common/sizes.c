/* sizes.c -- a job's size constraints: parsing, the check of one count, the
 * nearest allowed count (see sizes.h). */
#include "sizes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_count(const char *p, size_t len, long lo, long *out)
{
    char buf[24];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || *end || end == buf || v < lo || v > SIZES_PROCS_MAX) return -1;
    *out = v;
    return 0;
}

static int is_square(int n)
{
    long r = 0;
    while ((r + 1) * (r + 1) <= n) r++;
    return r * r == n;
}

/* n against one alternative of allowed= (p, len): 1 matches, 0 not, -1 malformed */
static int alt_matches(const char *p, size_t len, int n)
{
    long k;
    if (len == 7 && strncmp(p, "squares", 7) == 0) return is_square(n);
    if (len == 4 && strncmp(p, "pow2", 4) == 0) return n > 0 && (n & (n - 1)) == 0;
    if (len > 10 && strncmp(p, "multiples:", 10) == 0) {
        if (parse_count(p + 10, len - 10, 1, &k) != 0) return -1;
        return n % k == 0;
    }
    if (parse_count(p, len, 1, &k) != 0) return -1;
    return n == k;
}

/* n against the whole allowed= text: 1, 0, or -1 (malformed, why set) */
static int allowed_matches(const char *a, int n, char *why, size_t whylen)
{
    int any = 0;
    for (const char *p = a; *p;) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int m = alt_matches(p, len, n);
        if (m < 0) {
            if (why) snprintf(why, whylen, "allowed='%s': '%.*s' is not squares, pow2, multiples:K or a count from 1 to %d",
                              a, (int)len, p, SIZES_PROCS_MAX);
            return -1;
        }
        any |= m;
        p = e ? e + 1 : p + len;
        if (e && !*p) {
            if (why) snprintf(why, whylen, "allowed='%s' ends with '|'", a);
            return -1;
        }
    }
    return any;
}

int sizes_allows(const struct ductile_sizes *s, int n, char *why, size_t whylen)
{
    char dummy[8];
    if (!why) { why = dummy; whylen = sizeof dummy; }
    why[0] = '\0';
    int base = s->min > 0 ? s->min : 1;
    if (n < 1) snprintf(why, whylen, "%d processes: a job needs at least one", n);
    else if (s->min > 0 && n < s->min)
        snprintf(why, whylen, "%d process%s is below the job's minimum of %d", n, n == 1 ? "" : "es", s->min);
    else if (s->max > 0 && n > s->max)
        snprintf(why, whylen, "%d process%s is above the job's maximum of %d", n, n == 1 ? "" : "es", s->max);
    else if (s->step > 1 && (n - base) % s->step != 0)
        snprintf(why, whylen, "%d process%s is not %d plus a multiple of the job's step %d", n, n == 1 ? "" : "es", base,
                 s->step);
    else if (s->allowed[0] && allowed_matches(s->allowed, n, NULL, 0) != 1)
        snprintf(why, whylen, "%d process%s is not among the job's allowed counts (%s)", n, n == 1 ? "" : "es",
                 s->allowed);
    return why[0] == '\0';
}

int sizes_parse(const char *spec, struct ductile_sizes *s, char *why, size_t whylen)
{
    struct ductile_sizes t = *s;
    why[0] = '\0';
    for (const char *p = spec ? spec : ""; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            snprintf(why, whylen, "'%.*s' is not KEY=VALUE (keys: min, max, step, allowed, preferred)", (int)len, p);
            return -1;
        }
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        const char *v = eq + 1;
        long x = 0;
        if (kl == 7 && strncmp(p, "allowed", 7) == 0) {
            if (vl >= sizeof t.allowed) {
                snprintf(why, whylen, "allowed= is longer than %d characters", SIZES_ALLOWED_MAX - 1);
                return -1;
            }
            memcpy(t.allowed, v, vl);
            t.allowed[vl] = '\0';
            if (vl && allowed_matches(t.allowed, 1, why, whylen) < 0) return -1;
        } else if ((kl == 3 && (strncmp(p, "min", 3) == 0 || strncmp(p, "max", 3) == 0)) ||
                   (kl == 4 && strncmp(p, "step", 4) == 0) || (kl == 9 && strncmp(p, "preferred", 9) == 0)) {
            if (parse_count(v, vl, 0, &x) != 0) {
                snprintf(why, whylen, "%.*s='%.*s' is not a count from 0 to %d", (int)kl, p, (int)vl, v,
                         SIZES_PROCS_MAX);
                return -1;
            }
            if (p[0] == 's') t.step = (int)x;
            else if (p[0] == 'p') t.preferred = (int)x;
            else if (p[1] == 'i') t.min = (int)x;
            else t.max = (int)x;
        } else {
            snprintf(why, whylen, "unknown key '%.*s' (keys: min, max, step, allowed, preferred)", (int)kl, p);
            return -1;
        }
        p = e ? e + 1 : p + len;
    }
    if (t.min > 0 && t.max > 0 && t.min > t.max) {
        snprintf(why, whylen, "min=%d is above max=%d", t.min, t.max);
        return -1;
    }
    char w[400];
    if (t.preferred > 0 && !sizes_allows(&t, t.preferred, w, sizeof w)) {
        snprintf(why, whylen, "preferred=%d cannot be used: %s", t.preferred, w);
        return -1;
    }
    *s = t;
    return 0;
}

int sizes_nearest(const struct ductile_sizes *s, int n, int dir, int limit)
{
    for (int d = 0; d <= limit; d++) {
        if (dir <= 0 && n - d >= 1 && sizes_allows(s, n - d, NULL, 0)) return n - d;
        if (dir >= 0 && n + d <= SIZES_PROCS_MAX && sizes_allows(s, n + d, NULL, 0)) return n + d;
    }
    return 0;
}

static void append(char *out, size_t outlen, const char *key, long v, const char *text)
{
    size_t o = strlen(out);
    if (o + 1 >= outlen) return;
    if (text) snprintf(out + o, outlen - o, "%s%s=%s", o ? "," : "", key, text);
    else snprintf(out + o, outlen - o, "%s%s=%ld", o ? "," : "", key, v);
}

void sizes_format(const struct ductile_sizes *s, char *out, size_t outlen)
{
    if (!outlen) return;
    out[0] = '\0';
    if (s->min > 0) append(out, outlen, "min", s->min, NULL);
    if (s->max > 0) append(out, outlen, "max", s->max, NULL);
    if (s->step > 1) append(out, outlen, "step", s->step, NULL);
    if (s->allowed[0]) append(out, outlen, "allowed", 0, s->allowed);
    if (s->preferred > 0) append(out, outlen, "preferred", s->preferred, NULL);
}
