/* Device time and the report model through the serving layer and the tools: traces read back (their
   device lines, refusals and losses; a trace's report equal to the live one), the Prometheus
   exposition and the Chrome trace of device time, and the report model worked by hand on one trace
   with requests. The cases, and the parts of cases, of test_device.c and test_model.c that need
   ttft_tpot_serve.h or ttft_tpot_tools.h; a case named as one there is its part here. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

#include <string.h>

#include "device_setup.h" /* the timeline of test_device.c, device_elapsed(), device_span() */

/* ---- Device time (test_device.c) ------------------------------------------------------------ */

/* Live = replay: the trace carries the intervals, and its report is the live one, byte for byte; a
   reader that knows nothing of device lines (they are comments to it) reads the same samples. */
static void trace_keeps_device_time(void **state)
{
    timeline tl;
    ttft_tpot_config cfg;
    char *trace, *plain, *p, *q;
    ttft_tpot a, b;
    char err[256];
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run(&tl);
    memset(&cfg, 0, sizeof cfg);
    cfg.timeline = 1;
    cfg.clock = script_now; /* named as the recording clock is: "user clock" (never read) */
    cfg.grow = 1; /* no room for device intervals of its own: the read grows it */
    trace_keeps_the_report(&tl.c, &cfg);
    cfg.grow = 0;
    cfg.max_device = 8;
    trace_keeps_the_report(&tl.c, &cfg);
    trace = capture(&tl.c, ttft_tpot_trace_write);
    /* the second launch: the 4th sample (layer, sync, prefill, layer), issued at 1101000, begun at 1105000 */
    assert_non_null(strstr(trace, "\n# device: 4,0,3,0,0,1101000,1105000,40000,layer\n"));
    /* without its device lines, the trace reads as the samples alone */
    plain = (char *)malloc(strlen(trace) + 1);
    assert_non_null(plain);
    for (p = trace, q = plain; *p;) {
        size_t len = strcspn(p, "\n") + 1;
        if (strncmp(p, "# device", 8) != 0)
            memcpy(q, p, len), q += len;
        p += len;
    }
    *q = '\0';
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&a, plain, "plain", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "full", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&a).samples, counts(&b).samples);
    assert_int_equal(counts(&a).device_intervals, 0);
    assert_int_equal(counts(&b).device_intervals, 5);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
    free(plain);
    free(trace);
    ttft_tpot_free(&tl.c);
}

