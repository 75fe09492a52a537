/* The writers of the serving layer and the tools: what the Prometheus exposition and the Chrome
   trace say on unusual input, request ids and trace lines that would reach a terminal, a host locale
   with a decimal comma, and streams that fail; the live exposition and its publishers (what they
   count, the files they replace, several on one path). The cases, and the parts of cases, of
   test_writers.c that need ttft_tpot_serve.h or ttft_tpot_tools.h; a case named as one there is its
   part here. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkdtemp, setenv */
#endif
#define TTFT_TPOT_IMPLEMENTATION
#include "test_tools_util.h"

#include <locale.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decimal_comma.h" /* decimal_comma_on(), decimal_comma_off(), json_keeps_the_point() */

/* 7. C1 controls and bidirectional overrides and isolates are refused in request ids (as in phase
   names: test_writers.c); a message about a bad line escapes what it echoes. */
static void names_that_would_reach_a_terminal(void **state)
{
    static const char *const bad[] = {"csi \xc2\x9b[31m", "c1 \xc2\x80", "c1 \xc2\x9f", "rlo \xe2\x80\xae",
                                      "lre \xe2\x80\xaa", "lri \xe2\x81\xa6", "pdi \xe2\x81\xa9"};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    char err[256];
    size_t i;
    (void)state;
    sc.max_requests = 2;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, &sc), TTFT_TPOT_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ttft_tpot_request_mark(&srv, bad[i], TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW), TTFT_TPOT_ENAME);
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\n\x1b]0;pwned\x07,decode,0,1,1,0\n",
                               "t\x1b", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    for (i = 0; err[i]; i++)
        if ((unsigned char)err[i] < 0x20 || (unsigned char)err[i] == 0x7f)
            fail_msg("control byte 0x%02x in the message: %s", (unsigned char)err[i], err);
    assert_non_null(strstr(err, "\\x1b]0;pwned\\x07"));
    assert_int_equal(trace_str(&c, "phase,role,start_ns,dur_ns,tokens,warmup\nx,\xc2\x9b,0,1,1,0\n", "t", err, sizeof err),
                     TTFT_TPOT_EPARSE);
    assert_non_null(strstr(err, "unknown role: \\xc2\\x9b"));
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* A collector with one request of TTFT 500 ms, for the exposition: c and its serving layer s. */
static void one_request(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    sc.max_requests = 1;
    assert_int_equal(ttft_tpot_init(c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(s, c, &sc), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_mark(s, "r", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(s, "r", 500 * MS, 1), TTFT_TPOT_OK);
}

static char *prometheus_of(const ttft_tpot *c, const char *labels, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    *rc = prometheus(c, f, "llm_", labels);
    fclose(f);
    return buf;
}

/* 9. Labels are checked as the exposition format defines them; values keep their escapes. */
static void prometheus_labels_are_valid(void **state)
{
    static const char *const bad[] = {"a=\"b", "le=\"1\"", "0x=\"1\"", "a=b", "a=\"b\"c=\"d\"", "a=\"b\",a=\"c\"",
                                      "__x=\"1\"", "a=\"\\q\"", "a=\"\xc3\x28\"", "a=\"b\",", "=\"b\"", "a-b=\"c\""};
    ttft_tpot c;
    ttft_tpot_serve srv;
    char *out;
    size_t i;
    int rc;
    (void)state;
    one_request(&c, &srv);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = prometheus_of(&c, bad[i], &rc);
        if (rc != TTFT_TPOT_EINVAL || out[0])
            fail_msg("labels %s: rc %d, wrote %.80s", bad[i], rc, out);
        free(out);
    }
    out = prometheus_of(&c, "model_name=\"q\\\"3\\\\n\\n\",engine=\"x\"", &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_bucket{model_name=\"q\\\"3\\\\n\\n\",engine=\"x\",le=\"0.5\"} 1\n"));
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_sum{model_name=\"q\\\"3\\\\n\\n\",engine=\"x\"} 0.500000000\n"));
    free(out);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* A prefix is joined with '_' unless it ends in '_' or ':'; the HELP line gives the buckets' bound. */
static void prometheus_prefix_is_joined(void **state)
{
    static const char *const prefixes[][2] = {{"llm", "llm_"}, {"llm_", "llm_"}, {"ns:", "ns:"}, {"", ""}};
    ttft_tpot c;
    ttft_tpot_serve srv;
    char *buf, name[64];
    size_t len, i;
    FILE *f;
    (void)state;
    one_request(&c, &srv);
    for (i = 0; i < 4; i++) {
        buf = NULL, len = 0;
        f = open_memstream(&buf, &len);
        assert_int_equal(prometheus(&c, f, prefixes[i][0], NULL), TTFT_TPOT_OK);
        fclose(f);
        snprintf(name, sizeof name, "\n%stime_to_first_token_seconds_count 1\n", prefixes[i][1]);
        if (!strstr(buf, name))
            fail_msg("prefix '%s': no %s", prefixes[i][0], name + 1);
        assert_non_null(strstr(buf, "Buckets at most 25% apart from 100us to 10min: histogram_quantile is within 25% "
                                    "of the value at its rank.\n"));
        free(buf);
    }
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* 3. A Prometheus sum past 2^64 ns (three TTFTs of 2^63 ns) is still written with '.'. */
static void prometheus_sum_past_two_to_the_64(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    char id[16], *out;
    int i, rc;
    (void)state;
    sc.max_requests = 3;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, &sc), TTFT_TPOT_OK);
    for (i = 0; i < 3; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(ttft_tpot_request_mark(&srv, id, TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_request_tokens(&srv, id, 1ull << 63, 1), TTFT_TPOT_OK);
    }
    out = prometheus_of(&c, NULL, &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    /* 3 * 2^63 ns = 27670116110.564327424 s, through a double */
    assert_non_null(strstr(out, "llm_time_to_first_token_seconds_sum 27670116110.5643"));
    free(out);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* The value of series name (a whole line's head, "... " included) in an exposition; -1 when absent. */
static long long series_of(const char *text, const char *name)
{
    const char *at = strstr(text, name);
    return at ? atoll(at + strlen(name)) : -1;
}

/* The exposition a publisher writes now. */
static char *published(const ttft_tpot_serve *s, ttft_tpot_publisher *p)
{
    FILE *f = tmpfile(); /* not open_memstream: gcc 12 -O3 takes its buffer for a dangling local */
    assert_non_null(f);
    assert_int_equal(ttft_tpot_publish(s, p, f, "llm", "replica=\"0\""), TTFT_TPOT_OK);
    return written(f);
}

/* The live exposition's collector: c with serving layer srv of 8 requests (served(); unserve() it);
   returns its publisher, zeroed (to free()). */
static ttft_tpot_publisher *live_publisher(ttft_tpot *c, ttft_tpot_serve *srv)
{
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    ttft_tpot_publisher *p = (ttft_tpot_publisher *)calloc(1, sizeof *p);
    sc.max_requests = 8;
    assert_non_null(p);
    served(c, srv, NULL, &sc);
    return p;
}

/* A live exposition's histograms count finished requests only, and never go back: not as a request goes on,
   not across a clear. A: TTFT 10 ms, finished at 20 ms; B: TTFT 5 ms (after 30 ms), then more
   tokens; C after a clear: TTFT 7 ms. */
static void live_exposition_only_grows(void **state)
{
    static const char ttft_count[] = "llm_time_to_first_token_seconds_count{replica=\"0\"} ";
    static const char ttft_10ms[] = "llm_time_to_first_token_seconds_bucket{replica=\"0\",le=\"0.01\"} ";
    static const char e2e_20ms[] = "llm_e2e_request_latency_seconds_bucket{replica=\"0\",le=\"0.022\"} ";
    static const char success[] = "llm_request_success_total{replica=\"0\",finished_reason=\"\"} ";
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_publisher *p = live_publisher(&c, &srv);
    char *a, *b, *d;
    (void)state;
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 20 * MS, 1);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_OK);
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 30 * MS);
    ttft_tpot_request_tokens(&srv, "B", 35 * MS, 1); /* not finished: not published */
    a = published(&srv, p);
    assert_true(series_of(a, ttft_count) == 1 && series_of(a, ttft_10ms) == 1 && series_of(a, success) == 1);
    assert_true(series_of(a, e2e_20ms) == 1);
    ttft_tpot_request_tokens(&srv, "B", 80 * MS, 1); /* B's E2E grows to 50 ms before it finishes */
    assert_int_equal(ttft_tpot_request_finish(&srv, "B", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_OK);
    b = published(&srv, p);
    assert_true(series_of(b, ttft_count) == 2 && series_of(b, ttft_10ms) == 2 && series_of(b, success) == 2);
    assert_true(series_of(b, e2e_20ms) == 1 && series_of(b, "llm_generation_tokens_total{replica=\"0\"} ") == 4);
    ttft_tpot_clear(&c); /* a new interval: what was published stays */
    d = published(&srv, p);
    assert_string_equal(d, b);
    free(d);
    ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 100 * MS);
    ttft_tpot_request_tokens(&srv, "C", 107 * MS, 1);
    ttft_tpot_request_finish(&srv, "C", TTFT_TPOT_FINISH_NONE);
    d = published(&srv, p);
    assert_true(series_of(d, ttft_count) == 3 && series_of(d, ttft_10ms) == 3 && series_of(d, success) == 3);
    assert_non_null(strstr(d, "llm_time_to_first_token_seconds_sum{replica=\"0\"} 0.022000000\n")); /* 10+5+7 ms */
    free(a), free(b), free(d);
    unserve(&c, &srv);
    free(p);
}

/* The series value of an exposition's line that starts with head (labels replica="0"), as text. */
static void assert_series(const char *text, const char *head, const char *value)
{
    char line[256];
    snprintf(line, sizeof line, "llm_%s{replica=\"0\"} %s\n", head, value);
    if (!strstr(text, line))
        fail_msg("no line %s in:\n%s", line, text);
}

/* Requests that finish after the last publication and before a clear are published after it (the
   clear kept only what had been published: 13 of 18 requests were counted). A: submit 0, tokens at
   10 and 20 ms, published; B: submit 30, tokens at 35, 45, 50 ms, finished, not published; clear;
   C: submit 100, token at 107; clear; E: submit 200, tokens at 203, 204 ms; clear again; then D
   unfinished. By hand: TTFT 10, 5, 7, 3 ms (25 ms); ITL A 10, B 10 and 5, E 1 (26 ms); TTST A 20, B
   15, E 4 (39 ms); TPOT A 10, B 7.5, C 0 (one token: observed as 0, as vLLM does), E 1 (18.5 ms); E2E
   A 20, B 20, C 7, E 4 (51 ms); tokens 2 + 3 + 1 + 2 = 8, and D's one, made though D is unfinished. */
static void live_exposition_counts_what_finished_before_a_clear(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_publisher *p = live_publisher(&c, &srv);
    char *a, *d;
    (void)state;
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 20 * MS, 1);
    ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_NONE);
    a = published(&srv, p);
    assert_non_null(strstr(a, "llm_request_success_total{replica=\"0\",finished_reason=\"\"} 1\n"));
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 30 * MS);
    ttft_tpot_request_tokens(&srv, "B", 35 * MS, 1);
    ttft_tpot_request_tokens(&srv, "B", 45 * MS, 1);
    ttft_tpot_request_tokens(&srv, "B", 50 * MS, 1);
    ttft_tpot_request_finish(&srv, "B", TTFT_TPOT_FINISH_NONE);
    ttft_tpot_clear(&c);
    ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 100 * MS);
    ttft_tpot_request_tokens(&srv, "C", 107 * MS, 1);
    ttft_tpot_request_finish(&srv, "C", TTFT_TPOT_FINISH_NONE);
    ttft_tpot_clear(&c);
    ttft_tpot_request_mark(&srv, "E", TTFT_TPOT_POINT_SUBMIT, 200 * MS);
    ttft_tpot_request_tokens(&srv, "E", 203 * MS, 1);
    ttft_tpot_request_tokens(&srv, "E", 204 * MS, 1);
    ttft_tpot_request_finish(&srv, "E", TTFT_TPOT_FINISH_NONE);
    ttft_tpot_clear(&c);
    ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SUBMIT, 300 * MS);
    ttft_tpot_request_tokens(&srv, "D", 301 * MS, 1);
    d = published(&srv, p);
    assert_non_null(strstr(d, "llm_request_success_total{replica=\"0\",finished_reason=\"\"} 4\n"));
    assert_series(d, "generation_tokens_total", "9");
    assert_series(d, "time_to_first_token_seconds_count", "4");
    assert_series(d, "time_to_first_token_seconds_sum", "0.025000000");
    assert_series(d, "inter_token_latency_seconds_count", "4");
    assert_series(d, "inter_token_latency_seconds_sum", "0.026000000");
    assert_series(d, "time_to_second_token_seconds_count", "3");
    assert_series(d, "time_to_second_token_seconds_sum", "0.039000000");
    assert_series(d, "request_time_per_output_token_seconds_count", "4");
    assert_series(d, "request_time_per_output_token_seconds_sum", "0.018500000");
    assert_series(d, "e2e_request_latency_seconds_count", "4");
    assert_series(d, "e2e_request_latency_seconds_sum", "0.051000000");
    free(d);
    d = published(&srv, p); /* again: nothing new */
    assert_non_null(strstr(d, "llm_request_success_total{replica=\"0\",finished_reason=\"\"} 4\n"));
    free(a), free(d);
    unserve(&c, &srv);
    free(p);
}

