/* iterdetect.h -- main-loop detection from a stream of call-site symbols (pure logic, no MPI).
 *
 * Each top-level MPI call is turned (elsewhere) into a 64-bit "symbol" (hash of function id + call-site
 * return addresses) with a timestamp in seconds.  This module finds the repeating sequence of symbols that
 * forms the program's main loop, picks a loop head, counts iterations and keeps per-iteration durations.
 * No MPI, no allocation, no locking, no global state: everything lives in the caller-owned struct.
 * The struct is large (~200 KiB): make it a static/global object, not a stack variable.
 *
 * DETECTION (state ITERDETECT_DETECTING)
 *   The last ITERDETECT_WINDOW symbols and their timestamps are kept.  A period search runs on every
 *   ITERDETECT_SEARCH_EVERY-th symbol (later if the previous search was unusually expensive, so that the
 *   amortised cost per feed stays bounded) and always on the max_calls-th symbol.  Let n be the number of
 *   symbols in the window (min(symbols fed, ITERDETECT_WINDOW)).  The search looks for the smallest period p,
 *   1 <= p <= n / min_repeats, such that the most recent
 *        L(p) = max(min_repeats * p, ITERDETECT_MIN_SPAN)
 *   symbols are periodic with period p (s[i] == s[i-p]).  ITERDETECT_MIN_SPAN guards against locking on a
 *   short inner repetition (e.g. one MPI_Isend call site called for each of 6 neighbours) or on coincidental
 *   repeats: a short-period loop must repeat more than min_repeats times to cover the span.  Define it to 0
 *   when compiling iterdetect.c to get the pure "min_repeats repetitions" rule.
 *   If the smallest such p has no symbol that occurs exactly once per period, the search reports "not found"
 *   (no multiple of p could have one either); detection continues and such a loop is never locked.
 *   Note that only the tail is examined at search points: a loop is detected only while it is still running
 *   at a search point (at most ITERDETECT_SEARCH_EVERY-1 symbols after its L(p)-th periodic symbol).
 *
 * LOCKING
 *   Once p is found, the periodic region is extended backwards inside the window to its start e (largest run
 *   with s[i] == s[i+p]).  The head is the first symbol of s[e], s[e+1], ..., s[e+p-1] that occurs exactly
 *   once per period (s[e] itself if it is unique).  State becomes ITERDETECT_LOCKED.
 *   Consequence: an init call that shares the loop's trailing symbol(s) (same call site) extends the region
 *   backwards and rotates the head: for "A E (C D E)xN" the head is E, not C.
 *
 * ITERATION COUNTING RULE
 *   An iteration is the span from one occurrence of the head to the next occurrence of the head.  It is
 *   counted (and its duration = t(next head) - t(previous head) recorded) when the NEXT head is seen.  The
 *   span after the last head occurrence (final partial iteration, e.g. head ... MPI_Finalize) is never counted.
 *   At lock time the head occurrences already inside the periodic region are counted retroactively:
 *   iterations = (head occurrences in region) - 1, with their durations, oldest first.
 *   Example: A B (C D E)xN F  ->  head C, period 3, and after the whole stream iterations == N-1.
 *
 * AFTER LOCK
 *   The caller may feed only candidate-head symbols (e.g. filtered by function).  A feed of the head symbol
 *   completes an iteration; any other symbol is ignored.  Timestamps should be non-decreasing.
 *
 * GIVING UP
 *   If max_calls != 0 and max_calls symbols have been fed without a lock, state becomes ITERDETECT_GAVE_UP on
 *   the max_calls-th feed (after a final search on that feed).  Further feeds are ignored (return 0).
 *
 * OFF
 *   iterdetect_init() with min_repeats < 2, iterdetect_disable(), or a never-initialised all-zero struct:
 *   all feeds are ignored and iterdetect_get_state() reports ITERDETECT_OFF.
 */
#ifndef DUCTILE_ITERDETECT_H
#define DUCTILE_ITERDETECT_H

#include <stddef.h>
#include <stdint.h>

#define ITERDETECT_WINDOW 4096      /* symbols kept while detecting (power of two) */
#define ITERDETECT_TIMES  1024      /* most recent iteration durations kept (power of two) */
#define ITERDETECT_BUCKETS 512     /* whole-run series of iteration times: at most this many buckets (even) */
#define ITERDETECT_SEARCH_EVERY 16  /* period search runs at most once per this many symbols */
#ifndef ITERDETECT_MIN_SPAN
#define ITERDETECT_MIN_SPAN 32      /* periodic tail must cover at least this many symbols before locking */
#endif

