/* ttft_tpot_trace_bench - what reading and reporting a large trace costs, measured in one run. It
   prints figures and ratios; it never passes or fails (timings on a shared machine are noisy).

   usage: ttft_tpot_trace_bench REPORT_BIN [--quick] [--dir DIR]
          [--part parse|memory|report|phase_stats|phases|ids|tools|writers|serving]

   - parse: the library's trace reader against a minimal in-place parser (the floor: block reads,
     fields split where they lie, the last phase cached, samples appended), on a realistic trace
     (several phases, decode dominating), alternated, medians of the repetitions;
   - memory: peak resident bytes of REPORT_BIN --json (and --bounded) over traces of 2e5 and 2e6
     lines (and 2e7 without --quick), per line and between sizes;
   - report: the exact JSON report of n decode samples against qsort and, where /usr/bin/python3
     has numpy, numpy's percentile, mean, min and max of the same values;
   - phase_stats: ttft_tpot_phase_stats of a phase of 1e6 and of 1e7 samples (1e5 and 1e6 with
     --quick), its time and page faults a call, and the larger's time against the smaller's;
   - the two inputs that were quadratic: 16,000 phases over 1e6 lines, and 100,000 request ids that
     collide under the 0.2 index hash (FNV-1a, unkeyed), in REPORT_BIN and in a live collector;
   - tools: REPORT_BIN --html against --json of one trace of 1e6 decode steps (1e5 with --quick), and
     --compare against --json of two, each pair alternated, with the ratios and their targets; then
     --compare against --json in this process (read, model, write: the tools header's comparison), and
     --html against --json of one collector read once (model and writer: the tools header's HTML page);
   - writers: the Chrome trace and the trace writer of 1e6 lines (with start times), and of a serving
     trace of 1e6 request events, each against one fwrite of its own output's bytes, alternated (the
     reports' output is small: they are compute, measured by report);
   - serving: REPORT_BIN --json over serving traces of 1e4, 1e5 and 1e6 requests x 100 tokens (64 in
     flight), time and peak memory, and each size's time against the one 10x smaller.
   Traces go to DIR (default /tmp) and are removed at the end. tests/callgrind_parse.sh counts the
   instructions of the parse's two readers instead (--callgrind-parse). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include "bench_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* tests/trace_bench.c: POSIX (fork, wait4, pipes) */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* About mean ns, spread +-1/8 (sum of two uniforms: a bell-ish shape). */
static uint64_t around(uint64_t mean)
{
    uint64_t spread = mean / 8 + 1;
    return mean - spread + next_u64() % spread + next_u64() % spread;
}

static FILE *create(const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* A driver's trace of about `lines` records: generations of 256 steps (a prefill, decode steps,
   every fourth step its four kernels, an e2e), the first of them cold. phases > 0: that many kernel
   phases instead, one per line at random (the many-phases case). */
static double write_trace(const char *path, size_t lines, unsigned phases)
{
    static const char *const kernels[4] = {"attention", "matmul_qkv", "matmul_ffn", "lm_head"};
    FILE *f = create(path);
    uint64_t t = 1000000000ull;
    size_t n = 0, step = 0;
    long bytes;
    fputs("# ttft_tpot trace v1\n# clock: CLOCK_MONOTONIC, 20 ns/read\nphase,role,start_ns,dur_ns,tokens,warmup\n", f);
    while (n < lines) {
        uint64_t d;
        int cold = n < 300;
        if (phases) {
            d = around(40000);
            fprintf(f, "k%u,kernel,%llu,%llu,0,%d\n", (unsigned)(next_u64() % phases), (unsigned long long)t,
                    (unsigned long long)d, n < phases);
        } else if (step % 256 == 0) {
            d = cold ? 6000000000ull : around(180000000);
            fprintf(f, "prefill,prefill,%llu,%llu,1,%d\n", (unsigned long long)t, (unsigned long long)d, cold);
        } else if (step % 256 == 255) {
            d = around(1000000000);
            fprintf(f, "generate,e2e,%llu,%llu,256,%d\n", (unsigned long long)t, (unsigned long long)d, cold);
        } else {
            unsigned k;
            d = step % 256 == 1 && cold ? 240000000ull : around(3220000);
            fprintf(f, "decode_step,decode,%llu,%llu,1,%d\n", (unsigned long long)t, (unsigned long long)d,
                    step % 256 == 1 && cold);
            for (k = 0; step % 4 == 0 && k < 4 && n + 1 < lines; k++, n++)
                fprintf(f, "%s,kernel,%llu,%llu,0,%d\n", kernels[k], (unsigned long long)(t + k * 1000),
                        (unsigned long long)around(200000 << k), cold && step < 8);
        }
        t += d + 5000;
        step++;
        n++;
    }
    bytes = ftell(f);
    fclose(f);
    return (double)bytes;
}

/* The floor: what any reader of this format must do, and no more. Blocks read with fread, each line
   split at its commas where it lies, the numbers parsed, the phase found by a cache of the last one
   (then a scan of a small table), the sample appended to an array that grows. */
typedef struct floor_sample {
    uint64_t dur;
    uint32_t tokens;
    uint16_t phase, warmup;
} floor_sample;

static uint64_t floor_u64(const char *s, const char *e)
{
    uint64_t v = 0;
    for (; s < e; s++)
        v = v * 10 + (uint64_t)(*s - '0');
    return v;
}

/* The floors' lines: 1 MiB blocks read with fread, each line found with memchr and split at its first
   five commas where it lies. */
enum { FLOOR_BLOCK = 1 << 20 };
typedef struct floor_lines {
    FILE *f;
    char *buf;
    size_t have, at;
    int done;
} floor_lines;

