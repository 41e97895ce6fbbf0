/* prep_thread.h -- the preparation of an expansion's new blocks
 * (prepare_buffers, engine.h), in a thread of its own during the spawn and
 * the merge where that pays (spawn.c). */
#ifndef DUCTILE_PREP_THREAD_H
#define DUCTILE_PREP_THREAD_H
#include "engine.h"
#include <pthread.h>

/* The preparation of the new blocks (prepare_buffers).  With
 * Open MPI (rank 0 spawns alone, 0.3 s here, mostly waiting) it runs in a
 * thread of its own during the spawn and the merge when it touches the
 * blocks (DUCTILE_REDIST_PREPARE): 2 -> 4 of 1 GiB took 1.35 s instead of
 * 1.64 s (medians of 10 alternated runs).  With MPICH the spawn is short
 * (0.1 s) and the thread slowed it and the merge down (0.88 s against
 * 0.76 s, 6 runs): there it runs before the spawn.  The thread calls no MPI
 * function and writes only its own blocks; its outcome is agreed after the
 * merge. */
struct prep_job {
    int ns, nd, me, my_new, nb, touch, threaded;
    pthread_t th;
    void **prep;
    char why[TXN_WHY_MAX];
};

/* Start it (in a thread with Open MPI 4.1's rank-0 spawn, when it touches
 * the blocks; else at once, in the caller). */
void prep_start(struct prep_job *j);
/* Its blocks (NULL on failure, j->why says why), after the thread ended. */
void **prep_finish(struct prep_job *j);

#endif
