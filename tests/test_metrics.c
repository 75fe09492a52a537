/* Statistics and metrics on synthetic timings; every expected figure is worked out by hand. */
#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99: test_util.h includes libc first */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "metrics_setup.h" /* cmp_u64(), order_statistics_match(), the recordings of test_trace_metrics.c */

static ttft_tpot_stats stats_of(const uint64_t *v, size_t n)
{
    ttft_tpot c;
    ttft_tpot_stats st;
    size_t i;
    int k;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < n; i++)
        assert_int_equal(record(&c, k, v[i], 0), TTFT_TPOT_OK);
    assert_int_equal(phase_stats(&c, k, &st), TTFT_TPOT_OK);
    ttft_tpot_free(&c);
    return st;
}

static void expect_pct(const uint64_t *v, size_t n, double p50, double p90, double p95, double p99)
{
    ttft_tpot_stats st = stats_of(v, n);
    assert_int_equal(st.n, n);
    assert_near(st.p50_ns, p50, 1e-9);
    assert_near(st.p90_ns, p90, 1e-9);
    assert_near(st.p95_ns, p95, 1e-9);
    assert_near(st.p99_ns, p99, 1e-9);
}

static void percentiles_by_hand(void **state)
{
    static const uint64_t one[] = {42};
    static const uint64_t two[] = {20, 10};
    static const uint64_t odd[] = {5, 1, 4, 2, 3};
    static const uint64_t even[] = {40, 10, 30, 20};
    static const uint64_t same[] = {7, 7, 7, 7, 7, 7};
    (void)state;
    /* h = (n-1)*p/100; x[floor h] + frac(h) * (x[floor h + 1] - x[floor h]) */
    expect_pct(one, 1, 42, 42, 42, 42);
    expect_pct(two, 2, 15, 19, 19.5, 19.9);       /* h = 0.5, 0.9, 0.95, 0.99 */
    expect_pct(odd, 5, 3, 4.6, 4.8, 4.96);        /* h = 2, 3.6, 3.8, 3.96 */
    expect_pct(even, 4, 25, 37, 38.5, 39.7);      /* h = 1.5, 2.7, 2.85, 2.97 */
    expect_pct(same, 6, 7, 7, 7, 7);
}

static void percentiles_land_on_ranks(void **state)
{
    uint64_t v[101];
    ttft_tpot_stats st;
    size_t i;
    (void)state;
    for (i = 0; i < 101; i++) /* 0..100 ms, shuffled: 37 is coprime with 101 */
        v[i] = (uint64_t)(i * 37 % 101) * MS;
    st = stats_of(v, 101);
    assert_near(st.p50_ns, 50.0 * MS, 0);
    assert_near(st.p90_ns, 90.0 * MS, 0);
    assert_near(st.p99_ns, 99.0 * MS, 0);
    assert_int_equal(st.min_ns, 0);
    assert_int_equal(st.max_ns, 100 * MS);
    assert_near(st.mean_ns, 50.0 * MS, 0);
    assert_near(st.total_ns, 5050.0 * MS, 0);
}

/* The selection result against the formula applied to a fully sorted copy. */
static void check_against_sort(uint64_t *v, size_t n)
{
    static const unsigned ps[4] = {50, 90, 95, 99};
    ttft_tpot_stats st = stats_of(v, n);
    double got[4];
    unsigned i;
    got[0] = st.p50_ns;
    got[1] = st.p90_ns;
    got[2] = st.p95_ns;
    got[3] = st.p99_ns;
    qsort(v, n, sizeof *v, cmp_u64);
    for (i = 0; i < 4; i++) {
        double h = (double)(n - 1) * ps[i] / 100.0;
        size_t k = (size_t)h;
        double want = (double)v[k] + (k + 1 < n ? (h - (double)k) * (double)(v[k + 1] - v[k]) : 0.0);
        assert_near(got[i], want, 1e-6 * want + 1e-9);
    }
    assert_int_equal(st.min_ns, v[0]);
    assert_int_equal(st.max_ns, v[n - 1]);
}

static void selection_matches_sorting(void **state)
{
    enum { N = 10007 };
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v);
    uint64_t seed = 12345;
    size_t i;
    (void)state;
    assert_non_null(v);
    for (i = 0; i < N; i++) { /* random, with many repeats */
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (seed >> 33) % 50;
    }
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* random, wide */
        v[i] = (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 8;
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* ascending */
        v[i] = i;
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* descending */
        v[i] = N - i;
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* organ pipe */
        v[i] = i < N / 2 ? i : N - i;
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* all equal */
        v[i] = 9;
    check_against_sort(v, N);
    for (i = 0; i < N; i++) /* extremes of the range */
        v[i] = i % 2 ? UINT64_MAX - i : i;
    check_against_sort(v, N);
    free(v);
}

/* ttft_tpot_sort against qsort: by hand, then values of 1, 3 and 8 significant bytes, equal values, the
   extremes; a sort of 0 or 1 value; NULL refused. */
static void sort_matches_qsort(void **state)
{
    enum { N = 50021 };
    uint64_t hand[8] = {258, 1, UINT64_MAX, 0, 257, 1ull << 40, 3, 258};
    const uint64_t want[8] = {0, 1, 3, 257, 258, 258, 1ull << 40, UINT64_MAX};
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v), *w = (uint64_t *)malloc(N * sizeof *w), tmp[8], seed = 99;
    size_t i;
    int shape;
    (void)state;
    assert_int_equal(ttft_tpot_sort(hand, 8, tmp), TTFT_TPOT_OK);
    assert_memory_equal(hand, want, sizeof want);
    for (shape = 0; shape < 5; shape++) {
        uint64_t *scratch = (uint64_t *)malloc(N * sizeof *scratch);
        for (i = 0; i < N; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v[i] = shape == 0   ? seed >> 56                        /* one byte */
                   : shape == 1 ? 4000000 + (seed >> 40) % 2000000 /* three bytes: decode steps in ns */
                   : shape == 2 ? seed                             /* all eight */
                   : shape == 3 ? 7                                /* all equal: no pass */
                                : (i % 2 ? UINT64_MAX - i : i);    /* the extremes */
            w[i] = v[i];
        }
        assert_int_equal(ttft_tpot_sort(v, N, scratch), TTFT_TPOT_OK);
        qsort(w, N, sizeof *w, cmp_u64);
        assert_memory_equal(v, w, N * sizeof *v);
        free(scratch);
    }
    for (i = 2; i <= 64; i++) { /* both sides of the insertion sort's limit */
        uint64_t scratch[64];
        size_t k;
        for (k = 0; k < i; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v[k] = w[k] = seed >> (k % 3 * 20);
        }
        assert_int_equal(ttft_tpot_sort(v, i, scratch), TTFT_TPOT_OK);
        qsort(w, i, sizeof *w, cmp_u64);
        assert_memory_equal(v, w, i * sizeof *v);
    }
    assert_int_equal(ttft_tpot_sort(NULL, 0, NULL), TTFT_TPOT_OK);
    v[0] = 5;
    assert_int_equal(ttft_tpot_sort(v, 1, tmp), TTFT_TPOT_OK);
    assert_true(v[0] == 5);
    assert_int_equal(ttft_tpot_sort(v, 2, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sort(NULL, 2, tmp), TTFT_TPOT_EINVAL);
    free(v);
    free(w);
}

#define HALF_NS_MS 5.1e-7 /* the report rounds an interpolated percentile to the ns (and doubles round) */

/* The p-th percentile of v[0, n) by sorting (numpy's "linear"), in ms. */
static double sorted_pct_ms(uint64_t *v, size_t n, unsigned p)
{
    double h = (double)(n - 1) * p / 100.0;
    size_t k = (size_t)h;
    qsort(v, n, sizeof *v, cmp_u64);
    return ((double)v[k] + (k + 1 < n ? (h - (double)k) * (double)(v[k + 1] - v[k]) : 0.0)) / 1e6;
}

/* The report's own path for large sets (narrowed, a phase and its steady view from one gather, TPOT
   taken from the only decode phase, or gathered from two) against sorting: a cold step of 1 s, then
   N steady steps, in one decode phase, then split over two (the larger first, then second). */
