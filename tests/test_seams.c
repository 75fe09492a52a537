/* The seams between the parts: requests whose events did not fit, traces that must carry what the
   live report knew, the host's locale, input the reader must take, names that reach a terminal,
   integers past 2^53, and report lines that must say what is true. Figures worked out by hand. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include <locale.h>
#include <math.h>

#define MS 1000000ull

/* 1. The case: three requests of 150 tokens, 10 ms apart, with the default event storage.
   Each: TTFT 10 ms, E2E 1500 ms, TPOT (1500 - 10) / 149 = 10 ms, 149 ITL gaps of 10 ms. */
static void long_generations_fit_the_default(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char id[8];
    int r, k;
    (void)state;
    cfg.max_requests = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    for (r = 0; r < 3; r++) {
        snprintf(id, sizeof id, "r%d", r);
        assert_int_equal(ttft_tpot_request_submit_at(&c, id, (uint64_t)r * 10 * MS), TTFT_TPOT_OK);
        for (k = 1; k <= 150; k++)
            assert_int_equal(ttft_tpot_request_tokens_at(&c, id, (uint64_t)(r + k) * 10 * MS, 1), TTFT_TPOT_OK);
    }
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.truncated", 0);
    assert_ms(&doc, "requests.dropped", 0);
    assert_ms(&doc, "rejected", 0);
    assert_ms(&doc, "requests.e2e_ms.min", 1500);
    assert_ms(&doc, "requests.e2e_ms.max", 1500);
    assert_ms(&doc, "requests.ttft_ms.p50", 10);
    assert_ms(&doc, "requests.tpot_ms.p99", 10);
    assert_ms(&doc, "requests.itl_ms.n", 447);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* 1. Room for 8 events. A: submit 0, tokens 10, 20; B: submit 5, tokens 30, 40; C: submit 50, tokens
   60, then 70 and 80 do not fit. C is truncated: out of every figure. TTFT A 10, B 25; E2E A 20,
   B 35; ITL 10 and 10. 2 events dropped; 10 would have held them all. */
static void truncated_request_is_left_out(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    (void)state;
    cfg.max_requests = 4;
    cfg.max_request_events = 8;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "A", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "A", 10 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "A", 20 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "B", 5 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "B", 30 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "B", 40 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "C", 50 * MS), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "C", 60 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "C", 70 * MS, 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "C", 80 * MS, 1), TTFT_TPOT_EFULL);
    json_of(&c, &doc);
    assert_ms(&doc, "requests.n", 2);
    assert_ms(&doc, "requests.truncated", 1);
    assert_ms(&doc, "requests.dropped", 2);
    assert_ms(&doc, "requests.ttft_ms.p50", 17.5);
    assert_ms(&doc, "requests.e2e_ms.max", 35);
    assert_ms(&doc, "requests.itl_ms.n", 2);
    assert_ms(&doc, "requests.itl_ms.max", 10);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 request truncated"));
    assert_non_null(strstr(text, "config.max_request_events 8"));
    assert_non_null(strstr(text, "10 would hold every event"));
    free(text);
    trace_keeps_the_report(&c, &cfg);
    ttft_tpot_free(&c);
}

/* 1. A full request table: the second request's submit and its token are dropped, not rejected. */
static void full_request_table_drops_not_rejects(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    (void)state;
    cfg.max_requests = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "a", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "b", 1), TTFT_TPOT_EFULL);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "b", 2, 1), TTFT_TPOT_EFULL);
    json_of(&c, &doc);
    assert_ms(&doc, "rejected", 0);
    assert_ms(&doc, "requests.dropped", 2);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* 2. Dropped samples, rejected calls, unflagged shapes and dropped request events travel in the
   trace: its report says what the live one said. */
