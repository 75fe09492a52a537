/* The library compiled with its limits lowered: selection always takes its sort fallback
   (TTFT_TPOT__SELECT_ROUNDS 0), so that path gives the same exact figures, and a collector marks 2
   runs at most (TTFT_TPOT_MAX_RUNS), so the limit is reached. A test of the core (ttft_tpot.h alone):
   a trace read back past the limit is in test_trace_collector.c (limits_trace_runs_past_the_limit,
   written for any TTFT_TPOT_MAX_RUNS). */
#define TTFT_TPOT__SELECT_ROUNDS 0
#define TTFT_TPOT_MAX_RUNS 2
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

static void sort_fallback_gives_the_same_percentiles(void **state)
{
    ttft_tpot c;
    ttft_tpot_stats st;
    int k, i;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 101; i++) /* 0..100, shuffled */
        record(&c, k, (uint64_t)(i * 37 % 101), 0);
    assert_int_equal(phase_stats(&c, k, &st), TTFT_TPOT_OK);
    assert_near(st.p50_ns, 50, 0);
    assert_near(st.p90_ns, 90, 0);
    assert_near(st.p99_ns, 99, 0);
    ttft_tpot_free(&c);
}

/* Past TTFT_TPOT_MAX_RUNS runs (2 here): the run is not marked but counted, its samples join the last
   run, the reports and the trace say so. (A trace's "# run:" lines past the limit count the same:
   test_trace_collector.c.) */
static void runs_past_the_limit(void **state)
{
    ttft_tpot c;
    char *text, *trace;
    int d, r;
    (void)state;
    d = fixture(&c, NULL, "d", TTFT_TPOT_ROLE_DECODE);
    for (r = 0; r < 3; r++) {
        assert_int_equal(ttft_tpot_run_begin(&c), r < 2 ? TTFT_TPOT_OK : TTFT_TPOT_EFULL);
        record(&c, d, 5 * MS, 1);
    }
    assert_int_equal(counts(&c).runs, 2);
    assert_int_equal(counts(&c).runs_dropped, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 run not marked (TTFT_TPOT_MAX_RUNS 2): their samples are in the last run"));
    free(text);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# counts: runs_dropped=1"));
    free(trace);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sort_fallback_gives_the_same_percentiles),
        cmocka_unit_test(runs_past_the_limit),
    };
    return run_cases(tests);
}
