/* Serving metrics per request (vLLM's definitions), goodput, Prometheus: every figure worked out by
   hand from the timestamps below. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

static void make(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    scfg.max_requests = 8;
    scfg.max_request_events = 32;
    cfg.timeline = 1;
    served(c, s, &cfg, &scfg);
}

/* A: submit 0, tokens at 100 (1), 120 (1), 150 (2) ms: TTFT 100, E2E 150, TPOT 50/3, ITL 20 and 30.
   B: submit 10, 1 token at 60: TTFT 50, E2E 50, no TPOT (one token), no ITL; finishes first.
   C: submit 20, 3 tokens at once at 300: TTFT 280, E2E 280, TPOT 0, no ITL.
   W: a warmup request; I: submitted, no token yet. */
static void serve(ttft_tpot *c)
{
    ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    assert_int_equal(ttft_tpot_warmup_begin(c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "W", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_warmup_end(c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "W", 5 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "B", TTFT_TPOT_POINT_SUBMIT, 10 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "C", TTFT_TPOT_POINT_SUBMIT, 20 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "I", TTFT_TPOT_POINT_SUBMIT, 40 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "B", 60 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 100 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 120 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 150 * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "C", 300 * MS, 3), TTFT_TPOT_OK);
}

/* Each point of a held request read back by its id: A's submit, first, second and last token; none it
   lacks (no schedule, no output mark; I has no token yet), and no unknown point. */
static void request_point_reads_each_point(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_request q;
    (void)state;
    make(&c, &srv);
    serve(&c);
    assert_int_equal(ttft_tpot_request_get(&srv, "A", &q), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SUBMIT), 0);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_FIRST), 100 * MS);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SECOND), 120 * MS);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_LAST), 150 * MS);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SCHEDULE), 0);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_OUTPUT), 0);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_COUNT), 0);
    assert_int_equal(ttft_tpot_request_point(&q, -1), 0);
    assert_int_equal(ttft_tpot_request_point(NULL, TTFT_TPOT_POINT_FIRST), 0);
    assert_int_equal(ttft_tpot_request_get(&srv, "C", &q), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SUBMIT), 20 * MS);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SECOND), 300 * MS); /* 3 tokens at once */
    assert_int_equal(ttft_tpot_request_get(&srv, "I", &q), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_SUBMIT), 40 * MS);
    assert_int_equal(ttft_tpot_request_point(&q, TTFT_TPOT_POINT_FIRST), 0);
    unserve(&c, &srv);
}

static void per_request_metrics(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    jc_value doc;
    (void)state;
    make(&c, &srv);
    serve(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.incomplete", 1);
    assert_ms(&doc, "requests.warmup_excluded", 1);
    /* TTFT 50 100 280 */
    assert_ms(&doc, "requests.ttft_ms.n", 3);
    assert_ms(&doc, "requests.ttft_ms.p50", 100);
    assert_ms(&doc, "requests.ttft_ms.p90", 244);   /* h = 1.8: 100 + 0.8 * 180 */
    assert_ms(&doc, "requests.ttft_ms.p95", 262);   /* h = 1.9 */
    assert_ms(&doc, "requests.ttft_ms.p99", 276.4); /* h = 1.98 */
    assert_near(num_at(&doc, "requests.ttft_ms.mean"), 430.0 / 3, 1e-6);
    assert_ms(&doc, "requests.ttft_ms.min", 50);
    assert_ms(&doc, "requests.ttft_ms.max", 280);
    /* E2E 50 150 280 */
    assert_ms(&doc, "requests.e2e_ms.p50", 150);
    assert_ms(&doc, "requests.e2e_ms.mean", 160);
    /* decode, last token - first token: B 0, A 150 - 100 = 50, C 0 (its three tokens at once) */
    assert_ms(&doc, "requests.decode_ms.n", 3);
    assert_ms(&doc, "requests.decode_ms.p50", 0);
    assert_ms(&doc, "requests.decode_ms.max", 50);
    assert_near(num_at(&doc, "requests.decode_ms.mean"), 50.0 / 3, 1e-6);
    /* TPOT: A (150 - 100) / (4 - 1), C 0; B has one token: none */
    assert_ms(&doc, "requests.tpot_ms.n", 2);
    assert_near(num_at(&doc, "requests.tpot_ms.max"), 50.0 / 3, 1e-6);
    assert_ms(&doc, "requests.tpot_ms.min", 0);
    assert_near(num_at(&doc, "requests.tpot_ms.p50"), 25.0 / 3, 1e-6);
    /* ITL: A's gaps 20 and 30, pooled */
    assert_ms(&doc, "requests.itl_ms.n", 2);
    assert_ms(&doc, "requests.itl_ms.p50", 25);
    assert_ms(&doc, "requests.itl_ms.p99", 29.9);
    /* window: first submit 0 to last token 300 of the measured requests */
    assert_ms(&doc, "requests.window_ms", 300);
    assert_ms(&doc, "requests.request_throughput_rps", 10);         /* 3 / 0.3 s */
    assert_near(num_at(&doc, "requests.output_throughput_tok_s"), 8 / 0.3, 1e-9); /* 4 + 1 + 3 tokens */
    assert_true(is_null_at(&doc, "requests.goodput"));
    jc_free(&doc);
    unserve(&c, &srv);
}

/* vLLM's definitions where a token event carries several tokens (speculative decoding streams
   accepted draft tokens together), on the example of its benchmark's documentation: first token at
   100 ms, one more at 140, then three at 180. ITL takes the gaps between events only (two of 40 ms,
   no zero-length gaps inside the last); TPOT spreads the decode time over every token after the
   first: (180 - 100) / (5 - 1) = 20 ms. */
static void several_tokens_an_event_as_vllm_defines_them(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    jc_value doc;
    ttft_tpot_config cfg;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 100 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 140 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 180 * MS, 3), TTFT_TPOT_OK);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.ttft_ms.p50", 100);
    assert_ms(&doc, "requests.itl_ms.n", 2);
    assert_ms(&doc, "requests.itl_ms.mean", 40);
    assert_ms(&doc, "requests.itl_ms.min", 40);
    assert_ms(&doc, "requests.tpot_ms.p50", 20);
    assert_ms(&doc, "requests.e2e_ms.p50", 180);
    assert_ms(&doc, "requests.output_throughput_tok_s", 5 / 0.18);
    jc_free(&doc);
    unserve(&c, &srv);
}

/* The exposition with vLLM's names and no label, as a string to free(). */
static int prometheus_plain(const ttft_tpot *c, FILE *out)
{
    return prometheus(c, out, NULL, NULL);
}

/* Time to second token (TTST): the token event that brings a request to 2 tokens, minus its submit.
   In serve(): A's second token comes at 120 ms (1 at 100, 1 at 120): 120; C's three come at once at
   300, submitted at 20: 280; B has one token: none. {120, 280}: p50 200, p90 120 + 0.9 * 160 = 264,
   p99 278.4, mean 200. Buckets (TTFT's): 120 ms <= 0.25 s, 280 ms <= 0.5 s. */
static void ttst_is_the_second_token(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    uint64_t v[4];
    size_t n;
    char *text;
    (void)state;
    make(&c, &srv);
    serve(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.ttst_ms.n", 2);
    assert_ms(&doc, "requests.ttst_ms.p50", 200);
    assert_ms(&doc, "requests.ttst_ms.p90", 264);
    assert_ms(&doc, "requests.ttst_ms.p99", 278.4);
    assert_ms(&doc, "requests.ttst_ms.mean", 200);
    assert_ms(&doc, "requests.ttst_ms.min", 120);
    assert_ms(&doc, "requests.ttst_ms.max", 280);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "  TTST p50/p90/p99: 200.00 ms / 264.00 ms / 278.40 ms  (mean 200.00 ms, n=2)"));
    free(text);
    text = capture(&c, prometheus_plain);
    assert_non_null(strstr(text, "ttft_tpot:time_to_second_token_seconds_bucket{le=\"0.1\"} 0\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_second_token_seconds_bucket{le=\"0.25\"} 1\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_second_token_seconds_bucket{le=\"0.5\"} 2\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_second_token_seconds_sum 0.400000000\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_second_token_seconds_count 2\n"));
    free(text);
    assert_int_equal(ttft_tpot_metric_values(&srv, TTFT_TPOT_METRIC_TTST, v, 4, &n), TTFT_TPOT_OK);
    assert_true(n == 2 && v[0] == 120 * MS && v[1] == 280 * MS);
    scfg.max_requests = 8;
    scfg.max_request_events = 32;
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    unserve(&c, &srv);
}

static void goodput_under_slos(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_slo slo = {100, 10, 0};
    ttft_tpot_requests q;
    jc_value doc;
    char *text;
    (void)state;
    make(&c, &srv);
    serve(&c);
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_OK);
    /* A: TTFT 100 <= 100 (the edge counts), TPOT 16.7 > 10: bad. B: TTFT 50, no TPOT: good. C: TTFT 280: bad */
    assert_int_equal(ttft_tpot_requests_summary(&srv, &q), TTFT_TPOT_OK);
    assert_int_equal(q.good_n, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.goodput.n", 1);
    assert_near(num_at(&doc, "requests.goodput.fraction"), 1.0 / 3, 1e-12);
    assert_near(num_at(&doc, "requests.goodput.rps"), 1 / 0.3, 1e-9);
    jc_free(&doc);
    slo.tpot_ms = 0; /* E2E <= 150 instead: A (150, the edge) and B good, C not */
    slo.e2e_ms = 150;
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_requests_summary(&srv, &q), TTFT_TPOT_OK);
    assert_int_equal(q.good_n, 2);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "Serving: 3 requests measured (1 warmup and 1 incomplete excluded), window 300.00 ms"));
    assert_non_null(strstr(text, "  TTFT p50/p90/p99: 100.00 ms / 244.00 ms / 276.40 ms  (mean 143.33 ms, n=3)"));
    assert_non_null(strstr(text, "  Throughput: 10.00 req/s, 26.7 output tok/s"));
    assert_non_null(strstr(text, "  Goodput (TTFT <= 100 ms, E2E <= 150 ms): 2 of 3 good (66.7%), 6.67 good req/s"));
    free(text);
    slo.e2e_ms = -1;
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_ERANGE);
    slo.e2e_ms = NAN;
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_ERANGE);
    slo.e2e_ms = INFINITY;
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_slo(NULL, slo), TTFT_TPOT_EINVAL);
    unserve(&c, &srv);
}

static void request_calls_refused(void **state)
{
    ttft_tpot c, none;
    ttft_tpot_serve srv, srv_none;
    (void)state;
    make(&c, &srv);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "ghost", 5, 1), TTFT_TPOT_EREQUEST); /* unknown */
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 200),
                     TTFT_TPOT_EREQUEST); /* second submit */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 50, 1), TTFT_TPOT_EREQUEST);  /* before submit */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 300, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 250, 1), TTFT_TPOT_EREQUEST); /* before its last */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 300, 0), TTFT_TPOT_EINVAL);   /* no token */
    assert_int_equal(ttft_tpot_request_mark(&srv, "bad\n", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_request_mark(&srv, "0123456789012345678901234567890123456789012345678901234567890123",
                                            TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW),
                     TTFT_TPOT_ENAME); /* 64 bytes */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "", TTFT_TPOT_NOW, 1), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_request_mark(&srv, NULL, TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_request_mark(NULL, "x", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_EINVAL);
    assert_int_equal(counts(&c).rejected, 4);
    ttft_tpot_enable(&c, 0);
    assert_int_equal(ttft_tpot_request_mark(&srv, "off", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW),
                     TTFT_TPOT_OK); /* disabled: nothing */
    assert_int_equal(counts(&c).requests, 1);
    unserve(&c, &srv);
    /* no request table: every submit is counted as dropped, and the report says so */
    served(&none, &srv_none, NULL, NULL);
    assert_int_equal(ttft_tpot_request_mark(&srv_none, "x", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_EFULL);
    assert_int_equal(counts(&none).requests_dropped, 1);
    {
        char *text = capture(&none, ttft_tpot_report);
        assert_non_null(strstr(text, "WARNING: 1 request dropped"));
        free(text);
    }
    unserve(&none, &srv_none);
}

static void empty_and_incomplete_runs(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    jc_value doc;
    (void)state;
    make(&c, &srv);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "requests")); /* no request seen */
    jc_free(&doc);
    assert_int_equal(ttft_tpot_request_mark(&srv, "waiting", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_OK);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 0);
    assert_ms(&doc, "requests.incomplete", 1);
    assert_true(is_null_at(&doc, "requests.ttft_ms"));
    assert_true(is_null_at(&doc, "requests.window_ms"));
    assert_true(is_null_at(&doc, "requests.request_throughput_rps"));
    jc_free(&doc);
    ttft_tpot_clear(&c);
    assert_int_equal(counts(&c).requests, 0);
    assert_int_equal(ttft_tpot_request_mark(&srv, "waiting", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW),
                     TTFT_TPOT_OK); /* the id is free again */
    unserve(&c, &srv);
}

static void requests_round_trip_and_bad_lines(void **state)
{
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"ghost,token,5,0,1,0\n", "t:2: token for unknown request ghost"},
        {"r,submit,5,0,0,0\nr,submit,6,0,0,0\n", "t:3: second submit of request r"},
        {"r,submit,5,0,0,0\nr,token,4,0,1,0\n", "t:3: token before its request's submit or previous token: r"},
        {"r,submit,5,7,0,0\n", "t:2: a request event has dur_ns 0, not 7"},
        {"r,submit,5,0,1,0\n", "t:2: a submit has 0 tokens"},
        {"r,submit,5,0,0,0\nr,token,6,0,0,0\n", "t:3: a token event has 1 token or more"},
        {"r,submit,5,0,0,1\nr,token,6,0,1,0\n", "t:3: warmup flag differs from the request's submit: r"},
        {"live,token,900000000,0,1,0\nx,token,1,0,1,0\n", "t:3: token for unknown request x"}, /* rolls back */
    };
    ttft_tpot a, b;
    ttft_tpot_serve srv_a, srv_b;
    char *ja, *jb, err[256];
    FILE *f;
    size_t i;
    (void)state;
    make(&a, &srv_a);
    make(&b, &srv_b);
    serve(&a);
    record(&a, ttft_tpot_phase(&a, "decode", TTFT_TPOT_ROLE_DECODE), MS, 1);
    f = tmpfile();
    assert_int_equal(ttft_tpot_trace_write(&a, f), TTFT_TPOT_OK);
    rewind(f);
    assert_int_equal(ttft_tpot_trace_read(&b, f, "t", err, sizeof err), TTFT_TPOT_OK);
    fclose(f);
    b.clock_read_ns = a.clock_read_ns; /* each measured its own at init */
    ja = capture(&a, report_json);
    jb = capture(&b, report_json);
    assert_string_equal(ja, jb);
    free(ja);
    free(jb);
    unserve(&b, &srv_b);
    /* bad request lines: an error with the line, and the collector as it was */
    make(&b, &srv_b);
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "live", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    ja = capture(&b, report_json);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "phase,role,start_ns,dur_ns,tokens,warmup\n%s", bad[i].text);
        if (trace_str(&b, text, "t", err, sizeof err) != TTFT_TPOT_EPARSE || strcmp(err, bad[i].err) != 0)
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, bad[i].err);
        jb = capture(&b, report_json);
        assert_string_equal(ja, jb);
        free(jb);
    }
    free(ja);
    unserve(&a, &srv_a);
    unserve(&b, &srv_b);
}

static void merged_requests(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_serve srv_a, srv_b;
    ttft_tpot_requests q;
    (void)state;
    make(&a, &srv_a);
    make(&b, &srv_b);
    serve(&a);
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "Z", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv_b, "Z", 600 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_requests_summary(&srv_a, &q), TTFT_TPOT_OK);
    assert_int_equal(q.n, 4);
    assert_near(q.window_ns, 600.0 * MS, 0);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_EREQUEST); /* Z is there already */
    unserve(&a, &srv_a);
    served(&a, &srv_a, NULL, NULL); /* no request table: no room */
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_EFULL);
    assert_int_equal(counts(&a).requests, 0);
    unserve(&a, &srv_a);
    unserve(&b, &srv_b);
}

/* A merge into a table full of finished requests folds them away to make room, as a submit does: a
   holds 4 of 4, finished; 3 requests of b would not fit once half of a's (window 2) are folded, and the
   refused merge folds nothing; b's 1 request fits, every figure counting all 5. */
