/* The collector's contract: storage, phases, spans, odd input. Each case has its documented result.
   A test of the core (ttft_tpot.h alone): the request calls, the tools' queries and the trace round
   trips of these cases are in test_trace_collector.c. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "collector_setup.h" /* span_left_open() */

#include <math.h>

/* A duration in ms recorded as a driver with a device timer records it: ttft_tpot_ms_to_ns, then as
   record() (what replaced ttft_tpot_record_ms). */
static int record_ms(ttft_tpot *c, int phase, double ms, uint32_t tokens)
{
    uint64_t ns;
    int rc = ttft_tpot_ms_to_ns(ms, &ns);
    return rc != TTFT_TPOT_OK ? rc : record(c, phase, ns, tokens);
}

/* What linking a prefill kernel became: a report's option (ttft_tpot_model_options.prefill_kernel,
   the phase + 1; -1: none), checked when a model is computed. */
static int link_prefill_kernel(const ttft_tpot *c, int kernel_phase)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    int rc;
    o.prefill_kernel = kernel_phase + 1;
    o.skip = TTFT_TPOT_SKIP_ALL;
    rc = ttft_tpot_model_compute(c, &o, &m);
    if (rc == TTFT_TPOT_OK)
        ttft_tpot_model_free(&m);
    return rc;
}

/* A role's name from the one list of roles (TTFT_TPOT_ROLES, which replaced ttft_tpot_role_name); "?"
   for a number that is no role. */
static const char *role_name(int role)
{
#define ROLE_NAME(name, value, text)                                                                  \
    if (role == (value))                                                                              \
        return text;
    TTFT_TPOT_ROLES(ROLE_NAME)
#undef ROLE_NAME
    return "?";
}

/* The JSON report of c into out, as ttft_tpot_report_json wrote it: compute, write, free. */
static int write_json(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(c, NULL, &m);
    if (rc != TTFT_TPOT_OK)
        return rc;
    rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON);
    ttft_tpot_model_free(&m);
    return rc;
}

static void init_and_free_contract(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    (void)state;
    assert_int_equal(ttft_tpot_init(NULL, NULL), TTFT_TPOT_EINVAL);
    cfg.max_phases = 65536;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    assert_null(c.store.samples); /* zeroed on error: safe to free */
    ttft_tpot_free(&c);
    cfg.max_phases = 0;
    cfg.capacity = (size_t)UINT32_MAX + (sizeof(size_t) > 4 ? 1 : 0);
    if (sizeof(size_t) > 4)
        assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(c.store.capacity, 65536);
    assert_int_equal(c.phase.max, 64);
    assert_int_equal(c.enabled, 1);
    ttft_tpot_free(&c);
    ttft_tpot_free(&c); /* twice: nothing happens */
    ttft_tpot_free(NULL);
}

