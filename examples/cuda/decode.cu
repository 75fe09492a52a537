// decode.cu - a small decode loop of real CUDA kernels, timed with ttft_tpot.h: host spans around
// asynchronous launches, device time from CUDA events resolved after each step's synchronize.
//
// Random weights, greedy sampling: embed a token, `layers` residual GEMV layers (x += tanh(W x)), the
// output projection, an argmax. Each kernel is launched between two events in a span marked for
// device time; the step ends with cudaStreamSynchronize (a span of its own: where the kernels' time
// lands on the host), then every kernel's ticket is resolved in one call from cudaEventElapsedTime.
// The prompt's kernels and a decode step's are phases of their own (prefill_layer, decode_layer, ...):
// a 32-row GEMM is never a decode kernel's sample. A first prefill, flagged warmup (module loading,
// first launches), runs before the measured one.
// --graph captures a step into a CUDA graph once and replays it: one host launch, one ticket for the
// whole graph, and the kernels' own events (recorded inside the graph) as its parts. --no-events
// launches without events: the host spans then show what the events cost. Needs a GPU to run.
//
//   cuda_decode [--steps N] [--layers N] [--dim N] [--vocab N] [--prompt N] [--graph] [--no-events]
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            fprintf(stderr, "cuda_decode: %s: %s\n", #call, cudaGetErrorString(e_));                  \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

// x[r] = embedding of tokens[r], for rows r < rows.
__global__ void embed(const float *E, const int *tokens, float *x, int rows, int dim)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (i < dim && r < rows)
        x[(size_t)r * dim + i] = E[(size_t)tokens[r] * dim + i];
}

// y[r][i] = x[r][i] + tanh(W[i] . x[r]) (residual) or W[i] . x[r] (residual 0): one warp a row of W.
__global__ void gemv(const float *W, const float *x, float *y, int n, int k, int residual)
{
    int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32, r = blockIdx.y;
    float s = 0;
    if (i >= n)
        return;
    for (int j = lane; j < k; j += 32)
        s += W[(size_t)i * k + j] * x[(size_t)r * k + j];
    for (int o = 16; o; o /= 2)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0)
        y[(size_t)r * n + i] = residual ? x[(size_t)r * k + i] + tanhf(s) : s;
}

// The argmax's block: a power of two, the size of its shared arrays.
#define ARGMAX_THREADS 256

// tokens[0] = argmax of the logits (the first index of the largest), one block of ARGMAX_THREADS: each
// thread scans a stride, then a tree reduction. A thread that saw no logit (n below the block) holds
// index -1 and never wins, so any n >= 1 works.
__global__ void argmax(const float *logits, int n, int *tokens)
{
    __shared__ float best[ARGMAX_THREADS];
    __shared__ int at[ARGMAX_THREADS];
    int t = threadIdx.x, b = -1;
    float v = 0;
    for (int i = t; i < n; i += ARGMAX_THREADS)
        if (b < 0 || logits[i] > v)
            v = logits[i], b = i;
    best[t] = v, at[t] = b;
    __syncthreads();
    for (int s = ARGMAX_THREADS / 2; s; s /= 2) {
        if (t < s && at[t + s] >= 0 &&
            (at[t] < 0 || best[t + s] > best[t] || (best[t + s] == best[t] && at[t + s] < at[t])))
            best[t] = best[t + s], at[t] = at[t + s];
        __syncthreads();
    }
    if (t == 0)
        tokens[0] = at[0] >= 0 ? at[0] : 0;
}

struct model {
    int layers, dim, vocab, max_rows;
    float *E, *W, *H, *x, *y, *logits; // device memory
    int *tokens;
};

// The kernel phases of one kind of pass: prefill (the prompt's rows) or decode (one row), each its own
// rows, so that a prefill GEMM is never a decode kernel's sample.
struct kernel_phases {
    int embed, layer, head, argmax, sync;
};

