/* metrics_setup.h - the order statistics and the recordings test_metrics.c and test_trace_metrics.c share. */
#ifndef METRICS_SETUP_H
#define METRICS_SETUP_H

#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether sample i goes to the second decode phase: none (split 0), a third (1), two thirds (2). */
static inline int second_phase(int split, size_t i)
{
    return split == 1 ? i % 3 == 2 : split == 2 ? i % 3 != 2 : 0;
}

/* The interval bounds and the chosen p99.9 of decode_step (phase 0) in the model, warmup included and
   its steady view, against the sorted values: the order statistics of ttft_tpot_ci95_ranks, and the
   p99.9 interpolated between ranks floor(h) and floor(h) + 1, h = (n - 1) 0.999, to the nearest ns.
   all[0, n_all): every value recorded, phase 0's those not in the second phase (second_phase), of
   which the first `warm` are warmup. */
static inline void order_statistics_match(const ttft_tpot *c, const uint64_t *all, size_t n_all, uint64_t *v, int split,
                                   size_t warm)
{
    static const unsigned ci_pcts[3] = {50, 90, 99};
    ttft_tpot_model md;
    int view;
    assert_int_equal(ttft_tpot_model_compute(c, NULL, &md), TTFT_TPOT_OK);
    for (view = 0; view < 2; view++) { /* 0: every sample, 1: the steady ones (all but the first warm) */
        const ttft_tpot_stats *st = view ? &md.phase[0].steady : &md.phase[0].all;
        uint64_t lo, hi, h;
        size_t m = 0, i, seen = 0;
        unsigned j;
        for (i = 0; i < n_all; i++)
            if (!second_phase(split, i) && seen++ >= (view ? warm : 0))
                v[m++] = all[i];
        qsort(v, m, sizeof *v, cmp_u64);
        assert_int_equal(st->n, m);
        for (j = 0; j < 3; j++) {
            assert_true(ttft_tpot_ci95_ranks(m, ci_pcts[j], &lo, &hi));
            assert_true(st->has_ci[j]);
            assert_int_equal(st->ci_ns[j][0], v[lo - 1]);
            assert_int_equal(st->ci_ns[j][1], v[hi - 1]);
        }
        h = (uint64_t)(m - 1) * 999; /* in thousandths */
        assert_int_equal(st->pick_n, 1);
        assert_int_equal(st->pick_ns[0],
                         v[h / 1000] + ((v[h / 1000 + 1] - v[h / 1000]) * (h % 1000) + 500) / 1000);
    }
    ttft_tpot_model_free(&md);
}

/* A decode step of two sequences lasting dur ns that produced tokens for them both. */
static inline int multi_step(ttft_tpot *c, int phase, uint64_t dur, uint32_t tokens, uint32_t sequences)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, dur);
    ttft_tpot_span_set_tokens(&s, tokens);
    ttft_tpot_span_set_sequences(&s, sequences);
    return ttft_tpot_span_end(&s);
}

/* Five steps of 2 sequences: a warmup step, then 40 us for 6 tokens (3 a sequence), 30 us for 2 (1),
   36 us for 8 (4), 35 us for 4 (2). */
static inline void multi_steps(ttft_tpot *c, int dec)
{
    static const uint64_t dur[5] = {100000, 40000, 30000, 36000, 35000};
    static const uint32_t tokens[5] = {2, 6, 2, 8, 4};
    int k;
    for (k = 0; k < 5; k++) {
        if (k == 1)
            assert_int_equal(ttft_tpot_run_begin(c), TTFT_TPOT_OK);
        assert_int_equal(multi_step(c, dec, dur[k], tokens[k], 2), TTFT_TPOT_OK);
    }
}

/* multi_token_steps_by_hand's collector: cfg zeroed, then config.sequences and a timeline; the steps
   of multi_steps. Returns the decode phase. */
