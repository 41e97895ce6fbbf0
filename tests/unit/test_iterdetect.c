/* test_iterdetect.c -- CMocka unit tests for src/monitor/iterdetect.c (main-loop detection, pure logic).
 *
 * Streams are synthetic: symbols are small integers, timestamps are multiples of DT = 2^-10 s so that
 * every duration, sum and mean below is exactly representable and can be compared with ==.
 * Expected lock points follow from the defaults ITERDETECT_SEARCH_EVERY == 16 and ITERDETECT_MIN_SPAN == 32
 * (searches at 16, 32, 48, ... symbols; tail L(p) = max(min_repeats * p, 32) must be p-periodic).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "iterdetect.h"

_Static_assert(ITERDETECT_SEARCH_EVERY == 16, "expected values below assume a search every 16 symbols");
_Static_assert(ITERDETECT_MIN_SPAN == 32, "expected values below assume ITERDETECT_MIN_SPAN == 32");
_Static_assert(ITERDETECT_TIMES == 1024, "ring-overflow test assumes ITERDETECT_TIMES == 1024");

#define DT (1.0 / 1024.0)
#define MAXSEQ 20000

static iterdetect D;                /* large: keep it static, as the library expects */
static uint64_t seq[MAXSEQ];
static double tms[MAXSEQ];
static size_t len;

#define assert_dbl_eq(a, b)                                                                         \
    do {                                                                                            \
        double a_ = (a), b_ = (b);                                                                  \
        if (!(a_ == b_))                                                                            \
            fail_msg("%s == %.17g, expected %s == %.17g", #a, a_, #b, b_);                          \
    } while (0)

/* symbol names */
enum { A = 1, B, C, E, F, G, I, K, R, S, T, W, X, Z, H, Dd };

static void reset(void) { len = 0; }
static void push(uint64_t s) { assert_true(len < MAXSEQ); tms[len] = (double)len * DT; seq[len++] = s; }
static void push_n(const uint64_t *body, size_t n, size_t reps)
{
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i++)
            push(body[i]);
}
/* distinct symbols never used elsewhere */
static uint64_t noise_ctr = 1000000;
static void push_noise(size_t n) { while (n--) push(noise_ctr++); }

typedef struct {
    long lock_idx;          /* index of the feed that caused the lock, -1 if none */
    int lock_ret;           /* return value of that feed */
    uint64_t iters_at_lock; /* iterations right after the lock */
    uint64_t nret;          /* sum of all return values */
} runres;

/* Feed seq[from..to) (all symbols, unfiltered) and record what happened. */
static runres run(size_t from, size_t to)
{
    runres r = { -1, 0, 0, 0 };
    for (size_t i = from; i < to; i++) {
        iterdetect_state before = iterdetect_get_state(&D);
        int ret = iterdetect_feed(&D, seq[i], tms[i]);
        assert_true(ret == 0 || ret == 1);
        r.nret += (uint64_t)ret;
        if (before != ITERDETECT_LOCKED && iterdetect_get_state(&D) == ITERDETECT_LOCKED) {
            r.lock_idx = (long)i;
            r.lock_ret = ret;
            r.iters_at_lock = iterdetect_iterations(&D);
        }
        if (ret == 1)
            assert_int_equal(seq[i], iterdetect_head(&D));
    }
    return r;
}

static void assert_all_durations(double dur)
{
    static double out[ITERDETECT_TIMES];
    iterdetect_stats st;
    iterdetect_get_stats(&D, &st);
    assert_int_equal(st.count, iterdetect_iterations(&D));
    size_t k = iterdetect_recent_times(&D, out, ITERDETECT_TIMES);
    assert_int_equal(k, st.count < ITERDETECT_TIMES ? st.count : ITERDETECT_TIMES);
    for (size_t i = 0; i < k; i++)
        assert_dbl_eq(out[i], dur);
    assert_dbl_eq(st.min, dur);
    assert_dbl_eq(st.max, dur);
    assert_dbl_eq(st.last, dur);
    assert_dbl_eq(st.total, dur * (double)st.count);
    assert_dbl_eq(st.mean, dur);
}

