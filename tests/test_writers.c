/* The writers of the core: what the text report, the JSON and the trace writer say on unusual input
   (huge totals, integers past 2^53, 0 ns), names that would reach a terminal, and a host locale with
   a decimal comma. The Prometheus exposition, the Chrome trace, the live exposition and its
   publishers, the tools' outputs, request ids and the trace reader: test_tools_writers.c. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include <locale.h>

#include "decimal_comma.h" /* decimal_comma_on(), decimal_comma_off(), json_keeps_the_point() */

/* 7. C1 controls and bidirectional overrides and isolates are refused in names (request ids, and a
   message about a bad trace line: test_tools_writers.c). */
static void names_that_would_reach_a_terminal(void **state)
{
    static const char *const bad[] = {"csi \xc2\x9b[31m", "c1 \xc2\x80", "c1 \xc2\x9f", "rlo \xe2\x80\xae",
                                      "lre \xe2\x80\xaa", "lri \xe2\x81\xa6", "pdi \xe2\x81\xa9"};
    ttft_tpot c;
    size_t i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ttft_tpot_phase(&c, bad[i], TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_true(ttft_tpot_phase(&c, "ok \xc2\xa0 \xe2\x80\xa9 \xe2\x81\xaa", TTFT_TPOT_ROLE_KERNEL) >= 0); /* neighbours */
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
    d = fixture(&c, NULL, "d", TTFT_TPOT_ROLE_DECODE);
    record(&c, d, 1, 1); /* the first call: warmup */
    record(&c, d, 9007199254740993ull, 1);
    record(&c, d, 9007199254740995ull, 1);
    json = capture(&c, report_json);
    assert_non_null(strstr(json, "\"p50_ms\":9007199254.740994"));
    assert_non_null(strstr(json, "\"min_ms\":9007199254.740993"));
    assert_non_null(strstr(json, "\"max_ms\":9007199254.740995"));
    trace = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, ",9007199254740995,"));
    free(json);
    free(trace);
    ttft_tpot_free(&c);
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
    e = fixture(&c, NULL, "generate", TTFT_TPOT_ROLE_E2E);
    record(&c, e, 5 * MS, 0);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "0.00 tok/s"));
    assert_non_null(strstr(text, "e2e                   : n/a         (the e2e samples carry no tokens"));
    /* no prefill at all: no TTFT row (a row without data is left out), no advice to time a warmup request */
    assert_null(strstr(text, "TTFT ("));
    assert_null(strstr(text, "time a warmup request"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "e2e.tok_s"));
    jc_free(&doc);
    ttft_tpot_free(&c);
    /* steady decode steps of 0 ns: TPOT is 0, the rate is undefined, and the line says why */
    d = fixture(&c, NULL, "d", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 5; i++)
        record(&c, d, i == 0 ? MS : 0, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "(n=4,"));
    assert_null(strstr(text, "no steady decode step"));
    assert_non_null(strstr(text, "Output throughput     : n/a         (the 4 steady decode steps took 0 ns)"));
    free(text);
    ttft_tpot_free(&c);
    /* after clear, the first prefill of the interval is steady: not labelled as the cold one */
    p = fixture(&c, NULL, "prefill", TTFT_TPOT_ROLE_PREFILL);
    record(&c, p, 90 * MS, 1);
    text = capture(&c, ttft_tpot_report); /* warmup is a fact only against a steady figure */
    assert_non_null(strstr(text, "TTFT (first request)  : 90.00 ms    (flagged warmup; no steady prefill to compare)"));
    free(text);
    record(&c, p, 100 * MS, 1);
    record(&c, p, 110 * MS, 1); /* steady p50 105 ms: the first was no slower */
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TTFT (first request)  : 90.00 ms    (flagged warmup, yet no slower than the steady "
                                 "p50)"));
    free(text);
    record(&c, p, 30 * MS, 1);
    record(&c, p, 30 * MS, 1); /* steady 100, 110, 30, 30: p50 65 ms, slower than it */
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TTFT (first request)  : 90.00 ms    (incl. one-time warmup)"));
    free(text);
    ttft_tpot_clear(&c);
    record(&c, p, 30 * MS, 1);
    text = capture(&c, ttft_tpot_report);
    assert_null(strstr(text, "incl. one-time warmup"));
    assert_non_null(strstr(text, "TTFT (first request)  : 30.00 ms    (not flagged warmup: its one-time costs came before it)"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_bool_at(&doc, "ttft.first_warmup", 0));
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* 9. e2e samples with tokens that took 0 ns: no rate, and the reason. */
static void e2e_of_zero_ns(void **state)
{
    ttft_tpot c;
    char *text;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    record(&c, ttft_tpot_phase(&c, "generate", TTFT_TPOT_ROLE_E2E), 0, 32);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "e2e                   : n/a         (the e2e samples took 0 ns)"));
    free(text);
    ttft_tpot_free(&c);
}

