/* ttft_tpot_report - the report of one or more traces (format v1), computed by the library the same
   way a live collector computes it: any driver that can write a CSV file gets the same numbers.

   The options: ttft_tpot_report --help (the usage text below), and the README.
   Each TRACE is read once, in one pass ("-": standard input), so pipes and FIFOs work. Exit status: 0 report
   printed, 1 bad input (file:line: message on stderr, nothing on stdout), 2 bad usage, 3 a Prometheus
   exposition with nothing to count (written, with a warning). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include "cli.h"

#include <errno.h>
#include <getopt.h> /* getopt_long: glibc, musl, macOS and the BSDs */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h> /* fstat: a directory is not a trace */

static const char usage_text[] =
    "Usage: ttft_tpot_report [--json | --prometheus] [OPTION]... TRACE...\n"
    "  or:  ttft_tpot_report --compare [--json] [--html OUT.html] [--alpha A] [--noise PCT] BASE NEW\n"
    "  or:  ttft_tpot_report --compare [OPTION]... --base TRACE... --new TRACE...\n"
    "  or:  ttft_tpot_report --ranks [--json] RANK0 RANK1...\n"
    "Reads the traces (format v1: phase,role,start_ns,dur_ns,tokens,warmup) in order into one collector\n"
    "and prints its report: text by default, JSON (schema ttft_tpot/v1) with --json. A TRACE of -\n"
    "is standard input.\n"
    "  --json                 print the JSON report\n"
    "  --html FILE            also write the report as one self-contained HTML file (charts inline;\n"
    "                         with --compare, both sides overlaid); - : standard output, instead\n"
    "                         of the report\n"
    "  --prometheus           print the requests as Prometheus text exposition (vLLM's metric names)\n"
    "  --prometheus-prefix P  metric names start with P, not vllm: or ttft_tpot: (promtool's lint wants no ':')\n"
    "  --label K=V            a label on every series, e.g. model_name=qwen3 (repeatable)\n"
    "  --model-name NAME      the label model_name=NAME, which vLLM's dashboards filter on\n"
    "  --buckets fine|vllm    the histograms' bounds: fine (default: vLLM's and the E12 series,\n"
    "                         histogram_quantile within 25%) or vllm (vLLM's alone: fewer series)\n"
    "  --max-model-len N      the model's length in tokens: the token histograms' last bound\n"
    "                         (vLLM's 1, 2, 5, 10, ... up to N; default: to 5e9)\n"
    "  --slo LIST             SLOs for goodput, any of ttft=MS,tpot=MS,e2e=MS\n"
    "  --chrome-trace FILE    also write the samples as a Chrome / Perfetto trace to FILE (needs\n"
    "                         start times: a trace recorded with config.timeline); - : standard\n"
    "                         output, instead of the report\n"
    "  --prefill-kernel NAME  show kernel phase NAME as the lower bound of steady TTFT\n"
    "  --slice SECONDS        results over time: per slice of the serving run, output tok/s, requests\n"
    "                         in flight and the TTFT p50 of those submitted (peaks over 1 s without it)\n"
    "  --percentiles LIST     the percentiles of the serving figures, e.g. 50,90,99,99.9 (ascending, up to\n"
    "                         8, to 0.001; default 50,90,99); --json adds each one beyond p50/p90/p95/p99\n"
    "  --requests-csv FILE    also write one row per request (id, submit, schedule, first and last token,\n"
    "                         tokens, TTFT, TPOT, E2E, measured, each SLO met, first output token,\n"
    "                         TTFO); - : standard output,\n"
    "                         instead of the report. An id that starts with = + - or @ is written\n"
    "                         '=... so that a spreadsheet does not run it as a formula\n"
    "  --bounded              keep each phase's steady samples in a histogram: memory stays the same\n"
    "                         for a trace of any length; percentiles within 0.78%, marked approximate\n";