static void trace_carries_what_was_lost(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    int d, k, i;
    (void)state;
    cfg.capacity = 4;
    cfg.max_shapes = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    /* 3 of d, then k's first call in the 4th slot; k's next 2 outgrow the storage (a histogram) */
    for (i = 0; i < 6; i++)
        ttft_tpot_record(&c, i < 3 ? d : k, (uint64_t)(i + 1) * MS, 1);
    assert_int_equal(ttft_tpot_record(&c, 99, MS, 1), TTFT_TPOT_EPHASE);                 /* rejected */
    ttft_tpot_record_shape(&c, k, 1, MS, 0); /* a new shape: warmup, into the reserve (4 slots) */
    ttft_tpot_record_shape(&c, k, 2, MS, 0); /* the shape table is full: counted, not flagged */
    assert_int_equal(ttft_tpot_request_submit(&c, "r"), TTFT_TPOT_EFULL); /* no request table */
    ttft_tpot_warmup_begin(&c);
    for (i = 0; i < 5; i++) /* 3 more fit in the reserve; 2 are dropped */
        ttft_tpot_record(&c, d, MS, 1);
    ttft_tpot_warmup_end(&c);
    json_of(&c, &doc);
    assert_ms(&doc, "samples", 8);
    assert_ms(&doc, "outgrown", 1);
    assert_ms(&doc, "dropped", 2);
    assert_ms(&doc, "rejected", 1);
    assert_ms(&doc, "shapes_dropped", 1);
    jc_free(&doc);
    trace_keeps_the_report(&c, &cfg);
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
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 1; i <= 100; i++)
        ttft_tpot_record(&c, d, (uint64_t)i * MS, 1);
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

/* 2. Malformed directives are errors like malformed lines: the message says which, and the collector
   is left as it was. */
static void malformed_directives_are_refused(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
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
    ttft_tpot_config cfg = {0};
    char err[512], *before, *after, *big;
    size_t i;
    (void)state;
    cfg.max_requests = 2;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    ttft_tpot_record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 5, 1);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "early", 1), TTFT_TPOT_OK);
    before = capture(&c, ttft_tpot_report_json);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (trace_str(&c, cases[i].text, "t", err, sizeof err) != TTFT_TPOT_EPARSE ||
            strncmp(err, cases[i].msg, strlen(cases[i].msg)) != 0)
            fail_msg("case %zu: \"%s\" for %s", i, err, cases[i].text);
        after = capture(&c, ttft_tpot_report_json);
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
    after = capture(&c, ttft_tpot_report_json);
    assert_string_equal(before, after);
    free(after);
    free(before);
    ttft_tpot_free(&c);
#undef H
}

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

/* 7. C1 controls and bidirectional overrides and isolates are refused in names and ids; a message
   about a bad line escapes what it echoes. */
static void names_that_would_reach_a_terminal(void **state)
{
    static const char *const bad[] = {"csi \xc2\x9b[31m", "c1 \xc2\x80", "c1 \xc2\x9f", "rlo \xe2\x80\xae",
                                      "lre \xe2\x80\xaa", "lri \xe2\x81\xa6", "pdi \xe2\x81\xa9"};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char err[256];
    size_t i;
    (void)state;
    cfg.max_requests = 2;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ttft_tpot_phase(&c, bad[i], TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
        assert_int_equal(ttft_tpot_request_submit(&c, bad[i]), TTFT_TPOT_ENAME);
    }
    assert_true(ttft_tpot_phase(&c, "ok \xc2\xa0 \xe2\x80\xa9 \xe2\x81\xaa", TTFT_TPOT_ROLE_KERNEL) >= 0); /* neighbours */
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n\x1b]0;pwned\x07,decode,0,1,1,0\n",
                               "t\x1b", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    for (i = 0; err[i]; i++)
        if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] == 0x7f)
            fail_msg("control byte 0x%02x in the message: %s", (unsigned char)err[i], err);
    assert_non_null(strstr(err, "\\x1b]0;pwned\\x07"));
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nx,\xc2\x9b,0,1,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "unknown role: \\xc2\\x9b"));
    ttft_tpot_free(&c);
}

/* 8. Integers past 2^53 are exact to the ns: min, max and percentiles, in JSON and the trace. The p50
   of 9007199254740993 and 9007199254740995 ns is 9007199254740994 ns. */
static void exact_past_two_to_the_53(void **state)
{
    ttft_tpot c;
    char *json, *trace;
    int d;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "d", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_record(&c, d, 1, 1); /* the first call: warmup */
    ttft_tpot_record(&c, d, 9007199254740993ull, 1);
    ttft_tpot_record(&c, d, 9007199254740995ull, 1);
    json = capture(&c, ttft_tpot_report_json);
    assert_non_null(strstr(json, "\"p50_ms\":9007199254.740994"));
    assert_non_null(strstr(json, "\"min_ms\":9007199254.740993"));
    assert_non_null(strstr(json, "\"max_ms\":9007199254.740995"));
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, ",9007199254740995,"));
    free(json);
    free(trace);
    ttft_tpot_free(&c);
}