/* A B (C D E)x50 F: head C, period 3, 49 iterations of 3*DT. */
static void test_typical_program(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, E };
    reset();
    push(A); push(B); push_n(body, 3, 50); push(F);
    iterdetect_init(&D, 2, 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_DETECTING);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), C);
    assert_int_equal(iterdetect_period(&D), 3);
    /* search at 48 symbols (tail 16..47 periodic, region starts at index 2); index 47 is a C */
    assert_int_equal(r.lock_idx, 47);
    assert_int_equal(r.lock_ret, 1);
    assert_int_equal(r.iters_at_lock, 15);  /* C at 2,5,...,47: 16 occurrences */
    assert_int_equal(iterdetect_iterations(&D), 49);  /* N - 1: last C starts a partial iteration */
    assert_int_equal(r.nret, 1 + 34);        /* lock call + C at 50,53,...,149 */
    assert_all_durations(3 * DT);
    /* the final F and further non-head symbols are ignored */
    assert_int_equal(iterdetect_feed(&D, F, 1.0), 0);
    assert_int_equal(iterdetect_iterations(&D), 49);
}

/* After the lock the caller only feeds candidate heads (function filter): same counts. */
static void test_filtered_after_lock(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, E };
    reset();
    push(A); push(B); push_n(body, 3, 50); push(F);
    iterdetect_init(&D, 2, 0);
    uint64_t nret = 0;
    for (size_t i = 0; i < len; i++) {
        if (iterdetect_get_state(&D) == ITERDETECT_LOCKED && seq[i] != C && seq[i] != E)
            continue;   /* pretend E shares C's function: it is fed but is not the head */
        nret += (uint64_t)iterdetect_feed(&D, seq[i], tms[i]);
    }
    assert_int_equal(iterdetect_iterations(&D), 49);
    assert_int_equal(nret, 35);
    assert_all_durations(3 * DT);
}

/* A B X x100 F with min_repeats 3: period 1, head X, 99 iterations. */
static void test_period_one(void **state)
{
    (void)state;
    const uint64_t body[] = { X };
    reset();
    push(A); push(B); push_n(body, 1, 100); push(F);
    iterdetect_init(&D, 3, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), X);
    assert_int_equal(iterdetect_period(&D), 1);
    /* at 32 symbols the run of X is 30 < 32; at 48 it is 46 */
    assert_int_equal(r.lock_idx, 47);
    assert_int_equal(r.lock_ret, 1);
    assert_int_equal(r.iters_at_lock, 45);
    assert_int_equal(iterdetect_iterations(&D), 99);
    assert_int_equal(r.nret, 1 + (101 - 48 + 1));
    assert_all_durations(DT);
}

/* Body C D C E: C is not unique, the head must be D (first unique symbol from the region start). */
static void test_repeated_symbol_in_body(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, C, E };
    reset();
    push(A); push(B); push_n(body, 4, 40); push(F);
    iterdetect_init(&D, 2, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), Dd);
    assert_int_equal(iterdetect_period(&D), 4);
    assert_int_equal(r.lock_idx, 47);       /* index 47 = 3 + 44 is a D */
    assert_int_equal(r.lock_ret, 1);
    assert_int_equal(r.iters_at_lock, 11);  /* D at 3,7,...,47 */
    assert_int_equal(iterdetect_iterations(&D), 39);
    assert_all_durations(4 * DT);

    /* rotation C E C D: region starts with C (not unique), next symbol E is unique */
    const uint64_t body2[] = { C, E, C, Dd };
    reset();
    push(A); push(B); push_n(body2, 4, 40); push(F);
    iterdetect_init(&D, 2, 0);
    r = run(0, len);
    assert_int_equal(iterdetect_head(&D), E);
    assert_int_equal(iterdetect_period(&D), 4);
    assert_int_equal(r.lock_idx, 47);
    assert_int_equal(r.lock_ret, 1);
    assert_int_equal(iterdetect_iterations(&D), 39);
    assert_all_durations(4 * DT);
}

