/* The corners of the contract the other tests do not reach: every error name, UTF-8 edge cases,
   merge paths, defensive escaping, huge totals, stream errors, trace oddities. Selection here always
   takes its sort fallback (TTFT_TPOT__SELECT_ROUNDS 0), so that path gives the same exact figures; a
   collector marks 2 runs at most here (TTFT_TPOT_MAX_RUNS), so the limit is reached. */
#define TTFT_TPOT__SELECT_ROUNDS 0
#define TTFT_TPOT_MAX_RUNS 2
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#define MS 1000000ull

static void sort_fallback_gives_the_same_percentiles(void **state)
{
    ttft_tpot c;
    ttft_tpot_stats st;
    int k, i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 101; i++) /* 0..100, shuffled */
        ttft_tpot_record(&c, k, (uint64_t)(i * 37 % 101), 0);
    assert_int_equal(ttft_tpot_phase_stats(&c, k, &st), TTFT_TPOT_OK);
    assert_near(st.p50_ns, 50, 0);
    assert_near(st.p90_ns, 90, 0);
    assert_near(st.p99_ns, 99, 0);
    ttft_tpot_free(&c);
}

static void every_error_has_a_name(void **state)
{
    int e;
    (void)state;
    for (e = TTFT_TPOT_EPARSE; e <= TTFT_TPOT_OK; e++)
        assert_string_not_equal(ttft_tpot_strerror(e), "unknown error");
    assert_string_equal(ttft_tpot_strerror(TTFT_TPOT_OK), "ok");
    assert_string_equal(ttft_tpot_role_name(-1), "?");
    assert_string_equal(ttft_tpot_role_name(TTFT_TPOT_ROLE_E2E), "e2e");
}

