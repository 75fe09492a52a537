/* Trace format v1: the shared vectors reproduce their expected reports, traces round-trip, and every
   kind of malformed line is an error with its line number that leaves the collector as it was. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

static void load(ttft_tpot *c, const char *path)
{
    char err[256];
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    if (ttft_tpot_trace_read(c, f, path, err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
    fclose(f);
}

static void check_vector(const char *stem)
{
    char path[512], why[512];
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value want, got;
    char *text;
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    snprintf(path, sizeof path, "%s/%s.csv", TEST_VECTOR_DIR, stem);
    load(&c, path);
    snprintf(path, sizeof path, "%s/%s.expected.json", TEST_VECTOR_DIR, stem);
    text = slurp(path);
    assert_int_equal(jc_parse(text, &want), 0);
    free(text);
    json_of(&c, &got);
    if (jc_subset(&want, &got, "", why, sizeof why) != 0)
        fail_msg("%s: %s", stem, why);
    jc_free(&want);
    jc_free(&got);
    ttft_tpot_free(&c);
}

static void vector_seed_npu(void **state)
{
    (void)state;
    check_vector("seed_npu_qwen3_14b");
}

static void vector_warmup_repeat_batch(void **state)
{
    (void)state;
    check_vector("warmup_repeat_batch64");
}

/* The text report with phase prefill_fwd linked as the prefill kernel (ttft_tpot_model_options), as
   capture() takes a writer. */
static int report_prefill_kernel_linked(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    int rc, phase = ttft_tpot_find_phase(c, "prefill_fwd");
    assert_true(phase >= 0);
    o.prefill_kernel = phase + 1;
    rc = ttft_tpot_model_compute(c, &o, &m);
    assert_int_equal(rc, 0); /* linked */
    rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_TEXT);
    ttft_tpot_model_free(&m);
    return rc;
}

/* The report that motivated the library, line by line, with the prefill kernel linked. */
static void seed_text_report(void **state)
{
    ttft_tpot c;
    char *text;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    load(&c, TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv");
    text = capture(&c, report_prefill_kernel_linked);
    assert_non_null(strstr(text, "TTFT (first request)  : 7.99 s      (incl. one-time warmup)"));
    assert_non_null(strstr(text, "TTFT (steady, p50)    : n/a         (no warmed-up prefill measured"));
    assert_non_null(strstr(text, "prefill kernel alone: 1.92 s)"));
    /* p50 of 30: its interval is [x(10), x(21)] of the sorted steady steps */
    assert_non_null(strstr(text, "TPOT (steady, p50/p99): 52.70 [52.40, 53.02] / 56.71 [CI needs n>=368] ms/token  "
                                 "(n=30, excl. 1 warmup step"));
    assert_non_null(strstr(text, "Output throughput     : 18.9 tok/s  (decode-only, steady)"));
    assert_non_null(strstr(text, "e2e                   : 3.19 tok/s  (32 tokens / 10.02 s; incl. prefill and "
                                 "warmup, not a serving throughput)"));
    assert_non_null(strstr(text, "decode_layer             kernel        31      1    45.51 ms    43.73 ms    61.99 ms"));
    free(text);
    ttft_tpot_free(&c);
}

static void round_trip_keeps_every_figure(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    char *ja, *jb, *ta, *tb, *trace;
    FILE *f;
    long len;
    (void)state;
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    load(&a, TEST_VECTOR_DIR "/warmup_repeat_batch64.csv");
    /* names CSV must quote, or that would read as a comment */
    record(&a, ttft_tpot_phase(&a, "a,\"b\"", TTFT_TPOT_ROLE_KERNEL), 5, 0);
    record(&a, ttft_tpot_phase(&a, "#not a comment", TTFT_TPOT_ROLE_KERNEL), 7, 0);
    f = tmpfile();
    assert_non_null(f);
    assert_int_equal(ttft_tpot_trace_write(&a, f), TTFT_TPOT_OK);
    len = ftell(f);
    rewind(f);
    trace = (char *)malloc((size_t)len + 1);
    assert_int_equal(fread(trace, 1, (size_t)len, f), (size_t)len);
    trace[len] = '\0';
    assert_non_null(strstr(trace, "prefill,prefill,5000000,880480000,64,1\n")); /* start times kept */
    rewind(f);
    assert_int_equal(ttft_tpot_trace_read(&b, f, "rt", NULL, 0), TTFT_TPOT_OK);
    fclose(f);
    free(trace);
    ja = capture(&a, report_json);
    jb = capture(&b, report_json);
    assert_string_equal(ja, jb);
    ta = capture(&a, ttft_tpot_report);
    tb = capture(&b, ttft_tpot_report);
    assert_string_equal(ta, tb);
    free(ja);
    free(jb);
    free(ta);
    free(tb);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"

static void accepted_variants(void **state)
{
    static const char text[] = "# comment\r\n" H "\r\n\"x,\"\"y\"\"\",kernel,1,2,0,0\r\n"
                               "# another\n\nd,decode,0,18446744073709551615,4294967295,1\n"
                               "d,decode,00000000000000000000007,3,1,0\n" /* leading zeros */
                               "d,decode,0,3,1,0"; /* CRLF, blank lines, no final newline */
    ttft_tpot c;
    char err[256];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_text(&c, text, sizeof text - 1, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 4);
    assert_string_equal(ttft_tpot_phase_name(&c, 0), "x,\"y\"");
    assert_int_equal(sample(&c, 1).dur_ns, UINT64_MAX);
    assert_int_equal(sample(&c, 1).tokens, UINT32_MAX);
    assert_int_equal(sample(&c, 1).warmup, 1);
    assert_int_equal(sample(&c, 2).dur_ns, 3);
    assert_int_equal(sample(&c, 3).warmup, 0); /* as written, not re-derived */
    ttft_tpot_free(&c);
}

/* Past the capacity a steady line goes on in its phase's histogram, as recording would; with no
   histogram slot left (one phase, the one slot taken), it is dropped. */
static void more_lines_than_capacity_are_dropped(void **state)
{
    static const char text[] = H "k,kernel,0,1,0,0\nk,kernel,0,2,0,0\nk,kernel,0,3,0,0\n";
    static const char two[] = H "j,kernel,0,4,0,1\nj,kernel,0,5,0,0\n";
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    (void)state;
    cfg.capacity = 2;
    cfg.max_phases = 2;
    cfg.hist_slots = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_text(&c, text, sizeof text - 1, "t", NULL, 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 2);
    assert_int_equal(counts(&c).dropped, 0);
    assert_int_equal(counts(&c).outgrown, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "phases.0.n", 3);
    assert_ms(&doc, "phases.0.max_ms", 0.000003);
    jc_free(&doc);
    /* j's first line is flagged warmup: the reserve past the capacity takes it; its next has no slot */
    assert_int_equal(trace_text(&c, two, sizeof two - 1, "t", NULL, 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 3);
    assert_int_equal(counts(&c).dropped, 1);
    ttft_tpot_free(&c);
}

static void malformed_lines(void **state)
{
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        const char *err;
    } cases[] = {
        {"", 0, "t:1: missing header"},
        {"# only a comment\n", 0, "t:2: missing header"},
        {"# c\nphase,role\n", 0, "t:2: missing header"},
        {H "a,decode,1,2,1\n", 0, "t:2: expected 6 fields"},
        {H "a,decode,1,2,1,0,9\n", 0, "t:2: more than 6 fields"},
        {H "a,decode,,2,1,0\n", 0, "t:2: start_ns is not an unsigned 64-bit integer"},
        {H "a,decode,x,2,1,0\n", 0, "t:2: start_ns is not"},
        {H "a,decode,1, 2,1,0\n", 0, "t:2: dur_ns is not an unsigned 64-bit integer:  2"},
        {H "a,decode,1,2 ,1,0\n", 0, "t:2: dur_ns is not"},
        {H "a,decode,1,-2,1,0\n", 0, "t:2: dur_ns is not"},
        {H "a,decode,1,+2,1,0\n", 0, "t:2: dur_ns is not"},
        {H "a,decode,1,18446744073709551616,1,0\n", 0, "t:2: dur_ns is not"},
        {H "a,decode,1,000000000000000000001x,1,0\n", 0, "t:2: dur_ns is not"}, /* 20 characters and more */
        {H "a,decode,1,2,4294967296,0\n", 0, "t:2: tokens is not an unsigned 32-bit integer"},
        {H "a,decode,1,2,1.5,0\n", 0, "t:2: tokens is not"},
        {H "a,fancy,1,2,1,0\n", 0, "t:2: unknown role: fancy"},
        {H "a,Decode,1,2,1,0\n", 0, "t:2: unknown role"},
        {H "a,decode,1,2,1,2\n", 0, "t:2: warmup is not 0 or 1"},
        {H "a,decode,1,2,1,01\n", 0, "t:2: warmup is not 0 or 1"},
        {H "a,decode,1,2,1,\n", 0, "t:2: warmup is not 0 or 1"},
        {H "\"a,decode,1,2,1,0\n", 0, "t:2: unterminated quote"},
        {H "a,decode,1,2,1,0\n# c\na,kernel,1,2,0,0\n", 0, "t:4: phase changes role: a"},
        {H ",decode,1,2,1,0\n", 0, "t:2: invalid phase name"},
        {H "a234567890123456789012345678901234567890123456789012345678901234,kernel,1,2,0,0\n", 0,
         "t:2: invalid phase name (1 to 63 bytes"}, /* 64 bytes */
        {H "a\x01" "b,decode,1,2,1,0\n", 0, "t:2: invalid phase name"},
        {H "a\xff" "b,decode,1,2,1,0\n", 0, "t:2: invalid phase name"},
        {H "a\0b,decode,1,2,1,0\n", sizeof(H) - 1 + 19, "t:2: NUL byte: not a text file"},
        {H "\"a\"x,decode,1,2,1,0\n", 0, "t:2: text after a closing quote"},
        {H "a\"b,decode,1,2,1,0\n", 0, "t:2: quote inside an unquoted field"},
        {H "a\rb,decode,1,2,1,0\n", 0, "t:2: stray carriage return"},
        {H "ok,decode,1,2,1,0\r\nok,decode,1,2,1,0\r\n\r\nok,decode,1,x,1,0\r\n", 0, "t:5: dur_ns is not"},
        {H "\"multi\nline\",kernel,1,2,0,0\n", 0, "t:2: invalid phase name"},
        {H "\"a\",kernel,1,2,0,0\n\n# c\nb,decode,1,2,1\n", 0, "t:5: expected 6 fields"},
        {H "p1,kernel,1,2,0,0\np2,kernel,1,2,0,0\np3,kernel,1,2,0,0\n", 0, "t:4: too many phases"},
    };
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char err[512], longline[600], *before, *after;
    size_t i;
    (void)state;
    cfg.max_phases = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    /* one phase already there, so "too many phases" is hit by the third new one */
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 1000, 1);
    before = capture(&c, report_json);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
        int rc = trace_text(&c, cases[i].text, len, "t", err, sizeof err);
        if (rc != TTFT_TPOT_EPARSE || strstr(err, cases[i].err) != err)
            fail_msg("case %zu: rc %d, error \"%s\", expected \"%s...\"", i, rc, err, cases[i].err);
        assert_int_equal(counts(&c).samples, 1);
        assert_int_equal(counts(&c).phases, 1);
    }
    snprintf(longline, sizeof longline, "%s%0300d,kernel,1,2,0,0\n", H, 7);
    assert_int_equal(trace_text(&c, longline, strlen(longline), "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:2: field too long"));
    after = capture(&c, report_json);
    assert_string_equal(before, after); /* the collector is as it was */
    free(before);
    free(after);
    ttft_tpot_free(&c);
}

