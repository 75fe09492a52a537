/* counting_alloc.h - the counting allocator and failing runs of test_alloc.c, test_trace_collector.c: include first. */
#ifndef COUNTING_ALLOC_H
#define COUNTING_ALLOC_H

#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime: the libc headers below come before ttft_tpot.h asks for it */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

/* Every allocation goes through TTFT_TPOT_MALLOC (defined here, before the library), counted. */
static long allocs, frees, fail_at = -1; /* fail_at: the allocation that fails (0 = the first) */
static size_t largest; /* the largest block asked for since it was set to 0 */
static void *counting_malloc(size_t n, void *user)
{
    (void)user;
    if (allocs == fail_at) {
        fail_at = -1;
        return NULL;
    }
    allocs++;
    largest = n > largest ? n : largest;
    return malloc(n);
}
static void counting_free(void *p, void *user)
{
    (void)user;
    frees++;
    free(p);
}
#define TTFT_TPOT_MALLOC(sz, u) counting_malloc((sz), (u))
#define TTFT_TPOT_FREE(p, u) counting_free((p), (u))

/* In a run with its k-th allocation failing: a call that may run out of memory, its result in rc: OK
   or ENOMEM. */
#define STEP(call)                                                                                    \
    do {                                                                                              \
        rc = (call);                                                                                  \
        if (rc != TTFT_TPOT_ENOMEM)                                                                   \
            assert_int_equal(rc, TTFT_TPOT_OK);                                                       \
    } while (0)
/* a writer (to the FILE out) that runs out of memory has written nothing: no half report */
#define STEP_WRITES(call)                                                                             \
    do {                                                                                              \
        long at_ = ftell(out);                                                                        \
        STEP(call);                                                                                   \
        if (rc == TTFT_TPOT_ENOMEM)                                                                   \
            assert_int_equal(ftell(out), at_);                                                        \
    } while (0)

/* The end of such a run: nothing leaked on any path; returns whether the k-th allocation happened
   (and failed). */
static inline int failing_run_ends(void)
{
    assert_int_equal(allocs, frees); /* nothing leaked on any path */
    if (fail_at == -1)
        return 1; /* the k-th allocation happened, and failed */
    fail_at = -1;
    return 0;
}

/* run(k), returning failing_run_ends(), for k = 0, 1, ... until no allocation is left to fail: more
   than 10 of them, fewer than 1000. */
static inline void every_allocation_fails(int (*run)(long k))
{
    long k;
    for (k = 0; run(k); k++) /* until no allocation is left to fail */
        assert_true(k < 1000);
    if (k <= 10) /* the sequence really allocates that often */
        fail_msg("only %ld allocations", k);
}

#endif
