/* test_util.h - what every test program shares: a scripted clock, report capture, JSON checks, and
   what a test reads of a collector. It includes ttft_tpot.h alone: a test of the core compiles
   against the core; a test of the serving layer or the tools includes test_tools_util.h, which
   includes their headers first. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#if defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* clock_gettime: the libc headers below come before ttft_tpot.h asks for it */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "json_check.h"
#ifndef TTFT_TPOT_LAYERS
#define TTFT_TPOT_LAYERS /* the core's calls a test reads figures with (ttft_tpot_series_stats) */
#endif
#include "ttft_tpot.h"

#include "record_util.h" /* record(), record_with(), report_json() */

#include <sys/wait.h>

#define MS 1000000ull /* ns in a ms */

/* A program's cases, run: TEST_FILTER=PATTERN (a name, * a wildcard) runs only those that match. */
#define run_cases(tests) (cmocka_set_test_filter(getenv("TEST_FILTER")), cmocka_run_group_tests(tests, NULL, NULL))

/* A clock that returns scripted timestamps, and counts how often it was read. */
typedef struct {
    const uint64_t *t;
    size_t n, next;
} script_clock;

static inline uint64_t script_now(void *user)
{
    script_clock *s = (script_clock *)user;
    assert_true(s->next < s->n); /* a test read the clock more often than it scripted */
    return s->t[s->next++];
}

/* The setup most tests share: a collector with the default configuration (cfg NULL) or cfg, and its
   first phase; returns the phase. */
static inline int fixture(ttft_tpot *c, const ttft_tpot_config *cfg, const char *phase, ttft_tpot_role role)
{
    assert_int_equal(ttft_tpot_init(c, cfg), TTFT_TPOT_OK);
    return ttft_tpot_phase(c, phase, role);
}

/* record() (record_util.h) with a shape key, and with the prompt tokens a prefill processed (what
   replaced ttft_tpot_record_shape and ttft_tpot_record_prompt): EINVAL for c NULL, as record(). */
static inline int record_shape(ttft_tpot *c, int phase, uint64_t key, uint64_t ns, uint32_t tokens)
{
    return record_with(c, phase, ns, tokens, key, 0, 0);
}

static inline int record_prompt(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens, uint32_t prompt)
{
    return record_with(c, phase, ns, tokens, TTFT_TPOT_NO_SHAPE, 1, prompt);
}

/* c read through a model that computes nothing (the core's read API); free it. */
static inline ttft_tpot_model view(const ttft_tpot *c)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    o.skip = TTFT_TPOT_SKIP_ALL;
    assert_int_equal(ttft_tpot_model_compute(c, &o, &m), TTFT_TPOT_OK);
    return m;
}

/* What a test reads of a collector: the tools' counts where their header is in (test_tools_util.h),
   else the same fields from the core's model (requests: 0, as a core test has none). */
#ifdef TTFT_TPOT_TOOLS_H
typedef ttft_tpot_counts test_counts;
static inline test_counts counts(const ttft_tpot *c)
{
    return ttft_tpot_counts_of(c);
}
#else
typedef struct test_counts {
    size_t samples;
    unsigned phases, requests;
    uint64_t dropped, rejected, shapes_dropped, requests_dropped, requests_refused, events_lost;
    unsigned runs;
    uint64_t runs_dropped, outgrown;
    size_t device_intervals, device_open;
    uint64_t device_unresolved, device_refused, spans_open, sequences_lost, sequences_in_histogram;
    uint64_t spans_cancelled;
} test_counts;

static inline test_counts counts(const ttft_tpot *c)
{
    ttft_tpot_model m = view(c);
    test_counts k;
    memset(&k, 0, sizeof k);
    k.samples = m.n_samples, k.phases = m.phases, k.dropped = m.losses.dropped, k.rejected = m.losses.rejected;
    k.shapes_dropped = m.losses.shapes_dropped, k.requests_dropped = m.losses.layer.requests_dropped;
    k.requests_refused = m.losses.layer.requests_refused, k.events_lost = m.losses.layer.events_lost;
    k.runs = m.runs.n, k.runs_dropped = m.losses.runs_dropped, k.outgrown = m.losses.outgrown;
    k.device_intervals = m.n_intervals, k.device_open = (size_t)m.device.open;
    k.device_unresolved = m.device.unresolved, k.device_refused = m.device.refused;
    k.spans_open = m.losses.spans_open, k.sequences_lost = m.losses.sequences_lost;
    k.sequences_in_histogram = m.losses.sequences_in_histogram;
    k.spans_cancelled = m.losses.spans_cancelled;
    ttft_tpot_model_free(&m);
    return k;
}
#endif

/* Sample i, read through the core's model; and its start time (0: none) in *start. */
static inline ttft_tpot_sample sample_start(const ttft_tpot *c, size_t i, uint64_t *start)
{
    ttft_tpot_model m = view(c);
    ttft_tpot_sample s;
    assert_true(i < m.n_samples);
    s = m.samples[i];
    *start = m.starts ? m.starts[i] : 0;
    ttft_tpot_model_free(&m);
    return s;
}

