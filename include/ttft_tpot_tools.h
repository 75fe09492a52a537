/* ttft_tpot_tools.h - v0.3.0 - what programs that read traces and derive figures need, beside ttft_tpot.h.

   A driver needs only ttft_tpot.h. This header is for the report tool, the Python package, and any
   program that reads traces, exports them, or takes figures apart: the trace reader, the Chrome
   trace, the requests CSV, queries and accessors of a collector, statistics helpers, the parsers
   of the command-line forms, and the report tool's figures of tensor-parallel ranks (--ranks). It
   includes ttft_tpot.h.

   USE
     The stb way, as ttft_tpot.h: declarations always; the implementation where TTFT_TPOT_IMPLEMENTATION
     is defined. In the one file that holds the implementation, include this header (it includes
     ttft_tpot.h), so that both halves are compiled there:

         #define TTFT_TPOT_IMPLEMENTATION
         #include "ttft_tpot_tools.h"

     Other files include either header. A program that includes ttft_tpot.h alone in its
     implementation file builds and reports without this header's code.

   INDEX (one line a function; each is declared below with its contract)
     Statistics    ttft_tpot_ci95_ranks    distribution-free 95% interval of a percentile (ranks)
                   ttft_tpot_ci95_min_n    the fewest values that interval needs
                   ttft_tpot_t975          Student's t, 97.5th percentile (the mean's 95% interval)
                   ttft_tpot_percentile    a percentile of sorted doubles (numpy's "linear")
                   ttft_tpot_sort          radix sort of uint64 values
                   ttft_tpot_percentile_name  "p99.9" from thousandths of a percent
                   ttft_tpot_phase_stats   statistics of one phase
                   ttft_tpot_stats_of      statistics of any array of durations
                   ttft_tpot_summarize     the headline figures alone
     Queries       ttft_tpot_counts_of     what a collector holds and lost
                   ttft_tpot_sample_at     the i-th stored sample
                   ttft_tpot_run_at        run r's samples
                   ttft_tpot_device_at     the i-th device interval
                   ttft_tpot_request_at    the i-th tracked request
                   ttft_tpot_requests_summary  the serving metrics
                   ttft_tpot_metric_values the values behind a request metric
                   ttft_tpot_sorted_values a set's values, ascending
                   ttft_tpot_cdf           a set's empirical CDF
                   ttft_tpot_find_phase    a phase's id by name
                   ttft_tpot_phase_name    a phase's name
                   ttft_tpot_phase_role    a phase's role
                   ttft_tpot_clock_name    the clock that timed the samples
                   ttft_tpot_clock_read_ns what one read of it costs
     Parsers       ttft_tpot_slo_parse     "ttft=MS,tpot=MS,e2e=MS"
                   ttft_tpot_percentiles_parse  "50,90,99,99.9"
     Files         ttft_tpot_trace_read    read a trace back into a collector
                   ttft_tpot_chrome_trace  a Chrome / Perfetto trace
                   ttft_tpot_requests_csv  one CSV row a request
     Ranks         ttft_tpot_ranks_compute the tensor-parallel ranks' step: the slowest rank's, step by step
                   ttft_tpot_ranks_report  rank 0's report with the ranks' figures (text or JSON)
*/
#ifndef TTFT_TPOT_TOOLS_H
#define TTFT_TPOT_TOOLS_H

#include "ttft_tpot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Statistics ------------------------------------------------------------------------------ */

/* The distribution-free 95% interval of the p-th percentile (0 < p < 100) of n values: the order
   statistics x(lo) and x(hi) (1-based ranks, smallest first), with B ~ Binomial(n, p/100), lo the
   largest rank with P(B < lo) <= 0.025 and hi the smallest with P(B >= hi) <= 0.025, so that
   P(x(lo) <= true percentile <= x(hi)) >= 95% for independent samples. Returns 1, or 0 when n is too
   small for either end (no lo >= 1, or no hi <= n). No libm, and about 4e5 steps at most for any n:
   exact binomial tails while n p (1 - p) <= 1e8; past it, the Cornish-Fisher expansion of the
   binomial's quantile, whose error there is below 1e-6 of a rank (the same ranks but where the exact
   tail lies within that of 0.025). */
TTFT_TPOT_DEF int ttft_tpot_ci95_ranks(uint64_t n, unsigned p, uint64_t *lo, uint64_t *hi);

/* The smallest n for which ttft_tpot_ci95_ranks has an interval of the p-th percentile (p50: 6,
   p90: 36, p99: 368); 0 for p outside 1..99. */
TTFT_TPOT_DEF uint64_t ttft_tpot_ci95_min_n(unsigned p);

/* The 97.5th percentile of Student's t with df degrees of freedom, the factor of a 95% t-interval of
   the mean of df + 1 values: a table to df 30, then Hill's expansion in 1/df (within 3e-8 of the exact
   quantile); 0 for df 0. No libm. */
TTFT_TPOT_DEF double ttft_tpot_t975(uint64_t df);

/* Percentile p (0 to 100) of sorted v[0, n) by the definition at the top of this file (numpy's
   "linear"), for figures a tool derives (a comparison's medians); 0 for n == 0. */
TTFT_TPOT_DEF double ttft_tpot_percentile(const double *sorted, size_t n, double p);

/* Sort v[0, n) ascending in O(n): a radix sort by bytes, skipping the bytes every value shares (an
   insertion sort below 32 values). tmp: room for n values, scratch. OK; EINVAL (v or tmp NULL while
   n > 0). */
TTFT_TPOT_DEF int ttft_tpot_sort(uint64_t *v, size_t n, uint64_t *tmp);

/* A chosen percentile's name, pm in thousandths of a percent as ttft_tpot_stats.pick_pm holds it:
   99900 is "p99.9", 50000 "p50", into buf (8 bytes hold any; fewer: cut short, still ended). */
TTFT_TPOT_DEF const char *ttft_tpot_percentile_name(char *buf, size_t len, uint32_t pm);

/* Statistics of one phase, warmup included: O(n) time (two passes over the stored samples) and
   temporary memory for the phase, not the store: 280 KB of scratch (a store of 4096 samples or more)
   and 8 bytes a value it selects from (a phase of fewer than 4096 samples: each of them; a larger one:
   those near its percentiles' ranks). ENOMEM when it cannot be had (out is then unspecified); EINVAL
   (c or out NULL), EPHASE (unknown phase). */
TTFT_TPOT_DEF int ttft_tpot_phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out);

/* Statistics of any n durations ns[0, n), by the definitions every report uses (METRICS in
   ttft_tpot.h): n, min, max, total, mean, p50/p90/p95/p99 and their 95% intervals, and c's chosen
   percentiles (config.percentiles); tokens and warmup_n 0. c gives the allocator and the chosen
   percentiles: nothing is recorded into it. O(n) time and 8 bytes a value of temporary memory (ns is
   not changed). OK (n 0: every figure 0); EINVAL (c or out NULL, ns NULL while n > 0); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_stats_of(const ttft_tpot *c, const uint64_t *ns, size_t n, ttft_tpot_stats *out);

/* The headline alone: ttft_tpot_model_compute without requests and shares, its head kept. EINVAL (c
   or out NULL); ENOMEM (out is then unspecified). */
TTFT_TPOT_DEF int ttft_tpot_summarize(const ttft_tpot *c, ttft_tpot_summary *out);

/* ---- Queries and accessors ------------------------------------------------------------------- */

/* What a collector holds and what it lost, as tools and tests read it (the fields may move). */
typedef struct ttft_tpot_counts {
    size_t samples;     /* stored */
    unsigned phases;    /* registered */
    unsigned requests;  /* tracked */
    uint64_t dropped;   /* samples not stored: storage full */
    uint64_t rejected;  /* calls refused */
    uint64_t shapes_dropped, requests_dropped, requests_refused, events_lost; /* as in the reports */
    unsigned runs;         /* marked (ttft_tpot_run_begin) */
    uint64_t runs_dropped; /* not marked: TTFT_TPOT_MAX_RUNS reached */
    uint64_t outgrown;     /* phases that went on in a histogram when the storage was full */
    size_t device_intervals; /* kept, open ones included */
    size_t device_open;      /* tickets not yet resolved */
    uint64_t device_unresolved, device_refused; /* device spans without a ticket; resolutions refused */
    uint64_t spans_open;     /* spans begun and not ended (kept across ttft_tpot_clear) */
} ttft_tpot_counts;

/* c's counts (all 0 for NULL or a zeroed collector). */
TTFT_TPOT_DEF ttft_tpot_counts ttft_tpot_counts_of(const ttft_tpot *c);

/* The i-th stored sample, in call order (0 .. counts.samples - 1), and its start time when start_ns
   is not NULL (0 without config.timeline). OK; EINVAL (c or out NULL, or no such sample). A report
   model holds the same samples as an array (ttft_tpot_model.samples). */
TTFT_TPOT_DEF int ttft_tpot_sample_at(const ttft_tpot *c, size_t i, ttft_tpot_sample *out, uint64_t *start_ns);

/* Run r (0 .. counts.runs - 1): its stored samples are [*first, *end). OK; EINVAL (NULL, no such run). */
TTFT_TPOT_DEF int ttft_tpot_run_at(const ttft_tpot *c, unsigned r, size_t *first, size_t *end);

/* The i-th device interval (0 .. counts.device_intervals - 1), in ticket order. OK; EINVAL. */
TTFT_TPOT_DEF int ttft_tpot_device_at(const ttft_tpot *c, size_t i, ttft_tpot_device_interval *out);

/* The i-th tracked request (0 .. counts.requests - 1, in submit order): OK; EINVAL (NULL, or no such
   request). */
TTFT_TPOT_DEF int ttft_tpot_request_at(const ttft_tpot *c, unsigned i, ttft_tpot_request *out);

/* The serving metrics. OK; EINVAL (NULL); ENOMEM. With no request seen, out->seen is 0. */
TTFT_TPOT_DEF int ttft_tpot_requests_summary(const ttft_tpot *c, ttft_tpot_requests *out);

/* The values behind a request metric (a TTFT_TPOT_METRIC_*), for tools that compare runs: over the
   measured requests (TPOT rounded to the ns; ITL every gap; queue and prefill the requests with a
   schedule event; TTST those with two tokens or more), in ns, into out[0, cap); *n: how many there
   are (more than cap: only cap were written; out may be NULL to ask). OK; EINVAL (c or n NULL, metric
   unknown); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_metric_values(const ttft_tpot *c, int metric, uint64_t *out, size_t cap, size_t *n);

/* A set's values in ns, ascending, into out[0, cap) (the cap smallest); *n: how many it has (out may
   be NULL to ask). O(n) time and 16 bytes a value of temporary memory. OK; EINVAL (c or n NULL, no
   such set); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_sorted_values(const ttft_tpot *c, int set, uint64_t *out, size_t cap, size_t *n);

/* A set's empirical CDF through at most points + 1 of its values (points > 0): the value of rank k
   (0-based) and (k + 1) / n for k = 0, s, 2 s, ... (s = n / points + 1), then the largest value and
   1. x and y: room for points + 1; *n: how many were written (0 for an empty set); *values: how many
   values the set has (values may be NULL). OK; EINVAL (x, y or n NULL, points 0, no such set); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_cdf(const ttft_tpot *c, int set, size_t points, uint64_t *x, double *y, size_t *n,
                                size_t *values);

/* Find a phase id by name: id, or EPHASE when unknown, EINVAL when c or name is NULL. */
TTFT_TPOT_DEF int ttft_tpot_find_phase(const ttft_tpot *c, const char *name);

/* A registered phase's name (NULL when c is NULL or the phase unknown) and role (EPHASE, or EINVAL
   when c is NULL). */
TTFT_TPOT_DEF const char *ttft_tpot_phase_name(const ttft_tpot *c, int phase);
TTFT_TPOT_DEF int ttft_tpot_phase_role(const ttft_tpot *c, int phase);

/* The clock that timed c's samples (its own, or the first trace read's) and the cost of one read in
   ns (0: not measured, as for a replacement clock). NULL c: "" and 0. */
TTFT_TPOT_DEF const char *ttft_tpot_clock_name(const ttft_tpot *c);
TTFT_TPOT_DEF uint64_t ttft_tpot_clock_read_ns(const ttft_tpot *c);

/* ---- Parsers --------------------------------------------------------------------------------- */

/* Parse "ttft=MS,tpot=MS,e2e=MS" (any subset, each once, above 0) into out, as the command-line tools
   take it. Each MS is a plain decimal, digits with at most 6 after a '.' (to the ns): no sign,
   exponent, hex, inf or nan, whatever the locale. OK; EINVAL (NULL, or text malformed: out
   unspecified). */
TTFT_TPOT_DEF int ttft_tpot_slo_parse(const char *text, ttft_tpot_slo *out);

/* Percentiles as "50,90,99,99.9" (each in (0, 100), at most 3 decimals, ascending, at most
   TTFT_TPOT_MAX_PERCENTILES) into out[TTFT_TPOT_MAX_PERCENTILES] (config.percentiles), 0 after the
   last; no locale. OK; EINVAL (anything else, out left all 0). */
TTFT_TPOT_DEF int ttft_tpot_percentiles_parse(const char *text, double *out);

/* ---- Files: the trace reader, the Chrome trace, the requests CSV ----------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* Read a trace (the format: Trace I/O in ttft_tpot.h) into c: append a trace to c, warmup flags as written; a UTF-8 byte order mark and CRLF line ends
   are accepted. Directives are checked like records, against the records they describe: a
   histogram's sum must be one its buckets can hold, and it holds at most 2^63 values and tokens;
   prompt sums are those of steady samples of their phase (no more of them than there are, unless
   samples were dropped); a truncated request lost an event, and the dropped request events hold
   the refused and the lost ones. On malformed or contradictory input returns EPARSE, writes
   "name:line: what is wrong" into err (err may be NULL; name NULL reads "(trace)"; every byte a
   terminal would not show as text escaped as \xHH), and leaves c as it was. Samples past the capacity
   are counted as dropped, unless c grows (config.grow: the samples, histograms and request tables are
   enlarged as the trace needs, and a collector without config.timeline or config.bounded keeps start
   times from the first line that has one, as nesting and self time need). A bounded phase's steady
   samples go to its histogram (its first and its warmup samples stay exact).
   One pass over the input in 1 MiB blocks (a pipe works), plus 1 MiB of buffer while reading.
   EINVAL (c or in NULL), ENOMEM, EIO (read error; c as it was). A "# hist:" line needs a free
   histogram slot (config.hist_slots) unless its phase is bounded already or c grows. */
TTFT_TPOT_DEF int ttft_tpot_trace_read(ttft_tpot *c, FILE *in, const char *name, char *err, size_t errlen);

/* Every stored sample as a Chrome / Perfetto trace (Trace Event Format JSON): one complete event
   ("ph":"X") per sample, ts and dur in microseconds to the nanosecond, the phase name as the event
   name, the role as its category and its track (e2e, prefill, decode, kernel, top to bottom), tokens
   and warmup in args; then the requests (category "request", process "requests"): a queued, a
   prefill (unscheduled: a ttft) and a decode slice a request, an instant at its first output token
   ("output": ttft_tpot_request_output), and an instant a token event, each
   request on the lowest lane free at its submit, so requests served together lie side by side; then
   the device intervals resolved on an absolute clock (process "device", a track per stream, category
   "device"), each with a flow arrow ("ph":"s" to "ph":"f", category "launch") from its launch.
   ENOMEM (nothing written: it takes a 256 KiB output block, the phase names escaped once, and 36 bytes
   a request at most for the lanes). Needs start times: EINVAL when c
   is NULL or was made without config.timeline (a trace read into a timeline collector has them
   only if it was recorded with one: its start_ns are 0 otherwise, and ttft_tpot_report refuses to
   export it); EIO on a write error (what reached the stream is unspecified: it allocates before
   writing, so that is its only way to fail midway). */
TTFT_TPOT_DEF int ttft_tpot_chrome_trace(const ttft_tpot *c, FILE *out);

/* Every request as a CSV row, in submit order, under the header
   "id,submit_ns,schedule_ns,first_token_ns,last_token_ns,tokens,ttft_ns,tpot_ns,e2e_ns,measured,
   slo_ttft,slo_tpot,slo_e2e" and the columns added since, after them (the CSV columns of
   TTFT_TPOT_POINTS, then of TTFT_TPOT_METRICS: every column keeps its place), ",first_output_ns,
   ttfo_ns": times on the collector's clock in ns; TTFT = first token - submit, TPOT = (last - first
   token) / (tokens - 1) to the thousandth of a ns, E2E = last token - submit, TTFO = first output
   token - submit; a field the request does not have is empty (no schedule, no token yet, TPOT of one
   token, no output event); measured
   is 1 for a request in the figures (not warmup, not truncated, a token at least); slo_*: 1 or 0,
   whether it met that SLO (inclusive, as goodput counts it), empty when that SLO is not set or the
   request has no such figure. The id is quoted as the trace quotes names; one that starts with = + -
   @ tab or CR, which a spreadsheet would run as a formula, is quoted with a ' before it ("'=1+1"), as
   OWASP advises against CSV injection (the trace keeps ids exactly). OK; EINVAL; EIO. */
TTFT_TPOT_DEF int ttft_tpot_requests_csv(const ttft_tpot *c, FILE *out);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Ranks: the tensor-parallel ranks of one model (ttft_tpot_report --ranks) ----------------- */

/* The traces of the tensor-parallel ranks of one model. A step waits for its slowest rank, so pooling
   the ranks' samples is the wrong statistic: the k-th steady decode step of every rank (call order) is
   one step of the model, and its time is the maximum over the ranks. Replicas (data parallel) are
   pooled as before: they serve requests side by side. */
#define TTFT_TPOT_RANKS_MAX 256

typedef struct ttft_tpot_ranks_figures {
    int n;                                     /* ranks */
    uint64_t steps;                            /* steps lined up: the fewest steady decode steps a rank has */
    uint64_t unmatched;                        /* steps of the other ranks past those: left out */
    ttft_tpot_stats rank[TTFT_TPOT_RANKS_MAX]; /* each rank's own steady decode steps */
    ttft_tpot_stats tpot;                      /* the steps' maxima over the ranks */
    ttft_tpot_stats spread;      /* the steps' max - min: how far the slowest rank is ahead of the fastest */
    uint64_t slowest[TTFT_TPOT_RANKS_MAX]; /* steps each rank was the slowest (a tie: the lowest rank) */
} ttft_tpot_ranks_figures;

/* The figures of n ranks' collectors (each read whole, every decode step stored) into *f: 0; -1 when
   memory runs out; -2 when a rank has no steady decode step, or keeps some in a histogram, or n is not
   1 to TTFT_TPOT_RANKS_MAX. */
