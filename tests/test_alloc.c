/* Recording never allocates: every allocation goes through TTFT_TPOT_MALLOC, counted (counting_alloc.h).
   A test of the core (ttft_tpot.h alone): the allocation failures of the serving layer's and the tools'
   calls (requests, the exposition, the CDF, trace reads, growing collectors) are in
   test_trace_collector.c. */
#include "counting_alloc.h" /* the counting allocator (allocs, frees, fail_at, largest) */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "collector_setup.h" /* samples_for_failures() */

/* The headline alone, as ttft_tpot_summarize computes it (without the layer's figures and the
   shares): OK or what the model returns (ENOMEM). */
static int summarize(const ttft_tpot *c, ttft_tpot_summary *out)
{
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    ttft_tpot_model m;
    int rc;
    o.skip = TTFT_TPOT_SKIP_LAYER | TTFT_TPOT_SKIP_SHARES;
    if ((rc = ttft_tpot_model_compute(c, &o, &m)) == TTFT_TPOT_OK)
        *out = m.head;
    ttft_tpot_model_free(&m);
    return rc;
}

/* The statistics of any n durations, as ttft_tpot_stats_of gives them: ttft_tpot_series_stats of the
   values. */
static int stats_of(const ttft_tpot *c, const uint64_t *ns, size_t n, ttft_tpot_stats *out)
{
    ttft_tpot_series s = TTFT_TPOT_ZERO;
    s.set = -1;
    s.values = ns;
    s.n = n;
    return ttft_tpot_series_stats(c, &s, out, NULL);
}

static void spans_allocate_nothing(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int d, k, b, i;
    long before;
    char *text;
    (void)state;
    cfg.capacity = 50000; /* half of the spans: the rest are dropped, which must not allocate either */
    cfg.hist_slots = 1;
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(allocs, 1); /* init: one block */
    d = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&c, "kernel", TTFT_TPOT_ROLE_KERNEL);
    b = ttft_tpot_phase(&c, "bounded", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_phase_bounded(&c, b), TTFT_TPOT_OK);
    before = allocs;
    ttft_tpot_warmup_begin(&c);
    for (i = 0; i < 100000; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, &c, i % 3 == 0 ? d : i % 3 == 1 ? k : b);
        TTFT_TPOT_SPAN_SET_TOKENS(s, 1);
        TTFT_TPOT_SPAN_END(s);
        if (i == 10)
            ttft_tpot_warmup_end(&c);
    }
    {
        uint64_t ns;
        assert_int_equal(ttft_tpot_ms_to_ns(1.0, &ns), TTFT_TPOT_OK); /* a duration in ms, recorded */
        record(&c, d, ns, 1);
    }
    assert_int_equal(allocs, before); /* 1e5 spans, no allocation */
    assert_true(counts(&c).dropped > 0);
    text = capture(&c, ttft_tpot_report); /* reports allocate scratch and free all of it */
    free(text);
    text = capture(&c, report_json);
    free(text);
    ttft_tpot_free(&c);
    assert_int_equal(allocs, frees);
}

/* Every call of the core that allocates, with its k-th allocation failing: ENOMEM (or OK when the
   allocation was an optimisation it can do without), never a crash, a wrong figure or a leak. Returns
   whether there was a k-th allocation to fail. (The serving layer's and the tools' calls in the same
   sequence: test_trace_collector.c, alloc_failures_with_requests_and_traces.) */
