/* The report model (ttft_tpot_model_compute) of the core: kernel shares of nested spans, and the
   model's calls refused without a collector or a model. Every part of a model worked by hand on one
   trace (with requests), the writers that read it equal to those that compute it, and a model
   without a part refused by the writers that print it: test_trace_device.c. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

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
    text = capture(&c, report_json);
    /* 0.075 as the JSON writes doubles: 17 significant digits, the double nearest 0.075 */
    assert_non_null(strstr(text, "\"decode_share\":0.75,\"decode_share_exclusive\":0.074999999999999997,\"nests\":true"));
    free(text);
    ttft_tpot_free(&c);
}

/* A model of no collector, or into no model, is refused; the writer refuses no model; freeing none is
   nothing (the parts left out of a model: test_trace_device.c). */
static void model_parts_can_be_skipped(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_model_compute(NULL, NULL, &m), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_model_write(NULL, stdout, TTFT_TPOT_FORMAT_TEXT), TTFT_TPOT_EINVAL);
    ttft_tpot_model_free(NULL);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_kernels_share_exclusive_time),
        cmocka_unit_test(model_parts_can_be_skipped),
    };
    return run_cases(tests);
}
