/* libFuzzer: any sequence of API calls, with odd arguments, then every report. The bytes choose the
   configuration, the calls (recording, prompt tokens, shape rows, runs, warmup, requests and their
   schedules, SLOs, merges, clears, spans cancelled or left open, device spans and their resolutions, tickets crossing between the
   two collectors), their arguments and what the clock says. Properties, each an
   abort when broken: no call crashes or returns an undocumented code, a ticket resolved on a collector
   that did not open it is refused and changes nothing there, reports print, JSON parses,
   and live = replay: the trace of either collector reads back, into a collector of fixed size and into
   one that grows, with the same reports, text and JSON, and the same Chrome export (given the SLOs and
   the prefill kernel option, which a trace does not carry). Each collector has a serving layer (its
   requests, SLOs and exposition). Apart, a live exposition published across clears never falls and
   counts every finished request (check_publishing). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include "fuzz_util.h"

typedef struct {
    const uint8_t *p;
    size_t left;
} input;

static uint64_t take(input *in, unsigned bytes)
{
    uint64_t v = 0;
    while (bytes-- && in->left) {
        v = v << 8 | *in->p++;
        in->left--;
    }
    return v;
}

static uint64_t data_clock(void *user) /* the clock says what the input says */
{
    return take((input *)user, 3);
}

/* A collector of the harness: its serving layer, and the phase its reports name as the prefill kernel
   (a report's option: the phase + 1, 0 none). */
typedef struct {
    ttft_tpot c;
    ttft_tpot_serve s;
    int prefill_kernel;
} collector;

static void make(collector *x, input *in, unsigned shape)
{
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.capacity = 1 + (shape & 31);
    cfg.max_phases = 1 + (shape >> 5 & 3);
    cfg.bounded = shape >> 7 & 1;
    cfg.hist_slots = shape >> 8 & 1 ? 1 : 0;
    cfg.timeline = shape >> 9 & 1;
    sc.max_requests = shape >> 10 & 3;       /* 0 (none) to 3 requests */
    sc.max_request_events = shape >> 12 & 7; /* 0: the default, 4096 a request */
    cfg.max_shapes = 1 + (shape >> 15 & 1);
    cfg.max_device = shape >> 3 & 7; /* 0 (none) to 7 intervals, 1 to 3 tickets open or the default */
    cfg.max_pending = shape >> 1 & 3;
    cfg.clock = data_clock;
    cfg.clock_user = in;
    CHECK(ttft_tpot_init(&x->c, &cfg) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_serve_attach(&x->s, &x->c, &sc) == TTFT_TPOT_OK);
    x->prefill_kernel = 0;
}

static void unmake(collector *x)
{
    ttft_tpot_serve_free(&x->s);
    ttft_tpot_free(&x->c);
}

static int known(int rc)
{
    return rc >= TTFT_TPOT_ETICKET && rc <= TTFT_TPOT_OK;
}

/* A name of up to 11 bytes the input chooses, any bytes. */
static const char *name_of(input *in, char *name)
{
    size_t len = (size_t)take(in, 1) % 12, k;
    for (k = 0; k < len; k++)
        name[k] = (char)take(in, 1);
    name[len] = '\0';
    return name;
}

/* The last device tickets opened, and the collector that opened each. */
typedef struct {
    uint64_t ticket[4];
    const ttft_tpot *owner[4];
} tickets;

/* A device span on t, begun and ended at once: its ticket kept in slot k. */
static int device_span(ttft_tpot *t, int phase, unsigned stream, tickets *tk, unsigned k)
{
    ttft_tpot_span sp = ttft_tpot_span_begin(t, phase);
    int rc;
    ttft_tpot_span_set_device(&sp, stream);
    rc = ttft_tpot_span_end(&sp);
    tk->ticket[k] = sp.ticket;
    tk->owner[k] = t;
    return rc;
}

/* A resolution the input chooses of ticket k on t, which may not be the collector that opened it:
   then it is refused and t's intervals stay as they were. */