static void report_selection_matches_sorting(void **state)
{
    enum { N = 20011 };
    static const unsigned ps[4] = {50, 90, 95, 99};
    static const char *const keys[4] = {"p50_ms", "p90_ms", "p95_ms", "p99_ms"};
    uint64_t *all = (uint64_t *)malloc((N + 1) * sizeof *all), *v = (uint64_t *)malloc((N + 1) * sizeof *v);
    uint64_t seed = 777;
    int shape, split;
    (void)state;
    for (shape = 0; shape < 3; shape++) {
        size_t i;
        all[0] = 1000 * MS;
        for (i = 1; i <= N; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            all[i] = shape == 0   ? 3220000 + (seed >> 33) % 50 * 7          /* a few fine buckets */
                     : shape == 1 ? 3000000 + (seed >> 33) % 500000           /* a spread */
                                  : (seed >> 20) + ((seed >> 60) ? 0 : 1000 * MS); /* wide, a heavy tail */
        }
        for (split = 0; split < 3; split++) {
            ttft_tpot c;
            ttft_tpot_config cfg = {0};
            jc_value doc;
            char path[64];
            unsigned k;
            int d[2];
            cfg.capacity = 2 * N + 200;
            cfg.percentiles[0] = 99.9; /* a chosen percentile: two more ranks for the narrowing */
            assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
            d[0] = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
            d[1] = ttft_tpot_phase(&c, "decode_big", TTFT_TPOT_ROLE_DECODE);
            for (i = 0; i <= N; i++) /* the second phase's first call is warmup too */
                assert_int_equal(record(&c, d[second_phase(split, i)], all[i], 1), TTFT_TPOT_OK);
            /* an e2e phase of its own, whose figures the report takes from it while TPOT is gathered */
            assert_int_equal(record(&c, ttft_tpot_phase(&c, "generate", TTFT_TPOT_ROLE_E2E), 5 * MS, 1),
                             TTFT_TPOT_OK);
            for (i = 0; i < N + 100; i++) /* a larger kernel phase: both decode phases fit one gather */
                assert_int_equal(record(&c, ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL), 7, 0),
                                 TTFT_TPOT_OK);
            json_of(&c, &doc);
            for (k = 0; k < 4; k++) { /* TPOT: every steady decode sample */
                size_t m = 0;
                for (i = 1; i <= N; i++)
                    if (!(split && i == 2)) /* split: 0 and 2 are each phase's first call */
                        v[m++] = all[i];
                snprintf(path, sizeof path, "tpot.%s", keys[k]);
                assert_near(num_at(&doc, path), sorted_pct_ms(v, m, ps[k]), HALF_NS_MS);
                m = 0; /* the phase decode_step, warmup included */
                for (i = 0; i <= N; i++)
                    if (!second_phase(split, i))
                        v[m++] = all[i];
                assert_near(num_at(phase_named(&doc, "decode_step"), keys[k]), sorted_pct_ms(v, m, ps[k]), HALF_NS_MS);
                for (i = 0, m = 0; split && i <= N; i++) /* and decode_big */
                    if (second_phase(split, i))
                        v[m++] = all[i];
                if (split)
                    assert_near(num_at(phase_named(&doc, "decode_big"), keys[k]), sorted_pct_ms(v, m, ps[k]),
                                HALF_NS_MS);
            }
            jc_free(&doc);
            order_statistics_match(&c, all, N + 1, v, split, 1);
            ttft_tpot_free(&c);
        }
    }
    free(all);
    free(v);
}

/* A large phase the gather scans and leaves in the store, bounded after 5000 stored samples (the stored
   ones then go into its histogram with the 1000 after them). 6000 values 3,000,000 + (37 i mod 100,003)
   ns, i < 6000, each once. Bounded: n, min and max exact, p50 within the histogram's 1/128
   (ttft_tpot_hist). (The same values read from a trace, with no warmup sample and with one in its
   middle bucket, exact against sorting: test_trace_metrics.c.) */
static void report_large_phase_left_in_store(void **state)
{
    enum { N = 6000 };
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v);
    ttft_tpot_config cfg = {0};
    ttft_tpot_model md;
    ttft_tpot c;
    size_t i;
    int d;
    (void)state;
    for (i = 0; i < N; i++)
        v[i] = 3000000 + 37 * i % 100003;
    v[0] = 3044000; /* the first call, as the trace part left it */
    cfg.percentiles[0] = 99.9;
    cfg.capacity = 5000;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < N; i++) {
        if (i == 5000)
            assert_int_equal(ttft_tpot_phase_bounded(&c, d), TTFT_TPOT_OK);
        assert_int_equal(record(&c, d, v[i], 1), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &md), TTFT_TPOT_OK);
    assert_int_equal(md.phase[0].steady.n, N - 1); /* the first call is warmup */
    qsort(v + 1, N - 1, sizeof *v, cmp_u64);
    assert_int_equal(v[1], 3000008); /* i = 2703: 37 i = 100,011 */
    assert_int_equal(v[N - 1], 3099982); /* i = 5405: 37 i - 100,003 = 99,982 */
    assert_int_equal(md.phase[0].steady.min_ns, v[1]);
    assert_int_equal(md.phase[0].steady.max_ns, v[N - 1]);
    assert_true(fabs(md.phase[0].steady.p50_ns - (double)v[1 + (N - 2) / 2]) <= v[1 + (N - 2) / 2] / 128.0);
    ttft_tpot_model_free(&md);
    ttft_tpot_free(&c);
    free(v);
}

/* MSER-5's p50 after its cut, for a large phase: 300 warmup steps, 20 ms and 3,045,400 ns by turns
   (the latter below the p50 after the cut, about 3,045,970, and in its fine bucket), then 6000 steady
   ones of 3,000,000 + (37 i mod 100,003) ns. Whatever cut MSER-5 makes (its own tests check where), the
   p50 after it is the sorted suffix's, between ranks floor(h) and floor(h) + 1, h = (m - 1) / 2, to the
   nearest ns. */
static void report_large_phase_after_cut(void **state)
{
    enum { W = 300, N = 6300 };
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v), h, want;
    ttft_tpot_config cfg = {0};
    ttft_tpot_model md;
    ttft_tpot c;
    size_t i, m, cut;
    int d;
    (void)state;
    cfg.capacity = N;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < N; i++) {
        v[i] = i < W ? (i % 2 ? 3045400 : 20000000) : 3000000 + 37 * (i - W) % 100003;
        assert_int_equal(record(&c, d, v[i], 1), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &md), TTFT_TPOT_OK);
    cut = (size_t)md.phase[0].steady_state.truncation;
    assert_true(cut >= W); /* every 20 ms step cut (the steady values' sawtooth moves it further) */
    m = N - cut;
    assert_true(m >= 4096); /* the narrowed path */
    qsort(v + cut, m, sizeof *v, cmp_u64);
    h = (uint64_t)(m - 1) * 50;
    want = v[cut + h / 100] + ((v[cut + h / 100 + 1] - v[cut + h / 100]) * (h % 100) + 50) / 100;
    assert_true(md.phase[0].steady_state.has_p50);
    assert_int_equal(md.phase[0].steady_state.p50_exact_ns, want);
    ttft_tpot_model_free(&md);
    ttft_tpot_free(&c);
    free(v);
}

/* One cold request: prefill 500 ms, decode steps 100 (warmup), 10, 20, 30 ms, inside an e2e span. */
static void tpot_excludes_step_zero(void **state)
{
    static const uint64_t t[] = {0, 0, 500 * MS, 500 * MS, 600 * MS, 600 * MS, 610 * MS,
                                 610 * MS, 630 * MS, 630 * MS, 660 * MS, 660 * MS};
    script_clock sc = {t, sizeof t / sizeof t[0], 0};
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    jc_value doc;
    int e2e, pre, dec, i;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    e2e = fixture(&c, &cfg, "generate", TTFT_TPOT_ROLE_E2E);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    {
        TTFT_TPOT_SPAN_BEGIN(g, &c, e2e);
        {
            TTFT_TPOT_SPAN_BEGIN(p, &c, pre);
            TTFT_TPOT_SPAN_END(p);
        }
        for (i = 0; i < 4; i++) {
            TTFT_TPOT_SPAN_BEGIN(d, &c, dec);
            TTFT_TPOT_SPAN_END(d);
        }
        TTFT_TPOT_SPAN_SET_TOKENS(g, 5);
        TTFT_TPOT_SPAN_END(g);
    }
    assert_int_equal(sc.next, sc.n);
    json_of(&c, &doc);
    assert_ms(&doc, "ttft.first_ms", 500);
    assert_true(is_null_at(&doc, "ttft.steady"));
    assert_ms(&doc, "tpot.n", 3);
    assert_ms(&doc, "tpot.excluded_warmup", 1);
    assert_ms(&doc, "tpot.p50_ms", 20);
    assert_ms(&doc, "tpot.p90_ms", 28);   /* h = 1.8: 20 + 0.8 * 10 */
    assert_ms(&doc, "tpot.p99_ms", 29.8); /* h = 1.98 */
    assert_ms(&doc, "tpot.mean_ms", 20);
    assert_ms(&doc, "tpot.min_ms", 10);
    assert_ms(&doc, "tpot.max_ms", 30);
    assert_ms(&doc, "output_throughput_tok_s", 50); /* 3 tokens / 0.060 s */
    assert_ms(&doc, "e2e.tokens", 5);
    assert_ms(&doc, "e2e.wall_ms", 660);
    assert_near(num_at(&doc, "e2e.tok_s"), 5 / 0.66, 1e-9);
    /* per-phase rows keep the warmup step; phases come in order of first use (first recorded) */
    assert_string_equal(jc_get(&doc, "phases.0.name")->str, "prefill");
    assert_string_equal(jc_get(&doc, "phases.1.name")->str, "decode");
    assert_string_equal(jc_get(&doc, "phases.2.name")->str, "generate"); /* registered first, ended last */
    assert_ms(&doc, "phases.1.n", 4);
    assert_ms(&doc, "phases.1.warmup_n", 1);
    assert_ms(&doc, "phases.1.max_ms", 100);
    assert_ms(&doc, "phases.1.mean_ms", 40);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void batched_tokens_raise_throughput_not_tpot(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int dec;
    (void)state;
    dec = fixture(&c, NULL, "step", TTFT_TPOT_ROLE_DECODE);
    record(&c, dec, 100 * MS, 8);
    record(&c, dec, 40 * MS, 8);
    record(&c, dec, 40 * MS, 8);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.p50_ms", 40);
    assert_ms(&doc, "output_throughput_tok_s", 200); /* 16 tokens / 0.080 s */
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* TPOT is the time per output token: a step's duration x sequences / tokens. The acceptance length
   is tokens a sequence a step; the throughput and the phase's row stay step times. */
static void multi_token_steps_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    ttft_tpot_model m;
    jc_value doc;
    char *text;
    int dec;
    (void)state;
    dec = multi_steps_of_sequences(&c, &cfg);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    /* TPOT: 40000 x 2 / 6 = 13333.3 -> 13333, 30000, 36000 x 2 / 8 = 9000, 35000 x 2 / 4 = 17500.
       Sorted 9000 13333 17500 30000: p50 (13333 + 17500) / 2 = 15416.5, mean 69833 / 4 = 17458.25,
       p90 at rank 2.7: 17500 + 0.7 x 12500 = 26250 */
    assert_int_equal(m.head.tpot.n, 4);
    assert_near(m.head.tpot.p50_ns, 15416.5, 1e-9);
    assert_near(m.head.tpot.mean_ns, 17458.25, 1e-9);
    assert_near(m.head.tpot.p90_ns, 26250, 1e-9);
    assert_int_equal(m.head.tpot.min_ns, 9000);
    assert_int_equal(m.head.tpot_excluded, 1);
    /* throughput: 20 tokens / 141 us of steps */
    assert_near(m.head.output_tok_s, 20 / 141e-6, 1e-6);
    /* acceptance: 3, 1, 4, 2 tokens a sequence; mean 20 tokens / 8 sequences = 2.5; p50 2.5, p90 3.7 */
    assert_int_equal(m.head.tpot_multi, 3);
    assert_true(m.head.has_acceptance);
    assert_near(m.head.acceptance_mean, 2.5, 1e-12);
    assert_near(m.head.acceptance_p50, 2.5, 1e-12);
    assert_near(m.head.acceptance_p90, 3.7, 1e-12);
    /* the phase's row: its steps' times, 30 35 36 40 us: p50 35.5 us */
    assert_near(m.phase[dec].steady.p50_ns, 35500, 1e-9);
    /* the run (steps 1-4): its TPOT p50 is the headline's */
    assert_int_equal(m.runs.n, 1);
    assert_near(m.runs.fig[TTFT_TPOT_RUN_TPOT].v[0], 15416.5, 1e-9);
    ttft_tpot_model_free(&m);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.p50_ms", 0.015417); /* the JSON's ms are rounded to the ns */
    assert_near(num_at(&doc, "acceptance_length.mean"), 2.5, 1e-12);
    assert_near(num_at(&doc, "acceptance_length.p50"), 2.5, 1e-12);
    assert_near(num_at(&doc, "acceptance_length.p90"), 3.7, 1e-12);
    assert_ms(&doc, "acceptance_length.steps", 3);
    assert_ms(&doc, "sequences_lost", 0);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "\nAcceptance length     : 2.50 tokens a sequence a step (mean; p50 2.50, p90 3.70): 3 of "
                                 "the steady steps emitted more than one, TPOT takes their time per output token\n"));
    free(text);
    /* the tools' sorted values of these steps, and their trace: test_trace_metrics.c */
    ttft_tpot_free(&c);
}

