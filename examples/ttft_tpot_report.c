/* ttft_tpot_report - the report of one or more traces (format v1), computed by the library the same
   way a live collector computes it: any driver that can write a CSV file gets the same numbers.

   usage: ttft_tpot_report [--json | --prometheus] [--slo ttft=MS,tpot=MS,e2e=MS] [--chrome-trace OUT.json]
                           [--prefill-kernel NAME] TRACE...
   Exit status: 0 report printed, 1 bad input (file:line: message on stderr, nothing on stdout),
   2 bad usage. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot.h"

#include <errno.h>
#include <string.h>

static const char usage_text[] =
    "usage: ttft_tpot_report [--json | --prometheus] [--slo ttft=MS,tpot=MS,e2e=MS] [--chrome-trace OUT.json]\n"
    "                        [--prefill-kernel NAME] TRACE...\n"
    "Reads the traces (format v1: phase,role,start_ns,dur_ns,tokens,warmup) in order into one collector\n"
    "and prints its report: text by default, JSON (schema ttft_tpot/v1) with --json.\n"
    "  --json                 print the JSON report\n"
    "  --prometheus           print the requests as Prometheus text exposition (vLLM's metric names)\n"
    "  --slo LIST             SLOs for goodput, any of ttft=MS,tpot=MS,e2e=MS\n"
    "  --chrome-trace FILE    also write the samples as a Chrome / Perfetto trace to FILE\n"
    "  --prefill-kernel NAME  show kernel phase NAME as the lower bound of steady TTFT\n"
    "  --help                 this text\n"
    "Exit status: 0 report printed, 1 bad input, 2 bad usage.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "ttft_tpot_report: %s%s (try --help)\n", what, arg);
    return 2;
}

/* Lines in a file, an upper bound of its samples: sizes the collector so nothing is dropped. */
static int count_lines(const char *path, size_t *lines)
{
    FILE *f = fopen(path, "rb");
    char buf[65536];
    size_t n, i;
    if (!f)
        return -1;
    *lines += 1; /* a last line without a newline */
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (i = 0; i < n; i++)
            *lines += buf[i] == '\n';
    i = (size_t)ferror(f);
    fclose(f);
    return i ? -1 : 0;
}

/* The tool records nothing: its collector's clock is never read, and names none of its own. */
static uint64_t no_clock(void *user)
{
    (void)user;
    return 0;
}

static int write_chrome(const ttft_tpot *c, const char *path)
{
    FILE *f = fopen(path, "w");
    int rc;
    if (!f) {
        fprintf(stderr, "ttft_tpot_report: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    rc = ttft_tpot_chrome_trace(c, f);
    if (fclose(f) != 0 || rc != TTFT_TPOT_OK) {
        fprintf(stderr, "ttft_tpot_report: writing %s failed\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *chrome = NULL, *kernel = NULL;
    int json = 0, prometheus = 0, has_slo = 0, first = 0, i, rc, status = 0;
    ttft_tpot_slo slo;
    size_t lines = 0;
    ttft_tpot c;
    ttft_tpot_config cfg;
    char err[512];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--prometheus") == 0) {
            prometheus = 1;
        } else if (strcmp(argv[i], "--slo") == 0) {
            if (i + 1 >= argc || ttft_tpot_slo_parse(argv[i + 1], &slo) != TTFT_TPOT_OK)
                return usage_error("--slo takes ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), not ",
                                   i + 1 < argc ? argv[i + 1] : "nothing");
            has_slo = 1;
            i++;
        } else if (strcmp(argv[i], "--chrome-trace") == 0 || strcmp(argv[i], "--prefill-kernel") == 0) {
            if (i + 1 >= argc || !*argv[i + 1])
                return usage_error(argv[i], " needs a value");
            *(argv[i][2] == 'c' ? &chrome : &kernel) = argv[i + 1];
            i++;
        } else if (strcmp(argv[i], "--") == 0) {
            first = i + 1;
            break;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("unknown option ", argv[i]);
        } else {
            first = i;
            break;
        }
    }
    if (first == 0 || first >= argc)
        return usage_error("no trace given", "");
    if (json && prometheus)
        return usage_error("--json and --prometheus: one output at a time", "");
    for (i = first; i < argc; i++) {
        if (count_lines(argv[i], &lines) != 0) {
            fprintf(stderr, "ttft_tpot_report: cannot read %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
    }

    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = lines < UINT32_MAX ? lines : UINT32_MAX;
    cfg.max_phases = 65535;
    cfg.timeline = 1;
    cfg.max_requests = lines < (1u << 24) ? (unsigned)lines : 1u << 24; /* a line is at most one request */
    cfg.max_request_events = lines < UINT32_MAX ? lines : UINT32_MAX;
    cfg.clock = no_clock;
    cfg.clock_name = "not in the trace"; /* a trace's "# clock:" line replaces it */
    if (ttft_tpot_init(&c, &cfg) != TTFT_TPOT_OK) {
        fprintf(stderr, "ttft_tpot_report: out of memory for %lu samples\n", (unsigned long)lines);
        return 1;
    }
    for (i = first; i < argc && status == 0; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "ttft_tpot_report: cannot read %s: %s\n", argv[i], strerror(errno));
            status = 1;
            break;
        }
        rc = ttft_tpot_trace_read(&c, f, argv[i], err, sizeof err);
        fclose(f);
        if (rc != TTFT_TPOT_OK) {
            if (rc == TTFT_TPOT_EPARSE)
                fprintf(stderr, "%s\n", err);
            else
                fprintf(stderr, "ttft_tpot_report: %s: %s\n", argv[i], ttft_tpot_strerror(rc));
            status = 1;
        }
    }
    if (status == 0 && kernel) {
        int k = ttft_tpot_find_phase(&c, kernel);
        if (k < 0 || c.phases[k].role != TTFT_TPOT_ROLE_KERNEL) {
            fprintf(stderr, "ttft_tpot_report: --prefill-kernel: no kernel phase named '%s' in the traces\n", kernel);
            status = 1;
        } else {
            ttft_tpot_link_prefill_kernel(&c, k);
        }
    }
    if (has_slo)
        ttft_tpot_set_slo(&c, slo);
    if (status == 0 && chrome)
        status = write_chrome(&c, chrome);
    if (status == 0) {
        rc = json ? ttft_tpot_report_json(&c, stdout)
             : prometheus ? ttft_tpot_prometheus(&c, stdout, NULL, NULL)
                          : ttft_tpot_report(&c, stdout);
        if (rc != TTFT_TPOT_OK || fflush(stdout) != 0) {
            fprintf(stderr, "ttft_tpot_report: writing the report failed: %s\n",
                    ttft_tpot_strerror(rc ? rc : TTFT_TPOT_EIO));
            status = 1;
        }
    }
    ttft_tpot_free(&c);
    return status;
}
