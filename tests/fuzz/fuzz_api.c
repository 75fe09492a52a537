/* libFuzzer: any sequence of API calls, with odd arguments, then every report. The bytes choose the
   configuration, the calls, their arguments and what the clock says. Properties, each an abort when
   broken: no call crashes or returns an undocumented code, reports print, JSON parses, and the trace
   of any collector reads back into the same report, text and JSON (given the SLOs and the prefill
   kernel link, which a trace does not carry). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include "fuzz_util.h"

typedef struct {
    const uint8_t *p;
    size_t left;
} input;

static uint64_t take(input *in, unsigned bytes)
{
    uint64_t v = 0;
    while (bytes-- && in->left) {
        v = v << 8 | *in->p++;
        in->left--;
    }
    return v;
}

static uint64_t data_clock(void *user) /* the clock says what the input says */
{
    return take((input *)user, 3);
}

static void make(ttft_tpot *c, input *in, unsigned shape)
{
    ttft_tpot_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 1 + (shape & 31);
    cfg.max_phases = 1 + (shape >> 5 & 3);
    cfg.bounded = shape >> 7 & 1;
    cfg.hist_slots = shape >> 8 & 1 ? 1 : 0;
    cfg.timeline = shape >> 9 & 1;
    cfg.max_requests = shape >> 10 & 3;       /* 0 (none) to 3 requests */
    cfg.max_request_events = shape >> 12 & 7; /* 0: the default, 64 a request */
    cfg.max_shapes = 1 + (shape >> 15 & 1);
    cfg.clock = data_clock;
    cfg.clock_user = in;
    CHECK(ttft_tpot_init(c, &cfg) == TTFT_TPOT_OK);
}

