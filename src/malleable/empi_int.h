/* empi_int.h -- what the EMPI calls of the general data kinds (src/data/api.c)
 * need from the EMPI layer (src/malleable/empi.c). */
#ifndef DUCTILE_EMPI_INT_H
#define DUCTILE_EMPI_INT_H

/* Set the row distribution from DUCTILE_WSIZE, once, at the first EMPI call. */
void empi_layout_once(void);
/* 1 in a spawned process before EMPI_Get_shared: it holds no data yet. */
int empi_waiting_for_data(void);

#endif
