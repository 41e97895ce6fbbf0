/* MAM_Times_retrieve.h -- the last reconfiguration's times, implemented by
 * Ductile from its reconfiguration record (docs/mam.md). */
#ifndef MAM_TIMES_RETRIEVE_H
#define MAM_TIMES_RETRIEVE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds (any pointer may be NULL): resource manager (0: Ductile asks
 * none), spawn (spawn and merge), synchronous redistribution (the blocking
 * transfer), asynchronous redistribution (the background transfer), the user
 * function, and the whole reconfiguration.  The same on every process of
 * the new world. */
void MAM_Retrieve_times(double *rms_time, double *sp_time, double *sy_time, double *asy_time, double *user_time,
                        double *mall_time);

#ifdef __cplusplus
}
#endif

#endif