static int known(int rc)
{
    return rc >= TTFT_TPOT_EREQUEST && rc <= TTFT_TPOT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    ttft_tpot c, other, back;
    ttft_tpot_span spans[4];
    ttft_tpot_summary s;
    ttft_tpot_stats st;
    char name[12], *trace;
    FILE *f;
    unsigned i;
    memset(spans, 0, sizeof spans);
    make(&c, &in, (unsigned)take(&in, 2));
    make(&other, &in, (unsigned)take(&in, 2));
    while (in.left) {
        unsigned op = (unsigned)take(&in, 1) % 19, slot = (unsigned)take(&in, 1);
        int phase = (int)(int8_t)take(&in, 1), rc = TTFT_TPOT_OK;
        ttft_tpot *t = slot & 0x80 ? &other : &c;
        switch (op) {
        case 0: {
            size_t len = (size_t)take(&in, 1) % sizeof name, k;
            for (k = 0; k < len; k++)
                name[k] = (char)take(&in, 1);
            name[len] = '\0';
            rc = ttft_tpot_phase(t, name, (ttft_tpot_role)(slot % 5));
            break;
        }
        case 1: rc = ttft_tpot_record(t, phase, take(&in, 8), (uint32_t)take(&in, 4)); break;
        case 2: {
            uint64_t bits = take(&in, 8);
            double ms;
            memcpy(&ms, &bits, sizeof ms); /* any double: NaN, inf, negative, subnormal */
            rc = ttft_tpot_record_ms(t, phase, ms, (uint32_t)take(&in, 1));
            break;
        }
        case 3: spans[slot % 4] = ttft_tpot_span_begin(t, phase); break;
        case 4: rc = ttft_tpot_span_end(&spans[slot % 4]); break;
        case 5: rc = ttft_tpot_span_end_tokens(&spans[slot % 4], (uint32_t)take(&in, 4)); break;
        case 6: rc = ttft_tpot_warmup_begin(t); break;
        case 7: rc = ttft_tpot_warmup_end(t); break;
        case 8: ttft_tpot_enable(t, slot & 1); break;
        case 9: ttft_tpot_clear(t); break;
        case 10: rc = ttft_tpot_link_prefill_kernel(t, phase); break;
        case 11: rc = ttft_tpot_phase_bounded(t, phase); break;
        case 12: rc = slot & 1 ? ttft_tpot_merge(&c, &other) : ttft_tpot_merge(&other, &c); break;
        case 13: name[0] = (char)('a' + slot % 3), name[1] = '\0';
            rc = ttft_tpot_request_submit_at(t, name, take(&in, 2));
            break;
        case 14: name[0] = (char)('a' + slot % 3), name[1] = '\0';
            rc = ttft_tpot_request_tokens_at(t, name, take(&in, 2), (uint32_t)take(&in, 1));
            break;
        case 15: {
            ttft_tpot_slo slo;
            slo.ttft_ms = (double)take(&in, 1) - 8;
            slo.tpot_ms = (double)take(&in, 1);
            slo.e2e_ms = (double)take(&in, 1);
            rc = ttft_tpot_set_slo(t, slo);
            break;
        }
        case 16: rc = ttft_tpot_record_shape(t, phase, take(&in, 1), take(&in, 2), 1); break;
        case 17: spans[slot % 4] = ttft_tpot_span_begin_shape(t, phase, take(&in, 1)); break;
        default: rc = ttft_tpot_phase_stats(t, phase, &st); break;
        }
        CHECK(known(rc) || rc >= 0);
    }
    CHECK(ttft_tpot_summarize(&c, &s) == TTFT_TPOT_OK);
    CHECK(s.tpot.n == 0 || s.tpot.p50_ns <= s.tpot.p99_ns * (1 + TTFT_TPOT_HIST_MAX_REL_ERR));
    for (i = 0; i < ttft_tpot_counts_of(&c).phases; i++)
        CHECK(ttft_tpot_phase_stats(&c, (int)i, &st) == TTFT_TPOT_OK && st.min_ns <= st.max_ns);
    free(output(&c, ttft_tpot_report));
    valid_json(output(&c, ttft_tpot_report_json));
    {
        ttft_tpot_requests q;
        char *buf = NULL;
        size_t len = 0;
        CHECK(ttft_tpot_requests_summary(&c, &q) == TTFT_TPOT_OK);
        CHECK(q.n + q.incomplete + q.warmup_excluded + q.truncated == q.seen);
        CHECK(!q.has_goodput || q.good_n <= q.n);
        f = open_memstream(&buf, &len);
        CHECK(f && ttft_tpot_prometheus(&c, f, NULL, "m=\"x\"") == TTFT_TPOT_OK);
        fclose(f);
        free(buf);
    }
    if (c.store.starts) /* made with config.timeline: white-box, the harness chose the configuration */
        valid_json(output(&c, ttft_tpot_chrome_trace));
    /* the trace of any collector reads back */
    trace = output(&c, ttft_tpot_trace_write);
    f = fmemopen(trace, strlen(trace), "rb");
    CHECK(f != NULL);
    {
        ttft_tpot_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.capacity = c.store.n ? c.store.n : 1;
        cfg.max_phases = c.phase.max;
        cfg.max_requests = c.req.max;
        cfg.max_request_events = c.req.max_events;
        cfg.hist_slots = c.hist.max;
        cfg.clock = data_clock; /* never read; named as c's clock is */
        cfg.clock_user = &in;
        CHECK(ttft_tpot_init(&back, &cfg) == TTFT_TPOT_OK);
    }
    CHECK(ttft_tpot_trace_read(&back, f, "back", NULL, 0) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_counts_of(&back).samples == ttft_tpot_counts_of(&c).samples);
    fclose(f);
    free(trace);
    back.slo = c.slo;
    if (c.prefill_kernel >= 0)
        ttft_tpot_link_prefill_kernel(&back, ttft_tpot_find_phase(&back, ttft_tpot_phase_name(&c, c.prefill_kernel)));
    same_reports(&c, &back);
    ttft_tpot_free(&back);
    ttft_tpot_free(&c);
    ttft_tpot_free(&other);
    return 0;
}