/* With every request finished, the first publication is the model's exposition
   (ttft_tpot_model_prometheus); the file form is written whole, with no temporary file left; finish
   is refused twice, for an unknown id, and tokens after it. */
static void live_exposition_of_a_finished_run(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_publisher *p = live_publisher(&c, &srv);
    char *live, *whole, *file;
    FILE *f;
    (void)state;
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 2 * MS);
    ttft_tpot_request_tokens(&srv, "A", 10 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 13 * MS, 2);
    ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_NONE);
    assert_int_equal(ttft_tpot_request_finish(&srv, "A", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_finish(&srv, "nobody", TTFT_TPOT_FINISH_NONE), TTFT_TPOT_EREQUEST);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "A", 14 * MS, 1), TTFT_TPOT_EREQUEST);
    assert_int_equal(counts(&c).rejected, 3);
    live = published(&srv, p);
    f = fopen("live_whole.prom", "w");
    assert_non_null(f);
    assert_int_equal(prometheus(&c, f, "llm_", "replica=\"0\""), TTFT_TPOT_OK);
    fclose(f);
    whole = slurp("live_whole.prom");
    assert_string_equal(live, whole);
    memset(p, 0, sizeof *p);
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "live.prom", "llm", "replica=\"0\""), TTFT_TPOT_OK);
    file = slurp("live.prom");
    assert_string_equal(file, whole);
    assert_null(fopen("live.prom.tmp", "r"));
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "no/such/dir/live.prom", NULL, NULL), TTFT_TPOT_EIO);
    assert_int_equal(ttft_tpot_publish(&srv, p, stdout, "bad prefix", NULL), TTFT_TPOT_EINVAL);
    free(live), free(whole), free(file);
    unserve(&c, &srv);
    free(p);
}

