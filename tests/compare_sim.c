/* compare_sim - the error rates of --compare and of the runs' intervals, measured on simulated runs
   whose truth is known. Not a timed test: every draw comes from a fixed seed, so the figures are the
   same on every machine, and the program fails (exit 1) when a rate misses its bound.

   A run of the model: a prefill, then STEPS decode steps whose times are AR(1) around the run's own
   level (rho from 0 to 0.9, 2% marginal sd), the level a run-level random effect of 2% sd (as large as
   the steps' own spread), the first steps of each run slower (warmup the flags do not mark), a spike
   of 3x now and then, and a kernel phase inside each step. A side is one process: a warmup run, then
   RUNS marked runs. A serving side is RUNS traces, each a queue of requests served one at a time
   (Poisson arrivals at 70% load), so queueing delays carry from request to request.

   It prints, over PAIRS pairs each: the alarm rate of A/A pairs (verdict improvement, regression or
   trade-off; bound 5%), the detection rate of a 10% TPOT shift at 5 runs a side (tpot named worse;
   bound 80%), and the coverage of the runs' 95% interval of TPOT p50, output throughput and steady
   TTFT (the report's runs.<figure>.ci95; bound 93%). Then the conditions a verdict cannot see through
   and must say so (the caveat column: the share of verdicts that say it): one process a side with a
   3% process effect; a machine that drifts 1% a process, its processes run all of base then all of
   new (said), or interleaved (no alarm, nothing said). Last, the smallest detectable change each
   verdict states (the detect column, its median): at a 5% run-to-run spread, the change at that
   median is found about 4 times in 5. Then a change in the tail only (3% of the steps 1.5x slower,
   the p50s the same), which the tail's row (each run's p99 without its isolated spikes) finds 4 times
   in 5 or more, with the spikes and without. Then heavy tails (5% of the steps times a Pareto draw of alpha
   1.1, so that a run's mean and p99 move with its length) with runs of 64 steps against runs of 512,
   which the verdict judges over their common first steps, and the coverage of the intervals under
   Pareto tails of alpha 1.5 and 1.1 (bound 93% with runs of 128 steps; with 64, printed to show where
   output's widened interval falls short). Usage: compare_sim [PAIRS] (default 1000); the
   bounds are checked at 1000 pairs or more (fewer: a quick run, its rates too rough to judge). */
#define TTFT_TPOT_IMPLEMENTATION
#include "ttft_tpot_tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { STEPS = 128, MAX_STEPS = 512, RUNS = 5, RAMP = 3, REQUESTS = 40, TOKENS = 16, TRUTH_RUNS = 20000 };
#define STEP_NS 3e6
#define PREFILL_NS 100e6
#define SD_STEP 0.02
#define SD_RUN 0.02
#define SPIKE_P 0.005
#define HEAVY_P 0.05 /* the share of steps that are Pareto's, where a trial asks for heavy tails */

/* ---- Draws -------------------------------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static double uniform(rng *g) /* in (0, 1) */
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(g->s >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(rng *g)
{
    return sqrt(-2 * log(uniform(g))) * cos(6.283185307179586 * uniform(g));
}

/* How the steps of a run are drawn: AR(1) rho around the run's level, shift scaling them (1.10: 10%
   slower); a share `tail` 1.5x slower (a change in the tail only), a share `spikes` 3x, and with
   `pareto` > 0 a share HEAVY_P of them times a Pareto draw of that alpha (heavy tails). */
typedef struct step_law {
    double rho, shift, tail, spikes, pareto;
    int steps; /* a run's steps, at most MAX_STEPS */
} step_law;

/* The times of one run: its prefill and its steps, in ns. */
typedef struct run_times {
    double prefill, step[MAX_STEPS];
    int steps;
} run_times;

static void draw_run(rng *g, const step_law *law, run_times *t)
{
    double level = law->shift * (1 + SD_RUN * normal(g)), e = SD_STEP * normal(g), rho = law->rho;
    int i;
    t->prefill = PREFILL_NS * level * (1 + SD_STEP * normal(g));
    t->steps = law->steps;
    for (i = 0; i < t->steps; i++) {
        double ramp = i < RAMP ? 1 + 0.3 * (RAMP - i) / RAMP : 1, spike = uniform(g) < law->spikes ? 3 : 1;
        double heavy = law->pareto > 0 && uniform(g) < HEAVY_P ? pow(uniform(g), -1 / law->pareto) : 1;
        e = rho * e + sqrt(1 - rho * rho) * SD_STEP * normal(g);
        t->step[i] = STEP_NS * level * (1 + e) * ramp * spike * heavy * (law->tail > 0 && uniform(g) < law->tail ? 1.5 : 1);
    }
}

/* ---- Sides -------------------------------------------------------------------------------------- */

/* A sample of ns and its tokens, its duration measured elsewhere. */
static void record(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens)
{
    ttft_tpot_span s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, tokens);
    (void)ttft_tpot_span_end(&s);
}