struct timed {
    ttft_tpot tp;
    int prefill, decode, graph;
    kernel_phases pre, dec;
    bool events, capturing;
    std::vector<cudaEvent_t> ev;  // two a kernel of a step, recorded on the stream
    std::vector<cudaEvent_t> gev; // two a kernel of the captured step, recorded by the graph's own nodes
    cudaEvent_t lev[2];           // around a launch of the graph
    std::vector<uint64_t> ticket;
};

// Record event i of a step's kernels. While the stream is captured a plain cudaEventRecord becomes no
// node of the graph (it only orders streams inside the capture), and cudaEventElapsedTime refuses such
// an event (cudaErrorCapturedEvent): cudaEventRecordExternal makes it an event record node that each
// launch of the graph records. That flag is invalid outside a capture, and the graph has events of its
// own, never recorded on the stream.
static void record(timed &t, size_t i, cudaStream_t st)
{
    if (t.capturing)
        CHECK(cudaEventRecordWithFlags(t.gev[i], st, cudaEventRecordExternal));
    else
        CHECK(cudaEventRecord(t.ev[i], st));
}

// Launch kernel k of a step between events 2k and 2k+1, in a span marked for device time.
template <typename F> static void launch(timed &t, int phase, size_t k, cudaStream_t st, F kernel)
{
    ttft_tpot_span s = ttft_tpot_span_begin(&t.tp, phase);
    if (t.events) {
        ttft_tpot_span_set_device(&s, 0);
        record(t, 2 * k, st);
    }
    kernel();
    if (t.events)
        record(t, 2 * k + 1, st);
    ttft_tpot_span_end(&s);
    t.ticket[k] = s.ticket;
    CHECK(cudaGetLastError()); // a launch that failed (a bad configuration) returns nothing else
}

// One pass over rows tokens (a prefill of the prompt, or one decode step): its kernels, launched, timed
// as the phases ph.
static size_t enqueue(timed &t, const model &m, int rows, const kernel_phases &ph, cudaStream_t st)
{
    size_t k = 0;
    dim3 grid((unsigned)((m.dim + 255) / 256), (unsigned)rows);
    launch(t, ph.embed, k++, st, [&] { embed<<<grid, 256, 0, st>>>(m.E, m.tokens, m.x, rows, m.dim); });
    for (int l = 0; l < m.layers; l++) {
        float *in = l % 2 ? m.y : m.x, *out = l % 2 ? m.x : m.y;
        dim3 g((unsigned)((m.dim + 7) / 8), (unsigned)rows);
        launch(t, ph.layer, k++, st, [&] {
            gemv<<<g, 256, 0, st>>>(m.W + (size_t)l * m.dim * m.dim, in, out, m.dim, m.dim, 1);
        });
    }
    float *last = (m.layers % 2 ? m.y : m.x) + (size_t)(rows - 1) * m.dim;
    launch(t, ph.head, k++, st, [&] {
        gemv<<<dim3((unsigned)((m.vocab + 7) / 8), 1), 256, 0, st>>>(m.H, last, m.logits, m.vocab, m.dim, 0);
    });
    launch(t, ph.argmax, k++, st, [&] { argmax<<<1, ARGMAX_THREADS, 0, st>>>(m.logits, m.vocab, m.tokens); });
    return k;
}

// After the step's synchronize: each ticket's device time from its events, in one call.
static void resolve(timed &t, size_t n)
{
    std::vector<ttft_tpot_device_stamp> st(n);
    for (size_t k = 0; k < n; k++) {
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, t.ev[2 * k], t.ev[2 * k + 1]));
        memset(&st[k], 0, sizeof st[k]);
        st[k].ticket = t.ticket[k];
        if (ttft_tpot_ms_to_ns(ms, &st[k].elapsed_ns) != TTFT_TPOT_OK)
            st[k].ticket = 0;
    }
    ttft_tpot_device_resolve(&t.tp, st.data(), n, NULL, NULL); // refusals are counted and reported
}

