/* What a real driver needs: steady kernel rows, storage that never loses a sample, prompt tokens
   and the prefill rate, per-shape rows, queue time and request tracks. Figures worked by hand; the
   report of each collector's trace equals its live report. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#define MS 1000000ull /* ns */

/* The Prometheus exposition with vLLM's names. */
static int prom_default(const ttft_tpot *c, FILE *out)
{
    return ttft_tpot_prometheus(c, out, NULL, NULL);
}
#define capture_prom(c) capture((c), prom_default)

/* A kernel whose first call page-faults the weights: 280 ms, then 10, 20, 30, 40 ms, and one call of
   50 ms inside a warmup section. Every sample: n 6, mean (280 + 100 + 50) / 6; steady: 10..40 ms,
   mean 25, p50 h = 1.5 -> 25, p99 h = 2.97 -> 30 + 0.97 * 10 = 39.7; warmup: 2, the slowest 280. */
static void steady_kernel_rows(void **state)
{
    static const uint64_t ms[] = {280, 10, 20, 30, 40};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    const jc_value *k;
    char *text;
    int phase, i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    phase = ttft_tpot_phase(&c, "matmul", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 5; i++)
        ttft_tpot_record(&c, phase, ms[i] * MS, 0);
    ttft_tpot_warmup_begin(&c);
    ttft_tpot_record(&c, phase, 50 * MS, 0);
    ttft_tpot_warmup_end(&c);
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
    trace_keeps_the_report(&c, &cfg);
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
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    e = ttft_tpot_phase(&c, "once", TTFT_TPOT_ROLE_KERNEL);
    ttft_tpot_record(&c, k, 1 * MS, 0); /* its first call, then cleared: its next calls are steady */
    ttft_tpot_clear(&c);
    ttft_tpot_record(&c, e, 7 * MS, 0);
    ttft_tpot_record(&c, k, 3 * MS, 0);
    ttft_tpot_record(&c, k, 5 * MS, 0);
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

/* Storage of 8 samples, a decode loop of 20 steps: step 0 (50 ms, warmup), then 1..19 ms, 2 tokens
   each. 8 are stored (50, 1..7); 8..19 go on in the phase's histogram. TPOT: n 19, total 190 ms,
   tokens 38, output 38 / 0.190 s = 200 tok/s, min 1, max 19: exact; p50 10 ms within 0.78%. Warmup
   samples past the storage take the reserve (max_phases + max_shapes, at most the capacity: 8). */
static void full_storage_loses_nothing(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0}, grow = {0};
    jc_value doc;
    char *text;
    int d, i;
    (void)state;
    cfg.capacity = 8;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 20; i++)
        assert_int_equal(ttft_tpot_record(&c, d, (i ? (uint64_t)i : 50) * MS, 2), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 8);
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
    assert_non_null(strstr(text, "NOTE: storage full at 8 samples: 1 phases went on in histograms (marked ~)"));
    assert_null(strstr(text, "dropped"));
    free(text);
    trace_keeps_the_report(&c, &cfg); /* a collector as small reads it the same way */
    grow.grow = 1;
    trace_keeps_the_report(&c, &grow); /* and one that grows keeps the same figures */
    /* a clear gives the slot back: the phase is exact again */
    ttft_tpot_clear(&c);
    ttft_tpot_record(&c, d, 3 * MS, 1);
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
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (j = 0; j < 60; j++) {
        snprintf(name, sizeof name, "kernel%d", j);
        k[j] = ttft_tpot_phase(&c, name, TTFT_TPOT_ROLE_KERNEL);
    }
    for (r = 0; r < 5; r++)
        for (i = 0; i < 256; i++) {
            for (j = 0; j < 60; j++)
                assert_int_equal(ttft_tpot_record(&c, k[j], (uint64_t)(j + 1) * 1000, 0), TTFT_TPOT_OK);
            assert_int_equal(ttft_tpot_record(&c, d, (uint64_t)(i + 1) * 1000, 1), TTFT_TPOT_OK);
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

/* Prompt tokens: a warm first prefill (900 ms, 100 prompt tokens) is left out; steady ones of 200 ms
   with 400 tokens and 300 ms with 600, and one of 100 ms that carries no count. Prefill rate:
   (400 + 600) / (0.2 + 0.3 s) = 2000 tok/s over 2 prefills; 1 steady prefill without a count. */
static void prompt_tokens_give_the_prefill_rate(void **state)
{
    ttft_tpot c, old;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text, err[256];
    int pre, dec;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 900 * MS, 1, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 200 * MS, 1, 400), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 300 * MS, 1, 600), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record(&c, pre, 100 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, dec, 5 * MS, 1, 7), TTFT_TPOT_EROLE); /* refused, counted */
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 5 * MS, 1, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_record_prompt(&c, 9, 5 * MS, 1, 7), TTFT_TPOT_EPHASE);
    {
        ttft_tpot_span sp = ttft_tpot_span_begin(&c, pre);
        assert_int_equal(ttft_tpot_span_end_prompt(&sp, 1, 0), TTFT_TPOT_EINVAL); /* a span's too */
    }
    assert_int_equal(counts(&c).rejected, 4);
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
    trace_keeps_the_report(&c, &cfg);
    /* a v1 trace without prompt sums reads as before: no rate */
    assert_int_equal(ttft_tpot_init(&old, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\np,prefill,0,9,1,1\np,prefill,0,8,1,0\n",
                               "v1", err, sizeof err), TTFT_TPOT_OK);
    json_of(&old, &doc);
    assert_true(is_null_at(&doc, "prefill.tok_s"));
    assert_ms(&doc, "prefill.without_prompt", 1);
    jc_free(&doc);
    text = capture(&old, ttft_tpot_report);
    assert_non_null(strstr(text, "Prefill rate          : n/a         (no steady prefill carries prompt tokens"));
    free(text);
    /* a malformed "# prompt:" line is refused with its line, and leaves the collector as it was */
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\n# prompt: 1,x,3,p\n", "t", err,
                               sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: # prompt: expected N,TOKENS,NS,NAME");
    /* prompt sums name a prefill phase: a decode phase's are refused */
    assert_int_equal(trace_str(&old, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,1,1,0\n# prompt: 1,2,3,d\n",
                               "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:3: phase changes role: d");
    assert_int_equal(counts(&old).phases, 1);
    ttft_tpot_free(&old);
    ttft_tpot_free(&c);
}

