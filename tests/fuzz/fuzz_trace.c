/* libFuzzer: the trace reader on any bytes, and every writer on what it reads. Properties, each an
   abort when broken:
   - a malformed trace (or one whose directives contradict its records) is refused with
     "fuzz:LINE: ..." and leaves the collector as it was;
   - an error message holds no control byte (it escapes what it echoes);
   - an accepted trace writes back to a trace that reads into the same report, text and JSON, and the
     same Chrome export, even when samples were dropped (the trace carries its counts, histograms,
     runs and truncated requests);
   - every report prints without error and the JSON ones parse (no NaN, no bad escape); the HTML
     report and the comparison (with --compare's statistics) of what was read print too.
   Each input goes to two collectors: one of fixed size that inputs fill, and one that grows; each has
   a serving layer, which a trace's request lines go to. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include "fuzz_util.h"

static uint64_t zero_clock(void *user)
{
    (void)user;
    return 0;
}

/* A collector of fixed size, small enough that inputs fill it; or one that starts tinier and grows
   as a trace needs (config.grow: its serving layer's tables too), so that inputs reach grown storage
   and the hashed indexes. s: its serving layer (free it before the collector). */
static void collector(ttft_tpot *c, ttft_tpot_serve *s, int grow)
{
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.capacity = grow ? 2 : 48;
    cfg.max_phases = grow ? 4096 : 6;
    cfg.timeline = 1;
    sc.max_requests = grow ? 1 : 6;
    sc.max_request_events = grow ? 2 : 24;
    cfg.hist_slots = grow ? 1 : 2; /* "# hist:" lines */
    cfg.grow = grow;
    cfg.clock = zero_clock;
    cfg.clock_name = "fuzz";
    CHECK(ttft_tpot_init(c, &cfg) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_serve_attach(s, c, &sc) == TTFT_TPOT_OK);
}

/* The HTML report of c, and of c against b, and their comparison as text and JSON: they print. */
static void tools_write(const ttft_tpot *c, const ttft_tpot *b)
{
    ttft_tpot_model m[2];
    const ttft_tpot_model *two[2];
    const char *names[2] = {"fuzz", "back"};
    ttft_tpot_compare_options opt = ttft_tpot_compare_defaults();
    ttft_tpot_compare_result res;
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    CHECK(ttft_tpot_model_compute(c, NULL, &m[0]) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_model_compute(b, NULL, &m[1]) == TTFT_TPOT_OK);
    two[0] = &m[0];
    two[1] = &m[1];
    CHECK(f != NULL);
    CHECK(ttft_tpot_html_report(f, two, names, 1, NULL) == 0);
    CHECK(ttft_tpot_html_report(f, two, names, 2, ttft_tpot_compare_html) == 0);
    CHECK(ttft_tpot_compare_models(two[0], two[1], &opt, &res) == TTFT_TPOT_OK);
    ttft_tpot_compare_text(f, &res);
    fclose(f);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    ttft_tpot_compare_json(f, &res);
    fclose(f);
    valid_json(buf);
    ttft_tpot_compare_free(&res);
    ttft_tpot_model_free(&m[0]);
    ttft_tpot_model_free(&m[1]);
}

/* An accepted trace: its write-back reads into the same reports and Chrome export; every writer. */
static void accepted(const ttft_tpot *c, int grow)
{
    ttft_tpot back;
    ttft_tpot_serve back_serve;
    char err[256], *trace = output(c, ttft_tpot_trace_write), *a, *b;
    int ra, rb;
    FILE *in = fmemopen(trace, strlen(trace), "rb");
    collector(&back, &back_serve, grow);
    CHECK(in != NULL);
    CHECK(ttft_tpot_trace_read(&back, in, "back", err, sizeof err) == TTFT_TPOT_OK);
    fclose(in);
    same_reports(c, &back);
    a = chrome_of(c, &ra);
    b = chrome_of(&back, &rb);
    CHECK(ra == rb && (ra == TTFT_TPOT_OK || ra == TTFT_TPOT_EINVAL)); /* EINVAL: samples all at start 0 */
    CHECK(strcmp(a, b) == 0);
    if (ra == TTFT_TPOT_OK)
        valid_json(a);
    else
        free(a);
    free(b);
    free(output(c, ttft_tpot_report));
    valid_json(output(c, report_json));
    tools_write(c, &back);
    free(trace);
    ttft_tpot_serve_free(&back_serve);
    ttft_tpot_free(&back);
}

static void one_collector(const uint8_t *data, size_t size, int grow)
{
    ttft_tpot c;
    ttft_tpot_serve s;
    char err[256], *before, *after;
    size_t n0, i;
    unsigned p0;
    FILE *in;
    int rc;
    collector(&c, &s, grow);
    record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 1000, 1);
    before = output(&c, report_json);
    n0 = ttft_tpot_counts_of(&c).samples;
    p0 = ttft_tpot_counts_of(&c).phases;
    in = fmemopen((void *)data, size, "rb");
    CHECK(in != NULL);
    rc = ttft_tpot_trace_read(&c, in, "fuzz", err, sizeof err);
    fclose(in);
    if (rc != TTFT_TPOT_OK) {
        CHECK(rc == TTFT_TPOT_EPARSE);
        CHECK(strncmp(err, "fuzz:", 5) == 0 && strstr(err + 5, ": ") != NULL);
        for (i = 0; err[i]; i++)
            CHECK((unsigned char)err[i] >= 0x20 && (unsigned char)err[i] != 0x7f);
        CHECK(ttft_tpot_counts_of(&c).samples == n0 && ttft_tpot_counts_of(&c).phases == p0);
        after = output(&c, report_json);
        CHECK(strcmp(before, after) == 0);
        free(after);
    } else {
        accepted(&c, grow);
    }
    free(before);
    ttft_tpot_serve_free(&s);
    ttft_tpot_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen wants a buffer */
    one_collector(data, size, 0);
    one_collector(data, size, 1);
    return 0;
}