/* The rest of --help: ISO C asks compilers for string literals of 4095 bytes, no more. */
static const char usage_compare[] =
    "  --compare              compare two sides: BASE NEW, or the traces given with --base and --new\n"
    "                         (each repeatable). The run is the unit: each run a trace marked\n"
    "                         (generate --repeat-runs), or each trace without runs. A verdict over\n"
    "                         the headline metrics (no_difference, within_noise, improvement,\n"
    "                         regression, trade_off, or undecided when the runs are too few), then\n"
    "                         per metric the runs' mean with its 95% interval, the Hodges-Lehmann\n"
    "                         shift, the Mann-Whitney U p over the runs (Holm-adjusted), the p99's\n"
    "                         change; the tail (each run's TPOT p99) beside the verdict; what the\n"
    "                         verdict cannot tell (one process a side, processes not interleaved\n"
    "                         in time); the smallest change the runs' spread detects 4 times in 5.\n"
    "                         Runs of unequal length: their decode figures over their common first\n"
    "                         steps (a line says so).\n"
    "                         5 runs a side or more decide; interleave base/new/base/new.\n"
    "                         --json: schema ttft_tpot/compare-v1\n"
    "  --base FILE, --new FILE  a trace of that side (with --compare)\n"
    "  --noise PCT            with --compare: a significant shift under PCT% is within noise\n"
    "                         (default 2)\n"
    "  --phases-in-verdict    with --compare: the phase rows judge the verdict too (else they are\n"
    "                         detail)\n"
    "  --ranks                the traces are the tensor-parallel ranks of one model, rank 0 first (replicas\n"
    "                         are pooled without it): rank 0's report, then each rank's steady decode\n"
    "                         steps, the model's step (the maximum over ranks, step k of each lined up)\n"
    "                         with its TPOT, how often each rank was slowest, and the spread (max - min);\n"
    "                         --json: the report's \"ranks\" object\n"
    "  --alpha A              the family-wise significance level of --compare (default 0.05)\n"
    "  --help                 this text\n"
    "  --version              the version\n"
    "Options and traces come in any order; --opt=VALUE and --opt VALUE are the same; -- ends the\n"
    "options.\n"
    "Exit status: 0 report printed, 1 bad input, 2 bad usage, 3 --prometheus written with nothing to\n"
    "count (no measured request and no device interval in the traces: every series empty; a warning\n"
    "says so).\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "ttft_tpot_report: %s", what);
    cli_put_escaped(stderr, arg);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* "ttft_tpot_report: what NAME: the system's reason" on stderr; returns 1. */
static int system_error(const char *what, const char *name)
{
    const char *why = strerror(errno);
    fprintf(stderr, "ttft_tpot_report: %s", what);
    cli_put_escaped(stderr, name);
    fprintf(stderr, ": %s\n", why);
    return 1;
}

/* "ttft_tpot_report: what NAME why" on stderr, NAME escaped; returns 1. */
static int input_error(const char *what, const char *name, const char *why)
{
    fprintf(stderr, "ttft_tpot_report: %s", what);
    cli_put_escaped(stderr, name);
    fprintf(stderr, "%s\n", why);
    return 1;
}

/* The tool records nothing: its collector's clock is never read, and names none of its own. */
static uint64_t no_clock(void *user)
{
    (void)user;
    return 0;
}

/* The HTML report of n models into path ("-": standard output, instead of the report). */
static int write_html(const ttft_tpot_model *const *m, const char *const *names, int n, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int rc;
    if (!f)
        return system_error("cannot write ", path);
    rc = ttft_tpot_html_report(f, m, names, n, ttft_tpot_compare_html);
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 || rc != 0)
        return input_error("writing ", path, " failed");
    return 0;
}

/* The Chrome trace into path ("-": standard output, which then carries it instead of the report). */
static int write_chrome(const ttft_tpot *c, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int rc;
    if (!f)
        return system_error("cannot write ", path);
    rc = ttft_tpot_chrome_trace(c, f);
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 || rc != TTFT_TPOT_OK)
        return input_error("writing ", path, " failed");
    return 0;
}

/* One row per request into path ("-": standard output, which then carries it instead of the report). */
static int write_requests_csv(const ttft_tpot *c, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    int rc;
    if (!f)
        return system_error("cannot write ", path);
    rc = ttft_tpot_requests_csv(c, f);
    if ((f == stdout ? fflush(f) : fclose(f)) != 0 || rc != TTFT_TPOT_OK)
        return input_error("writing ", path, " failed");
    if (ttft_tpot_counts_of(c).requests == 0) /* a header alone reads as a file cut short */
        fputs("ttft_tpot_report: warning: --requests-csv: no request in the traces: the CSV has its header "
              "only\n",
              stderr);
    return 0;
}

