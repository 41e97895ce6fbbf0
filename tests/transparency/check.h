/* check.h -- the transparency test programs' CHECK(): a failed condition is
 * counted in `failures` and printed with the rank and pid; the program
 * defines `rank` (-1 until known) and reports `failures` at its end. */
#ifndef DUCTILE_TEST_TRANSPARENCY_CHECK_H
#define DUCTILE_TEST_TRANSPARENCY_CHECK_H

#include <stdio.h>
#include <unistd.h>

static int failures, rank = -1;
#define CHECK(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            fprintf(stderr, "CHECK FAIL (rank %d, pid %d): ", rank, (int)getpid());                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
        }                                                                                                              \
    } while (0)

#endif
