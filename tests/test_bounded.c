/* Bounded mode (histograms), merging collectors, clearing one, and what the report says of its clock. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"


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
        ttft_tpot_record(&exact, pe, v, 0);
        ttft_tpot_record(&bounded, pb, v, 0);
    }
    assert_int_equal(counts(&bounded).samples, 1); /* only the warmup sample is stored */
    assert_int_equal(ttft_tpot_phase_stats(&exact, pe, &e), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&bounded, pb, &b), TTFT_TPOT_OK);
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
    ttft_tpot_record(&c, k, 0, 0); /* the warmup call, stored exactly */
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
            ttft_tpot_record(&c, k, vals[j], 0); /* steady: the phase was called before */
            ttft_tpot_record(&c, k, vals[j], 0);
            assert_int_equal(ttft_tpot_phase_stats(&c, k, &st), TTFT_TPOT_OK);
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
    ttft_tpot_record(&c, d, 100 * MS, 2); /* warmup: stored */
    for (i = 0; i < 10; i++)              /* 10..19 ms, 2 tokens each: histogram */
        ttft_tpot_record(&c, d, (uint64_t)(10 + i) * MS, 2);
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
    ttft_tpot_record(&c, d, 5 * MS, 1);
    ttft_tpot_record(&c, d, 6 * MS, 1);
    ttft_tpot_record(&c, 42, 6 * MS, 1); /* rejected */
    ttft_tpot_clear(&c);
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(counts(&c).rejected, 0);
    assert_true(c.phase.slots[d].hist->min_ns > c.phase.slots[d].hist->max_ns); /* empty */
    ttft_tpot_record(&c, d, 7 * MS, 1); /* not a first call any more: steady */
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(c.phase.slots[d].hist->counts[ttft_tpot__hist_index(7 * MS)], 1);
    assert_int_equal(ttft_tpot_find_phase(&c, "decode"), d);
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
        ttft_tpot_record(t, d, (uint64_t)(i + 1) * MS, 1);
        ttft_tpot_record(t, k, (uint64_t)(i + 10) * MS, 0);
        ttft_tpot_record(&all, ttft_tpot_phase(&all, "decode", TTFT_TPOT_ROLE_DECODE), (uint64_t)(i + 1) * MS, 1);
        ttft_tpot_record(&all, ttft_tpot_phase(&all, i < 3 ? "k_a" : "k_b", TTFT_TPOT_ROLE_KERNEL),
                         (uint64_t)(i + 10) * MS, 0);
    }
    /* b's first decode call is not the whole's first: the merge makes it steady, as all saw it */
    all.clock_read_ns = a.clock_read_ns; /* measured at each init: not what is compared */
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    ja = capture(&a, ttft_tpot_report_json);
    jall = capture(&all, ttft_tpot_report_json);
    assert_string_equal(ja, jall);
    free(ja);
    free(jall);
    assert_int_equal(ttft_tpot_merge(&a, &a), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_merge(NULL, &a), TTFT_TPOT_EINVAL);
    /* a role conflict or a full phase table changes nothing */
    assert_int_equal(ttft_tpot_init(&bad, &cfg), TTFT_TPOT_OK);
    ttft_tpot_record(&bad, ttft_tpot_phase(&bad, "new", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    ttft_tpot_record(&bad, ttft_tpot_phase(&bad, "decode", TTFT_TPOT_ROLE_KERNEL), MS, 0);
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
        ttft_tpot_record(&a, ttft_tpot_phase(&a, "d", TTFT_TPOT_ROLE_DECODE), 100, 1);
        ttft_tpot_record(&b, ttft_tpot_phase(&b, "d", TTFT_TPOT_ROLE_DECODE), 120, 1);
    }
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&a, 0, &st), TTFT_TPOT_OK);
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

static void report_names_its_clock(void **state)
{
    ttft_tpot c, r;
    ttft_tpot_config cfg = {0};
    char *text;
    FILE *f;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "CLOCK_MONOTONIC");
    assert_true(ttft_tpot_clock_read_ns(&c) > 0 && ttft_tpot_clock_read_ns(&c) < 1000000);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "(clock: CLOCK_MONOTONIC, "));
    assert_non_null(strstr(text, " ns/read)\n"));
    free(text);
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
    text = capture(&r, ttft_tpot_report_json);
    assert_non_null(strstr(text, "\"clock\":{\"name\":\"CLOCK_MONOTONIC\",\"read_ns\":26}"));
    free(text);
    c.clock_read_ns = 400;
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: one clock read costs 400 ns"));
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
    ttft_tpot_record(&c, ttft_tpot_phase(&c, "warm_only", TTFT_TPOT_ROLE_DECODE), 5000, 1);
    ttft_tpot_phase(&c, "never", TTFT_TPOT_ROLE_DECODE);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&back, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&back, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    want = capture(&c, ttft_tpot_report_json);
    got = capture(&back, ttft_tpot_report_json);
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

static void merge_paths(void **state)
{
    ttft_tpot dst, src, full;
    ttft_tpot_config cfg = {0};
    int i;
    (void)state;
    /* dst bounded: new phases take a slot; src with a timeline, dst with one too */
    cfg.bounded = 1;
    cfg.timeline = 1;
    cfg.capacity = 3;
    assert_int_equal(ttft_tpot_init(&dst, &cfg), TTFT_TPOT_OK);
    cfg.bounded = 0;
    cfg.capacity = 8;
    assert_int_equal(ttft_tpot_init(&src, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < 5; i++)
        ttft_tpot_record(&src, ttft_tpot_phase(&src, "k", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    assert_int_equal(ttft_tpot_merge(&dst, &src), TTFT_TPOT_OK);
    assert_non_null(dst.phase.slots[0].hist); /* bounded like every phase of dst */
    assert_int_equal(counts(&dst).samples, 3);          /* 5 stored samples, 3 fit */
    assert_int_equal(counts(&dst).dropped, 0);          /* the other 2 go on in the histogram */
    assert_int_equal(dst.phase.slots[0].hist->counts[ttft_tpot__hist_index(MS)], 2);
    {
        ttft_tpot_sample s;
        uint64_t start = 1;
        assert_int_equal(ttft_tpot_sample_at(&dst, 0, &s, &start), TTFT_TPOT_OK);
        assert_int_equal(start, 0); /* ttft_tpot_record has no start time */
        assert_int_equal(ttft_tpot_sample_at(&dst, 3, &s, NULL), TTFT_TPOT_EINVAL); /* no such sample */
        assert_null(ttft_tpot_phase_name(&dst, 99));
        assert_int_equal(ttft_tpot_phase_role(&dst, 99), TTFT_TPOT_EPHASE);
        assert_int_equal(ttft_tpot_phase_role(NULL, 0), TTFT_TPOT_EINVAL);
        assert_int_equal(ttft_tpot_counts_of(NULL).samples, 0);
        assert_string_equal(ttft_tpot_clock_name(NULL), "");
        assert_int_equal(ttft_tpot_clock_read_ns(NULL), 0);
    }
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
    ttft_tpot_record(&src, ttft_tpot_phase(&src, "b", TTFT_TPOT_ROLE_KERNEL), MS, 0);
    ttft_tpot_record(&src, 0, MS, 0); /* steady: into the histogram */
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
        cmocka_unit_test(odd_clock_comments_are_only_comments),
        cmocka_unit_test(trace_into_bounded_phases),
        cmocka_unit_test(steady_state_of_bounded_phases),
        cmocka_unit_test(hist_lines_join_their_phases),
        cmocka_unit_test(merge_paths),
    };
    return run_cases(tests);
}
