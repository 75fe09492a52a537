/* Bounded mode (histograms), merging collectors, clearing one, and what the report says of its clock. */
#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99: test_util.h includes libc first */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "bounded_setup.h" /* merged_into_bounded() */

static uint64_t lcg = 7;

/* log-uniform over [1 us, 10 s) */
static uint64_t log_uniform(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint64_t)(1e3 * pow(1e7, (double)(lcg >> 11) / 9007199254740992.0));
}

static void histogram_within_its_error_bound(void **state)
{
    ttft_tpot exact, bounded;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats e, b;
    int pe, pb, i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&exact, NULL), TTFT_TPOT_OK);
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&bounded, &cfg), TTFT_TPOT_OK);
    pe = ttft_tpot_phase(&exact, "k", TTFT_TPOT_ROLE_KERNEL);
    pb = ttft_tpot_phase(&bounded, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 20011; i++) {
        uint64_t v = log_uniform();
        record(&exact, pe, v, 0);
        record(&bounded, pb, v, 0);
    }
    assert_int_equal(counts(&bounded).samples, 1); /* only the warmup sample is stored */
    assert_int_equal(phase_stats(&exact, pe, &e), TTFT_TPOT_OK);
    assert_int_equal(phase_stats(&bounded, pb, &b), TTFT_TPOT_OK);
    assert_int_equal(e.approx, 0);
    assert_int_equal(b.approx, 1);
    assert_int_equal(b.n, e.n);
    assert_int_equal(b.min_ns, e.min_ns); /* min, max and the sum are kept exactly */
    assert_int_equal(b.max_ns, e.max_ns);
    assert_near(b.total_ns, e.total_ns, 0);
    assert_near(b.p50_ns, e.p50_ns, e.p50_ns * TTFT_TPOT_HIST_MAX_REL_ERR);
    assert_near(b.p90_ns, e.p90_ns, e.p90_ns * TTFT_TPOT_HIST_MAX_REL_ERR);
    assert_near(b.p95_ns, e.p95_ns, e.p95_ns * TTFT_TPOT_HIST_MAX_REL_ERR);
    assert_near(b.p99_ns, e.p99_ns, e.p99_ns * TTFT_TPOT_HIST_MAX_REL_ERR);
    ttft_tpot_free(&exact);
    ttft_tpot_free(&bounded);
}

/* One value alone in a histogram reads back within the bound, over the whole range. */
static void every_magnitude_reads_back(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_stats st;
    uint64_t v;
    unsigned shift, prev = 0, idx;
    int k;
    (void)state;
    cfg.bounded = 1;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    record(&c, k, 0, 0); /* the warmup call, stored exactly */
    for (v = 0; v < UINT64_MAX - (UINT64_MAX >> 5);) { /* increasing values: indexes never fall */
        idx = ttft_tpot__hist_index(v);
        assert_true(idx < TTFT_TPOT_HIST_BUCKETS);
        assert_true(idx >= prev);
        prev = idx;
        v += (v >> 5) | 1;
    }
    assert_int_equal(ttft_tpot__hist_index(UINT64_MAX), TTFT_TPOT_HIST_BUCKETS - 1);
    for (shift = 0; shift < 64; shift++) {
        uint64_t vals[3];
        int j;
        vals[0] = (uint64_t)1 << shift;
        vals[1] = vals[0] + vals[0] / 3;
        vals[2] = shift == 63 ? UINT64_MAX : (vals[0] << 1) - 1;
        for (j = 0; j < 3; j++) {
            ttft_tpot_clear(&c);
            record(&c, k, vals[j], 0); /* steady: the phase was called before */
            record(&c, k, vals[j], 0);
            assert_int_equal(phase_stats(&c, k, &st), TTFT_TPOT_OK);
            assert_near(st.p50_ns, (double)vals[j], (double)vals[j] * TTFT_TPOT_HIST_MAX_REL_ERR);
            if (vals[j] < 128)
                assert_near(st.p50_ns, (double)vals[j], 0); /* exact below 128 ns */
        }
    }
    ttft_tpot_free(&c);
}