/* Bad device lines are refused with the line, and the collector stays as it was. */
static void trace_refuses_bad_device_lines(void **state)
{
    static const char *const bad[] = {
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,4,0,0,0,0,5,k\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 2,0,2,0,0,0,0,5,k\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,2,0,0,0,0,5,nope\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,2,0,0,0,0\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device_lost: 1\n",
    };
    static const char *const why[] = {"STATE (1-3)", "past the samples read", "unknown phase: nope", "expected SAMPLE",
                                      "expected UNRESOLVED,REFUSED"};
    ttft_tpot c;
    ttft_tpot_config cfg;
    char err[256];
    size_t i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(trace_str(&c, bad[i], "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
        if (!strstr(err, "t.csv:3: ") || !strstr(err, why[i]))
            fail_msg("case %u: %s", (unsigned)i, err);
        assert_int_equal(counts(&c).samples, 0);
        assert_int_equal(counts(&c).device_intervals, 0);
    }
    ttft_tpot_free(&c);
}

/* What losses_are_counted_and_shown records (test_device.c): four device spans of phase k, one
   ticket open at most and two intervals kept, t1 resolved with 70 ns, then five refusals (resolved
   already, end before begin, unknown, an elapsed time that is no duration, absolute without a pair)
   and a ticket 0, which is nothing. */
static void record_device_losses(ttft_tpot *c)
{
    ttft_tpot_span s;
    ttft_tpot_device_stamp st[3];
    uint64_t t1 = 0, t3 = 0;
    size_t refused;
    int k, i;
    k = device_losses_fixture(c);
    for (i = 0; i < 4; i++) {
        s = ttft_tpot_span_begin(c, k);
        ttft_tpot_span_set_duration(&s, 100);
        ttft_tpot_span_set_device(&s, 1);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        if (i == 0)
            t1 = s.ticket;
        if (i == 1)
            assert_int_equal(device_elapsed(c, t1, 70), 0);
        if (i == 2)
            t3 = s.ticket;
    }
    memset(st, 0, sizeof st);
    st[0].ticket = t1, st[0].elapsed_ns = 5;
    st[1].ticket = t3, st[1].absolute = 1, st[1].begin_ns = 10, st[1].end_ns = 9;
    st[2].ticket = t3 + 1, st[2].elapsed_ns = 5;
    assert_int_equal(ttft_tpot_device_resolve(c, st, 3, &(ttft_tpot_clock_pair){0, 0}, &refused), TTFT_TPOT_ETICKET);
    assert_int_equal(device_elapsed(c, t3, UINT64_MAX), TTFT_TPOT_ERANGE); /* ttft_tpot_device_elapsed_ms(-1.0) */
    assert_int_equal(ttft_tpot_device_resolve(c, &TTFT_TPOT_STAMP_ABSOLUTE(t3, 1, 2), 1, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(device_elapsed(c, 0, 5), TTFT_TPOT_OK);
    assert_int_equal(counts(c).device_refused, 5);
}

/* Nothing lost quietly: a trace carries the losses (spans without a ticket, an open ticket, refused
   resolutions), and its report is the live one. */
static void losses_are_counted_and_shown(void **state)
{
    ttft_tpot c;
    (void)state;
    record_device_losses(&c);
    trace_keeps_the_report(&c, &(ttft_tpot_config){.grow = 1});
    ttft_tpot_free(&c);
}

/* A graph launch: one host dispatch, one interval for the whole graph, and its kernels' own
   intervals as parts; the trace keeps them, and its report is the live one. The recording of
   test_device.c's case of this name. */
static void graph_parts_are_rows_not_counted_twice(void **state)
{
    ttft_tpot c;
    (void)state;
    graph_launches(&c, NULL);
    trace_keeps_the_report(&c, &(ttft_tpot_config){.grow = 1});
    ttft_tpot_free(&c);
}

/* The exposition gets the device figures: summaries in seconds to the ns, the busy ratio, the losses.
   The exposition is the serving layer's: the collector has one (no requests), as every collector had
   its request tables before 0.4.0. */
static void prometheus_has_device_figures(void **state)
{
    timeline tl;
    ttft_tpot_serve srv;
    char *prom;
    (void)state;
    timeline_init(&tl, 64, 0);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &tl.c, NULL), TTFT_TPOT_OK);
    timeline_run(&tl);
    prom = capture_prom(&tl.c);
    /* TPOT on the device: 10000 and 12000 ns: p50 11000, p90 11800, p99 11980 */
    assert_non_null(strstr(prom, "\nttft_tpot:device_time_per_output_token_seconds{quantile=\"0.5\"} 0.000011000\n"
                                 "ttft_tpot:device_time_per_output_token_seconds{quantile=\"0.9\"} 0.000011800\n"
                                 "ttft_tpot:device_time_per_output_token_seconds{quantile=\"0.99\"} 0.000011980\n"
                                 "ttft_tpot:device_time_per_output_token_seconds_sum 0.000022000\n"
                                 "ttft_tpot:device_time_per_output_token_seconds_count 2\n"));
    assert_non_null(strstr(prom, "\nttft_tpot:device_time_to_first_token_seconds{quantile=\"0.5\"} 0.000040000\n"));
    assert_non_null(strstr(prom, "\nttft_tpot:device_busy_ratio 0.297297\n")); /* 22 / 74 */
    assert_non_null(strstr(prom, "\nttft_tpot:device_intervals_unresolved_total 0\n"));
    assert_non_null(strstr(prom, "\nttft_tpot:device_resolutions_refused_total 0\n"));
    free(prom);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&tl.c);
}