/* One token a sequence (sequences equal to tokens, or unset) changes nothing: no acceptance length. */
static void one_token_a_sequence_is_the_default(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg;
    script_clock none = {NULL, 0, 0}; /* never read: a measured clock's cost differs between two */
    jc_value doc;
    int da, db, k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.clock = script_now;
    cfg.clock_user = &none;
    db = fixture(&b, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    cfg.sequences = 1;
    da = fixture(&a, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    for (k = 0; k < 4; k++) {
        assert_int_equal(multi_step(&a, da, 1000 * (uint64_t)(k + 1), 4, k % 2 ? 4 : 0), TTFT_TPOT_OK);
        assert_int_equal(record(&b, db, 1000 * (uint64_t)(k + 1), 4), TTFT_TPOT_OK);
    }
    same_reports(&a, &b);
    json_of(&a, &doc);
    assert_true(is_null_at(&doc, "acceptance_length"));
    jc_free(&doc);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

/* Without config.sequences the steps are kept with their tokens, their TPOT their step time, and
   counted; so are such steps in a histogram. Sequences on a phase that is not decode-role, or above
   the step's tokens, are refused. */
static void multi_token_steps_without_room_are_counted(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    jc_value doc;
    char *text;
    int dec, k;
    (void)state;
    dec = fixture(&c, NULL, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(&c, dec);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.p50_ms", 0.0355); /* the steps' times */
    assert_true(is_null_at(&doc, "acceptance_length"));
    assert_ms(&doc, "sequences_lost", 3);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 3 decode steps of several tokens a sequence kept without their sequences "
                                 "(config.sequences is off): TPOT takes their step time, not their time per output token\n"));
    free(text);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(multi_step(&c, k, 5, 4, 2), TTFT_TPOT_EROLE);
    assert_int_equal(multi_step(&c, dec, 5, 4, 5), TTFT_TPOT_ERANGE);
    assert_int_equal(counts(&c).rejected, 2);
    assert_int_equal(counts(&c).samples, 5);
    memset(&cfg, 0, sizeof cfg);
    cfg.sequences = 1; /* its trace into such a collector keeps the count: test_trace_metrics.c */
    ttft_tpot_free(&c);
    cfg.bounded = 1;
    dec = fixture(&c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(&c, dec);
    assert_int_equal(counts(&c).sequences_in_histogram, 3);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 3 decode steps of several tokens a sequence went on in a histogram"));
    free(text);
    ttft_tpot_free(&c);
}

/* Merged collectors keep their steps' sequences (a bad # sequences: line of a trace read into the
   whole: test_trace_metrics.c). */
static void multi_token_steps_merge_and_trace(void **state)
{
    ttft_tpot a, b, whole;
    ttft_tpot_config cfg;
    ttft_tpot_model m;
    (void)state;
    merged_multi_steps(&a, &b, &whole, &cfg);
    assert_int_equal(ttft_tpot_model_compute(&whole, NULL, &m), TTFT_TPOT_OK);
    /* a's four steady steps, b's five (its first is not the whole's first call) */
    assert_int_equal(m.head.tpot.n, 9);
    assert_int_equal(m.head.tpot_multi, 6);
    assert_int_equal(m.head.tpot.max_ns, 100000); /* b's first step: one token a sequence, 100000 x 2 / 2 */
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
    ttft_tpot_free(&whole);
}

static void steady_ttft_after_a_warm_request(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int pre;
    (void)state;
    pre = fixture(&c, NULL, "prefill", TTFT_TPOT_ROLE_PREFILL);
    record(&c, pre, 900 * MS, 1);
    record(&c, pre, 30 * MS, 1);
    record(&c, pre, 32 * MS, 1);
    record(&c, pre, 31 * MS, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "ttft.first_ms", 900);
    assert_ms(&doc, "ttft.steady.n", 3);
    assert_ms(&doc, "ttft.steady.p50_ms", 31);
    assert_ms(&doc, "ttft.steady.p90_ms", 31.8);  /* 30 31 32, h = 1.8 */
    assert_ms(&doc, "ttft.steady.p99_ms", 31.98); /* h = 1.98 */
    assert_ms(&doc, "ttft.steady.mean_ms", 31);
    assert_true(is_null_at(&doc, "tpot"));
    assert_true(is_null_at(&doc, "output_throughput_tok_s"));
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void warmup_first_call_of_each_phase(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int a, b;
    (void)state;
    a = fixture(&c, NULL, "a", TTFT_TPOT_ROLE_DECODE);
    b = ttft_tpot_phase(&c, "b", TTFT_TPOT_ROLE_KERNEL);
    record(&c, a, 1 * MS, 1);
    record(&c, a, 2 * MS, 1);
    record(&c, b, 3 * MS, 0);
    record(&c, a, 4 * MS, 1);
    record(&c, b, 5 * MS, 0);
    assert_int_equal(sample(&c, 0).warmup, 1);
    assert_int_equal(sample(&c, 1).warmup, 0);
    assert_int_equal(sample(&c, 2).warmup, 1);
    assert_int_equal(sample(&c, 3).warmup, 0);
    assert_int_equal(sample(&c, 4).warmup, 0);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 2);
    assert_ms(&doc, "tpot.excluded_warmup", 1);
    assert_ms(&doc, "tpot.mean_ms", 3);
    assert_ms(&doc, "phases.0.warmup_n", 1);
    assert_ms(&doc, "phases.1.warmup_n", 1);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void warmup_sections_flag_everything_inside(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int a;
    (void)state;
    a = fixture(&c, NULL, "a", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_warmup_begin(&c), TTFT_TPOT_OK);
    record(&c, a, 1 * MS, 1);
    record(&c, a, 1 * MS, 1);
    assert_int_equal(ttft_tpot_warmup_begin(&c), TTFT_TPOT_OK); /* nested */
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_OK);
    record(&c, a, 1 * MS, 1); /* still inside the outer section */
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_OK);
    record(&c, a, 7 * MS, 1);
    record(&c, a, 9 * MS, 1);
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_ESTATE); /* no section open */
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 2);
    assert_ms(&doc, "tpot.excluded_warmup", 3);
    assert_ms(&doc, "tpot.mean_ms", 8);
    assert_ms(&doc, "rejected", 1);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void sums_do_not_overflow(void **state)
{
    ttft_tpot c;
    ttft_tpot_stats st;
    ttft_tpot_summary s;
    int k, d;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    d = ttft_tpot_phase(&c, "d", TTFT_TPOT_ROLE_DECODE);
    record(&c, k, UINT64_MAX, 0);
    record(&c, k, UINT64_MAX, 0);
    assert_int_equal(phase_stats(&c, k, &st), TTFT_TPOT_OK);
    assert_near(st.total_ns, 2.0 * 18446744073709551615.0, 0);
    assert_near(st.mean_ns, 18446744073709551615.0, 0);
    assert_int_equal(st.max_ns, UINT64_MAX);
    /* tokens past 2^32: 3 steady steps of 2^32-1 tokens, 1 s each */
    record(&c, d, 1000 * MS, UINT32_MAX);
    record(&c, d, 1000 * MS, UINT32_MAX);
    record(&c, d, 1000 * MS, UINT32_MAX);
    record(&c, d, 1000 * MS, UINT32_MAX);
    s = headline(&c);
    assert_int_equal(s.tpot.tokens, 3ull * UINT32_MAX);
    assert_near(s.output_tok_s, 4294967295.0, 1e-3);
    ttft_tpot_free(&c);
}

static void empty_collector_reports_nulls(void **state)
{
    ttft_tpot c;
    jc_value doc;
    const jc_value *phases;
    char *text;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "ttft.first_ms"));
    assert_true(is_null_at(&doc, "ttft.steady"));
    assert_true(is_null_at(&doc, "tpot"));
    assert_true(is_null_at(&doc, "output_throughput_tok_s"));
    assert_true(is_null_at(&doc, "e2e"));
    assert_ms(&doc, "dropped", 0);
    phases = jc_get(&doc, "phases");
    assert_non_null(phases);
    assert_int_equal(phases->type, JC_ARR);
    assert_int_equal(phases->n, 0);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    /* rows without data are left out (JSON keeps its keys, null), and the report says there is nothing */
    assert_null(strstr(text, "TTFT (first request)"));
    assert_null(strstr(text, "TTFT (steady, p50)"));
    assert_null(strstr(text, "TPOT (steady, p50/p99)"));
    assert_null(strstr(text, "Output throughput"));
    assert_non_null(strstr(text, "Nothing to report: no prefill, decode or e2e sample, and no request\n"));
    free(text);
    /* a phase with no sample: a row of nulls */
    ttft_tpot_phase(&c, "idle", TTFT_TPOT_ROLE_KERNEL);
    json_of(&c, &doc);
    assert_ms(&doc, "phases.0.n", 0);
    assert_true(is_null_at(&doc, "phases.0.p50_ms"));
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* The kernel phase the text report names as the prefill kernel, + 1 (0: none): a report's option. */
static int prefill_kernel;

