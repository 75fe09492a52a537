#define TTFT_TPOT_IMPLEMENTATION
#include <ttft_tpot.h>
#include <ttft_tpot_tools.h> /* installed beside it with ttft_tpot_serve.h: a reader of traces includes it */

int main(void)
{
    ttft_tpot c;
    ttft_tpot_span s;
    int k, rc;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return 1;
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    s = ttft_tpot_span_begin_at(&c, k, 0);
    ttft_tpot_span_set_duration(&s, 1000);
    rc = ttft_tpot_span_end(&s);
    if (ttft_tpot_counts_of(&c).samples != 1)
        rc = TTFT_TPOT_EINVAL;
    ttft_tpot_free(&c);
    return rc == TTFT_TPOT_OK ? 0 : 1;
}