/* The Chrome trace: a device track with each kernel where the device ran it, and a flow arrow from
   its launch on the host's kernel track (tid 4). */
static void chrome_trace_draws_launch_to_execution(void **state)
{
    timeline tl;
    char *trace;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run(&tl);
    trace = capture(&tl.c, ttft_tpot_chrome_trace);
    /* the second launch: issued at 1101000 ns, run from 1105000 ns for 40000 */
    assert_non_null(strstr(trace, "\n{\"ph\":\"X\",\"pid\":3,\"name\":\"layer\",\"cat\":\"device\",\"tid\":1,"
                                  "\"ts\":1105.000,\"dur\":40.000,\"args\":{\"stream\":0,\"part\":0,\"warmup\":0}},\n"
                                  "{\"ph\":\"s\",\"pid\":1,\"tid\":4,\"name\":\"launch\",\"cat\":\"launch\",\"id\":2,"
                                  "\"ts\":1101.000},\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":3,\"tid\":1,\"name\":\"launch\","
                                  "\"cat\":\"launch\",\"id\":2,\"ts\":1105.000}"));
    free(trace);
    ttft_tpot_free(&tl.c);
}

/* Counts that cannot wrap: a hostile trace's losses saturate, and so do two of them read together;
   an open ticket is a gauge in the Prometheus exposition, not part of a counter that would fall. */
static void device_losses_saturate(void **state)
{
    static const char *const trace = "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n"
                                     "# device: 1,0,1,0,1,0,0,0,k\n# device_lost: 18446744073709551615,0\n";
    static const char *const half = "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n"
                                    "# device_lost: 9223372036854775808,9223372036854775808\n";
    ttft_tpot c;
    ttft_tpot_config cfg;
    char err[256], *text;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, trace, "t.csv", err, sizeof err), TTFT_TPOT_OK);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 18446744073709551615 device intervals unresolved (18446744073709551615 "
                                 "spans got no ticket"));
    free(text);
    ttft_tpot_free(&c);
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, half, "a.csv", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, half, "b.csv", err, sizeof err), TTFT_TPOT_OK);
    assert_true(counts(&c).device_unresolved == UINT64_MAX);
    assert_true(counts(&c).device_refused == UINT64_MAX);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "\nDevice time (0 intervals resolved"));
    assert_non_null(strstr(text, "WARNING: 18446744073709551615 device resolutions refused"));
    free(text);
    ttft_tpot_free(&c);
}

/* An open ticket is a gauge in the Prometheus exposition, not part of a counter that would fall
   (device_losses_saturate's companion). */
static void open_tickets_are_a_gauge(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg;
    uint64_t t;
    int k;
    char *prom;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 1;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, NULL), TTFT_TPOT_OK); /* the exposition's layer */
    t = device_span(&c, k, 100);
    assert_true(t != 0 && device_span(&c, k, 100) == 0); /* the second: no room, no ticket */
    prom = capture_prom(&c);
    assert_non_null(strstr(prom, "\nttft_tpot:device_intervals_unresolved_total 1\n"));
    assert_non_null(strstr(prom, "# TYPE ttft_tpot:device_tickets_open gauge\nttft_tpot:device_tickets_open 1\n"));
    free(prom);
    assert_int_equal(device_elapsed(&c, t, 70), TTFT_TPOT_OK);
    prom = capture_prom(&c);
    assert_non_null(strstr(prom, "\nttft_tpot:device_intervals_unresolved_total 1\n")); /* a counter never falls */
    assert_non_null(strstr(prom, "\nttft_tpot:device_tickets_open 0\n"));
    free(prom);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* A device time of 2^62 ns or more is no measurement: refused in a trace too (the line named), the
   collector as it was (the other forms: test_device.c). */
