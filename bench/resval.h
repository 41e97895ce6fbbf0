/* resval.h -- reading one number out of a benchmark worker's result line
 * ("key=value" or a JSON "key": value), shared by bench/redistribute and
 * bench/scale. */
#ifndef DUCTILE_BENCH_RESVAL_H
#define DUCTILE_BENCH_RESVAL_H

/* The number after key in text (JSON "key": N or key=N); -1 when absent. */
double res_val(const char *text, const char *key);

#endif