/* The text report with that option (ttft_tpot_model_options.prefill_kernel), as capture() takes it. */
static int report_with_prefill_kernel(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    int rc;
    o.prefill_kernel = prefill_kernel;
    rc = ttft_tpot_model_compute(c, &o, &m);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_TEXT);
    ttft_tpot_model_free(&m);
    return rc;
}

static void text_report_lines(void **state)
{
    ttft_tpot c;
    char *text;
    int pre, dec, k, e2e, i;
    (void)state;
    pre = fixture(&c, NULL, "prefill", TTFT_TPOT_ROLE_PREFILL);
    k = ttft_tpot_phase(&c, "prefill_fwd", TTFT_TPOT_ROLE_KERNEL);
    dec = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    e2e = ttft_tpot_phase(&c, "generate", TTFT_TPOT_ROLE_E2E);
    prefill_kernel = k + 1; /* the link: the report's option (capture() checks the report takes it) */
    record(&c, k, 1920 * MS, 0);
    record(&c, pre, 7990 * MS, 1);
    for (i = 0; i < 5; i++) /* 60 (warmup), 50, 51, 52, 53 ms */
        record(&c, dec, (uint64_t)(i ? 49 + i : 60) * MS, 1);
    record(&c, e2e, 10000 * MS, 6);
    text = capture(&c, report_with_prefill_kernel);
    assert_non_null(strstr(text, "TTFT (first request)  : 7.99 s      (incl. one-time warmup)"));
    assert_non_null(strstr(text, "prefill kernel alone: 1.92 s"));
    /* 50 51 52 53: p50 h = 1.5 -> 51.5; p99 h = 2.97 -> 52.97 */
    /* 4 steady steps: too few for any 95% interval (p50 needs 6, p99 368) */
    assert_non_null(strstr(text, "TPOT (steady, p50/p99): 51.50 [CI needs n>=6] / 52.97 [CI needs n>=368] ms/token  "
                                 "(n=4, excl. 1 warmup step"));
    assert_non_null(strstr(text, "Output throughput     : 19.4 tok/s")); /* 4 / 0.206 s */
    assert_non_null(strstr(text, "e2e                   : 0.60 tok/s  (6 tokens / 10.00 s; incl. prefill and "
                                 "warmup, not a serving throughput)"));
    assert_non_null(strstr(text, "p99 of fewer than 100 samples"));
    free(text);
    ttft_tpot_free(&c);
}

/* 95% intervals of percentiles, by hand. B ~ Binomial(n, p); lo is the largest rank with
   P(B < lo) <= 0.025, hi the smallest with P(B >= hi) <= 0.025.
   n = 6, p50: P(B < 1) = 1/64 = 0.016, P(B < 2) = 7/64 = 0.109: lo = 1; by symmetry hi = 6.
   n = 10, p50: P(B <= 1) = 11/1024 = 0.011, P(B <= 2) = 56/1024 = 0.055: lo = 2, hi = 9.
   n = 5, p50: P(B < 1) = 1/32 = 0.031 > 0.025: none (p50 needs n >= 6).
   n = 36, p90: P(B >= 36) = 0.9^36 = 0.0225 <= 0.025 and 0.9^35 = 0.025 (0.02503) is not: hi = 36;
   n = 35 has no hi: p90 needs n >= 36. p99: 0.99^368 = 0.0247 and 0.99^367 = 0.0250 (0.02501): needs
   n >= 368. */
static void percentile_intervals_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    uint64_t lo, hi;
    int d, i;
    char *text;
    (void)state;
    assert_true(ttft_tpot_ci95_ranks(6, 50, &lo, &hi) && lo == 1 && hi == 6);
    assert_true(ttft_tpot_ci95_ranks(10, 50, &lo, &hi) && lo == 2 && hi == 9);
    assert_false(ttft_tpot_ci95_ranks(5, 50, &lo, &hi));
    assert_true(ttft_tpot_ci95_ranks(36, 90, &lo, &hi) && hi == 36);
    assert_false(ttft_tpot_ci95_ranks(35, 90, &lo, &hi));
    assert_false(ttft_tpot_ci95_ranks(0, 50, &lo, &hi));
    assert_false(ttft_tpot_ci95_ranks(10, 0, &lo, &hi));
    assert_false(ttft_tpot_ci95_ranks(10, 100, &lo, &hi));
    /* the fewest values each needs (the tools' ttft_tpot_ci95_min_n): test_trace_metrics.c */
    /* a cold step, then steady steps of 10, 9, ..., 1 ms: p50 5.5 ms [x(2), x(9)] = [2, 9] ms */
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(record(&c, d, 500 * MS, 1), TTFT_TPOT_OK);
    for (i = 10; i >= 1; i--)
        assert_int_equal(record(&c, d, (uint64_t)i * MS, 1), TTFT_TPOT_OK);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.p50_ms", 5.5);
    assert_ms(&doc, "tpot.ci95.p50.0", 2);
    assert_ms(&doc, "tpot.ci95.p50.1", 9);
    assert_true(is_null_at(&doc, "tpot.ci95.p90"));
    assert_true(is_null_at(&doc, "tpot.ci95.p99"));
    /* the phase, warmup included: 11 values 1..10 and 500; n = 11, p50: P(B <= 1) = 12/2048 = 0.006,
       P(B <= 2) = 67/2048 = 0.033: lo = 2, hi = 10: [x(2), x(10)] = [2, 10] ms */
    assert_ms(phase_named(&doc, "decode_step"), "ci95.p50.0", 2);
    assert_ms(phase_named(&doc, "decode_step"), "ci95.p50.1", 10);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TPOT (steady, p50/p99): 5.50 [2.00, 9.00] / 9.91 [CI needs n>=368] ms/token"));
    free(text);
    ttft_tpot_free(&c);
}

/* The intervals' ranks against scipy.stats.binom (Debian's python3-scipy), over sizes that cross
   every boundary; skipped with a message where it is not installed. */
