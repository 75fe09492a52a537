/* The example backend computes what it claims: the blocked matrix product equals a plain one on odd
   shapes, and decoding with the KV cache gives the logits of a prefill over the whole sequence. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "kernels.h"

static uint64_t rng = 99;

static float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)(rng >> 40) / 8388608.0f - 1.0f;
}

static void blocked_matmul_matches_reference(void **state)
{
    static const int widths[] = {PANEL_PREFILL, PANEL_DECODE};
    static const int rows_[] = {1, 2, 3, 4, 5, 7, 9};
    static const int ns[] = {1, 15, 16, 17, 63, 65, 130};
    static const int ks[] = {1, 3, 33, 100};
    size_t a, r, n, k, i;
    (void)state;
    for (a = 0; a < 2; a++)
        for (r = 0; r < sizeof rows_ / sizeof *rows_; r++)
            for (n = 0; n < sizeof ns / sizeof *ns; n++)
                for (k = 0; k < sizeof ks / sizeof *ks; k++) {
                    int R = rows_[r], N = ns[n], K = ks[k];
                    float *x = malloc(sizeof(float) * (size_t)(R * K)), *w = malloc(sizeof(float) * (size_t)(N * K));
                    float *y = malloc(sizeof(float) * (size_t)(R * N)), *ref = malloc(sizeof(float) * (size_t)(R * N));
                    packed p;
                    assert_true(x && w && y && ref);
                    for (i = 0; i < (size_t)(R * K); i++)
                        x[i] = frand();
                    for (i = 0; i < (size_t)(N * K); i++)
                        w[i] = frand();
                    assert_int_equal(pack_weights(&p, w, N, K, widths[a]), 0);
                    matmul(x, K, R, &p, y, N);
                    matmul_ref(x, R, w, N, K, ref);
                    for (i = 0; i < (size_t)(R * N); i++)
                        if (fabsf(y[i] - ref[i]) > 1e-5f * (float)K)
                            fail_msg("nr %d rows %d n %d k %d: y[%zu] = %g, reference %g", widths[a], R, N, K, i,
                                     (double)y[i], (double)ref[i]);
                    packed_free(&p);
                    free(x);
                    free(w);
                    free(y);
                    free(ref);
                }
}

/* Largest |a - b| over largest |b|. */
static double rel_diff(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        num = fmax(num, fabs((double)a[i] - (double)b[i]));
        den = fmax(den, fabs((double)b[i]));
    }
    return den > 0 ? num / den : num;
}

/* Every layer, then the head, of the dispatch begun. */
static void finish(backend *b, float *logits)
{
    int l;
    for (l = 0; l < backend_cfg(b)->n_layers; l++)
        assert_int_equal(backend_layer(b, l), 0);
    assert_int_equal(backend_head(b, logits), 0);
}

/* Decode steps after a prompt of 3 against a fresh prefill over the same tokens, at every position. */
static void decode_matches_prefill(int batch, uint64_t seed)
{
    enum { PROMPT = 3, TOTAL = 12 };
    backend_config cfg = {64, 2, 4, 96, 101, TOTAL, 0, 0};
    backend *dec, *ref;
    char err[128];
    int tokens[8 * TOTAL], seq_tokens[8 * TOTAL], step[8], slots[8], s, t, i;
    float *ld, *lr;
    cfg.max_batch = batch;
    cfg.seed = seed;
    dec = backend_create(&cfg, err, sizeof err);
    ref = backend_create(&cfg, err, sizeof err);
    assert_true(dec && ref);
    ld = malloc(sizeof(float) * (size_t)(batch * cfg.vocab));
    lr = malloc(sizeof(float) * (size_t)(batch * cfg.vocab));
    assert_true(ld && lr);
    for (i = 0; i < batch * TOTAL; i++)
        tokens[i] = (int)((seed * 31 + (uint64_t)i * 17) % (uint64_t)cfg.vocab);
    for (s = 0; s < batch; s++) /* the slots in reverse: the slot a sequence sits in must not matter */
        slots[s] = batch - 1 - s;
    for (s = 0; s < batch; s++) /* the prompt, laid out [batch][PROMPT] */
        for (t = 0; t < PROMPT; t++)
            seq_tokens[s * PROMPT + t] = tokens[s * TOTAL + t];
    assert_int_equal(backend_prefill_begin(dec, batch, slots, seq_tokens, PROMPT), 0);
    finish(dec, ld);
    for (t = PROMPT; t <= TOTAL; t++) {
        /* reference: prefill over tokens 0..t-1 of every sequence */
        for (s = 0; s < batch; s++)
            for (i = 0; i < t; i++)
                seq_tokens[s * t + i] = tokens[s * TOTAL + i];
        assert_int_equal(backend_prefill_begin(ref, batch, slots, seq_tokens, t), 0);
        finish(ref, lr);
        if (rel_diff(ld, lr, (size_t)(batch * cfg.vocab)) > 1e-4)
            fail_msg("seed %llu batch %d: logits after %d tokens differ by %g relative", (unsigned long long)seed,
                     batch, t, rel_diff(ld, lr, (size_t)(batch * cfg.vocab)));
        if (t == TOTAL)
            break;
        for (s = 0; s < batch; s++)
            step[s] = tokens[s * TOTAL + t];
        assert_int_equal(backend_decode_begin(dec, batch, slots, step), 0);
        finish(dec, ld);
    }
    /* the cache is full: one more step is refused, not written past the end */
    assert_int_equal(backend_decode_begin(dec, batch, slots, step), -1);
    free(ld);
    free(lr);
    backend_destroy(dec);
    backend_destroy(ref);
}

static void kv_cache_decode_equals_full_prefill(void **state)
{
    static const int batches[] = {1, 2, 5};
    static const uint64_t seeds[] = {1, 42, 20261122};
    size_t b, s;
    (void)state;
    for (b = 0; b < 3; b++)
        for (s = 0; s < 3; s++)
            decode_matches_prefill(batches[b], seeds[s]);
}

static void bad_configurations_are_refused(void **state)
{
    backend_config cfg = {60, 1, 7, 16, 10, 8, 1, 1}; /* 60 is not a multiple of 7 */
    char err[128];
    (void)state;
    assert_null(backend_create(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "multiple of --heads"));
    cfg.n_heads = 4; /* head size 15: odd, rotary embedding needs pairs */
    assert_null(backend_create(&cfg, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocked_matmul_matches_reference),
        cmocka_unit_test(kv_cache_decode_equals_full_prefill),
        cmocka_unit_test(bad_configurations_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
