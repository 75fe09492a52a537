/* Phases: the name rule, steady kernel rows, per-shape rows, and the prompt tokens a prefill-role
   phase carries for the prefill rate; the keyed hash and the indexes of names, ids and shape keys;
   warmup per shape. Figures worked by hand. */
#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99: test_util.h includes libc first */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "phases_setup.h" /* the recordings of test_trace_metrics.c's cases of test_phases.c */

/* A kernel whose first call page-faults the weights: 280 ms, then 10, 20, 30, 40 ms, and one call of
   50 ms inside a warmup section. Every sample: n 6, mean (280 + 100 + 50) / 6; steady: 10..40 ms,
   mean 25, p50 h = 1.5 -> 25, p99 h = 2.97 -> 30 + 0.97 * 10 = 39.7; warmup: 2, the slowest 280. (Its
   trace keeps the report: test_trace_metrics.c.) */
static void steady_kernel_rows(void **state)
{
    ttft_tpot c;
    jc_value doc;
    const jc_value *k;
    char *text;
    (void)state;
    kernel_with_a_slow_first_call(&c);
    json_of(&c, &doc);
    k = phase_named(&doc, "matmul");
    assert_ms(k, "n", 6);
    assert_ms(k, "warmup_n", 2);
    assert_near(num_at(k, "mean_ms"), 430.0 / 6, 0.5e-6); /* printed to the ns */
    assert_ms(k, "max_ms", 280);
    assert_ms(k, "warmup_max_ms", 280);
    assert_ms(k, "steady.n", 4);
    assert_ms(k, "steady.mean", 25);
    assert_ms(k, "steady.p50", 25);
    assert_ms(k, "steady.p99", 39.7);
    assert_ms(k, "steady.max", 40);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "matmul                   kernel         6      2    71.67 ms    10.00 ms   280.00 ms"));
    assert_non_null(strstr(text, "  steady                                4      -    25.00 ms    10.00 ms    40.00 ms"
                                 "    25.00 ms   39.70 ms*  warmup max 280.00 ms"));
    free(text);
    ttft_tpot_free(&c);
}

/* A phase without warmup has no steady row in the text (it would repeat the row), and its JSON
   "steady" equals its figures; a phase whose samples are all warmup has "steady": null. */
static void steady_rows_of_phases_without_warmup(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int k, e;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    e = ttft_tpot_phase(&c, "once", TTFT_TPOT_ROLE_KERNEL);
    record(&c, k, 1 * MS, 0); /* its first call, then cleared: its next calls are steady */
    ttft_tpot_clear(&c);
    record(&c, e, 7 * MS, 0);
    record(&c, k, 3 * MS, 0);
    record(&c, k, 5 * MS, 0);
    json_of(&c, &doc);
    assert_ms(phase_named(&doc, "k"), "steady.n", 2);
    assert_ms(phase_named(&doc, "k"), "steady.mean", 4);
    assert_true(is_null_at(phase_named(&doc, "k"), "warmup_max_ms"));
    assert_true(is_null_at(phase_named(&doc, "once"), "steady"));
    assert_ms(phase_named(&doc, "once"), "warmup_max_ms", 7);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "  steady"));
    free(text);
    ttft_tpot_free(&c);
}

/* Prompt tokens: a warm first prefill (900 ms, 100 prompt tokens) is left out; steady ones of 200 ms
   with 400 tokens and 300 ms with 600, and one of 100 ms that carries no count. Prefill rate:
   (400 + 600) / (0.2 + 0.3 s) = 2000 tok/s over 2 prefills; 1 steady prefill without a count. (Its
   trace, and traces without prompt sums or with bad ones: test_trace_metrics.c.) */
static void prompt_tokens_give_the_prefill_rate(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    (void)state;
    prompts_and_refusals(&c); /* the prefills above, and 4 calls refused */
    assert_int_equal(counts(&c).samples, 4);
    json_of(&c, &doc);
    assert_ms(&doc, "prefill.tokens", 1000);
    assert_ms(&doc, "prefill.tok_s", 2000);
    assert_ms(&doc, "prefill.samples", 2);
    assert_ms(&doc, "prefill.without_prompt", 1);
    assert_ms(&doc, "ttft.steady.n", 3); /* the prompt count changes no TTFT figure */
    assert_ms(&doc, "phases.0.tokens", 4); /* each prefill's output: 1 token */
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "Prefill rate          : 2000.0 tok/s  (prompt tokens / steady prefill time) over "
                                 "2 prefills, 1000 prompt tokens; 1 steady prefills carry no prompt count and are left "
                                 "out\n"));
    free(text);
    ttft_tpot_free(&c);
}