static int resolve(input *in, ttft_tpot *t, const tickets *tk, unsigned k, unsigned how, int phase)
{
    uint64_t ticket = tk->ticket[k], bits;
    ttft_tpot_counts before = ttft_tpot_counts_of(t);
    ttft_tpot_clock_pair pair;
    ttft_tpot_device_stamp st;
    ttft_tpot_device_interval *log = NULL;
    double ms;
    uint64_t ns;
    int rc, foreign = ticket != 0 && tk->owner[k] != t;
    if (foreign && before.device_intervals) {
        log = (ttft_tpot_device_interval *)malloc(before.device_intervals * sizeof *log);
        CHECK(log != NULL);
        memcpy(log, t->dev.log, before.device_intervals * sizeof *log);
    }
    memset(&st, 0, sizeof st);
    st.ticket = ticket;
    st.absolute = how >> 2 & 1;
    st.elapsed_ns = take(in, 8);
    st.begin_ns = take(in, 3);
    st.end_ns = take(in, 3);
    pair.host_ns = take(in, 3);
    pair.device_ns = take(in, 3);
    switch (how & 3) {
    case 0: rc = ttft_tpot_device_resolve(t, &st, 1, how & 8 ? NULL : &pair, NULL); break;
    case 1: /* one absolute stamp, made whole */
        rc = ttft_tpot_device_resolve(t, &TTFT_TPOT_STAMP_ABSOLUTE(ticket, st.begin_ns, st.end_ns), 1, &pair, NULL);
        break;
    case 2: /* a device timer's ms: any double */
        bits = take(in, 8);
        memcpy(&ms, &bits, sizeof ms);
        rc = ttft_tpot_ms_to_ns(ms, &ns);
        if (rc == TTFT_TPOT_OK)
            rc = ttft_tpot_device_resolve(t, &TTFT_TPOT_STAMP_ELAPSED(ticket, ns), 1, NULL, NULL);
        break;
    default: rc = ttft_tpot_device_part(t, ticket, phase, &st, how & 8 ? NULL : &pair); break;
    }
    if (foreign) {
        ttft_tpot_counts after = ttft_tpot_counts_of(t);
        CHECK(rc != TTFT_TPOT_OK && rc != TTFT_TPOT_EFULL);
        CHECK(after.device_intervals == before.device_intervals && after.device_open == before.device_open);
        CHECK(!log || memcmp(log, t->dev.log, before.device_intervals * sizeof *log) == 0);
    }
    free(log);
    return rc;
}

/* The prefill kernel a report names, as the collector linked it before the option: -1 none, another
   phase that the collector has. EPHASE (unknown phase: nothing changes). */
static int link_prefill_kernel(collector *x, int phase)
{
    if (phase != -1 && (phase < 0 || (unsigned)phase >= ttft_tpot_counts_of(&x->c).phases))
        return TTFT_TPOT_EPHASE;
    x->prefill_kernel = phase + 1;
    return TTFT_TPOT_OK;
}

