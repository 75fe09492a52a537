/* Device time: spans around asynchronous launches, their tickets resolved with the device's
   timestamps later. An exactly scripted timeline, every figure computed by hand in the comments.
   The core's alone (ttft_tpot.h): traces read back, the Prometheus exposition and the Chrome trace of
   device time are test_trace_device.c's. */
#define TTFT_TPOT_IMPLEMENTATION
#include "test_util.h"

#include <string.h>

#include "device_setup.h" /* the timeline, device_elapsed(), device_span() */

/* One ticket resolved with an event pair's elapsed device time in ms, as cudaEventElapsedTime gives
   it (ttft_tpot_ms_to_ns, then device_elapsed()): a value that is no duration (negative, NaN) is
   resolved as a device time past every bound, so that the collector refuses it (ERANGE) and counts
   the refusal, as ttft_tpot_device_elapsed_ms did before 0.4.0. */
static int device_elapsed_ms(ttft_tpot *c, uint64_t ticket, double ms)
{
    uint64_t ns;
    if (ttft_tpot_ms_to_ns(ms, &ns) != TTFT_TPOT_OK)
        ns = UINT64_MAX;
    return device_elapsed(c, ticket, ns);
}

static void host_against_device_by_hand(void **state)
{
    timeline tl;
    ttft_tpot_model m;
    const ttft_tpot_phase_figures *layer;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run(&tl);
    assert_int_equal(counts(&tl.c).device_intervals, 5);
    assert_int_equal(counts(&tl.c).device_open, 0);
    assert_int_equal(ttft_tpot_model_compute(&tl.c, NULL, &m), TTFT_TPOT_OK);
    layer = &m.phase[tl.kernel];
    /* host: every launch took 2000 ns; the first is warmup */
    assert_int_equal(layer->steady.n, 4);
    assert_near(layer->steady.p50_ns, 2000, 0);
    /* device, steady (steps 1-4): 10000, 12000, 30000, 40000: p50 (12000 + 30000) / 2 = 21000, mean
       92000 / 4 = 23000, p90 at rank 2.7: 30000 + 0.7 * 10000 = 37000, p99 at 2.97: 39700 */
    assert_int_equal(layer->device.n, 4);
    assert_near(layer->device.p50_ns, 21000, 0);
    assert_near(layer->device.mean_ns, 23000, 0);
    assert_near(layer->device.p90_ns, 37000, 0);
    assert_near(layer->device.p99_ns, 39700, 0);
    assert_int_equal(layer->device.min_ns, 10000);
    assert_int_equal(layer->device.max_ns, 40000);
    /* queue delay: device begin B + 5000 - host issue B + 1000 = 4000, every time */
    assert_int_equal(layer->queue.n, 4);
    assert_near(layer->queue.p50_ns, 4000, 0);
    assert_int_equal(layer->queue.max_ns, 4000);
    /* the sync and the steps have no intervals of their own */
    assert_int_equal(m.phase[tl.sync].device.n, 0);
    /* the sync waited for the kernel: D + 3000; steady p50 of 40000, 30000, 10000, 12000 + 3000 */
    assert_near(m.phase[tl.sync].steady.p50_ns, 24000, 0);
    /* TTFT stays wall-clock: the steady prefill took 26000 + 40000 = 66000; on the device, its kernel's
       40000. TPOT: wall 36000 and 38000 (p50 37000); device 10000 and 12000 (p50 11000) */
    assert_near(m.head.ttft_steady.p50_ns, 66000, 0);
    assert_int_equal(m.device.ttft_steady.n, 1);
    assert_near(m.device.ttft_steady.p50_ns, 40000, 0);
    assert_near(m.head.tpot.p50_ns, 37000, 0);
    assert_int_equal(m.device.tpot.n, 2);
    assert_near(m.device.tpot.p50_ns, 11000, 0);
    /* busy: (10000 + 12000) / (36000 + 38000) = 22 / 74 */
    assert_true(m.device.has_busy);
    assert_int_equal(m.device.busy_steps, 2);
    assert_near(m.device.busy_fraction * 74000, 22000, 1e-6);
    assert_int_equal(m.device.intervals, 5);
    assert_int_equal(m.device.unresolved + m.device.open + m.device.refused + m.device.queue_clamped, 0);
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&tl.c);
}

