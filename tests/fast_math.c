/* fast_math.c - the library under -ffast-math, -Ofast and -ffinite-math-only. CMake builds this file
   once strictly and once under each of those flags; the test (fast_math.cmake) runs them all and wants
   the same output from each, byte for byte: the reports of a collector made from integers only, so
   the input is the same in every build. Each also checks that NaN and infinity are refused, which a
   comparison such as v == v would not see under -ffinite-math-only. Exit 1 on a failed check. It
   includes ttft_tpot_tools.h (the serving layer's and the core's headers with it): the whole library
   under those flags. */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include <stdio.h>
#include <string.h>

static int failed;

#define CHECK(x)                                                                                      \
    do {                                                                                              \
        if (!(x)) {                                                                                   \
            fprintf(stderr, "fast_math.c:%d: check failed: %s\n", __LINE__, #x);                      \
            failed = 1;                                                                               \
        }                                                                                             \
    } while (0)

/* A sample of ns and its tokens (and its prompt tokens when prompt > 0), its duration measured
   elsewhere. */
static int record_prompt(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens, uint32_t prompt)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, tokens);
    if (prompt > 0)
        ttft_tpot_span_set_prompt(&s, prompt);
    return ttft_tpot_span_end(&s);
}

static int record(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens)
{
    return record_prompt(c, phase, ns, tokens, 0);
}

/* A duration in ms, as a device timer gives it: ttft_tpot_ms_to_ns, then recorded. */
static int record_ms(ttft_tpot *c, int phase, double ms, uint32_t tokens)
{
    uint64_t ns;
    int rc = ttft_tpot_ms_to_ns(ms, &ns);
    return rc != TTFT_TPOT_OK ? rc : record(c, phase, ns, tokens);
}

/* A collector made from cfg (NULL: defaults) with a serving layer of max_requests requests. */
static void served(ttft_tpot *c, ttft_tpot_serve *srv, const ttft_tpot_config *cfg, unsigned max_requests)
{
    ttft_tpot_serve_config sc;
    memset(&sc, 0, sizeof sc);
    sc.max_requests = max_requests;
    CHECK(ttft_tpot_init(c, cfg) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_serve_attach(srv, c, &sc) == TTFT_TPOT_OK);
}

