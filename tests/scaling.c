/* ttft_tpot_scaling - one writer (or compare, the shape table, or a phase's statistics) on an input of
   size N, for tests/scaling.sh, which counts its instructions with callgrind at N and 10 N: a cost that
   is not linear (or n log n) in its input fails there. The input grows every dimension a quadratic path has
   had: samples, phases, runs, requests that are all in flight at once (request lanes), and shape keys
   crafted to collide under an unkeyed hash.

   usage: ttft_tpot_scaling CASE N
   CASE: text json prometheus chrome trace_write trace_read html compare shapes phase_stats
   Only run_case is measured (callgrind --toggle-collect=run_case); the input is built outside it. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t no_clock(void *user)
{
    (void)user;
    return 0;
}

static void die(const char *what)
{
    fprintf(stderr, "ttft_tpot_scaling: %s\n", what);
    exit(1);
}

/* A sample of ns and its tokens (a prefill's prompt tokens, a shape key: 0 and TTFT_TPOT_NO_SHAPE for
   none), its duration measured elsewhere. */
static void record(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens, uint32_t prompt, uint64_t shape)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, tokens);
    if (prompt)
        ttft_tpot_span_set_prompt(&s, prompt);
    ttft_tpot_span_set_shape(&s, shape);
    (void)ttft_tpot_span_end(&s);
}

/* The JSON report, and the Prometheus exposition (of a model of the requests alone), of c. */
static void report_json(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    if (ttft_tpot_model_compute(c, NULL, &m) == TTFT_TPOT_OK)
        ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON);
    ttft_tpot_model_free(&m);
}

static void prometheus(const ttft_tpot *c, FILE *out, const char *prefix, const char *labels)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o;
    memset(&o, 0, sizeof o);
    o.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES;
    if (ttft_tpot_model_compute(c, &o, &m) == TTFT_TPOT_OK)
        ttft_tpot_model_prometheus(&m, out, prefix, labels);
    ttft_tpot_model_free(&m);
}

/* A driver's collector of size n: n decode steps, a kernel before each (n / 2 kernels in turn, two
   samples each: a phase row of --compare then costs no bootstrap, which would hide the rest), a prefill
   with prompt tokens every 50 steps, a run every n / 100 steps, and n requests submitted together and
   served over the run (srv, its serving layer, attached here). Lean on purpose: a quadratic path
   outweighs the linear work at a small n. */
static void build(ttft_tpot *c, ttft_tpot_serve *srv, size_t n, uint64_t seed)
{
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    unsigned kernels = (unsigned)(n / 2 + 1), k;
    int pre, dec, e2e, *kern = (int *)malloc(kernels * sizeof *kern);
    uint64_t t = 0, s = seed;
    size_t i;
    char name[32];
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 3 * n + 64;
    cfg.max_phases = kernels + 8;
    cfg.timeline = 1;
    cfg.clock = no_clock;
    cfg.clock_name = "scaling";
    memset(&sc, 0, sizeof sc);
    sc.max_requests = (unsigned)n;
    sc.max_request_events = 8 * n;
    if (!kern || ttft_tpot_init(c, &cfg) != TTFT_TPOT_OK || ttft_tpot_serve_attach(srv, c, &sc) != TTFT_TPOT_OK)
        die("out of memory");
    pre = ttft_tpot_phase(c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    e2e = ttft_tpot_phase(c, "generate", TTFT_TPOT_ROLE_E2E);
    for (k = 0; k < kernels; k++) {
        snprintf(name, sizeof name, "kernel_%u", k);
        kern[k] = ttft_tpot_phase(c, name, TTFT_TPOT_ROLE_KERNEL);
    }
    for (i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        if (i % (n / 100 + 1) == 0)
            ttft_tpot_run_begin(c);
        if (i % 50 == 0)
            record(c, pre, 1000000 + (s >> 44), 1, 64, TTFT_TPOT_NO_SHAPE);
        record(c, kern[i % kernels], 10000 + (s >> 50), 0, 0, TTFT_TPOT_NO_SHAPE);
        record(c, dec, 50000 + (s >> 48), 1, 0, TTFT_TPOT_NO_SHAPE);
        t += 60000;
    }
    record(c, e2e, t, (uint32_t)n, 0, TTFT_TPOT_NO_SHAPE);
    for (i = 0; i < n; i++) { /* all submitted at once: every request in flight, a lane each */
        snprintf(name, sizeof name, "r%zu", i);
        ttft_tpot_request_mark(srv, name, TTFT_TPOT_POINT_SUBMIT, i);
        ttft_tpot_request_mark(srv, name, TTFT_TPOT_POINT_SCHEDULE, n + i);
        for (k = 1; k <= 2; k++)
            ttft_tpot_request_tokens(srv, name, 2 * n + i + k * 1000 * n, 1);
    }
    free(kern);
}

/* Shape keys j << 48: they all fell in one slot of the unkeyed hash. */
static void shapes(size_t n)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    size_t j;
    int d;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_shapes = (unsigned)n;
    if (ttft_tpot_init(&c, &cfg) != TTFT_TPOT_OK)
        die("out of memory");
    d = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (j = 1; j <= n; j++)
        record(&c, d, 5, 1, 0, (uint64_t)j << 48);
    ttft_tpot_free(&c);
}