/* 3. Under a decimal-comma locale (made here with localedef) the JSON report keeps '.', and the text
   report does too (with a request, the exposition, the Chrome trace and the trace read back:
   test_tools_writers.c). */
static void decimal_comma_locale(void **state)
{
    char dir[] = "/tmp/ttft_tpot_locale_XXXXXX", *json, *text;
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int d, i;
    (void)state;
    if (!decimal_comma_on(dir))
        skip();
    cfg.timeline = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 4; i++) /* steady: 3 steps of 3 ms, 1 token each: 333.33 tok/s */
        record(&c, d, 3 * MS, 1);
    json = capture(&c, report_json);
    text = capture(&c, ttft_tpot_report);
    ttft_tpot_free(&c);
    decimal_comma_off(dir);
    json_keeps_the_point(json);
    assert_non_null(strstr(text, "Output throughput     : 333.3 tok/s"));
    assert_non_null(strstr(text, "3.00 [CI needs n>=6] / 3.00 [CI needs n>=368] ms/token"));
    free(json);
    free(text);
}

static void defensive_escaping_and_huge_totals(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int k;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    record(&c, k, UINT64_MAX, 0);
    record(&c, k, UINT64_MAX, 0);
    /* names are checked on the way in; the JSON writer escapes anyway, should a caller poke one */
    memcpy(c.phase.slots[k].name, "a\x01\xff", 4);
    text = capture(&c, report_json);
    assert_non_null(strstr(text, "\"name\":\"a\\u0001\\ufffd\""));
    assert_int_equal(jc_parse(text, &doc), 0);
    /* a total past 2^64 ns still prints as a number */
    assert_near(num_at(&doc, "phases.0.total_ms"), 2.0 * 18446744073709551615.0 / 1e6, 1e3);
    jc_free(&doc);
    free(text);
    ttft_tpot_free(&c);
}

/* The phase whose fastest sample bounds steady TTFT below, as a report names it
   (ttft_tpot_model_options.prefill_kernel: a kernel phase + 1; 0: none), and the text and JSON
   reports computed with it. */
static int prefill_kernel;

static int write_with_prefill_kernel(const ttft_tpot *c, FILE *out, int format)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    int rc;
    o.prefill_kernel = prefill_kernel;
    if ((rc = ttft_tpot_model_compute(c, &o, &m)) == TTFT_TPOT_OK)
        rc = ttft_tpot_model_write(&m, out, format);
    ttft_tpot_model_free(&m);
    return rc;
}

static int text_with_prefill_kernel(const ttft_tpot *c, FILE *out)
{
    return write_with_prefill_kernel(c, out, TTFT_TPOT_FORMAT_TEXT);
}

static int json_with_prefill_kernel(const ttft_tpot *c, FILE *out)
{
    return write_with_prefill_kernel(c, out, TTFT_TPOT_FORMAT_JSON);
}

static void text_report_variants(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    jc_value doc;
    char *text;
    int p, k, d, i;
    (void)state;
    cfg.bounded = 1;
    p = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    k = ttft_tpot_phase(&c, "fwd", TTFT_TPOT_ROLE_KERNEL);
    d = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    prefill_kernel = k + 1; /* the report's option: each capture below computes with it (OK) */
    for (i = 0; i < 3; i++) {
        record(&c, p, (uint64_t)(100 - i) * MS, 1);
        record(&c, k, (uint64_t)(50 - i) * MS, 0);
    }
    record(&c, d, 9 * MS, 1);
    record(&c, d, 9 * MS, 1); /* a warmup section: two warmup steps */
    ttft_tpot_warmup_begin(&c);
    record(&c, d, 9 * MS, 1);
    ttft_tpot_warmup_end(&c);
    record(&c, 77, MS, 0); /* rejected */
    text = capture(&c, text_with_prefill_kernel);
    assert_non_null(strstr(text, "TTFT (steady, p50)    : 98.5")); /* bounded: 99, 98, within 0.8% */
    assert_non_null(strstr(text, "mean 98.50 ms; ")); /* the mean is exact */
    assert_non_null(strstr(text, "; ~ within 0.8%: bounded histogram)"));
    assert_non_null(strstr(text, "excl. 2 warmup steps"));
    assert_non_null(strstr(text, "WARNING: 1 call rejected ("));
    free(text);
    text = capture(&c, json_with_prefill_kernel);
    if (jc_parse(text, &doc) != 0)
        fail_msg("report is not valid JSON: %s", text);
    assert_ms(&doc, "ttft.prefill_kernel_min_ms", 48);
    jc_free(&doc);
    free(text);
    prefill_kernel = 0;
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_that_would_reach_a_terminal),
        cmocka_unit_test(exact_past_two_to_the_53),
        cmocka_unit_test(report_lines_say_what_is_true),
        cmocka_unit_test(e2e_of_zero_ns),
        cmocka_unit_test(decimal_comma_locale),
        cmocka_unit_test(defensive_escaping_and_huge_totals),
        cmocka_unit_test(text_report_variants),
    };
    return run_cases(tests);
}
