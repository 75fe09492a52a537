/* ttft_tpot_report --compare: the Mann-Whitney U test by hand and against scipy, the smallest
   p-value, and the tool on traces (two configurations, one configuration twice, bad usage). */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include "compare.h"

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
    assert_near(compare_mann_whitney(a, 3, b, 3, &u), 0.080855, 1e-6);
    assert_near(u, 0, 0);
    assert_near(compare_mann_whitney(c, 3, d, 3, &u), 0.157299, 1e-6);
    assert_near(u, 1, 0);
    assert_near(compare_mann_whitney(e, 2, e, 2, &u), 1, 0); /* all tied: no evidence */
    assert_near(compare_min_p(5, 5), 2.0 / 252, 1e-12);       /* 2 / C(10, 5) */
    assert_near(compare_min_p(3, 3), 0.1, 1e-12);             /* 2 / C(6, 3): never under 0.05 */
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
        p = compare_mann_whitney(a, NA, b, NB, &u);
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
    /* all 5 new above all 5 base: U1 = 0, mean 12.5, variance 25 / 12 * 11 = 22.917, z = 12 / 4.787 =
       2.5067, p = erfc(z / sqrt 2) = 0.012186 */
    assert_near(num_at(&rows->items[i], "p_value"), 0.012186, 1e-6);
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
        static const char verdict[] = "Verdict: a regression: new is worse on tpot (+5.00%), output_throughput (-4.76%); "
                                      "no significant change on 1 other (alpha 0.05)\nmetric ";
        assert_true(strncmp(out, verdict, strlen(verdict)) == 0); /* the first line */
    }
    free(out);
    assert_int_equal(tool("--compare cmp_new.csv cmp_base.csv", &out), 0);
    assert_non_null(strstr(out, "Verdict: an improvement: new is better on tpot (-4.76%), output_throughput (+5.00%)"));
    free(out);
    assert_int_equal(tool("--compare --base cmp_base.csv --new cmp_base.csv", &out), 0);
    assert_non_null(strstr(out, "Verdict: no significant difference on any of the 3 metrics both sides have (alpha "
                                "0.05)\n"));
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
    assert_near(num_at(&rows->items[0], "p_value"), 0.046854, 1e-6);
    assert_true(jc_get(&rows->items[0], "too_few")->num == 1);
    assert_true(jc_get(&rows->items[0], "significant")->num == 0);
    assert_string_equal(jc_get(&doc, "only_in_base.0")->str, "phase:only_a");
    assert_string_equal(jc_get(&doc, "only_in_new.0")->str, "tpot");
    jc_free(&doc);
    free(out);
    assert_int_equal(tool("--compare cmp_tied_a.csv cmp_tied_b.csv", &out), 0);
    assert_non_null(strstr(out, "too few samples to decide"));
    assert_null(strstr(out, "tpot (ms"));
    assert_non_null(strstr(out, "only in base: phase:only_a\n"));
    assert_non_null(strstr(out, "only in new: tpot, output_throughput, phase:d\n"));
    free(out);
    f = fopen("cmp_far_b.csv", "w");
    assert_non_null(f);
    fputs("phase,role,start_ns,dur_ns,tokens,warmup\n", f);
    for (i = 0; i < 20; i++)
        fprintf(f, "d,decode,0,%d,1,0\n", 1000000 + i);
    fclose(f);
    assert_int_equal(tool("--compare cmp_far_b.csv cmp_tied_b.csv", &out), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mann_whitney_by_hand),
        cmocka_unit_test(mann_whitney_matches_scipy),
        cmocka_unit_test(compare_through_the_tool),
        cmocka_unit_test(compare_rows_say_what_they_can),
        cmocka_unit_test(compare_has_every_request_metric),
    };
    return run_cases(tests);
}
