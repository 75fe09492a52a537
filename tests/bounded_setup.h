/* bounded_setup.h - the merge into a bounded collector that test_bounded.c and test_trace_metrics.c share. */
#ifndef BOUNDED_SETUP_H
#define BOUNDED_SETUP_H

#include <string.h>

#include "test_util.h"

/* merge_paths' first merge: dst made from cfg (zeroed, then bounded, a timeline, capacity 3), src with
   a timeline too but not bounded (capacity 8) and 5 kernel samples of k, merged into dst. cfg is left
   as src was made. */
static inline void merged_into_bounded(ttft_tpot *dst, ttft_tpot *src, ttft_tpot_config *cfg)
{
    int i;
    memset(cfg, 0, sizeof *cfg);
    cfg->bounded = 1;
    cfg->timeline = 1;
    cfg->capacity = 3;
    assert_int_equal(ttft_tpot_init(dst, cfg), TTFT_TPOT_OK);
    cfg->bounded = 0;
    cfg->capacity = 8;
    assert_int_equal(ttft_tpot_init(src, cfg), TTFT_TPOT_OK);
    for (i = 0; i < 5; i++)
        record(src, ttft_tpot_phase(src, "k", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    assert_int_equal(ttft_tpot_merge(dst, src), TTFT_TPOT_OK);
}

#endif
