/* bench_util.h - what the two benchmark programs share: a clock in seconds, medians, orderings, and
   record() and report_json() (record_util.h). */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include "ttft_tpot_tools.h"

#include "record_util.h" /* record(), report_json() */

#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__) || defined(__clang__)
#define BARRIER() __asm__ volatile("" ::: "memory") /* the dispatch a span wraps: memory may change */
#define NOINLINE __attribute__((noinline))
#else
#define BARRIER() ((void)0)
#define NOINLINE
#endif

/* The loops tests/callgrind_span.sh counts the instructions of (a benchmark's --callgrind mode):
   CALLGRIND_N spans of phase on a collector whose clock is bench_counter_clock, and the same clock's
   calls alone; the difference is the span's own work. Not static: callgrind finds them by name. */
enum { CALLGRIND_N = 100000 };
static uint64_t bench_ticks;
static inline uint64_t bench_counter_clock(void *user)
{
    (void)user;
    return ++bench_ticks;
}

NOINLINE void bench_spans(ttft_tpot *c, int phase)
{
    int i;
    for (i = 0; i < CALLGRIND_N; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, c, phase);
        BARRIER();
        TTFT_TPOT_SPAN_END(s);
    }
}

NOINLINE void bench_clock_only(ttft_tpot *c, uint64_t *out)
{
    int i;
    for (i = 0; i < CALLGRIND_N; i++) { /* the two clock calls of a span, through the same pointer */
        uint64_t a = c->clock(c->clock_user);
        BARRIER();
        out[i] = c->clock(c->clock_user) - a;
    }
}

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
