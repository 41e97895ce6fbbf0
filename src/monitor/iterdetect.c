/* iterdetect.c -- main-loop detection from a stream of call-site symbols (pure logic, no MPI).
 *
 * See iterdetect.h for the exact detection, locking and iteration-counting rules.  Implementation notes:
 *  - Symbols are stored twice (sym[i] and sym[i + WINDOW]) so that the current window is always one
 *    contiguous array, which keeps the period-search scan a simple, vectorisable loop.
 *  - The period search costs O(n / min_repeats) in the common case: a vectorised scan of 32-bit fingerprints
 *    of symbol 4-grams yields the candidate periods (a necessary condition, see find_period()), which are
 *    then verified exactly, newest symbols first.  Search work is counted and the next search is postponed
 *    when a search was expensive, bounding the amortised cost per feed.
 *  - Symbol counts within one period use a generation-stamped open-addressing table (no clearing, no malloc).
 */
#include "iterdetect.h"

#include <string.h>

#define WIN ITERDETECT_WINDOW
#define WMASK ((uint64_t)ITERDETECT_WINDOW - 1)
#define TMASK ((uint64_t)ITERDETECT_TIMES - 1)
#define UMASK ((uint32_t)ITERDETECT_UNIQ_SLOTS - 1)

/* Target search work (symbol compares) per fed symbol; a costlier search postpones the next one. */
#define WORK_PER_FEED 64u

_Static_assert((ITERDETECT_WINDOW & (ITERDETECT_WINDOW - 1)) == 0, "ITERDETECT_WINDOW must be a power of two");
_Static_assert((ITERDETECT_TIMES & (ITERDETECT_TIMES - 1)) == 0, "ITERDETECT_TIMES must be a power of two");
_Static_assert((ITERDETECT_UNIQ_SLOTS & (ITERDETECT_UNIQ_SLOTS - 1)) == 0, "UNIQ_SLOTS must be a power of two");
_Static_assert(ITERDETECT_UNIQ_SLOTS >= ITERDETECT_WINDOW, "UNIQ_SLOTS must be >= 2 * max period");
_Static_assert(ITERDETECT_SEARCH_EVERY >= 1, "ITERDETECT_SEARCH_EVERY must be >= 1");

void iterdetect_init(iterdetect *d, unsigned min_repeats, uint64_t max_calls)
{
    memset(d, 0, sizeof *d);
    d->min_repeats = min_repeats;
    d->max_calls = max_calls;
    d->next_search = ITERDETECT_SEARCH_EVERY;
    d->state = min_repeats < 2 ? ITERDETECT_OFF : ITERDETECT_DETECTING;
}

void iterdetect_disable(iterdetect *d)
{
    d->state = ITERDETECT_OFF;
}

iterdetect_state iterdetect_get_state(const iterdetect *d)
{
    if (d->min_repeats < 2)         /* never initialised (all zero) or invalid parameters */
        return ITERDETECT_OFF;
    return d->state;
}

uint64_t iterdetect_head(const iterdetect *d)
{
    return d->period ? d->head : 0;
}

unsigned iterdetect_period(const iterdetect *d)
{
    return d->period;
}

uint64_t iterdetect_iterations(const iterdetect *d)
{
    return d->iterations;
}

/* The whole-run series: add one iteration (start t0, duration dur) to the last bucket, or start a new one;
   when all are full, merge neighbours pairwise (width doubles). */
static void record_bucket(iterdetect *d, double t0, double dur)
{
    if (d->bucket_width == 0)
        d->bucket_width = 1;
    iterdetect_bucket *b = d->nbuckets ? &d->buckets[d->nbuckets - 1] : NULL;
    if (!b || b->count >= d->bucket_width) {
        if (d->nbuckets == ITERDETECT_BUCKETS) {
            for (unsigned i = 0; i < ITERDETECT_BUCKETS / 2; i++) {
                iterdetect_bucket *x = &d->buckets[2 * i], *y = &d->buckets[2 * i + 1];
                iterdetect_bucket m = {x->first, x->count + y->count, x->t_start, x->sum + y->sum,
                                       x->min < y->min ? x->min : y->min, x->max > y->max ? x->max : y->max};
                d->buckets[i] = m;
            }
            d->nbuckets = ITERDETECT_BUCKETS / 2;
            d->bucket_width *= 2;
        }
        b = &d->buckets[d->nbuckets++];
        b->first = d->iterations;
        b->count = 0;
        b->t_start = t0;
        b->sum = 0;
        b->min = b->max = dur;
    }
    b->count++;
    b->sum += dur;
    if (dur < b->min)
        b->min = dur;
    if (dur > b->max)
        b->max = dur;
}

size_t iterdetect_timeline(const iterdetect *d, const iterdetect_bucket **out, uint64_t *width)
{
    *out = d->buckets;
    *width = d->bucket_width ? d->bucket_width : 1;
    return d->nbuckets;
}

static void record_duration(iterdetect *d, double t0, double t1)
{
    double dur = t1 - t0;
    record_bucket(d, t0, dur);
    if (d->iterations == 0) {
        d->min = dur;
        d->max = dur;
    } else {
        if (dur < d->min)
            d->min = dur;
        if (dur > d->max)
            d->max = dur;
    }
    d->total += dur;
    d->last = dur;
    d->times[d->iterations & TMASK] = dur;
    d->iterations++;
}

void iterdetect_get_stats(const iterdetect *d, iterdetect_stats *out)
{
    out->count = d->iterations;
    if (d->iterations == 0) {
        out->total = out->min = out->max = out->mean = out->last = 0.0;
        return;
    }
    out->total = d->total;
    out->min = d->min;
    out->max = d->max;
    out->mean = d->total / (double)d->iterations;
    out->last = d->last;
}

size_t iterdetect_recent_times(const iterdetect *d, double *out, size_t n)
{
    uint64_t kept = d->iterations < ITERDETECT_TIMES ? d->iterations : ITERDETECT_TIMES;
    size_t k = n < kept ? n : (size_t)kept;
    uint64_t first = d->iterations - k;
    for (size_t i = 0; i < k; i++)
        out[i] = d->times[(first + i) & TMASK];
    return k;
}

/* ---- period search -------------------------------------------------------------------------------- */

static inline uint32_t uhash(uint64_t key)
{
    key ^= key >> 29;
    key *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(key >> 40);
}

/* Slot of key in the current generation, inserting it (count 0) if absent. */
static iterdetect_uslot *uslot(iterdetect *d, uint64_t key)
{
    uint32_t i = uhash(key) & UMASK;
    for (;;) {
        iterdetect_uslot *s = &d->uniq[i];
        if (s->gen != d->uniq_gen) {
            s->gen = d->uniq_gen;
            s->key = key;
            s->count = 0;
            return s;
        }
        if (s->key == key)
            return s;
        i = (i + 1) & UMASK;
    }
}

/* Count the symbols of v[0..p-1] into the table (new generation); returns 1 if any occurs exactly once. */
static int count_period(iterdetect *d, const uint64_t *v, unsigned p)
{
    if (++d->uniq_gen == 0) {      /* generation wrapped: really clear once every 2^32 searches */
        memset(d->uniq, 0, sizeof d->uniq);
        d->uniq_gen = 1;
    }
    for (unsigned i = 0; i < p; i++)
        uslot(d, v[i])->count++;
    for (unsigned i = 0; i < p; i++)
        if (uslot(d, v[i])->count == 1)
            return 1;
    return 0;
}

static inline uint64_t span_for(const iterdetect *d, uint64_t p)
{
    uint64_t l = (uint64_t)d->min_repeats * p;
    return l > ITERDETECT_MIN_SPAN ? l : ITERDETECT_MIN_SPAN;
}

/* 32-bit fingerprint of the symbol 4-gram (s3, s2, s1, s0), s0 newest; equal 4-grams give equal values. */
#define GRAM 4
static inline uint32_t gram_fp(uint64_t s3, uint64_t s2, uint64_t s1, uint64_t s0)
{
    uint64_t x = s3 * 0x9E3779B97F4A7C15ull;
    x = (x ^ s2) * 0xC2B2AE3D27D4EB4Full;
    x = (x ^ s1) * 0x165667B19E3779F9ull;
    x = (x ^ s0) * 0xD6E8FEB86659FD93ull;
    return (uint32_t)(x >> 32);
}

/* Is the tail v[n-l .. n-1] periodic with period p?  Compares newest first (where the mismatches of
   non-periodic candidates are most likely), in branch-free blocks of 8.  Adds compares to *work. */
static int tail_periodic(const uint64_t *v, uint64_t n, uint64_t p, uint64_t l, uint64_t *work)
{
    uint64_t k = l - p;
    const uint64_t *a = v + n - k, *b = a - p;      /* need a[i] == b[i] for 0 <= i < k */
    while (k >= 8) {
        k -= 8;
        uint64_t x = 0;
        for (int i = 0; i < 8; i++)
            x |= a[k + i] ^ b[k + i];
        *work += 8;
        if (x)
            return 0;
    }
    while (k > 0) {
        k--;
        *work += 1;
        if (a[k] != b[k])
            return 0;
    }
    return 1;
}

/* Smallest period (ignoring uniqueness) of the window v[0..n-1] (4-gram fingerprints g[]), or 0.
   Adds the cost to *work (candidate compares count 1, fingerprint scan elements count 1/8). */