static void reports_show_host_against_device(void **state)
{
    timeline tl;
    char *text;
    jc_value doc;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run(&tl);
    text = capture(&tl.c, ttft_tpot_report);
    assert_non_null(strstr(text, "\nDevice time (5 intervals resolved; TTFT and TPOT above are wall-clock, these the "
                                 "device's)\n"));
    assert_non_null(strstr(text, "TTFT (steady, device) : 40.00 us    (n=1,"));
    assert_non_null(strstr(text, "TPOT (device)         : 11.00 us    (n=2, p90 11.80 us, p99 11.98 us, mean 11.00 us)"));
    assert_non_null(strstr(text, "Device busy           : 29.7% of steady decode wall time (2 steps): decode is "
                                 "host-bound, the device idles 70.3% of each step\n"));
    assert_non_null(strstr(text, "\nlayer                        2.00 us        4    21.00 us    37.00 us    39.70 us    "
                                 "23.00 us     4.00 us     4.00 us\n"));
    assert_null(strstr(text, "WARNING"));
    assert_non_null(strstr(text, " queue p99\n")); /* no queued stamps: no launch or wait columns */
    assert_null(strstr(text, "launch p50"));
    json_of(&tl.c, &doc);
    assert_true(is_null_at(phase_named(&doc, "layer"), "launch_overhead"));
    assert_ms(&doc, "device.queued", 0);
    assert_ms(&doc, "device.tpot.p50", 0.011);
    assert_ms(&doc, "device.ttft_steady.p50", 0.040);
    assert_near(num_at(&doc, "device.busy_fraction") * 74, 22, 1e-9);
    assert_ms(&doc, "device.unresolved", 0);
    assert_true(is_bool_at(&doc, "device.host_bound", 1));
    assert_ms(phase_named(&doc, "layer"), "device.p50", 0.021);
    assert_ms(phase_named(&doc, "layer"), "queue_delay.p99", 0.004);
    assert_true(is_null_at(phase_named(&doc, "sync"), "device")); /* no interval of its own */
    assert_true(is_null_at(phase_named(&doc, "sync"), "queue_delay"));
    jc_free(&doc);
    free(text);
    ttft_tpot_free(&tl.c);
}

/* Nothing lost quietly: no room gives no ticket (the sample keeps its host time, counted
   unresolved), an open ticket is counted at report time, and a refused resolution changes nothing. */
static void losses_are_counted_and_shown(void **state)
{
    ttft_tpot c;
    ttft_tpot_span s;
    ttft_tpot_device_stamp st[3];
    uint64_t t1 = 0, t3 = 0;
    size_t refused;
    int k, i;
    char *text;
    jc_value doc;
    (void)state;
    k = device_losses_fixture(&c); /* two intervals kept and one ticket open at most */
    for (i = 0; i < 4; i++) {
        s = ttft_tpot_span_begin(&c, k);
        ttft_tpot_span_set_duration(&s, 100);
        ttft_tpot_span_set_device(&s, 1);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        if (i == 0)
            t1 = s.ticket, assert_true(t1 != 0);
        if (i == 1) /* one ticket open at most: none */
            assert_true(s.ticket == 0), assert_int_equal(device_elapsed(&c, t1, 70), 0);
        if (i == 2)
            t3 = s.ticket, assert_true(t3 != 0);
        if (i == 3) /* two intervals kept at most: none */
            assert_true(s.ticket == 0);
    }
    assert_int_equal(counts(&c).samples, 4); /* every sample keeps its host time */
    assert_int_equal(counts(&c).device_unresolved, 2);
    assert_int_equal(counts(&c).device_open, 1);
    /* refused: resolved already, end before begin, unknown; each changes nothing */
    memset(st, 0, sizeof st);
    st[0].ticket = t1, st[0].elapsed_ns = 5;
    st[1].ticket = t3, st[1].absolute = 1, st[1].begin_ns = 10, st[1].end_ns = 9;
    st[2].ticket = t3 + 1, st[2].elapsed_ns = 5;
    assert_int_equal(ttft_tpot_device_resolve(&c, st, 3, &(ttft_tpot_clock_pair){0, 0}, &refused), TTFT_TPOT_ETICKET);
    assert_int_equal(refused, 3);
    assert_int_equal(device_elapsed_ms(&c, t3, -1.0), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_device_resolve(&c, &TTFT_TPOT_STAMP_ABSOLUTE(t3, 1, 2), 1, NULL, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(device_elapsed(&c, 0, 5), TTFT_TPOT_OK); /* ticket 0: nothing, not refused */
    assert_int_equal(counts(&c).device_refused, 5);
    assert_int_equal(counts(&c).device_open, 1);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 3 device intervals unresolved (2 spans got no ticket: config.max_device or "
                                 "config.max_pending was full; 1 tickets still open)"));
    assert_non_null(strstr(text, "WARNING: 5 device resolutions refused"));
    json_of(&c, &doc);
    assert_ms(&doc, "device.unresolved", 3);
    assert_ms(&doc, "device.no_ticket", 2);
    assert_ms(&doc, "device.open", 1);
    assert_ms(&doc, "device.refused", 5);
    assert_ms(&doc, "device.intervals", 1);
    /* the one resolved, 70 ns, is the phase's first sample's: warmup, so no steady device figure */
    assert_true(is_null_at(phase_named(&doc, "k"), "device"));
    jc_free(&doc);
    free(text); /* its trace keeps the report: test_trace_device.c */
    /* a clear begins a new epoch: the old ticket is unknown */
    ttft_tpot_clear(&c);
    assert_int_equal(device_elapsed(&c, t3, 5), TTFT_TPOT_ETICKET);
    assert_int_equal(counts(&c).device_intervals, 0);
    ttft_tpot_free(&c);
}

/* A graph launch: one host dispatch, one interval for the whole graph, and its kernels' own
   intervals as parts (rows of their own, not counted twice in the step). */
static void graph_parts_are_rows_not_counted_twice(void **state)
{
    ttft_tpot c;
    ttft_tpot_model m;
    int graph, k1;
    (void)state;
    graph = graph_launches(&c, &k1); /* 3 steps, the graph of steps 0 and 1 resolved, step 2's open */
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    /* steps 1 and 2 are steady: device 5000 (the graph's own) and 5500 (its parts: 5000 + 500) */
    assert_int_equal(m.device.tpot.n, 2);
    assert_near(m.device.tpot.p50_ns, 5250, 0);
    assert_near(m.device.busy_fraction * 40000, 10500, 1e-9);
    /* the parts are rows: matmul steady (all three; a part's warmup is its launch's: the first) */
    assert_int_equal(m.phase[k1].all.n, 0);
    assert_int_equal(m.phase[k1].device.n, 2);
    assert_near(m.phase[k1].device.p50_ns, 4500, 0);
    assert_int_equal(m.phase[graph].device.n, 1); /* step 1's: step 0's launch is warmup, step 2's open */
    assert_int_equal(m.device.parts, 6);
    assert_int_equal(m.device.open, 1);
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&c); /* its trace keeps the report: test_trace_device.c */
}