/* 8. A request's TPOT past 2^54 ns a token does not saturate: 2 tokens 2^60 ns apart. */
static void request_tpot_does_not_saturate(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char *json;
    (void)state;
    cfg.max_requests = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "r", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "r", 1, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "r", 1 + (1ull << 60), 1), TTFT_TPOT_OK);
    json = capture(&c, ttft_tpot_report_json);
    assert_non_null(strstr(json, "\"tpot_ms\":{\"n\":1,\"mean\":1152921504606.846976,\"p50\":1152921504606.846976"));
    free(json);
    ttft_tpot_free(&c);
}

/* 8. Every code has its own name; strerror and the codes come from one list. */
static void every_code_is_named(void **state)
{
    static const int codes[] = {
#define CODE_OF(name, value, text) TTFT_TPOT_##name,
        TTFT_TPOT_ERRORS(CODE_OF)
#undef CODE_OF
    };
    size_t i, j;
    (void)state;
    assert_true(sizeof codes / sizeof codes[0] >= 12);
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_string_not_equal(ttft_tpot_strerror(codes[i]), "unknown error");
        for (j = 0; j < i; j++)
            assert_string_not_equal(ttft_tpot_strerror(codes[i]), ttft_tpot_strerror(codes[j]));
    }
    assert_string_not_equal(ttft_tpot_strerror(TTFT_TPOT_EREQUEST), "unknown error");
}

/* 9. Lines that must say what is true. */
static void report_lines_say_what_is_true(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int e, d, p, i;
    (void)state;
    /* an e2e span ended without a token count: no rate of 0 tok/s */
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    e = ttft_tpot_phase(&c, "generate", TTFT_TPOT_ROLE_E2E);
    ttft_tpot_record(&c, e, 5 * MS, 0);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "0.00 tok/s"));
    assert_non_null(strstr(text, "e2e                   : n/a         (the e2e samples carry no tokens"));
    /* no prefill at all: no advice to time a warmup request */
    assert_non_null(strstr(text, "TTFT (steady, p50)    : n/a         (no prefill-role sample)"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "e2e.tok_s"));
    jc_free(&doc);
    ttft_tpot_free(&c);
    /* steady decode steps of 0 ns: TPOT is 0, the rate is undefined, and the line says why */
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "d", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 5; i++)
        ttft_tpot_record(&c, d, i == 0 ? MS : 0, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "(n=4,"));
    assert_null(strstr(text, "no steady decode step"));
    assert_non_null(strstr(text, "Output throughput     : n/a         (the 4 steady decode steps took 0 ns)"));
    free(text);
    ttft_tpot_free(&c);
    /* after clear, the first prefill of the interval is steady: not labelled as the cold one */
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    p = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    ttft_tpot_record(&c, p, 90 * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TTFT (first request)  : 90.00 ms    (incl. one-time warmup)"));
    free(text);
    ttft_tpot_clear(&c);
    ttft_tpot_record(&c, p, 30 * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "incl. one-time warmup"));
    assert_non_null(strstr(text, "TTFT (first request)  : 30.00 ms    (not flagged warmup: its one-time costs came before it)"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_bool_at(&doc, "ttft.first_warmup", 0));
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* 9. SLOs are plain decimals: no hex, no exponent, nothing below a nanosecond, no inf or nan. */
static void slo_is_decimal(void **state)
{
    static const char *const bad[] = {"ttft=0x10", "ttft=1e-310", "ttft=1e3", "ttft=inf", "ttft=nan", "ttft=0.0000001",
                                      "ttft=1.", "ttft=.5", "ttft=+1", "ttft= 1", "ttft=1,", "ttft=0",
                                      "ttft=99999999999999" /* past 2^64 ns */};
    ttft_tpot_slo slo;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ttft_tpot_slo_parse(bad[i], &slo) != TTFT_TPOT_EINVAL)
            fail_msg("accepted %s", bad[i]);
    assert_int_equal(ttft_tpot_slo_parse("ttft=1.5,tpot=0.000001,e2e=2500", &slo), TTFT_TPOT_OK);
    assert_true(slo.ttft_ms == 1.5 && slo.tpot_ms == 0.000001 && slo.e2e_ms == 2500);
}

