/* ttft_tpot_report: the shared vectors through --json, several traces in one report, bad input and
   bad usage, the Chrome trace, and the driver's round trip (live report == offline report). */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

/* Run the tool with args: exit status; stdout and stderr in *out and *err (to free). */
static int tool(const char *args, char **out, char **err)
{
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd, "\"%s\" %s >report_test.out 2>report_test.err", REPORT_BIN, args);
    st = shell(cmd);
    *out = slurp("report_test.out");
    *err = slurp("report_test.err");
    return st;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void check_vector(const char *stem)
{
    char args[512], path[512], why[512], *out, *err, *want_text;
    jc_value want, got;
    snprintf(args, sizeof args, "--json %s/%s.csv", TEST_VECTOR_DIR, stem);
    assert_int_equal(tool(args, &out, &err), 0);
    assert_string_equal(err, "");
    snprintf(path, sizeof path, "%s/%s.expected.json", TEST_VECTOR_DIR, stem);
    want_text = slurp(path);
    assert_int_equal(jc_parse(want_text, &want), 0);
    if (jc_parse(out, &got) != 0)
        fail_msg("not JSON: %s", out);
    if (jc_subset(&want, &got, "", why, sizeof why) != 0)
        fail_msg("%s: %s", stem, why);
    jc_free(&want);
    jc_free(&got);
    free(want_text);
    free(out);
    free(err);
}

static void vectors_match_expected_json(void **state)
{
    (void)state;
    check_vector("seed_npu_qwen3_14b");
    check_vector("warmup_repeat_batch64");
}