static void merge_folds_to_make_room(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_serve srv_a, srv_b;
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    jc_value doc;
    char id[8];
    int i;
    (void)state;
    sc.max_requests = 4;
    served(&a, &srv_a, NULL, &sc);
    served(&b, &srv_b, NULL, &sc);
    for (i = 0; i < 4; i++) {
        snprintf(id, sizeof id, "a%d", i);
        assert_int_equal(ttft_tpot_request_mark(&srv_a, id, TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv_a, id, (uint64_t)(i + 1) * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_finish(&srv_a, id, TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "b", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv_b, "b", 9 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "c", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "d", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_EFULL); /* 3: folding makes room for 2 */
    json_of(&a, &doc); /* refused: nothing changed, nothing folded */
    assert_ms(&doc, "requests.n", 4);
    assert_ms(&doc, "requests.folded.requests", 0);
    jc_free(&doc);
    unserve(&b, &srv_b);
    served(&b, &srv_b, NULL, &sc);
    assert_int_equal(ttft_tpot_request_mark(&srv_b, "b", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv_b, "b", 9 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    json_of(&a, &doc);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.folded.requests", 2);
    jc_free(&doc);
    assert_int_equal(counts(&a).requests_dropped, 0);
    unserve(&a, &srv_a);
    unserve(&b, &srv_b);
}

/* The value of a series line "name{...} value" in text, or -1. */
static double series(const char *text, const char *line_start)
{
    const char *p = strstr(text, line_start);
    if (!p)
        return -1;
    return strtod(p + strlen(line_start), NULL);
}

static void prometheus_exposition(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    char *text, *p, *line;
    double prev = -1;
    FILE *f;
    long len;
    (void)state;
    make(&c, &srv);
    serve(&c);
    f = tmpfile();
    assert_int_equal(prometheus(&c, f, NULL, "model_name=\"tiny\""), TTFT_TPOT_OK);
    len = ftell(f);
    rewind(f);
    text = (char *)malloc((size_t)len + 1);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    /* TTFT 0.05, 0.1, 0.28 s: le 0.08 holds 1, le 0.1 holds 2 (inclusive), le 0.5 all 3 */
    assert_near(series(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"tiny\",le=\"0.08\"} "), 1, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"tiny\",le=\"0.1\"} "), 2, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"tiny\",le=\"0.25\"} "), 2, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"tiny\",le=\"0.5\"} "), 3, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_bucket{model_name=\"tiny\",le=\"+Inf\"} "), 3, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_count{model_name=\"tiny\"} "), 3, 0);
    assert_near(series(text, "vllm:time_to_first_token_seconds_sum{model_name=\"tiny\"} "), 0.43, 1e-9);
    assert_near(series(text, "vllm:inter_token_latency_seconds_bucket{model_name=\"tiny\",le=\"0.025\"} "), 1, 0);
    assert_near(series(text, "vllm:inter_token_latency_seconds_count{model_name=\"tiny\"} "), 2, 0);
    assert_near(series(text, "vllm:request_success_total{model_name=\"tiny\",finished_reason=\"\"} "), 3, 0);
    assert_near(series(text, "vllm:request_decode_time_seconds_count{model_name=\"tiny\"} "), 3, 0);
    assert_near(series(text, "vllm:request_decode_time_seconds_sum{model_name=\"tiny\"} "), 0.05, 1e-9);
    assert_near(series(text, "vllm:generation_tokens_total{model_name=\"tiny\"} "), 8, 0);
    /* every histogram's buckets never decrease, and +Inf equals _count */
    for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') {
            prev = -1;
            continue;
        }
        p = strrchr(line, ' ');
        if (strstr(line, "_bucket{")) {
            double v = strtod(p + 1, NULL);
            assert_true(v >= prev);
            prev = v;
        } else if (strstr(line, "_count{")) {
            assert_near(strtod(p + 1, NULL), prev, 0);
        }
    }
    free(text);
    assert_int_equal(prometheus(&c, stdout, "bad prefix", NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(prometheus(&c, stdout, NULL, "a=\"}\""), TTFT_TPOT_EINVAL);
    assert_int_equal(prometheus(NULL, stdout, NULL, NULL), TTFT_TPOT_EINVAL);
    {   /* a model without the exposition's histograms: the same JSON, no exposition */
        ttft_tpot_model_options o = TTFT_TPOT_ZERO;
        ttft_tpot_model full, lean;
        FILE *a = tmpfile(), *b = tmpfile();
        char *ja, *jb;
        o.skip = TTFT_TPOT_SKIP_EXPOSITION;
        assert_int_equal(ttft_tpot_model_compute(&c, NULL, &full), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_model_compute(&c, &o, &lean), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_model_prometheus(&lean, stdout, NULL, NULL), TTFT_TPOT_EINVAL);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(ttft_tpot_model_write(&full, a, TTFT_TPOT_FORMAT_JSON), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_model_write(&lean, b, TTFT_TPOT_FORMAT_JSON), TTFT_TPOT_OK);
        ja = written(a), jb = written(b);
        assert_string_equal(ja, jb);
        free(ja), free(jb);
        ttft_tpot_model_free(&full);
        ttft_tpot_model_free(&lean);
    }
    unserve(&c, &srv);
}

/* A finished request of one token counts in the exposition's TPOT as 0, as vLLM observes it (vLLM's
   mean time per output token is 0 without a second token); the report's TPOT, a figure of requests of
   two tokens or more, leaves it out, and so does the exposition while it runs. A: submit 0, tokens at
   10 and 30 ms, finished: TPOT 20 ms. B: submit 0, one token at 20 ms, finished: 0. U: one token at
   25 ms, running. */
static void one_token_request_counts_in_tpot_as_zero(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    jc_value doc;
    char *text;
    (void)state;
    make(&c, &srv);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "U", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "B", 20 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "U", 25 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 30 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "B", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    text = capture(&c, prometheus_plain);
    assert_near(series(text, "vllm:request_time_per_output_token_seconds_count "), 2, 0);
    assert_near(series(text, "vllm:request_time_per_output_token_seconds_sum "), 0.02, 1e-12);
    assert_near(series(text, "vllm:request_time_per_output_token_seconds_bucket{le=\"0.0001\"} "), 1, 0);
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.tpot_ms.n", 1);
    jc_free(&doc);
    unserve(&c, &srv);
}

/* config.engine: the label engine="..." on every series, after model_name (or alone), as vLLM labels
   each engine's; labels that name it again are refused, and so is an engine over 31 bytes. */
static void the_engine_label(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char *text;
    (void)state;
    scfg.max_requests = 4;
    scfg.model_name = "m";
    scfg.engine = "0";
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    text = capture(&c, prometheus_plain);
    assert_non_null(strstr(text, "\nvllm:time_to_first_token_seconds_bucket{model_name=\"m\",engine=\"0\",le=\"+Inf\"} 1\n"));
    assert_non_null(strstr(text, "\nvllm:request_success_total{model_name=\"m\",engine=\"0\",finished_reason=\"stop\"} 1\n"));
    assert_int_equal(prometheus(&c, stdout, NULL, "engine=\"1\""), TTFT_TPOT_EINVAL);
    free(text);
    unserve(&c, &srv);
    scfg.model_name = NULL;
    scfg.engine = "e\"1";
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    text = capture(&c, prometheus_plain);
    assert_non_null(strstr(text, "\nvllm:num_requests_waiting{engine=\"e\\\"1\"} 1\n"));
    free(text);
    unserve(&c, &srv);
    scfg.engine = "0123456789012345678901234567890123";
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, &scfg), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}

/* A server's state beside its histograms: A scheduled, given a token and finished; B given a token
   (running, not scheduled); C and D only submitted (waiting); E refused, the table (4) full. The
   collector names its model: every series carries model_name, its quote escaped. */
static void in_flight_refused_and_the_model_name(void **state)
{
    static const char *const want[] = {
        "ttft_tpot:request_refused_total{model_name=\"llama \\\"8B\\\"\"} 1\n",
        "ttft_tpot:request_dropped_total{model_name=\"llama \\\"8B\\\"\"} 1\n",
        "vllm:num_requests_running{model_name=\"llama \\\"8B\\\"\"} 1\n",
        "vllm:num_requests_waiting{model_name=\"llama \\\"8B\\\"\"} 2\n",
        "# TYPE vllm:num_requests_waiting gauge\n",
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *text, *live, *read_back, *trace, err[256];
    FILE *f;
    size_t i;
    long len;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.model_name = "llama \"8B\"";
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 1 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 2 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 1 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "B", 3 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 2 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SUBMIT, 3 * MS), TTFT_TPOT_OK);
    /* full, and none finished to fold away: refused */
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SUBMIT, 4 * MS), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv, "A", 16), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv, "B", 8), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv, "A", 16), TTFT_TPOT_EREQUEST); /* once */
    assert_int_equal(ttft_tpot_request_prompt(&srv, "C", 0), TTFT_TPOT_EINVAL);
    text = capture_prom(&c);
    /* the prompts of the requests with a token (A and B), finished or not, as vLLM counts them */
    assert_non_null(strstr(text, "vllm:prompt_tokens_total{model_name=\"llama \\\"8B\\\"\"} 24\n"));
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(text, want[i]))
            fail_msg("no %s in\n%s", want[i], text);
    assert_non_null(strstr(text, "vllm:request_success_total{model_name=\"llama \\\"8B\\\"\",finished_reason=\"\"} 2\n")); /* measured */
    f = tmpfile();
    assert_int_equal(ttft_tpot_publish(&srv, pub, f, NULL, NULL), TTFT_TPOT_OK);
    len = ftell(f);
    rewind(f);
    live = (char *)calloc(1, (size_t)len + 1);
    assert_int_equal(fread(live, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(live, want[i]));
    assert_non_null(strstr(live, "vllm:request_success_total{model_name=\"llama \\\"8B\\\"\",finished_reason=\"\"} 1\n")); /* finished */
    assert_non_null(strstr(live, "vllm:prompt_tokens_total{model_name=\"llama \\\"8B\\\"\"} 24\n"));
    /* a trace keeps who finished: its exposition's gauges are the live collector's */
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# prompt_tokens: 16,A\n# finished: A\n# prompt_tokens: 8,B\n"));
    served(&back, &srv_back, &cfg, &scfg);
    assert_int_equal(trace_str(&back, trace, "t.csv", err, sizeof err), TTFT_TPOT_OK);
    read_back = capture_prom(&back);
    assert_string_equal(read_back, text);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# finished: Z\n", "t.csv", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # finished: a request not submitted earlier in this trace: Z"));
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# prompt_tokens: 0,A\n", "t.csv", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # prompt_tokens: expected N (1 to 4294967295),ID"));
    /* two huge prompts would wrap prompt_tokens_total: a prompt is at most 2^32 - 1 tokens, as a span's */
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n"
                                      "# prompt_tokens: 9223372036854775808,A\n", "t.csv", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # prompt_tokens: expected N (1 to 4294967295),ID"));
    assert_int_equal(ttft_tpot_request_prompt(&srv, "B", 4294967296ull), TTFT_TPOT_EINVAL);
    {
        jc_value doc;
        json_of(&back, &doc);
        assert_ms(&doc, "requests.prompt_tokens", 24);
        jc_free(&doc);
    }
    /* a label of the same name as the collector's is refused; so is a model name a label cannot hold */
    assert_int_equal(prometheus(&c, stdout, NULL, "model_name=\"x\""), TTFT_TPOT_EINVAL);
    unserve(&back, &srv_back);
    assert_int_equal(ttft_tpot_init(&back, &cfg), TTFT_TPOT_OK);
    scfg.model_name = "a{b}";
    assert_int_equal(ttft_tpot_serve_attach(&srv_back, &back, &scfg), TTFT_TPOT_EINVAL);
    scfg.model_name = "x\n";
    assert_int_equal(ttft_tpot_serve_attach(&srv_back, &back, &scfg), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&back);
    free(text);
    free(live);
    free(read_back);
    free(trace);
    free(pub);
    unserve(&c, &srv);
}

/* The exposition a publisher writes now, as a string; publishing it again into memory gives the same
   bytes (nothing finished in between) where a byte is to spare past its NUL, and ENOMEM and "" where
   none is (it may have been cut). */
static char *publish_str(const ttft_tpot_serve *s, ttft_tpot_publisher *pub)
{
    FILE *f = tmpfile();
    char *text, *again;
    long len;
    assert_non_null(f);
    assert_int_equal(ttft_tpot_publish(s, pub, f, NULL, NULL), TTFT_TPOT_OK);
    len = ftell(f);
    rewind(f);
    text = (char *)calloc(1, (size_t)len + 1);
    again = (char *)malloc((size_t)len + 2);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    assert_int_equal(ttft_tpot_publish_buffer(s, pub, again, (size_t)len + 2, NULL, NULL), TTFT_TPOT_OK);
    assert_string_equal(again, text);
    assert_int_equal(ttft_tpot_publish_buffer(s, pub, again, (size_t)len + 1, NULL, NULL), TTFT_TPOT_ENOMEM);
    assert_string_equal(again, "");
    assert_int_equal(ttft_tpot_publish_buffer(s, pub, again, 0, NULL, NULL), TTFT_TPOT_EINVAL);
    free(again);
    return text;
}

/* A trace read into back (set up from cfg, its serving layer back_s from scfg; left set up) publishes
   live, as a first publisher does, and, with model, writes that report exposition: a folded server's
   trace is the live server. */
static void assert_reads_back_live(ttft_tpot *back, ttft_tpot_serve *back_s, const ttft_tpot_config *cfg,
                                   const ttft_tpot_serve_config *scfg, const char *trace, const char *live,
                                   const char *model)
{
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char err[256], *text;
    assert_non_null(pub);
    served(back, back_s, cfg, scfg);
    if (trace_str(back, trace, "t.csv", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
    text = publish_str(back_s, pub);
    assert_string_equal(text, live);
    free(text);
    if (model) {
        text = capture_prom(back);
        assert_string_equal(text, model);
        free(text);
    }
    free(pub);
}

/* Each line of want in both the live exposition and the report's. */
static void assert_both_hold(const char *live, const char *model, const char *const *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!strstr(live, want[i]))
            fail_msg("live: no %s in\n%s", want[i], live);
        if (!strstr(model, want[i]))
            fail_msg("report: no %s in\n%s", want[i], model);
    }
}

/* Each line of want in s's live exposition (published by pub) and in c's report exposition; the live
   one returned (the caller frees it). */
static char *assert_exposed(const ttft_tpot_serve *s, ttft_tpot_publisher *pub, const ttft_tpot *c,
                            const char *const *want, size_t n)
{
    char *live = publish_str(s, pub), *model = capture_prom(c);
    assert_both_hold(live, model, want, n);
    free(model);
    return live;
}

enum { SERVE_REASONS = 1, SERVE_WARMUP_FIRST = 2 };

/* Ten requests r0..r9, one at a time 100 ms apart, each 3 tokens at +10, +12 and +15 ms, 7 prompt
   tokens, finished: with SERVE_REASONS, request i with reason i % 5 (none, stop, length, abort,
   error); with SERVE_WARMUP_FIRST, r0 submitted inside a warmup section. */