TTFT_TPOT_DEF int ttft_tpot_ranks_compute(const ttft_tpot *const *c, int n, ttft_tpot_ranks_figures *f);

#ifndef TTFT_TPOT_NO_STDIO
/* rank 0's report with the ranks' figures: its text, then a row a rank (names: the ranks' traces) and
   the model's step; or its JSON object with the object "ranks" added:
   "ranks":{"n":N,"steps":M,"unmatched":K,"tpot":STATS,"slowest":[...],"spread":STATS,
   "per_rank":[STATS,...]} (STATS as the report's "tpot", in ms). OK, ENOMEM, or the writer's error. */
TTFT_TPOT_DEF int ttft_tpot_ranks_report(FILE *out, const ttft_tpot *rank0, const ttft_tpot_ranks_figures *f,
                                         const char *const *names, int json);
#endif /* TTFT_TPOT_NO_STDIO */

#ifdef __cplusplus
}
#endif
#endif /* TTFT_TPOT_TOOLS_H */

/* ================================ implementation ================================================ */
#if defined(TTFT_TPOT_IMPLEMENTATION) && !defined(TTFT_TPOT_TOOLS_IMPLEMENTED)
#define TTFT_TPOT_TOOLS_IMPLEMENTED

/* As in ttft_tpot.h: strict floating point, whatever the file is compiled with. */
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(precise, on, push)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("no-fast-math", "fp-contract=off")
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A set (TTFT_TPOT_SET_*) names something c has: a request metric, a role, a registered phase. */
static int ttft_tpot__set_ok(const ttft_tpot *c, int set)
{
    return (set >= 0 && set < TTFT_TPOT_METRIC_COUNT) ||
           (set >= TTFT_TPOT_SET_ROLE && set <= TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E) ||
           (set >= TTFT_TPOT_SET_PHASE && set - TTFT_TPOT_SET_PHASE < (int)c->phase.n);
}

/* A set's values in one allocation (*v to free), in the order they are found, with room for as many
   after them (from *v + *room); *mn and *mx: the smallest and largest (0 for none). OK or ENOMEM. */