/* A body without any symbol occurring once per period (C C D D) is never locked. */
static void test_no_unique_symbol(void **state)
{
    (void)state;
    const uint64_t body[] = { C, C, Dd, Dd };
    reset();
    push(A); push_n(body, 4, 500);
    iterdetect_init(&D, 2, 1500);
    runres r = run(0, len);
    assert_int_equal(r.lock_idx, -1);
    assert_int_equal(r.nret, 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);
    assert_int_equal(iterdetect_period(&D), 0);
}

/* 200 distinct symbols x 5 (min_repeats 2) and x 6 (min_repeats 5). */
static void test_long_period(void **state)
{
    (void)state;
    static uint64_t body[200];
    for (int i = 0; i < 200; i++)
        body[i] = 5000 + (uint64_t)i;

    reset();
    push(A); push(B); push(G); push_n(body, 200, 5); push(Z);
    iterdetect_init(&D, 2, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), 5000);
    assert_int_equal(iterdetect_period(&D), 200);
    assert_int_equal(r.lock_idx, 415);      /* first search with 400 periodic symbols: 416 symbols */
    assert_int_equal(r.lock_ret, 0);
    assert_int_equal(r.iters_at_lock, 2);   /* heads at 3, 203, 403 */
    assert_int_equal(iterdetect_iterations(&D), 4);
    assert_all_durations(200 * DT);

    reset();
    push(A); push(B); push(G); push_n(body, 200, 6); push(Z);
    iterdetect_init(&D, 5, 0);
    r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), 5000);
    assert_int_equal(iterdetect_period(&D), 200);
    assert_int_equal(r.lock_idx, 1007);     /* first search with 1000 periodic symbols: 1008 */
    assert_int_equal(r.lock_ret, 0);
    assert_int_equal(r.iters_at_lock, 5);   /* heads at 3, 203, ..., 1003 */
    assert_int_equal(iterdetect_iterations(&D), 5);
    assert_all_durations(200 * DT);
}

/* A E (C D E)x30 F: the init E extends the region back to index 1, so the head is E and the prefix E
   counts as the start of the first iteration: 30 iterations (= N). */
static void test_prefix_shares_last_symbol(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, E };
    reset();
    push(A); push(E); push_n(body, 3, 30); push(F);
    iterdetect_init(&D, 2, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), E);
    assert_int_equal(iterdetect_period(&D), 3);
    assert_int_equal(r.lock_idx, 47);
    assert_int_equal(r.lock_ret, 0);        /* index 47 is a C */
    assert_int_equal(r.iters_at_lock, 15);  /* E at 1,4,...,46 */
    assert_int_equal(iterdetect_iterations(&D), 30);
    assert_all_durations(3 * DT);
}

/* Distinct symbols only: stays DETECTING, GAVE_UP exactly on the max_calls-th feed, then ignores feeds. */
static void test_no_repetition_gives_up(void **state)
{
    (void)state;
    iterdetect_init(&D, 2, 5000);
    for (uint64_t i = 0; i < 4999; i++) {
        assert_int_equal(iterdetect_feed(&D, 100000 + i, (double)i * DT), 0);
        assert_int_equal(iterdetect_get_state(&D), ITERDETECT_DETECTING);
    }
    assert_int_equal(iterdetect_feed(&D, 200000, 1.0), 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    for (int i = 0; i < 200; i++)   /* a perfect loop afterwards is ignored */
        assert_int_equal(iterdetect_feed(&D, (uint64_t)(i % 3), 2.0 + i * DT), 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);
    assert_int_equal(iterdetect_head(&D), 0);
    assert_int_equal(iterdetect_period(&D), 0);
    iterdetect_stats st;
    iterdetect_get_stats(&D, &st);
    assert_int_equal(st.count, 0);
    assert_dbl_eq(st.total, 0.0);
    assert_dbl_eq(st.min, 0.0);
    assert_dbl_eq(st.max, 0.0);
    assert_dbl_eq(st.mean, 0.0);
    assert_dbl_eq(st.last, 0.0);
    double out[4];
    assert_int_equal(iterdetect_recent_times(&D, out, 4), 0);
}

/* The max_calls-th feed runs a final search: lock if the loop is detectable exactly then. */
static void test_max_calls_final_search(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, E };
    reset();
    push_noise(5); push_n(body, 3, 20);     /* loop from index 5; 32 periodic symbols at 37 */

    iterdetect_init(&D, 2, 37);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(r.lock_idx, 36);
    assert_int_equal(r.lock_ret, 0);        /* index 36 is a D */
    assert_int_equal(r.iters_at_lock, 10);  /* C at 5,8,...,35 */
    assert_int_equal(iterdetect_head(&D), C);
    assert_int_equal(iterdetect_iterations(&D), 19);

    iterdetect_init(&D, 2, 36);
    r = run(0, len);
    assert_int_equal(r.lock_idx, -1);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);
}