static void percentile_intervals_match_scipy(void **state)
{
    static const unsigned ps[3] = {50, 90, 99};
    static const uint64_t ns[] = {5, 6, 7, 35, 36, 37, 100, 367, 368, 369, 1000, 4097, 123457};
    FILE *f;
    unsigned k, i;
    (void)state;
    if (shell("/usr/bin/python3 -c 'import scipy.stats' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with scipy (Debian: apt-get install python3-scipy): SKIPPED\n");
        skip();
    }
    f = fopen("ci95_mine.txt", "w");
    assert_non_null(f);
    for (i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (k = 0; k < 3; k++) {
            uint64_t lo = 0, hi = 0;
            int ok = ttft_tpot_ci95_ranks(ns[i], ps[k], &lo, &hi);
            fprintf(f, "%llu %u %llu %llu\n", (unsigned long long)ns[i], ps[k], ok ? (unsigned long long)lo : 0ull,
                    ok ? (unsigned long long)hi : 0ull);
        }
    fclose(f);
    assert_int_equal(shell("/usr/bin/python3 -c '\n"
                           "import numpy\n"
                           "from scipy.stats import binom\n"
                           "for line in open(\"ci95_mine.txt\"):\n"
                           "    n, p, lo, hi = map(int, line.split())\n"
                           "    q = p / 100\n"
                           "    j = numpy.arange(1, n + 1)\n"
                           "    los = j[binom.cdf(j - 1, n, q) <= 0.025]\n"
                           "    his = j[binom.sf(j - 1, n, q) <= 0.025]\n"
                           "    want = (los[-1], his[0]) if len(los) and len(his) else (0, 0)\n"
                           "    assert (lo, hi) == want, (n, p, lo, hi, want)\n"
                           "' >ci95_scipy.out 2>&1"),
                     0);
}

/* The t quantile of the runs' intervals against scipy.stats.t.ppf(0.975, df): the table to df 30 and
   the expansion past it, within 3e-8; by hand t(0.975, 1) = 12.7062 and df 0 has none. */
static void t975_matches_scipy(void **state)
{
    FILE *f;
    uint64_t df;
    (void)state;
    assert_near(ttft_tpot_t975(1), 12.7062047364, 1e-9);
    assert_near(ttft_tpot_t975(0), 0, 0);
    assert_true(ttft_tpot_t975(UINT64_MAX) > 1.95996 && ttft_tpot_t975(UINT64_MAX) < 1.95997);
    if (shell("/usr/bin/python3 -c 'import scipy.stats' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with scipy (Debian: apt-get install python3-scipy): SKIPPED\n");
        skip();
    }
    f = fopen("t975_mine.txt", "w");
    assert_non_null(f);
    for (df = 1; df <= 5000; df += df < 100 ? 1 : 37)
        fprintf(f, "%llu %.17g\n", (unsigned long long)df, ttft_tpot_t975(df));
    fclose(f);
    assert_int_equal(shell("/usr/bin/python3 -c '\n"
                           "from scipy.stats import t\n"
                           "for line in open(\"t975_mine.txt\"):\n"
                           "    df, v = line.split()\n"
                           "    want = t.ppf(0.975, int(df))\n"
                           "    assert abs(float(v) - want) < 3e-8, (df, v, want)\n"
                           "' >t975_scipy.out 2>&1"),
                     0);
}

/* Past n p (1 - p) = 1e8 the ranks come from the Cornish-Fisher expansion, in O(1) (the exact walk
   takes O(sqrt(n)): minutes at n = 2^64 - 1). Where both run, they give the same ranks; for larger n,
   Bin(n, 1/2) is symmetric, so lo + hi = n + 1 exactly, and the ranks lie about 1.96 sd either side
   of n p. */
static void percentile_intervals_at_any_n(void **state)
{
    static const unsigned ps[3] = {50, 90, 99};
    static const uint64_t var[8] = {100000001, 123456789, 200000003, 314159265, 400000000, 555555557, 777777777,
                                    999999999};
    static const uint64_t huge[5] = {1000000000000000ull, 9007199254740993ull, 9223372036854775808ull,
                                     18446744073709551614ull, 18446744073709551615ull};
    uint64_t lo, hi, lo2, hi2;
    unsigned i, k;
    (void)state;
    for (k = 0; k < 3; k++)
        for (i = 0; i < 8; i++) { /* n p (1 - p) = var[i] */
            uint64_t n = var[i] * 10000 / (ps[k] * (100 - ps[k]));
            assert_true(ttft_tpot__ci95_walk(n, ps[k], &lo, &hi));
            ttft_tpot__ci95_far(n, ps[k], &lo2, &hi2);
            if (lo != lo2 || hi != hi2)
                fail_msg("n %llu p%u: walk [%llu, %llu], expansion [%llu, %llu]", (unsigned long long)n, ps[k],
                         (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)lo2,
                         (unsigned long long)hi2);
        }
    for (i = 0; i < 5; i++) {
        assert_true(ttft_tpot_ci95_ranks(huge[i], 50, &lo, &hi));
        assert_true(lo + hi == huge[i] + 1); /* no wrap: hi < n */
        for (k = 0; k < 3; k++) {
            double q = ps[k] / 100.0, sd = sqrt((double)huge[i] * q * (1 - q)), mid = (double)huge[i] * q;
            assert_true(ttft_tpot_ci95_ranks(huge[i], ps[k], &lo, &hi));
            assert_true(lo < hi && hi <= huge[i]);
            assert_near(((double)hi - mid) / sd, 1.96, 0.01);
            assert_near((mid - (double)lo) / sd, 1.96, 0.01);
        }
    }
}

/* MSER-5's first-half cut, and *drift: whether White's rule fires. */
static uint64_t mser5(const double *sum, uint64_t m, int *drift)
{
    uint64_t white, at = ttft_tpot__mser5_cuts(sum, m, &white);
    *drift = white != 0;
    return at;
}

/* MSER-5 by hand. A decode phase of 25 steps in batches of 5: 100, 50, 10, 12, 8 ms (the first step
   is its first call, flagged). Batch means Z = 100, 50, 10, 12, 8; for d = 0..2:
   d = 0: mean 36, squared deviations 4096 + 196 + 676 + 576 + 784 = 6328, / 5^2 = 253.1;
   d = 1: mean 20, 900 + 100 + 64 + 144 = 1208, / 4^2 = 75.5;
   d = 2: mean 10, 0 + 4 + 4 = 8, / 3^2 = 0.89: d* = 2, a cut of 10 steps, 9 past the flagged one.
   p50 of the 24 steady steps (8 x5, 10 x5, 12 x5, 50 x5, 100 x4): h = 11.5, 12 ms; after the cut
   (8 x5, 10 x5, 12 x5): h = 7, 10 ms. */
static void steady_state_measured(void **state)
{
    static const uint64_t batch[5] = {100, 50, 10, 12, 8};
    ttft_tpot c;
    jc_value doc;
    char *text;
    int d, i, drift;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 25; i++)
        assert_int_equal(record(&c, d, batch[i / 5] * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(mser5((const double[]){500, 250, 50, 60, 40}, 5, &drift), 2);
    assert_false(drift); /* 5 batches: cuts that leave 2 or more, the best d = 2, under half of 5 */
    assert_int_equal(mser5((const double[]){5, 5, 5}, 3, &drift), 0); /* ties: the smallest d */
    assert_int_equal(mser5(NULL, 0, &drift), 0);
    assert_false(drift);
    json_of(&c, &doc);
    assert_ms(phase_named(&doc, "decode_step"), "steady_state.flagged", 1);
    assert_ms(phase_named(&doc, "decode_step"), "steady_state.mser5_truncation", 10);
    assert_ms(phase_named(&doc, "decode_step"), "steady_state.p50_ms_after_truncation", 10);
    assert_ms(&doc, "tpot.p50_ms", 12); /* detection reports; the flags decide */
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: MSER-5 puts the end of warmup at step 10, 9 steps after the flagged "
                                 "one; TPOT p50 12.00 ms with them, 10.00 ms without"));
    free(text);
    ttft_tpot_free(&c);
}

/* No steady state (White's rule). 60 steps rising 1 ms a step, batch means Z_j = 3 + 5 (j - 1) ms: a
   tail of k equally spaced means has MSER = 25 (k^2 - 1) / (12 k), smallest at the fewest batches
   allowed, 5 (d = 7 > 12 / 2): no steady state. (With 100 requests whose TTFTs rise the same way, the
   requests' steady state: test_trace_metrics.c.) */
static void no_steady_state_when_it_keeps_rising(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 1; i <= 60; i++)
        record(&c, d, (uint64_t)i * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: no steady state: MSER-5's best cut falls in the second half of its "
                                 "steps (White's rule): they keep rising or falling\n"));
    assert_null(strstr(text, "puts the end of warmup"));
    free(text);
    json_of(&c, &doc);
    assert_true(jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->type == JC_BOOL &&
                jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->num == 1);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* A short series that rises from its first step to its last (40 steps, 8 batches: no cut leaves 5
   batches past half of them) has no steady state either: the best cut over those that leave 4 batches
   (half) is 4 batches, half of them, and the halves' p50 intervals are disjoint. Before, it read as a
   warmup of 20 steps. */
static void no_steady_state_in_a_short_rise(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 1; i <= 40; i++)
        record(&c, d, (uint64_t)i * MS, 1);
    json_of(&c, &doc);
    assert_true(jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->num == 1);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* The same at every magnitude: 60 steps rising 1e17 ns a step from 3.7e18 ns, whose batches of 5
   sum past 2^64 ns (MSER-5 read them all as one saturated sum before: steady). Z_j rises 5e17 a batch,
   as the 1 ms steps' 5 ms: no steady state; and the series of the same values (a layer's figures). */
static void no_steady_state_at_any_magnitude(void **state)
{
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    ttft_tpot_stats st;
    ttft_tpot_series s;
    uint64_t v[60];
    jc_value doc;
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 60; i++)
        record(&c, d, v[i] = 3700000000000000000ull + (uint64_t)(i + 1) * 100000000000000000ull, 1);
    json_of(&c, &doc);
    assert_true(jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->num == 1);
    jc_free(&doc);
    memset(&s, 0, sizeof s);
    s.set = -1, s.values = v, s.n = 60;
    assert_int_equal(ttft_tpot_series_stats(&c, &s, &st, &ss), TTFT_TPOT_OK);
    assert_true(ss.white_cut > 30);
    ttft_tpot_free(&c);
}

/* The steady state of phase 0 of c. */
static ttft_tpot_steady_state steady_state_of(const ttft_tpot *c)
{
    ttft_tpot_model md;
    ttft_tpot_steady_state ss;
    assert_int_equal(ttft_tpot_model_compute(c, NULL, &md), TTFT_TPOT_OK);
    ss = md.phase[0].steady_state;
    ttft_tpot_model_free(&md);
    return ss;
}

/* One 9 ms step at 170 of 200 steady ones (spiky_steps). Batches of 5: m = 40, batch j starts at a step
   of residue 2j mod 3, so its sum is 15.04, 15.05 or 15.06 ms (j mod 3 = 0, 1, 2); batch 34 (steps 170
   to 174) holds the spike: 15.05 - 3.02 + 9 = 21.03 ms. In the first half the spike's term (about
   36 (k - 1) / k^3) falls as the tail grows: d* = 0, no cut. The steady p50 (steps 1 to 199: 66 x 3.00,
   67 x 3.01, 65 x 3.02, 9 ms; h = 99) is 3.01 ms; 9 ms is above 6.02, its neighbours are not: one
   isolated spike, 9 / 3.01 = 2.99x. With it, White's rule would cut 175 (every tail of 5 batches or more
   keeps batch 34 but d = 35); it is asked with the spike replaced by 3.01 (batch 34: 15.04): every tail
   then has about the same spread, smallest over the most batches, d = 0: it does not fire. */
