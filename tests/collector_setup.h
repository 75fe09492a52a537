/* collector_setup.h - the recordings test_api.c, test_storage.c and test_alloc.c share with test_trace_collector.c. */
#ifndef COLLECTOR_SETUP_H
#define COLLECTOR_SETUP_H

#include <string.h>

#include "test_util.h"

/* spans_never_ended_are_counted's decode phase: spans *a and *b begun, a ended, a sample recorded
   (begun and ended: none open); b is left open. Returns the phase. */
static inline int span_left_open(ttft_tpot *c, ttft_tpot_span *a, ttft_tpot_span *b)
{
    int dec = fixture(c, NULL, "decode", TTFT_TPOT_ROLE_DECODE);
    *a = ttft_tpot_span_begin(c, dec);
    *b = ttft_tpot_span_begin(c, dec);
    assert_int_equal(counts(c).spans_open, 2);
    assert_int_equal(ttft_tpot_span_end(a), TTFT_TPOT_OK);
    assert_int_equal(record(c, dec, 5, 1), TTFT_TPOT_OK); /* begins and ends: none open */
    assert_int_equal(counts(c).spans_open, 1);
    return dec;
}

/* full_storage_loses_nothing's collector (its figures by hand there), made from cfg (zeroed, then
   storage of 8 samples): a decode loop of 20 steps, 8 stored, the rest in the phase's histogram.
   Returns the phase. */
static inline int full_storage(ttft_tpot *c, ttft_tpot_config *cfg)
{
    int d, i;
    memset(cfg, 0, sizeof *cfg);
    cfg->capacity = 8;
    d = fixture(c, cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 20; i++)
        assert_int_equal(record(c, d, (i ? (uint64_t)i : 50) * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(counts(c).samples, 8);
    return d;
}

/* What allocation_failures_are_reported records before its calls (counting_alloc.h): 5000 samples of
   decode phase d, and 5000 of a bounded kernel phase b (past 4096 a set takes the narrowed path).
   Returns d. */
static inline int samples_for_failures(ttft_tpot *a)
{
    int d = ttft_tpot_phase(a, "d", TTFT_TPOT_ROLE_DECODE), i;
    ttft_tpot_phase_bounded(a, ttft_tpot_phase(a, "b", TTFT_TPOT_ROLE_KERNEL));
    for (i = 0; i < 5000; i++) {
        record(a, d, (uint64_t)(i % 97) * 1000 + 5, 1);
        record(a, 1, (uint64_t)i, 0);
    }
    return d;
}

#endif
