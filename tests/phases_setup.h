/* phases_setup.h - the kernel, prompt and shape-row recordings test_phases.c and test_trace_metrics.c share. */
#ifndef PHASES_SETUP_H
#define PHASES_SETUP_H

#include <string.h>

#include "test_util.h"

/* steady_kernel_rows' kernel (its rows by hand there): matmul's first call takes 280 ms, then 10, 20,
   30, 40 ms, and one call of 50 ms inside a warmup section. */
static inline void kernel_with_a_slow_first_call(ttft_tpot *c)
{
    static const uint64_t ms[] = {280, 10, 20, 30, 40};
    int phase, i;
    phase = fixture(c, NULL, "matmul", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 5; i++)
        record(c, phase, ms[i] * MS, 0);
    ttft_tpot_warmup_begin(c);
    record(c, phase, 50 * MS, 0);
    ttft_tpot_warmup_end(c);
}

/* Prefills of 900 ms (the first: warmup), 200, 300 and 100 ms with 100, 400, 600 and `last` prompt
   tokens; last 0: the 100 ms one carries no count. */
static inline void prompted_prefills(ttft_tpot *c, int pre, uint32_t last)
{
    assert_int_equal(record_prompt(c, pre, 900 * MS, 1, 100), TTFT_TPOT_OK);
    assert_int_equal(record_prompt(c, pre, 200 * MS, 1, 400), TTFT_TPOT_OK);
    assert_int_equal(record_prompt(c, pre, 300 * MS, 1, 600), TTFT_TPOT_OK);
    if (last)
        assert_int_equal(record_prompt(c, pre, 100 * MS, 1, last), TTFT_TPOT_OK);
    else
        assert_int_equal(record(c, pre, 100 * MS, 1), TTFT_TPOT_OK);
}

/* prompt_tokens_give_the_prefill_rate's recording (the rate by hand there): the prefills above, the
   last without a count, then 4 calls refused (a decode phase's prompt, a prompt of 0, an unknown
   phase, a span's prompt of 0), counted. */
static inline void prompts_and_refusals(ttft_tpot *c)
{
    int pre, dec;
    pre = fixture(c, NULL, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(c, "decode", TTFT_TPOT_ROLE_DECODE);
    prompted_prefills(c, pre, 0);
    assert_int_equal(record_prompt(c, dec, 5 * MS, 1, 7), TTFT_TPOT_EROLE); /* refused, counted */
    assert_int_equal(record_prompt(c, pre, 5 * MS, 1, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(record_prompt(c, 9, 5 * MS, 1, 7), TTFT_TPOT_EPHASE);
    {
        ttft_tpot_span sp = ttft_tpot_span_begin(c, pre);
        ttft_tpot_span_set_tokens(&sp, 1);
        ttft_tpot_span_set_prompt(&sp, 0);
        assert_int_equal(ttft_tpot_span_end(&sp), TTFT_TPOT_EINVAL); /* a span's too */
    }
    assert_int_equal(counts(c).rejected, 4);
}

/* merge_that_drops_prompts' merge (its figures by hand there): src with the prefills above (100
   prompt tokens the last), merged into dst, made from cfg (zeroed, then capacity 1, 2 phases, one
   histogram slot) with 3 samples of a kernel: its first call stored, the next two in the slot. */
static inline void merge_that_drops(ttft_tpot *src, ttft_tpot *dst, ttft_tpot_config *cfg)
{
    int pre, k, i;
    assert_int_equal(ttft_tpot_init(src, NULL), TTFT_TPOT_OK);
    pre = ttft_tpot_phase(src, "prefill", TTFT_TPOT_ROLE_PREFILL);
    prompted_prefills(src, pre, 100);
    memset(cfg, 0, sizeof *cfg);
    cfg->capacity = 1;
    cfg->max_phases = 2;
    cfg->hist_slots = 1;
    assert_int_equal(ttft_tpot_init(dst, cfg), TTFT_TPOT_OK);
    k = ttft_tpot_phase(dst, "kernel", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 3; i++) /* its first call is stored, the next two take the one histogram slot */
        assert_int_equal(record(dst, k, MS, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(dst, src), TTFT_TPOT_OK);
}

/* shape_rows_split_a_phase's collector (the rows by hand there), made from cfg (zeroed, then the
   clock clk, scripted to read 1000 and 67000 for the one span, and 3 shape keys at most): matmul, its
   key 1 named 288x288 and key 2 32000x288, named again. Returns matmul; *big_row: key 2's row. */
static inline int matmul_with_shape_rows(ttft_tpot *c, ttft_tpot_config *cfg, script_clock *clk, int *big_row)
{
    static const uint64_t t[] = {1000, 67000}; /* the span's clock reads: 66 us */
    int mm, small, big;
    clk->t = t, clk->n = 2, clk->next = 0;
    memset(cfg, 0, sizeof *cfg);
    cfg->clock = script_now;
    cfg->clock_user = clk;
    cfg->max_shapes = 3;
    mm = fixture(c, cfg, "matmul", TTFT_TPOT_ROLE_KERNEL);
    small = ttft_tpot_shape_row(c, mm, 1, "288x288");
    big = ttft_tpot_shape_row(c, mm, 2, "32000x288");
    assert_true(small > mm && big > small);
    assert_int_equal(ttft_tpot_shape_row(c, mm, 1, "288x288"), small); /* named again: the same row */
    *big_row = big;
    return mm;
}

/* Then: key 3 named (the longest name that fits), names too long, of an unknown phase, past the 3
   keys refused; samples of key 1 (200, 60, 60 us and the span's 66 us) and 2 (5000, 2000, 2200 us),
   and one of key 5, which has no row and no room (matmul's first call). */
static inline void shape_rows_recorded(ttft_tpot *c, int mm)
{
    char longname[TTFT_TPOT_NAME_MAX];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    longname[TTFT_TPOT_NAME_MAX - 9] = '\0'; /* "matmul[" + 55 bytes + "]" is 63 bytes: fits */
    assert_true(ttft_tpot_shape_row(c, mm, 3, longname) >= 0);
    longname[TTFT_TPOT_NAME_MAX - 9] = 'x'; /* one more: too long */
    longname[TTFT_TPOT_NAME_MAX - 8] = '\0';
    assert_int_equal(ttft_tpot_shape_row(c, mm, 4, longname), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_shape_row(c, 99, 4, "a"), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_shape_row(c, mm, 4, "a"), TTFT_TPOT_EFULL); /* 3 keys known */
    record_shape(c, mm, 1, 200000, 0);
    record_shape(c, mm, 2, 5000000, 0);
    record_shape(c, mm, 1, 60000, 0);
    record_shape(c, mm, 2, 2000000, 0);
    record_shape(c, mm, 1, 60000, 0);
    record_shape(c, mm, 2, 2200000, 0);
    {
        TTFT_TPOT_SPAN_BEGIN(sp, c, mm);
        TTFT_TPOT_SPAN_SET_SHAPE(sp, 1);
        TTFT_TPOT_SPAN_END(sp);
    }
    record_shape(c, mm, 5, 9000, 0); /* no row, the table full: matmul (its first call) */
}

#endif