static uint64_t find_period(const iterdetect *d, const uint64_t *v, const uint32_t *g, uint64_t n,
                            uint64_t *work)
{
    if (n < 2 || n < ITERDETECT_MIN_SPAN)
        return 0;
    uint64_t pmax = n / d->min_repeats;          /* span_for(p) <= n for every p <= pmax */

    /* q = length of the trailing run of equal symbols a = v[n-1]. */
    const uint64_t a = v[n - 1];
    uint64_t q = 1;
    while (q < n && v[n - 1 - q] == a)
        q++;
    *work += q;
    if (q >= span_for(d, 1))
        return pmax >= 1;
    if (q >= n)
        return 0;
    /* Checked pairs for period p are (i-p, i) for n-L(p)+p <= i < n.
       - p <= q is impossible: the pair (v[n-1-q], v[n-1-q+p]) = (b, a) is checked and b != a
         (if L(p) <= q, then L(1) <= q and p = 1 was accepted above).
       - p > q: L(p) >= 2p > p + q, so i = n-1-q is checked: v[n-1-q-p] == b is necessary.
       - p >= q + GRAM - 1: L(p) >= 2p >= p + q + GRAM - 1, so all of i = n-q-GRAM+1 .. n-q are checked and
         the 4-gram ending at n-q-p must equal the one ending at n-q: g[n-q-p] == g[n-q] is necessary. */
    if (pmax > n - 1 - q)
        pmax = n - 1 - q;                        /* keeps v[n-1-q-p] in the window; normally a no-op */
    const uint64_t b = v[n - 1 - q];
    uint64_t p = q + 1;
    for (; p <= pmax && p < q + GRAM - 1; p++)
        if (v[n - 1 - q - p] == b && tail_periodic(v, n, p, span_for(d, p), work))
            return p;
    if (p > pmax)
        return 0;

    const uint32_t key = g[n - q];
    uint64_t hi = n - q - p + 1;                 /* one past the index of period p */
    const uint64_t lo = n - q - pmax;            /* index of p = pmax */
    uint64_t scanned = 0;
    while (hi > lo) {
        uint64_t blo = hi - lo >= 16 ? hi - 16 : lo;
        int any = 0;
        if (hi - blo == 16) {
            const uint32_t *blk = g + blo;       /* constant trip count: vectorised */
            for (int i = 0; i < 16; i++)
                any |= blk[i] == key;
        } else {
            any = 1;
        }
        scanned += hi - blo;
        if (any) {
            for (uint64_t j = hi; j-- > blo;) {  /* largest index = smallest period first */
                if (g[j] != key)
                    continue;
                uint64_t pj = n - q - j;
                if (tail_periodic(v, n, pj, span_for(d, pj), work)) {
                    *work += scanned / 8;
                    return pj;
                }
            }
        }
        hi = blo;
    }
    *work += scanned / 8;
    return 0;
}

/* Run a period search on the current window; lock if found.  Returns the feed return value. */
static int search(iterdetect *d)
{
    uint64_t n = d->nfed < WIN ? d->nfed : WIN;
    uint64_t start = d->nfed - n;                               /* absolute index of v[0] */
    const uint64_t off = d->nfed < WIN ? 0 : (d->nfed & WMASK);
    const uint64_t *v = d->sym + off;
    uint64_t work = 0;

    uint64_t p = find_period(d, v, d->fp + off, n, &work);
    int found = 0;
    if (p) {
        work += 2 * p;
        found = count_period(d, v + n - p, (unsigned)p);
    }
    uint64_t wait = work / WORK_PER_FEED;
    d->next_search = d->nfed + (wait > ITERDETECT_SEARCH_EVERY ? wait : ITERDETECT_SEARCH_EVERY);
    if (!found)
        return 0;

    /* Extend the periodic region backwards: region = v[e .. n-1]. */
    uint64_t e = n - span_for(d, p);
    while (e > 0 && v[e - 1] == v[e - 1 + p])
        e--;

    /* Head: first symbol from v[e] on that occurs exactly once per period (counts are rotation invariant). */
    uint64_t h = e;
    while (uslot(d, v[h])->count != 1)
        h++;                                   /* terminates within one period: count_period() found one */

    d->head = v[h];
    d->period = (unsigned)p;
    d->state = ITERDETECT_LOCKED;
    d->last_head_t = d->ts[(start + h) & WMASK];
    for (uint64_t k = h + p; k < n; k += p) {
        double t = d->ts[(start + k) & WMASK];
        record_duration(d, d->last_head_t, t);
        d->last_head_t = t;
    }
    /* The newest symbol completes an iteration iff it is a head occurrence after the first one. */
    return (n - 1 - h) % p == 0 && n - 1 > h;
}

int iterdetect_feed(iterdetect *d, uint64_t symbol, double t)
{
    if (d->state == ITERDETECT_LOCKED) {
        if (symbol != d->head)
            return 0;
        record_duration(d, d->last_head_t, t);
        d->last_head_t = t;
        return 1;
    }
    if (d->state != ITERDETECT_DETECTING || d->min_repeats < 2)
        return 0;

    uint64_t pos = d->nfed & WMASK;
    d->sym[pos] = symbol;
    d->sym[pos + WIN] = symbol;
    uint32_t f = gram_fp(d->prev[2], d->prev[1], d->prev[0], symbol);
    d->fp[pos] = f;
    d->fp[pos + WIN] = f;
    d->prev[2] = d->prev[1];
    d->prev[1] = d->prev[0];
    d->prev[0] = symbol;
    d->ts[pos] = t;
    d->nfed++;

    int give_up = d->max_calls != 0 && d->nfed >= d->max_calls;
    if (d->nfed >= d->next_search || give_up) {
        int r = search(d);
        if (d->state == ITERDETECT_LOCKED)
            return r;
    }
    if (give_up)
        d->state = ITERDETECT_GAVE_UP;
    return 0;
}