/* The i-th device interval, in ticket order (the model's, read in place). */
static ttft_tpot_device_interval interval(const ttft_tpot *c, size_t i)
{
    ttft_tpot_model m = view(c);
    ttft_tpot_device_interval d;
    assert_true(i < m.n_intervals);
    d = m.intervals[i];
    ttft_tpot_model_free(&m);
    return d;
}

/* A ticket names an interval of its own collector only: one of another collector, or one of a
   collector merged in, is refused there and changes nothing. */
static void tickets_belong_to_their_collector(void **state)
{
    ttft_tpot a, b;
    ttft_tpot_config cfg;
    uint64_t ta, tb;
    int ka, kb;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    ka = fixture(&a, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    kb = fixture(&b, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    ta = device_span(&a, ka, 100);
    tb = device_span(&b, kb, 100);
    assert_true(ta != 0 && tb != 0 && ta != tb);
    assert_int_equal(device_elapsed(&a, tb, 123456), TTFT_TPOT_ETICKET);
    assert_int_equal(interval(&a, 0).state, TTFT_TPOT_DEVICE_OPEN);
    assert_int_equal(counts(&a).device_refused, 1);
    assert_int_equal(device_elapsed(&a, ta, 70), TTFT_TPOT_OK);
    assert_int_equal(interval(&a, 0).device_ns, 70);
    /* merged: b's open interval is a's now, under a's numbering; b's ticket still names nothing there */
    assert_int_equal(ttft_tpot_merge(&a, &b), TTFT_TPOT_OK);
    assert_int_equal(counts(&a).device_open, 1);
    assert_int_equal(device_elapsed(&a, tb, 5), TTFT_TPOT_ETICKET);
    assert_int_equal(interval(&a, 1).state, TTFT_TPOT_DEVICE_OPEN);
    assert_int_equal(counts(&a).device_open, 1);
    assert_int_equal(device_elapsed(&b, tb, 7), TTFT_TPOT_OK); /* b's own, on b */
    /* a cleared collector refuses its old ticket, and the other's */
    ttft_tpot_clear(&a);
    ta = device_span(&a, ka, 100);
    assert_int_equal(device_elapsed(&a, device_span(&b, kb, 100), 5), TTFT_TPOT_ETICKET);
    assert_int_equal(device_elapsed(&a, ta, 5), TTFT_TPOT_OK);
    ttft_tpot_free(&a);
    ttft_tpot_free(&b);
}

/* A merge into a full collector: src's steady decode step goes on in a histogram while the warmup
   kernel after it takes the reserve. Each interval links to its own sample, or to none. */
static void merge_into_full_links_intervals_to_their_samples(void **state)
{
    ttft_tpot dst, src;
    ttft_tpot_config cfg;
    int x, d, k;
    size_t i;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 2;
    cfg.max_device = 8;
    x = fixture(&dst, &cfg, "x", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(record(&dst, x, 10, 0), TTFT_TPOT_OK);
    assert_int_equal(record(&dst, x, 10, 0), TTFT_TPOT_OK);
    d = fixture(&src, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&src, "layer", TTFT_TPOT_ROLE_KERNEL);
    assert_int_equal(device_elapsed(&src, device_span(&src, d, 1000), 900), TTFT_TPOT_OK); /* warmup */
    assert_int_equal(device_elapsed(&src, device_span(&src, d, 777777), 700000), TTFT_TPOT_OK);
    assert_int_equal(device_elapsed(&src, device_span(&src, k, 60), 50), TTFT_TPOT_OK); /* warmup */
    assert_int_equal(ttft_tpot_merge(&dst, &src), TTFT_TPOT_OK);
    assert_int_equal(counts(&dst).device_intervals, 3);
    for (i = 0; i < 3; i++) {
        ttft_tpot_device_interval v = interval(&dst, i);
        if (v.sample) { /* linked: to the sample it was taken for */
            ttft_tpot_sample s = sample(&dst, (size_t)v.sample - 1);
            assert_int_equal(s.dur_ns, i == 0 ? 1000 : i == 1 ? 777777 : 60);
        }
    }
    assert_int_equal(interval(&dst, 1).sample, 0); /* in a histogram: none */
    assert_true(interval(&dst, 0).sample != 0);   /* the warmups took the reserve: linked */
    assert_true(interval(&dst, 2).sample != 0);
    ttft_tpot_free(&dst);
    ttft_tpot_free(&src);
}

/* A device time of 2^62 ns or more is no measurement: refused (ERANGE, counted), in every form (and
   in a trace: test_trace_device.c), so that no figure saturates. */
static void absurd_device_times_are_refused(void **state)
{
    static const ttft_tpot_clock_pair pair = {1000, 1000};
    ttft_tpot c;
    ttft_tpot_config cfg;
    ttft_tpot_device_stamp st;
    uint64_t t;
    int k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    t = device_span(&c, k, 100);
    assert_int_equal(device_elapsed(&c, t, UINT64_MAX - 5), TTFT_TPOT_ERANGE);
    assert_int_equal(device_elapsed(&c, t, (uint64_t)1 << 62), TTFT_TPOT_ERANGE);
    assert_int_equal(ttft_tpot_device_resolve(&c, &TTFT_TPOT_STAMP_ABSOLUTE(t, 1000, 1000 + ((uint64_t)1 << 62)), 1, &pair, NULL),
                     TTFT_TPOT_ERANGE);
    memset(&st, 0, sizeof st);
    st.elapsed_ns = UINT64_MAX;
    assert_int_equal(ttft_tpot_device_part(&c, t, k, &st, NULL), TTFT_TPOT_ERANGE);
    assert_int_equal(counts(&c).device_refused, 4);
    assert_int_equal(counts(&c).device_open, 1);
    assert_int_equal(counts(&c).device_intervals, 1);
    assert_int_equal(device_elapsed(&c, t, ((uint64_t)1 << 62) - 1), TTFT_TPOT_OK);
    ttft_tpot_free(&c);
}

/* queued at B + 500, before the issue at B + 1000: the clock pair is off by 500 ns */
static uint64_t queued_before_issue(int s)
{
    (void)s;
    return 500;
}

/* A queued stamp splits the queue delay (issue to device begin, 4000 every time) into launch
   overhead (issue to queued) and queue wait (queued to begin), in the model, both reports and the
   trace (read back: test_trace_device.c). */
static void queued_stamps_split_launch_from_wait(void **state)
{
    timeline tl;
    ttft_tpot_model m;
    const ttft_tpot_phase_figures *layer;
    char *text, *trace;
    jc_value doc;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run_queued(&tl, queued_after_issue);
    assert_int_equal(ttft_tpot_model_compute(&tl.c, NULL, &m), TTFT_TPOT_OK);
    layer = &m.phase[tl.kernel];
    assert_int_equal(layer->queue.n, 4);
    assert_near(layer->queue.p50_ns, 4000, 0);
    /* launch 1000, 1500, 2000, 2500: p50 1750, p90 at rank 2.7 2000 + 0.7 * 500 = 2350, p99 2485 */
    assert_int_equal(layer->launch.n, 4);
    assert_near(layer->launch.p50_ns, 1750, 0);
    assert_near(layer->launch.p90_ns, 2350, 0);
    assert_near(layer->launch.p99_ns, 2485, 0);
    assert_near(layer->launch.mean_ns, 1750, 0);
    /* wait 4000 - launch: 1500, 2000, 2500, 3000: p50 2250, p90 2850 */
    assert_int_equal(layer->wait.n, 4);
    assert_near(layer->wait.p50_ns, 2250, 0);
    assert_near(layer->wait.p90_ns, 2850, 0);
    assert_int_equal(layer->wait.max_ns, 3000);
    assert_int_equal(m.phase[tl.sync].launch.n, 0);
    assert_int_equal(m.device.queued, 5);
    assert_int_equal(m.device.queue_clamped + m.device.queued_clamped, 0);
    ttft_tpot_model_free(&m);
    text = capture(&tl.c, ttft_tpot_report);
    assert_non_null(strstr(text, " queue p99  launch p50    wait p50\n"));
    assert_non_null(strstr(text, "\nlayer                        2.00 us        4    21.00 us    37.00 us    39.70 us    "
                                 "23.00 us     4.00 us     4.00 us     1.75 us     2.25 us\n"));
    assert_null(strstr(text, "NOTE: "));
    free(text);
    json_of(&tl.c, &doc);
    assert_ms(phase_named(&doc, "layer"), "launch_overhead.p50", 0.00175);
    assert_ms(phase_named(&doc, "layer"), "queue_wait.p90", 0.00285);
    assert_ms(phase_named(&doc, "layer"), "queue_delay.p50", 0.004);
    assert_true(is_null_at(phase_named(&doc, "sync"), "launch_overhead"));
    assert_true(is_null_at(phase_named(&doc, "sync"), "queue_wait"));
    assert_ms(&doc, "device.queued", 5);
    assert_ms(&doc, "device.queued_clamped", 0);
    jc_free(&doc);
    /* the second launch: issued at 1101000, queued at 1102000, begun at 1105000 */
    trace = capture(&tl.c, ttft_tpot_trace_write);
    assert_non_null(strstr(trace, "\n# device: 4,0,3,0,0,1101000,1105000,40000,layer\n# device_queued: 1102000\n"));
    free(trace);
    ttft_tpot_free(&tl.c);
}

/* Queued stamps mapped before their issue give launch overhead 0, counted and noted. */
static void queued_stamps_before_issue_are_noted(void **state)
{
    timeline tl;
    char *text;
    jc_value doc;
    (void)state;
    timeline_init(&tl, 64, 0);
    timeline_run_queued(&tl, queued_before_issue);
    text = capture(&tl.c, ttft_tpot_report);
    /* launch 0 (clamped), and the wait from the issue, not from the queued stamp before it: begin
       B + 5000 - issue B + 1000 = 4000, so that launch + wait is the queue delay */
    assert_non_null(strstr(text, "     4.00 us     4.00 us        0 ns     4.00 us\n"));
    assert_non_null(strstr(text, "NOTE: 4 queued stamps mapped before their host issue, by up to 500 ns: launch "
                                 "overhead taken as 0 (the clock pair is off by that much)\n"));
    free(text);
    json_of(&tl.c, &doc);
    assert_ms(&doc, "device.queued_clamped", 4);
    assert_ms(&doc, "device.queue_clamped", 0);
    jc_free(&doc);
    ttft_tpot_free(&tl.c);
}

/* A queued stamp after its begin, on the elapsed form, or mapped before the host clock's 0 is refused
   and changes nothing (a bad # device_queued: line is refused with its line: test_trace_device.c). */
static void bad_queued_stamps_are_refused(void **state)
{
    static const ttft_tpot_clock_pair pair = {1000, 5000};
    ttft_tpot c;
    ttft_tpot_config cfg;
    ttft_tpot_device_stamp st;
    uint64_t t;
    int k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 4;
    k = fixture(&c, &cfg, "k", TTFT_TPOT_ROLE_KERNEL);
    t = device_span(&c, k, 100);
    st = TTFT_TPOT_STAMP_QUEUED(t, 6001, 6000, 7000); /* queued after its begin */
    assert_int_equal(ttft_tpot_device_resolve(&c, &st, 1, &pair, NULL), TTFT_TPOT_ERANGE);
    st = TTFT_TPOT_STAMP_QUEUED(t, 3000, 6000, 7000); /* 2000 before the pair's 5000: host 1000 - 2000 */
    assert_int_equal(ttft_tpot_device_resolve(&c, &st, 1, &pair, NULL), TTFT_TPOT_ERANGE);
    st = TTFT_TPOT_STAMP_ELAPSED(t, 1000);
    st.queued_ns = 5;
    assert_int_equal(ttft_tpot_device_resolve(&c, &st, 1, &pair, NULL), TTFT_TPOT_EINVAL);
    assert_int_equal(counts(&c).device_refused, 3);
    assert_int_equal(counts(&c).device_open, 1);
    st = TTFT_TPOT_STAMP_QUEUED(t, 4500, 6000, 7000); /* host 500, 2000 */
    assert_int_equal(ttft_tpot_device_resolve(&c, &st, 1, &pair, NULL), TTFT_TPOT_OK);
    assert_int_equal(c.dev.log[0].queued_ns, 500);
    assert_int_equal(c.dev.log[0].begin_ns, 2000);
    ttft_tpot_free(&c);
}

/* A phase timed both ways: steps 0-2 by an event pair that also holds a 3 us launch gap (elapsed
   D + 3000), steps 3 and 4 by the kernel's own begin and end stamps (D). Steady: pairs 43000 and
   33000 (p50 38000), stamps 10000 and 12000 (p50 11000): the pairs read 27000 ns more. */
static void both_forms_show_the_difference(void **state)
{
    static const ttft_tpot_clock_pair pair = {500, 500 + DEV_OFFSET};
    timeline tl;
    ttft_tpot_model m;
    char *text;
    jc_value doc;
    int s;
    (void)state;
    timeline_init(&tl, 64, 0);
    for (s = 0; s < STEPS; s++) {
        ttft_tpot_device_stamp st;
        timeline_step(&tl, s);
        st = s < 3 ? TTFT_TPOT_STAMP_ELAPSED(tl.ticket[s], D[s] + 3000) : stamp_of(&tl, s);
        assert_int_equal(ttft_tpot_device_resolve(&tl.c, &st, 1, &pair, NULL), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_model_compute(&tl.c, NULL, &m), TTFT_TPOT_OK);
    assert_int_equal(m.phase[tl.kernel].pairs.n, 2);
    assert_near(m.phase[tl.kernel].pairs.p50_ns, 38000, 0);
    assert_int_equal(m.phase[tl.kernel].records.n, 2);
    assert_near(m.phase[tl.kernel].records.p50_ns, 11000, 0);
    assert_int_equal(m.phase[tl.kernel].device.n, 4); /* both forms together, as before */
    assert_int_equal(m.phase[tl.sync].pairs.n, 0);
    ttft_tpot_model_free(&m);
    text = capture(&tl.c, ttft_tpot_report);
    assert_non_null(strstr(text, "\nNOTE: layer: event pairs p50 38.00 us (n=2), begin and end stamps p50 11.00 us "
                                 "(n=2): the pairs read 27.00 us more, the launch gaps they hold\n"));
    free(text);
    json_of(&tl.c, &doc);
    assert_ms(phase_named(&doc, "layer"), "device_event_pairs.p50", 0.038);
    assert_ms(phase_named(&doc, "layer"), "device_stamps.p50", 0.011);
    assert_true(is_null_at(phase_named(&doc, "sync"), "device_event_pairs"));
    jc_free(&doc);
    ttft_tpot_free(&tl.c);
    timeline_init(&tl, 64, 0); /* one form: nothing to compare */
    timeline_run(&tl);
    text = capture(&tl.c, ttft_tpot_report);
    assert_null(strstr(text, "begin and end stamps p50"));
    free(text);
    json_of(&tl.c, &doc);
    assert_true(is_null_at(phase_named(&doc, "layer"), "device_event_pairs"));
    assert_true(is_null_at(phase_named(&doc, "layer"), "device_stamps"));
    jc_free(&doc);
    ttft_tpot_free(&tl.c);
}

/* Decode steps of 4 tokens a sequence (8 tokens, 2 sequences), each 100 us on the host and busy on
   the device all along: device TPOT is per output token (100 x 2 / 8 = 25 us), the busy share the
   steps' whole device time over their wall time (100%). */
static void multi_token_steps_on_the_device(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    ttft_tpot_model m;
    int dec, k;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.sequences = 1;
    dec = fixture(&c, &cfg, "decode", TTFT_TPOT_ROLE_DECODE);
    for (k = 0; k < 4; k++) {
        ttft_tpot_span s = ttft_tpot_span_begin_at(&c, dec, 0);
        ttft_tpot_span_set_duration(&s, 100000);
        ttft_tpot_span_set_tokens(&s, 8);
        ttft_tpot_span_set_sequences(&s, 2);
        ttft_tpot_span_set_device(&s, 0);
        assert_int_equal(ttft_tpot_span_end(&s), TTFT_TPOT_OK);
        assert_int_equal(device_elapsed(&c, s.ticket, 100000), TTFT_TPOT_OK);
    }
    assert_int_equal(ttft_tpot_model_compute(&c, NULL, &m), TTFT_TPOT_OK);
    assert_int_equal(m.device.tpot.n, 3);
    assert_near(m.device.tpot.p50_ns, 25000, 0);
    assert_near(m.head.tpot.p50_ns, 25000, 0);
    assert_true(m.device.has_busy);
    assert_near(m.device.busy_fraction, 1, 1e-12);
    ttft_tpot_model_free(&m);
    ttft_tpot_free(&c);
}

/* steps decode steps, each after a kernel launch whose device time is 2 us (its host span 3 us). */
static void kernel_steps(ttft_tpot *c, int decode, int layer, int steps)
{
    int s;
    for (s = 0; s < steps; s++) {
        uint64_t t = device_span(c, layer, 3000);
        if (t)
            assert_int_equal(device_elapsed(c, t, 2000), TTFT_TPOT_OK);
        assert_int_equal(record(c, decode, 10000, 1), TTFT_TPOT_OK);
    }
}

/* The device figures say which of the headline's steady steps they cover: a step kept in a
   histogram (the sample store full, or a bounded phase) has no sample to hold its device time. */
static void device_figures_name_the_steps_they_cover(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    int d, k;
    char *text;
    jc_value doc;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = 40; /* 20 kernels and 20 decode steps stored: 19 steady steps; 180 go on in a histogram */
    cfg.max_device = 4096;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&c, "layer", TTFT_TPOT_ROLE_KERNEL);
    kernel_steps(&c, d, k, 200);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "us/token  (n=199, excl. 1 warmup step;"));
    assert_non_null(strstr(text, "TPOT (device)         : 2.00 us     (n=19 of 199 steady steps, p90 2.00 us, p99 2.00 us, "
                                 "mean 2.00 us; the 180 kept in a histogram have no per-step device time)\n"));
    assert_non_null(strstr(text, "Device busy           : 20.0% of steady decode wall time (19 of 199 steady "
                                 "steps): decode is host-bound"));
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "device.tpot.n", 19);
    assert_ms(&doc, "device.tpot_steps", 199);
    assert_ms(&doc, "device.tpot_steps_without_device", 180);
    assert_ms(&doc, "device.tpot_steps_in_histogram", 180);
    assert_ms(&doc, "device.busy_steps", 19);
    jc_free(&doc);
    ttft_tpot_free(&c);
    /* bounded: every steady step goes on in a histogram */
    cfg.capacity = 0;
    cfg.bounded = 1;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&c, "layer", TTFT_TPOT_ROLE_KERNEL);
    kernel_steps(&c, d, k, 20);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "TPOT (device)         : n/a         (no steady decode step with device time: the 19 "
                                 "kept in a histogram have no per-step device time)\n"));
    assert_non_null(strstr(text, "Device busy           : n/a         (no steady decode step with device time: the 19 "
                                 "kept in a histogram have no per-step device time)\n"));
    free(text);
    json_of(&c, &doc);
    assert_true(is_null_at(&doc, "device.tpot"));
    assert_ms(&doc, "device.tpot_steps", 19);
    assert_ms(&doc, "device.tpot_steps_without_device", 19);
    assert_ms(&doc, "device.ttft_steady_steps", 0);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* A decode step's device time summed from parts past 2^63 - 2 ns is held there, and said. */