static void serve_ten(ttft_tpot *c, unsigned how)
{
    ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    char id[8];
    unsigned i;
    for (i = 0; i < 10; i++) {
        uint64_t t = i * 100 * MS;
        snprintf(id, sizeof id, "r%u", i);
        if (i == 0 && (how & SERVE_WARMUP_FIRST))
            assert_int_equal(ttft_tpot_warmup_begin(c), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_mark(s, id, TTFT_TPOT_POINT_SUBMIT, t), TTFT_TPOT_OK);
        if (i == 0 && (how & SERVE_WARMUP_FIRST))
            assert_int_equal(ttft_tpot_warmup_end(c), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(s, id, t + 10 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(s, id, t + 12 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(s, id, t + 15 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_prompt(s, id, 7), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_finish(s, id, how & SERVE_REASONS ? (int)(i % 5) : 0), TTFT_TPOT_OK);
    }
}

/* A server serves more requests than its table holds: the finished ones fold away, every one stays
   counted and bucketed, and a trace of it reads back to the same exposition. Ten requests, one at a
   time, each 3 tokens at +10, +12 and +15 ms: TTFT 10 ms, ITL 2 and 3 ms, TPOT 2.5 ms, E2E 15 ms,
   decode 5 ms. Table of 4, window 1: at the 5th submit 4 are done, 1 kept (and at most half: 2), so
   r0-r2 fold; at the 8th, r3-r5; the table ends with r6-r9. */
static void finished_requests_fold_away(void **state)
{
    static const char *const want[] = {
        "vllm:request_success_total{finished_reason=\"\"} 10\n",
        "vllm:generation_tokens_total 30\n",
        "vllm:prompt_tokens_total 70\n",
        "vllm:time_to_first_token_seconds_count 10\n",
        "vllm:time_to_first_token_seconds_sum 0.100000000\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.01\"} 10\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.0082\"} 0\n",
        "vllm:inter_token_latency_seconds_count 20\n",
        "vllm:inter_token_latency_seconds_sum 0.050000000\n",
        "vllm:inter_token_latency_seconds_bucket{le=\"0.0022\"} 10\n",
        "vllm:inter_token_latency_seconds_bucket{le=\"0.0033\"} 20\n",
        "vllm:request_time_per_output_token_seconds_sum 0.025000000\n",
        "vllm:e2e_request_latency_seconds_sum 0.150000000\n",
        "vllm:request_decode_time_seconds_sum 0.050000000\n",
        "vllm:num_requests_running 0\n",
        "ttft_tpot:request_refused_total 0\n",
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace, err[256];
    ttft_tpot_request q;
    jc_value doc;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.request_window = 1;
    served(&c, &srv, &cfg, &scfg);
    serve_ten(&c, 0);
    assert_int_equal(srv.req.n, 4); /* held: the rest folded */
    assert_int_equal(ttft_tpot_request_get(&srv, "r9", &q), TTFT_TPOT_OK); /* held: its points */
    assert_int_equal(q.first_ns - q.submit_ns, 10 * MS);
    assert_int_equal(q.tokens, 3);
    assert_int_equal(ttft_tpot_request_get(&srv, "r0", &q), TTFT_TPOT_EREQUEST); /* folded away */
    assert_int_equal(ttft_tpot_request_get(&srv, NULL, &q), TTFT_TPOT_EINVAL);
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    json_of(&c, &doc); /* exact over the 4 held; the 6 folded counted */
    assert_ms(&doc, "requests.n", 4);
    assert_ms(&doc, "requests.folded.requests", 6);
    assert_ms(&doc, "requests.folded.tokens", 18);
    assert_ms(&doc, "requests.folded.prompt_tokens", 42);
    assert_ms(&doc, "requests.folded.other", 0);
    assert_ms(&doc, "requests.ttft_ms.n", 4);
    assert_ms(&doc, "requests.ttft_ms.p50", 10);
    jc_free(&doc);
    /* the trace carries the folded requests: its exposition and its report's are the live ones */
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# folded: 6,18,42,0,0,0,0,0,0\n"));
    assert_non_null(strstr(trace, "\n# folded_metric: ttft_ms,6,0,60000000,"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, model);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# folded_metric: ttft_ms,1,0,5,3:2\n",
                               "t.csv", err, sizeof err), TTFT_TPOT_EPARSE); /* 2 values in buckets, of 1 */
    assert_non_null(strstr(err, "t.csv:2: # folded_metric: expected KEY,COUNT,SUM_HI,SUM_LO,I:C"));
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# folded: 1,2,3\n", "t.csv", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # folded: expected REQUESTS,TOKENS"));
    /* a clear ends the report's interval, not the live counters */
    ttft_tpot_clear(&c);
    free(live);
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "vllm:request_success_total{finished_reason=\"\"} 10\n"));
    free(model);
    model = capture_prom(&c);
    assert_non_null(strstr(model, "vllm:request_success_total{finished_reason=\"\"} 0\n"));
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* The event log full makes room too: 4 events a request (a submit, 3 tokens), a log of 8. The first
   request is a warmup one: folded away, it is counted among the others, in no figure. Every later
   submit finds the log full and folds the older finished request (of 2 done, 1 kept). */
static void a_full_event_log_folds_too(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live;
    jc_value doc;
    unsigned i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 64;
    scfg.max_request_events = 8;
    served(&c, &srv, &cfg, &scfg);
    serve_ten(&c, SERVE_WARMUP_FIRST);
    assert_int_equal(srv.req.n, 2);
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "vllm:request_success_total{finished_reason=\"\"} 9\n")); /* the warmup one is not counted */
    assert_non_null(strstr(live, "vllm:inter_token_latency_seconds_count 18\n"));
    assert_non_null(strstr(live, "ttft_tpot:request_dropped_total 0\n"));
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 2);
    assert_ms(&doc, "requests.folded.requests", 7);
    assert_ms(&doc, "requests.folded.other", 1);
    assert_ms(&doc, "requests.truncated", 0);
    jc_free(&doc);
    /* a request that never finishes is never folded: the log fills with it and it is truncated */
    assert_int_equal(ttft_tpot_request_mark(&srv, "open", TTFT_TPOT_POINT_SUBMIT, 2000 * MS), TTFT_TPOT_OK);
    for (i = 0; i < 8; i++)
        (void)ttft_tpot_request_tokens(&srv, "open", (2001 + i) * MS, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.truncated", 1);
    jc_free(&doc);
    free(live);
    free(pub);
    unserve(&c, &srv);
}

/* Why requests finished: A stop (TTFT 10 ms), B length (20 ms), C aborted after a token (30 ms), D an
   error before any, E no reason given (40 ms). C and D are in no figure and no histogram: TTFT over
   A, B, E: n 3, sum 70 ms; each reason counted once, also through a trace. C's token was made:
   generation_tokens_total counts it, as vLLM's does. */
