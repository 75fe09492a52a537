/* instrument.c - the instrumentation a driver copies: its phases registered once, and each dispatch
   wrapped in spans, the API call (prefill, decode step: what the caller waits for) around the
   kernels it launches (each layer, the head). Nothing here prints or parses: driver/generate.c is
   the command line, driver/serve.c the serving loop, driver/outputs.c the files. */
#include "driver/driver.h"

#include <stdio.h>
#include <string.h>

static int argmax(const float *v, int n)
{
    int i, best = 0;
    for (i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

/* The kernels of a dispatch of n sequences, keyed by n: serving names each key's shape, a row each. */
static int run_kernels(driver *g, int n, int layer_phase, int head_phase)
{
    int l, rc = 0, s, vocab = backend_cfg(g->b)->vocab;
    for (l = 0; l < (int)g->o.layers && rc == 0; l++) {
        TTFT_TPOT_SPAN_BEGIN(k, &g->tp, layer_phase);
        TTFT_TPOT_SPAN_SET_SHAPE(k, (uint64_t)n);
        rc = backend_layer(g->b, l);
        TTFT_TPOT_SPAN_END(k);
    }
    if (rc == 0) {
        TTFT_TPOT_SPAN_BEGIN(h, &g->tp, head_phase);
        TTFT_TPOT_SPAN_SET_SHAPE(h, (uint64_t)n);
        rc = backend_head(g->b, g->logits);
        TTFT_TPOT_SPAN_END(h);
    }
    for (s = 0; rc == 0 && s < n; s++) /* greedy sampling */
        g->next[s] = argmax(g->logits + (size_t)s * (size_t)vocab, vocab);
    return rc;
}

/* The device's kernels (devq_fn): the dispatch's begin, one layer, the head. */
static int k_begin(void *ctx, int arg)
{
    driver *g = (driver *)ctx;
    (void)arg;
    return g->prefill ? backend_prefill_begin(g->b, g->n, g->cur_slots, g->prompt, (int)g->o.prompt_len)
                      : backend_decode_begin(g->b, g->n, g->cur_slots, g->tokens);
}

static int k_layer(void *ctx, int layer)
{
    return backend_layer(((driver *)ctx)->b, layer);
}

static int k_head(void *ctx, int arg)
{
    (void)arg;
    return backend_head(((driver *)ctx)->b, ((driver *)ctx)->logits);
}

/* The kernels of a dispatch launched on g->q without waiting, each between two events, its span
   marked for device time (the span itself times only the enqueue); then the step's synchronize, and
   the device time of every kernel resolved in one call from its events. */
static int run_kernels_async(driver *g, int n, int layer_phase, int head_phase)
{
    enum { MAX_K = 257 }; /* --layers is at most 256, and the head */
    ttft_tpot_device_stamp st[MAX_K];
    unsigned ev[MAX_K][2];
    int k, rc, nk = (int)g->o.layers + 1, s, vocab = backend_cfg(g->b)->vocab;
    devq_launch(g->q, k_begin, g, 0);
    for (k = 0; k < nk; k++) {
        ttft_tpot_span sp = ttft_tpot_span_begin(&g->tp, k < nk - 1 ? layer_phase : head_phase);
        ttft_tpot_span_set_shape(&sp, (uint64_t)n);
        ttft_tpot_span_set_device(&sp, 0);
        ev[k][0] = devq_event(g->q);
        devq_launch(g->q, k < nk - 1 ? k_layer : k_head, g, k);
        ev[k][1] = devq_event(g->q);
        ttft_tpot_span_end(&sp);
        st[k].ticket = sp.ticket; /* the stamp's times once the device has run */
    }
    {
        TTFT_TPOT_SPAN_BEGIN(y, &g->tp, g->ph.sync); /* where the kernels' time lands on the host */
        rc = devq_sync(g->q);
        TTFT_TPOT_SPAN_END(y);
    }
    for (k = 0; k < nk; k++)
        st[k] = TTFT_TPOT_STAMP_ABSOLUTE(st[k].ticket, devq_event_time(g->q, ev[k][0]), devq_event_time(g->q, ev[k][1]));
    ttft_tpot_device_resolve(&g->tp, st, (size_t)nk, &g->pair, NULL); /* refusals are counted */
    for (s = 0; rc == 0 && s < n; s++)
        g->next[s] = argmax(g->logits + (size_t)s * (size_t)vocab, vocab);
    return rc;
}

int dispatch(driver *g, int prefill, int n, const int *slots, const int *tokens)
{
    const phases *p = &g->ph;
    int rc;
    TTFT_TPOT_SPAN_BEGIN(s, &g->tp, prefill ? p->prefill : p->decode);
    TTFT_TPOT_SPAN_SET_SHAPE(s, (uint64_t)n);
    if (g->q) {
        g->n = n, g->prefill = prefill, g->cur_slots = slots, g->tokens = tokens;
        rc = prefill ? run_kernels_async(g, n, p->prefill_layer, p->prefill_head)
                     : run_kernels_async(g, n, p->decode_layer, p->decode_head);
    } else {
        rc = prefill ? backend_prefill_begin(g->b, n, slots, g->prompt, (int)g->o.prompt_len)
                     : backend_decode_begin(g->b, n, slots, tokens);
        if (rc == 0)
            rc = prefill ? run_kernels(g, n, p->prefill_layer, p->prefill_head)
                         : run_kernels(g, n, p->decode_layer, p->decode_head);
    }
    TTFT_TPOT_SPAN_SET_TOKENS(s, (uint32_t)n); /* a token for each sequence */
    if (prefill) /* a prefill also says how many prompt tokens it read */
        TTFT_TPOT_SPAN_SET_PROMPT(s, (uint32_t)((long)n * g->o.prompt_len));
    TTFT_TPOT_SPAN_END(s);
    return rc;
}

void make_prompt(const driver *g, uint64_t seed, int *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = (int)((driver_rand(&seed) >> 33) % (uint64_t)g->o.vocab);
}

/* Serving dispatches every batch size: decode gets a row a batch size ("decode_step[b=4]"), and the
   kernels a row a matrix shape, rows x columns of their activations ("decode_layer[4x512]"). */
static int name_shapes(driver *g)
{
    const phases *p = &g->ph;
    char name[32];
    int n, bad = 0;
    for (n = 1; n <= (int)g->o.batch; n++) {
        snprintf(name, sizeof name, "b=%d", n);
        bad |= ttft_tpot_shape_row(&g->tp, p->decode, (uint64_t)n, name) < 0;
        snprintf(name, sizeof name, "%dx%ld", n, g->o.dim);
        bad |= ttft_tpot_shape_row(&g->tp, p->decode_layer, (uint64_t)n, name) < 0;
        snprintf(name, sizeof name, "%ldx%ld", (long)n * g->o.prompt_len, g->o.dim);
        bad |= ttft_tpot_shape_row(&g->tp, p->prefill_layer, (uint64_t)n, name) < 0;
        snprintf(name, sizeof name, "%dx%ld", n, g->o.vocab);
        bad |= ttft_tpot_shape_row(&g->tp, p->decode_head, (uint64_t)n, name) < 0;
        bad |= ttft_tpot_shape_row(&g->tp, p->prefill_head, (uint64_t)n, name) < 0;
    }
    return bad;
}

int register_phases(driver *g)
{
    phases *p = &g->ph;
    p->generate = ttft_tpot_phase(&g->tp, "generate", TTFT_TPOT_ROLE_E2E);
    p->prefill = ttft_tpot_phase(&g->tp, "prefill", TTFT_TPOT_ROLE_PREFILL);
    p->prefill_layer = ttft_tpot_phase(&g->tp, "prefill_layer", TTFT_TPOT_ROLE_KERNEL);
    p->prefill_head = ttft_tpot_phase(&g->tp, "prefill_head", TTFT_TPOT_ROLE_KERNEL);
    p->decode = ttft_tpot_phase(&g->tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
    p->decode_layer = ttft_tpot_phase(&g->tp, "decode_layer", TTFT_TPOT_ROLE_KERNEL);
    p->decode_head = ttft_tpot_phase(&g->tp, "decode_head", TTFT_TPOT_ROLE_KERNEL);
    p->sync = g->o.async ? ttft_tpot_phase(&g->tp, "sync", TTFT_TPOT_ROLE_KERNEL) : 0;
    return p->sync < 0 || p->generate < 0 || p->prefill < 0 || p->prefill_layer < 0 || p->prefill_head < 0 ||
           p->decode < 0 || p->decode_layer < 0 || p->decode_head < 0 || (g->o.requests && name_shapes(g));
}