static void held_device_sums_are_flagged(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg;
    ttft_tpot_device_stamp st;
    uint64_t t = 0;
    int d, k, s, i;
    char *text;
    jc_value doc;
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.max_device = 16;
    d = fixture(&c, &cfg, "decode_step", TTFT_TPOT_ROLE_DECODE);
    k = ttft_tpot_phase(&c, "layer", TTFT_TPOT_ROLE_KERNEL);
    memset(&st, 0, sizeof st);
    st.elapsed_ns = ((uint64_t)1 << 62) - 1;
    for (s = 0; s < 2; s++) { /* the second step: three parts of 2^62 - 1 ns, its launch left open */
        t = device_span(&c, d, 1000);
        for (i = 0; s == 1 && i < 3; i++)
            assert_int_equal(ttft_tpot_device_part(&c, t, k, &st, NULL), TTFT_TPOT_OK);
    }
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "WARNING: 1 samples' device time sums to 2^63 - 2 ns or more, held there"));
    free(text);
    json_of(&c, &doc);
    assert_ms(&doc, "device.held", 1);
    jc_free(&doc);
    ttft_tpot_free(&c);
}

/* Stamps made with the constructors are whole: a stack array that held garbage resolves; one stamp
   left with a garbage absolute flag is refused (what the constructors prevent). The default
   max_device keeps 65536 intervals, so a driver that never set it is resolved. */