/* A collector with one finished request, for the publisher's file tests: c and its serving layer s. */
static void one_finished(ttft_tpot *c, ttft_tpot_serve *s)
{
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    sc.max_requests = 4;
    assert_int_equal(ttft_tpot_init(c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(s, c, &sc), TTFT_TPOT_OK);
    ttft_tpot_request_mark(s, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_tokens(s, "A", 10 * MS, 1);
    ttft_tpot_request_finish(s, "A", TTFT_TPOT_FINISH_NONE);
}

/* The live file is checked as generate --prometheus checks its file: a FIFO or a link (a device, as
   root: /dev/full became a regular file) at the path is refused with EPATH and left as it was; so is
   a path too long for the temporary name (it was EINVAL, the bad prefix's code). */
static void publish_file_replaces_regular_files_only(void **state)
{
    ttft_tpot_publisher *p = (ttft_tpot_publisher *)calloc(1, sizeof *p);
    char *path = (char *)malloc(5000);
    struct stat st;
    ttft_tpot c;
    ttft_tpot_serve srv;
    (void)state;
    assert_non_null(p);
    assert_non_null(path);
    one_finished(&c, &srv);
    remove("pub.fifo"), remove("pub.link"), remove("pub.target");
    assert_int_equal(mkfifo("pub.fifo", 0600), 0);
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "pub.fifo", NULL, NULL), TTFT_TPOT_EPATH);
    assert_int_equal(lstat("pub.fifo", &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(symlink("pub.target", "pub.link"), 0);
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "pub.link", NULL, NULL), TTFT_TPOT_EPATH);
    assert_int_equal(lstat("pub.link", &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat("pub.target", &st), -1);
    memset(path, 'a', 4999);
    path[4999] = '\0';
    assert_int_equal(ttft_tpot_publish_file(&srv, p, path, NULL, NULL), TTFT_TPOT_EPATH);
    assert_string_equal(ttft_tpot_strerror(TTFT_TPOT_EPATH), "path refused: too long, or not a regular file");
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "pub.prom", NULL, NULL), TTFT_TPOT_OK); /* a new file */
    assert_int_equal(ttft_tpot_publish_file(&srv, p, "pub.prom", NULL, NULL), TTFT_TPOT_OK); /* a regular one */
    remove("pub.fifo"), remove("pub.link"), remove("pub.prom");
    free(path);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
    free(p);
}