/* Prompt tokens of a bounded prefill phase: its steady samples are in its histogram, and the trace's
   prompt sums are checked against it. 200, 300 and 100 ms steady prefills with 400, 600 and 100 prompt
   tokens: 1100 / 0.6 s = 1833.3 tok/s, live (and from the trace: test_trace_metrics.c). */
static void prompt_tokens_of_a_bounded_prefill(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    int pre;
    (void)state;
    cfg.bounded = 1;
    pre = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    prompted_prefills(&c, pre, 100);
    json_of(&c, &doc);
    assert_near(num_at(&doc, "prefill.tok_s"), 1100 / 0.6, 1e-9);
    assert_true(is_bool_at(&doc, "ttft.steady.approximate", 1));
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* A merge into a full collector drops samples that carried prompt tokens; their sums stay (the rate
   is still theirs), and the report never counts fewer than none without a prompt. dst (capacity 1,
   max_phases 2, one histogram slot) has a kernel phase that took the slot; of src's prefills its
   first call (900 ms, warmup) takes the reserve, and its three steady ones (200 ms with 400 prompt
   tokens, 300 ms with 600, 100 ms with 100) are dropped. Prompt sums: 3 prefills, 1100 tokens,
   600 ms: 1833.3 tok/s, with no steady sample left to count. (Its trace reads: test_trace_metrics.c.) */
static void merge_that_drops_prompts(void **state)
{
    ttft_tpot src, dst;
    ttft_tpot_config cfg;
    jc_value doc;
    char *text;
    (void)state;
    merge_that_drops(&src, &dst, &cfg);
    assert_int_equal(counts(&dst).samples, 2);
    assert_int_equal(counts(&dst).dropped, 3);
    json_of(&dst, &doc);
    assert_true(is_null_at(&doc, "ttft.steady"));
    assert_ms(&doc, "prefill.samples", 3);
    assert_ms(&doc, "prefill.tokens", 1100);
    assert_near(num_at(&doc, "prefill.tok_s"), 1100 / 0.6, 1e-9);
    assert_ms(&doc, "prefill.without_prompt", 0);
    jc_free(&doc);
    text = capture(&dst, ttft_tpot_report);
    assert_non_null(strstr(text, "Prefill rate          : 1833.3 tok/s  (prompt tokens / steady prefill time) over 3 "
                                 "prefills, 1100 prompt tokens\n"));
    free(text);
    ttft_tpot_free(&dst);
    ttft_tpot_free(&src);
}

/* Per-shape rows: matmul named for key 1 (288x288) and key 2 (32000x288); key 3 has no name and
   stays in matmul, flagging its first sample as before. 288x288: 200 us (its first call), 60, 60,
   66 us (one by a span); 32000x288: 5000 us (first), 2000, 2200 us. (Its trace keeps the report:
   test_trace_metrics.c.) */
static void shape_rows_split_a_phase(void **state)
{
    script_clock clk;
    ttft_tpot c;
    ttft_tpot_config cfg;
    jc_value doc;
    char *text;
    int mm, big;
    (void)state;
    mm = matmul_with_shape_rows(&c, &cfg, &clk, &big);
    {
        ttft_tpot_model m = view(&c);
        assert_true((unsigned)big < m.phases);
        assert_string_equal(m.phase[big].name, "matmul[32000x288]");
        assert_int_equal(m.phase[big].role, TTFT_TPOT_ROLE_KERNEL);
        ttft_tpot_model_free(&m);
    }
    shape_rows_recorded(&c, mm);
    json_of(&c, &doc);
    assert_ms(phase_named(&doc, "matmul[288x288]"), "n", 4);
    assert_ms(phase_named(&doc, "matmul[288x288]"), "warmup_n", 1);
    assert_ms(phase_named(&doc, "matmul[288x288]"), "warmup_max_ms", 0.2);
    assert_ms(phase_named(&doc, "matmul[288x288]"), "steady.mean", 0.062);
    assert_ms(phase_named(&doc, "matmul[32000x288]"), "n", 3);
    assert_ms(phase_named(&doc, "matmul[32000x288]"), "steady.mean", 2.1);
    assert_ms(phase_named(&doc, "matmul"), "n", 1);
    assert_ms(phase_named(&doc, "matmul"), "warmup_n", 1); /* the phase's own first call */
    assert_ms(&doc, "shapes_dropped", 1);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "matmul[32000x288]        kernel         3      1     3.07 ms     2.00 ms     5.00 ms"));
    free(text);
    ttft_tpot_free(&c);
}