static void bounded_phase_keeps_warmup_exact(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    int d, i;
    (void)state;
    cfg.hist_slots = 1;
    d = fixture(&c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_phase_bounded(&c, d), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_bounded(&c, d), TTFT_TPOT_OK); /* already */
    assert_int_equal(ttft_tpot_phase_bounded(&c, ttft_tpot_phase(&c, "x", TTFT_TPOT_ROLE_KERNEL)), TTFT_TPOT_ENOMEM);
    assert_int_equal(ttft_tpot_phase_bounded(&c, 9), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_phase_bounded(NULL, 0), TTFT_TPOT_EINVAL);
    record(&c, d, 100 * MS, 2); /* warmup: stored */
    for (i = 0; i < 10; i++)              /* 10..19 ms, 2 tokens each: histogram */
        record(&c, d, (uint64_t)(10 + i) * MS, 2);
    assert_int_equal(counts(&c).samples, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 10);
    assert_ms(&doc, "tpot.excluded_warmup", 1);
    assert_ms(&doc, "tpot.mean_ms", 14.5); /* exact: the sum is exact */
    assert_ms(&doc, "tpot.min_ms", 10);
    assert_ms(&doc, "tpot.max_ms", 19);
    assert_near(num_at(&doc, "tpot.p50_ms"), 14.5, 14.5 / 128);
    assert_true(jc_get(&doc, "tpot.approximate")->num == 1);
    assert_near(num_at(&doc, "tpot.max_rel_err"), 1.0 / 128, 1e-7);
    assert_ms(&doc, "output_throughput_tok_s", 20 / 0.145); /* 20 tokens / 145 ms */
    assert_ms(phase_named(&doc, "decode"), "n", 11);         /* the row has the warmup too */
    assert_ms(phase_named(&doc, "decode"), "max_ms", 100);
    assert_ms(phase_named(&doc, "decode"), "tokens", 22);
    assert_true(jc_get(phase_named(&doc, "x"), "approximate") == NULL); /* no sample: no figures */
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "~ within 0.8%: bounded histogram"));
    assert_non_null(strstr(text, "~ bounded phase: avg and percentiles from a histogram"));
    free(text);
    ttft_tpot_free(&c);
}