/* A collector with one request of TTFT 500 ms, for the exposition. */
static void one_request(ttft_tpot *c)
{
    ttft_tpot_config cfg = {0};
    cfg.max_requests = 1;
    assert_int_equal(ttft_tpot_init(c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_submit_at(c, "r", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(c, "r", 500 * MS, 1), TTFT_TPOT_OK);
}

static char *prometheus_of(const ttft_tpot *c, const char *labels, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    *rc = ttft_tpot_prometheus(c, f, "llm_", labels);
    fclose(f);
    return buf;
}

/* 9. Labels are checked as the exposition format defines them; values keep their escapes. */
static void prometheus_labels_are_valid(void **state)
{
    static const char *const bad[] = {"a=\"b", "le=\"1\"", "0x=\"1\"", "a=b", "a=\"b\"c=\"d\"", "a=\"b\",a=\"c\"",
                                      "__x=\"1\"", "a=\"\\q\"", "a=\"\xc3\x28\"", "a=\"b\",", "=\"b\"", "a-b=\"c\""};
    ttft_tpot c;
    char *out;
    size_t i;
    int rc;
    (void)state;
    one_request(&c);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = prometheus_of(&c, bad[i], &rc);
        if (rc != TTFT_TPOT_EINVAL || out[0])
            fail_msg("labels %s: rc %d, wrote %.80s", bad[i], rc, out);
        free(out);
    }
    out = prometheus_of(&c, "model_name=\"q\\\"3\\\\n\\n\",engine=\"x\"", &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_bucket{model_name=\"q\\\"3\\\\n\\n\",engine=\"x\",le=\"0.5\"} 1\n"));
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_sum{model_name=\"q\\\"3\\\\n\\n\",engine=\"x\"} 0.500000000\n"));
    free(out);
    ttft_tpot_free(&c);
}

/* 2. "# hist:" lines join their phases when the trace has been read: two lines of one phase add up,
   a phase only a histogram names is made, more lines than the reader first makes room for, and a
   histogram of a phase with another role is refused. */
static void hist_lines_join_their_phases(void **state)
{
#define H "phase,role,start_ns,dur_ns,tokens,warmup\n"
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_stats st;
    char err[256];
    (void)state;
    cfg.hist_slots = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&c, H "# hist: decode,1,5,5,0,5,5:1,a\n# hist: decode,1,6,6,0,6,6:1,a\n"
                                     "# hist: kernel,2,7,7,0,7,7:1,b\n# hist: kernel,0,8,9,0,17,8:1 9:1,c\n",
                               "t", err, sizeof err),
                     TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase_stats(&c, ttft_tpot_find_phase(&c, "a"), &st), TTFT_TPOT_OK);
    assert_true(st.n == 2 && st.min_ns == 5 && st.max_ns == 6 && st.tokens == 2 && st.approx);
    assert_int_equal(ttft_tpot_phase_stats(&c, ttft_tpot_find_phase(&c, "c"), &st), TTFT_TPOT_OK);
    assert_true(st.n == 2 && st.min_ns == 8 && st.max_ns == 9 && st.total_ns == 17);
    assert_int_equal(trace_str(&c, H "# hist: kernel,1,5,5,0,5,5:1,a\n", "t", err, sizeof err), TTFT_TPOT_EPARSE);
    assert_string_equal(err, "t:2: phase changes role: a");
    ttft_tpot_free(&c);
#undef H
}

/* 9. e2e samples with tokens that took 0 ns: no rate, and the reason. */
static void e2e_of_zero_ns(void **state)
{
    ttft_tpot c;
    char *text;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    ttft_tpot_record(&c, ttft_tpot_phase(&c, "generate", TTFT_TPOT_ROLE_E2E), 0, 32);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "e2e                   : n/a         (the e2e samples took 0 ns)"));
    free(text);
    ttft_tpot_free(&c);
}

