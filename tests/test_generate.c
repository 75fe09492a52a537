/* The example driver end to end: its report on real work has the shape the metrics promise, and bad
   flags get one line on stderr and exit status 2. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* symlink, mkfifo, lstat */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

#include <sys/stat.h>
#include <unistd.h>

/* Run the driver with args; returns its exit status, stderr in *err (to free). */
static int run(const char *args, char **err)
{
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "\"%s\" %s >generate_test.out 2>generate_test.err", GENERATE_BIN, args);
    st = shell(cmd);
    *err = slurp("generate_test.err");
    return st;
}

static void profile_run_shows_warmup_separated(void **state)
{
    jc_value doc;
    char *err, *out;
    (void)state;
    /* a reduced model with a short prompt: quick under sanitizers, and its one-time costs (repacking
       every weight) still dwarf a steady prefill of 4 tokens, about 3x under ASan without
       -march=native; a prompt of 16 left 1.5x, which a busy machine could close */
    assert_int_equal(run("--dim 256 --layers 4 --heads 4 --hidden 704 --vocab 2048 --prompt-len 4 --profile "
                         "--warmup-runs 1 --repeat-runs 3 --profile-json generate_test.json",
                         &err),
                     0);
    free(err);
    out = slurp("generate_test.out");
    assert_non_null(strstr(out, "TTFT (first request)"));
    assert_non_null(strstr(out, "prefill rate"));
    assert_non_null(strstr(out, "decode weight stream"));
    free(out);
    json_file("generate_test.json", &doc);
    /* the one-time costs land in the first request and step 0, not in the steady figures */
    /* against the fastest steady prefill: a busy machine that stalls one of the 3 moves their p50 */
    assert_true(num_at(&doc, "ttft.first_ms") > num_at(&doc, "ttft.steady.min_ms"));
    assert_ms(&doc, "ttft.steady.n", 3);
    assert_ms(&doc, "tpot.n", 3 * 31);
    assert_ms(&doc, "tpot.excluded_warmup", 31);
    assert_true(num_at(&doc, "tpot.p50_ms") <= num_at(&doc, "tpot.p99_ms"));
    assert_true(num_at(&doc, "output_throughput_tok_s") > num_at(&doc, "e2e.tok_s"));
    assert_ms(&doc, "e2e.tokens", 4 * 32);
    assert_ms(&doc, "dropped", 0);
    assert_ms(&doc, "rejected", 0);
    jc_free(&doc);
}

static void batch_records_tokens_per_step(void **state)
{
    jc_value doc;
    char *err;
    (void)state;
    assert_int_equal(run("--dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 16 --max-new-tokens 5 "
                         "--batch 4 --profile-json generate_test.json",
                         &err),
                     0);
    free(err);
    json_file("generate_test.json", &doc);
    assert_ms(phase_named(&doc, "decode_step"), "n", 4);       /* 5 new tokens: 1 from the prefill, 4 steps */
    assert_ms(phase_named(&doc, "decode_step"), "tokens", 16); /* 4 sequences a step */
    assert_ms(phase_named(&doc, "prefill"), "tokens", 4);      /* one per sequence */
    assert_ms(phase_named(&doc, "decode_layer"), "n", 4 * 2);  /* 2 layers a step */
    assert_ms(&doc, "e2e.tokens", 20);
    assert_ms(&doc, "tpot.n", 3);
    /* 4 tokens per step: throughput is 4 / mean step time (the mean is printed to the ns) */
    assert_near(num_at(&doc, "output_throughput_tok_s"), 4 * 1000.0 / num_at(&doc, "tpot.mean_ms"),
                1e-4 * num_at(&doc, "output_throughput_tok_s"));
    jc_free(&doc);
}

