/* patches.h -- patch sets repartitioned as in seed 003 (patches.c). */
#ifndef DUCTILE_DATA_PATCHES_H
#define DUCTILE_DATA_PATCHES_H

#include <stddef.h>

#include "empi.h"

int patches_register(const char *id, MPI_Datatype type, int ndims, const int gsizes[], const int psizes[],
                     int placement, int scheme, int holds_data, char *err, size_t errlen);
/* Collective over the world: onto patches over the same processes now. */
int patches_repartition_now(const char *id, char *err, size_t errlen);
int patches_get(const char *id, int *n, EMPI_Patch **patches);
int patches_get_block(const char *id, EMPI_Block *blk);
int patches_stats(const char *id, EMPI_Patch_stats *st);

#endif