static void absurd_device_times_are_refused(void **state)
{
    static const char *const trace = "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n"
                                     "# device: 1,0,2,0,1,0,0,4611686018427387904,k\n";
    ttft_tpot c;
    ttft_tpot_config cfg;
    char err[256];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, trace, "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t.csv:3: "));
    assert_int_equal(counts(&c).device_intervals, 0);
    ttft_tpot_free(&c);
}

/* The queued stamps' trace (# device_queued: lines) read back gives the live report. */
static void queued_stamps_split_launch_from_wait(void **state)
{
    timeline tl;
    ttft_tpot_config cfg;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run_queued(&tl, queued_after_issue);
    memset(&cfg, 0, sizeof cfg);
    cfg.timeline = 1;
    cfg.clock = script_now;
    cfg.max_device = 8;
    trace_keeps_the_report(&tl.c, &cfg);
    ttft_tpot_free(&tl.c);
}

/* A bad # device_queued: line is refused with its line, and changes nothing. */
static void bad_queued_stamps_are_refused(void **state)
{
    static const char *const bad[] = {
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device_queued: 5\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,2,0,0,0,0,5,k\n# device_queued: 5\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,3,0,0,9,10,5,k\n# device_queued: 11\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,3,0,0,9,10,5,k\n# device_queued: 0\n",
        "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n# device: 1,0,3,0,0,9,10,5,k\n# device_queued: 9\n# device_queued: 9\n",
    };
    static const unsigned lines[] = {3, 4, 4, 4, 5};
    ttft_tpot c;
    ttft_tpot_config cfg;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    traces_refused(&c, bad, lines, sizeof bad / sizeof bad[0], "# device_queued: ");
    assert_int_equal(counts(&c).device_intervals, 0);
    ttft_tpot_free(&c);
}

/* ---- The report model (test_model.c) -------------------------------------------------------- */

/* Phases registered k2, k1, d, unused and first used k1, d, k2. Run 1: a warmup step of 4 ms, then
   steps of 4 and 6 ms; run 2: 6 and 8 ms. Kernels belong to the next step: k1's 1 and 2 ms to steady
   steps, its 1 us to the warmup one, k2's 1 ms to a steady step. Four requests (times in ns):
     r  submit 0, schedule 10, a token at 100, 150 and 220;
     r2 submit 1000, one token at 5001000 (TTFT 5 ms, on a bucket bound);
     r3 submit 2000, one token at 7002000;
     r4 submit 3000, a token at 3010, two at 1003011 (TPOT 1000001 / 2 = 500000.5 ns, past the
        0.5 ms bound by half a ns). */
static const char model_trace[] =
    "phase,role,start_ns,dur_ns,tokens,warmup\n"
    "# phase: kernel,k2\n# phase: kernel,k1\n# phase: decode,d\n# phase: kernel,unused\n"
    "# counts: dropped=3 rejected=2 shapes_dropped=1 requests_dropped=4 requests_refused=1 events_lost=0 "
    "runs_dropped=1 outgrown=0 capacity=100 max_requests=8 max_request_events=32 max_shapes=64\n"
    "# run:\nk1,kernel,0,1000,0,1\nd,decode,0,4000000,1,1\nk1,kernel,0,1000000,0,0\nd,decode,0,4000000,1,0\n"
    "k1,kernel,0,2000000,0,0\nd,decode,0,6000000,1,0\n"
    "# run:\nk2,kernel,0,1000000,0,1\nd,decode,0,6000000,1,0\nd,decode,0,8000000,1,0\n"
    "r,submit,0,0,0,0\nr,schedule,10,0,0,0\nr,token,100,0,1,0\nr,token,150,0,1,0\nr,token,220,0,1,0\n"
    "r2,submit,1000,0,0,0\nr2,token,5001000,0,1,0\nr3,submit,2000,0,0,0\nr3,token,7002000,0,1,0\n"
    "r4,submit,3000,0,0,0\nr4,token,3010,0,1,0\nr4,token,1003011,0,2,0\n";

