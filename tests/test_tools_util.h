/* test_tools_util.h - the shared helpers of the tests of the serving layer and the tools: their
   headers, then test_util.h (its counts() then the tools'), traces read from text, the exposition. */
#ifndef TEST_TOOLS_UTIL_H
#define TEST_TOOLS_UTIL_H

#include "ttft_tpot_tools.h"
#include "test_util.h"

/* The Prometheus exposition of c's serving layer: its model's (ttft_tpot_model_prometheus). */
static inline int prometheus(const ttft_tpot *c, FILE *out, const char *prefix, const char *labels)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    int rc;
    o.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES;
    if (!c)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot_model_compute(c, &o, &m)) == TTFT_TPOT_OK)
        rc = ttft_tpot_model_prometheus(&m, out, prefix, labels);
    ttft_tpot_model_free(&m);
    return rc;
}

/* The Prometheus exposition with vLLM's names, as capture() takes a writer. */
static inline int prom_default(const ttft_tpot *c, FILE *out)
{
    return prometheus(c, out, NULL, NULL);
}
#define capture_prom(c) capture((c), prom_default)

/* promtool check metrics on standard input, into file OUT, less its one complaint about vLLM's own
   names that a prefix keeps: iteration_tokens_total is a histogram (vLLM's /metrics gets it too). A
   shell command; OUT is then empty where promtool had nothing else to say. */
#define PROMTOOL_CHECK(out)                                                                           \
    "promtool check metrics 2>&1 | grep -v 'iteration_tokens_total non-counter metrics should not have \"_total\" " \
    "suffix' > " out "; test ! -s " out

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

/* A collector made from cfg (NULL: defaults) with serving layer s made from scfg (NULL: defaults)
   attached, as a collector with requests (or one that reads request lines) needs; freed by unserve(),
   the layer first. */
static inline void served(ttft_tpot *c, ttft_tpot_serve *s, const ttft_tpot_config *cfg,
                          const ttft_tpot_serve_config *scfg)
{
    assert_int_equal(ttft_tpot_init(c, cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(s, c, scfg), TTFT_TPOT_OK);
}

static inline void unserve(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_serve_free(s);
    ttft_tpot_free(c);
}

/* a's trace, read into b: its reports equal a's (the read failing: its error and the trace). */
static inline void trace_read_into(const ttft_tpot *a, ttft_tpot *b)
{
    char err[256], *trace = capture(a, ttft_tpot_trace_write);
    if (trace_str(b, trace, "back", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s\n%s", err, trace);
    same_reports(a, b);
    free(trace);
}

/* a's trace, read into a new collector made from cfg: its reports equal a's. */
static inline void trace_keeps_the_report(const ttft_tpot *a, const ttft_tpot_config *cfg)
{
    ttft_tpot b;
    assert_int_equal(ttft_tpot_init(&b, cfg), TTFT_TPOT_OK);
    trace_read_into(a, &b);
    ttft_tpot_free(&b);
}

/* The same, the new collector with a serving layer made from scfg (served()), as a trace with request
   lines needs. */
static inline void trace_keeps_the_served_report(const ttft_tpot *a, const ttft_tpot_config *cfg,
                                                 const ttft_tpot_serve_config *scfg)
{
    ttft_tpot b;
    ttft_tpot_serve sb;
    served(&b, &sb, cfg, scfg);
    trace_read_into(a, &b);
    unserve(&b, &sb);
}

#endif
