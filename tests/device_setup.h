/* device_setup.h - the scripted device timeline and recordings test_device.c and test_trace_device.c share. */
#ifndef DEVICE_SETUP_H
#define DEVICE_SETUP_H

#include <string.h>

#include "test_util.h"

/* The scripted async driver. Two prefills, then three decode steps (the first of each is warmup);
   each step s begins at host time B = 1,000,000 + 100,000 s and:
     B            the step's span begins
     B + 1000     the kernel's span begins (the host issues it) ...
     B + 3000     ... and ends: the launch took 2 us on the host
     B + 3000     the sync span begins
                  the device runs the kernel from host time B + 5000 for D ns (queue delay 4000)
     B + 6000 + D the sync ends
     B + 26000 + D the step ends (20 us of host work after the sync: sampling, bookkeeping)
   D = 50000, 40000 (prefills), 30000, 10000, 12000 (decode steps). The device clock is the host's +
   1e9 ns; the clock pair read after a full synchronize is (host 500, device 1000000500). */
enum { STEPS = 5, READS = 6 };
static const uint64_t D[STEPS] = {50000, 40000, 30000, 10000, 12000};
#define DEV_OFFSET 1000000000ull

typedef struct timeline {
    uint64_t t[STEPS * READS];
    script_clock clock;
    ttft_tpot c;
    int prefill, decode, kernel, sync;
    uint64_t ticket[STEPS];
} timeline;

/* One ticket resolved with an event pair's elapsed device time, in ns. */
static inline int device_elapsed(ttft_tpot *c, uint64_t ticket, uint64_t ns)
{
    return ttft_tpot_device_resolve(c, &TTFT_TPOT_STAMP_ELAPSED(ticket, ns), 1, NULL, NULL);
}

static inline uint64_t step_base(int s)
{
    return 1000000u + 100000u * (uint64_t)s;
}