static inline int multi_steps_of_sequences(ttft_tpot *c, ttft_tpot_config *cfg)
{
    int dec;
    memset(cfg, 0, sizeof *cfg);
    cfg->sequences = 1;
    cfg->timeline = 1;
    dec = fixture(c, cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(c, dec);
    return dec;
}

/* multi_token_steps_merge_and_trace's collectors: a and b, each with multi_steps and config.sequences
   (cfg, zeroed first), merged into whole (made from cfg), a first. */
static inline void merged_multi_steps(ttft_tpot *a, ttft_tpot *b, ttft_tpot *whole, ttft_tpot_config *cfg)
{
    int dec;
    memset(cfg, 0, sizeof *cfg);
    cfg->sequences = 1;
    dec = fixture(a, cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(a, dec);
    dec = fixture(b, cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(b, dec);
    assert_int_equal(ttft_tpot_init(whole, cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(whole, a), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(whole, b), TTFT_TPOT_OK);
}

/* A steady decode: 200 steps cycling 3.00, 3.01, 3.02 ms (step i: 3.00 + 0.01 (i mod 3) ms), the steps
   in at[0, n) 9 ms instead; step 0 is the first call, flagged. */
static inline void spiky_steps(ttft_tpot *c, int d, const int *at, size_t n)
{
    int i;
    size_t k;
    for (i = 0; i < 200; i++) {
        uint64_t v = 3 * MS + (uint64_t)(i % 3) * 10000;
        for (k = 0; k < n; k++)
            v = at[k] == i ? 9 * MS : v;
        assert_int_equal(record(c, d, v, 1), TTFT_TPOT_OK);
    }
}

/* runs_by_hand's recording (its figures by hand there), on a collector made from cfg (zeroed, then a
   timeline): the first calls of prefill and decode_step, warmup before any run; then three runs, each
   a steady prefill of 100, 110, 120 ms and steady decode steps of 10/20/30, 12/22/32, 14/24/34 ms, 1
   token each. */
static inline void three_runs(ttft_tpot *c, ttft_tpot_config *cfg)
{
    int pre, dec, r, k;
    memset(cfg, 0, sizeof *cfg);
    cfg->timeline = 1;
    pre = fixture(c, cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    record(c, pre, 500 * MS, 1); /* the first calls: warmup, before any run */
    record(c, dec, 90 * MS, 1);
    for (r = 0; r < 3; r++) {
        assert_int_equal(ttft_tpot_run_begin(c), TTFT_TPOT_OK);
        record(c, pre, (uint64_t)(100 + 10 * r) * MS, 1);
        for (k = 1; k <= 3; k++)
            record(c, dec, (uint64_t)(10 * k + 2 * r) * MS, 1);
    }
    assert_int_equal(counts(c).runs, 3);
}

/* merge_places_runs_where_samples_land's collectors (the runs by hand there). dst, made from cfg
   (zeroed, then capacity 4 and 4 phases): 6 warmup samples of w, then a run with the first call of d
   (in the reserve). src: a run of a first call and a steady step of s, then a run of two steady steps. */
static inline void dst_with_warmup_and_a_run(ttft_tpot *dst, ttft_tpot_config *cfg)
{
    int i, d, w;
    memset(cfg, 0, sizeof *cfg);
    cfg->capacity = 4;
    cfg->max_phases = 4;
    assert_int_equal(ttft_tpot_init(dst, cfg), TTFT_TPOT_OK);
    ttft_tpot_warmup_begin(dst);
    w = ttft_tpot_phase(dst, "w", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 6; i++)
        assert_int_equal(record(dst, w, MS, 0), TTFT_TPOT_OK);
    ttft_tpot_warmup_end(dst);
    d = ttft_tpot_phase(dst, "d", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_run_begin(dst);
    assert_int_equal(record(dst, d, MS, 1), TTFT_TPOT_OK); /* its first call: the reserve */
}

static inline void src_with_two_runs(ttft_tpot *src)
{
    assert_int_equal(ttft_tpot_init(src, NULL), TTFT_TPOT_OK);
    ttft_tpot_run_begin(src);
    record(src, ttft_tpot_phase(src, "s", TTFT_TPOT_ROLE_DECODE), 2 * MS, 1);
    record(src, find_phase(src, "s"), 2 * MS, 1);
    ttft_tpot_run_begin(src);
    record(src, find_phase(src, "s"), 2 * MS, 1);
    record(src, find_phase(src, "s"), 2 * MS, 1);
}

/* empty_run_ends_in_its_trace's collector: a run begun on c, ended by a merge of none (both made here)
   before any sample, at 0; then two samples of d, 42 ns and 5 ms. */
static inline void run_ended_by_a_merge(ttft_tpot *c, ttft_tpot *none)
{
    int d;
    assert_int_equal(ttft_tpot_init(c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(none, NULL), TTFT_TPOT_OK);
    ttft_tpot_run_begin(c);
    assert_int_equal(ttft_tpot_merge(c, none), TTFT_TPOT_OK); /* ends the run, at 0 */
    d = ttft_tpot_phase(c, "d", TTFT_TPOT_ROLE_DECODE);
    record(c, d, 42, 1);
    record(c, d, 5 * MS, 1);
}

#endif