// The end of a pass: its token copied to the host behind the kernels (tok is pinned, so the copy is
// queued, not waited for), then the stream's synchronize in a span of its own (sync): where the
// kernels' time lands on the host. The events are complete after it.
static void finish(timed &t, int sync, const model &m, int *tok, cudaStream_t st)
{
    CHECK(cudaMemcpyAsync(tok, m.tokens, sizeof *tok, cudaMemcpyDeviceToHost, st));
    ttft_tpot_span y = ttft_tpot_span_begin(&t.tp, sync);
    CHECK(cudaStreamSynchronize(st));
    ttft_tpot_span_end(&y);
}

// One step of a captured graph: the graph launch between two events of its own (one ticket for the
// whole graph), its kernels' events recorded by the graph's nodes; after the synchronize, their
// elapsed times are the launch's parts, one a kernel, in the decode kernels' rows.
static void graph_step(timed &t, cudaGraphExec_t exec, size_t nk, const model &m, int *tok, cudaStream_t st)
{
    ttft_tpot_span s = ttft_tpot_span_begin(&t.tp, t.graph);
    ttft_tpot_span_set_device(&s, 0);
    CHECK(cudaEventRecord(t.lev[0], st));
    CHECK(cudaGraphLaunch(exec, st));
    CHECK(cudaEventRecord(t.lev[1], st));
    ttft_tpot_span_end(&s);
    uint64_t launch = s.ticket;
    finish(t, t.dec.sync, m, tok, st);
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t.lev[0], t.lev[1]));
    uint64_t ns = UINT64_MAX; // a time ms_to_ns refuses stays past the device's range: refused, and counted
    (void)ttft_tpot_ms_to_ns(ms, &ns);
    ttft_tpot_device_stamp whole = TTFT_TPOT_STAMP_ELAPSED(launch, ns);
    ttft_tpot_device_resolve(&t.tp, &whole, 1, NULL, NULL);
    for (size_t k = 0; k < nk; k++) {
        ttft_tpot_device_stamp part;
        memset(&part, 0, sizeof part);
        CHECK(cudaEventElapsedTime(&ms, t.gev[2 * k], t.gev[2 * k + 1]));
        if (ttft_tpot_ms_to_ns(ms, &part.elapsed_ns) == TTFT_TPOT_OK)
            ttft_tpot_device_part(&t.tp, launch, k == 0 ? t.dec.embed : k == nk - 1 ? t.dec.argmax
                                                   : k == nk - 2 ? t.dec.head : t.dec.layer, &part, NULL);
    }
}

static int phase(ttft_tpot *tp, const char *name, ttft_tpot_role role)
{
    int id = ttft_tpot_phase(tp, name, role);
    if (id < 0) {
        fprintf(stderr, "cuda_decode: phase %s: %s\n", name, ttft_tpot_strerror(id));
        exit(1);
    }
    return id;
}

// The kernel phases of a pass: "prefill_embed", "prefill_layer", ..., "decode_embed", ...
static kernel_phases kernels(ttft_tpot *tp, const char *pass)
{
    const char *name[5] = {"embed", "layer", "head", "argmax", "sync"};
    int id[5];
    for (int i = 0; i < 5; i++) {
        char full[TTFT_TPOT_NAME_MAX];
        snprintf(full, sizeof full, "%s_%s", pass, name[i]);
        id[i] = phase(tp, full, TTFT_TPOT_ROLE_KERNEL);
    }
    kernel_phases k = {id[0], id[1], id[2], id[3], id[4]};
    return k;
}

// n random weights in device memory, made on the host a chunk at a time (the device memory is
// allocated first: a size that does not fit fails there, with CUDA's message).
static float *random_weights(size_t n, unsigned seed)
{
    float *d;
    CHECK(cudaMalloc(&d, n * sizeof *d));
    std::vector<float> h(n < ((size_t)1 << 22) ? n : (size_t)1 << 22);
    for (size_t at = 0; at < n; at += h.size()) {
        size_t c = n - at < h.size() ? n - at : h.size();
        for (size_t i = 0; i < c; i++) {
            seed = seed * 1664525u + 1013904223u;
            h[i] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.05f;
        }
        CHECK(cudaMemcpy(d + at, h.data(), c * sizeof *d, cudaMemcpyHostToDevice));
    }
    return d;
}