typedef struct options {
    const char *chrome, *kernel, *prefix, *html, *requests_csv; /* html: the HTML report's file ("-": standard output) */ /* prefix: of the Prometheus names (NULL: vLLM's) */
    char labels[512];                     /* the --label pairs, as the exposition writes them */
    char first_name[320];                 /* the traces, as the HTML report names them */
    int json, prometheus, has_slo, bounded, first; /* first: argv index of the first trace */
    ttft_tpot_slo slo;
    int compare, n_side[2]; /* --compare, and the traces of --base and --new */
    int ranks;              /* --ranks */
    int buckets;            /* --buckets (TTFT_TPOT_BUCKETS_*) */
    uint64_t max_model_len; /* --max-model-len (0: every bound) */
    uint64_t slice_ns;      /* --slice (0: none asked) */
    double percentiles[TTFT_TPOT_MAX_PERCENTILES]; /* --percentiles (all 0: the default) */
    char **side[2];
    ttft_tpot_compare_options cmp; /* --alpha, --noise, --phases-in-verdict */
} options;

/* --compare's sides: --base and --new lists, or BASE NEW; -1 to go on, or 2. */
static int compare_args(int argc, char **argv, options *o)
{
    if (o->n_side[0] + o->n_side[1] == 0 && o->first && argc - o->first == 2) {
        o->side[0][o->n_side[0]++] = argv[o->first];
        o->side[1][o->n_side[1]++] = argv[o->first + 1];
    } else if (!o->n_side[0] || !o->n_side[1] || (o->first && o->first < argc)) {
        return usage_error("--compare takes BASE NEW, or --base TRACE... --new TRACE...", "");
    }
    if (o->prometheus || o->chrome || o->bounded || o->kernel || o->has_slo || o->requests_csv)
        return usage_error("--compare prints the comparison only (text, --json or --html)", "");
    if (o->prefix || o->labels[0])
        return usage_error("--compare prints the comparison only (text, --json or --html): --prometheus-prefix and "
                           "--label have no use", "");
    return -1;
}

/* The option's value as a plain decimal between 0 and 1 (exclusive): 0, or 2. */
static int take_alpha(options *o, const char *v)
{
    if (cli_decimal(v, &o->cmp.alpha) != 0 || !(o->cmp.alpha > 0 && o->cmp.alpha < 1))
        return usage_error("--alpha takes a plain decimal between 0 and 1, not ", v);
    return 0;
}

static int take_noise(options *o, const char *v)
{
    if (cli_decimal(v, &o->cmp.noise_pct) != 0 || !(o->cmp.noise_pct >= 0 && o->cmp.noise_pct < 100))
        return usage_error("--noise takes a percentage, a plain decimal from 0 to below 100, not ", v);
    return 0;
}

enum { OPT_JSON = 256, OPT_PROM, OPT_BOUNDED, OPT_COMPARE, OPT_BASE, OPT_NEW, OPT_ALPHA, OPT_SLO, OPT_CHROME,
       OPT_KERNEL, OPT_PREFIX, OPT_LABEL, OPT_VERSION, OPT_HTML, OPT_RANKS, OPT_REQUESTS_CSV, OPT_SLICE,
       OPT_PERCENTILES, OPT_NOISE, OPT_PHASES_IN_VERDICT, OPT_MODEL, OPT_BUCKETS, OPT_MAX_MODEL_LEN };

static const struct option long_opts[] = {
    {"json", no_argument, NULL, OPT_JSON},           {"prometheus", no_argument, NULL, OPT_PROM},
    {"bounded", no_argument, NULL, OPT_BOUNDED},     {"compare", no_argument, NULL, OPT_COMPARE},
    {"base", required_argument, NULL, OPT_BASE},     {"new", required_argument, NULL, OPT_NEW},
    {"alpha", required_argument, NULL, OPT_ALPHA},   {"slo", required_argument, NULL, OPT_SLO},
    {"chrome-trace", required_argument, NULL, OPT_CHROME},
    {"prefill-kernel", required_argument, NULL, OPT_KERNEL},
    {"prometheus-prefix", required_argument, NULL, OPT_PREFIX},
    {"label", required_argument, NULL, OPT_LABEL},   {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},     {"html", required_argument, NULL, OPT_HTML},
    {"ranks", no_argument, NULL, OPT_RANKS},         {"requests-csv", required_argument, NULL, OPT_REQUESTS_CSV},
    {"slice", required_argument, NULL, OPT_SLICE},   {"percentiles", required_argument, NULL, OPT_PERCENTILES},
    {"noise", required_argument, NULL, OPT_NOISE},   {"phases-in-verdict", no_argument, NULL, OPT_PHASES_IN_VERDICT},
    {"model-name", required_argument, NULL, OPT_MODEL},   {"buckets", required_argument, NULL, OPT_BUCKETS},
    {"max-model-len", required_argument, NULL, OPT_MAX_MODEL_LEN},
    {NULL, 0, NULL, 0},
};

