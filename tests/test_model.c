/* The report model (ttft_tpot_model_compute): every part of it worked by hand on one trace, the
   writers that read it equal to those that compute it, and a model without a part refused by the
   writers that print it. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

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

static void read_model_trace(ttft_tpot *c)
{
    ttft_tpot_config cfg = {0};
    char err[256];
    cfg.max_requests = 8;
    cfg.max_request_events = 32;
    assert_int_equal(ttft_tpot_init(c, &cfg), TTFT_TPOT_OK);
    if (trace_str(c, model_trace, "model", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
}

/* Phases in report order, the headline, steady states and kernel shares. Steady decode time 4 + 6 +
   6 + 8 = 24 ms: k1 (1 + 2) / 24 = 0.125, k2 1 / 24. */
static void model_phases_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    (void)state;
    read_model_trace(&c);
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
    ttft_tpot_free(&c);
}

/* Runs: steps 4 and 6 ms (p50 5 ms, 2 tokens / 10 ms = 200 tok/s), then 6 and 8 ms (p50 7 ms,
   2 / 14 ms). TPOT p50 mean 6 ms, sd sqrt(2) ms, CV 0.2357; tok/s mean 171.43, sd 40.41. */
static void model_runs_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    const ttft_tpot_run_figure *tpot, *tok;
    (void)state;
    read_model_trace(&c);
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
    ttft_tpot_free(&c);
}

/* The request figures, their buckets (cumulative; a value on a bound is in it), and the losses the
   trace carried. TTFT 100 ns, 5 ms, 7 ms, 10 ns: le 0.001 2, le 0.005 3, le 0.01 4, sum 12000110 ns.
   TPOT 60 and 500000.5 ns: le 0.0005 1, le 0.001 2, sum 500060.5 rounded to 500061 ns. ITL 50, 70
   and 1000001 ns: le 0.0005 2, le 0.001 2, le 0.002 3. */
static void model_requests_by_hand(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    const ttft_tpot_buckets *ttft, *tpot, *itl;
    size_t i;
    int k;
    (void)state;
    read_model_trace(&c);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_true(m.has_requests && m.requests.n == 4 && m.requests.tokens == 8);
    assert_true(m.requests.metric[TTFT_TPOT_METRIC_TTST].n == 2);
    ttft = &m.buckets[TTFT_TPOT_METRIC_TTFT];
    tpot = &m.buckets[TTFT_TPOT_METRIC_TPOT];
    itl = &m.buckets[TTFT_TPOT_METRIC_ITL];
    /* vLLM's bounds and the E12 series from 100 us to 680 s: 100, 103 and 99 bounds */
    assert_true(ttft->n == 100 && strcmp(ttft->le[0], "0.0001") == 0 && ttft->le_ns[0] == 100000);
    assert_true(ttft->le_ns[le_at(ttft, "0.005")] == 5000000 && strcmp(ttft->le[ttft->n - 1], "2560") == 0);
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
        for (i = 0; i + 1 < m.buckets[k].n; i++)
            if (m.buckets[k].le_ns[i] >= 100000 && m.buckets[k].le_ns[i] < 600000000000u)
                assert_true(m.buckets[k].le_ns[i + 1] * 4 <= m.buckets[k].le_ns[i] * 5);
    assert_true(m.buckets[TTFT_TPOT_METRIC_E2E].n == 99 &&
                m.buckets[TTFT_TPOT_METRIC_E2E].cumulative[le_at(&m.buckets[TTFT_TPOT_METRIC_E2E], "0.3")] == 4);
    assert_true(m.requests_steady_state.measured && m.requests_steady_state.flagged == 0);
    assert_true(m.losses.dropped == 3 && m.losses.rejected == 2 && m.losses.shapes_dropped == 1);
    assert_true(m.losses.requests_dropped == 4 && m.losses.requests_refused == 1 && m.losses.runs_dropped == 1);
    assert_true(m.losses.capacity == 100 && m.losses.max_requests == 8 && m.losses.max_request_events == 32);
    assert_true(m.losses.max_shapes == 64 && m.losses.events_kept == 11 && m.losses.requests_truncated == 0);
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&c);
}

/* What a writer prints from a model is what it prints computing one; summarize gives the head. */
static int prom(const ttft_tpot *c, FILE *f)
{
    return ttft_tpot_prometheus(c, f, NULL, "a=\"b\"");
}