static void phase_registration(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    char name[TTFT_TPOT_NAME_MAX + 1];
    (void)state;
    cfg.max_phases = 2;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_phase(&c, "a", TTFT_TPOT_ROLE_DECODE), 0);
    assert_int_equal(ttft_tpot_phase(&c, "a", TTFT_TPOT_ROLE_DECODE), 0); /* found again */
    assert_int_equal(ttft_tpot_phase(&c, "a", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EROLE);
    assert_int_equal(ttft_tpot_phase(&c, "b", (ttft_tpot_role)7), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase(NULL, "b", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase(&c, NULL, TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_phase(&c, "", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "tab\there", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "bad\xff", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "overlong\xc0\xaf", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "surrogate\xed\xa0\x80", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "cut\xe2\x82", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    memset(name, 'x', sizeof name);
    name[TTFT_TPOT_NAME_MAX] = '\0'; /* NAME_MAX bytes: one too many */
    assert_int_equal(ttft_tpot_phase(&c, name, TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_ENAME);
    name[TTFT_TPOT_NAME_MAX - 1] = '\0';
    assert_int_equal(ttft_tpot_phase(&c, name, TTFT_TPOT_ROLE_KERNEL), 1);
    assert_int_equal(ttft_tpot_phase(&c, "c", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EPHASE); /* full */
    assert_int_equal(find_phase(&c, "a"), 0);
    assert_int_equal(find_phase(&c, "zz"), TTFT_TPOT_EPHASE);
    /* ttft_tpot_find_phase(NULL, "a"): test_trace_collector.c (api_tools_queries_refuse_odd_arguments) */
    /* an unknown phase as the prefill kernel: the model refuses it with EINVAL (ttft_tpot_model_compute's
       contract; ttft_tpot_link_prefill_kernel returned EPHASE) */
    assert_int_equal(link_prefill_kernel(&c, 5), TTFT_TPOT_EINVAL);
    assert_int_equal(link_prefill_kernel(&c, -1), TTFT_TPOT_OK);
    assert_int_equal(link_prefill_kernel(NULL, 0), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}

static void names_are_escaped_in_json(void **state)
{
    ttft_tpot c;
    jc_value doc;
    char *text;
    int q, u;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    q = ttft_tpot_phase(&c, "q\"b\\s", TTFT_TPOT_ROLE_KERNEL);
    u = ttft_tpot_phase(&c, "d\xc3\xa9" "code\xe2\x86\x92", TTFT_TPOT_ROLE_KERNEL); /* décode→ */
    assert_true(q >= 0 && u >= 0);
    record(&c, q, MS, 0);
    record(&c, u, MS, 0);
    text = capture(&c, report_json);
    assert_non_null(strstr(text, "\"name\":\"q\\\"b\\\\s\""));
    assert_non_null(strstr(text, "\"name\":\"d\xc3\xa9" "code\xe2\x86\x92\"")); /* UTF-8 passed through */
    assert_int_equal(jc_parse(text, &doc), 0);
    assert_string_equal(jc_get(&doc, "phases.0.name")->str, "q\"b\\s");
    jc_free(&doc);
    free(text);
    ttft_tpot_free(&c);
}

static void invalid_durations_are_rejected(void **state)
{
    ttft_tpot c;
    jc_value doc;
    int k;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(record_ms(&c, k, NAN, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, -1.0, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, INFINITY, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, 1.9e13, 0), TTFT_TPOT_ERANGE); /* 1.9e19 ns > 2^64 */
    assert_int_equal(record_ms(&c, k, 1.5, 0), TTFT_TPOT_OK);
    assert_int_equal(record_ms(&c, k, 0.0000004, 0), TTFT_TPOT_OK); /* rounds to 0 ns */
    assert_int_equal(record_ms(NULL, k, 1.0, 0), TTFT_TPOT_EINVAL);
    assert_int_equal(record(&c, 9, MS, 0), TTFT_TPOT_EPHASE);
    assert_int_equal(record(&c, -1, MS, 0), TTFT_TPOT_EPHASE);
    assert_int_equal(record(NULL, 0, MS, 0), TTFT_TPOT_EINVAL);
    json_of(&c, &doc);
    /* the two unknown phases: a duration ms_to_ns refuses never reaches the collector (0.3.0's
       record_ms counted those 4 too; the driver gets the ERANGE) */
    assert_ms(&doc, "rejected", 2);
    assert_ms(&doc, "phases.0.n", 2);
    assert_ms(&doc, "phases.0.max_ms", 1.5);
    assert_ms(&doc, "phases.0.min_ms", 0);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* record_ms rounds the exact value of its double to the ns, half up, up to the last double below 2^64
   ns (expected values: Python's fractions.Fraction(ms) * 10**6, rounded half up). */
static void record_ms_is_exact_to_the_ns(void **state)
{
    static const struct {
        double ms;
        uint64_t ns;
    } ok[] = {
        {18446744073709.55, 18446744073709550781ull}, /* the largest double that is below 2^64 ns */
        {0.0078125, 7813},                            /* 2^-7 ms: 7812.5 ns exactly, half up */
        {1.5, 1500000},
        {0.0000004, 0},
        {5e-324, 0},                                  /* the smallest subnormal */
        {-0.0, 0},                                    /* minus zero is zero */
    };
    ttft_tpot c;
    size_t i;
    double next;
    int k;
    (void)state;
    k = fixture(&c, NULL, "k", TTFT_TPOT_ROLE_KERNEL);
    record(&c, k, 1, 0); /* the first call takes the slow path: the rest are plain stores */
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (record_ms(&c, k, ok[i].ms, 0) != TTFT_TPOT_OK)
            fail_msg("record_ms(%.17g) refused", ok[i].ms);
        if (sample(&c, i + 1).dur_ns != ok[i].ns)
            fail_msg("record_ms(%.17g) = %llu ns, expected %llu", ok[i].ms,
                     (unsigned long long)sample(&c, i + 1).dur_ns, (unsigned long long)ok[i].ns);
    }
    next = nextafter(18446744073709.55, 1e20); /* 18446744073709554688 ns: past 2^64 */
    assert_int_equal(record_ms(&c, k, next, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, -5e-324, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, -INFINITY, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(record_ms(&c, k, 1e308, 0), TTFT_TPOT_ERANGE);
    assert_int_equal(counts(&c).rejected, 0); /* refused before the collector: the driver has the ERANGE */
    ttft_tpot_free(&c);
}

static void span_misuse(void **state)
{
    static const uint64_t t[] = {10, 30};
    script_clock sc = {t, 2, 0};
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_span never;
    int k;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    {
        ttft_tpot_span s = ttft_tpot_span_begin(&c, k);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_ESTATE); /* ended twice */
    }
    memset(&never, 0, sizeof never);
    assert_int_equal(ttft_tpot_span_end(&never), TTFT_TPOT_ESTATE);
    assert_int_equal(ttft_tpot_span_end(NULL), TTFT_TPOT_EINVAL);
    {
        ttft_tpot_span s = ttft_tpot_span_begin(NULL, k); /* no collector: inert */
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    }
    assert_int_equal(counts(&c).samples, 1);
    assert_int_equal(sample(&c, 0).dur_ns, 20);
    assert_int_equal(counts(&c).rejected, 1);
    ttft_tpot_free(&c);
}

/* A span begun and never ended is counted while it runs (spans_open), shown in every report, kept by
   a trace, a clear and a merge; its end or its cancel takes it off. */
static void spans_never_ended_are_counted(void **state)
{
    ttft_tpot c, d;
    ttft_tpot_span a, b, e;
    jc_value doc;
    char *text;
    int dec;
    (void)state;
    dec = span_left_open(&c, &a, &b); /* b left open */
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 span begun and not ended: what it timed is in no figure"));
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "spans_open", 1);
    jc_free(&doc);
    /* its trace keeps the report ("# counts: spans_open=1"): test_trace_collector.c
       (api_trace_keeps_spans_open) */
    ttft_tpot_clear(&c); /* b still runs: still open */
    assert_int_equal(counts(&c).spans_open, 1);
    assert_int_equal(ttft_tpot_init(&d, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&d, &c), TTFT_TPOT_OK);
    assert_int_equal(counts(&d).spans_open, 1);
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_OK); /* nothing recorded, not open */
    assert_int_equal(counts(&c).spans_open, 0);
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_ESTATE); /* ended: misuse, counted */
    assert_int_equal(ttft_tpot_span_end(&b), TTFT_TPOT_ESTATE);
    assert_int_equal(counts(&c).rejected, 2);
    assert_int_equal(ttft_tpot_span_cancel(NULL), TTFT_TPOT_EINVAL);
    e = ttft_tpot_span_begin(NULL, dec); /* inert: never counted, cancels fine */
    assert_int_equal(ttft_tpot_span_cancel(&e), TTFT_TPOT_OK);
    e = ttft_tpot_span_begin(&c, dec);
    a = e; /* a copy ended as well: two ends of one begin read as none open, never as 2^64 - 1 */
    assert_int_equal(ttft_tpot_span_end(&e), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_span_end(&a), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).spans_open, 0);
    text = capture(&c, ttft_tpot_trace_write);
    assert_null(strstr(text, "spans_open"));
    free(text);
    ttft_tpot_enable(&c, 0);
    e = ttft_tpot_span_begin(&c, dec);
    assert_int_equal(counts(&c).spans_open, 0); /* disabled: records nothing, counts nothing */
    ttft_tpot_free(&c);
    ttft_tpot_free(&d);
}

/* A span cancelled (a step abandoned on an error path) keeps nothing and is counted: spans_cancelled,
   in every report (a NOTE, JSON "spans_cancelled"), a trace ("# counts: spans_cancelled=N"; read back:
   test_trace_collector.c, api_trace_keeps_spans_cancelled), a merge; a clear starts it again, as the
   other counts. */
static void cancelled_spans_are_counted(void **state)
{
    ttft_tpot c, d;
    ttft_tpot_span a, b;
    jc_value doc;
    char *text;
    int dec;
    (void)state;
    dec = span_left_open(&c, &a, &b); /* b left open */
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_OK);
    b = ttft_tpot_span_begin(&c, dec);
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_span_cancel(&b), TTFT_TPOT_ESTATE); /* misuse: rejected, not cancelled again */
    assert_int_equal(counts(&c).spans_cancelled, 2);
    assert_int_equal(counts(&c).spans_open, 0);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "NOTE: 2 spans cancelled (a step abandoned on an error path): in no figure\n"));
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "spans_cancelled", 2);
    jc_free(&doc);
    text = capture(&c, ttft_tpot_trace_write);
    assert_non_null(strstr(text, "# counts: rejected=1 spans_cancelled=2 capacity="));
    free(text);
    assert_int_equal(ttft_tpot_init(&d, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&d, &c), TTFT_TPOT_OK);
    assert_int_equal(counts(&d).spans_cancelled, 2);
    ttft_tpot_clear(&c);
    assert_int_equal(counts(&c).spans_cancelled, 0);
    ttft_tpot_free(&c);
    ttft_tpot_free(&d);
}