/* Prompt tokens of a bounded prefill phase: its steady samples are in its histogram, and the trace's
   prompt sums are checked against it. 200, 300 and 100 ms steady prefills with 400, 600 and 100 prompt
   tokens: 1100 / 0.6 s = 1833.3 tok/s, live and from the trace. */
static void prompt_tokens_of_a_bounded_prefill(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    int pre;
    (void)state;
    cfg.bounded = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 900 * MS, 1, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 200 * MS, 1, 400), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 300 * MS, 1, 600), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 100 * MS, 1, 100), TTFT_TPOT_OK);
    json_of(&c, &doc);
    assert_near(num_at(&doc, "prefill.tok_s"), 1100 / 0.6, 1e-9);
    assert_true(is_bool_at(&doc, "ttft.steady.approximate", 1));
    jc_free(&doc);
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* A merge into a full collector drops samples that carried prompt tokens; their sums stay (the rate
   is still theirs), and the report never counts fewer than none without a prompt. dst (capacity 1,
   max_phases 2, one histogram slot) has a kernel phase that took the slot; of src's prefills its
   first call (900 ms, warmup) takes the reserve, and its three steady ones (200 ms with 400 prompt
   tokens, 300 ms with 600, 100 ms with 100) are dropped. Prompt sums: 3 prefills, 1100 tokens,
   600 ms: 1833.3 tok/s, with no steady sample left to count. */
static void merge_that_drops_prompts(void **state)
{
    ttft_tpot src, dst;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    int pre, k, i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&src, NULL), TTFT_TPOT_OK);
    pre = ttft_tpot_phase(&src, "prefill", TTFT_TPOT_ROLE_PREFILL);
    assert_int_equal(ttft_tpot_record_prompt(&src, pre, 900 * MS, 1, 100), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&src, pre, 200 * MS, 1, 400), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&src, pre, 300 * MS, 1, 600), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_record_prompt(&src, pre, 100 * MS, 1, 100), TTFT_TPOT_OK);
    cfg.capacity = 1;
    cfg.max_phases = 2;
    cfg.hist_slots = 1;
    assert_int_equal(ttft_tpot_init(&dst, &cfg), TTFT_TPOT_OK);
    k = ttft_tpot_phase(&dst, "kernel", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 3; i++) /* its first call is stored, the next two take the one histogram slot */
        assert_int_equal(ttft_tpot_record(&dst, k, MS, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&dst, &src), TTFT_TPOT_OK);
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
    trace_keeps_the_report(&dst, &cfg); /* its trace reads: the dropped samples may have carried them */
    ttft_tpot_free(&dst);
    ttft_tpot_free(&src);
}