static int ttft_tpot__set_values(const ttft_tpot *c, int set, uint64_t **v, size_t *n, size_t *room_out,
                                 uint64_t *mn, uint64_t *mx)
{
    size_t room = c->req.n_events > c->req.n ? c->req.n_events : c->req.n, i, m = 0;
    unsigned char *take = NULL; /* of a role's set: whether each phase has that role */
    int role = set - TTFT_TPOT_SET_ROLE, phase = set - TTFT_TPOT_SET_PHASE;
    uint64_t lo = UINT64_MAX, hi = 0;
    unsigned p;
    room = set < TTFT_TPOT_METRIC_COUNT ? room + c->req.n : c->store.n; /* request sets: + a value a request */
    /* last, a value and a byte a request, lies in the sort's room after the values */
    if (!(*v = (uint64_t *)TTFT_TPOT_MALLOC((2 * room + 1) * sizeof **v + c->phase.n + 1, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    if (set < TTFT_TPOT_METRIC_COUNT) {
        m = ttft_tpot__request_set(c, set, 0, 1, *v, *v + room - c->req.n);
        for (i = 0; i < m; i++) {
            lo = (*v)[i] < lo ? (*v)[i] : lo;
            hi = (*v)[i] > hi ? (*v)[i] : hi;
        }
    } else if (set < TTFT_TPOT_SET_PHASE) { /* a role's: each phase's role looked up once */
        take = (unsigned char *)(*v + 2 * room + 1);
        for (p = 0; p < c->phase.n; p++)
            take[p] = c->phase.slots[p].role == role;
    }
    for (i = 0; set >= TTFT_TPOT_SET_ROLE && i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (!s->warmup && (take ? take[s->phase] : (int)s->phase == phase)) {
            lo = s->dur_ns < lo ? s->dur_ns : lo;
            hi = s->dur_ns > hi ? s->dur_ns : hi;
            (*v)[m++] = s->dur_ns;
        }
    }
    *n = m;
    *room_out = room;
    *mn = m ? lo : 0;
    *mx = hi;
    return TTFT_TPOT_OK;
}

/* A set's values, sorted, in one allocation (*v to free; *sorted: where in it they are): OK or ENOMEM. */
static int ttft_tpot__set_sorted(const ttft_tpot *c, int set, uint64_t **v, uint64_t **sorted, size_t *n)
{
    uint64_t mn, mx;
    size_t room;
    if (ttft_tpot__set_values(c, set, v, n, &room, &mn, &mx) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    *sorted = ttft_tpot__sort_in(*v, *n, *v + room);
    return TTFT_TPOT_OK;
}

/* Values at many ranks without sorting them all (a CDF's): the values are counted in up to
   TTFT_TPOT__RANK_BUCKETS buckets of equal width over [min, max], which tells the bucket of every rank
   and its rank within it; only the values of those buckets are copied out, grouped by bucket, and each
   group is ranked alike (or sorted, when it is small or its ranks are dense). Per rank: its bucket,
   its rank (ranks[], within its group as the work goes down), and its group's place. */
#define TTFT_TPOT__RANK_BUCKETS 16384u
typedef struct ttft_tpot__rank_work {
    uint32_t *count; /* TTFT_TPOT__RANK_BUCKETS */
    uint32_t *bucket;
    uint64_t *rank;
    size_t *start, *end;
} ttft_tpot__rank_work;

/* The values at ranks w->rank[off, off + nr) (ascending, below n) of v[0, n) (fewer than 2^32; mn and mx
   its smallest and largest) into val[0, nr); v is reordered, tmp (room for n) is scratch. */
static void ttft_tpot__rank_values(uint64_t *v, size_t n, uint64_t mn, uint64_t mx, uint64_t *tmp,
                                   const ttft_tpot__rank_work *w, size_t off, size_t nr, uint64_t *val)
{
    uint64_t *rank = w->rank + off, cum = 0, *sorted;
    uint32_t *bucket = w->bucket + off, *count = w->count;
    size_t *start = w->start + off, *end = w->end + off, i, r, r0, nb, b = 0, kept = 0;
    unsigned sh = 0;
    if (mn == mx) { /* every value the same */
        for (r = 0; r < nr; r++)
            val[r] = mn;
        return;
    }
    nb = n / 8 < TTFT_TPOT__RANK_BUCKETS ? n / 8 : TTFT_TPOT__RANK_BUCKETS; /* 8 values a bucket at least */
    for (; n > 64 && n >= 8 * nr && (mx - mn) >> sh >= nb; sh++)
        continue;
    nb = (size_t)((mx - mn) >> sh) + 1;
    if (n > 64 && n >= 8 * nr) { /* the buckets' counts, and how many values the ranks' buckets hold */
        memset(count, 0, nb * sizeof *count);
        for (i = 0; i < n; i++)
            count[(v[i] - mn) >> sh]++;
        for (r = 0; r < nr; r++) {
            for (; cum + count[b] <= rank[r]; b++)
                cum += count[b];
            kept += r == 0 || bucket[r - 1] != b ? count[b] : 0;
            bucket[r] = (uint32_t)b;
        }
    }
    if (n <= 64 || n < 8 * nr || kept > n / 2) { /* small, dense ranks, or values that buckets do not spread */
        sorted = ttft_tpot__sort_in(v, n, tmp);
        for (r = 0; r < nr; r++)
            val[r] = sorted[rank[r]];
        return;
    }
    for (r = 0, cum = 0, b = 0, kept = 0; r < nr; r++) { /* each rank within its bucket; each group's place */
        for (; b < bucket[r]; b++)
            cum += count[b];
        if (r == 0 || bucket[r - 1] != b) {
            start[r] = kept;
            kept += count[b];
        } else {
            start[r] = start[r - 1];
        }
        end[r] = start[r] + count[b];
        rank[r] -= cum;
    }
    for (b = 0; b < nb; b++) /* now: a kept bucket's next place; the others' n - 1, a place no group takes */
        count[b] = (uint32_t)(n - 1);
    for (r = 0; r < nr; r++)
        count[bucket[r]] = (uint32_t)start[r];
    for (i = 0; i < n; i++) { /* every value written, the others' over one another: no branch to mispredict */
        uint32_t *at = &count[(v[i] - mn) >> sh], to = *at;
        tmp[to] = v[i];
        *at = to + (to != n - 1);
    }
    for (r = 0; r < nr;) { /* each group, ranked alike: v is free now, and scratch for it */
        uint64_t *g = tmp + start[r], gmn = UINT64_MAX, gmx = 0;
        size_t gn = end[r] - start[r];
        for (i = 0; i < gn; i++) {
            gmn = g[i] < gmn ? g[i] : gmn;
            gmx = g[i] > gmx ? g[i] : gmx;
        }
        for (r0 = r; r < nr && bucket[r] == bucket[r0]; r++)
            continue;
        ttft_tpot__rank_values(g, gn, gmn, gmx, v + (g - tmp), w, off + r0, r - r0, val + r0);
    }
}

/* The order statistics of phase's m stored samples (their scan in st), large enough to have been counted
   by fine bucket in slot: the values of the buckets of their ranks are copied out of the store, and
   selected there (ttft_tpot__narrowed_ranks, with memory for those values alone). OK or ENOMEM. */
static int ttft_tpot__stored_ranks(const ttft_tpot *c, int phase, size_t m, const ttft_tpot__narrow *nw,
                                   ttft_tpot_stats *st)
{
    uint64_t shifted[TTFT_TPOT__MAX_RANKS], *x, room = 0;
    unsigned kept[TTFT_TPOT__MAX_RANKS], nk = 0, j;
    ttft_tpot__ranks rk;
    size_t f;
    ttft_tpot__ranks_of(m, nw, st, &rk);
    ttft_tpot__kept_add(nw->slot, rk.rank, rk.nr, kept, &nk);
    for (j = 0; j < nk; j++)
        room += nw->slot[kept[j]];
    if (!(x = (uint64_t *)TTFT_TPOT_MALLOC((size_t)room * sizeof *x, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    ttft_tpot__shift_ranks(nw->slot, kept, nk, rk.rank, rk.nr, shifted);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 1);
    f = ttft_tpot__copy_stored(c, phase, 0, 0, nw->mark, x);
    ttft_tpot__mark_kept(nw->mark, kept, nk, 0);
    ttft_tpot__select_ranks(x, f, shifted, rk.nr, rk.val);
    ttft_tpot__ranks_to(&rk, nw, st);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* Statistics of every sample of one phase, warmup included, in memory for the phase, not the store: one
   pass over the store counts its samples (tokens, warmup, sum and extremes, and fine buckets), a bounded
   phase's stored ones going into a copy of its histogram; then an exact phase's values are copied out
   of the store, all of them for a small phase, else only those of its ranks' buckets. The figures
   are those of the phase's values gathered whole (ttft_tpot__finish_set). w: its scratch and histogram
   alone (no work area). OK or ENOMEM. */
static int ttft_tpot__phase_set(const ttft_tpot *c, ttft_tpot__work *w, int phase, ttft_tpot_stats *st)
{
    ttft_tpot__scan scan;
    int bounded = ttft_tpot__set_hists(c, w, phase, 0);
    uint32_t *slot = bounded ? NULL : w->nw.slot; /* NULL too for a store too small to narrow */
    uint64_t *x;
    size_t i;
    memset(st, 0, sizeof *st);
    memset(&scan, 0, sizeof scan);
    if (slot)
        memset(slot, 0, TTFT_TPOT__FINE_BUCKETS * sizeof *slot);
    for (i = 0; i < c->store.n; i++) {
        const ttft_tpot_sample *s = &c->store.samples[i];
        if (s->phase != phase)
            continue;
        st->warmup_n += s->warmup;
        st->tokens += s->tokens;
        if (bounded) {
            ttft_tpot__hist_add(w->h, s->dur_ns, 0);
            continue;
        }
        ttft_tpot__scan_one(&scan, s->dur_ns);
        if (slot)
            slot[ttft_tpot__fine_index(s->dur_ns)]++;
    }
    if (bounded) { /* the histogram's figures, its tokens with the stored samples' */
        st->tokens += w->h->tokens;
        ttft_tpot__hist_fill(w->h, &w->nw, st);
        return TTFT_TPOT_OK;
    }
    ttft_tpot__scan_to(&scan, st);
    if (scan.n >= TTFT_TPOT__NARROW_MIN) /* a store this large has the narrowing scratch */
        return ttft_tpot__stored_ranks(c, phase, scan.n, &w->nw, st);
    if (scan.n == 0)
        return TTFT_TPOT_OK;
    if (!(x = (uint64_t *)TTFT_TPOT_MALLOC(scan.n * sizeof *x, c->alloc_user))) /* a small phase: all of it */
        return TTFT_TPOT_ENOMEM;
    ttft_tpot__copy_stored(c, phase, 0, 0, NULL, x);
    ttft_tpot__order_stats(x, scan.n, NULL, &w->nw, st);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

/* ---- Queries, parsers and files ---------------------------------------------------------------- */

TTFT_TPOT_DEF const char *ttft_tpot_clock_name(const ttft_tpot *c)
{
    return c ? c->clock_name : "";
}

TTFT_TPOT_DEF uint64_t ttft_tpot_clock_read_ns(const ttft_tpot *c)
{
    return c ? c->clock_read_ns : 0;
}

TTFT_TPOT_DEF double ttft_tpot_percentile(const double *sorted, size_t n, double p)
{
    double h;
    size_t k;
    if (!sorted || n == 0)
        return 0;
    p = p > 0 ? (p < 100 ? p : 100) : 0; /* NaN too goes to 0 */
    h = (double)(n - 1) * p / 100.0;
    k = (size_t)h;
    k = k < n ? k : n - 1;
    return k + 1 < n ? sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

TTFT_TPOT_DEF int ttft_tpot_phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out)
{
    ttft_tpot__work w; /* its narrowing scratch and histogram: the values are copied as the phase needs */
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if (phase < 0 || (unsigned)phase >= c->phase.n)
        return TTFT_TPOT_EPHASE;
    memset(&w, 0, sizeof w);
    w.h = c->hist.n ? (ttft_tpot_hist *)TTFT_TPOT_MALLOC(sizeof(ttft_tpot_hist), c->alloc_user) : NULL;
    if ((c->hist.n && !w.h) || ttft_tpot__narrow_init(c, &w.nw, c->store.n) != TTFT_TPOT_OK) {
        ttft_tpot__work_free(c, &w);
        return TTFT_TPOT_ENOMEM;
    }
    rc = ttft_tpot__phase_set(c, &w, phase, out);
    ttft_tpot__work_free(c, &w);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_stats_of(const ttft_tpot *c, const uint64_t *ns, size_t n, ttft_tpot_stats *out)
{
    ttft_tpot__narrow nw;
    uint64_t *x;
    if (!c || !out || (!ns && n > 0))
        return TTFT_TPOT_EINVAL;
    memset(out, 0, sizeof *out);
    if (n == 0)
        return TTFT_TPOT_OK;
    if (n > SIZE_MAX / sizeof *x || !(x = (uint64_t *)TTFT_TPOT_MALLOC(n * sizeof *x, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    if (ttft_tpot__narrow_init(c, &nw, n) != TTFT_TPOT_OK) {
        TTFT_TPOT_FREE(x, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    memcpy(x, ns, n * sizeof *x); /* the statistics reorder their values */
    ttft_tpot__fill(x, n, &nw, out);
    ttft_tpot__narrow_free(c, &nw);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF const char *ttft_tpot_phase_name(const ttft_tpot *c, int phase)
{
    return c && phase >= 0 && (unsigned)phase < c->phase.n ? c->phase.slots[phase].name : NULL;
}

TTFT_TPOT_DEF int ttft_tpot_phase_role(const ttft_tpot *c, int phase)
{
    if (!c)
        return TTFT_TPOT_EINVAL;
    return phase >= 0 && (unsigned)phase < c->phase.n ? c->phase.slots[phase].role : TTFT_TPOT_EPHASE;
}

TTFT_TPOT_DEF int ttft_tpot_find_phase(const ttft_tpot *c, const char *name)
{
    if (!c || !name)
        return TTFT_TPOT_EINVAL;
    return ttft_tpot__lookup(c, name, strlen(name));
}

TTFT_TPOT_DEF int ttft_tpot_slo_parse(const char *text, ttft_tpot_slo *out)
{
    static const char *const keys[3] = {"ttft=", "tpot=", "e2e="};
    const char *p = text;
    if (!text || !out)
        return TTFT_TPOT_EINVAL;
    memset(out, 0, sizeof *out);
    do {
        double *dst[3];
        uint64_t ns;
        size_t len;
        int k;
        dst[0] = &out->ttft_ms;
        dst[1] = &out->tpot_ms;
        dst[2] = &out->e2e_ms;
        for (k = 0; k < 3 && strncmp(p, keys[k], strlen(keys[k])) != 0; k++)
            ;
        if (k == 3 || *dst[k] > 0)
            return TTFT_TPOT_EINVAL; /* unknown key, or given twice */
        p += strlen(keys[k]);
        len = ttft_tpot__decimal(p, 6, &ns); /* ms to the ns */
        if (!len || ns == 0 || (p[len] != ',' && p[len] != '\0'))
            return TTFT_TPOT_EINVAL;
        *dst[k] = (double)ns / 1e6;
        p += len;
    } while (*p++ == ',');
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_percentiles_parse(const char *text, double *out)
{
    const char *p = text;
    uint64_t v, last = 0;
    unsigned k = 0;
    size_t len;
    if (!out)
        return TTFT_TPOT_EINVAL;
    memset(out, 0, TTFT_TPOT_MAX_PERCENTILES * sizeof *out);
    if (!text)
        return TTFT_TPOT_EINVAL;
    do {
        len = ttft_tpot__decimal(p, 3, &v); /* thousandths of a percent */
        if (!len || v <= last || v >= 100000 || k == TTFT_TPOT_MAX_PERCENTILES || (p[len] != ',' && p[len] != '\0')) {
            memset(out, 0, TTFT_TPOT_MAX_PERCENTILES * sizeof *out);
            return TTFT_TPOT_EINVAL;
        }
        out[k++] = (double)v / 1000;
        last = v;
        p += len;
    } while (*p++ == ',');
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_metric_values(const ttft_tpot *c, int metric, uint64_t *out, size_t cap, size_t *n)
{
    uint64_t *x, *last;
    if (!c || !n || metric < 0 || metric >= TTFT_TPOT_METRIC_COUNT)
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot__request_work(c, &x, &last) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    *n = ttft_tpot__request_set(c, metric, 0, 1, x, last);
    if (out)
        memcpy(out, x, (*n < cap ? *n : cap) * sizeof *out);
    TTFT_TPOT_FREE(x, c->alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_request_at(const ttft_tpot *c, unsigned i, ttft_tpot_request *out)
{
    if (!c || !out || i >= c->req.n)
        return TTFT_TPOT_EINVAL;
    *out = c->req.list[i];
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_requests_summary(const ttft_tpot *c, ttft_tpot_requests *out)
{
    return c && out ? ttft_tpot__requests_of(c, out, NULL) : TTFT_TPOT_EINVAL;
}

TTFT_TPOT_DEF int ttft_tpot_sample_at(const ttft_tpot *c, size_t i, ttft_tpot_sample *out, uint64_t *start_ns)
{
    if (!c || !out || i >= c->store.n)
        return TTFT_TPOT_EINVAL;
    *out = c->store.samples[i];
    if (start_ns)
        *start_ns = c->store.starts ? c->store.starts[i] : 0;
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_run_at(const ttft_tpot *c, unsigned r, size_t *first, size_t *end)
{
    if (!c || !first || !end || r >= c->runs)
        return TTFT_TPOT_EINVAL;
    *first = c->run_at[r];
    *end = ttft_tpot__run_end(c, r);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_device_at(const ttft_tpot *c, size_t i, ttft_tpot_device_interval *out)
{
    if (!c || !out || i >= c->dev.n)
        return TTFT_TPOT_EINVAL;
    *out = c->dev.log[i];
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF ttft_tpot_counts ttft_tpot_counts_of(const ttft_tpot *c)
{
    ttft_tpot_counts k;
    memset(&k, 0, sizeof k);
    if (!c)
        return k;
    k.samples = c->store.n;
    k.phases = c->phase.n;
    k.requests = c->req.n;
    k.dropped = c->store.dropped;
    k.rejected = c->rejected;
    k.spans_open = ttft_tpot__spans_open(c);
    k.shapes_dropped = c->shape.dropped;
    k.requests_dropped = c->req.dropped;
    k.requests_refused = c->req.refused;
    k.events_lost = c->req.events_lost;
    k.runs = c->runs;
    k.runs_dropped = c->runs_dropped;
    k.outgrown = c->store.outgrown;
    k.device_intervals = c->dev.n;
    k.device_open = c->dev.open;
    k.device_unresolved = c->dev.unresolved;
    k.device_refused = c->dev.refused;
    return k;
}

TTFT_TPOT_DEF int ttft_tpot_sorted_values(const ttft_tpot *c, int set, uint64_t *out, size_t cap, size_t *n)
{
    uint64_t *v, *sorted;
    if (!c || !n || !ttft_tpot__set_ok(c, set))
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot__set_sorted(c, set, &v, &sorted, n) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    if (out)
        memcpy(out, sorted, (*n < cap ? *n : cap) * sizeof *out);
    TTFT_TPOT_FREE(v, c->alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_cdf(const ttft_tpot *c, int set, size_t points, uint64_t *x, double *y, size_t *n,
                                size_t *values)
{
    ttft_tpot__rank_work w;
    uint64_t *v, *sorted, mn, mx;
    size_t all, k, step, room, j;
    if (!c || !x || !y || !n || points == 0 || !ttft_tpot__set_ok(c, set))
        return TTFT_TPOT_EINVAL;
    if (ttft_tpot__set_values(c, set, &v, &all, &room, &mn, &mx) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    step = all / points + 1;
    for (k = 0, *n = 0; k < all; k += step, (*n)++) { /* the ranks drawn: 0, step, 2 step, ..., and the last */
        x[*n] = k;
        y[*n] = (double)(k + 1) / (double)all;
    }
    if (all) {
        x[*n] = all - 1;
        y[(*n)++] = 1.0;
    }
    w.count = all >= 4096 && all < UINT32_MAX ? (uint32_t *)TTFT_TPOT_MALLOC(
                                                   TTFT_TPOT__RANK_BUCKETS * sizeof *w.count +
                                                       *n * (sizeof *w.bucket + sizeof *w.rank + 2 * sizeof *w.start),
                                                   c->alloc_user)
                                             : NULL;
    if (w.count) { /* a large set: its ranks' values selected (x holds the ranks, then their values) */
        w.rank = (uint64_t *)(void *)(w.count + TTFT_TPOT__RANK_BUCKETS);
        w.start = (size_t *)(void *)(w.rank + *n);
        w.end = w.start + *n;
        w.bucket = (uint32_t *)(void *)(w.end + *n);
        memcpy(w.rank, x, *n * sizeof *x);
        ttft_tpot__rank_values(v, all, mn, mx, v + room, &w, 0, *n, x);
        TTFT_TPOT_FREE(w.count, c->alloc_user);
    } else { /* sorted whole (a small set, or no memory for the ranks' scratch) */
        sorted = ttft_tpot__sort_in(v, all, v + room);
        for (j = 0; j < *n; j++)
            x[j] = sorted[x[j]];
    }
    if (values)
        *values = all;
    TTFT_TPOT_FREE(v, c->alloc_user);
    return TTFT_TPOT_OK;
}

TTFT_TPOT_DEF int ttft_tpot_summarize(const ttft_tpot *c, ttft_tpot_summary *out)
{
    const ttft_tpot_model_options headline = {TTFT_TPOT_SKIP_REQUESTS | TTFT_TPOT_SKIP_SHARES};
    ttft_tpot_model m;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot_model_compute(c, &headline, &m)) == TTFT_TPOT_OK)
        *out = m.head;
    ttft_tpot_model_free(&m);
    return rc;
}

#ifndef TTFT_TPOT_NO_STDIO /* the files: the trace reader (which grows a collector), the Chrome trace, the requests CSV */

/* ns as microseconds with three decimals, exact, at p (24 bytes at most): p past it. */
static char *ttft_tpot__put_us(char *p, uint64_t ns)
{
    p = ttft_tpot__put_u64(p, ns / 1000);
    p[0] = '.', p[1] = (char)('0' + ns / 100 % 10), p[2] = (char)('0' + ns / 10 % 10), p[3] = (char)('0' + ns % 10);
    return p + 4;
}

/* A number, and ns as microseconds, into the output block. */
static void ttft_tpot__out_u64(ttft_tpot__out *o, uint64_t v)
{
    char *p = ttft_tpot__out_room(o, 20);
    o->n = (size_t)(ttft_tpot__put_u64(p, v) - o->b);
}

static void ttft_tpot__out_us(ttft_tpot__out *o, uint64_t ns)
{
    char *p = ttft_tpot__out_room(o, 24);
    o->n = (size_t)(ttft_tpot__put_us(p, ns) - o->b);
}

/* -- Writers: the Chrome trace ----------------------------------------------------------------- */

/* A JSON string of at most TTFT_TPOT_NAME_MAX + 16 bytes (a name, an id), quoted. */
static void ttft_tpot__out_json(ttft_tpot__out *o, const char *str)
{
    char buf[6 * (TTFT_TPOT_NAME_MAX + 16) + 2];
    size_t n = ttft_tpot__json_esc(buf + 1, str, strlen(str));
    buf[0] = buf[n + 1] = '"';
    ttft_tpot__out_put(o, buf, n + 2);
}

/* Every phase's name as a quoted JSON string, escaped once, into at (NULL: only counted): phase p's
   from names[p] to names[p + 1]. Returns the bytes. */
static size_t ttft_tpot__json_names(const ttft_tpot *c, char *at, size_t *names)
{
    char buf[6 * TTFT_TPOT_NAME_MAX + 2];
    size_t total = 0, n;
    unsigned p;
    for (p = 0; p < c->phase.n; p++) {
        n = ttft_tpot__json_esc(buf + 1, c->phase.slots[p].name, strlen(c->phase.slots[p].name));
        buf[0] = buf[n + 1] = '"';
        if (at)
            memcpy(at + total, buf, n + 2);
        names[p] = total;
        total += n + 2;
    }
    names[c->phase.n] = total;
    return total;
}

/* One slice of a request's track: "STAGE ID" from a to b. */
static void ttft_tpot__request_slice(ttft_tpot__out *o, const ttft_tpot_request *q, unsigned lane, const char *stage,
                                     uint64_t a, uint64_t b)
{
    char name[TTFT_TPOT_NAME_MAX + 16];
    snprintf(name, sizeof name, "%s %s", stage, q->id);
    ttft_tpot__out_str(o, ",\n{\"ph\":\"X\",\"pid\":2,\"name\":");
    ttft_tpot__out_json(o, name);
    ttft_tpot__out_str(o, ",\"cat\":\"request\",\"tid\":");
    ttft_tpot__out_u64(o, lane + 1);
    ttft_tpot__out_str(o, ",\"ts\":");
    ttft_tpot__out_us(o, a);
    ttft_tpot__out_str(o, ",\"dur\":");
    ttft_tpot__out_us(o, b - a);
    ttft_tpot__out_str(o, ",\"args\":{\"request\":");
    ttft_tpot__out_json(o, q->id);
    ttft_tpot__out_str(o, ",\"warmup\":");
    ttft_tpot__out_u64(o, (uint64_t)q->warmup);
    ttft_tpot__out_str(o, "}}");
}

/* A request's last point's time, where its lane is free again. */
static uint64_t ttft_tpot__request_end(const ttft_tpot_request *q)
{
    uint64_t end = 0;
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        if (ttft_tpot__has(q, p) && ttft_tpot__point_ns(q, p) > end)
            end = ttft_tpot__point_ns(q, p);
    return end;
}

/* Each request's lane: the lowest whose last request ended by its submit, so that requests served
   at once lie side by side (continuous batching); lane[] then holds each request's. A tree of the
   lanes' end times (tree[1] the root, tree[size + k] lane k, an unused lane 0, each node the least
   below it: size a power of two >= requests, tree 2 size) finds that lane in O(log n), whatever the
   order of the submits. Returns the lanes used. */
static unsigned ttft_tpot__request_lanes(const ttft_tpot *c, uint64_t *tree, size_t size, unsigned *lane)
{
    unsigned r, n = 0;
    size_t node;
    memset(tree, 0, 2 * size * sizeof *tree);
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        for (node = 1; node < size;) /* the leftmost lane that has ended: an unused one has */
            node = tree[2 * node] <= q->submit_ns ? 2 * node : 2 * node + 1;
        lane[r] = (unsigned)(node - size);
        n = lane[r] + 1 > n ? lane[r] + 1 : n;
        tree[node] = ttft_tpot__request_end(q);
        for (node /= 2; node; node /= 2)
            tree[node] = tree[2 * node] < tree[2 * node + 1] ? tree[2 * node] : tree[2 * node + 1];
    }
    return n;
}

/* Whether request q's lane shows metric m as a slice (its SLICE): it has m, and no part of m is shown
   (queued and prefill split the ttft slice). */
static int ttft_tpot__slice_shown(const ttft_tpot_request *q, int m)
{
    int k;
    if (!*ttft_tpot__metrics[m].slice || !ttft_tpot__has_metric(q, m))
        return 0;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        if (ttft_tpot__metrics[k].under == m && ttft_tpot__slice_shown(q, k))
            return 0;
    return 1;
}

/* Whether mark p bounds a slice of the table's (SLICE); else a lane shows it as an instant. */
static int ttft_tpot__mark_sliced(int p)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        if (*ttft_tpot__metrics[m].slice && (ttft_tpot__metrics[m].from == p || ttft_tpot__metrics[m].to == p))
            return 1;
    return 0;
}

/* q's marks that bound no slice (its first output token), as instants named by their role. */
static void ttft_tpot__request_marks(ttft_tpot__out *o, const ttft_tpot_request *q, unsigned lane)
{
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++) {
        if (ttft_tpot__points[p].set != TTFT_TPOT__SET_MARK || !ttft_tpot__has(q, p) || ttft_tpot__mark_sliced(p))
            continue;
        ttft_tpot__out_str(o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":");
        ttft_tpot__out_u64(o, lane + 1);
        ttft_tpot__out_str(o, ",\"name\":");
        ttft_tpot__out_json(o, ttft_tpot__points[p].role);
        ttft_tpot__out_str(o, ",\"cat\":\"request\",\"ts\":");
        ttft_tpot__out_us(o, ttft_tpot__point_ns(q, p));
        ttft_tpot__out_str(o, ",\"args\":{\"request\":");
        ttft_tpot__out_json(o, q->id);
        ttft_tpot__out_str(o, "}}");
    }
}

/* The request tracks: per request a slice for each metric the table draws (queued, prefill or ttft,
   decode) and an instant for each mark no slice bounds (output), and an instant per token event. */
static void ttft_tpot__chrome_requests(const ttft_tpot *c, const unsigned *lane, unsigned lanes, ttft_tpot__out *o)
{
    unsigned r;
    size_t i;
    ttft_tpot__out_str(o, ",\n{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"requests\"}}");
    for (r = 0; r < lanes; r++) {
        ttft_tpot__out_str(o, ",\n{\"ph\":\"M\",\"pid\":2,\"tid\":");
        ttft_tpot__out_u64(o, r + 1);
        ttft_tpot__out_str(o, ",\"name\":\"thread_name\",\"args\":{\"name\":\"lane ");
        ttft_tpot__out_u64(o, r + 1);
        ttft_tpot__out_str(o, "\"}}");
    }
    for (r = 0; r < c->req.n; r++) {
        const ttft_tpot_request *q = &c->req.list[r];
        int m;
        for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
            if (ttft_tpot__slice_shown(q, m))
                ttft_tpot__request_slice(o, q, lane[r], ttft_tpot__metrics[m].slice,
                                         ttft_tpot__point_ns(q, ttft_tpot__metrics[m].from),
                                         ttft_tpot__point_ns(q, ttft_tpot__metrics[m].to));
        ttft_tpot__request_marks(o, q, lane[r]);
    }
    for (i = 0; i < c->req.n_events; i++) {
        const ttft_tpot__event *ev = &c->req.events[i];
        if (!ev->tokens)
            continue;
        ttft_tpot__out_str(o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":");
        ttft_tpot__out_u64(o, lane[ev->request] + 1);
        ttft_tpot__out_str(o, ",\"name\":\"token\",\"cat\":\"request\",\"ts\":");
        ttft_tpot__out_us(o, ev->t_ns);
        ttft_tpot__out_str(o, ",\"args\":{\"tokens\":");
        ttft_tpot__out_u64(o, ev->tokens);
        ttft_tpot__out_str(o, "}}");
    }
}

/* A device interval's flow arrow: from its launch (issue time, on the host track) to its execution. */
static void ttft_tpot__chrome_flow(const ttft_tpot_device_interval *d, int host_tid, uint64_t id, ttft_tpot__out *o)
{
    ttft_tpot__out_str(o, ",\n{\"ph\":\"s\",\"pid\":1,\"tid\":");
    ttft_tpot__out_u64(o, (uint64_t)host_tid);
    ttft_tpot__out_str(o, ",\"name\":\"launch\",\"cat\":\"launch\",\"id\":");
    ttft_tpot__out_u64(o, id);
    ttft_tpot__out_str(o, ",\"ts\":");
    ttft_tpot__out_us(o, d->issue_ns);
    ttft_tpot__out_str(o, "},\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":3,\"tid\":");
    ttft_tpot__out_u64(o, (uint64_t)d->stream + 1);
    ttft_tpot__out_str(o, ",\"name\":\"launch\",\"cat\":\"launch\",\"id\":");
    ttft_tpot__out_u64(o, id);
    ttft_tpot__out_str(o, ",\"ts\":");
    ttft_tpot__out_us(o, d->begin_ns);
    ttft_tpot__out_str(o, "}");
}

/* The device intervals resolved on an absolute clock: a track per stream (process "device"), and a
   flow arrow from each launch on its host track to its execution, as Nsight Systems draws them. */
static void ttft_tpot__chrome_device(const ttft_tpot *c, const int *track, const char *names, const size_t *at,
                                     ttft_tpot__out *o)
{
    size_t k;
    int named = 0;
    for (k = 0; k < c->dev.n; k++) {
        const ttft_tpot_device_interval *d = &c->dev.log[k];
        if (d->state != TTFT_TPOT_DEVICE_ABSOLUTE)
            continue;
        if (!named++)
            ttft_tpot__out_str(o, ",\n{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"device\"}}");
        ttft_tpot__out_str(o, ",\n{\"ph\":\"X\",\"pid\":3,\"name\":");
        ttft_tpot__out_put(o, names + at[d->phase], at[d->phase + 1] - at[d->phase]);
        ttft_tpot__out_str(o, ",\"cat\":\"device\",\"tid\":");
        ttft_tpot__out_u64(o, (uint64_t)d->stream + 1);
        ttft_tpot__out_str(o, ",\"ts\":");
        ttft_tpot__out_us(o, d->begin_ns);
        ttft_tpot__out_str(o, ",\"dur\":");
        ttft_tpot__out_us(o, d->device_ns);
        ttft_tpot__out_str(o, ",\"args\":{\"stream\":");
        ttft_tpot__out_u64(o, d->stream);
        ttft_tpot__out_str(o, ",\"part\":");
        ttft_tpot__out_u64(o, (uint64_t)d->part);
        ttft_tpot__out_str(o, ",\"warmup\":");
        ttft_tpot__out_u64(o, (uint64_t)d->warmup);
        ttft_tpot__out_str(o, "}}");
        if (d->part || !d->issue_ns || !d->sample || d->sample > c->store.n)
            continue;
        ttft_tpot__chrome_flow(d, track[c->phase.slots[c->store.samples[d->sample - 1].phase].role], k + 1, o);
    }
}

/* The samples, an event each on their role's track. */
static void ttft_tpot__chrome_samples(const ttft_tpot *c, const int *track, const char *names, const size_t *at,
                                      ttft_tpot__out *o)
{
    char tail[4][48];
    size_t i, len[4];
    int r;
    for (r = 0; r < 4; r++) /* what follows the name, by role */
        len[r] = (size_t)snprintf(tail[r], sizeof tail[r], ",\"cat\":\"%s\",\"tid\":%d,\"ts\":", ttft_tpot__roles[r],
                                  track[r]);
    for (i = 0; i < c->store.n; i++) { /* a line: its name (6 x 63 + 2 bytes at most) and 200 more at most */
        const ttft_tpot_sample *s = &c->store.samples[i];
        int role = c->phase.slots[s->phase].role;
        char *p = ttft_tpot__out_room(o, 6 * TTFT_TPOT_NAME_MAX + 256);
        p = TTFT_TPOT__LIT(p, ",\n{\"ph\":\"X\",\"pid\":1,\"name\":");
        memcpy(p, names + at[s->phase], at[s->phase + 1] - at[s->phase]);
        p += at[s->phase + 1] - at[s->phase];
        memcpy(p, tail[role], len[role]);
        p = ttft_tpot__put_us(p + len[role], c->store.starts[i]);
        p = ttft_tpot__put_us(TTFT_TPOT__LIT(p, ",\"dur\":"), s->dur_ns);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ",\"args\":{\"tokens\":"), s->tokens);
        p = ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ",\"warmup\":"), s->warmup);
        o->n = (size_t)(TTFT_TPOT__LIT(p, "}}") - o->b);
    }
}

/* The metadata events: the process and its tracks, by role. */
static void ttft_tpot__chrome_head(const int *track, ttft_tpot__out *o)
{
    char line[256];
    int r;
    ttft_tpot__out_str(o, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
                          "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"ttft_tpot\"}}");
    for (r = 0; r < 4; r++) {
        snprintf(line, sizeof line,
                 ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}"
                 ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                 track[r], ttft_tpot__roles[r], track[r], track[r]);
        ttft_tpot__out_str(o, line);
    }
}

TTFT_TPOT_DEF int ttft_tpot_chrome_trace(const ttft_tpot *c, FILE *out)
{
    static const int track[4] = {2, 3, 4, 1}; /* by role: e2e on top, kernels at the bottom */
    ttft_tpot__out *o;
    uint64_t *end = NULL;
    unsigned *lane = NULL, lanes = 0;
    size_t size = 1, *at;
    char *names;
    if (!c || !out || !c->store.starts)
        return TTFT_TPOT_EINVAL;
    /* the block, the names (escaped once) and the request lanes, before a byte is written */
    if (!(o = (ttft_tpot__out *)TTFT_TPOT_MALLOC(sizeof *o + (c->phase.n + 1) * sizeof *at + TTFT_TPOT__OUT_BIG,
                                                 c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    at = (size_t *)(void *)(o + 1);
    o->b = (char *)(at + c->phase.n + 1);
    o->cap = TTFT_TPOT__OUT_BIG;
    names = (char *)TTFT_TPOT_MALLOC(ttft_tpot__json_names(c, NULL, at) + 1, c->alloc_user);
    if (names && c->req.n) {
        while (size < c->req.n)
            size *= 2;
        end = (uint64_t *)TTFT_TPOT_MALLOC(2 * size * sizeof *end + (size_t)c->req.n * sizeof *lane, c->alloc_user);
    }
    if (!names || (c->req.n && !end)) {
        if (names)
            TTFT_TPOT_FREE(names, c->alloc_user);
        TTFT_TPOT_FREE(o, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    ttft_tpot__json_names(c, names, at);
    o->f = out;
    o->n = 0;
    ttft_tpot__chrome_head(track, o);
    ttft_tpot__chrome_samples(c, track, names, at, o);
    ttft_tpot__chrome_device(c, track, names, at, o);
    if (end) {
        lane = (unsigned *)(void *)(end + 2 * size);
        lanes = ttft_tpot__request_lanes(c, end, size, lane);
        ttft_tpot__chrome_requests(c, lane, lanes, o);
        TTFT_TPOT_FREE(end, c->alloc_user);
    }
    ttft_tpot__out_str(o, "\n]}\n");
    ttft_tpot__out_flush(o);
    TTFT_TPOT_FREE(names, c->alloc_user);
    TTFT_TPOT_FREE(o, c->alloc_user);
    return ttft_tpot__finish(out);
}

/* -- Trace I/O: growing a collector as a trace needs ------------------------------------------ */

/* config.grow: a part outgrown moves to an allocation of its own, enlarged in place from then on. */
enum {
    TTFT_TPOT__PART_SAMPLES = 1, TTFT_TPOT__PART_STARTS = 2, TTFT_TPOT__PART_HISTS = 4,
    TTFT_TPOT__PART_REQUESTS = 8, TTFT_TPOT__PART_INDEX = 16, TTFT_TPOT__PART_EVENTS = 32,
    TTFT_TPOT__PART_DEVICE = 64
};

/* Part p of old bytes enlarged to sz bytes, its content kept: the new address, or NULL (p stays). */
static void *ttft_tpot__grow(ttft_tpot *c, void *p, size_t old, size_t sz, unsigned part)
{
    void *q;
#ifdef TTFT_TPOT_REALLOC
    if (c->grown & part) {
        if ((q = TTFT_TPOT_REALLOC(p, old, sz, c->alloc_user)) != NULL)
            c->grown |= part;
        return q;
    }
#endif
    if ((q = TTFT_TPOT_MALLOC(sz, c->alloc_user)) == NULL)
        return NULL;
    memcpy(q, p, old);
    if (c->grown & part) /* no realloc hook: malloc, copy, free */
        TTFT_TPOT_FREE(p, c->alloc_user);
    c->grown |= part;
    return q;
}

/* The next size of a table of n entries that must hold need: doubled, within max. */
static size_t ttft_tpot__next_size(size_t n, size_t need, size_t max)
{
    size_t m = n < max / 2 ? 2 * n : max;
    return m < need ? need : m;
}

/* Room for need samples (config.grow): OK, or EFULL past UINT32_MAX, or ENOMEM. */
static int ttft_tpot__store_grow(ttft_tpot *c, size_t need)
{
    ttft_tpot__store *st = &c->store;
    size_t cap = ttft_tpot__next_size(st->capacity, need, UINT32_MAX);
    unsigned p;
    void *s;
    if (!c->grow || need > UINT32_MAX)
        return TTFT_TPOT_EFULL;
    s = ttft_tpot__grow(c, st->samples, (st->capacity + st->reserve) * sizeof *st->samples,
                        (cap + st->reserve) * sizeof *st->samples, TTFT_TPOT__PART_SAMPLES);
    if (!s)
        return TTFT_TPOT_ENOMEM;
    st->samples = (ttft_tpot_sample *)s;
    if (st->starts) { /* the samples are larger now: the capacity stays until both have grown */
        if (!(s = ttft_tpot__grow(c, st->starts, (st->capacity + st->reserve) * sizeof *st->starts,
                                  (cap + st->reserve) * sizeof *st->starts, TTFT_TPOT__PART_STARTS)))
            return TTFT_TPOT_ENOMEM;
        st->starts = (uint64_t *)s;
    }
    st->capacity = cap;
    for (p = 0; p < c->phase.n; p++) /* the inline path stores up to the capacity */
        if (c->phase.slots[p].fast_cap)
            c->phase.slots[p].fast_cap = cap;
    return TTFT_TPOT_OK;
}

/* Room for need histograms (config.grow), the phases' pointers moved along: OK, EFULL, ENOMEM. */
static int ttft_tpot__hists_grow(ttft_tpot *c, size_t need)
{
    ttft_tpot__hist_pool *h = &c->hist;
    size_t max = ttft_tpot__next_size(h->max, need, c->phase.max), *at;
    unsigned p;
    void *pool;
    if (!c->grow || need > c->phase.max)
        return TTFT_TPOT_EFULL;
    if (!(at = (size_t *)TTFT_TPOT_MALLOC((c->phase.n + 1) * sizeof *at, c->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    for (p = 0; p < c->phase.n; p++)
        at[p] = c->phase.slots[p].hist ? (size_t)(c->phase.slots[p].hist - h->pool) + 1 : 0;
    pool = ttft_tpot__grow(c, h->pool, h->max * sizeof *h->pool, max * sizeof *h->pool, TTFT_TPOT__PART_HISTS);
    if (pool) {
        h->pool = (ttft_tpot_hist *)pool;
        h->max = (unsigned)max;
        for (p = 0; p < c->phase.n; p++)
            c->phase.slots[p].hist = at[p] ? &h->pool[at[p] - 1] : NULL;
    }
    TTFT_TPOT_FREE(at, c->alloc_user);
    return pool ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
}

/* Room for one more request and one more event (config.grow): the index is rebuilt at twice the
   requests. OK, EFULL past the limits (2^24 requests, UINT32_MAX events), ENOMEM. */
static int ttft_tpot__requests_grow(ttft_tpot *c)
{
    ttft_tpot__request_table *q = &c->req;
    size_t max, ev;
    uint32_t *index;
    unsigned r, slots;
    void *p;
    if (!c->grow)
        return TTFT_TPOT_EFULL;
    if (q->n == q->max) {
        if (q->max >= (1u << 24))
            return TTFT_TPOT_EFULL;
        max = ttft_tpot__next_size(q->max ? q->max : 8, q->n + 1, 1u << 24);
        slots = ttft_tpot__table_size((unsigned)max);
        if (!(index = (uint32_t *)TTFT_TPOT_MALLOC((size_t)slots * sizeof *index, c->alloc_user)))
            return TTFT_TPOT_ENOMEM;
        if (!(p = ttft_tpot__grow(c, q->list, q->max * sizeof *q->list, max * sizeof *q->list,
                                  TTFT_TPOT__PART_REQUESTS))) {
            TTFT_TPOT_FREE(index, c->alloc_user);
            return TTFT_TPOT_ENOMEM;
        }
        q->list = (ttft_tpot_request *)p;
        if (c->grown & TTFT_TPOT__PART_INDEX)
            TTFT_TPOT_FREE(q->index, c->alloc_user);
        c->grown |= TTFT_TPOT__PART_INDEX;
        q->index = index;
        q->mask = slots - 1;
        q->max = (unsigned)max;
        memset(index, 0, (size_t)slots * sizeof *index);
        for (r = 0; r < q->n; r++)
            ttft_tpot__request_index_add(c, r);
    }
    if (q->n_events == q->max_events) {
        if (q->max_events >= UINT32_MAX)
            return TTFT_TPOT_EFULL;
        ev = ttft_tpot__next_size(q->max_events ? q->max_events : 64, q->n_events + 1, UINT32_MAX);
        if (!(p = ttft_tpot__grow(c, q->events, q->max_events * sizeof *q->events, ev * sizeof *q->events,
                                  TTFT_TPOT__PART_EVENTS)))
            return TTFT_TPOT_ENOMEM;
        q->events = (ttft_tpot__event *)p;
        q->max_events = ev;
    }
    return TTFT_TPOT_OK;
}


/* -- Trace I/O: what a refused read undoes, and what a trace names ----------------------------- */

/* Append src to dst (of cap bytes, NUL-terminated, truncated to fit), every character a terminal
   would not show as text written as \xHH per byte: error messages echo input. */
static void ttft_tpot__escape(char *dst, size_t cap, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t at = strlen(dst), n = strlen(src), i = 0, k;
    while (i < n && at + 1 < cap) {
        if ((k = ttft_tpot__printable(s + i, n - i)) != 0 && at + k < cap) {
            memcpy(dst + at, s + i, k);
            at += k;
            i += k;
        } else if (k == 0 && at + 4 < cap) {
            snprintf(dst + at, cap - at, "\\x%02x", s[i++]);
            at += 4;
        } else {
            break;
        }
    }
    dst[at] = '\0';
}

/* Start times for a growing exact collector without them, from the first line that has one: nesting
   and self time need them, so a trace reads as the collector that wrote it, whatever its reader asks
   for. The samples before it start at 0 (unknown); 8 bytes a sample only for traces that have them. */
static int ttft_tpot__starts_take(ttft_tpot *c)
{
    ttft_tpot__store *st = &c->store;
    size_t bytes = (st->capacity + st->reserve) * sizeof *st->starts;
    unsigned p;
    void *s = TTFT_TPOT_MALLOC(bytes ? bytes : 1, c->alloc_user);
    if (!s)
        return TTFT_TPOT_ENOMEM;
    memset(s, 0, bytes);
    st->starts = (uint64_t *)s;
    c->grown |= TTFT_TPOT__PART_STARTS;
    for (p = 0; p < c->phase.n; p++) /* the inline path keeps no start */
        c->phase.slots[p].fast_cap = 0;
    return TTFT_TPOT_OK;
}

/* What ttft_tpot__starts_take did, undone (a read that fails leaves c as it was). */
static void ttft_tpot__starts_drop(ttft_tpot *c)
{
    unsigned p;
    TTFT_TPOT_FREE(c->store.starts, c->alloc_user);
    c->store.starts = NULL;
    c->grown &= ~(unsigned)TTFT_TPOT__PART_STARTS;
    for (p = 0; p < c->phase.n; p++)
        if (!c->phase.slots[p].fresh)
            ttft_tpot__phase_called(c, &c->phase.slots[p]);
}

/* How far the tables were filled, to go back to when a trace is refused (samples past the store's n
   are never counted: they need nothing). */
typedef struct ttft_tpot__mark {
    unsigned phases, hists, requests, runs;
    size_t events, last_end; /* last_end: the last run's end (a read closes it) */
    uint64_t runs_dropped;
    int starts; /* start times were kept (a read may take them on) */
} ttft_tpot__mark;

static ttft_tpot__mark ttft_tpot__mark_of(const ttft_tpot *c)
{
    ttft_tpot__mark m;
    m.phases = c->phase.n;
    m.hists = c->hist.n;
    m.requests = c->req.n;
    m.events = c->req.n_events;
    m.runs = c->runs;
    m.last_end = c->runs ? c->run_end[c->runs - 1] : 0;
    m.runs_dropped = c->runs_dropped;
    m.starts = c->store.starts != NULL;
    return m;
}

static void ttft_tpot__rollback(ttft_tpot *c, const ttft_tpot__mark *m)
{
    if (c->phase.n != m->phases) {
        c->phase.n = m->phases;
        ttft_tpot__phase_index(c, 0);
    }
    c->hist.n = m->hists;
    c->runs = m->runs;
    if (m->runs)
        c->run_end[m->runs - 1] = m->last_end;
    c->runs_dropped = m->runs_dropped;
    if (c->req.n != m->requests || c->req.n_events != m->events)
        ttft_tpot__requests_rollback(c, m->requests, m->events);
    if (!m->starts && c->store.starts) /* taken on by this read: given back, the inline path with them */
        ttft_tpot__starts_drop(c);
}


/* x / d (d > 0) to the thousandth, rounded half up, at p: "12.345"; p past it. */
static char *ttft_tpot__put_thousandths(char *p, uint64_t x, uint64_t d)
{
    uint64_t whole = x / d, milli = d <= UINT64_MAX / 2000 ? ((x % d) * 2000 / d + 1) / 2
                                                           : (uint64_t)((double)(x % d) / (double)d * 1000 + 0.5);
    if (milli == 1000)
        whole++, milli = 0;
    p = ttft_tpot__put_u64(p, whole);
    p[0] = '.', p[1] = (char)('0' + milli / 100), p[2] = (char)('0' + milli / 10 % 10), p[3] = (char)('0' + milli % 10);
    return p + 4;
}

/* The requests CSV's columns of points and metrics (their tables' CSV): those it was first published
   with stand among the times and figures, in their tables' order; a column added since goes after
   slo_e2e, so that every column keeps its place. */
#define TTFT_TPOT__CSV_POINTS                                                                         \
    (TTFT_TPOT_POINT_BIT(SUBMIT) | TTFT_TPOT_POINT_BIT(SCHEDULE) | TTFT_TPOT_POINT_BIT(FIRST) |                 \
     TTFT_TPOT_POINT_BIT(LAST))
#define TTFT_TPOT__CSV_METRICS                                                                        \
    (1u << TTFT_TPOT_METRIC_TTFT | 1u << TTFT_TPOT_METRIC_TPOT | 1u << TTFT_TPOT_METRIC_E2E)

/* The header's point (metrics 0) or metric (1) columns, those it began with (added 0) or added since. */
static void ttft_tpot__csv_head(ttft_tpot__out *o, int metrics, int added)
{
    int k, n = metrics ? (int)TTFT_TPOT_METRIC_COUNT : (int)TTFT_TPOT_POINT_COUNT;
    for (k = 0; k < n; k++) {
        const char *name = metrics ? ttft_tpot__metrics[k].csv : ttft_tpot__points[k].csv;
        unsigned first = metrics ? TTFT_TPOT__CSV_METRICS : TTFT_TPOT__CSV_POINTS;
        if (*name && (int)!(first >> k & 1u) == added) {
            ttft_tpot__out_chr(o, ',');
            ttft_tpot__out_str(o, name);
        }
    }
}

/* A request's point columns at p (as ttft_tpot__csv_head picks them): ",T" each, empty where it has
   none. Returns p past them. */
static char *ttft_tpot__csv_points(char *p, const ttft_tpot_request *q, int added)
{
    int k;
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++) {
        if (!*ttft_tpot__points[k].csv || (int)!(TTFT_TPOT__CSV_POINTS >> k & 1u) != added)
            continue;
        *p++ = ',';
        if (ttft_tpot__has(q, k))
            p = ttft_tpot__put_u64(p, ttft_tpot__point_ns(q, k));
    }
    return p;
}

/* A request's metric columns at p: ",V" each, a per-token one to the thousandth of a ns, empty where
   it has none. Returns p past them. */
static char *ttft_tpot__csv_metrics(char *p, const ttft_tpot_request *q, int added)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (!*ttft_tpot__metrics[m].csv || (int)!(TTFT_TPOT__CSV_METRICS >> m & 1u) != added)
            continue;
        *p++ = ',';
        if (!ttft_tpot__has_metric(q, m))
            continue;
        p = ttft_tpot__metrics[m].rule == TTFT_TPOT__RULE_PER_TOKEN
                ? ttft_tpot__put_thousandths(p, ttft_tpot__span_ns(q, m), q->tokens - 1)
                : ttft_tpot__put_u64(p, ttft_tpot__span_ns(q, m));
    }
    return p;
}

/* A request's id as a CSV field at p; one a spreadsheet would run as a formula as "'=...". */
static char *ttft_tpot__csv_id(char *p, const char *id)
{
    if (!strchr("=+-@\t\r", id[0]) || !id[0])
        return p + ttft_tpot__csv_esc(p, id);
    *p++ = '"', *p++ = '\'';
    for (; *id; id++) {
        if (*id == '"')
            *p++ = '"';
        *p++ = *id;
    }
    *p++ = '"';
    return p;
}

/* One request's row of ttft_tpot_requests_csv: "ID,SUBMIT,SCHEDULE,FIRST,LAST,TOKENS,TTFT,TPOT,E2E,MEASURED,
   SLO_TTFT,SLO_TPOT,SLO_E2E" and the columns added since, a field empty where the request has no
   such figure. */
static void ttft_tpot__request_row(const ttft_tpot *c, const ttft_tpot_request *q, ttft_tpot__out *o)
{
    /* the id escaped, a number a column, 4 flags */
    size_t room = 2 * TTFT_TPOT_NAME_MAX + 32 * (TTFT_TPOT_POINT_COUNT + TTFT_TPOT_METRIC_COUNT + 6);
    char *p = ttft_tpot__out_room(o, room);
    int k, met;
    p = ttft_tpot__csv_points(ttft_tpot__csv_id(p, q->id), q, 0);
    p = ttft_tpot__csv_metrics(ttft_tpot__put_u64(TTFT_TPOT__LIT(p, ","), q->tokens), q, 0);
    p = TTFT_TPOT__LIT(p, ",");
    *p++ = (char)('0' + ttft_tpot__measured(q));
    for (k = 0; k < 3; k++) { /* as goodput counts them */
        *p++ = ',';
        if (q->token_events && (met = ttft_tpot__slo_met(c, q, k)) >= 0)
            *p++ = met ? '1' : '0';
    }
    p = ttft_tpot__csv_metrics(ttft_tpot__csv_points(p, q, 1), q, 1);
    o->n = (size_t)(TTFT_TPOT__LIT(p, "\n") - o->b);
}

TTFT_TPOT_DEF int ttft_tpot_requests_csv(const ttft_tpot *c, FILE *out)
{
    char block[TTFT_TPOT__OUT_MIN];
    ttft_tpot__out o;
    unsigned r;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    ttft_tpot__out_open(&o, out, block, sizeof block);
    ttft_tpot__out_str(&o, "id");
    ttft_tpot__csv_head(&o, 0, 0);
    ttft_tpot__out_str(&o, ",tokens");
    ttft_tpot__csv_head(&o, 1, 0);
    ttft_tpot__out_str(&o, ",measured,slo_ttft,slo_tpot,slo_e2e");
    ttft_tpot__csv_head(&o, 0, 1);
    ttft_tpot__csv_head(&o, 1, 1);
    ttft_tpot__out_chr(&o, '\n');
    for (r = 0; r < c->req.n; r++)
        ttft_tpot__request_row(c, &c->req.list[r], &o);
    return ttft_tpot__out_close(&o);
}


/* -- Trace I/O: the reader, its messages and numbers ------------------------------------------- */

#define TTFT_TPOT__FIELD_MAX 256    /* longer than any valid field: a longer one is an error */
#define TTFT_TPOT__LINE_MAX 131072  /* a directive line: a "# hist:" line of every bucket fits */
#define TTFT_TPOT__BLOCK (1u << 20) /* bytes read at a time: a directive line and a record fit */

/* A phase's histogram as the trace being read leaves it: what it held, then its "# hist:" lines and
   its steady samples (a bounded phase's, or past the storage); it replaces the phase's when the whole
   trace has been read. Its count is kept, so that nothing added can pass 2^64 unseen (its sum cannot
   pass 2^128 then: fewer than 2^64 values below 2^64). */
typedef struct ttft_tpot__pending {
    int phase;
    int outgrown; /* the phase outgrew the storage while this trace was read */
    uint64_t n;   /* the values in h */
    ttft_tpot_hist h;
} ttft_tpot__pending;

/* One trace_read: the input in blocks, what it adds (committed at the end, or rolled back), the
   record being read. Records are parsed where they lie in the block; a record with a quote or a
   control character takes the byte-by-byte RFC 4180 path, into field[]. */
typedef struct ttft_tpot__reader {
    FILE *in;
    ttft_tpot *c;
    char *buf;          /* TTFT_TPOT__BLOCK + 1 bytes: room to end the last line with a NUL */
    size_t pos, end;    /* buf[pos, end): read, not yet parsed */
    int eof;
    unsigned long line; /* line of the next byte */
    char *err;
    size_t errlen;
    const char *name;
    char clock_name[32]; /* from a "# clock: NAME, N ns/read" comment, if any */
    uint64_t clock_read_ns;
    ttft_tpot__mark old; /* where the tables stood: rolled back to on error */
    size_t n;            /* samples stored past c->store.n */
    uint64_t dropped, counts[TTFT_TPOT__N_KEYS]; /* "# counts:" lines: losses added, limits kept */
    unsigned limits; /* bit k: limit k was given (counts[TTFT_TPOT__N_COUNTS + k]) */
    ttft_tpot__pending *pending;
    unsigned n_pending, cap_pending, slots; /* slots: histogram slots the pending ones need */
    uint64_t (*prompt)[4]; /* by phase: "# prompt:" sums, added when the trace has been read, and the
                              line of the last (0: none), where a contradiction is reported */
    unsigned long truncated_line, counts_line; /* the last "# truncated:" and "# counts:" lines */
    uint64_t truncated;                        /* "# truncated:" lines */
    uint32_t *pend_of;   /* by phase: its pending histogram of steady samples + 1; UINT32_MAX: a
                            first sample kept exact; 0: none yet (allocated with the first) */
    int recent[64];      /* phase + 1 by a cheap hash of its name: a trace names few phases, often */
    uint32_t recent_req[256]; /* index slot + 1 of a request by a cheap hash of its id: those in flight
                                 come back every step */
    size_t rows;          /* sample records read */
    size_t old_samples;   /* c->store.n before the read */
    size_t first_lost;    /* the first of them not stored (in a histogram, or dropped); SIZE_MAX: none */
    size_t dev_n, dev_open; /* device intervals added past c->dev.n, and how many are open */
    uint64_t dev_lost[2];   /* unresolved (theirs, and ours: no room), refused */
    const char *f[6];    /* the fields of the record */
    size_t len[6];
    char field[6][TTFT_TPOT__FIELD_MAX];
    ttft_tpot_hist line_hist; /* the histogram of a "# hist:" line, checked before it is added */
} ttft_tpot__reader;

static int ttft_tpot__fail(ttft_tpot__reader *r, unsigned long line, const char *what, const char *arg)
{
    char num[32];
    if (r->err && r->errlen) {
        r->err[0] = '\0';
        ttft_tpot__escape(r->err, r->errlen, r->name);
        snprintf(num, sizeof num, ":%lu: ", line);
        ttft_tpot__escape(r->err, r->errlen, num);
        ttft_tpot__escape(r->err, r->errlen, what);
        ttft_tpot__escape(r->err, r->errlen, arg ? arg : "");
    }
    return TTFT_TPOT_EPARSE;
}

/* ttft_tpot__fail with field k of the record as its argument. */
static int ttft_tpot__fail_field(ttft_tpot__reader *r, unsigned long line, const char *what, int k)
{
    char text[TTFT_TPOT__FIELD_MAX];
    memcpy(text, r->f[k], r->len[k]); /* a field is shorter than TTFT_TPOT__FIELD_MAX */
    text[r->len[k]] = '\0';
    return ttft_tpot__fail(r, line, what, text);
}

/* Parse an unsigned decimal field: digits only, no sign, no spaces, at most max. */
#ifdef TTFT_TPOT__LE
/* Whether the 8 bytes of x are all ASCII digits. */
static int ttft_tpot__eight_digits(uint64_t x)
{
    return ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
           0x3333333333333333ull;
}

/* The value of 8 ASCII digits loaded at once, the first the most significant: pairs, then fours,
   then the eight combined by multiplications. */
static uint64_t ttft_tpot__eight(uint64_t x)
{
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8);
    return (((x & 0x000000FF000000FFull) * 0x000F424000000064ull) +
            (((x >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
}
#endif

static int ttft_tpot__u64_digits(const char *s, size_t len, uint64_t max, uint64_t *v)
{
    uint64_t acc = 0;
    size_t i = 0;
    *v = 0;
    if (len == 0)
        return 0;
    if (len < 20) { /* 19 digits cannot overflow: check the range once */
#ifdef TTFT_TPOT__LE
        for (; len - i >= 8; i += 8) { /* 8 digits a step where the byte order allows */
            uint64_t x;
            memcpy(&x, s + i, 8);
            if (!ttft_tpot__eight_digits(x))
                return 0;
            acc = acc * 100000000u + ttft_tpot__eight(x);
        }
        if (len - i > 1) { /* the last 2 to 7 after '0's, as 8 */
            static const uint32_t scale[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
            uint64_t x = 0x3030303030303030ull;
            memcpy((char *)&x + 8 - (len - i), s + i, len - i);
            if (!ttft_tpot__eight_digits(x))
                return 0;
            acc = acc * scale[len - i] + ttft_tpot__eight(x);
            i = len;
        }
#endif
        for (; i < len; i++) {
            if (s[i] < '0' || s[i] > '9')
                return 0;
            acc = acc * 10 + (unsigned)(s[i] - '0');
        }
        *v = acc;
        return acc <= max;
    }
    for (i = 0; i < len; i++) {
        unsigned d;
        if (s[i] < '0' || s[i] > '9')
            return 0;
        d = (unsigned)(s[i] - '0');
        if (d > max || acc > (max - d) / 10)
            return 0;
        acc = acc * 10 + d;
    }
    *v = acc;
    return 1;
}

/* The same, a one-digit field (a flag, a token count, a duration of 0) read in place: most fields of a
   request event are, and the call costs more than the digit. */
static inline int ttft_tpot__u64(const char *s, size_t len, uint64_t max, uint64_t *v)
{
    unsigned d;
    if (len == 1 && (d = (unsigned)((unsigned char)s[0] - '0')) <= 9) {
        *v = d;
        return d <= max;
    }
    return ttft_tpot__u64_digits(s, len, max, v);
}

/* The unsigned number at *p up to the separator sep (which must follow), and *p past it. */
static int ttft_tpot__take(const char **p, char sep, uint64_t max, uint64_t *v)
{
    const char *end = strchr(*p, sep);
    if (!end || !ttft_tpot__u64(*p, (size_t)(end - *p), max, v))
        return 0;
    *p = end + 1;
    return 1;
}

/* The role a trace names: 0-3 the sample roles, or 4 + the first point whose rows have that role
   (TTFT_TPOT_POINTS: SUBMIT, FIRST for a token event, or a mark); -1 none. */
static int ttft_tpot__role_of(const char *s, size_t len)
{
    static const unsigned char lens[4] = {7, 6, 6, 3};
    int k;
    for (k = 0; k < 4; k++)
        if (lens[k] == len && s[0] == ttft_tpot__roles[k][0] && memcmp(s, ttft_tpot__roles[k], len) == 0)
            return k;
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++)
        if (ttft_tpot__points[k].role_len == len && memcmp(s, ttft_tpot__points[k].role, len) == 0)
            return 4 + k;
    return -1;
}

/* " clock: NAME, N ns/read" (what trace_write puts after the '#'): note the clock. */
static void ttft_tpot__clock_comment(ttft_tpot__reader *r, const char *text)
{
    const char *name = text + 8, *comma;
    uint64_t ns;
    size_t len, i;
    if (strncmp(text, " clock: ", 8) != 0 || r->clock_read_ns || !(comma = strstr(name, ", ")))
        return;
    len = (size_t)(comma - name);
    for (i = 0; i < len; i++)
        if ((unsigned char)name[i] < 0x21 || (unsigned char)name[i] > 0x7E)
            return;
    if (len == 0 || len >= sizeof r->clock_name)
        return;
    for (i = 0; comma[2 + i] >= '0' && comma[2 + i] <= '9'; i++)
        ;
    if (!ttft_tpot__u64(comma + 2, i, UINT64_MAX, &ns) || ns == 0 || strcmp(comma + 2 + i, " ns/read") != 0)
        return;
    memcpy(r->clock_name, name, len);
    r->clock_name[len] = '\0';
    r->clock_read_ns = ns;
}

/* The id of the phase a line names, added when new; EPARSE with the reason otherwise. */
static int ttft_tpot__phase_id(ttft_tpot__reader *r, unsigned long line, const char *name, size_t len, int role)
{
    char text[TTFT_TPOT__FIELD_MAX]; /* the name for a message: it may end where its field ends */
    int id;
    if (r->c->hist.bounded && r->c->hist.n == r->c->hist.max && /* a new phase of a growing bounded */
        ttft_tpot__hists_grow(r->c, r->c->hist.n + 1) == TTFT_TPOT_ENOMEM) /* collector needs a slot */
        return TTFT_TPOT_ENOMEM;
    id = ttft_tpot__add_phase(r->c, name, len, role);
    len = len < sizeof text ? len : sizeof text - 1;
    memcpy(text, name, len);
    text[len] = '\0';
    if (id == TTFT_TPOT_EROLE)
        return ttft_tpot__fail(r, line, "phase changes role: ", text);
    if (id == TTFT_TPOT_ENAME)
        return ttft_tpot__fail(r, line, "invalid phase name (1 to 63 bytes of UTF-8, no control characters): ", text);
    if (id < 0)
        return ttft_tpot__fail(r, line, "too many phases for this collector", NULL);
    return id;
}

/* -- Trace I/O: directives --------------------------------------------------------------------- */

/* "# phase: ROLE,NAME": a phase as the collector had it, in the order it was registered. */
static int ttft_tpot__read_phase_line(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    const char *comma = strchr(p, ',');
    int role = comma ? ttft_tpot__role_of(p, (size_t)(comma - p)) : -1;
    if (role < 0 || role > 3)
        return ttft_tpot__fail(r, line, "# phase: expected ROLE,NAME with a phase role, not ", p);
    role = ttft_tpot__phase_id(r, line, comma + 1, strlen(comma + 1), role);
    return role < 0 ? role : TTFT_TPOT_OK;
}

/* The buckets of a "# hist:" line, "I:C I:C ...", into h: indices ascending, counts above 0, *total
   their sum. */
static int ttft_tpot__read_buckets(const char *p, const char *end, ttft_tpot_hist *h, unsigned *first, unsigned *last,
                                   uint64_t *total)
{
    uint64_t i, n;
    int any = 0;
    while (p < end) {
        const char *colon = (const char *)memchr(p, ':', (size_t)(end - p)), *stop;
        if (!colon)
            return 0;
        for (stop = colon + 1; stop < end && *stop != ' '; stop++)
            ;
        if (!ttft_tpot__u64(p, (size_t)(colon - p), TTFT_TPOT_HIST_BUCKETS - 1, &i) ||
            !ttft_tpot__u64(colon + 1, (size_t)(stop - colon - 1), UINT64_MAX - *total, &n) || n == 0 ||
            (any && i <= *last) || (stop < end && stop + 1 == end))
            return 0;
        *first = any ? *first : (unsigned)i;
        *last = (unsigned)i;
        any = 1;
        *total += n;
        h->counts[i] = n;
        p = stop + (stop < end);
    }
    return any;
}

/* Room for one more pending histogram. */
static ttft_tpot__pending *ttft_tpot__pending_add(ttft_tpot__reader *r)
{
    if (r->n_pending == r->cap_pending) {
        unsigned cap = r->cap_pending ? 2 * r->cap_pending : 2;
        ttft_tpot__pending *p = (ttft_tpot__pending *)TTFT_TPOT_MALLOC(cap * sizeof *p, r->c->alloc_user);
        if (!p)
            return NULL;
        if (r->n_pending)
            memcpy(p, r->pending, r->n_pending * sizeof *p);
        if (r->pending)
            TTFT_TPOT_FREE(r->pending, r->c->alloc_user);
        r->pending = p;
        r->cap_pending = cap;
    }
    return &r->pending[r->n_pending];
}

/* 128-bit sums and comparisons, for checking directives against their records. */
static ttft_tpot__u128 ttft_tpot__add(ttft_tpot__u128 a, ttft_tpot__u128 b)
{
    a.lo += b.lo;
    a.hi += b.hi + (a.lo < b.lo);
    return a;
}

/* a <= b */
static int ttft_tpot__le(ttft_tpot__u128 a, ttft_tpot__u128 b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

/* Where phase id's pending histogram is noted (pend_of[], allocated with the first): NULL, no memory. */
static uint32_t *ttft_tpot__pend_at(ttft_tpot__reader *r, int id)
{
    size_t bytes = (size_t)r->c->phase.max * sizeof *r->pend_of;
    if (!r->pend_of && (r->pend_of = (uint32_t *)TTFT_TPOT_MALLOC(bytes, r->c->alloc_user)) != NULL)
        memset(r->pend_of, 0, bytes);
    return r->pend_of ? &r->pend_of[id] : NULL;
}

/* The pending histogram of phase id: made when new from the phase's histogram (or empty), counting
   the histogram slot it needs at the end when the phase has none. NULL: no memory. */
static ttft_tpot__pending *ttft_tpot__pending_of(ttft_tpot__reader *r, int id, int outgrow)
{
    const ttft_tpot__phase_slot *p = &r->c->phase.slots[id];
    ttft_tpot__pending *pd;
    uint32_t *at = ttft_tpot__pend_at(r, id);
    if (at && *at && *at != UINT32_MAX)
        return &r->pending[*at - 1];
    if (!at || !(pd = ttft_tpot__pending_add(r)))
        return NULL;
    pd->phase = id;
    pd->outgrown = outgrow && !p->hist;
    if (p->hist) {
        pd->h = *p->hist;
        pd->n = ttft_tpot__hist_count(p->hist);
    } else {
        ttft_tpot__hist_reset(&pd->h);
        pd->n = 0;
    }
    r->slots += !p->hist;
    *at = ++r->n_pending;
    return pd;
}

/* Whether the histogram of a "# hist:" line (n values) is one that samples can make: at most 2^32 - 1
   tokens a sample, and a sum that its buckets, clamped to its min and max, can hold. */
static int ttft_tpot__hist_line_ok(const ttft_tpot_hist *h, uint64_t n)
{
    ttft_tpot__u128 least = {0, 0}, most = {0, 0}, sum;
    uint64_t lo, hi;
    unsigned i;
    for (i = ttft_tpot__hist_index(h->min_ns); i <= ttft_tpot__hist_index(h->max_ns); i++) {
        if (!h->counts[i])
            continue;
        ttft_tpot__bucket_range(i, &lo, &hi);
        least = ttft_tpot__add(least, ttft_tpot__mul(h->counts[i], lo > h->min_ns ? lo : h->min_ns));
        most = ttft_tpot__add(most, ttft_tpot__mul(h->counts[i], hi < h->max_ns ? hi : h->max_ns));
    }
    sum.hi = h->sum_hi;
    sum.lo = h->sum_lo;
    return ttft_tpot__le(least, sum) && ttft_tpot__le(sum, most) &&
           ttft_tpot__le(ttft_tpot__mul(h->tokens, 1), ttft_tpot__mul(n, UINT32_MAX));
}

/* "# hist: ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C I:C ...,NAME": a bounded phase's histogram,
   the sum in two 64-bit halves. Checked, then added to the phase's pending histogram. */
static int ttft_tpot__read_hist(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    const char *comma = strchr(p, ','), *end, *name;
    ttft_tpot__pending *pd;
    ttft_tpot_hist *h = &r->line_hist;
    unsigned first = 0, last = 0;
    uint64_t n = 0;
    int role = comma ? ttft_tpot__role_of(p, (size_t)(comma - p)) : -1, id;
    if (role < 0 || role > 3)
        return ttft_tpot__fail(r, line, "# hist: unknown role", NULL);
    ttft_tpot__hist_reset(h);
    p = comma + 1;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &h->tokens) || !ttft_tpot__take(&p, ',', UINT64_MAX, &h->min_ns) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &h->max_ns) || !ttft_tpot__take(&p, ',', UINT64_MAX, &h->sum_hi) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &h->sum_lo) || !(end = strchr(p, ',')) ||
        !ttft_tpot__read_buckets(p, end, h, &first, &last, &n) || h->min_ns > h->max_ns ||
        ttft_tpot__hist_index(h->min_ns) != first || ttft_tpot__hist_index(h->max_ns) != last)
        return ttft_tpot__fail(r, line, "# hist: expected ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C ...,NAME "
                                        "with the buckets of min and max first and last", NULL);
    name = end + 1;
    if (!ttft_tpot__le(ttft_tpot__mul(h->tokens, 1), ttft_tpot__mul(n, UINT32_MAX)))
        return ttft_tpot__fail(r, line, "# hist: more tokens than 4294967295 a sample: ", name);
    if (!ttft_tpot__hist_line_ok(h, n))
        return ttft_tpot__fail(r, line, "# hist: a sum its buckets cannot hold: ", name);
    if ((id = ttft_tpot__phase_id(r, line, name, strlen(name), role)) < 0)
        return id;
    if (!(pd = ttft_tpot__pending_of(r, id, 0)))
        return TTFT_TPOT_ENOMEM;
    if (r->c->hist.n + r->slots > r->c->hist.max &&
        ttft_tpot__hists_grow(r->c, r->c->hist.n + r->slots) == TTFT_TPOT_ENOMEM)
        return TTFT_TPOT_ENOMEM;
    if (r->c->hist.n + r->slots > r->c->hist.max)
        return ttft_tpot__fail(r, line, "a bounded phase's histogram needs a free histogram slot "
                                        "(config.hist_slots, or config.bounded): ", name);
    if (!ttft_tpot__hist_room(pd->n, pd->h.tokens, n, h->tokens))
        return ttft_tpot__fail(r, line, "# hist: more than 2^63 samples or tokens in the phase's histogram: ", name);
    ttft_tpot__hist_merge(&pd->h, h);
    pd->n += n;
    return TTFT_TPOT_OK;
}

/* "# truncated: SUBMIT_NS,WARMUP,ID": a request of this trace whose events did not all fit. */
static int ttft_tpot__read_truncated(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    ttft_tpot *c = r->c;
    uint64_t t, w;
    size_t len;
    int q;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &t) || !ttft_tpot__take(&p, ',', 1, &w))
        return ttft_tpot__fail(r, line, "# truncated: expected SUBMIT_NS,WARMUP,ID", NULL);
    len = strlen(p);
    if (!ttft_tpot__name_ok(p, len))
        return ttft_tpot__fail(r, line, "# truncated: invalid request id: ", p);
    q = ttft_tpot__request_find(c, p, len);
    if (q >= 0 && (unsigned)q < r->old.requests)
        return ttft_tpot__fail(r, line, "# truncated: a request of an earlier trace: ", p);
    if (q >= 0 && (c->req.list[q].submit_ns != t || c->req.list[q].warmup != (int)w))
        return ttft_tpot__fail(r, line, "# truncated: differs from the request's submit: ", p);
    if (q < 0 && c->req.n == c->req.max && ttft_tpot__requests_grow(c) == TTFT_TPOT_ENOMEM)
        return TTFT_TPOT_ENOMEM;
    if (q < 0 && c->req.n == c->req.max)
        return ttft_tpot__fail(r, line, "more requests than this collector holds (config.max_requests)", NULL);
    if (q < 0)
        q = ttft_tpot__request_new(c, p, len, t, (int)w, ttft_tpot__request_slot(c, p, len));
    r->truncated += !c->req.list[q].truncated;
    r->truncated_line = line;
    c->req.list[q].truncated = 1;
    return TTFT_TPOT_OK;
}

/* "# counts: NAME=N NAME=N ...": what the collector lost (ttft_tpot__count_names), each once. */
static int ttft_tpot__read_counts(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    unsigned seen = 0, k;
    while (*p) {
        const char *eq = strchr(p, '='), *stop = eq ? eq + 1 + strcspn(eq + 1, " ") : p;
        uint64_t v;
        for (k = 0; eq && k < TTFT_TPOT__N_KEYS; k++)
            if (strlen(ttft_tpot__count_names[k]) == (size_t)(eq - p) &&
                strncmp(p, ttft_tpot__count_names[k], (size_t)(eq - p)) == 0)
                break;
        if (!eq || k == TTFT_TPOT__N_KEYS || (seen >> k & 1u) ||
            !ttft_tpot__u64(eq + 1, (size_t)(stop - eq - 1), k < TTFT_TPOT__N_COUNTS ? UINT64_MAX - r->counts[k] : UINT64_MAX, &v) ||
            (*stop && !stop[1]))
            return ttft_tpot__fail(r, line, "# counts: expected NAME=N ..., each name once, of ", "dropped rejected "
                                   "shapes_dropped requests_dropped requests_refused events_lost runs_dropped outgrown "
                                   "spans_open capacity max_requests max_request_events max_shapes");
        seen |= 1u << k;
        r->counts_line = line;
        if (k < TTFT_TPOT__N_COUNTS) {
            r->counts[k] += v;
        } else if (!(r->limits >> (k - TTFT_TPOT__N_COUNTS) & 1u)) { /* a limit: the first one given */
            r->counts[k] = v;
            r->limits |= 1u << (k - TTFT_TPOT__N_COUNTS);
        }
        p = stop + (*stop != '\0');
    }
    return TTFT_TPOT_OK;
}

/* "# prompt: N,TOKENS,NS,NAME": a prefill phase's steady samples that carry prompt tokens, their
   tokens and their time. Kept aside; added to the phase when the trace has been read. */
static int ttft_tpot__read_prompt(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    ttft_tpot *c = r->c;
    uint64_t v[3];
    char what[TTFT_TPOT_NAME_MAX + 64];
    int id, k;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &v[0]) || !ttft_tpot__take(&p, ',', UINT64_MAX, &v[1]) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &v[2]))
        return ttft_tpot__fail(r, line, "# prompt: expected N,TOKENS,NS,NAME", NULL);
    if (v[0] == 0 || v[1] < v[0] || !ttft_tpot__le(ttft_tpot__mul(v[1], 1), ttft_tpot__mul(v[0], UINT32_MAX)))
        return ttft_tpot__fail(r, line, "# prompt: expected N,TOKENS,NS,NAME with N >= 1 and N <= TOKENS <= "
                                        "N * 4294967295", NULL);
    if ((id = ttft_tpot__phase_id(r, line, p, strlen(p), TTFT_TPOT_ROLE_PREFILL)) < 0)
        return id;
    if (!r->prompt) {
        if (!(r->prompt = (uint64_t(*)[4])TTFT_TPOT_MALLOC((size_t)c->phase.max * sizeof *r->prompt, c->alloc_user)))
            return TTFT_TPOT_ENOMEM;
        memset(r->prompt, 0, (size_t)c->phase.max * sizeof *r->prompt);
    }
    for (k = 0; k < 3; k++) /* the phase's sums as they will be: within 64 bits */
        if (v[k] > UINT64_MAX - r->prompt[id][k] - c->phase.slots[id].prompt[k]) {
            snprintf(what, sizeof what, "# prompt: the sums of %s would pass 2^64 - 1", c->phase.slots[id].name);
            return ttft_tpot__fail(r, line, what, NULL);
        }
    for (k = 0; k < 3; k++)
        r->prompt[id][k] += v[k];
    r->prompt[id][3] = line;
    return TTFT_TPOT_OK;
}

/* Room for one more device interval past c->dev.n while reading: 1, 0 (none: counted), ENOMEM. */
static int ttft_tpot__device_room(ttft_tpot__reader *r)
{
    ttft_tpot *c = r->c;
    size_t need = c->dev.n + r->dev_n + 1, max;
    void *p;
    if (need <= c->dev.max)
        return 1;
    if (!c->grow || need >= UINT32_MAX)
        return 0;
    max = ttft_tpot__next_size(c->dev.max ? c->dev.max : 64, need, UINT32_MAX - 1);
    if (!(p = ttft_tpot__grow(c, c->dev.log, c->dev.max * sizeof *c->dev.log, max * sizeof *c->dev.log,
                              TTFT_TPOT__PART_DEVICE)))
        return TTFT_TPOT_ENOMEM;
    c->dev.log = (ttft_tpot_device_interval *)p;
    c->dev.max = max;
    return 1;
}

/* "# device: SAMPLE,STREAM,STATE,PART,WARMUP,ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE": an interval, its
   sample counted among this trace's sample lines. Kept past c->dev.n until the end. */
static int ttft_tpot__read_device(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    ttft_tpot *c = r->c;
    ttft_tpot_device_interval *d;
    uint64_t v[8];
    int k, id;
    static const uint64_t max[8] = {UINT64_MAX, UINT32_MAX, 3, 1, 1, UINT64_MAX, UINT64_MAX, TTFT_TPOT__DEVICE_MAX_NS};
    for (k = 0; k < 8; k++)
        if (!ttft_tpot__take(&p, ',', max[k], &v[k]) || (k == 2 && v[k] == 0))
            return ttft_tpot__fail(r, line, "# device: expected SAMPLE,STREAM,STATE (1-3),PART (0-1),WARMUP (0-1),"
                                            "ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE", NULL);
    if (v[0] > r->rows)
        return ttft_tpot__fail(r, line, "# device: a sample past the samples read so far", NULL);
    if ((id = ttft_tpot__lookup(c, p, strlen(p))) < 0)
        return ttft_tpot__fail(r, line, "# device: unknown phase: ", p);
    if ((k = ttft_tpot__device_room(r)) <= 0) {
        r->dev_lost[0] += k == 0;
        return k < 0 ? k : TTFT_TPOT_OK;
    }
    d = &c->dev.log[c->dev.n + r->dev_n++];
    memset(d, 0, sizeof *d);
    /* its sample, where the trace's samples up to it were all stored (else unknown: 0) */
    d->sample = v[0] && v[0] - 1 < r->first_lost ? r->old_samples + v[0] : 0;
    d->stream = (uint32_t)v[1];
    d->state = (uint8_t)v[2];
    d->part = (uint8_t)v[3];
    d->warmup = (uint8_t)v[4];
    d->issue_ns = v[5];
    d->begin_ns = v[6];
    d->device_ns = v[7];
    d->phase = (uint32_t)id;
    r->dev_open += d->state == TTFT_TPOT_DEVICE_OPEN;
    return TTFT_TPOT_OK;
}

/* "# device_lost: UNRESOLVED,REFUSED". */
static int ttft_tpot__read_device_lost(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    uint64_t u, f;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX - r->dev_lost[0], &u) || !ttft_tpot__u64(p, strlen(p), UINT64_MAX - r->dev_lost[1], &f))
        return ttft_tpot__fail(r, line, "# device_lost: expected UNRESOLVED,REFUSED", NULL);
    r->dev_lost[0] += u;
    r->dev_lost[1] += f;
    return TTFT_TPOT_OK;
}

/* A comment line's text after the '#', NUL-terminated: the writer's directives ("# clock:",
   "# phase:", "# hist:", "# truncated:", "# counts:", "# prompt:") are read back, anything else is a comment.
   bad: the line was too long or held a NUL byte, which only a directive minds. */
static int ttft_tpot__directive(ttft_tpot__reader *r, unsigned long line, const char *text, int bad)
{
    static const char *const kinds[7] = {" phase: ", " hist: ", " truncated: ", " counts: ", " prompt: ",
                                         " device: ", " device_lost: "};
    const char *p;
    int k;
    if (strncmp(text, " clock: ", 8) == 0) {
        if (!bad)
            ttft_tpot__clock_comment(r, text);
        return TTFT_TPOT_OK;
    }
    if (strcmp(text, " run:") == 0) { /* a run begins at the next sample */
        (void)ttft_tpot__run_mark(r->c, r->c->store.n + r->n);
        return TTFT_TPOT_OK;
    }
    if (strcmp(text, " run: end") == 0) { /* the run ends before the next sample */
        ttft_tpot__run_close(r->c, r->c->store.n + r->n);
        return TTFT_TPOT_OK;
    }
    for (k = 0; k < 7 && strncmp(text, kinds[k], strlen(kinds[k])) != 0; k++)
        ;
    if (k == 7)
        return TTFT_TPOT_OK;
    if (bad)
        return ttft_tpot__fail(r, line, "directive too long, or with a NUL byte: #", kinds[k]);
    p = text + strlen(kinds[k]);
    return k == 0 ? ttft_tpot__read_phase_line(r, line, p)
           : k == 1 ? ttft_tpot__read_hist(r, line, p)
           : k == 2 ? ttft_tpot__read_truncated(r, line, p)
           : k == 3 ? ttft_tpot__read_counts(r, line, p)
           : k == 4 ? ttft_tpot__read_prompt(r, line, p)
           : k == 5 ? ttft_tpot__read_device(r, line, p)
                    : ttft_tpot__read_device_lost(r, line, p);
}

/* -- Trace I/O: lines and fields --------------------------------------------------------------- */

/* More input after buf[pos, end), which moves to the front of the block: 1 some was read, 0 the end
   of the input, EIO. */
static int ttft_tpot__more(ttft_tpot__reader *r)
{
    size_t got;
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    if (r->eof || r->end == TTFT_TPOT__BLOCK)
        return 0;
    got = fread(r->buf + r->end, 1, TTFT_TPOT__BLOCK - r->end, r->in);
    r->end += got;
    if (got == 0 && ferror(r->in))
        return TTFT_TPOT_EIO;
    r->eof = got == 0;
    return got != 0;
}

/* The next byte of the input, or EOF (then ferror tells an error from the end). */
static int ttft_tpot__getc(ttft_tpot__reader *r)
{
    if (r->pos == r->end && ttft_tpot__more(r) <= 0)
        return EOF;
    return (unsigned char)r->buf[r->pos++];
}

/* The line at buf[pos]: *len bytes up to its '\n' (*nl 1) or the end of the input (*nl 0). Returns
   1, 0 at the end of the input, 2 for a line longer than a block (pos at its start), or EIO. */
static int ttft_tpot__line(ttft_tpot__reader *r, size_t *len, int *nl)
{
    size_t seen = 0;
    int rc;
    for (;;) {
        const char *e = (const char *)memchr(r->buf + r->pos + seen, '\n', r->end - r->pos - seen);
        if (e) {
            *len = (size_t)(e - (r->buf + r->pos));
            *nl = 1;
            return 1;
        }
        seen = r->end - r->pos;
        if ((rc = ttft_tpot__more(r)) < 0)
            return rc;
        if (rc == 0 && !r->eof)
            return 2;
        if (rc == 0) {
            *len = r->end - r->pos;
            *nl = 0;
            return *len != 0;
        }
    }
}

/* A comment line longer than a block: a directive is refused, anything else skipped. */
static int ttft_tpot__long_comment(ttft_tpot__reader *r, unsigned long line)
{
    size_t len;
    int nl, rc;
    r->buf[r->pos + 16] = '\0'; /* the head is enough to tell a directive */
    if ((rc = ttft_tpot__directive(r, line, r->buf + r->pos + 1, 1)) != TTFT_TPOT_OK)
        return rc;
    for (;;) {
        r->pos = r->end;
        if ((rc = ttft_tpot__line(r, &len, &nl)) < 0)
            return rc;
        if (rc != 2) {
            r->pos += rc ? len + (size_t)nl : 0;
            r->line += (unsigned long)(rc && nl);
            return TTFT_TPOT_OK;
        }
    }
}

/* The fields of a record line [s, s + len), where they lie: 6 or fewer, each shorter than
   TTFT_TPOT__FIELD_MAX, none with a byte up to '"' (quote, control, space). Returns how many, or 0:
   the record then takes the byte-by-byte path, which reads quotes and says what is wrong. */
/* Non-zero when any of the 8 bytes at p is a comma or at most '"' (a quote, a control character, a
   space): exact for any bytes (those from 0x80, UTF-8, are neither), whatever the byte order; the
   high bit of each byte that is, and maybe of bytes above one that is. */
static uint64_t ttft_tpot__special8(const char *p)
{
    uint64_t x, c;
    memcpy(&x, p, 8);
    c = x ^ 0x2C2C2C2C2C2C2C2Cull;
    return (((x - 0x2323232323232323ull) & ~x) | ((c - 0x0101010101010101ull) & ~c)) & 0x8080808080808080ull;
}

/* How many plain bytes start p's 8: where a little-endian load tells, the lowest byte special8 marks,
   which is exact (a borrow only marks bytes above a marked one); else 0 or 8. */
static unsigned ttft_tpot__plain8(const char *p)
{
    uint64_t m = ttft_tpot__special8(p);
#if defined(TTFT_TPOT__LE) && (defined(__GNUC__) || defined(__clang__))
    return m ? (unsigned)__builtin_ctzll(m) / 8 : 8;
#else
    return m ? 0 : 8;
#endif
}

static int ttft_tpot__fields(ttft_tpot__reader *r, const char *s, size_t len)
{
    const char *p = s, *e = s + len, *b;
    int nf = 0;
    for (;;) {
        for (b = p; e - p >= 8;) { /* 8 bytes a step, to the first special one; then byte by byte */
            unsigned k = ttft_tpot__plain8(p);
            p += k;
            if (k < 8)
                break;
        }
        for (; p < e && *p != ','; p++)
            if ((unsigned char)*p <= '"')
                return 0;
        if ((size_t)(p - b) >= TTFT_TPOT__FIELD_MAX)
            return 0;
        r->f[nf] = b;
        r->len[nf++] = (size_t)(p - b);
        if (p == e)
            return nf;
        if (nf == 6)
            return 0;
        p++;
    }
}

/* Read one CSV record (RFC 4180) from its first byte, byte by byte, into field[]. Returns the number
   of fields, or EPARSE / EIO; line: the line it starts on. */
static int ttft_tpot__csv_row(ttft_tpot__reader *r, unsigned long line)
{
    int ch, nf = 0, quoted = 0, after_quote = 0;
    r->len[0] = 0;
    for (;;) {
        ch = ttft_tpot__getc(r);
        if (ch == EOF && ferror(r->in))
            return TTFT_TPOT_EIO;
        if (quoted) {
            if (ch == EOF)
                return ttft_tpot__fail(r, line, "unterminated quote", NULL);
            if (ch == '"') {
                int nx = ttft_tpot__getc(r);
                if (nx != '"') {
                    quoted = 0;
                    after_quote = 1;
                    ch = nx;
                    goto plain;
                }
            }
            if (ch == '\n')
                r->line++;
            goto store;
        }
    plain:
        if (ch == ',' || ch == '\n' || ch == '\r' || ch == EOF) {
            if (ch == '\r') {
                ch = ttft_tpot__getc(r);
                if (ch != '\n' && ch != EOF)
                    return ttft_tpot__fail(r, r->line, "stray carriage return", NULL);
            }
            r->f[nf] = r->field[nf];
            nf++;
            if (ch != ',') {
                r->line += ch == '\n';
                return nf;
            }
            if (nf == 6)
                return ttft_tpot__fail(r, line, "more than 6 fields", NULL);
            r->len[nf] = 0;
            after_quote = 0;
            continue;
        }
        if (after_quote)
            return ttft_tpot__fail(r, r->line, "text after a closing quote", NULL);
        if (ch == '"') {
            if (r->len[nf] != 0)
                return ttft_tpot__fail(r, r->line, "quote inside an unquoted field", NULL);
            quoted = 1;
            continue;
        }
    store:
        if (ch == 0)
            return ttft_tpot__fail(r, r->line, "NUL byte: not a text file", NULL);
        if (r->len[nf] + 1 >= TTFT_TPOT__FIELD_MAX)
            return ttft_tpot__fail(r, line, "field too long", NULL);
        r->field[nf][r->len[nf]++] = (char)ch;
    }
}

/* The next record, past empty lines and comment lines (acting on directives): its fields in f[] and
   len[]. Returns how many, 0 at the end of the input, or EPARSE / EIO; *line: the line it starts on. */
static int ttft_tpot__record(ttft_tpot__reader *r, unsigned long *line)
{
    size_t len, raw;
    int nl, rc;
    for (;;) {
        char *s;
        *line = r->line;
        if ((rc = ttft_tpot__line(r, &len, &nl)) <= 0)
            return rc;
        s = r->buf + r->pos;
        if (rc == 2) { /* longer than a block: a comment, or a record that is too long */
            if (s[0] != '#')
                return ttft_tpot__csv_row(r, *line);
            if ((rc = ttft_tpot__long_comment(r, *line)) != TTFT_TPOT_OK)
                return rc;
            continue;
        }
        r->pos += len + (size_t)nl;
        r->line += (unsigned long)nl;
        if (s[0] == '#') { /* its text, without a CRLF's '\r', ends in a NUL where the line end was */
            size_t n = len - 1 - (len > 1 && s[len - 1] == '\r');
            int bad = len - 1 >= TTFT_TPOT__LINE_MAX || memchr(s + 1, 0, n) != NULL;
            s[1 + n] = '\0';
            if ((rc = ttft_tpot__directive(r, *line, s + 1, bad)) != TTFT_TPOT_OK)
                return rc;
            continue;
        }
        if (len > 1 && s[0] == '\r')
            return ttft_tpot__fail(r, *line, "stray carriage return", NULL);
        raw = len;
        len -= len && s[len - 1] == '\r';
        if (len == 0)
            continue;
        if ((rc = ttft_tpot__fields(r, s, len)) > 0)
            return rc;
        r->pos -= raw + (size_t)nl; /* back to the start of the record */
        r->line -= (unsigned long)nl;
        return ttft_tpot__csv_row(r, *line);
    }
}

/* -- Trace I/O: records ------------------------------------------------------------------------ */

/* Whether the n bytes at a and b are the same: 8 to 16 bytes (most ids) as two words that may overlap,
   without a call. */
static int ttft_tpot__same(const char *a, const char *b, size_t n)
{
    uint64_t a0, a1, b0, b1;
    if (n < 8 || n > 16)
        return memcmp(a, b, n) == 0;
    memcpy(&a0, a, 8), memcpy(&a1, a + n - 8, 8);
    memcpy(&b0, b, 8), memcpy(&b1, b + n - 8, 8);
    return a0 == b0 && a1 == b1;
}

/* The index slot of the request named id (ttft_tpot__request_slot): one seen lately (a cache in front
   of the keyed index, which a miss falls back on; an entry is checked against the id it names, so one
   left stale by a rebuilt index only misses). id: 1 to 63 bytes. */
static uint32_t ttft_tpot__request_recent(ttft_tpot__reader *r, const char *id, size_t len)
{
    const ttft_tpot *c = r->c;
    uint64_t tail = 0;
    uint32_t *at, slot;
    memcpy(&tail, id + (len > 8 ? len - 8 : 0), len > 8 ? 8 : len); /* ids differ most at their end */
    at = &r->recent_req[((tail ^ len) * 0x9E3779B97F4A7C15u) >> 56];
    slot = *at - 1;
    if (*at && slot <= c->req.mask && c->req.index[slot]) {
        const char *have = c->req.list[(c->req.index[slot] & TTFT_TPOT__IDX_NUM) - 1].id;
        if (have[len] == '\0' && ttft_tpot__same(have, id, len))
            return slot;
    }
    slot = ttft_tpot__request_slot(c, id, len);
    *at = slot + 1;
    return slot;
}

/* A request line of a trace, checked as the API checks it; the request keeps its warmup flag. A
   growing collector makes room first. */
static int ttft_tpot__read_request_event(ttft_tpot__reader *r, unsigned long line, int submit, uint64_t t,
                                         uint64_t dur, uint64_t tokens, int warm)
{
    ttft_tpot *c = r->c;
    uint32_t slot = UINT32_MAX;
    int rc, q;
    if (dur != 0)
        return ttft_tpot__fail_field(r, line, "a request event has dur_ns 0, not ", 3);
    if (submit ? tokens != 0 : tokens == 0)
        return ttft_tpot__fail(r, line, submit ? "a submit has 0 tokens" : "a token event has 1 token or more",
                               NULL);
    if ((c->req.n == c->req.max || c->req.n_events == c->req.max_events) &&
        ttft_tpot__requests_grow(c) == TTFT_TPOT_ENOMEM) /* first: growing moves the index */
        return TTFT_TPOT_ENOMEM;
    if (r->len[0] > 0 && r->len[0] < TTFT_TPOT_NAME_MAX && c->req.max) /* the one lookup of this event */
        slot = ttft_tpot__request_recent(r, r->f[0], r->len[0]);
    q = slot != UINT32_MAX ? (int)(c->req.index[slot] & TTFT_TPOT__IDX_NUM) - 1 : -1;
    if (!submit && q >= 0 && c->req.list[q].warmup != warm)
        return ttft_tpot__fail_field(r, line, "warmup flag differs from the request's submit: ", 0);
    rc = ttft_tpot__request_event(c, r->f[0], r->len[0], t, (uint32_t)tokens, warm,
                                  submit ? TTFT_TPOT_POINT_SUBMIT : TTFT_TPOT_POINT_LAST, slot, &q);
    if (rc == TTFT_TPOT_ENAME)
        return ttft_tpot__fail_field(r, line, "invalid request id (1 to 63 bytes of UTF-8, no control characters): ", 0);
    if (rc == TTFT_TPOT_EFULL || rc == TTFT_TPOT__ELOG)
        return ttft_tpot__fail(r, line, "more requests or request events than this collector holds "
                                        "(config.max_requests, max_request_events), or an event after "
                                        "its request's # truncated: line", NULL);
    if (rc == TTFT_TPOT_EREQUEST)
        return ttft_tpot__fail_field(r, line,
                                     submit ? "second submit of request " : q < 0 ? "token for unknown request "
                                                                                  : "token before its request's submit or "
                                                                                    "previous token: ",
                                     0);
    return rc;
}

/* The phase a sample line names: one seen lately (a cache in front of the keyed index, which a miss
   falls back on), or found (added when new). */
static int ttft_tpot__sample_phase(ttft_tpot__reader *r, unsigned long line, int role)
{
    const char *s = r->f[0];
    size_t len = r->len[0];
    int *at, id;
    const ttft_tpot__phase_slot *p;
    if (len == 0 || len >= TTFT_TPOT_NAME_MAX) /* refused by ttft_tpot__phase_id */
        return ttft_tpot__phase_id(r, line, s, len, role);
    at = &r->recent[(len * 7 + (size_t)(unsigned char)s[0] * 3 + (unsigned char)s[len - 1]) & 63];
    p = *at ? &r->c->phase.slots[*at - 1] : NULL;
    if (p && p->role == role && p->name[len] == '\0' && memcmp(p->name, s, len) == 0)
        return *at - 1;
    if ((id = ttft_tpot__phase_id(r, line, s, len, role)) >= 0)
        *at = id + 1;
    return id;
}

/* A steady sample of a bounded phase, into the phase's pending histogram (its first sample is kept
   exact, as recording would): 1 taken, 0 not (the first), EPARSE (the histogram would pass
   TTFT_TPOT__HIST_MAX values or tokens) or ENOMEM. outgrow: the phase outgrew the storage instead,
   which takes a histogram slot when it has none (0: no slot is left). */
static int ttft_tpot__read_bounded(ttft_tpot__reader *r, unsigned long line, int id, uint64_t dur, uint64_t tokens,
                                   int outgrow)
{
    ttft_tpot *c = r->c;
    ttft_tpot__pending *pd;
    uint32_t *at = ttft_tpot__pend_at(r, id);
    if (!at)
        return TTFT_TPOT_ENOMEM;
    if (*at == 0 && c->phase.slots[id].fresh && !outgrow) {
        *at = UINT32_MAX; /* its first sample: kept exact */
        return 0;
    }
    if ((*at == 0 || *at == UINT32_MAX) && outgrow && !c->phase.slots[id].hist && c->hist.n + r->slots >= c->hist.max)
        return 0; /* no slot left: dropped */
    if (!(pd = ttft_tpot__pending_of(r, id, outgrow)))
        return TTFT_TPOT_ENOMEM;
    if (!ttft_tpot__hist_room(pd->n, pd->h.tokens, 1, tokens))
        return ttft_tpot__fail_field(r, line, "more than 2^63 samples or tokens in the phase's histogram: ", 0);
    ttft_tpot__hist_add(&pd->h, dur, (uint32_t)tokens);
    pd->n++;
    return 1;
}

/* A sample: a bounded phase's steady one into its histogram, any other stored past c->store.n until
   the end (a growing collector makes room). */
static int ttft_tpot__read_sample(ttft_tpot__reader *r, unsigned long line, int id, uint64_t start, uint64_t dur,
                                  uint64_t tokens, int warm)
{
    ttft_tpot *c = r->c;
    int rc;
    if (c->phase.slots[id].hist && !warm && (rc = ttft_tpot__read_bounded(r, line, id, dur, tokens, 0)) != 0)
        return rc < 0 ? rc : TTFT_TPOT_OK;
    if (start && !c->store.starts && c->grow && !c->hist.bounded && (rc = ttft_tpot__starts_take(c)) != TTFT_TPOT_OK)
        return rc;
    if (c->store.n + r->n >= c->store.capacity + (warm ? c->store.reserve : 0)) { /* as ttft_tpot__keep */
        rc = ttft_tpot__store_grow(c, c->store.n + r->n + 1);
        if (rc == TTFT_TPOT_ENOMEM)
            return rc;
        if (rc != TTFT_TPOT_OK) {
            rc = warm ? 0 : ttft_tpot__read_bounded(r, line, id, dur, tokens, 1);
            r->dropped += rc == 0;
            return rc < 0 ? rc : TTFT_TPOT_OK;
        }
    }
    ttft_tpot__store_put_timed(&c->store, c->store.n + r->n++, id, start, dur, (uint32_t)tokens, warm);
    return TTFT_TPOT_OK;
}

/* One record after the header: a sample or a request event. */
/* The words of the points mark p lies between, for a refusal's message: the last point (in the
   table's order) it follows and the first that follows it ("" none). */
static void ttft_tpot__mark_bounds(int p, const char **after, const char **before)
{
    int k;
    *after = *before = "";
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++) {
        if (ttft_tpot__points[p].follows >> k & 1u)
            *after = ttft_tpot__points[k].words;
        if (k != p && (ttft_tpot__points[k].follows >> p & 1u) && !**before)
            *before = ttft_tpot__points[k].words;
    }
}

/* "RID,ROLE,T,0,0,W": mark p (a schedule, ...) of a request of this trace. */
static int ttft_tpot__read_mark(ttft_tpot__reader *r, unsigned long line, int p, uint64_t t, uint64_t dur,
                                uint64_t tokens, int warm)
{
    ttft_tpot *c = r->c;
    const char *role = ttft_tpot__points[p].role, *after, *before;
    int q = r->len[0] < TTFT_TPOT_NAME_MAX ? ttft_tpot__request_find(c, r->f[0], r->len[0]) : -1;
    char what[160];
    if (dur != 0 || tokens != 0) {
        snprintf(what, sizeof what, "%s %s event has dur_ns 0 and 0 tokens", strchr("aeiou", role[0]) ? "an" : "a",
                 role);
        return ttft_tpot__fail(r, line, what, NULL);
    }
    if (q < (int)r->old.requests) { /* not found, or of an earlier trace: a read that fails must undo it */
        snprintf(what, sizeof what, "%s of a request not submitted earlier in this trace: ", role);
        return ttft_tpot__fail_field(r, line, what, 0);
    }
    if (c->req.list[q].warmup != warm)
        return ttft_tpot__fail_field(r, line, "warmup flag differs from the request's submit: ", 0);
    ttft_tpot__mark_bounds(p, &after, &before);
    snprintf(what, sizeof what, "second %s, or one before its request's %s or after its %s: ", role, after, before);
    if (ttft_tpot__request_mark(c, q, p, t) != TTFT_TPOT_OK)
        return ttft_tpot__fail_field(r, line, what, 0);
    return TTFT_TPOT_OK;
}

static int ttft_tpot__read_row(ttft_tpot__reader *r, int nf, unsigned long line)
{
    uint64_t start, dur, tokens, warm;
    int role, id;
    if (nf != 6)
        return ttft_tpot__fail(r, line, "expected 6 fields: ", ttft_tpot__header);
    if ((role = ttft_tpot__role_of(r->f[1], r->len[1])) < 0)
        return ttft_tpot__fail_field(r, line, "unknown role: ", 1);
    if (!ttft_tpot__u64(r->f[2], r->len[2], UINT64_MAX, &start))
        return ttft_tpot__fail_field(r, line, "start_ns is not an unsigned 64-bit integer: ", 2);
    if (!ttft_tpot__u64(r->f[3], r->len[3], UINT64_MAX, &dur))
        return ttft_tpot__fail_field(r, line, "dur_ns is not an unsigned 64-bit integer: ", 3);
    if (!ttft_tpot__u64(r->f[4], r->len[4], UINT32_MAX, &tokens))
        return ttft_tpot__fail_field(r, line, "tokens is not an unsigned 32-bit integer: ", 4);
    if (r->len[5] != 1 || (r->f[5][0] != '0' && r->f[5][0] != '1'))
        return ttft_tpot__fail_field(r, line, "warmup is not 0 or 1: ", 5);
    warm = (uint64_t)(r->f[5][0] - '0');
    if (role >= 4 && ttft_tpot__points[role - 4].set == TTFT_TPOT__SET_MARK) /* RID,schedule,T,0,0,W */
        return ttft_tpot__read_mark(r, line, role - 4, start, dur, tokens, (int)warm);
    if (role >= 4) /* a request event: RID,submit,T,0,0,W or RID,token,T,0,K,W */
        return ttft_tpot__read_request_event(r, line, role == 4 + TTFT_TPOT_POINT_SUBMIT, start, dur, tokens,
                                             (int)warm);
    if ((id = ttft_tpot__sample_phase(r, line, role)) < 0)
        return id;
    nf = (int)r->n; /* whether it is stored: device lines name samples by their line */
    if ((id = ttft_tpot__read_sample(r, line, id, start, dur, tokens, (int)warm)) == TTFT_TPOT_OK &&
        r->n == (size_t)nf && r->first_lost == SIZE_MAX)
        r->first_lost = r->rows;
    r->rows++;
    return id;
}

/* The header line, after an optional UTF-8 byte order mark. */
static int ttft_tpot__read_header(ttft_tpot__reader *r)
{
    static const char *const cols[6] = {"phase", "role", "start_ns", "dur_ns", "tokens", "warmup"};
    unsigned long line;
    int nf, i, rc;
    while (r->end - r->pos < 3 && (rc = ttft_tpot__more(r)) != 0)
        if (rc < 0)
            return rc;
    if (r->end - r->pos >= 1 && (unsigned char)r->buf[r->pos] == 0xEF) {
        if (r->end - r->pos < 3 || memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3) != 0)
            return ttft_tpot__fail(r, 1, "missing header: expected ", ttft_tpot__header);
        r->pos += 3;
    }
    if ((nf = ttft_tpot__record(r, &line)) < 0)
        return nf;
    for (i = 0; i < 6 && nf == 6; i++)
        if (strlen(cols[i]) != r->len[i] || memcmp(r->f[i], cols[i], r->len[i]) != 0)
            break;
    return i == 6 ? TTFT_TPOT_OK : ttft_tpot__fail(r, line, "missing header: expected ", ttft_tpot__header);
}

/* -- Trace I/O: the end of a read -------------------------------------------------------------- */

/* The steady samples of phase p once the trace joins: the scan of its stored ones (n, sum, min, max),
   with its histogram's (the pending one, else its own). */
static ttft_tpot__scan ttft_tpot__steady_of(const ttft_tpot__reader *r, const ttft_tpot__scan *stored, unsigned p)
{
    const ttft_tpot_hist *h = r->pend_of && r->pend_of[p] && r->pend_of[p] != UINT32_MAX
                                  ? &r->pending[r->pend_of[p] - 1].h : r->c->phase.slots[p].hist;
    ttft_tpot__scan s = *stored;
    uint64_t n = h ? ttft_tpot__hist_count(h) : 0;
    if (n) {
        s.mn = s.n && s.mn < h->min_ns ? s.mn : h->min_ns;
        s.mx = s.n && s.mx > h->max_ns ? s.mx : h->max_ns;
        s.lo += h->sum_lo;
        s.hi += h->sum_hi + (s.lo < h->sum_lo);
        s.n += (size_t)n;
    }
    return s;
}

/* A prefill phase's prompt sums (N, NS) against its steady samples (ttft_tpot__steady_of): N of them
   at most, or more by no more than the samples dropped anywhere (dropped, a merge may have dropped the
   ones that carried prompts); and with nothing dropped, NS the time of N of them: N times their
   least to N times their most, and the rest's time between as many times their least and most. */
static int ttft_tpot__prompt_ok(const ttft_tpot__scan *s, uint64_t n, uint64_t ns, uint64_t dropped)
{
    ttft_tpot__u128 sum, t;
    if (n > s->n)
        return n - s->n <= dropped;
    if (dropped)
        return 1;
    sum.hi = s->hi;
    sum.lo = s->lo;
    t.hi = 0;
    t.lo = ns;
    return ttft_tpot__le(ttft_tpot__mul(n, s->mn), t) && ttft_tpot__le(t, ttft_tpot__mul(n, s->mx)) &&
           ttft_tpot__le(ttft_tpot__add(t, ttft_tpot__mul(s->n - n, s->mn)), sum) &&
           ttft_tpot__le(sum, ttft_tpot__add(t, ttft_tpot__mul(s->n - n, s->mx)));
}

/* Every "# prompt:" sum against the samples it describes, once the whole trace has been read: OK, ENOMEM,
   or EPARSE at the line of the phase's last "# prompt:" line. */
static int ttft_tpot__check_prompts(ttft_tpot__reader *r)
{
    const ttft_tpot *c = r->c;
    ttft_tpot__scan *stored = (ttft_tpot__scan *)TTFT_TPOT_MALLOC(c->phase.n * sizeof *stored, c->alloc_user), s;
    uint64_t dropped = c->store.dropped + r->dropped + r->counts[TTFT_TPOT__COUNT_dropped], n, ns;
    char what[TTFT_TPOT_NAME_MAX + 160];
    size_t i;
    unsigned p;
    int rc = TTFT_TPOT_OK;
    if (!stored)
        return TTFT_TPOT_ENOMEM;
    memset(stored, 0, c->phase.n * sizeof *stored);
    for (i = 0; i < c->store.n + r->n; i++) {
        const ttft_tpot_sample *x = &c->store.samples[i];
        if (!x->warmup && r->prompt[x->phase][3])
            ttft_tpot__scan_one(&stored[x->phase], x->dur_ns);
    }
    for (p = 0; p < c->phase.n && rc == TTFT_TPOT_OK; p++) {
        if (!r->prompt[p][3])
            continue;
        s = ttft_tpot__steady_of(r, &stored[p], p);
        n = c->phase.slots[p].prompt[0] + r->prompt[p][0];
        ns = c->phase.slots[p].prompt[2] + r->prompt[p][2];
        if (ttft_tpot__prompt_ok(&s, n, ns, dropped < c->store.dropped ? UINT64_MAX : dropped))
            continue;
        if (n > s.n)
            snprintf(what, sizeof what, "# prompt: %llu prefills carry prompt tokens, more than the %llu steady "
                     "samples of %s", (unsigned long long)n, (unsigned long long)s.n, c->phase.slots[p].name);
        else
            snprintf(what, sizeof what, "# prompt: %llu ns is not the time of %llu steady samples of %s (each %llu to "
                     "%llu ns)", (unsigned long long)ns, (unsigned long long)n, c->phase.slots[p].name,
                     (unsigned long long)s.mn, (unsigned long long)s.mx);
        rc = ttft_tpot__fail(r, (unsigned long)r->prompt[p][3], what, NULL);
    }
    TTFT_TPOT_FREE(stored, c->alloc_user);
    return rc;
}

/* What the directives say of the records, once the whole trace has been read: a truncated request
   lost an event at least, the requests dropped hold those refused and the events lost, and the
   prompt sums are those of the samples. OK, ENOMEM, or EPARSE at the directive's line. */
static int ttft_tpot__read_check(ttft_tpot__reader *r)
{
    const uint64_t *k = r->counts, lost = k[TTFT_TPOT__COUNT_events_lost];
    const uint64_t refused = k[TTFT_TPOT__COUNT_requests_refused];
    char what[160];
    if (r->truncated > lost) {
        snprintf(what, sizeof what, "# truncated: %llu truncated requests, more than the %llu events the trace lost "
                 "(# counts: events_lost)", (unsigned long long)r->truncated, (unsigned long long)lost);
        return ttft_tpot__fail(r, r->truncated_line, what, NULL);
    }
    if (lost > k[TTFT_TPOT__COUNT_requests_dropped] || refused > k[TTFT_TPOT__COUNT_requests_dropped] - lost) {
        snprintf(what, sizeof what, "# counts: requests_dropped=%llu is less than events_lost + "
                 "requests_refused (%.0f)", (unsigned long long)k[TTFT_TPOT__COUNT_requests_dropped],
                 (double)lost + (double)refused);
        return ttft_tpot__fail(r, r->counts_line, what, NULL);
    }
    return r->prompt ? ttft_tpot__check_prompts(r) : TTFT_TPOT_OK;
}

/* The whole trace was read: its samples, histograms, counts and clock join the collector. */
static void ttft_tpot__read_commit(ttft_tpot *c, ttft_tpot__reader *r)
{
    size_t i;
    unsigned k = 0;
    for (i = c->store.n; i < c->store.n + r->n; i++)
        if (c->phase.slots[c->store.samples[i].phase].fresh)
            ttft_tpot__phase_called(c, &c->phase.slots[c->store.samples[i].phase]);
    c->store.n += r->n;
    ttft_tpot__run_close(c, c->store.n); /* the trace's runs are its own */
    c->store.dropped += r->dropped;
#define TTFT_TPOT__ADD_COUNT(name, field) c->field += r->counts[k++];
    TTFT_TPOT__COUNTS(TTFT_TPOT__ADD_COUNT)
#undef TTFT_TPOT__ADD_COUNT
    for (k = 0; k < 4; k++) /* the recording collector's limits, for the warnings: the first known */
        if ((r->limits & ~c->full_known) >> k & 1u) {
            c->full_at[k] = r->counts[TTFT_TPOT__N_COUNTS + k];
            c->full_known |= 1u << k;
        }
    for (k = 0; r->prompt && k < c->phase.n; k++) {
        c->phase.slots[k].prompt[0] += r->prompt[k][0];
        c->phase.slots[k].prompt[1] += r->prompt[k][1];
        c->phase.slots[k].prompt[2] += r->prompt[k][2];
    }
    for (k = 0; k < r->n_pending; k++) {
        ttft_tpot__phase_slot *p = &c->phase.slots[r->pending[k].phase];
        if (!p->hist) { /* the slot was counted while reading */
            ttft_tpot_phase_bounded(c, r->pending[k].phase);
            p->outgrown = (uint16_t)r->pending[k].outgrown;
            c->store.outgrown += (uint64_t)r->pending[k].outgrown;
        }
        *p->hist = r->pending[k].h; /* it started from the phase's */
        if (p->fresh)
            ttft_tpot__phase_called(c, p);
    }
    c->dev.n += r->dev_n;
    c->dev.open += r->dev_open;
    ttft_tpot__device_count(&c->dev.unresolved, r->dev_lost[0]);
    ttft_tpot__device_count(&c->dev.refused, r->dev_lost[1]);
    if (r->clock_read_ns && !c->clock_from_trace) { /* the clock that recorded the first trace read */
        memcpy(c->clock_name, r->clock_name, sizeof c->clock_name);
        c->clock_read_ns = r->clock_read_ns;
        c->clock_from_trace = 1;
    }
}

TTFT_TPOT_DEF int ttft_tpot_trace_read(ttft_tpot *c, FILE *in, const char *name, char *err, size_t errlen)
{
    ttft_tpot__reader *r;
    unsigned long line;
    int rc, nf;
    if (err && errlen)
        err[0] = '\0';
    if (!c || !in || !c->phase.slots)
        return TTFT_TPOT_EINVAL;
    r = (ttft_tpot__reader *)TTFT_TPOT_MALLOC(sizeof *r, c->alloc_user);
    if (!r)
        return TTFT_TPOT_ENOMEM;
    memset(r, 0, offsetof(ttft_tpot__reader, field));
    if (!(r->buf = (char *)TTFT_TPOT_MALLOC(TTFT_TPOT__BLOCK + 1, c->alloc_user))) {
        TTFT_TPOT_FREE(r, c->alloc_user);
        return TTFT_TPOT_ENOMEM;
    }
    r->in = in;
    r->c = c;
    r->line = 1;
    r->err = err;
    r->errlen = errlen;
    r->name = name ? name : "(trace)";
    r->old = ttft_tpot__mark_of(c);
    r->old_samples = c->store.n;
    r->first_lost = SIZE_MAX;
    ttft_tpot__run_close(c, c->store.n); /* the trace's samples are in no run of c's */
    rc = ttft_tpot__read_header(r);
    while (rc == TTFT_TPOT_OK && (nf = ttft_tpot__record(r, &line)) != 0)
        rc = nf < 0 ? nf : ttft_tpot__read_row(r, nf, line);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot__read_check(r);
    if (rc == TTFT_TPOT_OK) {
        ttft_tpot__read_commit(c, r);
    } else { /* forget what this call added; samples past c->store.n were never counted */
        ttft_tpot__rollback(c, &r->old);
    }
    if (r->pending)
        TTFT_TPOT_FREE(r->pending, c->alloc_user);
    if (r->pend_of)
        TTFT_TPOT_FREE(r->pend_of, c->alloc_user);
    if (r->prompt)
        TTFT_TPOT_FREE(r->prompt, c->alloc_user);
    TTFT_TPOT_FREE(r->buf, c->alloc_user);
    TTFT_TPOT_FREE(r, c->alloc_user);
    return rc;
}


#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Ranks: the tensor-parallel ranks of one model ---------------------------------------------- */

/* A rank's steady decode steps in call order, into a new array; how many in *n. NULL with *n 0 when it
   has none or keeps some in a histogram (they cannot be lined up), else NULL only out of memory. */
static uint64_t *ttft_tpot__tp_steps(const ttft_tpot *c, size_t *n)
{
    ttft_tpot_counts k = ttft_tpot_counts_of(c);
    uint64_t *v = (uint64_t *)malloc((k.samples ? k.samples : 1) * sizeof *v), stored = 0;
    ttft_tpot_stats st;
    ttft_tpot_sample s;
    unsigned p;
    size_t i;
    *n = 0;
    for (i = 0; v && i < k.samples && ttft_tpot_sample_at(c, i, &s, NULL) == TTFT_TPOT_OK; i++)
        if (ttft_tpot_phase_role(c, s.phase) == TTFT_TPOT_ROLE_DECODE && !s.warmup)
            v[(*n)++] = s.dur_ns;
    for (p = 0; v && p < k.phases; p++) /* every steady step stored: none in a histogram */
        if (ttft_tpot_phase_role(c, (int)p) == TTFT_TPOT_ROLE_DECODE && ttft_tpot_phase_stats(c, (int)p, &st) == 0)
            stored += st.n - st.warmup_n;
    if (v && (*n == 0 || stored != *n)) {
        *n = 0;
        free(v);
        return NULL;
    }
    return v;
}

TTFT_TPOT_DEF int ttft_tpot_ranks_compute(const ttft_tpot *const *c, int n, ttft_tpot_ranks_figures *f)
{
    uint64_t *step[TTFT_TPOT_RANKS_MAX], *max = NULL, *spread = NULL;
    size_t len[TTFT_TPOT_RANKS_MAX], i, total = 0;
    int r, made = 0, rc = 0;
    memset(f, 0, sizeof *f);
    f->n = n;
    if (n < 1 || n > TTFT_TPOT_RANKS_MAX)
        return -2;
    for (r = 0; r < n && rc == 0; r++, made++) {
        step[r] = ttft_tpot__tp_steps(c[r], &len[r]);
        rc = !step[r] ? (len[r] == 0 ? -2 : -1)
                      : ttft_tpot_stats_of(c[r], step[r], len[r], &f->rank[r]) == TTFT_TPOT_OK ? 0 : -1;
        total += len[r];
        if (r == 0 || len[r] < f->steps)
            f->steps = len[r];
    }
    if (rc == 0 && (!(max = (uint64_t *)malloc((size_t)f->steps * sizeof *max)) ||
                    !(spread = (uint64_t *)malloc((size_t)f->steps * sizeof *spread))))
        rc = -1;
    for (i = 0; rc == 0 && i < f->steps; i++) {
        uint64_t lo = step[0][i];
        int slow = 0;
        for (r = 1; r < n; r++) {
            slow = step[r][i] > step[slow][i] ? r : slow;
            lo = step[r][i] < lo ? step[r][i] : lo;
        }
        max[i] = step[slow][i];
        spread[i] = max[i] - lo;
        f->slowest[slow]++;
    }
    f->unmatched = total - f->steps * (uint64_t)n;
    if (rc == 0 && (ttft_tpot_stats_of(c[0], max, (size_t)f->steps, &f->tpot) != TTFT_TPOT_OK ||
                    ttft_tpot_stats_of(c[0], spread, (size_t)f->steps, &f->spread) != TTFT_TPOT_OK))
        rc = -1;
    free(max);
    free(spread);
    for (r = 0; r < made; r++)
        free(step[r]);
    return rc;
}

#ifndef TTFT_TPOT_NO_STDIO

/* ns as ms with two decimals, us below 1 ms, whole ns below 1 us, as the report writes small times. */
static const char *ttft_tpot__tp_ms(char *buf, size_t len, double ns)
{
    if (ns < 999.5) /* "0.00 us" would hide a step of a few ns */
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    return buf;
}

/* A rank's trace name as a terminal should see it: bytes outside printable ASCII as \xHH, the first
   1018 bytes of it at most so written. */
static void ttft_tpot__tp_name(FILE *out, const char *s)
{
    size_t at = 0;
    for (; *s && at + 5 < 1024; s++) {
        unsigned char b = (unsigned char)*s;
        if (b >= 0x20 && b < 0x7f) {
            fputc(b, out);
            at++;
        } else {
            fprintf(out, "\\x%02x", b);
            at += 4;
        }
    }
}

/* The text: a row a rank, then the model's step. names: the ranks' traces. */
static void ttft_tpot__tp_text(FILE *out, const ttft_tpot_ranks_figures *f, const char *const *names)
{
    char a[32], b[32], c[32];
    int r;
    fprintf(out, "Tensor-parallel ranks: %d (a step waits for its slowest rank: its time is the maximum over the "
                 "ranks)\nrank  steps        p50        p99       mean  slowest  trace\n", f->n);
    for (r = 0; r < f->n; r++) {
        fprintf(out, "%4d %6llu %10s %10s %10s %7.1f%%  ", r, (unsigned long long)f->rank[r].n,
                ttft_tpot__tp_ms(a, sizeof a, f->rank[r].p50_ns), ttft_tpot__tp_ms(b, sizeof b, f->rank[r].p99_ns),
                ttft_tpot__tp_ms(c, sizeof c, f->rank[r].mean_ns),
                f->steps ? 100.0 * (double)f->slowest[r] / (double)f->steps : 0.0);
        ttft_tpot__tp_name(out, names[r]);
        fputc('\n', out);
    }
    fprintf(out, "TPOT (step = max over ranks): p50 %s, p90 %s, p99 %s, ",
            ttft_tpot__tp_ms(a, sizeof a, f->tpot.p50_ns), ttft_tpot__tp_ms(b, sizeof b, f->tpot.p90_ns),
            ttft_tpot__tp_ms(c, sizeof c, f->tpot.p99_ns));
    fprintf(out, "mean %s  (n=%llu steps lined up", ttft_tpot__tp_ms(a, sizeof a, f->tpot.mean_ns),
            (unsigned long long)f->steps);
    if (f->unmatched)
        fprintf(out, "; %llu step%s past the shortest rank left out", (unsigned long long)f->unmatched,
                f->unmatched == 1 ? "" : "s");
    fputs(")\n", out);
    fprintf(out, "Straggler spread (max - min per step): p50 %s, p99 %s, max %s\n",
            ttft_tpot__tp_ms(a, sizeof a, f->spread.p50_ns), ttft_tpot__tp_ms(b, sizeof b, f->spread.p99_ns),
            ttft_tpot__tp_ms(c, sizeof c, (double)f->spread.max_ns));
}

/* ns as ms to the ns (rounded half up), as the report's JSON writes times: "0.000101", "2.0". Steps are
   below 2^64 ns, and so is any figure of them but a total, which saturates. */
static void ttft_tpot__tp_json_ms(FILE *out, const char *key, double ns)
{
    unsigned long long r = ns + 0.5 < 18446744073709551615.0 ? (unsigned long long)(ns + 0.5) : ~0ULL;
    char frac[8];
    int k;
    snprintf(frac, sizeof frac, "%06llu", r % 1000000);
    for (k = 5; k > 0 && frac[k] == '0'; k--) /* at least one decimal */
        frac[k] = '\0';
    fprintf(out, ",\"%s\":%llu.%s", key, r / 1000000, frac);
}

static void ttft_tpot__tp_json_stats(FILE *out, const ttft_tpot_stats *s)
{
    fprintf(out, "{\"n\":%llu", (unsigned long long)s->n);
    ttft_tpot__tp_json_ms(out, "mean_ms", s->mean_ns);
    ttft_tpot__tp_json_ms(out, "p50_ms", s->p50_ns);
    ttft_tpot__tp_json_ms(out, "p90_ms", s->p90_ns);
    ttft_tpot__tp_json_ms(out, "p95_ms", s->p95_ns);
    ttft_tpot__tp_json_ms(out, "p99_ms", s->p99_ns);
    ttft_tpot__tp_json_ms(out, "min_ms", (double)s->min_ns);
    ttft_tpot__tp_json_ms(out, "max_ms", (double)s->max_ns);
    ttft_tpot__tp_json_ms(out, "total_ms", s->total_ns);
    fputc('}', out);
}

/* The JSON object "ranks" (ttft_tpot_ranks_report), written as a key and its value. */
static void ttft_tpot__tp_json(FILE *out, const ttft_tpot_ranks_figures *f)
{
    int r;
    fprintf(out, "\"ranks\":{\"n\":%d,\"steps\":%llu,\"unmatched\":%llu,\"tpot\":", f->n,
            (unsigned long long)f->steps, (unsigned long long)f->unmatched);
    ttft_tpot__tp_json_stats(out, &f->tpot);
    fputs(",\"slowest\":[", out);
    for (r = 0; r < f->n; r++)
        fprintf(out, r ? ",%llu" : "%llu", (unsigned long long)f->slowest[r]);
    fputs("],\"spread\":", out);
    ttft_tpot__tp_json_stats(out, &f->spread);
    fputs(",\"per_rank\":[", out);
    for (r = 0; r < f->n; r++) {
        fputs(r ? "," : "", out);
        ttft_tpot__tp_json_stats(out, &f->rank[r]);
    }
    fputs("]}", out);
}

TTFT_TPOT_DEF int ttft_tpot_ranks_report(FILE *out, const ttft_tpot *rank0, const ttft_tpot_ranks_figures *f,
                                         const char *const *names, int json)
{
    char block[TTFT_TPOT__OUT_MIN];
    ttft_tpot__out o;
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(rank0, NULL, &m);
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (!json) {
        rc = ttft_tpot_model_report(&m, out);
        fputc('\n', out);
        ttft_tpot__tp_text(out, f, names);
    } else { /* the report's object, its closing "}\n" (still in the block) replaced by "ranks" */
        ttft_tpot__out_open(&o, out, block, sizeof block);
        ttft_tpot__json(&m, &o);
        TTFT_TPOT_ASSERT(o.n >= 2 && o.b[o.n - 2] == '}');
        o.n -= 2;
        ttft_tpot__out_chr(&o, ',');
        ttft_tpot__out_flush(&o);
        ttft_tpot__tp_json(out, f);
        fputs("}\n", out);
        rc = ttft_tpot__finish(out);
    }
    ttft_tpot_model_free(&m);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifdef __cplusplus
}
#endif
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
#endif /* TTFT_TPOT_IMPLEMENTATION */

/* MIT License, as ttft_tpot.h: the text is at the end of that file. */
