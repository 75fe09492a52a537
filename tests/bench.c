/* ttft_tpot_bench - what a span, a report and a histogram cost, measured in one process.

   Variants are interleaved and repeated; each figure is the median of the repetitions, so a noisy
   neighbour moves every variant alike and the ratios hold. The last line is one JSON object.
   With --callgrind it runs only the loops that tests/callgrind_span.sh counts instructions of. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include "bench_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SPANS = 1000000, REPS = 9, REPORT_N = 1000000, REPORT_REPS = 7 };

static uint64_t rng = 88172645463325252ull;
/* log-uniform over [lo, hi) ns */
static uint64_t log_uniform(double lo, double hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint64_t)(lo * pow(hi / lo, (double)(rng >> 11) / 9007199254740992.0));
}

/* The physical floor of a span: two clock reads, a subtraction, a store. */
static double floor_ns(uint64_t *out)
{
    struct timespec a, b;
    double t0 = now_s();
    int i;
    for (i = 0; i < SPANS; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        BARRIER();
        clock_gettime(CLOCK_MONOTONIC, &b);
        out[i] = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
    }
    return (now_s() - t0) * 1e9 / SPANS;
}

static double span_ns(ttft_tpot *c, int phase)
{
    double t0;
    int i;
    ttft_tpot_clear(c);
    t0 = now_s();
    for (i = 0; i < SPANS; i++) {
        TTFT_TPOT_SPAN_BEGIN(s, c, phase);
        BARRIER();
        TTFT_TPOT_SPAN_END(s);
    }
    return (now_s() - t0) * 1e9 / SPANS;
}

static double hist_record_ns(ttft_tpot *c, int phase, const uint64_t *durs)
{
    double t0 = now_s();
    int i;
    for (i = 0; i < SPANS; i++)
        record(c, phase, durs[i], 1);
    return (now_s() - t0) * 1e9 / SPANS;
}

/* ---- callgrind: the same span with a counter for a clock, and the clock calls alone (bench_util.h) -- */

static int callgrind_mode(void)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    uint64_t *out = (uint64_t *)malloc(CALLGRIND_N * sizeof *out);
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = CALLGRIND_N;
    cfg.clock = bench_counter_clock;
    if (!out || ttft_tpot_init(&c, &cfg) != TTFT_TPOT_OK)
        return 1;
    bench_spans(&c, ttft_tpot_phase(&c, "span", TTFT_TPOT_ROLE_DECODE));
    bench_clock_only(&c, out);
    printf("callgrind loops: %d spans, %d clock pairs\n", CALLGRIND_N, CALLGRIND_N);
    ttft_tpot_free(&c);
    free(out);
    return 0;
}