/* One call the input chooses on t (or both collectors, for a merge): its return code. */
static int step(input *in, collector *c, collector *other, ttft_tpot_span *spans, tickets *tk)
{
    unsigned op = (unsigned)take(in, 1) % 31, slot = (unsigned)take(in, 1);
    int phase = (int)(int8_t)take(in, 1), rc;
    collector *x = slot & 0x80 ? other : c;
    ttft_tpot *t = &x->c;
    ttft_tpot_serve *srv = &x->s;
    ttft_tpot_span *sp = &spans[slot % 4];
    char name[13], id[2] = {(char)('a' + slot % 3), '\0'};
    ttft_tpot_stats st;
    switch (op) {
    case 0: return ttft_tpot_phase(t, name_of(in, name), (ttft_tpot_role)(slot % 5));
    case 1: return record(t, phase, take(in, 8), (uint32_t)take(in, 4));
    case 2: {
        uint64_t bits = take(in, 8), ns;
        double ms;
        memcpy(&ms, &bits, sizeof ms); /* any double: NaN, inf, negative, subnormal */
        if ((rc = ttft_tpot_ms_to_ns(ms, &ns)) != TTFT_TPOT_OK)
            return rc;
        return record(t, phase, ns, (uint32_t)take(in, 1));
    }
    case 3: *sp = ttft_tpot_span_begin(t, phase); return TTFT_TPOT_OK;
    case 4: return ttft_tpot_span_end(sp);
    case 5: ttft_tpot_span_set_tokens(sp, (uint32_t)take(in, 4)); return ttft_tpot_span_end(sp);
    case 6: return ttft_tpot_warmup_begin(t);
    case 7: return ttft_tpot_warmup_end(t);
    case 8: ttft_tpot_enable(t, slot & 1); return TTFT_TPOT_OK;
    case 9: ttft_tpot_clear(t); return TTFT_TPOT_OK;
    case 10: return link_prefill_kernel(x, phase);
    case 11: return ttft_tpot_phase_bounded(t, phase);
    case 12: return slot & 1 ? ttft_tpot_merge(&c->c, &other->c) : ttft_tpot_merge(&other->c, &c->c);
    case 13: return ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SUBMIT, take(in, 2));
    case 14: return ttft_tpot_request_tokens(srv, id, take(in, 2), (uint32_t)take(in, 1));
    case 15: {
        ttft_tpot_slo slo;
        slo.ttft_ms = (double)take(in, 1) - 8;
        slo.tpot_ms = (double)take(in, 1);
        slo.e2e_ms = (double)take(in, 1);
        return ttft_tpot_serve_slo(srv, slo);
    }
    case 16: {
        uint64_t key = take(in, 1);
        return record_with(t, phase, take(in, 2), 1, key, 0, 0);
    }
    case 17:
        *sp = ttft_tpot_span_begin(t, phase);
        ttft_tpot_span_set_shape(sp, take(in, 1));
        return TTFT_TPOT_OK;
    case 18: {
        uint64_t ns = take(in, 3);
        uint32_t tokens = (uint32_t)take(in, 1);
        return record_with(t, phase, ns, tokens, TTFT_TPOT_NO_SHAPE, 1, (uint32_t)take(in, 2));
    }
    case 19:
        ttft_tpot_span_set_tokens(sp, (uint32_t)take(in, 1));
        ttft_tpot_span_set_prompt(sp, (uint32_t)take(in, 2));
        return ttft_tpot_span_end(sp);
    case 20: return ttft_tpot_shape_row(t, phase, take(in, 1), name_of(in, name));
    case 21: return ttft_tpot_run_begin(t);
    case 22: return ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SCHEDULE, take(in, 2));
    case 23: return ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SUBMIT, TTFT_TPOT_NOW);
    case 24: return ttft_tpot_request_tokens(srv, id, TTFT_TPOT_NOW, (uint32_t)take(in, 1));
    case 25: return ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SCHEDULE, TTFT_TPOT_NOW);
    case 26: return device_span(t, phase, slot >> 4 & 1, tk, slot % 4);
    case 27: return resolve(in, t, tk, slot % 4, slot >> 2, phase); /* either collector, whoever opened it */
    case 28: /* the other */
        return resolve(in, tk->owner[slot % 4] == &c->c ? &other->c : &c->c, tk, slot % 4, slot >> 2, phase);
    case 29: return ttft_tpot_span_cancel(sp);
    default: return ttft_tpot_phase_stats(t, phase, &st);
    }
}

/* Every report of x prints; the figures hold together. */
static void check_reports(const collector *x)
{
    const ttft_tpot *c = &x->c;
    ttft_tpot_summary s;
    ttft_tpot_stats st;
    ttft_tpot_requests q;
    ttft_tpot_model m;
    ttft_tpot_model_options o;
    char *buf = NULL;
    size_t len = 0;
    unsigned i;
    int rc;
    FILE *f;
    CHECK(ttft_tpot_summarize(c, &s) == TTFT_TPOT_OK);
    CHECK(s.tpot.n == 0 || s.tpot.p50_ns <= s.tpot.p99_ns * (1 + TTFT_TPOT_HIST_MAX_REL_ERR));
    for (i = 0; i < ttft_tpot_counts_of(c).phases; i++)
        CHECK(ttft_tpot_phase_stats(c, (int)i, &st) == TTFT_TPOT_OK && st.min_ns <= st.max_ns);
    for (i = 0; i < ttft_tpot_counts_of(c).runs; i++) {
        size_t first, end;
        CHECK(ttft_tpot_run_at(c, i, &first, &end) == TTFT_TPOT_OK && first <= end);
        CHECK(end <= ttft_tpot_counts_of(c).samples);
    }
    free(report_of(c, x->prefill_kernel, TTFT_TPOT_FORMAT_TEXT));
    valid_json(report_of(c, x->prefill_kernel, TTFT_TPOT_FORMAT_JSON));
    CHECK(ttft_tpot_requests_summary(&x->s, &q) == TTFT_TPOT_OK);
    CHECK(q.n + q.incomplete + q.warmup_excluded + q.truncated == q.seen);
    CHECK(!q.has_goodput || q.good_n <= q.n);
    memset(&o, 0, sizeof o);
    o.skip = TTFT_TPOT_SKIP_SAMPLES | TTFT_TPOT_SKIP_SHARES; /* the exposition's model */
    CHECK(ttft_tpot_model_compute(c, &o, &m) == TTFT_TPOT_OK);
    f = open_memstream(&buf, &len);
    CHECK(f && ttft_tpot_model_prometheus(&m, f, NULL, "m=\"x\"") == TTFT_TPOT_OK);
    fclose(f);
    free(buf);
    ttft_tpot_model_free(&m);
    if (c->store.starts) { /* made with config.timeline: white-box, the harness chose the configuration */
        char *chrome = chrome_of(c, &rc);
        if (rc == TTFT_TPOT_OK)
            valid_json(chrome);
        else
            free(chrome);
    }
}