/* Per-shape rows: matmul named for key 1 (288x288) and key 2 (32000x288); key 3 has no name and
   stays in matmul, flagging its first sample as before. 288x288: 200 us (its first call), 60, 60,
   66 us (one by a span); 32000x288: 5000 us (first), 2000, 2200 us. */
static void shape_rows_split_a_phase(void **state)
{
    static const uint64_t t[] = {1000, 67000}; /* the span's clock reads: 66 us */
    script_clock clk = {t, 2, 0};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text, longname[TTFT_TPOT_NAME_MAX];
    int mm, small, big;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &clk;
    cfg.max_shapes = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    mm = ttft_tpot_phase(&c, "matmul", TTFT_TPOT_ROLE_KERNEL);
    small = ttft_tpot_shape_row(&c, mm, 1, "288x288");
    big = ttft_tpot_shape_row(&c, mm, 2, "32000x288");
    assert_true(small > mm && big > small);
    assert_int_equal(ttft_tpot_shape_row(&c, mm, 1, "288x288"), small); /* named again: the same row */
    assert_string_equal(ttft_tpot_phase_name(&c, big), "matmul[32000x288]");
    assert_int_equal(ttft_tpot_phase_role(&c, big), TTFT_TPOT_ROLE_KERNEL);
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    longname[TTFT_TPOT_NAME_MAX - 9] = '\0'; /* "matmul[" + 55 bytes + "]" is 63 bytes: fits */
    assert_true(ttft_tpot_shape_row(&c, mm, 3, longname) >= 0);
    longname[TTFT_TPOT_NAME_MAX - 9] = 'x'; /* one more: too long */
    longname[TTFT_TPOT_NAME_MAX - 8] = '\0';
    assert_int_equal(ttft_tpot_shape_row(&c, mm, 4, longname), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_shape_row(&c, 99, 4, "a"), TTFT_TPOT_EPHASE);
    assert_int_equal(ttft_tpot_shape_row(&c, mm, 4, "a"), TTFT_TPOT_EFULL); /* 3 keys known */
    ttft_tpot_record_shape(&c, mm, 1, 200000, 0);
    ttft_tpot_record_shape(&c, mm, 2, 5000000, 0);
    ttft_tpot_record_shape(&c, mm, 1, 60000, 0);
    ttft_tpot_record_shape(&c, mm, 2, 2000000, 0);
    ttft_tpot_record_shape(&c, mm, 1, 60000, 0);
    ttft_tpot_record_shape(&c, mm, 2, 2200000, 0);
    {
        TTFT_TPOT_SPAN_BEGIN_SHAPE(sp, &c, mm, 1);
        TTFT_TPOT_SPAN_END(sp);
    }
    ttft_tpot_record_shape(&c, mm, 5, 9000, 0); /* no row, the table full: matmul (its first call) */
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
    trace_keeps_the_report(&c, &cfg); /* with the same clock: its name is in both reports */
    ttft_tpot_free(&c);
}

/* Queue time. A: submit 0, scheduled 40, tokens at 100 and 120 ms; B: submit 10, scheduled 10,
   token 60; C: submit 20, scheduled 200, token 300; D: submit 30, never scheduled, token 50.
   Queue (A, B, C): 40, 0, 180 -> sorted 0, 40, 180: p50 40, p90 h = 1.8 -> 40 + 0.8 * 140 = 152,
   mean 73.33; prefill: 60, 50, 100 -> p50 60, p90 60 + 0.8 * 40 = 92, mean 70. D is unscheduled. */