/* The index of bound le in b (fails the test when b has none). */
static size_t le_at(const ttft_tpot_buckets *b, const char *le)
{
    size_t i;
    for (i = 0; i < b->n && strcmp(b->le[i], le) != 0; i++)
        ;
    assert_true(i < b->n);
    return i;
}

/* The model trace read into c, whose serving layer s takes its requests (8 of them, 32 events). */
static void read_model_trace(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    char err[256];
    sc.max_requests = 8;
    sc.max_request_events = 32;
    assert_int_equal(ttft_tpot_init(c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(s, c, &sc), TTFT_TPOT_OK);
    if (trace_str(c, model_trace, "model", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
}

static void free_model_trace(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_serve_free(s);
    ttft_tpot_free(c);
}

/* Phases in report order, the headline, steady states and kernel shares. Steady decode time 4 + 6 +
   6 + 8 = 24 ms: k1 (1 + 2) / 24 = 0.125, k2 1 / 24. */
static void model_phases_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_model m;
    (void)state;
    read_model_trace(&c, &srv);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_true(m.collector == &c && m.phases == 4 && m.skipped == 0);
    assert_int_equal(m.order[0], 1);
    assert_int_equal(m.order[1], 2);
    assert_int_equal(m.order[2], 0);
    assert_int_equal(m.order[3], 3);
    assert_string_equal(m.phase[2].name, "d");
    assert_int_equal(m.phase[2].role, TTFT_TPOT_ROLE_DECODE);
    assert_true(m.phase[2].all.n == 5 && m.phase[2].all.warmup_n == 1 && m.phase[2].steady.n == 4);
    assert_near(m.phase[2].steady.p50_ns, 6e6, 0);
    assert_true(m.phase[2].all.warmup_max_ns == 4000000);
    assert_true(m.phase[2].steady_state.measured && m.phase[2].steady_state.flagged == 1);
    assert_true(m.head.tpot.n == 4 && m.head.tpot_excluded == 1 && !m.head.has_ttft_first);
    assert_near(m.head.output_tok_s, 4 / 24e-3, 1e-9);
    assert_near(m.phase[1].decode_share, 0.125, 1e-15);
    assert_near(m.phase[0].decode_share, 1 / 24.0, 1e-15);
    assert_true(m.phase[2].decode_share == 0 && m.phase[3].decode_share == 0);
    assert_true(m.phase[3].all.n == 0);
    assert_string_equal(m.clock_name, ttft_tpot_clock_name(&c));
    ttft_tpot_model_free(&m);
    assert_true(m.phase == NULL && m.collector == NULL);
    free_model_trace(&c, &srv);
}

/* Runs: steps 4 and 6 ms (p50 5 ms, 2 tokens / 10 ms = 200 tok/s), then 6 and 8 ms (p50 7 ms,
   2 / 14 ms). TPOT p50 mean 6 ms, sd sqrt(2) ms, CV 0.2357; tok/s mean 171.43, sd 40.41. */
static void model_runs_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_model m;
    const ttft_tpot_run_figure *tpot, *tok;
    (void)state;
    read_model_trace(&c, &srv);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    tpot = &m.runs.fig[TTFT_TPOT_RUN_TPOT];
    tok = &m.runs.fig[TTFT_TPOT_RUN_TOK_S];
    assert_true(m.runs.n == 2 && m.runs.dropped == 1 && !m.runs.bounded);
    assert_true(m.runs.fig[TTFT_TPOT_RUN_TTFT].n == 0 && !m.runs.fig[TTFT_TPOT_RUN_TTFT].varies);
    assert_true(tpot->n == 2 && tpot->has[0] && tpot->has[1]);
    assert_near(tpot->v[0], 5e6, 0);
    assert_near(tpot->v[1], 7e6, 0);
    assert_near(tpot->mean, 6e6, 1e-6);
    assert_near(tpot->sd, 1414213.562373095, 1e-6);
    assert_near(tpot->cv, 0.2357022603955158, 1e-12);
    assert_true(tpot->has_cv && tpot->varies);
    assert_near(tok->v[0], 200, 1e-9);
    assert_near(tok->v[1], 2 / 14e-3, 1e-9);
    assert_near(tok->mean, (200 + 2 / 14e-3) / 2, 1e-9);
    assert_near(tok->sd, (200 - 2 / 14e-3) / 1.4142135623730951, 1e-9);
    assert_true(tok->varies);
    ttft_tpot_model_free(&m);
    free_model_trace(&c, &srv);
}

/* The request figures, their buckets (cumulative; a value on a bound is in it), and the losses the
   trace carried. TTFT 100 ns, 5 ms, 7 ms, 10 ns: le 0.001 2, le 0.005 3, le 0.01 4, sum 12000110 ns.
   TPOT 60 and 500000.5 ns: le 0.0005 1, le 0.001 2, sum 500060.5 rounded to 500061 ns. ITL 50, 70
   and 1000001 ns: le 0.0005 2, le 0.001 2, le 0.002 3. */
static void model_requests_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_model m;
    const ttft_tpot_serve_model *f;
    const ttft_tpot_buckets *ttft, *tpot, *itl;
    size_t i;
    int k;
    (void)state;
    read_model_trace(&c, &srv);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    f = ttft_tpot_serve_figures(&m);
    assert_non_null(f);
    assert_true(f->has_requests && f->requests.n == 4 && f->requests.tokens == 8);
    assert_true(f->requests.metric[TTFT_TPOT_METRIC_TTST].n == 2);
    ttft = &f->buckets[TTFT_TPOT_METRIC_TTFT];
    tpot = &f->buckets[TTFT_TPOT_METRIC_TPOT];
    itl = &f->buckets[TTFT_TPOT_METRIC_ITL];
    /* vLLM's bounds and the E12 series from 100 us to 680 s: 100, 103 and 99 bounds */
    assert_true(ttft->n == 100 && strcmp(ttft->le[0], "0.0001") == 0 && ttft->le_ns[0] == 100000);
    assert_true(ttft->le_ns[le_at(ttft, "0.005")] == 5000000 && strcmp(ttft->le[ttft->n - 1], "2560.0") == 0);
    assert_true(ttft->cumulative[le_at(ttft, "0.001")] == 2 && ttft->cumulative[le_at(ttft, "0.005")] == 3 &&
                ttft->cumulative[le_at(ttft, "0.01")] == 4);
    assert_true(ttft->cumulative[ttft->n - 1] == 4 && ttft->count == 4 && ttft->sum_hi == 0 && ttft->sum_lo == 12000110);
    assert_true(tpot->n == 103 && tpot->le_ns[le_at(tpot, "0.0005")] == 500000);
    assert_true(tpot->cumulative[le_at(tpot, "0.0005")] == 1 && tpot->cumulative[le_at(tpot, "0.001")] == 2 &&
                tpot->count == 2 && tpot->sum_lo == 500061);
    assert_true(itl->cumulative[le_at(itl, "0.0005")] == 2 && itl->cumulative[le_at(itl, "0.001")] == 2 &&
                itl->cumulative[le_at(itl, "0.002")] == 3);
    assert_true(itl->count == 3 && itl->sum_lo == 1000121);
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++) /* neighbours at most 25% apart from 100 us to 10 min */
        for (i = 0; i + 1 < f->buckets[k].n; i++)
            if (f->buckets[k].le_ns[i] >= 100000 && f->buckets[k].le_ns[i] < 600000000000u)
                assert_true(f->buckets[k].le_ns[i + 1] * 4 <= f->buckets[k].le_ns[i] * 5);
    assert_true(f->buckets[TTFT_TPOT_METRIC_E2E].n == 99 &&
                f->buckets[TTFT_TPOT_METRIC_E2E].cumulative[le_at(&f->buckets[TTFT_TPOT_METRIC_E2E], "0.3")] == 4);
    assert_true(f->requests_steady_state.measured && f->requests_steady_state.flagged == 0);
    assert_true(m.losses.dropped == 3 && m.losses.rejected == 2 && m.losses.shapes_dropped == 1);
    assert_true(f->losses.requests_dropped == 4 && f->losses.requests_refused == 1 && m.losses.runs_dropped == 1);
    assert_true(m.losses.capacity == 100 && f->losses.max_requests == 8 && f->losses.max_request_events == 32);
    assert_true(m.losses.max_shapes == 64 && f->losses.events_kept == 11 && f->losses.requests_truncated == 0);
    ttft_tpot_model_free(&m);
    free_model_trace(&c, &srv);
}