static int run_with_failure(long k)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    ttft_tpot_summary s;
    ttft_tpot_stats st;
    int rc, d;
    FILE *out = tmpfile();
    assert_true(out != NULL);
    allocs = frees = 0;
    fail_at = k;
    cfg.capacity = 8192; /* past 4096 samples a set takes the narrowed path, which allocates more */
    cfg.hist_slots = 1;
    rc = ttft_tpot_init(&a, &cfg);
    if (rc != TTFT_TPOT_OK) {
        assert_int_equal(rc, TTFT_TPOT_ENOMEM);
        goto done;
    }
    d = samples_for_failures(&a);
    {
        ttft_tpot_model md;
        STEP(ttft_tpot_model_compute(&a, NULL, &md));
        if (rc == TTFT_TPOT_ENOMEM) /* a model that could not be made holds nothing to free */
            assert_true(md.phase == NULL && md.collector == NULL);
        ttft_tpot_model_free(&md);
    }
    STEP(summarize(&a, &s));
    if (rc == TTFT_TPOT_OK) /* whatever failed before, a figure that is given is right */
        assert_int_equal(s.tpot.n, 4999);
    STEP(phase_stats(&a, d, &st));
    STEP_WRITES(ttft_tpot_report(&a, out));
    STEP_WRITES(report_json(&a, out));
    cfg.capacity = 4;
    if (ttft_tpot_init(&b, &cfg) == TTFT_TPOT_OK) {
        record(&b, ttft_tpot_phase(&b, "d", TTFT_TPOT_ROLE_DECODE), 7, 1);
        STEP(ttft_tpot_merge(&a, &b));
        ttft_tpot_free(&b);
    }
    ttft_tpot_free(&a);
done:
    fclose(out);
    return failing_run_ends();
}

/* A phase's statistics (ttft_tpot_series_stats of its set, as ttft_tpot_phase_stats reads them) take
   memory for the phase it reads, not for the store: among 200,000 stored samples, neither a phase of
   2,000 nor one of 100,000 asks for a block of 8 bytes a stored sample (1.6 MB), nor of a quarter of
   that: the largest is the narrowing scratch (56,320 x 4 bytes), the large phase copying out only the
   values of its percentiles' buckets. Their figures are those of the same values given whole
   (ttft_tpot_series_stats of the values, as ttft_tpot_stats_of gives them). */
static void phase_stats_memory_is_the_phases(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st, want;
    uint64_t *v[2];
    size_t n[2] = {0, 0}, i;
    int ph[2], k, f;
    (void)state;
    cfg.capacity = 200000;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    ph[0] = ttft_tpot_phase(&c, "small", TTFT_TPOT_ROLE_KERNEL);
    ph[1] = ttft_tpot_phase(&c, "large", TTFT_TPOT_ROLE_DECODE);
    f = ttft_tpot_phase(&c, "filler", TTFT_TPOT_ROLE_KERNEL);
    v[0] = (uint64_t *)malloc(2000 * sizeof *v[0]);
    v[1] = (uint64_t *)malloc(100000 * sizeof *v[1]);
    assert_true(v[0] && v[1]);
    for (i = 0; i < 200000; i++) { /* every 100th sample the small phase's, every other the large one's */
        k = i % 100 == 1 ? 0 : i % 2 == 0 ? 1 : -1;
        if (k >= 0)
            v[k][n[k]] = 1000 + (uint64_t)(i * 7919 % 100003) * (k ? 31 : 7);
        assert_int_equal(record(&c, k >= 0 ? ph[k] : f, k >= 0 ? v[k][n[k]++] : 500, 1), TTFT_TPOT_OK);
    }
    assert_true(n[0] == 2000 && n[1] == 100000 && counts(&c).samples == 200000);
    for (k = 0; k < 2; k++) {
        largest = 0;
        assert_int_equal(phase_stats(&c, ph[k], &st), TTFT_TPOT_OK);
        assert_true(largest < 8 * 200000 / 4);
        assert_int_equal(stats_of(&c, v[k], n[k], &want), TTFT_TPOT_OK);
        assert_int_equal(st.n, n[k]);
        assert_int_equal(st.warmup_n, 1); /* each phase's first call */
        assert_true(st.min_ns == want.min_ns && st.max_ns == want.max_ns && st.mean_ns == want.mean_ns);
        assert_true(st.p50_ns == want.p50_ns && st.p90_ns == want.p90_ns && st.p95_ns == want.p95_ns &&
                    st.p99_ns == want.p99_ns);
        assert_true(st.ci_ns[0][0] == want.ci_ns[0][0] && st.ci_ns[0][1] == want.ci_ns[0][1]);
        free(v[k]);
    }
    ttft_tpot_free(&c);
    assert_int_equal(allocs, frees);
}

static void allocation_failures_are_reported(void **state)
{
    (void)state;
    every_allocation_fails(run_with_failure);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spans_allocate_nothing),
        cmocka_unit_test(phase_stats_memory_is_the_phases),
        cmocka_unit_test(allocation_failures_are_reported),
    };
    return run_cases(tests);
}