static void text_report_with_prefill_kernel(void **state)
{
    char *out, *err;
    (void)state;
    assert_int_equal(tool("--prefill-kernel prefill_fwd " TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", &out, &err), 0);
    assert_non_null(strstr(out, "TPOT (steady, p50/p99): 52.70 [52.40, 53.02] / 56.71 [CI needs n>=368] ms/token"));
    assert_non_null(strstr(out, "prefill kernel alone: 1.92 s"));
    free(out);
    free(err);
    assert_int_equal(tool("--prefill-kernel run_decode " TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", &out, &err), 1);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "no kernel phase named 'run_decode'"));
    free(out);
    free(err);
}

static void several_traces_make_one_report(void **state)
{
    char *out, *err;
    jc_value doc;
    (void)state;
    assert_int_equal(tool("--json " TEST_VECTOR_DIR "/warmup_repeat_batch64.csv " TEST_VECTOR_DIR
                          "/warmup_repeat_batch64.csv",
                          &out, &err),
                     0);
    assert_int_equal(jc_parse(out, &doc), 0);
    /* the same run twice: twice the samples; the warmup flags are taken as written */
    assert_ms(&doc, "tpot.n", 96);
    assert_ms(&doc, "tpot.excluded_warmup", 32);
    assert_ms(&doc, "ttft.steady.n", 6);
    assert_ms(&doc, "ttft.first_ms", 880.48);
    assert_ms(&doc, "e2e.tokens", 2 * 4352);
    assert_ms(&doc, "tpot.p50_ms", 5.236); /* duplicating every value keeps the median */
    jc_free(&doc);
    free(out);
    free(err);
}

static void bad_input_exits_1_and_prints_no_report(void **state)
{
    char *out, *err;
    (void)state;
    write_text("bad.csv", "# x\nphase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\nd,decode,0,-5,1,0\n");
    assert_int_equal(tool(TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv bad.csv", &out, &err), 1);
    assert_string_equal(out, "");
    assert_string_equal(err, "ttft_tpot_report: bad.csv:4: dur_ns is not an unsigned 64-bit integer: -5\n");
    free(out);
    free(err);
    assert_int_equal(tool("--json does-not-exist.csv", &out, &err), 1);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "cannot read does-not-exist.csv"));
    free(out);
    free(err);
    write_text("empty.csv", "");
    assert_int_equal(tool("empty.csv", &out, &err), 1);
    assert_string_equal(err, "ttft_tpot_report: empty.csv:1: missing header: expected phase,role,start_ns,dur_ns,tokens,"
                             "warmup\n");
    free(out);
    free(err);
}

/* Each refusal names the program and exactly what is wrong: options --compare would ignore, numbers
   that are not plain decimals, an abbreviation that fits two options, a label given twice or badly
   named, a trace's parse error (with the program's name, so it reads among other tools' messages), a
   directory given as a trace. */
static void cli_says_exactly_what_is_wrong(void **state)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--compare --label a=b cli.csv cli.csv", "ttft_tpot_report: --compare prints the comparison only (text, --json "
                                                  "or --html): --prometheus-prefix and --label have no use (try --help)\n"},
        {"--compare --alpha 0x1p-4 cli.csv cli.csv",
         "ttft_tpot_report: --alpha takes a plain decimal between 0 and 1, not 0x1p-4 (try --help)\n"},
        {"--compare --alpha ' 0.1' cli.csv cli.csv",
         "ttft_tpot_report: --alpha takes a plain decimal between 0 and 1, not  0.1 (try --help)\n"},
        {"--compare --alpha 1e-2 cli.csv cli.csv",
         "ttft_tpot_report: --alpha takes a plain decimal between 0 and 1, not 1e-2 (try --help)\n"},
        {"--pro cli.csv", "ttft_tpot_report: ambiguous option --pro: --prometheus, --prometheus-prefix (try --help)\n"},
        {"--prometheus --label a=1 --label a=2 cli.csv",
         "ttft_tpot_report: --label a=2: the label a is given twice (try --help)\n"},
        {"--prometheus --label 9a=1 cli.csv",
         "ttft_tpot_report: --label 9a=1: a label name is [a-zA-Z_][a-zA-Z0-9_]*, not le, not __... (try --help)\n"},
        {"--prometheus --label le=1 cli.csv",
         "ttft_tpot_report: --label le=1: a label name is [a-zA-Z_][a-zA-Z0-9_]*, not le, not __... (try --help)\n"},
    };
    char *out, *err;
    size_t i;
    (void)state;
    write_text("cli.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\nd,decode,0,6,1,0\n");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = tool(cases[i].args, &out, &err);
        if (st != 2 || strcmp(err, cases[i].err) != 0)
            fail_msg("'%s': exit %d, stderr \"%s\", expected \"%s\"", cases[i].args, st, err, cases[i].err);
        free(out);
        free(err);
    }
    assert_int_equal(tool("--compare --alpha 0.1 cli.csv cli.csv", &out, &err), 0);
    free(out);
    free(err);
    write_text("role.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,prefil,0,5,1,0\n");
    assert_int_equal(tool("- <role.csv", &out, &err), 1);
    assert_string_equal(err, "ttft_tpot_report: -:2: unknown role: prefil\n");
    free(out);
    free(err);
    assert_int_equal(shell("mkdir -p a_directory"), 0);
    assert_int_equal(tool("a_directory", &out, &err), 1);
    assert_string_equal(err, "ttft_tpot_report: cannot read a_directory: Is a directory\n");
    assert_string_equal(out, "");
    free(out);
    free(err);
}

static void header_only_trace_reports_nulls(void **state)
{
    char *out, *err;
    jc_value doc;
    (void)state;
    write_text("header.csv", "phase,role,start_ns,dur_ns,tokens,warmup\n");
    assert_int_equal(tool("--json header.csv", &out, &err), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_true(is_null_at(&doc, "tpot"));
    assert_true(is_null_at(&doc, "ttft.first_ms"));
    jc_free(&doc);
    free(out);
    free(err);
}

static void bad_usage_exits_2(void **state)
{
    static const char *const cases[] = {"", "--json", "--frob x.csv", "--chrome-trace", "--prefill-kernel"};
    size_t i;
    char *out, *err;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = tool(cases[i], &out, &err);
        if (st != 2 || strncmp(err, "ttft_tpot_report: ", 18) != 0 || strchr(err, '\n') != err + strlen(err) - 1)
            fail_msg("'%s': exit %d, stderr \"%s\"", cases[i], st, err);
        assert_string_equal(out, "");
        free(out);
        free(err);
    }
    assert_int_equal(tool("--help", &out, &err), 0);
    assert_non_null(strstr(out, "Usage: ttft_tpot_report"));
    assert_non_null(strstr(out, "\n  or:  ttft_tpot_report --compare ")); /* help2man's synopsis lines */
    { /* each synopsis form on one line: a line of the usage continued reads as the description */
        const char *line = out;
        int k;
        for (k = 0; k < 4; k++, line = strchr(line, '\n') + 1)
            if (strncmp(line, k ? "  or:  ttft_tpot_report " : "Usage: ttft_tpot_report ", 24) != 0)
                fail_msg("usage line %d: %.60s", k + 1, line);
        assert_int_equal(strncmp(line, "  or:", 5) != 0 && strncmp(line, "     ", 5) != 0, 1);
    }
    free(out);
    free(err);
}

/* GNU-style options: after the trace, --opt=value, -- before a name that looks like an option, -
   as standard output for the Chrome trace, --version; a flag given a value is refused. */
static void options_gnu_style(void **state)
{
    char *out, *err, *want;
    (void)state;
    assert_int_equal(tool("--json " TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", &want, &err), 0);
    free(err);
    assert_int_equal(tool(TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv --json", &out, &err), 0); /* permuted */
    assert_string_equal(out, want);
    free(out);
    free(err);
    assert_int_equal(tool("--slo=ttft=100 --json " TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", &out, &err), 0);
    assert_non_null(strstr(out, "\"schema\":\"ttft_tpot/v1\""));
    free(out);
    free(err);
    write_text("--json", "phase,role,start_ns,dur_ns,tokens,warmup\nk,kernel,0,5,0,1\n");
    assert_int_equal(tool("--json -- --json", &out, &err), 0); /* after --, a name */
    assert_non_null(strstr(out, "\"name\":\"k\""));
    free(out);
    free(err);
    remove("--json");
    assert_int_equal(tool("--chrome-trace - " TEST_VECTOR_DIR "/warmup_repeat_batch64.csv", &out, &err), 0);
    assert_true(strncmp(out, "{\"displayTimeUnit\"", 18) == 0); /* the Chrome trace, not the report */
    assert_int_equal(shell("test ! -e ./-"), 0);                 /* and no file named - */
    free(out);
    free(err);
    assert_int_equal(tool("--version", &out, &err), 0);
    assert_true(strncmp(out, "ttft_tpot_report (ttft_tpot) " TTFT_TPOT_VERSION "\n", strlen(out)) == 0);
    free(out);
    free(err);
    assert_int_equal(tool("--json=yes x.csv", &out, &err), 2);
    assert_string_equal(err, "ttft_tpot_report: this option takes no value: --json=yes (try --help)\n");
    free(out);
    free(err);
    assert_int_equal(tool("x.csv --slo", &out, &err), 2);
    assert_string_equal(err, "ttft_tpot_report: a value is missing after --slo (try --help)\n");
    free(out);
    free(err);
    free(want);
}

/* --prometheus-prefix and --label: promtool checks the exposition and finds nothing to say. */
static void prometheus_names_from_the_tool(void **state)
{
    char *out, *err;
    (void)state;
    write_text("prom.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nA,submit,0,0,0,0\nA,schedule,5,0,0,0\n"
                           "A,token,100000000,0,1,0\nA,token,120000000,0,1,0\n");
    assert_int_equal(tool("--prometheus --prometheus-prefix llm_ --label model_name=qwen3 --label 'engine=a\"b' "
                          "prom.csv", &out, &err), 0);
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_count{model_name=\"qwen3\",engine=\"a\\\"b\"} 1\n"));
    assert_non_null(strstr(out, "llm_request_queue_time_seconds_sum{model_name=\"qwen3\",engine=\"a\\\"b\"} 0.000000005\n"));
    free(out);
    free(err);
    if (shell("command -v promtool >/dev/null 2>&1") != 0) {
        print_message("promtool not found (Debian: apt-get install prometheus): SKIPPED\n");
    } else {
        assert_int_equal(shell("\"" REPORT_BIN "\" --prometheus --prometheus-prefix llm_ --label model_name=q prom.csv "
                               "| " PROMTOOL_CHECK("promtool_tool.out")), 0);
        out = slurp("promtool_tool.out");
        assert_string_equal(out, ""); /* no complaint at all */
        free(out);
    }
    /* --model-name is the label model_name, which vLLM's dashboards filter on; once */
    assert_int_equal(tool("--prometheus --model-name 'q \"3\"' prom.csv", &out, &err), 0);
    assert_non_null(strstr(out, "vllm:request_success_total{model_name=\"q \\\"3\\\"\",finished_reason=\"\"} 1\n"));
    assert_non_null(strstr(out, "vllm:num_requests_running{model_name=\"q \\\"3\\\"\"} 1\n")); /* no finish: in flight */
    free(out);
    free(err);
    assert_int_equal(tool("--prometheus --model-name a --label model_name=b prom.csv", &out, &err), 2);
    free(out);
    free(err);
    assert_int_equal(tool("--prometheus --label le=x prom.csv", &out, &err), 2); /* le is the buckets' */
    free(out);
    free(err);
    assert_int_equal(tool("--label a=b prom.csv", &out, &err), 2); /* labels shape --prometheus only */
    free(out);
    free(err);
    assert_int_equal(tool("--requests-csv - --slo ttft=30 prom.csv", &out, &err), 0); /* TTFT 100 ms: missed */
    assert_string_equal(out, "id,submit_ns,schedule_ns,first_token_ns,last_token_ns,tokens,ttft_ns,tpot_ns,e2e_ns,"
                             "measured,slo_ttft,slo_tpot,slo_e2e,first_output_ns,ttfo_ns\n"
                             "A,0,5,100000000,120000000,2,100000000,20000000.000,120000000,1,0,,,,\n");
    free(out);
    free(err);
    assert_int_equal(tool("--requests-csv - --chrome-trace - prom.csv", &out, &err), 2);
    free(out);
    free(err);
    /* --slice: A in flight from 0 to 120 ms, its tokens at 100 and 120 ms; 50 ms slices */
    assert_int_equal(tool("--slice 0.05 prom.csv", &out, &err), 0);
    assert_non_null(strstr(out, "  Peak: 40.0 output tok/s (the busiest 50.00 ms slice), 1 concurrent request\n"
                                "  Over time (50.00 ms slices from the first submit):\n"));
    assert_non_null(strstr(out, "   100.00 ms        40.0          1          0  -\n"));
    free(out);
    free(err);
    assert_int_equal(tool("--slice 0 prom.csv", &out, &err), 2);
    free(out);
    free(err);
    /* --percentiles as the issue spells it: A's TTFT of 100 ms is every percentile; JSON adds p99.9 */
    assert_int_equal(tool("--percentiles 50,90,99,99.9 prom.csv", &out, &err), 0);
    assert_non_null(strstr(out, "  TTFT p50/p90/p99/p99.9: 100.00 ms / 100.00 ms / 100.00 ms / 100.00 ms  (mean "
                                "100.00 ms, n=1)\n"));
    free(out);
    free(err);
    assert_int_equal(tool("--percentiles 50,90,99,99.9 --json prom.csv", &out, &err), 0);
    assert_non_null(strstr(out, "\"p99\":100.0,\"p99.9\":100.0,\"min\":100.0,"));
    free(out);
    free(err);
    assert_int_equal(tool("--percentiles 99,50 prom.csv", &out, &err), 2); /* not ascending */
    free(out);
    free(err);
    write_text("noreq.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nprefill,prefill,0,5,1,1\n");
    assert_int_equal(tool("--prometheus noreq.csv", &out, &err), 3); /* written, and said to be empty */
    assert_non_null(strstr(out, "vllm:time_to_first_token_seconds_count 0\n"));
    assert_string_equal(err, "ttft_tpot_report: warning: --prometheus: no measured request in the traces (none, "
                             "or all warmup or without a token): every histogram is empty\n");
    free(out);
    free(err);
}


/* --ranks writes what the report writes: times to the ns in JSON (100.5 ns is 0.000101 ms, as
   "tpot" has it), steps under 1 us in ns in the text, a trace's name escaped as every message escapes
   it. */
static void ranks_round_escape_and_small_steps(void **state)
{
    char *out, *err;
    const char *r;
    (void)state;
    write_text("rk0.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9,1,1\nd,decode,0,100,1,0\n"
                          "d,decode,0,101,1,0\n");
    write_text("rk\033[31m1.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9,1,1\nd,decode,0,3,1,0\n"
                                  "d,decode,0,4,1,0\n");
    assert_int_equal(tool("--ranks --json rk0.csv \"rk\033[31m1.csv\"", &out, &err), 0);
    assert_non_null(strstr(out, "\"tpot\":{\"n\":2,\"excluded_warmup\":1,\"mean_ms\":0.000101,\"p50_ms\":0.000101,"));
    assert_non_null(r = strstr(out, "\"ranks\":"));
    assert_non_null(strstr(r, "\"per_rank\":[{\"n\":2,\"mean_ms\":0.000101,\"p50_ms\":0.000101,"));
    assert_non_null(strstr(r, "{\"n\":2,\"mean_ms\":0.000004,\"p50_ms\":0.000004,")); /* 3.5 ns */
    assert_null(strstr(out, "0.0001005"));
    free(out);
    free(err);
    write_text("rk0.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9,1,1\nd,decode,0,1,1,0\n"
                          "d,decode,0,2,1,0\nd,decode,0,3,1,0\n");
    write_text("rk\033[31m1.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9,1,1\nd,decode,0,1,1,0\n"
                                  "d,decode,0,2,1,0\nd,decode,0,3,1,0\n");
    assert_int_equal(tool("--ranks rk0.csv \"rk\033[31m1.csv\"", &out, &err), 0);
    assert_non_null(strstr(out, "   1      3       2 ns       3 ns       2 ns     0.0%  rk\\x1b[31m1.csv\n"));
    assert_non_null(strstr(out, "TPOT (step = max over ranks): p50 2 ns, p90 3 ns, p99 3 ns, mean 2 ns  (n=3 steps"));
    assert_null(strstr(out, "\033"));
    assert_null(strstr(out, "0.00 us"));
    free(out);
    free(err);
}
/* --ranks: step k of each rank lined up, its time the maximum over the ranks. rank 0's steady steps 1,
   3, 2 ms, rank 1's 2, 1, 2, 5 ms (one past rank 0's: unmatched): maxima 2, 3, 2 (p50 2, mean 7/3 ms),
   spreads 1, 2, 0 (p50 1, max 2 ms); slowest: rank 1, rank 0, a tie (the lowest rank): [2, 1]. */
static void ranks_line_up_steps(void **state)
{
    char *out, *err;
    const char *r;
    (void)state;
    write_text("rank0.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9000000,1,1\nd,decode,0,1000000,1,0\n"
                            "d,decode,0,3000000,1,0\nd,decode,0,2000000,1,0\n");
    write_text("rank1.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,9000000,1,1\nd,decode,0,2000000,1,0\n"
                            "d,decode,0,1000000,1,0\nd,decode,0,2000000,1,0\nd,decode,0,5000000,1,0\n");
    assert_int_equal(tool("--ranks --json rank0.csv rank1.csv", &out, &err), 0);
    assert_non_null(r = strstr(out, ",\"ranks\":{\"n\":2,\"steps\":3,\"unmatched\":1,\"tpot\":{\"n\":3,"
                                    "\"mean_ms\":2.333333,\"p50_ms\":2.0,")); /* to the ns */
    assert_non_null(strstr(r, "\"max_ms\":3.0,\"total_ms\":7.0},\"slowest\":[2,1],\"spread\":{\"n\":3,\"mean_ms\":1.0,"
                              "\"p50_ms\":1.0,"));
    assert_non_null(strstr(r, "\"per_rank\":[{\"n\":3,\"mean_ms\":2.0,"));
    assert_string_equal(out + strlen(out) - 4, "]}}\n"); /* the report's object closes after "ranks" */
    free(out);
    free(err);
    assert_int_equal(tool("--ranks rank0.csv rank1.csv", &out, &err), 0);
    assert_non_null(strstr(out, "TPOT (step = max over ranks): p50 2.00 ms, p90 2.80 ms, p99 2.98 ms, mean 2.33 ms  "
                                "(n=3 steps lined up; 1 step past the shortest rank left out)\n"));
    assert_non_null(strstr(out, "Straggler spread (max - min per step): p50 1.00 ms, p99 1.98 ms, max 2.00 ms\n"));
    assert_non_null(strstr(out, "   1      4    2.00 ms    4.91 ms    2.50 ms    33.3%  rank1.csv\n"));
    free(out);
    free(err);
    assert_int_equal(tool("--ranks rank0.csv", &out, &err), 2);
    free(out);
    free(err);
    assert_int_equal(tool("--ranks --prometheus rank0.csv rank1.csv", &out, &err), 2);
    free(out);
    free(err);
    write_text("norank.csv", "phase,role,start_ns,dur_ns,tokens,warmup\np,prefill,0,5,1,1\n");
    assert_int_equal(tool("--ranks rank0.csv norank.csv", &out, &err), 1);
    assert_non_null(strstr(err, "--ranks: every rank needs steady decode steps"));
    free(out);
    free(err);
}

static void chrome_trace_has_one_event_per_sample(void **state)
{
    char *out, *err, *json;
    jc_value doc;
    const jc_value *ev, *x = NULL;
    size_t i, n_x = 0;
    (void)state;
    assert_int_equal(tool("--chrome-trace chrome.json " TEST_VECTOR_DIR "/seed_npu_qwen3_14b.csv", &out, &err), 0);
    json = slurp("chrome.json");
    if (jc_parse(json, &doc) != 0)
        fail_msg("not JSON: %.200s", json);
    ev = jc_get(&doc, "traceEvents");
    assert_non_null(ev);
    for (i = 0; i < ev->n; i++) {
        const jc_value *ph = jc_get(&ev->items[i], "ph");
        if (ph && strcmp(ph->str, "X") == 0 && n_x++ == 0)
            x = &ev->items[i];
    }
    assert_int_equal(n_x, 65); /* every sample */
    /* run_prefill,prefill,1000000000,7990000000,1,1: microseconds */
    assert_string_equal(jc_get(x, "name")->str, "run_prefill");
    assert_string_equal(jc_get(x, "cat")->str, "prefill");
    assert_ms(x, "ts", 1000000.0);
    assert_ms(x, "dur", 7990000.0);
    assert_ms(x, "args.tokens", 1);
    assert_ms(x, "args.warmup", 1);
    assert_non_null(strstr(json, "\"ts\":7074260.000,\"dur\":1915740.000")); /* prefill_fwd, to the ns */
    jc_free(&doc);
    free(json);
    free(out);
    free(err);
}

/* 4. Every input is read once: standard input as '-' or /dev/stdin, a pipe, a FIFO; all give the
   report of the file itself. */
static void inputs_are_read_once(void **state)
{
    static const char *const ways[] = {
        "cat '%s' | \"%s\" --json - >report_test.out 2>report_test.err",
        "\"%2$s\" --json /dev/stdin <'%1$s' >report_test.out 2>report_test.err",
        "cat '%s' | \"%s\" --json /dev/stdin >report_test.out 2>report_test.err",
        "bash -c '\"$1\" --json <(cat \"$0\")' '%s' \"%s\" >report_test.out 2>report_test.err",
        ("rm -f in.fifo && mkfifo in.fifo && { cat '%s' >in.fifo & } && timeout 60 \"%s\" --json in.fifo "
         ">report_test.out 2>report_test.err"),
    };
    const char *vec = TEST_VECTOR_DIR "/warmup_repeat_batch64.csv";
    char cmd[2048], *want, *err, *got;
    size_t i;
    (void)state;
    snprintf(cmd, sizeof cmd, "--json %s", vec);
    assert_int_equal(tool(cmd, &want, &err), 0);
    free(err);
    for (i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        snprintf(cmd, sizeof cmd, ways[i], vec, REPORT_BIN);
        if (shell(cmd) != 0)
            fail_msg("%s: %s", cmd, (err = slurp("report_test.err")));
        got = slurp("report_test.out");
        assert_string_equal(got, want);
        free(got);
    }
    free(want);
    remove("in.fifo");
}

/* 4. Blank lines are not samples: storage is sized by records, so 1e7 blank lines (which once
   sized storage for 1e7 samples, about 1.5 GB) report in well under 1 GB of address space. */
static void blank_lines_cost_no_storage(void **state)
{
    char cmd[1024], *out, *err;
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip(); /* a sanitizer reserves terabytes of address space: no ulimit -v here */
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    skip();
#endif
#endif
    write_text("blank.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,0\n");
    assert_int_equal(shell("head -c 10000000 /dev/zero | tr '\\0' '\\n' >>blank.csv"), 0);
    snprintf(cmd, sizeof cmd, "ulimit -v 1000000 && \"%s\" --json blank.csv >report_test.out 2>report_test.err",
             REPORT_BIN);
    assert_int_equal(shell(cmd), 0);
    out = slurp("report_test.out");
    err = slurp("report_test.err");
    assert_string_equal(err, "");
    assert_non_null(strstr(out, "\"samples\":1,"));
    free(out);
    free(err);
    remove("blank.csv");
}

/* 5. A trace without start times has no timeline: the export is refused, not written at ts 0. */
static void chrome_trace_needs_start_times(void **state)
{
    char *out, *err;
    FILE *f;
    (void)state;
    write_text("nostart.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,1\nd,decode,0,6,1,0\n");
    remove("nostart.json");
    assert_int_equal(tool("--chrome-trace nostart.json nostart.csv", &out, &err), 1);
    assert_string_equal(out, "");
    assert_non_null(strstr(err, "nostart.csv has no start times"));
    assert_non_null(strstr(err, "config.timeline"));
    f = fopen("nostart.json", "r");
    assert_null(f);
    free(out);
    free(err);
}

/* A trace with start times is reported as the collector that wrote it reports, whatever else is
   asked: a kernel that holds others nests and has its self time with --json alone, as with
   --chrome-trace. "Live" here: the same rows in a collector with config.timeline. */
static void nesting_needs_no_chrome_trace(void **state)
{
    static const char trace[] = "phase,role,start_ns,dur_ns,tokens,warmup\n" /* in end order */
                                "attn,kernel,1010,20,0,0\nlayer,kernel,1000,60,0,0\nhead,kernel,1070,20,0,0\n"
                                "step,decode,1000,100,1,0\n"
                                "attn,kernel,2010,20,0,0\nlayer,kernel,2000,60,0,0\nhead,kernel,2070,20,0,0\n"
                                "step,decode,2000,100,1,0\n"
                                "attn,kernel,3010,20,0,0\nlayer,kernel,3000,60,0,0\nhead,kernel,3070,20,0,0\n"
                                "step,decode,3000,100,1,0\n";
    ttft_tpot_config cfg = {0};
    ttft_tpot c;
    char *out, *err, *live, *with_chrome;
    FILE *f;
    (void)state;
    write_text("nests.csv", trace);
    cfg.grow = 1, cfg.timeline = 1;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    f = fopen("nests.csv", "rb");
    assert_non_null(f);
    assert_int_equal(ttft_tpot_trace_read(&c, f, "nests.csv", NULL, 0), TTFT_TPOT_OK);
    fclose(f);
    f = fopen("nests.live.json", "wb");
    assert_non_null(f);
    assert_int_equal(report_json(&c, f), TTFT_TPOT_OK);
    fclose(f);
    ttft_tpot_free(&c);
    live = slurp("nests.live.json");
    assert_non_null(strstr(live, "\"nests\":true"));
    assert_int_equal(tool("--json --chrome-trace /dev/null nests.csv", &with_chrome, &err), 0);
    free(err);
    assert_int_equal(tool("--json nests.csv", &out, &err), 0);
    assert_string_equal(out, with_chrome);
    assert_non_null(strstr(out, "\"nests\":true"));
    assert_string_equal(strstr(out, "\"phases\""), strstr(live, "\"phases\"")); /* the clocks differ */
    free(out), free(err), free(live), free(with_chrome);
}

#ifdef GENERATE_BIN
/* What the driver printed live is what the tool prints from the driver's trace: plain runs, and
   serving (request events in the trace). */
static void round_trip(const char *mode)
{
    char cmd[1024], *live_json, *live_out, *out, *err;
    snprintf(cmd, sizeof cmd,
             "\"%s\" --dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 16 --max-new-tokens 8 "
             "--batch 2 --warmup-runs 1 %s --profile --profile-json live.json --trace live.csv >live.out",
             GENERATE_BIN, mode);
    assert_int_equal(shell(cmd), 0);
    live_json = slurp("live.json");
    live_out = slurp("live.out");
    assert_int_equal(tool("--json live.csv", &out, &err), 0);
    assert_string_equal(out, live_json);
    free(out);
    free(err);
    assert_int_equal(tool("live.csv", &out, &err), 0);
    if (strstr(live_out, out) == NULL)
        fail_msg("offline text report not in the live output:\n%s\n---\n%s", out, live_out);
    free(out);
    free(err);
    free(live_json);
    free(live_out);
}

/* Outputs with little in them say so: --requests-csv of a trace without requests warns (exit 0);
   --prometheus of a trace with device intervals but no request writes the device series, exit 0;
   counts of one are singular. */
static void little_to_report_is_said(void **state)
{
    char cmd[1024], *out, *err;
    (void)state;
    write_text("noreq1.csv", "phase,role,start_ns,dur_ns,tokens,warmup\nd,decode,0,5,1,1\nd,decode,0,6,1,0\n");
    assert_int_equal(tool("--requests-csv - noreq1.csv", &out, &err), 0);
    assert_string_equal(out, "id,submit_ns,schedule_ns,first_token_ns,last_token_ns,tokens,ttft_ns,tpot_ns,e2e_ns,"
                             "measured,slo_ttft,slo_tpot,slo_e2e,first_output_ns,ttfo_ns\n");
    assert_non_null(strstr(err, "warning: --requests-csv: no request in the traces"));
    free(out), free(err);
    assert_int_equal(tool("noreq1.csv", &out, &err), 0);
    assert_non_null(strstr(out, "ttft_tpot report: 2 samples in 1 phase (clock:"));
    free(out), free(err);
    snprintf(cmd, sizeof cmd,
             "\"%s\" --dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 16 --max-new-tokens 8 "
             "--batch 2 --warmup-runs 1 --async --trace dev.csv >/dev/null",
             GENERATE_BIN);
    assert_int_equal(shell(cmd), 0);
    assert_int_equal(tool("--prometheus dev.csv", &out, &err), 0);
    assert_non_null(strstr(out, "ttft_tpot:device_time_per_output_token_seconds_count"));
    assert_null(strstr(err, "every histogram is empty"));
    assert_non_null(strstr(err, "no measured request"));
    free(out), free(err);
    write_text("empty1.csv", "phase,role,start_ns,dur_ns,tokens,warmup\n");
    assert_int_equal(tool("--prometheus empty1.csv", &out, &err), 3); /* nothing to count: as before */
    assert_non_null(strstr(err, "every histogram is empty"));
    free(out), free(err);
    assert_int_equal(tool("empty1.csv", &out, &err), 0); /* a span never ended left no sample: said */
    assert_non_null(strstr(out, "Nothing to report: no prefill, decode or e2e sample, and no request\n"
                                "(a span is recorded at its end: one begun and never ended leaves nothing)\n"));
    free(out), free(err);
}

static void driver_round_trip(void **state)
{
    (void)state;
    round_trip("--repeat-runs 2");
    round_trip("--requests 5 --arrival-rate 0");
}
#endif

/* The serving metrics of a hand-made trace, through the tool: vLLM's definitions worked by hand.
   A: submit 0, tokens at 100, 120, 150 (2) ms; B: submit 10, 1 token at 60; C: submit 20, 3 at 300;
   W: warmup; I: no token. */
static void requests_through_the_tool(void **state)
{
    char *out, *err;
    jc_value doc;
    (void)state;
    write_text("requests.csv", "phase,role,start_ns,dur_ns,tokens,warmup\n"
                               "W,submit,0,0,0,1\nA,submit,0,0,0,0\nW,token,5000000,0,1,1\n"
                               "B,submit,10000000,0,0,0\nC,submit,20000000,0,0,0\nI,submit,40000000,0,0,0\n"
                               "B,token,60000000,0,1,0\nA,token,100000000,0,1,0\nA,token,120000000,0,1,0\n"
                               "A,token,150000000,0,2,0\nC,token,300000000,0,3,0\n");
    assert_int_equal(tool("--json --slo ttft=100,e2e=150 requests.csv", &out, &err), 0);
    assert_int_equal(jc_parse(out, &doc), 0);
    assert_ms(&doc, "requests.n", 3);
    assert_ms(&doc, "requests.incomplete", 1);
    assert_ms(&doc, "requests.warmup_excluded", 1);
    assert_ms(&doc, "requests.ttft_ms.p90", 244); /* 50 100 280: 100 + 0.8 * 180 */
    assert_ms(&doc, "requests.e2e_ms.mean", 160);
    assert_near(num_at(&doc, "requests.tpot_ms.max"), 50.0 / 3, 1e-6);
    assert_ms(&doc, "requests.itl_ms.p50", 25);
    assert_ms(&doc, "requests.request_throughput_rps", 10);
    assert_ms(&doc, "requests.goodput.n", 2); /* A (100 and 150, both edges) and B */
    assert_ms(&doc, "requests.goodput.slo.ttft_ms", 100);
    assert_true(is_null_at(&doc, "requests.goodput.slo.tpot_ms"));
    jc_free(&doc);
    free(out);
    free(err);
    assert_int_equal(tool("--prometheus requests.csv", &out, &err), 0);
    assert_non_null(strstr(out, "vllm:request_success_total{finished_reason=\"\"} 3\n"));
    free(out);
    free(err);
    assert_int_equal(tool("--json --prometheus requests.csv", &out, &err), 2);
    free(out);
    free(err);
}

/* --bounded: the same report as exact, n, min, max, mean and tokens to the ns, percentiles within
   the histogram's error (1/128), and every steady figure marked approximate. */
static void bounded_report_of_a_trace(void **state)
{
    static const char *const keys[] = {"p50_ms", "p90_ms", "p95_ms", "p99_ms"};
    char args[512], *out, *err;
    jc_value exact, bounded;
    const jc_value *pe, *pb;
    size_t i, k;
    (void)state;
    snprintf(args, sizeof args, "--json %s/seed_npu_qwen3_14b.csv", TEST_VECTOR_DIR);
    assert_int_equal(tool(args, &out, &err), 0);
    assert_int_equal(jc_parse(out, &exact), 0);
    free(out);
    free(err);
    snprintf(args, sizeof args, "--bounded --json %s/seed_npu_qwen3_14b.csv", TEST_VECTOR_DIR);
    assert_int_equal(tool(args, &out, &err), 0);
    assert_string_equal(err, "");
    assert_int_equal(jc_parse(out, &bounded), 0);
    free(out);
    free(err);
    assert_ms(&bounded, "tpot.n", num_at(&exact, "tpot.n"));
    assert_ms(&bounded, "tpot.min_ms", num_at(&exact, "tpot.min_ms"));
    assert_ms(&bounded, "tpot.max_ms", num_at(&exact, "tpot.max_ms"));
    assert_near(num_at(&bounded, "tpot.mean_ms"), num_at(&exact, "tpot.mean_ms"), 1e-9);
    assert_near(num_at(&bounded, "output_throughput_tok_s"), num_at(&exact, "output_throughput_tok_s"), 1e-9);
    assert_true(jc_get(&bounded, "tpot.approximate")->type == JC_BOOL && jc_get(&bounded, "tpot.approximate")->num == 1);
    for (k = 0; k < 4; k++) {
        char path[32];
        snprintf(path, sizeof path, "tpot.%s", keys[k]);
        assert_near(num_at(&bounded, path), num_at(&exact, path), num_at(&exact, path) / 128);
    }
    pe = jc_get(&exact, "phases");
    pb = jc_get(&bounded, "phases");
    assert_int_equal(pe->n, pb->n);
    for (i = 0; i < pe->n; i++) {
        assert_ms(&pb->items[i], "n", num_at(&pe->items[i], "n"));
        assert_ms(&pb->items[i], "max_ms", num_at(&pe->items[i], "max_ms"));
        for (k = 0; k < 4; k++)
            assert_near(num_at(&pb->items[i], keys[k]), num_at(&pe->items[i], keys[k]),
                        num_at(&pe->items[i], keys[k]) / 128);
    }
    jc_free(&exact);
    jc_free(&bounded);
    snprintf(args, sizeof args, "--bounded --chrome-trace x.json %s/seed_npu_qwen3_14b.csv", TEST_VECTOR_DIR);
    assert_int_equal(tool(args, &out, &err), 2);
    assert_non_null(strstr(err, "--bounded keeps no timeline for --chrome-trace"));
    free(out);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vectors_match_expected_json),
        cmocka_unit_test(text_report_with_prefill_kernel),
        cmocka_unit_test(several_traces_make_one_report),
        cmocka_unit_test(bad_input_exits_1_and_prints_no_report),
        cmocka_unit_test(header_only_trace_reports_nulls),
        cmocka_unit_test(bad_usage_exits_2),
        cmocka_unit_test(cli_says_exactly_what_is_wrong),
        cmocka_unit_test(options_gnu_style),
        cmocka_unit_test(prometheus_names_from_the_tool),
        cmocka_unit_test(ranks_line_up_steps),
        cmocka_unit_test(ranks_round_escape_and_small_steps),
        cmocka_unit_test(chrome_trace_has_one_event_per_sample),
        cmocka_unit_test(requests_through_the_tool),
        cmocka_unit_test(inputs_are_read_once),
        cmocka_unit_test(blank_lines_cost_no_storage),
        cmocka_unit_test(chrome_trace_needs_start_times),
        cmocka_unit_test(nesting_needs_no_chrome_trace),
        cmocka_unit_test(bounded_report_of_a_trace),
#ifdef GENERATE_BIN
        cmocka_unit_test(driver_round_trip),
        cmocka_unit_test(little_to_report_is_said),
#endif
    };
    return run_cases(tests);
}