/* A collector made with config.grow, tiny and with no histogram slot, reads a trace of samples, a
   bounded phase's "# hist:" line, requests and "# truncated:" lines whole: its report equals that of a
   collector sized for the trace, and of the collector that wrote it. */
/* Directives are checked against the records they describe, like records: one that contradicts its
   trace is a "file:line:" error at its line, and the collector is left as it was.
   Bucket 317 holds 1000..1007 ns (2^9 <= 1000: (9 - 6) * 64 + (1000 >> 3)); bucket 5 holds 5 ns. */
static void directives_are_checked_against_their_trace(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
#define P H "p,prefill,0,9,1,1\np,prefill,0,8,1,0\np,prefill,0,6,1,0\n" /* steady: 8 and 6 ns */
    static const struct {
        const char *text, *msg;
    } cases[] = {
        /* 1e9 samples of 1 us cannot sum to 0 */
        {H "# hist: decode,0,1000,1000,0,0,317:1000000000,d\n", "t:2: # hist: a sum its buckets cannot hold: d"},
        {H "# hist: decode,0,1000,1000,0,999999999999,317:1000000000,d\n", "t:2: # hist: a sum its buckets"},
        {H "# hist: decode,0,5,6,0,12,5:1 6:1,d\n", "t:2: # hist: a sum its buckets"}, /* 5 + 6 is 11 */
        /* two lines of 2^63 samples: the count would wrap to 0 (a histogram read holds 2^63 at most) */
        {H "# hist: decode,0,5,5,2,9223372036854775808,5:9223372036854775808,d\n"
           "# hist: decode,0,5,5,2,9223372036854775808,5:9223372036854775808,d\n",
         "t:3: # hist: more than 2^63 samples or tokens in the phase's histogram: d"},
        {H "# hist: decode,18446744073709551615,5,5,0,5,5:1,d\n", "t:2: # hist: more tokens than 4294967295 a sample: d"},
        /* prompt sums: N >= 1, TOKENS in N..N * (2^32 - 1), no more than the steady prefills, NS theirs */
        {P "# prompt: 0,8,0,p\n", "t:5: # prompt: expected N,TOKENS,NS,NAME with N >= 1 and N <= TOKENS <= N * 4294967295"},
        {P "# prompt: 2,1,14,p\n", "t:5: # prompt: expected N,TOKENS,NS,NAME with N >= 1"},
        {P "# prompt: 3,300,20,p\n", "t:5: # prompt: 3 prefills carry prompt tokens, more than the 2 steady samples of p"},
        {H "# prompt: 1,8,8,p\n", "t:2: # prompt: 1 prefills carry prompt tokens, more than the 0 steady samples of p"},
        {P "# prompt: 1,100,9,p\n", "t:5: # prompt: 9 ns is not the time of 1 steady samples of p (each 6 to 8 ns)"},
        {P "# prompt: 2,100,11,p\n", "t:5: # prompt: 11 ns is not the time of 2 steady samples of p"},
        {P "# prompt: 1,4294967295,8,p\n# prompt: 1,4294967295,6,p\n# prompt: 1,18446744073709551615,6,p\n",
         "t:7: # prompt: expected N,TOKENS"},
        {P "# prompt: 1,1,8,p\n# prompt: 18446744073709551615,18446744073709551615,6,p\n",
         "t:6: # prompt: the sums of p would pass 2^64 - 1"},
        /* a truncated request lost an event at least, and the counts say so */
        {H "r,submit,5,0,0,0\n# truncated: 5,0,r\n", "t:3: # truncated: 1 truncated requests, more than the 0 "
                                                     "events the trace lost (# counts: events_lost)"},
        {H "r,submit,5,0,0,0\n# truncated: 5,0,r\n# counts: requests_dropped=1 events_lost=1 requests_refused=1\n",
         "t:4: # counts: requests_dropped=1 is less than the truncated requests and requests_refused (2)"},
    };
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char err[512], *before, *after;
    size_t i;
    (void)state;
    scfg.max_requests = 4;
    cfg.hist_slots = 4;
    served(&c, &srv, &cfg, &scfg);
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 5, 1);
    before = capture(&c, report_json);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (trace_str(&c, cases[i].text, "t", err, sizeof err) != TTFT_TPOT_EPARSE ||
            strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, cases[i].msg);
        after = capture(&c, report_json);
        assert_string_equal(before, after);
        free(after);
    }
    /* once samples were dropped, prompt sums may be those of dropped samples: their time is not checked */
    assert_int_equal(trace_str(&c, P "# prompt: 2,300,99,p\n# counts: dropped=1\n", "t", err, sizeof err), TTFT_TPOT_OK);
    after = capture(&c, report_json);
    assert_string_not_equal(before, after);
    free(after);
    unserve(&c, &srv);
    served(&c, &srv, &cfg, &scfg);
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 5, 1);
    /* a row of a bounded phase whose histogram holds 2^63 values: one more is refused at its line */
    assert_int_equal(trace_str(&c, H "b,decode,0,5,1,1\n# hist: decode,0,5,5,2,9223372036854775808,5:9223372036854775808,b\n",
                               "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, H "b,decode,0,5,1,0\n", "u", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "u:2: more than 2^63 samples or tokens in the phase's histogram: b");
    unserve(&c, &srv);
    served(&c, &srv, &cfg, &scfg);
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 5, 1);
    free(before);
    before = capture(&c, report_json);
    /* what the writer writes passes: the same lines, consistent */
    assert_int_equal(trace_str(&c, P "# prompt: 2,200,14,p\n"
                                     "# hist: decode,0,1000,1000,0,1000000000000,317:1000000000,d\n"
                                     "r,submit,5,0,0,0\n# truncated: 5,0,r\n"
                                     "# counts: requests_dropped=2 events_lost=1 requests_refused=1\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    free(before);
    unserve(&c, &srv);
#undef P
#undef H
}

/* Merging two histograms that together pass 2^63 values is refused (EFULL), and nothing changes: 2^62
   + 2^62 values of 5 ns, then one more sample. */
static void merge_keeps_histograms_within_2_63(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    ttft_tpot a, b;
    ttft_tpot_config cfg = {0};
    char err[256], *before, *after;
    (void)state;
    cfg.hist_slots = 2;
    assert_int_equal(ttft_tpot_init(&a, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    /* 2^62 values of 5 ns: the sum 5 * 2^62 = 2^64 + 2^62 */
    assert_int_equal(trace_str(&a, H "# hist: decode,0,5,5,1,4611686018427387904,5:4611686018427387904,d\n", "a", err,
                               sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, H "# hist: decode,0,5,5,1,4611686018427387904,5:4611686018427387904,d\n", "b", err,
                               sizeof err), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK); /* 2^63 exactly */
    record(&b, ttft_tpot_find_phase(&b, "d"), 5, 1);
    before = capture(&a, report_json);
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_EFULL);
    after = capture(&a, report_json);
    assert_string_equal(before, after);
    free(before);
    free(after);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
#undef H
}

static void growing_collector_reads_everything(void **state)
{
    ttft_tpot src, big, grow;
    ttft_tpot_serve srv_src, srv_big, srv_grow;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char *trace, *want, *got, err[256], id[8];
    int d, k, i;
    (void)state;
    cfg.timeline = 1;
    cfg.hist_slots = 1;
    scfg.max_requests = 8;
    scfg.max_request_events = 8; /* r4 to r7 keep no event: "# truncated:" lines bring them */
    served(&src, &srv_src, &cfg, &scfg);
    d = ttft_tpot_phase(&src, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&src, "kernel", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_phase_bounded(&src, k), TTFT_TPOT_OK);
    for (i = 0; i < 40; i++) {
        assert_int_equal(record(&src, d, 1000000 + (uint64_t)i * 1000, 1), TTFT_TPOT_OK);
        assert_int_equal(record(&src, k, 50000 + (uint64_t)i * 7, 0), TTFT_TPOT_OK);
    }
    for (i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "r%d", i);
        ttft_tpot_request_mark(&srv_src, id, TTFT_TPOT_POINT_SUBMIT, (uint64_t)i * 1000);
        ttft_tpot_request_tokens(&srv_src, id, (uint64_t)i * 1000 + 500, 1);
    }
    trace = capture(&src, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# hist: kernel,"));
    assert_non_null(strstr(trace, "# truncated: "));
    cfg.capacity = 1000;
    scfg.max_request_events = 100;
    served(&big, &srv_big, &cfg, &scfg);
    memset(&cfg, 0, sizeof cfg);
    memset(&scfg, 0, sizeof scfg);
    cfg.timeline = 1;
    cfg.grow = 1;
    cfg.capacity = 1;
    scfg.max_requests = 1;
    scfg.max_request_events = 1;
    served(&grow, &srv_grow, &cfg, &scfg);
    assert_int_equal(trace_str(&big, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&grow, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(counts(&grow).samples, counts(&big).samples);
    assert_int_equal(counts(&grow).requests, 8);
    assert_int_equal(counts(&grow).dropped, 0);
    want = capture(&src, report_json);
    got = capture(&big, report_json);
    assert_string_equal(got, want);
    free(got);
    got = capture(&grow, report_json);
    assert_string_equal(got, want);
    free(got);
    free(want);
    /* a "# truncated:" line of a request not seen before: the table grows for it too (each lost an
       event, which the counts say) */
    assert_int_equal(trace_str(&grow, "phase,role,start_ns,dur_ns,tokens,warmup\n# truncated: 5,0,x\n"
                                      "# truncated: 6,0,y\n# truncated: 7,0,z\n"
                                      "# counts: requests_dropped=3 events_lost=3\n", "u", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(counts(&grow).requests, 11);
    assert_int_equal(trace_str(&big, "phase,role,start_ns,dur_ns,tokens,warmup\n# truncated: 5,0,x\n", "u", err,
                               sizeof err),
                     TTFT_TPOT_EPARSE); /* 8 requests at most, all taken */
    assert_string_equal(err, "u:2: more requests than this collector holds (config.max_requests)");
    free(trace);
    unserve(&src, &srv_src);
    unserve(&big, &srv_big);
    unserve(&grow, &srv_grow);
}

/* Lines longer than the reader's 1 MiB block: a comment is skipped (the lines after it keep their
   numbers), a directive is refused, a record is refused as too long; the collector as it was. */
static void lines_longer_than_a_block(void **state)
{
    enum { LONG = 1536 * 1024 };
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char *text = (char *)malloc(LONG + 256), err[256];
    const char *head = "phase,role,start_ns,dur_ns,tokens,warmup\n";
    size_t at;
    (void)state;
    cfg.grow = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    at = (size_t)sprintf(text, "%s#", head);
    memset(text + at, 'x', LONG);
    at += LONG;
    at += (size_t)sprintf(text + at, "\nd,decode,0,5,1,0\nd,decode,0,x,1,0\n");
    assert_int_equal(trace_text(&c, text, at, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:4: dur_ns is not an unsigned 64-bit integer: x");
    assert_int_equal(trace_text(&c, text, at - 17, "t", err, sizeof err), TTFT_TPOT_OK); /* without the bad line */
    assert_int_equal(counts(&c).samples, 1);
    at = (size_t)sprintf(text, "%s# phase: kernel,", head);
    memset(text + at, 'y', LONG);
    at += LONG;
    text[at++] = '\n';
    assert_int_equal(trace_text(&c, text, at, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: directive too long, or with a NUL byte: # phase: ");
    at = (size_t)sprintf(text, "%s", head);
    memset(text + at, 'z', LONG);
    at += LONG;
    text[at++] = '\n';
    assert_int_equal(trace_text(&c, text, at, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: field too long");
    assert_int_equal(counts(&c).samples, 1);
    assert_int_equal(counts(&c).phases, 1);
    free(text);
    ttft_tpot_free(&c);
}

/* A live collector made with config.grow, its store grown by a trace: recording goes on storing up
   to the new capacity, and past it goes on in a histogram: recording never grows the store. */
static void recording_after_a_trace_grew_the_store(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char err[256];
    int d, i;
    (void)state;
    cfg.grow = 1;
    cfg.capacity = 2;
    d = fixture(&c, &cfg, "d", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(record(&c, d, 5, 1), TTFT_TPOT_OK); /* its first call opens the inline path */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,6,1,0\nd,decode,0,7,1,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK); /* 3 samples: the store grows to 4 */
    assert_int_equal(record(&c, d, 8, 1), TTFT_TPOT_OK);
    for (i = 0; i < 3; i++)
        assert_int_equal(record(&c, d, 9, 1), TTFT_TPOT_OK); /* recording never grows it */
    assert_int_equal(counts(&c).samples, 4);
    assert_int_equal(counts(&c).dropped, 0);
    assert_int_equal(counts(&c).outgrown, 1);
    assert_int_equal(sample(&c, 3).dur_ns, 8);
    ttft_tpot_free(&c);
}


/* 2. Dropped samples, rejected calls, unflagged shapes and dropped request events travel in the
   trace: its report says what the live one said. */
static void trace_carries_what_was_lost(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    int d, k, i;
    (void)state;
    cfg.capacity = 4;
    cfg.max_shapes = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, NULL), TTFT_TPOT_OK); /* max_requests 0 */
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    /* 3 of d, then k's first call in the 4th slot; k's next 2 outgrow the storage (a histogram) */
    for (i = 0; i < 6; i++)
        record(&c, i < 3 ? d : k, (uint64_t)(i + 1) * MS, 1);
    assert_int_equal(record(&c, 99, MS, 1), TTFT_TPOT_EPHASE); /* rejected */
    record_shape(&c, k, 1, MS, 0); /* a new shape: warmup, into the reserve (4 slots) */
    record_shape(&c, k, 2, MS, 0); /* the shape table is full: counted, not flagged */
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW),
                     TTFT_TPOT_EFULL); /* no request table */
    ttft_tpot_warmup_begin(&c);
    for (i = 0; i < 5; i++) /* 3 more fit in the reserve; 2 are dropped */
        record(&c, d, MS, 1);
    ttft_tpot_warmup_end(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "samples", 8);
    assert_ms(&doc, "outgrown", 1);
    assert_ms(&doc, "dropped", 2);
    assert_ms(&doc, "rejected", 1);
    assert_ms(&doc, "shapes_dropped", 1);
    jc_free(&doc);
    trace_keeps_the_served_report(&c, &cfg, NULL);
    unserve(&c, &srv);
}

/* A trace names the limits the recording collector's losses met, 0 included (max_requests 0, the
   default: every request dropped), so its report warns as the live one does, whatever collector reads
   it. */
static void trace_names_the_recording_limits(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char *text, *trace;
    (void)state;
    served(&c, &srv, NULL, NULL); /* max_requests 0 */
    assert_int_equal(ttft_tpot_request_mark(&srv, "a", TTFT_TPOT_POINT_SUBMIT, 1), TTFT_TPOT_EFULL);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 request dropped: the request tables are full "
                                 "(config.max_requests 0, max_request_events 0; 1 submits refused)"));
    free(text);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# counts: requests_dropped=1 requests_refused=1 capacity=65536 max_requests=0 "
                                  "max_request_events=0 max_shapes=64\n"));
    free(trace);
    scfg.max_requests = 64; /* a reader with other limits */
    trace_keeps_the_served_report(&c, &cfg, &scfg);
    { /* a merge carries them on: the limits of the collector that met the loss */
        ttft_tpot b, d;
        ttft_tpot_serve srv_b, srv_d;
        char err[256];
        trace = capture(&c, ttft_tpot_trace_write);
        served(&b, &srv_b, &cfg, &scfg);
        assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
        served(&d, &srv_d, &cfg, &scfg);
        assert_int_equal(ttft_tpot_merge(&d, &b), TTFT_TPOT_OK);
        text = capture(&d, ttft_tpot_report);
        assert_non_null(strstr(text, "(config.max_requests 0, max_request_events 0; 1 submits refused)"));
        free(text);
        free(trace);
        unserve(&d, &srv_d);
        unserve(&b, &srv_b);
    }
    unserve(&c, &srv);
}

/* The realtime clock, ns since 1970. */
static uint64_t realtime_ns(void)
{
    struct timespec ts;
    assert_int_equal(clock_gettime(CLOCK_REALTIME, &ts), 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t started_of(const ttft_tpot *c)
{
    ttft_tpot_model m;
    uint64_t t;
    assert_int_equal(ttft_tpot_model_compute(c, NULL, &m), TTFT_TPOT_OK);
    t = m.started_ns;
    ttft_tpot_model_free(&m);
    return t;
}

/* A trace says when its process began to record ("# started:", the realtime at init), so that a
   comparison can tell whether its sides' processes ran interleaved. A reader takes the first trace's
   start for its own; traces read or merged together started at the earliest, unknown if one is. */
static void trace_says_when_its_process_started(void **state)
{
    ttft_tpot c, b, d;
    uint64_t before = realtime_ns(), at, after;
    char *trace, line[64], err[256];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    after = realtime_ns();
    at = started_of(&c);
    assert_true(before <= at && at <= after);
    {
        ttft_tpot_span s = ttft_tpot_span_begin_at(&c, ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE), 0);
        ttft_tpot_span_set_duration(&s, 1000);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    }
    trace = capture(&c, ttft_tpot_trace_write);
    snprintf(line, sizeof line, "\n# started: %llu\nphase,role,", (unsigned long long)at);
    assert_non_null(strstr(trace, line));
    assert_int_equal(ttft_tpot_init(&b, NULL), TTFT_TPOT_OK); /* its own start is later: the trace's replaces it */
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_true(started_of(&b) == at);
    assert_int_equal(trace_str(&b, "# started: 5\nphase,role,start_ns,dur_ns,tokens,warmup\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_true(started_of(&b) == 5); /* the earliest */
    assert_int_equal(trace_str(&b, "phase,role,start_ns,dur_ns,tokens,warmup\n", "t", err, sizeof err), TTFT_TPOT_OK);
    assert_true(started_of(&b) == 0); /* one without: unknown */
    assert_int_equal(ttft_tpot_init(&d, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&d, &c), TTFT_TPOT_OK);
    assert_true(started_of(&d) == at); /* c began first */
    assert_int_equal(ttft_tpot_merge(&d, &b), TTFT_TPOT_OK);
    assert_true(started_of(&d) == 0);
    assert_int_equal(trace_str(&d, "# started: 0\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:1: # started: expected the realtime in ns since 1970, not 0"));
    free(trace);
    ttft_tpot_free(&d);
    ttft_tpot_free(&b);
    ttft_tpot_free(&c);
}

/* 2. A bounded phase's histogram travels in the trace: TPOT n=99 live and from the trace; read twice,
   the histograms add up. */
static void trace_carries_bounded_phases(void **state)
{
    ttft_tpot c, b;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char err[256], *trace;
    int d, i;
    (void)state;
    cfg.bounded = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 1; i <= 100; i++)
        record(&c, d, (uint64_t)i * MS, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "tpot.n", 99);
    assert_true(is_bool_at(&doc, "tpot.approximate", 1));
    jc_free(&doc);
    trace_keeps_the_report(&c, &cfg);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    json_of(&b, &doc);
    assert_ms(&doc, "tpot.n", 198);
    assert_ms(&doc, "tpot.min_ms", 2);
    assert_ms(&doc, "tpot.max_ms", 100);
    jc_free(&doc);
    /* a collector without a free histogram slot refuses the trace, and stays as it was */
    ttft_tpot_free(&b);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_phases = 2;
    cfg.hist_slots = 1;
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_bounded(&b, ttft_tpot_phase(&b, "x", TTFT_TPOT_ROLE_KERNEL)), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "config.hist_slots"));
    assert_int_equal(counts(&b).phases, 1);
    ttft_tpot_free(&b);
    free(trace);
    ttft_tpot_free(&c);
}

#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
/* 2. Malformed directives are errors like malformed lines: the message says which, and the collector
   is left as it was. */
static void malformed_directives_are_refused(void **state)
{
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {H "# phase: bogus,x\n", "t:2: # phase: expected ROLE,NAME"},
        {H "# phase: decode\n", "t:2: # phase: expected ROLE,NAME"},
        {H "# phase: decode,\n", "t:2: invalid phase name"},
        {H "# phase: kernel,d\nd,decode,0,1,1,0\n", "t:3: phase changes role: d"},
        {H "# hist: bogus,1,5,5,0,5,5:1,d\n", "t:2: # hist: unknown role"},
        {H "# hist: decode,1,5,5,0,5,6:1,d\n", "t:2: # hist: expected"},         /* min not in the first bucket */
        {H "# hist: decode,1,5,5,0,5,5:0,d\n", "t:2: # hist: expected"},         /* an empty bucket */
        {H "# hist: decode,2,5,6,0,11,6:1 5:1,d\n", "t:2: # hist: expected"},    /* descending */
        {H "# hist: decode,1,5,5,0,5,,d\n", "t:2: # hist: expected"},            /* no bucket */
        {H "# hist: decode,1,5,5,0,5,5:1 ,d\n", "t:2: # hist: expected"},        /* a trailing space */
        {H "# hist: decode,1,9,5,0,5,5:1,d\n", "t:2: # hist: expected"},         /* min above max */
        {H "# hist: decode,1,5,5,0,5,3776:1,d\n", "t:2: # hist: expected"},      /* no such bucket */
        {H "# hist: decode,1,5,5,0,5,5:1\n", "t:2: # hist: expected"},           /* no name */
        {H "# hist: decode,1,5,5,0,5,5,d\n", "t:2: # hist: expected"},           /* a bucket without its count */
        {H "# hist: decode,1,5,5,x,5,5:1,d\n", "t:2: # hist: expected"},
        {H "# truncated: x,0,r\n", "t:2: # truncated: expected SUBMIT_NS,WARMUP,ID"},
        {H "# truncated: 5,2,r\n", "t:2: # truncated: expected SUBMIT_NS,WARMUP,ID"},
        {H "# truncated: 5,0,\n", "t:2: # truncated: invalid request id"},
        {H "r,submit,5,0,0,0\n# truncated: 6,0,r\n", "t:3: # truncated: differs from the request's submit: r"},
        {H "# truncated: 5,0,r\nr,token,10,0,1,0\n", "t:3: more requests or request events"},
        {H "# counts: bogus=1\n", "t:2: # counts: expected NAME=N"},
        {H "# counts: dropped=1 dropped=2\n", "t:2: # counts: expected NAME=N"},
        {H "# counts: dropped=x\n", "t:2: # counts: expected NAME=N"},
        {H "# counts: dropped=1 \n", "t:2: # counts: expected NAME=N"},
        {H "# counts: dropped\n", "t:2: # counts: expected NAME=N"},
        {"\xef\xbb" "x" H, "t:1: missing header"},                                   /* not a byte order mark */
    };
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char err[512], *before, *after, *big;
    size_t i;
    (void)state;
    scfg.max_requests = 2;
    served(&c, &srv, &cfg, &scfg);
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 5, 1);
    assert_int_equal(ttft_tpot_request_mark(&srv, "early", TTFT_TPOT_POINT_SUBMIT, 1), TTFT_TPOT_OK);
    before = capture(&c, report_json);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (trace_str(&c, cases[i].text, "t", err, sizeof err) != TTFT_TPOT_EPARSE ||
            strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: \"%s\" for %s", i, err, cases[i].text);
        after = capture(&c, report_json);
        assert_string_equal(before, after);
        free(after);
    }
    /* a request of an earlier trace (or of the live collector) cannot be truncated by this one */
    assert_int_equal(trace_str(&c, H "# truncated: 1,0,early\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:2: # truncated: a request of an earlier trace: early"));
    /* no room for the request a truncated line makes */
    assert_int_equal(trace_str(&c, H "a,submit,1,0,0,0\n# truncated: 5,0,b\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:3: more requests than this collector holds"));
    /* a directive too long for a line, or with a NUL byte */
    big = (char *)malloc(200000);
    assert_non_null(big);
    memset(big, '1', 199999);
    big[199999] = '\0';
    memcpy(big, H "# counts: dropped=", strlen(H "# counts: dropped="));
    assert_int_equal(trace_str(&c, big, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:2: directive too long, or with a NUL byte: # counts: "));
    free(big);
    assert_int_equal(trace_text(&c, H "# counts: dropped=1\0\n", sizeof H + 20, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:2: directive too long, or with a NUL byte"));
    after = capture(&c, report_json);
    assert_string_equal(before, after);
    free(after);
    free(before);
    unserve(&c, &srv);
}
#undef H

/* 4. What the reader must take: a UTF-8 byte order mark, a CRLF clock line; and a comment ending the
   input without a newline is on line 1, not 2. */
static void reader_takes_bom_and_crlf(void **state)
{
    ttft_tpot c;
    char err[256];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, "\xef\xbb\xbf# clock: CLOCK_MONOTONIC, 20 ns/read\r\n"
                                   "phase,role,start_ns,dur_ns,tokens,warmup\r\nd,decode,0,5,1,0\r\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "CLOCK_MONOTONIC");
    assert_int_equal(ttft_tpot_clock_read_ns(&c), 20);
    assert_int_equal(counts(&c).samples, 1);
    assert_int_equal(trace_str(&c, "# only a comment", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_true(strncmp(err, "t:1: missing header", 19) == 0);
    ttft_tpot_free(&c);
}

#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
/* Schedule lines in a trace: after their request's submit, once, between submit and first token. */
static void schedule_lines_are_checked(void **state)
{
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
    ttft_tpot_serve srv;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char err[256];
    size_t i;
    (void)state;
    scfg.max_requests = 4;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(trace_str(&c, H "q,submit,5,0,0,0\n", "t", err, sizeof err), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(trace_str(&c, bad[i].text, "t", err, sizeof err), TTFT_TPOT_EPARSE);
        assert_string_equal(err, bad[i].msg);
        assert_int_equal(counts(&c).requests, 1);
    }
    /* q is of the earlier trace: a schedule for it would survive a failed read, so it is refused */
    assert_int_equal(trace_str(&c, H "q,schedule,6,0,0,0\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    unserve(&c, &srv);
}
#undef H

/* The schedule of a request whose submit did not fit the event log (tracked, truncated) travels in the
   trace too, after its "# truncated:" line: the request tracks of the trace equal the live ones. Found
   by fuzz_api: a and b submitted into a log of 1 event; b is scheduled 5 ms after its submit. */
static void schedule_of_a_truncated_request(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv, srv_b;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char *trace, *live, *back, err[256];
    ttft_tpot b;
    (void)state;
    scfg.max_requests = 2;
    scfg.max_request_events = 1;
    cfg.timeline = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(ttft_tpot_request_mark(&srv, "a", TTFT_TPOT_POINT_SUBMIT, 1 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(&srv, "b", TTFT_TPOT_POINT_SUBMIT, 2 * MS),
                     TTFT_TPOT_EFULL); /* tracked, truncated */
    assert_int_equal(ttft_tpot_request_mark(&srv, "b", TTFT_TPOT_POINT_SCHEDULE, 7 * MS), TTFT_TPOT_OK);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# truncated: 2000000,0,b\nb,schedule,7000000,0,0,0\n"));
    served(&b, &srv_b, &cfg, &scfg);
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
    unserve(&b, &srv_b);
    unserve(&c, &srv);
}

#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
/* Requests keep their order through a trace, those without a submit event included (their "# truncated:"
   line stands where they were made), so the request lanes of the trace are the live ones. x (made by
   a "# truncated:" line, submitted at 7 ns) is first: lane 1; r (5 ns to 9 ns) is second, and x has not
   ended by its submit: lane 2. Found by fuzz_trace: written back, x came last and swapped the lanes. */
static void requests_keep_their_order(void **state)
{
    ttft_tpot c, b;
    ttft_tpot_serve srv, srv_b;
    ttft_tpot_serve_config scfg = TTFT_TPOT_ZERO;
    ttft_tpot_config cfg = {0};
    char err[256], *trace, *live, *back;
    (void)state;
    scfg.max_requests = 4;
    cfg.timeline = 1;
    served(&c, &srv, &cfg, &scfg);
    assert_int_equal(trace_str(&c, H "# truncated: 7,0,x\nr,submit,5,0,0,0\nr,token,9,0,1,0\n"
                                     "# counts: requests_dropped=1 events_lost=1\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "# truncated: 7,0,x\nr,submit,5,0,0,0\n"));
    served(&b, &srv_b, &cfg, &scfg);
    assert_int_equal(trace_str(&b, trace, "back", err, sizeof err), TTFT_TPOT_OK);
    live = capture(&c, ttft_tpot_chrome_trace);
    back = capture(&b, ttft_tpot_chrome_trace);
    assert_non_null(strstr(live, "\"name\":\"ttft r\",\"cat\":\"request\",\"tid\":2,"));
    assert_string_equal(live, back);
    free(live);
    free(back);
    free(trace);
    unserve(&b, &srv_b);
    unserve(&c, &srv);
}
#undef H

static void trace_oddities(void **state)
{
    ttft_tpot c;
    char err[256];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    /* a stray carriage return where a record starts */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n\rx\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: stray carriage return");
    /* six fields, the wrong names */
    assert_int_equal(trace_str(&c, "a,b,c,d,e,f\n", NULL, err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "(trace):1: missing header"));
    /* no room for the message: still refused */
    assert_int_equal(trace_str(&c, "x\n", "t", NULL, 0), TTFT_TPOT_EPARSE);
    assert_int_equal(trace_str(&c, "x\n", "t", err, 0), TTFT_TPOT_EPARSE);
    /* a comment as the last line, without a newline; two clock lines: the first counts */
    assert_int_equal(trace_str(&c,
                              "# clock: FIRST, 7 ns/read\n# clock: SECOND, 9 ns/read\n"
                              "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,1,0,0\n# end",
                              "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "FIRST");
    assert_int_equal(trace_str(&c, "# clock: THIRD, 5 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n", "t",
                              err, sizeof err),
                     TTFT_TPOT_OK);
    assert_string_equal(ttft_tpot_clock_name(&c), "FIRST"); /* the first trace read names the clock */
    assert_int_equal(ttft_tpot_clock_read_ns(&c), 7);
    ttft_tpot_free(&c);
}

/* Numbers are read 8 digits at a time where the byte order allows: every length from 1 to 19 digits
   reads as the digits say, and a byte just outside '0'..'9' (or past 0x7F) at any place is refused. */
static void numbers_of_every_length(void **state)
{
    static const char digits[] = "9876543210987654321", bad[] = {'/', ':', 'a', '\xb9', '\x10'};
    char text[256], num[24];
    ttft_tpot c;
    ttft_tpot_sample s;
    uint64_t want;
    size_t n, k, b;
    (void)state;
    for (n = 1; n <= 19; n++) {
        memcpy(num, digits, n);
        num[n] = '\0';
        for (want = 0, k = 0; k < n; k++)
            want = want * 10 + (uint64_t)(num[k] - '0');
        assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
        snprintf(text, sizeof text, "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,%s,%s,0,0\n", num, num);
        assert_int_equal(trace_str(&c, text, "t", NULL, 0), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_sample_at(&c, 0, &s, NULL), TTFT_TPOT_OK);
        assert_true(s.dur_ns == want);
        ttft_tpot_free(&c);
        for (k = 0; k < n; k++)
            for (b = 0; b < sizeof bad; b++) {
                char one[24];
                memcpy(one, num, n + 1);
                one[k] = bad[b];
                assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
                snprintf(text, sizeof text, "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,%s,0,0\n", one);
                if (trace_str(&c, text, "t", NULL, 0) != TTFT_TPOT_EPARSE)
                    fail_msg("%s was read", one);
                ttft_tpot_free(&c);
            }
    }
}

/* Request ids that end alike (the last 8 bytes, and the length too for two of them) take turns: each
   event goes to its own request. a-suffix01: submit 0, tokens at 10 and 30; b-suffix01: submit 1,
   tokens at 20 and 50; xx-suffix01: submit 2, one token at 40. */
static void requests_ending_alike(void **state)
{
    static const char text[] = "phase,role,start_ns,dur_ns,tokens,warmup\n"
                               "a-suffix01,submit,0,0,0,0\nb-suffix01,submit,1,0,0,0\nxx-suffix01,submit,2,0,0,0\n"
                               "a-suffix01,token,10,0,1,0\nb-suffix01,token,20,0,1,0\na-suffix01,token,30,0,1,0\n"
                               "xx-suffix01,token,40,0,1,0\nb-suffix01,token,50,0,1,0\n";
    static const uint64_t want[3][4] = {{0, 10, 30, 2}, {1, 20, 50, 2}, {2, 40, 40, 1}};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg = {0};
    ttft_tpot_request q;
    unsigned r;
    (void)state;
    cfg.grow = 1;
    served(&c, &srv, &cfg, NULL);
    assert_int_equal(trace_str(&c, text, "t", NULL, 0), TTFT_TPOT_OK);
    for (r = 0; r < 3; r++) {
        assert_int_equal(ttft_tpot_request_at(&srv, r, &q, NULL), TTFT_TPOT_OK);
        assert_int_equal(q.submit_ns, want[r][0]);
        assert_int_equal(q.first_ns, want[r][1]);
        assert_int_equal(q.last_ns, want[r][2]);
        assert_int_equal(q.tokens, want[r][3]);
    }
    unserve(&c, &srv);
}

/* A trace of every kind of line (quoted names and ids, runs, an empty one among them, device lines, a
   bounded phase, prompt sums, truncated requests with and without a submit, the counts) is written back
   as it was read, byte for byte: the writer's form is the reader's. (0.4.0 writes a truncated request
   that has a submit before the directives; the form before, after them, reads as well.) */
static void written_as_read(void **state)
{
    static const char text[] =
        "# ttft_tpot trace v1\n"
        "# clock: CLOCK_MONOTONIC, 20 ns/read\n"
        "phase,role,start_ns,dur_ns,tokens,warmup\n"
        "# phase: prefill,p\n"
        "# phase: kernel,big\n"
        "# phase: decode,dec,ode \"x\"\n"
        "# phase: kernel,#k\n"
        "p,prefill,10,900,4,1\n"
        "# run:\n"
        "p,prefill,20,200,4,0\n"
        "\"dec,ode \"\"x\"\"\",decode,30,5,1,1\n"
        "\"#k\",kernel,31,2,0,0\n"
        "\"dec,ode \"\"x\"\"\",decode,40,6,1,0\n"
        "# run:\n"
        "# run:\n"
        "p,prefill,50,300,4,0\n"
        "\"dec,ode \"\"x\"\"\",decode,9999999999999999999,7,1,0\n"
        "# run: end\n"
        "\"dec,ode \"\"x\"\"\",decode,70,8,1,0\n"
        "# device: 3,0,2,0,0,30,31,4,dec,ode \"x\"\n"
        "# device: 0,7,3,1,1,40,42,3,#k\n"
        "# device_lost: 1,2\n"
        "r,submit,5,0,0,0\n"
        "r,schedule,6,0,0,0\n"
        "r,token,9,0,1,0\n"
        "\"q,1\",submit,7,0,0,1\n"
        "\"q,1\",token,12,0,3,1\n"
        "r,token,19,0,2,0\n"
        "s,submit,8,0,0,0\n"
        "# truncated: 9,1,t \"x\"\n"
        "\"t \"\"x\"\"\",schedule,11,0,0,1\n"
        "# truncated: 8,0,s\n"
        "# hist: kernel,0,1000,1000,0,1000000000000,317:1000000000,big\n"
        "# prompt: 2,300,500,p\n"
        "# counts: dropped=1 requests_dropped=3 requests_refused=1 events_lost=2 capacity=16 max_requests=8 "
        "max_request_events=16 max_shapes=64\n"
    ;
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg = {0};
    char err[256], *back;
    (void)state;
    cfg.grow = 1;
    cfg.timeline = 1;
    served(&c, &srv, &cfg, NULL);
    if (trace_str(&c, text, "every_line", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
    back = capture(&c, ttft_tpot_trace_write);
    assert_string_equal(back, text);
    free(back);
    unserve(&c, &srv);
    served(&c, &srv, &cfg, NULL); /* 0.3's place for it: after the directives */
    if (trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n"
                        "s,submit,8,0,0,0\n# hist: kernel,0,1000,1000,0,1000000000000,317:1000000000,big\n# truncated: 8,0,s\n"
                        "# counts: requests_dropped=1 events_lost=1\n", "old", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
    assert_int_equal(counts(&c).requests_dropped, 1);
    unserve(&c, &srv);
}

/* A growing collector keeps a trace's start times (nesting needs them) from its first line that has
   one; a read that fails takes them back with the rest, and one without any costs none. */
static void growing_reader_keeps_start_times(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    char err[256];
    size_t i;
    uint64_t start;
    ttft_tpot_sample s;
    FILE *f = tmpfile();
    (void)state;
    assert_non_null(f);
    cfg.grow = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_EINVAL); /* none in the trace: none kept */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,7,5,1,0\nd,decode,x,5,1,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_EINVAL); /* the failed read undone */
    for (i = 0; i < 3000; i++) /* past the first capacity: the start times grow along */
        assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,10,5,1,0\n", "t", err,
                                   sizeof err),
                         TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_counts_of(&c).samples, 3001);
    assert_int_equal(ttft_tpot_sample_at(&c, 0, &s, &start), TTFT_TPOT_OK);
    assert_int_equal(start, 0); /* before them: unknown */
    assert_int_equal(ttft_tpot_sample_at(&c, 3000, &s, &start), TTFT_TPOT_OK);
    assert_int_equal(start, 10);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_OK);
    fclose(f);
    ttft_tpot_free(&c);
}

/* A growing collector's phase table grows with the phases a trace names (max_phases is where it
   starts), exact or bounded, to 65535: the 65536th is refused at its line; a read that fails leaves
   the phases as they were. */
static void growing_reader_grows_phases(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    char err[256];
    size_t cap = 70000 * 32, n, i;
    char *text = (char *)malloc(cap);
    int bounded;
    (void)state;
    assert_non_null(text);
    for (bounded = 0; bounded < 2; bounded++) {
        cfg.grow = 1, cfg.max_phases = 2, cfg.bounded = bounded;
        assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
        n = (size_t)snprintf(text, cap, "phase,role,start_ns,dur_ns,tokens,warmup\n");
        for (i = 0; i < 100; i++)
            n += (size_t)snprintf(text + n, cap - n, "p%zu,kernel,0,%zu,0,0\n", i, i + 1);
        assert_int_equal(trace_text(&c, text, n, "t", err, sizeof err), TTFT_TPOT_OK);
        assert_int_equal(counts(&c).phases, 100);
        if (!bounded) /* a bounded collector's steady samples go on in histograms */
            assert_int_equal(counts(&c).samples, 100);
        n = (size_t)snprintf(text, cap, "phase,role,start_ns,dur_ns,tokens,warmup\n");
        for (i = 100; i < 400; i++)
            n += (size_t)snprintf(text + n, cap - n, "p%zu,kernel,0,5,0,0\n", i);
        n += (size_t)snprintf(text + n, cap - n, "p0,kernel,0,x,0,0\n");
        assert_int_equal(trace_text(&c, text, n, "t", err, sizeof err), TTFT_TPOT_EPARSE);
        assert_int_equal(counts(&c).phases, 100); /* the failed read undone */
        ttft_tpot_free(&c);
    }
    cfg.bounded = 0;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    n = (size_t)snprintf(text, cap, "phase,role,start_ns,dur_ns,tokens,warmup\n");
    for (i = 0; i < 65536; i++)
        n += (size_t)snprintf(text + n, cap - n, "p%zu,kernel,0,5,0,0\n", i);
    assert_int_equal(trace_text(&c, text, n, "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "t:65537: too many phases"));
    ttft_tpot_free(&c);
    free(text);
}

/* A growing collector takes a trace's sequences on at its first "# sequences:" line, as it takes
   start times (a step of 4 tokens for 2 sequences: 2 tokens a sequence, 30 ns a step: TPOT 15 ns); a
   read that fails gives them back, and a trace without one costs none. */
static void growing_reader_takes_sequences(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    char err[256];
    uint64_t v[2];
    size_t n;
    (void)state;
    cfg.grow = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,8,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_null(c.store.seqs); /* none in the trace: none kept */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,30,4,0\n# sequences: 2\n"
                                   "d,decode,x,5,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_null(c.store.seqs); /* the failed read undone */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,30,4,0\n# sequences: 2\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_counts_of(&c).sequences_lost, 0);
    assert_int_equal(ttft_tpot_sorted_values(&c, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, v, 2, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0], 8); /* before them: one token a sequence */
    assert_int_equal(v[1], 15);
    ttft_tpot_free(&c);
}

/* A timeline collector whose samples all start at 0 (a trace recorded without one, read back) has no
   timeline: the Chrome trace refuses it by itself; one sample with a start is enough. */
static void chrome_trace_refuses_starts_all_zero(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    char err[256];
    FILE *f = tmpfile();
    (void)state;
    assert_non_null(f);
    cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_OK); /* nothing stored: an empty timeline */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\nd,decode,0,6,1,0\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_EINVAL);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,20,5,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, f), TTFT_TPOT_OK);
    fclose(f);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_seed_npu),
        cmocka_unit_test(vector_warmup_repeat_batch),
        cmocka_unit_test(seed_text_report),
        cmocka_unit_test(round_trip_keeps_every_figure),
        cmocka_unit_test(trace_says_when_its_process_started),
        cmocka_unit_test(accepted_variants),
        cmocka_unit_test(more_lines_than_capacity_are_dropped),
        cmocka_unit_test(malformed_lines),
        cmocka_unit_test(directives_are_checked_against_their_trace),
        cmocka_unit_test(merge_keeps_histograms_within_2_63),
        cmocka_unit_test(growing_collector_reads_everything),
        cmocka_unit_test(lines_longer_than_a_block),
        cmocka_unit_test(recording_after_a_trace_grew_the_store),
        cmocka_unit_test(trace_carries_what_was_lost),
        cmocka_unit_test(trace_names_the_recording_limits),
        cmocka_unit_test(trace_carries_bounded_phases),
        cmocka_unit_test(malformed_directives_are_refused),
        cmocka_unit_test(reader_takes_bom_and_crlf),
        cmocka_unit_test(schedule_lines_are_checked),
        cmocka_unit_test(schedule_of_a_truncated_request),
        cmocka_unit_test(requests_keep_their_order),
        cmocka_unit_test(trace_oddities),
        cmocka_unit_test(numbers_of_every_length),
        cmocka_unit_test(requests_ending_alike),
        cmocka_unit_test(written_as_read),
        cmocka_unit_test(growing_reader_keeps_start_times),
        cmocka_unit_test(growing_reader_grows_phases),
        cmocka_unit_test(growing_reader_takes_sequences),
        cmocka_unit_test(chrome_trace_refuses_starts_all_zero),
    };
    return run_cases(tests);
}