/* What a binding that reads the clock itself calls: a span begun at a start of its own reads no clock,
   a start set after the begin is where the span starts, and the collector's clock is read through
   ttft_tpot_clock_now. Only the reads scripted below are allowed. */
static void spans_at_a_start_of_yours(void **state)
{
    static const uint64_t t[] = {500, 900};
    script_clock sc = {t, 2, 0};
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_span s;
    ttft_tpot_sample x;
    uint64_t start;
    int k;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    cfg.timeline = 1;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    s = ttft_tpot_span_begin_at(&c, k, 100); /* no clock read */
    assert_int_equal(counts(&c).spans_open, 1);
    ttft_tpot_span_set_duration(&s, 7);
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    x = sample_start(&c, 0, &start);
    assert_int_equal(start, 100);
    assert_int_equal(x.dur_ns, 7);
    s = ttft_tpot_span_begin_at(&c, k, 200); /* the start is the begin's (ttft_tpot_span_set_start's) */
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK); /* reads 500: 300 ns since its start */
    x = sample_start(&c, 1, &start);
    assert_int_equal(start, 200);
    assert_int_equal(x.dur_ns, 300);
    assert_int_equal(ttft_tpot_clock_now(&c), 900);
    assert_int_equal(sc.next, 2);
    assert_true(ttft_tpot_clock_now(NULL) > 0); /* the platform clock */
    ttft_tpot_enable(&c, 0);
    s = ttft_tpot_span_begin_at(&c, k, 100); /* disabled: inert */
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 2);
    ttft_tpot_free(&c);
}