/* min_repeats 4, period 50 (L = 200): exactly 4 repeats lock, 4 repeats minus one symbol do not. */
static void test_min_repeats_respected(void **state)
{
    (void)state;
    static uint64_t body[50];
    for (int i = 0; i < 50; i++)
        body[i] = 7000 + (uint64_t)i;

    /* prefix 8 + 4 repeats = 208 symbols = a search point */
    reset();
    push_noise(8); push_n(body, 50, 4); push_noise(1000);
    iterdetect_init(&D, 4, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(r.lock_idx, 207);
    assert_int_equal(r.lock_ret, 0);
    assert_int_equal(iterdetect_head(&D), 7000);
    assert_int_equal(iterdetect_period(&D), 50);
    assert_int_equal(iterdetect_iterations(&D), 3);  /* heads at 8, 58, 108, 158 */
    assert_all_durations(50 * DT);

    /* prefix 9 + 4 repeats minus the last symbol (ends at the same search point) */
    reset();
    push_noise(9); push_n(body, 50, 3); push_n(body, 49, 1); push_noise(1500);
    iterdetect_init(&D, 4, 1500);
    r = run(0, len);
    assert_int_equal(r.lock_idx, -1);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);

    /* 3 repeats (N-1) followed by noise */
    reset();
    push_noise(8); push_n(body, 50, 3); push_noise(1500);
    iterdetect_init(&D, 4, 1500);
    r = run(0, len);
    assert_int_equal(r.lock_idx, -1);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);

    /* documented limitation: 4 repeats that end between two search points are not seen */
    reset();
    push_noise(9); push_n(body, 50, 4); push_noise(1500);
    iterdetect_init(&D, 4, 1500);
    r = run(0, len);
    assert_int_equal(r.lock_idx, -1);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);

    /* ...but one more repeat is enough */
    reset();
    push_noise(9); push_n(body, 50, 5); push_noise(1500);
    iterdetect_init(&D, 4, 1500);
    r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(r.lock_idx, 223);
    assert_int_equal(iterdetect_iterations(&D), 4);
}

/* Variable durations, more iterations than ITERDETECT_TIMES: ring order and overflow. */
static double dur_of(size_t j) { return (double)(j % 7 + 1) * DT; }

static void test_recent_times_ring(void **state)
{
    (void)state;
    /* body H K; iteration j (head j -> head j+1) lasts dur_of(j) */
    iterdetect_init(&D, 2, 0);
    double t = 0.0;
    long lock_idx = -1;
    for (size_t j = 0; j <= 3000; j++) {
        int ret = iterdetect_feed(&D, H, t);
        if (lock_idx < 0 && iterdetect_get_state(&D) == ITERDETECT_LOCKED)
            lock_idx = (long)(2 * j);
        assert_int_equal(ret, j >= 16 ? 1 : 0);
        ret = iterdetect_feed(&D, K, t);
        if (lock_idx < 0 && iterdetect_get_state(&D) == ITERDETECT_LOCKED)
            lock_idx = (long)(2 * j + 1);
        assert_int_equal(ret, 0);
        if (j == 15) {
            /* lock at 32 symbols: heads at 0,2,...,30 -> 15 iterations */
            double out[8];
            assert_int_equal(lock_idx, 31);
            assert_int_equal(iterdetect_head(&D), H);
            assert_int_equal(iterdetect_period(&D), 2);
            assert_int_equal(iterdetect_iterations(&D), 15);
            assert_int_equal(iterdetect_recent_times(&D, out, 3), 3);
            assert_dbl_eq(out[0], dur_of(12));
            assert_dbl_eq(out[1], dur_of(13));
            assert_dbl_eq(out[2], dur_of(14));
        }
        t += dur_of(j);
    }
    assert_int_equal(iterdetect_iterations(&D), 3000);

    static double out[2000];
    assert_int_equal(iterdetect_recent_times(&D, out, 10), 10);
    for (size_t i = 0; i < 10; i++)
        assert_dbl_eq(out[i], dur_of(2990 + i));
    assert_int_equal(iterdetect_recent_times(&D, out, 2000), ITERDETECT_TIMES);
    for (size_t i = 0; i < ITERDETECT_TIMES; i++)
        assert_dbl_eq(out[i], dur_of(3000 - ITERDETECT_TIMES + i));
    assert_int_equal(iterdetect_recent_times(&D, out, 0), 0);

    iterdetect_stats st;
    iterdetect_get_stats(&D, &st);
    double total = 0.0;
    for (size_t j = 0; j < 3000; j++)
        total += dur_of(j);
    assert_int_equal(st.count, 3000);
    assert_dbl_eq(st.total, total);
    assert_dbl_eq(st.min, 1 * DT);
    assert_dbl_eq(st.max, 7 * DT);
    assert_dbl_eq(st.mean, total / 3000.0);
    assert_dbl_eq(st.last, dur_of(2999));
}

/* The whole-run series: 5000 iterations in at most ITERDETECT_BUCKETS buckets of one width, contiguous,
   every iteration in exactly one, sums / minima / maxima / start times exact (durations are multiples of DT). */
static void test_timeline(void **state)
{
    (void)state;
    iterdetect_init(&D, 2, 0);
    const iterdetect_bucket *b;
    uint64_t width;
    assert_int_equal(iterdetect_timeline(&D, &b, &width), 0);
    static double start[6000];
    double t = 0.0;
    for (size_t j = 0; j <= 5000; j++) {
        iterdetect_feed(&D, H, t);
        iterdetect_feed(&D, K, t);
        start[j] = t;
        t += dur_of(j);
        if (j == 100) { /* 100 iterations: one per bucket */
            assert_int_equal(iterdetect_timeline(&D, &b, &width), 100);
            assert_int_equal(width, 1);
        }
    }
    size_t n = iterdetect_timeline(&D, &b, &width);
    assert_int_equal(iterdetect_iterations(&D), 5000);
    assert_true(n <= ITERDETECT_BUCKETS && n > ITERDETECT_BUCKETS / 2);
    assert_int_equal(width, 16); /* 5000 iterations: 512 buckets of 8 hold 4096, so 16 */
    uint64_t next = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(b[i].first, next);
        assert_true(b[i].count == width || (i == n - 1 && b[i].count <= width && b[i].count > 0));
        double sum = 0, mn = 1e9, mx = 0;
        for (uint64_t k = b[i].first; k < b[i].first + b[i].count; k++) {
            sum += dur_of(k);
            if (dur_of(k) < mn) mn = dur_of(k);
            if (dur_of(k) > mx) mx = dur_of(k);
        }
        assert_dbl_eq(b[i].sum, sum);
        assert_dbl_eq(b[i].min, mn);
        assert_dbl_eq(b[i].max, mx);
        assert_dbl_eq(b[i].t_start, start[b[i].first]);
        next += b[i].count;
    }
    assert_int_equal(next, 5000);
}

