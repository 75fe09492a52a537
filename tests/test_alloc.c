/* Recording never allocates: every allocation goes through TTFT_TPOT_MALLOC, counted here. */
#include <stdlib.h>

static long allocs, frees, fail_at = -1; /* fail_at: the allocation that fails (0 = the first) */
static size_t largest; /* the largest block asked for since it was set to 0 */
static void *counting_malloc(size_t n, void *user)
{
    (void)user;
    if (allocs == fail_at) {
        fail_at = -1;
        return NULL;
    }
    allocs++;
    largest = n > largest ? n : largest;
    return malloc(n);
}
static void counting_free(void *p, void *user)
{
    (void)user;
    frees++;
    free(p);
}
#define TTFT_TPOT_MALLOC(sz, u) counting_malloc((sz), (u))
#define TTFT_TPOT_FREE(p, u) counting_free((p), (u))
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

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
        TTFT_TPOT_SPAN_END_TOKENS(s, 1);
        if (i == 10)
            ttft_tpot_warmup_end(&c);
    }
    ttft_tpot_record_ms(&c, d, 1.0, 1);
    assert_int_equal(allocs, before); /* 1e5 spans, no allocation */
    assert_true(counts(&c).dropped > 0);
    text = capture(&c, ttft_tpot_report); /* reports allocate scratch and free all of it */
    free(text);
    text = capture(&c, ttft_tpot_report_json);
    free(text);
    ttft_tpot_free(&c);
    assert_int_equal(allocs, frees);
}

/* a's trace read into a tiny growing collector (bounded or not), so that every table grows: all of it,
   or (ENOMEM) none of it. */
static void grow_into(const ttft_tpot *a, int bounded)
{
    ttft_tpot g;
    ttft_tpot_config cfg = {0};
    FILE *t = tmpfile();
    int rc;
    assert_non_null(t);
    assert_int_equal(ttft_tpot_trace_write(a, t), TTFT_TPOT_OK);
    cfg.grow = 1;
    cfg.capacity = 2;
    cfg.max_requests = 1;
    cfg.max_request_events = 1;
    cfg.bounded = bounded;
    cfg.hist_slots = 1;
    cfg.timeline = !bounded; /* start times grow with the samples */
    if (ttft_tpot_init(&g, &cfg) == TTFT_TPOT_OK) {
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
        ttft_tpot_free(&g);
    }
    fclose(t);
}

/* Every call that allocates, with its k-th allocation failing: ENOMEM (or OK when the allocation
   was an optimisation it can do without), never a crash, a wrong figure or a leak. Returns whether
   there was a k-th allocation to fail. */
