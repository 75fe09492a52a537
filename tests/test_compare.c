/* ttft_tpot_report --compare: the Mann-Whitney U test by hand and against scipy, the smallest
   p-value, and the tool on traces (two configurations, one configuration twice, bad usage). */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* a = 1 2 3, b = 4 5 6: U1 = 0 (no b below any a), mean 9/2, variance 3 * 3 / 12 * 7 = 5.25 (no ties),
   z = (4.5 - 0.5) / sqrt(5.25) = 1.7457, p = erfc(z / sqrt 2) = 0.08086. a = 1 2 2, b = 2 3 3: U1 = 0 +
   (0.5 + 0.5) = 1; ties: a group of three 2s and two 3s, sum t^3 - t = 24 + 6 = 30; variance 9 / 12 *
   (7 - 30 / 30) = 4.5, z = (3.5 - 0.5) / sqrt(4.5) = 1.4142, p = 0.1573. */
static void mann_whitney_by_hand(void **state)
{
    const double a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3] = {1, 2, 2}, d[3] = {2, 3, 3}, e[2] = {7, 7};
    double u;
    (void)state;
    assert_near(ttft_tpot_compare_mann_whitney(a, 3, b, 3, &u), 0.080855, 1e-6);
    assert_near(u, 0, 0);
    assert_near(ttft_tpot_compare_mann_whitney(c, 3, d, 3, &u), 0.157299, 1e-6);
    assert_near(u, 1, 0);
    assert_near(ttft_tpot_compare_mann_whitney(e, 2, e, 2, &u), 1, 0); /* all tied: no evidence */
    assert_near(ttft_tpot_compare_min_p(5, 5), 2.0 / 252, 1e-12);        /* 2 / C(10, 5) */
    assert_near(ttft_tpot_compare_min_p(3, 3), 0.1, 1e-12);              /* 2 / C(6, 3): never under 0.05 */
    /* exact: 1 2 3 against 4 5 6 is the most extreme of 20 splits, either way: 2 / 20. 1 2 2 against 2 3
       3: midranks 1, 3 3 3, 5.5 5.5, a's sum 7; of the 20 splits of those ranks 3 sum to 7 or less and
       all 20 to 7 or more: 2 * 3 / 20 = 0.3 */
    assert_near(ttft_tpot_compare_mann_whitney_exact(a, 3, b, 3, &u), 0.1, 1e-12);
    assert_near(ttft_tpot_compare_mann_whitney_exact(c, 3, d, 3, &u), 0.3, 1e-12);
    assert_near(u, 1, 0);
    assert_near(ttft_tpot_compare_mann_whitney_exact(e, 2, e, 2, &u), 1, 0);
    /* Hodges-Lehmann: differences d - c are 1 1 0 2 1 1 2 1 1 -> median 1; of a against b, 3 */
    assert_near(ttft_tpot_compare_hodges_lehmann(c, 3, d, 3), 1, 0);
    assert_near(ttft_tpot_compare_hodges_lehmann(a, 3, b, 3), 3, 0);
}

/* The exact test against scipy: mannwhitneyu(method="exact") on samples without ties, and
   permutation_test over the rank sums (exact, every split) on samples with ties; skipped without scipy. */
static void exact_test_matches_scipy(void **state)
{
    enum { NA = 9, NB = 11 };
    double a[NA], b[NB], u, p;
    uint64_t seed = 7;
    char cmd[4096];
    size_t at;
    int i, round;
    (void)state;
    if (shell("/usr/bin/python3 -c 'import scipy.stats' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with scipy (Debian: apt-get install python3-scipy): SKIPPED\n");
        skip();
    }
    for (round = 0; round < 4; round++) {
        for (i = 0; i < NA + NB; i++) {
            double v;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v = round < 2 ? (double)(seed >> 40) + (i >= NA) * round * 3e6 : (double)((seed >> 33) % 5) + (i >= NA);
            if (i < NA)
                a[i] = v;
            else
                b[i - NA] = v;
        }
        qsort(a, NA, sizeof a[0], cmp_double);
        qsort(b, NB, sizeof b[0], cmp_double);
        p = ttft_tpot_compare_mann_whitney_exact(a, NA, b, NB, &u);
        at = (size_t)snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import numpy as np\n"
                                               "from scipy.stats import mannwhitneyu, permutation_test, rankdata\n"
                                               "a = [");
        for (i = 0; i < NA; i++)
            at += (size_t)snprintf(cmd + at, sizeof cmd - at, "%s%.17g", i ? "," : "", a[i]);
        at += (size_t)snprintf(cmd + at, sizeof cmd - at, "]\nb = [");
        for (i = 0; i < NB; i++)
            at += (size_t)snprintf(cmd + at, sizeof cmd - at, "%s%.17g", i ? "," : "", b[i]);
        snprintf(cmd + at, sizeof cmd - at,
                 "]\nif %d < 2:\n    want = mannwhitneyu(a, b, method=\"exact\").pvalue\n"
                 "else:\n    s = lambda x, y: rankdata(np.concatenate([x, y]))[:len(x)].sum()\n"
                 "    want = permutation_test((a, b), s, permutation_type=\"independent\", n_resamples=np.inf).pvalue\n"
                 "assert abs(want - %.17g) < 1e-9, (want, %.17g)' >mwu_exact.out 2>&1",
                 round, p, p);
        if (shell(cmd) != 0) {
            char *out = slurp("mwu_exact.out");
            fail_msg("round %d: %s", round, out);
        }
    }
}

/* Against scipy.stats.mannwhitneyu(a, b, use_continuity=True, alternative="two-sided",
   method="asymptotic") on samples with and without ties; skipped with a message without scipy. */