static void utf8_edges(void **state)
{
    ttft_tpot c;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_true(ttft_tpot_phase(&c, "emoji \xf0\x9f\x9a\x80", TTFT_TPOT_ROLE_KERNEL) >= 0); /* 4 bytes */
    assert_int_equal(ttft_tpot_phase(&c, "past U+10FFFF \xf4\x90\x80\x80", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "overlong4 \xf0\x8f\xbf\xbf", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "overlong3 \xe0\x80\xaf", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "bad continuation \xc3\x28", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "lone continuation \x80", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "del \x7f", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    ttft_tpot_free(&c);
}

/* SipHash-2-4 against the vectors of its paper (key 00..0f, message 00..len-1), and SipHash-1-3,
   which the indexes use, against Python's str/bytes hash (SipHash-1-3, key 0 under PYTHONHASHSEED=0). */
static void keyed_hash(void **state)
{
    const uint64_t k[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull}, zero[2] = {0, 0};
    static const char *const words[] = {"a", "abc", "decode_step", "0123456789abcdef", "request-000123"};
    unsigned char m[16];
    char cmd[256], *out;
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof m; i++)
        m[i] = (unsigned char)i;
    assert_true(ttft_tpot__siphash(k, m, 0, 2, 4) == 0x726fdb47dd0e0e31ull);
    assert_true(ttft_tpot__siphash(k, m, 1, 2, 4) == 0x74f839c593dc67fdull);
    assert_true(ttft_tpot__siphash(k, m, 8, 2, 4) == 0x93f5f5799a932462ull);
    assert_true(ttft_tpot__siphash(k, m, 15, 2, 4) == 0xa129ca6149be45e5ull);
    if (shell("/usr/bin/python3 -c 'import sys; sys.exit(sys.hash_info.algorithm != \"siphash13\")' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with SipHash-1-3 str hashing: the cross-check is SKIPPED\n");
        return;
    }
    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        snprintf(cmd, sizeof cmd, "PYTHONHASHSEED=0 /usr/bin/python3 -c 'print(hash(b\"%s\") %% 2**64)' > siphash.out",
                 words[i]);
        assert_int_equal(shell(cmd), 0);
        out = slurp("siphash.out");
        assert_true(strtoull(out, NULL, 10) == ttft_tpot__siphash(zero, words[i], strlen(words[i]), 1, 3));
        free(out);
    }
}

/* Every collector draws its own key; thousands of phases are found through the index of names. (The
   index of request ids, and a refused trace that takes its phases out of the index again:
   test_trace_metrics.c.) */
