/* With TTFT_TPOT_NVTX, every timed span is one NVTX push (named by its phase, in the domain
   "ttft_tpot") and one pop, a cancel's too; records, inert spans and a disabled collector send none.
   Run with NVTX_INJECTION64_PATH set to tests/nvtx/inject.c's library and TTFT_TPOT_NVTX_LOG to a
   file: the program checks that file's lines against what it recorded. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include <stdlib.h>
#include <string.h>

static const char *const expected =
    "push ttft_tpot decode_step\n"
    "push ttft_tpot layer\n"
    "pop ttft_tpot\n"
    "push ttft_tpot layer\n"
    "pop ttft_tpot\n"
    "pop ttft_tpot\n"
    "push ttft_tpot prefill\n"
    "pop ttft_tpot\n" /* cancelled: popped, not recorded */
    "destroy ttft_tpot\n";

int main(void)
{
    ttft_tpot c;
    char got[1024];
    size_t n;
    int dec, layer, pre, k;
    const char *path = getenv("TTFT_TPOT_NVTX_LOG");
    FILE *f;
    if (!path || ttft_tpot_init(&c, NULL) != TTFT_TPOT_OK)
        return 2;
    dec = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    layer = ttft_tpot_phase(&c, "layer", TTFT_TPOT_ROLE_KERNEL);
    pre = ttft_tpot_phase(&c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    {
        TTFT_TPOT_SPAN_BEGIN(d, &c, dec);
        for (k = 0; k < 2; k++) {
            TTFT_TPOT_SPAN_BEGIN(l, &c, layer);
            TTFT_TPOT_SPAN_END(l);
        }
        TTFT_TPOT_SPAN_END(d);
    }
    {
        ttft_tpot_span p = ttft_tpot_span_begin(&c, pre);
        ttft_tpot_span_cancel(&p);
    }
    {
        ttft_tpot_span r = ttft_tpot_span_begin_at(&c, layer, 0); /* a duration measured elsewhere: no range */
        ttft_tpot_span_set_duration(&r, 1000);
        ttft_tpot_span_set_tokens(&r, 0);
        ttft_tpot_span_end(&r);
    }
    ttft_tpot_enable(&c, 0);
    {
        TTFT_TPOT_SPAN_BEGIN(off, &c, dec); /* inert: no range */
        TTFT_TPOT_SPAN_END(off);
    }
    ttft_tpot_free(&c);
    if (!(f = fopen(path, "r")))
        return 2;
    n = fread(got, 1, sizeof got - 1, f);
    got[n] = 0;
    fclose(f);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "NVTX calls:\n%s\nexpected:\n%s", got, expected);
        return 1;
    }
    printf("nvtx: every timed span one push (its phase's name, domain ttft_tpot) and one pop\n");
    return 0;
}