/* Two publishers on one path: each writes its own temporary file, so neither removes the other's
   while it is being written (a reader saw a partial exposition). Here another publisher's file, at
   the name every publisher used ("PATH.tmp"), survives a publication, and none of this one's is left. */
static void publishers_keep_their_own_temporary_files(void **state)
{
    ttft_tpot_publisher *p = (ttft_tpot_publisher *)calloc(2, sizeof *p);
    ttft_tpot c;
    ttft_tpot_serve srv;
    char *other;
    FILE *f;
    DIR *d;
    struct dirent *e;
    int left = 0;
    (void)state;
    assert_non_null(p);
    one_finished(&c, &srv);
    remove("two.prom");
    f = fopen("two.prom.tmp", "w");
    assert_non_null(f);
    fputs("being written\n", f);
    fclose(f);
    assert_int_equal(ttft_tpot_publish_file(&srv, &p[0], "two.prom", NULL, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_publish_file(&srv, &p[1], "two.prom", NULL, NULL), TTFT_TPOT_OK);
    other = slurp("two.prom.tmp");
    assert_string_equal(other, "being written\n");
    d = opendir(".");
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        left += strncmp(e->d_name, "two.prom", 8) == 0;
    closedir(d);
    assert_int_equal(left, 2); /* two.prom and the other's */
    remove("two.prom.tmp"), remove("two.prom");
    free(other);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
    free(p);
}

/* Whether the file at path holds a whole exposition of one_finished (its last line is there). */
static int whole_exposition(const char *path)
{
    static const char tail[] = "vllm:generation_tokens_total 1\n";
    static char buf[256 * 1024]; /* an exposition is about 100 KiB */
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n >= sizeof tail - 1 && strcmp(buf + n - (sizeof tail - 1), tail) == 0;
}

/* Two processes publish to one path 300 times each while this one reads it: every publication
   succeeds and every read is a whole exposition (with one temporary name, 743 of 71,337 reads saw a
   partial one, and a publisher failed to create its file while the other's was there). */
static void publishers_on_one_path_race(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    pid_t kid[2];
    int k, status, running = 2, partial = 0;
    (void)state;
    one_finished(&c, &srv);
    remove("race.prom");
    for (k = 0; k < 2; k++) {
        assert_true((kid[k] = fork()) >= 0);
        if (kid[k] == 0) {
            ttft_tpot_publisher *p = (ttft_tpot_publisher *)calloc(1, sizeof *p);
            int i, bad = !p;
            for (i = 0; i < 300 && !bad; i++)
                bad = ttft_tpot_publish_file(&srv, p, "race.prom", NULL, NULL) != TTFT_TPOT_OK;
            _exit(bad);
        }
    }
    while (running) {
        if (access("race.prom", F_OK) == 0)
            partial += !whole_exposition("race.prom");
        for (k = 0; k < 2; k++)
            if (kid[k] > 0 && waitpid(kid[k], &status, WNOHANG) == kid[k]) {
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                kid[k] = 0, running--;
            }
    }
    assert_int_equal(partial, 0);
    assert_true(whole_exposition("race.prom"));
    remove("race.prom");
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* 3. Under a decimal-comma locale (made here with localedef) every machine-read output keeps '.',
   and the text report does too: with a serving layer's request, its exposition, the Chrome trace, the
   trace read back and the SLO parser (the core's writers alone: test_writers.c). */
static void decimal_comma_locale(void **state)
{
    char dir[] = "/tmp/ttft_tpot_locale_XXXXXX", err[256], *json, *text, *prom, *chrome, *trace;
    ttft_tpot c, b;
    ttft_tpot_serve srv, srv_b;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    ttft_tpot_slo slo;
    jc_value doc;
    int d, i, rc;
    (void)state;
    if (!decimal_comma_on(dir))
        skip();
    cfg.timeline = 1;
    sc.max_requests = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, &sc), TTFT_TPOT_OK);
    for (i = 0; i < 4; i++) /* steady: 3 steps of 3 ms, 1 token each: 333.33 tok/s */
        record(&c, d, 3 * MS, 1);
    assert_int_equal(ttft_tpot_request_mark(&srv, "r", TTFT_TPOT_POINT_SUBMIT, 0), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_request_tokens(&srv, "r", 500 * MS, 1), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_slo_parse("ttft=1.5", &slo), TTFT_TPOT_OK);
    assert_true(slo.ttft_ms == 1.5);
    json = capture(&c, report_json);
    text = capture(&c, ttft_tpot_report);
    prom = prometheus_of(&c, NULL, &rc);
    assert_int_equal(rc, TTFT_TPOT_OK);
    chrome = capture(&c, ttft_tpot_chrome_trace);
    trace = capture(&c, ttft_tpot_trace_write);
    assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv_b, &b, &sc), TTFT_TPOT_OK);
    assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
    same_reports(&c, &b);
    ttft_tpot_serve_free(&srv_b);
    ttft_tpot_free(&b);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
    decimal_comma_off(dir);
    json_keeps_the_point(json);
    if (jc_parse(chrome, &doc) != 0)
        fail_msg("not JSON: %s", chrome);
    jc_free(&doc);
    assert_non_null(strstr(text, "Output throughput     : 333.3 tok/s"));
    assert_non_null(strstr(text, "3.00 [CI needs n>=6] / 3.00 [CI needs n>=368] ms/token"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_bucket{le=\"0.25\"} 0\n"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_bucket{le=\"0.5\"} 1\n"));
    assert_non_null(strstr(prom, "llm_time_to_first_token_seconds_sum 0.500000000\n"));
    free(json);
    free(text);
    free(prom);
    free(chrome);
    free(trace);
}

/* A side of a comparison read from a trace: 5 runs, each a prefill, 8 decode steps with their kernels
   and 2 requests, after a warmup prefill and a warmup step 30x a steady one (off the chart's scale);
   times of no round figure, scaled by `scale` (new: slower). SLOs for goodput and the CDFs' marks. */
static void tool_side(ttft_tpot *c, ttft_tpot_serve *s, double scale)
{
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    ttft_tpot_slo slo;
    char err[256];
    FILE *f = tmpfile();
    int r, k;
    assert_non_null(f);
    cfg.grow = 1;
    sc.max_requests = 16;
    assert_int_equal(ttft_tpot_init(c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(s, c, &sc), TTFT_TPOT_OK);
    fprintf(f, "phase,role,start_ns,dur_ns,tokens,warmup\nprefill,prefill,0,%.0f,16,1\n"
               "decode_step,decode,0,%.0f,1,1\n", 9876543 * scale, 104567891 * scale);
    for (r = 0; r < 5; r++) {
        fprintf(f, "# run:\nprefill,prefill,0,%.0f,16,0\n", (1234567 + 10007 * r) * scale);
        for (k = 0; k < 8; k++)
            fprintf(f, "decode_step,decode,0,%.0f,1,0\nattn,kernel,0,%.0f,0,0\nmlp,kernel,0,%.0f,0,0\n",
                    (3456789 + 12345 * k + 1111 * r) * scale, (1234567 + 2345 * k) * scale, (987654 + 321 * r) * scale);
        for (k = 0; k < 2; k++) {
            double t0 = 1e9 * r + 123456789.0 * k;
            fprintf(f, "q%d_%d,submit,%.0f,0,0,0\nq%d_%d,schedule,%.0f,0,0,0\n", r, k, t0, r, k, t0 + 234567 * scale);
            fprintf(f, "q%d_%d,token,%.0f,0,1,0\nq%d_%d,token,%.0f,0,1,0\nq%d_%d,token,%.0f,0,1,0\n", r, k,
                    t0 + 1456789 * scale, r, k, t0 + 4567891 * scale, r, k, t0 + 7891234 * scale);
        }
    }
    rewind(f);
    if (ttft_tpot_trace_read(c, f, "side", err, sizeof err) != TTFT_TPOT_OK)
        fail_msg("%s", err);
    fclose(f);
    assert_int_equal(ttft_tpot_slo_parse("ttft=1.5,tpot=3.25,e2e=7.5", &slo), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_slo(s, slo), TTFT_TPOT_OK);
}

/* A tensor-parallel rank: 12 steady decode steps of no round figure, the slowest every third step. */
static void tool_rank(ttft_tpot *c, int rank)
{
    int d, k;
    d = fixture(c, NULL, "decode_step", TTFT_TPOT_ROLE_DECODE);
    record(c, d, 20 * MS, 1); /* the first call: warmup */
    for (k = 0; k < 12; k++)
        record(c, d, 3456789 + 12345 * (uint64_t)k + (k % 3 == rank ? 234567u : 0u), 1);
}

/* The tools' collectors, models, comparison and ranks' figures. */
typedef struct {
    ttft_tpot side[2], rank[2];
    ttft_tpot_serve serve[2]; /* the sides' serving layers */
    ttft_tpot_model m[2];
    ttft_tpot_compare_result res;
    ttft_tpot_ranks_figures *f;
} tool_runs;

static const char *const tool_outputs[] = {"compare text", "compare JSON", "HTML of one model",
                                           "HTML of two models", "ranks text", "ranks JSON"};

/* Output `which` of tool_outputs, as a string to free(). */
static char *tool_output(const tool_runs *t, int which)
{
    static const char *const names[2] = {"base.csv", "new.csv"}, *const ranks[2] = {"rank0.csv", "rank1.csv"};
    const ttft_tpot_model *two[2];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = 0;
    assert_non_null(f);
    two[0] = &t->m[0];
    two[1] = &t->m[1];
    switch (which) {
    case 0: ttft_tpot_compare_text(f, &t->res); break;
    case 1: ttft_tpot_compare_json(f, &t->res); break;
    case 2: rc = ttft_tpot_html_report(f, two, names, 1, NULL); break;
    case 3: rc = ttft_tpot_html_report(f, two, names, 2, ttft_tpot_compare_html); break;
    case 4: rc = ttft_tpot_ranks_report(f, &t->rank[0], t->f, ranks, 0); break;
    default: rc = ttft_tpot_ranks_report(f, &t->rank[0], t->f, ranks, 1); break;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* 3. The tools' outputs under a decimal-comma locale are those of the "C" locale, byte for byte: the
   comparison's text and JSON, the HTML page (its SVG coordinates, its tables) of one model and of two
   with the comparison's headline, the ranks' text and JSON. */
static void decimal_comma_in_the_tools(void **state)
{
    enum { N = sizeof tool_outputs / sizeof tool_outputs[0] };
    char dir[] = "/tmp/ttft_tpot_locale_XXXXXX", *in_c[N], *in_de[N];
    const ttft_tpot *each[2];
    ttft_tpot_compare_options o = ttft_tpot_compare_defaults();
    tool_runs t;
    jc_value doc;
    int k, on;
    size_t at;
    (void)state;
    tool_side(&t.side[0], &t.serve[0], 1);
    tool_side(&t.side[1], &t.serve[1], 1.0734);
    for (k = 0; k < 2; k++) {
        assert_int_equal(ttft_tpot_model_compute(&t.side[k], NULL, &t.m[k]), TTFT_TPOT_OK);
        tool_rank(&t.rank[k], k);
        each[k] = &t.rank[k];
    }
    assert_int_equal(ttft_tpot_compare_models(&t.m[0], &t.m[1], &o, &t.res), TTFT_TPOT_OK);
    t.f = (ttft_tpot_ranks_figures *)calloc(1, sizeof *t.f);
    assert_non_null(t.f);
    assert_int_equal(ttft_tpot_ranks_compute(each, 2, t.f), 0);
    for (k = 0; k < N; k++)
        in_c[k] = tool_output(&t, k);
    on = decimal_comma_on(dir);
    for (k = 0; on && k < N; k++)
        in_de[k] = tool_output(&t, k);
    if (on)
        decimal_comma_off(dir);
    for (k = 0; on && k < N; k++) {
        for (at = 0; in_c[k][at] && in_c[k][at] == in_de[k][at]; at++)
            ;
        if (in_c[k][at] != in_de[k][at])
            fail_msg("%s under de_DE.UTF-8 differs at byte %zu: \"%.60s\", not \"%.60s\"", tool_outputs[k], at,
                     in_de[k] + (at > 20 ? at - 20 : 0), in_c[k] + (at > 20 ? at - 20 : 0));
        free(in_de[k]);
    }
    /* what the page and the JSON show: decimals, so that a comma would have shown */
    assert_non_null(strstr(in_c[0], "Verdict: a regression"));
    assert_non_null(strstr(in_c[2], "<svg viewBox=\"0 0 720 320\""));
    assert_non_null(strstr(in_c[2], ".5 ms</text>"));
    assert_non_null(strstr(in_c[3], "<td class=\"worse\">+7."));
    assert_non_null(strstr(in_c[4], "%  rank0.csv\n"));
    for (k = 1; k < N; k += 4) { /* the comparison's JSON, the ranks' JSON */
        if (jc_parse(in_c[k], &doc) != 0)
            fail_msg("%s: not JSON: %s", tool_outputs[k], in_c[k]);
        jc_free(&doc);
    }
    for (k = 0; k < N; k++)
        free(in_c[k]);
    free(t.f);
    ttft_tpot_compare_free(&t.res);
    for (k = 0; k < 2; k++) {
        ttft_tpot_model_free(&t.m[k]);
        ttft_tpot_serve_free(&t.serve[k]);
        ttft_tpot_free(&t.side[k]);
        ttft_tpot_free(&t.rank[k]);
    }
    if (!on)
        skip();
}

/* The request event of the Chrome trace named name: fails the test when there is none. */
static const jc_value *request_event(const jc_value *doc, const char *name)
{
    const jc_value *ev = jc_get(doc, "traceEvents");
    size_t i;
    for (i = 0; ev && i < ev->n; i++) {
        const jc_value *nm = jc_get(&ev->items[i], "name"), *cat = jc_get(&ev->items[i], "cat");
        if (nm && cat && strcmp(nm->str, name) == 0 && strcmp(cat->str, "request") == 0)
            return &ev->items[i];
    }
    fail_msg("no request event %s", name);
    return NULL;
}

/* Request tracks. A: submit 0, scheduled 40, tokens 100 and 120 ms; B: submit 10, scheduled 10, token
   60; C: submit 20, token 300 (never scheduled); D: submit 130, token 140. Lanes: A 1; B 2 (A runs);
   C 3 (A and B run at 20); D 1 (A ended at 120). */
static void request_tracks_in_the_chrome_trace(void **state)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_config cfg = {0};
    ttft_tpot_serve_config sc = TTFT_TPOT_ZERO;
    jc_value doc;
    const jc_value *e;
    char *text;
    size_t i, tokens = 0;
    (void)state;
    cfg.timeline = 1;
    sc.max_requests = 4;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_serve_attach(&srv, &c, &sc), TTFT_TPOT_OK);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SUBMIT, 0);
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SUBMIT, 10 * MS);
    ttft_tpot_request_mark(&srv, "C", TTFT_TPOT_POINT_SUBMIT, 20 * MS);
    ttft_tpot_request_mark(&srv, "A", TTFT_TPOT_POINT_SCHEDULE, 40 * MS);
    ttft_tpot_request_mark(&srv, "B", TTFT_TPOT_POINT_SCHEDULE, 10 * MS);
    ttft_tpot_request_tokens(&srv, "B", 60 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 100 * MS, 1);
    ttft_tpot_request_tokens(&srv, "A", 120 * MS, 3);
    ttft_tpot_request_mark(&srv, "D", TTFT_TPOT_POINT_SUBMIT, 130 * MS);
    ttft_tpot_request_tokens(&srv, "D", 140 * MS, 1);
    ttft_tpot_request_tokens(&srv, "C", 300 * MS, 1);
    text = capture(&c, ttft_tpot_chrome_trace);
    if (jc_parse(text, &doc) != 0)
        fail_msg("not JSON: %s", text);
    e = request_event(&doc, "queued A");
    assert_ms(e, "tid", 1);
    assert_ms(e, "ts", 0);
    assert_ms(e, "dur", 40000); /* microseconds */
    assert_ms(request_event(&doc, "prefill A"), "dur", 60000);
    e = request_event(&doc, "decode A");
    assert_ms(e, "ts", 100000);
    assert_ms(e, "dur", 20000);
    assert_ms(request_event(&doc, "queued B"), "dur", 0);
    assert_ms(request_event(&doc, "prefill B"), "tid", 2);
    e = request_event(&doc, "ttft C");
    assert_ms(e, "tid", 3);
    assert_ms(e, "dur", 280000);
    assert_ms(request_event(&doc, "ttft D"), "tid", 1);
    e = jc_get(&doc, "traceEvents");
    for (i = 0; i < e->n; i++) { /* an instant a token event: A 2, B, C and D 1 each */
        const jc_value *ph = jc_get(&e->items[i], "ph");
        tokens += ph && strcmp(ph->str, "i") == 0;
    }
    assert_int_equal(tokens, 5);
    jc_free(&doc);
    { /* the export of the collector's trace is the same, byte for byte */
        ttft_tpot b;
        ttft_tpot_serve srv_b;
        char *trace = capture(&c, ttft_tpot_trace_write), *again, err[256];
        assert_int_equal(ttft_tpot_init(&b, &cfg), TTFT_TPOT_OK);
        assert_int_equal(ttft_tpot_serve_attach(&srv_b, &b, &sc), TTFT_TPOT_OK);
        assert_int_equal(trace_str(&b, trace, "t", err, sizeof err), TTFT_TPOT_OK);
        again = capture(&b, ttft_tpot_chrome_trace);
        assert_string_equal(again, text);
        free(again);
        free(trace);
        ttft_tpot_serve_free(&srv_b);
        ttft_tpot_free(&b);
    }
    free(text);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}