static void finish_reasons_count_and_failures_stay_out(void **state)
{
    static const char *const want[] = {
        "vllm:request_success_total{finished_reason=\"\"} 1\n",
        "vllm:request_success_total{finished_reason=\"stop\"} 1\n",
        "vllm:request_success_total{finished_reason=\"length\"} 1\n",
        "vllm:request_success_total{finished_reason=\"abort\"} 1\n",
        "vllm:request_success_total{finished_reason=\"error\"} 1\n",
        "vllm:time_to_first_token_seconds_count 3\n",
        "vllm:time_to_first_token_seconds_sum 0.070000000\n",
        "vllm:generation_tokens_total 4\n",
    };
    static const char *const ids[5] = {"A", "B", "C", "D", "E"};
    static const int reason[5] = {TTFT_TPOT_FINISH_STOP, TTFT_TPOT_FINISH_LENGTH, TTFT_TPOT_FINISH_ABORT,
                                  TTFT_TPOT_FINISH_ERROR, TTFT_TPOT_FINISH_NONE};
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace, *text, err[256];
    jc_value doc;
    size_t i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 8;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 5; i++) {
        assert_int_equal(ttft_tpot_request_mark(&srv, ids[i], TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
        if (i != 3)
            assert_int_equal(ttft_tpot_request_tokens(&srv, ids[i], (i + 1 - (i == 4)) * 10 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(reason[i] ? ttft_tpot_request_finish(&srv, ids[i], reason[i])
                                   : ttft_tpot_request_finish(&srv, ids[i], TTFT_TPOT_FINISH_NONE),
                         TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_COUNT), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", -1), TTFT_TPOT_EINVAL);
    assert_null(ttft_tpot_finish_reason_name(TTFT_TPOT_FINISH_COUNT));
    assert_string_equal(ttft_tpot_finish_reason_name(TTFT_TPOT_FINISH_ABORT), "abort");
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.incomplete", 0);
    assert_ms(&doc, "requests.ttft_ms.n", 3);
    assert_ms(&doc, "requests.ttft_ms.max", 40);
    assert_ms(&doc, "requests.finish_reasons.none", 1);
    assert_ms(&doc, "requests.finish_reasons.stop", 1);
    assert_ms(&doc, "requests.finish_reasons.length", 1);
    assert_ms(&doc, "requests.finish_reasons.abort", 1);
    assert_ms(&doc, "requests.finish_reasons.error", 1);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "NOTE: 1 aborted and 1 errored requests: in no latency figure"));
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# finished: C\n# finish_reason: abort,C\n"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, NULL);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# finish_reason: done,A\n", "t.csv",
                               err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # finish_reason: expected stop, length, abort, error or repetition"));
    free(live);
    free(model);
    free(text);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* How many times needle occurs in text. */
static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (; (text = strstr(text, needle)) != NULL; text++)
        n++;
    return n;
}

/* ttft_tpot_serve_config.buckets vllm: vLLM 0.33's bounds alone. The ten requests of serve_ten: TTFT
   10 ms in le 0.01 (vLLM's TTFT bounds 0.001 0.005 0.01 ...), ITL 2 and 3 ms both in le 0.01 (vLLM's
   ITL bounds start there: 0.01 0.025 ...), the 19 bounds and +Inf each once. A trace
   of a fine collector reads into a vllm one exactly (each fine bucket lies in one of vLLM's); the
   other way is refused, not approximated. Collectors of two bound sets do not merge. */
static void vllm_buckets_alone(void **state)
{
    static const char *const want[] = {
        "vllm:time_to_first_token_seconds_bucket{le=\"0.005\"} 0\n",
        "vllm:time_to_first_token_seconds_bucket{le=\"0.01\"} 10\n",
        "# TYPE vllm:inter_token_latency_seconds histogram\nvllm:inter_token_latency_seconds_bucket{le=\"0.01\"} 20\n",
        "vllm:inter_token_latency_seconds_bucket{le=\"80.0\"} 20\nvllm:inter_token_latency_seconds_bucket{le=\"+Inf\"} 20\n",
        "vllm:e2e_request_latency_seconds_bucket{le=\"0.3\"} 10\n",
        "Buckets: vLLM's bounds.",
    };
    ttft_tpot fine, vllm, back;
    ttft_tpot_serve srv_fine, srv_vllm, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace, err[256];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.request_window = 1;
    scfg.buckets = 2;
    assert_int_equal(ttft_tpot_init(&vllm, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv_vllm, &vllm, &scfg), TTFT_TPOT_EINVAL);
    scfg.buckets = TTFT_TPOT_BUCKETS_VLLM;
    assert_int_equal(ttft_tpot_serve_attach(&srv_vllm, &vllm, &scfg), TTFT_TPOT_OK);
    serve_ten(&vllm, 0);
    live = publish_str(&srv_vllm, pub);
    model = capture_prom(&vllm);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    assert_null(strstr(live, "le=\"0.0012\"")); /* no E12 bound */
    assert_int_equal(count_of(live, "vllm:inter_token_latency_seconds_bucket{"), 20);
    assert_int_equal(count_of(live, "vllm:time_to_first_token_seconds_bucket{"), 23);
    assert_int_equal(count_of(live, "vllm:e2e_request_latency_seconds_bucket{"), 22);
    /* a fine collector's trace, read by a vllm one: the same exposition as the vllm collector's own */
    scfg.buckets = TTFT_TPOT_BUCKETS_FINE;
    served(&fine, &srv_fine, &cfg, &scfg);
    serve_ten(&fine, 0);
    assert_int_equal(ttft_tpot_merge(&vllm, &fine), TTFT_TPOT_EINVAL);
    trace = capture(&fine, ttft_tpot_trace_write);
    scfg.buckets = TTFT_TPOT_BUCKETS_VLLM;
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, NULL);
    unserve(&back, &srv_back);
    free(trace);
    /* a vllm collector's trace carries its bounds; a fine reader refuses to spread its buckets */
    trace = capture(&vllm, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# buckets: vllm-0.33\n# folded: "));
    scfg.buckets = TTFT_TPOT_BUCKETS_FINE;
    served(&back, &srv_back, &cfg, &scfg);
    assert_int_equal(trace_str(&back, trace, "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "# folded_metric: the trace's buckets are vLLM's bounds, coarser than this"));
    unserve(&back, &srv_back);
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&fine, &srv_fine);
    unserve(&vllm, &srv_vllm);
}

/* Every bound of both sets, as the exposition writes it, is its value in ns (read back to the ns),
   with a decimal point: "1.0", never "1" (prometheus_client's spelling; tests/python checks each
   against prometheus_client itself). */
static void bounds_as_written_are_their_ns(void **state)
{
    int set, m;
    size_t i;
    (void)state;
    for (set = TTFT_TPOT_BUCKETS_FINE; set <= TTFT_TPOT_BUCKETS_VLLM; set++) {
        ttft_tpot c;
        ttft_tpot_serve srv;
        ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
        ttft_tpot_config cfg;
        ttft_tpot_model model;
        const ttft_tpot_serve_model *f;
        memset(&cfg, 0, sizeof cfg);
        scfg.max_requests = 4;
        scfg.buckets = set;
        served(&c, &srv, &cfg, &scfg);
        assert_int_equal(ttft_tpot_model_compute(&c, NULL, &model), TTFT_TPOT_OK);
        assert_non_null(f = ttft_tpot_serve_figures(&model));
        for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
            for (i = 0; i < f->buckets[m].n; i++) {
                const char *le = f->buckets[m].le[i];
                size_t len = strlen(le);
                uint64_t ns = (uint64_t)(strtod(le, NULL) * 1e9 + 0.5);
                int spelled = strchr(le, '.') && (le[len - 1] != '0' || le[len - 2] == '.'); /* "1.0", "0.25" */
                if (ns != f->buckets[m].le_ns[i] || !spelled)
                    fail_msg("set %d metric %d bound %zu: \"%s\" against %llu ns", set, m, i, le,
                             (unsigned long long)f->buckets[m].le_ns[i]);
            }
        ttft_tpot_model_free(&model);
        unserve(&c, &srv);
    }
}

/* A trace line and the refusal it gets. */
typedef struct refused_line {
    const char *text, *err;
} refused_line;

/* Each of bad (a trace's lines after its header) refused at its line with exactly its message, and
   nothing of it kept: c holds the requests it held. */
static void assert_refused(ttft_tpot *c, const refused_line *bad, size_t n)
{
    uint64_t held = counts(c).requests;
    char text[512], err[256];
    size_t i;
    for (i = 0; i < n; i++) {
        snprintf(text, sizeof text, "phase,role,start_ns,dur_ns,tokens,warmup\n%s", bad[i].text);
        if (trace_str(c, text, "t", err, sizeof err) != TTFT_TPOT_EPARSE || strcmp(err, bad[i].err) != 0)
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, bad[i].err);
        assert_int_equal(counts(c).requests, held);
    }
}

/* Folded lines that contradict each other or the records are refused at their line, and nothing is
   read: more TTFTs than folded requests, a metric with no folded request, a metric twice, a sum its
   buckets cannot make (27.8 h for one TTFT of 100 us at most), and folded counts that wrap the held
   request's (request_success_total would read 0). */
static void contradicting_folded_lines_are_refused(void **state)
{
    static const refused_line bad[] = {
        {"# folded: 1,3,0,0,0,0,0,0,0\n# folded_metric: ttft_ms,7,0,70000,0:7\n",
         "t:3: # folded_metric: more values than the folded requests of the # folded: lines before it can have: ttft_ms"},
        {"# folded_metric: ttft_ms,1,0,5,0:1\n",
         "t:2: # folded_metric: more values than the folded requests of the # folded: lines before it can have: ttft_ms"},
        {"# folded: 2,2,0,0,0,0,0,0,0\n# folded_metric: ttft_ms,1,0,5,0:1\n# folded_metric: ttft_ms,1,0,5,0:1\n",
         "t:4: # folded_metric: a second line for ttft_ms"},
        {"# folded: 1,1,0,0,0,0,0,0,0\n# folded_metric: ttft_ms,1,0,100000000000000,0:1\n",
         "t:3: # folded_metric: a sum no values in its buckets can make: ttft_ms"},
        {"# folded: 2,2,0,0,0,0,0,0,0\n# folded_metric: itl_ms,1,0,5,0:1\n",
         "t:3: # folded_metric: more values than the folded requests of the # folded: lines before it can have: itl_ms"},
        {"A,submit,0,0,0,0\nA,token,10,0,2,0\n# finished: A\n# folded: 18446744073709551615,1,0,0,0,0,0,0,0\n",
         "t:5: # folded: its counts beside the requests held pass 2^64 - 1 (request_success_total or a token counter "
         "would wrap)"},
    };
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char err[256];
    (void)state;
    scfg.max_requests = 8;
    served(&c, &srv, NULL, &scfg);
    assert_refused(&c, bad, sizeof bad / sizeof bad[0]); /* none kept: 0 requests */
    /* what they become when they agree: read */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n# folded: 2,5,0,0,0,0,0,0,0\n"
                                   "# folded_metric: ttft_ms,2,0,100,0:2\n# folded_metric: itl_ms,3,0,30,0:3\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    unserve(&c, &srv);
}

/* A trace of 0.3 says "# buckets: vllm" for the bounds 0.3 took for vLLM's: ITL and TPOT with 7 more
   below 10 ms (0.0005 0.001 0.002 0.003 ...). Its folded buckets keep that meaning: ITL 2 and 3 ms
   (indexes 2 and 3 there) and TPOT 2 ms read into vLLM 0.33's le 0.01, TTFT 10 ms (index 2 of the
   same TTFT bounds) into le 0.01; the trace written back names vLLM 0.33's bounds. A fine collector
   refuses them, as it refuses vLLM 0.33's. */
static void old_vllm_buckets_keep_their_meaning(void **state)
{
    static const char old[] = "phase,role,start_ns,dur_ns,tokens,warmup\n# buckets: vllm\n# folded: 4,16,28,0,0,1,1,1,1\n"
                              "# folded_metric: ttft_ms,4,0,40000000,2:4\n# folded_metric: tpot_ms,4,0,8192000000,2:4\n"
                              "# folded_metric: itl_ms,8,0,20000000,2:4 3:4\n";
    static const char *const want[] = {
        "vllm:time_to_first_token_seconds_bucket{le=\"0.005\"} 0\nvllm:time_to_first_token_seconds_bucket{le=\"0.01\"} 4\n",
        "vllm:request_time_per_output_token_seconds_bucket{le=\"0.01\"} 4\n",
        "vllm:inter_token_latency_seconds_bucket{le=\"0.01\"} 8\n",
    };
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    char *prom, *trace, err[256];
    size_t i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.buckets = TTFT_TPOT_BUCKETS_VLLM;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(trace_str(&c, old, "t.csv", err, sizeof err), TTFT_TPOT_OK);
    prom = capture_prom(&c);
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(prom, want[i]))
            fail_msg("no %s in\n%s", want[i], prom);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# buckets: vllm-0.33\n"));
    assert_non_null(strstr(trace, "# folded_metric: itl_ms,8,0,20000000,0:8\n"));
    unserve(&c, &srv);
    scfg.buckets = TTFT_TPOT_BUCKETS_FINE;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(trace_str(&c, old, "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "# folded_metric: the trace's buckets are vLLM's bounds, coarser than this"));
    unserve(&c, &srv);
    free(prom);
    free(trace);
}

/* A request stopped by repetition detection (vLLM's "repetition") finished normally: A repetition
   (TTFT 10 ms), B stop (20 ms), then C (30 ms, no reason) over a table of 2 (window 1), so that A is
   folded. All three are in the figures (TTFT n 3, sum 60 ms) and each reason is counted, live, in the
   model's exposition, the JSON, and back from a trace, whose "# folded:" line then has a tenth value. */
static void repetition_is_a_finish_reason(void **state)
{
    static const char *const want[] = {
        "vllm:request_success_total{finished_reason=\"\"} 1\n",
        "vllm:request_success_total{finished_reason=\"stop\"} 1\n",
        "vllm:request_success_total{finished_reason=\"repetition\"} 1\n",
        "vllm:request_success_total{finished_reason=\"abort\"} 0\n",
        "vllm:time_to_first_token_seconds_count 3\n",
        "vllm:time_to_first_token_seconds_sum 0.060000000\n",
    };
    static const char *const ids[3] = {"A", "B", "C"};
    static const int reason[3] = {TTFT_TPOT_FINISH_REPETITION, TTFT_TPOT_FINISH_STOP, TTFT_TPOT_FINISH_NONE};
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace;
    jc_value doc;
    int i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 2;
    scfg.request_window = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_string_equal(ttft_tpot_finish_reason_name(TTFT_TPOT_FINISH_REPETITION), "repetition");
    for (i = 0; i < 3; i++) {
        assert_int_equal(ttft_tpot_request_mark(&srv, ids[i], TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, ids[i], (uint64_t)(i + 1) * 10 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_finish(&srv, ids[i], reason[i]), TTFT_TPOT_OK);
    }
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.folded.requests", 1);
    assert_ms(&doc, "requests.ttft_ms.n", 2); /* the requests held */
    assert_ms(&doc, "requests.finish_reasons.repetition", 1);
    assert_ms(&doc, "requests.finish_reasons.stop", 1);
    assert_ms(&doc, "requests.finish_reasons.none", 1);
    jc_free(&doc);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# folded: 1,1,0,0,0,0,0,0,0,1\n"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, NULL);
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* What the driver tells (TTFT_TPOT_TOLD) is written from the start, 0 until told, as vLLM writes it;
   then a counter adds (preemptions 2 + 3 = 5), a gauge takes the last value (waiting for capacity 3,
   then 1), the KV cache usage 0.8245 is written as prometheus_client writes the float. What is
   refused changes nothing. A trace carries what was told ("# told:"), and reads back to the same live
   exposition; a merge adds the counters and takes the gauges its source was told. */
static void what_the_driver_tells_is_written_from_the_start(void **state)
{
    static const char *const before[] = {
        "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc 0.0\n",
        "# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total 0\n",
        ("vllm:num_requests_waiting_by_reason{reason=\"capacity\"} 0\n"
         "vllm:num_requests_waiting_by_reason{reason=\"deferred\"} 0\n"),
    };
    static const char *const after[] = {
        "vllm:kv_cache_usage_perc 0.8245\n",
        "vllm:num_preemptions_total 5\n",
        "vllm:prefix_cache_queries_total 1000\n",
        "vllm:prefix_cache_hits_total 400\n",
        "vllm:prompt_tokens_cached_total 400\n",
        "vllm:num_requests_waiting_by_reason{reason=\"capacity\"} 1\n",
        "vllm:num_requests_waiting_by_reason{reason=\"deferred\"} 0\n",
    };
    ttft_tpot c, back, other;
    ttft_tpot_serve srv, srv_back, srv_other;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace, err[256];
    volatile double zero = 0;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 8;
    served(&c, &srv, &cfg, &scfg);
    live = assert_exposed(&srv, pub, &c, before, sizeof before / sizeof before[0]);
    assert_int_equal(count_of(live, "# HELP vllm:num_requests_waiting_by_reason "), 1);
    free(live);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_KV_CACHE_USAGE, 0.8245), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREEMPTIONS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREEMPTIONS, 3), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREFIX_CACHE_QUERIES, 1000), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREFIX_CACHE_HITS, 400), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PROMPT_TOKENS_CACHED, 400), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_WAITING_CAPACITY, 3), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_WAITING_CAPACITY, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_KV_CACHE_USAGE, 1.5), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_KV_CACHE_USAGE, zero / zero), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREEMPTIONS, -1), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREEMPTIONS, 2.5), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PREEMPTIONS, 1 / zero), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_COUNT, 1), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_serve_tell(NULL, TTFT_TPOT_TOLD_PREEMPTIONS, 1), TTFT_TPOT_EINVAL);
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, after, sizeof after / sizeof after[0]);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# told: kv_cache_usage_perc,0.8245\n# told: num_preemptions,5\n"));
    assert_null(strstr(trace, "# told: waiting_deferred"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, model);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# told: kv_cache_usage_perc,1.5\n",
                               "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # told: expected a whole number"));
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# told: nope,1\n", "t.csv", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:2: # told: expected KEY,VALUE"));
    served(&other, &srv_other, &cfg, &scfg);
    assert_int_equal(ttft_tpot_serve_tell(&srv_other, TTFT_TPOT_TOLD_PREEMPTIONS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv_other, TTFT_TPOT_TOLD_KV_CACHE_USAGE, 0.5), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&c, &other), TTFT_TPOT_OK);
    free(live);
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "\nvllm:num_preemptions_total 7\n"));
    assert_non_null(strstr(live, "\nvllm:kv_cache_usage_perc 0.5\n"));
    assert_non_null(strstr(live, "\nvllm:prefix_cache_hits_total 400\n"));
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&other, &srv_other);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* What the driver tells of a request's parameters, vLLM's histograms of them: request_params_max_tokens
   (256, 100 with max_model_len 1000: le 100 1, 200 1, 500 2, 1000 2, sum 356), request_params_n (1 and
   4: vLLM's bounds 1, 2, 5, 10, 20; le 1 1, 2 1, 5 2) and request_max_num_generation_tokens (50); of
   engine steps, iteration_tokens_total (8 and 100 among vLLM's 1, 8, 16, ... 16384: le 8 1, 64 1,
   128 2); the spec decode counters; request_num_preemptions (0, 3 and 7 among vLLM's 1, 2, 3, 4, 5, 10,
   20: le 1 1, 2 1, 3 2, 5 2, 10 3, sum 10). Each written from the start (every bucket 0 until told),
   carried by a trace ("# told_hist:"), added by a merge. */
static void told_histograms_count_each_value(void **state)
{
    static const char *const before[] = {
        "# TYPE vllm:request_params_n histogram\nvllm:request_params_n_bucket{le=\"1.0\"} 0\n",
        "vllm:request_params_n_bucket{le=\"20.0\"} 0\nvllm:request_params_n_bucket{le=\"+Inf\"} 0\n"
        "vllm:request_params_n_sum 0\nvllm:request_params_n_count 0\n",
        "vllm:request_max_num_generation_tokens_bucket{le=\"1000.0\"} 0\n"
        "vllm:request_max_num_generation_tokens_bucket{le=\"+Inf\"} 0\n",
        "vllm:iteration_tokens_total_bucket{le=\"16384.0\"} 0\nvllm:iteration_tokens_total_bucket{le=\"+Inf\"} 0\n",
        "# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total 0\n",
        "vllm:spec_decode_num_accepted_tokens_total 0\n",
        ("# TYPE vllm:request_num_preemptions histogram\nvllm:request_num_preemptions_bucket{le=\"1.0\"} 0\n"
         "vllm:request_num_preemptions_bucket{le=\"2.0\"} 0\nvllm:request_num_preemptions_bucket{le=\"3.0\"} 0\n"
         "vllm:request_num_preemptions_bucket{le=\"4.0\"} 0\nvllm:request_num_preemptions_bucket{le=\"5.0\"} 0\n"
         "vllm:request_num_preemptions_bucket{le=\"10.0\"} 0\nvllm:request_num_preemptions_bucket{le=\"20.0\"} 0\n"
         "vllm:request_num_preemptions_bucket{le=\"+Inf\"} 0\nvllm:request_num_preemptions_sum 0\n"
         "vllm:request_num_preemptions_count 0\n"),
    };
    static const char *const after[] = {
        "vllm:request_params_max_tokens_bucket{le=\"50.0\"} 0\nvllm:request_params_max_tokens_bucket{le=\"100.0\"} 1\n"
        "vllm:request_params_max_tokens_bucket{le=\"200.0\"} 1\nvllm:request_params_max_tokens_bucket{le=\"500.0\"} 2\n"
        "vllm:request_params_max_tokens_bucket{le=\"1000.0\"} 2\nvllm:request_params_max_tokens_bucket{le=\"+Inf\"} 2\n"
        "vllm:request_params_max_tokens_sum 356\nvllm:request_params_max_tokens_count 2\n",
        "vllm:request_params_n_bucket{le=\"1.0\"} 1\nvllm:request_params_n_bucket{le=\"2.0\"} 1\n"
        "vllm:request_params_n_bucket{le=\"5.0\"} 2\nvllm:request_params_n_bucket{le=\"10.0\"} 2\n"
        "vllm:request_params_n_bucket{le=\"20.0\"} 2\nvllm:request_params_n_bucket{le=\"+Inf\"} 2\n"
        "vllm:request_params_n_sum 5\nvllm:request_params_n_count 2\n",
        "vllm:request_max_num_generation_tokens_bucket{le=\"50.0\"} 1\n",
        ("vllm:iteration_tokens_total_bucket{le=\"1.0\"} 0\nvllm:iteration_tokens_total_bucket{le=\"8.0\"} 1\n"
         "vllm:iteration_tokens_total_bucket{le=\"16.0\"} 1\n"),
        "vllm:iteration_tokens_total_bucket{le=\"64.0\"} 1\nvllm:iteration_tokens_total_bucket{le=\"128.0\"} 2\n",
        "vllm:spec_decode_num_draft_tokens_total 12\n",
        ("vllm:request_num_preemptions_bucket{le=\"1.0\"} 1\nvllm:request_num_preemptions_bucket{le=\"2.0\"} 1\n"
         "vllm:request_num_preemptions_bucket{le=\"3.0\"} 2\nvllm:request_num_preemptions_bucket{le=\"4.0\"} 2\n"
         "vllm:request_num_preemptions_bucket{le=\"5.0\"} 2\nvllm:request_num_preemptions_bucket{le=\"10.0\"} 3\n"
         "vllm:request_num_preemptions_bucket{le=\"20.0\"} 3\nvllm:request_num_preemptions_bucket{le=\"+Inf\"} 3\n"
         "vllm:request_num_preemptions_sum 10\nvllm:request_num_preemptions_count 3\n"),
    };
    static const refused_line bad[] = {
        {"# told_hist: kv_cache_usage_perc,1,1,0:1\n", "t:2: # told_hist: not a histogram (# told: KEY,VALUE): "
                                                         "kv_cache_usage_perc"},
        {"# told: params_n,1\n", "t:2: # told: a histogram's values come in # told_hist: lines: params_n"},
        {"# told_hist: params_n,1,1,0:1\n# told_hist: params_n,1,1,0:1\n", "t:3: # told_hist: a second line for params_n"},
        {"# told_hist: params_n,1,50,0:1\n", "t:2: # told_hist: a sum no values in its buckets can make: params_n"},
        {"# told_hist: params_n,1,1,0:1 1:1\n", "t:2: # told_hist: expected KEY,COUNT,SUM,I:C ... with at most COUNT "
                                                "values in the buckets, ascending"},
        {"# told_hist: nope,1,1,0:1\n", "t:2: # told_hist: unknown histogram"},
        {"# told_hist: iteration_tokens,1,20000,13:1\n", "t:2: # told_hist: expected KEY,COUNT,SUM,I:C ... with at "
                                                          "most COUNT values in the buckets, ascending"},
        {"# told_hist: request_num_preemptions,1,30,7:1\n", "t:2: # told_hist: expected KEY,COUNT,SUM,I:C ... with "
                                                             "at most COUNT values in the buckets, ascending"},
        {"# told_hist: request_num_preemptions,1,25,6:1\n", "t:2: # told_hist: a sum no values in its buckets can "
                                                             "make: request_num_preemptions"},
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 8;
    scfg.max_model_len = 1000;
    served(&c, &srv, &cfg, &scfg);
    free(assert_exposed(&srv, pub, &c, before, sizeof before / sizeof before[0]));
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PARAMS_MAX_TOKENS, 256), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PARAMS_MAX_TOKENS, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PARAMS_N, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PARAMS_N, 4), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_PARAMS_N, 1.5), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_MAX_NUM_GENERATION_TOKENS, 50), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_ITERATION_TOKENS, 8), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_ITERATION_TOKENS, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_SPEC_DECODE_DRAFT_TOKENS, 12), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_REQUEST_NUM_PREEMPTIONS, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_REQUEST_NUM_PREEMPTIONS, 3), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_tell(&srv, TTFT_TPOT_TOLD_REQUEST_NUM_PREEMPTIONS, 7), TTFT_TPOT_OK);
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, after, sizeof after / sizeof after[0]);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# told_hist: params_max_tokens,2,356,6:1 8:1\n# told_hist: params_n,2,5,0:1 2:1\n"
                                  "# told_hist: max_num_generation_tokens,1,50,5:1\n"
                                  "# told_hist: iteration_tokens,2,108,1:1 5:1\n"
                                  "# told: spec_decode_num_draft_tokens,12\n"
                                  "# told_hist: request_num_preemptions,3,10,0:1 2:1 5:1\n"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, model);
    assert_refused(&back, bad, sizeof bad / sizeof bad[0]);
    assert_int_equal(ttft_tpot_merge(&c, &back), TTFT_TPOT_OK); /* back holds the trace: each value twice */
    free(live);
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "vllm:request_params_n_sum 10\nvllm:request_params_n_count 4\n"));
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* What the serving layer srv of collector c (made from cfg and scfg) counts, held: each line of want in
   its live exposition and its report's, the trace carries `carried`, and that trace read back publishes
   and reports the same. */
static void assert_counted_and_carried(const ttft_tpot *c, const ttft_tpot_serve *srv, const ttft_tpot_config *cfg,
                                       const ttft_tpot_serve_config *scfg, const char *const *want, size_t n,
                                       const char *carried)
{
    ttft_tpot back;
    ttft_tpot_serve srv_back;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live = publish_str(srv, pub), *model = capture_prom(c), *trace = capture(c, ttft_tpot_trace_write);
    assert_both_hold(live, model, want, n);
    assert_non_null(strstr(trace, carried));
    assert_reads_back_live(&back, &srv_back, cfg, scfg, trace, live, model);
    unserve(&back, &srv_back);
    free(trace);
    free(model);
    free(live);
    free(pub);
}

/* Engine steps counted from the spans that time them, with a serving layer attached: each prefill or
   decode span, its prompt and output tokens, as vLLM's iteration_tokens_total (a prefill of 2 sequences
   and 40 prompt tokens: 42, a first call and counted; a decode step of 2; a step of 5 tokens for 2
   sequences: 5; one of 9 tokens for 2: 9; among 1, 8, 16, 32, 64: le 1 0, 8 2, 16 3, 32 3, 64 4, sum
   58), but a kernel span, a span in a warmup section and a refused one (a prompt on a decode phase).
   With num_speculative_tokens 3, the step of 5 tokens for 2 sequences is vLLM's spec decoding: 2
   drafts, 6 draft tokens, 3 accepted (the tokens past each sequence's one); the step of 9 tokens for 2
   cannot be (at most 4 a sequence with 3 drafts): rejected, counted there not at all. Without it,
   nothing of the spans counts there. A trace carries them ("# told_hist:", "# told:"), and reading it
   back counts nothing twice. */
