/* bench_util.h - what the two benchmark programs share: a clock in seconds, medians, orderings, and
   record() and report_json() (record_util.h). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include "ttft_tpot_tools.h"

#include "record_util.h" /* record(), report_json() */

#include <stdio.h>
#include <stdlib.h>

#ifndef BENCH_BUILD /* set by tests/CMakeLists.txt: the compiler and flags */
#define BENCH_BUILD "flags not recorded (built outside CMake)"
#endif

/* The first line of a benchmark's output: what it was built with, which its figures depend on. */
static inline void bench_build_line(const char *name)
{
    printf("%s: built by %s\n", name, BENCH_BUILD);
}

static inline double now_s(void)
{
    return (double)ttft_tpot_clock_now(NULL) * 1e-9;
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
