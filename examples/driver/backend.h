/* backend.h - the example's stand-in for an accelerator: a llama-style decoder-only transformer in
   C (token embedding, RMSNorm, attention with rotary position embedding and a KV cache, SwiGLU MLP,
   output projection). A driver dispatches it the way it dispatches an NPU: begin a prefill or a
   decode step, run each layer's kernel, then the head.

   Like an accelerator, it has real one-time costs: the first dispatch of each kernel in each mode
   repacks that kernel's weights into the mode's blocked layout (prefill and decode use different
   panel widths, as an NPU compiles separate graphs), and buffers are allocated and first touched on
   their first use. */
#ifndef BACKEND_H
#define BACKEND_H

#include <stddef.h>
#include <stdint.h>

typedef struct backend_config {
    int dim, n_layers, n_heads, hidden, vocab;
    int max_seq;   /* positions a sequence may hold (prompt + new tokens) */
    int max_batch; /* sequences processed together */
    uint64_t seed; /* the weights are a deterministic function of the seed */
} backend_config;

typedef struct backend backend;

/* Validate cfg, generate the weights in checkpoint layout. NULL (with a message in err) on bad
   sizes or no memory. */
backend *backend_create(const backend_config *cfg, char *err, size_t errlen);
void backend_destroy(backend *b);

/* Dispatches. Each returns 0, or -1 when out of memory or past max_seq / max_batch. */

/* Start a prefill of n sequences of len tokens each (tokens[i*len + j]) into the given slots (0 to
   max_batch-1); each slot restarts at position 0. Embeds the prompts. */
int backend_prefill_begin(backend *b, int n, const int *slots, const int *tokens, int len);
/* Start a decode step: the next token of each of n slots, each at its own position. */
int backend_decode_begin(backend *b, int n, const int *slots, const int *tokens);
/* One transformer layer over the rows of the current dispatch. */
int backend_layer(backend *b, int layer);
/* Final norm and output projection of the last row of each sequence of the dispatch, in the order
   given: logits[i*vocab + v]. */
int backend_head(backend *b, float *logits);

/* Figures for the report. */
const backend_config *backend_cfg(const backend *b);
uint64_t backend_params(const backend *b);
double backend_prefill_flops(const backend *b, int batch, int len);
/* Bytes of weights one decode step streams (the decode-layout matrices, padding included). */
double backend_decode_weight_bytes(const backend *b);

#endif