static void stamps_are_whole_and_intervals_have_room(void **state)
{
    ttft_tpot c;
    ttft_tpot_device_stamp st[3];
    ttft_tpot_span s;
    size_t refused = 9;
    char *text;
    int k, i;
    (void)state;
    assert_int_equal(ttft_tpot_init(&c, NULL), TTFT_TPOT_OK); /* max_device unset */
    k = ttft_tpot_phase(&c, "k", TTFT_TPOT_ROLE_KERNEL);
    memset(st, 0x5a, sizeof st); /* what a stack array may hold */
    for (i = 0; i < 3; i++) {
        s = ttft_tpot_span_begin(&c, k);
        ttft_tpot_span_set_device(&s, 0);
        ttft_tpot_span_end(&s);
        assert_true(s.ticket != 0); /* room by default */
        st[i] = i < 2 ? TTFT_TPOT_STAMP_ELAPSED(s.ticket, (uint64_t)(i + 1) * 1000) : st[i];
        if (i == 2)
            st[i].ticket = s.ticket, st[i].elapsed_ns = 3000; /* absolute left as garbage */
    }
    assert_int_equal(ttft_tpot_device_resolve(&c, st, 3, NULL, &refused), TTFT_TPOT_EINVAL);
    assert_int_equal(refused, 1);
    assert_int_equal(counts(&c).device_open, 1);
    st[2] = TTFT_TPOT_STAMP_ELAPSED(st[2].ticket, 3000);
    assert_int_equal(ttft_tpot_device_resolve(&c, &st[2], 1, NULL, &refused), TTFT_TPOT_OK);
    assert_int_equal(refused, 0);
    assert_int_equal(counts(&c).device_open, 0);
    text = capture(&c, ttft_tpot_report);
    assert_non_null(strstr(text, "NOTE: 3 of them are event pairs: each includes the launch gap before its kernel"));
    free(text);
    text = capture(&c, report_json);
    assert_non_null(strstr(text, "\"parts\":0,\"elapsed\":3,"));
    free(text);
    st[0] = TTFT_TPOT_STAMP_ABSOLUTE(7, 10, 20);
    assert_true(st[0].ticket == 7 && st[0].absolute == 1 && st[0].elapsed_ns == 0 && st[0].begin_ns == 10 &&
                st[0].end_ns == 20);
    ttft_tpot_free(&c);
}

