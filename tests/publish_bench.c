/* publish_bench.c - what a live publication costs as a server ages: a collector with a table of 1024
   requests serves 1e6, 16 in flight, 16 tokens each, and at 1e3, 1e4, 1e5 and 1e6 finished requests
   times ttft_tpot_publish (the median of 31, into /dev/null) and the serving itself (ns a request:
   its 18 calls, folding included), with the process's peak RSS. The publication's ratio to the one
   at 1e3 is what must stay flat (within 1.5x); the last line is one JSON object. With --callgrind it
   runs only the loops tests/callgrind_span.sh counts: a decode span (the macros) with a serving layer
   attached, which counts its engine step, and the clock calls alone. */
#define TTFT_TPOT_IMPLEMENTATION
#include "bench_util.h"

#include <string.h>
#include <sys/resource.h>

enum { IN_FLIGHT = 16, TOKENS = 16, REPS = 31, MAX_REQUESTS = 1024 };

typedef struct server {
    ttft_tpot c;
    ttft_tpot_serve srv;
    char id[IN_FLIGHT][16];
    unsigned tokens[IN_FLIGHT];
    uint64_t next, finished, t;
} server;

/* Lane k takes a new request. */
static void submit(server *s, int k)
{
    snprintf(s->id[k], sizeof s->id[k], "req-%llu", (unsigned long long)s->next++);
    s->tokens[k] = 0;
    if (ttft_tpot_request_mark(&s->srv, s->id[k], TTFT_TPOT_POINT_SUBMIT, s->t) != TTFT_TPOT_OK)
        abort();
}

/* One decode step: every lane's request gets a token; a request at TOKENS finishes, and its lane
   takes the next. */
static void step(server *s)
{
    int k;
    s->t += 1000000; /* 1 ms a step */
    for (k = 0; k < IN_FLIGHT; k++) {
        if (ttft_tpot_request_tokens(&s->srv, s->id[k], s->t + (uint64_t)k, 1) != TTFT_TPOT_OK)
            abort();
        if (++s->tokens[k] == TOKENS) {
            if (ttft_tpot_request_finish(&s->srv, s->id[k], TTFT_TPOT_FINISH_NONE) != TTFT_TPOT_OK)
                abort();
            s->finished++;
            submit(s, k);
        }
    }
}

static double publish_us(server *s, ttft_tpot_publisher *pub, FILE *sink)
{
    double v[REPS];
    int i;
    for (i = 0; i < REPS; i++) {
        double t0 = now_s();
        if (ttft_tpot_publish(&s->srv, pub, sink, NULL, NULL) != TTFT_TPOT_OK)
            abort();
        v[i] = (now_s() - t0) * 1e6;
    }
    return median(v, REPS);
}

static long rss_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* ---- callgrind: a decode span with a serving layer attached (bench_util.h's loops) ------------ */

static int callgrind_mode(void)
{
    static server s;
    ttft_tpot_config cfg;
    uint64_t *out = (uint64_t *)malloc(CALLGRIND_N * sizeof *out);
    int phase;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 2 * CALLGRIND_N;
    cfg.clock = bench_counter_clock;
    if (!out || ttft_tpot_init(&s.c, &cfg) != TTFT_TPOT_OK || ttft_tpot_serve_attach(&s.srv, &s.c, NULL) != TTFT_TPOT_OK)
        return 1;
    phase = ttft_tpot_phase(&s.c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    bench_spans(&s.c, phase);
    bench_clock_only(&s.c, out);
    printf("callgrind loops: %d decode spans with a serving layer, %d clock pairs\n", CALLGRIND_N, CALLGRIND_N);
    ttft_tpot_serve_free(&s.srv);
    ttft_tpot_free(&s.c);
    free(out);
    return 0;
}

int main(int argc, char **argv)
{
    static const uint64_t at[4] = {1000, 10000, 100000, 1000000};
    static server s;
    ttft_tpot_serve_config cfg;
    ttft_tpot_publisher *pub;
    FILE *sink;
    double us[4], serve_ns[4], t0;
    uint64_t from = 0;
    int k, i;
    if (argc > 1 && strcmp(argv[1], "--callgrind") == 0)
        return callgrind_mode();
    pub = (ttft_tpot_publisher *)calloc(1, sizeof *pub);
    sink = fopen("/dev/null", "w");
    if (!pub || !sink)
        return 1;
    bench_build_line("publish_bench");
    memset(&cfg, 0, sizeof cfg);
    cfg.max_requests = MAX_REQUESTS;
    cfg.max_request_events = 64 * 1024;
    if (ttft_tpot_init(&s.c, NULL) != TTFT_TPOT_OK || ttft_tpot_serve_attach(&s.srv, &s.c, &cfg) != TTFT_TPOT_OK)
        return 1;
    for (k = 0; k < IN_FLIGHT; k++)
        submit(&s, k);
    printf("%10s %14s %8s %16s %10s %10s\n", "finished", "publish_us", "ratio", "serve_ns/request", "held",
           "rss_kib");
    for (i = 0; i < 4; i++) {
        t0 = now_s();
        while (s.finished < at[i])
            step(&s);
        serve_ns[i] = (now_s() - t0) * 1e9 / (double)(s.finished - from);
        from = s.finished;
        us[i] = publish_us(&s, pub, sink);
        printf("%10llu %14.1f %8.3f %16.1f %10u %10ld\n", (unsigned long long)s.finished, us[i], us[i] / us[0],
               serve_ns[i], s.srv.req.n, rss_kib());
        if (pub->requests != s.finished) /* every finished request is counted */
            return 1;
    }
    printf("{\"publish_us_1e3\":%.1f,\"publish_us_1e4\":%.1f,\"publish_us_1e5\":%.1f,\"publish_us_1e6\":%.1f,"
           "\"ratio_1e6\":%.3f,\"serve_ns_1e6\":%.1f,\"counted\":%llu}\n",
           us[0], us[1], us[2], us[3], us[3] / us[0], serve_ns[3], (unsigned long long)pub->requests);
    fclose(sink);
    free(pub);
    ttft_tpot_serve_free(&s.srv);
    ttft_tpot_free(&s.c);
    return 0;
}