/* The next line's fields into field[0, 6): how many (the last ends at the line's newline), 0 at the end. */
static inline int floor_line(floor_lines *r, const char **field)
{
    const char *p;
    char *nl;
    int nf = 0;
    while ((nl = (char *)memchr(r->buf + r->at, '\n', r->have - r->at)) == NULL) {
        size_t got;
        if (r->done)
            return 0;
        memmove(r->buf, r->buf + r->at, r->have - r->at);
        r->have -= r->at;
        r->at = 0;
        got = fread(r->buf + r->have, 1, FLOOR_BLOCK - r->have, r->f);
        r->have += got;
        r->done = got == 0;
    }
    p = r->buf + r->at;
    r->at = (size_t)(nl - r->buf) + 1;
    field[nf++] = p;
    for (; p < nl && nf < 6; p++)
        if (*p == ',')
            field[nf++] = p + 1;
    return nf;
}

static floor_lines floor_open(const char *path)
{
    static char buf[FLOOR_BLOCK];
    floor_lines r;
    r.f = fopen(path, "rb");
    r.buf = buf;
    r.have = r.at = 0;
    r.done = 0;
    return r;
}

static size_t floor_parse(const char *path, floor_sample **out)
{
    char names[64][64];
    size_t n = 0, cap = 1024, len, lens[64] = {0};
    unsigned nphases = 0, last = 0, k;
    int header = 1;
    floor_lines r = floor_open(path);
    floor_sample *s = (floor_sample *)malloc(cap * sizeof *s);
    const char *field[6];
    while (floor_line(&r, field)) {
        if (field[0][0] == '#' || header) {
            header &= field[0][0] == '#';
            continue;
        }
        if (!(len = (size_t)(field[1] - 1 - field[0])) || len != lens[last] || memcmp(names[last], field[0], len)) {
            for (k = 0; k < nphases && (lens[k] != len || memcmp(names[k], field[0], len)); k++)
                ;
            if (k == nphases && nphases < 64) {
                memcpy(names[k], field[0], len);
                lens[nphases++] = len;
            }
            last = k;
        }
        if (n == cap)
            s = (floor_sample *)realloc(s, (cap *= 2) * sizeof *s);
        s[n].dur = floor_u64(field[3], field[4] - 1);
        s[n].tokens = (uint32_t)floor_u64(field[4], field[5] - 1);
        s[n].phase = (uint16_t)last;
        s[n++].warmup = (uint16_t)(field[5][0] - '0');
    }
    fclose(r.f);
    *out = s;
    return n;
}

/* The trace at path read by the library into a growing collector: its stored samples, or (what 1) its
   decode-role samples, or (what 2) its requests. */
/* A collector as the report tool makes one: it grows to fit what it reads, its requests in a serving
   layer allocated with it (tool_collector_free frees both). */
static void tool_collector(ttft_tpot *c)
{
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    ttft_tpot_serve *s = (ttft_tpot_serve *)malloc(sizeof *s);
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.grow = 1;
    cfg.capacity = 4096;
    cfg.max_phases = 65535;
    sc.max_requests = 64;
    sc.max_request_events = 1024;
    if (!s || ttft_tpot_init(c, &cfg) != TTFT_TPOT_OK || ttft_tpot_serve_attach(s, c, &sc) != TTFT_TPOT_OK)
        exit(1);
}

static void tool_collector_free(ttft_tpot *c)
{
    ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    ttft_tpot_serve_free(s);
    free(s);
    ttft_tpot_free(c);
}

static size_t library_read(const char *path, int what)
{
    ttft_tpot c;
    ttft_tpot_summary s;
    char err[256];
    FILE *f = fopen(path, "rb");
    size_t n;
    tool_collector(&c);
    if (ttft_tpot_trace_read(&c, f, path, err, sizeof err) != TTFT_TPOT_OK)
        fprintf(stderr, "%s\n", err);
    fclose(f);
    n = what == 2 ? ttft_tpot_counts_of(&c).requests : ttft_tpot_counts_of(&c).samples;
    if (what == 1)
        n = ttft_tpot_summarize(&c, &s) == TTFT_TPOT_OK ? (size_t)(s.tpot.n + s.tpot_excluded) : 0;
    tool_collector_free(&c);
    return n;
}

/* --callgrind-parse MODE PATH: one read of the trace at PATH, by the floor (MODE floor) or by the
   library (MODE library), each in a function of its own that tests/callgrind_parse.sh counts. */
#if defined(__GNUC__) || defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline))
#else
#define BENCH_NOINLINE
#endif
static BENCH_NOINLINE size_t count_floor(const char *path)
{
    floor_sample *s;
    size_t n = floor_parse(path, &s);
    free(s);
    return n;
}

static BENCH_NOINLINE size_t count_library(const char *path)
{
    return library_read(path, 0);
}

static int callgrind_parse(const char *mode, const char *path)
{
    size_t n = strcmp(mode, "write") == 0     ? (size_t)write_trace(path, 1000000, 0)
               : strcmp(mode, "floor") == 0 ? count_floor(path)
                                            : count_library(path);
    printf("%zu\n", n);
    return 0;
}

