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
        TTFT_TPOT_SPAN_SET_TOKENS(d, 2);
        TTFT_TPOT_SPAN_END(d);
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
    s = headline(&all);
    /* the first merged thread's first decode step is the whole's warmup, stored; the other threads' first
       steps are steady in the merged whole (a phase's first call is warmup once), in the histogram */
    assert_int_equal(s.tpot.n, THREADS * SPANS - 1);
    assert_int_equal(s.tpot_excluded, 1);
    assert_int_equal(s.tpot.tokens, 2ull * (THREADS * SPANS - 1));
    assert_true(s.tpot.approx);
    assert_int_equal(phase_stats(&all, find_phase(&all, "kernel"), &k), TTFT_TPOT_OK);
    assert_int_equal(k.n, THREADS * SPANS);
    assert_int_equal(k.warmup_n, 1);
    assert_int_equal(counts(&all).dropped, 0);
    ttft_tpot_free(&all);
}

/* Calls of phase "x" into a fresh collector: the first (warmup) in a warmup section when section,
   with a new shape when shape. */
static void calls(ttft_tpot *c, int n, int section, int shape)
{
    int x = ttft_tpot_phase(c, "x", TTFT_TPOT_ROLE_KERNEL), i;
    for (i = 0; i < n; i++) {
        ttft_tpot_span s = ttft_tpot_span_begin_at(c, x, 0);
        if (section && i == 0)
            ttft_tpot_warmup_begin(c);
        ttft_tpot_span_set_duration(&s, (uint64_t)(i + 1) * 1000);
        if (shape && i == 0)
            ttft_tpot_span_set_shape(&s, 7);
        ttft_tpot_span_end(&s);
        if (section && i == 0)
            ttft_tpot_warmup_end(c);
    }
}

static uint64_t warmup_of(const ttft_tpot *c)
{
    ttft_tpot_stats st;
    assert_int_equal(phase_stats(c, find_phase(c, "x"), &st), TTFT_TPOT_OK);
    return st.warmup_n;
}

/* A phase's first call is warmup once in a merged whole: a merged collector's first call stays warmup
   only where the whole had not called the phase (merge order is call order), and a first call that
   was warmup for another reason too (a warmup section, a new shape) stays warmup. */
static void merged_first_calls_are_warmup_once(void **state)
{
    ttft_tpot all, t[5], mid;
    int i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&all, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&mid, NULL), TTFT_TPOT_OK);
    for (i = 0; i < 5; i++)
        assert_int_equal(ttft_tpot_init(&t[i], NULL), TTFT_TPOT_OK);
    calls(&t[0], 3, 0, 0);
    calls(&t[1], 3, 0, 0);
    calls(&t[2], 3, 1, 0); /* its first call in a warmup section */
    calls(&t[3], 3, 0, 1); /* with a new shape */
    calls(&t[4], 3, 0, 0);
    ttft_tpot_clear(&t[4]); /* its first call's sample is gone: the rest are steady */
    calls(&t[4], 2, 0, 0);
    assert_int_equal(ttft_tpot_merge(&all, &t[0]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&all), 1); /* a fresh whole: t[0]'s first call is its first */
    assert_int_equal(ttft_tpot_merge(&all, &t[1]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&all), 1); /* t[1]'s is not */
    assert_int_equal(ttft_tpot_merge(&all, &t[2]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&all), 2); /* a warmup section's stays */
    assert_int_equal(ttft_tpot_merge(&all, &t[3]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&all), 3); /* a new shape's stays */
    assert_int_equal(ttft_tpot_merge(&all, &t[4]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&all), 3);
    assert_int_equal(counts(&all).samples, 14);
    /* through a collector merged into another: mid takes t[1]'s first call as its own, which stays the
       first of a fresh whole and is steady in one that had called the phase */
    assert_int_equal(ttft_tpot_merge(&mid, &t[1]), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&mid), 1);
    assert_int_equal(ttft_tpot_merge(&t[0], &mid), TTFT_TPOT_OK);
    assert_int_equal(warmup_of(&t[0]), 1);
    ttft_tpot_free(&mid);
    ttft_tpot_free(&all);
    for (i = 0; i < 5; i++)
        ttft_tpot_free(&t[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(per_thread_collectors_merge),
        cmocka_unit_test(merged_first_calls_are_warmup_once),
    };
    return run_cases(tests);
}
