/* The sample storage: a caller's buffer, what a full store drops or keeps in histograms, and the
   default capacity that drops nothing. A test of the core (ttft_tpot.h alone): the trace round trips
   of a full store are in test_trace_collector.c. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "collector_setup.h" /* full_storage() */

/* Storage of 8 samples, a decode loop of 20 steps: step 0 (50 ms, warmup), then 1..19 ms, 2 tokens
   each. 8 are stored (50, 1..7); 8..19 go on in the phase's histogram. TPOT: n 19, total 190 ms,
   tokens 38, output 38 / 0.190 s = 200 tok/s, min 1, max 19: exact; p50 10 ms within 0.78%. Warmup
   samples past the storage take the reserve (max_phases + max_shapes, at most the capacity: 8). */
static void full_storage_loses_nothing(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    jc_value doc;
    char *text;
    int d;
    (void)state;
    d = full_storage(&c, &cfg);
    assert_int_equal(counts(&c).dropped, 0);
    assert_int_equal(counts(&c).outgrown, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 19);
    assert_ms(&doc, "tpot.excluded_warmup", 1);
    assert_ms(&doc, "tpot.total_ms", 190);
    assert_ms(&doc, "tpot.min_ms", 1);
    assert_ms(&doc, "tpot.max_ms", 19);
    assert_near(num_at(&doc, "tpot.p50_ms"), 10, 10 * TTFT_TPOT_HIST_MAX_REL_ERR);
    assert_true(is_bool_at(&doc, "tpot.approximate", 1));
    assert_ms(&doc, "output_throughput_tok_s", 200);
    assert_ms(&doc, "phases.0.n", 20);
    assert_ms(&doc, "phases.0.tokens", 40);
    assert_ms(&doc, "dropped", 0);
    assert_ms(&doc, "outgrown", 1);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "NOTE: storage full at 8 samples: 1 phase went on in histograms (marked ~)"));
    assert_null(strstr(text, "dropped"));
    free(text);
    /* its trace, read by a collector as small and by one that grows, keeps the same figures:
       test_trace_collector.c (storage_full_trace_keeps_the_report) */
    /* a clear gives the slot back: the phase is exact again */
    ttft_tpot_clear(&c);
    record(&c, d, 3 * MS, 1);
    assert_int_equal(counts(&c).samples, 1);
    assert_int_equal(counts(&c).outgrown, 0);
    assert_null(c.phase.slots[d].hist);
    ttft_tpot_free(&c);
}

/* With the default configuration, 5 runs of 256 decode steps through 60 kernel phases (76,800
   kernel samples and 1,280 steps: more than the 65,536 samples stored) drop nothing. */
static void default_storage_drops_nothing(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int d, k[60], i, j, r;
    char name[16];
    (void)state;
    d = fixture(&c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (j = 0; j < 60; j++) {
        snprintf(name, sizeof name, "kernel%d", j);
        k[j] = ttft_tpot_phase(&c, name, TTFT_TPOT_ROLE_KERNEL);
    }
    for (r = 0; r < 5; r++)
        for (i = 0; i < 256; i++) {
            for (j = 0; j < 60; j++)
                assert_int_equal(record(&c, k[j], (uint64_t)(j + 1) * 1000, 0), TTFT_TPOT_OK);
            assert_int_equal(record(&c, d, (uint64_t)(i + 1) * 1000, 1), TTFT_TPOT_OK);
        }
    assert_int_equal(counts(&c).dropped, 0);
    assert_true(counts(&c).outgrown > 0);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 1279);
    assert_ms(&doc, "phases.0.n", 1280);
    assert_ms(&doc, "phases.60.n", 1280);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

static void caller_buffer(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    size_t need;
    unsigned char *buf;
    int k, i;
    (void)state;
    cfg.capacity = 8;
    cfg.max_phases = 2;
    need = ttft_tpot_bytes_needed(&cfg);
    assert_true(need >= 8 * sizeof(ttft_tpot_sample));
    buf = (unsigned char *)malloc(need + 1);
    assert_non_null(buf);
    cfg.buffer = buf + 1; /* misaligned on purpose */
    cfg.buffer_bytes = need - 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_ENOMEM);
    cfg.buffer_bytes = need;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_null(c.owned);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 8; i++)
        assert_int_equal(record(&c, k, MS, 0), TTFT_TPOT_OK);
    /* past the storage the phase goes on in a histogram, in the same buffer */
    assert_int_equal(record(&c, k, MS, 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).dropped, 0);
    assert_int_equal(counts(&c).outgrown, 1);
    ttft_tpot_free(&c); /* frees nothing: the buffer is the caller's */
    free(buf);
}

static void full_storage_counts_drops(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    int d, i;
    (void)state;
    cfg.capacity = 4;
    d = fixture(&c, &cfg, "d", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 4; i++)
        assert_int_equal(record(&c, d, (uint64_t)(i + 1) * MS, 1), TTFT_TPOT_OK);
    /* past the storage the phase goes on in a histogram: nothing is lost */
    assert_int_equal(record(&c, d, 99 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(record(&c, d, 99 * MS, 1), TTFT_TPOT_OK);
    /* warmup samples cannot: the reserve (max_phases + max_shapes, at most the capacity: 4) takes 4 */
    ttft_tpot_warmup_begin(&c);
    for (i = 0; i < 6; i++)
        assert_int_equal(record(&c, d, MS, 1), i < 4 ? TTFT_TPOT_OK : TTFT_TPOT_EFULL);
    ttft_tpot_warmup_end(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "dropped", 2);
    assert_ms(&doc, "outgrown", 1);
    assert_ms(&doc, "tpot.n", 5); /* 2, 3, 4 ms stored, 99 and 99 in the histogram */
    assert_ms(&doc, "tpot.max_ms", 99);
    assert_ms(&doc, "tpot.total_ms", 207);
    assert_true(is_bool_at(&doc, "tpot.approximate", 1));
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 2 samples dropped (storage full at 4)"));
    free(text);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_storage_loses_nothing),
        cmocka_unit_test(default_storage_drops_nothing),
        cmocka_unit_test(caller_buffer),
        cmocka_unit_test(full_storage_counts_drops),
    };
    return run_cases(tests);
}