static int run_with_failure(long k)
{
    static const char trace[] = "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\nk,kernel,0,9,0,1\n";
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    ttft_tpot_summary s;
    ttft_tpot_stats st;
    int i, rc, d;
    FILE *f = tmpfile(), *out = tmpfile();
    assert_true(f && out);
    fputs(trace, f);
    allocs = frees = 0;
    fail_at = k;
    cfg.capacity = 8192; /* past 4096 samples a set takes the narrowed path, which allocates more */
    cfg.hist_slots = 1;
    cfg.max_requests = 2;
    rc = ttft_tpot_init(&a, &cfg);
    if (rc != TTFT_TPOT_OK) {
        assert_int_equal(rc, TTFT_TPOT_ENOMEM);
        goto done;
    }
    d = ttft_tpot_phase(&a, "d", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_phase_bounded(&a, ttft_tpot_phase(&a, "b", TTFT_TPOT_ROLE_KERNEL));
    for (i = 0; i < 5000; i++) {
        ttft_tpot_record(&a, d, (uint64_t)(i % 97) * 1000 + 5, 1);
        ttft_tpot_record(&a, 1, (uint64_t)i, 0);
    }
#define STEP(call)                                                                                    \
    do {                                                                                              \
        rc = (call);                                                                                  \
        if (rc != TTFT_TPOT_ENOMEM)                                                                   \
            assert_int_equal(rc, TTFT_TPOT_OK);                                                       \
    } while (0)
    /* a writer that runs out of memory has written nothing: no half report */
#define STEP_WRITES(call)                                                                             \
    do {                                                                                              \
        long at_ = ftell(out);                                                                        \
        STEP(call);                                                                                   \
        if (rc == TTFT_TPOT_ENOMEM)                                                                   \
            assert_int_equal(ftell(out), at_);                                                        \
    } while (0)
    ttft_tpot_request_submit_at(&a, "q", 0);
    ttft_tpot_request_tokens_at(&a, "q", 5, 1);
    ttft_tpot_request_tokens_at(&a, "q", 9, 1);
    {
        ttft_tpot_requests rq;
        STEP(ttft_tpot_requests_summary(&a, &rq));
        if (rc == TTFT_TPOT_OK)
            assert_int_equal(rq.metric[TTFT_TPOT_METRIC_ITL].n, 1);
    }
    STEP_WRITES(ttft_tpot_prometheus(&a, out, NULL, NULL));
    {
        ttft_tpot_model md;
        STEP(ttft_tpot_model_compute(&a, NULL, &md));
        if (rc == TTFT_TPOT_ENOMEM) /* a model that could not be made holds nothing to free */
            assert_true(md.phase == NULL && md.collector == NULL);
        ttft_tpot_model_free(&md);
    }
    {
        uint64_t x[4];
        double y[4];
        size_t n;
        STEP(ttft_tpot_cdf(&a, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, 3, x, y, &n, NULL));
        if (rc == TTFT_TPOT_OK)
            assert_true(n == 4 && x[3] == 96005 && y[3] == 1.0);
    }
    STEP(ttft_tpot_summarize(&a, &s));
    if (rc == TTFT_TPOT_OK) /* whatever failed before, a figure that is given is right */
        assert_int_equal(s.tpot.n, 4999);
    STEP(ttft_tpot_phase_stats(&a, d, &st));
    STEP_WRITES(ttft_tpot_report(&a, out));
    STEP_WRITES(ttft_tpot_report_json(&a, out));
    rewind(f);
    STEP(ttft_tpot_trace_read(&a, f, "t", NULL, 0));
    grow_into(&a, 0);
    grow_into(&a, 1);
    cfg.capacity = 4;
    if (ttft_tpot_init(&b, &cfg) == TTFT_TPOT_OK) {
        ttft_tpot_record(&b, ttft_tpot_phase(&b, "d", TTFT_TPOT_ROLE_DECODE), 7, 1);
        STEP(ttft_tpot_merge(&a, &b));
        ttft_tpot_free(&b);
    }
    ttft_tpot_free(&a);
done:
    fclose(f);
    fclose(out);
    assert_int_equal(allocs, frees); /* nothing leaked on any path */
    if (fail_at == -1)
        return 1; /* the k-th allocation happened, and failed */
    fail_at = -1;
    return 0;
}

/* ttft_tpot_phase_stats takes memory for the phase it reads, not for the store: among 200,000 stored
   samples, neither a phase of 2,000 nor one of 100,000 asks for a block of 8 bytes a stored sample
   (1.6 MB), nor of a quarter of that: the largest is the narrowing scratch (56,320 x 4 bytes), the
   large phase copying out only the values of its percentiles' buckets. Their figures are those of the
   same values given whole to ttft_tpot_stats_of. */
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
        assert_int_equal(ttft_tpot_record(&c, k >= 0 ? ph[k] : f, k >= 0 ? v[k][n[k]++] : 500, 1), TTFT_TPOT_OK);
    }
    assert_true(n[0] == 2000 && n[1] == 100000 && counts(&c).samples == 200000);
    for (k = 0; k < 2; k++) {
        largest = 0;
        assert_int_equal(ttft_tpot_phase_stats(&c, ph[k], &st), TTFT_TPOT_OK);
        assert_true(largest < 8 * 200000 / 4);
        assert_int_equal(ttft_tpot_stats_of(&c, v[k], n[k], &want), TTFT_TPOT_OK);
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
    long k;
    (void)state;
    for (k = 0; run_with_failure(k); k++) /* until no allocation is left to fail */
        assert_true(k < 1000);
    if (k <= 10) /* the sequence really allocates that often */
        fail_msg("only %ld allocations", k);
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
