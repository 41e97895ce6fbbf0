/* leftmpi.h -- memory a failed or cancelled background transfer leaves to the
 * MPI on purpose (a nonblocking call may still write into it, so it is never
 * freed): marked for LeakSanitizer so that it is not reported as a leak.
 * Nothing without AddressSanitizer. */
#ifndef DUCTILE_LEFTMPI_H
#define DUCTILE_LEFTMPI_H

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
static inline void left_to_mpi(const void *p)
{
    if (p) __lsan_ignore_object(p);
}
#else
static inline void left_to_mpi(const void *p) { (void)p; }
#endif

#endif