/* One option and its value into o: -1 to go on, else the exit status. */
static int take_option(int opt, char *v, options *o)
{
    switch (opt) {
    case 'h':
        fputs(usage_text, stdout);
        fputs(usage_compare, stdout);
        return 0;
    case OPT_VERSION:
        printf("ttft_tpot_report (ttft_tpot) %s\n", TTFT_TPOT_VERSION);
        return 0;
    case OPT_JSON: o->json = 1; break;
    case OPT_PROM: o->prometheus = 1; break;
    case OPT_BOUNDED: o->bounded = 1; break;
    case OPT_COMPARE: o->compare = 1; break;
    case OPT_RANKS: o->ranks = 1; break;
    case OPT_SLICE: {
        double s;
        if (cli_decimal(v, &s) != 0 || !(s >= 0.001 && s <= 86400))
            return usage_error("--slice takes seconds, a plain decimal from 0.001 to 86400, not ", v);
        o->slice_ns = (uint64_t)(s * 1e9 + 0.5);
        break;
    }
    case OPT_PERCENTILES:
        if (ttft_tpot_percentiles_parse(v, o->percentiles) != TTFT_TPOT_OK)
            return usage_error("--percentiles takes ascending percentiles between 0 and 100 (at most 8, to 0.001), "
                               "e.g. 50,90,99,99.9, not ", v);
        break;
    case OPT_REQUESTS_CSV:
        if (!*v)
            return usage_error("--requests-csv", " needs a file name");
        o->requests_csv = v;
        break;
    case OPT_BASE:
    case OPT_NEW:
        if (!*v)
            return usage_error(opt == OPT_BASE ? "--base" : "--new", " needs a trace");
        o->side[opt == OPT_NEW][o->n_side[opt == OPT_NEW]++] = v;
        break;
    case OPT_ALPHA: return take_alpha(o, v) ? 2 : -1;
    case OPT_NOISE: return take_noise(o, v) ? 2 : -1;
    case OPT_PHASES_IN_VERDICT: o->cmp.phases = 1; break;
    case OPT_SLO:
        if (ttft_tpot_slo_parse(v, &o->slo) != TTFT_TPOT_OK)
            return usage_error("--slo takes ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), not ", v);
        o->has_slo = 1;
        break;
    case OPT_CHROME:
    case OPT_KERNEL:
        if (!*v)
            return usage_error(opt == OPT_CHROME ? "--chrome-trace" : "--prefill-kernel", " needs a value");
        *(opt == OPT_CHROME ? &o->chrome : &o->kernel) = v;
        break;
    case OPT_PREFIX: o->prefix = v; break;
    case OPT_BUCKETS:
        if (strcmp(v, "fine") != 0 && strcmp(v, "vllm") != 0)
            return usage_error("--buckets takes fine or vllm, not ", v);
        o->buckets = strcmp(v, "vllm") == 0 ? TTFT_TPOT_BUCKETS_VLLM : TTFT_TPOT_BUCKETS_FINE;
        break;
    case OPT_MAX_MODEL_LEN: {
        double n;
        if (cli_decimal(v, &n) != 0 || strchr(v, '.') || !(n >= 1 && n <= 2e9))
            return usage_error("--max-model-len takes a whole number of tokens from 1 to 2000000000, not ", v);
        o->max_model_len = (uint64_t)n;
        break;
    }
    case OPT_HTML:
        if (!*v)
            return usage_error("--html", " needs a file name");
        o->html = v;
        break;
    case OPT_LABEL:
    case OPT_MODEL: { /* --model-name NAME is --label model_name=NAME */
        char why[1200], pair[600];
        int rc;
        if (opt == OPT_MODEL && snprintf(pair, sizeof pair, "model_name=%s", v) >= (int)sizeof pair)
            return usage_error("--model-name: at most 500 bytes", "");
        rc = cli_add_label(o->labels, sizeof o->labels, opt == OPT_MODEL ? pair : v);
        if (rc != CLI_LABEL_OK)
            return usage_error(cli_label_why(why, sizeof why, rc, v), "");
        break;
    }
    default: return 2;
    }
    return -1;
}

/* argv into o, GNU style (getopt_long: --opt=value or --opt value, options and traces in any order,
   "--" ends the options): -1 to go on, else the exit status (0 after --help or --version, 2 after a
   usage error). lists: room for 2 argc names (--base, then --new). */
