/* driver.h - what the example driver's two modes share: its options, phases and state, and the
   dispatch of one batch through the backend's kernels. */
#ifndef DRIVER_H
#define DRIVER_H

#include "ttft_tpot_serve.h" /* it serves requests: the serving layer, and the core */

#include "backend.h"
#include "devq.h"

typedef struct options {
    int profile;
    const char *profile_json, *profile_html, *trace;
    long prompt_len, max_new_tokens, batch, warmup_runs, repeat_runs, threads;
    long dim, layers, heads, hidden, vocab;
    unsigned long long seed;
    long requests;       /* serving mode: requests to serve (0: the plain generation runs) */
    long capacity;       /* samples the collector keeps exactly (0: room for every one) */
    long max_requests;   /* requests the collector holds (0: all of requests); the finished fold away */
    long max_model_len;  /* the token histograms' last bound (0: every bound, to 5e9) */
    int buckets;         /* --buckets: the exposition's bounds (TTFT_TPOT_BUCKETS_*) */
    const char *request_log; /* serving: a CSV line a finished request, as it finishes */
    double arrival_rate; /* requests per second, Poisson arrivals (0: all at once) */
    const char *id_prefix; /* serving: request ids are this and a number ("req-": req-0, req-1, ...) */
    int async;           /* --async: the backend behind an asynchronous queue, device time from its events */
    int has_slo;
    ttft_tpot_slo slo;
    const char *prometheus;
    double prometheus_every; /* serving: publish --prometheus live every this many seconds (0: at the end) */
    const char *prom_prefix; /* --prometheus-prefix (NULL: vLLM's names) */
    char prom_labels[512];   /* the --label pairs, as the exposition writes them */
} options;

/* The phases the driver times. */
typedef struct phases {
    int generate, prefill, decode, prefill_layer, prefill_head, decode_layer, decode_head;
    int sync; /* --async: the wait for the device at the end of each step */
} phases;

typedef struct driver {
    options o;
    backend *b;
    ttft_tpot tp;
    ttft_tpot_serve srv; /* serving mode: tp's serving layer (its requests) */
    phases ph;
    int *prompt, *next, *slots; /* slots: 0..batch-1, the lockstep mode's */
    float *logits;
    devq *q;                  /* --async: the device the backend runs on */
    ttft_tpot_clock_pair pair; /* its clock against the host's, read after a full synchronize */
    int n, prefill;           /* the dispatch in flight: its sequences and kind ... */
    const int *cur_slots, *tokens; /* ... its slots and tokens, read by the device */
} driver;

/* The driver's random numbers: a 64-bit linear congruential generator (Knuth's MMIX constants), so
   prompts and arrivals are a function of --seed (the backend draws its weights itself). Returns the
   new state. */
static inline uint64_t driver_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state;
}

/* The requests the collector holds at once: --max-requests, or all of --requests. */
static inline unsigned driver_max_requests(const options *o)
{
    return (unsigned)(o->max_requests && o->max_requests < o->requests ? o->max_requests : o->requests);
}

/* ---- ../instrument.c ---- */

/* Register the driver's phases in g->tp (serving also names a row a batch size): 0, or nonzero when
   the collector is out of room. */
int register_phases(driver *g);

/* n prompt tokens drawn from seed, into dst. */
void make_prompt(const driver *g, uint64_t seed, int *dst, size_t n);

/* One timed dispatch of n sequences in slots: a prefill of the n prompts in g->prompt, or a decode
   step of tokens. A span of the prefill or decode phase with n as its shape key (a batch size not
   seen before is warmup) and n tokens wraps the dispatch, its kernels (each a kernel span) and
   greedy sampling into g->next[0..n). With g->q (--async) the kernels are launched on that device
   without waiting, each between two events; the step synchronizes at its end (a span of its own),
   then resolves its kernels' device time from the events. 0, or -1 when the backend fails. */
int dispatch(driver *g, int prefill, int n, const int *slots, const int *tokens);

/* ---- serve.c ---- */

/* Serving mode: o.requests requests arriving at o.arrival_rate, continuous batching over o.batch
   slots, each request's lifecycle recorded; with o.prometheus_every, the live exposition published to
   o.prometheus as it goes and at the end. 0, -1 when the backend fails or memory runs out, or -2 when
   a publication failed (after a message). */
int serve_requests(driver *g);

#endif
