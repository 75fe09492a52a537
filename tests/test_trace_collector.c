/* The parts of the collector's tests that need the serving layer or the tools: the request calls'
   contract, the tools' queries of odd arguments, trace round trips (spans never ended, a full store,
   runs past the limit), and allocation failures in the serving layer's and the tools' calls. The core's
   own cases are in test_api.c, test_storage.c, test_alloc.c and test_limits.c; each case here names the
   case it comes from. Every allocation goes through TTFT_TPOT_MALLOC, counted (counting_alloc.h). */
#include "counting_alloc.h" /* the counting allocator (allocs, frees, fail_at) */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

#include "collector_setup.h" /* the recordings of test_api.c, test_storage.c and test_alloc.c */

/* test_api.c, one_primitive_and_its_aliases: one pair of request calls with the time a parameter:
   TTFT_TPOT_NOW reads the collector's clock. */
static void api_request_time_a_parameter(void **state)
{
    static const uint64_t t[] = {500};
    script_clock sc = {t, 1, 0};
    ttft_tpot c;
    ttft_tpot_serve s;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_request r;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    scfg.max_requests = 1;
    served(&c, &s, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&s, "r", TTFT_TPOT_POINT_SUBMIT, 50), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&s, "r", TTFT_TPOT_NOW, 1), TTFT_TPOT_OK); /* clock 500 */
    assert_int_equal(ttft_tpot_request_at(&s, 0, &r, NULL), TTFT_TPOT_OK);
    assert_int_equal(r.first_ns, 500);
    assert_int_equal(sc.next, 1);
    unserve(&c, &s);
}

/* test_api.c, odd_arguments: the request calls' odd arguments: NULL, a disabled collector, an invalid
   id, a full table. */
