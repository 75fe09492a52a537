#define TTFT_TPOT_IMPLEMENTATION
#include <ttft_tpot.h>
#include <ttft_tpot_tools.h> /* installed beside it: a reader of traces includes it */

int main(void)
{
    ttft_tpot c;
    int k, rc;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return 1;
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    rc = ttft_tpot_record(&c, k, 1000, 0);
    if (ttft_tpot_counts_of(&c).samples != 1)
        rc = TTFT_TPOT_EINVAL;
    ttft_tpot_free(&c);
    return rc == TTFT_TPOT_OK ? 0 : 1;
}
