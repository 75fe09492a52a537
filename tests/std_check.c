/* The header alone under the strictest flags CI builds it with (-std=c99/c11/c17, -Wconversion,
   -Wshadow, -Werror): declarations, the inline record path, and the implementation. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

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
    rc = ttft_tpot_record(&c, k, 1000, 1);
    ttft_tpot_free(&c);
    return rc == TTFT_TPOT_OK ? 0 : 1;
}