static void api_request_calls_odd_arguments(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve s;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_span sp;
    char id[TTFT_TPOT_NAME_MAX + 1];
    int pre;
    (void)state;
    scfg.max_requests = 1;
    served(&c, &s, NULL, &scfg);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    assert_int_equal(ttft_tpot_request_mark(NULL, "r", TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_request_mark(&s, NULL, TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_EINVAL);
    memset(id, 'x', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    assert_int_equal(ttft_tpot_request_mark(&s, id, TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_request_mark(&s, "", TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_ENAME);
    ttft_tpot_request_mark(&s, "a", TTFT_TPOT_POINT_SUBMIT, 0);
    assert_int_equal(ttft_tpot_request_mark(&s, "b", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_EFULL); /* refused: no room */
    /* dropped, and counted once, at its submit */
    assert_int_equal(ttft_tpot_request_mark(&s, "b", TTFT_TPOT_POINT_SCHEDULE, 1), TTFT_TPOT_EFULL);
    assert_int_equal(counts(&c).requests_dropped, 1);
    assert_int_equal(ttft_tpot_request_mark(&s, "a", TTFT_TPOT_POINT_SCHEDULE, TTFT_TPOT_NOW),
                     TTFT_TPOT_OK); /* on the collector's clock */
    ttft_tpot_enable(&c, 0);
    sp = ttft_tpot_span_begin_at(&c, pre, 0); /* a prefill with its prompt, disabled */
    ttft_tpot_span_set_duration(&sp, 1);
    ttft_tpot_span_set_tokens(&sp, 1);
    ttft_tpot_span_set_prompt(&sp, 1);
    assert_int_equal(ttft_tpot_span_end(&sp), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&s, "zz", TTFT_TPOT_POINT_SCHEDULE, 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 0); /* disabled: nothing recorded */
    assert_int_equal(counts(&c).requests, 1);
    unserve(&c, &s);
}

/* test_api.c, phase_registration, null_arguments and configurations_refused: the tools' queries and
   the trace reader refuse NULL, an unknown phase and a zeroed collector. */
static void api_tools_queries_refuse_odd_arguments(void **state)
{
    ttft_tpot c, zero;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    ttft_tpot_summary s;
    (void)state;
    /* phase_registration */
    cfg.max_phases = 2;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase(&c, "a", TTFT_TPOT_ROLE_DECODE), 0);
    assert_int_equal(ttft_tpot_find_phase(&c, "a"), 0);
    assert_int_equal(ttft_tpot_find_phase(&c, "zz"), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_find_phase(NULL, "a"), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
    /* null_arguments */
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_summarize(NULL, &s), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_summarize(&c, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase_stats(&c, 0, &st), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_phase_stats(&c, 0, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_trace_read(&c, NULL, "x", NULL, 0), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
    /* configurations_refused */
    memset(&zero, 0, sizeof zero); /* never initialised: calls refuse it */
    assert_int_equal(ttft_tpot_trace_read(&zero, stdin, "t", NULL, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_find_phase(&zero, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(NULL, 0, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase_stats(&c, -1, NULL), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}

/* test_api.c, spans_never_ended_are_counted: a span begun and never ended travels in a trace, which
   keeps the report ("# counts: spans_open=1"). */
static void api_trace_keeps_spans_open(void **state)
{
    ttft_tpot c;
    ttft_tpot_span a, b;
    (void)state;
    span_left_open(&c, &a, &b);
    trace_keeps_the_report(&c, NULL); /* the trace carries "# counts: spans_open=1" */
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_OK);
    ttft_tpot_free(&c);
}

/* test_api.c, cancelled_spans_are_counted: a cancelled span travels in a trace too, which keeps the
   report ("# counts: spans_cancelled=1"). */
static void api_trace_keeps_spans_cancelled(void **state)
{
    ttft_tpot c;
    ttft_tpot_span a, b;
    (void)state;
    span_left_open(&c, &a, &b);
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).spans_cancelled, 1);
    trace_keeps_the_report(&c, NULL);
    ttft_tpot_free(&c);
}

/* test_storage.c, full_storage_loses_nothing: storage of 8 samples, a decode loop of 20 steps (8
   stored, the rest in the phase's histogram): its trace, read by a collector as small, and by one that
   grows, keeps the same figures. */
static void storage_full_trace_keeps_the_report(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg, grow = {0};
    (void)state;
    full_storage(&c, &cfg);
    assert_int_equal(counts(&c).outgrown, 1);
    trace_keeps_the_report(&c, &cfg); /* a collector as small reads it the same way */
    grow.grow = 1;
    trace_keeps_the_report(&c, &grow); /* and one that grows keeps the same figures */
    ttft_tpot_free(&c);
}

/* test_alloc.c: a's trace read into a tiny growing collector (bounded or not) with a serving layer of
   tiny tables, so that every table grows: all of it, or (ENOMEM) none of it. */
static void grow_into(const ttft_tpot *a, int bounded)
{
    ttft_tpot g;
    ttft_tpot_serve gs;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    FILE *t = tmpfile();
    int rc;
    assert_non_null(t);
    assert_int_equal(ttft_tpot_trace_write(a, t), TTFT_TPOT_OK);
    cfg.grow = 1;
    cfg.capacity = 2;
    sc.max_requests = 1;
    sc.max_request_events = 1;
    cfg.bounded = bounded;
    cfg.hist_slots = 1;
    cfg.timeline = !bounded; /* start times grow with the samples */
    if (ttft_tpot_init(&g, &cfg) == TTFT_TPOT_OK) {
        rc = ttft_tpot_serve_attach(&gs, &g, &sc);
        if (rc != TTFT_TPOT_OK) {
            assert_int_equal(rc, TTFT_TPOT_ENOMEM);
            ttft_tpot_free(&g);
            fclose(t);
            return;
        }
        rewind(t);
        rc = ttft_tpot_trace_read(&g, t, "g", NULL, 0);
        if (rc == TTFT_TPOT_OK) {
            assert_int_equal(counts(&g).requests, counts(a).requests);
            assert_int_equal(counts(&g).dropped, 0);
            if (!bounded)
                assert_int_equal(counts(&g).samples, counts(a).samples);
        } else {
            assert_int_equal(rc, TTFT_TPOT_ENOMEM);
            assert_int_equal(counts(&g).samples + counts(&g).phases + counts(&g).requests, 0);
        }
        ttft_tpot_serve_free(&gs);
        ttft_tpot_free(&g);
    }
    fclose(t);
}

/* test_alloc.c, allocation_failures_are_reported: every call that allocates, of a collector with a
   serving layer (requests, the exposition, the CDF, the tools' queries, trace reads, growing
   collectors, a merge), with its k-th allocation failing: ENOMEM (or OK when the allocation was an
   optimisation it can do without), never a crash, a wrong figure or a leak. Returns whether there was
   a k-th allocation to fail. */
static int run_with_failure(long k)
{
    static const char trace[] = "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\nk,kernel,0,9,0,1\n";
    ttft_tpot a, b;
    ttft_tpot_serve as, bs;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    ttft_tpot_summary s;
    ttft_tpot_stats st;
    int rc, d;
    FILE *f = tmpfile(), *out = tmpfile();
    assert_true(f && out);
    fputs(trace, f);
    allocs = frees = 0;
    fail_at = k;
    cfg.capacity = 8192; /* past 4096 samples a set takes the narrowed path, which allocates more */
    cfg.hist_slots = 1;
    sc.max_requests = 2;
    rc = ttft_tpot_init(&a, &cfg);
    if (rc != TTFT_TPOT_OK) {
        assert_int_equal(rc, TTFT_TPOT_ENOMEM);
        goto done;
    }
    rc = ttft_tpot_serve_attach(&as, &a, &sc);
    if (rc != TTFT_TPOT_OK) {
        assert_int_equal(rc, TTFT_TPOT_ENOMEM);
        ttft_tpot_free(&a);
        goto done;
    }
    d = samples_for_failures(&a);
    ttft_tpot_request_mark(&as, "q", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&as, "q", 5, 1);
    ttft_tpot_request_tokens(&as, "q", 9, 1);
    {
        ttft_tpot_requests rq;
        STEP(ttft_tpot_requests_summary(&as, &rq));
        if (rc == TTFT_TPOT_OK)
            assert_int_equal(rq.metric[TTFT_TPOT_METRIC_ITL].n, 1);
    }
    STEP_WRITES(prometheus(&a, out, NULL, NULL));
    {
        ttft_tpot_model md;
        STEP(ttft_tpot_model_compute(&a, NULL, &md));
        if (rc == TTFT_TPOT_ENOMEM) /* a model that could not be made holds nothing to free */
            assert_true(md.phase == NULL && md.collector == NULL);
        ttft_tpot_model_free(&md);
    }
    {
        ttft_tpot_cdf_point p[4];
        size_t n;
        STEP(ttft_tpot_cdf(&a, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 3, p, &n, NULL));
        if (rc == TTFT_TPOT_OK)
            assert_true(n == 4 && p[3].x == 96005 && p[3].y == 1.0);
    }
    STEP(ttft_tpot_summarize(&a, &s));
    if (rc == TTFT_TPOT_OK) /* whatever failed before, a figure that is given is right */
        assert_int_equal(s.tpot.n, 4999);
    STEP(ttft_tpot_phase_stats(&a, d, &st));
    STEP_WRITES(ttft_tpot_report(&a, out));
    STEP_WRITES(report_json(&a, out));
    rewind(f);
    STEP(ttft_tpot_trace_read(&a, f, "t", NULL, 0));
    grow_into(&a, 0);
    grow_into(&a, 1);
    cfg.capacity = 4;
    if (ttft_tpot_init(&b, &cfg) == TTFT_TPOT_OK) {
        if (ttft_tpot_serve_attach(&bs, &b, &sc) == TTFT_TPOT_OK) {
            record(&b, ttft_tpot_phase(&b, "d", TTFT_TPOT_ROLE_DECODE), 7, 1);
            STEP(ttft_tpot_merge(&a, &b));
            ttft_tpot_serve_free(&bs);
        }
        ttft_tpot_free(&b);
    }
    ttft_tpot_serve_free(&as);
    ttft_tpot_free(&a);
done:
    fclose(f);
    fclose(out);
    return failing_run_ends();
}

static void alloc_failures_with_requests_and_traces(void **state)
{
    (void)state;
    every_allocation_fails(run_with_failure);
}

/* test_limits.c, runs_past_the_limit: past TTFT_TPOT_MAX_RUNS runs (2 in test_limits.c, 256 by
   default: this case holds for any), the run is not marked but counted, the trace says so, and a
   trace's "# run:" lines past the limit count the same. */
static void limits_trace_runs_past_the_limit(void **state)
{
    ttft_tpot c, back;
    char *trace, err[256];
    int d, r;
    (void)state;
    d = fixture(&c, NULL, "d", TTFT_TPOT_ROLE_DECODE);
    for (r = 0; r < TTFT_TPOT_MAX_RUNS + 1; r++) {
        assert_int_equal(ttft_tpot_run_begin(&c), r < TTFT_TPOT_MAX_RUNS ? TTFT_TPOT_OK : TTFT_TPOT_EFULL);
        record(&c, d, 5 * MS, 1);
    }
    assert_int_equal(counts(&c).runs, TTFT_TPOT_MAX_RUNS);
    assert_int_equal(counts(&c).runs_dropped, 1);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# counts: runs_dropped=1"));
    assert_int_equal(ttft_tpot_init(&back, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&back, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&back).runs, TTFT_TPOT_MAX_RUNS);
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
        cmocka_unit_test(api_request_time_a_parameter),
        cmocka_unit_test(api_request_calls_odd_arguments),
        cmocka_unit_test(api_tools_queries_refuse_odd_arguments),
        cmocka_unit_test(api_trace_keeps_spans_open),
        cmocka_unit_test(api_trace_keeps_spans_cancelled),
        cmocka_unit_test(storage_full_trace_keeps_the_report),
        cmocka_unit_test(alloc_failures_with_requests_and_traces),
        cmocka_unit_test(limits_trace_runs_past_the_limit),
    };
    return run_cases(tests);
}