static void queue_time_splits_ttft(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    (void)state;
    cfg.max_requests = 8;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    ttft_tpot_request_submit_at(&c, "A", 0);
    ttft_tpot_request_submit_at(&c, "B", 10 * MS);
    ttft_tpot_request_submit_at(&c, "C", 20 * MS);
    ttft_tpot_request_submit_at(&c, "D", 30 * MS);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "A", 40 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "B", 10 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "C", 200 * MS), TTFT_TPOT_OK);
    ttft_tpot_request_tokens_at(&c, "D", 50 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "B", 60 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "A", 100 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "A", 120 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "C", 300 * MS, 1);
    /* refused, each counted as rejected: unknown, twice, after the first token, a token before it */
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "X", 0), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "A", 50 * MS), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "D", 60 * MS), TTFT_TPOT_EREQUEST);
    ttft_tpot_request_submit_at(&c, "E", 400 * MS);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "E", 390 * MS), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "E", 500 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "E", 450 * MS, 1), TTFT_TPOT_EREQUEST);
    assert_int_equal(counts(&c).rejected, 5);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.queue_ms.n", 3);
    assert_ms(&doc, "requests.queue_ms.p50", 40);
    assert_ms(&doc, "requests.queue_ms.p90", 152);
    assert_ms(&doc, "requests.queue_ms.max", 180);
    assert_ms(&doc, "requests.queue_ms.total", 220);
    assert_ms(&doc, "requests.prefill_ms.p50", 60);
    assert_ms(&doc, "requests.prefill_ms.p90", 92);
    assert_ms(&doc, "requests.prefill_ms.mean", 70);
    assert_ms(&doc, "requests.unscheduled", 1);
    assert_ms(&doc, "requests.ttft_ms.n", 4);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "    queue   p50/p90/p99: 40.00 ms / 152.00 ms / 177.20 ms  (mean 73.33 ms, n=3: "
                                 "submit to schedule)"));
    assert_non_null(strstr(text, "    prefill p50/p90/p99: 60.00 ms / 92.00 ms / 99.20 ms  (mean 70.00 ms, n=3: "
                                 "schedule to first token)"));
    assert_non_null(strstr(text, "(1 measured requests have no schedule event: not in queue and prefill)"));
    free(text);
    text = capture_prom(&c);
    assert_non_null(strstr(text, "# TYPE vllm:request_queue_time_seconds histogram\n"));
    assert_non_null(strstr(text, "vllm:request_queue_time_seconds_bucket{le=\"0.3\"} 3\n"));
    assert_non_null(strstr(text, "vllm:request_queue_time_seconds_sum 0.220000000\n"));
    assert_non_null(strstr(text, "vllm:request_prefill_time_seconds_sum 0.210000000\n"));
    assert_non_null(strstr(text, "vllm:request_prefill_time_seconds_count 3\n"));
    free(text);
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* Schedule lines in a trace: after their request's submit, once, between submit and first token. */
/* The schedule of a request whose submit did not fit the event log (tracked, truncated) travels in the
   trace too, after its "# truncated:" line: the request tracks of the trace equal the live ones. Found
   by fuzz_api: a and b submitted into a log of 1 event; b is scheduled 5 ms after its submit. */
static void schedule_of_a_truncated_request(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char *trace, *live, *back, err[256];
    ttft_tpot b;
    (void)state;
    cfg.max_requests = 2;
    cfg.max_request_events = 1;
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "a", 1 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "b", 2 * MS), TTFT_TPOT_EFULL); /* tracked, truncated */
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "b", 7 * MS), TTFT_TPOT_OK);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# truncated: 2000000,0,b\nb,schedule,7000000,0,0,0\n"));
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    if (trace_str(&b, trace, "t", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s\n%s", err, trace);
    live = capture(&c, ttft_tpot_chrome_trace);
    back = capture(&b, ttft_tpot_chrome_trace);
    assert_non_null(strstr(live, "\"name\":\"queued b\""));
    assert_string_equal(live, back);
    same_reports(&c, &b);
    free(live);
    free(back);
    free(trace);
    ttft_tpot_free(&b);
    ttft_tpot_free(&c);
}

/* Requests keep their order through a trace, those without a submit event included (their "# truncated:"
   line stands where they were made), so the request lanes of the trace are the live ones. x (made by
   a "# truncated:" line, submitted at 7 ns) is first: lane 1; r (5 ns to 9 ns) is second, and x has not
   ended by its submit: lane 2. Found by fuzz_trace: written back, x came last and swapped the lanes. */
static void requests_keep_their_order(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    ttft_tpot c, b;
    ttft_tpot_config cfg = {0};
    char err[256], *trace, *live, *back;
    (void)state;
    cfg.max_requests = 4;
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, H "# truncated: 7,0,x\nr,submit,5,0,0,0\nr,token,9,0,1,0\n"
                                     "# counts: requests_dropped=1 events_lost=1\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# truncated: 7,0,x\nr,submit,5,0,0,0\n"));
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "back", err, sizeof err), TTFT_TPOT_OK);
    live = capture(&c, ttft_tpot_chrome_trace);
    back = capture(&b, ttft_tpot_chrome_trace);
    assert_non_null(strstr(live, "\"name\":\"ttft r\",\"cat\":\"request\",\"tid\":2,"));
    assert_string_equal(live, back);
    free(live);
    free(back);
    free(trace);
    ttft_tpot_free(&b);
    ttft_tpot_free(&c);
