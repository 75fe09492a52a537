/* Recording never allocates: every allocation goes through TTFT_TPOT_MALLOC, counted here. */
#include <stdlib.h>

static long allocs, frees;
static void *counting_malloc(size_t n, void *user)
{
    (void)user;
    allocs++;
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
    assert_true(c.dropped > 0);
    text = capture(&c, ttft_tpot_report); /* reports allocate scratch and free all of it */
    free(text);
    text = capture(&c, ttft_tpot_report_json);
    free(text);
    ttft_tpot_free(&c);
    assert_int_equal(allocs, frees);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spans_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