/* The case, measured: its output goes to out. */
__attribute__((noinline)) void run_case(const char *what, ttft_tpot *c, ttft_tpot *other, FILE *trace, size_t n,
                                        FILE *out);
__attribute__((noinline)) void run_case(const char *what, ttft_tpot *c, ttft_tpot *other, FILE *trace, size_t n,
                                        FILE *out)
{
    const ttft_tpot_model *two[2];
    ttft_tpot_model m[2];
    const char *names[2] = {"base", "new"};
    ttft_tpot_compare_options opt = ttft_tpot_compare_defaults();
    ttft_tpot_compare_result res;
    ttft_tpot_stats st;
    int models = strcmp(what, "html") == 0 ? 1 : strcmp(what, "compare") == 0 ? 2 : 0, k;
    for (k = 0; k < models; k++) /* the tools compute the models they read: counted with them */
        if (ttft_tpot_model_compute(k ? other : c, NULL, &m[k]) != TTFT_TPOT_OK)
            die("out of memory");
    two[0] = &m[0];
    two[1] = &m[1];
    if (strcmp(what, "text") == 0)
        ttft_tpot_report(c, out);
    else if (strcmp(what, "json") == 0)
        report_json(c, out);
    else if (strcmp(what, "prometheus") == 0)
        prometheus(c, out, "llm_", "model=\"m\"");
    else if (strcmp(what, "chrome") == 0)
        ttft_tpot_chrome_trace(c, out);
    else if (strcmp(what, "trace_write") == 0)
        ttft_tpot_trace_write(c, out);
    else if (strcmp(what, "trace_read") == 0)
        ttft_tpot_trace_read(other, trace, "scaling", NULL, 0);
    else if (strcmp(what, "html") == 0)
        ttft_tpot_html_report(out, two, names, 1, NULL);
    else if (strcmp(what, "compare") == 0 && ttft_tpot_compare_models(two[0], two[1], &opt, &res) == TTFT_TPOT_OK) {
        ttft_tpot_compare_text(out, &res);
        ttft_tpot_compare_free(&res);
    }
    else if (strcmp(what, "shapes") == 0)
        shapes(n);
    else if (strcmp(what, "phase_stats") == 0) /* the decode phase: a third of the store */
        ttft_tpot_phase_stats(c, ttft_tpot_find_phase(c, "decode_step"), &st);
    for (k = 0; k < models; k++)
        ttft_tpot_model_free(&m[k]);
}

int main(int argc, char **argv)
{
    static ttft_tpot_serve srv, srv_other; /* the collectors' serving layers */
    ttft_tpot c, other;
    ttft_tpot_config cfg;
    FILE *out = fopen("/dev/null", "w"), *trace = tmpfile();
    size_t n = argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 0;
    if (argc != 3 || n < 100 || !out || !trace)
        die("usage: ttft_tpot_scaling CASE N (N >= 100)");
    build(&c, &srv, n, 1);
    if (strcmp(argv[1], "trace_read") == 0) { /* the trace to read, and a collector that grows for it (its
                                                 serving layer's tables too, from none) */
        ttft_tpot_trace_write(&c, trace);
        rewind(trace);
        memset(&cfg, 0, sizeof cfg);
        cfg.grow = 1;
        cfg.max_phases = 65535;
        if (ttft_tpot_init(&other, &cfg) != TTFT_TPOT_OK ||
            ttft_tpot_serve_attach(&srv_other, &other, NULL) != TTFT_TPOT_OK)
            die("out of memory");
    } else {
        build(&other, &srv_other, n, 2);
    }
    run_case(argv[1], &c, &other, trace, n, out);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_serve_free(&srv_other);
    ttft_tpot_free(&c);
    ttft_tpot_free(&other);
    fclose(out);
    fclose(trace);
    return 0;
}