int main(int argc, char **argv)
{
    double fl[REPS], sp[REPS], di[REPS], hr[REPS], rep[REPORT_REPS], qs[REPORT_REPS];
    ttft_tpot c, hc, ex, bd, big;
    ttft_tpot_config cfg;
    uint64_t *scratch, *durs, *copy;
    int phase, hphase, r, i, exact = 1;
    double max_err = 0, f, s, d, h, rm, qm;
    FILE *devnull;
    size_t bytes_per_sample;

    if (argc > 1 && strcmp(argv[1], "--callgrind") == 0)
        return callgrind_mode();
    bench_build_line("ttft_tpot_bench");
    scratch = (uint64_t *)malloc(SPANS * sizeof *scratch);
    durs = (uint64_t *)malloc(REPORT_N * sizeof *durs);
    copy = (uint64_t *)malloc(REPORT_N * sizeof *copy);
    devnull = fopen("/dev/null", "w");
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = SPANS;
    if (!scratch || !durs || !copy || !devnull || ttft_tpot_init(&c, &cfg) != TTFT_TPOT_OK)
        return 1;
    phase = ttft_tpot_phase(&c, "span", TTFT_TPOT_ROLE_DECODE);
    cfg.capacity = 1;
    cfg.hist_slots = 1;
    if (ttft_tpot_init(&hc, &cfg) != TTFT_TPOT_OK)
        return 1;
    hphase = ttft_tpot_phase(&hc, "bounded", TTFT_TPOT_ROLE_DECODE);
    ttft_tpot_phase_bounded(&hc, hphase);
    record(&hc, hphase, 1, 1); /* the first call: from here on every record is steady */
    for (i = 0; i < REPORT_N; i++)
        durs[i] = log_uniform(1, 3.6e12); /* 1 ns .. 1 h */

    printf("ttft_tpot_bench: clock %s, %llu ns/read; %d spans a repetition, median of %d\n", ttft_tpot_clock_name(&c),
           (unsigned long long)ttft_tpot_clock_read_ns(&c), SPANS, REPS);
    (void)floor_ns(scratch); /* calibration run, thrown away: page faults, frequency */
    (void)span_ns(&c, phase);
    for (r = 0; r < REPS; r++) { /* interleaved, the order rotating */
        for (i = 0; i < 4; i++) {
            switch ((i + r) % 4) {
            case 0: fl[r] = floor_ns(scratch); break;
            case 1: ttft_tpot_enable(&c, 1); sp[r] = span_ns(&c, phase); break;
            case 2: ttft_tpot_enable(&c, 0); di[r] = span_ns(&c, phase); break;
            default: hr[r] = hist_record_ns(&hc, hphase, durs); break;
            }
        }
    }
    f = median(fl, REPS);
    s = median(sp, REPS);
    d = median(di, REPS);
    h = median(hr, REPS);
    printf("floor_ns          %8.2f  two clock_gettime(CLOCK_MONOTONIC) + subtract + store\n", f);
    printf("span_ns           %8.2f  TTFT_TPOT_SPAN_BEGIN/END into an enabled collector (ratio %.3f)\n", s, s / f);
    printf("disabled_ns       %8.2f  the same span, collector disabled\n", d);
    printf("hist_record_ns    %8.2f  one record into a bounded phase\n", h);

    /* the report of one decode phase of 1e6 samples, against qsort of a copy of them */
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = REPORT_N;
    if (ttft_tpot_init(&big, &cfg) != TTFT_TPOT_OK)
        return 1;
    phase = ttft_tpot_phase(&big, "decode_step", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < REPORT_N; i++)
        record(&big, phase, durs[i], 1);
    for (r = 0; r < REPORT_REPS; r++) {
        double t0 = now_s();
        report_json(&big, devnull);
        rep[r] = (now_s() - t0) * 1e3;
        memcpy(copy, durs, REPORT_N * sizeof *copy);
        t0 = now_s();
        qsort(copy, REPORT_N, sizeof *copy, cmp_u64);
        qs[r] = (now_s() - t0) * 1e3;
    }
    rm = median(rep, REPORT_REPS);
    qm = median(qs, REPORT_REPS);
    { /* the report's figures are the sorted array's, exactly */
        ttft_tpot_stats st;
        static const unsigned ps[4] = {50, 90, 95, 99};
        double got[4];
        ttft_tpot_phase_stats(&big, phase, &st);
        got[0] = st.p50_ns;
        got[1] = st.p90_ns;
        got[2] = st.p95_ns;
        got[3] = st.p99_ns;
        for (i = 0; i < 4; i++) {
            uint64_t hh = (uint64_t)(REPORT_N - 1) * ps[i];
            size_t k = (size_t)(hh / 100);
            double want = (double)copy[k] + (double)(hh % 100) / 100.0 * (double)(copy[k + 1] - copy[k]);
            exact &= got[i] == want;
        }
    }
    printf("report_ms_1e6     %8.2f  every statistic of the JSON report, one decode phase of 1e6 samples%s\n", rm,
           exact ? " (exact: equal to the sorted array's)" : " (NOT EXACT)");
    printf("qsort_ms_1e6      %8.2f  glibc qsort of a copy of the same samples (ratio %.3f)\n", qm, rm / qm);

    /* memory: exact storage per sample, one bounded phase */
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 1000001;
    bytes_per_sample = ttft_tpot_bytes_needed(&cfg);
    cfg.capacity = 1;
    bytes_per_sample = (bytes_per_sample - ttft_tpot_bytes_needed(&cfg)) / 1000000;
    printf("bytes_per_sample  %8zu  exact storage\n", bytes_per_sample);
    printf("hist_bytes        %8zu  one bounded phase (%d buckets)\n", sizeof(ttft_tpot_hist), TTFT_TPOT_HIST_BUCKETS);

    /* histogram error against exact percentiles, 1e6 log-uniform samples of 1 ns .. 1 h */
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = REPORT_N + 1;
    if (ttft_tpot_init(&ex, &cfg) != TTFT_TPOT_OK)
        return 1;
    cfg.bounded = 1;
    if (ttft_tpot_init(&bd, &cfg) != TTFT_TPOT_OK)
        return 1;
    {
        int pe = ttft_tpot_phase(&ex, "x", TTFT_TPOT_ROLE_KERNEL), pb = ttft_tpot_phase(&bd, "x", TTFT_TPOT_ROLE_KERNEL);
        ttft_tpot_stats a, b;
        double ea[4], eb[4];
        for (i = 0; i < REPORT_N; i++) {
            record(&ex, pe, durs[i], 0);
            record(&bd, pb, durs[i], 0);
        }
        ttft_tpot_phase_stats(&ex, pe, &a);
        ttft_tpot_phase_stats(&bd, pb, &b);
        ea[0] = a.p50_ns, ea[1] = a.p90_ns, ea[2] = a.p95_ns, ea[3] = a.p99_ns;
        eb[0] = b.p50_ns, eb[1] = b.p90_ns, eb[2] = b.p95_ns, eb[3] = b.p99_ns;
        for (i = 0; i < 4; i++)
            max_err = fmax(max_err, fabs(eb[i] - ea[i]) / ea[i]);
    }
    printf("hist_max_rel_err  %8.5f  p50/p90/p95/p99 of a bounded phase vs exact (bound %.5f)\n", max_err,
           TTFT_TPOT_HIST_MAX_REL_ERR);

    printf("{\"floor_ns\":%.2f,\"span_ns\":%.2f,\"disabled_ns\":%.2f,\"report_ms_1e6\":%.2f,\"qsort_ms_1e6\":%.2f,"
           "\"bytes_per_sample\":%zu,\"hist_bytes\":%zu,\"hist_record_ns\":%.2f,\"hist_max_rel_err\":%.5f,"
           "\"span_ratio\":%.3f,\"report_ratio\":%.3f,\"report_exact\":%s}\n",
           f, s, d, rm, qm, bytes_per_sample, sizeof(ttft_tpot_hist), h, max_err, s / f, rm / qm,
           exact ? "true" : "false");
    ttft_tpot_free(&c);
    ttft_tpot_free(&hc);
    ttft_tpot_free(&big);
    ttft_tpot_free(&ex);
    ttft_tpot_free(&bd);
    fclose(devnull);
    free(scratch);
    free(durs);
    free(copy);
    return 0;
}
