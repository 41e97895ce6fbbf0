/* rankset.h -- sets of ranks as text, the form every rank list that grows
 * with the job's size takes on the wire (issue 25, item 3): comma- (or
 * ';'-) separated items "R", "A-B" (A..B) and "A-B:S" (A, A+S, ... up to B),
 * e.g. "0-511,1024-2047:2,7".  A block of ranks or one rank in every N takes
 * one item, so the ranks of a host or the ranks a shrink removes stay a few
 * bytes at 65,536 processes.  Pure C, no allocation in the parser; linear in
 * the text and the ranks it names.  Unit-tested in tests/unit/test_rankset.c. */
#ifndef DUCTILE_RANKSET_H
#define DUCTILE_RANKSET_H

#include <stddef.h>

/* Called for every rank of the set, in the text's order; nonzero stops the
 * walk (rankset_each then returns -1 with the reason the callback wrote). */
typedef int (*rankset_fn)(void *arg, int rank, char *why, size_t wl);

/* Walk the set in s[0..len): every rank must be in [0, limit).  Returns the
 * number of ranks, or -1 with a reason (malformed, a rank out of range, the
 * callback's refusal).  Duplicates are the caller's to find (rankset_mark). */
long rankset_each(const char *s, size_t len, int limit, rankset_fn fn, void *arg, char *why, size_t wl);

/* Mark the set in mark[0..limit) (1 per rank; a rank already marked is an
 * error: "rank R appears twice").  Returns the number of ranks or -1. */
long rankset_mark(const char *s, int limit, unsigned char *mark, char *why, size_t wl);

/* The set of the n ranks r[] (ascending, distinct) as text: a malloc'ed
 * string ("" for none), NULL when out of memory.  Runs of one stride become
 * one item ("A-B" for stride 1, "A-B:S" for three or more ranks of stride S). */
char *rankset_encode(const int *r, int n);

/* The same for the ranks r with mark[r] == want, r in [0, limit). */
char *rankset_encode_marked(const unsigned char *mark, int limit, unsigned char want);

#endif