static void indexes_by_name(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    char name[32];
    int i;
    (void)state;
    cfg.max_phases = 5000;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_true(a.key[0] != b.key[0] || a.key[1] != b.key[1]);
    for (i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(ttft_tpot_phase(&a, name, TTFT_TPOT_ROLE_KERNEL), i);
    }
    for (i = 4999; i >= 0; i--) {
        snprintf(name, sizeof name, "k%d", i);
        assert_int_equal(find_phase(&a, name), i);
        assert_int_equal(ttft_tpot_phase(&a, name, TTFT_TPOT_ROLE_KERNEL), i);
    }
    assert_int_equal(find_phase(&a, "k5000"), TTFT_TPOT_EPHASE);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

static void warmup_per_shape(void **state)
{
    static const uint64_t keys[] = {1, 1, 2, 2, 1, 4};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    int d, k;
    size_t i;
    char *text;
    (void)state;
    d = fixture(&c, NULL, "decode", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 6; i++) /* first call (key 1), the first of key 2, the first of key 4 */
        assert_int_equal(record_shape(&c, d, keys[i], MS, 1), TTFT_TPOT_OK);
    assert_int_equal(phase_stats(&c, d, &st), TTFT_TPOT_OK);
    assert_int_equal(st.warmup_n, 3);
    assert_int_equal(sample(&c, 2).warmup, 1);
    assert_int_equal(sample(&c, 4).warmup, 0);
    k = ttft_tpot_phase(&c, "graph", TTFT_TPOT_ROLE_KERNEL); /* the same keys, another phase: new again */
    for (i = 0; i < 3; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, &c, k);
        TTFT_TPOT_SPAN_SET_SHAPE(s, keys[i + 2]);
        TTFT_TPOT_SPAN_END(s);
    }
    assert_int_equal(phase_stats(&c, k, &st), TTFT_TPOT_OK);
    assert_int_equal(st.warmup_n, 2); /* keys 2 (the first call too), 1 */
    ttft_tpot_free(&c);
    /* a full shape table: new shapes are counted, not flagged */
    cfg.max_shapes = 2;
    d = fixture(&c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 6; i++)
        record_shape(&c, d, keys[i], MS, 1);
    assert_int_equal(counts(&c).shapes_dropped, 1);
    assert_int_equal(sample(&c, 5).warmup, 0);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 sample with a new shape not flagged warmup"));
    free(text);
    assert_int_equal(record_shape(NULL, 0, 1, 1, 1), TTFT_TPOT_EINVAL);
    ttft_tpot_enable(&c, 0);
    assert_int_equal(record_shape(&c, d, 9, 1, 1), TTFT_TPOT_OK);
    ttft_tpot_free(&c);
}

/* Shape keys are hashed under the collector's key too: 4096 keys j << 48 all fell in slot 0 of an
   unkeyed multiplicative hash (j * C << 48 >> 32 has no bit below 16), so each lookup probed the
   keys before it. Now they probe about as few slots as any keys: the mean distance of a key from its
   first slot stays under 2 (1.5 expected at half full). The pair hash is SipHash-1-3 of the pair's 16
   bytes, little-endian. */
static void shape_keys_are_keyed(void **state)
{
    const uint64_t k[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    unsigned char bytes[16];
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    uint64_t j, probes = 0;
    int d, b;
    (void)state;
    for (b = 0; b < 16; b++)
        bytes[b] = (unsigned char)((b < 8 ? 0x1122334455667788ull : 42u) >> (8 * (b % 8)));
    assert_true(ttft_tpot__siphash_pair(k, 0x1122334455667788ull, 42) == ttft_tpot__siphash(k, bytes, 16, 1, 3));
    cfg.max_shapes = 4096;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (j = 1; j <= 4096; j++)
        assert_int_equal(record_shape(&c, d, j << 48, 5, 1), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).shapes_dropped, 0);
    for (j = 1; j <= 4096; j++) { /* from its first slot to where it is */
        uint32_t home = (uint32_t)ttft_tpot__siphash_pair(c.key, j << 48, (uint64_t)d) & c.shape.mask;
        probes += (ttft_tpot__shape_slot(&c, d, j << 48) - home) & c.shape.mask;
    }
    if (probes >= 2 * 4096)
        fail_msg("%llu probes for 4096 keys", (unsigned long long)probes);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steady_kernel_rows),
        cmocka_unit_test(steady_rows_of_phases_without_warmup),
        cmocka_unit_test(prompt_tokens_give_the_prefill_rate),
        cmocka_unit_test(prompt_tokens_of_a_bounded_prefill),
        cmocka_unit_test(merge_that_drops_prompts),
        cmocka_unit_test(shape_rows_split_a_phase),
        cmocka_unit_test(utf8_edges),
        cmocka_unit_test(keyed_hash),
        cmocka_unit_test(indexes_by_name),
        cmocka_unit_test(warmup_per_shape),
        cmocka_unit_test(shape_keys_are_keyed),
    };
    return run_cases(tests);
}