/* Stats over known durations 0.25, 0.5, 0.125, 1.0 repeating (40 iterations). */
static void test_stats(void **state)
{
    (void)state;
    static const double durs[4] = { 0.25, 0.5, 0.125, 1.0 };
    iterdetect_init(&D, 3, 0);
    double t = 10.0;
    uint64_t nret = 0;
    for (size_t j = 0; j <= 40; j++) {      /* 41 heads -> 40 iterations */
        nret += (uint64_t)iterdetect_feed(&D, H, t);
        if (iterdetect_get_state(&D) != ITERDETECT_LOCKED) {   /* body H A B C */
            nret += (uint64_t)iterdetect_feed(&D, A, t + 0.0625);
            nret += (uint64_t)iterdetect_feed(&D, B, t + 0.0625);
            nret += (uint64_t)iterdetect_feed(&D, C, t + 0.0625);
        }
        t += durs[j % 4];
    }
    iterdetect_feed(&D, A, t);              /* partial last iteration, never counted */
    iterdetect_feed(&D, F, t + 1.0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_period(&D), 4);
    assert_int_equal(iterdetect_head(&D), H);
    /* lock at 32 symbols (index 31 = C): 8 heads, 7 iterations; then heads 8..40 each return 1 */
    assert_int_equal(nret, 33);
    iterdetect_stats st;
    iterdetect_get_stats(&D, &st);
    assert_int_equal(st.count, 40);
    assert_dbl_eq(st.total, 18.75);
    assert_dbl_eq(st.min, 0.125);
    assert_dbl_eq(st.max, 1.0);
    assert_dbl_eq(st.mean, 0.46875);
    assert_dbl_eq(st.last, 1.0);
    double out[5];
    assert_int_equal(iterdetect_recent_times(&D, out, 5), 5);
    assert_dbl_eq(out[0], 1.0);     /* iteration 35 */
    assert_dbl_eq(out[1], 0.25);
    assert_dbl_eq(out[2], 0.5);
    assert_dbl_eq(out[3], 0.125);
    assert_dbl_eq(out[4], 1.0);     /* iteration 39 */
}

/* Varying iteration content must not lock on noise. */
static uint64_t lcg_state;
static unsigned lcg(unsigned mod)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((lcg_state >> 33) % mod);
}

static void test_varying_content_no_false_lock(void **state)
{
    (void)state;
    /* (a) C D E V_i with V_i different in every iteration */
    iterdetect_init(&D, 2, 4000);
    for (uint64_t i = 0; i < 1000; i++) {
        assert_int_equal(iterdetect_feed(&D, C, 0.0), 0);
        assert_int_equal(iterdetect_feed(&D, Dd, 0.0), 0);
        assert_int_equal(iterdetect_feed(&D, E, 0.0), 0);
        assert_int_equal(iterdetect_feed(&D, 900000 + i, 0.0), 0);
    }
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);

    /* (b) inner loop with a varying trip count, C D^k E with k random in 1..20: a lock can only come from
       consecutive identical iterations (a genuine repeat) and then its head is C or E, which occur once per
       real iteration, so counting stays right; the inner-loop symbol D must never become the head. */
    iterdetect_init(&D, 2, 0);
    lcg_state = 42;
    reset();
    while (len < 19000) {
        unsigned k = 1 + lcg(20);
        push(C);
        for (unsigned j = 0; j < k; j++)
            push(Dd);
        push(E);
    }
    runres r = run(0, len);
    if (r.lock_idx >= 0) {
        uint64_t h = iterdetect_head(&D), after = 0;
        assert_true(h == C || h == E);
        assert_true(iterdetect_period(&D) >= 3);
        for (size_t i = (size_t)r.lock_idx + 1; i < len; i++)
            after += seq[i] == h;
        assert_int_equal(iterdetect_iterations(&D), r.iters_at_lock + after);
        assert_int_equal(r.nret, (uint64_t)r.lock_ret + after);
    } else {
        assert_int_equal(iterdetect_get_state(&D), ITERDETECT_DETECTING);
        assert_int_equal(iterdetect_iterations(&D), 0);
    }

    /* (c) random symbols from an alphabet of 8, min_repeats 3 */
    iterdetect_init(&D, 3, 50000);
    lcg_state = 7;
    for (int i = 0; i < 50000; i++)
        assert_int_equal(iterdetect_feed(&D, 1 + lcg(8), 0.0), 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_GAVE_UP);
    assert_int_equal(iterdetect_iterations(&D), 0);
}

