/* report.h -- end-of-run output: gathers every rank's counters on the
 * private communicator, writes the JSON report (schema: docs/report.md) and
 * prints the human summary on rank 0's stderr. */
#ifndef DUCTILE_REPORT_H
#define DUCTILE_REPORT_H

#include <stdint.h>

#include "report_build.h"

/* Collective over Ductile's private communicator.  t_end: ticks at finalize. */
void ductile_report_write(uint64_t t_end);

/* This process's counters in the report's form (DUCTILE_FN_COUNT entries in
 * fns), with its host, pid, the given rank and the wall time up to t_end
 * (ticks).  Local; also used for processes that leave the world. */
void ductile_report_snapshot(int rank, uint64_t t_end, struct report_rank *me, struct report_fn *fns);

#endif