static inline ttft_tpot_sample sample(const ttft_tpot *c, size_t i)
{
    uint64_t start;
    return sample_start(c, i, &start);
}

/* A phase's statistics, warmup included (its row), and its id by name (EPHASE: none). */
static inline int phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out)
{
    ttft_tpot_series s = TTFT_TPOT_ZERO;
    s.set = TTFT_TPOT_SET_PHASE + phase;
    s.warmup = 1;
    return ttft_tpot_series_stats(c, &s, out, NULL);
}

static inline int find_phase(const ttft_tpot *c, const char *name)
{
    ttft_tpot_model m = view(c);
    int id = TTFT_TPOT_EPHASE;
    unsigned p;
    for (p = 0; p < m.phases && id < 0; p++)
        if (strcmp(m.phase[p].name, name) == 0)
            id = (int)p;
    ttft_tpot_model_free(&m);
    return id;
}

/* The headline alone, as a report computes it. */
static inline ttft_tpot_summary headline(const ttft_tpot *c)
{
    ttft_tpot_model m;
    ttft_tpot_summary s;
    assert_int_equal(ttft_tpot_model_compute(c, NULL, &m), TTFT_TPOT_OK);
    s = m.head;
    ttft_tpot_model_free(&m);
    return s;
}

/* Everything written to f (a tmpfile, at its end), as a string to free(); f closed. */
static inline char *written(FILE *f)
{
    long len = ftell(f);
    char *buf;
    assert_true(len >= 0);
    rewind(f);
    buf = (char *)malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* Everything fn writes to a stream (report_json, say), as a string to free(). */
typedef int (*report_fn)(const ttft_tpot *, FILE *);

static inline char *capture(const ttft_tpot *c, report_fn fn)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fn(c, f), TTFT_TPOT_OK);
    return written(f);
}

static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    long len;
    char *buf;
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    buf = (char *)malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* The exit status of a shell command; the test fails when the command did not exit normally. */
static inline int shell(const char *cmd)
{
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st))
        fail_msg("did not exit normally: %s", cmd);
    return WEXITSTATUS(st);
}

/* A JSON file, parsed (and checked to be valid JSON). */
static inline void json_file(const char *path, jc_value *doc)
{
    char *text = slurp(path);
    if (jc_parse(text, doc) != 0)
        fail_msg("%s is not valid JSON: %.200s", path, text);
    free(text);
}

/* The collector's JSON report, parsed (and checked to be valid JSON). */
static inline void json_of(const ttft_tpot *c, jc_value *doc)
{
    char *text = capture(c, report_json);
    if (jc_parse(text, doc) != 0)
        fail_msg("report is not valid JSON: %s", text);
    free(text);
}

static inline double num_at(const jc_value *doc, const char *path)
{
    const jc_value *v = jc_get(doc, path);
    if (!v || v->type != JC_NUM)
        fail_msg("%s: not a number", path);
    return v->num;
}

static inline int is_null_at(const jc_value *doc, const char *path)
{
    const jc_value *v = jc_get(doc, path);
    return v && v->type == JC_NULL;
}

static inline int is_bool_at(const jc_value *doc, const char *path, int want)
{
    const jc_value *v = jc_get(doc, path);
    return v && v->type == JC_BOOL && (v->num != 0) == want;
}

/* The phase object of the report named name; fails the test when there is none. */
static inline const jc_value *phase_named(const jc_value *doc, const char *name)
{
    const jc_value *ph = jc_get(doc, "phases");
    size_t i;
    for (i = 0; ph && i < ph->n; i++) {
        const jc_value *nm = jc_get(&ph->items[i], "name");
        if (nm && nm->type == JC_STR && strcmp(nm->str, name) == 0)
            return &ph->items[i];
    }
    fail_msg("no phase named %s in the report", name);
    return NULL;
}

/* The JSON report and the text report of a and b are the same, byte for byte. */
static inline void same_reports(const ttft_tpot *a, const ttft_tpot *b)
{
    char *x = capture(a, report_json), *y = capture(b, report_json);
    assert_string_equal(x, y);
    free(x);
    free(y);
    x = capture(a, ttft_tpot_report);
    y = capture(b, ttft_tpot_report);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

/* Exact figures: the report prints ms to the nanosecond, so hand-computed values match to 1e-9. */
#define assert_ms(doc, path, want) assert_near(num_at((doc), (path)), (want), 1e-9)

/* cmocka's assert_float_equal rounds to float: this compares doubles. */
#define assert_near(got, want, tol)                                                                   \
    do {                                                                                              \
        double got_ = (got), want_ = (want);                                                          \
        if (!(fabs(got_ - want_) <= (tol)))                                                           \
            fail_msg("%s = %.17g, expected %.17g", #got, got_, want_);                                \
    } while (0)

#endif
