/* decode.c - a small decode loop of real OpenCL kernels, timed with ttft_tpot.h: host spans around
   asynchronous enqueues, device time from the queue's profiling stamps, resolved after each step's
   clFinish. On PoCL (OpenCL on the CPU) it runs anywhere: real queues, real profiling timestamps.

   A llama2.c-shaped decoder with random weights and greedy sampling: embed the tokens, then each layer
   rmsnorm, the q/k/v projection (k and v into a KV cache), causal attention, the output projection
   (residual), rmsnorm, the SwiGLU ffn and its down projection (residual); a final rmsnorm, the head and
   an argmax. The prompt runs as one batch (prefill), then one token a decode step. Every kernel is
   enqueued in a span marked for device time, its ticket kept with its cl_event; the step ends with
   clFinish (a span of its own: where the kernels' time lands on the host), then the step's tickets are
   resolved in one call from the events' profiling stamps. The prompt's kernels and a decode step's are
   phases of their own (prefill_qkv, decode_qkv, ...): a 16-row matmul is never a decode kernel's
   sample. A whole generation flagged warmup (program build, first enqueues) runs first, then --runs
   measured generations, each a run.

   --form absolute (the default) resolves each kernel with its QUEUED, START and END stamps on the
   device clock, mapped through a clock pair: the report then has, per phase, the queue delay (host
   issue to device start), split into launch overhead (issue to QUEUED) and queue wait (QUEUED to
   START). PoCL stamps its events with the host's CLOCK_MONOTONIC_RAW, not the collector's
   CLOCK_MONOTONIC (the two drift apart), so the pair is those two clocks read back to back
   (pair_read: the collector's clock around one device clock read), once a step, after its clFinish. --form elapsed resolves each kernel
   with END - START alone: the same device figures, no queue delay. --events FILE writes every kernel
   event with what an independent check needs (tests/opencl_check.py recomputes the report's device
   figures from it, to the nanosecond).

     opencl_decode [--steps N] [--runs N] [--layers N] [--dim N] [--heads N] [--hidden N] [--vocab N]
                   [--prompt N] [--platform N] [--form absolute|elapsed] [--profile] [--json FILE]
                   [--events FILE]

   Exit status: 0, 1 (no OpenCL platform or device, an OpenCL call failed, a file could not be
   written), 2 (usage). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h" /* ttft_tpot_device_at, for --events; the driver itself needs only ttft_tpot.h */

