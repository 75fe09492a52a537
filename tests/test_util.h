/* test_util.h - what every test program shares: a scripted clock, report capture, JSON checks. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "json_check.h"
#include "ttft_tpot_tools.h"

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

/* What a test reads of a collector, through its accessors. */
static inline ttft_tpot_counts counts(const ttft_tpot *c)
{
    return ttft_tpot_counts_of(c);
}

static inline ttft_tpot_sample sample(const ttft_tpot *c, size_t i)
{
    ttft_tpot_sample s;
    assert_int_equal(ttft_tpot_sample_at(c, i, &s, NULL), TTFT_TPOT_OK);
    return s;
}

/* Everything fn writes to a stream, as a string to free(). */
typedef int (*report_fn)(const ttft_tpot *, FILE *);

static inline char *capture(const ttft_tpot *c, report_fn fn)
{
    FILE *f = tmpfile();
    long len;
    char *buf;
    assert_non_null(f);
    assert_int_equal(fn(c, f), TTFT_TPOT_OK);
    len = ftell(f);
    assert_true(len >= 0);
    rewind(f);
    buf = (char *)malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* The Prometheus exposition with vLLM's names, as capture() takes a writer. */
static inline int prom_default(const ttft_tpot *c, FILE *out)
{
    return ttft_tpot_prometheus(c, out, NULL, NULL);
}
#define capture_prom(c) capture((c), prom_default)

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

/* Read len bytes of text as a trace named name into c. */
static inline int trace_text(ttft_tpot *c, const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    FILE *f = tmpfile();
    int rc;
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    rewind(f);
    rc = ttft_tpot_trace_read(c, f, name, err, errlen);
    fclose(f);
    return rc;
}

static inline int trace_str(ttft_tpot *c, const char *text, const char *name, char *err, size_t errlen)
{
    return trace_text(c, text, strlen(text), name, err, errlen);
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
    char *text = capture(c, ttft_tpot_report_json);
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
    char *x = capture(a, ttft_tpot_report_json), *y = capture(b, ttft_tpot_report_json);
    assert_string_equal(x, y);
    free(x);
    free(y);
    x = capture(a, ttft_tpot_report);
    y = capture(b, ttft_tpot_report);
    assert_string_equal(x, y);
    free(x);
    free(y);
}

/* Each of n traces is refused (EPARSE) with an error that names its line of "t.csv", lines[i], and
   what; the collector keeps its samples and device intervals. */
static inline void traces_refused(ttft_tpot *c, const char *const *bad, const unsigned *lines, size_t n,
                                  const char *what)
{
    size_t i, samples = counts(c).samples, intervals = counts(c).device_intervals;
    char err[256], at[32];
    for (i = 0; i < n; i++) {
        snprintf(at, sizeof at, "t.csv:%u: ", lines[i]);
        assert_int_equal(trace_str(c, bad[i], "t.csv", err, sizeof err), TTFT_TPOT_EPARSE);
        if (!strstr(err, at) || !strstr(err, what))
            fail_msg("case %u: %s", (unsigned)i, err);
        assert_int_equal(counts(c).samples, samples);
        assert_int_equal(counts(c).device_intervals, intervals);
    }
}

/* a's trace, read into a new collector made from cfg: its reports equal a's. */
static inline void trace_keeps_the_report(const ttft_tpot *a, const ttft_tpot_config *cfg)
{
    ttft_tpot b;
    char err[256], *trace = capture(a, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&b, cfg), TTFT_TPOT_OK);
    if (trace_str(&b, trace, "back", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s\n%s", err, trace);
    same_reports(a, &b);
    ttft_tpot_free(&b);
    free(trace);
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