static int parse(int argc, char **argv, char **lists, options *o)
{
    int opt, rc;
    memset(o, 0, sizeof *o);
    o->cmp = ttft_tpot_compare_defaults();
    o->side[0] = lists;
    o->side[1] = lists + argc;
    opterr = 0; /* the messages are ours: one line, the argument escaped */
    while ((opt = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        if (opt == '?' || opt == ':') { /* unknown, ambiguous, a value given to a flag, or a value missing */
            const char *arg = argv[optind - 1];
            int valued = opt == '?' && optopt && strncmp(arg, "--", 2) == 0 && strchr(arg, '=');
            char which[512], why[700];
            if (opt == '?' && cli_ambiguous(long_opts, arg, which, sizeof which)) {
                snprintf(why, sizeof why, "ambiguous option %.*s: %s", (int)strcspn(arg, "="), arg, which);
                return usage_error(why, "");
            }
            return usage_error(opt == ':' ? "a value is missing after " : valued ? "this option takes no value: "
                                                                               : "unknown option ", arg);
        }
        if ((rc = take_option(opt, optarg, o)) >= 0)
            return rc;
    }
    o->first = optind < argc ? optind : 0;
    if (o->first)
        snprintf(o->first_name, sizeof o->first_name, argc - o->first > 1 ? "%.256s and %d more" : "%.256s",
                 argv[o->first], argc - o->first - 1);
    if (o->compare && o->ranks)
        return usage_error("--compare and --ranks: one at a time", "");
    if (o->compare)
        return compare_args(argc, argv, o);
    if (o->first == 0)
        return usage_error("no trace given", "");
    if (o->json && o->prometheus)
        return usage_error("--json and --prometheus: one output at a time", "");
    if ((o->requests_csv && strcmp(o->requests_csv, "-") == 0) + (o->html && strcmp(o->html, "-") == 0) +
            (o->chrome && strcmp(o->chrome, "-") == 0) > 1)
        return usage_error("--html -, --chrome-trace - and --requests-csv -: one of them on standard output", "");
    if (o->ranks && (o->prometheus || o->chrome || o->html || o->bounded || o->kernel || o->has_slo || o->requests_csv))
        return usage_error("--ranks prints the ranks' report only (text or --json)", "");
    if (o->ranks && (argc - o->first < 2 || argc - o->first > TTFT_TPOT_RANKS_MAX))
        return usage_error("--ranks takes 2 to 256 traces, rank 0 first", "");
    if (o->bounded && o->chrome)
        return usage_error("--bounded keeps no timeline for --chrome-trace", "");
    if (o->html && o->chrome && strcmp(o->html, "-") == 0 && strcmp(o->chrome, "-") == 0)
        return usage_error("--html - and --chrome-trace -: one of them on standard output", "");
    if ((o->prefix || o->labels[0]) && !o->prometheus)
        return usage_error("--prometheus-prefix and --label shape the --prometheus output", "");
    return -1;
}

/* Open an input ("-": standard input); NULL with errno set (EISDIR for a directory, which fopen opens). */
static FILE *open_input(const char *path)
{
    struct stat st;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f && f != stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}

/* Read each trace once, in order, into c, which grows as they need: a pipe or a FIFO works, and
   nothing is read twice. *no_starts (when asked for): the first trace without start times, if any. */
static int read_traces(ttft_tpot *c, char **names, int n, const char **no_starts)
{
    char err[512];
    int k, rc;
    for (k = 0; k < n; k++) {
        size_t before = ttft_tpot_counts_of(c).samples, after, i;
        ttft_tpot_model view;
        ttft_tpot_model_options all_skipped = {TTFT_TPOT_SKIP_ALL, 0};
        FILE *in = open_input(names[k]);
        if (!in)
            return system_error("cannot read ", names[k]);
        rc = ttft_tpot_trace_read(c, in, names[k], err, sizeof err);
        if (in != stdin)
            fclose(in);
        if (rc == TTFT_TPOT_EPARSE) {
            fprintf(stderr, "ttft_tpot_report: %s\n", err); /* escaped by the library */
            return 1;
        }
        if (rc != TTFT_TPOT_OK)
            return input_error("", names[k], rc == TTFT_TPOT_ENOMEM ? ": out of memory" : ": read error");
        after = no_starts ? ttft_tpot_counts_of(c).samples : before;
        if (after > before && ttft_tpot_model_compute(c, &all_skipped, &view) == TTFT_TPOT_OK) { /* read in place */
            for (i = before; i < after && (!view.starts || view.starts[i] == 0); i++)
                ;
            if (i == after && !*no_starts) /* start_ns 0 throughout: recorded without a timeline */
                *no_starts = names[k];
            ttft_tpot_model_free(&view);
        }
    }
    return 0;
}

/* The collector: small, growing as the traces need (nothing they hold is dropped); it keeps start
   times from the first line that has one (nesting and self time need them, as the Chrome trace). Its
   serving layer, which holds the traces' requests, is allocated with it (drop_collector frees both). */
static int make_collector(ttft_tpot *c, const options *o)
{
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    ttft_tpot_serve *s = (ttft_tpot_serve *)malloc(sizeof *s);
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.grow = 1;
    cfg.capacity = 4096;
    cfg.max_phases = 16; /* more as a trace names them (to 65535): a trace's collector is sized by it */
    cfg.timeline = o->chrome != NULL;
    cfg.bounded = o->bounded;
    cfg.hist_slots = o->bounded ? 16 : 0; /* more as phases come */
    cfg.clock = no_clock;
    cfg.clock_name = "not in the trace"; /* a trace's "# clock:" line replaces it */
    memcpy(cfg.percentiles, o->percentiles, sizeof cfg.percentiles);
    sc.max_requests = 64; /* they grow as the traces need */
    sc.max_request_events = 1024;
    sc.slice_ns = o->slice_ns;
    sc.buckets = o->buckets;
    sc.max_model_len = o->max_model_len;
    sc.no_live = 1; /* it reports traces: nothing is published live */
    if (!s || ttft_tpot_init(c, &cfg) != TTFT_TPOT_OK) {
        free(s);
        return TTFT_TPOT_ENOMEM;
    }
    if (ttft_tpot_serve_attach(s, c, &sc) != TTFT_TPOT_OK) {
        ttft_tpot_free(c);
        free(s);
        return TTFT_TPOT_ENOMEM;
    }
    return TTFT_TPOT_OK;
}

/* A collector of make_collector's (or one it could not make: zeroed), freed with its serving layer. */
static void drop_collector(ttft_tpot *c)
{
    ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    ttft_tpot_serve_free(s);
    free(s);
    ttft_tpot_free(c);
}

/* Whether --prometheus writes device series: any device interval, resolved or lost. */
static int has_device(const ttft_tpot_model *m)
{
    const ttft_tpot_device_figures *f = &m->device;
    return f->intervals || f->open || f->unresolved || f->refused;
}

/* The report (text, JSON or Prometheus) and the HTML report, from one model; standard output may carry
   the HTML report instead of the report. */
static int write_reports(const ttft_tpot *c, const options *o, int kernel)
{
    ttft_tpot_model_options all = {0, 0}, requests_only = {TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES, 0};
    ttft_tpot_model m;
    int rc, status = 0, measured;
    all.prefill_kernel = kernel + 1; /* --prefill-kernel: its fastest call bounds steady TTFT below */
    all.skip = o->prometheus ? 0u : (unsigned)TTFT_TPOT_SKIP_EXPOSITION; /* histograms no other output prints */
    if (ttft_tpot_model_compute(c, o->prometheus && !o->html ? &requests_only : &all, &m) != TTFT_TPOT_OK)
        return input_error("out of memory for ", "the report", "");
    measured = ttft_tpot_serve_figures(&m) && ttft_tpot_serve_figures(&m)->requests.n > 0;
    if (o->html) {
        const ttft_tpot_model *one[1];
        const char *name[1];
        one[0] = &m;
        name[0] = o->first_name;
        status = write_html(one, name, 1, o->html);
    }
    if (status == 0 && !(o->html && strcmp(o->html, "-") == 0)) {
        rc = o->prometheus ? ttft_tpot_model_prometheus(&m, stdout, o->prefix, o->labels)
                           : ttft_tpot_model_write(&m, stdout, o->json ? TTFT_TPOT_FORMAT_JSON : TTFT_TPOT_FORMAT_TEXT);
        if (rc == TTFT_TPOT_EINVAL) /* nothing written: the prefix or a label is not Prometheus's */
            status = usage_error("--prometheus-prefix must be [a-zA-Z_:][a-zA-Z0-9_:]*, each --label NAME=VALUE a "
                                 "label name [a-zA-Z_][a-zA-Z0-9_]* (not le, not __...) once, without braces", "");
        else if (rc != TTFT_TPOT_OK || fflush(stdout) != 0)
            status = input_error("writing the report failed: ", ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO), "");
        else if (o->prometheus && !measured && has_device(&m)) /* the device series count */
            fputs("ttft_tpot_report: warning: --prometheus: no measured request in the traces (none, or all "
                  "warmup or without a token): the request histograms are empty; the device series are "
                  "written\n",
                  stderr);
        else if (o->prometheus && !measured) { /* valid, and empty: a dashboard would read zeros */
            fputs("ttft_tpot_report: warning: --prometheus: no measured request in the traces (none, or all "
                  "warmup or without a token): every histogram is empty\n", stderr);
            status = 3;
        }
    }
    ttft_tpot_model_free(&m);
    return status;
}