/* A double from its bits: NaN and infinity without an expression that fast-math may fold. */
static double from_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void refusals(void)
{
    const double bad[4] = {from_bits(0x7FF8000000000000ull), from_bits(0x7FF0000000000000ull),
                           from_bits(0xFFF0000000000000ull), -1.0};
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_slo slo;
    ttft_tpot_sample s;
    int k, i;
    served(&c, &srv, NULL, 0);
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    for (i = 0; i < 4; i++) {
        CHECK(record_ms(&c, k, bad[i], 0) == TTFT_TPOT_ERANGE);
        memset(&slo, 0, sizeof slo);
        slo.tpot_ms = bad[i];
        CHECK(ttft_tpot_serve_slo(&srv, slo) == TTFT_TPOT_ERANGE);
    }
    /* nothing stored; the refusals are the driver's (ms_to_ns), not the collector's to count */
    CHECK(ttft_tpot_counts_of(&c).samples == 0 && ttft_tpot_counts_of(&c).rejected == 0);
    CHECK(record_ms(&c, k, 18446744073709.55, 0) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_sample_at(&c, 0, &s, NULL) == TTFT_TPOT_OK && s.dur_ns == 18446744073709550781ull);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

/* Inputs the compiler cannot see (a factor 1, a large value and 0), so that the products below are
   computed at run time under this file's fast-math flags, as a driver's are. */
static volatile double opaque_in[3] = {1.0, 1e300, 0.0};

/* NaN and infinity made by the caller's own arithmetic: under -Ofast the compiler takes a product to
   be finite and, once record_ms is inlined here, could drop a test of its bits; 0 ns was recorded. */
static void refusals_of_arithmetic(void)
{
    const double k = opaque_in[0], huge = opaque_in[1], zero = opaque_in[2];
    double bad[3];
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_slo slo;
    uint64_t ns = 1;
    int p, i;
    bad[0] = huge * huge * k;  /* +inf */
    bad[1] = -huge * huge * k; /* -inf */
    bad[2] = bad[0] * zero;    /* NaN */
    served(&c, &srv, NULL, 0);
    p = ttft_tpot_phase(&c, "decode", TTFT_TPOT_ROLE_DECODE);
    for (i = 0; i < 3; i++) {
        CHECK(record_ms(&c, p, bad[i] * k, 1) == TTFT_TPOT_ERANGE);
        CHECK(ttft_tpot_ms_to_ns(bad[i] * k, &ns) == TTFT_TPOT_ERANGE);
        memset(&slo, 0, sizeof slo);
        slo.ttft_ms = bad[i] * k;
        CHECK(ttft_tpot_serve_slo(&srv, slo) == TTFT_TPOT_ERANGE);
    }
    CHECK(ttft_tpot_counts_of(&c).samples == 0 && ttft_tpot_counts_of(&c).rejected == 0);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
}

static uint64_t rnd(uint64_t *s) /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t no_clock(void *user)
{
    (void)user;
    return 0;
}

/* A driver's collector: a warmup run and five runs of a prefill with prompt tokens, decode steps and
   their kernels, a bounded sampler; and 40 requests with queue time. Every figure comes from here. */
static void fill(ttft_tpot *c, ttft_tpot_serve *srv)
{
    uint64_t s = 0x9E3779B97F4A7C15ull, t = 0;
    ttft_tpot_config cfg;
    ttft_tpot_slo slo;
    int pre, dec, attn, e2e, samp, run, step;
    unsigned r;
    char id[16];
    memset(&cfg, 0, sizeof cfg);
    cfg.clock = no_clock;
    cfg.clock_name = "fast_math";
    served(c, srv, &cfg, 64);
    pre = ttft_tpot_phase(c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    dec = ttft_tpot_phase(c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    attn = ttft_tpot_phase(c, "attention", TTFT_TPOT_ROLE_KERNEL);
    e2e = ttft_tpot_phase(c, "generate", TTFT_TPOT_ROLE_E2E);
    samp = ttft_tpot_phase(c, "sampler", TTFT_TPOT_ROLE_KERNEL);
    CHECK(ttft_tpot_phase_bounded(c, samp) == TTFT_TPOT_OK);
    for (run = -1; run < 5; run++) {
        uint64_t total = 0, d;
        if (run < 0)
            ttft_tpot_warmup_begin(c);
        else
            ttft_tpot_run_begin(c);
        d = 150000000 + rnd(&s) % 7000003;
        CHECK(record_prompt(c, pre, d, 1, 100 + (uint32_t)(rnd(&s) % 29)) == TTFT_TPOT_OK);
        total += d;
        for (step = 0; step < 40; step++) {
            uint64_t k = 2000000 + rnd(&s) % 1000007;
            record(c, attn, k, 0);
            record(c, samp, 30000 + rnd(&s) % 3001, 0);
            d = k + 1000000 + rnd(&s) % 300007 + (uint64_t)run * 1000;
            record(c, dec, d, 3);
            total += d;
        }
        record(c, e2e, total, 121);
        if (run < 0)
            ttft_tpot_warmup_end(c);
    }
    for (r = 0; r < 40; r++) {
        uint64_t at;
        snprintf(id, sizeof id, "req-%u", r);
        t += 3000000 + rnd(&s) % 5000011;
        CHECK(ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SUBMIT, t) == TTFT_TPOT_OK);
        at = t + rnd(&s) % 9000001;
        CHECK(ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SCHEDULE, at) == TTFT_TPOT_OK);
        for (step = 0; step < 3 + (int)(r % 7); step++) {
            at += 1000000 + rnd(&s) % 4000037;
            CHECK(ttft_tpot_request_tokens(srv, id, at, 1 + (uint32_t)(r % 2)) == TTFT_TPOT_OK);
        }
    }
    memset(&slo, 0, sizeof slo);
    slo.ttft_ms = 12.5;
    slo.tpot_ms = 3.3;
    slo.e2e_ms = 40.1;
    CHECK(ttft_tpot_serve_slo(srv, slo) == TTFT_TPOT_OK);
}

int main(void)
{
    ttft_tpot c;
    ttft_tpot_serve srv;
    ttft_tpot_model m;
    refusals();
    refusals_of_arithmetic();
    fill(&c, &srv);
    CHECK(ttft_tpot_report(&c, stdout) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_model_compute(&c, NULL, &m) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_model_write(&m, stdout, TTFT_TPOT_FORMAT_JSON) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_model_prometheus(&m, stdout, "llm_", "model=\"m\"") == TTFT_TPOT_OK);
    ttft_tpot_model_free(&m);
    ttft_tpot_serve_free(&srv);
    ttft_tpot_free(&c);
    return failed;
}