/* config.refusals_reported: a refused call returns its code and counts nothing (the caller reports
   it, as the Python package raises it). */
static void refusals_reported_by_the_caller(void **state)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    ttft_tpot_span s;
    int k;
    (void)state;
    cfg.refusals_reported = 1;
    cfg.max_device = 4;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_ESTATE);
    s = ttft_tpot_span_begin(&c, k);
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_ESTATE);
    assert_int_equal(record(&c, 9, 5, 1), TTFT_TPOT_EPHASE);
    assert_int_equal(record_ms(&c, k, -1.0, 1), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_device_resolve(&c, &TTFT_TPOT_STAMP_ELAPSED(12345, 5), 1, NULL, NULL),
                     TTFT_TPOT_ETICKET);
    assert_int_equal(counts(&c).rejected, 0);
    assert_int_equal(counts(&c).device_refused, 0);
    ttft_tpot_free(&c);
    cfg.refusals_reported = 0; /* the default: each refusal counted */
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_warmup_end(&c), TTFT_TPOT_ESTATE);
    assert_int_equal(ttft_tpot_device_resolve(&c, &TTFT_TPOT_STAMP_ELAPSED(12345, 5), 1, NULL, NULL),
                     TTFT_TPOT_ETICKET);
    assert_int_equal(counts(&c).rejected, 1);
    assert_int_equal(counts(&c).device_refused, 1);
    ttft_tpot_free(&c);
}

static void disabled_collector_reads_no_clock(void **state)
{
    script_clock sc = {NULL, 0, 0}; /* any read fails the test */
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    int k, i;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    ttft_tpot_enable(&c, 0);
    for (i = 0; i < 3; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, &c, k);
        TTFT_TPOT_SPAN_END(s);
    }
    TTFT_TPOT_TIME(&c, k, 0, i++);
    assert_int_equal(i, 4); /* the wrapped statement ran */
    assert_int_equal(record(&c, k, MS, 0), TTFT_TPOT_OK);
    assert_int_equal(record_ms(&c, k, 1.0, 0), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 0);
    assert_int_equal(sc.next, 0);
    ttft_tpot_enable(NULL, 1); /* NULL: nothing */
    ttft_tpot_free(&c);
}