static void record_run(ttft_tpot *c, const run_times *t, const int *ph)
{
    int i;
    record(c, ph[0], (uint64_t)t->prefill, 1);
    for (i = 0; i < t->steps; i++) {
        record(c, ph[1], (uint64_t)t->step[i], 1);
        record(c, ph[2], (uint64_t)(t->step[i] * 0.8), 0);
    }
}

/* ---- The trials --------------------------------------------------------------------------------- */

typedef struct trial {
    int serving, runs, procs; /* procs: driver processes a side, `runs` runs each */
    double rho, shift;        /* shift: of the new side */
    double proc_sd;           /* the process effect's sd */
    double run_sd;            /* a run effect of this sd besides SD_RUN's */
    double drift;             /* the machine's drift: each process later in time is this much slower */
    int interleaved;          /* processes run base, new, base, new (else all of base, then all of new) */
    double tail;              /* the new side's share of steps 1.5x slower */
    int no_spikes;            /* steps without the 3x spikes */
    double pareto;            /* heavy tails: HEAVY_P of the steps times a Pareto draw of this alpha */
    int steps[2];             /* a run's steps on each side (0: STEPS) */
} trial;

/* The law of a side's steps under trial tr. */
static step_law law_of(const trial *tr, int side, double shift, double tail)
{
    step_law law;
    law.rho = tr->rho, law.shift = shift, law.tail = tail, law.spikes = tr->no_spikes ? 0 : SPIKE_P;
    law.pareto = tr->pareto, law.steps = tr->steps[side] ? tr->steps[side] : STEPS;
    return law;
}

/* A driver's process of side `side`: a warmup run, then tr->runs marked runs, into c (initialised
   here), their steps scaled by shift; the new side's have tr->tail of them 1.5x slower. A process
   effect (its memory placement, the machine's state: proc_sd) scales all its runs alike. */