static int via_model(const ttft_tpot *c, FILE *f, int writer)
{
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(c, NULL, &m);
    if (rc == TTFT_TPOT_OK)
        rc = writer == 0   ? ttft_tpot_model_report(&m, f)
             : writer == 1 ? ttft_tpot_model_report_json(&m, f)
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
    static const report_fn direct[3] = {ttft_tpot_report, ttft_tpot_report_json, prom};
    static const report_fn via[3] = {model_text, model_json, model_prom};
    ttft_tpot c;
    ttft_tpot_summary s;
    ttft_tpot_model m;
    int k;
    (void)state;
    read_model_trace(&c);
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
    ttft_tpot_free(&c);
}

/* A part left out stays 0, and a writer that prints it refuses the model (EINVAL, nothing written). */
static void model_parts_can_be_skipped(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    ttft_tpot_model_options o = {TTFT_TPOT_SKIP_REQUESTS};
    FILE *f = tmpfile();
    char *a, *b;
    (void)state;
    assert_non_null(f);
    read_model_trace(&c);
    assert_int_equal(ttft_tpot_model_compute(&c, &o, &m), TTFT_TPOT_OK);
    assert_true(!m.has_requests && m.requests.n == 0 && m.buckets[0].n == 0 && m.head.tpot.n == 4);
    assert_int_equal(ttft_tpot_model_report(&m, f), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_report_json(&m, f), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_prometheus(&m, f, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ftell(f), 0);
    ttft_tpot_model_free(&m);
    o.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES;
    assert_int_equal(ttft_tpot_model_compute(&c, &o, &m), TTFT_TPOT_OK);
    assert_true(m.head.tpot.n == 0 && m.phase[2].all.n == 0 && m.phase[1].decode_share == 0);
    assert_string_equal(m.phase[2].name, "d");
    assert_int_equal(m.requests.n, 4);
    assert_int_equal(ttft_tpot_model_report(&m, f), TTFT_TPOT_EINVAL);
    assert_int_equal(ftell(f), 0);
    assert_int_equal(ttft_tpot_model_prometheus(&m, f, NULL, "a=\"b\""), TTFT_TPOT_OK);
    fclose(f);
    ttft_tpot_model_free(&m);
    a = capture(&c, prom); /* that is what the Prometheus writer computes alone */
    b = capture(&c, model_prom);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(ttft_tpot_model_compute(NULL, NULL, &m), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_report(NULL, stdout), TTFT_TPOT_EINVAL);
    ttft_tpot_model_free(NULL);
    ttft_tpot_free(&c);
}

/* A set's values sorted, and its CDF through a few of them. Steady decode steps 4, 6, 6, 8 ms; k1's
   steady samples 1 and 2 ms; ITL 50, 70, 1000001 ns. The CDF of the steps through 2 points: s = 4 / 2
   + 1 = 3, ranks 0 and 3 (1/4 and 4/4), then the largest again with 1. */
static void sorted_values_and_cdf_by_hand(void **state)
{
    static const uint64_t steps[4] = {4000000, 6000000, 6000000, 8000000};
    ttft_tpot c;
    uint64_t v[8], x[8];
    double y[8];
    size_t n, all;
    (void)state;
    read_model_trace(&c);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, v, 8, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(v, steps, sizeof steps);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_PHASE + 1, v, 8, &n), TTFT_TPOT_OK);
    assert_true(n == 2 && v[0] == 1000000 && v[1] == 2000000);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_ITL, v, 2, &n), TTFT_TPOT_OK);
    assert_true(n == 3 && v[0] == 50 && v[1] == 70); /* the cap smallest */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_ITL, NULL, 0, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 2, x, y, &n, &all), TTFT_TPOT_OK);
    assert_true(n == 3 && all == 4 && x[0] == 4000000 && x[1] == 8000000 && x[2] == 8000000);
    assert_true(y[0] == 0.25 && y[1] == 1.0 && y[2] == 1.0);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 7, x, y, &n, NULL), TTFT_TPOT_OK);
    assert_true(n == 5 && x[1] == 6000000 && y[1] == 0.5 && x[3] == 8000000 && x[4] == 8000000);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL, 7, x, y, &n, &all), TTFT_TPOT_OK);
    assert_true(n == 0 && all == 0); /* no prefill: an empty set */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E, v, 8, &n), TTFT_TPOT_OK);
    assert_int_equal(n, 0); /* every role is a set, the last too */
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_METRIC_COUNT, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + 4, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_PHASE + 4, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_sorted_values(&c, -1, v, 8, &n), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_METRIC_TTFT, 0, x, y, &n, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_cdf(&c, TTFT_TPOT_METRIC_TTFT, 4, NULL, y, &n, NULL), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}

