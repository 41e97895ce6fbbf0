/*
 * expect.h -- expectation files for the Ductile MPI test programs.
 *
 * Each test program records every MPI call it makes, with the number of
 * bytes the Ductile byte rules attribute to it, and (when the environment
 * variable TEST_EXPECT_PREFIX is set) writes the totals to
 * "$TEST_EXPECT_PREFIX.<rank>", one line per MPI function:
 *
 *     <name> <calls> <bytes_sent> <bytes_recv>
 *
 * tests/check_report.py compares these files with the JSON report.
 *
 * Usage:
 *     CALL(MPI_Send, sent, recv, buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD);
 * records one call of "MPI_Send" with the given byte counts and then makes
 * the call itself (the value of the expression is the call's return code).
 * The recorded name is the stringified function name, so it cannot drift
 * from the function actually called.  expect_add() is the underlying
 * accumulator, for calls that cannot go through CALL (MPI_Finalize, which
 * must be recorded before the file is written, i.e. before it is called).
 *
 * The file is written by expect_write(rank) just before MPI_Finalize:
 *     expect_add("MPI_Finalize", 1, 0, 0);
 *     expect_write(rank);
 *     MPI_Finalize();
 *
 * The variable lives outside the DUCTILE_ namespace on purpose: libductile.so
 * rejects unknown DUCTILE_* variables.  DUCTILE_TEST_EXPECT is accepted as a
 * fallback name (only usable if the library tolerates it).
 *
 * This header makes no MPI calls and needs no MPI header.
 */
#ifndef DUCTILE_TEST_EXPECT_H
#define DUCTILE_TEST_EXPECT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT_MAX_FUNCS 256
#define EXPECT_NAME_LEN 64

struct expect_entry {
    char name[EXPECT_NAME_LEN];
    long long calls;
    long long sent;
    long long recv;
};

static struct expect_entry expect_table[EXPECT_MAX_FUNCS];
static int expect_count;

/* Add `calls` calls of `name` with `sent`/`recv` bytes to the table. */
static inline void expect_add(const char *name, long long calls, long long sent, long long recv)
{
    int i;
    for (i = 0; i < expect_count; i++)
        if (strcmp(expect_table[i].name, name) == 0)
            break;
    if (i == expect_count) {
        if (expect_count == EXPECT_MAX_FUNCS || strlen(name) >= EXPECT_NAME_LEN) {
            fprintf(stderr, "expect.h: table full or name too long: %s\n", name);
            abort();
        }
        strcpy(expect_table[i].name, name);
        expect_count++;
    }
    expect_table[i].calls += calls;
    expect_table[i].sent += sent;
    expect_table[i].recv += recv;
}

/* Record one call of function `fn` with the given byte counts, then call it. */
#define CALL(fn, sent, recv, ...) \
    (expect_add(#fn, 1, (long long)(sent), (long long)(recv)), fn(__VA_ARGS__))

/* Write "$TEST_EXPECT_PREFIX.<rank>" if TEST_EXPECT_PREFIX (or, failing that,
 * DUCTILE_TEST_EXPECT) is set.  Returns 0 on success (or when disabled), -1 on
 * error. */
static inline int expect_write(int rank)
{
    const char *prefix = getenv("TEST_EXPECT_PREFIX");
    if (prefix == NULL || prefix[0] == '\0')
        prefix = getenv("DUCTILE_TEST_EXPECT");
    char path[4096];
    FILE *f;
    int i;

    if (prefix == NULL || prefix[0] == '\0')
        return 0;
    if (snprintf(path, sizeof path, "%s.%d", prefix, rank) >= (int)sizeof path) {
        fprintf(stderr, "expect.h: path too long\n");
        return -1;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    for (i = 0; i < expect_count; i++)
        fprintf(f, "%s %lld %lld %lld\n", expect_table[i].name, expect_table[i].calls,
                expect_table[i].sent, expect_table[i].recv);
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

#endif /* DUCTILE_TEST_EXPECT_H */