static void a_spike_is_not_a_drift(void **state)
{
    static const int at[1] = {170};
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    jc_value doc;
    const jc_value *ph;
    char *text;
    int d;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    spiky_steps(&c, d, at, 1);
    ss = steady_state_of(&c);
    assert_false(ss.drift);
    assert_int_equal(ss.white_cut, 0);
    assert_int_equal(ss.truncation, 0);
    assert_int_equal(ss.spikes, 1);
    assert_int_equal(ss.spike_step[0], 170);
    assert_int_equal(ss.spike_ns[0], 9 * MS);
    json_of(&c, &doc);
    ph = phase_named(&doc, "decode_step");
    assert_true(is_bool_at(ph, "steady_state.no_steady_state", 0));
    assert_ms(ph, "steady_state.mser5_truncation", 0);
    assert_ms(ph, "steady_state.spikes", 1);
    assert_ms(ph, "steady_state.spike.0.step", 170);
    assert_ms(ph, "steady_state.spike.0.ms", 9);
    assert_null(jc_get(ph, "steady_state.spike.1"));
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: 1 isolated spike: step 170 at 9.00 ms (3.0x the steady p50)\n"));
    assert_null(strstr(text, "no steady state"));
    assert_null(strstr(text, "puts the end of warmup"));
    free(text);
    /* its trace keeps the report: test_trace_metrics.c */
    ttft_tpot_free(&c);
}

/* The spike anywhere from step 100 to 199 (a_spike_is_not_a_drift). With it in, White's rule would
   cut after its batch up to step 174 (the tails after it are clean); replaced by 3.01 ms it moves one
   batch sum by 0.01 ms at most, and the best cut stays d = 0: White's rule does not fire, no cut in the
   first half, and the one spike named, the last step's too (it has one neighbour). */
static void a_late_spike_anywhere_is_not_a_drift(void **state)
{
    int s;
    (void)state;
    for (s = 100; s < 200; s++) {
        ttft_tpot c;
        ttft_tpot_steady_state ss;
        int d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
        spiky_steps(&c, d, &s, 1);
        ss = steady_state_of(&c);
        if (ss.drift || ss.truncation || ss.spikes != 1 || ss.spike_step[0] != (uint64_t)s)
            fail_msg("spike at %d: drift %d, cut %llu, %llu spikes", s, ss.drift, (unsigned long long)ss.truncation,
                     (unsigned long long)ss.spikes);
        assert_int_equal(ss.white_cut, 0);
        ttft_tpot_free(&c);
    }
}

/* Two 9 ms steps in a row, 170 and 171. Each has a neighbour above twice the p50: not isolated, no
   spike named, none taken out: White's rule cuts 175 as with one spike in (a_spike_is_not_a_drift),
   and its cut is checked. Before it 58 x 3.00, 58 x 3.01, 56 x 3.02 and two 9 ms: p50 3.01 (h = 86.5),
   interval ranks 75 and 100, [3.01, 3.01]; from it 8 x 3.00, 9 x 3.01, 8 x 3.02: interval ranks 8 and
   18, [3.00, 3.02]. The intervals meet: steady. */
static void a_two_step_spike_is_not_isolated(void **state)
{
    static const int at[2] = {170, 171};
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    jc_value doc;
    char *text;
    int d;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    spiky_steps(&c, d, at, 2);
    ss = steady_state_of(&c);
    assert_false(ss.drift);
    assert_int_equal(ss.white_cut, 175);
    assert_int_equal(ss.spikes, 0);
    json_of(&c, &doc);
    assert_true(is_bool_at(phase_named(&doc, "decode_step"), "steady_state.no_steady_state", 0));
    assert_ms(phase_named(&doc, "decode_step"), "steady_state.spikes", 0);
    assert_int_equal(jc_get(phase_named(&doc, "decode_step"), "steady_state.spike")->n, 0);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "spike"));
    assert_null(strstr(text, "no steady state"));
    free(text);
    ttft_tpot_free(&c);
}

/* Two isolated spikes, 120 and 170 (steps 1 to 199: 65 x 3.00, 67 x 3.01, 65 x 3.02, two 9 ms: the
   steady p50 is 3.01 ms): steady, both named. 19 spikes, every tenth step from 10 to 190 (the other 180
   steady steps are 60 each of 3.00, 3.01, 3.02: p50 3.01): all taken out, steady, counted exactly, the
   first 8 listed in the JSON and 3 in the text. Ten steps of 0 ns but one of 5: the p50 is 0, and the
   text gives no ratio. */
static void spikes_are_named_and_counted(void **state)
{
    static const int two[2] = {120, 170};
    int many[19], d, i;
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    jc_value doc;
    const jc_value *ph;
    char *text;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    spiky_steps(&c, d, two, 2);
    ss = steady_state_of(&c);
    assert_false(ss.drift);
    assert_int_equal(ss.spikes, 2);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: 2 isolated spikes: step 120 at 9.00 ms (3.0x the steady p50), step "
                                 "170 at 9.00 ms (3.0x)\n"));
    free(text);
    ttft_tpot_free(&c);
    for (i = 0; i < 19; i++)
        many[i] = 10 * (i + 1);
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    spiky_steps(&c, d, many, 19);
    ss = steady_state_of(&c);
    assert_false(ss.drift);
    assert_int_equal(ss.spikes, 19);
    assert_int_equal(ss.spike_step[7], 80);
    json_of(&c, &doc);
    ph = phase_named(&doc, "decode_step");
    assert_ms(ph, "steady_state.spikes", 19);
    assert_int_equal(jc_get(ph, "steady_state.spike")->n, 8);
    assert_ms(ph, "steady_state.spike.7.step", 80);
    assert_ms(ph, "steady_state.spike.7.ms", 9);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: 19 isolated spikes: step 10 at 9.00 ms (3.0x the steady p50), step "
                                 "20 at 9.00 ms (3.0x), step 30 at 9.00 ms (3.0x), and 16 more\n"));
    free(text);
    ttft_tpot_free(&c);
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE); /* a p50 of 0: any step above it */
    for (i = 0; i < 10; i++)
        record(&c, d, i == 5 ? 5 : 0, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: 1 isolated spike: step 5 at 5 ns (the steady p50 is 0)\n"));
    free(text);
    ttft_tpot_free(&c);
}

/* A level that moves late is no steady state: the steady series (spiky_steps, no spike) 0.30 ms slower
   from step 170 on. The tails from batch 34 (d = 34, 35) are clean: White's rule cuts 170 or 175 steps.
   Before: 3.00 to 3.02 ms, p50 3.01 with interval [3.01, 3.01]; after: 3.30 to 3.32, p50 and interval
   inside [3.30, 3.32]: apart. The flagged first ten steps at 20 ms move nothing: White's cut and the
   intervals are the same. */
static void a_late_shift_is_no_steady_state(void **state)
{
    ttft_tpot c;
    char *text;
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 200; i++)
        record(&c, d, 3 * MS + (uint64_t)(i % 3) * 10000 + (i >= 170 ? 300000 : 0), 1);
    assert_true(steady_state_of(&c).drift);
    assert_true(steady_state_of(&c).white_cut == 170 || steady_state_of(&c).white_cut == 175);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: no steady state: MSER-5's best cut falls in the second half of its "
                                 "steps (White's rule): they keep rising or falling\n"));
    free(text);
    ttft_tpot_free(&c);
}

/* Too few steady values before White's cut for an interval (fewer than 6). The rising series of
   no_steady_state_when_it_keeps_rising (1 to 60 ms, White's cut 35 steps), its first 33 or 34 steps in
   a warmup section: before the cut 34 and 35 ms, or 35 alone, all below every value after it (36 to 60
   ms): no steady state. The spike of a_spike_is_not_a_drift with its first 172 steps flagged: a flagged
   spike is no isolated spike and stays in White's rule, which cuts 175; before the cut 3.01, 3.02 and
   3.00 ms, inside the range after it (3.00 to 3.02): steady; with 175 flagged nothing is left before
   the cut: steady. */
static void few_values_before_the_cut(void **state)
{
    static const int at[1] = {170};
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    int d, i, flag;
    (void)state;
    for (flag = 33; flag <= 34; flag++) {
        d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
        ttft_tpot_warmup_begin(&c);
        for (i = 0; i < 60; i++) {
            if (i == flag)
                ttft_tpot_warmup_end(&c);
            record(&c, d, (uint64_t)(i + 1) * MS, 1);
        }
        ss = steady_state_of(&c);
        assert_int_equal(ss.flagged, (uint64_t)flag);
        assert_int_equal(ss.white_cut, 35);
        assert_true(ss.drift);
        ttft_tpot_free(&c);
    }
    for (flag = 172; flag <= 175; flag += 3) {
        d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
        ttft_tpot_warmup_begin(&c);
        for (i = 0; i < 200; i++) {
            if (i == flag)
                ttft_tpot_warmup_end(&c);
            record(&c, d, i == at[0] ? 9 * MS : 3 * MS + (uint64_t)(i % 3) * 10000, 1);
        }
        ss = steady_state_of(&c);
        assert_int_equal(ss.flagged, (uint64_t)flag);
        assert_int_equal(ss.white_cut, 175);
        assert_false(ss.drift);
        assert_int_equal(ss.spikes, 0); /* the spike is flagged */
        ttft_tpot_free(&c);
    }
}

/* The p50 interval of v[0, n) (sorted here) as ttft_tpot_ci95_ranks gives its ranks. */
static void p50_interval(uint64_t *v, size_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t a, b;
    qsort(v, n, sizeof *v, cmp_u64);
    assert_true(ttft_tpot_ci95_ranks(n, 50, &a, &b));
    *lo = v[a - 1], *hi = v[b - 1];
}

/* White's cut checked on large sides (narrowed by fine bucket, as the report's large sets are) against
   sorted copies. 30,000 steps of 3 ms plus noise uniform over 60 us; a burst of two 9 ms steps at
   20,000 (not isolated: it stays in White's rule, which then cuts after it) is steady; a rise of 0.3 ms
   from step 24,000 on is not. */