/* Nested kernel spans. Three decode steps of 40 ms (the first warmup), each: layer [0, 30] holding
   attention [1, 10] and matmul [11, 29], then head [31, 36] (ms from the step's start). Steady decode
   time 80 ms; inclusive shares layer 60/80, attention 18/80, matmul 36/80, head 10/80 (155% in all);
   exclusive layer (30 - 9 - 18) x 2 = 6/80 = 7.5%, the others as inclusive (87.5% in all). */
static void nested_kernels_share_exclusive_time(void **state)
{
    static const uint64_t at[10] = {0, 0, 1, 10, 11, 29, 30, 31, 36, 40}; /* the reads of one step, in order */
    uint64_t t[30];
    script_clock sc = {NULL, 30, 0};
    ttft_tpot_config cfg = {0};
    ttft_tpot_model m;
    ttft_tpot c;
    char *text;
    int d, layer, attn, mm, head, k, step;
    (void)state;
    for (step = 0; step < 3; step++)
        for (k = 0; k < 10; k++)
            t[10 * step + k] = (uint64_t)(100 * step) * MS + at[k] * MS;
    sc.t = t;
    cfg.clock = script_now, cfg.clock_user = &sc, cfg.timeline = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    layer = ttft_tpot_phase(&c, "layer", TTFT_TPOT_ROLE_KERNEL);
    attn = ttft_tpot_phase(&c, "attention", TTFT_TPOT_ROLE_KERNEL);
    mm = ttft_tpot_phase(&c, "matmul", TTFT_TPOT_ROLE_KERNEL);
    head = ttft_tpot_phase(&c, "head", TTFT_TPOT_ROLE_KERNEL);
    for (step = 0; step < 3; step++) {
        ttft_tpot_span sd = ttft_tpot_span_begin(&c, d), sl = ttft_tpot_span_begin(&c, layer), sa, sm, sh;
        sa = ttft_tpot_span_begin(&c, attn);
        ttft_tpot_span_end(&sa);
        sm = ttft_tpot_span_begin(&c, mm);
        ttft_tpot_span_end(&sm);
        ttft_tpot_span_end(&sl);
        sh = ttft_tpot_span_begin(&c, head);
        ttft_tpot_span_end(&sh);
        ttft_tpot_span_end(&sd);
    }
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_near(m.phase[layer].decode_share, 0.75, 1e-12);
    assert_near(m.phase[layer].decode_share_self, 0.075, 1e-12);
    assert_true(m.phase[layer].nests && !m.phase[attn].nests && !m.phase[head].nests);
    assert_near(m.phase[attn].decode_share_self, 0.225, 1e-12);
    assert_near(m.phase[mm].decode_share_self, 0.45, 1e-12);
    assert_near(m.phase[head].decode_share_self, 0.125, 1e-12);
    assert_near(m.phase[layer].decode_share_self + m.phase[attn].decode_share_self + m.phase[mm].decode_share_self +
                    m.phase[head].decode_share_self, 0.875, 1e-12);
    ttft_tpot_model_free(&m);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "NOTE: layer spans hold other kernel spans: its rows are inclusive time; of steady "
                                 "decode time it takes 7.5% exclusive (self), 75.0% inclusive\n"));
    free(text);
    text = capture(&c, ttft_tpot_report_json);
    /* 0.075 as the JSON writes doubles: 17 significant digits, the double nearest 0.075 */
    assert_non_null(strstr(text, "\"decode_share\":0.75,\"decode_share_exclusive\":0.074999999999999997,\"nests\":true"));
    free(text);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_kernels_share_exclusive_time),
        cmocka_unit_test(model_phases_by_hand),
        cmocka_unit_test(model_runs_by_hand),
        cmocka_unit_test(model_requests_by_hand),
        cmocka_unit_test(model_writers_match),
        cmocka_unit_test(model_parts_can_be_skipped),
        cmocka_unit_test(sorted_values_and_cdf_by_hand),
    };
    return run_cases(tests);
}