/* The checks that come before any output, the Chrome trace, then the reports. */
static int write_outputs(ttft_tpot *c, const options *o, const char *no_starts)
{
    int k = -1;
    if (o->kernel) {
        k = ttft_tpot_find_phase(c, o->kernel);
        if (ttft_tpot_phase_role(c, k) != TTFT_TPOT_ROLE_KERNEL)
            return input_error("--prefill-kernel: no kernel phase named '", o->kernel, "' in the traces");
    }
    if (o->has_slo)
        ttft_tpot_serve_slo(ttft_tpot_serve_of(c), o->slo);
    if (o->chrome && no_starts)
        return input_error("--chrome-trace: ", no_starts, " has no start times (start_ns is 0 on every line): "
                           "a timeline needs a trace recorded with config.timeline (generate --trace records one)");
    if (o->chrome && write_chrome(c, o->chrome) != 0)
        return 1;
    if (o->requests_csv && write_requests_csv(c, o->requests_csv) != 0)
        return 1;
    if ((o->chrome && strcmp(o->chrome, "-") == 0) || (o->requests_csv && strcmp(o->requests_csv, "-") == 0))
        return 0; /* standard output carried the Chrome trace or the requests */
    return write_reports(c, o, k);
}

/* The traces of --compare, a collector and a model each: a run of the comparison is a run a trace
   marked, or a trace without runs. */