static void mann_whitney_matches_scipy(void **state)
{
    enum { NA = 40, NB = 57 };
    double a[NA], b[NB], u, p;
    uint64_t seed = 99;
    char cmd[8192];
    size_t at;
    int i, round;
    (void)state;
    if (shell("/usr/bin/python3 -c 'import scipy.stats' 2>/dev/null") != 0) {
        print_message("no /usr/bin/python3 with scipy (Debian: apt-get install python3-scipy): SKIPPED\n");
        skip();
    }
    for (round = 0; round < 3; round++) {
        for (i = 0; i < NA + NB; i++) {
            double v;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            v = round == 0 ? (double)(seed >> 40) : (double)((seed >> 33) % (round == 1 ? 7 : 30)) + (i >= NA);
            if (i < NA)
                a[i] = v;
            else
                b[i - NA] = v;
        }
        qsort(a, NA, sizeof a[0], cmp_double);
        qsort(b, NB, sizeof b[0], cmp_double);
        p = ttft_tpot_compare_mann_whitney(a, NA, b, NB, &u);
        at = (size_t)snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'from scipy.stats import mannwhitneyu\n"
                                               "r = mannwhitneyu([");
        for (i = 0; i < NA; i++)
            at += (size_t)snprintf(cmd + at, sizeof cmd - at, "%s%.17g", i ? "," : "", a[i]);
        at += (size_t)snprintf(cmd + at, sizeof cmd - at, "], [");
        for (i = 0; i < NB; i++)
            at += (size_t)snprintf(cmd + at, sizeof cmd - at, "%s%.17g", i ? "," : "", b[i]);
        snprintf(cmd + at, sizeof cmd - at,
                 "], use_continuity=True, alternative=\"two-sided\", method=\"asymptotic\")\n"
                 "assert abs(r.statistic - %.17g) < 1e-9 and abs(r.pvalue - %.17g) < 1e-12, (r, %.17g, %.17g)' "
                 ">mwu_scipy.out 2>&1",
                 u, p, u, p);
        if (shell(cmd) != 0) {
            char *out = slurp("mwu_scipy.out");
            fail_msg("round %d: %s", round, out);
        }
    }
}

/* Run the tool with args: exit status; stdout in *out (to free). */
static int tool(const char *args, char **out)
{
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd, "\"%s\" %s >compare_test.out 2>compare_test.err", REPORT_BIN, args);
    st = shell(cmd);
    *out = slurp("compare_test.out");
    return st;
}

/* Traces made by hand: base steps of 10..14 ms in 5 runs, new 5% slower (significant), and the base
   again (~). Runs: one TPOT p50 a run, 5 a side: the smallest p is 2/252, so a difference can show. */
static void write_side(const char *path, double scale)
{
    FILE *f = fopen(path, "w");
    int r, k;
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    fprintf(f, "decode_step,decode,0,%llu,1,1\n", (unsigned long long)(90000000 * scale));
    for (r = 0; r < 5; r++) {
        fputs("# run:\n", f);
        for (k = 0; k < 5; k++)
            fprintf(f, "decode_step,decode,0,%llu,1,0\n", (unsigned long long)((10000000 + 1000000 * k + 10000 * r) * scale));
    }
    fclose(f);
}

static void compare_through_the_tool(void **state)
{
    char *out;
    jc_value doc;
    const jc_value *rows;
    size_t i;
    (void)state;
    write_side("cmp_base.csv", 1);
    write_side("cmp_new.csv", 1.05);
    assert_int_equal(tool("--compare --json cmp_base.csv cmp_new.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_true(strcmp(jc_get(&doc, "schema")->str, "ttft_tpot/compare-v1") == 0);
    assert_ms(&doc, "alpha", 0.05);
    rows = jc_get(&doc, "rows");
    for (i = 0; i < rows->n; i++)
        if (strcmp(jc_get(&rows->items[i], "metric")->str, "tpot") == 0)
            break;
    assert_true(i < rows->n);
    /* per run p50s: base 12.00 12.01 ... 12.04 ms, new 5% more: medians 12.02 and 12.621 */
    assert_ms(&rows->items[i], "base.n", 5);
    assert_ms(&rows->items[i], "base.median", 12.02);
    assert_ms(&rows->items[i], "new.median", 12.621);
    assert_near(num_at(&rows->items[i], "delta_pct"), 5, 1e-9);
    /* all 5 new above all 5 base: U1 = 0, the most extreme of the C(10, 5) = 252 splits either way, so
       the exact p is 2 / 252 (the asymptotic one would be 0.012186) */
    assert_near(num_at(&rows->items[i], "p_value"), 2.0 / 252, 1e-12);
    /* Holm over tpot and output_throughput, both p = 2/252: 2 p, then max(2 p, p) */
    assert_near(num_at(&rows->items[i], "p_holm"), 4.0 / 252, 1e-12);
    assert_string_equal(jc_get(&rows->items[i], "direction")->str, "higher");
    assert_true(jc_get(&rows->items[i], "in_verdict")->num == 1);
    /* the runs' mean 12.02 ms, sd 0.0158: t(0.975, 4) = 2.776445 * 0.0158 / sqrt 5 = 0.019632 */
    assert_near(num_at(&rows->items[i], "base.mean"), 12.02, 1e-9);
    assert_near(num_at(&rows->items[i], "base.mean_ci95.0"), 12.02 - 0.0196324, 1e-6);
    /* Hodges-Lehmann: the median of the 25 differences 0.6 + 0.0105 j - 0.01 i (i, j = 0..4) is 0.601,
       and 0.601 / 12.02 = 5% */
    assert_near(num_at(&rows->items[i], "shift_pct"), 5, 1e-9);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "regression");
    assert_string_equal(jc_get(&doc, "verdict.worse.0")->str, "tpot");
    assert_string_equal(jc_get(&doc, "verdict.worse.1")->str, "output_throughput");
    assert_int_equal(jc_get(&doc, "verdict.better")->n, 0);
    assert_ms(&doc, "verdict.runs_needed", 5);
    assert_true(jc_get(&rows->items[i], "significant")->num == 1);
    assert_true(jc_get(&rows->items[i], "better")->type == JC_BOOL && jc_get(&rows->items[i], "better")->num == 0);
    assert_true(jc_get(&rows->items[i], "per_run")->num == 1);
    assert_true(is_null_at(&rows->items[i], "base.ci95")); /* 5 runs: a p50 interval needs 6 */
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare --json cmp_base.csv cmp_base.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0); /* a side against itself: no change, the p99's interval holds 0 */
    rows = jc_get(&doc, "rows");
    for (i = 0; i < rows->n; i++) {
        assert_true(jc_get(&rows->items[i], "significant")->num == 0);
        if (!is_null_at(&rows->items[i], "p99_delta_pct_ci95"))
            assert_true(num_at(&rows->items[i], "p99_delta_pct_ci95.0") <= 0 &&
                        num_at(&rows->items[i], "p99_delta_pct_ci95.1") >= 0);
    }
    jc_free(&doc);
    free(out);
    /* the verdict first: TPOT 5% up and output throughput 4.76% down (1 / 1.05) are both worse */
    assert_int_equal(tool("--compare cmp_base.csv cmp_new.csv", &out), 0);
    {
        static const char verdict[] = "Verdict: a regression: new is worse on tpot (+5.00%), output_throughput (-4.76%) "
                                      "(alpha 0.05, Holm; noise 2%; 5 and 5 runs)\n(one process a side: ";
        assert_true(strncmp(out, verdict, strlen(verdict)) == 0); /* the first line */
    }
    free(out);
    assert_int_equal(tool("--compare cmp_new.csv cmp_base.csv", &out), 0);
    assert_non_null(strstr(out, "Verdict: an improvement: new is better on tpot (-4.76%), output_throughput (+5.00%)"));
    free(out);
    assert_int_equal(tool("--compare --base cmp_base.csv --new cmp_base.csv", &out), 0);
    assert_non_null(strstr(out, "Verdict: no significant difference on any of the 2 headline metrics (alpha 0.05, "
                                "Holm; 5 and 5 runs)\n"));
    assert_non_null(strstr(out, "tpot (ms, runs)"));
    assert_non_null(strstr(out, "~ "));
    assert_null(strstr(out, "+0.00%"));
    free(out);
    /* every metric by the name the schema gives it, on sides with each kind of sample and requests */
    {
        static const char *const names[] = {"\"metric\":\"ttft_first\"", "\"metric\":\"ttft_steady\"",
                                            "\"metric\":\"tpot\"", "\"metric\":\"itl\"", "\"metric\":\"e2e\"",
                                            "\"metric\":\"output_throughput\"", "\"metric\":\"phase:attn\""};
        FILE *f = fopen("cmp_all.csv", "w");
        assert_non_null(f);
        fputs("phase,role,start_ns,dur_ns,tokens,warmup\nprefill,prefill,0,9000,1,1\nprefill,prefill,0,5000,1,0\n"
              "decode_step,decode,0,3000,1,0\nattn,kernel,0,700,0,0\ngenerate,e2e,0,20000,4,0\n"
              "r,submit,0,0,0,0\nr,token,100,0,1,0\nr,token,150,0,1,0\nr,token,220,0,1,0\n", f);
        fclose(f);
        assert_int_equal(tool("--compare --json cmp_all.csv cmp_all.csv", &out), 0);
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strstr(out, names[i]))
                fail_msg("no %s in %s", names[i], out);
        free(out);
    }
    assert_int_equal(tool("--compare cmp_base.csv", &out), 2);
    free(out);
    assert_int_equal(tool("--compare --alpha 2 cmp_base.csv cmp_new.csv", &out), 2);
    free(out);
    assert_int_equal(tool("--compare --alpha 0.99999999 --base cmp_base.csv --new cmp_base.csv", &out), 0);
    assert_non_null(strstr(out, "(alpha 0.99999999, Holm;")); /* as given, not rounded to 1 */
    free(out);
    assert_int_equal(tool("--compare --bounded cmp_base.csv cmp_new.csv", &out), 2);
    free(out);
    assert_int_equal(tool("--compare cmp_base.csv missing.csv", &out), 1);
    free(out);
}