static void bench_parse(const char *path, size_t lines)
{
    double bytes = write_trace(path, lines, 0), lib[5], flo[5], ratio[5];
    size_t a = 0, b = 0;
    int r;
    for (r = 0; r < 5; r++) { /* alternated: a slow stretch of the machine slows both */
        floor_sample *s;
        double t0 = now_s();
        b = floor_parse(path, &s);
        flo[r] = now_s() - t0;
        free(s);
        t0 = now_s();
        a = library_read(path, 0);
        lib[r] = now_s() - t0;
        ratio[r] = lib[r] / flo[r];
    }
    printf("parse %zu lines (%.0f MB): ttft_tpot_trace_read %.0f MB/s (%.3f s), floor %.0f MB/s (%.3f s), "
           "ratio %.2f (samples %zu / %zu)\n",
           lines, bytes / 1e6, bytes / 1e6 / median(lib, 5), median(lib, 5), bytes / 1e6 / median(flo, 5),
           median(flo, 5), median(ratio, 5), a, b);
}

/* REPORT_BIN runs are started by a launcher forked first thing, while this process is small: a
   child's peak resident size counts what it had before exec, which for a child of this process
   would be this process's buffers. */
typedef struct launch {
    char arg[6][512]; /* argv, up to the first empty one */
} launch;

typedef struct launched {
    double wall, user, sys; /* seconds: wall clock, and the child's CPU time in itself and in the kernel */
    long peak_kib;          /* -1: the run failed */
} launched;

static int to_launcher = -1, from_launcher = -1;

static launched launch_one(const launch *l)
{
    launched out;
    struct rusage ru;
    int st;
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[7];
        int k;
        for (k = 0; k < 6 && l->arg[k][0]; k++)
            argv[k] = (char *)l->arg[k];
        argv[k] = NULL;
        if (!freopen("/dev/null", "w", stdout))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    out.peak_kib = -1;
    out.user = out.sys = 0;
    if (pid > 0 && wait4(pid, &st, 0, &ru) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        out.peak_kib = ru.ru_maxrss;
        out.user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
        out.sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    }
    out.wall = now_s() - t0;
    return out;
}

static void launcher_start(void)
{
    int req[2], res[2];
    launch l;
    if (pipe(req) != 0 || pipe(res) != 0)
        exit(1);
    if (fork() == 0) {
        close(req[1]);
        close(res[0]);
        while (read(req[0], &l, sizeof l) == (ssize_t)sizeof l) {
            launched out = launch_one(&l);
            if (write(res[1], &out, sizeof out) != (ssize_t)sizeof out)
                break;
        }
        _exit(0);
    }
    close(req[0]);
    close(res[1]);
    to_launcher = req[1];
    from_launcher = res[0];
}

/* args[0..] (at most 6, NULL-terminated) > /dev/null: wall seconds (-1: it failed), and peak resident
   KiB. */
static launched launch_argv(const char *const *args)
{
    launch l;
    launched out;
    int k;
    memset(&l, 0, sizeof l);
    for (k = 0; k < 6 && args[k]; k++)
        snprintf(l.arg[k], sizeof l.arg[k], "%s", args[k]);
    if (write(to_launcher, &l, sizeof l) != (ssize_t)sizeof l ||
        read(from_launcher, &out, sizeof out) != (ssize_t)sizeof out)
        exit(1);
    return out;
}

static double run_argv(const char *const *args, long *peak_kib)
{
    launched out = launch_argv(args);
    *peak_kib = out.peak_kib;
    if (out.peak_kib < 0)
        fprintf(stderr, "ttft_tpot_trace_bench: %s %s ... failed\n", args[0], args[1] ? args[1] : "");
    return out.peak_kib < 0 ? -1 : out.wall;
}

/* REPORT_BIN [opt] --json path > /dev/null: wall seconds (-1: it failed), and peak resident KiB. */
static double run_tool(const char *bin, const char *opt, const char *path, long *peak_kib)
{
    const char *with[] = {bin, opt, "--json", path, NULL}, *without[] = {bin, "--json", path, NULL};
    return run_argv(opt ? with : without, peak_kib);
}

/* A collector as the report tool makes one, with the traces read into it. */
static void read_into(ttft_tpot *c, const char *const *paths, int n)
{
    char err[256];
    int k;
    tool_collector(c);
    for (k = 0; k < n; k++) {
        FILE *f = fopen(paths[k], "rb");
        if (!f || ttft_tpot_trace_read(c, f, paths[k], err, sizeof err) != TTFT_TPOT_OK)
            exit(1);
        fclose(f);
    }
}

/* In the process, what --json A B and --compare A B do, each to /dev/null: seconds. */
static double in_process(const char *a, const char *b, int compare)
{
    const char *both[2];
    ttft_tpot c[2];
    ttft_tpot_model m[2];
    FILE *out = fopen("/dev/null", "w");
    double t0 = now_s(), t;
    int k, n = compare ? 2 : 1;
    both[0] = a, both[1] = b;
    for (k = 0; k < n; k++) {
        read_into(&c[k], compare ? both + k : both, compare ? 1 : 2);
        if (ttft_tpot_model_compute(&c[k], NULL, &m[k]) != TTFT_TPOT_OK)
            exit(1);
    }
    if (compare) {
        ttft_tpot_compare_options o = ttft_tpot_compare_defaults();
        ttft_tpot_compare_result res;
        if (ttft_tpot_compare_models(&m[0], &m[1], &o, &res) != TTFT_TPOT_OK)
            exit(1);
        ttft_tpot_compare_text(out, &res);
        ttft_tpot_compare_free(&res);
    } else
        ttft_tpot_model_write(&m[0], out, TTFT_TPOT_FORMAT_JSON);
    t = now_s() - t0;
    for (k = 0; k < n; k++) {
        ttft_tpot_model_free(&m[k]);
        tool_collector_free(&c[k]);
    }
    fclose(out);
    return t;
}