int main(int argc, char **argv)
{
    int steps = 64, prompt = 32, use_graph = 0;
    model m = {8, 2048, 32000, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    timed t;
    t.events = true;
    t.capturing = false;
    for (int i = 1; i < argc; i++) {
        int *v = !strcmp(argv[i], "--steps") ? &steps : !strcmp(argv[i], "--layers") ? &m.layers
               : !strcmp(argv[i], "--dim") ? &m.dim : !strcmp(argv[i], "--vocab") ? &m.vocab
               : !strcmp(argv[i], "--prompt") ? &prompt : NULL;
        if (!strcmp(argv[i], "--graph"))
            use_graph = 1;
        else if (!strcmp(argv[i], "--no-events"))
            t.events = false;
        else if (v && i + 1 < argc && (*v = atoi(argv[++i])) > 0 && *v <= 1 << 20)
            continue;
        else {
            fprintf(stderr, "usage: cuda_decode [--steps N] [--layers N] [--dim N] [--vocab N] [--prompt N] "
                            "[--graph] [--no-events]\n");
            return 2;
        }
    }
    if (use_graph && !t.events) {
        fprintf(stderr, "cuda_decode: --graph times the graph with events: not with --no-events\n");
        return 2;
    }
    if (prompt > 65535) { // the prompt's rows are the kernels' grid.y
        fprintf(stderr, "cuda_decode: --prompt is at most 65535\n");
        return 2;
    }
    cudaDeviceProp prop; // the device first: without one, say so before anything else
    CHECK(cudaGetDeviceProperties(&prop, 0));
    m.max_rows = prompt;
    size_t nk = (size_t)m.layers + 3; // kernels a pass
    ttft_tpot_config cfg;
    memset(&cfg, 0, sizeof cfg);
    // a pass records its nk kernels, its sync and itself (a graph step: the launch, the sync, itself) and
    // resolves nk intervals (a graph step: the launch and its nk parts); two prefills, then the steps
    cfg.capacity = (size_t)(steps + 2) * (nk + 2);
    cfg.max_device = cfg.capacity;
    cfg.max_pending = nk + 1; // the tickets of one pass are open at once
    int err = ttft_tpot_init(&t.tp, &cfg);
    if (err != TTFT_TPOT_OK) {
        fprintf(stderr, "cuda_decode: a collector for %d steps of %d layers: %s\n", steps, m.layers,
                ttft_tpot_strerror(err));
        return 1;
    }
    t.prefill = phase(&t.tp, "prefill", TTFT_TPOT_ROLE_PREFILL);
    t.decode = phase(&t.tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
    t.pre = kernels(&t.tp, "prefill");
    t.dec = kernels(&t.tp, "decode");
    t.graph = use_graph ? phase(&t.tp, "decode_graph", TTFT_TPOT_ROLE_KERNEL) : -1;
    t.ev.resize(t.events ? 2 * nk : 0);
    t.gev.resize(use_graph ? 2 * nk : 0);
    t.ticket.resize(nk);
    // timing events (cudaEventDefault: not cudaEventDisableTiming), the graph's included
    for (auto &e : t.ev)
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));
    for (auto &e : t.gev)
        CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));
    for (int i = 0; i < 2 && use_graph; i++)
        CHECK(cudaEventCreateWithFlags(&t.lev[i], cudaEventDefault));
    m.E = random_weights((size_t)m.vocab * m.dim, 1);
    m.W = random_weights((size_t)m.layers * m.dim * m.dim, 2);
    m.H = random_weights((size_t)m.vocab * m.dim, 3);
    CHECK(cudaMalloc(&m.x, (size_t)m.max_rows * m.dim * sizeof(float)));
    CHECK(cudaMalloc(&m.y, (size_t)m.max_rows * m.dim * sizeof(float)));
    CHECK(cudaMalloc(&m.logits, (size_t)m.vocab * sizeof(float)));
    CHECK(cudaMalloc(&m.tokens, (size_t)m.max_rows * sizeof(int)));
    std::vector<int> toks((size_t)prompt);
    for (int i = 0; i < prompt; i++)
        toks[(size_t)i] = (i * 7919) % m.vocab;
    int *tok; // each pass's token, on the host
    CHECK(cudaMallocHost(&tok, sizeof *tok));
    *tok = 0;
    // A stream of its own, not synchronizing with the legacy default stream (which a capture must not
    // meet): every copy after the setup is queued on it.
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize()); // the weights' copies, on the default stream, are done

    // A warmup prefill (first launches, module loading), every sample of it flagged warmup, then the
    // measured one.
    for (int run = 0; run < 2; run++) {
        if (run == 0)
            ttft_tpot_warmup_begin(&t.tp);
        CHECK(cudaMemcpyAsync(m.tokens, toks.data(), toks.size() * sizeof(int), cudaMemcpyHostToDevice, st));
        CHECK(cudaStreamSynchronize(st)); // the prompt is on the device before the prefill's clock starts
        ttft_tpot_span p = ttft_tpot_span_begin(&t.tp, t.prefill);
        size_t n = enqueue(t, m, prompt, t.pre, st);
        finish(t, t.pre.sync, m, tok, st); // the first token, on the host
        if (t.events)
            resolve(t, n);
        ttft_tpot_span_set_prompt(&p, (uint32_t)prompt);
        ttft_tpot_span_end(&p);
        if (run == 0)
            ttft_tpot_warmup_end(&t.tp);
    }
    cudaGraphExec_t exec = NULL;
    if (use_graph) { // a decode step, captured once: its kernels, and their events as event record nodes
        cudaGraph_t g;
        ttft_tpot_enable(&t.tp, 0); // the capture runs nothing: no samples, no tickets
        t.capturing = true;
        CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
        enqueue(t, m, 1, t.dec, st);
        CHECK(cudaStreamEndCapture(st, &g));
        t.capturing = false;
        CHECK(cudaGraphInstantiate(&exec, g, 0));
        CHECK(cudaGraphDestroy(g)); // the executable graph needs it no more
        CHECK(cudaGraphUpload(exec, st));
        CHECK(cudaStreamSynchronize(st));
        ttft_tpot_enable(&t.tp, 1);
    }
    for (int s = 0; s < steps; s++) { // each step's token reaches the host within the step
        ttft_tpot_span d = ttft_tpot_span_begin(&t.tp, t.decode);
        if (exec) {
            graph_step(t, exec, nk, m, tok, st);
        } else {
            size_t n = enqueue(t, m, 1, t.dec, st);
            finish(t, t.dec.sync, m, tok, st);
            if (t.events)
                resolve(t, n);
        }
        ttft_tpot_span_end(&d);
    }
    printf("cuda_decode: %s, %d layers of %dx%d, vocab %d, prompt %d, %d steps%s%s; last token %d\n\n", prop.name,
           m.layers, m.dim, m.dim, m.vocab, prompt, steps, exec ? ", CUDA graph" : "", t.events ? "" : ", no events",
           *tok);
    int rc = ttft_tpot_report(&t.tp, stdout);
    ttft_tpot_free(&t.tp);

    if (exec)
        CHECK(cudaGraphExecDestroy(exec));
    for (auto e : t.ev)
        CHECK(cudaEventDestroy(e));
    for (auto e : t.gev)
        CHECK(cudaEventDestroy(e));
    for (int i = 0; i < 2 && use_graph; i++)
        CHECK(cudaEventDestroy(t.lev[i]));
    CHECK(cudaStreamDestroy(st));
    CHECK(cudaFreeHost(tok));
    float *dev[] = {m.E, m.W, m.H, m.x, m.y, m.logits};
    for (float *p : dev)
        CHECK(cudaFree(p));
    CHECK(cudaFree(m.tokens));
    return rc == TTFT_TPOT_OK ? 0 : 1;
}