static void clear_starts_a_new_interval(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int d;
    (void)state;
    cfg.bounded = 1;
    d = fixture(&c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    record(&c, d, 5 * MS, 1);
    record(&c, d, 6 * MS, 1);
    record(&c, 42, 6 * MS, 1); /* rejected */
    ttft_tpot_clear(&c);
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(counts(&c).rejected, 0);
    assert_true(c.phase.slots[d].hist->min_ns > c.phase.slots[d].hist->max_ns); /* empty */
    record(&c, d, 7 * MS, 1); /* not a first call any more: steady */
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(c.phase.slots[d].hist->counts[ttft_tpot__hist_index(7 * MS)], 1);
    assert_int_equal(find_phase(&c, "decode"), d);
    ttft_tpot_clear(NULL);
    ttft_tpot_free(&c);
}

static void merged_collectors_report_as_one(void **state)
{
    ttft_tpot a, b, all, bad;
    ttft_tpot_config cfg = {0};
    char *ja, *jall;
    int i;
    (void)state;
    cfg.max_phases = 4;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&all, &cfg), TTFT_TPOT_OK);
    /* two threads' collectors, and one collector that saw everything in the same order */
    for (i = 0; i < 6; i++) {
        ttft_tpot *t = i < 3 ? &a : &b;
        int d = ttft_tpot_phase(t, "decode", TTFT_TPOT_ROLE_DECODE);
        int k = ttft_tpot_phase(t, i < 3 ? "k_a" : "k_b", TTFT_TPOT_ROLE_KERNEL);
        record(t, d, (uint64_t)(i + 1) * MS, 1);
        record(t, k, (uint64_t)(i + 10) * MS, 0);
        record(&all, ttft_tpot_phase(&all, "decode", TTFT_TPOT_ROLE_DECODE), (uint64_t)(i + 1) * MS, 1);
        record(&all, ttft_tpot_phase(&all, i < 3 ? "k_a" : "k_b", TTFT_TPOT_ROLE_KERNEL),
                         (uint64_t)(i + 10) * MS, 0);
    }
    /* b's first decode call is not the whole's first: the merge makes it steady, as all saw it */
    all.clock_read_ns = a.clock_read_ns; /* measured at each init: not what is compared */
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    ja = capture(&a, report_json);
    jall = capture(&all, report_json);
    assert_string_equal(ja, jall);
    free(ja);
    free(jall);
    assert_int_equal(ttft_tpot_merge(&a, &a), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_merge(NULL, &a), TTFT_TPOT_EINVAL);
    /* a role conflict or a full phase table changes nothing */
    assert_int_equal(ttft_tpot_init(&bad, &cfg), TTFT_TPOT_OK);
    record(&bad, ttft_tpot_phase(&bad, "new", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    record(&bad, ttft_tpot_phase(&bad, "decode", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    i = (int)counts(&a).samples;
    assert_int_equal(ttft_tpot_merge(&a, &bad), TTFT_TPOT_EROLE);
    assert_int_equal(counts(&a).samples, (size_t)i);
    assert_int_equal(counts(&a).phases, 3);
    ttft_tpot_free(&bad);
    assert_int_equal(ttft_tpot_init(&bad, &cfg), TTFT_TPOT_OK);
    ttft_tpot_phase(&bad, "n1", TTFT_TPOT_ROLE_KERNEL);
    ttft_tpot_phase(&bad, "n2", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_merge(&a, &bad), TTFT_TPOT_EPHASE); /* 3 + 2 > 4 */
    assert_int_equal(counts(&a).phases, 3);
    ttft_tpot_free(&bad);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
    ttft_tpot_free(&all);
}

static void merged_histograms_add_up(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    int i;
    (void)state;
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < 50; i++) {
        record(&a, ttft_tpot_phase(&a, "d", TTFT_TPOT_ROLE_DECODE), 100, 1);
        record(&b, ttft_tpot_phase(&b, "d", TTFT_TPOT_ROLE_DECODE), 120, 1);
    }
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    assert_int_equal(phase_stats(&a, 0, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 100);
    assert_int_equal(st.warmup_n, 1); /* a's first call; b's, not the whole's first, is steady */
    assert_near(st.total_ns, 50 * 100 + 50 * 120, 0);
    assert_near(st.p50_ns, 110, 0); /* 49 + 1 values of 100, 50 of 120: exact under 128 ns */
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

static uint64_t zero_clock(void *user)
{
    (void)user;
    return 0;
}

/* The report names its clock (read through the model: view) and warns of a costly one. (The trace
   carries the clock line and the reader takes it: test_trace_metrics.c.) */
static void report_names_its_clock(void **state)
{
    ttft_tpot c, r;
    ttft_tpot_config cfg = {0};
    ttft_tpot_model m;
    char *text;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    m = view(&c);
    assert_string_equal(m.clock_name, "CLOCK_MONOTONIC");
    assert_true(m.clock_read_ns > 0 && m.clock_read_ns < 1000000);
    ttft_tpot_model_free(&m);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "(clock: CLOCK_MONOTONIC, "));
    assert_non_null(strstr(text, " ns/read)\n"));
    free(text);
    cfg.clock = zero_clock;
    cfg.clock_name = "nothing";
    assert_int_equal(ttft_tpot_init(&r, &cfg), TTFT_TPOT_OK);
    assert_int_equal(r.clock_read_ns, 0);
    c.clock_read_ns = 400;
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: one clock read costs 400 ns"));
    free(text);
    ttft_tpot_free(&c);
    ttft_tpot_free(&r);
}

static void merge_paths(void **state)
{
    ttft_tpot dst, src, full;
    ttft_tpot_config cfg;
    (void)state;
    /* dst bounded: new phases take a slot; src with a timeline, dst with one too */
    merged_into_bounded(&dst, &src, &cfg);
    assert_non_null(dst.phase.slots[0].hist); /* bounded like every phase of dst */
    assert_int_equal(counts(&dst).samples, 3);          /* 5 stored samples, 3 fit */
    assert_int_equal(counts(&dst).dropped, 0);          /* the other 2 go on in the histogram */
    assert_int_equal(dst.phase.slots[0].hist->counts[ttft_tpot__hist_index(MS)], 2);
    /* what the tools' queries read of dst: test_trace_metrics.c */
    ttft_tpot_free(&dst);
    /* a bounded src into a dst without a free slot: nothing changes */
    cfg.timeline = 0;
    cfg.max_phases = 2;
    cfg.hist_slots = 1;
    assert_int_equal(ttft_tpot_init(&full, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_bounded(&full, ttft_tpot_phase(&full, "x", TTFT_TPOT_ROLE_KERNEL)), 0);
    cfg.max_phases = 0;
    cfg.hist_slots = 0;
    ttft_tpot_free(&src);
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&src, &cfg), TTFT_TPOT_OK);
    record(&src, ttft_tpot_phase(&src, "b", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    record(&src, 0, MS, 0); /* steady: into the histogram */
    assert_int_equal(ttft_tpot_merge(&full, &src), TTFT_TPOT_ENOMEM);
    assert_int_equal(counts(&full).phases, 1);
    ttft_tpot_free(&full);
    ttft_tpot_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histogram_within_its_error_bound),
        cmocka_unit_test(every_magnitude_reads_back),
        cmocka_unit_test(bounded_phase_keeps_warmup_exact),
        cmocka_unit_test(clear_starts_a_new_interval),
        cmocka_unit_test(merged_collectors_report_as_one),
        cmocka_unit_test(merged_histograms_add_up),
        cmocka_unit_test(report_names_its_clock),
        cmocka_unit_test(merge_paths),
    };
    return run_cases(tests);
}