/* A row is never both significant and too few to decide; a metric only one side has is listed, not
   tabled; a p below 0.001 is p<0.001. Three steps of 1 us against three of 2 us: U = 0 with every value
   tied, the asymptotic p = 0.046854 (variance 9/12 * (7 - 48/30) = 4.05, z = 4 / 2.01246) falls below
   0.05 while no arrangement of 3 + 3 values gives less than 2 / C(6, 3) = 0.1. Twenty steps of 1 ms
   against twenty of 2 ms: p = 6.8e-8 (U = 0; scipy.stats.mannwhitneyu gives both). */
static void compare_rows_say_what_they_can(void **state)
{
    char *out;
    jc_value doc;
    const jc_value *rows;
    FILE *f;
    int i;
    (void)state;
    f = fopen("cmp_tied_a.csv", "w");
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,1000,0,0\nk,kernel,0,1000,0,0\nk,kernel,0,1000,0,0\n"
          "only_a,kernel,0,5,0,0\n", f);
    fclose(f);
    f = fopen("cmp_tied_b.csv", "w");
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n"
          "k,kernel,0,2000,0,0\nk,kernel,0,2000,0,0\nk,kernel,0,2000,0,0\n", f);
    for (i = 0; i < 20; i++)
        fprintf(f, "d,decode,0,%d,1,0\n", 2000000 + i);
    fclose(f);
    assert_int_equal(tool("--compare --json cmp_tied_a.csv cmp_tied_b.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    rows = jc_get(&doc, "rows");
    assert_int_equal(rows->n, 1); /* phase:k; tpot, output_throughput and phase:only_a are one-sided */
    assert_string_equal(jc_get(&rows->items[0], "metric")->str, "phase:k");
    assert_true(is_null_at(&rows->items[0], "p_value")); /* one run a side: no test of its steps */
    assert_true(jc_get(&rows->items[0], "per_run")->num == 0);
    assert_true(jc_get(&rows->items[0], "too_few")->num == 1);
    assert_string_equal(jc_get(&rows->items[0], "direction")->str, "higher"); /* descriptive: every step slower */
    assert_true(jc_get(&rows->items[0], "significant")->num == 0);
    assert_string_equal(jc_get(&doc, "only_in_base.0")->str, "phase:only_a");
    assert_string_equal(jc_get(&doc, "only_in_new.0")->str, "tpot");
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare cmp_tied_a.csv cmp_tied_b.csv", &out), 0);
    assert_non_null(strstr(out, "too few runs to decide"));
    assert_null(strstr(out, "tpot (ms"));
    assert_non_null(strstr(out, "only in base: phase:only_a\n"));
    assert_non_null(strstr(out, "only in new: tpot, output_throughput, phase:d\n"));
    free(out);
    for (i = 0; i < 2; i++) { /* twenty runs of 1 ms steps against twenty of 2 ms: p = 2 / C(40, 20) */
        int r;
        f = fopen(i ? "cmp_far_b.csv" : "cmp_far_a.csv", "w");
        assert_non_null(f);
        fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
        for (r = 0; r < 20; r++)
            fprintf(f, "# run:\nd,decode,0,%d,1,0\n", (1 + i) * 1000000 + r);
        fclose(f);
    }
    assert_int_equal(tool("--compare cmp_far_a.csv cmp_far_b.csv", &out), 0);
    assert_non_null(strstr(out, "p<0.001"));
    assert_null(strstr(out, "p=0.000"));
    free(out);
}

/* Every request metric of the table is a row, named by its COMPARE column, in ms. One request a side:
   base submit 0, schedule 10, tokens at 100, 150 and 220 ns; new the same times doubled. Base: TTFT
   100 ns, queue 10, prefill 90, TTST 150, TPOT (220 - 100) / 2 = 60, ITL gaps 50 and 70 (median 60),
   E2E 220; new twice each: +100%. With requests, e2e is the requests', not the e2e samples'. */
static void compare_has_every_request_metric(void **state)
{
    static const struct {
        const char *name;
        double base_ms;
    } want[] = {{"requests.ttft", 100e-6}, {"requests.queue", 10e-6}, {"requests.prefill", 90e-6},
                {"ttst", 150e-6},          {"requests.tpot", 60e-6},  {"itl", 60e-6},
                {"e2e", 220e-6}};
    char *out;
    jc_value doc;
    const jc_value *rows;
    size_t i, k;
    (void)state;
    for (k = 1; k <= 2; k++) {
        FILE *f = fopen(k == 1 ? "cmp_req_a.csv" : "cmp_req_b.csv", "w");
        assert_non_null(f);
        fprintf(f, "phase,role,start_ns,dur_ns,tokens,warmup\ngenerate,e2e,0,999999,3,0\nr,submit,0,0,0,0\n"
                "r,schedule,%zu,0,0,0\nr,token,%zu,0,1,0\nr,token,%zu,0,1,0\nr,token,%zu,0,1,0\n",
                10 * k, 100 * k, 150 * k, 220 * k);
        fclose(f);
    }
    assert_int_equal(tool("--compare --json cmp_req_a.csv cmp_req_b.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    rows = jc_get(&doc, "rows");
    for (k = 0; k < sizeof want / sizeof want[0]; k++) {
        for (i = 0; i < rows->n && strcmp(jc_get(&rows->items[i], "metric")->str, want[k].name) != 0; i++)
            ;
        if (i == rows->n)
            fail_msg("no row %s in %s", want[k].name, out);
        assert_string_equal(jc_get(&rows->items[i], "unit")->str, "ms");
        assert_near(num_at(&rows->items[i], "base.median"), want[k].base_ms, 1e-15);
        assert_near(num_at(&rows->items[i], "new.median"), 2 * want[k].base_ms, 1e-15);
        assert_near(num_at(&rows->items[i], "delta_pct"), 100, 1e-9);
    }
    jc_free(&doc);
    free(out);
}

/* Runs written by hand: each run one decode step of `ms` (+ 0.01 ms a run, so no two tie) and `tokens`
   tokens, after a warmup step; `runs` 0: the steps without run marks (one run, the trace). */
static void write_runs(const char *path, int runs, double ms, int tokens)
{
    FILE *f = fopen(path, "w");
    int r;
    assert_non_null(f);
    fprintf(f, "phase,role,start_ns,dur_ns,tokens,warmup\ndecode_step,decode,0,%llu,%d,1\n",
            (unsigned long long)(ms * 9e6), tokens);
    for (r = 0; r < (runs ? runs : 5); r++)
        fprintf(f, "%sdecode_step,decode,0,%llu,%d,0\n", runs ? "# run:\n" : "", (unsigned long long)((ms + 0.01 * r) * 1e6),
                tokens);
    fclose(f);
}

/* A trace of runs, each a prefill of `pre` ms (runs from `from` on only: a side whose TTFT rows have
   fewer runs) and 5 decode steps of about `ms`, then 40 requests (one value a side: not split by run)
   whose TTFT is `ms` scaled. */
static void write_served_runs(const char *path, int runs, int from, double ms)
{
    FILE *f = fopen(path, "w");
    int r, k;
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    fprintf(f, "prefill,prefill,0,%llu,1,1\ndecode_step,decode,0,%llu,1,1\n", (unsigned long long)(ms * 9e6),
            (unsigned long long)(ms * 9e6));
    for (r = 0; r < runs; r++) {
        fputs("# run:\n", f);
        if (r >= from)
            fprintf(f, "prefill,prefill,0,%llu,1,0\n", (unsigned long long)((3 * ms + 0.01 * r) * 1e6));
        for (k = 0; k < 5; k++)
            fprintf(f, "decode_step,decode,0,%llu,1,0\n", (unsigned long long)((ms + 0.1 * k + 0.01 * r) * 1e6));
    }
    for (k = 0; k < 40; k++)
        fprintf(f, "r%d,submit,%d,0,0,0\nr%d,token,%llu,0,1,0\n", k, k, k,
                (unsigned long long)k + (unsigned long long)((ms + 0.001 * k) * 1e6));
    fclose(f);
}

/* Rows that cannot be tested stay out of Holm's family: one trace a side of 5 and 4 runs, TTFT and TPOT
   10% slower, and 40 requests a side (their metrics one value a side). The request rows are not tested
   (too_few) and widen no family: 3 headline rows need p < 0.0167, which 5 and 4 runs reach (2/126 =
   0.0159): a regression, "5 and 4 runs". */
static void untestable_rows_stay_out_of_the_family(void **state)
{
    char *out;
    jc_value doc;
    const jc_value *rows;
    size_t i;
    (void)state;
    write_served_runs("cmp_s5.csv", 5, 0, 10);
    write_served_runs("cmp_s4.csv", 4, 0, 11);
    assert_int_equal(tool("--compare --json cmp_s5.csv cmp_s4.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "regression");
    assert_ms(&doc, "verdict.runs.0", 5);
    assert_ms(&doc, "verdict.runs.1", 4);
    rows = jc_get(&doc, "rows");
    for (i = 0; i < rows->n; i++)
        if (strncmp(jc_get(&rows->items[i], "metric")->str, "requests.", 9) == 0)
            assert_true(jc_get(&rows->items[i], "too_few")->num == 1);
    jc_free(&doc);
    free(out);
    /* each side's request rows show the interval of its own 40 requests, not [n<6]: TTFT 10.000 to
       10.039 ms, its p50 10.0195 between ranks 14 and 27 (10.013, 10.026) */
    assert_int_equal(tool("--compare cmp_s5.csv cmp_s4.csv", &out), 0);
    if (!strstr(out, "\nrequests.ttft (ms) *                 10.02 [10.01, 10.03]         11.02 [11.01, 11.03] "))
        fail_msg("%s", out);
    free(out);
}

/* The power line names one row's runs and the p they can give: base 6 runs of decode, TTFT in 5 of
   them; new 3 runs. TTFT's 5 and 3 runs can give 2/56 = 0.0357, TPOT's 6 and 3 runs 2/84 = 0.0238: the
   line says "6 and 3 runs can give p = 0.0238" (it said "5 and 3" with TPOT's p). */
static void the_power_line_is_one_rows(void **state)
{
    char *out;
    (void)state;
    write_served_runs("cmp_p6.csv", 6, 1, 10);
    write_served_runs("cmp_p3.csv", 3, 0, 20);
    assert_int_equal(tool("--compare cmp_p6.csv cmp_p3.csv", &out), 0);
    if (!strstr(out, "Verdict: undecided: 6 and 3 runs can give p = 0.0238 at best"))
        fail_msg("%s", out);
    free(out);
}

/* Several traces a side: each trace is one unit, a process, whatever runs it marks, and the verdict
   says so: 2 traces of 3 runs a side are "2 and 2 processes", with what to run. */
static void several_traces_are_processes(void **state)
{
    char *out;
    (void)state;
    write_runs("cmp_pa1.csv", 3, 10, 1);
    write_runs("cmp_pa2.csv", 3, 10, 1);
    write_runs("cmp_pb1.csv", 3, 20, 1);
    write_runs("cmp_pb2.csv", 3, 20, 1);
    assert_int_equal(tool("--compare --base cmp_pa1.csv --base cmp_pa2.csv --new cmp_pb1.csv --new cmp_pb2.csv",
                          &out), 0);
    if (!strstr(out, "Verdict: undecided: 2 and 2 processes can give p = ") ||
        !strstr(out, "(processes, a trace each; or one trace a side, whose marked runs are the units)\n"))
        fail_msg("%s", out);
    free(out);
}

/* The row of `metric` in a --compare --json document (it must have one). */
static const jc_value *row_named(const jc_value *doc, const char *metric)
{
    const jc_value *rows = jc_get(doc, "rows");
    size_t i;
    for (i = 0; i < rows->n && strcmp(jc_get(&rows->items[i], "metric")->str, metric) != 0; i++)
        ;
    assert_true(i < rows->n);
    return &rows->items[i];
}

/* A trace of runs of one decode step each, of ms[r] ms (one token a step), with a "# started:" line
   when started is not 0. */
static void write_steps(const char *path, const double *ms, int runs, unsigned long long started)
{
    FILE *f = fopen(path, "w");
    int r;
    assert_non_null(f);
    if (started)
        fprintf(f, "# started: %llu\n", started);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    for (r = 0; r < runs; r++)
        fprintf(f, "# run:\ndecode_step,decode,0,%llu,1,0\n", (unsigned long long)(ms[r] * 1e6 + 0.5));
    fclose(f);
}

/* The share of `draws` pairs of n normal values a side, the new side shifted by `shift` sd, whose
   exact two-sided Mann-Whitney p is below a: an independent measure of the power (its own seed, the
   library's p-value, not the critical count the verdict's statement uses). */
static double power_at(int n, double shift, double a, int draws)
{
    double x[64], y[64], u;
    assert_true(n <= 64);
    unsigned long long g = 12345;
    int k, i, hit = 0;
    for (k = 0; k < draws; k++) {
        for (i = 0; i < 2 * n; i++) {
            double u1, u2;
            g = g * 6364136223846793005ull + 1442695040888963407ull;
            u1 = ((double)(g >> 11) + 0.5) / 9007199254740992.0;
            g = g * 6364136223846793005ull + 1442695040888963407ull;
            u2 = ((double)(g >> 11) + 0.5) / 9007199254740992.0;
            (i < n ? x : y)[i % n] = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2) + (i < n ? 0 : shift);
        }
        qsort(x, (size_t)n, sizeof *x, cmp_double);
        qsort(y, (size_t)n, sizeof *y, cmp_double);
        hit += ttft_tpot_compare_mann_whitney_exact(x, (size_t)n, y, (size_t)n, &u) < a;
    }
    return (double)hit / draws;
}

/* The smallest detectable change: n runs a side (base steps 10 ms + z_r, new 11 ms + the same z_r,
   z_r -1 -0.5 0 0.5 1 ms again and again: changes over the noise threshold), tpot and output_throughput in the verdict (alpha 0.05 / 2 for Holm's first step). The
   statement's shift, over the runs' pooled sd, is found 4 times in 5 (+-3 points) by an independent
   simulation of the exact test (5 runs a side) and of the asymptotic one past 40 runs in all (25 a
   side); past 100 runs in all (60 a side) the statement is an approximation, +-5 points. */
static void the_detectable_change_has_its_power(void **state)
{
    static const int sizes[3] = {5, 25, 60};
    double base[60], new_[60], pooled = 0, mean = 0, k, power;
    char *out;
    jc_value doc;
    int s, r;
    (void)state;
    for (s = 0; s < 3; s++) {
        int n = sizes[s];
        for (r = 0, pooled = 0, mean = 0; r < n; r++) { /* -1 -0.5 0 0.5 1 ms, again */
            double z = 0.5 * ((r % 5) - 2);
            base[r] = 10 + z, new_[r] = 11 + z;
            mean += base[r] / n;
        }
        for (r = 0; r < n; r++)
            pooled += 2 * (base[r] - mean) * (base[r] - mean) / (2 * n - 2);
        write_steps("cmp_d_base.csv", base, n, 0);
        write_steps("cmp_d_new.csv", new_, n, 0);
        assert_int_equal(tool("--compare --json cmp_d_base.csv cmp_d_new.csv", &out), 0);
        assert_int_equal(jc_parse(out, &doc), 0);
        assert_near(num_at(&doc, "verdict.power"), 0.8, 0);
        k = num_at(row_named(&doc, "tpot"), "detectable_pct") / 100 * mean / sqrt(pooled); /* in sd */
        power = power_at(n, k, 0.025, 4000);
        print_message("%d runs a side: the statement's shift %.3f sd, found %.3f of the time\n", n, k, power);
        if (k < 0.3 || power < (n < 50 ? 0.77 : 0.75) || power > (n < 50 ? 0.83 : 0.85))
            fail_msg("%d runs a side: the statement's %.3f sd is found %.3f of the time", n, k, power);
        jc_free(&doc);
        free(out);
    }
    assert_int_equal(tool("--compare cmp_d_base.csv cmp_d_new.csv", &out), 0);
    if (!strstr(out, "\nWith this spread, 60 and 60 runs detect a change of ") || !strstr(out, "% or more in tpot, "))
        fail_msg("%s", out);
    free(out);
}

/* Processes whose traces say when they started: all of base, then all of new, is not interleaved
   (a drift reads as a change), and the verdict says so; base, new, base, new is; a trace without its
   start leaves it unknown, counted; a bad "# started:" is refused with its line. */
static void interleaving_is_read_from_the_starts(void **state)
{
    static const double a[3] = {10, 10.1, 10.2}, b[3] = {10.3, 10.4, 10.5};
    static const unsigned long long order[2][4] = {{100, 200, 300, 400}, {100, 300, 200, 400}};
    char *out;
    jc_value doc;
    int k;
    (void)state;
    for (k = 0; k < 2; k++) {
        write_steps("cmp_i_b1.csv", a, 3, order[k][0]);
        write_steps("cmp_i_b2.csv", b, 3, order[k][1]);
        write_steps("cmp_i_n1.csv", a, 3, order[k][2]);
        write_steps("cmp_i_n2.csv", b, 3, order[k][3]);
        assert_int_equal(tool("--compare --json --base cmp_i_b1.csv --base cmp_i_b2.csv --new cmp_i_n1.csv "
                              "--new cmp_i_n2.csv", &out), 0);
        assert_int_equal(jc_parse(out, &doc), 0);
        assert_int_equal(jc_get(&doc, "verdict.interleaved")->type, JC_BOOL);
        assert_int_equal(jc_get(&doc, "verdict.interleaved")->num, k);
        assert_ms(&doc, "verdict.unstarted", 0);
        assert_true(jc_get(&doc, "verdict.one_process")->num == 0);
        jc_free(&doc);
        free(out);
        assert_int_equal(tool("--compare --base cmp_i_b1.csv --base cmp_i_b2.csv --new cmp_i_n1.csv "
                              "--new cmp_i_n2.csv", &out), 0);
        assert_true((strstr(out, "\n(not interleaved: every process of one side started before every process of "
                                 "the other") != NULL) == !k);
        free(out);
    }
    write_steps("cmp_i_n2.csv", b, 3, 0);
    assert_int_equal(tool("--compare --json --base cmp_i_b1.csv --base cmp_i_b2.csv --new cmp_i_n1.csv "
                          "--new cmp_i_n2.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_true(jc_get(&doc, "verdict.interleaved")->type == JC_NULL);
    assert_ms(&doc, "verdict.unstarted", 1);
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare --base cmp_i_b1.csv --base cmp_i_b2.csv --new cmp_i_n1.csv --new cmp_i_n2.csv",
                          &out), 0);
    assert_non_null(strstr(out, "\n(interleaving unknown: 1 of the 4 traces have no # started: line)\n"));
    free(out);
    {
        FILE *f = fopen("cmp_i_bad.csv", "w");
        assert_non_null(f);
        fputs("# started: soon\nphase,role,start_ns,dur_ns,tokens,warmup\n", f);
        fclose(f);
    }
    assert_int_equal(tool("--compare cmp_i_bad.csv cmp_i_n1.csv", &out), 1);
    free(out);
    out = slurp("compare_test.err");
    assert_non_null(strstr(out, "cmp_i_bad.csv:1: # started: expected the realtime in ns since 1970, not soon"));
    free(out);
}

/* A trace of 5 runs of `steps` (at most 128) decode steps, step k of run r ms[k] + 0.01 r ms. */
static void write_five_runs(const char *path, int steps, const double *ms)
{
    FILE *f = fopen(path, "w");
    int r, k;
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    for (r = 0; r < 5; r++) {
        fputs("# run:\n", f);
        for (k = 0; k < steps; k++)
            fprintf(f, "decode_step,decode,0,%llu,1,0\n", (unsigned long long)(ms[k] * 1e6 + r * 1e4));
    }
    fclose(f);
}

/* A trace of 5 runs of `steps` decode steps: the first `fast` of 10 + 0.01 r ms, the rest of
   slow_ms + 0.01 r ms. */
static void write_stepped(const char *path, int steps, int fast, double slow_ms)
{
    double ms[128];
    int k;
    for (k = 0; k < steps; k++)
        ms[k] = k < fast ? 10 : slow_ms;
    write_five_runs(path, steps, ms);
}

/* The tail is judged beside the verdict: 3 steps in 100 at 15 ms move each run's p99 (rank 98.01 of
   0..99: 15 + 0.01 r ms) and not its p50; output throughput drops 1.47% (1000 / 10.15 against 1000 /
   10.00 a step), within noise. The runs' p99s are all higher (U = 0, p = 2/252); the Hodges-Lehmann
   shift is 5 ms, 49.90% of the base median 10.02. */
static void the_tail_is_judged_beside_the_verdict(void **state)
{
    char *out;
    jc_value doc;
    (void)state;
    write_stepped("cmp_t_base.csv", 100, 100, 15); /* 5 runs of 100 steps, the last 3 of new at 15 ms */
    write_stepped("cmp_t_new.csv", 100, 97, 15);
    assert_int_equal(tool("--compare cmp_t_base.csv cmp_t_new.csv", &out), 0);
    if (strncmp(out, "Verdict: within noise: new is within noise: output_throughput (-1.47%)", 70) != 0 ||
        !strstr(out, "\nTail: new is worse on tpot_p99 (+49.90%) (each run's TPOT p99, judged beside the verdict; "
                     "alpha 0.05, Holm over 1 metric)\n"))
        fail_msg("%s", out);
    free(out);
    assert_int_equal(tool("--compare --json cmp_t_base.csv cmp_t_new.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "within_noise");
    assert_ms(&doc, "verdict.tail.family", 1);
    assert_string_equal(jc_get(&doc, "verdict.tail.worse.0")->str, "tpot_p99");
    assert_int_equal(jc_get(&doc, "verdict.tail.better")->n, 0);
    assert_int_equal(jc_get(&doc, "verdict.worse")->n, 0);
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare cmp_t_base.csv cmp_t_base.csv", &out), 0);
    assert_non_null(strstr(out, "\nTail: no significant change (each run's TPOT p99"));
    free(out);
}

/* A trace of 5 runs of 100 decode steps of 10 + 0.01 r ms, but steps a and b of each at 40 ms. */
static void write_spiked(const char *path, int a, int b)
{
    double ms[100];
    int k;
    for (k = 0; k < 100; k++)
        ms[k] = k == a || k == b ? 40 : 10;
    write_five_runs(path, 100, ms);
}

/* A run's p99 leaves out its isolated spikes (above twice its p50, neighbours not): two 40 ms steps
   apart in each run of new would be its p99 (rank 98.01 of 0..99 is the first of them), yet the tail
   sees no change; side by side they are no spikes, and the tail is worse (40 against 10.02 ms). */
static void isolated_spikes_leave_the_tail(void **state)
{
    char *out;
    (void)state;
    write_spiked("cmp_s_base.csv", -1, -1);
    write_spiked("cmp_s_apart.csv", 20, 60);
    write_spiked("cmp_s_together.csv", 20, 21);
    assert_int_equal(tool("--compare cmp_s_base.csv cmp_s_apart.csv", &out), 0);
    if (!strstr(out, "\nTail: no significant change (each run's TPOT p99"))
        fail_msg("%s", out);
    free(out);
    assert_int_equal(tool("--compare cmp_s_base.csv cmp_s_together.csv", &out), 0);
    if (!strstr(out, "\nTail: new is worse on tpot_p99 (+299."))
        fail_msg("%s", out);
    free(out);
}

/* Runs of unequal length are judged over their common first steps: runs of 4 steps of 10 ms against
   runs of 8, whose last 4 take 30 ms. Whole, run 2 of new (steps 0.02 ms slower) makes 8 tokens in
   4 x 10.02 + 4 x 30.02 ms = 49.95 tok/s, against 4 / 40.08 ms = 99.80; over its first 4 steps it
   makes 99.80 too, as every run does on both sides, so tpot, tpot_p99 and output_throughput do not
   differ (p = 1), and the line says so. Runs of one length are judged whole (decode_judged null). */
static void unequal_runs_are_judged_over_their_first_steps(void **state)
{
    char *out;
    jc_value doc;
    (void)state;
    write_stepped("cmp_l_base.csv", 4, 4, 30);
    write_stepped("cmp_l_new.csv", 8, 4, 30);
    assert_int_equal(tool("--compare cmp_l_base.csv cmp_l_new.csv", &out), 0);
    if (strncmp(out, "Verdict: no significant difference on any of the 2 headline metrics", 67) != 0 ||
        !strstr(out, "\n(runs of 4 to 8 steady decode steps: each run's tpot, tpot_p99 and output_throughput are of "
                     "its first 4, as a mean or a p99 of heavy-tailed steps moves with the steps it is over)\n"))
        fail_msg("%s", out);
    free(out);
    assert_int_equal(tool("--compare --json cmp_l_base.csv cmp_l_new.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_ms(&doc, "verdict.decode_steps.0", 4);
    assert_ms(&doc, "verdict.decode_steps.1", 8);
    assert_ms(&doc, "verdict.decode_judged", 4);
    assert_near(num_at(row_named(&doc, "output_throughput"), "new.median"), 4 / 0.04008, 1e-9); /* run 2 */
    assert_near(num_at(row_named(&doc, "output_throughput"), "base.median"), 4 / 0.04008, 1e-9);
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare --json cmp_l_new.csv cmp_l_new.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_ms(&doc, "verdict.decode_steps.0", 8);
    assert_true(jc_get(&doc, "verdict.decode_judged")->type == JC_NULL);
    assert_near(num_at(row_named(&doc, "output_throughput"), "new.median"), 8 / 0.16016, 1e-9); /* whole */
    jc_free(&doc);
    free(out);
}

/* A trade-off is called one: batch 1 (10 ms steps, 1 token) against batch 4 (20 ms steps, 4 tokens a
   step): TPOT +100% (worse), output throughput 100 -> 200 tok/s (better). */
static void a_trade_off_is_a_trade_off(void **state)
{
    char *out;
    jc_value doc;
    (void)state;
    write_runs("cmp_b1.csv", 5, 10, 1);
    write_runs("cmp_b4.csv", 5, 20, 4);
    assert_int_equal(tool("--compare --json cmp_b1.csv cmp_b4.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "trade_off");
    assert_string_equal(jc_get(&doc, "verdict.worse.0")->str, "tpot");
    assert_string_equal(jc_get(&doc, "verdict.better.0")->str, "output_throughput");
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare cmp_b1.csv cmp_b4.csv", &out), 0);
    /* shifts over the runs' 10.00..10.04 and 20.00..20.04 ms: 10 / 10.02 ms; 100.2 / 99.8 tok/s */
    {
        static const char verdict[] = "Verdict: a trade-off: new is worse on tpot (+99.80%); better on output_throughput "
                                      "(+100.20%) (alpha 0.05, Holm; noise 2%; 5 and 5 runs)\n";
        assert_true(strncmp(out, verdict, strlen(verdict)) == 0);
    }
    free(out);
}

/* A significant change under the noise threshold is within noise: steps 1% slower, every run; with
   --noise 0.5 the same change is a regression. A bad --noise is a usage error. */
static void a_small_change_is_within_noise(void **state)
{
    char *out;
    jc_value doc;
    (void)state;
    write_runs("cmp_n0.csv", 5, 10, 1);
    write_runs("cmp_n1.csv", 5, 10.1, 1);
    assert_int_equal(tool("--compare --json cmp_n0.csv cmp_n1.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "within_noise");
    assert_string_equal(jc_get(&doc, "verdict.within_noise.0")->str, "tpot");
    assert_ms(&doc, "noise_pct", 2);
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare --noise 0.5 cmp_n0.csv cmp_n1.csv", &out), 0);
    assert_true(strncmp(out, "Verdict: a regression: new is worse on tpot (+1.00%)", 52) == 0);
    free(out);
    assert_int_equal(tool("--compare --noise -1 cmp_n0.csv cmp_n1.csv", &out), 2);
    free(out);
}

/* Runs that cannot decide say so first, with the runs a side they need: 3 a side give p = 0.1 at best
   (2 / C(6, 3)), while two headline metrics need p < 0.025; 4 a side give 2/70 = 0.0286, 5 a side 2/252.
   One run a side cannot decide either. Traces without runs, several a side, are a run each. */
static void too_few_runs_say_so(void **state)
{
    char *out;
    jc_value doc;
    (void)state;
    write_runs("cmp_r3a.csv", 3, 10, 1);
    write_runs("cmp_r3b.csv", 3, 20, 1);
    assert_int_equal(tool("--compare cmp_r3a.csv cmp_r3b.csv", &out), 0);
    {
        static const char verdict[] = "Verdict: undecided: 3 and 3 runs can give p = 0.1 at best, and 2 headline metrics "
                                      "need p < 0.025 (alpha 0.05, Holm): run 5 or more a side, interleaved "
                                      "base/new/base/new where the driver allows it\nmetric";
        assert_true(strncmp(out, verdict, strlen(verdict)) == 0);
    }
    free(out);
    write_runs("cmp_r0a.csv", 0, 10, 1);
    write_runs("cmp_r0b.csv", 0, 20, 1);
    assert_int_equal(tool("--compare --json cmp_r0a.csv cmp_r0b.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "undecided");
    assert_ms(&doc, "verdict.runs.0", 1);
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare --json --base cmp_r0a.csv --base cmp_r0a.csv --base cmp_r0a.csv --base cmp_r0a.csv "
                          "--base cmp_r0a.csv --new cmp_r0b.csv --new cmp_r0b.csv --new cmp_r0b.csv --new cmp_r0b.csv "
                          "--new cmp_r0b.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0); /* five traces a side, a run each: 5 and 5 runs, all new slower */
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "regression");
    assert_ms(&doc, "verdict.runs.0", 5);
    jc_free(&doc);
    free(out);
    /* two traces a side of 3 runs each: a process each, its runs' mean its one value (10.01 ms) */
    assert_int_equal(tool("--compare --json --base cmp_r3a.csv --base cmp_r3a.csv --new cmp_r3b.csv --new cmp_r3b.csv",
                          &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_string_equal(jc_get(&doc, "rows.0.metric")->str, "tpot");
    assert_ms(&doc, "rows.0.base.n", 2);
    assert_ms(&doc, "rows.0.base.median", 10.01);
    assert_ms(&doc, "rows.0.new.median", 20.01);
    jc_free(&doc);
    free(out);
}

/* Tied medians: 21 values of 200 us and 20 of 300 us against 20 of 100 us and 21 of 200 us (20 moved
   from 300 to 100): the medians tie at 200 us, the p99 falls a third. As 41 runs a side (one kernel call
   each) the change is significant and better: the Hodges-Lehmann shift is -100 us (the median of 1681
   differences: 400 of -200, 840 of -100, 441 of 0), -50% of 200. As one run a side, the row's direction
   is still lower, and nothing is tested. Phase rows decide only with --phases-in-verdict. */
/* A side of decode steps of several tokens a sequence: 3 runs of steps of dur ns, 8 tokens for 2
   sequences (4 a sequence: TPOT dur / 4). */
static void multi_token_side(ttft_tpot *c, uint64_t dur)
{
    ttft_tpot_config cfg;
    int dec, r, k;
    memset(&cfg, 0, sizeof cfg);
    cfg.sequences = 1;
    dec = fixture(c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    for (r = 0; r < 3; r++) {
        assert_int_equal(ttft_tpot_run_begin(c), TTFT_TPOT_OK);
        for (k = 0; k < 6; k++) {
            ttft_tpot_span s = ttft_tpot_span_begin_at(c, dec, 0);
            ttft_tpot_span_set_duration(&s, dur + (uint64_t)k);
            ttft_tpot_span_set_tokens(&s, 8);
            ttft_tpot_span_set_sequences(&s, 2);
            assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        }
    }
}

/* --compare reads TPOT per output token, as the report does: each run's p50 of 100 us steps of 4
   tokens a sequence is 25 us, not 100. */
static void compare_reads_tpot_per_output_token(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_model m[2];
    const ttft_tpot_model *pm[2];
    ttft_tpot_compare_options o = ttft_tpot_compare_defaults();
    ttft_tpot_compare_result res;
    size_t i;
    int seen = 0;
    (void)state;
    multi_token_side(&a, 100000);
    multi_token_side(&b, 120000);
    assert_int_equal(ttft_tpot_model_compute(&a, NULL, &m[0]), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_model_compute(&b, NULL, &m[1]), TTFT_TPOT_OK);
    assert_near(m[0].head.tpot.p50_ns, 25001, 1e-9); /* steps 1-5 of run 1 and 0-5 of the others, + k */
    pm[0] = &m[0], pm[1] = &m[1];
    assert_int_equal(ttft_tpot_compare_models(pm[0], pm[1], &o, &res), TTFT_TPOT_OK);
    for (i = 0; i < res.n; i++)
        if (strcmp(res.rows[i].metric, "tpot") == 0) {
            seen = 1;
            assert_near(res.rows[i].median[0], 0.025, 0.001); /* ms: per output token */
            assert_near(res.rows[i].median[1], 0.030, 0.001);
        }
    assert_true(seen);
    ttft_tpot_compare_free(&res);
    ttft_tpot_model_free(&m[0]);
    ttft_tpot_model_free(&m[1]);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

static void tied_medians_are_judged_better(void **state)
{
    char *out;
    jc_value doc;
    const jc_value *row;
    int side, runs, i;
    (void)state;
    for (runs = 0; runs < 2; runs++)
        for (side = 0; side < 2; side++) {
            FILE *f = fopen(side ? "cmp_tie_b.csv" : "cmp_tie_a.csv", "w");
            assert_non_null(f);
            fputs("phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,999999,0,1\n", f);
            for (i = 0; i < 41; i++)
                fprintf(f, "%sk,kernel,0,%d,0,0\n", runs ? "# run:\n" : "",
                        side ? (i < 20 ? 100000 : 200000) : (i < 21 ? 200000 : 300000));
            fclose(f);
            if (side == 0)
                continue;
            assert_int_equal(tool(runs ? "--compare --json --phases-in-verdict cmp_tie_a.csv cmp_tie_b.csv"
                                       : "--compare --json cmp_tie_a.csv cmp_tie_b.csv", &out), 0);
            assert_int_equal(jc_parse(out, &doc), 0);
            row = jc_get(&doc, "rows.0");
            assert_string_equal(jc_get(row, "metric")->str, "phase:k");
            assert_near(num_at(row, "delta_pct"), 0, 0);
            assert_string_equal(jc_get(row, "direction")->str, "lower");
            if (runs) {
                assert_true(jc_get(row, "significant")->num == 1 && jc_get(row, "better")->num == 1);
                assert_near(num_at(row, "shift_pct"), -50, 1e-9);
                assert_string_equal(jc_get(&doc, "verdict.kind")->str, "improvement");
            } else {
                assert_true(jc_get(row, "significant")->num == 0);
                assert_string_equal(jc_get(&doc, "verdict.kind")->str, "undecided");
            }
            jc_free(&doc);
            free(out);
        }
    assert_int_equal(tool("--compare --json cmp_tie_a.csv cmp_tie_b.csv", &out), 0);
    assert_int_equal(jc_parse(out, &doc), 0); /* without the flag the phase is detail: no headline row */
    assert_string_equal(jc_get(&doc, "verdict.kind")->str, "undecided");
    assert_true(jc_get(&doc, "rows.0.significant")->num == 1);
    jc_free(&doc);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mann_whitney_by_hand),
        cmocka_unit_test(mann_whitney_matches_scipy),
        cmocka_unit_test(compare_through_the_tool),
        cmocka_unit_test(compare_rows_say_what_they_can),
        cmocka_unit_test(compare_has_every_request_metric),
        cmocka_unit_test(exact_test_matches_scipy),
        cmocka_unit_test(a_trade_off_is_a_trade_off),
        cmocka_unit_test(untestable_rows_stay_out_of_the_family),
        cmocka_unit_test(the_power_line_is_one_rows),
        cmocka_unit_test(several_traces_are_processes),
        cmocka_unit_test(a_small_change_is_within_noise),
        cmocka_unit_test(too_few_runs_say_so),
        cmocka_unit_test(tied_medians_are_judged_better),
        cmocka_unit_test(compare_reads_tpot_per_output_token),
        cmocka_unit_test(the_detectable_change_has_its_power),
        cmocka_unit_test(interleaving_is_read_from_the_starts),
        cmocka_unit_test(the_tail_is_judged_beside_the_verdict),
        cmocka_unit_test(isolated_spikes_leave_the_tail),
        cmocka_unit_test(unequal_runs_are_judged_over_their_first_steps),
    };
    return run_cases(tests);
}
