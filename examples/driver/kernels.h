/* kernels.h - the math of the example backend: packed matrix products, RMSNorm, rotary embedding,
   causal attention over a KV cache, SwiGLU. Plain C, written so the compiler vectorises it. */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

/* A weight matrix W of N rows (outputs) by K columns (inputs), as a checkpoint stores it, repacked
   into panels of nr outputs: panel p holds, for k = 0..K-1, W[p*nr + j][k] for j = 0..nr-1
   (zero past N). A matrix product then streams each panel once, contiguously. */
typedef struct packed {
    float *data;
    int n, k, nr;
} packed;

/* Panel widths: 16 for prefill (a register tile of 4 tokens x 16 outputs), 64 for decode (few rows:
   wider panels, fewer passes over the activations). */
enum { PANEL_PREFILL = 16, PANEL_DECODE = 64 };

/* Pack w (n x k, row-major) with panel width nr. Returns 0, or -1 when out of memory. */
int pack_weights(packed *p, const float *w, int n, int k, int nr);
void packed_free(packed *p);
size_t packed_bytes(const packed *p);

/* y[m][0..n) = x[m][0..k) . W^T for m < rows; x has row stride ldx, y row stride ldy. Each output is
   summed over k in ascending order whatever the panel width, so prefill and decode agree. */
void matmul(const float *x, int ldx, int rows, const packed *w, float *y, int ldy);

/* The same product, naive: the reference the tests compare with. */
void matmul_ref(const float *x, int rows, const float *w, int n, int k, float *y);

void rmsnorm(float *out, const float *x, const float *weight, int dim);

/* Rotate q or k (n_heads heads of head_dim) in place for position pos; cs holds cos, sin pairs for
   this position, head_dim/2 of them. */
void rope(float *v, int n_heads, int head_dim, const float *cs);

/* Causal attention of one query q (all heads) at position pos over keys and values 0..pos of one
   sequence: kc / vc are [max_seq][dim]. scores needs pos+1 floats. */
void attention(float *out, const float *q, const float *kc, const float *vc, int pos, int n_heads,
               int head_dim, float *scores);

/* h[i] = silu(g[i]) * u[i] */
void swiglu(float *h, const float *g, const float *u, int n);

#endif