static void utf8_edges(void **state)
{
    ttft_tpot c;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_true(ttft_tpot_phase(&c, "emoji \xf0\x9f\x9a\x80", TTFT_TPOT_ROLE_KERNEL) >= 0); /* 4 bytes */
    assert_int_equal(ttft_tpot_phase(&c, "past U+10FFFF \xf4\x90\x80\x80", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "overlong4 \xf0\x8f\xbf\xbf", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "overlong3 \xe0\x80\xaf", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "bad continuation \xc3\x28", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "lone continuation \x80", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "del \x7f", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    ttft_tpot_free(&c);
}

static void configurations_refused(void **state)
{
    ttft_tpot c, zero;
    ttft_tpot_config cfg = {0};
    (void)state;
    cfg.max_phases = 4;
    cfg.hist_slots = 5; /* more slots than phases */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_bytes_needed(&cfg), 0);
    memset(&zero, 0, sizeof zero); /* never initialised: calls refuse it */
    assert_int_equal(ttft_tpot_phase(&zero, "a", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_trace_read(&zero, stdin, "t", NULL, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_find_phase(&zero, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_record(&zero, 0, 1, 1), TTFT_TPOT_OK); /* disabled: nothing recorded */
    {
        jc_value doc;
        json_of(&zero, &doc); /* reports empty */
        assert_true(is_null_at(&doc, "tpot"));
        jc_free(&doc);
    }
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&zero, &c), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_merge(&c, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_link_prefill_kernel(&c, -2), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_phase_stats(NULL, 0, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase_stats(&c, -1, NULL), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}

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

static void defensive_escaping_and_huge_totals(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int k;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    ttft_tpot_record(&c, k, UINT64_MAX, 0);
    ttft_tpot_record(&c, k, UINT64_MAX, 0);
    /* names are checked on the way in; the JSON writer escapes anyway, should a caller poke one */
    memcpy(c.phase.slots[k].name, "a\x01\xff", 4);
    text = capture(&c, ttft_tpot_report_json);
    assert_non_null(strstr(text, "\"name\":\"a\\u0001\\ufffd\""));
    assert_int_equal(jc_parse(text, &doc), 0);
    /* a total past 2^64 ns still prints as a number */
    assert_near(num_at(&doc, "phases.0.total_ms"), 2.0 * 18446744073709551615.0 / 1e6, 1e3);
    jc_free(&doc);
    free(text);
    ttft_tpot_free(&c);
}

static void text_report_variants(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    int p, k, d, i;
    (void)state;
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    p = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    k = ttft_tpot_phase(&c, "fwd", TTFT_TPOT_ROLE_KERNEL);
    d = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_link_prefill_kernel(&c, k), TTFT_TPOT_OK);
    for (i = 0; i < 3; i++) {
        ttft_tpot_record(&c, p, (uint64_t)(100 - i) * MS, 1);
        ttft_tpot_record(&c, k, (uint64_t)(50 - i) * MS, 0);
    }
    ttft_tpot_record(&c, d, 9 * MS, 1);
    ttft_tpot_record(&c, d, 9 * MS, 1); /* a warmup section: two warmup steps */
    ttft_tpot_warmup_begin(&c);
    ttft_tpot_record(&c, d, 9 * MS, 1);
    ttft_tpot_warmup_end(&c);
    ttft_tpot_record(&c, 77, MS, 0); /* rejected */
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TTFT (steady, p50)    : 98.5")); /* bounded: 99, 98, within 0.8% */
    assert_non_null(strstr(text, "mean 98.50 ms; ")); /* the mean is exact */
    assert_non_null(strstr(text, "; ~ within 0.8%: bounded histogram)"));
    assert_non_null(strstr(text, "excl. 2 warmup steps"));
    assert_non_null(strstr(text, "WARNING: 1 calls rejected"));
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "ttft.prefill_kernel_min_ms", 48);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void streams_that_fail(void **state)
{
    ttft_tpot c;
    FILE *wo = tmpfile();
    FILE *w2;
    char err[128];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, stdout), TTFT_TPOT_EINVAL); /* no timeline */
    assert_int_equal(ttft_tpot_chrome_trace(NULL, stdout), TTFT_TPOT_EINVAL);
    /* reading from a stream opened for writing only: an I/O error, not a parse error */
    fclose(wo);
    w2 = fopen("edges_write_only.csv", "w");
    assert_non_null(w2);
    assert_int_equal(ttft_tpot_trace_read(&c, w2, "w", err, sizeof err), TTFT_TPOT_EIO);
    fclose(w2);
    remove("edges_write_only.csv");
    assert_int_equal(counts(&c).phases, 0);
    ttft_tpot_free(&c);
}

static void trace_oddities(void **state)
{
    ttft_tpot c;
    char err[256];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    /* a stray carriage return where a record starts */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n\rx\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: stray carriage return");
    /* six fields, the wrong names */
    assert_int_equal(trace_str(&c, "a,b,c,d,e,f\n", NULL, err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "(trace):1: missing header"));
    /* no room for the message: still refused */
    assert_int_equal(trace_str(&c, "x\n", "t", NULL, 0), TTFT_TPOT_EPARSE);
    assert_int_equal(trace_str(&c, "x\n", "t", err, 0), TTFT_TPOT_EPARSE);
    /* a comment as the last line, without a newline; two clock lines: the first counts */
    assert_int_equal(trace_str(&c,
                              "# clock: FIRST, 7 ns/read\n# clock: SECOND, 9 ns/read\n"
                              "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,1,0,0\n# end",
                              "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "FIRST");
    assert_int_equal(trace_str(&c, "# clock: THIRD, 5 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n", "t",
                              err, sizeof err),
                     TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "FIRST"); /* the first trace read names the clock */
    assert_int_equal(ttft_tpot_clock_read_ns(&c), 7);
    ttft_tpot_free(&c);
}

/* Past TTFT_TPOT_MAX_RUNS runs (2 here): the run is not marked but counted, its samples join the last
   run, the reports and the trace say so, and a trace's "# run:" lines past the limit count the same. */
static void runs_past_the_limit(void **state)
{
    ttft_tpot c, back;
    char *text, *trace, err[256];
    int d, r;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "d", TTFT_TPOT_ROLE_DECODE);
    for (r = 0; r < 3; r++) {
        assert_int_equal(ttft_tpot_run_begin(&c), r < 2 ? TTFT_TPOT_OK : TTFT_TPOT_EFULL);
        ttft_tpot_record(&c, d, 5 * MS, 1);
    }
    assert_int_equal(counts(&c).runs, 2);
    assert_int_equal(counts(&c).runs_dropped, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 runs not marked (TTFT_TPOT_MAX_RUNS 2): their samples are in the last run"));
    free(text);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# counts: runs_dropped=1"));
    assert_int_equal(ttft_tpot_init(&back, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&back, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&back).runs, 2);
    assert_int_equal(counts(&back).runs_dropped, 1);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# run:\n", "u", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(counts(&back).runs_dropped, 2);
    free(trace);
    ttft_tpot_free(&back);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_fallback_gives_the_same_percentiles),
        cmocka_unit_test(every_error_has_a_name),
        cmocka_unit_test(utf8_edges),
        cmocka_unit_test(configurations_refused),
        cmocka_unit_test(merge_paths),
        cmocka_unit_test(defensive_escaping_and_huge_totals),
        cmocka_unit_test(text_report_variants),
        cmocka_unit_test(streams_that_fail),
        cmocka_unit_test(trace_oddities),
        cmocka_unit_test(runs_past_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
