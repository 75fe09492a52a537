/* The headers with TTFT_TPOT_NO_STDIO, as a host without stdio builds them: recording, statistics and
   requests (the serving layer, ttft_tpot_serve.h, which includes ttft_tpot.h) work, and no FILE* writer
   or reader is compiled (CI checks the object file names no stdio function). Exits 0 when the figures
   are the hand-computed ones. */
#define TTFT_TPOT_NO_STDIO
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_serve.h"

/* A sample of ns and its tokens, its duration measured elsewhere. */
static int record(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, tokens);
    return ttft_tpot_span_end(&s);
}

int main(void)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    ttft_tpot_model m;
    ttft_tpot_requests q;
    int d, ok;
    sc.max_requests = 1;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return 1;
    if (ttft_tpot_serve_attach(&srv, &c, &sc) != TTFT_TPOT_OK) {
        ttft_tpot_free(&c);
        return 1;
    }
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    record(&c, d, 90, 1); /* the first call: warmup */
    record(&c, d, 10, 1);
    record(&c, d, 30, 1);
    ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&srv, "r", 50, 1);
    /* TPOT over 10 and 30 ns: p50 20; the request's TTFT 50 (in the model's serving figures too) */
    ok = ttft_tpot_model_compute(&c, NULL, &m) == TTFT_TPOT_OK;
    ok = ok && m.head.tpot.n == 2 && m.head.tpot.pct_ns[0] == 20 && m.head.tpot_excluded == 1 &&
         ttft_tpot_serve_figures(&m) && ttft_tpot_serve_figures(&m)->requests.metric[TTFT_TPOT_METRIC_TTFT].min_ns == 50;
    ttft_tpot_model_free(&m);
    ok = ok && ttft_tpot_requests_summary(&srv, &q) == TTFT_TPOT_OK && q.metric[TTFT_TPOT_METRIC_TTFT].min_ns == 50;
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
    return ok ? 0 : 1;
}