/* x's trace read into a new collector, of x's sizes or growing from tiny ones: the same reports, and
   the same Chrome export. */
static void check_replay(const collector *x, input *in, int grow)
{
    const ttft_tpot *c = &x->c;
    ttft_tpot back;
    ttft_tpot_serve back_serve;
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    char *trace = output(c, ttft_tpot_trace_write), err[256];
    FILE *f = fmemopen(trace, strlen(trace), "rb");
    int kernel = 0;
    CHECK(f != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.capacity = grow || !c->store.n ? 1 : c->store.n;
    cfg.max_phases = c->phase.max; /* phases do not grow */
    sc.max_requests = grow ? 1 : x->s.req.max;
    sc.max_request_events = grow ? 1 : x->s.req.max_events;
    cfg.hist_slots = grow ? 1 : c->hist.max;
    cfg.max_shapes = c->shape.max;
    cfg.max_device = grow ? 0 : c->dev.max; /* growing: the read makes room for the intervals */
    cfg.timeline = c->store.starts != NULL;
    cfg.grow = grow;
    cfg.clock = data_clock; /* never read; named as c's clock is */
    cfg.clock_user = in;
    CHECK(ttft_tpot_init(&back, &cfg) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_serve_attach(&back_serve, &back, &sc) == TTFT_TPOT_OK);
    if (ttft_tpot_trace_read(&back, f, "back", err, sizeof err) != TTFT_TPOT_OK) {
        fprintf(stderr, "%s\n%s\n", err, trace);
        CHECK(!"the trace of a live collector reads back");
    }
    fclose(f);
    CHECK(ttft_tpot_counts_of(&back).samples == ttft_tpot_counts_of(c).samples);
    CHECK(ttft_tpot_serve_slo(&back_serve, x->s.slo) == TTFT_TPOT_OK);
    if (x->prefill_kernel > 0)
        kernel = ttft_tpot_find_phase(&back, ttft_tpot_phase_name(c, x->prefill_kernel - 1)) + 1;
    same_reports_linked(c, x->prefill_kernel, &back, kernel);
    if (c->store.starts) {
        int ra, rb;
        char *a = chrome_of(c, &ra), *b = chrome_of(&back, &rb);
        CHECK(ra == rb && strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    ttft_tpot_serve_free(&back_serve);
    ttft_tpot_free(&back);
    free(trace);
}

static uint64_t zero_clock(void *user)
{
    (void)user;
    return 0;
}

/* s's measured requests that have finished without a reason, held or folded away: what a
   publication counts of this interval under finished_reason="". */
static uint64_t finished_now(const ttft_tpot_serve *s)
{
    uint64_t n = s->folded.reasons[TTFT_TPOT_FINISH_NONE];
    unsigned r;
    for (r = 0; r < s->req.n; r++)
        n += ttft_tpot__measured(&s->req.list[r]) && s->req.list[r].finished && !s->req.list[r].reason;
    return n;
}

/* A publication of s, each series at least what it was in prev (NULL: none), the gauges of requests
   in flight aside, with done + this interval's finished requests in request_success_total: counters
   never fall, and every finished request is counted, across clears. The exposition, to free. */
static char *published_grows(const ttft_tpot_serve *s, ttft_tpot_publisher *p, char *prev, uint64_t done)
{
    char *text = NULL, *a, *b;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK(ttft_tpot_publish(s, p, f, NULL, NULL) == TTFT_TPOT_OK);
    fclose(f);
    for (a = text, b = prev; *a; a = strchr(a, '\n') + 1, b = b ? strchr(b, '\n') + 1 : NULL) {
        size_t name = (size_t)(strchr(a, '\n') - a); /* the series' name and labels, up to its value */
        while (name && a[name - 1] != ' ')
            name--;
        if (*a == '#')
            continue;
        if (strncmp(a, "vllm:request_success_total{finished_reason=\"\"} ", 47) == 0) /* the default prefix */
            CHECK(strtoull(a + 47, NULL, 10) == done + finished_now(s));
        if (b) {
            CHECK(strncmp(a, b, name) == 0);
            CHECK(strncmp(a, "vllm:num_requests_", 18) == 0 || strtod(a + name, NULL) >= strtod(b + name, NULL));
        }
    }
    free(prev);
    return text;
}

/* Requests, finishes, clears and publications as the input says, on a collector of its own: every
   publication grows from the one before and counts every request finished so far. */
static void check_publishing(const uint8_t *data, size_t size)
{
    input in = {data, size};
    unsigned shape = (unsigned)take(&in, 1);
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    ttft_tpot c;
    ttft_tpot_serve s;
    ttft_tpot_publisher *p = (ttft_tpot_publisher *)calloc(1, sizeof *p);
    char *last = NULL;
    uint64_t done = 0; /* finished before the clears so far */
    CHECK(p != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    sc.max_requests = 1 + (shape & 3);     /* 1 to 4 requests an interval */
    sc.max_request_events = shape >> 2 & 7; /* 0: the default */
    sc.request_window = shape >> 5 & 3;     /* finished requests kept whole (0: half the table) */
    cfg.clock = zero_clock;                 /* times come with the calls: the input is theirs */
    CHECK(ttft_tpot_init(&c, &cfg) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_serve_attach(&s, &c, &sc) == TTFT_TPOT_OK);
    while (in.left) {
        unsigned op = (unsigned)take(&in, 1) % 6, slot = (unsigned)take(&in, 1);
        char id[2] = {(char)('a' + slot % 3), '\0'};
        if (op == 0)
            CHECK(known(ttft_tpot_request_mark(&s, id, TTFT_TPOT_POINT_SUBMIT, take(&in, 2))));
        else if (op == 1)
            CHECK(known(ttft_tpot_request_tokens(&s, id, take(&in, 2), (uint32_t)take(&in, 1))));
        else if (op == 2)
            CHECK(known(ttft_tpot_request_mark(&s, id, TTFT_TPOT_POINT_SCHEDULE, take(&in, 2))));
        else if (op == 3 && slot / 3 % 6 == 0)
            CHECK(known(ttft_tpot_request_finish(&s, id, TTFT_TPOT_FINISH_NONE)));
        else if (op == 3) /* a reason, or one past the last (EINVAL) */
            CHECK(known(ttft_tpot_request_finish(&s, id, (int)(slot / 3 % 6))));
        else if (op == 4)
            done += finished_now(&s), ttft_tpot_clear(&c);
        else
            last = published_grows(&s, p, last, done);
    }
    free(published_grows(&s, p, last, done));
    ttft_tpot_serve_free(&s);
    ttft_tpot_free(&c);
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    static collector c, other; /* a serving layer each: 16 KiB */
    ttft_tpot_span spans[4];
    tickets tk;
    int k;
    memset(spans, 0, sizeof spans);
    memset(&tk, 0, sizeof tk);
    make(&c, &in, (unsigned)take(&in, 2));
    make(&other, &in, (unsigned)take(&in, 2));
    while (in.left) {
        int rc = step(&in, &c, &other, spans, &tk);
        CHECK(known(rc) || rc >= 0);
    }
    for (k = 0; k < 2; k++) {
        const collector *t = k ? &other : &c;
        check_reports(t);
        check_replay(t, &in, 0);
        check_replay(t, &in, 1);
    }
    unmake(&c);
    unmake(&other);
    check_publishing(data, size);
    return 0;
}