/* In the process, on one collector already read: its model and the JSON report (html 0), or its model and
   the HTML report (html 1), each to /dev/null: seconds. */
static double report_of(const ttft_tpot *c, const char *name, int html)
{
    const ttft_tpot_model *one[1];
    ttft_tpot_model m;
    FILE *out = fopen("/dev/null", "w");
    double t0 = now_s(), t;
    if (ttft_tpot_model_compute(c, NULL, &m) != TTFT_TPOT_OK)
        exit(1);
    one[0] = &m;
    if (html ? ttft_tpot_html_report(out, one, &name, 1, NULL) != 0
             : ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON) != TTFT_TPOT_OK)
        exit(1);
    t = now_s() - t0;
    ttft_tpot_model_free(&m);
    fclose(out);
    return t;
}

/* The tools against the JSON report of the same traces, in one run: --html against --json of one
   trace, --compare against --json of both, on two driver traces of about `decode` decode steps each
   (with their prefills, kernels and e2e lines), alternated, medians of 5. */
static void bench_tools(const char *bin, const char *dir, size_t decode)
{
    char a[512], b[512], html[512];
    const char *runs[4][6] = {{bin, "--json", a, NULL}, {bin, "--html", html, a, NULL},
                              {bin, "--json", a, b, NULL}, {bin, "--compare", a, b, NULL}};
    double t[4][5], ratio[2][5];
    long peak;
    int r, k;
    snprintf(a, sizeof a, "%s/ttft_tpot_tools.%ld.a.csv", dir, (long)getpid());
    snprintf(b, sizeof b, "%s/ttft_tpot_tools.%ld.b.csv", dir, (long)getpid());
    snprintf(html, sizeof html, "%s/ttft_tpot_tools.%ld.html", dir, (long)getpid());
    write_trace(a, decode * 512 / 254, 0); /* 254 decode lines in 512: a prefill, an e2e, 256 kernels */
    write_trace(b, decode * 512 / 254, 0);
    printf("tools: each trace %zu decode samples (%s)\n", library_read(a, 1), a);
    for (r = 0; r < 5; r++) {
        for (k = 0; k < 4; k++)
            t[k][r] = run_argv(runs[k], &peak);
        ratio[0][r] = t[1][r] / t[0][r];
        ratio[1][r] = t[3][r] / t[2][r];
    }
    printf("tools: --json A %.3f s, --html OUT A %.3f s: ratio %.2f (target <= 1.5)\n", median(t[0], 5),
           median(t[1], 5), median(ratio[0], 5));
    printf("tools: --json A B %.3f s, --compare A B %.3f s: ratio %.2f (target <= 2)\n", median(t[2], 5),
           median(t[3], 5), median(ratio[1], 5));
    for (r = 0; r < 5; r++) { /* the same in the process: reads, models, writers; no process start */
        t[2][r] = in_process(a, b, 0);
        t[3][r] = in_process(a, b, 1);
        ratio[1][r] = t[3][r] / t[2][r];
    }
    printf("tools: in the process, --json A B %.3f s, --compare A B %.3f s: ratio %.2f (target <= 2)\n",
           median(t[2], 5), median(t[3], 5), median(ratio[1], 5));
    { /* --html against --json in the process, one collector read once: the model and the writer */
        ttft_tpot c;
        const char *one[1];
        one[0] = a;
        read_into(&c, one, 1);
        (void)report_of(&c, a, 1); /* a first run, thrown away: page faults, the allocator's first growth */
        for (r = 0; r < 5; r++) {
            t[0][r] = report_of(&c, a, 0);
            t[1][r] = report_of(&c, a, 1);
            ratio[0][r] = t[1][r] / t[0][r];
        }
        printf("tools: in the process, one collector: --json A %.3f s, --html A %.3f s: ratio %.2f (target <= 1.5)\n",
               median(t[0], 5), median(t[1], 5), median(ratio[0], 5));
        tool_collector_free(&c);
    }
    remove(a);
    remove(b);
    remove(html);
}

static void bench_memory(const char *bin, const char *path, int quick)
{
    static const size_t sizes[3] = {200000, 2000000, 20000000};
    const char *modes[2] = {NULL, "--bounded"};
    long peak[2][3], empty[2];
    int m, k, nk = quick ? 2 : 3;
    write_trace(path, 0, 0);
    for (m = 0; m < 2; m++)
        run_tool(bin, modes[m], path, &empty[m]);
    for (k = 0; k < nk; k++) {
        write_trace(path, sizes[k], 0);
        for (m = 0; m < 2; m++)
            run_tool(bin, modes[m], path, &peak[m][k]);
    }
    for (m = 0; m < 2; m++) {
        if (empty[m] < 0 || peak[m][0] < 0 || peak[m][nk - 1] < 0) {
            printf("memory %s: the tool failed\n", modes[m] ? "--bounded" : "exact");
            continue;
        }
        printf("memory %s: empty trace %.1f MiB", modes[m] ? "--bounded" : "exact", (double)empty[m] / 1024);
        for (k = 0; k < nk; k++)
            printf("; %.0e lines %.1f MiB, %.1f bytes/line", (double)sizes[k], (double)peak[m][k] / 1024,
                   (double)peak[m][k] * 1024 / (double)sizes[k]);
        printf("; between %.0e and %.0e: %.1f bytes/line\n", (double)sizes[0], (double)sizes[nk - 1],
               (double)(peak[m][nk - 1] - peak[m][0]) * 1024 / (double)(sizes[nk - 1] - sizes[0]));
    }
}

