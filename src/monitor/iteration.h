/* iteration.h -- glue between the hot path and the iteration detector:
 * turns call sites into symbols (libunwind), drives iterdetect, narrows the
 * hot-path filter to the loop head once the period is known. */
#ifndef DUCTILE_ITERATION_H
#define DUCTILE_ITERATION_H

#include <stddef.h>
#include <stdint.h>

#include "iterdetect.h"

void ductile_iteration_start(int enabled, int frames, int repeats, long max_calls);
void ductile_iteration_stop(void);
/* Completed iterations so far (rank 0; 0 elsewhere); safe from any thread. */
uint64_t ductile_iteration_count(void);
/* The detector (read-only use, on the application's thread: report). */
const iterdetect *ductile_iteration_detector(void);
/* The detector's times are in seconds of the tick counter's calibration in
 * effect while it observed (MPI_Init's, 5 ms long); multiply them by this to
 * get seconds of the calibration refined over the whole run (MPI_Finalize):
 * on a loaded machine the first was 1-2 % off. */
double ductile_iteration_time_scale(void);
/* Name of the loop head ("MPI_Allreduce from main+0x4f in ./app"); "" if none. */
void ductile_iteration_head_name(char *out, size_t len);
/* Function id of the loop head, or -1. */
int ductile_iteration_head_fn(void);

#endif
