/* Several dispatch threads: one collector each, merged for the report. Built under ThreadSanitizer
   in CI: the collectors share nothing, so there is nothing for it to find. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include <pthread.h>

enum { THREADS = 4, SPANS = 20000 };

typedef struct {
    ttft_tpot tp;
    int decode, kernel;
} worker;

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    int i;
    for (i = 0; i < SPANS; i++) {
        TTFT_TPOT_SPAN_BEGIN(d, &w->tp, w->decode);
        {
            TTFT_TPOT_SPAN_BEGIN(k, &w->tp, w->kernel);
            TTFT_TPOT_SPAN_END(k);
        }
        TTFT_TPOT_SPAN_END_TOKENS(d, 2);
    }
    return NULL;
}

static void per_thread_collectors_merge(void **state)
{
    static worker w[THREADS];
    pthread_t th[THREADS];
    ttft_tpot all;
    ttft_tpot_config cfg = {0};
    ttft_tpot_summary s;
    ttft_tpot_stats k;
    int i;
    (void)state;
    cfg.capacity = SPANS + 1; /* the kernel samples and the first decode step; the rest: histogram */
    cfg.hist_slots = 1;
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(ttft_tpot_init(&w[i].tp, &cfg), TTFT_TPOT_OK);
        w[i].decode = ttft_tpot_phase(&w[i].tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
        w[i].kernel = ttft_tpot_phase(&w[i].tp, "kernel", TTFT_TPOT_ROLE_KERNEL);
        assert_int_equal(ttft_tpot_phase_bounded(&w[i].tp, w[i].decode), TTFT_TPOT_OK);
    }
    for (i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    for (i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    cfg.capacity = THREADS * SPANS + THREADS;
    cfg.hist_slots = 2;
    assert_int_equal(ttft_tpot_init(&all, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(ttft_tpot_merge(&all, &w[i].tp), TTFT_TPOT_OK);
        ttft_tpot_free(&w[i].tp);
    }
    assert_int_equal(ttft_tpot_summarize(&all, &s), TTFT_TPOT_OK);
    /* every thread's first decode step is warmup, and stored; the rest are in the histogram */
    assert_int_equal(s.tpot.n, THREADS * (SPANS - 1));
    assert_int_equal(s.tpot_excluded, THREADS);
    assert_int_equal(s.tpot.tokens, 2ull * THREADS * (SPANS - 1));
    assert_true(s.tpot.approx);
    assert_int_equal(ttft_tpot_phase_stats(&all, ttft_tpot_find_phase(&all, "kernel"), &k), TTFT_TPOT_OK);
    assert_int_equal(k.n, THREADS * SPANS);
    assert_int_equal(k.warmup_n, THREADS);
    assert_int_equal(counts(&all).dropped, 0);
    ttft_tpot_free(&all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_thread_collectors_merge),
    };
    return run_cases(tests);
}