static void engine_steps_count_from_the_spans(void **state)
{
    static const char *const after[] = {
        ("vllm:iteration_tokens_total_bucket{le=\"1.0\"} 0\nvllm:iteration_tokens_total_bucket{le=\"8.0\"} 2\n"
         "vllm:iteration_tokens_total_bucket{le=\"16.0\"} 3\nvllm:iteration_tokens_total_bucket{le=\"32.0\"} 3\n"
         "vllm:iteration_tokens_total_bucket{le=\"64.0\"} 4\n"),
        "vllm:iteration_tokens_total_sum 58\nvllm:iteration_tokens_total_count 4\n",
        "vllm:spec_decode_num_drafts_total 2\n",
        "vllm:spec_decode_num_draft_tokens_total 6\n",
        "vllm:spec_decode_num_accepted_tokens_total 3\n",
    };
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model;
    int k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.sequences = 1;
    scfg.max_requests = 8;
    for (k = 0; k < 2; k++) {
        int pre, dec, ker;
        ttft_tpot_span s;
        scfg.num_speculative_tokens = k ? 0 : 3;
        served(&c, &srv, &cfg, &scfg);
        pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
        dec = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
        ker = ttft_tpot_phase(&c, "matmul", TTFT_TPOT_ROLE_KERNEL);
        assert_int_equal(record_with(&c, pre, 9 * MS, 2, TTFT_TPOT_NO_SHAPE, 1, 40), TTFT_TPOT_OK);
        assert_int_equal(record(&c, dec, 3 * MS, 2), TTFT_TPOT_OK);
        assert_int_equal(record(&c, ker, 1 * MS, 7), TTFT_TPOT_OK);
        s = ttft_tpot_span_begin_at(&c, dec, 0);
        ttft_tpot_span_set_duration(&s, 4 * MS);
        ttft_tpot_span_set_tokens(&s, 5);
        ttft_tpot_span_set_sequences(&s, 2);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        s = ttft_tpot_span_begin_at(&c, dec, 0);
        ttft_tpot_span_set_duration(&s, 5 * MS);
        ttft_tpot_span_set_tokens(&s, 9);
        ttft_tpot_span_set_sequences(&s, 2);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        assert_int_equal(counts(&c).rejected, k ? 0 : 1); /* the step of 9 tokens for 2, as spec decoding */
        assert_int_equal(record_with(&c, dec, 3 * MS, 1, TTFT_TPOT_NO_SHAPE, 1, 7), TTFT_TPOT_EROLE);
        ttft_tpot_warmup_begin(&c);
        assert_int_equal(record(&c, dec, 3 * MS, 2), TTFT_TPOT_OK);
        ttft_tpot_warmup_end(&c);
        if (k) {
            live = publish_str(&srv, pub);
            model = capture_prom(&c);
            assert_both_hold(live, model, after, 2);
            assert_non_null(strstr(live, "\nvllm:spec_decode_num_drafts_total 0\n"));
            assert_non_null(strstr(live, "\nvllm:spec_decode_num_accepted_tokens_total 0\n"));
            free(live);
            free(model);
        } else {
            assert_counted_and_carried(&c, &srv, &cfg, &scfg, after, sizeof after / sizeof after[0],
                                       "\n# told_hist: iteration_tokens,4,58,1:2 2:1 4:1\n"
                                       "# told: spec_decode_num_drafts,2\n"
                                       "# told: spec_decode_num_draft_tokens,6\n"
                                       "# told: spec_decode_num_accepted_tokens,3\n");
        }
        unserve(&c, &srv);
    }
    free(pub);
}

/* A request's prefill, its prompt tokens less those the prefix cache served, where the driver gives
   both (ttft_tpot_request_cached), counted once it has finished as vLLM's
   request_prefill_kv_computed_tokens: a (100 less 30: 70), b (50, its cached 0 given after its finish),
   d (10 less 4: 6); not c (no cached tokens given), w (a warmup request) nor x (aborted: in none of the
   figures, request_prompt_tokens' included). With max_model_len 100,
   among 1, 2, 5, 10, 20, 50, 100: le 5 0, 10 1, 50 2, 100 3, sum 126. Refused: cached tokens before
   the prompt's or twice (EREQUEST), more than the prompt's (EINVAL). A trace carries the count. */
static void prefill_kv_computed_is_prompt_less_cached(void **state)
{
    static const char *const after[] = {
        "vllm:request_prefill_kv_computed_tokens_bucket{le=\"5.0\"} 0\n"
        "vllm:request_prefill_kv_computed_tokens_bucket{le=\"10.0\"} 1\n",
        "vllm:request_prefill_kv_computed_tokens_bucket{le=\"50.0\"} 2\n"
        "vllm:request_prefill_kv_computed_tokens_bucket{le=\"100.0\"} 3\n",
        "vllm:request_prefill_kv_computed_tokens_sum 126\nvllm:request_prefill_kv_computed_tokens_count 3\n",
    };
    static const char *const ids[] = {"a", "b", "c", "d", "w", "x"};
    static const unsigned prompt[] = {100, 50, 20, 10, 8, 40};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    unsigned i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 8;
    scfg.max_model_len = 100;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 6; i++) {
        if (i == 4)
            ttft_tpot_warmup_begin(&c);
        assert_int_equal(ttft_tpot_request_mark(&srv, ids[i], TTFT_TPOT_POINT_SUBMIT, 10 * MS * i), TTFT_TPOT_OK);
        if (i == 3)
            assert_int_equal(ttft_tpot_request_cached(&srv, "d", 1), TTFT_TPOT_EREQUEST);
        assert_int_equal(ttft_tpot_request_prompt(&srv, ids[i], prompt[i]), TTFT_TPOT_OK);
        if (i == 0 || i >= 4)
            assert_int_equal(ttft_tpot_request_cached(&srv, ids[i], i ? 0 : 30), TTFT_TPOT_OK);
        if (i == 3) {
            assert_int_equal(ttft_tpot_request_cached(&srv, "d", 11), TTFT_TPOT_EINVAL);
            assert_int_equal(ttft_tpot_request_cached(&srv, "d", 4), TTFT_TPOT_OK);
            assert_int_equal(ttft_tpot_request_cached(&srv, "d", 4), TTFT_TPOT_EREQUEST);
        }
        assert_int_equal(ttft_tpot_request_tokens(&srv, ids[i], 10 * MS * i + 5 * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_finish(&srv, ids[i], i == 5 ? TTFT_TPOT_FINISH_ABORT : TTFT_TPOT_FINISH_STOP),
                         TTFT_TPOT_OK);
        if (i == 1)
            assert_int_equal(ttft_tpot_request_cached(&srv, "b", 0), TTFT_TPOT_OK);
        if (i == 4)
            ttft_tpot_warmup_end(&c);
    }
    assert_int_equal(ttft_tpot_request_cached(&srv, "nope", 0), TTFT_TPOT_EREQUEST);
    assert_counted_and_carried(&c, &srv, &cfg, &scfg, after, sizeof after / sizeof after[0],
                               "\n# told_hist: prefill_kv_computed_tokens,3,126,3:1 5:1 6:1\n");
    unserve(&c, &srv);
}

/* A layer of config.no_live (a report tool's) reads trace into the same exposition of its model, and
   refuses to publish live (EINVAL); merged into a live layer, its finished requests are counted live
   there: that layer publishes live, the exposition of the collector the trace came from. */
static void assert_no_live_reports_the_same(const ttft_tpot_config *cfg, const ttft_tpot_serve_config *scfg,
                                            const char *trace, const char *live, const char *model)
{
    ttft_tpot quiet, c;
    ttft_tpot_serve srv_quiet, srv;
    ttft_tpot_serve_config sc = *scfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char buf[64], err[256], *text;
    assert_non_null(pub);
    sc.no_live = 1;
    served(&quiet, &srv_quiet, cfg, &sc);
    assert_int_equal(trace_str(&quiet, trace, "t.csv", err, sizeof err), TTFT_TPOT_OK);
    text = capture_prom(&quiet);
    assert_string_equal(text, model);
    free(text);
    assert_int_equal(ttft_tpot_publish_buffer(&srv_quiet, pub, buf, sizeof buf, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_publish_file(&srv_quiet, pub, "unused.prom", NULL, NULL), TTFT_TPOT_EINVAL);
    served(&c, &srv, cfg, scfg);
    assert_int_equal(ttft_tpot_merge(&c, &quiet), TTFT_TPOT_OK);
    text = publish_str(&srv, pub);
    assert_string_equal(text, live);
    free(text);
    free(pub);
    unserve(&quiet, &srv_quiet);
    unserve(&c, &srv);
}

/* vLLM's token counters count tokens as they are made, not at a finish: a request's tokens as they are
   given, its prompt tokens from its first token, whatever becomes of it, but for a warmup section's.
   W (warmup, 2 tokens) never counts; A (prompt 10) 3 tokens, then aborted; B (prompt 20) waits, then 2
   tokens and stops. The table of 4 (window 1) folds W and A away at D's submit: the trace carries
   A's made tokens in "# folded:" (OTHER_TOKENS 3, OTHER_PROMPT_TOKENS 10). A clear leaves them counted. */
static void token_counters_grow_as_tokens_are_made(void **state)
{
    static const refused_line bad[] = {
        {"# folded: 1,1,0,0,0,0,0,0,0,0,3,10\n", "t:2: # folded: expected REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,"
         "UNMEASURED,STOP,LENGTH,ABORT,ERROR[,REPETITION[,OTHER_TOKENS,OTHER_PROMPT_TOKENS]] (STOP + LENGTH + "
         "REPETITION at most REQUESTS; other tokens of other requests)"},
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.request_window = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_warmup_begin(&c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "W", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "W", 1 * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "W", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 2 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv, "A", 10), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 10 * MS, 3), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 11 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv, "B", 20), TTFT_TPOT_OK);
    live = publish_str(&srv, pub); /* A in flight: counted; B has no token yet: its prompt waits */
    assert_non_null(strstr(live, "\nvllm:prompt_tokens_total 10\n"));
    assert_non_null(strstr(live, "\nvllm:generation_tokens_total 3\n"));
    free(live);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_ABORT), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "B", 20 * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "B", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 21 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SUBMIT, 22 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "C", 30 * MS, 1), TTFT_TPOT_OK);
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, (const char *const[]){"\nvllm:prompt_tokens_total 30\n",
                                                        "\nvllm:generation_tokens_total 6\n"}, 2);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# folded: 0,0,0,0,1,0,0,1,0,0,3,10\n"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, model);
    assert_refused(&back, bad, sizeof bad / sizeof bad[0]);
    assert_no_live_reports_the_same(&cfg, &scfg, trace, live, model);
    free(live);
    ttft_tpot_clear(&c); /* C, in flight, goes with the table; its token stays counted */
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "\nvllm:generation_tokens_total 6\n"));
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* vLLM's request_prompt_tokens and request_generation_tokens: a finished request's prompt tokens
   (where given) and tokens, in vLLM's 1-2-5 bounds up to max_model_len (100: 1, 2, 5, 10, 20, 50,
   100). Six requests over a table of 4 (window 1): r0 prompt 3, 1 token; r1 prompt 7, 4 tokens; r2
   prompt 120, 60 tokens; r3 no prompt, 2 tokens; r4 10 tokens, prompt 2 given after its finish; r5
   aborted (prompt 50, 5 tokens: in no figure). At r4's submit r0-r2 fold away. Prompt: 2, 3, 7, 120:
   le 1 0, 2 1, 5 2, 10 3, 20 3, 50 3, 100 3, +Inf 4, sum 132. Generation: 1, 2, 4, 10, 60: le 1 1,
   2 2, 5 3, 10 4, 20 4, 50 4, 100 5, +Inf 5, sum 77. The folded three travel in "# folded_tokens:"
   lines, which a reader checks against "# folded:". */
static void token_counts_as_vllm_histograms(void **state)
{
    static const char *const want[] = {
        "# TYPE vllm:request_prompt_tokens histogram\n"
        "vllm:request_prompt_tokens_bucket{le=\"1.0\"} 0\nvllm:request_prompt_tokens_bucket{le=\"2.0\"} 1\n"
        "vllm:request_prompt_tokens_bucket{le=\"5.0\"} 2\nvllm:request_prompt_tokens_bucket{le=\"10.0\"} 3\n"
        "vllm:request_prompt_tokens_bucket{le=\"20.0\"} 3\nvllm:request_prompt_tokens_bucket{le=\"50.0\"} 3\n"
        "vllm:request_prompt_tokens_bucket{le=\"100.0\"} 3\nvllm:request_prompt_tokens_bucket{le=\"+Inf\"} 4\n"
        "vllm:request_prompt_tokens_sum 132\nvllm:request_prompt_tokens_count 4\n",
        "# TYPE vllm:request_generation_tokens histogram\n"
        "vllm:request_generation_tokens_bucket{le=\"1.0\"} 1\nvllm:request_generation_tokens_bucket{le=\"2.0\"} 2\n"
        "vllm:request_generation_tokens_bucket{le=\"5.0\"} 3\nvllm:request_generation_tokens_bucket{le=\"10.0\"} 4\n"
        "vllm:request_generation_tokens_bucket{le=\"20.0\"} 4\nvllm:request_generation_tokens_bucket{le=\"50.0\"} 4\n"
        "vllm:request_generation_tokens_bucket{le=\"100.0\"} 5\nvllm:request_generation_tokens_bucket{le=\"+Inf\"} 5\n"
        "vllm:request_generation_tokens_sum 77\nvllm:request_generation_tokens_count 5\n",
        "vllm:prompt_tokens_total 182\n", /* and r5's, made before it was aborted */
        "vllm:generation_tokens_total 82\n",
    };
    static const refused_line bad[] = {
        {"# folded_tokens: request_prompt_tokens,1,3,2:1\n",
         "t:2: # folded_tokens: request_prompt_tokens counts 1 values, more than the 0 # folded: requests"},
        {"# folded: 1,1,3,0,0,0,0,0,0\n# folded_tokens: request_generation_tokens,1,1,0:1\n"
         "# folded_tokens: request_prompt_tokens,1,3,5:1\n",
         "t:4: # folded_tokens: a sum no values in its buckets can make: request_prompt_tokens"},
        {"# folded: 1,1,3,0,0,0,0,0,0\n# folded_tokens: request_generation_tokens,1,1,0:1\n"
         "# folded_tokens: request_generation_tokens,1,1,0:1\n",
         "t:4: # folded_tokens: a second line for request_generation_tokens"},
        {"# folded: 2,3,0,0,0,0,0,0,0\n# folded_tokens: request_generation_tokens,1,2,1:1\n",
         "t:3: # folded_tokens: request_generation_tokens counts 1 values, not the 2 # folded: requests"},
        {"# folded: 1,3,0,0,0,0,0,0,0\n# folded_tokens: request_generation_tokens,1,2,1:1\n",
         "t:3: # folded_tokens: request_generation_tokens sums 2, not the 3 # folded: tokens"},
        {"# folded: 1,1,0,0,0,0,0,0,0\n# folded_tokens: request_generation_tokens,1,1,0:2\n",
         "t:3: # folded_tokens: expected KEY,COUNT,SUM,I:C ... with at most COUNT values in the buckets, ascending"},
        {"# folded_tokens: request_nope,1,1,0:1\n", "t:2: # folded_tokens: unknown histogram"},
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    static const unsigned prompt[6] = {3, 7, 120, 0, 0, 50}, tokens[6] = {1, 4, 60, 2, 10, 5};
    char *live, *model, *trace, id[8], err[256];
    size_t i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.request_window = 1;
    scfg.max_model_len = 100;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 6; i++) {
        uint64_t t = i * 100 * MS;
        snprintf(id, sizeof id, "r%u", (unsigned)i);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, t), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, id, t + 10 * MS, 1), TTFT_TPOT_OK);
        if (tokens[i] > 1)
            assert_int_equal(ttft_tpot_request_tokens(&srv, id, t + 20 * MS, tokens[i] - 1), TTFT_TPOT_OK);
        if (prompt[i])
            assert_int_equal(ttft_tpot_request_prompt(&srv, id, prompt[i]), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_finish(&srv, id, i == 5 ? TTFT_TPOT_FINISH_ABORT : 0), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_request_prompt(&srv, "r4", 2), TTFT_TPOT_OK); /* after its finish */
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    assert_null(strstr(live, "le=\"200.0\""));
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# folded_tokens: request_prompt_tokens,3,130,2:1 3:1 7:1\n"
                                  "# folded_tokens: request_generation_tokens,3,65,0:1 2:1 6:1\n"));
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, model);
    assert_refused(&back, bad, sizeof bad / sizeof bad[0]);
    free(live);
    free(model);
    free(trace);
    unserve(&back, &srv_back);
    /* a merge adds another collector's: prompt 4 (le 5), 3 tokens (le 5) */
    served(&back, &srv_back, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv_back, "o", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv_back, "o", 10 * MS, 3), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_prompt(&srv_back, "o", 4), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv_back, "o", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&c, &back), TTFT_TPOT_OK);
    live = publish_str(&srv, pub);
    assert_non_null(strstr(live, "vllm:request_prompt_tokens_bucket{le=\"5.0\"} 3\n"));
    assert_non_null(strstr(live, "vllm:request_prompt_tokens_sum 136\nvllm:request_prompt_tokens_count 5\n"));
    assert_non_null(strstr(live, "vllm:request_generation_tokens_bucket{le=\"5.0\"} 4\n"));
    free(live);
    unserve(&back, &srv_back);
    /* a trace of folded requests without the lines (0.3 wrote none) leaves both families out: no
       exposition counts requests it cannot bucket; every bound from 1 to 5e9 without max_model_len */
    scfg.max_model_len = 0;
    served(&back, &srv_back, &cfg, &scfg);
    model = capture_prom(&back);
    assert_non_null(strstr(model, "vllm:request_prompt_tokens_bucket{le=\"100000.0\"} 0\n"
                                  "vllm:request_prompt_tokens_bucket{le=\"200000.0\"} 0\n"));
    assert_non_null(strstr(model, "vllm:request_prompt_tokens_bucket{le=\"1e+06\"} 0\n"));
    assert_non_null(strstr(model, "vllm:request_prompt_tokens_bucket{le=\"5e+09\"} 0\n"
                                  "vllm:request_prompt_tokens_bucket{le=\"+Inf\"} 0\n"));
    free(model);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# folded: 2,5,0,0,0,0,0,0,0\n",
                               "t", err, sizeof err), TTFT_TPOT_OK);
    model = capture_prom(&back);
    live = publish_str(&srv_back, pub);
    assert_null(strstr(model, "request_prompt_tokens"));
    assert_null(strstr(live, "request_generation_tokens"));
    assert_non_null(strstr(live, "vllm:generation_tokens_total 5\n"));
    free(model);
    free(live);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* Folded requests keep their reasons: ten requests over a table of 4 (window 1), request i finished
   with reason i % 5 (none, stop, length, abort, error; tokens at +10, +12 and +15 ms): two of each,
   whether held or folded, in the report, the summary, the live exposition and a trace's. A trace's
   "# buckets:" names the bounds of the folded lines after it, and a reason is given once. */
