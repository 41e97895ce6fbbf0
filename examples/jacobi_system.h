/* jacobi_system.h -- the linear system A x = b solved by the Jacobi demo
 * (examples/jacobi.c) and its I/O-benchmark variant (tests/io/io_jacobi.c):
 * a diagonally dominant dense matrix, distributed by rows, so Jacobi
 * converges and every run gives the same solution. */
#ifndef DUCTILE_JACOBI_SYSTEM_H
#define DUCTILE_JACOBI_SYSTEM_H

#include <stddef.h>
#include <stdlib.h>

/* Fill my `count` rows starting at global row `desp` of the dim x dim system. */
static inline void jacobi_generate(int dim, int desp, int count, double *A, double *b)
{
    for (int i = 0; i < count; i++) {
        int g = desp + i;
        for (int j = 0; j < dim; j++) A[(size_t)i * dim + j] = g == j ? (double)dim : 1.0 / (1.0 + abs(g - j));
        b[i] = (double)(g % 7 + 1);
    }
}

#endif