typedef struct compare_traces {
    ttft_tpot *c;
    ttft_tpot_model *m;
    const ttft_tpot_model **each;
    int n, made, modelled;
} compare_traces;

static void traces_free(compare_traces *t)
{
    int k;
    for (k = 0; k < t->modelled; k++)
        ttft_tpot_model_free(&t->m[k]);
    for (k = 0; k < t->made; k++)
        drop_collector(&t->c[k]);
    free(t->c);
    free(t->m);
    free((void *)t->each);
}

/* Each of a side's traces into a collector of its own, and its model: 0, or the exit status. */
static int read_side(compare_traces *t, char **names, int n, const options *o)
{
    int k, status = 0;
    memset(t, 0, sizeof *t);
    t->n = n;
    t->c = (ttft_tpot *)calloc((size_t)n, sizeof *t->c);
    t->m = (ttft_tpot_model *)calloc((size_t)n, sizeof *t->m);
    t->each = (const ttft_tpot_model **)calloc((size_t)n, sizeof *t->each);
    if (!t->c || !t->m || !t->each)
        return input_error("out of memory for ", "the traces", "");
    for (k = 0; k < n && status == 0; k++, t->made++)
        status = make_collector(&t->c[k], o) != TTFT_TPOT_OK ? input_error("out of memory for ", "the traces", "")
                                                              : read_traces(&t->c[k], names + k, 1, NULL);
    for (k = 0; k < n && status == 0; k++, t->modelled++) {
        if (ttft_tpot_model_compute(&t->c[k], NULL, &t->m[k]) != TTFT_TPOT_OK)
            status = input_error("out of memory for ", "the comparison", "");
        t->each[k] = &t->m[k];
    }
    return status;
}

/* The HTML comparison: each side's traces in one collector (a side of one trace: its model). */
static int compare_page(const compare_traces *t, const options *o)
{
    ttft_tpot one[2];
    ttft_tpot_model model[2];
    const ttft_tpot_model *both[2];
    const char *names[2];
    int k, made = 0, modelled = 0, status = 0;
    for (k = 0; k < 2 && status == 0; k++) {
        if (t[k].n == 1) {
            both[k] = &t[k].m[0];
            continue;
        }
        if (make_collector(&one[made], o) != TTFT_TPOT_OK)
            return input_error("out of memory for ", "the traces", "");
        status = read_traces(&one[made++], o->side[k], o->n_side[k], NULL);
        if (status == 0 && ttft_tpot_model_compute(&one[made - 1], NULL, &model[modelled]) != TTFT_TPOT_OK)
            status = input_error("out of memory for ", "the comparison", "");
        else if (status == 0)
            both[k] = &model[modelled++];
    }
    names[0] = o->side[0][0], names[1] = o->side[1][0];
    if (status == 0)
        status = write_html(both, names, 2, o->html);
    for (k = 0; k < modelled; k++)
        ttft_tpot_model_free(&model[k]);
    for (k = 0; k < made; k++)
        drop_collector(&one[k]);
    return status;
}