static void folded_requests_keep_their_reasons(void **state)
{
    static const char *const want[] = {
        "vllm:request_success_total{finished_reason=\"\"} 2\n",
        "vllm:request_success_total{finished_reason=\"stop\"} 2\n",
        "vllm:request_success_total{finished_reason=\"length\"} 2\n",
        "vllm:request_success_total{finished_reason=\"abort\"} 2\n",
        "vllm:request_success_total{finished_reason=\"error\"} 2\n",
        "vllm:time_to_first_token_seconds_count 6\n",
        "vllm:inter_token_latency_seconds_count 12\n",
    };
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg;
    ttft_tpot_requests sum;
    ttft_tpot_publisher *pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    char *live, *model, *trace, err[256];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    scfg.max_requests = 4;
    scfg.request_window = 1;
    served(&c, &srv, &cfg, &scfg);
    serve_ten(&c, SERVE_REASONS);
    live = publish_str(&srv, pub);
    model = capture_prom(&c);
    assert_both_hold(live, model, want, sizeof want / sizeof want[0]);
    assert_int_equal(ttft_tpot_requests_summary(&srv, &sum), TTFT_TPOT_OK);
    assert_int_equal(sum.n + sum.folded, 6);
    assert_int_equal(sum.seen, 10);
    assert_int_equal(sum.finish_reasons[TTFT_TPOT_FINISH_ABORT], 2);
    assert_int_equal(sum.finish_reasons[TTFT_TPOT_FINISH_NONE], 2);
    assert_true(sum.folded_other >= 1); /* r3 (abort) and r4 (error) fold at the 5th submit */
    trace = capture(&c, ttft_tpot_trace_write);
    assert_reads_back_live(&back, &srv_back, &cfg, &scfg, trace, live, NULL);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\n# folded: 1,1,0,0,0,0,0,0,0\n"
                                      "# folded_metric: ttft_ms,1,0,5,0:1\n# buckets: vllm\n", "t.csv", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:4: # buckets: after a # folded_metric: line"));
    unserve(&back, &srv_back); /* one with room for another request */
    scfg.max_requests = 8;
    served(&back, &srv_back, &cfg, &scfg);
    assert_int_equal(trace_str(&back, "phase,role,start_ns,dur_ns,tokens,warmup\nq,submit,0,0,0,0\nq,token,5,0,1,0\n"
                                      "# finished: q\n# finish_reason: stop,q\n# finish_reason: stop,q\n",
                               "t.csv", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    if (!strstr(err, "t.csv:6: # finish_reason: a request not finished earlier in this trace, or given"))
        fail_msg("%s", err);
    free(live);
    free(model);
    free(trace);
    free(pub);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* promtool (Debian package prometheus) accepts the exposition: with an underscore prefix, clean;
   with vLLM's names, the only remarks are about the ':' in them. */
static void promtool_accepts_it(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    FILE *f;
    int st;
    char *out;
    (void)state;
    if (shell("command -v promtool >/dev/null 2>&1") != 0) {
        print_message("promtool not found (Debian: apt-get install prometheus): SKIPPED\n");
        skip();
    }
    make(&c, &srv);
    serve(&c);
    f = fopen("requests_metrics.prom", "w");
    assert_int_equal(prometheus(&c, f, "llm_", "model_name=\"tiny\""), TTFT_TPOT_OK);
    fclose(f);
    st = shell("cat requests_metrics.prom | " PROMTOOL_CHECK("promtool.out"));
    out = slurp("promtool.out");
    if (st != 0)
        fail_msg("promtool: %s", out);
    free(out);
    f = fopen("requests_metrics.prom", "w");
    assert_int_equal(prometheus(&c, f, NULL, NULL), TTFT_TPOT_OK);
    fclose(f);
    st = shell("promtool check metrics < requests_metrics.prom 2>&1 | grep -v \"metric names should not contain ':'\" "
               "| grep -v 'iteration_tokens_total non-counter' > promtool.out; test ! -s promtool.out");
    out = slurp("promtool.out");
    if (st != 0)
        fail_msg("promtool: %s", out);
    free(out);
    unserve(&c, &srv);
}

/* The corners: collisions in the id table, full tables, the rollback of tokens already counted,
   a TPOT past 2^54 ns, SLO text, bad ids in traces. */
static void request_edges(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    ttft_tpot_requests q;
    ttft_tpot_slo slo = {0, 5, 7};
    char id[16], err[256], *text, *before, *after;
    int i;
    (void)state;
    scfg.max_requests = 64; /* 64 ids in 128 slots: some must probe past a collision */
    scfg.max_request_events = 130;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 64; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, (uint64_t)i), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, id, (uint64_t)i + 10, 1), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_request_mark(&srv, "one more", TTFT_TPOT_POINT_SUBMIT, 0),
                     TTFT_TPOT_EFULL); /* 64 requests */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r5", 20, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r5", 30, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r5", 40, 1), TTFT_TPOT_EFULL); /* 130 events */
    assert_int_equal(counts(&c).requests_dropped, 2);
    for (i = 0; i < 64; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot__request_find(&srv, id, strlen(id)), i);
    }
    unserve(&c, &srv);
    /* a refused trace after tokens of a request already there: its counts come back as they were */
    make(&c, &srv);
    assert_int_equal(ttft_tpot_request_mark(&srv, "live", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "live", 10, 2), TTFT_TPOT_OK);
    before = capture(&c, report_json);
    assert_int_equal(trace_str(&c,
                               "phase,role,start_ns,dur_ns,tokens,warmup\nlive,token,20,0,3,0\nnew,submit,5,0,0,0\n"
                               "bad\x01id,submit,5,0,0,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:4: invalid request id"));
    after = capture(&c, report_json);
    assert_string_equal(before, after);
    {
        ttft_tpot_request r;
        assert_int_equal(ttft_tpot_request_at(&srv, 0, &r, NULL), TTFT_TPOT_OK);
        assert_int_equal(r.tokens, 2);
        assert_int_equal(ttft_tpot_request_at(&srv, 1, &r, NULL), TTFT_TPOT_EINVAL); /* no such request */
    }
    assert_int_equal(ttft_tpot__request_find(&srv, "new", 3), -1); /* the new one is gone again */
    free(before);
    free(after);
    /* a trace with more requests than the collector holds */
    assert_int_equal(trace_str(&c,
                               "phase,role,start_ns,dur_ns,tokens,warmup\na,submit,1,0,0,0\nb,submit,1,0,0,0\n"
                               "c,submit,1,0,0,0\nd,submit,1,0,0,0\ne,submit,1,0,0,0\nf,submit,1,0,0,0\n"
                               "g,submit,1,0,0,0\nh,submit,1,0,0,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:9: more requests or request events than this collector holds")); /* h: the 9th */
    /* a token 2^60 ns after the first: a TPOT past 2^54 ns saturates instead of wrapping */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "live", (uint64_t)1 << 60, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_requests_summary(&srv, &q), TTFT_TPOT_OK);
    assert_true(q.metric[TTFT_TPOT_METRIC_TPOT].max_ns >= ((uint64_t)1 << 53));
    assert_int_equal(ttft_tpot_requests_summary(NULL, &q), TTFT_TPOT_EINVAL);
    /* the SLO line names each SLO set */
    assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_OK);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "Goodput (TPOT <= 5 ms, E2E <= 7 ms): "));
    free(text);
    assert_int_equal(ttft_tpot_slo_parse(NULL, &slo), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_slo_parse("tpot=1e20", &slo), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_slo_parse("e2e=2.5,ttft=1", &slo), TTFT_TPOT_OK);
    assert_near(slo.e2e_ms, 2.5, 0);
    assert_near(slo.ttft_ms, 1, 0);
    unserve(&c, &srv);
}

/* The TTFT series of the requests, measured like a decode phase (test_metrics: steady_state_measured):
   25 requests whose TTFTs come in batches of 5 at 100, 50, 10, 12, 8 ms, none in a warmup section:
   MSER-5 cuts 10, and the p50 after the cut is 10 ms. */
static void request_warmup_measured(void **state)
{
    static const uint64_t batch[5] = {100, 50, 10, 12, 8};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char id[16], *text;
    int i;
    (void)state;
    scfg.max_requests = 32;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 25; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, (uint64_t)i * 1000 * MS),
                         TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, id, (uint64_t)i * 1000 * MS + batch[i / 5] * MS, 1),
                         TTFT_TPOT_OK);
    }
    json_of(&c, &doc);
    assert_ms(&doc, "requests.steady_state.flagged", 0);
    assert_ms(&doc, "requests.steady_state.mser5_truncation", 10);
    assert_ms(&doc, "requests.steady_state.p50_ms_after_truncation", 10);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "requests: MSER-5 puts the end of warmup at request 10, 10 requests after the 0 "
                                 "flagged; TTFT p50 12.00 ms with them, 10.00 ms without"));
    free(text);
    unserve(&c, &srv);
}

/* The spikes of the requests' TTFT series, found as a decode phase's are (test_metrics:
   a_spike_is_not_a_drift): 200 requests, a second apart, TTFT 3.00 + 0.01 (i mod 3) ms,
   request 170's 9 ms (none flagged: steady p50 of 67 x 3.00, 67 x 3.01, 65 x 3.02 and 9, h = 99.5,
   3.01 ms). The batches are test_metrics' spiky_steps': without the spike White's rule does not fire. */
static void a_request_spike_is_named(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    ttft_tpot_model md;
    jc_value doc;
    char id[16], *text;
    int i;
    (void)state;
    scfg.max_requests = 200;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < 200; i++) {
        uint64_t t = (uint64_t)i * 1000 * MS, v = i == 170 ? 9 * MS : 3 * MS + (uint64_t)(i % 3) * 10000;
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, t), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, id, t + v, 1), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &md), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_figures(&md)->requests_steady_state.white_cut, 0);
    assert_false(ttft_tpot_serve_figures(&md)->requests_steady_state.drift);
    assert_int_equal(ttft_tpot_serve_figures(&md)->requests_steady_state.spikes, 1);
    ttft_tpot_model_free(&md);
    json_of(&c, &doc);
    assert_true(is_bool_at(&doc, "requests.steady_state.no_steady_state", 0));
    assert_ms(&doc, "requests.steady_state.spikes", 1);
    assert_ms(&doc, "requests.steady_state.spike.0.step", 170);
    assert_ms(&doc, "requests.steady_state.spike.0.ms", 9);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "requests: 1 isolated spike: request 170 at 9.00 ms (3.0x the steady p50)\n"));
    assert_null(strstr(text, "no steady state"));
    free(text);
    unserve(&c, &srv);
}


/* 1. The issue's case: three requests of 150 tokens, 10 ms apart, with the default event storage.
   Each: TTFT 10 ms, E2E 1500 ms, TPOT (1500 - 10) / 149 = 10 ms, 149 ITL gaps of 10 ms. */
static void long_generations_fit_the_default(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char id[8];
    int r, k;
    (void)state;
    scfg.max_requests = 3;
    served(&c, &srv, &cfg, &scfg);
    for (r = 0; r < 3; r++) {
        snprintf(id, sizeof id, "r%d", r);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, (uint64_t)r * 10 * MS), TTFT_TPOT_OK);
        for (k = 1; k <= 150; k++)
            assert_int_equal(ttft_tpot_request_tokens(&srv, id, (uint64_t)(r + k) * 10 * MS, 1), TTFT_TPOT_OK);
    }
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.truncated", 0);
    assert_ms(&doc, "requests.dropped", 0);
    assert_ms(&doc, "rejected", 0);
    assert_ms(&doc, "requests.e2e_ms.min", 1500);
    assert_ms(&doc, "requests.e2e_ms.max", 1500);
    assert_ms(&doc, "requests.ttft_ms.p50", 10);
    assert_ms(&doc, "requests.tpot_ms.p99", 10);
    assert_ms(&doc, "requests.itl_ms.n", 447);
    jc_free(&doc);
    unserve(&c, &srv);
}

/* 1. Room for 8 events. A: submit 0, tokens 10, 20; B: submit 5, tokens 30, 40; C: submit 50, tokens
   60, then 70 and 80 do not fit. C is truncated: out of every figure. TTFT A 10, B 25; E2E A 20,
   B 35; ITL 10 and 10. 2 events lost, 1 request dropped (a request counts once, whatever it lost); 10
   would have held them all. */
static void truncated_request_is_left_out(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    (void)state;
    scfg.max_requests = 4;
    scfg.max_request_events = 8;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 20 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 5 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "B", 30 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "B", 40 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 50 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "C", 60 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "C", 70 * MS, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "C", 80 * MS, 1), TTFT_TPOT_EFULL);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 2);
    assert_ms(&doc, "requests.truncated", 1);
    assert_ms(&doc, "requests.dropped", 1);
    assert_ms(&doc, "requests.ttft_ms.p50", 17.5);
    assert_ms(&doc, "requests.e2e_ms.max", 35);
    assert_ms(&doc, "requests.itl_ms.n", 2);
    assert_ms(&doc, "requests.itl_ms.max", 10);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 request truncated"));
    assert_non_null(strstr(text, "config.max_request_events 8"));
    assert_non_null(strstr(text, "10 would hold every event"));
    free(text);
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    unserve(&c, &srv);
}

/* A truncated request that was scheduled and finished (a long-running server with a full event log):
   its trace reads back into the same report. Log of 2: A's submit and first token; its second token
   is lost, then it finishes. The trace puts A's "# truncated:" line and its schedule before its
   "# finished:" line, which a mark may not follow. */
static void truncated_finished_request_reads_back(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char *trace;
    (void)state;
    scfg.max_requests = 4;
    scfg.max_request_events = 2;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 2 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 20 * MS, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_LENGTH), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).requests_dropped, 1);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# finished: A\n"));
    assert_non_null(strstr(trace, "# truncated: 0,0,A\nA,schedule,2000000,0,0,0\n"));
    assert_true(strstr(trace, "# truncated: 0,0,A\n") < strstr(trace, "# finished: A\n"));
    free(trace);
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    unserve(&c, &srv);
}

