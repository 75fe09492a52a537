/* The headers alone under the strictest flags CI builds them with (-std=c99/c11/c17, -Wconversion,
   -Wshadow, -Werror): declarations, the inline record path, and the implementation. It includes
   ttft_tpot_tools.h, which includes ttft_tpot_serve.h and ttft_tpot.h, so all three are built so;
   with STD_CHECK_CORE defined, ttft_tpot.h alone (as a driver builds it: without TTFT_TPOT_LAYERS). */
#define TTFT_TPOT_IMPLEMENTATION
#ifdef STD_CHECK_CORE
#include "ttft_tpot.h"
#else
#include "ttft_tpot_tools.h"
#endif

int main(void)
{
    ttft_tpot c;
    int k, rc;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return 1;
    k = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    {
        TTFT_TPOT_SPAN_BEGIN(s, &c, k);
        TTFT_TPOT_SPAN_END(s);
    }
    {
        TTFT_TPOT_SPAN_BEGIN(t, &c, k);
        TTFT_TPOT_SPAN_SET_TOKENS(t, 2);
        TTFT_TPOT_SPAN_SET_SHAPE(t, 1);
        TTFT_TPOT_SPAN_SET_DURATION(t, 5);
        TTFT_TPOT_SPAN_END(t);
    }
    TTFT_TPOT_TIME(&c, k, 2, (void)0);
    {
        ttft_tpot_span u = ttft_tpot_span_begin_at(&c, k, 0); /* a duration measured elsewhere */
        ttft_tpot_span_set_duration(&u, 1000);
        ttft_tpot_span_set_tokens(&u, 1);
        rc = ttft_tpot_span_end(&u);
    }
    ttft_tpot_free(&c);
    return rc == TTFT_TPOT_OK ? 0 : 1;
}
