/* custom.h -- custom data moved by the program's callbacks (custom.c). */
#ifndef DUCTILE_DATA_CUSTOM_H
#define DUCTILE_DATA_CUSTOM_H

#include <stddef.h>

#include "empi.h"

struct custom_state {
    EMPI_Custom_size_fn size;
    EMPI_Custom_pack_fn pack;
    EMPI_Custom_unpack_fn unpack;
    void *user;
    struct {                /* a resize's received bytes, unpacked once all agreed (custom_stage) */
        int set, ns;        /* ns: the old size (one unpack per old rank) */
        char *buf;
        int64_t *off, *len; /* per old rank; len -1: no unpack for that rank */
        int unpacked;       /* custom_stage called unpack (all, or some before one failed) */
        char *snap;         /* this process's data before the first unpack: size/pack(user, 0, 1) */
        int64_t snap_len;
    } next;
    struct {                /* a move in the background (custom_bg_start), until the switch or the rollback */
        int set;
        char *sb, *rb;      /* the packed bytes (packed at the start) and the received ones (next.buf, if staged) */
        int64_t *a;         /* counts and displacements, read by the MPI */
    } bg;
};

int custom_register(const char *id, EMPI_Custom_size_fn size, EMPI_Custom_pack_fn pack, EMPI_Custom_unpack_fn unpack,
                    void *user, char *err, size_t errlen);

#endif