static void large_series_checked_like_small_ones(void **state)
{
    enum { N = 30000 };
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v), seed = 7, lo[2], hi[2];
    ttft_tpot_config cfg = {0};
    ttft_tpot_steady_state ss;
    ttft_tpot c;
    size_t i, cut;
    int d, shift;
    (void)state;
    assert_non_null(v);
    cfg.capacity = N;
    for (shift = 0; shift < 2; shift++) {
        d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
        for (i = 0; i < N; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v[i] = 3000000 + (seed >> 40) % 60000;
            v[i] = shift ? v[i] + (i >= 24000 ? 300000 : 0) : i == 20000 || i == 20001 ? 9000000 : v[i];
            assert_int_equal(record(&c, d, v[i], 1), TTFT_TPOT_OK);
        }
        ss = steady_state_of(&c);
        cut = (size_t)ss.white_cut;
        assert_true(cut > N / 2 + 4096 && N - cut >= 4096); /* both sides narrowed */
        p50_interval(v + 1, cut - 1, &lo[0], &hi[0]);     /* step 0 is flagged */
        p50_interval(v + cut, N - cut, &lo[1], &hi[1]);
        assert_int_equal(ss.drift, hi[0] < lo[1] || hi[1] < lo[0]);
        assert_int_equal(ss.drift, shift);
        assert_int_equal(ss.spikes, 0);
        ttft_tpot_free(&c);
    }
    free(v);
}

/* A warmup, then a spike: steps 0 to 9 at 20 ms (0 flagged), the rest spiky_steps' with 9 ms at 170.
   In the first half MSER-5 cuts the two 20 ms batches (any tail with one has a deviation near 85 ms;
   without, the spike's term falls as k grows): 10 steps, 9 past the flagged one. Steady steps 1 to 199:
   9 x 20 ms, 9 ms, 63 x 3.00, 64 x 3.01, 62 x 3.02: p50 (h = 99) 3.01; after the cut (190 steps) 3.01
   too (h = 94.5): the ordinary note. The 20 ms steps are above 6.02 ms but so are their neighbours: the
   one isolated spike is 170. Without it White's rule does not fire (the best cut is d = 2, the ramp's). */
static void a_warmup_then_a_spike(void **state)
{
    ttft_tpot c;
    ttft_tpot_steady_state ss;
    char *text;
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 200; i++)
        record(&c, d, i < 10 ? 20 * MS : i == 170 ? 9 * MS : 3 * MS + (uint64_t)(i % 3) * 10000, 1);
    ss = steady_state_of(&c);
    assert_false(ss.drift);
    assert_int_equal(ss.white_cut, 0);
    assert_int_equal(ss.truncation, 10);
    assert_int_equal(ss.spikes, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: MSER-5 puts the end of warmup at step 10, 9 steps after the flagged "
                                 "one; TPOT p50 3.01 ms with them, 3.01 ms without (within the p50's 95% interval)\n"
                                 "decode_step: 1 isolated spike: step 170 at 9.00 ms (3.0x the steady p50)\n"));
    free(text);
    ttft_tpot_free(&c);
}

/* MSER-5's cuts (the first half's, and White's) against the definition computed directly with numpy
   (every d, the tail's mean and squared deviations from scratch) on series with a warmup ramp and
   noise; skipped without numpy. */
static void mser5_matches_numpy(void **state)
{
    enum { M = 400 };
    uint64_t seed = 4242, ramp, late;
    double sum[M];
    FILE *f;
    int round, j;
    (void)state;
    if (shell("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with numpy (Debian: apt-get install python3-numpy): SKIPPED\n");
        skip();
    }
    /* 4: a rise; 5: a level that moves at 300 (White's rule fires); 6-9: short series of 8, 9, 7 and 4
       batches (under 10: the tail is half of them), rising, flat, rising, flat */
    for (round = 0; round < 10; round++) {
        int m = round < 6 ? M : round == 6 ? 8 : round == 7 ? 9 : round == 8 ? 7 : 4;
        f = fopen("mser5_series.txt", "w");
        assert_non_null(f);
        for (j = 0; j < m; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            ramp = round < 4 && round * 40 > j ? (uint64_t)(round * 40 - j) * 90000 : 0;
            late = round == 4 ? (uint64_t)j * 3000 : round == 5 && j >= 300 ? 1000000
                   : round == 6 || round == 8 ? (uint64_t)j * 300000 : 0;
            sum[j] = (double)(5 * 3220000 + ramp + late + (seed >> 40) % 400000);
            fprintf(f, "%.0f\n", sum[j]);
        }
        {
            int drift;
            uint64_t at = mser5(sum, (uint64_t)m, &drift), white;
            ttft_tpot__mser5_cuts(sum, (uint64_t)m, &white);
            fprintf(f, "%llu\n%d\n%llu\n", (unsigned long long)at, drift, (unsigned long long)white);
        }
        fclose(f);
        assert_int_equal(shell("/usr/bin/python3 -c '\n"
                               "import numpy as np\n"
                               "v = np.loadtxt(\"mser5_series.txt\", dtype=np.float64)\n"
                               "z, mine, drift, white = v[:-3] / 5, int(v[-3]), int(v[-2]), int(v[-1])\n"
                               "m = len(z)\n"
                               "tail = min(5, max(2, m // 2))\n"
                               "f = [((z[d:] - z[d:].mean()) ** 2).sum() / (m - d) ** 2 for d in range(m - tail + 1)]\n"
                               "a = int(np.argmin(f))\n"
                               "assert int(np.argmin(f[: m // 2 + 1])) == mine, (a, mine)\n"
                               "assert (m >= 4 and 2 * a >= m) == bool(drift), (a, drift)\n"
                               "assert white == (a if drift else 0), (a, white)\n"
                               "' >mser5_numpy.out 2>&1"),
                         0);
    }
}

/* Runs by hand. Before the first run: a warmup generation (no run). Three runs, each a steady prefill
   and steady decode steps of 10/20/30, 12/22/32, 14/24/34 ms, 1 token each. TPOT p50 by run: 20, 22,
   24 ms: mean 22, sd 2 (sqrt(8 / 2)), CV 2 / 22 = 0.0909, over 5%: flagged. Output by run: 3 tokens /
   60, 66, 72 ms = 50, 45.4545, 41.6667 tok/s. TTFT p50 by run: 100, 110, 120 ms. The trace carries the
   runs (its report gives the same, and a merge shifts them: test_trace_metrics.c). */
static void runs_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    jc_value doc;
    char *text, *trace;
    (void)state;
    three_runs(&c, &cfg); /* the runs above, after the warmup calls */
    json_of(&c, &doc);
    assert_ms(&doc, "runs.n", 3);
    assert_ms(&doc, "runs.tpot_p50_ms.mean", 22);
    assert_ms(&doc, "runs.tpot_p50_ms.sd", 2);
    assert_near(num_at(&doc, "runs.tpot_p50_ms.cv"), 2.0 / 22, 1e-12);
    assert_true(jc_get(&doc, "runs.tpot_p50_ms.flagged")->num == 1);
    assert_ms(&doc, "runs.tpot_p50_ms.per_run.1", 22);
    assert_near(num_at(&doc, "runs.output_tok_s.per_run.0"), 50, 1e-9);
    assert_near(num_at(&doc, "runs.output_tok_s.per_run.1"), 3 / 0.066, 1e-9);
    assert_near(num_at(&doc, "runs.output_tok_s.per_run.2"), 3 / 0.072, 1e-9);
    assert_ms(&doc, "runs.ttft_steady_p50_ms.mean", 110);
    assert_ms(&doc, "runs.ttft_steady_p50_ms.sd", 10);
    /* the means' 95% t-intervals, t(0.975, 2) = 4.302653 (scipy.stats.t.ppf): 22 -+ 4.968275 ms,
       45.7070 -+ 10.3648 tok/s, 110 -+ 24.841377 ms */
    assert_near(num_at(&doc, "runs.tpot_p50_ms.ci95.0"), 17.031724576312495, 1e-6);
    assert_near(num_at(&doc, "runs.tpot_p50_ms.ci95.1"), 26.968275423687505, 1e-6);
    assert_near(num_at(&doc, "runs.output_tok_s.ci95.0"), 35.34224972437879, 1e-9);
    assert_near(num_at(&doc, "runs.output_tok_s.ci95.1"), 56.07189168976262, 1e-9);
    assert_near(num_at(&doc, "runs.ttft_steady_p50_ms.ci95.0"), 85.15862288156248, 1e-6);
    assert_near(num_at(&doc, "runs.ttft_steady_p50_ms.ci95.1"), 134.84137711843752, 1e-6);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "  mean's 95% CI       : TPOT p50 [17.03, 26.97] ms, output [35.3, 56.1] tok/s, "
                                 "TTFT p50 [85.16, 134.84] ms (t over the runs: the figure to compare)\n"));
    assert_non_null(strstr(text, "Runs (3)              : TPOT p50 22.00 +- 2.00 ms (CV 9.1%), output 45.7 +- 4.2 tok/s "
                                 "(CV 9.1%), TTFT p50 110.00 +- 10.00 ms (CV 9.1%)\n"));
    assert_non_null(strstr(text, "  TPOT p50 by run     : 20.00 22.00 24.00 ms\n"));
    assert_non_null(strstr(text, "WARNING: the runs vary: TPOT p50 CV 9.1% (over 5%)"));
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# run:\n"));
    ttft_tpot_clear(&c);
    assert_int_equal(counts(&c).runs, 0);
    assert_int_equal(ttft_tpot_run_begin(NULL), TTFT_TPOT_EINVAL);
    ttft_tpot_enable(&c, 0);
    assert_int_equal(ttft_tpot_run_begin(&c), TTFT_TPOT_OK); /* disabled: nothing marked */
    assert_int_equal(counts(&c).runs, 0);
    free(text);
    free(trace);
    ttft_tpot_free(&c);
}