typedef enum { ITERDETECT_DETECTING, ITERDETECT_LOCKED, ITERDETECT_GAVE_UP, ITERDETECT_OFF } iterdetect_state;

/* Scratch hash table used to count symbols within one period (generation-stamped, never cleared). */
#define ITERDETECT_UNIQ_SLOTS ITERDETECT_WINDOW   /* >= 2 * max period (WINDOW/2) */

typedef struct iterdetect_uslot {
    uint64_t key;
    uint32_t gen;
    uint32_t count;
} iterdetect_uslot;

/* One bucket of the whole-run series: `count` consecutive iterations from iteration `first` (0-based),
   the first of which started at `t_start` (the feed's clock). */
typedef struct iterdetect_bucket {
    uint64_t first, count;
    double t_start, sum, min, max;
} iterdetect_bucket;

/* Treat as opaque; fields are public only so the struct can be a caller-owned static object. */
typedef struct iterdetect {
    iterdetect_state state;
    unsigned min_repeats;
    unsigned period;            /* calls per iteration once LOCKED */
    uint32_t uniq_gen;          /* generation stamp for uniq[] */
    uint64_t max_calls;         /* 0 = never give up */
    uint64_t nfed;              /* symbols fed while DETECTING */
    uint64_t next_search;       /* nfed value at which the next period search runs */
    uint64_t head;              /* loop-head symbol once LOCKED */
    double last_head_t;         /* timestamp of the most recent head occurrence */
    uint64_t iterations;        /* completed iterations == number of recorded durations */
    double total, min, max, last;
    double times[ITERDETECT_TIMES];              /* ring of durations, index = iteration % TIMES */
    iterdetect_bucket buckets[ITERDETECT_BUCKETS]; /* the whole run: iterations per bucket doubles when full */
    unsigned nbuckets;
    uint64_t bucket_width;                       /* iterations per bucket (1, 2, 4, ...) */
    uint64_t prev[3];                            /* previous three symbols fed (for fp[]) */
    uint64_t sym[2 * ITERDETECT_WINDOW];         /* symbol ring, each symbol stored twice (contiguous view) */
    uint32_t fp[2 * ITERDETECT_WINDOW];          /* fingerprint of the 4-gram ending at each symbol, same layout */
    double ts[ITERDETECT_WINDOW];                /* timestamp ring */
    iterdetect_uslot uniq[ITERDETECT_UNIQ_SLOTS];
} iterdetect;

/* min_repeats >= 2: the body must repeat this many times in a row (and cover ITERDETECT_MIN_SPAN symbols)
   before we lock; min_repeats < 2 turns the detector OFF.  max_calls: give up (GAVE_UP) after this many
   symbols without a lock; 0 = never give up. */
void iterdetect_init(iterdetect *d, unsigned min_repeats, uint64_t max_calls);

/* Turn the detector OFF (feeds ignored); counters and statistics gathered so far stay readable. */
void iterdetect_disable(iterdetect *d);

/* Feed one symbol with its timestamp (seconds).  Returns 1 exactly when this call completes an iteration
   (symbol is the loop head and the state is LOCKED -- including the call that causes the lock, when that
   call's symbol is the head), else 0. */
__attribute__((visibility("hidden"))) int iterdetect_feed(iterdetect *d, uint64_t symbol, double t);

iterdetect_state iterdetect_get_state(const iterdetect *d);
uint64_t iterdetect_head(const iterdetect *d);          /* the loop-head symbol once LOCKED, else 0 */
unsigned iterdetect_period(const iterdetect *d);        /* calls per iteration once LOCKED, else 0 */
uint64_t iterdetect_iterations(const iterdetect *d);    /* completed iterations counted so far */

/* per-iteration duration statistics (seconds) over all completed iterations (all zero when count == 0) */
typedef struct { uint64_t count; double total, min, max, mean, last; } iterdetect_stats;
void iterdetect_get_stats(const iterdetect *d, iterdetect_stats *out);

/* copy up to n most recent iteration durations (at most ITERDETECT_TIMES are kept), oldest first;
   returns number copied */
size_t iterdetect_recent_times(const iterdetect *d, double *out, size_t n);

/* The whole run's iteration times in at most ITERDETECT_BUCKETS buckets of equal width (iterations per
   bucket, doubled by merging neighbours whenever they are all full; the last one may hold fewer), oldest
   first; returns the number of buckets and sets *width.  Constant memory, O(1) amortised per iteration. */
size_t iterdetect_timeline(const iterdetect *d, const iterdetect_bucket **out, uint64_t *width);

#endif /* DUCTILE_ITERDETECT_H */