/* Serving: requests arrive, wait, are prefilled and decoded in a batch that changes size. */
static void serving_mode_records_every_request(void **state)
{
    jc_value doc;
    char *err, *prom;
    (void)state;
    assert_int_equal(run("--dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 8 --max-new-tokens 5 "
                         "--batch 3 --requests 7 --arrival-rate 0 --warmup-runs 1 --slo ttft=60000,e2e=60000 "
                         "--profile-json generate_test.json --prometheus generate_test.prom",
                         &err),
                     0);
    free(err);
    json_file("generate_test.json", &doc);
    assert_ms(&doc, "requests.n", 7);
    assert_ms(&doc, "requests.incomplete", 0);
    assert_ms(&doc, "requests.ttft_ms.n", 7);
    assert_ms(&doc, "requests.tpot_ms.n", 7);       /* 5 tokens each: every request has a TPOT */
    assert_ms(&doc, "requests.itl_ms.n", 7 * 4);    /* one token an event: 4 gaps each */
    assert_ms(&doc, "requests.goodput.n", 7);       /* SLOs of a minute: all good */
    assert_true(num_at(&doc, "requests.ttft_ms.max") <= num_at(&doc, "requests.e2e_ms.max"));
    assert_true(num_at(&doc, "requests.window_ms") > 0);
    /* 7 requests over 3 slots: the decode batch shrinks at the end; each new size is a warmup step,
       of its own row (decode by batch size): the warmup run's 4 steps are of b=3 */
    assert_true(num_at(&doc, "tpot.excluded_warmup") >= 4 + 1);
    assert_true(num_at(phase_named(&doc, "decode_step[b=3]"), "warmup_n") >= 4);
    assert_true(num_at(phase_named(&doc, "decode_step[b=1]"), "warmup_n") >= 1);
    assert_ms(&doc, "requests.queue_ms.n", 7); /* each request scheduled when its prefill began */
    /* steady prefills carry their prompts: 8 tokens a request */
    assert_true(num_at(&doc, "prefill.tokens") >= 8 && (uint64_t)num_at(&doc, "prefill.tokens") % 8 == 0);
    assert_true(num_at(&doc, "prefill.tok_s") > 0);
    jc_free(&doc);
    prom = slurp("generate_test.prom");
    assert_non_null(strstr(prom, "vllm:request_success_total{finished_reason=\"length\"} 7\n"));
    assert_non_null(strstr(prom, "vllm:generation_tokens_total 35\n"));
    assert_non_null(strstr(prom, "vllm:prompt_tokens_total 56\n")); /* 7 requests of 8 prompt tokens */
    free(prom);
    /* with a prefix and a label, promtool has nothing to say */
    assert_int_equal(run("--dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 8 --max-new-tokens 5 "
                         "--batch 3 --requests 7 --arrival-rate 0 --prometheus=generate_test.prom "
                         "--prometheus-prefix llm_ --model-name tiny",
                         &err),
                     0);
    free(err);
    prom = slurp("generate_test.prom");
    assert_non_null(strstr(prom, "llm_request_success_total{model_name=\"tiny\",finished_reason=\"length\"} 7\n"));
    assert_non_null(strstr(prom, "llm_request_queue_time_seconds_count{model_name=\"tiny\"} 7\n"));
    free(prom);
    if (shell("command -v promtool >/dev/null 2>&1") != 0) {
        print_message("promtool not found (Debian: apt-get install prometheus): SKIPPED\n");
        return;
    }
    assert_int_equal(shell("cat generate_test.prom | " PROMTOOL_CHECK("generate_promtool.out")), 0);
    prom = slurp("generate_promtool.out");
    assert_string_equal(prom, "");
    free(prom);
}

#define TINY "--dim 32 --layers 2 --heads 2 --hidden 48 --vocab 50 --prompt-len 8 --max-new-tokens 4 "

/* GNU-style options: --opt=value, --version, and - as the trace's file: standard output then carries
   the trace alone (the tokens and the report go to stderr), so a pipe into the report tool works. */
static void options_gnu_style_and_standard_output(void **state)
{
    char cmd[1024], *out;
    (void)state;
    snprintf(cmd, sizeof cmd, "\"%s\" --version > gen_version.out", GENERATE_BIN);
    assert_int_equal(shell(cmd), 0);
    out = slurp("gen_version.out");
    assert_string_equal(out, "generate (ttft_tpot) " TTFT_TPOT_VERSION "\n");
    free(out);
    snprintf(cmd, sizeof cmd, "\"%s\" --help > gen_help.out", GENERATE_BIN);
    assert_int_equal(shell(cmd), 0);
    out = slurp("gen_help.out");
    assert_non_null(strstr(out, "usage: generate"));
    assert_non_null(strstr(out, "--profile-html FILE"));
    assert_non_null(strstr(out, "--prometheus-prefix P"));
    assert_non_null(strstr(out, "--label K=V"));
    assert_non_null(strstr(out, "--version"));
    free(out);
#ifdef REPORT_BIN
    snprintf(cmd, sizeof cmd, "\"%s\" " TINY "--batch=2 --trace - --profile 2>gen_pipe.err | \"%s\" --json - > gen_pipe.json",
             GENERATE_BIN, REPORT_BIN);
    assert_int_equal(shell(cmd), 0);
    out = slurp("gen_pipe.json");
    assert_non_null(strstr(out, "\"schema\":\"ttft_tpot/v1\""));
    free(out);
    out = slurp("gen_pipe.err");
    assert_non_null(strstr(out, "ttft_tpot report:")); /* the report, on stderr */
    free(out);
#endif
    snprintf(cmd, sizeof cmd, "\"%s\" " TINY "--trace - --profile-json - 2>/dev/null", GENERATE_BIN);
    assert_int_equal(shell(cmd), 2); /* one output at most on standard output */
}

