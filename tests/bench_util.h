/* bench_util.h - what the two benchmark programs share: a clock in seconds, medians, orderings. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include "ttft_tpot.h"

#include <stdlib.h>

static inline double now_s(void)
{
    return (double)ttft_tpot_now() * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0, n) (sorts v). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif
