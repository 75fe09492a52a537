/* What test_metrics.c, test_phases.c and test_bounded.c check that needs the serving layer or the
   tools: the tools' statistics (ttft_tpot_stats_of, ttft_tpot_percentile, ttft_tpot_ci95_min_n,
   ttft_tpot_sorted_values) and queries, requests, and traces read back (round trips, refused traces,
   runs, prompt sums, histograms, the clock line). Every expected figure is worked out by hand; each
   case names the core case it belongs with. */
#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99: test_util.h includes libc first */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

#include "bounded_setup.h" /* merged_into_bounded() */
#include "metrics_setup.h" /* order_statistics_match(), the recordings of test_metrics.c */
#include "phases_setup.h"  /* the recordings of test_phases.c */

/* A serving layer on c that tracks max_requests requests (free it before c). */
static void serve(ttft_tpot_serve *s, ttft_tpot *c, unsigned max_requests)
{
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    sc.max_requests = max_requests;
    assert_int_equal(ttft_tpot_serve_attach(s, c, &sc), TTFT_TPOT_OK);
}

/* ================================ test_metrics.c's ============================================= */

/* ttft_tpot_stats_of: the hand-computed percentiles of percentiles_by_hand, the values left as they
   were, and for 5000 values (past the narrowing threshold, with intervals and a chosen p99.9) the same
   statistics as the steady samples of a phase, field for field. */
static void statistics_of_an_array(void **state)
{
    static const uint64_t even[] = {40, 10, 30, 20};
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st, ph;
    ttft_tpot c;
    uint64_t *v;
    size_t i;
    int k;
    (void)state;
    cfg.percentiles[0] = 50, cfg.percentiles[1] = 99.9;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_stats_of(&c, even, 4, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 4);
    assert_int_equal(st.min_ns, 10);
    assert_int_equal(st.max_ns, 40);
    assert_near(st.total_ns, 100, 0);
    assert_near(st.mean_ns, 25, 0);
    assert_near(st.p50_ns, 25, 1e-9);   /* h = 1.5 */
    assert_near(st.p90_ns, 37, 1e-9);   /* h = 2.7 */
    assert_near(st.p99_ns, 39.7, 1e-9); /* h = 2.97 */
    assert_int_equal(even[0], 40);      /* not reordered */
    assert_int_equal(st.tokens + st.warmup_n, 0);
    assert_int_equal(ttft_tpot_stats_of(&c, NULL, 0, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 0);
    assert_int_equal(ttft_tpot_stats_of(NULL, even, 4, &st), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_stats_of(&c, NULL, 1, &st), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_stats_of(&c, even, 4, NULL), TTFT_TPOT_EINVAL);
    v = (uint64_t *)malloc(5000 * sizeof *v);
    assert_non_null(v);
    assert_int_equal(record(&c, k, 1, 0), TTFT_TPOT_OK); /* the phase's first call: warmup */
    for (i = 0; i < 5000; i++)
        v[i] = 1000000 + (uint64_t)(i * 7919 % 5000) * 37;
    assert_int_equal(ttft_tpot_stats_of(&c, v, 5000, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 5000);
    assert_int_equal(st.pick_n, 2);
    assert_int_equal(st.has_ci[2], 1);
    ttft_tpot_clear(&c); /* the phase's warmup is spent: it holds the 5000 values alone */
    for (i = 0; i < 5000; i++)
        assert_int_equal(record(&c, k, v[i], 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&c, k, &ph), TTFT_TPOT_OK);
    assert_int_equal(st.n, ph.n);
    assert_int_equal(st.min_ns, ph.min_ns);
    assert_int_equal(st.max_ns, ph.max_ns);
    assert_near(st.total_ns, ph.total_ns, 0);
    assert_near(st.mean_ns, ph.mean_ns, 0);
    assert_memory_equal(st.pct_ns, ph.pct_ns, sizeof st.pct_ns);
    assert_memory_equal(st.ci_ns, ph.ci_ns, sizeof st.ci_ns);
    assert_memory_equal(st.has_ci, ph.has_ci, sizeof st.has_ci);
    assert_int_equal(st.pick_n, ph.pick_n);
    assert_memory_equal(st.pick_pm, ph.pick_pm, sizeof st.pick_pm);
    assert_memory_equal(st.pick_ns, ph.pick_ns, sizeof st.pick_ns);
    free(v);
    ttft_tpot_free(&c);
}

/* ttft_tpot_percentile by hand: of 1 2 3 4, p50: h = 1.5, 2 + 0.5 = 2.5; p90: h = 2.7, 3 + 0.7 = 3.7;
   p0 and p100 the ends, p past them clamped; one value is every percentile; none gives 0. */
static void percentile_of_doubles_by_hand(void **state)
{
    const double v[4] = {1, 2, 3, 4}, one = 7.5;
    (void)state;
    assert_true(ttft_tpot_percentile(v, 4, 50) == 2.5);
    assert_near(ttft_tpot_percentile(v, 4, 90), 3.7, 1e-15);
    assert_true(ttft_tpot_percentile(v, 4, 0) == 1 && ttft_tpot_percentile(v, 4, 100) == 4);
    assert_true(ttft_tpot_percentile(v, 4, -5) == 1 && ttft_tpot_percentile(v, 4, 250) == 4);
    assert_true(ttft_tpot_percentile(&one, 1, 50) == 7.5 && ttft_tpot_percentile(&one, 1, 99) == 7.5);
    assert_true(ttft_tpot_percentile(v, 0, 50) == 0 && ttft_tpot_percentile(NULL, 4, 50) == 0);
}

/* From report_large_phase_left_in_store: a large phase the gather scans and leaves in the store, read
   from a trace: with no warmup sample (a trace that flags none: the phase is its steady view) and with
   one in its middle bucket. 6000 values 3,000,000 + (37 i mod 100,003) ns, i < 6000, each once. Exact:
   against sorting. */
static void report_large_phase_left_in_store_of_a_trace(void **state)
{
    enum { N = 6000 };
    uint64_t *v = (uint64_t *)malloc(N * sizeof *v), *w = (uint64_t *)malloc(N * sizeof *w);
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    size_t i, warm;
    (void)state;
    for (i = 0; i < N; i++)
        v[i] = 3000000 + 37 * i % 100003;
    cfg.percentiles[0] = 99.9;
    for (warm = 0; warm < 2; warm++) { /* warm: the first line flagged, below the median (3,044,511) */
        FILE *t = tmpfile();
        assert_non_null(t);
        v[0] = warm ? 3044000 : 3000000;
        fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", t);
        for (i = 0; i < N; i++)
            fprintf(t, "decode_step,decode,0,%llu,1,%d\n", (unsigned long long)v[i], i < warm);
        rewind(t);
        assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_trace_read(&c, t, "t", NULL, 0), TTFT_TPOT_OK);
        fclose(t);
        order_statistics_match(&c, v, N, w, 0, warm);
        ttft_tpot_free(&c);
    }
    free(v);
    free(w);
}

/* From percentile_intervals_by_hand: the fewest values a percentile's interval needs (ttft_tpot_ci95_ranks
   there: p50 needs 6, p90 36, p99 368); none for p outside 1..99. */
static void ci95_min_n_by_hand(void **state)
{
    (void)state;
    assert_int_equal(ttft_tpot_ci95_min_n(50), 6);
    assert_int_equal(ttft_tpot_ci95_min_n(90), 36);
    assert_int_equal(ttft_tpot_ci95_min_n(99), 368);
    assert_int_equal(ttft_tpot_ci95_min_n(0), 0);
}

/* From multi_token_steps_by_hand (its figures by hand there): TPOT per output token 13333, 30000,
   9000, 17500 ns; the phase's step times 40, 30, 36, 35 us. The tools read the same series, and the
   trace keeps the report. */
static void multi_token_steps_read_by_the_tools(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    int dec;
    (void)state;
    dec = multi_steps_of_sequences(&c, &cfg);
    {   /* the tools read the same series: the TPOT set per output token, the phase's its step times */
        uint64_t v[4];
        size_t n;
        assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, v, 4, &n), 0);
        assert_int_equal(n, 4);
        assert_int_equal(v[0], 9000);
        assert_int_equal(v[3], 30000);
        assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_PHASE + dec, v, 4, &n), 0);
        assert_int_equal(v[0], 30000);
        assert_int_equal(v[3], 40000);
    }
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* From multi_token_steps_without_room_are_counted: steps kept without their sequences (no
   config.sequences), and two refused, read into a collector with config.sequences. */
static void multi_token_steps_without_room_in_a_trace(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    int dec, k;
    (void)state;
    dec = fixture(&c, NULL, "decode", TTFT_TPOT_ROLE_DECODE);
    multi_steps(&c, dec);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(multi_step(&c, k, 5, 4, 2), TTFT_TPOT_EROLE);
    assert_int_equal(multi_step(&c, dec, 5, 4, 5), TTFT_TPOT_ERANGE);
    memset(&cfg, 0, sizeof cfg);
    cfg.sequences = 1;
    trace_keeps_the_report(&c, &cfg); /* the count travels; the steps have no sequences to carry */
    ttft_tpot_free(&c);
}

/* From multi_token_steps_merge_and_trace: a bad # sequences: line is refused with its line, and the
   merged whole keeps its samples. */
static void multi_token_steps_refused_in_a_trace(void **state)
{
    static const char *const bad[] = {
        "phase,role,start_ns,dur_ns,tokens,warmup\n# sequences: 2\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,4,0\n# sequences: 2\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,4,0\n# sequences: 5\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,4,0\n# sequences: 0\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,4,0\n# sequences: 2\n# sequences: 2\n",
    };
    static const unsigned lines[] = {2, 3, 3, 3, 4};
    ttft_tpot a, b, whole;
    ttft_tpot_config cfg;
    (void)state;
    merged_multi_steps(&a, &b, &whole, &cfg);
    traces_refused(&whole, bad, lines, sizeof bad / sizeof bad[0], "# sequences: ");
    assert_int_equal(counts(&whole).samples, 10);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
    ttft_tpot_free(&whole);
}

/* Every statistics object of the JSON report has one shape: the same figures, with the keys of its
   context (the requests' STATS without "_ms"). */
static void statistics_objects_share_one_shape(void **state)
{
    static const char *const figures[] = {"n", "mean", "p50", "p90", "p95", "p99", "min", "max", "total", "approximate"};
    static const char *const objects[] = {"ttft.steady", "tpot", "phases.0", "requests.ttft_ms", "requests.itl_ms"};
    ttft_tpot c;
    ttft_tpot_serve s;
    jc_value doc;
    char key[64];
    size_t o, k;
    int p, d;
    (void)state;
    p = fixture(&c, NULL, "prefill", TTFT_TPOT_ROLE_PREFILL);
    serve(&s, &c, 1);
    d = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    for (k = 0; k < 3; k++) {
        record(&c, p, 10 + k, 1);
        record(&c, d, 5 + k, 1);
    }
    ttft_tpot_request_mark(&s, "r", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&s, "r", 10, 1);
    ttft_tpot_request_tokens(&s, "r", 30, 1);
    json_of(&c, &doc);
    for (o = 0; o < sizeof objects / sizeof objects[0]; o++)
        for (k = 0; k < sizeof figures / sizeof figures[0]; k++) {
            snprintf(key, sizeof key, "%s.%s%s", objects[o], figures[k],
                     k == 0 || k == 9 || o >= 3 ? "" : "_ms");
            if (!jc_get(&doc, key))
                fail_msg("no %s", key);
        }
    assert_ms(&doc, "ttft.steady.p95_ms", 0.000012); /* 11, 12: h = 0.95, 11.95 ns to the nearest ns */
    assert_ms(&doc, "requests.itl_ms.total", 0.00002);
    jc_free(&doc);
    ttft_tpot_serve_free(&s);
    ttft_tpot_free(&c);
}

/* No steady state (White's rule), as no_steady_state_when_it_keeps_rising in test_metrics.c for the
   decode steps. 60 steps rising 1 ms a step, batch means Z_j = 3 + 5 (j - 1) ms: a tail of k equally
   spaced means has MSER = 25 (k^2 - 1) / (12 k), smallest at the fewest batches allowed, 5 (d = 7 >
   12 / 2): no steady state. 100 requests all submitted at once and served one after another: TTFT 10,
   20, ... 1000 ms, the same shape (d = 15 > 20 / 2). */
static void no_steady_state_when_requests_keep_rising(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve s;
    jc_value doc;
    char *text, id[16];
    int d, i;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    serve(&s, &c, 100);
    for (i = 1; i <= 60; i++)
        record(&c, d, (uint64_t)i * MS, 1);
    for (i = 0; i < 100; i++) {
        snprintf(id, sizeof id, "r%d", i);
        ttft_tpot_request_mark(&s, id, TTFT_TPOT_POINT_SUBMIT, 0);
        ttft_tpot_request_tokens(&s, id, (uint64_t)(i + 1) * 10 * MS, 1);
    }
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "decode_step: no steady state: MSER-5's best cut falls in the second half of its "
                                 "steps (White's rule): they keep rising or falling\n"));
    assert_non_null(strstr(text, "requests: no steady state: MSER-5's best cut falls in the second half of their "
                                 "TTFTs (White's rule)"));
    assert_null(strstr(text, "puts the end of warmup"));
    free(text);
    json_of(&c, &doc);
    assert_true(jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->type == JC_BOOL &&
                jc_get(phase_named(&doc, "decode_step"), "steady_state.no_steady_state")->num == 1);
    assert_true(jc_get(&doc, "requests.steady_state.no_steady_state")->num == 1);
    jc_free(&doc);
    ttft_tpot_serve_free(&s);
    ttft_tpot_free(&c);
}

/* From a_spike_is_not_a_drift: one 9 ms step at 170 of 200 steady ones; its trace keeps the report
   (the spike named, no cut). */
static void a_spike_is_not_a_drift_in_its_trace(void **state)
{
    static const int at[1] = {170};
    ttft_tpot c;
    int d;
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    spiky_steps(&c, d, at, 1);
    trace_keeps_the_report(&c, NULL);
    ttft_tpot_free(&c);
}

/* From runs_by_hand (its figures by hand there): the warmup calls, then three runs, each a steady
   prefill and steady decode steps of 10/20/30, 12/22/32, 14/24/34 ms, 1 token each. The trace carries
   the runs: its report gives the same; a merge places the live runs after the trace's. */
static void runs_by_hand_in_a_trace(void **state)
{
    ttft_tpot c, back;
    ttft_tpot_config cfg;
    char *text, *trace, err[256], *again;
    (void)state;
    three_runs(&c, &cfg);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# run:\n"));
    assert_int_equal(ttft_tpot_init(&back, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&back, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&back).runs, 3);
    again = capture(&back, report_json);
    text = capture(&c, report_json);
    assert_string_equal(again, text); /* the report of the trace is the live report, runs included */
    assert_int_equal(ttft_tpot_merge(&back, &c), TTFT_TPOT_OK); /* c's runs follow back's, shifted */
    assert_int_equal(counts(&back).runs, 6);
    free(text);
    free(again);
    free(trace);
    ttft_tpot_free(&back);
    ttft_tpot_free(&c);
}

/* Runs belong to their trace: a trace without "# run:" lines read after one with runs joins no run, so
   the order of the files does not change the runs. A: a run of two 10 ms steps, one of two 20 ms
   steps; B: two 5 ms steps, no run. TPOT p50 by run: 10 and 20 ms either way (B used to join A's last
   run: 12.5 ms). */
static void runs_belong_to_their_trace(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    static const char a[] = H "d,decode,0,1,1,1\n# run:\nd,decode,0,10000000,1,0\nd,decode,0,10000000,1,0\n"
                              "# run:\nd,decode,0,20000000,1,0\nd,decode,0,20000000,1,0\n";
    static const char b[] = H "d,decode,0,5000000,1,0\nd,decode,0,5000000,1,0\n";
    ttft_tpot ab, ba;
    char err[256], *text;
    jc_value doc;
    size_t first, end;
    int k;
    (void)state;
    assert_int_equal(ttft_tpot_init(&ab, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&ba, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&ab, a, "a", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&ab, b, "b", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&ba, b, "b", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&ba, a, "a", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_run_at(&ab, 1, &first, &end), TTFT_TPOT_OK);
    assert_true(first == 3 && end == 5); /* B's two samples, 5 and 6, are in no run */
    for (k = 0; k < 2; k++) {
        const ttft_tpot *c = k ? &ba : &ab;
        json_of(c, &doc);
        assert_ms(&doc, "runs.n", 2);
        assert_ms(&doc, "runs.tpot_p50_ms.per_run.0", 10);
        assert_ms(&doc, "runs.tpot_p50_ms.per_run.1", 20);
        jc_free(&doc);
        text = capture(c, ttft_tpot_report);
        assert_non_null(strstr(text, "  TPOT p50 by run     : 10.00 20.00 ms\n"));
        free(text);
        trace_keeps_the_report(c, NULL); /* the trace says where a run ends: "# run: end" */
    }
    text = capture(&ab, ttft_tpot_trace_write);
    assert_non_null(strstr(text, "d,decode,0,20000000,1,0\n# run: end\nd,decode,0,5000000,1,0\n"));
    free(text);
    ttft_tpot_free(&ab);
    ttft_tpot_free(&ba);
#undef H
}

/* From empty_run_ends_in_its_trace: a run that ends where it begins (a merge ended it before any
   sample); its trace ("# run:" then "# run: end") read back keeps the report, the samples after it in
   no run. */
static void empty_run_ends_in_its_trace_read_back(void **state)
{
    ttft_tpot c, none;
    (void)state;
    run_ended_by_a_merge(&c, &none);
    trace_keeps_the_report(&c, NULL);
    ttft_tpot_free(&none);
    ttft_tpot_free(&c);
}

/* A refused trace leaves the open run open: the read ended it before the trace's samples, and the
   refusal undoes that too. */
static void refused_trace_leaves_the_run_open(void **state)
{
    ttft_tpot c;
    char err[256];
    size_t first, end;
    int d;
    (void)state;
    d = fixture(&c, NULL, "d", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_run_begin(&c);
    record(&c, d, MS, 1);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,x,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    record(&c, d, 2 * MS, 1);
    assert_int_equal(ttft_tpot_run_at(&c, 0, &first, &end), TTFT_TPOT_OK);
    assert_true(first == 0 && end == 2);
    ttft_tpot_free(&c);
}

/* From merge_places_runs_where_samples_land (the runs by hand there): dst's runs [6, 7), [7, 8), [8, 8)
   after the merge; its trace keeps the report. */
static void merged_runs_in_a_trace(void **state)
{
    ttft_tpot dst, src;
    ttft_tpot_config cfg;
    (void)state;
    dst_with_warmup_and_a_run(&dst, &cfg);
    src_with_two_runs(&src);
    assert_int_equal(ttft_tpot_merge(&dst, &src), TTFT_TPOT_OK);
    assert_int_equal(counts(&dst).runs, 3);
    trace_keeps_the_report(&dst, &cfg);
    ttft_tpot_free(&src);
    ttft_tpot_free(&dst);
}

/* ================================ test_phases.c's ============================================== */

/* From steady_kernel_rows (its rows by hand there): a kernel whose first call takes 280 ms, then 10,
   20, 30, 40 ms, and one call of 50 ms inside a warmup section; its trace keeps the report. */
static void steady_kernel_rows_in_a_trace(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    (void)state;
    kernel_with_a_slow_first_call(&c);
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* From prompt_tokens_give_the_prefill_rate (the rate by hand there: 2000 tok/s over 2 prefills, 1
   without a count, 4 calls refused): its trace keeps the report. A v1 trace without prompt sums reads
   as before, with no rate; a bad "# prompt:" line, or one of a decode phase, is refused with its
   line. */
static void prompt_tokens_in_a_trace(void **state)
{
    ttft_tpot c, old;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text, err[256];
    (void)state;
    prompts_and_refusals(&c);
    trace_keeps_the_report(&c, &cfg);
    /* a v1 trace without prompt sums reads as before: no rate */
    assert_int_equal(ttft_tpot_init(&old, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\np,prefill,0,9,1,1\np,prefill,0,8,1,0\n",
                               "v1", err, sizeof err), TTFT_TPOT_OK);
    json_of(&old, &doc);
    assert_true(is_null_at(&doc, "prefill.tok_s"));
    assert_ms(&doc, "prefill.without_prompt", 1);
    jc_free(&doc);
    text = capture(&old, ttft_tpot_report);
    assert_non_null(strstr(text, "Prefill rate          : n/a         (no steady prefill carries prompt tokens"));
    free(text);
    /* a malformed "# prompt:" line is refused with its line, and leaves the collector as it was */
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\n# prompt: 1,x,3,p\n", "t", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: # prompt: expected N,TOKENS,NS,NAME");
    /* prompt sums name a prefill phase: a decode phase's are refused */
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,1,1,0\n# prompt: 1,2,3,d\n",
                               "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:3: phase changes role: d");
    assert_int_equal(counts(&old).phases, 1);
    ttft_tpot_free(&old);
    ttft_tpot_free(&c);
}

/* From prompt_tokens_of_a_bounded_prefill: 200, 300 and 100 ms steady prefills with 400, 600 and 100
   prompt tokens in a bounded phase; the trace's prompt sums are checked against its histogram, and its
   report is the live one (1833.3 tok/s). */
static void prompt_tokens_of_a_bounded_prefill_in_a_trace(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int pre;
    (void)state;
    cfg.bounded = 1;
    pre = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    prompted_prefills(&c, pre, 100);
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* From merge_that_drops_prompts (its figures by hand there): a merge into a full collector drops
   samples that carried prompt tokens, and their sums stay; its trace reads (the dropped samples may
   have carried them) and keeps the report. */
static void merge_that_drops_prompts_in_a_trace(void **state)
{
    ttft_tpot src, dst;
    ttft_tpot_config cfg;
    (void)state;
    merge_that_drops(&src, &dst, &cfg);
    assert_int_equal(counts(&dst).dropped, 3);
    trace_keeps_the_report(&dst, &cfg); /* its trace reads: the dropped samples may have carried them */
    ttft_tpot_free(&dst);
    ttft_tpot_free(&src);
}

/* From shape_rows_split_a_phase (the rows by hand there): matmul named for key 1 (288x288) and key 2
   (32000x288), key 3 under a long name, key 5 in no row; its trace, read with the same clock (its name
   is in both reports), keeps the report. */
static void shape_rows_in_a_trace(void **state)
{
    script_clock clk;
    ttft_tpot c;
    ttft_tpot_config cfg;
    int mm, big;
    (void)state;
    mm = matmul_with_shape_rows(&c, &cfg, &clk, &big);
    assert_string_equal(ttft_tpot_phase_name(&c, big), "matmul[32000x288]");
    assert_int_equal(ttft_tpot_phase_role(&c, big), TTFT_TPOT_ROLE_KERNEL);
    shape_rows_recorded(&c, mm);
    trace_keeps_the_report(&c, &cfg); /* with the same clock: its name is in both reports */
    ttft_tpot_free(&c);
}

/* From indexes_by_name: thousands of request ids, beside as many phases, are found through the
   serving layer's index (keyed as the names are), and a refused trace takes its phases out of the
   index of names again. */
static void indexes_by_name_of_requests_and_traces(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_serve s;
    ttft_tpot_config cfg = {0};
    char name[32], err[256];
    int i;
    (void)state;
    cfg.max_phases = 5000;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    serve(&s, &a, 5000);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(ttft_tpot_phase(&a, name, TTFT_TPOT_ROLE_KERNEL), i);
        assert_int_equal(ttft_tpot_request_mark(&s, name, TTFT_TPOT_POINT_SUBMIT, (uint64_t)i), TTFT_TPOT_OK);
    }
    for (i = 4999; i >= 0; i--) {
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(ttft_tpot_find_phase(&a, name), i);
        assert_int_equal(ttft_tpot_phase(&a, name, TTFT_TPOT_ROLE_KERNEL), i);
        assert_int_equal(ttft_tpot_request_mark(&s, name, TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_EREQUEST);
    }
    /* b: a trace that adds phases x and y, then fails; then y is new again, with x's old id */
    assert_int_equal(trace_str(&b, "phase,role,start_ns,dur_ns,tokens,warmup\nx,kernel,0,5,0,1\ny,kernel,0,5,0,1\n"
                                   "z,bad,0,5,0,1\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_int_equal(ttft_tpot_find_phase(&b, "x"), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_find_phase(&b, "y"), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_phase(&b, "y", TTFT_TPOT_ROLE_DECODE), 0);
    assert_int_equal(ttft_tpot_find_phase(&b, "y"), 0);
    ttft_tpot_serve_free(&s);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

/* ================================ test_bounded.c's ============================================= */

static uint64_t zero_clock(void *user)
{
    (void)user;
    return 0;
}

/* From report_names_its_clock: the trace carries the clock line; the reader takes it. */
static void trace_carries_the_clock(void **state)
{
    ttft_tpot c, r;
    ttft_tpot_config cfg = {0};
    char *text;
    FILE *f;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "CLOCK_MONOTONIC");
    assert_true(ttft_tpot_clock_read_ns(&c) > 0 && ttft_tpot_clock_read_ns(&c) < 1000000);
    /* the trace carries the clock line; the reader takes it */
    c.clock_read_ns = 26;
    cfg.clock = zero_clock;
    cfg.clock_name = "nothing";
    assert_int_equal(ttft_tpot_init(&r, &cfg), TTFT_TPOT_OK);
    assert_int_equal(r.clock_read_ns, 0);
    f = tmpfile();
    assert_int_equal(ttft_tpot_trace_write(&c, f), TTFT_TPOT_OK);
    rewind(f);
    assert_int_equal(ttft_tpot_trace_read(&r, f, "t", NULL, 0), TTFT_TPOT_OK);
    fclose(f);
    text = capture(&r, report_json);
    assert_non_null(strstr(text, "\"clock\":{\"name\":\"CLOCK_MONOTONIC\",\"read_ns\":26}"));
    free(text);
    ttft_tpot_free(&c);
    ttft_tpot_free(&r);
}

static void odd_clock_comments_are_only_comments(void **state)
{
    static const char *const texts[] = {
        "# clock: , 5 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n",
        "# clock: X, ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n",
        "# clock: X, 0 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n",
        "# clock: X, 5 ns/read and more\nphase,role,start_ns,dur_ns,tokens,warmup\n",
        "# clock: a name that is far too long for the field, 5 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n",
        "# clock: X, 99999999999999999999999 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n",
    };
    ttft_tpot_config cfg = {0};
    size_t i;
    (void)state;
    cfg.clock = zero_clock;
    for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        ttft_tpot r;
        assert_int_equal(ttft_tpot_init(&r, &cfg), TTFT_TPOT_OK);
        assert_int_equal(trace_str(&r, texts[i], "t", NULL, 0), TTFT_TPOT_OK);
        assert_string_equal(r.clock_name, "user clock");
        assert_int_equal(r.clock_read_ns, 0);
        ttft_tpot_free(&r);
    }
}

/* A trace read into a bounded collector: each phase's first sample and its warmup samples stay exact,
   its steady samples go to its histogram; a trace refused on its last line leaves the histogram as it
   was. Figures by hand: steady 2, 4, 6 ms (and 8 ms after the second trace); values under 128 ns are
   exact in a histogram. */
static void trace_into_bounded_phases(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    char err[256];
    (void)state;
    cfg.bounded = 1;
    cfg.grow = 1;
    cfg.hist_slots = 1; /* grows to the two phases */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n"
                                   "d,decode,0,9000000,1,0\n" /* the first: exact, though not flagged */
                                   "d,decode,0,2000000,1,0\nd,decode,0,100000000,1,1\nd,decode,0,4000000,1,0\n"
                                   "d,decode,0,6000000,1,0\nk,kernel,0,50,0,0\nk,kernel,0,70,0,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 3); /* d's first, d's warmup, k's first */
    assert_int_equal(ttft_tpot_phase_stats(&c, 0, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 5);
    assert_int_equal(st.warmup_n, 1);
    assert_int_equal(st.tokens, 5);
    assert_int_equal(st.min_ns, 2000000);
    assert_int_equal(st.max_ns, 100000000);
    assert_near(st.total_ns, 121000000.0, 0);
    assert_true(st.approx);
    assert_int_equal(ttft_tpot_phase_stats(&c, 1, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 2);
    assert_near(st.p50_ns, 60, 1e-9); /* 50 and 70, exact under 128 ns */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,8000000,1,0\nd,oops,0,1,1,0\n",
                               "u", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_string_equal(err, "u:3: unknown role: oops");
    assert_int_equal(ttft_tpot_phase_stats(&c, 0, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 5); /* the 8 ms of the refused trace is not in it */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,8000000,1,0\n", "v", err,
                               sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&c, 0, &st), TTFT_TPOT_OK);
    assert_int_equal(st.n, 6);
    assert_int_equal(counts(&c).samples, 3);
    ttft_tpot_free(&c);
}

/* A decode phase of a bounded collector with its warmup samples only (its histogram empty) is measured
   like an exact one (every sample is stored), and a phase with no sample is not: so the live report
   and the report of its trace agree (fuzz_api found them apart). */
static void steady_state_of_bounded_phases(void **state)
{
    ttft_tpot c, back;
    ttft_tpot_config cfg = {0};
    char *trace, *want, *got, err[256];
    (void)state;
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    record(&c, ttft_tpot_phase(&c, "warm_only", TTFT_TPOT_ROLE_DECODE), 5000, 1);
    ttft_tpot_phase(&c, "never", TTFT_TPOT_ROLE_DECODE);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&back, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&back, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    want = capture(&c, report_json);
    got = capture(&back, report_json);
    assert_string_equal(got, want);
    assert_non_null(strstr(want, "\"steady_state\":{\"flagged\":1,"));
    assert_non_null(strstr(want, "\"steady_state\":null"));
    free(trace);
    free(want);
    free(got);
    ttft_tpot_free(&c);
    ttft_tpot_free(&back);
}

#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
/* 2. "# hist:" lines join their phases when the trace has been read: two lines of one phase add up,
   a phase only a histogram names is made, more lines than the reader first makes room for, and a
   histogram of a phase with another role is refused. */
static void hist_lines_join_their_phases(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    char err[256];
    (void)state;
    cfg.hist_slots = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, H "# hist: decode,1,5,5,0,5,5:1,a\n# hist: decode,1,6,6,0,6,6:1,a\n"
                                     "# hist: kernel,2,7,7,0,7,7:1,b\n# hist: kernel,0,8,9,0,17,8:1 9:1,c\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&c, ttft_tpot_find_phase(&c, "a"), &st), TTFT_TPOT_OK);
    assert_true(st.n == 2 && st.min_ns == 5 && st.max_ns == 6 && st.tokens == 2 && st.approx);
    assert_int_equal(ttft_tpot_phase_stats(&c, ttft_tpot_find_phase(&c, "c"), &st), TTFT_TPOT_OK);
    assert_true(st.n == 2 && st.min_ns == 8 && st.max_ns == 9 && st.total_ns == 17);
    assert_int_equal(trace_str(&c, H "# hist: kernel,1,5,5,0,5,5:1,a\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: phase changes role: a");
    ttft_tpot_free(&c);
}
#undef H

/* From merge_paths: what the tools' queries read of a bounded dst (capacity 3, a timeline) that a
   collector of 5 kernel samples was merged into. */
static void queries_after_a_merge(void **state)
{
    ttft_tpot dst, src;
    ttft_tpot_config cfg;
    (void)state;
    merged_into_bounded(&dst, &src, &cfg);
    assert_int_equal(counts(&dst).samples, 3); /* 5 stored samples, 3 fit */
    {
        ttft_tpot_sample s;
        uint64_t start = 1;
        assert_int_equal(ttft_tpot_sample_at(&dst, 0, &s, &start), TTFT_TPOT_OK);
        assert_int_equal(start, 0); /* record (a span begun at 0) has no start time */
        assert_int_equal(ttft_tpot_sample_at(&dst, 3, &s, NULL), TTFT_TPOT_EINVAL); /* no such sample */
        assert_null(ttft_tpot_phase_name(&dst, 99));
        assert_int_equal(ttft_tpot_phase_role(&dst, 99), TTFT_TPOT_EPHASE);
        assert_int_equal(ttft_tpot_phase_role(NULL, 0), TTFT_TPOT_EINVAL);
        assert_int_equal(ttft_tpot_counts_of(NULL).samples, 0);
        assert_string_equal(ttft_tpot_clock_name(NULL), "");
        assert_int_equal(ttft_tpot_clock_read_ns(NULL), 0);
    }
    ttft_tpot_free(&dst);
    ttft_tpot_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(statistics_of_an_array),
        cmocka_unit_test(percentile_of_doubles_by_hand),
        cmocka_unit_test(report_large_phase_left_in_store_of_a_trace),
        cmocka_unit_test(ci95_min_n_by_hand),
        cmocka_unit_test(multi_token_steps_read_by_the_tools),
        cmocka_unit_test(multi_token_steps_without_room_in_a_trace),
        cmocka_unit_test(multi_token_steps_refused_in_a_trace),
        cmocka_unit_test(statistics_objects_share_one_shape),
        cmocka_unit_test(no_steady_state_when_requests_keep_rising),
        cmocka_unit_test(a_spike_is_not_a_drift_in_its_trace),
        cmocka_unit_test(runs_by_hand_in_a_trace),
        cmocka_unit_test(runs_belong_to_their_trace),
        cmocka_unit_test(empty_run_ends_in_its_trace_read_back),
        cmocka_unit_test(refused_trace_leaves_the_run_open),
        cmocka_unit_test(merged_runs_in_a_trace),
        cmocka_unit_test(steady_kernel_rows_in_a_trace),
        cmocka_unit_test(prompt_tokens_in_a_trace),
        cmocka_unit_test(prompt_tokens_of_a_bounded_prefill_in_a_trace),
        cmocka_unit_test(merge_that_drops_prompts_in_a_trace),
        cmocka_unit_test(shape_rows_in_a_trace),
        cmocka_unit_test(indexes_by_name_of_requests_and_traces),
        cmocka_unit_test(trace_carries_the_clock),
        cmocka_unit_test(odd_clock_comments_are_only_comments),
        cmocka_unit_test(trace_into_bounded_phases),
        cmocka_unit_test(steady_state_of_bounded_phases),
        cmocka_unit_test(hist_lines_join_their_phases),
        cmocka_unit_test(queries_after_a_merge),
    };
    return run_cases(tests);
}