static void streams_that_fail(void **state)
{
    ttft_tpot c;
    FILE *wo = tmpfile();
    FILE *w2;
    char err[128];
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_chrome_trace(&c, stdout), TTFT_TPOT_EINVAL); /* no timeline */
    assert_int_equal(ttft_tpot_chrome_trace(NULL, stdout), TTFT_TPOT_EINVAL);
    /* reading from a stream opened for writing only: an I/O error, not a parse error */
    fclose(wo);
    w2 = fopen("edges_write_only.csv", "w");
    assert_non_null(w2);
    assert_int_equal(ttft_tpot_trace_read(&c, w2, "w", err, sizeof err), TTFT_TPOT_EIO);
    fclose(w2);
    remove("edges_write_only.csv");
    assert_int_equal(counts(&c).phases, 0);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_that_would_reach_a_terminal),
        cmocka_unit_test(prometheus_labels_are_valid),
        cmocka_unit_test(prometheus_prefix_is_joined),
        cmocka_unit_test(prometheus_sum_past_two_to_the_64),
        cmocka_unit_test(live_exposition_only_grows),
        cmocka_unit_test(live_exposition_counts_what_finished_before_a_clear),
        cmocka_unit_test(live_exposition_of_a_finished_run),
        cmocka_unit_test(publish_file_replaces_regular_files_only),
        cmocka_unit_test(publishers_keep_their_own_temporary_files),
        cmocka_unit_test(publishers_on_one_path_race),
        cmocka_unit_test(decimal_comma_locale),
        cmocka_unit_test(decimal_comma_in_the_tools),
        cmocka_unit_test(request_tracks_in_the_chrome_trace),
        cmocka_unit_test(streams_that_fail),
    };
    return run_cases(tests);
}
