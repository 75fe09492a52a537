// The header used from C++ through its declarations only: a span, a report, a JSON report.
#include "ttft_tpot_tools.h"

#include <cstdio>

int main()
{
    ttft_tpot tp;
    if (ttft_tpot_init(&tp, NULL) != TTFT_TPOT_OK)
        return 1;
    int dec = ttft_tpot_phase(&tp, "decode", TTFT_TPOT_ROLE_DECODE);
    for (int i = 0; i < 3; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, &tp, dec);
        TTFT_TPOT_SPAN_END(s);
    }
    ttft_tpot_summary sum;
    int rc = ttft_tpot_summarize(&tp, &sum);
    bool ok = rc == TTFT_TPOT_OK && sum.tpot.n == 2 && sum.tpot_excluded == 1 && ttft_tpot_counts_of(&tp).samples == 3;
    ttft_tpot_free(&tp);
    if (!ok)
        std::fprintf(stderr, "C++ use of ttft_tpot.h failed: rc %d\n", rc);
    return ok ? 0 : 1;
}