/* The qsort baseline: the same figures from a sorted copy. */
static double qsort_figures(const uint64_t *v, size_t n, uint64_t *work)
{
    double t0 = now_s(), sum = 0, out[4];
    static const unsigned p[4] = {50, 90, 95, 99};
    size_t i;
    memcpy(work, v, n * sizeof *v);
    qsort(work, n, sizeof *work, cmp_u64);
    for (i = 0; i < n; i++)
        sum += (double)work[i];
    for (i = 0; i < 4; i++) {
        double h = (double)(n - 1) * p[i] / 100, fl = (double)(size_t)h;
        size_t k = (size_t)h;
        out[i] = (double)work[k] + (h - fl) * (double)(work[k + (k + 1 < n)] - work[k]);
    }
    if (out[0] < 0 || sum < 0)
        puts("?");
    return now_s() - t0;
}

/* numpy's percentile, mean, min and max of the values in path, in ms (median of 5), or -1. */
static double numpy_ms(const char *path)
{
    char cmd[1024];
    double ms = -1;
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import time, numpy as np\n"
             "x = np.fromfile(\"%s\", dtype=np.uint64)\nts = []\n"
             "for _ in range(5):\n"
             "    t = time.perf_counter(); np.percentile(x, [50, 90, 95, 99]); x.mean(); x.min(); x.max()\n"
             "    ts.append(time.perf_counter() - t)\n"
             "print(sorted(ts)[2] * 1e3)' 2>/dev/null",
             path);
    if ((p = popen(cmd, "r")) != NULL) {
        if (fscanf(p, "%lf", &ms) != 1)
            ms = -1;
        pclose(p);
    }
    return ms;
}

static void bench_report(const char *path, int quick)
{
    static const size_t sizes[3] = {100000, 1000000, 10000000};
    int k;
    for (k = 0; k < (quick ? 2 : 3); k++) {
        size_t n = sizes[k], i;
        uint64_t *v = (uint64_t *)malloc(n * sizeof *v), *work = (uint64_t *)malloc(n * sizeof *v);
        ttft_tpot c;
        ttft_tpot_config cfg;
        double rep[5], qs[5], np;
        FILE *devnull = fopen("/dev/null", "w"), *raw;
        int r, dec;
        memset(&cfg, 0, sizeof cfg);
        cfg.capacity = n;
        ttft_tpot_init(&c, &cfg);
        dec = ttft_tpot_phase(&c, "decode_step", TTFT_TPOT_ROLE_DECODE);
        for (i = 0; i < n; i++) {
            v[i] = around(3220000);
            record(&c, dec, v[i], 1);
        }
        for (r = 0; r < 5; r++) {
            double t0 = now_s();
            report_json(&c, devnull);
            rep[r] = now_s() - t0;
            qs[r] = qsort_figures(v, n, work);
        }
        raw = create(path);
        fwrite(v, sizeof *v, n, raw);
        fclose(raw);
        np = numpy_ms(path);
        printf("report n=%.0e: JSON report %.1f ms, qsort %.1f ms (ratio %.2f)", (double)n, median(rep, 5) * 1e3,
               median(qs, 5) * 1e3, median(rep, 5) / median(qs, 5));
        if (np > 0)
            printf(", numpy percentile+mean+min+max %.1f ms (ratio %.2f)\n", np, median(rep, 5) * 1e3 / np);
        else
            printf(", numpy: not available (/usr/bin/python3 with numpy)\n");
        fclose(devnull);
        ttft_tpot_free(&c);
        free(v);
        free(work);
    }
}

/* The minor page faults of this process so far. */
static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* ttft_tpot_phase_stats of a decode phase of n samples in a store that holds a kernel sample beside each
   (2 n stored), at n and 10 n (1e6 and 1e7; 1e5 and 1e6 with --quick), alternated, medians of 5: its
   time and the minor page faults of a call (the memory it touches fresh), and the larger's time
   against the smaller's (10 for a cost linear in n). */
static void bench_phase_stats(int quick)
{
    ttft_tpot c[2];
    ttft_tpot_config cfg;
    ttft_tpot_stats st;
    double t[2][5];
    long faults[2] = {0, 0};
    size_t n[2], i;
    int k, r, dec[2];
    n[0] = quick ? 100000 : 1000000;
    n[1] = 10 * n[0];
    for (k = 0; k < 2; k++) {
        int kern;
        memset(&cfg, 0, sizeof cfg);
        cfg.capacity = 2 * n[k];
        ttft_tpot_init(&c[k], &cfg);
        dec[k] = ttft_tpot_phase(&c[k], "decode_step", TTFT_TPOT_ROLE_DECODE);
        kern = ttft_tpot_phase(&c[k], "attention", TTFT_TPOT_ROLE_KERNEL);
        for (i = 0; i < n[k]; i++) {
            record(&c[k], kern, around(200000), 0);
            record(&c[k], dec[k], around(3220000), 1);
        }
        ttft_tpot_phase_stats(&c[k], dec[k], &st); /* a first call, thrown away */
    }
    for (r = 0; r < 5; r++)
        for (k = 0; k < 2; k++) {
            long f0 = minor_faults();
            double t0 = now_s();
            ttft_tpot_phase_stats(&c[k], dec[k], &st);
            t[k][r] = now_s() - t0;
            faults[k] += minor_faults() - f0;
        }
    for (k = 0; k < 2; k++)
        printf("phase_stats: a phase of %.0e samples in a store of %.0e: %.2f ms, %ld minor page faults a call\n",
               (double)n[k], (double)(2 * n[k]), median(t[k], 5) * 1e3, faults[k] / 5);
    printf("phase_stats: %.0e against %.0e samples: %.1fx the time (10x: linear)\n", (double)n[1], (double)n[0],
           median(t[1], 5) / median(t[0], 5));
    for (k = 0; k < 2; k++)
        ttft_tpot_free(&c[k]);
}

