/* generate - a prefill/decode model driver instrumented with ttft_tpot.h: its command line and its
   plain generation runs.

   It dispatches the example backend (a small llama-style transformer, backend.h) the way a driver
   dispatches an accelerator; ../instrument.c wraps every dispatch in spans, serve.c serves requests,
   outputs.c writes the files. Run with --help. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h" /* its parser of --slo and the HTML page; the driver needs ttft_tpot_serve.h (driver.h) */
#include "driver.h"

#include "../report/cli.h"
#include "outputs.h"

#include <errno.h>
#include <getopt.h> /* getopt_long: glibc, musl, macOS and the BSDs */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Integer options: name, where, range. */
typedef struct int_opt {
    const char *name;
    size_t offset;
    long min, max;
    const char *help;
} int_opt;

static const int_opt int_opts[] = {
    {"--prompt-len", offsetof(options, prompt_len), 1, 4096, "prompt tokens per sequence (128)"},
    {"--max-new-tokens", offsetof(options, max_new_tokens), 1, 4096, "tokens generated per sequence (32)"},
    {"--batch", offsetof(options, batch), 1, 256, "sequences decoded together (1)"},
    {"--warmup-runs", offsetof(options, warmup_runs), 0, 100, "whole generations first, flagged warmup (0)"},
    {"--repeat-runs", offsetof(options, repeat_runs), 1, 1000, "measured generations (1; 5 or more a side let --compare decide)"},
    {"--threads", offsetof(options, threads), 1, 256, "threads for the matrix kernels (1; needs OpenMP)"},
    {"--dim", offsetof(options, dim), 8, 8192, "model width (512)"},
    {"--layers", offsetof(options, layers), 1, 256, "transformer layers (6)"},
    {"--heads", offsetof(options, heads), 1, 256, "attention heads (8)"},
    {"--hidden", offsetof(options, hidden), 1, 32768, "MLP width (1408)"},
    {"--vocab", offsetof(options, vocab), 2, 1000000, "vocabulary size (4096)"},
    {"--requests", offsetof(options, requests), 0, 1000000, "serve N requests, continuous batching (0: off)"},
    {"--capacity", offsetof(options, capacity), 0, 2000000000, "samples kept exactly (0: every sample)"},
    {"--max-requests", offsetof(options, max_requests), 0, 1000000,
     "requests the collector holds (0: all): a long run folds the finished ones away (counted)"},
    {"--max-model-len", offsetof(options, max_model_len), 0, 2000000000,
     "the model's length in tokens: the token histograms' last bound (0: 1, 2, 5, ... to 5e9)"},
};

static void usage(FILE *out)
{
    size_t i;
    fprintf(out, "usage: generate [options]\n"
                 "Runs a small transformer (about 25M parameters by default): prefill, then greedy decode,\n"
                 "printing token ids as they come. With --profile, prints TTFT / TPOT / throughput at exit.\n\n"
                 "  --profile               print the latency report at exit\n"
                 "  --profile-json FILE     write the JSON report (schema ttft_tpot/v1) to FILE\n"
                 "  --profile-html FILE     write the report as one self-contained HTML file (charts inline)\n"
                 "  --async                 run the backend behind an asynchronous queue (a device thread with\n"
                 "                          its own clock): launches return at once, each step synchronizes at\n"
                 "                          its end, and the report adds each kernel's device time\n"
                 "  --trace FILE            write every timed sample as a trace (format v1) to FILE\n"
                 "  --prometheus FILE       write the requests' metrics for Prometheus (node_exporter textfile)\n"
                 "  --prometheus-every S    serving: publish --prometheus FILE live every S seconds (atomically;\n"
                 "                          counters and histograms only grow), and once more at the end\n"
                 "  --arrival-rate R        serving: requests per second, Poisson arrivals (0: all at once)\n"
                 "  --id-prefix P           serving: request ids P0, P1, ... (req-): unique across replicas\n"
                 "  --slo LIST              serving: SLOs for goodput, ttft=MS,tpot=MS,e2e=MS (any of them)\n"
                 "  --prometheus-prefix P   metric names start with P, not vllm: or ttft_tpot: (promtool's lint wants no ':')\n"
                 "  --label K=V             a label on every series of --prometheus (repeatable)\n"
                 "  --model-name NAME       the label model_name=NAME on every series of --prometheus, which\n"
                 "                          vLLM's dashboards filter on (as --label model_name=NAME)\n"
                 "  --request-log FILE      serving: a CSV line a request as it finishes (id, submit_ns,\n"
                 "                          first_token_ns, last_token_ns, tokens: the collector's own)\n"
                 "  --buckets fine|vllm     the histograms' bounds: fine (vLLM's and the E12 series, quantiles\n"
                 "                          within 25%%) or vllm (vLLM's alone: fewer series)\n"
                 "  --seed N                weights and prompts are a function of N (1)\n");
    for (i = 0; i < sizeof int_opts / sizeof int_opts[0]; i++) {
        char flag[40];
        snprintf(flag, sizeof flag, "%s N", int_opts[i].name);
        fprintf(out, "  %-22s  %s\n", flag, int_opts[i].help);
    }
    fprintf(out, "  --help                  this text\n"
                 "  --version               the version\n"
                 "Options come in any order; --opt=VALUE and --opt VALUE are the same; -- ends the options.\n"
                 "Exit status: 0 done (--prometheus without a measured request: written empty, with a warning),\n"
                 "1 runtime failure, 2 bad usage.\n");
}