/* --compare: each trace read into its own collector, then the table, the JSON or the HTML page. */
static int compare(const options *o)
{
    compare_traces t[2];
    ttft_tpot_compare_side side[2];
    ttft_tpot_compare_result res;
    int status = 0, k, read = 0;
    memset(&res, 0, sizeof res);
    for (k = 0; k < 2 && status == 0; k++, read++) {
        status = read_side(&t[k], o->side[k], o->n_side[k], o);
        side[k].trace = t[k].each;
        side[k].n = (size_t)t[k].n;
    }
    if (status == 0 && ttft_tpot_compare_sides(&side[0], &side[1], &o->cmp, &res) != TTFT_TPOT_OK)
        status = input_error("out of memory for ", "the comparison", "");
    if (status == 0 && o->html)
        status = compare_page(t, o);
    if (status == 0 && !(o->html && strcmp(o->html, "-") == 0)) {
        (o->json ? ttft_tpot_compare_json : ttft_tpot_compare_text)(stdout, &res);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "ttft_tpot_report: writing the comparison failed: %s\n", ttft_tpot_strerror(TTFT_TPOT_EIO));
            status = 1;
        }
    }
    ttft_tpot_compare_free(&res);
    for (k = 0; k < read; k++)
        traces_free(&t[k]);
    return status;
}

/* rank 0's report (text, or JSON with the "ranks" object added), then the ranks' figures. */
static int ranks_write(const ttft_tpot *rank0, const ttft_tpot_ranks_figures *f, char *const *names, const options *o)
{
    int rc = ttft_tpot_ranks_report(stdout, rank0, f, (const char *const *)names, o->json);
    if (rc != TTFT_TPOT_OK || fflush(stdout) != 0 || ferror(stdout))
        return input_error("writing the report failed: ", ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO), "");
    return 0;
}

/* --ranks: each trace read into a collector of its own. */
static int ranks(char **names, int n, const options *o)
{
    ttft_tpot *c = (ttft_tpot *)calloc((size_t)n, sizeof *c);
    ttft_tpot_ranks_figures *f = (ttft_tpot_ranks_figures *)malloc(sizeof *f);
    const ttft_tpot *each[TTFT_TPOT_RANKS_MAX];
    int status = c && f ? 0 : input_error("out of memory", "", ""), k, made = 0, rc;
    for (k = 0; k < n && status == 0; k++, made++) {
        status = make_collector(&c[k], o) != TTFT_TPOT_OK ? input_error("out of memory for ", "the traces", "")
                                                         : read_traces(&c[k], names + k, 1, NULL);
        each[k] = &c[k];
    }
    if (status == 0 && (rc = ttft_tpot_ranks_compute(each, n, f)) != 0)
        status = rc == -1 ? input_error("out of memory for ", "the ranks", "")
                          : input_error("--ranks: every rank needs steady decode steps, all stored (", "",
                                        "a trace with none, or a bounded phase's histogram)");
    if (status == 0)
        status = ranks_write(&c[0], f, names, o);
    for (k = 0; k < made; k++)
        drop_collector(&c[k]);
    free(c);
    free(f);
    return status;
}

int main(int argc, char **argv)
{
    options o;
    ttft_tpot c;
    const char *no_starts = NULL;
    char **lists = (char **)calloc(2 * (size_t)argc + 1, sizeof *lists);
    int status = lists ? parse(argc, argv, lists, &o) : input_error("out of memory", "", "");
    if (status >= 0) {
        free(lists);
        return status;
    }
    if (o.compare) {
        status = compare(&o);
        free(lists);
        return status;
    }
    free(lists);
    if (o.ranks)
        return ranks(argv + o.first, argc - o.first, &o);
    if (make_collector(&c, &o) != TTFT_TPOT_OK)
        return input_error("out of memory for ", "the traces", "");
    status = read_traces(&c, argv + o.first, argc - o.first, o.chrome ? &no_starts : NULL);
    if (status == 0)
        status = write_outputs(&c, &o, no_starts);
    drop_collector(&c);
    return status;
}