/* 1. A full request table: the second request is dropped, not rejected, and counted once: its submit
   refused, its token and its finish after it no more drops. */
static void full_request_table_drops_not_rejects(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    (void)state;
    scfg.max_requests = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "a", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "b", TTFT_TPOT_POINT_SUBMIT, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "b", 2, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "b", 3, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_finish(&srv, "b", TTFT_TPOT_FINISH_STOP), TTFT_TPOT_EFULL);
    json_of(&c, &doc);
    assert_ms(&doc, "rejected", 0);
    assert_ms(&doc, "requests.dropped", 1);
    assert_ms(&doc, "requests.refused", 1);
    jc_free(&doc);
    unserve(&c, &srv);
}

/* 8. A request's TPOT past 2^54 ns a token does not saturate: 2 tokens 2^60 ns apart. */
static void request_tpot_does_not_saturate(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char *json;
    (void)state;
    scfg.max_requests = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 1, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 1 + (1ull << 60), 1), TTFT_TPOT_OK);
    json = capture(&c, report_json);
    assert_non_null(strstr(json, "\"tpot_ms\":{\"n\":1,\"mean\":1152921504606.846976,\"p50\":1152921504606.846976"));
    free(json);
    unserve(&c, &srv);
}

/* 9. SLOs are plain decimals: no hex, no exponent, nothing below a nanosecond, no inf or nan. */
static void slo_is_decimal(void **state)
{
    static const char *const bad[] = {"ttft=0x10", "ttft=1e-310", "ttft=1e3", "ttft=inf", "ttft=nan", "ttft=0.0000001",
                                      "ttft=1.", "ttft=.5", "ttft=+1", "ttft= 1", "ttft=1,", "ttft=0",
                                      "ttft=99999999999999" /* past 2^64 ns */};
    ttft_tpot_slo slo;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ttft_tpot_slo_parse(bad[i], &slo) != TTFT_TPOT_EINVAL)
            fail_msg("accepted %s", bad[i]);
    assert_int_equal(ttft_tpot_slo_parse("ttft=1.5,tpot=0.000001,e2e=2500", &slo), TTFT_TPOT_OK);
    assert_true(slo.ttft_ms == 1.5 && slo.tpot_ms == 0.000001 && slo.e2e_ms == 2500);
}

/* An SLO holds at its own value: for each of the 99,999 two-decimal SLOs from 0.01 to 999.99 ms, as
   --slo parses it, a TTFT, a TPOT and an E2E of exactly that many ns meet it, and one ns more does
   not. (4.1 ms was 4.1e-3 * 1e6 = 4099999.9999999995 ns in doubles: 4,100,000 ns missed it.) */
static void slo_holds_at_its_value(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_request *q;
    ttft_tpot_slo slo;
    unsigned k, missed = 0;
    char text[64];
    (void)state;
    scfg.max_requests = 2;
    served(&c, &srv, &cfg, &scfg);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&srv, "A", 1, 1);
    ttft_tpot_request_tokens(&srv, "A", 2, 1);
    q = &srv.req.list[0];
    for (k = 1; k <= 99999; k++) {
        uint64_t ns = (uint64_t)k * 10000, d;
        snprintf(text, sizeof text, "ttft=%u.%02u,tpot=%u.%02u,e2e=%u.%02u", k / 100, k % 100, k / 100, k % 100,
                 k / 100, k % 100);
        assert_int_equal(ttft_tpot_slo_parse(text, &slo), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_serve_slo(&srv, slo), TTFT_TPOT_OK);
        for (d = 0; d < 2; d++) { /* at the SLO, then 1 ns past it */
            q->first_ns = ns + d, q->last_ns = 2 * ns + d, q->tokens = 2;
            missed += ttft_tpot__slo_met(&srv, q, 0) != !d;
            q->first_ns = 0, q->last_ns = ns + d, q->tokens = 2; /* TPOT = E2E - TTFT */
            missed += ttft_tpot__slo_met(&srv, q, 1) != !d;
            q->first_ns = 1, q->last_ns = ns + d;
            missed += ttft_tpot__slo_met(&srv, q, 2) != !d;
        }
        q->first_ns = 1, q->last_ns = 3 * ns + 1, q->tokens = 4; /* TPOT (3 ns) / 3: exactly at it */
        missed += ttft_tpot__slo_met(&srv, q, 1) != 1;
        q->last_ns = 3 * ns + 2; /* 1/3 ns past it */
        missed += ttft_tpot__slo_met(&srv, q, 1) != 0;
    }
    assert_int_equal(missed, 0);
    unserve(&c, &srv);
}

/* Queue time. A: submit 0, scheduled 40, tokens at 100 and 120 ms; B: submit 10, scheduled 10,
   token 60; C: submit 20, scheduled 200, token 300; D: submit 30, never scheduled, token 50.
   Queue (A, B, C): 40, 0, 180 -> sorted 0, 40, 180: p50 40, p90 h = 1.8 -> 40 + 0.8 * 140 = 152,
   mean 73.33; prefill: 60, 50, 100 -> p50 60, p90 60 + 0.8 * 40 = 92, mean 70; inference (schedule to
   last token): 80, 50, 100 -> p50 80, p90 80 + 0.8 * 20 = 96, p99 80 + 0.98 * 20 = 99.6, mean 76.67,
   sum 230. D is unscheduled. */
static void queue_time_splits_ttft(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    (void)state;
    scfg.max_requests = 8;
    served(&c, &srv, &cfg, &scfg);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 10 * MS);
    ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 20 * MS);
    ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SUBMIT, 30 * MS);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 40 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SCHEDULE, 10 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SCHEDULE, 200 * MS), TTFT_TPOT_OK);
    ttft_tpot_request_tokens(&srv, "D", 50 * MS, 1);
    ttft_tpot_request_tokens(&srv, "B", 60 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 100 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 120 * MS, 1);
    ttft_tpot_request_tokens(&srv, "C", 300 * MS, 1);
    /* refused, each counted as rejected: unknown, twice, after the first token, a token before it */
    assert_int_equal(ttft_tpot_request_mark(&srv, "X", TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 50 * MS), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SCHEDULE, 60 * MS), TTFT_TPOT_EREQUEST);
    ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SUBMIT, 400 * MS);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SCHEDULE, 390 * MS), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SCHEDULE, 500 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "E", 450 * MS, 1), TTFT_TPOT_EREQUEST);
    assert_int_equal(counts(&c).rejected, 5);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.queue_ms.n", 3);
    assert_ms(&doc, "requests.queue_ms.p50", 40);
    assert_ms(&doc, "requests.queue_ms.p90", 152);
    assert_ms(&doc, "requests.queue_ms.max", 180);
    assert_ms(&doc, "requests.queue_ms.total", 220);
    assert_ms(&doc, "requests.prefill_ms.p50", 60);
    assert_ms(&doc, "requests.prefill_ms.p90", 92);
    assert_ms(&doc, "requests.prefill_ms.mean", 70);
    assert_ms(&doc, "requests.inference_ms.n", 3);
    assert_ms(&doc, "requests.inference_ms.p50", 80);
    assert_ms(&doc, "requests.inference_ms.p90", 96);
    assert_ms(&doc, "requests.inference_ms.total", 230);
    assert_ms(&doc, "requests.unscheduled", 1);
    assert_ms(&doc, "requests.ttft_ms.n", 4);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "    queue   p50/p90/p99: 40.00 ms / 152.00 ms / 177.20 ms  (mean 73.33 ms, n=3: "
                                 "submit to schedule)"));
    assert_non_null(strstr(text, "    prefill p50/p90/p99: 60.00 ms / 92.00 ms / 99.20 ms  (mean 70.00 ms, n=3: "
                                 "schedule to first token)"));
    assert_non_null(strstr(text, "(1 measured requests have no schedule event: not in queue and prefill)"));
    assert_non_null(strstr(text, "    inference p50/p90/p99: 80.00 ms / 96.00 ms / 99.60 ms  (mean 76.67 ms, n=3: "
                                 "schedule to last token)\n    (1 measured requests have no schedule event: not "
                                 "in inference)\n"));
    free(text);
    text = capture_prom(&c);
    assert_non_null(strstr(text, "# TYPE vllm:request_queue_time_seconds histogram\n"));
    assert_non_null(strstr(text, "vllm:request_queue_time_seconds_bucket{le=\"0.3\"} 3\n"));
    assert_non_null(strstr(text, "vllm:request_queue_time_seconds_sum 0.220000000\n"));
    assert_non_null(strstr(text, "vllm:request_prefill_time_seconds_sum 0.210000000\n"));
    assert_non_null(strstr(text, "vllm:request_prefill_time_seconds_count 3\n"));
    assert_non_null(strstr(text, "vllm:request_inference_time_seconds_sum 0.230000000\n"));
    assert_non_null(strstr(text, "vllm:request_inference_time_seconds_count 3\n"));
    free(text);
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    unserve(&c, &srv);
}

/* Time to first output token (TTFO): a reasoning model's first answer token, marked with
   ttft_tpot_request_mark (TTFT_TPOT_POINT_OUTPUT). A: submit 0, tokens at 100 (1, reasoning), 130 (2,
   the answer begins), 170 ms: TTFO 130. B: submit 10, one token at 60, the answer at once (the form
   at TTFT_TPOT_NOW takes its latest token): TTFO 50. C: submit 20, 3 tokens at 300, no output event:
   no TTFO. D: submit 30, tokens at 200 and 250, output at 250: TTFO 220. W: a warmup request with
   one: left out.
   {50, 130, 220}: p50 130, p90 130 + 0.8 * 90 = 202, p99 130 + 0.98 * 90 = 218.2, mean 400 / 3.
   Buckets (TTFT's): 50 ms <= 0.056 s, 130 ms <= 0.15 s, 220 ms <= 0.22 s; sum 0.4 s. */
static void ttfo(ttft_tpot *c)
{
    ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    assert_int_equal(ttft_tpot_warmup_begin(c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "W", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_warmup_end(c), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "W", 5 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "W", TTFT_TPOT_POINT_OUTPUT, TTFT_TPOT_NOW), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "A", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "B", TTFT_TPOT_POINT_SUBMIT, 10 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "C", TTFT_TPOT_POINT_SUBMIT, 20 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "D", TTFT_TPOT_POINT_SUBMIT, 30 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "B", 60 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "B", TTFT_TPOT_POINT_OUTPUT, TTFT_TPOT_NOW), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 100 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 130 * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "A", TTFT_TPOT_POINT_OUTPUT, 130 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "A", 170 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "D", 200 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "D", 250 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "D", TTFT_TPOT_POINT_OUTPUT, 250 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "C", 300 * MS, 3), TTFT_TPOT_OK);
}

static void ttfo_is_the_first_output_token(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    jc_value doc;
    char *text;
    (void)state;
    make(&c, &srv);
    ttfo(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.ttfo_ms.n", 3);
    assert_ms(&doc, "requests.ttfo_ms.p50", 130);
    assert_ms(&doc, "requests.ttfo_ms.p90", 202);
    assert_ms(&doc, "requests.ttfo_ms.p99", 218.2);
    assert_near(num_at(&doc, "requests.ttfo_ms.mean"), 400.0 / 3, 1e-6);
    assert_ms(&doc, "requests.ttfo_ms.min", 50);
    assert_ms(&doc, "requests.ttfo_ms.max", 220);
    assert_ms(&doc, "requests.ttft_ms.n", 4); /* C has a TTFT, not a TTFO */
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "  TTFO p50/p90/p99: 130.00 ms / 202.00 ms / 218.20 ms  (mean 133.33 ms, n=3)"));
    free(text);
    text = capture(&c, prometheus_plain);
    assert_non_null(strstr(text, "# TYPE ttft_tpot:time_to_first_output_token_seconds histogram\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_bucket{le=\"0.047\"} 0\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_bucket{le=\"0.056\"} 1\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_bucket{le=\"0.15\"} 2\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_bucket{le=\"0.22\"} 3\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_sum 0.400000000\n"));
    assert_non_null(strstr(text, "ttft_tpot:time_to_first_output_token_seconds_count 3\n"));
    free(text);
    text = capture(&c, ttft_tpot_requests_csv); /* its columns after the SLOs' */
    assert_non_null(strstr(text, "slo_tpot,slo_e2e,first_output_ns,ttfo_ns\n"));
    assert_non_null(strstr(text, "\nA,0,,100000000,170000000,4,100000000,23333333.333,170000000,1,,,,130000000,130000000\n"));
    assert_non_null(strstr(text, "\nC,20000000,,300000000,300000000,3,280000000,0.000,280000000,1,,,,,\n"));
    free(text);
    text = capture(&c, ttft_tpot_trace_write); /* after every event row (where its tokens are read), in
                                                  the requests' order */
    assert_non_null(strstr(text, "C,token,300000000,0,3,0\nW,output,5000000,0,0,1\nA,output,130000000,0,0,0\n"
                                 "B,output,60000000,0,0,0\nD,output,250000000,0,0,0\n"));
    free(text);
    text = capture(&c, ttft_tpot_chrome_trace);
    assert_non_null(strstr(text, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":2,\"name\":\"output\",\"cat\":\"request\","
                                 "\"ts\":130000.000,\"args\":{\"request\":\"A\"}}")); /* lane 2: W holds 1 */
    free(text);
    scfg.max_requests = 8;
    scfg.max_request_events = 32;
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    unserve(&c, &srv);
}

/* An output event lies at or after its request's first token and at or before its last, once, on a
   request not finished; each refusal is counted as rejected, and a trace is held to the same. */
static void output_calls_refused(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_request q;
    char err[256];
    (void)state;
    make(&c, &srv);
    assert_int_equal(ttft_tpot_request_mark(&srv, "X", TTFT_TPOT_POINT_OUTPUT, 0),
                     TTFT_TPOT_EREQUEST); /* unknown */
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SUBMIT, 400 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, 400 * MS),
                     TTFT_TPOT_EREQUEST); /* no token yet */
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, TTFT_TPOT_NOW), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "E", 410 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "E", 420 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, 405 * MS),
                     TTFT_TPOT_EREQUEST); /* before the first */
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, 425 * MS),
                     TTFT_TPOT_EREQUEST); /* after the last */
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, 420 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_OUTPUT, 420 * MS),
                     TTFT_TPOT_EREQUEST); /* twice */
    assert_int_equal(ttft_tpot_request_tokens(&srv, "E", 430 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "F", TTFT_TPOT_POINT_SUBMIT, 500 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "F", 510 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_finish(&srv, "F", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "F", TTFT_TPOT_POINT_OUTPUT, TTFT_TPOT_NOW),
                     TTFT_TPOT_EREQUEST); /* finished */
    assert_int_equal(counts(&c).rejected, 7);
    assert_int_equal(ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_LAST, 0), TTFT_TPOT_EINVAL); /* not a mark */
    assert_int_equal(ttft_tpot_request_at(&srv, 0, &q, NULL), TTFT_TPOT_OK);
    assert_true(q.output_ns == 420 * MS && (q.points & TTFT_TPOT_POINT_BIT(OUTPUT)));
    unserve(&c, &srv);
    make(&c, &srv);
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    assert_int_equal(trace_str(&c, H "r,submit,0,0,0,0\nr,output,5,0,0,0\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:3: second output, or one before its request's first token or after its last token: r");
    assert_int_equal(trace_str(&c, H "r,submit,0,0,0,0\nr,token,5,0,1,0\nr,output,6,0,0,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:4: second output, or one before its request's first token or after its last token: r");
    assert_int_equal(trace_str(&c, H "r,submit,0,0,0,0\nr,token,5,0,1,0\nr,output,5,0,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:4: an output event has dur_ns 0 and 0 tokens");
    assert_int_equal(trace_str(&c, H "r,submit,0,0,0,0\nr,token,5,0,1,0\nr,output,5,0,0,0\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(srv.req.list[0].output_ns, 5);
#undef H
    unserve(&c, &srv);
}

/* One row per request. A: submit 1 ms, scheduled 3 ms, tokens at 10, 13 (2), 17 ms: TTFT 9 ms, TPOT
   (17 - 10) / 3 = 2.333 ms, E2E 16 ms; B: submit 2 ms, one token at 40 ms (no TPOT); C: no token yet
   (not measured). SLOs TTFT 10 ms, TPOT 2 ms: A meets TTFT, misses TPOT; B misses TTFT. */
static void requests_as_csv_rows(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot_slo slo = {10, 2, 0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char *csv;
    (void)state;
    scfg.max_requests = 4;
    served(&c, &srv, &cfg, &scfg);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 1 * MS);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 3 * MS);
    ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 13 * MS, 2);
    ttft_tpot_request_tokens(&srv, "A", 17 * MS, 1);
    ttft_tpot_request_mark(&srv, "B,\"x\"", TTFT_TPOT_POINT_SUBMIT, 2 * MS);
    ttft_tpot_request_tokens(&srv, "B,\"x\"", 40 * MS, 1);
    ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 5 * MS);
    ttft_tpot_serve_slo(&srv, slo);
    csv = capture(&c, ttft_tpot_requests_csv);
    assert_string_equal(csv, "id,submit_ns,schedule_ns,first_token_ns,last_token_ns,tokens,ttft_ns,tpot_ns,e2e_ns,"
                             "measured,slo_ttft,slo_tpot,slo_e2e,first_output_ns,ttfo_ns\n"
                             "A,1000000,3000000,10000000,17000000,4,9000000,2333333.333,16000000,1,1,0,,,\n"
                             "\"B,\"\"x\"\"\",2000000,,40000000,40000000,1,38000000,,38000000,1,0,,,,\n"
                             "C,5000000,,,,0,,,,0,,,,,\n");
    free(csv);
    assert_int_equal(ttft_tpot_requests_csv(NULL, stdout), TTFT_TPOT_EINVAL);
    unserve(&c, &srv);
}

/* Ids are often the client's: one that a spreadsheet would run as a formula (= + - @ first; tab
   and CR too, though an id cannot hold them) is written quoted with a ' before it (OWASP's advice);
   other ids, and the trace, keep them as they are. */
static void requests_csv_neutralises_formulas(void **state)
{
    static const char *const ids[] = {"=HYPERLINK(\"http://x\",\"y\")", "+1", "-2", "@SUM(1+1)*cmd", "a=b"};
    static const char *const rows[] = {"\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",", "\"'+1\",", "\"'-2\",",
                                       "\"'@SUM(1+1)*cmd\",", "\na=b,"};
    ttft_tpot_config cfg = {0};
    ttft_tpot c, back;
    ttft_tpot_serve srv, srv_back;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char *csv;
    size_t i;
    FILE *f;
    (void)state;
    scfg.max_requests = 8;
    served(&c, &srv, &cfg, &scfg);
    for (i = 0; i < sizeof ids / sizeof ids[0]; i++)
        assert_int_equal(ttft_tpot_request_mark(&srv, ids[i], TTFT_TPOT_POINT_SUBMIT, (i + 1) * MS), TTFT_TPOT_OK);
    csv = capture(&c, ttft_tpot_requests_csv);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strstr(csv, rows[i]))
            fail_msg("no %s in\n%s", rows[i], csv);
    free(csv);
    f = tmpfile();
    assert_non_null(f);
    assert_int_equal(ttft_tpot_trace_write(&c, f), TTFT_TPOT_OK);
    rewind(f);
    served(&back, &srv_back, &cfg, &scfg);
    assert_int_equal(ttft_tpot_trace_read(&back, f, "t", NULL, 0), TTFT_TPOT_OK);
    fclose(f);
    assert_int_equal(srv_back.req.n, srv.req.n);
    for (i = 0; i < srv_back.req.n; i++)
        assert_string_equal(srv_back.req.list[i].id, ids[i]);
    unserve(&back, &srv_back);
    unserve(&c, &srv);
}

