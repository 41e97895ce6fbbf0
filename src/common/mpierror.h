/* mpierror.h -- one wording for failed MPI calls in Ductile's own messages:
 * "<what> failed: <the MPI library's error string>".  Used off the hot path,
 * where a resize or a transfer reports why it gave up. */
#ifndef DUCTILE_MPIERROR_H
#define DUCTILE_MPIERROR_H

#include <stddef.h>

/* The MPI library's text for error code rc ("MPI error <rc>" if it has none;
 * of an MPICH error stack, the class and its innermost line)
 * into buf (always terminated). */
void ductile_mpi_error_text(int rc, char *buf, size_t len);

/* "<what> failed: <text of rc>" into err (always terminated). */
void ductile_mpi_failed(int rc, const char *what, char *err, size_t errlen);

#endif