static int bad_usage(const char *fmt, const char *a, const char *b)
{
    char x[512], y[512];
    fprintf(stderr, "generate: ");
    fprintf(stderr, fmt, cli_escaped(x, sizeof x, a), cli_escaped(y, sizeof y, b));
    fprintf(stderr, " (try --help)\n");
    return 2;
}

enum { G_PROFILE = 256, G_JSON, G_TRACE, G_PROM, G_EVERY, G_ID, G_RATE, G_SLO, G_SEED, G_PREFIX, G_LABEL, G_VERSION, G_HTML,
       G_ASYNC, G_MODEL, G_BUCKETS, G_LOG, G_INT = 512 };

static const struct option fixed_opts[] = {
    {"profile", no_argument, NULL, G_PROFILE},          {"profile-json", required_argument, NULL, G_JSON},
    {"trace", required_argument, NULL, G_TRACE},        {"prometheus", required_argument, NULL, G_PROM},
    {"prometheus-every", required_argument, NULL, G_EVERY}, {"id-prefix", required_argument, NULL, G_ID},
    {"arrival-rate", required_argument, NULL, G_RATE},  {"slo", required_argument, NULL, G_SLO},
    {"seed", required_argument, NULL, G_SEED},          {"prometheus-prefix", required_argument, NULL, G_PREFIX},
    {"label", required_argument, NULL, G_LABEL},        {"version", no_argument, NULL, G_VERSION},
    {"profile-html", required_argument, NULL, G_HTML},  {"async", no_argument, NULL, G_ASYNC},
    {"model-name", required_argument, NULL, G_MODEL},   {"buckets", required_argument, NULL, G_BUCKETS},
    {"request-log", required_argument, NULL, G_LOG},
    {"help", no_argument, NULL, 'h'},
};
#define N_FIXED (sizeof fixed_opts / sizeof fixed_opts[0])
#define N_INT (sizeof int_opts / sizeof int_opts[0])

/* An integer option's value into o: 0, or 2 after the message. */
static int take_int(const int_opt *io, const char *val, options *o)
{
    char *end, x[512];
    long v;
    errno = 0;
    v = strtol(val, &end, 10);
    if (!*val || errno || *end || v < io->min || v > io->max) {
        fprintf(stderr, "generate: %s: expected an integer in %ld..%ld, got '%s' (try --help)\n", io->name, io->min,
                io->max, cli_escaped(x, sizeof x, val));
        return 2;
    }
    *(long *)(void *)((char *)o + io->offset) = v;
    return 0;
}

