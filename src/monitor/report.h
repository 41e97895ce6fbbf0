/* report.h -- end-of-run output: gathers every rank's counters on the
 * private communicator, writes the JSON report (schema: docs/report.md) and
 * prints the human summary on rank 0's stderr. */
#ifndef DUCTILE_REPORT_H
#define DUCTILE_REPORT_H

#include <stdint.h>

/* Collective over Ductile's private communicator.  t_end: ticks at finalize. */
void ductile_report_write(uint64_t t_end);

#endif