/* 6. A report that cannot be written is a failure. */
static void write_failure_exits_1(void **state)
{
    char cmd[1024];
    (void)state;
    snprintf(cmd, sizeof cmd, "\"%s\" " TINY "--profile >/dev/full 2>generate_test.err", GENERATE_BIN);
    assert_int_equal(shell(cmd), 1);
}

/* 6. --prometheus PATH: a planted PATH.tmp symlink is not followed, and a target that is not a
   regular file (here a FIFO) is refused and left as it was. */
static void prometheus_file_is_written_safely(void **state)
{
    struct stat st;
    char *err, *text;
    FILE *f;
    (void)state;
    remove("victim.txt");
    remove("p.prom");
    remove("p.prom.tmp");
    remove("p.fifo");
    f = fopen("victim.txt", "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    assert_int_equal(symlink("victim.txt", "p.prom.tmp"), 0);
    assert_int_equal(run(TINY "--requests 2 --prometheus p.prom", &err), 0);
    free(err);
    text = slurp("victim.txt");
    assert_string_equal(text, "keep\n");
    free(text);
    assert_int_equal(lstat("p.prom", &st), 0);
    assert_true(S_ISREG(st.st_mode));
    text = slurp("p.prom");
    assert_non_null(strstr(text, "vllm:request_success_total{finished_reason=\"length\"} 2\n"));
    free(text);
    assert_int_equal(mkfifo("p.fifo", 0600), 0);
    assert_int_equal(run(TINY "--requests 2 --prometheus p.fifo", &err), 1);
    assert_non_null(strstr(err, "p.fifo is not a regular file"));
    free(err);
    assert_int_equal(lstat("p.fifo", &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    remove("p.fifo");
    remove("p.prom.tmp");
}

/* --prometheus-every: the live exposition's last publication is the tool's exposition of the run's
   trace; a link planted at PATH.tmp is not followed; it needs a serving run and a file. */
static void prometheus_published_live(void **state)
{
    char *err, *live, *tool;
    FILE *f;
    (void)state;
    remove("gen_live.prom");
    remove("gen_live.prom.tmp");
    f = fopen("gen_victim_live.txt", "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    assert_int_equal(symlink("gen_victim_live.txt", "gen_live.prom.tmp"), 0);
    assert_int_equal(run(TINY "--requests 12 --arrival-rate 400 --batch 3 --prometheus gen_live.prom --prometheus-every "
                              "0.01 --label replica=1 --trace gen_live.csv", &err), 0);
    free(err);
    live = slurp("gen_victim_live.txt");
    assert_string_equal(live, "keep\n");
    free(live);
    live = slurp("gen_live.prom");
    assert_non_null(strstr(live, "vllm:request_success_total{replica=\"1\",finished_reason=\"length\"} 12\n"));
#ifdef REPORT_BIN
    assert_int_equal(shell("\"" REPORT_BIN "\" --prometheus --label replica=1 gen_live.csv > gen_live_tool.prom"), 0);
    tool = slurp("gen_live_tool.prom");
    assert_string_equal(live, tool);
    free(tool);
#endif
    free(live);
    assert_int_equal(run(TINY "--prometheus gen_empty.prom", &err), 0); /* no request: written, and said so */
    assert_string_equal(err, "generate: warning: --prometheus: no measured request (serve some with --requests): every "
                             "histogram is empty\n");
    free(err);
    assert_int_equal(run(TINY "--prometheus gen_live.prom --prometheus-every 1", &err), 2);
    assert_string_equal(err, "generate: --prometheus-every publishes the --requests of a serving run to a "
                             "--prometheus FILE (not -) (try --help)\n");
    free(err);
    assert_int_equal(run(TINY "--requests 2 --prometheus gen_live.prom --prometheus-every 0", &err), 2);
    free(err);
}

/* The lines of text. */
static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Every request at once (--arrival-rate 0): each one's TTFT grows with its place in the queue, from
   the first to the last, which is no steady state (METRICS), not a warmup of half of them. */
static void burst_has_no_steady_state(void **state)
{
    char *err;
    jc_value doc;
    (void)state;
    assert_int_equal(run(TINY "--requests 40 --arrival-rate 0 --batch 4 --profile-json gen_burst.json", &err), 0);
    free(err);
    json_file("gen_burst.json", &doc);
    assert_true(jc_get(&doc, "requests.steady_state.no_steady_state")->type == JC_BOOL &&
                jc_get(&doc, "requests.steady_state.no_steady_state")->num == 1);
    jc_free(&doc);
}

/* --max-requests: a serving run longer than the collector's table folds its finished requests away
   and counts every one, live and at the end, in a trace's exposition too; --buckets vllm writes
   vLLM's bounds alone. 60 requests, 8 held, arriving at 400/s over 3 slots: a server that falls behind
   (a loaded machine, a sanitizer build) queues them until the table has room, so none is refused. */
static void long_serving_run_folds_requests(void **state)
{
    char *err, *live, *tool;
    jc_value doc;
    (void)state;
    assert_int_equal(run(TINY "--requests 60 --max-requests 8 --arrival-rate 400 --batch 3 --buckets vllm "
                              "--prometheus gen_fold.prom --prometheus-every 0.01 --trace gen_fold.csv "
                              "--profile-json gen_fold.json",
                         &err),
                     0);
    free(err);
    live = slurp("gen_fold.prom");
    assert_non_null(strstr(live, "vllm:request_success_total{finished_reason=\"length\"} 60\n"));
    assert_non_null(strstr(live, "ttft_tpot:request_refused_total 0\n"));
    assert_non_null(strstr(live, "vllm:time_to_first_token_seconds_count 60\n"));
    assert_null(strstr(live, "le=\"0.0012\""));
    json_file("gen_fold.json", &doc); /* exact over the 8 held at most; the rest counted as folded */
    assert_true(num_at(&doc, "requests.n") <= 8);
    assert_near(num_at(&doc, "requests.n") + num_at(&doc, "requests.folded.requests"), 60, 0);
    jc_free(&doc);
#ifdef REPORT_BIN
    assert_int_equal(shell("\"" REPORT_BIN "\" --prometheus --buckets vllm gen_fold.csv > gen_fold_tool.prom"), 0);
    tool = slurp("gen_fold_tool.prom");
    assert_string_equal(live, tool);
    free(tool);
#else
    (void)tool;
#endif
    free(live);
    /* --request-log: a line a request as it finished, the collector's points, also of those folded away */
    assert_int_equal(run(TINY "--requests 30 --max-requests 8 --arrival-rate 200 --batch 2 --request-log gen_log.csv",
                         &err),
                     0);
    free(err);
    live = slurp("gen_log.csv");
    assert_true(strncmp(live, "id,submit_ns,first_token_ns,last_token_ns,tokens\nreq-0,", 55) == 0);
    assert_non_null(strstr(live, "\nreq-29,"));
    assert_int_equal(count_lines(live), 31);
    free(live);
    assert_int_equal(run(TINY "--requests 2 --buckets coarse", &err), 2);
    assert_non_null(strstr(err, "--buckets: expected fine or vllm, got 'coarse'"));
    free(err);
}

/* --prometheus-every refuses what --prometheus refuses: a FIFO at FILE is left a FIFO (the library's
   publisher replaced it, and a device, with a regular file). */
static void prometheus_live_replaces_regular_files_only(void **state)
{
    struct stat st;
    char *err;
    (void)state;
    remove("live.fifo");
    assert_int_equal(mkfifo("live.fifo", 0600), 0);
    assert_int_not_equal(run(TINY "--requests 2 --prometheus live.fifo --prometheus-every 0.01", &err), 0);
    assert_non_null(strstr(err, "generate: --prometheus-every: writing live.fifo failed: path refused: too long, or "
                                "not a regular file\n"));
    free(err);
    assert_int_equal(lstat("live.fifo", &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    remove("live.fifo");
}

static void bad_flags_exit_2_with_one_line(void **state)
{
    static const struct {
        const char *args, *msg;
    } cases[] = {
        {"--frobnicate", "generate: unknown option '--frobnicate' (try --help)\n"},
        {"--batch 0", "generate: --batch: expected an integer in 1..256, got '0' (try --help)\n"},
        {"--batch 12x", "generate: --batch: expected an integer in 1..256, got '12x' (try --help)\n"},
        {"--prompt-len=", "generate: --prompt-len: expected an integer in 1..4096, got '' (try --help)\n"},
        {"--max-new-tokens", "generate: --max-new-tokens: expected an integer in 1..4096, got '' (try --help)\n"},
        {"--warmup-runs -1", "generate: --warmup-runs: expected an integer in 0..100, got '-1' (try --help)\n"},
        {"--seed -3", "generate: --seed: expected an unsigned integer, got '-3' (try --help)\n"},
        {"--profile=yes", "generate: --profile takes no value (try --help)\n"},
        {"--profile-json", "generate: --profile-json needs a file name (try --help)\n"},
        {"stray", "generate: unexpected argument 'stray' (try --help)\n"},
        {"--dim 100 --heads 3", "generate: --dim 100 must be a multiple of --heads 3 with an even head size\n"},
        {"--arrival-rate -1", "generate: --arrival-rate: expected requests per second in 0..1e6, got '-1' (try --help)\n"},
        {"--slo ttft=", "generate: --slo: expected ttft=MS,tpot=MS,e2e=MS (any of them, each above 0), got 'ttft=' (try --help)\n"},
        {"--prometheus", "generate: --prometheus needs a file name (try --help)\n"},
        {"--batch \"$(printf '\\033]0;x\\007')\"", /* what reaches the terminal is escaped */
         "generate: --batch: expected an integer in 1..256, got '\\x1b]0;x\\x07' (try --help)\n"},
        {"\"$(printf '\\302\\233')\"", "generate: unexpected argument '\\xc2\\x9b' (try --help)\n"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        int st = run(cases[i].args, &err);
        if (st != 2 || strcmp(err, cases[i].msg) != 0)
            fail_msg("generate %s: exit %d, stderr \"%s\"", cases[i].args, st, err);
        free(err);
    }
}

/* --async: the kernels' spans time their launches; their device time comes from the queue's events,
   every kernel span resolved, and the step's wait lands in the sync phase. */
static void async_reports_device_time(void **state)
{
    static const char *const kernels[] = {"prefill_layer", "prefill_head", "decode_layer", "decode_head"};
    jc_value doc;
    char *err, *out;
    size_t i;
    (void)state;
    assert_int_equal(run("--async --dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 16 "
                         "--max-new-tokens 6 --warmup-runs 1 --profile --profile-json generate_test.json "
                         "--profile-html generate_test.html", &err), 0);
    free(err);
    out = slurp("generate_test.html"); /* host against device per step */
    assert_non_null(strstr(out, "<h2>Host and device</h2>"));
    assert_non_null(strstr(out, "host (wall)"));
    free(out);
    out = slurp("generate_test.out");
    assert_non_null(strstr(out, "\nDevice time ("));
    assert_non_null(strstr(out, "TPOT (device)         : "));
    free(out);
    json_file("generate_test.json", &doc);
    for (i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        const jc_value *ph = phase_named(&doc, kernels[i]);
        assert_true(num_at(ph, "device.n") == num_at(ph, "steady.n")); /* every steady launch resolved */
        assert_true(num_at(ph, "device.p50") > 0);
        assert_false(is_null_at(ph, "queue_delay"));
    }
    assert_true(is_null_at(phase_named(&doc, "sync"), "device"));
    assert_ms(&doc, "device.unresolved", 0);
    assert_ms(&doc, "device.refused", 0);
    assert_ms(&doc, "device.tpot.n", 5);
    assert_ms(&doc, "device.ttft_steady.n", 1);
    /* the wait lands in the sync: each step's sync outlasts its layers' launches together */
    assert_true(num_at(phase_named(&doc, "sync"), "steady.p50") > 2 * num_at(phase_named(&doc, "decode_layer"),
                                                                                  "steady.p50"));
    jc_free(&doc);
    assert_int_equal(run("--async --requests 2", &err), 2);
    assert_non_null(strstr(err, "--async times the generation runs, not --requests"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_run_shows_warmup_separated),
        cmocka_unit_test(async_reports_device_time),
        cmocka_unit_test(batch_records_tokens_per_step),
        cmocka_unit_test(serving_mode_records_every_request),
        cmocka_unit_test(prometheus_published_live),
        cmocka_unit_test(burst_has_no_steady_state),
        cmocka_unit_test(long_serving_run_folds_requests),
        cmocka_unit_test(prometheus_live_replaces_regular_files_only),
        cmocka_unit_test(bad_flags_exit_2_with_one_line),
        cmocka_unit_test(write_failure_exits_1),
        cmocka_unit_test(options_gnu_style_and_standard_output),
        cmocka_unit_test(prometheus_file_is_written_safely),
    };
    return run_cases(tests);
}
