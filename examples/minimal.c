/* minimal: the smallest real integration. A "model" of one weight matrix: prefill multiplies the
   prompt through it, each decode step multiplies one vector. The first call allocates and fills the
   weights, a one-time cost: one whole generation runs first inside a warmup section, then three
   measured runs, each reported and compared across. Run: minimal --profile */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include <stdlib.h>
#include <string.h>

enum { DIM = 512, PROMPT = 64, NEW_TOKENS = 32 };

static float *weights; /* allocated and filled on first use, like a device upload */

static float forward(const float *x)
{
    float acc = 0.0f;
    int i, j;
    if (!weights) {
        weights = (float *)malloc(sizeof(float) * DIM * DIM);
        for (i = 0; i < DIM * DIM; i++)
            weights[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
    }
    for (i = 0; i < DIM; i++) {
        float s = 0.0f;
        for (j = 0; j < DIM; j++)
            s += weights[i * DIM + j] * x[j];
        acc += s > 0 ? s : 0;
    }
    return acc;
}

/* One generation: a prefill over the prompt, then NEW_TOKENS decode steps. */
static float generate(ttft_tpot *tp, int pre, int dec, float *x)
{
    float sink = 0;
    int t;
    TTFT_TPOT_SPAN_BEGIN(p, tp, pre);
    for (t = 0; t < PROMPT; t++)
        sink += forward(x);
    TTFT_TPOT_SPAN_END(p);
    for (t = 0; t < NEW_TOKENS; t++) {
        TTFT_TPOT_SPAN_BEGIN(d, tp, dec);
        x[t % DIM] = sink * 1e-9f;
        sink += forward(x);
        TTFT_TPOT_SPAN_END(d);
    }
    return sink;
}

int main(int argc, char **argv)
{
    float x[DIM], sink = 0;
    ttft_tpot tp;
    int profile = argc > 1 && strcmp(argv[1], "--profile") == 0, pre, dec, run, i;

    if (ttft_tpot_init(&tp, NULL) != TTFT_TPOT_OK)
        return 1;
    ttft_tpot_enable(&tp, profile);
    pre = ttft_tpot_phase(&tp, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(&tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < DIM; i++)
        x[i] = (float)i / DIM;
    ttft_tpot_warmup_begin(&tp); /* the cold generation: all of it warmup */
    sink += generate(&tp, pre, dec, x);
    ttft_tpot_warmup_end(&tp);
    for (run = 0; run < 3; run++) { /* three measured runs */
        ttft_tpot_run_begin(&tp);
        sink += generate(&tp, pre, dec, x);
    }
    printf("checksum %g\n", (double)sink);
    if (profile)
        ttft_tpot_report(&tp, stdout);
    ttft_tpot_free(&tp);
    free(weights);
    return 0;
}
