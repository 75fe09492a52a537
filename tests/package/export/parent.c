/* A library of the parent project: it times its work with ttft_tpot. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

int parent_phases(void)
{
    ttft_tpot c;
    int n;
    if (ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return -1;
    n = ttft_tpot_phase(&c, "work", TTFT_TPOT_ROLE_KERNEL) + 1;
    ttft_tpot_free(&c);
    return n;
}