static inline void timeline_init(timeline *tl, size_t max_device, size_t max_pending)
{
    ttft_tpot_config cfg;
    int s;
    for (s = 0; s < STEPS; s++) {
        uint64_t b = step_base(s), *t = &tl->t[s * READS];
        t[0] = b, t[1] = b + 1000, t[2] = b + 3000, t[3] = b + 3000, t[4] = b + 6000 + D[s], t[5] = b + 26000 + D[s];
    }
    tl->clock.t = tl->t;
    tl->clock.n = STEPS * READS;
    tl->clock.next = 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.clock = script_now;
    cfg.clock_user = &tl->clock;
    cfg.timeline = 1;
    cfg.max_device = max_device;
    cfg.max_pending = max_pending;
    tl->prefill = fixture(&tl->c, &cfg, "prefill", TTFT_TPOT_ROLE_PREFILL);
    tl->decode = ttft_tpot_phase(&tl->c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    tl->kernel = ttft_tpot_phase(&tl->c, "layer", TTFT_TPOT_ROLE_KERNEL);
    tl->sync = ttft_tpot_phase(&tl->c, "sync", TTFT_TPOT_ROLE_KERNEL);
}

/* Step s as the driver times it: the step, the launch (its device part to come), the sync. */
static inline void timeline_step(timeline *tl, int s)
{
    ttft_tpot_span step = ttft_tpot_span_begin(&tl->c, s < 2 ? tl->prefill : tl->decode), k, y;
    k = ttft_tpot_span_begin(&tl->c, tl->kernel);
    ttft_tpot_span_set_device(&k, 0);
    assert_int_equal(ttft_tpot_span_end(&k), TTFT_TPOT_OK);
    tl->ticket[s] = k.ticket;
    y = ttft_tpot_span_begin(&tl->c, tl->sync);
    assert_int_equal(ttft_tpot_span_end(&y), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_span_end(&step), TTFT_TPOT_OK);
}

/* The kernel of step s on the device clock, absolute. */
static inline ttft_tpot_device_stamp stamp_of(const timeline *tl, int s)
{
    ttft_tpot_device_stamp st;
    memset(&st, 0, sizeof st);
    st.ticket = tl->ticket[s];
    st.absolute = 1;
    st.begin_ns = step_base(s) + 5000 + DEV_OFFSET;
    st.end_ns = st.begin_ns + D[s];
    return st;
}

/* The whole run: each step resolved after its sync, in one call. */
static inline void timeline_run(timeline *tl)
{
    static const ttft_tpot_clock_pair pair = {500, 500 + DEV_OFFSET};
    int s;
    for (s = 0; s < STEPS; s++) {
        ttft_tpot_device_stamp st;
        size_t refused = 9;
        timeline_step(tl, s);
        assert_true(tl->ticket[s] != 0);
        st = stamp_of(tl, s);
        assert_int_equal(ttft_tpot_device_resolve(&tl->c, &st, 1, &pair, &refused), TTFT_TPOT_OK);
        assert_int_equal(refused, 0);
    }
}

/* A span with device time, its duration set: the ticket. */
static inline uint64_t device_span(ttft_tpot *c, int phase, uint64_t dur)
{
    ttft_tpot_span s = ttft_tpot_span_begin(c, phase);
    ttft_tpot_span_set_duration(&s, dur);
    ttft_tpot_span_set_device(&s, 0);
    assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
    return s.ticket;
}

/* The timeline again, each launch with the runtime's queued stamp: queued_at ns after step s began
   (host clock, mapped like the begin). */
static inline void timeline_run_queued(timeline *tl, uint64_t (*queued_at)(int s))
{
    static const ttft_tpot_clock_pair pair = {500, 500 + DEV_OFFSET};
    int s;
    for (s = 0; s < STEPS; s++) {
        ttft_tpot_device_stamp st;
        timeline_step(tl, s);
        st = stamp_of(tl, s);
        st = TTFT_TPOT_STAMP_QUEUED(st.ticket, step_base(s) + queued_at(s) + DEV_OFFSET, st.begin_ns, st.end_ns);
        assert_int_equal(ttft_tpot_device_resolve(&tl->c, &st, 1, &pair, NULL), TTFT_TPOT_OK);
    }
}

/* queued 500 (s + 1) ns after the issue at B + 1000: 1000, 1500, 2000, 2500 in the steady steps */
static inline uint64_t queued_after_issue(int s)
{
    return 1000 + 500 * (uint64_t)(s + 1);
}

/* graph_parts_are_rows_not_counted_twice's recording: decode steps of 20000 ns, each after a graph
   launch of 1000 ns host time (g.matmul 3000, 4000, 5000 and g.sample 500 its parts); the whole graph
   of steps 0 and 1 resolved (4000 and 5000), step 2's left open; a part of an unknown ticket or phase
   refused. Returns the graph's phase, and its g.matmul's in *matmul (unless NULL). */
static inline int graph_launches(ttft_tpot *c, int *matmul)
{
    ttft_tpot_config cfg;
    ttft_tpot_device_stamp st;
    ttft_tpot_span s;
    uint64_t launch[3];
    int dec, graph, k1, k2, i;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 16;
    dec = fixture(c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    graph = ttft_tpot_phase(c, "graph", TTFT_TPOT_ROLE_KERNEL);
    k1 = ttft_tpot_phase(c, "g.matmul", TTFT_TPOT_ROLE_KERNEL);
    k2 = ttft_tpot_phase(c, "g.sample", TTFT_TPOT_ROLE_KERNEL);
    memset(&st, 0, sizeof st);
    for (i = 0; i < 3; i++) { /* step i: a graph launch of 1000 ns host time, the step 20000 ns */
        s = ttft_tpot_span_begin(c, graph);
        ttft_tpot_span_set_duration(&s, 1000);
        ttft_tpot_span_set_device(&s, 0);
        ttft_tpot_span_end(&s);
        launch[i] = s.ticket;
        record(c, dec, 20000, 1);
        st.elapsed_ns = 3000 + 1000 * (uint64_t)i; /* the graph's matmul: 3000, 4000, 5000 */
        assert_int_equal(ttft_tpot_device_part(c, launch[i], k1, &st, NULL), TTFT_TPOT_OK);
        st.elapsed_ns = 500;
        assert_int_equal(ttft_tpot_device_part(c, launch[i], k2, &st, NULL), TTFT_TPOT_OK);
    }
    /* the whole graph of steps 0 and 1: 4000 and 5000; step 2's stays open: its parts stand for it */
    assert_int_equal(device_elapsed(c, launch[0], 4000), TTFT_TPOT_OK);
    assert_int_equal(device_elapsed(c, launch[1], 5000), TTFT_TPOT_OK);
    assert_int_equal(ttft_tpot_device_part(c, 12345, k1, &st, NULL), TTFT_TPOT_ETICKET);
    assert_int_equal(ttft_tpot_device_part(c, launch[0], 99, &st, NULL), TTFT_TPOT_EPHASE);
    if (matmul)
        *matmul = k1;
    return graph;
}

/* The collector losses_are_counted_and_shown records on: two device intervals kept and one ticket open
   at most (config.max_device 2, max_pending 1); returns its kernel phase, k. */
static inline int device_losses_fixture(ttft_tpot *c)
{
    ttft_tpot_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 2;
    cfg.max_pending = 1;
    return fixture(c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
}

#endif