static void driver_side(ttft_tpot *c, rng *g, const trial *tr, int side, double shift)
{
    int runs = tr->runs;
    run_times t;
    int ph[3], r;
    step_law law;
    ttft_tpot_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity = (size_t)(runs + 1) * (2 * MAX_STEPS + 1) + 16;
    if (ttft_tpot_init(c, &cfg) != TTFT_TPOT_OK)
        exit(2);
    ph[0] = ttft_tpot_phase(c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    ph[1] = ttft_tpot_phase(c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    ph[2] = ttft_tpot_phase(c, "decode_layer", TTFT_TPOT_ROLE_KERNEL);
    shift *= 1 + tr->proc_sd * normal(g);
    law = law_of(tr, side, shift, 0);
    draw_run(g, &law, &t);
    ttft_tpot_warmup_begin(c);
    record_run(c, &t, ph);
    ttft_tpot_warmup_end(c);
    for (r = 0; r < runs; r++) {
        law = law_of(tr, side, tr->run_sd > 0 ? shift * (1 + tr->run_sd * normal(g)) : shift, side ? tr->tail : 0);
        draw_run(g, &law, &t);
        ttft_tpot_run_begin(c);
        record_run(c, &t, ph);
    }
}

/* One serving run, its own process: requests arrive at 70% load and are served one at a time, so a
   slow request delays those behind it. Its requests go to srv, a serving layer attached to c here. */
static void serving_trace(ttft_tpot *c, ttft_tpot_serve *srv, rng *g, double rho, double shift)
{
    run_times t;
    int ph[3], k, i;
    double now = 0, free_at = 0, service = PREFILL_NS + TOKENS * STEP_NS * shift;
    step_law law = {0, 0, 0, SPIKE_P, 0, STEPS};
    ttft_tpot_config cfg;
    ttft_tpot_serve_config sc;
    memset(&cfg, 0, sizeof cfg);
    memset(&sc, 0, sizeof sc);
    cfg.capacity = REQUESTS * (TOKENS + 1) + 16;
    sc.max_requests = REQUESTS;
    if (ttft_tpot_init(c, &cfg) != TTFT_TPOT_OK || ttft_tpot_serve_attach(srv, c, &sc) != TTFT_TPOT_OK)
        exit(2);
    ph[0] = ttft_tpot_phase(c, "prefill", TTFT_TPOT_ROLE_PREFILL);
    ph[1] = ttft_tpot_phase(c, "decode_step", TTFT_TPOT_ROLE_DECODE);
    ph[2] = ttft_tpot_phase(c, "decode_layer", TTFT_TPOT_ROLE_KERNEL);
    law.rho = rho, law.shift = shift;
    draw_run(g, &law, &t); /* one level a run; its steps reused, request after request */
    for (k = 0; k < REQUESTS; k++) {
        char id[16];
        double at;
        snprintf(id, sizeof id, "r%d", k);
        now += -log(uniform(g)) * service / 0.7;
        at = now > free_at ? now : free_at;
        ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SUBMIT, (uint64_t)now);
        ttft_tpot_request_mark(srv, id, TTFT_TPOT_POINT_SCHEDULE, (uint64_t)at);
        at += t.prefill * (0.9 + 0.2 * uniform(g));
        record(c, ph[0], (uint64_t)(at - now), 1);
        ttft_tpot_request_tokens(srv, id, (uint64_t)at, 1);
        for (i = 1; i < TOKENS; i++) {
            double step = t.step[(k * TOKENS + i) % STEPS];
            at += step;
            record(c, ph[1], (uint64_t)step, 1);
            record(c, ph[2], (uint64_t)(step * 0.8), 0);
            ttft_tpot_request_tokens(srv, id, (uint64_t)at, 1);
        }
        ttft_tpot_request_finish(srv, id, TTFT_TPOT_FINISH_NONE);
        free_at = at;
    }
}

typedef struct outcome {
    int kind, tpot_worse;
    int tail_alarm;    /* the tail's verdict names a change */
    int caveat;        /* the verdict says one process a side, or processes not interleaved */
    double tpot_detect; /* the tpot row's detectable change, in %; 0 none */
} outcome;

static int named_worse(const ttft_tpot_compare_result *res, const char *metric)
{
    size_t i;
    for (i = 0; i < res->n; i++)
        if (strcmp(res->rows[i].metric, metric) == 0)
            return res->rows[i].significant && !res->rows[i].within_noise && !ttft_tpot_compare_better(&res->rows[i]);
    return 0;
}

/* A side (0 base, 1 new): its driver processes, or a trace a run when serving (its serving layer in
   srv[k]); m[] receive its models. A process starts at its slot in time (base, new, base, new, ...
   when interleaved, else all of base first), the machine slower by tr->drift a slot. */
static int make_side(const trial *tr, rng *g, int side, ttft_tpot *c, ttft_tpot_serve *srv, ttft_tpot_model *m)
{
    int k, n = tr->serving ? tr->runs : tr->procs;
    double shift = side ? tr->shift : 1;
    for (k = 0; k < n; k++) {
        int slot = tr->interleaved ? 2 * k + side : side * n + k;
        if (tr->serving)
            serving_trace(&c[k], &srv[k], g, tr->rho, shift);
        else
            driver_side(&c[k], g, tr, side, shift * (1 + tr->drift * slot));
        if (ttft_tpot_model_compute(&c[k], NULL, &m[k]) != TTFT_TPOT_OK)
            exit(2);
        m[k].started_ns = 1000000000u + (uint64_t)slot; /* the realtime of its slot */
    }
    return n;
}

static outcome one_pair(const trial *tr, rng *g)
{
    static ttft_tpot_serve srv[2][RUNS * 4]; /* a serving side's layers (16 KiB each), not on the stack */
    ttft_tpot c[2][RUNS * 4];
    ttft_tpot_model m[2][RUNS * 4];
    const ttft_tpot_model *each[2][RUNS * 4];
    ttft_tpot_compare_side side[2];
    ttft_tpot_compare_options o = ttft_tpot_compare_defaults();
    ttft_tpot_compare_result res;
    outcome out;
    int s, k, n[2];
    for (s = 0; s < 2; s++) {
        n[s] = make_side(tr, g, s, c[s], srv[s], m[s]);
        for (k = 0; k < n[s]; k++)
            each[s][k] = &m[s][k];
        side[s].trace = each[s];
        side[s].n = (size_t)n[s];
    }
    if (ttft_tpot_compare_sides(&side[0], &side[1], &o, &res) != TTFT_TPOT_OK)
        exit(2);
    out.kind = res.kind;
    out.tpot_worse = named_worse(&res, "tpot");
    out.caveat = (res.traces[0] == 1 && res.traces[1] == 1 && res.kind != TTFT_TPOT_COMPARE_UNDECIDED) ||
                 res.interleaved == 0;
    out.tpot_detect = 0;
    out.tail_alarm = 0;
    for (k = 0; k < (int)res.n; k++) {
        const ttft_tpot_compare_row *r = &res.rows[k];
        if (strcmp(r->metric, "tpot") == 0 && r->has_detect)
            out.tpot_detect = r->detect_pct;
        out.tail_alarm |= r->tail && r->significant && !r->within_noise;
    }
    ttft_tpot_compare_free(&res);
    for (s = 0; s < 2; s++)
        for (k = 0; k < n[s]; k++) {
            ttft_tpot_model_free(&m[s][k]);
            if (tr->serving)
                ttft_tpot_serve_free(&srv[s][k]);
            ttft_tpot_free(&c[s][k]);
        }
    return out;
}

/* What `pairs` pairs of a trial gave: the rate of alarms (kinds that claim a change), of "tpot worse",
   of undecided verdicts and of verdicts with a caveat; the median detectable tpot change stated. */
typedef struct rates {
    double alarm, worse, undecided, caveat, detect, tail;
} rates;

static int cmp_double(const void *a, const void *b);

static rates rates_of(const trial *tr, int pairs, uint64_t seed)
{
    rates r = {0, 0, 0, 0, 0, 0};
    double *detect = (double *)calloc((size_t)pairs, sizeof *detect);
    rng g;
    int i;
    if (!detect)
        exit(2);
    g.s = seed;
    for (i = 0; i < pairs; i++) {
        outcome o = one_pair(tr, &g);
        r.alarm += o.kind == TTFT_TPOT_COMPARE_IMPROVEMENT || o.kind == TTFT_TPOT_COMPARE_REGRESSION ||
                   o.kind == TTFT_TPOT_COMPARE_TRADE_OFF;
        r.worse += o.tpot_worse;
        r.undecided += o.kind == TTFT_TPOT_COMPARE_UNDECIDED;
        r.caveat += o.caveat;
        r.tail += o.tail_alarm;
        detect[i] = o.tpot_detect;
    }
    r.alarm /= pairs, r.worse /= pairs, r.undecided /= pairs, r.caveat /= pairs, r.tail /= pairs;
    qsort(detect, (size_t)pairs, sizeof *detect, cmp_double);
    r.detect = detect[pairs / 2];
    free(detect);
    return r;
}

/* ---- Coverage of the runs' intervals ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A run's TPOT p50 (ns, the library's definition over its steps), output tok/s, and TTFT. */
static void run_figures(const run_times *t, double *fig)
{
    double s[MAX_STEPS], sum = 0;
    int i;
    for (i = 0; i < t->steps; i++) {
        s[i] = (double)(uint64_t)t->step[i];
        sum += s[i];
    }
    qsort(s, (size_t)t->steps, sizeof s[0], cmp_double);
    fig[TTFT_TPOT_RUN_TPOT] = ttft_tpot_percentile(s, (size_t)t->steps, 50);
    fig[TTFT_TPOT_RUN_TOK_S] = t->steps / (sum * 1e-9);
    fig[TTFT_TPOT_RUN_TTFT] = (double)(uint64_t)t->prefill;
}

/* How often each figure's runs interval (runs.fig[k].ci95 of a driver side of trial tr) holds its
   true mean, the mean over TRUTH_RUNS runs drawn alike. */
static void coverage(const trial *tr, int sides, uint64_t seed, double *cov)
{
    double truth[TTFT_TPOT_RUN_FIGURES] = {0, 0, 0}, fig[TTFT_TPOT_RUN_FIGURES];
    step_law law = law_of(tr, 0, 1, 0);
    run_times t;
    rng g;
    int i, k, hit[TTFT_TPOT_RUN_FIGURES] = {0, 0, 0};
    g.s = seed ^ 0x7777;
    for (i = 0; i < TRUTH_RUNS; i++) {
        draw_run(&g, &law, &t);
        run_figures(&t, fig);
        for (k = 0; k < TTFT_TPOT_RUN_FIGURES; k++)
            truth[k] += fig[k] / TRUTH_RUNS;
    }
    g.s = seed;
    for (i = 0; i < sides; i++) {
        ttft_tpot c;
        ttft_tpot_model m;
        driver_side(&c, &g, tr, 0, 1);
        if (ttft_tpot_model_compute(&c, NULL, &m) != TTFT_TPOT_OK)
            exit(2);
        for (k = 0; k < TTFT_TPOT_RUN_FIGURES; k++)
            hit[k] += m.runs.fig[k].has_ci && m.runs.fig[k].ci95[0] <= truth[k] && truth[k] <= m.runs.fig[k].ci95[1];
        ttft_tpot_model_free(&m);
        ttft_tpot_free(&c);
    }
    for (k = 0; k < TTFT_TPOT_RUN_FIGURES; k++)
        cov[k] = (double)hit[k] / sides;
}

/* One row of the table: the trial's rates, printed against its bounds; 1 when it misses one. bounds,
   a letter each: 'a' alarms at most 5%, 'p' tpot worse at least 80%, 'd' tpot worse 65% to 95% (at
   the median change that verdicts on such runs say they detect 80% of the time: a statement from the
   spread of 5 runs, itself uncertain), 'u' all undecided, 'c' a caveat in every
   verdict, 'n' in none, 't' tail alarms at most 5%, 'T' at least 80%; "-" none (printed to show). */
static int row(const char *side, const trial *tr, const char *what, int pairs, uint64_t seed, const char *bounds)
{
    static const char *const said[] = {"<= 5%",      ">= 80%",      "65-95%",     "all",
                                       "caveat all", "caveat none", "tail <= 5%", "tail >= 80%"};
    rates r = rates_of(tr, pairs, seed);
    char procs[32], text[64] = "";
    int fail = 0;
    const char *b;
    for (b = bounds; *b && *b != '-'; b++) {
        const char *k = strchr("apducntT", *b);
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", b > bounds ? ", " : "", said[k - "apducntT"]);
    }
    fail |= strchr(bounds, 'a') && r.alarm > 0.05;
    fail |= strchr(bounds, 'p') && r.worse < 0.80;
    fail |= strchr(bounds, 'd') && (r.worse < 0.65 || r.worse > 0.95);
    fail |= strchr(bounds, 'u') && r.undecided < 1;
    fail |= (strchr(bounds, 'c') && r.caveat < 1) || (strchr(bounds, 'n') && r.caveat > 0);
    fail |= (strchr(bounds, 't') && r.tail > 0.05) || (strchr(bounds, 'T') && r.tail < 0.80);
    snprintf(procs, sizeof procs, tr->serving ? "%d traces" : "%d x %d", tr->serving ? tr->runs : tr->procs, tr->runs);
    printf("%-9s %-4.1f %-5.0f %-9s %-22s %7.1f%% %10.1f%% %9.1f%% %7.1f%% %7.1f%% %7.1f%%  %s\n", side, tr->rho,
           100 * tr->proc_sd, procs, what, 100 * r.alarm, 100 * r.worse, 100 * r.undecided, 100 * r.tail,
           100 * r.caveat, r.detect, *text ? text : "-");
    return fail;
}

/* The rows of the verdicts: A/A and a 10% TPOT change at each rho, then too few runs, a process
   effect, drift, and the change that the runs' spread can detect. */
static int verdict_rows(int pairs)
{
    static const double rhos[] = {0, 0.5, 0.9};
    trial tr;
    rates aa;
    char what[64];
    int fail = 0;
    unsigned k;
    memset(&tr, 0, sizeof tr);
    tr.procs = 1, tr.runs = RUNS, tr.interleaved = 1;
    for (k = 0; k < 3 * 2; k++) {
        tr.serving = (int)(k / 3), tr.rho = rhos[k % 3], tr.shift = 1;
        fail |= row(tr.serving ? "serving" : "driver", &tr, "the same (A/A)", pairs, 1000 + k, tr.serving ? "ant" : "act");
        tr.shift = 1.10;
        fail |= row(tr.serving ? "serving" : "driver", &tr, "TPOT +10%", pairs, 2000 + k, tr.serving ? "-" : "p");
    }
    tr.serving = 0, tr.rho = 0.5, tr.runs = 3, tr.shift = 1.10;
    fail |= row("driver", &tr, "TPOT +10%", pairs, 3000, "u");
    /* a process effect: one process a side cannot tell it from a change, and says so; processes can */
    tr.proc_sd = 0.03, tr.runs = RUNS, tr.shift = 1;
    fail |= row("driver", &tr, "the same (A/A)", pairs, 3100, "c");
    tr.procs = RUNS, tr.runs = 2, tr.interleaved = 1;
    fail |= row("driver", &tr, "the same (A/A)", pairs, 3200, "an");
    tr.shift = 1.10;
    fail |= row("driver", &tr, "TPOT +10%", pairs, 3300, "n");
    /* drift, 1% a process: all of base, then all of new, reads as a change, and says so */
    tr.proc_sd = 0, tr.shift = 1, tr.drift = 0.01, tr.interleaved = 0;
    fail |= row("driver", &tr, "A/A, drift, in turn", pairs, 3400, "c");
    tr.interleaved = 1;
    fail |= row("driver", &tr, "A/A, drift, mixed", pairs, 3500, "an");
    /* a 5% run-to-run spread: the change the verdicts say they detect is detected 4 times in 5 */
    memset(&tr, 0, sizeof tr);
    tr.procs = 1, tr.runs = RUNS, tr.rho = 0.5, tr.run_sd = 0.046, tr.shift = 1;
    aa = rates_of(&tr, pairs, 3600);
    fail |= row("driver", &tr, "A/A, runs sd 5%", pairs, 3600, "a");
    tr.shift = 1.10;
    fail |= row("driver", &tr, "TPOT +10%, runs sd 5%", pairs, 3700, "-");
    tr.shift = 1 + aa.detect / 100;
    snprintf(what, sizeof what, "TPOT +%.1f%% (detect)", aa.detect);
    fail |= row("driver", &tr, what, pairs, 3800, "d");
    /* a change in the tail only: 3% of the steps 1.5x slower, the p50s the same; with the 3x spikes
       (0.64 a run of 128 steps), which a run's p99 leaves out where isolated, and without them */
    tr.shift = 1, tr.run_sd = 0, tr.tail = 0.03;
    fail |= row("driver", &tr, "3% of steps 1.5x", pairs, 3900, "T");
    tr.no_spikes = 1, tr.tail = 0;
    fail |= row("driver", &tr, "A/A, no spikes", pairs, 3910, "at");
    tr.tail = 0.03;
    fail |= row("driver", &tr, "3% 1.5x, no spikes", pairs, 3920, "T");
    /* heavy tails, 5% of the steps Pareto 1.1, runs of 64 steps against runs of 512 */
    memset(&tr, 0, sizeof tr);
    tr.procs = 1, tr.runs = RUNS, tr.rho = 0, tr.shift = 1, tr.pareto = 1.1, tr.steps[0] = 64, tr.steps[1] = 512;
    fail |= row("driver", &tr, "A/A, Pareto, 64 v 512", pairs, 4100, "at");
    tr.shift = 1.10;
    fail |= row("driver", &tr, "+10%, Pareto, 64 v 512", pairs, 4200, "p");
    return fail;
}

int main(int argc, char **argv)
{
    static const double rhos[] = {0, 0.5, 0.9};
    int pairs = argc > 1 ? atoi(argv[1]) : 1000, fail = 0;
    unsigned k;
    if (pairs < 1)
        return 2;
    printf("compare_sim: %d pairs a row; steps AR(1), sd %.0f%%, run effect sd %.0f%%, %d ramp steps, spikes "
           "%.1f%% at 3x; %d steps a run; defaults (alpha 0.05, Holm, noise %.0f%%)\n",
           pairs, SD_STEP * 100, SD_RUN * 100, RAMP, SPIKE_P * 100, STEPS, TTFT_TPOT_COMPARE_NOISE_PCT);
    printf("%-9s %-4s %-5s %-9s %-22s %8s %11s %10s %8s %8s %8s  %s\n", "side", "rho", "proc%", "a side", "new side",
           "alarms", "tpot worse", "undecided", "tail", "caveat", "detect", "bounds");
    fail |= verdict_rows(pairs);
    printf("\n%-5s %-6s %-5s %-28s %-28s %-28s %7s\n", "rho", "pareto", "steps", "TPOT p50 95% CI covers",
           "output tok/s 95% CI covers", "TTFT p50 95% CI covers", "bound");
    for (k = 0; k < 7; k++) { /* the last two: runs of 64 steps, where the heavy tail's widening falls short */
        double cov[TTFT_TPOT_RUN_FIGURES];
        trial tr;
        memset(&tr, 0, sizeof tr);
        tr.rho = k < 3 ? rhos[k] : 0.5, tr.runs = RUNS, tr.procs = 1, tr.pareto = k < 3 ? 0 : k % 2 ? 1.5 : 1.1;
        tr.steps[0] = k < 5 ? STEPS : 64;
        coverage(&tr, pairs, 4000 + k, cov);
        printf("%-5.1f %-6.1f %-5d %27.1f%% %27.1f%% %27.1f%% %7s\n", tr.rho, tr.pareto, tr.steps[0],
               100 * cov[TTFT_TPOT_RUN_TPOT], 100 * cov[TTFT_TPOT_RUN_TOK_S], 100 * cov[TTFT_TPOT_RUN_TTFT],
               k < 5 ? ">= 93%" : "-");
        fail |= k < 5 && (cov[TTFT_TPOT_RUN_TPOT] < 0.93 || cov[TTFT_TPOT_RUN_TOK_S] < 0.93 || cov[TTFT_TPOT_RUN_TTFT] < 0.93);
    }
    if (pairs < 1000) {
        puts("compare_sim: bounds not checked (fewer than 1000 pairs a row)");
        return 0;
    }
    puts(fail ? "compare_sim: FAILED: a rate misses its bound" : "compare_sim: every rate within its bound");
    return fail;
}