/* 3. A Prometheus sum past 2^64 ns (three TTFTs of 2^63 ns) is still written with '.'. */
static void prometheus_sum_past_two_to_the_64(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char id[4], *out;
    int i, rc;
    (void)state;
    cfg.max_requests = 3;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    for (i = 0; i < 3; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot_request_submit_at(&c, id, 0), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens_at(&c, id, 1ull << 63, 1), TTFT_TPOT_OK);
    }
    out = prometheus_of(&c, NULL, &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    /* 3 * 2^63 ns = 27670116110.564327424 s, through a double */
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_sum 27670116110.5643"));
    free(out);
    ttft_tpot_free(&c);
}

/* 3. Under a decimal-comma locale (made here with localedef) every machine-read output keeps '.',
   and the text report does too. */
static void decimal_comma_locale(void **state)
{
    char dir[] = "/tmp/ttft_tpot_locale_XXXXXX", cmd[512], err[256], *json, *text, *prom, *chrome, *trace;
    ttft_tpot c, b;
    ttft_tpot_config cfg = {0};
    ttft_tpot_slo slo;
    jc_value doc;
    int d, i, rc;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "localedef -c -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    (void)shell(cmd);
    setenv("LOCPATH", dir, 1);
    if (!setlocale(LC_ALL, "de_DE.UTF-8") || strcmp(localeconv()->decimal_point, ",") != 0) {
        print_message("SKIPPED: no decimal-comma locale could be made (localedef, Debian's locales package)\n");
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)shell(cmd);
        skip();
    }
    cfg.timeline = 1;
    cfg.max_requests = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 4; i++) /* steady: 3 steps of 3 ms, 1 token each: 333.33 tok/s */
        ttft_tpot_record(&c, d, 3 * MS, 1);
    assert_int_equal(ttft_tpot_request_submit_at(&c, "r", 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens_at(&c, "r", 500 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_slo_parse("ttft=1.5", &slo), TTFT_TPOT_OK);
    assert_true(slo.ttft_ms == 1.5);
    json = capture(&c, ttft_tpot_report_json);
    text = capture(&c, ttft_tpot_report);
    prom = prometheus_of(&c, NULL, &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    chrome = capture(&c, ttft_tpot_chrome_trace);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    same_reports(&c, &b);
    ttft_tpot_free(&b);
    ttft_tpot_free(&c);
    setlocale(LC_ALL, "C"); /* the checks' own JSON parser reads numbers with strtod */
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)shell(cmd);
    if (jc_parse(json, &doc) != 0)
        fail_msg("not JSON: %s", json);
    assert_near(num_at(&doc, "output_throughput_tok_s"), 1000.0 / 3, 1e-9);
    jc_free(&doc);
    if (jc_parse(chrome, &doc) != 0)
        fail_msg("not JSON: %s", chrome);
    jc_free(&doc);
    assert_non_null(strstr(text, "Output throughput     : 333.3 tok/s"));
    assert_non_null(strstr(text, "3.00 [CI needs n>=6] / 3.00 [CI needs n>=368] ms/token"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_bucket{le=\"0.25\"} 0\n"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_bucket{le=\"0.5\"} 1\n"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_sum 0.500000000\n"));
    free(json);
    free(text);
    free(prom);
    free(chrome);
    free(trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(long_generations_fit_the_default),
        cmocka_unit_test(truncated_request_is_left_out),
        cmocka_unit_test(full_request_table_drops_not_rejects),
        cmocka_unit_test(trace_carries_what_was_lost),
        cmocka_unit_test(trace_carries_bounded_phases),
        cmocka_unit_test(malformed_directives_are_refused),
        cmocka_unit_test(reader_takes_bom_and_crlf),
        cmocka_unit_test(names_that_would_reach_a_terminal),
        cmocka_unit_test(exact_past_two_to_the_53),
        cmocka_unit_test(request_tpot_does_not_saturate),
        cmocka_unit_test(every_code_is_named),
        cmocka_unit_test(report_lines_say_what_is_true),
        cmocka_unit_test(slo_is_decimal),
        cmocka_unit_test(prometheus_labels_are_valid),
        cmocka_unit_test(hist_lines_join_their_phases),
        cmocka_unit_test(e2e_of_zero_ns),
        cmocka_unit_test(prometheus_sum_past_two_to_the_64),
        cmocka_unit_test(decimal_comma_locale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
