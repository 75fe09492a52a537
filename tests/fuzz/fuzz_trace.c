/* libFuzzer: the trace reader on any bytes. Properties, each an abort when broken:
   - a malformed trace is refused with "fuzz:LINE: ..." and leaves the collector as it was;
   - an error message holds no control byte (it escapes what it echoes);
   - an accepted trace writes back to a trace that reads into the same report, text and JSON, even
     when samples were dropped (the trace carries its counts, histograms and truncated requests);
   - every report is printed without error, and the JSON ones parse (no NaN, no bad escape).
   Each input goes to two collectors: one of fixed size that inputs fill, and one that grows. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include "fuzz_util.h"

static uint64_t zero_clock(void *user)
{
    (void)user;
    return 0;
}

/* A collector of fixed size, small enough that inputs fill it; or one that starts tinier and grows
   as a trace needs (config.grow), so that inputs reach grown storage and the hashed indexes. */
static void collector(ttft_tpot *c, int grow)
{
    ttft_tpot_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = grow ? 2 : 48;
    cfg.max_phases = grow ? 4096 : 6;
    cfg.timeline = 1;
    cfg.max_requests = grow ? 1 : 6;
    cfg.max_request_events = grow ? 2 : 24;
    cfg.hist_slots = grow ? 1 : 2; /* "# hist:" lines */
    cfg.grow = grow;
    cfg.clock = zero_clock;
    cfg.clock_name = "fuzz";
    CHECK(ttft_tpot_init(c, &cfg) == TTFT_TPOT_OK);
}

static void one_collector(const uint8_t *data, size_t size, int grow)
{
    ttft_tpot c, back;
    char err[256], *before, *after, *trace;
    size_t n0, i;
    unsigned p0;
    FILE *in;
    int rc;
    collector(&c, grow);
    ttft_tpot_record(&c, ttft_tpot_phase(&c, "live", TTFT_TPOT_ROLE_DECODE), 1000, 1);
    before = output(&c, ttft_tpot_report_json);
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
        after = output(&c, ttft_tpot_report_json);
        CHECK(strcmp(before, after) == 0);
        free(after);
    } else {
        /* write it back, read that: the same report */
        trace = output(&c, ttft_tpot_trace_write);
        collector(&back, grow);
        in = fmemopen(trace, strlen(trace), "rb");
        CHECK(in != NULL);
        CHECK(ttft_tpot_trace_read(&back, in, "back", err, sizeof err) == TTFT_TPOT_OK);
        fclose(in);
        same_reports(&c, &back);
        free(trace);
        ttft_tpot_free(&back);
        free(output(&c, ttft_tpot_report));
        valid_json(output(&c, ttft_tpot_report_json));
        valid_json(output(&c, ttft_tpot_chrome_trace));
    }
    free(before);
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