/* Heavy tails widen the low end of the output interval. Three runs of ten steady 10 ms decode steps
   and one of 10, 12 and X ms, 1 token each: 100, 98.2143 and 11 / (0.1 + X / 1000) tok/s. X = 60 ms
   is over 5x its run's TPOT p50 (10 ms): the low end is mean - 2 half = 88.9881 - 2 * 43.5952 (t(0.975,
   2) 4.302653, sd 17.5494: scipy); the high end stays mean + half. X = 50 ms is 5x, not over: mean -+
   half, 90.5159 -+ 37.0317. */
static void heavy_tail_widens_the_output_interval(void **state)
{
    static const double x_ms[2] = {60, 50}, lo[2] = {1.7976828951918975, 53.48414080819007},
                        hi[2] = {132.58330140954692, 127.54760522355596};
    unsigned t;
    (void)state;
    for (t = 0; t < 2; t++) {
        ttft_tpot c;
        ttft_tpot_config cfg;
        jc_value doc;
        char *text;
        int pre, dec, r, k;
        memset(&cfg, 0, sizeof cfg);
        pre = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
        dec = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
        record(&c, pre, 500 * MS, 1); /* the first calls: warmup, before any run */
        record(&c, dec, 90 * MS, 1);
        for (r = 0; r < 3; r++) {
            assert_int_equal(ttft_tpot_run_begin(&c), TTFT_TPOT_OK);
            record(&c, pre, 100 * MS, 1);
            for (k = 0; k < 10; k++)
                record(&c, dec, 10 * MS, 1);
            record(&c, dec, r == 2 ? (uint64_t)x_ms[t] * MS : (uint64_t)(10 + 2 * r) * MS, 1);
        }
        json_of(&c, &doc);
        assert_near(num_at(&doc, "runs.output_tok_s.per_run.2"), 11 / (0.1 + x_ms[t] / 1000), 1e-9);
        assert_near(num_at(&doc, "runs.output_tok_s.ci95.0"), lo[t], 1e-9);
        assert_near(num_at(&doc, "runs.output_tok_s.ci95.1"), hi[t], 1e-9);
        assert_true(jc_get(&doc, "runs.output_tok_s.widened")->num == (t == 0));
        assert_true(jc_get(&doc, "runs.tpot_p50_ms.widened")->num == 0);
        assert_true(jc_get(&doc, "runs.ttft_steady_p50_ms.widened")->num == 0);
        jc_free(&doc);
        text = capture(&c, ttft_tpot_report);
        assert_true((strstr(text, "output [1.8, 132.6] tok/s (heavy tail: low end 2 half-widths below)") != NULL) ==
                    (t == 0));
        assert_non_null(t == 0 ? strstr(text, "TPOT p50 [10.00, 10.00] ms, output [1.8,")
                               : strstr(text, "output [53.5, 127.5] tok/s, TTFT p50"));
        free(text);
        ttft_tpot_free(&c);
    }
}

/* Run r's stored samples, [*first, *end), read through the model (view): OK, or EINVAL where c has no
   run r. */
static int run_of(const ttft_tpot *c, unsigned r, size_t *first, size_t *end)
{
    ttft_tpot_model m = view(c);
    int rc = r < m.runs.n ? TTFT_TPOT_OK : TTFT_TPOT_EINVAL;
    if (rc == TTFT_TPOT_OK)
        *first = m.runs.first[r], *end = m.runs.end[r];
    ttft_tpot_model_free(&m);
    return rc;
}

/* A run that ends where it begins (a merge ended it before any sample) says so in its trace: "# run:"
   then "# run: end" at the same place, so the samples after it stay in no run when the trace is read
   (found by fuzz_api: the trace gave the run the later samples; the read: test_trace_metrics.c). */
static void empty_run_ends_in_its_trace(void **state)
{
    ttft_tpot c, none;
    char *trace;
    size_t first = 1, end = 1; /* not 0: the call must set them */
    (void)state;
    run_ended_by_a_merge(&c, &none); /* then two samples */
    assert_int_equal(run_of(&c, 0, &first, &end), TTFT_TPOT_OK);
    assert_true(first == 0 && end == 0);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# run:\n# run: end\nd,decode,"));
    free(trace);
    ttft_tpot_free(&none);
    ttft_tpot_free(&c);
}

/* A merge places src's runs where src's samples land in dst, after dst's own: never inverted, and dst's
   run ends where src's samples begin. dst (capacity 4, a reserve of 4 for warmup samples) holds 6
   warmup samples, then a run with the first call of d (in the reserve, at 6). src: a run of a first
   call and a steady step, then a run of two steady steps. In dst, src's first call is stored at 7 (the
   reserve), the rest go on in a histogram: runs [6, 7), [7, 8), [8, 8). (The marks were clamped to the
   capacity: [6, 4), an inverted run.) Its trace keeps the report: test_trace_metrics.c. */
static void merge_places_runs_where_samples_land(void **state)
{
    static const size_t want[3][2] = {{6, 7}, {7, 8}, {8, 8}};
    ttft_tpot dst, src;
    ttft_tpot_config cfg;
    size_t first, end;
    int i;
    (void)state;
    dst_with_warmup_and_a_run(&dst, &cfg);
    assert_int_equal(counts(&dst).samples, 7);
    src_with_two_runs(&src);
    assert_int_equal(ttft_tpot_merge(&dst, &src), TTFT_TPOT_OK);
    assert_int_equal(counts(&dst).runs, 3);
    for (i = 0; i < 3; i++) {
        assert_int_equal(run_of(&dst, (unsigned)i, &first, &end), TTFT_TPOT_OK);
        if (first != want[i][0] || end != want[i][1])
            fail_msg("run %d: [%zu, %zu), expected [%zu, %zu)", i, first, end, want[i][0], want[i][1]);
    }
    ttft_tpot_free(&src);
    ttft_tpot_free(&dst);
}

/* No figure is printed as 0 when it is not, and none as NaN: runs of microsecond steps in us (10, 12
   and 14 us: mean 12, sd 2, CV 16.7%), a CV of runs whose mean is 0 n/a (0/0), and one step of 2^64 - 1
   ns with one token 1 / 18446744073.709551615 s = 5.42e-11 tok/s, not 0.0. */
static void no_false_zeros(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int d, r, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    record(&c, d, 50000, 1); /* its first call */
    for (r = 0; r < 3; r++) {
        ttft_tpot_run_begin(&c);
        for (i = 0; i < 4; i++)
            record(&c, d, 10000 + 2000 * (uint64_t)r, 1);
    }
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TPOT p50 12.00 +- 2.00 us (CV 16.7%)"));
    assert_non_null(strstr(text, "  TPOT p50 by run     : 10.00 12.00 14.00 us\n"));
    free(text);
    ttft_tpot_clear(&c);
    for (r = 0; r < 2; r++) { /* steps of 0 ns: TPOT p50 0 ns in each run, the output rate none */
        ttft_tpot_run_begin(&c);
        record(&c, d, 0, 1);
    }
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TPOT p50 0 +- 0 ns (CV n/a)"));
    assert_null(strstr(text, "nan"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "runs.tpot_p50_ms.cv"));
    jc_free(&doc);
    ttft_tpot_clear(&c);
    record(&c, d, UINT64_MAX, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "Output throughput     : 5.42e-11 tok/s  (decode-only, steady)"));
    free(text);
    json_of(&c, &doc);
    assert_near(num_at(&doc, "output_throughput_tok_s"), 1e9 / 18446744073709551615.0, 1e-24);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles_by_hand),
        cmocka_unit_test(percentiles_land_on_ranks),
        cmocka_unit_test(selection_matches_sorting),
        cmocka_unit_test(sort_matches_qsort),
        cmocka_unit_test(report_selection_matches_sorting),
        cmocka_unit_test(report_large_phase_left_in_store),
        cmocka_unit_test(report_large_phase_after_cut),
        cmocka_unit_test(percentile_intervals_by_hand),
        cmocka_unit_test(percentile_intervals_match_scipy),
        cmocka_unit_test(t975_matches_scipy),
        cmocka_unit_test(percentile_intervals_at_any_n),
        cmocka_unit_test(empty_run_ends_in_its_trace),
        cmocka_unit_test(merge_places_runs_where_samples_land),
        cmocka_unit_test(no_false_zeros),
        cmocka_unit_test(steady_state_measured),
        cmocka_unit_test(no_steady_state_when_it_keeps_rising),
        cmocka_unit_test(no_steady_state_at_any_magnitude),
        cmocka_unit_test(no_steady_state_in_a_short_rise),
        cmocka_unit_test(a_spike_is_not_a_drift),
        cmocka_unit_test(a_late_spike_anywhere_is_not_a_drift),
        cmocka_unit_test(a_two_step_spike_is_not_isolated),
        cmocka_unit_test(spikes_are_named_and_counted),
        cmocka_unit_test(a_late_shift_is_no_steady_state),
        cmocka_unit_test(few_values_before_the_cut),
        cmocka_unit_test(large_series_checked_like_small_ones),
        cmocka_unit_test(a_warmup_then_a_spike),
        cmocka_unit_test(mser5_matches_numpy),
        cmocka_unit_test(runs_by_hand),
        cmocka_unit_test(heavy_tail_widens_the_output_interval),
        cmocka_unit_test(tpot_excludes_step_zero),
        cmocka_unit_test(batched_tokens_raise_throughput_not_tpot),
        cmocka_unit_test(multi_token_steps_by_hand),
        cmocka_unit_test(one_token_a_sequence_is_the_default),
        cmocka_unit_test(multi_token_steps_without_room_are_counted),
        cmocka_unit_test(multi_token_steps_merge_and_trace),
        cmocka_unit_test(steady_ttft_after_a_warm_request),
        cmocka_unit_test(warmup_first_call_of_each_phase),
        cmocka_unit_test(warmup_sections_flag_everything_inside),
        cmocka_unit_test(sums_do_not_overflow),
        cmocka_unit_test(empty_collector_reports_nulls),
        cmocka_unit_test(text_report_lines),
    };
    return run_cases(tests);
}