/* An option with a value (val: "" when it is missing) into o: 0, or 2 after the message. */
static int take_value(int opt, char *val, options *o)
{
    char *end;
    if (opt >= G_INT)
        return take_int(&int_opts[opt - G_INT], val, o);
    switch (opt) {
    case G_JSON:
    case G_TRACE:
    case G_PROM:
    case G_HTML:
    case G_LOG:
        if (!*val)
            return bad_usage("%s needs a file name%s", opt == G_JSON ? "--profile-json" : opt == G_TRACE ? "--trace"
                                                       : opt == G_PROM ? "--prometheus" : opt == G_LOG ? "--request-log"
                                                       : "--profile-html", "");
        *(opt == G_JSON ? &o->profile_json : opt == G_TRACE ? &o->trace : opt == G_PROM ? &o->prometheus
                                                             : opt == G_LOG ? &o->request_log : &o->profile_html) = val;
        return 0;
    case G_ID: /* with the number, a valid id (63 bytes at most) that needs no quoting in a trace */
        if (!*val || strlen(val) > 40 || val[strspn(val, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_.:-")])
            return bad_usage("--id-prefix: expected 1 to 40 of A-Z a-z 0-9 _ . : -, got '%s'%s", val, "");
        o->id_prefix = val;
        return 0;
    case G_EVERY:
        if (cli_decimal(val, &o->prometheus_every) != 0 || !(o->prometheus_every > 0 && o->prometheus_every <= 86400))
            return bad_usage("--prometheus-every: expected seconds above 0, up to 86400, got '%s'%s", val, "");
        return 0;
    case G_RATE:
        if (cli_decimal(val, &o->arrival_rate) != 0 || !(o->arrival_rate >= 0 && o->arrival_rate <= 1e6))
            return bad_usage("--arrival-rate: expected requests per second in 0..1e6, got '%s'%s", val, "");
        return 0;
    case G_SLO:
        if (ttft_tpot_slo_parse(val, &o->slo) != TTFT_TPOT_OK)
            return bad_usage("--slo: expected ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), got '%s'%s", val, "");
        o->has_slo = 1;
        return 0;
    case G_SEED:
        errno = 0;
        if (!*val || *val == '-' || (o->seed = strtoull(val, &end, 10), errno) || *end)
            return bad_usage("--seed: expected an unsigned integer, got '%s'%s", val, "");
        return 0;
    case G_PREFIX:
        o->prom_prefix = val;
        return 0;
    case G_BUCKETS:
        if (strcmp(val, "fine") != 0 && strcmp(val, "vllm") != 0)
            return bad_usage("--buckets: expected fine or vllm, got '%s'%s", val, "");
        o->buckets = strcmp(val, "vllm") == 0 ? TTFT_TPOT_BUCKETS_VLLM : TTFT_TPOT_BUCKETS_FINE;
        return 0;
    default: { /* G_LABEL, and G_MODEL: the label model_name */
        char why[1200], pair[600];
        int rc;
        if (opt == G_MODEL && snprintf(pair, sizeof pair, "model_name=%s", val) >= (int)sizeof pair)
            return bad_usage("--model-name: at most 500 bytes, got '%s'%s", val, "");
        rc = cli_add_label(o->prom_labels, sizeof o->prom_labels, opt == G_MODEL ? pair : val);
        if (rc == CLI_LABEL_SYNTAX)
            return bad_usage("--label: expected NAME=VALUE, 500 bytes of labels at most, got '%s'%s", val, "");
        return rc == CLI_LABEL_OK ? 0 : bad_usage("%s%s", cli_label_why(why, sizeof why, rc, val), "");
    }
    }
}

/* Whether the library takes o's prefix and labels: it checks them before it writes a byte. */
static int prometheus_names_ok(const options *o)
{
    ttft_tpot c;
    ttft_tpot_serve s;
    ttft_tpot_model m;
    FILE *f = fopen("/dev/null", "w");
    int rc = TTFT_TPOT_ENOMEM;
    if (f && ttft_tpot_init(&c, NULL) == TTFT_TPOT_OK) {
        if (ttft_tpot_serve_attach(&s, &c, NULL) == TTFT_TPOT_OK && ttft_tpot_model_compute(&c, NULL, &m) == TTFT_TPOT_OK) {
            rc = ttft_tpot_model_prometheus(&m, f, o->prom_prefix, o->prom_labels);
            ttft_tpot_model_free(&m);
        }
        ttft_tpot_serve_free(&s);
        ttft_tpot_free(&c);
    }
    if (f)
        fclose(f);
    return rc != TTFT_TPOT_EINVAL;
}

/* Parse argv into o, GNU style (getopt_long: --opt=value or --opt value, in any order, -- ends the
   options). Returns 0, 1 for --help or --version (done), or 2 after printing one line to stderr. */
static int parse_args(int argc, char **argv, options *o)
{
    struct option opts[N_FIXED + N_INT + 1];
    size_t k;
    int opt, rc;
    memset(o, 0, sizeof *o);
    o->prompt_len = 128;
    o->max_new_tokens = 32;
    o->batch = 1;
    o->repeat_runs = 1;
    o->threads = 1;
    o->dim = 512;
    o->layers = 6;
    o->heads = 8;
    o->hidden = 1408;
    o->vocab = 4096;
    o->seed = 1;
    memcpy(opts, fixed_opts, sizeof fixed_opts);
    for (k = 0; k < N_INT; k++) {
        struct option io = {NULL, required_argument, NULL, 0};
        io.name = int_opts[k].name + 2; /* without "--" */
        io.val = G_INT + (int)k;
        opts[N_FIXED + k] = io;
    }
    memset(&opts[N_FIXED + N_INT], 0, sizeof opts[0]);
    opterr = 0; /* the messages are ours: one line, the argument escaped */
    while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (opt == 'h' || opt == G_VERSION) {
            if (opt == 'h')
                usage(stdout);
            else
                printf("generate (ttft_tpot) %s\n", TTFT_TPOT_VERSION);
            return 1;
        }
        if (opt == G_PROFILE || opt == G_ASYNC) {
            *(opt == G_PROFILE ? &o->profile : &o->async) = 1;
            continue;
        }
        if (opt == '?' && (optopt == G_PROFILE || optopt == G_ASYNC))
            return bad_usage("%s takes no value%s", optopt == G_PROFILE ? "--profile" : "--async", "");
        if (opt == '?') { /* the name as given, without its value */
            char name[64], which[1024];
            const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
            size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), arg);
            if (cli_ambiguous(opts, arg, which, sizeof which))
                return bad_usage("ambiguous option '%s': %s", name, which);
            return bad_usage("unknown option '%s'%s", name, "");
        }
        if ((rc = take_value(opt == ':' ? optopt : opt, opt == ':' ? (char *)"" : optarg, o)) != 0)
            return rc;
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s'%s", argv[optind], "");
    if (o->async && o->requests)
        return bad_usage("--async times the generation runs, not --requests%s%s", "", "");
    if (o->prometheus_every > 0 && (!o->requests || !o->prometheus || strcmp(o->prometheus, "-") == 0))
        return bad_usage("--prometheus-every publishes the --requests of a serving run to a --prometheus FILE (not "
                         "-)%s%s", "", "");
    if (outputs_dashes(o) > 1)
        return bad_usage("only one of --profile-json, --profile-html, --trace and --prometheus can be - (standard "
                         "output)%s%s", "", "");
    if ((o->prom_prefix || o->prom_labels[0]) && (!o->prometheus || !prometheus_names_ok(o)))
        return bad_usage(o->prometheus ? "--prometheus-prefix must be [a-zA-Z_:][a-zA-Z0-9_:]*, each --label NAME a "
                                         "label name [a-zA-Z_][a-zA-Z0-9_]* (not le, not __...) once%s%s"
                                       : "--prometheus-prefix and --label shape the --prometheus file%s%s", "", "");
#ifndef _OPENMP
    if (o->threads != 1)
        return bad_usage("--threads: this build has no OpenMP, only 1 thread%s%s", "", "");
#endif
    return 0;
}

/* One generation: a prefill of the batch, then max_new_tokens - 1 decode steps. */
static int generate_once(driver *g, int run)
{
    int step, rc, B = (int)g->o.batch;
    TTFT_TPOT_SPAN_BEGIN(e2e, &g->tp, g->ph.generate);
    printf("run %d/%ld%s:", run + 1, g->o.warmup_runs + g->o.repeat_runs, run < g->o.warmup_runs ? " (warmup)" : "");
    rc = dispatch(g, 1, B, g->slots, NULL); /* the first token of every sequence */
    for (step = 1; rc == 0; step++) {
        printf(" %d", g->next[0]); /* the stream of sequence 0 */
        fflush(stdout);
        if (step == g->o.max_new_tokens)
            break;
        rc = dispatch(g, 0, B, g->slots, g->next); /* one token for each sequence */
    }
    TTFT_TPOT_SPAN_SET_TOKENS(e2e, (uint32_t)(B * g->o.max_new_tokens));
    TTFT_TPOT_SPAN_END(e2e);
    printf(B > 1 ? "  (sequence 1 of %d)\n" : "\n", B);
    return rc;
}

/* A device kernel: the kernels' thread count on the device thread (OpenMP's is per thread). */
static int set_threads(void *ctx, int n)
{
    (void)ctx;
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
    return 0;
}

/* What the backend achieved: prefill GFLOP/s and decode weight-streaming GB/s. */
static void print_backend_rates(const driver *g, const ttft_tpot_summary *head)
{
    const ttft_tpot_summary s = *head;
    const backend_config *c = backend_cfg(g->b);
    double flops = backend_prefill_flops(g->b, (int)g->o.batch, (int)g->o.prompt_len);
    double bytes = backend_decode_weight_bytes(g->b), ttft;
    printf("\nbackend: %.1fM parameters (dim %d, %d layers, %d heads, MLP %d, vocab %d), batch %ld, "
           "prompt %ld, %ld thread%s\n",
           (double)backend_params(g->b) / 1e6, c->dim, c->n_layers, c->n_heads, c->hidden, c->vocab, g->o.batch,
           g->o.prompt_len, g->o.threads, g->o.threads == 1 ? "" : "s");
    ttft = s.ttft_steady.n ? s.ttft_steady.p50_ns : (double)s.ttft_first_ns;
    if (s.has_ttft_first && ttft > 0)
        printf("prefill rate          : %.1f GFLOP/s  (%.2f GFLOP / %s TTFT %.1f ms)\n", flops / ttft, flops / 1e9,
               s.ttft_steady.n ? "steady p50" : "first-request", ttft / 1e6);
    if (s.tpot.n && s.tpot.p50_ns > 0)
        printf("decode weight stream  : %.2f GB/s  (%.1f MB of weights per step / TPOT p50 %.2f ms)\n",
               bytes / s.tpot.p50_ns, bytes / 1e6, s.tpot.p50_ns / 1e6);
}

/* The report on standard output: 0, or 1 after a message when it could not be written whole. */
static int print_profile(const driver *g, const ttft_tpot_model *m)
{
    int rc;
    printf("\n");
    rc = ttft_tpot_model_write(m, stdout, TTFT_TPOT_FORMAT_TEXT);
    if (rc == TTFT_TPOT_OK && !g->o.requests) /* serving dispatches batches of every size: no single rate */
        print_backend_rates(g, &m->head);
    if (rc != TTFT_TPOT_OK || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "generate: writing the report failed: %s\n", ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    driver g;
    backend_config bc;
    ttft_tpot_config tc;
    ttft_tpot_serve_config sc;
    ttft_tpot_model model;
    FILE *data;
    char err[256];
    int rc, run, runs, status = 0, outputs, served;
    size_t i, n_tok;

    memset(&g, 0, sizeof g);
    memset(&model, 0, sizeof model);
    rc = parse_args(argc, argv, &g.o);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = outputs_keep_stdout(&g.o, &data)) != 0)
        return rc;
#ifdef _OPENMP
    omp_set_num_threads((int)g.o.threads);
#endif
    memset(&bc, 0, sizeof bc);
    bc.dim = (int)g.o.dim;
    bc.n_layers = (int)g.o.layers;
    bc.n_heads = (int)g.o.heads;
    bc.hidden = (int)g.o.hidden;
    bc.vocab = (int)g.o.vocab;
    bc.max_seq = (int)(g.o.prompt_len + g.o.max_new_tokens);
    bc.max_batch = (int)g.o.batch;
    bc.seed = g.o.seed;
    g.b = backend_create(&bc, err, sizeof err);
    if (!g.b) {
        fprintf(stderr, "generate: %s\n", err);
        return strstr(err, "memory") ? 1 : 2;
    }

    /* Storage for every span of every run, reserved once: a run's dispatches each time one span for
       the API call, one per layer and one for the head (and --async's sync); serving has at most one
       dispatch a token. */
    runs = (int)(g.o.warmup_runs + (g.o.requests ? 0 : g.o.repeat_runs));
    memset(&tc, 0, sizeof tc);
    tc.capacity = ((size_t)runs + (size_t)g.o.requests) *
                  ((size_t)g.o.max_new_tokens * (size_t)(g.o.layers + 2 + g.o.async) + 1); /* --async: a sync */
    if (g.o.capacity) /* a smaller store: what does not fit goes on in histograms */
        tc.capacity = (size_t)g.o.capacity;
    tc.max_phases = 8 + 5 * (unsigned)g.o.batch; /* serving: rows of 5 phases a batch size */
    tc.max_shapes = 8 * (unsigned)g.o.batch;
    tc.timeline = g.o.trace != NULL;
    tc.max_device = g.o.async ? tc.capacity : 0; /* every kernel span may wait for its device time */
    memset(&sc, 0, sizeof sc); /* the serving layer: its requests (none outside serving mode) */
    sc.max_requests = driver_max_requests(&g.o);
    sc.max_request_events = (size_t)sc.max_requests * (size_t)(g.o.max_new_tokens + 1);
    sc.buckets = g.o.buckets;
    sc.max_model_len = (uint64_t)g.o.max_model_len;
    n_tok = (size_t)g.o.batch * (size_t)g.o.prompt_len;
    g.prompt = (int *)malloc(n_tok * sizeof(int));
    g.next = (int *)malloc((size_t)g.o.batch * sizeof(int));
    g.slots = (int *)malloc((size_t)g.o.batch * sizeof(int));
    g.logits = (float *)malloc((size_t)g.o.batch * (size_t)g.o.vocab * sizeof(float));
    if (!g.prompt || !g.next || !g.slots || !g.logits || ttft_tpot_init(&g.tp, &tc) != TTFT_TPOT_OK ||
        ttft_tpot_serve_attach(&g.srv, &g.tp, &sc) != TTFT_TPOT_OK || register_phases(&g)) {
        fprintf(stderr, "generate: out of memory\n");
        status = 1;
        goto done;
    }
    for (i = 0; i < (size_t)g.o.batch; i++)
        g.slots[i] = (int)i;
    /* --async: a device whose clock is offset from the host's (as a GPU's is) and ticks every 512 ns;
       the clock pair is read after a full synchronize */
    if (g.o.async && (g.q = devq_create(7000000000000ull, 512)) != NULL)
        devq_launch(g.q, set_threads, NULL, (int)g.o.threads);
    if (g.o.async && (!g.q || devq_sync(g.q) != 0)) {
        fprintf(stderr, "generate: out of memory\n");
        status = 1;
        goto done;
    }
    if (g.q) {
        g.pair.device_ns = devq_now(g.q);
        g.pair.host_ns = ttft_tpot_clock_now(&g.tp);
    }
    if (g.o.has_slo)
        ttft_tpot_serve_slo(&g.srv, g.o.slo);
    /* Collect when any output wants the samples; otherwise every span is one untaken branch. */
    outputs = g.o.profile || g.o.profile_json || g.o.profile_html || g.o.trace || g.o.prometheus || g.o.request_log;
    ttft_tpot_enable(&g.tp, outputs);
    make_prompt(&g, g.o.seed ^ 0x5eedull, g.prompt, n_tok); /* a deterministic prompt per sequence */

    for (run = 0; run < runs && status == 0; run++) {
        if (run < g.o.warmup_runs)
            ttft_tpot_warmup_begin(&g.tp);
        else
            ttft_tpot_run_begin(&g.tp); /* each measured generation is a run of its own */
        if (generate_once(&g, run) != 0) {
            fprintf(stderr, "generate: the backend failed (out of memory)\n");
            status = 1;
        }
        if (run < g.o.warmup_runs)
            ttft_tpot_warmup_end(&g.tp);
    }
    if (status == 0 && g.o.requests && (served = serve_requests(&g)) != 0) {
        if (served == -1)
            fprintf(stderr, "generate: the backend failed (out of memory)\n");
        status = 1;
    }

    if (status == 0 && outputs && ttft_tpot_model_compute(&g.tp, NULL, &model) != TTFT_TPOT_OK) { /* their figures */
        fprintf(stderr, "generate: out of memory for the report\n");
        status = 1;
    }
    if (status == 0 && g.o.profile)
        status = print_profile(&g, &model);
    if (status == 0)
        status = outputs_write(&g.o, &model, data);
    ttft_tpot_model_free(&model);
    if (status == 0 && (fflush(stdout) != 0 || ferror(stdout))) { /* the token stream, too */
        fprintf(stderr, "generate: writing to standard output failed\n");
        status = 1;
    }
done:
    devq_destroy(g.q);
    ttft_tpot_serve_free(&g.srv);
    ttft_tpot_free(&g.tp);
    backend_destroy(g.b);
    free(g.prompt);
    free(g.next);
    free(g.slots);
    free(g.logits);
    return status;
}