static void clock_stepping_back_records_zero(void **state)
{
    static const uint64_t t[] = {500, 400};
    script_clock sc = {t, 2, 0};
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    int k;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    TTFT_TPOT_TIME(&c, k, 0, (void)0);
    assert_int_equal(counts(&c).samples, 1);
    assert_int_equal(sample(&c, 0).dur_ns, 0);
    ttft_tpot_free(&c);
}

static void real_clock_is_monotonic(void **state)
{
    uint64_t a = ttft_tpot_clock_now(NULL), b = ttft_tpot_clock_now(NULL);
    (void)state;
    assert_true(a > 0);
    assert_true(b >= a);
}

static void null_arguments(void **state)
{
    ttft_tpot c;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_report(NULL, stdout), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_report(&c, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(write_json(NULL, stdout), TTFT_TPOT_EINVAL);
    assert_int_equal(write_json(&c, NULL), TTFT_TPOT_EINVAL);
    /* ttft_tpot_summarize, ttft_tpot_phase_stats and ttft_tpot_trace_read of NULL: the tools',
       test_trace_collector.c (api_tools_queries_refuse_odd_arguments) */
    assert_int_equal(ttft_tpot_warmup_begin(NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_warmup_end(NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_trace_write(NULL, stdout), TTFT_TPOT_EINVAL);
    assert_string_equal(ttft_tpot_strerror(TTFT_TPOT_EFULL), "sample storage full");
    assert_string_equal(ttft_tpot_strerror(12345), "unknown error");
    assert_string_equal(role_name(9), "?");
    ttft_tpot_free(&c);
}

static void write_error_is_reported(void **state)
{
    ttft_tpot c;
    FILE *ro = fopen(TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", "r"); /* writes to it fail */
    (void)state;
    assert_non_null(ro);
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_report(&c, ro), TTFT_TPOT_EIO);
    assert_int_equal(write_json(&c, ro), TTFT_TPOT_EIO);
    assert_int_equal(ttft_tpot_trace_write(&c, ro), TTFT_TPOT_EIO);
    fclose(ro);
    ttft_tpot_free(&c);
}

/* One recording primitive with the shape key a parameter: TTFT_TPOT_NO_SHAPE is no shape; the span
   with a shape key set is the same call. (The pair of request calls with the time a parameter, where
   TTFT_TPOT_NOW reads the collector's clock: test_trace_collector.c, api_request_time_a_parameter.) */
static void one_primitive_and_its_aliases(void **state)
{
    static const uint64_t t[] = {100, 130};
    script_clock sc = {t, 2, 0};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int d;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    d = fixture(&c, &cfg, "d", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(record(&c, d, 5, 1), TTFT_TPOT_OK);                        /* first call: warmup */
    assert_int_equal(record_shape(&c, d, TTFT_TPOT_NO_SHAPE, 6, 1), TTFT_TPOT_OK); /* no shape: steady */
    assert_int_equal(record_shape(&c, d, 4, 7, 1), TTFT_TPOT_OK);               /* a new shape: warmup */
    assert_int_equal(sample(&c, 1).warmup, 0);
    assert_int_equal(sample(&c, 2).warmup, 1);
    {
        TTFT_TPOT_SPAN_BEGIN(s, &c, d); /* clock 100 .. 130 */
        TTFT_TPOT_SPAN_SET_SHAPE(s, TTFT_TPOT_NO_SHAPE);
        TTFT_TPOT_SPAN_END(s);
    }
    assert_int_equal(sample(&c, 3).dur_ns, 30);
    assert_int_equal(sample(&c, 3).warmup, 0);
    assert_int_equal(sc.next, 2); /* the span's two reads: the records read no clock */
    ttft_tpot_free(&c);
}

/* The setters: a span carries tokens, prompt tokens, a shape key and a duration measured elsewhere,
   in any combination and order; a set duration reads no clock at the end; an inert span's setters
   record nothing; a prompt's rules are checked at the end. */
static void setters_combine_on_every_axis(void **state)
{
    static const uint64_t t[] = {100, 160, 200, 300, 340};
    script_clock sc = {t, 5, 0};
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_sample x;
    ttft_tpot_span none;
    jc_value doc;
    uint64_t start, ns = 7;
    int pre;
    (void)state;
    cfg.clock = script_now;
    cfg.clock_user = &sc;
    cfg.max_shapes = 2;
    cfg.timeline = 1; /* keep start times */
    pre = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    assert_int_equal(record(&c, pre, 10, 1), TTFT_TPOT_OK); /* the phase's first call: warmup */
    {
        ttft_tpot_span s = ttft_tpot_span_begin(&c, pre); /* clock 100 */
        ttft_tpot_span_set_prompt(&s, 50);
        ttft_tpot_span_set_shape(&s, 7); /* a new shape: warmup, its prompt not counted */
        ttft_tpot_span_set_tokens(&s, 2);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK); /* clock 160 */
    }
    {
        TTFT_TPOT_SPAN_BEGIN(s, &c, pre); /* clock 200 */
        TTFT_TPOT_SPAN_SET_DURATION(s, 25);
        TTFT_TPOT_SPAN_SET_SHAPE(s, 7); /* known: steady */
        TTFT_TPOT_SPAN_SET_TOKENS(s, 3);
        TTFT_TPOT_SPAN_SET_PROMPT(s, 40);
        TTFT_TPOT_SPAN_SET_PROMPT(s, 30); /* the last value counts */
        TTFT_TPOT_SPAN_END(s);            /* no clock read */
    }
    assert_int_equal(sc.next, 3);
    x = sample(&c, 1);
    assert_int_equal(x.dur_ns, 60);
    assert_int_equal(x.tokens, 2);
    assert_int_equal(x.warmup, 1);
    x = sample_start(&c, 2, &start);
    assert_int_equal(x.dur_ns, 25);
    assert_int_equal(x.tokens, 3);
    assert_int_equal(x.warmup, 0);
    assert_int_equal(start, 200);
    {
        ttft_tpot_span s = ttft_tpot_span_begin(&c, pre); /* clock 300 .. 340 */
        ttft_tpot_span_set_prompt(&s, 0);                 /* a prompt of 0 tokens: refused at the end */
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_EINVAL);
    }
    ttft_tpot_enable(&c, 0);
    {
        ttft_tpot_span s = ttft_tpot_span_begin(&c, pre); /* inert: no clock read */
        ttft_tpot_span_set_duration(&s, 5);
        ttft_tpot_span_set_tokens(&s, 9);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    }
    ttft_tpot_enable(&c, 1);
    memset(&none, 0, sizeof none); /* never begun: setters leave it so */
    ttft_tpot_span_set_tokens(&none, 1);
    assert_int_equal(ttft_tpot_span_end(&none), TTFT_TPOT_ESTATE);
    ttft_tpot_span_set_tokens(NULL, 1);
    ttft_tpot_span_set_prompt(NULL, 1);
    ttft_tpot_span_set_shape(NULL, 1);
    ttft_tpot_span_set_duration(NULL, 1);
    assert_int_equal(sc.next, 5);
    assert_int_equal(counts(&c).samples, 3);
    assert_int_equal(counts(&c).rejected, 1);
    json_of(&c, &doc);
    assert_ms(&doc, "prefill.tokens", 30); /* the steady prefill's prompt alone */
    assert_ms(&doc, "prefill.samples", 1);
    jc_free(&doc);
    /* the ms conversion set_duration takes from a device timer */
    assert_int_equal(ttft_tpot_ms_to_ns(1.5, &ns), TTFT_TPOT_OK);
    assert_int_equal(ns, 1500000);
    assert_int_equal(ttft_tpot_ms_to_ns(-1.0, &ns), TTFT_TPOT_ERANGE);
    assert_int_equal(ns, 1500000);
    assert_int_equal(ttft_tpot_ms_to_ns(1.0, NULL), TTFT_TPOT_EINVAL);
    ttft_tpot_free(&c);
}


/* 8. Every code has its own name (0 is "ok"); strerror and the codes come from one list. A role has
   its name too, "?" out of range. */
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
    assert_string_equal(ttft_tpot_strerror(TTFT_TPOT_OK), "ok");
    assert_string_equal(role_name(-1), "?");
    assert_string_equal(role_name(TTFT_TPOT_ROLE_E2E), "e2e");
}

/* The new calls' odd arguments: NULL, a disabled collector, a role already taken. (The request calls'
   and an invalid id: test_trace_collector.c, api_request_calls_odd_arguments.) */
static void odd_arguments(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    int pre, k;
    (void)state;
    pre = fixture(&c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(ttft_tpot_shape_row(NULL, k, 1, "a"), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, ""), TTFT_TPOT_ENAME);
    assert_int_equal(ttft_tpot_phase(&c, "k[a]", TTFT_TPOT_ROLE_DECODE), 2);
    assert_int_equal(ttft_tpot_shape_row(&c, k, 1, "a"), TTFT_TPOT_EROLE); /* k[a] is a decode phase */
    assert_int_equal(record_prompt(NULL, pre, 1, 1, 1), TTFT_TPOT_EINVAL);
    ttft_tpot_enable(&c, 0);
    assert_int_equal(record_prompt(&c, pre, 1, 1, 1), TTFT_TPOT_OK);
    assert_int_equal(counts(&c).samples, 0); /* disabled: nothing recorded */
    ttft_tpot_free(&c);
}

static void configurations_refused(void **state)
{
    ttft_tpot c, zero;
    ttft_tpot_config cfg = {0};
    (void)state;
    cfg.max_phases = 4;
    cfg.hist_slots = 5; /* more slots than phases */
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_bytes_needed(&cfg), 0);
    memset(&zero, 0, sizeof zero); /* never initialised: calls refuse it */
    assert_int_equal(ttft_tpot_phase(&zero, "a", TTFT_TPOT_ROLE_KERNEL), TTFT_TPOT_EINVAL);
    /* ttft_tpot_trace_read and ttft_tpot_find_phase of it: the tools', test_trace_collector.c
       (api_tools_queries_refuse_odd_arguments) */
    assert_int_equal(record(&zero, 0, 1, 1), TTFT_TPOT_OK); /* disabled: nothing recorded */
    {
        jc_value doc;
        json_of(&zero, &doc); /* reports empty */
        assert_true(is_null_at(&doc, "tpot"));
        jc_free(&doc);
    }
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_merge(&zero, &c), TTFT_TPOT_EINVAL);
    assert_int_equal(ttft_tpot_merge(&c, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(link_prefill_kernel(&c, -2), TTFT_TPOT_EINVAL); /* ttft_tpot_link_prefill_kernel: EPHASE */
    /* ttft_tpot_phase_stats of NULL: the tools', test_trace_collector.c */
    ttft_tpot_free(&c);
}

/* What a layer's sample hook saw: each call's sample, in order. */
typedef struct watcher {
    ttft_tpot_layer_sample seen[16];
    unsigned n;
} watcher;

/* A clock never read (every span has its duration set): both collectors name the same clock, with no
   read cost measured at init (the platform clock's differs from one init to the next). */
static uint64_t unread_clock(void *user)
{
    (void)user;
    return 0;
}

static void watch_sample(void *state, const ttft_tpot_layer_sample *x)
{
    watcher *w = (watcher *)state;
    if (w->n < 16)
        w->seen[w->n] = *x;
    w->n++;
}

/* A layer's sample hook sees each prefill and decode span as it ends, with what was set on it, and no
   other span: a kernel span, a span refused (a prompt on a decode phase), a span after the layer is
   detached. Watched spans leave the inline path yet are recorded as before: the JSON report of the
   collector equals that of one recorded alike without a layer. A bounded decode phase's steady span (in
   its histogram) is seen too, and a span dropped (a warmup span past the store) is seen with kept 0. */
static void layer_sees_each_engine_step(void **state)
{
    ttft_tpot c, plain;
    ttft_tpot_config cfg;
    ttft_tpot_layer layer;
    watcher w;
    ttft_tpot_span s;
    char *a, *b;
    int k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 6;
    cfg.sequences = 1;
    cfg.clock = unread_clock;
    memset(&layer, 0, sizeof layer);
    memset(&w, 0, sizeof w);
    layer.name = "watch", layer.state = &w, layer.sample = watch_sample;
    for (k = 0; k < 2; k++) {
        ttft_tpot *x = k ? &plain : &c;
        int pre, dec, ker;
        assert_int_equal(ttft_tpot_init(x, &cfg), TTFT_TPOT_OK);
        pre = ttft_tpot_phase(x, "prefill", TTFT_TPOT_ROLE_PREFILL);
        if (!k)
            assert_int_equal(ttft_tpot_attach(x, &layer), TTFT_TPOT_OK); /* after one phase, before another */
        dec = ttft_tpot_phase(x, "decode", TTFT_TPOT_ROLE_DECODE);
        ker = ttft_tpot_phase(x, "matmul", TTFT_TPOT_ROLE_KERNEL);
        assert_int_equal(record_with(x, pre, 9 * MS, 2, TTFT_TPOT_NO_SHAPE, 1, 40), TTFT_TPOT_OK);
        assert_int_equal(record(x, dec, 3 * MS, 2), TTFT_TPOT_OK);
        assert_int_equal(record(x, ker, 1 * MS, 0), TTFT_TPOT_OK);
        s = ttft_tpot_span_begin_at(x, dec, 0);
        ttft_tpot_span_set_duration(&s, 4 * MS);
        ttft_tpot_span_set_tokens(&s, 5);
        ttft_tpot_span_set_sequences(&s, 2);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        assert_int_equal(record_with(x, dec, 3 * MS, 1, TTFT_TPOT_NO_SHAPE, 1, 7), TTFT_TPOT_EROLE);
        assert_int_equal(record(x, dec, 3 * MS, 2), TTFT_TPOT_OK);
    }
    assert_int_equal(w.n, 4);
    assert_true(w.seen[0].role == TTFT_TPOT_ROLE_PREFILL && w.seen[0].phase == 0 && w.seen[0].tokens == 2);
    assert_true(w.seen[0].prompt == 40 && w.seen[0].warmup && w.seen[0].kept && w.seen[0].sequences == 0);
    assert_true(w.seen[1].role == TTFT_TPOT_ROLE_DECODE && w.seen[1].tokens == 2 && w.seen[1].warmup);
    assert_true(w.seen[2].tokens == 5 && w.seen[2].sequences == 2 && !w.seen[2].warmup && w.seen[2].prompt == 0);
    assert_true(w.seen[3].tokens == 2 && !w.seen[3].warmup && w.seen[3].kept);
    a = capture(&c, report_json);
    b = capture(&plain, report_json);
    assert_string_equal(a, b);
    free(a);
    free(b);
    ttft_tpot_warmup_begin(&c); /* warmup spans past the store and its reserve are dropped */
    for (k = 0; k < 8 && record(&c, 1, 3 * MS, 2) == TTFT_TPOT_OK; k++)
        ;
    ttft_tpot_warmup_end(&c);
    assert_true(k < 8 && w.n == 5 + (unsigned)k && !w.seen[w.n - 1].kept && w.seen[w.n - 1].warmup);
    assert_int_equal(counts(&c).dropped, 1);
    assert_int_equal(ttft_tpot_attach(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(record(&c, 1, 3 * MS, 2), TTFT_TPOT_OK); /* steady: on in a histogram */
    assert_int_equal(w.n, 5 + (unsigned)k);
    ttft_tpot_free(&plain);
    ttft_tpot_free(&c);
    /* a bounded decode phase: its steady spans go on in the histogram, each one seen */
    memset(&cfg, 0, sizeof cfg);
    memset(&w, 0, sizeof w);
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    k = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_phase_bounded(&c, k), TTFT_TPOT_OK);
    assert_int_equal(record(&c, k, 3 * MS, 1), TTFT_TPOT_OK); /* before the layer: not seen */
    assert_int_equal(ttft_tpot_attach(&c, &layer), TTFT_TPOT_OK);
    assert_int_equal(record(&c, k, 3 * MS, 3), TTFT_TPOT_OK);
    assert_int_equal(record(&c, k, 3 * MS, 4), TTFT_TPOT_OK);
    assert_true(w.n == 2 && w.seen[0].tokens == 3 && w.seen[1].tokens == 4 && w.seen[1].kept);
    assert_int_equal(counts(&c).dropped, 0);
    assert_int_equal(ttft_tpot_attach(&c, NULL), TTFT_TPOT_OK);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_primitive_and_its_aliases),
        cmocka_unit_test(setters_combine_on_every_axis),
        cmocka_unit_test(init_and_free_contract),
        cmocka_unit_test(phase_registration),
        cmocka_unit_test(names_are_escaped_in_json),
        cmocka_unit_test(invalid_durations_are_rejected),
        cmocka_unit_test(record_ms_is_exact_to_the_ns),
        cmocka_unit_test(span_misuse),
        cmocka_unit_test(spans_never_ended_are_counted),
        cmocka_unit_test(cancelled_spans_are_counted),
        cmocka_unit_test(spans_at_a_start_of_yours),
        cmocka_unit_test(refusals_reported_by_the_caller),
        cmocka_unit_test(disabled_collector_reads_no_clock),
        cmocka_unit_test(clock_stepping_back_records_zero),
        cmocka_unit_test(real_clock_is_monotonic),
        cmocka_unit_test(null_arguments),
        cmocka_unit_test(write_error_is_reported),
        cmocka_unit_test(every_code_is_named),
        cmocka_unit_test(odd_arguments),
        cmocka_unit_test(configurations_refused),
        cmocka_unit_test(layer_sees_each_engine_step),
    };
    return run_cases(tests);
}
