// The headers used from C++ through their declarations only (ttft_tpot_tools.h includes
// ttft_tpot_serve.h and ttft_tpot.h; the implementation of all three is in cxx_impl.cpp): a span, a
// device stamp, a served request, the headline, the counts and the requests' figures.
#include "ttft_tpot_tools.h"

#include <cstdio>

int main()
{
    ttft_tpot tp;
    if (ttft_tpot_init(&tp, NULL) != TTFT_TPOT_OK)
        return 1;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    sc.max_requests = 1;
    if (ttft_tpot_serve_attach(&srv, &tp, &sc) != TTFT_TPOT_OK) {
        ttft_tpot_free(&tp);
        return 1;
    }
    int dec = ttft_tpot_phase(&tp, "decode", TTFT_TPOT_ROLE_DECODE);
    for (int i = 0; i < 3; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, &tp, dec);
        TTFT_TPOT_SPAN_END(s);
    }
    ttft_tpot_device_stamp none = TTFT_TPOT_STAMP_ELAPSED(0, 5); // ticket 0: resolves to nothing
    int rc = ttft_tpot_device_resolve(&tp, &none, 1, NULL, NULL);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 0);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_request_tokens(&srv, "r", 10, 1);
    ttft_tpot_summary sum;
    ttft_tpot_requests q;
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_summarize(&tp, &sum);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_requests_summary(&srv, &q);
    bool ok = rc == TTFT_TPOT_OK && sum.tpot.n == 2 && sum.tpot_excluded == 1 && ttft_tpot_counts_of(&tp).samples == 3 &&
              ttft_tpot_counts_of(&tp).requests == 1 && q.n == 1 && q.metric[TTFT_TPOT_METRIC_TTFT].min_ns == 10;
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&tp);
    if (!ok)
        std::fprintf(stderr, "C++ use of ttft_tpot.h failed: rc %d\n", rc);
    return ok ? 0 : 1;
}