/* Seconds to write what fn writes of c to path (closed, so that it reached the file), and its size. */
static double time_writer(int (*fn)(const ttft_tpot *, FILE *), const ttft_tpot *c, const char *path, long *size)
{
    double t0 = now_s();
    FILE *f = create(path);
    fn(c, f);
    *size = ftell(f);
    fclose(f);
    return now_s() - t0;
}

/* Seconds to write len bytes of buf to path: the floor of any writer of that output. */
static double time_copy(const char *buf, size_t len, const char *path)
{
    double t0 = now_s();
    FILE *f = create(path);
    fwrite(buf, 1, len, f);
    fclose(f);
    return now_s() - t0;
}

/* Each writer of the trace at path read with start times (the Chrome trace needs them), against
   writing its own output's bytes with one fwrite: alternated, medians of 5. */
static void writers_of(const char *path, const char *what, size_t lines)
{
    static const struct {
        const char *name;
        int (*fn)(const ttft_tpot *, FILE *);
    } w[2] = {{"chrome trace", ttft_tpot_chrome_trace}, {"trace", ttft_tpot_trace_write}};
    char out[600], copy[600], err[256];
    ttft_tpot c;
    ttft_tpot_serve srv; /* a serving trace's requests: its tables grow with the collector */
    ttft_tpot_config cfg;
    FILE *f;
    int k, r;
    memset(&cfg, 0, sizeof cfg);
    cfg.grow = 1;
    cfg.timeline = 1;
    cfg.capacity = lines + 1024;
    ttft_tpot_init(&c, &cfg);
    ttft_tpot_serve_attach(&srv, &c, NULL);
    f = fopen(path, "rb");
    if (!f || ttft_tpot_trace_read(&c, f, path, err, sizeof err) != TTFT_TPOT_OK)
        fprintf(stderr, "%s\n", err);
    if (f)
        fclose(f);
    snprintf(out, sizeof out, "%s.out", path);
    snprintf(copy, sizeof copy, "%s.copy", path);
    for (k = 0; k < 2; k++) {
        double wt[5], ct[5];
        long size = 0;
        char *buf;
        time_writer(w[k].fn, &c, out, &size); /* once, to have its bytes */
        buf = (char *)malloc((size_t)size + 1);
        f = fopen(out, "rb");
        if (!buf || !f || fread(buf, 1, (size_t)size, f) != (size_t)size)
            return;
        fclose(f);
        for (r = 0; r < 5; r++) {
            wt[r] = time_writer(w[k].fn, &c, out, &size);
            ct[r] = time_copy(buf, (size_t)size, copy);
        }
        printf("writer %-12s %zu %s: %.1f MB in %.3f s, one fwrite of the same bytes %.3f s: ratio %.2f\n",
               w[k].name, lines, what, (double)size / 1e6, median(wt, 5), median(ct, 5), median(wt, 5) / median(ct, 5));
        free(buf);
    }
    remove(out);
    remove(copy);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

static size_t write_serving(const char *path, size_t requests);

/* The writers of a driver's trace of `lines` samples, then of a serving trace of about as many
   request events (lines / 100 requests of 100 tokens). */
static void bench_writers(const char *path, size_t lines)
{
    write_trace(path, lines, 0);
    writers_of(path, "lines", lines);
    writers_of(path, "events", write_serving(path, lines / 100));
}

/* A server's trace: `requests` requests of 100 tokens each, 64 in flight (continuous batching: a step
   gives each request in flight a token event, and a request that has its 100 tokens is replaced by the
   next submit). Returns the lines written. */
static size_t write_serving(const char *path, size_t requests)
{
    FILE *f = create(path);
    size_t next = 0, lines = 0, k, slot[64], left[64];
    uint64_t t = 1000000000;
    int busy = 1;
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    for (k = 0; k < 64; k++)
        left[k] = 0;
    while (busy) {
        busy = 0;
        for (k = 0; k < 64; k++) {
            if (!left[k] && next < requests && (next >= 64 || k <= next)) { /* the first 64 start a step apart */
                slot[k] = next++;
                left[k] = 100;
                fprintf(f, "req-%zu,submit,%llu,0,0,0\n", slot[k], (unsigned long long)t);
                lines++;
            } else if (left[k]) {
                fprintf(f, "req-%zu,token,%llu,0,1,0\n", slot[k], (unsigned long long)t);
                left[k]--;
                lines++;
            }
            busy |= left[k] != 0 || next < requests;
        }
        t += 20000000; /* a 20 ms step */
    }
    fclose(f);
    return lines;
}

/* The floor of a serving trace: blocks read with fread, each line split at its commas where it lies,
   the time and tokens parsed, the request id found in an open-addressing table (FNV-1a, unkeyed;
   the ids in one array), the event (time, request, tokens: 16 bytes) appended to an array that grows.
   Returns the requests. */
typedef struct floor_event {
    uint64_t t;
    uint32_t request, tokens;
} floor_event;

static uint32_t fnv1a(const char *s, size_t len);

static size_t floor_serving(const char *path)
{
    enum { ID = 24 };
    size_t n = 0, cap = 1024, ids = 0, mask = 1023, len, i;
    uint32_t *index = (uint32_t *)calloc(mask + 1, sizeof *index);
    char(*id)[ID] = (char(*)[ID])malloc((mask + 1) / 2 * ID);
    floor_event *ev = (floor_event *)malloc(cap * sizeof *ev);
    floor_lines r = floor_open(path);
    const char *field[6];
    int header = 1;
    while (floor_line(&r, field)) {
        if (header) {
            header = 0;
            continue;
        }
        len = (size_t)(field[1] - 1 - field[0]);
        for (i = fnv1a(field[0], len) & mask; index[i]; i = (i + 1) & mask)
            if (memcmp(id[index[i] - 1], field[0], len) == 0 && id[index[i] - 1][len] == '\0')
                break;
        if (!index[i]) { /* a new id: the table stays under half full */
            memcpy(id[ids], field[0], len);
            id[ids][len] = '\0';
            index[i] = (uint32_t)++ids;
            if (2 * ids > mask) {
                size_t j, k;
                free(index);
                mask = 2 * mask + 1;
                index = (uint32_t *)calloc(mask + 1, sizeof *index);
                id = (char(*)[ID])realloc(id, (mask + 1) / 2 * ID);
                for (j = 0; j < ids; j++) {
                    for (k = fnv1a(id[j], strlen(id[j])) & mask; index[k]; k = (k + 1) & mask)
                        ;
                    index[k] = (uint32_t)j + 1;
                }
                for (i = fnv1a(field[0], len) & mask; index[i] != ids; i = (i + 1) & mask)
                    ;
            }
        }
        if (n == cap)
            ev = (floor_event *)realloc(ev, (cap *= 2) * sizeof *ev);
        ev[n].t = floor_u64(field[2], field[3] - 1);
        ev[n].request = index[i] - 1;
        ev[n++].tokens = (uint32_t)floor_u64(field[4], field[5] - 1);
    }
    fclose(r.f);
    free(index);
    free(id);
    free(ev);
    return n ? ids : 0;
}

static const char *self; /* this program, run with --touch */

/* The kernel's floor of a run that reads path and peaks at peak_kib: `cat path` and a process that
   touches as many bytes (--touch), printed with their system time. */
static void kernel_floor(const char *path, long peak_kib)
{
    char bytes[32];
    const char *cat[] = {"/bin/cat", path, NULL}, *mem[] = {self, "--touch", bytes, NULL};
    launched a, b;
    snprintf(bytes, sizeof bytes, "%ld", peak_kib * 1024);
    a = launch_argv(cat);
    b = launch_argv(mem);
    printf("  kernel floor: cat of the trace %.2f s (system %.2f s), touching %.0f MiB %.2f s (system %.2f s)\n",
           a.wall, a.sys, (double)peak_kib / 1024, b.wall, b.sys);
}

/* Serving traces of 1e4, 1e5 and (without --quick) 1e6 requests x 100 tokens through REPORT_BIN --json:
   time (wall, and the process's user and system CPU), peak memory, per event and against the size
   before (linear: 10x), and the kernel's floor of the same file and peak (kernel_floor). Up to 1e5 requests, the read alone against its floor (floor_serving), in this
   process, alternated, medians of 5. */
static void bench_serving(const char *bin, const char *path, int quick)
{
    double last = 0, last_user = 0;
    size_t n;
    for (n = 10000; n <= (quick ? 100000u : 1000000u); n *= 10) {
        size_t lines = write_serving(path, n), a = 0, b = 0;
        const char *args[] = {bin, "--json", path, NULL};
        launched run = launch_argv(args);
        if (run.peak_kib < 0) {
            fprintf(stderr, "ttft_tpot_trace_bench: %s --json %s failed\n", bin, path);
            return;
        }
        printf("serving %zu requests x 100 tokens (%zu events): %.2f s (user %.2f s, system %.2f s), %.0f ns an "
               "event, peak %.0f MiB (%.1f bytes an event)",
               n, lines, run.wall, run.user, run.sys, run.wall * 1e9 / (double)lines, (double)run.peak_kib / 1024,
               (double)run.peak_kib * 1024 / (double)lines);
        if (last > 0)
            printf(", %.1fx the time of 10x fewer (user %.1fx)", run.wall / last, run.user / last_user);
        putchar('\n');
        kernel_floor(path, run.peak_kib);
        last = run.wall;
        last_user = run.user;
        if (n <= 100000) {
            double lib[5], flo[5], ratio[5], t0;
            int r;
            for (r = 0; r < 5; r++) {
                t0 = now_s();
                b = floor_serving(path);
                flo[r] = now_s() - t0;
                t0 = now_s();
                a = library_read(path, 2);
                lib[r] = now_s() - t0;
                ratio[r] = lib[r] / flo[r];
            }
            printf("serving read %zu events: ttft_tpot_trace_read %.0f ns an event, floor %.0f ns: ratio %.2f "
                   "(requests %zu / %zu)\n",
                   lines, median(lib, 5) * 1e9 / (double)lines, median(flo, 5) * 1e9 / (double)lines,
                   median(ratio, 5), a, b);
        }
    }
}

/* The 0.2 index hash: FNV-1a, unkeyed. */
static uint32_t fnv1a(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

/* n ids of 12 printable bytes whose FNV-1a hashes agree in their low 20 bits (so in any index of up
   to 2^20 slots, the 0.2 tables included): a random 10-byte prefix, then the two last bytes solved
   for (multiplication by the odd FNV prime is invertible modulo 2^20). Or n random ids. */
static void make_ids(char (*ids)[16], size_t n, int collide)
{
    const uint32_t mask = (1u << 20) - 1, prime = 16777619u;
    uint32_t inv = prime, u;
    size_t i = 0;
    int k;
    for (k = 0; k < 5; k++) /* Newton: inv = prime^-1 mod 2^32 */
        inv *= 2u - prime * inv;
    u = (0x5A5A5u * inv) & mask; /* the value before the last multiply that lands on 0x5A5A5 */
    while (i < n) {
        uint32_t h;
        unsigned b1;
        for (k = 0; k < 10; k++)
            ids[i][k] = (char)('a' + next_u64() % 26);
        ids[i][12] = '\0';
        if (!collide) {
            ids[i][10] = (char)('a' + next_u64() % 26);
            ids[i][11] = (char)('a' + next_u64() % 26);
            i++;
            continue;
        }
        h = fnv1a(ids[i], 10);
        for (b1 = 0x21; b1 < 0x7f; b1++) {
            uint32_t m = (h ^ b1) * prime, b2 = (m ^ u) & 0xFF;
            if (((m ^ u) & mask & ~0xFFu) == 0 && b2 > 0x20 && b2 < 0x7f && b2 != ',' && b2 != '"' && b1 != ',' &&
                b1 != '"') {
                ids[i][10] = (char)b1;
                ids[i][11] = (char)b2;
                i++;
                break;
            }
        }
    }
}

/* Requests with ids: live (submit and 4 tokens each, into a collector sized for them) in us a
   request; and as a trace for REPORT_BIN, in s. */
static void bench_ids(const char *bin, const char *path, size_t n)
{
    char(*ids)[16] = (char(*)[16])malloc(n * sizeof *ids);
    int collide;
    for (collide = 0; collide < 2; collide++) {
        ttft_tpot c;
        ttft_tpot_serve srv;
        ttft_tpot_serve_config sc;
        FILE *f;
        size_t i;
        long peak;
        double t0, live, tool;
        int e;
        make_ids(ids, n, collide);
        memset(&sc, 0, sizeof sc);
        sc.max_requests = (unsigned)n;
        sc.max_request_events = 5 * n;
        ttft_tpot_init(&c, NULL);
        ttft_tpot_serve_attach(&srv, &c, &sc);
        t0 = now_s();
        for (i = 0; i < n; i++) {
            ttft_tpot_request_mark(&srv, ids[i], TTFT_TPOT_POINT_SUBMIT, 1000 + i);
            for (e = 1; e <= 4; e++)
                ttft_tpot_request_tokens(&srv, ids[i], 1000 + i + (uint64_t)e * 1000000, 1);
        }
        live = (now_s() - t0) / (double)n * 1e6;
        ttft_tpot_serve_free(&srv);
        ttft_tpot_free(&c);
        f = create(path);
        fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
        for (i = 0; i < n; i++) {
            fprintf(f, "%s,submit,%zu,0,0,0\n", ids[i], 1000 + i);
            for (e = 1; e <= 4; e++)
                fprintf(f, "%s,token,%zu,0,1,0\n", ids[i], 1000 + i + (size_t)e * 1000000);
        }
        fclose(f);
        tool = run_tool(bin, NULL, path, &peak);
        printf("ids %s: %zu requests, live collector %.2f us a request, %s %.2f s\n",
               collide ? "colliding under FNV-1a" : "random", n, live, bin, tool);
    }
    free(ids);
}

/* --touch BYTES: allocate them and write a byte a page, the kernel's part of a process of that peak
   (the floor of the serving runs' system time), then exit. */
static int touch(const char *bytes)
{
    size_t n = (size_t)strtoull(bytes, NULL, 10), i;
    volatile char *p = (volatile char *)malloc(n ? n : 1);
    if (!p)
        return 1;
    for (i = 0; i < n; i += 4096)
        p[i] = 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "/tmp", *bin = NULL, *part = "";
    char path[512];
    int i, quick = 0;
    long peak;
    if (argc == 3 && strcmp(argv[1], "--touch") == 0)
        return touch(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--callgrind-parse") == 0)
        return callgrind_parse(argv[2], argv[3]);
    self = argv[0];
    launcher_start();
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--part") == 0 && i + 1 < argc)
            part = argv[++i];
        else
            bin = argv[i];
    }
    if (!bin) {
        fputs("usage: ttft_tpot_trace_bench REPORT_BIN [--quick] [--dir DIR] [--part parse|memory|report|phase_stats|phases|ids|tools|writers|serving]\n",
              stderr);
        return 2;
    }
    bench_build_line("ttft_tpot_trace_bench");
    snprintf(path, sizeof path, "%s/ttft_tpot_trace_bench.%ld.csv", dir, (long)getpid());
    if (!*part || strcmp(part, "parse") == 0)
        bench_parse(path, quick ? 1000000 : 10000000);
    if (!*part || strcmp(part, "memory") == 0)
        bench_memory(bin, path, quick);
    if (!*part || strcmp(part, "report") == 0)
        bench_report(path, quick);
    if (!*part || strcmp(part, "phase_stats") == 0)
        bench_phase_stats(quick);
    if (!*part || strcmp(part, "phases") == 0) {
        write_trace(path, 1000000, 16000);
        printf("phases: 16000 phases x 1e6 lines: %s %.2f s\n", bin, run_tool(bin, NULL, path, &peak));
    }
    if (!*part || strcmp(part, "ids") == 0)
        bench_ids(bin, path, quick ? 20000 : 100000);
    if (!*part || strcmp(part, "tools") == 0)
        bench_tools(bin, dir, quick ? 100000 : 1000000);
    if (!*part || strcmp(part, "serving") == 0)
        bench_serving(bin, path, quick);
    if (!*part || strcmp(part, "writers") == 0)
        bench_writers(path, quick ? 100000 : 1000000);
    remove(path);
    return 0;
}
