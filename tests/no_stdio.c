/* The header with TTFT_TPOT_NO_STDIO, as a host without stdio builds it: recording, statistics and
   requests work, and no FILE* writer or reader is compiled (CI checks the object file names no stdio
   function). Exits 0 when the figures are the hand-computed ones. */
#define TTFT_TPOT_NO_STDIO
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

int main(void)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_summary s;
    ttft_tpot_requests q;
    int d, ok;
    cfg.max_requests = 1;
    if (ttft_tpot_init(&c, &cfg) != TTFT_TPOT_OK)
        return 1;
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_record(&c, d, 90, 1); /* the first call: warmup */
    ttft_tpot_record(&c, d, 10, 1);
    ttft_tpot_record(&c, d, 30, 1);
    ttft_tpot_request_submit_at(&c, "r", 0);
    ttft_tpot_request_tokens_at(&c, "r", 50, 1);
    /* TPOT over 10 and 30 ns: p50 20; the request's TTFT 50 */
    ok = ttft_tpot_summarize(&c, &s) == TTFT_TPOT_OK && s.tpot.n == 2 && s.tpot.pct_ns[0] == 20 &&
         s.tpot_excluded == 1 && ttft_tpot_requests_summary(&c, &q) == TTFT_TPOT_OK && q.metric[TTFT_TPOT_METRIC_TTFT].min_ns == 50;
    ttft_tpot_free(&c);
    return ok ? 0 : 1;
}