/* What a writer prints from a model is what it prints computing one; summarize gives the head. */
static int prom(const ttft_tpot *c, FILE *f)
{
    return prometheus(c, f, NULL, "a=\"b\"");
}

static int via_model(const ttft_tpot *c, FILE *f, int writer)
{
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(c, NULL, &m);
    if (rc == TTFT_TPOT_OK)
        rc = writer == 0   ? ttft_tpot_model_write(&m, f, TTFT_TPOT_FORMAT_TEXT)
             : writer == 1 ? ttft_tpot_model_write(&m, f, TTFT_TPOT_FORMAT_JSON)
                           : ttft_tpot_model_prometheus(&m, f, NULL, "a=\"b\"");
    ttft_tpot_model_free(&m);
    return rc;
}

static int model_text(const ttft_tpot *c, FILE *f)
{
    return via_model(c, f, 0);
}

static int model_json(const ttft_tpot *c, FILE *f)
{
    return via_model(c, f, 1);
}

static int model_prom(const ttft_tpot *c, FILE *f)
{
    return via_model(c, f, 2);
}

static void model_writers_match(void **state)
{
    static const report_fn direct[3] = {ttft_tpot_report, report_json, prom};
    static const report_fn via[3] = {model_text, model_json, model_prom};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_summary s;
    ttft_tpot_model m;
    int k;
    (void)state;
    read_model_trace(&c, &srv);
    for (k = 0; k < 3; k++) {
        char *a = capture(&c, direct[k]), *b = capture(&c, via[k]);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    assert_int_equal(ttft_tpot_summarize(&c, &s), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_true(s.tpot.n == m.head.tpot.n && s.tpot.p50_ns == m.head.tpot.p50_ns && s.samples == m.head.samples);
    assert_true(s.output_tok_s == m.head.output_tok_s && s.dropped == m.head.dropped);
    ttft_tpot_model_free(&m);
    free_model_trace(&c, &srv);
}

/* A part left out stays 0 (the layer's figures: none), and a writer that prints it refuses the model
   (EINVAL, nothing written). Models of no collector and writers of no model: test_model.c. */
static void model_parts_can_be_skipped(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    const ttft_tpot_serve_model *sf;
    FILE *f = tmpfile();
    char *a, *b;
    (void)state;
    assert_non_null(f);
    read_model_trace(&c, &srv);
    o.skip = TTFT_TPOT_SKIP_LAYER;
    assert_int_equal(ttft_tpot_model_compute(&c, &o, &m), TTFT_TPOT_OK);
    sf = ttft_tpot_serve_figures(&m);
    assert_true((!sf || (!sf->has_requests && sf->requests.n == 0 && sf->buckets[0].n == 0)) && m.head.tpot.n == 4);
    assert_int_equal(ttft_tpot_model_write(&m, f, TTFT_TPOT_FORMAT_TEXT), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_write(&m, f, TTFT_TPOT_FORMAT_JSON), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_prometheus(&m, f, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ftell(f), 0);
    ttft_tpot_model_free(&m);
    o.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES;
    assert_int_equal(ttft_tpot_model_compute(&c, &o, &m), TTFT_TPOT_OK);
    assert_true(m.head.tpot.n == 0 && m.phase[2].all.n == 0 && m.phase[1].decode_share == 0);
    assert_string_equal(m.phase[2].name, "d");
    sf = ttft_tpot_serve_figures(&m);
    assert_non_null(sf);
    assert_int_equal(sf->requests.n, 4);
    assert_int_equal(ttft_tpot_model_write(&m, f, TTFT_TPOT_FORMAT_TEXT), TTFT_TPOT_EINVAL);
    assert_int_equal(ftell(f), 0);
    assert_int_equal(ttft_tpot_model_prometheus(&m, f, NULL, "a=\"b\""), TTFT_TPOT_OK);
    fclose(f);
    ttft_tpot_model_free(&m);
    a = capture(&c, prom); /* that is what the Prometheus writer computes alone */
    b = capture(&c, model_prom);
    assert_string_equal(a, b);
    free(a);
    free(b);
    free_model_trace(&c, &srv);
}

/* A set's values sorted, and its CDF through a few of them. Steady decode steps 4, 6, 6, 8 ms; k1's
   steady samples 1 and 2 ms; ITL 50, 70, 1000001 ns. The CDF of the steps through 2 points: s = 4 / 2
   + 1 = 3, ranks 0 and 3 (1/4 and 4/4), then the largest again with 1. */
static void sorted_values_and_cdf_by_hand(void **state)
{
    static const uint64_t steps[4] = {4000000, 6000000, 6000000, 8000000};
    ttft_tpot c;
    ttft_tpot_serve srv;
    uint64_t v[8];
    ttft_tpot_cdf_point p[8];
    size_t n, all;
    (void)state;
    read_model_trace(&c, &srv);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, v, 8, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(v, steps, sizeof steps);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_PHASE + 1, v, 8, &n), TTFT_TPOT_OK);
    assert_true(n == 2 && v[0] == 1000000 && v[1] == 2000000);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_ITL, v, 2, &n), TTFT_TPOT_OK);
    assert_true(n == 3 && v[0] == 50 && v[1] == 70); /* the cap smallest */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_ITL, NULL, 0, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 2, p, &n, &all), TTFT_TPOT_OK);
    assert_true(n == 3 && all == 4 && p[0].x == 4000000 && p[1].x == 8000000 && p[2].x == 8000000);
    assert_true(p[0].y == 0.25 && p[1].y == 1.0 && p[2].y == 1.0);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 7, p, &n, NULL), TTFT_TPOT_OK);
    assert_true(n == 5 && p[1].x == 6000000 && p[1].y == 0.5 && p[3].x == 8000000 && p[4].x == 8000000);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL, 7, p, &n, &all), TTFT_TPOT_OK);
    assert_true(n == 0 && all == 0); /* no prefill: an empty set */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E, v, 8, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 0); /* every role is a set, the last too */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_COUNT, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + 4, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_PHASE + 4, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, -1, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_METRIC_TTFT, 0, p, &n, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_METRIC_TTFT, 4, NULL, &n, NULL), TTFT_TPOT_EINVAL);
    free_model_trace(&c, &srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_keeps_device_time),
        cmocka_unit_test(trace_refuses_bad_device_lines),
        cmocka_unit_test(losses_are_counted_and_shown),
        cmocka_unit_test(graph_parts_are_rows_not_counted_twice),
        cmocka_unit_test(prometheus_has_device_figures),
        cmocka_unit_test(chrome_trace_draws_launch_to_execution),
        cmocka_unit_test(device_losses_saturate),
        cmocka_unit_test(open_tickets_are_a_gauge),
        cmocka_unit_test(absurd_device_times_are_refused),
        cmocka_unit_test(queued_stamps_split_launch_from_wait),
        cmocka_unit_test(bad_queued_stamps_are_refused),
        cmocka_unit_test(model_phases_by_hand),
        cmocka_unit_test(model_runs_by_hand),
        cmocka_unit_test(model_requests_by_hand),
        cmocka_unit_test(model_writers_match),
        cmocka_unit_test(model_parts_can_be_skipped),
        cmocka_unit_test(sorted_values_and_cdf_by_hand),
    };
    return run_cases(tests);
}