/* Halo-exchange shape: 4 Isend and 4 Irecv from one call site each, Waitall, Allreduce.  The runs of
   identical symbols are shorter than ITERDETECT_MIN_SPAN, so the outer loop (period 10) is found. */
static void test_inner_neighbour_loop(void **state)
{
    (void)state;
    const uint64_t body[] = { I, I, I, I, R, R, R, R, W, A };
    reset();
    push(S); push(T); push_n(body, 10, 50); push(F);
    iterdetect_init(&D, 2, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_period(&D), 10);
    assert_int_equal(iterdetect_head(&D), W);   /* first unique symbol from the region start */
    assert_int_equal(r.lock_idx, 47);
    assert_int_equal(r.lock_ret, 0);
    assert_int_equal(r.iters_at_lock, 3);       /* W at 10, 20, 30, 40 */
    assert_int_equal(iterdetect_iterations(&D), 49);
    assert_all_durations(10 * DT);
}

/* Long non-repeating prefix (more than a window) before the loop. */
static void test_window_overflow_prefix(void **state)
{
    (void)state;
    const uint64_t body[] = { C, Dd, E };
    reset();
    push_noise(10000); push_n(body, 3, 100); push(F);
    iterdetect_init(&D, 2, 0);
    runres r = run(0, len);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_head(&D), C);
    assert_int_equal(iterdetect_period(&D), 3);
    assert_int_equal(r.lock_idx, 10031);
    assert_int_equal(r.lock_ret, 0);
    assert_int_equal(r.iters_at_lock, 10);      /* C at 10000,...,10030 */
    assert_int_equal(iterdetect_iterations(&D), 99);
    assert_all_durations(3 * DT);
}

/* OFF: zeroed struct, min_repeats < 2, iterdetect_disable(). */
static void test_off(void **state)
{
    (void)state;
    static iterdetect zeroed;   /* never initialised */
    assert_int_equal(iterdetect_get_state(&zeroed), ITERDETECT_OFF);
    for (int i = 0; i < 100; i++)
        assert_int_equal(iterdetect_feed(&zeroed, 1, i * DT), 0);
    assert_int_equal(iterdetect_get_state(&zeroed), ITERDETECT_OFF);
    assert_int_equal(iterdetect_iterations(&zeroed), 0);

    iterdetect_init(&D, 1, 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_OFF);
    for (int i = 0; i < 100; i++)
        assert_int_equal(iterdetect_feed(&D, 1, i * DT), 0);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_OFF);

    /* disable after lock: counts are kept, feeds ignored */
    iterdetect_init(&D, 2, 0);
    for (int i = 0; i < 64; i++)
        iterdetect_feed(&D, (uint64_t)(5 + i % 2), i * DT);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_LOCKED);
    assert_int_equal(iterdetect_iterations(&D), 31);   /* locked at 32 (15), then heads 32..62 */
    iterdetect_disable(&D);
    assert_int_equal(iterdetect_get_state(&D), ITERDETECT_OFF);
    assert_int_equal(iterdetect_feed(&D, 5, 1.0), 0);
    assert_int_equal(iterdetect_iterations(&D), 31);
    assert_int_equal(iterdetect_period(&D), 2);
    assert_int_equal(iterdetect_head(&D), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typical_program),
        cmocka_unit_test(test_filtered_after_lock),
        cmocka_unit_test(test_period_one),
        cmocka_unit_test(test_repeated_symbol_in_body),
        cmocka_unit_test(test_no_unique_symbol),
        cmocka_unit_test(test_long_period),
        cmocka_unit_test(test_prefix_shares_last_symbol),
        cmocka_unit_test(test_no_repetition_gives_up),
        cmocka_unit_test(test_max_calls_final_search),
        cmocka_unit_test(test_min_repeats_respected),
        cmocka_unit_test(test_recent_times_ring),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_varying_content_no_false_lock),
        cmocka_unit_test(test_inner_neighbour_loop),
        cmocka_unit_test(test_window_overflow_prefix),
        cmocka_unit_test(test_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