/* A serving run leads with its requests; the driver's own samples follow under a heading of their
   own. A report of requests alone has no sample rows at all (no n/a lines). */
static void serving_report_leads_with_requests(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char *text;
    int pre;
    (void)state;
    scfg.max_requests = 2;
    served(&c, &srv, &cfg, &scfg);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&srv, "A", 20 * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "\nServing: 1 request measured"));
    assert_null(strstr(text, "n/a"));
    assert_null(strstr(text, "Steps ("));
    free(text);
    pre = ttft_tpot_phase(&c, "prefill_fwd", TTFT_TPOT_ROLE_PREFILL);
    record(&c, pre, 15 * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "Steps (the samples of the driver's own spans)\nTTFT (first request)  : 15.00 ms"));
    assert_true(strstr(text, "Serving: 1 request ") < strstr(text, "TTFT (first request)"));
    free(text);
    unserve(&c, &srv);
}

/* The peak of requests at once counts in time from the first submit: times that straddle 2^63 ns
   (A from 2^63 - 100 to 2^63 + 100, B from 2^63 + 50 to 2^63 + 60) give 2, not a wrapped count. */
static void peak_at_any_time(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_model m;
    const uint64_t half = 9223372036854775808ull;
    (void)state;
    scfg.max_requests = 4;
    served(&c, &srv, &cfg, &scfg);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, half - 100);
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, half + 50);
    ttft_tpot_request_tokens(&srv, "B", half + 60, 1);
    ttft_tpot_request_tokens(&srv, "A", half + 100, 1);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_figures(&m)->requests.max_concurrent_requests, 2);
    assert_int_equal(ttft_tpot_serve_figures(&m)->slices[0].peak_in_flight, 2);
    ttft_tpot_model_free(&m);
    unserve(&c, &srv);
}

/* Results over time. A: submit 0, tokens at 0.5 s (1) and 1.2 s (2); B: submit 0.9 s, tokens at 1.5 s
   (3) and 2.1 s (1); C: submit 2.5 s, a token at 2.6 s. 1 s slices: tokens 1, 5, 2 (peak 5 tok/s); in
   flight A [0, 1.2], B [0.9, 2.1], C [2.5, 2.6]: 2, 2, 2, at once 2 at most (0.9 to 1.2 s);
   submitted 2, 0, 1, TTFT p50 (0.5 + 0.6) / 2 = 0.55 s, -, 0.1 s. 500 ms slices: tokens 0, 1, 2, 3,
   1, 1 (peak 6 tok/s), in flight 1, 2, 2, 1, 1, 1. */
static void slices_over_time(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    char *text;
    int k;
    (void)state;
    scfg.max_requests = 4;
    for (k = 0; k < 2; k++) {
        scfg.slice_ns = k ? 500 * MS : 0;
        served(&c, &srv, &cfg, &scfg);
        ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
        ttft_tpot_request_tokens(&srv, "A", 500 * MS, 1);
        ttft_tpot_request_tokens(&srv, "A", 1200 * MS, 2);
        ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 900 * MS);
        ttft_tpot_request_tokens(&srv, "B", 1500 * MS, 3);
        ttft_tpot_request_tokens(&srv, "B", 2100 * MS, 1);
        ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 2500 * MS);
        ttft_tpot_request_tokens(&srv, "C", 2600 * MS, 1);
        text = capture(&c, k ? ttft_tpot_report : report_json);
        if (!k) {
            /* peak_in_flight, the most at once: 2 (A and B from 0.9 s), 2 (both at 1.0 s), 1 (B to 2.1 s,
               then C alone): the headline's 2 is their largest, while in_flight counts 2 in the last
               slice for B and C, which never ran together */
            assert_non_null(strstr(text, "\"max_output_tokens_per_s\":5,\"max_concurrent_requests\":2,\"slice_ms\":1000.0,"
                                         "\"slices\":[{\"start_ms\":0.0,\"tokens\":1,\"output_tok_s\":1,\"in_flight\":2,"
                                         "\"peak_in_flight\":2,"
                                         "\"submitted\":2,\"ttft_p50_ms\":550.0},{\"start_ms\":1000.0,\"tokens\":5,"
                                         "\"output_tok_s\":5,\"in_flight\":2,\"peak_in_flight\":2,\"submitted\":0,"
                                         "\"ttft_p50_ms\":null},"
                                         "{\"start_ms\":2000.0,\"tokens\":2,\"output_tok_s\":2,\"in_flight\":2,"
                                         "\"peak_in_flight\":1,"
                                         "\"submitted\":1,\"ttft_p50_ms\":100.0}]"));
        } else {
            assert_non_null(strstr(text, "  Peak: 6.0 output tok/s (the busiest 500.00 ms slice), 2 concurrent requests\n"
                                         "  Over time (500.00 ms slices from the first submit):\n"));
            assert_non_null(strstr(text, "        0 ns         0.0          1          1  500.00 ms\n"
                                         "   500.00 ms         2.0          2          1  600.00 ms\n"
                                         "      1.00 s         4.0          2          0  -\n"
                                         "      1.50 s         6.0          1          0  -\n"
                                         "      2.00 s         2.0          1          0  -\n"
                                         "      2.50 s         2.0          1          1  100.00 ms\n"));
        }
        free(text);
        unserve(&c, &srv);
    }
}

/* The member key of object o, matched whole (keys such as "p99.9" hold the path's dot). */
static const jc_value *member(const jc_value *o, const char *key)
{
    size_t i;
    for (i = 0; o && o->type == JC_OBJ && i < o->n; i++)
        if (strcmp(o->items[i].key, key) == 0)
            return &o->items[i];
    return NULL;
}

static double member_num(const jc_value *o, const char *key)
{
    const jc_value *v = member(o, key);
    if (!v || v->type != JC_NUM)
        fail_msg("%s: not a number", key);
    return v->num;
}

/* config.percentiles: 1..1000 ms in a phase (h = 999 p / 100) and the requests of serve() (TTFT 50,
   100, 280 ms: h = 2 p / 100; TPOT 0 and 50/3 ms), each chosen percentile worked out by hand. */
static void chosen_percentiles(void **state)
{
    static const char *const bad[] = {"", "90,50", "50,50", "0", "100", "99.9999", "50,", "-1", "5e1", "50 ,90",
                                      "1,2,3,4,5,6,7,8,9", ".5", "50,90x"};
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_stats st;
    jc_value doc;
    double p[TTFT_TPOT_MAX_PERCENTILES];
    char *text, name[8];
    size_t i;
    int k, bounded;
    (void)state;
    assert_string_equal(ttft_tpot_percentile_name(name, sizeof name, 99990), "p99.99");
    assert_string_equal(ttft_tpot_percentile_name(name, sizeof name, 100), "p0.1");
    assert_string_equal(ttft_tpot_percentile_name(name, sizeof name, 5000), "p5");
    assert_string_equal(ttft_tpot_percentile_name(name, 3, 99999), "p9"); /* cut short, still ended */
    assert_int_equal(ttft_tpot_percentiles_parse("50,90,99,99.9", p), TTFT_TPOT_OK);
    assert_true(p[0] == 50 && p[1] == 90 && p[2] == 99 && p[3] == 99.9 && p[4] == 0 && p[7] == 0);
    for (i = 0; i < sizeof bad / sizeof *bad; i++)
        if (ttft_tpot_percentiles_parse(bad[i], p) != TTFT_TPOT_EINVAL || p[0] != 0)
            fail_msg("\"%s\" was taken", bad[i]);
    cfg.percentiles[0] = 99, cfg.percentiles[1] = 50; /* descending */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    cfg.percentiles[0] = 50, cfg.percentiles[1] = 0, cfg.percentiles[2] = 90; /* a gap */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    memset(cfg.percentiles, 0, sizeof cfg.percentiles);
    cfg.percentiles[0] = 0.0001; /* finer than 0.001 */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    cfg.percentiles[0] = 50, cfg.percentiles[1] = 99.9, cfg.percentiles[2] = 99.99;
    for (bounded = 0; bounded < 2; bounded++) {
        cfg.bounded = bounded;
        k = fixture(&c, &cfg, "step", TTFT_TPOT_ROLE_DECODE);
        for (i = 1; i <= 1000; i++)
            assert_int_equal(record(&c, k, (uint64_t)((i * 7 % 1000) + 1) * MS, 1), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_phase_stats(&c, k, &st), TTFT_TPOT_OK);
        assert_int_equal(st.pick_n, 3);
        assert_true(st.pick_pm[0] == 50000 && st.pick_pm[1] == 99900 && st.pick_pm[2] == 99990);
        /* h = 499.5: 500.5 ms; h = 998.001: 999.001 ms; h = 998.9001: 999.9001 ms (a histogram: within 1/128) */
        assert_near((double)st.pick_ns[0], 500.5 * MS, bounded ? 500.5 * MS / 128 : 0);
        assert_near((double)st.pick_ns[1], 999.001 * MS, bounded ? 999.001 * MS / 128 : 0);
        assert_near((double)st.pick_ns[2], 999.9001 * MS, bounded ? 999.9001 * MS / 128 : 0);
        json_of(&c, &doc);
        assert_near(member_num(phase_named(&doc, "step"), "p99.9_ms"), bounded ? (double)st.pick_ns[1] / MS : 999.001,
                    1e-6);
        assert_near(member_num(phase_named(&doc, "step"), "p99.99_ms"), (double)st.pick_ns[2] / MS, 1e-6);
        assert_null(member(phase_named(&doc, "step"), "p50.0_ms")); /* p50 has its key already: once */
        assert_near(member_num(phase_named(&doc, "step"), "p50_ms"), bounded ? st.p50_ns / MS : 500.5, 1e-6);
        jc_free(&doc);
        ttft_tpot_free(&c);
    }
    memset(cfg.percentiles, 0, sizeof cfg.percentiles);
    assert_int_equal(ttft_tpot_percentiles_parse("50,99.9", cfg.percentiles), TTFT_TPOT_OK);
    cfg.bounded = 0;
    scfg.max_requests = 8;
    scfg.max_request_events = 32;
    served(&c, &srv, &cfg, &scfg);
    serve(&c);
    json_of(&c, &doc);
    assert_near(member_num(jc_get(&doc, "requests.ttft_ms"), "p99.9"), 279.64, 1e-9); /* 100 + 0.998 * 180 */
    assert_near(member_num(jc_get(&doc, "requests.tpot_ms"), "p99.9"), 16.65, 1e-9);  /* 0.999 * 50/3 */
    assert_ms(&doc, "requests.ttft_ms.p90", 244);                                    /* the defaults stay */
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "  TTFT p50/p99.9: 100.00 ms / 279.64 ms  (mean 143.33 ms, n=3)\n"));
    assert_non_null(strstr(text, "  TPOT p50/p99.9: 8.33 ms / 16.65 ms  (mean 8.33 ms, n=2)\n"));
    free(text);
    unserve(&c, &srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_request_metrics),
        cmocka_unit_test(request_point_reads_each_point),
        cmocka_unit_test(several_tokens_an_event_as_vllm_defines_them),
        cmocka_unit_test(in_flight_refused_and_the_model_name),
        cmocka_unit_test(finished_requests_fold_away),
        cmocka_unit_test(a_full_event_log_folds_too),
        cmocka_unit_test(finish_reasons_count_and_failures_stay_out),
        cmocka_unit_test(repetition_is_a_finish_reason),
        cmocka_unit_test(what_the_driver_tells_is_written_from_the_start),
        cmocka_unit_test(token_counters_grow_as_tokens_are_made),
        cmocka_unit_test(token_counts_as_vllm_histograms),
        cmocka_unit_test(told_histograms_count_each_value),
        cmocka_unit_test(engine_steps_count_from_the_spans),
        cmocka_unit_test(prefill_kv_computed_is_prompt_less_cached),
        cmocka_unit_test(vllm_buckets_alone),
        cmocka_unit_test(old_vllm_buckets_keep_their_meaning),
        cmocka_unit_test(bounds_as_written_are_their_ns),
        cmocka_unit_test(folded_requests_keep_their_reasons),
        cmocka_unit_test(ttst_is_the_second_token),
        cmocka_unit_test(ttfo_is_the_first_output_token),
        cmocka_unit_test(output_calls_refused),
        cmocka_unit_test(goodput_under_slos),
        cmocka_unit_test(request_calls_refused),
        cmocka_unit_test(empty_and_incomplete_runs),
        cmocka_unit_test(requests_round_trip_and_bad_lines),
        cmocka_unit_test(merged_requests),
        cmocka_unit_test(merge_folds_to_make_room),
        cmocka_unit_test(contradicting_folded_lines_are_refused),
        cmocka_unit_test(prometheus_exposition),
        cmocka_unit_test(one_token_request_counts_in_tpot_as_zero),
        cmocka_unit_test(the_engine_label),
        cmocka_unit_test(promtool_accepts_it),
        cmocka_unit_test(request_edges),
        cmocka_unit_test(request_warmup_measured),
        cmocka_unit_test(a_request_spike_is_named),
        cmocka_unit_test(long_generations_fit_the_default),
        cmocka_unit_test(truncated_request_is_left_out),
        cmocka_unit_test(truncated_finished_request_reads_back),
        cmocka_unit_test(full_request_table_drops_not_rejects),
        cmocka_unit_test(request_tpot_does_not_saturate),
        cmocka_unit_test(chosen_percentiles),
        cmocka_unit_test(slo_is_decimal),
        cmocka_unit_test(queue_time_splits_ttft),
        cmocka_unit_test(requests_as_csv_rows),
        cmocka_unit_test(requests_csv_neutralises_formulas),
        cmocka_unit_test(slo_holds_at_its_value),
        cmocka_unit_test(serving_report_leads_with_requests),
        cmocka_unit_test(slices_over_time),
        cmocka_unit_test(peak_at_any_time),
    };
    return run_cases(tests);
}