#undef H
}

static void schedule_lines_are_checked(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {H "r,schedule,5,0,0,0\n", "t:2: schedule of a request not submitted earlier in this trace: r"},
        {H "r,submit,5,0,0,0\nr,schedule,4,0,0,0\n", "t:3: second schedule, or one before its request's submit or "
                                                     "after its first token: r"},
        {H "r,submit,5,0,0,0\nr,schedule,6,0,0,0\nr,schedule,7,0,0,0\n",
         "t:4: second schedule, or one before its request's submit or after its first token: r"},
        {H "r,submit,5,0,0,0\nr,schedule,6,0,1,0\n", "t:3: a schedule event has dur_ns 0 and 0 tokens"},
        {H "r,submit,5,0,0,0\nr,schedule,6,0,0,1\n", "t:3: warmup flag differs from the request's submit: r"},
    };
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char err[256];
    size_t i;
    (void)state;
    cfg.max_requests = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, H "q,submit,5,0,0,0\n", "t", err, sizeof err), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(trace_str(&c, bad[i].text, "t", err, sizeof err), TTFT_TPOT_EPARSE);
        assert_string_equal(err, bad[i].msg);
        assert_int_equal(counts(&c).requests, 1);
    }
    /* q is of the earlier trace: a schedule for it would survive a failed read, so it is refused */
    assert_int_equal(trace_str(&c, H "q,schedule,6,0,0,0\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    ttft_tpot_free(&c);
#undef H
}

/* The request event of the Chrome trace named name: fails the test when there is none. */
static const jc_value *request_event(const jc_value *doc, const char *name)
{
    const jc_value *ev = jc_get(doc, "traceEvents");
    size_t i;
    for (i = 0; ev && i < ev->n; i++) {
        const jc_value *nm = jc_get(&ev->items[i], "name"), *cat = jc_get(&ev->items[i], "cat");
        if (nm && cat && strcmp(nm->str, name) == 0 && strcmp(cat->str, "request") == 0)
            return &ev->items[i];
    }
    fail_msg("no request event %s", name);
    return NULL;
}

/* Request tracks. A: submit 0, scheduled 40, tokens 100 and 120 ms; B: submit 10, scheduled 10, token
   60; C: submit 20, token 300 (never scheduled); D: submit 130, token 140. Lanes: A 1; B 2 (A runs);
   C 3 (A and B run at 20); D 1 (A ended at 120). */
static void request_tracks_in_the_chrome_trace(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    const jc_value *e;
    char *text;
    size_t i, tokens = 0;
    (void)state;
    cfg.timeline = 1;
    cfg.max_requests = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    ttft_tpot_request_submit_at(&c, "A", 0);
    ttft_tpot_request_submit_at(&c, "B", 10 * MS);
    ttft_tpot_request_submit_at(&c, "C", 20 * MS);
    ttft_tpot_request_schedule_at(&c, "A", 40 * MS);
    ttft_tpot_request_schedule_at(&c, "B", 10 * MS);
    ttft_tpot_request_tokens_at(&c, "B", 60 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "A", 100 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "A", 120 * MS, 3);
    ttft_tpot_request_submit_at(&c, "D", 130 * MS);
    ttft_tpot_request_tokens_at(&c, "D", 140 * MS, 1);
    ttft_tpot_request_tokens_at(&c, "C", 300 * MS, 1);
    text = capture(&c, ttft_tpot_chrome_trace);
    if (jc_parse(text, &doc) != 0)
        fail_msg("not JSON: %s", text);
    e = request_event(&doc, "queued A");
    assert_ms(e, "tid", 1);
    assert_ms(e, "ts", 0);
    assert_ms(e, "dur", 40000); /* microseconds */
    assert_ms(request_event(&doc, "prefill A"), "dur", 60000);
    e = request_event(&doc, "decode A");
    assert_ms(e, "ts", 100000);
    assert_ms(e, "dur", 20000);
    assert_ms(request_event(&doc, "queued B"), "dur", 0);
    assert_ms(request_event(&doc, "prefill B"), "tid", 2);
    e = request_event(&doc, "ttft C");
    assert_ms(e, "tid", 3);
    assert_ms(e, "dur", 280000);
    assert_ms(request_event(&doc, "ttft D"), "tid", 1);
    e = jc_get(&doc, "traceEvents");
    for (i = 0; i < e->n; i++) { /* an instant a token event: A 2, B, C and D 1 each */
        const jc_value *ph = jc_get(&e->items[i], "ph");
        tokens += ph && strcmp(ph->str, "i") == 0;
    }
    assert_int_equal(tokens, 5);
    jc_free(&doc);
    { /* the export of the collector's trace is the same, byte for byte */
        ttft_tpot b;
        char *trace = capture(&c, ttft_tpot_trace_write), *again, err[256];
        assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
        assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
        again = capture(&b, ttft_tpot_chrome_trace);
        assert_string_equal(again, text);
        free(again);
        free(trace);
        ttft_tpot_free(&b);
    }
    free(text);
    ttft_tpot_free(&c);
}

/* The new calls' odd arguments: NULL, a disabled collector, an invalid id, a role already taken. */
static void odd_arguments(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char id[TTFT_TPOT_NAME_MAX + 1];
    int pre, k;
    (void)state;
    cfg.max_requests = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_shape_row(NULL, k, 1, "a"), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, ""), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "k[a]", TTFT_TPOT_ROLE_DECODE), 2);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, "a"), TTFT_TPOT_EROLE); /* k[a] is a decode phase */
    assert_int_equal(ttft_tpot_record_prompt(NULL, pre, 1, 1, 1), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_request_schedule_at(NULL, "r", 0), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, NULL, 0), TTFT_TPOT_EINVAL);
    memset(id, 'x', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    assert_int_equal(ttft_tpot_request_schedule_at(&c, id, 0), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "", 0), TTFT_TPOT_ENAME);
    ttft_tpot_request_submit_at(&c, "a", 0);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "b", 0), TTFT_TPOT_EFULL); /* refused: no room */
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "b", 1), TTFT_TPOT_EFULL); /* counted as dropped */
    assert_int_equal(counts(&c).requests_dropped, 2);
    assert_int_equal(ttft_tpot_request_schedule(&c, "a"), TTFT_TPOT_OK); /* on the collector's clock */
    ttft_tpot_enable(&c, 0);
    assert_int_equal(ttft_tpot_record_prompt(&c, pre, 1, 1, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_schedule_at(&c, "zz", 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 0); /* disabled: nothing recorded */
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(steady_kernel_rows),
        cmocka_unit_test(steady_rows_of_phases_without_warmup),
        cmocka_unit_test(full_storage_loses_nothing),
        cmocka_unit_test(default_storage_drops_nothing),
        cmocka_unit_test(prompt_tokens_give_the_prefill_rate),
        cmocka_unit_test(merge_that_drops_prompts),
        cmocka_unit_test(prompt_tokens_of_a_bounded_prefill),
        cmocka_unit_test(shape_rows_split_a_phase),
        cmocka_unit_test(queue_time_splits_ttft),
        cmocka_unit_test(schedule_lines_are_checked),
        cmocka_unit_test(schedule_of_a_truncated_request),
        cmocka_unit_test(requests_keep_their_order),
        cmocka_unit_test(request_tracks_in_the_chrome_trace),
        cmocka_unit_test(odd_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