static uint64_t fake_device(void *user)
{
    uint64_t *t = (uint64_t *)user;
    *t += 100; /* the host clock below moves 100 ns a read as well */
    return 5000;
}

static uint64_t fake_host(void *user)
{
    uint64_t *t = (uint64_t *)user;
    return *t += 100;
}

/* A clock pair from a device clock the host can read, as a driver reads it (DEVICE TIME in
   ttft_tpot.h): the collector's clock, the device's, the collector's again, the device reading paired
   with the midpoint of the two host reads. */
static ttft_tpot_clock_pair clock_pair_read(const ttft_tpot *c, uint64_t (*device_clock)(void *user), void *user)
{
    ttft_tpot_clock_pair pair;
    uint64_t h0 = ttft_tpot_clock_now(c), h1;
    pair.device_ns = device_clock(user);
    h1 = ttft_tpot_clock_now(c);
    pair.host_ns = h0 + (h1 > h0 ? (h1 - h0) / 2 : 0);
    return pair;
}

/* The pair reads the host, the device, the host: the device reading meets the host reads' midpoint. */
static void clock_pair_read_pairs_the_midpoint(void **state)
{
    ttft_tpot c;
    ttft_tpot_config cfg = {0};
    ttft_tpot_clock_pair p;
    uint64_t t = 1000;
    (void)state;
    cfg.clock = fake_host;
    cfg.clock_user = &t;
    assert_int_equal(ttft_tpot_init(&c, &cfg), TTFT_TPOT_OK);
    p = clock_pair_read(&c, fake_device, &t); /* host 1100, device (host 1200), host 1300 */
    assert_int_equal(p.host_ns, 1200);
    assert_int_equal(p.device_ns, 5000);
    ttft_tpot_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_against_device_by_hand),
        cmocka_unit_test(reports_show_host_against_device),
        cmocka_unit_test(losses_are_counted_and_shown),
        cmocka_unit_test(graph_parts_are_rows_not_counted_twice),
        cmocka_unit_test(tickets_belong_to_their_collector),
        cmocka_unit_test(merge_into_full_links_intervals_to_their_samples),
        cmocka_unit_test(absurd_device_times_are_refused),
        cmocka_unit_test(device_figures_name_the_steps_they_cover),
        cmocka_unit_test(held_device_sums_are_flagged),
        cmocka_unit_test(stamps_are_whole_and_intervals_have_room),
        cmocka_unit_test(clock_pair_read_pairs_the_midpoint),
        cmocka_unit_test(queued_stamps_split_launch_from_wait),
        cmocka_unit_test(queued_stamps_before_issue_are_noted),
        cmocka_unit_test(bad_queued_stamps_are_refused),
        cmocka_unit_test(both_forms_show_the_difference),
        cmocka_unit_test(multi_token_steps_on_the_device),
    };
    return run_cases(tests);
}