#define CL_TARGET_OPENCL_VERSION 120
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *cl_error_name(cl_int e)
{
    switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an OpenCL error";
    }
}

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        cl_int e_ = (call);                                                                           \
        if (e_ != CL_SUCCESS) {                                                                       \
            fprintf(stderr, "opencl_decode: %s: %d (%s)\n", #call, (int)e_, cl_error_name(e_));       \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

/* The kernels (OpenCL C 1.2). One work-item an output value, rows in dimension 1; HEAD_DIM comes from
   the build options. The source is a list of strings: C99 promises string literals of 4095 bytes. */
static const char *kernel_source[] = { /* not const: clCreateProgramWithSource takes const char ** */
    "__kernel void embed(__global const float *E, __global const int *tok, __global float *x, int dim)\n"
    "{\n"
    "    int i = get_global_id(0), r = get_global_id(1);\n"
    "    x[r * dim + i] = E[tok[r] * dim + i];\n"
    "}\n"
    "\n"
    "/* out[row0 + r] = x[row0 + r] / rms(x[row0 + r]) * w, one work-item a row */\n"
    "__kernel void rmsnorm(__global const float *x, __global const float *w, __global float *out, int dim, int row0)\n"
    "{\n"
    "    int r = row0 + get_global_id(0), i;\n"
    "    float ss = 0.0f;\n"
    "    for (i = 0; i < dim; i++)\n"
    "        ss += x[r * dim + i] * x[r * dim + i];\n"
    "    ss = rsqrt(ss / dim + 1e-5f);\n"
    "    for (i = 0; i < dim; i++)\n"
    "        out[r * dim + i] = x[r * dim + i] * ss * w[i];\n"
    "}\n"
    "\n"
    "/* q, k and v of row r at position pos0 + r: W is [3 dim][dim]; k and v go into the cache */\n"
    "__kernel void qkv(__global const float *W, __global const float *xb, __global float *q, __global float *kc,\n"
    "                  __global float *vc, int dim, int pos0)\n"
    "{\n"
    "    int o = get_global_id(0), r = get_global_id(1), j, i = o % dim;\n"
    "    float s = 0.0f;\n"
    "    for (j = 0; j < dim; j++)\n"
    "        s += W[o * dim + j] * xb[r * dim + j];\n"
    "    if (o < dim)\n"
    "        q[r * dim + i] = s;\n"
    "    else if (o < 2 * dim)\n"
    "        kc[(pos0 + r) * dim + i] = s;\n"
    "    else\n"
    "        vc[(pos0 + r) * dim + i] = s;\n"
    "}\n",
    "/* causal attention of head h for row r (position pos0 + r) over positions 0 .. pos0 + r: one pass,\n"
    "   a running max and sum (online softmax) */\n"
    "__kernel void attention(__global const float *q, __global const float *kc, __global const float *vc,\n"
    "                        __global float *out, int dim, int pos0)\n"
    "{\n"
    "    int h = get_global_id(0), r = get_global_id(1), t, d, at = r * dim + h * HEAD_DIM;\n"
    "    float acc[HEAD_DIM], m = -INFINITY, l = 0.0f, scale = rsqrt((float)HEAD_DIM);\n"
    "    for (d = 0; d < HEAD_DIM; d++)\n"
    "        acc[d] = 0.0f;\n"
    "    for (t = 0; t <= pos0 + r; t++) {\n"
    "        float s = 0.0f, mn, a, b;\n"
    "        for (d = 0; d < HEAD_DIM; d++)\n"
    "            s += q[at + d] * kc[t * dim + h * HEAD_DIM + d];\n"
    "        s *= scale;\n"
    "        mn = fmax(m, s);\n"
    "        a = exp(m - mn);\n"
    "        b = exp(s - mn);\n"
    "        l = l * a + b;\n"
    "        for (d = 0; d < HEAD_DIM; d++)\n"
    "            acc[d] = acc[d] * a + b * vc[t * dim + h * HEAD_DIM + d];\n"
    "        m = mn;\n"
    "    }\n"
    "    for (d = 0; d < HEAD_DIM; d++)\n"
    "        out[at + d] = acc[d] / l;\n"
    "}\n"
    "\n"
    "/* out[r][i] (+)= W[i] . in[in_row0 + r]: W is [n][k] */\n"
    "__kernel void matvec(__global const float *W, __global const float *in, __global float *out, int n, int k,\n"
    "                     int in_row0, int accumulate)\n"
    "{\n"
    "    int i = get_global_id(0), r = get_global_id(1), j;\n"
    "    float s = 0.0f;\n"
    "    for (j = 0; j < k; j++)\n"
    "        s += W[i * k + j] * in[(in_row0 + r) * k + j];\n"
    "    out[r * n + i] = accumulate ? out[r * n + i] + s : s;\n"
    "}\n"
    "\n"
    "/* hb[r][i] = silu(W1[i] . xb[r]) * (W3[i] . xb[r]) */\n"
    "__kernel void ffn(__global const float *W1, __global const float *W3, __global const float *xb,\n"
    "                  __global float *hb, int dim, int hidden)\n"
    "{\n"
    "    int i = get_global_id(0), r = get_global_id(1), j;\n"
    "    float a = 0.0f, b = 0.0f;\n"
    "    for (j = 0; j < dim; j++) {\n"
    "        a += W1[i * dim + j] * xb[r * dim + j];\n"
    "        b += W3[i * dim + j] * xb[r * dim + j];\n"
    "    }\n"
    "    hb[r * hidden + i] = a / (1.0f + exp(-a)) * b;\n"
    "}\n"
    "\n"
    "/* tok[0] = the first index of the largest logit: one work-item */\n"
    "__kernel void argmax(__global const float *logits, int n, __global int *tok)\n"
    "{\n"
    "    int i, best = 0;\n"
    "    for (i = 1; i < n; i++)\n"
    "        if (logits[i] > logits[best])\n"
    "            best = i;\n"
    "    tok[0] = best;\n"
    "}\n",
};

enum { K_EMBED, K_RMSNORM, K_QKV, K_ATTENTION, K_MATVEC, K_FFN, K_ARGMAX, K_COUNT };
static const char *const kernel_name[K_COUNT] = {"embed", "rmsnorm", "qkv", "attention", "matvec", "ffn", "argmax"};

/* The timed phases of one kind of pass (prefill: the prompt's rows; decode: one row), each its own. */
enum { P_EMBED, P_RMSNORM, P_QKV, P_ATTENTION, P_WO, P_FFN, P_DOWN, P_HEAD, P_ARGMAX, P_SYNC, P_COUNT };
static const char *const phase_suffix[P_COUNT] = {"embed", "rmsnorm", "qkv", "attention", "wo",
                                                  "ffn", "down", "head", "argmax", "sync"};

typedef struct layer {
    cl_mem rms_att, wqkv, wo, rms_ffn, w1, w3, w2, kc, vc;
} layer;

typedef struct model {
    int layers, dim, heads, hidden, vocab, prompt, steps;
    cl_mem E, rms_final, H, x, xb, q, att, hb, logits, tok;
    layer *l;
} model;

/* One kernel event as --events writes it: where it ran, its OpenCL stamps, the pair that mapped them. */
typedef struct kernel_event {
    int run, step, phase, warmup; /* run -1: the warmup generation; step -1: the prefill */
    size_t interval;              /* its device interval (ticket order) */
    cl_ulong queued, submit, start, end;
    ttft_tpot_clock_pair pair; /* absolute form: the pair its stamps were mapped with */
} kernel_event;

typedef struct driver {
    ttft_tpot tp;
    int absolute, prefill, decode, on;
    int pre[P_COUNT], dec[P_COUNT];
    cl_command_queue queue;
    cl_kernel k[K_COUNT];
    size_t nk;                 /* kernels a pass */
    cl_event *ev;              /* a pass's events */
    uint64_t *ticket;          /* and tickets */
    int *phase_of;             /* and phases (P_*) */
    ttft_tpot_device_stamp *stamp;
    kernel_event *log;         /* every kernel event, for --events */
    size_t logged, log_max, intervals;
    int run, step, warmup;
    int token;                 /* the last pass's token, read back */
} driver;

/* The clock PoCL stamps its events with (pocl_gettimemono_ns: CLOCK_MONOTONIC_RAW on Linux). */
static uint64_t read_monotonic_raw(void *user)
{
    struct timespec t;
    (void)user;
#ifdef CLOCK_MONOTONIC_RAW
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
#else
    clock_gettime(CLOCK_MONOTONIC, &t);
#endif
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void arg(cl_kernel k, cl_uint i, size_t size, const void *v)
{
    CHECK(clSetKernelArg(k, i, size, v));
}
#define ARG_MEM(k, i, m) arg((k), (i), sizeof(cl_mem), &(m))
#define ARG_INT(k, i, v)                                                                              \
    do {                                                                                              \
        cl_int v_ = (cl_int)(v);                                                                      \
        arg((k), (i), sizeof v_, &v_);                                                                \
    } while (0)

/* Enqueue kernel k over gx x gy work-items as kernel number at of the pass, in a span of phase marked
   for device time: its event and ticket kept. The span times the enqueue alone (the arguments are set
   before it). */
static void enqueue(driver *d, int phase, size_t at, cl_kernel k, size_t gx, size_t gy)
{
    size_t global[2];
    ttft_tpot_span s;
    global[0] = gx, global[1] = gy;
    s = ttft_tpot_span_begin(&d->tp, phase);
    ttft_tpot_span_set_device(&s, 0);
    CHECK(clEnqueueNDRangeKernel(d->queue, k, 2, NULL, global, NULL, 0, NULL, &d->ev[at]));
    ttft_tpot_span_end(&s);
    d->ticket[at] = s.ticket;
}

/* The collector's clock and the device's read together: the device's reading paired with the
   midpoint of two reads of the collector's around it (the recipe of ttft_tpot.h's Device time comment). */
static ttft_tpot_clock_pair pair_read(const ttft_tpot *c, uint64_t (*device_clock)(void *user), void *user)
{
    ttft_tpot_clock_pair pair;
    uint64_t h0 = ttft_tpot_clock_now(c), h1;
    pair.device_ns = device_clock(user);
    h1 = ttft_tpot_clock_now(c);
    pair.host_ns = h0 + (h1 > h0 ? (h1 - h0) / 2 : 0);
    return pair;
}

/* After the pass's clFinish: each kernel's stamps, resolved in one call, and logged for --events. */
static void resolve(driver *d, const int *ph, const int *phase_of, size_t n)
{
    ttft_tpot_clock_pair pair = {0, 0};
    size_t k, refused = 0;
    /* The pair, right after the clFinish: the collector's clock around one CLOCK_MONOTONIC_RAW read.
       Where the platform has clGetDeviceAndHostTimer(dev, &device_ts, &host_ts) (OpenCL 2.1; PoCL 3.1
       has not: its CL_PLATFORM_HOST_TIMER_RESOLUTION is 0), the runtime reads the two clocks together:
       pair.device_ns = device_ts, and pair.host_ns = host_ts where the runtime's host clock is the
       collector's (CLOCK_MONOTONIC; the runtime's documentation says which), else host_ts is one more
       device clock to pair with the collector's, as here. */
    if (d->absolute)
        pair = pair_read(&d->tp, read_monotonic_raw, NULL);
    for (k = 0; k < n; k++) {
        cl_ulong st[4];
        cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                     CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
        int i;
        for (i = 0; i < 4; i++)
            CHECK(clGetEventProfilingInfo(d->ev[k], what[i], sizeof st[i], &st[i], NULL));
        CHECK(clReleaseEvent(d->ev[k]));
        d->stamp[k] = d->absolute ? TTFT_TPOT_STAMP_QUEUED(d->ticket[k], (uint64_t)st[0], (uint64_t)st[2], (uint64_t)st[3])
                                  : TTFT_TPOT_STAMP_ELAPSED(d->ticket[k], (uint64_t)(st[3] - st[2]));
        if (d->ticket[k] && d->logged < d->log_max) { /* its interval: the next, in ticket order */
            kernel_event *e = &d->log[d->logged++];
            e->run = d->run, e->step = d->step, e->phase = ph[phase_of[k]], e->warmup = d->warmup;
            e->interval = d->intervals;
            e->queued = st[0], e->submit = st[1], e->start = st[2], e->end = st[3];
            e->pair = pair;
        }
        d->intervals += d->ticket[k] != 0;
    }
    if (ttft_tpot_device_resolve(&d->tp, d->stamp, n, d->absolute ? &pair : NULL, &refused) != TTFT_TPOT_OK)
        fprintf(stderr, "opencl_decode: %lu of %lu stamps refused (counted in the report)\n", (unsigned long)refused,
                (unsigned long)n);
}

/* One pass over rows tokens at positions pos0 ..: its kernels, timed as the phases ph; then the token
   read back, clFinish in a span of its own, and the stamps resolved. */
static void pass(driver *d, const model *m, int rows, int pos0, const int *ph)
{
    size_t at = 0, R = (size_t)rows;
    int *phase_of = d->phase_of, l, last = rows - 1;
    cl_kernel *k = d->k;
    ttft_tpot_span y;

#define RUN(P, K, GX, GY) (phase_of[at] = (P), enqueue(d, ph[P], at, k[K], (GX), (GY)), at++)
    ARG_MEM(k[K_EMBED], 0, m->E), ARG_MEM(k[K_EMBED], 1, m->tok), ARG_MEM(k[K_EMBED], 2, m->x);
    ARG_INT(k[K_EMBED], 3, m->dim);
    RUN(P_EMBED, K_EMBED, (size_t)m->dim, R);
    for (l = 0; l < m->layers; l++) {
        const layer *L = &m->l[l];
        ARG_MEM(k[K_RMSNORM], 0, m->x), ARG_MEM(k[K_RMSNORM], 1, L->rms_att), ARG_MEM(k[K_RMSNORM], 2, m->xb);
        ARG_INT(k[K_RMSNORM], 3, m->dim);
        ARG_INT(k[K_RMSNORM], 4, 0);
        RUN(P_RMSNORM, K_RMSNORM, R, 1);
        ARG_MEM(k[K_QKV], 0, L->wqkv), ARG_MEM(k[K_QKV], 1, m->xb), ARG_MEM(k[K_QKV], 2, m->q);
        ARG_MEM(k[K_QKV], 3, L->kc), ARG_MEM(k[K_QKV], 4, L->vc);
        ARG_INT(k[K_QKV], 5, m->dim);
        ARG_INT(k[K_QKV], 6, pos0);
        RUN(P_QKV, K_QKV, 3 * (size_t)m->dim, R);
        ARG_MEM(k[K_ATTENTION], 0, m->q), ARG_MEM(k[K_ATTENTION], 1, L->kc), ARG_MEM(k[K_ATTENTION], 2, L->vc);
        ARG_MEM(k[K_ATTENTION], 3, m->att);
        ARG_INT(k[K_ATTENTION], 4, m->dim);
        ARG_INT(k[K_ATTENTION], 5, pos0);
        RUN(P_ATTENTION, K_ATTENTION, (size_t)m->heads, R);
        ARG_MEM(k[K_MATVEC], 0, L->wo), ARG_MEM(k[K_MATVEC], 1, m->att), ARG_MEM(k[K_MATVEC], 2, m->x);
        ARG_INT(k[K_MATVEC], 3, m->dim);
        ARG_INT(k[K_MATVEC], 4, m->dim);
        ARG_INT(k[K_MATVEC], 5, 0);
        ARG_INT(k[K_MATVEC], 6, 1);
        RUN(P_WO, K_MATVEC, (size_t)m->dim, R);
        ARG_MEM(k[K_RMSNORM], 1, L->rms_ffn); /* the rest as above */
        RUN(P_RMSNORM, K_RMSNORM, R, 1);
        ARG_MEM(k[K_FFN], 0, L->w1), ARG_MEM(k[K_FFN], 1, L->w3), ARG_MEM(k[K_FFN], 2, m->xb);
        ARG_MEM(k[K_FFN], 3, m->hb);
        ARG_INT(k[K_FFN], 4, m->dim);
        ARG_INT(k[K_FFN], 5, m->hidden);
        RUN(P_FFN, K_FFN, (size_t)m->hidden, R);
        ARG_MEM(k[K_MATVEC], 0, L->w2), ARG_MEM(k[K_MATVEC], 1, m->hb), ARG_MEM(k[K_MATVEC], 2, m->x);
        ARG_INT(k[K_MATVEC], 3, m->dim);
        ARG_INT(k[K_MATVEC], 4, m->hidden);
        RUN(P_DOWN, K_MATVEC, (size_t)m->dim, R);
    }
    /* the last row alone: its final rmsnorm, the head, the argmax */
    ARG_MEM(k[K_RMSNORM], 0, m->x), ARG_MEM(k[K_RMSNORM], 1, m->rms_final), ARG_MEM(k[K_RMSNORM], 2, m->xb);
    ARG_INT(k[K_RMSNORM], 4, last);
    RUN(P_RMSNORM, K_RMSNORM, 1, 1);
    ARG_MEM(k[K_MATVEC], 0, m->H), ARG_MEM(k[K_MATVEC], 1, m->xb), ARG_MEM(k[K_MATVEC], 2, m->logits);
    ARG_INT(k[K_MATVEC], 3, m->vocab);
    ARG_INT(k[K_MATVEC], 4, m->dim);
    ARG_INT(k[K_MATVEC], 5, last);
    ARG_INT(k[K_MATVEC], 6, 0);
    RUN(P_HEAD, K_MATVEC, (size_t)m->vocab, 1);
    ARG_MEM(k[K_ARGMAX], 0, m->logits), ARG_MEM(k[K_ARGMAX], 2, m->tok);
    ARG_INT(k[K_ARGMAX], 1, m->vocab);
    RUN(P_ARGMAX, K_ARGMAX, 1, 1);
#undef RUN
    /* the token to the host behind the kernels (queued, not waited for), then the one wait a step */
    CHECK(clEnqueueReadBuffer(d->queue, m->tok, CL_FALSE, 0, sizeof d->token, &d->token, 0, NULL, NULL));
    y = ttft_tpot_span_begin(&d->tp, ph[P_SYNC]);
    CHECK(clFinish(d->queue));
    ttft_tpot_span_end(&y);
    resolve(d, ph, phase_of, at);
}

/* One generation: the prompt uploaded (before any clock starts), a prefill of it, then the steps. */
static void generate(driver *d, const model *m, const int *prompt)
{
    ttft_tpot_span p;
    int s;
    CHECK(clEnqueueWriteBuffer(d->queue, m->tok, CL_TRUE, 0, (size_t)m->prompt * sizeof *prompt, prompt, 0, NULL,
                               NULL));
    d->step = -1;
    p = ttft_tpot_span_begin(&d->tp, d->prefill);
    pass(d, m, m->prompt, 0, d->pre);
    ttft_tpot_span_set_tokens(&p, 1);
    ttft_tpot_span_set_prompt(&p, (uint32_t)m->prompt);
    ttft_tpot_span_end(&p);
    for (s = 0; s < m->steps; s++) {
        ttft_tpot_span t;
        d->step = s;
        t = ttft_tpot_span_begin(&d->tp, d->decode);
        pass(d, m, 1, m->prompt + s, d->dec);
        ttft_tpot_span_set_tokens(&t, 1);
        ttft_tpot_span_end(&t);
    }
}

static int phase(ttft_tpot *tp, const char *name, ttft_tpot_role role)
{
    int id = ttft_tpot_phase(tp, name, role);
    if (id < 0) {
        fprintf(stderr, "opencl_decode: phase %s: %s\n", name, ttft_tpot_strerror(id));
        exit(1);
    }
    return id;
}

/* n random weights (or n ones) in a device buffer. */
static cl_mem weights(cl_context ctx, size_t n, unsigned seed, int ones)
{
    float *h = (float *)malloc(n * sizeof *h);
    cl_mem b;
    cl_int e;
    size_t i;
    if (!h) {
        fprintf(stderr, "opencl_decode: out of memory for %lu weights\n", (unsigned long)n);
        exit(1);
    }
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        h[i] = ones ? 1.0f : ((float)(seed >> 8) / 16777216.0f - 0.5f) * 0.2f;
    }
    b = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *h, h, &e);
    free(h);
    CHECK(e);
    return b;
}

static cl_mem scratch(cl_context ctx, size_t bytes)
{
    cl_int e;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    CHECK(e);
    return b;
}

/* --events: one JSON object a line, every kernel event in enqueue order. issue_ns is the host issue the
   collector stored (the span's begin, its device interval's issue_ns); queued .. end are the event's
   OpenCL stamps (device clock); pair is the clock pair its stamps were mapped with (absolute form;
   null otherwise); lib is what the collector made of the stamp, for a check interval by interval. */
static int write_events(const driver *d, const char *path)
{
    FILE *f = fopen(path, "w");
    size_t i;
    int ok;
    if (!f) {
        fprintf(stderr, "opencl_decode: cannot write %s\n", path);
        return 0;
    }
    for (i = 0; i < d->logged; i++) {
        const kernel_event *e = &d->log[i];
        ttft_tpot_device_interval v;
        const char *name = ttft_tpot_phase_name(&d->tp, e->phase);
        if (!name || ttft_tpot_device_at(&d->tp, e->interval, &v) != TTFT_TPOT_OK || (int)v.phase != e->phase) {
            fprintf(stderr, "opencl_decode: kernel event %lu has no device interval of its phase\n", (unsigned long)i);
            fclose(f);
            return 0;
        }
        fprintf(f,
                "{\"run\":%d,\"step\":%d,\"phase\":\"%s\",\"warmup\":%s,\"form\":\"%s\",\"issue_ns\":%llu,"
                "\"queued\":%llu,\"submit\":%llu,\"start\":%llu,\"end\":%llu,",
                e->run, e->step, name, e->warmup ? "true" : "false", d->absolute ? "absolute" : "elapsed",
                (unsigned long long)v.issue_ns, (unsigned long long)e->queued, (unsigned long long)e->submit,
                (unsigned long long)e->start, (unsigned long long)e->end);
        if (d->absolute)
            fprintf(f, "\"pair\":{\"host_ns\":%llu,\"device_ns\":%llu},", (unsigned long long)e->pair.host_ns,
                    (unsigned long long)e->pair.device_ns);
        else
            fprintf(f, "\"pair\":null,");
        fprintf(f,
                "\"lib\":{\"state\":%u,\"warmup\":%s,\"device_ns\":%llu,\"begin_ns\":%llu,\"queued_ns\":%llu}}\n",
                (unsigned)v.state, v.warmup ? "true" : "false", (unsigned long long)v.device_ns,
                (unsigned long long)v.begin_ns, (unsigned long long)v.queued_ns);
    }
    ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        fprintf(stderr, "opencl_decode: writing %s failed\n", path);
        return 0;
    }
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: opencl_decode [--steps N] [--runs N] [--layers N] [--dim N] [--heads N] [--hidden N] "
                    "[--vocab N] [--prompt N] [--platform N] [--form absolute|elapsed] [--profile] [--json FILE] "
                    "[--events FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    model m;
    driver d;
    int runs = 3, platform_at = 0, profile = 0, i, r, rc = 0;
    const char *json = NULL, *events = NULL;
    cl_platform_id plats[16], plat;
    cl_uint nplat = 0, ndev = 0;
    cl_device_id dev;
    cl_device_type type;
    cl_context ctx;
    cl_program prog;
    cl_int e;
    char pname[256], dname[256], pversion[256], opts[64];
    int *prompt;
    ttft_tpot_config cfg;
    size_t passes, seq;

    memset(&m, 0, sizeof m);
    memset(&d, 0, sizeof d);
    m.layers = 2, m.dim = 64, m.heads = 4, m.hidden = 176, m.vocab = 512, m.prompt = 16, m.steps = 32;
    d.absolute = 1;
    for (i = 1; i < argc; i++) {
        int *v = !strcmp(argv[i], "--steps") ? &m.steps : !strcmp(argv[i], "--runs") ? &runs
               : !strcmp(argv[i], "--layers") ? &m.layers : !strcmp(argv[i], "--dim") ? &m.dim
               : !strcmp(argv[i], "--heads") ? &m.heads : !strcmp(argv[i], "--hidden") ? &m.hidden
               : !strcmp(argv[i], "--vocab") ? &m.vocab : !strcmp(argv[i], "--prompt") ? &m.prompt
               : !strcmp(argv[i], "--platform") ? &platform_at : NULL;
        if (!strcmp(argv[i], "--profile"))
            profile = 1;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--events") && i + 1 < argc)
            events = argv[++i];
        else if (!strcmp(argv[i], "--form") && i + 1 < argc && !strcmp(argv[i + 1], "absolute"))
            d.absolute = 1, i++;
        else if (!strcmp(argv[i], "--form") && i + 1 < argc && !strcmp(argv[i + 1], "elapsed"))
            d.absolute = 0, i++;
        else if (v && i + 1 < argc && (*v = atoi(argv[++i])) >= (v == &platform_at ? 0 : 1) && *v <= 1 << 16)
            continue;
        else
            return usage();
    }
    if (m.dim % m.heads || m.dim / m.heads > 256 || runs > 64 || m.layers > 64 ||
        (size_t)m.vocab * (size_t)m.dim >= (size_t)1 << 31 || (size_t)m.hidden * (size_t)m.dim >= (size_t)1 << 31 ||
        (size_t)(m.prompt + m.steps) * (size_t)m.dim >= (size_t)1 << 31) {
        fprintf(stderr, "opencl_decode: --dim must be a multiple of --heads with heads of at most 256; at most 64 "
                        "runs and 64 layers; every matrix under 2^31 values\n");
        return 2;
    }

    /* the platform and its device first: without one, say so before anything else */
    e = clGetPlatformIDs(16, plats, &nplat);
    if (e != CL_SUCCESS || nplat == 0) {
        fprintf(stderr, "opencl_decode: no OpenCL platform (clGetPlatformIDs: %d, %s): install one, e.g. PoCL "
                        "(Debian: pocl-opencl-icd)\n", (int)e, e == CL_SUCCESS ? "none" : cl_error_name(e));
        return 1;
    }
    if ((cl_uint)platform_at >= nplat) {
        fprintf(stderr, "opencl_decode: --platform %d: there are %u\n", platform_at, (unsigned)nplat);
        return 2;
    }
    plat = plats[platform_at];
    CHECK(clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL));
    CHECK(clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL));
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, &ndev);
    if (e != CL_SUCCESS || ndev == 0) {
        fprintf(stderr, "opencl_decode: platform %s has no device (%d: %s)\n", pname, (int)e, cl_error_name(e));
        return 1;
    }
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL));
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL));
    /* The absolute form needs the device clock's pair. PoCL's CPU device stamps with the host's
       CLOCK_MONOTONIC_RAW, which the host reads; another runtime's device clock is its own. */
    if (d.absolute && (!strstr(pversion, "PoCL") || !(type & CL_DEVICE_TYPE_CPU))) {
        fprintf(stderr, "opencl_decode: --form absolute maps PoCL's CPU stamps (CLOCK_MONOTONIC_RAW); %s (%s) "
                        "stamps on a clock of its own: use --form elapsed\n", pname, dname);
        return 1;
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e);
    d.queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &e); /* in order */
    CHECK(e);
    prog = clCreateProgramWithSource(ctx, (cl_uint)(sizeof kernel_source / sizeof *kernel_source), kernel_source,
                                     NULL, &e);
    CHECK(e);
    snprintf(opts, sizeof opts, "-DHEAD_DIM=%d", m.dim / m.heads);
    e = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    if (e != CL_SUCCESS) {
        static char build_log[16384];
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof build_log - 1, build_log, NULL);
        fprintf(stderr, "opencl_decode: building the kernels: %d (%s)\n%s\n", (int)e, cl_error_name(e), build_log);
        return 1;
    }
    for (i = 0; i < K_COUNT; i++) {
        d.k[i] = clCreateKernel(prog, kernel_name[i], &e);
        CHECK(e);
    }

    seq = (size_t)(m.prompt + m.steps);
    m.l = (layer *)calloc((size_t)m.layers, sizeof *m.l);
    prompt = (int *)malloc((size_t)m.prompt * sizeof *prompt);
    d.nk = 1 + 7 * (size_t)m.layers + 3;
    passes = (size_t)(runs + 1) * (size_t)(m.steps + 1);
    d.ev = (cl_event *)calloc(d.nk, sizeof *d.ev);
    d.ticket = (uint64_t *)calloc(d.nk, sizeof *d.ticket);
    d.stamp = (ttft_tpot_device_stamp *)calloc(d.nk, sizeof *d.stamp);
    d.phase_of = (int *)calloc(d.nk, sizeof *d.phase_of);
    d.log_max = events ? passes * d.nk : 0;
    d.log = (kernel_event *)calloc(d.log_max + 1, sizeof *d.log);
    if (!m.l || !prompt || !d.ev || !d.ticket || !d.stamp || !d.phase_of || !d.log) {
        fprintf(stderr, "opencl_decode: out of memory\n");
        return 1;
    }
    m.E = weights(ctx, (size_t)m.vocab * m.dim, 1, 0);
    for (i = 0; i < m.layers; i++) {
        layer *L = &m.l[i];
        unsigned s = 16u * (unsigned)i;
        L->rms_att = weights(ctx, (size_t)m.dim, 0, 1);
        L->wqkv = weights(ctx, 3 * (size_t)m.dim * m.dim, s + 2, 0);
        L->wo = weights(ctx, (size_t)m.dim * m.dim, s + 3, 0);
        L->rms_ffn = weights(ctx, (size_t)m.dim, 0, 1);
        L->w1 = weights(ctx, (size_t)m.hidden * m.dim, s + 4, 0);
        L->w3 = weights(ctx, (size_t)m.hidden * m.dim, s + 5, 0);
        L->w2 = weights(ctx, (size_t)m.dim * m.hidden, s + 6, 0);
        L->kc = scratch(ctx, seq * m.dim * sizeof(float));
        L->vc = scratch(ctx, seq * m.dim * sizeof(float));
    }
    m.rms_final = weights(ctx, (size_t)m.dim, 0, 1);
    m.H = weights(ctx, (size_t)m.vocab * m.dim, 7, 0);
    m.x = scratch(ctx, (size_t)m.prompt * m.dim * sizeof(float));
    m.xb = scratch(ctx, (size_t)m.prompt * m.dim * sizeof(float));
    m.q = scratch(ctx, (size_t)m.prompt * m.dim * sizeof(float));
    m.att = scratch(ctx, (size_t)m.prompt * m.dim * sizeof(float));
    m.hb = scratch(ctx, (size_t)m.prompt * m.hidden * sizeof(float));
    m.logits = scratch(ctx, (size_t)m.vocab * sizeof(float));
    m.tok = scratch(ctx, (size_t)m.prompt * sizeof(int));
    for (i = 0; i < m.prompt; i++)
        prompt[i] = (i * 7919) % m.vocab;

    /* A pass records its kernels, its sync and its step, and resolves its kernels; one pass's tickets are
       open at once. */
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = passes * (d.nk + 2);
    cfg.max_device = passes * d.nk;
    cfg.max_pending = d.nk;
    if ((e = ttft_tpot_init(&d.tp, &cfg)) != TTFT_TPOT_OK) {
        fprintf(stderr, "opencl_decode: a collector for %lu passes: %s\n", (unsigned long)passes, ttft_tpot_strerror(e));
        return 1;
    }
    d.on = profile || json || events;
    ttft_tpot_enable(&d.tp, d.on); /* off: a span is one branch, no ticket, nothing to resolve */
    d.prefill = phase(&d.tp, "prefill", TTFT_TPOT_ROLE_PREFILL);
    d.decode = phase(&d.tp, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < P_COUNT; i++) {
        char name[TTFT_TPOT_NAME_MAX];
        snprintf(name, sizeof name, "prefill_%s", phase_suffix[i]);
        d.pre[i] = phase(&d.tp, name, TTFT_TPOT_ROLE_KERNEL);
    }
    for (i = 0; i < P_COUNT; i++) {
        char name[TTFT_TPOT_NAME_MAX];
        snprintf(name, sizeof name, "decode_%s", phase_suffix[i]);
        d.dec[i] = phase(&d.tp, name, TTFT_TPOT_ROLE_KERNEL);
    }

    /* One whole generation first (the kernels' first enqueues compile them for their sizes), every
       sample of it warmup; then the measured runs. */
    d.run = -1, d.warmup = 1;
    ttft_tpot_warmup_begin(&d.tp);
    generate(&d, &m, prompt);
    ttft_tpot_warmup_end(&d.tp);
    d.warmup = 0;
    for (r = 0; r < runs; r++) {
        d.run = r;
        ttft_tpot_run_begin(&d.tp);
        generate(&d, &m, prompt);
    }

    printf("opencl_decode: %s, %s; %d layers of %d (%d heads, ffn %d), vocab %d, prompt %d, %d steps, %d runs "
           "after a warmup run, %s form; last token %d\n",
           pname, dname, m.layers, m.dim, m.heads, m.hidden, m.vocab, m.prompt, m.steps, runs,
           d.absolute ? "absolute" : "elapsed", d.token);
    if (profile) {
        putchar('\n');
        if (ttft_tpot_report(&d.tp, stdout) != TTFT_TPOT_OK)
            rc = 1;
    }
    if (json) {
        FILE *f = fopen(json, "w");
        ttft_tpot_model model;
        int w = f ? ttft_tpot_model_compute(&d.tp, NULL, &model) : TTFT_TPOT_EIO;
        if (f && w == TTFT_TPOT_OK) {
            w = ttft_tpot_model_write(&model, f, TTFT_TPOT_FORMAT_JSON);
            ttft_tpot_model_free(&model);
        }
        if (f && fclose(f) != 0)
            w = TTFT_TPOT_EIO;
        if (w != TTFT_TPOT_OK) {
            fprintf(stderr, "opencl_decode: writing %s failed\n", json);
            rc = 1;
        }
    }
    if (events && !write_events(&d, events))
        rc = 1;
    if (d.on && d.intervals != passes * d.nk) { /* a kernel without a ticket: the collector's room is wrong */
        fprintf(stderr, "opencl_decode: %lu of %lu kernels got a device ticket\n", (unsigned long)d.intervals,
                (unsigned long)(passes * d.nk));
        rc = 1;
    }
    ttft_tpot_free(&d.tp);

    for (i = 0; i < m.layers; i++) {
        const layer *L = &m.l[i];
        cl_mem b[] = {L->rms_att, L->wqkv, L->wo, L->rms_ffn, L->w1, L->w3, L->w2, L->kc, L->vc};
        for (r = 0; r < (int)(sizeof b / sizeof *b); r++)
            CHECK(clReleaseMemObject(b[r]));
    }
    {
        cl_mem b[] = {m.E, m.rms_final, m.H, m.x, m.xb, m.q, m.att, m.hb, m.logits, m.tok};
        for (i = 0; i < (int)(sizeof b / sizeof *b); i++)
            CHECK(clReleaseMemObject(b[i]));
    }
    for (i = 0; i < K_COUNT; i++)
        CHECK(clReleaseKernel(d.k[i]));
    CHECK(clReleaseProgram(prog));
    CHECK(clReleaseCommandQueue(d.queue));
    CHECK(clReleaseContext(ctx));
    free(m.l);
    free(prompt);
    free(d.ev);
    free(d.ticket);
    free(d.stamp);
    free(d.phase_of);
    free(d.log);
    return rc;
}
