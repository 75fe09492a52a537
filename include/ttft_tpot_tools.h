/* ttft_tpot_tools.h - v0.4.0 - what programs that read traces and derive figures need, beside ttft_tpot.h.

   A driver needs only ttft_tpot.h (and ttft_tpot_serve.h when it serves requests). This header is for
   the report tool, the Python package, and any program that reads traces, exports them, or takes
   figures apart: the trace reader, the Chrome trace, the requests CSV, queries of a collector,
   statistics helpers, the parsers of the command-line forms, and what the report tool makes of
   traces: the HTML page (--html), the comparison of two sides' runs (--compare) and the figures of
   tensor-parallel ranks (--ranks). It includes ttft_tpot_serve.h (and so ttft_tpot.h) and uses only
   their public calls: a report model read in place (ttft_tpot_model), ttft_tpot_series_stats for
   statistics, ttft_tpot_write for text, and ttft_tpot_restore and ttft_tpot_serve_restore to put a
   trace back. The HTML page, the comparison and the ranks take their scratch memory from the C
   library's malloc, not TTFT_TPOT_MALLOC; like the rest, they need no libm.

   USE
     The stb way, as ttft_tpot.h: declarations always; the implementation where TTFT_TPOT_IMPLEMENTATION
     is defined. In the one file that holds the implementation, include this header (it includes the
     other two), so that all three halves are compiled there:

         #define TTFT_TPOT_IMPLEMENTATION
         #include "ttft_tpot_tools.h"

     Other files include any of the headers. A program that includes ttft_tpot.h alone in its
     implementation file builds and reports without this header's code.

   INDEX (one line a function; each is declared below with its contract)
     Statistics    ttft_tpot_ci95_min_n    the fewest values a percentile's 95% interval needs
                   ttft_tpot_percentile    a percentile of sorted doubles (numpy's "linear")
                   ttft_tpot_percentile_name  "p99.9" from thousandths of a percent
                   ttft_tpot_phase_stats   statistics of one phase
                   ttft_tpot_stats_of      statistics of any array of durations
                   ttft_tpot_summarize     the headline figures alone
     Queries       ttft_tpot_counts_of     what a collector holds and lost
                   ttft_tpot_sample_at     the i-th stored sample
                   ttft_tpot_run_at        run r's samples
                   ttft_tpot_device_at     the i-th device interval
                   ttft_tpot_sorted_values a set's values, ascending
                   ttft_tpot_cdf           a set's empirical CDF
                   ttft_tpot_find_phase    a phase's id by name
                   ttft_tpot_phase_name    a phase's name
                   ttft_tpot_phase_role    a phase's role
                   ttft_tpot_clock_name    the clock that timed the samples
                   ttft_tpot_clock_read_ns what one read of it costs
     Parsers       ttft_tpot_slo_parse     "ttft=MS,tpot=MS,e2e=MS"
                   ttft_tpot_percentiles_parse  "50,90,99,99.9"
     Files         ttft_tpot_trace_read    read a trace back into a collector (and its serving layer)
                   ttft_tpot_chrome_trace  a Chrome / Perfetto trace
                   ttft_tpot_requests_csv  one CSV row a request
     Reports       ttft_tpot_html_report   the report as one self-contained HTML page, charts inline
     Comparison    ttft_tpot_compare_sides did the new side change what a user waits for? (runs the unit)
                   ttft_tpot_compare_models  the same, one model a side
                   ttft_tpot_compare_free  what a comparison holds, freed
                   ttft_tpot_compare_defaults  alpha 0.05, noise 2%, phases out of the verdict
                   ttft_tpot_compare_better  whether a row's change is for the better
                   ttft_tpot_compare_text  the verdict and the table
                   ttft_tpot_compare_json  the same as JSON (schema ttft_tpot/compare-v1)
                   ttft_tpot_compare_html  the headline of the HTML page of two models
                   ttft_tpot_compare_mann_whitney  the U test's p-value, normal approximation
                   ttft_tpot_compare_mann_whitney_exact  its exact p-value (to 40 values)
                   ttft_tpot_compare_min_p the smallest p-value samples of two sizes can give
                   ttft_tpot_compare_hodges_lehmann  the median of every difference b - a
     Ranks         ttft_tpot_ranks_compute the tensor-parallel ranks' step: the slowest rank's, step by step
                   ttft_tpot_ranks_report  rank 0's report with the ranks' figures (text or JSON)

   The statistics of ttft_tpot.h (ttft_tpot_series_stats, ttft_tpot_ci95_ranks, ttft_tpot_t975,
   ttft_tpot_sort) and the serving layer's queries (ttft_tpot_request_at, ttft_tpot_requests_summary,
   ttft_tpot_metric_values) are declared in their own headers.
*/
#ifndef TTFT_TPOT_TOOLS_H
#define TTFT_TPOT_TOOLS_H

#include "ttft_tpot_serve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================ types ======================================================== */

/* What a collector holds and what it lost, as tools and tests read it (the fields may move). */
typedef struct ttft_tpot_counts {
    size_t samples;     /* stored */
    unsigned phases;    /* registered */
    unsigned requests;  /* tracked (its serving layer's) */
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
    uint64_t spans_cancelled; /* spans ended by ttft_tpot_span_cancel */
    uint64_t sequences_lost, sequences_in_histogram; /* steps of several tokens a sequence kept without
                                                         their sequences: no config.sequences; a histogram */
} ttft_tpot_counts;

/* One point of a set's empirical CDF (ttft_tpot_cdf): a value in ns, and the share of the set at or
   under it. */
typedef struct ttft_tpot_cdf_point {
    uint64_t x;
    double y;
} ttft_tpot_cdf_point;

/* ---- Reports: the HTML page ------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO
/* Writes the headline table of a comparison of m[0] (base) and m[1] (new): 0, or -1. The report tool
   passes ttft_tpot_compare_html; a page of one model needs none. */
typedef int (*ttft_tpot_html_headline_fn)(FILE *out, const ttft_tpot_model *const *m);
#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Comparison: did the new side change what a user waits for? (--compare) ------------------ */

/* The unit of evidence is a run: with one trace a side, each run it marked (ttft_tpot_run_begin,
   generate --repeat-runs), or the trace when it marked none; with several traces a side (a process
   each), each trace, the mean of its runs: runs of one process share its memory placement and the
   machine's state, so processes are the independent draws. The steps, kernel calls and requests of
   one run are correlated, so they never enter a test as independent draws: each metric becomes one
   value a run (the run's p50, or its output tok/s), and the two sides' runs are compared by the
   two-sided Mann-Whitney U test (exact up to 40 runs in all, ties included).

   The verdict is one judgment a headline metric (steady TTFT p50, TPOT p50, output throughput; with
   requests, their TTFT, TPOT and E2E p50), each with its direction (lower latency, higher throughput
   is better), the family-wise error held at alpha by Holm's step-down method. A significant change
   whose Hodges-Lehmann shift is under the noise threshold is "within noise". Phase rows are the detail
   under the verdict (Holm over their own family); they join the verdict only when asked. With too few
   runs to reach significance the verdict says so, with the runs a side it needs. The tail (each run's
   TPOT p99 without its isolated spikes, row tpot_p99) is a family of its own, judged beside the verdict. Under it: what the
   verdict cannot tell (one process a side; processes not interleaved in time, by their traces'
   "# started:"), and the smallest change each headline row's runs detect 4 times in 5. Runs of
   unequal length (steady decode steps) are judged over their common first steps: each run's tpot,
   tpot_p99 and output_throughput are of its first steps as many as the shortest run has (a line
   says so), as the mean or the p99 of heavy-tailed steps moves with the steps it is over. */

#define TTFT_TPOT_COMPARE_NOISE_PCT 2.0 /* the default noise threshold, as criterion.rs's */

/* The values of one metric on one side, in its unit (ms, or tok/s), sorted ascending. */
typedef struct ttft_tpot_compare_values {
    double *v;
    size_t n;
} ttft_tpot_compare_values;

/* What a comparison concludes (ttft_tpot_compare_result.kind), the names of the JSON verdict's "kind". */
#define TTFT_TPOT_COMPARE_KINDS(X)                                                                     \
    X(NO_DIFFERENCE, "no_difference") X(WITHIN_NOISE, "within_noise") X(IMPROVEMENT, "improvement")    \
    X(REGRESSION, "regression") X(TRADE_OFF, "trade_off") X(UNDECIDED, "undecided")
#define TTFT_TPOT__COMPARE_KIND_ENUM(name, json) TTFT_TPOT_COMPARE_##name,
enum { TTFT_TPOT_COMPARE_KINDS(TTFT_TPOT__COMPARE_KIND_ENUM) TTFT_TPOT_COMPARE_KIND_COUNT };
#undef TTFT_TPOT__COMPARE_KIND_ENUM

/* A side: the models of its traces, computed whole, their collectors alive. */
typedef struct ttft_tpot_compare_side {
    const ttft_tpot_model *const *trace;
    size_t n;
} ttft_tpot_compare_side;

typedef struct ttft_tpot_compare_options {
    double alpha;     /* the family-wise significance level, 0 < alpha < 1 */
    double noise_pct; /* a significant shift smaller than this (in %) is within noise */
    int phases;       /* phase rows join the verdict's family */
} ttft_tpot_compare_options;

/* One row of the comparison. */
typedef struct ttft_tpot_compare_row {
    char metric[TTFT_TPOT_NAME_MAX + 8]; /* ttft_first, ttft_steady, tpot, e2e, output_throughput, a
                                            request metric (requests.ttft ... itl, e2e), phase:NAME,
                                            tpot_p99 (the tail's) */
    const char *unit;                   /* "ms" or "tok/s" */
    ttft_tpot_compare_values base, new_; /* one value a run */
    ttft_tpot_compare_values p99[2];     /* each run's p99 (not of output throughput) */
    double median[2], ci[2][2];         /* the runs' median; its 95% interval: over the runs (6 or more),
                                           or, for a side of one run, over that run's own values */
    int has_ci[2];
    double mean[2], mean_ci[2][2]; /* the runs' mean and its 95% t-interval (2 runs or more) */
    int has_mean_ci[2];
    int role;    /* a phase row's role; -1 for the others */
    int per_run; /* both sides have 2 runs or more: a test is possible */
    int only;    /* 0: both sides have the metric; 1: only the base side, 2: only the new side */
    int in_verdict;   /* a headline metric: one of the verdict's rows */
    int tail;         /* the tail's row, tpot_p99 (each run's TPOT p99): judged beside the verdict, Holm
                         over its own family */
    int family;       /* counted in its family's Holm adjustment (a row of runs on both sides, where the
                         family has one: a row of one value a side cannot be tested; too_few then) */
    int has_delta, has_p, significant, too_few, has_p99_ci, has_shift, within_noise;
    int direction;    /* the new side's values lie lower (-1), higher (1) or neither (0): the U statistic's
                         side over the runs, or over the values of a run a side */
    double delta_pct; /* the medians' change */
    double shift_pct; /* the Hodges-Lehmann shift over the runs, in % of the base side's median */
    double p_value;   /* two-sided, over the runs */
    double p_holm;    /* adjusted by Holm's method within its family (verdict, or detail) */
    double p99_ci[2]; /* the 95% Welch interval of the change of the runs' mean p99, in % */
    int has_detect;    /* a headline row whose runs can reach significance */
    double detect_pct; /* the smallest change (in % of the base side's mean) that its runs detect 80% of
                          the time at their pooled spread, normal, where Holm's first step must (alpha
                          / family); at least the noise threshold */
} ttft_tpot_compare_row;

typedef struct ttft_tpot_compare_result {
    ttft_tpot_compare_row *rows;
    size_t n;
    ttft_tpot_compare_options opt;
    int kind;             /* TTFT_TPOT_COMPARE_* of TTFT_TPOT_COMPARE_KINDS */
    unsigned family;      /* rows in the verdict's Holm family (ttft_tpot_compare_row.family) */
    unsigned tail_family; /* rows in the tail's */
    size_t runs[2];       /* the runs a side of the family's row whose runs can give the smallest p */
    size_t traces[2];     /* a side's traces: one each makes its marked runs the units */
    double best_p;        /* that smallest p-value */
    unsigned runs_needed; /* runs a side that can reach alpha / family */
    int interleaved;      /* 1: the sides' processes started interleaved in time; 0: every process of
                             one side before every one of the other (a drift reads as a change); -1:
                             unknown (unstarted traces), or one trace a side */
    size_t unstarted;     /* traces without a start time ("# started:", ttft_tpot_model.started_ns) */
    size_t decode_steps[2]; /* the fewest and the most steady decode steps of a marked run, over both
                               sides' runs that have one (0 and 0: none) */
    size_t decode_judged;   /* runs of unequal length (decode_steps[0] < [1]): each run's tpot, tpot_p99
                               and output_throughput are of its first this many steady decode steps,
                               so that a run's length does not tell the sides apart (a mean or a p99
                               of heavy-tailed steps moves with the steps it is over); 0: every run
                               whole */
} ttft_tpot_compare_result;


/* ---- Ranks: the tensor-parallel ranks of one model (ttft_tpot_report --ranks) ---------------- */

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

/* ================================ functions ==================================================== */

/* ---- Statistics ------------------------------------------------------------------------------ */

/* The smallest n for which ttft_tpot_ci95_ranks has an interval of the p-th percentile (p50: 6,
   p90: 36, p99: 368); 0 for p outside 1..99. */
TTFT_TPOT_DEF uint64_t ttft_tpot_ci95_min_n(unsigned p);

/* Percentile p (0 to 100) of sorted v[0, n) by the definition at the top of ttft_tpot.h (numpy's
   "linear"), for figures a tool derives (a comparison's medians); 0 for n == 0. */
TTFT_TPOT_DEF double ttft_tpot_percentile(const double *sorted, size_t n, double p);

/* A chosen percentile's name, pm in thousandths of a percent as ttft_tpot_stats.pick_pm holds it:
   99900 is "p99.9", 50000 "p50", into buf (8 bytes hold any; fewer: cut short, still ended). */
#ifndef TTFT_TPOT_NO_STDIO
TTFT_TPOT_DEF const char *ttft_tpot_percentile_name(char *buf, size_t len, uint32_t pm);
#endif

/* Statistics of one phase, warmup included (its row: ttft_tpot_series_stats of TTFT_TPOT_SET_PHASE +
   phase, warmup 1). ENOMEM when memory cannot be had (out is then unspecified); EINVAL (c or out
   NULL), EPHASE (unknown phase). */
TTFT_TPOT_DEF int ttft_tpot_phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out);

/* Statistics of any n durations ns[0, n), by the definitions every report uses (METRICS in
   ttft_tpot.h): ttft_tpot_series_stats of the values, ns not changed. OK (n 0: every figure 0);
   EINVAL (c or out NULL, ns NULL while n > 0); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_stats_of(const ttft_tpot *c, const uint64_t *ns, size_t n, ttft_tpot_stats *out);

/* The headline alone: ttft_tpot_model_compute without the layer's figures and the shares, its head
   kept. EINVAL (c or out NULL); ENOMEM (out is then unspecified). */
TTFT_TPOT_DEF int ttft_tpot_summarize(const ttft_tpot *c, ttft_tpot_summary *out);

/* ---- Queries --------------------------------------------------------------------------------- */

/* Each reads c through a report model that computes nothing (TTFT_TPOT_SKIP_ALL), which a tool that
   reads much of c at once keeps instead (ttft_tpot_model: samples, starts, runs, intervals, phases). */

/* c's counts (all 0 for NULL or a zeroed collector). */
TTFT_TPOT_DEF ttft_tpot_counts ttft_tpot_counts_of(const ttft_tpot *c);

/* The i-th stored sample, in call order (0 .. counts.samples - 1), and its start time when start_ns
   is not NULL (0 without config.timeline). OK; EINVAL (c or out NULL, or no such sample). */
TTFT_TPOT_DEF int ttft_tpot_sample_at(const ttft_tpot *c, size_t i, ttft_tpot_sample *out, uint64_t *start_ns);

/* Run r (0 .. counts.runs - 1): its stored samples are [*first, *end). OK; EINVAL (NULL, no such run). */
TTFT_TPOT_DEF int ttft_tpot_run_at(const ttft_tpot *c, unsigned r, size_t *first, size_t *end);

/* The i-th device interval (0 .. counts.device_intervals - 1), in ticket order. OK; EINVAL. */
TTFT_TPOT_DEF int ttft_tpot_device_at(const ttft_tpot *c, size_t i, ttft_tpot_device_interval *out);

/* A set's values in ns, ascending, into out[0, cap) (the cap smallest); *n: how many it has (out may
   be NULL to ask). A set: a request metric (TTFT_TPOT_METRIC_*, of c's serving layer: its
   ttft_tpot_metric_values), or TTFT_TPOT_SET_ROLE + a role or TTFT_TPOT_SET_PHASE + a phase (their
   steady stored samples, a decode role's per output token). O(n) time and 16 bytes a value of
   temporary memory. OK; EINVAL (c or n NULL, no such set); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_sorted_values(const ttft_tpot *c, int set, uint64_t *out, size_t cap, size_t *n);

/* A set's empirical CDF through at most points + 1 of its values (points > 0): the value of rank k
   (0-based) and (k + 1) / n for k = 0, s, 2 s, ... (s = n / points + 1), then the largest value and
   1. out: room for points + 1; *n: how many were written (0 for an empty set); *values: how many
   values the set has (values may be NULL). OK; EINVAL (out or n NULL, points 0, no such set); ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_cdf(const ttft_tpot *c, int set, size_t points, ttft_tpot_cdf_point *out, size_t *n,
                                size_t *values);

/* Find a phase id by name: id, or EPHASE when unknown, EINVAL when c or name is NULL, ENOMEM. */
TTFT_TPOT_DEF int ttft_tpot_find_phase(const ttft_tpot *c, const char *name);

/* A registered phase's name (NULL when c is NULL, the phase unknown, or memory for reading the names
   runs out) and role (EPHASE, or EINVAL when c is NULL, ENOMEM). */
TTFT_TPOT_DEF const char *ttft_tpot_phase_name(const ttft_tpot *c, int phase);
TTFT_TPOT_DEF int ttft_tpot_phase_role(const ttft_tpot *c, int phase);

/* The clock that timed c's samples (its own, or the first trace read's; "unknown" when none) and the
   cost of one read in ns (0: not measured, as for a replacement clock). NULL c: "" and 0. */
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

/* Read a trace (the format: Trace I/O in ttft_tpot.h) into c: append a trace to c, warmup flags as
   written; a UTF-8 byte order mark and CRLF line ends are accepted. Each line is put back by the
   call of the header that keeps it (ttft_tpot_restore; a request's, ttft_tpot_serve_restore into c's
   serving layer: a collector without one refuses request lines), and checked as recording checks
   it: a histogram's sum must be one its buckets can hold, and it holds at most 2^63 values and
   tokens; prompt sums are those of steady samples of their phase (no more of them than there are,
   unless samples were dropped); a truncated request lost an event, and the dropped request events
   hold the refused and the lost ones. On malformed or contradictory input returns EPARSE, writes
   "name:line: what is wrong" into err (err may be NULL; name NULL reads "(trace)"; every byte a
   terminal would not show as text escaped as \xHH), and leaves c as it was. Samples past the
   capacity are counted as dropped, unless c grows (config.grow: the samples, histograms and request
   tables are enlarged as the trace needs, and a collector without config.timeline or config.bounded
   keeps start times from the first line that has one, as nesting and self time need). A bounded
   phase's steady samples go to its histogram (its first and its warmup samples stay exact). One pass
   over the input in 1 MiB blocks (a pipe works), plus 1 MiB of buffer while reading. EINVAL (c or in
   NULL, a zeroed collector), ENOMEM, EIO (read error; c as it was). A "# hist:" line needs a free
   histogram slot (config.hist_slots) unless its phase is bounded already or c grows. */
TTFT_TPOT_DEF int ttft_tpot_trace_read(ttft_tpot *c, FILE *in, const char *name, char *err, size_t errlen);

/* Every stored sample as a Chrome / Perfetto trace (Trace Event Format JSON): one complete event
   ("ph":"X") per sample, ts and dur in microseconds to the nanosecond, the phase name as the event
   name, the role as its category and its track (e2e, prefill, decode, kernel, top to bottom), tokens
   and warmup in args; then the requests (category "request", process "requests"): a queued, a
   prefill (unscheduled: a ttft) and a decode slice a request, an instant at its first output token
   ("output": ttft_tpot_request_mark), and an instant a token event, each
   request on the lowest lane free at its submit, so requests served together lie side by side; then
   the device intervals resolved on an absolute clock (process "device", a track per stream, category
   "device"), each with a flow arrow ("ph":"s" to "ph":"f", category "launch") from its launch.
   ENOMEM (nothing written: it takes a 256 KiB output block, the phase names escaped once, and 36 bytes
   a request at most for the lanes). Needs start times: EINVAL when c
   is NULL, was made without config.timeline, or holds samples that all start at 0 and no request or
   device interval (a trace recorded without a timeline reads back so: there is no timeline to draw);
   EIO on a write error (what reached the stream is unspecified: it allocates before
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
   request has no such figure. The requests are those of c's serving layer (without one: the header
   alone). The id is quoted as the trace quotes names; one that starts with = + -
   @ tab or CR, which a spreadsheet would run as a formula, is quoted with a ' before it ("'=1+1"), as
   OWASP advises against CSV injection (the trace keeps ids exactly). OK; EINVAL; EIO. */
TTFT_TPOT_DEF int ttft_tpot_requests_csv(const ttft_tpot *c, FILE *out);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Reports: the HTML page ------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* The report as one self-contained HTML file: inline SVG and CSS, no script, nothing fetched; readable
   with scripting off and printable. The report of n models (1, or 2 for a comparison: base, then new:
   each computed whole, its collector alive), named by names (file names, say), into out: the headline
   table (of two: two's), decode step time by step with warmup steps marked, TTFT by request (or
   prefill), latency CDFs, each kernel's share of steady decode time, and the text report. The charts
   use a palette colour-blind readers can tell apart (Okabe and Ito), markers as well as colours, and
   axes with units. 0, or -1 when memory runs out, out reports a write error, or two models come
   without two. */
TTFT_TPOT_DEF int ttft_tpot_html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n,
                                        ttft_tpot_html_headline_fn two);

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Comparison ------------------------------------------------------------------------------ */

/* Compare the sides into *res (to free with ttft_tpot_compare_free): OK or ENOMEM. A row only one side
   has is marked (ttft_tpot_compare_row.only): there is nothing to compare, so the outputs list it
   apart. */
TTFT_TPOT_DEF int ttft_tpot_compare_sides(const ttft_tpot_compare_side *base, const ttft_tpot_compare_side *new_,
                                          const ttft_tpot_compare_options *o, ttft_tpot_compare_result *res);
/* The same with one model a side. */
TTFT_TPOT_DEF int ttft_tpot_compare_models(const ttft_tpot_model *base, const ttft_tpot_model *new_,
                                           const ttft_tpot_compare_options *o, ttft_tpot_compare_result *res);
TTFT_TPOT_DEF void ttft_tpot_compare_free(ttft_tpot_compare_result *res);
/* The options with the defaults: alpha 0.05, noise TTFT_TPOT_COMPARE_NOISE_PCT, phases out of the
   verdict. */
TTFT_TPOT_DEF ttft_tpot_compare_options ttft_tpot_compare_defaults(void);

/* Whether a row's change is for the better: latency (ms) lower, throughput (tok/s) higher. */
TTFT_TPOT_DEF int ttft_tpot_compare_better(const ttft_tpot_compare_row *r);

#ifndef TTFT_TPOT_NO_STDIO
/* The table (text) or the JSON document (schema ttft_tpot/compare-v1): a row a metric both sides
   have, then the metrics only one side has ("only in base: ...", JSON "only_in_base" and
   "only_in_new"). The text opens with the verdict, e.g. "Verdict: a trade-off: new is better on
   output_throughput (+91.00%); worse on tpot (+112.00%) (alpha 0.05, Holm; 5 runs a side)", then,
   when the runs cannot decide, how many they need; the JSON carries it as "verdict". */
TTFT_TPOT_DEF void ttft_tpot_compare_text(FILE *out, const ttft_tpot_compare_result *res);
TTFT_TPOT_DEF void ttft_tpot_compare_json(FILE *out, const ttft_tpot_compare_result *res);

/* The headline of the HTML comparison of m[0] (base) and m[1] (new), for ttft_tpot_html_report: the
   verdict, a row a metric both sides have, then the metrics only one side has. 0, or -1 when memory
   runs out. */
TTFT_TPOT_DEF int ttft_tpot_compare_html(FILE *out, const ttft_tpot_model *const *m);
#endif /* TTFT_TPOT_NO_STDIO */

/* The statistics, for the tests. The two-sided p-value of the Mann-Whitney U test of sorted a and b
   (normal approximation, tie and continuity corrections: scipy's mannwhitneyu(use_continuity=True,
   method="asymptotic")), *u1 the count of pairs with b below a (ties a half). The exact two-sided
   p-value (2 min(P(W <= w), P(W >= w)) over every split of the pooled midranks, so ties too; as
   scipy's method="exact" without ties), or the asymptotic one past TTFT_TPOT_COMPARE_EXACT_MAX values.
   The smallest p-value any samples of these sizes could give (exact test): 2 / C(na + nb, na), 1 at
   most. The Hodges-Lehmann shift, the median of every difference b - a. No libm. */
#define TTFT_TPOT_COMPARE_EXACT_MAX 40
TTFT_TPOT_DEF double ttft_tpot_compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                                                    double *u1);
TTFT_TPOT_DEF double ttft_tpot_compare_mann_whitney_exact(const double *a, size_t na, const double *b, size_t nb,
                                                          double *u1);
TTFT_TPOT_DEF double ttft_tpot_compare_min_p(size_t na, size_t nb);
TTFT_TPOT_DEF double ttft_tpot_compare_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb);


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

#include <float.h>  /* DBL_MAX */
#include <stddef.h> /* offsetof */
#include <stdlib.h> /* malloc: the page's, the comparison's and the ranks' scratch */
#include <string.h>

/* As in ttft_tpot.h: strict floating point, whatever the file is compiled with. */
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(precise, on, push)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC push_options
#pragma GCC optimize("no-fast-math", "fp-contract=off")
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push /* g++'s -Wuseless-cast: a cast between size_t and uint64_t one platform needs */
#pragma GCC diagnostic ignored "-Wuseless-cast"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Reading a collector: its model, its serving layer ---------------------------------------- */

/* c's model that computes nothing (TTFT_TPOT_SKIP_ALL): its samples, phases, runs, intervals and
   counts, read in place. OK, EINVAL or ENOMEM (the phases' names take an allocation). */
static int ttft_tpot__view(const ttft_tpot *c, ttft_tpot_model *m)
{
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    o.skip = TTFT_TPOT_SKIP_ALL;
    return ttft_tpot_model_compute(c, &o, m);
}

/* The same without the phases (m->phase NULL): it allocates nothing, so it fails only for c NULL. */
static int ttft_tpot__peek(const ttft_tpot *c, ttft_tpot_model *m)
{
    ttft_tpot_model_options o = TTFT_TPOT_ZERO;
    o.skip = TTFT_TPOT_SKIP_PHASES;
    return ttft_tpot_model_compute(c, &o, m);
}

/* The serving figures of a model, or none (every count 0) when it was computed without a serving layer. */
static const ttft_tpot_serve_model *ttft_tpot__served(const ttft_tpot_model *m)
{
    static const ttft_tpot_serve_model none = TTFT_TPOT_ZERO; /* a constant: nothing is written to it */
    const ttft_tpot_serve_model *f = ttft_tpot_serve_figures(m);
    return f ? f : &none;
}

/* How many requests a serving layer holds (0 without one). */
static unsigned ttft_tpot__requests_held(const ttft_tpot_serve *s)
{
    ttft_tpot_request q;
    unsigned n = 0;
    if (s)
        (void)ttft_tpot_request_at(s, 0, &q, &n);
    return n;
}

#ifndef TTFT_TPOT_NO_STDIO /* the files' and the pages' */

/* Whether a request has point p (TTFT_TPOT_POINTS); its time: ttft_tpot_request_point. */
static int ttft_tpot__has_pt(const ttft_tpot_request *q, int p)
{
    return (int)(q->points >> p & 1u);
}

/* The points' and the metrics' tables, as the tools read them (TTFT_TPOT_POINTS, TTFT_TPOT_METRICS). */
enum { TTFT_TPOT__PT_SUBMIT, TTFT_TPOT__PT_TOKEN, TTFT_TPOT__PT_MARK }; /* how a point is set */
typedef struct ttft_tpot__pt_info {
    int set;
    uint32_t follows;
    const char *role, *csv;
    size_t role_len;
} ttft_tpot__pt_info;
#define TTFT_TPOT__PT_INFO(name, field, set, tokens, follows, now, role, csv, words)                   \
    {TTFT_TPOT__PT_##set, follows, role, csv, sizeof(role) - 1},
static const ttft_tpot__pt_info ttft_tpot__pts[TTFT_TPOT_POINT_COUNT] = {TTFT_TPOT_POINTS(TTFT_TPOT__PT_INFO)};
#undef TTFT_TPOT__PT_INFO

typedef struct ttft_tpot__metric_row {
    const char *json, *cmp, *slice, *csv;
    int under, from, to, per_token;
} ttft_tpot__metric_row;
#define TTFT_TPOT__METRIC_ROW(name, label, words, json, prom, help, le, under, note, cmp, from, to, rule, slice, \
                              csv)                                                                    \
    {json, cmp, slice, csv, TTFT_TPOT_METRIC_##under, TTFT_TPOT_POINT_##from, TTFT_TPOT_POINT_##to,          \
     sizeof(#rule) == sizeof("PER_TOKEN")},
static const ttft_tpot__metric_row ttft_tpot__mrows[TTFT_TPOT_METRIC_COUNT] = {
    TTFT_TPOT_METRICS(TTFT_TPOT__METRIC_ROW)};
#undef TTFT_TPOT__METRIC_ROW

/* ---- Numbers, whatever the locale ------------------------------------------------------------ */

/* v as fmt (one conversion of a double and nothing else, as printf takes it) prints it, with '.' as
   the decimal point whatever LC_NUMERIC says (ttft_tpot_write's numbers). */
static const char *ttft_tpot__dnum(char *buf, size_t len, const char *fmt, double v)
{
    ttft_tpot_writer w = TTFT_TPOT_ZERO;
    w.b = buf, w.cap = len;
    buf[0] = '\0';
    (void)ttft_tpot_write(&w, fmt, v);
    return buf;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* The bits of a double, and whether it is finite (told by its bits: FAST MATH in ttft_tpot.h). */
static uint64_t ttft_tpot__dbits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static int ttft_tpot__isfinite(double v)
{
    return (ttft_tpot__dbits(v) >> 52 & 0x7FF) != 0x7FF;
}

/* A TPOT sample: stored sample i's duration per output token of its sequences (a step of several
   tokens a sequence: duration x sequences / tokens, rounded; else its duration), as the reports take it. */
static uint64_t ttft_tpot__step_tpot(const ttft_tpot_model *m, size_t i)
{
    uint64_t ns = m->samples[i].dur_ns;
    uint32_t q = m->sequences ? m->sequences[i] : 0, t = m->samples[i].tokens;
    if (!q || q >= t)
        return ns;
    return ns / t * q + ((ns % t) * q + t / 2) / t;
}

#ifndef TTFT_TPOT_NO_STDIO

/* The note of the first TTFT's text line, as the text report writes it. */
static const char *ttft_tpot__first_note(const ttft_tpot_summary *s)
{
    if (!s->ttft_first_warmup)
        return "not flagged warmup: its one-time costs came before it";
    return s->ttft_first_slower < 0 ? "flagged warmup; no steady prefill to compare"
           : s->ttft_first_slower   ? "incl. one-time warmup"
                                    : "flagged warmup, yet no slower than the steady p50";
}

#endif /* TTFT_TPOT_NO_STDIO */

/* A decimal with at most `places` digits after a '.' (digits only: no sign, exponent, hex, inf or
   nan) at s, in units of 10^-places, into *out: its length, or 0 where it is none or passes 2^64 - 1. */
static size_t ttft_tpot__decimal_at(const char *s, unsigned places, uint64_t *out)
{
    size_t i = 0;
    unsigned frac = 0;
    int dot = 0;
    uint64_t v = 0;
    for (;; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (s[i] == '.' && !dot && i > 0) {
            dot = 1;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            break;
        if ((dot && ++frac > places) || v > (UINT64_MAX - d) / 10)
            return 0;
        v = v * 10 + d;
    }
    if (i == 0 || s[i - 1] == '.')
        return 0;
    for (; frac < places; frac++) {
        if (v > UINT64_MAX / 10)
            return 0;
        v *= 10;
    }
    *out = v;
    return i;
}

/* A model's phases by name, sorted (the tools' index of a model: a name found in O(log n)). */
typedef struct ttft_tpot__named {
    const char *name;
    int id;
} ttft_tpot__named;

static int ttft_tpot__named_cmp(const void *a, const void *b)
{
    return strcmp(((const ttft_tpot__named *)a)->name, ((const ttft_tpot__named *)b)->name);
}

/* m's phases sorted by name, to free(): NULL when it has none or memory runs out (then every lookup
   falls back on a scan). */
static ttft_tpot__named *ttft_tpot__names_of(const ttft_tpot_model *m)
{
    ttft_tpot__named *v = m->phases ? (ttft_tpot__named *)malloc(m->phases * sizeof *v) : NULL;
    unsigned p;
    for (p = 0; v && p < m->phases; p++)
        v[p].name = m->phase[p].name, v[p].id = (int)p;
    if (v)
        qsort(v, m->phases, sizeof *v, ttft_tpot__named_cmp);
    return v;
}

/* The id of m's phase named name (by names, ttft_tpot__names_of's, when there is one), or -1. */
static int ttft_tpot__phase_named(const ttft_tpot_model *m, const ttft_tpot__named *names, const char *name)
{
    ttft_tpot__named key, *at;
    unsigned p;
    if (!names) {
        for (p = 0; p < m->phases; p++)
            if (strcmp(m->phase[p].name, name) == 0)
                return (int)p;
        return -1;
    }
    key.name = name, key.id = -1; /* the comparison reads the name alone */
    at = (ttft_tpot__named *)bsearch(&key, names, m->phases, sizeof *names, ttft_tpot__named_cmp);
    return at ? at->id : -1;
}

/* ---- Statistics and queries ------------------------------------------------------------------ */

TTFT_TPOT_DEF uint64_t ttft_tpot_ci95_min_n(unsigned p)
{
    uint64_t lo, hi, a = 1, b = 1;
    if (p < 1 || p > 99)
        return 0;
    while (!ttft_tpot_ci95_ranks(b, p, &lo, &hi)) /* doubling to an n that has one, then halving */
        a = b, b *= 2;
    while (a < b) {
        uint64_t mid = a + (b - a) / 2;
        if (ttft_tpot_ci95_ranks(mid, p, &lo, &hi))
            b = mid;
        else
            a = mid + 1;
    }
    return b;
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

#ifndef TTFT_TPOT_NO_STDIO
TTFT_TPOT_DEF const char *ttft_tpot_percentile_name(char *buf, size_t len, uint32_t pm)
{
    ttft_tpot_writer w = TTFT_TPOT_ZERO; /* the name the reports write (%P) */
    if (!buf || len == 0)
        return buf;
    w.b = buf, w.cap = len;
    buf[0] = '\0';
    (void)ttft_tpot_write(&w, "%P", (unsigned)pm);
    return buf;
}
#endif /* TTFT_TPOT_NO_STDIO */

TTFT_TPOT_DEF int ttft_tpot_phase_stats(const ttft_tpot *c, int phase, ttft_tpot_stats *out)
{
    ttft_tpot_series s = TTFT_TPOT_ZERO;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    if (phase < 0)
        return TTFT_TPOT_EPHASE;
    s.set = TTFT_TPOT_SET_PHASE + phase;
    s.warmup = 1; /* every sample of the phase: its row's figures */
    rc = ttft_tpot_series_stats(c, &s, out, NULL);
    return rc == TTFT_TPOT_EINVAL ? TTFT_TPOT_EPHASE : rc; /* c and out are given: no such set */
}

TTFT_TPOT_DEF int ttft_tpot_stats_of(const ttft_tpot *c, const uint64_t *ns, size_t n, ttft_tpot_stats *out)
{
    ttft_tpot_series s = TTFT_TPOT_ZERO;
    if (!c || !out || (!ns && n > 0))
        return TTFT_TPOT_EINVAL;
    s.set = -1;
    s.values = ns;
    s.n = n;
    return ttft_tpot_series_stats(c, &s, out, NULL);
}

TTFT_TPOT_DEF int ttft_tpot_summarize(const ttft_tpot *c, ttft_tpot_summary *out)
{
    ttft_tpot_model_options headline = TTFT_TPOT_ZERO;
    ttft_tpot_model m;
    int rc;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    headline.skip = TTFT_TPOT_SKIP_LAYER | TTFT_TPOT_SKIP_SHARES;
    if ((rc = ttft_tpot_model_compute(c, &headline, &m)) == TTFT_TPOT_OK)
        *out = m.head;
    ttft_tpot_model_free(&m);
    return rc;
}

TTFT_TPOT_DEF ttft_tpot_counts ttft_tpot_counts_of(const ttft_tpot *c)
{
    ttft_tpot_counts k;
    ttft_tpot_model m;
    memset(&k, 0, sizeof k);
    if (!c || ttft_tpot__peek(c, &m) != TTFT_TPOT_OK)
        return k;
    k.samples = m.n_samples;
    k.phases = m.phases;
    k.requests = ttft_tpot__requests_held(ttft_tpot_serve_of(c));
    k.dropped = m.losses.dropped;
    k.rejected = m.losses.rejected;
    k.spans_open = m.losses.spans_open;
    k.spans_cancelled = m.losses.spans_cancelled;
    k.shapes_dropped = m.losses.shapes_dropped;
    k.requests_dropped = m.losses.layer.requests_dropped;
    k.requests_refused = m.losses.layer.requests_refused;
    k.events_lost = m.losses.layer.events_lost;
    k.runs = m.runs.n;
    k.runs_dropped = m.losses.runs_dropped;
    k.outgrown = m.losses.outgrown;
    k.sequences_lost = m.losses.sequences_lost;
    k.sequences_in_histogram = m.losses.sequences_in_histogram;
    k.device_intervals = m.n_intervals;
    k.device_open = (size_t)m.device.open;
    k.device_unresolved = m.device.unresolved;
    k.device_refused = m.device.refused;
    ttft_tpot_model_free(&m);
    return k;
}

TTFT_TPOT_DEF int ttft_tpot_sample_at(const ttft_tpot *c, size_t i, ttft_tpot_sample *out, uint64_t *start_ns)
{
    ttft_tpot_model m;
    int rc = c && out ? ttft_tpot__peek(c, &m) : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (i < m.n_samples) {
        *out = m.samples[i];
        if (start_ns)
            *start_ns = m.starts ? m.starts[i] : 0;
    }
    rc = i < m.n_samples ? TTFT_TPOT_OK : TTFT_TPOT_EINVAL;
    ttft_tpot_model_free(&m);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_run_at(const ttft_tpot *c, unsigned r, size_t *first, size_t *end)
{
    ttft_tpot_model m;
    int rc = c && first && end ? ttft_tpot__peek(c, &m) : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (r < m.runs.n) {
        *first = m.runs.first[r];
        *end = m.runs.end[r];
    }
    rc = r < m.runs.n ? TTFT_TPOT_OK : TTFT_TPOT_EINVAL;
    ttft_tpot_model_free(&m);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_device_at(const ttft_tpot *c, size_t i, ttft_tpot_device_interval *out)
{
    ttft_tpot_model m;
    int rc = c && out ? ttft_tpot__peek(c, &m) : TTFT_TPOT_EINVAL;
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (i < m.n_intervals)
        *out = m.intervals[i];
    rc = i < m.n_intervals ? TTFT_TPOT_OK : TTFT_TPOT_EINVAL;
    ttft_tpot_model_free(&m);
    return rc;
}

TTFT_TPOT_DEF const char *ttft_tpot_phase_name(const ttft_tpot *c, int phase)
{
    ttft_tpot_model m;
    const char *name = NULL;
    if (!c || phase < 0 || ttft_tpot__view(c, &m) != TTFT_TPOT_OK)
        return NULL;
    if ((unsigned)phase < m.phases)
        name = m.phase[phase].name; /* the collector's: it outlives the model */
    ttft_tpot_model_free(&m);
    return name;
}

TTFT_TPOT_DEF int ttft_tpot_phase_role(const ttft_tpot *c, int phase)
{
    ttft_tpot_model m;
    int role = TTFT_TPOT_EPHASE, rc;
    if (!c)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot__view(c, &m)) != TTFT_TPOT_OK)
        return rc;
    if (phase >= 0 && (unsigned)phase < m.phases)
        role = m.phase[phase].role;
    ttft_tpot_model_free(&m);
    return role;
}

TTFT_TPOT_DEF int ttft_tpot_find_phase(const ttft_tpot *c, const char *name)
{
    ttft_tpot_model m;
    int id = TTFT_TPOT_EPHASE, rc;
    unsigned p;
    if (!c || !name)
        return TTFT_TPOT_EINVAL;
    if ((rc = ttft_tpot__view(c, &m)) != TTFT_TPOT_OK)
        return rc;
    for (p = 0; p < m.phases && id < 0; p++)
        if (strcmp(m.phase[p].name, name) == 0)
            id = (int)p;
    ttft_tpot_model_free(&m);
    return id;
}

TTFT_TPOT_DEF const char *ttft_tpot_clock_name(const ttft_tpot *c)
{
    ttft_tpot_model m;
    const char *name = "";
    if (c && ttft_tpot__peek(c, &m) == TTFT_TPOT_OK) {
        name = m.clock_name; /* the collector's, or a constant */
        ttft_tpot_model_free(&m);
    }
    return name;
}

TTFT_TPOT_DEF uint64_t ttft_tpot_clock_read_ns(const ttft_tpot *c)
{
    ttft_tpot_model m;
    uint64_t ns = 0;
    if (c && ttft_tpot__peek(c, &m) == TTFT_TPOT_OK) {
        ns = m.clock_read_ns;
        ttft_tpot_model_free(&m);
    }
    return ns;
}

/* A set (TTFT_TPOT_SET_*, or a request metric) names something c has (m: c peeked at): a request
   metric (with a serving layer), a role, a registered phase. */
static int ttft_tpot__set_known(const ttft_tpot *c, const ttft_tpot_model *m, int set)
{
    if (set >= 0 && set < TTFT_TPOT_METRIC_COUNT)
        return ttft_tpot_serve_of(c) != NULL;
    if (set >= TTFT_TPOT_SET_ROLE && set <= TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E)
        return 1;
    return set >= TTFT_TPOT_SET_PHASE && (unsigned)(set - TTFT_TPOT_SET_PHASE) < m->phases;
}

/* A known set's values, sorted ascending, in one allocation of m's allocator (*v to free; m: c
   peeked at): OK or ENOMEM. */
static int ttft_tpot__set_sorted(const ttft_tpot *c, const ttft_tpot_model *m, int set, uint64_t **v, size_t *n)
{
    const ttft_tpot_serve *srv = ttft_tpot_serve_of(c);
    ttft_tpot_series s = TTFT_TPOT_ZERO;
    size_t room = m->n_samples;
    int rc = set < TTFT_TPOT_METRIC_COUNT ? ttft_tpot_metric_values(srv, set, NULL, 0, &room) : TTFT_TPOT_OK;
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (!(*v = (uint64_t *)TTFT_TPOT_MALLOC((2 * room + 1) * sizeof **v, m->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    if (set < TTFT_TPOT_METRIC_COUNT) {
        rc = ttft_tpot_metric_values(srv, set, *v, room, n);
    } else {
        s.set = set, s.out = *v, s.cap = room;
        rc = ttft_tpot_series_stats(c, &s, NULL, NULL);
        *n = s.n < room ? s.n : room;
    }
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_sort(*v, *n, *v + room);
    if (rc != TTFT_TPOT_OK)
        TTFT_TPOT_FREE(*v, m->alloc_user);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_sorted_values(const ttft_tpot *c, int set, uint64_t *out, size_t cap, size_t *n)
{
    ttft_tpot_model m;
    uint64_t *v;
    int rc;
    if (!c || !n || ttft_tpot__peek(c, &m) != TTFT_TPOT_OK)
        return TTFT_TPOT_EINVAL;
    rc = ttft_tpot__set_known(c, &m, set) ? ttft_tpot__set_sorted(c, &m, set, &v, n) : TTFT_TPOT_EINVAL;
    if (rc == TTFT_TPOT_OK) {
        if (out)
            memcpy(out, v, (*n < cap ? *n : cap) * sizeof *out);
        TTFT_TPOT_FREE(v, m.alloc_user);
    }
    ttft_tpot_model_free(&m);
    return rc;
}

/* The CDF's points of sorted v[0, all): ranks 0, step, 2 step, ..., then the last. */
static size_t ttft_tpot__cdf_points(const uint64_t *v, size_t all, size_t points, ttft_tpot_cdf_point *out)
{
    size_t k, n = 0, step = all / points + 1;
    for (k = 0; k < all; k += step, n++) {
        out[n].x = v[k];
        out[n].y = (double)(k + 1) / (double)all;
    }
    if (all) {
        out[n].x = v[all - 1];
        out[n++].y = 1.0;
    }
    return n;
}

TTFT_TPOT_DEF int ttft_tpot_cdf(const ttft_tpot *c, int set, size_t points, ttft_tpot_cdf_point *out, size_t *n,
                                size_t *values)
{
    ttft_tpot_model m;
    uint64_t *v;
    size_t all;
    int rc;
    if (!c || !out || !n || points == 0 || ttft_tpot__peek(c, &m) != TTFT_TPOT_OK)
        return TTFT_TPOT_EINVAL;
    rc = ttft_tpot__set_known(c, &m, set) ? ttft_tpot__set_sorted(c, &m, set, &v, &all) : TTFT_TPOT_EINVAL;
    if (rc == TTFT_TPOT_OK) {
        *n = ttft_tpot__cdf_points(v, all, points, out);
        if (values)
            *values = all;
        TTFT_TPOT_FREE(v, m.alloc_user);
    }
    ttft_tpot_model_free(&m);
    return rc;
}


/* c's config.alloc_user, which memory a tool takes for it goes through (TTFT_TPOT_MALLOC). */
static void *ttft_tpot__alloc_user(const ttft_tpot *c)
{
    ttft_tpot_model m;
    void *user = NULL;
    if (ttft_tpot__peek(c, &m) == TTFT_TPOT_OK) {
        user = m.alloc_user;
        ttft_tpot_model_free(&m);
    }
    return user;
}




/* ---- Parsers --------------------------------------------------------------------------------- */

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
        len = ttft_tpot__decimal_at(p, 6, &ns); /* ms to the ns */
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
        len = ttft_tpot__decimal_at(p, 3, &v); /* thousandths of a percent */
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

/* ---- Files: the Chrome trace and the requests CSV -------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

#define TTFT_TPOT__BIG_BLOCK (256u << 10) /* the output block of a file as large as its input */

/* Room for need bytes at the end of w's block (a stream's): where to write them; the writer then
   moves w->n past them (ttft_tpot_writer: a hot loop writes into the block directly). */
static char *ttft_tpot__room(ttft_tpot_writer *w, size_t need)
{
    if (w->cap - w->n < need)
        (void)ttft_tpot_write(w, NULL);
    return w->b + w->n;
}

/* v in decimal at p: p past it. */
static char *ttft_tpot__put_dec(char *p, uint64_t v)
{
    char d[20];
    size_t n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = d[--n];
    return p;
}

/* ns as microseconds with three decimals, exact, at p (24 bytes at most): p past it. */
static char *ttft_tpot__put_us(char *p, uint64_t ns)
{
    p = ttft_tpot__put_dec(p, ns / 1000);
    p[0] = '.', p[1] = (char)('0' + ns / 100 % 10), p[2] = (char)('0' + ns / 10 % 10), p[3] = (char)('0' + ns % 10);
    return p + 4;
}

/* A string literal at p: p past it. */
#define TTFT_TPOT__STR(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* Each phase's name as a quoted JSON string, escaped once (%J), into names: phase p's from at[p] to
   at[p + 1]. OK or ENOMEM (*names NULL). */
static int ttft_tpot__json_names(const ttft_tpot_model *m, char **names, size_t *at)
{
    char buf[6 * TTFT_TPOT_NAME_MAX + 3];
    ttft_tpot_writer w = TTFT_TPOT_ZERO;
    size_t total = 0;
    unsigned p;
    for (p = 0; p < m->phases; p++) { /* counted */
        w.b = buf, w.cap = sizeof buf, w.n = 0;
        ttft_tpot_write(&w, "%J", m->phase[p].name);
        at[p] = total;
        total += w.n;
    }
    at[m->phases] = total;
    if (!(*names = (char *)TTFT_TPOT_MALLOC(total + 1, m->alloc_user)))
        return TTFT_TPOT_ENOMEM;
    for (p = 0; p < m->phases; p++) { /* written */
        w.b = *names + at[p], w.cap = at[p + 1] - at[p] + 1, w.n = 0;
        ttft_tpot_write(&w, "%J", m->phase[p].name);
    }
    return TTFT_TPOT_OK;
}

/* One slice of a request's track: "STAGE ID" from a to b. */
static void ttft_tpot__request_slice(ttft_tpot_writer *o, const ttft_tpot_request *q, unsigned lane, const char *stage,
                                     uint64_t a, uint64_t b)
{
    char name[TTFT_TPOT_NAME_MAX + 16], us[2][32];
    snprintf(name, sizeof name, "%s %s", stage, q->id);
    *ttft_tpot__put_us(us[0], a) = '\0';
    *ttft_tpot__put_us(us[1], b - a) = '\0';
    ttft_tpot_write(o, ",\n{\"ph\":\"X\",\"pid\":2,\"name\":%J,\"cat\":\"request\",\"tid\":%u,\"ts\":%s,\"dur\":%s,"
                       "\"args\":{\"request\":%J,\"warmup\":%d}}",
                    name, lane + 1, us[0], us[1], q->id, q->warmup);
}

/* A request's last point's time, where its lane is free again. */
static uint64_t ttft_tpot__request_end(const ttft_tpot_request *q)
{
    uint64_t end = 0, t;
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++)
        if ((t = ttft_tpot_request_point(q, p)) > end) /* 0 where q lacks p */
            end = t;
    return end;
}

/* Each request's lane: the lowest whose last request ended by its submit, so that requests served
   at once lie side by side (continuous batching); lane[] then holds each request's. A tree of the
   lanes' end times (tree[1] the root, tree[size + k] lane k, an unused lane 0, each node the least
   below it: size a power of two >= requests, tree 2 size) finds that lane in O(log n), whatever the
   order of the submits. Returns the lanes used. */
static unsigned ttft_tpot__request_lanes(const ttft_tpot_serve *s, uint64_t *tree, size_t size, unsigned *lane)
{
    ttft_tpot_request q;
    unsigned r, n = 0;
    size_t node;
    memset(tree, 0, 2 * size * sizeof *tree);
    for (r = 0; ttft_tpot_request_at(s, r, &q, NULL) == TTFT_TPOT_OK; r++) {
        for (node = 1; node < size;) /* the leftmost lane that has ended: an unused one has */
            node = tree[2 * node] <= q.submit_ns ? 2 * node : 2 * node + 1;
        lane[r] = (unsigned)(node - size);
        n = lane[r] + 1 > n ? lane[r] + 1 : n;
        tree[node] = ttft_tpot__request_end(&q);
        for (node /= 2; node; node /= 2)
            tree[node] = tree[2 * node] < tree[2 * node + 1] ? tree[2 * node] : tree[2 * node + 1];
    }
    return n;
}

/* Whether request q's lane shows metric m as a slice (its SLICE): it has m, and no part of m is shown
   (queued and prefill split the ttft slice). */
static int ttft_tpot__slice_shown(const ttft_tpot_request_values *v, int m)
{
    int k;
    if (!*ttft_tpot__mrows[m].slice || !(v->has >> m & 1u))
        return 0;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        if (ttft_tpot__mrows[k].under == m && ttft_tpot__slice_shown(v, k))
            return 0;
    return 1;
}

/* Whether mark p bounds a slice of the table's (SLICE); else a lane shows it as an instant. */
static int ttft_tpot__mark_sliced(int p)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
        if (*ttft_tpot__mrows[m].slice && (ttft_tpot__mrows[m].from == p || ttft_tpot__mrows[m].to == p))
            return 1;
    return 0;
}

/* q's marks that bound no slice (its first output token), as instants named by their role. */
static void ttft_tpot__request_marks(ttft_tpot_writer *o, const ttft_tpot_request *q, unsigned lane)
{
    char us[32];
    int p;
    for (p = 0; p < TTFT_TPOT_POINT_COUNT; p++) {
        if (ttft_tpot__pts[p].set != TTFT_TPOT__PT_MARK || !ttft_tpot__has_pt(q, p) || ttft_tpot__mark_sliced(p))
            continue;
        *ttft_tpot__put_us(us, ttft_tpot_request_point(q, p)) = '\0';
        ttft_tpot_write(o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":%u,\"name\":%J,\"cat\":\"request\",\"ts\":%s,"
                           "\"args\":{\"request\":%J}}",
                        lane + 1, ttft_tpot__pts[p].role, us, q->id);
    }
}

/* The request tracks: per request a slice for each metric the table draws (queued, prefill or ttft,
   decode) and an instant for each mark no slice bounds (output), and an instant per token event. */
static void ttft_tpot__chrome_requests(const ttft_tpot_serve *s, const unsigned *lane, unsigned lanes,
                                       ttft_tpot_writer *o)
{
    ttft_tpot_request q;
    ttft_tpot_request_values v;
    ttft_tpot_request_event ev;
    char us[32];
    unsigned r;
    size_t i;
    ttft_tpot_write(o, ",\n{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"requests\"}}");
    for (r = 0; r < lanes; r++)
        ttft_tpot_write(o, ",\n{\"ph\":\"M\",\"pid\":2,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"lane %u\"}}",
                        r + 1, r + 1);
    for (r = 0; ttft_tpot_request_at(s, r, &q, NULL) == TTFT_TPOT_OK; r++) {
        int m;
        ttft_tpot_request_values_of(s, &q, &v);
        for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++)
            if (ttft_tpot__slice_shown(&v, m))
                ttft_tpot__request_slice(o, &q, lane[r], ttft_tpot__mrows[m].slice,
                                         ttft_tpot_request_point(&q, ttft_tpot__mrows[m].from),
                                         ttft_tpot_request_point(&q, ttft_tpot__mrows[m].to));
        ttft_tpot__request_marks(o, &q, lane[r]);
    }
    for (i = 0; ttft_tpot_request_event_at(s, i, &ev, NULL) == TTFT_TPOT_OK; i++) {
        if (!ev.tokens)
            continue;
        *ttft_tpot__put_us(us, ev.t_ns) = '\0';
        ttft_tpot_write(o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"pid\":2,\"tid\":%u,\"name\":\"token\",\"cat\":\"request\","
                           "\"ts\":%s,\"args\":{\"tokens\":%u}}",
                        lane[ev.request] + 1, us, (unsigned)ev.tokens);
    }
}

/* A device interval's flow arrow: from its launch (issue time, on the host track) to its execution. */
static void ttft_tpot__chrome_flow(const ttft_tpot_device_interval *d, int host_tid, uint64_t id, ttft_tpot_writer *o)
{
    char us[2][32];
    *ttft_tpot__put_us(us[0], d->issue_ns) = '\0';
    *ttft_tpot__put_us(us[1], d->begin_ns) = '\0';
    ttft_tpot_write(o, ",\n{\"ph\":\"s\",\"pid\":1,\"tid\":%d,\"name\":\"launch\",\"cat\":\"launch\",\"id\":%llu,"
                       "\"ts\":%s},\n{\"ph\":\"f\",\"bp\":\"e\",\"pid\":3,\"tid\":%llu,\"name\":\"launch\","
                       "\"cat\":\"launch\",\"id\":%llu,\"ts\":%s}",
                    host_tid, (unsigned long long)id, us[0], (unsigned long long)d->stream + 1,
                    (unsigned long long)id, us[1]);
}

/* The device intervals resolved on an absolute clock: a track per stream (process "device"), and a
   flow arrow from each launch on its host track to its execution, as Nsight Systems draws them. */
static void ttft_tpot__chrome_device(const ttft_tpot_model *m, const int *track, const char *names, const size_t *at,
                                     ttft_tpot_writer *o)
{
    char us[2][32], *p;
    size_t k;
    int named = 0;
    for (k = 0; k < m->n_intervals; k++) {
        const ttft_tpot_device_interval *d = &m->intervals[k];
        if (d->state != TTFT_TPOT_DEVICE_ABSOLUTE)
            continue;
        if (!named++)
            ttft_tpot_write(o, ",\n{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"device\"}}");
        *ttft_tpot__put_us(us[0], d->begin_ns) = '\0';
        *ttft_tpot__put_us(us[1], d->device_ns) = '\0';
        p = TTFT_TPOT__STR(ttft_tpot__room(o, 6 * TTFT_TPOT_NAME_MAX + 64), ",\n{\"ph\":\"X\",\"pid\":3,\"name\":");
        memcpy(p, names + at[d->phase], at[d->phase + 1] - at[d->phase]);
        o->n = (size_t)(p + at[d->phase + 1] - at[d->phase] - o->b);
        ttft_tpot_write(o, ",\"cat\":\"device\",\"tid\":%llu,\"ts\":%s,\"dur\":%s,\"args\":{\"stream\":%llu,"
                           "\"part\":%d,\"warmup\":%d}}",
                        (unsigned long long)d->stream + 1, us[0], us[1], (unsigned long long)d->stream, (int)d->part,
                        (int)d->warmup);
        if (d->part || !d->issue_ns || !d->sample || d->sample > m->n_samples)
            continue;
        ttft_tpot__chrome_flow(d, track[m->phase[m->samples[d->sample - 1].phase].role], k + 1, o);
    }
}

/* The samples, an event each on their role's track. */
static void ttft_tpot__chrome_samples(const ttft_tpot_model *m, const int *track, const char *names, const size_t *at,
                                      ttft_tpot_writer *o)
{
    static const char *const roles[4] = {"prefill", "decode", "kernel", "e2e"};
    char tail[4][48];
    size_t i, len[4];
    int r;
    for (r = 0; r < 4; r++) /* what follows the name, by role */
        len[r] = (size_t)snprintf(tail[r], sizeof tail[r], ",\"cat\":\"%s\",\"tid\":%d,\"ts\":", roles[r], track[r]);
    for (i = 0; i < m->n_samples; i++) { /* a line: its name (6 x 63 + 2 bytes at most) and 200 more at most */
        const ttft_tpot_sample *s = &m->samples[i];
        int role = m->phase[s->phase].role;
        char *p = ttft_tpot__room(o, 6 * TTFT_TPOT_NAME_MAX + 256);
        p = TTFT_TPOT__STR(p, ",\n{\"ph\":\"X\",\"pid\":1,\"name\":");
        memcpy(p, names + at[s->phase], at[s->phase + 1] - at[s->phase]);
        p += at[s->phase + 1] - at[s->phase];
        memcpy(p, tail[role], len[role]);
        p = ttft_tpot__put_us(p + len[role], m->starts[i]);
        p = ttft_tpot__put_us(TTFT_TPOT__STR(p, ",\"dur\":"), s->dur_ns);
        p = ttft_tpot__put_dec(TTFT_TPOT__STR(p, ",\"args\":{\"tokens\":"), s->tokens);
        p = ttft_tpot__put_dec(TTFT_TPOT__STR(p, ",\"warmup\":"), s->warmup);
        o->n = (size_t)(TTFT_TPOT__STR(p, "}}") - o->b);
    }
}

/* The metadata events: the process and its tracks, by role. */
static void ttft_tpot__chrome_head(const int *track, ttft_tpot_writer *o)
{
    static const char *const roles[4] = {"prefill", "decode", "kernel", "e2e"};
    int r;
    ttft_tpot_write(o, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
                       "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"ttft_tpot\"}}");
    for (r = 0; r < 4; r++)
        ttft_tpot_write(o, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}"
                           ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                        track[r], roles[r], track[r], track[r]);
}

/* 1 when there is no timeline to draw: samples stored, every one at start 0, and no request or device
   interval with times of its own. */
static int ttft_tpot__starts_none(const ttft_tpot_model *m, unsigned requests)
{
    size_t i;
    for (i = 0; i < m->n_samples && m->starts[i] == 0; i++)
        ;
    return m->n_samples > 0 && i == m->n_samples && requests == 0 && m->n_intervals == 0;
}

/* The samples, the device intervals and the requests, on a model that reads c. */
static int ttft_tpot__chrome(const ttft_tpot_model *m, const ttft_tpot_serve *s, unsigned requests, FILE *out)
{
    static const int track[4] = {2, 3, 4, 1}; /* by role: e2e on top, kernels at the bottom */
    ttft_tpot_writer o = TTFT_TPOT_ZERO;
    uint64_t *end = NULL;
    unsigned *lane, lanes;
    size_t size = 1, *at = (size_t *)TTFT_TPOT_MALLOC((m->phases + 1) * sizeof *at, m->alloc_user);
    char *names = NULL, *block = (char *)TTFT_TPOT_MALLOC(TTFT_TPOT__BIG_BLOCK, m->alloc_user);
    int rc = at && block ? ttft_tpot__json_names(m, &names, at) : TTFT_TPOT_ENOMEM;
    while (size < requests)
        size *= 2;
    if (rc == TTFT_TPOT_OK && requests && /* the request lanes, before a byte is written */
        !(end = (uint64_t *)TTFT_TPOT_MALLOC(2 * size * sizeof *end + (size_t)requests * sizeof *lane, m->alloc_user)))
        rc = TTFT_TPOT_ENOMEM;
    if (rc == TTFT_TPOT_OK) {
        o.f = out, o.b = block, o.cap = TTFT_TPOT__BIG_BLOCK;
        ttft_tpot__chrome_head(track, &o);
        ttft_tpot__chrome_samples(m, track, names, at, &o);
        ttft_tpot__chrome_device(m, track, names, at, &o);
        if (end) {
            lane = (unsigned *)(void *)(end + 2 * size);
            lanes = ttft_tpot__request_lanes(s, end, size, lane);
            ttft_tpot__chrome_requests(s, lane, lanes, &o);
        }
        ttft_tpot_write(&o, "\n]}\n");
        rc = ttft_tpot_write(&o, NULL);
    }
    if (end)
        TTFT_TPOT_FREE(end, m->alloc_user);
    if (names)
        TTFT_TPOT_FREE(names, m->alloc_user);
    if (block)
        TTFT_TPOT_FREE(block, m->alloc_user);
    if (at)
        TTFT_TPOT_FREE(at, m->alloc_user);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_chrome_trace(const ttft_tpot *c, FILE *out)
{
    const ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    unsigned requests = ttft_tpot__requests_held(s);
    ttft_tpot_model m;
    int rc;
    if (!c || !out || ttft_tpot__view(c, &m) != TTFT_TPOT_OK)
        return !c || !out ? TTFT_TPOT_EINVAL : TTFT_TPOT_ENOMEM;
    rc = !m.starts || ttft_tpot__starts_none(&m, requests) ? TTFT_TPOT_EINVAL : ttft_tpot__chrome(&m, s, requests, out);
    ttft_tpot_model_free(&m);
    return rc;
}

/* x / d (d > 0) to the thousandth, rounded half up, at p: "12.345"; p past it. */
static char *ttft_tpot__put_thousandths(char *p, uint64_t x, uint64_t d)
{
    uint64_t whole = x / d, milli = d <= UINT64_MAX / 2000 ? ((x % d) * 2000 / d + 1) / 2
                                                           : (uint64_t)((double)(x % d) / (double)d * 1000 + 0.5);
    if (milli == 1000)
        whole++, milli = 0;
    p = ttft_tpot__put_dec(p, whole);
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
static void ttft_tpot__csv_head(ttft_tpot_writer *o, int metrics, int added)
{
    int k, n = metrics ? (int)TTFT_TPOT_METRIC_COUNT : (int)TTFT_TPOT_POINT_COUNT;
    for (k = 0; k < n; k++) {
        const char *name = metrics ? ttft_tpot__mrows[k].csv : ttft_tpot__pts[k].csv;
        unsigned first = metrics ? TTFT_TPOT__CSV_METRICS : TTFT_TPOT__CSV_POINTS;
        if (*name && (int)!(first >> k & 1u) == added)
            ttft_tpot_write(o, ",%s", name);
    }
}

/* A request's point columns at p (as ttft_tpot__csv_head picks them): ",T" each, empty where it has
   none. Returns p past them. */
static char *ttft_tpot__csv_points(char *p, const ttft_tpot_request *q, int added)
{
    int k;
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++) {
        if (!*ttft_tpot__pts[k].csv || (int)!(TTFT_TPOT__CSV_POINTS >> k & 1u) != added)
            continue;
        *p++ = ',';
        if (ttft_tpot__has_pt(q, k))
            p = ttft_tpot__put_dec(p, ttft_tpot_request_point(q, k));
    }
    return p;
}

/* A request's metric columns at p: ",V" each, a per-token one to the thousandth of a ns, empty where
   it has none. Returns p past them. */
static char *ttft_tpot__csv_metrics(char *p, const ttft_tpot_request_values *v, int added)
{
    int m;
    for (m = 0; m < TTFT_TPOT_METRIC_COUNT; m++) {
        if (!*ttft_tpot__mrows[m].csv || (int)!(TTFT_TPOT__CSV_METRICS >> m & 1u) != added)
            continue;
        *p++ = ',';
        if (v->has >> m & 1u)
            p = ttft_tpot__mrows[m].per_token ? ttft_tpot__put_thousandths(p, v->ns[m], v->over[m])
                                               : ttft_tpot__put_dec(p, v->ns[m]);
    }
    return p;
}

/* A request's id as a CSV field at p: quoted where it holds a comma or a quote, or starts with '#' or
   a space (as the trace quotes it); one a spreadsheet would run as a formula as "'=...". */
static char *ttft_tpot__csv_id(char *p, const char *id)
{
    int formula = id[0] && strchr("=+-@\t\r", id[0]);
    if (!formula && id[0] != '#' && id[0] != ' ' && !id[strcspn(id, ",\"")]) {
        while (*id)
            *p++ = *id++;
        return p;
    }
    *p++ = '"';
    if (formula)
        *p++ = '\'';
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
static void ttft_tpot__request_row(const ttft_tpot_serve *s, const ttft_tpot_request *q, ttft_tpot_writer *o)
{
    /* the id escaped, a number a column, 4 flags */
    size_t room = 2 * TTFT_TPOT_NAME_MAX + 32 * (TTFT_TPOT_POINT_COUNT + TTFT_TPOT_METRIC_COUNT + 6);
    char *p = ttft_tpot__room(o, room);
    ttft_tpot_request_values v;
    int k;
    ttft_tpot_request_values_of(s, q, &v);
    p = ttft_tpot__csv_points(ttft_tpot__csv_id(p, q->id), q, 0);
    p = ttft_tpot__csv_metrics(ttft_tpot__put_dec(TTFT_TPOT__STR(p, ","), q->tokens), &v, 0);
    p = TTFT_TPOT__STR(p, ",");
    *p++ = (char)('0' + v.measured);
    for (k = 0; k < 3; k++) { /* as goodput counts them */
        *p++ = ',';
        if (v.slo[k] >= 0)
            *p++ = v.slo[k] ? '1' : '0';
    }
    p = ttft_tpot__csv_metrics(ttft_tpot__csv_points(p, q, 1), &v, 1);
    o->n = (size_t)(TTFT_TPOT__STR(p, "\n") - o->b);
}

TTFT_TPOT_DEF int ttft_tpot_requests_csv(const ttft_tpot *c, FILE *out)
{
    char block[16384];
    const ttft_tpot_serve *s = ttft_tpot_serve_of(c);
    ttft_tpot_writer o = TTFT_TPOT_ZERO;
    ttft_tpot_request q;
    unsigned r;
    if (!c || !out)
        return TTFT_TPOT_EINVAL;
    o.f = out, o.b = block, o.cap = sizeof block;
    ttft_tpot_write(&o, "id");
    ttft_tpot__csv_head(&o, 0, 0);
    ttft_tpot_write(&o, ",tokens");
    ttft_tpot__csv_head(&o, 1, 0);
    ttft_tpot_write(&o, ",measured,slo_ttft,slo_tpot,slo_e2e");
    ttft_tpot__csv_head(&o, 0, 1);
    ttft_tpot__csv_head(&o, 1, 1);
    ttft_tpot_write(&o, "\n");
    for (r = 0; s && ttft_tpot_request_at(s, r, &q, NULL) == TTFT_TPOT_OK; r++)
        ttft_tpot__request_row(s, &q, &o);
    return ttft_tpot_write(&o, NULL);
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Files: the trace reader ------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* The reader parses a trace and puts each line back through ttft_tpot_restore (samples, phases,
   histograms, device intervals, counts) and ttft_tpot_serve_restore (requests): what a line says is
   checked by the call that keeps it, as recording checks it; the reader checks its syntax. */

#define TTFT_TPOT__FIELD_MAX 256    /* longer than any valid field: a longer one is an error */
#define TTFT_TPOT__LINE_MAX 131072  /* a directive line: a "# hist:" line of every bucket fits */
#define TTFT_TPOT__BLOCK (1u << 20) /* bytes read at a time: a directive line and a record fit */
#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_M_X64) || defined(_M_ARM64)
#define TTFT_TPOT__LITTLE 1 /* the first byte of 8 loaded at once is the lowest: digits load whole */
#endif

/* A phase a trace named lately: sample lines name few phases, often. */
typedef struct ttft_tpot__seen {
    int id; /* + 1; 0: empty */
    int role;
    size_t len;
    char name[TTFT_TPOT_NAME_MAX];
} ttft_tpot__seen;

/* One trace_read: the input in blocks, the record being read, the item it becomes. Records are parsed
   where they lie in the block; a record with a quote or a control character takes the byte-by-byte
   RFC 4180 path, into field[]. */
typedef struct ttft_tpot__reader {
    FILE *in;
    ttft_tpot *c;
    ttft_tpot_serve *s; /* c's serving layer, or NULL */
    void *user;         /* c's config.alloc_user */
    char *buf;          /* TTFT_TPOT__BLOCK + 1 bytes: room to end the last line with a NUL */
    size_t pos, end;    /* buf[pos, end): read, not yet parsed */
    int eof;
    unsigned long line; /* line of the next byte */
    char *err;
    size_t errlen;
    const char *name;
    char msg[512];              /* what a restore call refused */
    ttft_tpot_restore_item item;
    ttft_tpot_serve_item sitem;
    ttft_tpot_hist hist;        /* a "# hist:" line's */
    ttft_tpot_device_interval dev; /* a "# device:" line's */
    ttft_tpot__seen recent[64];
    const char *f[6];           /* the fields of the record */
    size_t len[6];
    char field[6][TTFT_TPOT__FIELD_MAX];
} ttft_tpot__reader;

/* Append src to dst (of cap bytes, NUL-terminated, truncated to fit), every byte a terminal would not
   show as text (not UTF-8, a C0 or C1 control, DEL, a bidirectional override or isolate) written as
   \xHH: error messages echo input. */
static void ttft_tpot__escape(char *dst, size_t cap, const char *src)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t at = strlen(dst), n = strlen(src), i = 0, k;
    while (i < n && at + 1 < cap) {
        uint32_t cp = s[i];
        k = s[i] < 0x80 ? 1 : s[i] >= 0xC2 && s[i] < 0xE0 ? 2 : s[i] >= 0xE0 && s[i] < 0xF0 ? 3
            : s[i] >= 0xF0 && s[i] < 0xF5 ? 4 : 0;
        if (k > n - i)
            k = 0;
        if (k > 1) { /* its code point: continuation bytes, the shortest form, no surrogate */
            size_t j;
            cp = s[i] & (0x7Fu >> k);
            for (j = 1; j < k && (s[i + j] & 0xC0) == 0x80; j++)
                cp = cp << 6 | (s[i + j] & 0x3Fu);
            if (j < k || (k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
                (cp >= 0xD800 && cp <= 0xDFFF))
                k = 0;
        }
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
            k = 0;
        if (k != 0 && at + k < cap) {
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

/* "name:line: what arg" into err, EPARSE. */
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

/* The collector's item of kind k, at line: put back; a refusal's message as the reader's. */
static int ttft_tpot__put(ttft_tpot__reader *r, unsigned long line, int kind)
{
    int rc;
    r->item.kind = kind;
    r->item.line = line;
    rc = ttft_tpot_restore(r->c, &r->item);
    return rc == TTFT_TPOT_EPARSE ? ttft_tpot__fail(r, r->item.line, r->msg, NULL) : rc;
}

/* The serving layer's item of kind k, at line (a collector without one holds no request). */
static int ttft_tpot__put_request(ttft_tpot__reader *r, unsigned long line, int kind)
{
    int rc;
    if (!r->s)
        return ttft_tpot__fail(r, line, "a request line, and this collector has no serving layer "
                                        "(ttft_tpot_serve_attach)", NULL);
    r->sitem.kind = kind;
    r->sitem.line = line;
    rc = ttft_tpot_serve_restore(r->s, &r->sitem);
    return rc == TTFT_TPOT_EPARSE ? ttft_tpot__fail(r, line, r->msg, NULL) : rc;
}

/* Parse an unsigned decimal field: digits only, no sign, no spaces, at most max. */
#ifdef TTFT_TPOT__LITTLE
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
#ifdef TTFT_TPOT__LITTLE
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


/* Whether a[0, n) and b[0, n) hold the same bytes: a loop, where n is a few bytes (memcmp's call
   costs more). */
static int ttft_tpot__same_bytes(const char *a, const char *b, size_t n)
{
    while (n && *a == *b)
        a++, b++, n--;
    return n == 0;
}

/* Whether a[0, n) and b[0, n) hold the same bytes, n 8 or more: 8 at a time, the last 8 overlapping
   (a phase name a line: memcmp's call costs more). */
static int ttft_tpot__same_words(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    size_t i;
    for (i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* The role a trace names: 0-3 the sample roles, or 4 + the first point whose rows have that role
   (TTFT_TPOT_POINTS: SUBMIT, FIRST for a token event, or a mark); -1 none. */
static int ttft_tpot__role_of(const char *s, size_t len)
{
    int k;
    /* a role is read for each row: the sample roles' first letters differ, and a compare of a known
       length is inlined */
#define TTFT_TPOT__ROLE_IS(word) (len == sizeof(word) - 1 && memcmp(s, (word), sizeof(word) - 1) == 0)
    switch (len ? *s : '\0') {
    case 'p': if (TTFT_TPOT__ROLE_IS("prefill")) return 0; break;
    case 'd': if (TTFT_TPOT__ROLE_IS("decode")) return 1; break;
    case 'k': if (TTFT_TPOT__ROLE_IS("kernel")) return 2; break;
    case 'e': if (TTFT_TPOT__ROLE_IS("e2e")) return 3; break;
    default: break;
    }
#undef TTFT_TPOT__ROLE_IS
    for (k = 0; k < TTFT_TPOT_POINT_COUNT; k++)
        if (ttft_tpot__pts[k].role_len == len && *ttft_tpot__pts[k].role == *s &&
            ttft_tpot__same_bytes(s + 1, ttft_tpot__pts[k].role + 1, len - 1))
            return 4 + k;
    return -1;
}

/* The id of the phase a line names (found, or added when new); EPARSE with the reason otherwise. */
static int ttft_tpot__phase_id(ttft_tpot__reader *r, unsigned long line, const char *name, size_t len, int role)
{
    r->item.name = name;
    r->item.len = len;
    r->item.role = role;
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_PHASE);
}

/* -- Trace I/O: directives --------------------------------------------------------------------- */

/* " clock: NAME, N ns/read" (what trace_write puts after the '#'): the clock that recorded it. */
static int ttft_tpot__read_clock(ttft_tpot__reader *r, unsigned long line, const char *text)
{
    const char *name = text + 8, *comma = strstr(name, ", ");
    uint64_t ns;
    size_t len, i;
    if (!comma)
        return TTFT_TPOT_OK;
    len = (size_t)(comma - name);
    for (i = 0; i < len; i++)
        if ((unsigned char)name[i] < 0x21 || (unsigned char)name[i] > 0x7E)
            return TTFT_TPOT_OK;
    for (i = 0; comma[2 + i] >= '0' && comma[2 + i] <= '9'; i++)
        ;
    if (len == 0 || !ttft_tpot__u64(comma + 2, i, UINT64_MAX, &ns) || ns == 0 || strcmp(comma + 2 + i, " ns/read") != 0)
        return TTFT_TPOT_OK;
    r->item.name = name;
    r->item.len = len;
    r->item.n = ns;
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_CLOCK);
}

/* "# started: NS": when the trace's process began to record, on the realtime clock. */
static int ttft_tpot__read_started(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__u64(p, strlen(p), UINT64_MAX, &r->item.n) || r->item.n == 0)
        return ttft_tpot__fail(r, line, "# started: expected the realtime in ns since 1970, not ", p);
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_STARTED);
}

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

/* Where the buckets of a line go: by_index[I] (a histogram's counts), or else index[] and count[]
   (cap of them); each index at most max; total: their total. */
typedef struct ttft_tpot__pairs {
    uint64_t max, *by_index, *index, *count;
    size_t cap;
    uint64_t total;
} ttft_tpot__pairs;

/* The buckets "I:C I:C ..." of a line in [p, end) into to: each index ascending, each count above 0,
   their total within 2^64 - 1. Returns how many, or 0 where they are malformed or more than cap. */
static size_t ttft_tpot__read_pairs(const char *p, const char *end, ttft_tpot__pairs *to)
{
    uint64_t i, n, last = 0;
    size_t k = 0;
    to->total = 0;
    while (p < end) {
        const char *colon = (const char *)memchr(p, ':', (size_t)(end - p)), *stop;
        if (!colon || (!to->by_index && k == to->cap))
            return 0;
        for (stop = colon + 1; stop < end && *stop != ' '; stop++)
            ;
        if (!ttft_tpot__u64(p, (size_t)(colon - p), to->max, &i) ||
            !ttft_tpot__u64(colon + 1, (size_t)(stop - colon - 1), UINT64_MAX - to->total, &n) || n == 0 ||
            (k && i <= last) || (stop < end && stop + 1 == end))
            return 0;
        if (to->by_index)
            to->by_index[i] = n;
        else
            to->index[k] = i, to->count[k] = n;
        k++, last = i, to->total += n;
        p = stop + (stop < end);
    }
    return k;
}

/* "# hist: ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C I:C ...,NAME": a bounded phase's histogram,
   the sum in two 64-bit halves. */
static int ttft_tpot__read_hist(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    const char *comma = strchr(p, ','), *end;
    ttft_tpot_hist *h = &r->hist;
    ttft_tpot__pairs to = {TTFT_TPOT_HIST_BUCKETS - 1, NULL, NULL, NULL, 0, 0};
    int role = comma ? ttft_tpot__role_of(p, (size_t)(comma - p)) : -1;
    if (role < 0 || role > 3)
        return ttft_tpot__fail(r, line, "# hist: unknown role", NULL);
    memset(h, 0, sizeof *h);
    p = comma + 1;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &h->tokens) || !ttft_tpot__take(&p, ',', UINT64_MAX, &h->min_ns) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &h->max_ns) || !ttft_tpot__take(&p, ',', UINT64_MAX, &h->sum_hi) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &h->sum_lo) || !(end = strchr(p, ',')) ||
        (to.by_index = h->counts, !ttft_tpot__read_pairs(p, end, &to)))
        return ttft_tpot__fail(r, line, "# hist: expected ROLE,TOKENS,MIN_NS,MAX_NS,SUM_HI,SUM_LO,I:C ...,NAME "
                                        "with the buckets of min and max first and last", NULL);
    r->item.hist = h;
    r->item.n = to.total;
    r->item.name = end + 1;
    r->item.len = strlen(end + 1);
    r->item.role = role;
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_HIST);
}

/* "# prompt: N,TOKENS,NS,NAME": a prefill phase's steady samples that carry prompt tokens, their
   tokens and their time. */
static int ttft_tpot__read_prompt(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &r->item.v[0]) || !ttft_tpot__take(&p, ',', UINT64_MAX, &r->item.v[1]) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &r->item.v[2]))
        return ttft_tpot__fail(r, line, "# prompt: expected N,TOKENS,NS,NAME", NULL);
    r->item.name = p;
    r->item.len = strlen(p);
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_PROMPT);
}

/* "# counts: NAME=N NAME=N ...": what the recording collector lost (TTFT_TPOT_COUNTS), each once. */
static int ttft_tpot__read_counts(ttft_tpot__reader *r, unsigned long line, const char *p)
{
#define TTFT_TPOT__COUNT_KEY(key, limit) #key,
    static const char *const keys[TTFT_TPOT_COUNT_KEYS] = {TTFT_TPOT_COUNTS(TTFT_TPOT__COUNT_KEY)};
#undef TTFT_TPOT__COUNT_KEY
    unsigned k;
    r->item.given = 0;
    while (*p) {
        const char *eq = strchr(p, '='), *stop = eq ? eq + 1 + strcspn(eq + 1, " ") : p;
        for (k = 0; eq && k < TTFT_TPOT_COUNT_KEYS; k++)
            if (strlen(keys[k]) == (size_t)(eq - p) && strncmp(p, keys[k], (size_t)(eq - p)) == 0)
                break;
        if (!eq || k == TTFT_TPOT_COUNT_KEYS || (r->item.given >> k & 1u) ||
            !ttft_tpot__u64(eq + 1, (size_t)(stop - eq - 1), UINT64_MAX, &r->item.v[k]) || (*stop && !stop[1]))
            return ttft_tpot__fail(r, line, "# counts: expected NAME=N ..., each name once, of ", "dropped rejected "
                                   "shapes_dropped requests_dropped requests_refused events_lost runs_dropped outgrown "
                                   "spans_open sequences_lost sequences_in_histogram spans_cancelled capacity "
                                   "max_requests max_request_events max_shapes");
        r->item.given |= 1u << k;
        p = stop + (*stop != '\0');
    }
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_COUNTS);
}

/* "# device: SAMPLE,STREAM,STATE,PART,WARMUP,ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE": an interval, its
   sample counted among this trace's sample lines. */
static int ttft_tpot__read_device(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    static const uint64_t max[8] = {UINT64_MAX, UINT32_MAX, 3, 1, 1, UINT64_MAX, UINT64_MAX, ((uint64_t)1 << 62) - 1};
    ttft_tpot_device_interval *d = &r->dev;
    uint64_t v[8];
    int k;
    for (k = 0; k < 8; k++)
        if (!ttft_tpot__take(&p, ',', max[k], &v[k]) || (k == 2 && v[k] == 0))
            return ttft_tpot__fail(r, line, "# device: expected SAMPLE,STREAM,STATE (1-3),PART (0-1),WARMUP (0-1),"
                                            "ISSUE_NS,BEGIN_NS,DEVICE_NS,PHASE", NULL);
    memset(d, 0, sizeof *d);
    d->sample = v[0];
    d->stream = (uint32_t)v[1];
    d->state = (uint8_t)v[2];
    d->part = (uint8_t)v[3];
    d->warmup = (uint8_t)v[4];
    d->issue_ns = v[5];
    d->begin_ns = v[6];
    d->device_ns = v[7];
    r->item.interval = d;
    r->item.name = p;
    r->item.len = strlen(p);
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_DEVICE);
}

/* "# device_queued: QUEUED_NS", "# sequences: N" (a malformed number reads as 0: refused after the
   line's place is checked), "# device_lost: UNRESOLVED,REFUSED". */
static int ttft_tpot__read_device_queued(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__u64(p, strlen(p), UINT64_MAX, &r->item.n))
        r->item.n = 0;
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_DEVICE_QUEUED);
}

static int ttft_tpot__read_sequences(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__u64(p, strlen(p), UINT64_MAX, &r->item.n))
        r->item.n = 0;
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_SEQUENCES);
}

static int ttft_tpot__read_device_lost(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &r->item.v[0]) || !ttft_tpot__u64(p, strlen(p), UINT64_MAX, &r->item.v[1]))
        return ttft_tpot__fail(r, line, "# device_lost: expected UNRESOLVED,REFUSED", NULL);
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_DEVICE_LOST);
}

/* -- Trace I/O: the requests' directives ------------------------------------------------------- */

/* "# truncated: SUBMIT_NS,WARMUP,ID": a request of this trace whose events did not all fit. */
static int ttft_tpot__read_truncated(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    uint64_t w;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &r->sitem.t_ns) || !ttft_tpot__take(&p, ',', 1, &w))
        return ttft_tpot__fail(r, line, "# truncated: expected SUBMIT_NS,WARMUP,ID", NULL);
    r->sitem.warmup = (int)w;
    r->sitem.id = p;
    r->sitem.len = strlen(p);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_TRUNCATED);
}

/* "# finished: ID": a request of this trace was finished (ttft_tpot_request_finish). */
static int ttft_tpot__read_finished(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    r->sitem.id = p;
    r->sitem.len = strlen(p);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_FINISHED);
}

/* "# finish_reason: REASON,ID": why a finished request of this trace finished. */
static int ttft_tpot__read_finish_reason(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    const char *comma = strchr(p, ',');
    int k;
    for (k = TTFT_TPOT_FINISH_STOP; comma && k < TTFT_TPOT_FINISH_COUNT; k++)
        if (strlen(ttft_tpot_finish_reason_name(k)) == (size_t)(comma - p) &&
            strncmp(p, ttft_tpot_finish_reason_name(k), (size_t)(comma - p)) == 0)
            break;
    if (!comma || k == TTFT_TPOT_FINISH_COUNT)
        return ttft_tpot__fail(r, line, "# finish_reason: expected stop, length, abort, error or repetition, then ,ID", NULL);
    r->sitem.reason = k;
    r->sitem.id = comma + 1;
    r->sitem.len = strlen(comma + 1);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_FINISH_REASON);
}

/* "# prompt_tokens: N,ID": the prompt tokens of a request of this trace (ttft_tpot_request_prompt). */
static int ttft_tpot__read_request_prompt(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    if (!ttft_tpot__take(&p, ',', UINT32_MAX, &r->sitem.tokens) || r->sitem.tokens == 0)
        return ttft_tpot__fail(r, line, "# prompt_tokens: expected N (1 to 4294967295),ID", NULL);
    r->sitem.id = p;
    r->sitem.len = strlen(p);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_PROMPT_TOKENS);
}

/* "# folded: REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,STOP,LENGTH,ABORT,ERROR[,REPETITION[,
   OTHER_TOKENS,OTHER_PROMPT_TOKENS]]": requests folded out of the recording layer's table (its
   config.request_window); what the line ends before is 0. */
static int ttft_tpot__read_folded(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    const char *q;
    size_t commas = 0;
    int k, n;
    for (q = p; *q; q++)
        commas += *q == ',';
    n = commas == 11 ? 12 : commas == 9 ? 10 : 9; /* with other tokens, a repetition's count, or neither */
    r->sitem.v[9] = r->sitem.v[10] = r->sitem.v[11] = 0;
    for (k = 0; k < n; k++)
        if (!(k < n - 1 ? ttft_tpot__take(&p, ',', UINT64_MAX, &r->sitem.v[k])
                        : ttft_tpot__u64(p, strlen(p), UINT64_MAX, &r->sitem.v[k])))
            return ttft_tpot__fail(r, line, "# folded: expected REQUESTS,TOKENS,PROMPT_TOKENS,TRUNCATED,UNMEASURED,"
                                            "STOP,LENGTH,ABORT,ERROR[,REPETITION[,OTHER_TOKENS,OTHER_PROMPT_TOKENS]] "
                                            "(STOP + LENGTH + REPETITION at most REQUESTS; other tokens of other "
                                            "requests)", NULL);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_FOLDED);
}

/* "# folded_metric: KEY,COUNT,SUM_HI,SUM_LO,I:C ...": a request metric of the folded requests. */
static int ttft_tpot__read_folded_metric(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    ttft_tpot_serve_item *it = &r->sitem;
    const char *comma = strchr(p, ',');
    ttft_tpot__pairs to = {UINT64_MAX, NULL, NULL, NULL, TTFT_TPOT_BUCKETS_MAX, 0};
    int m;
    for (m = 0; comma && m < TTFT_TPOT_METRIC_COUNT; m++)
        if (strlen(ttft_tpot__mrows[m].json) == (size_t)(comma - p) &&
            strncmp(p, ttft_tpot__mrows[m].json, (size_t)(comma - p)) == 0)
            break;
    if (!comma || m == TTFT_TPOT_METRIC_COUNT)
        return ttft_tpot__fail(r, line, "# folded_metric: unknown metric", NULL);
    p = comma + 1;
    it->metric = m;
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &it->v[0]) || !ttft_tpot__take(&p, ',', UINT64_MAX, &it->v[1]) ||
        !ttft_tpot__take(&p, ',', UINT64_MAX, &it->v[2]) ||
        (to.index = it->bucket, to.count = it->count, (it->n = ttft_tpot__read_pairs(p, p + strlen(p), &to)) == 0 &&
                                                          *p))
        return ttft_tpot__fail(r, line, "# folded_metric: expected KEY,COUNT,SUM_HI,SUM_LO,I:C ... with at most "
                                        "COUNT values in the buckets, ascending", NULL);
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_FOLDED_METRIC);
}

/* A token histogram's line, "# HEAD: KEY,COUNT,SUM,I:C ...": KEY one of keys[n], sent to the layer as
   kind. */
typedef struct ttft_tpot__token_line {
    const char *head;
    const char *const *keys;
    int n, kind;
} ttft_tpot__token_line;

static int ttft_tpot__read_token_line(ttft_tpot__reader *r, unsigned long line, const char *p,
                                      const ttft_tpot__token_line *how)
{
    char what[128];
    ttft_tpot_serve_item *it = &r->sitem;
    const char *comma = strchr(p, ',');
    ttft_tpot__pairs to = {UINT64_MAX, NULL, NULL, NULL, TTFT_TPOT_TOKEN_BOUNDS, 0};
    int k;
    for (k = 0; comma && k < how->n; k++)
        if (strlen(how->keys[k]) == (size_t)(comma - p) && strncmp(p, how->keys[k], (size_t)(comma - p)) == 0)
            break;
    snprintf(what, sizeof what, "# %s: unknown histogram", how->head);
    if (!comma || k == how->n)
        return ttft_tpot__fail(r, line, what, NULL);
    p = comma + 1;
    it->metric = k;
    snprintf(what, sizeof what, "# %s: expected KEY,COUNT,SUM,I:C ... with at most COUNT values in the buckets, "
             "ascending", how->head);
    if (!ttft_tpot__take(&p, ',', UINT64_MAX, &it->v[0]) || !ttft_tpot__take(&p, ',', UINT64_MAX, &it->v[1]) ||
        (to.index = it->bucket, to.count = it->count, (it->n = ttft_tpot__read_pairs(p, p + strlen(p), &to)) == 0 &&
                                                          *p))
        return ttft_tpot__fail(r, line, what, NULL);
    return ttft_tpot__put_request(r, line, how->kind);
}

/* "# folded_tokens: KEY,COUNT,SUM,I:C ...": a token histogram of the folded requests, KEY its family's
   name (TTFT_TPOT_TOKEN_HISTS). */
static int ttft_tpot__read_folded_tokens(ttft_tpot__reader *r, unsigned long line, const char *p)
{
#define TTFT_TPOT__TOKENS_KEY(id, name, help) name,
    static const char *const keys[TTFT_TPOT_TOKENS_COUNT] = {TTFT_TPOT_TOKEN_HISTS(TTFT_TPOT__TOKENS_KEY)};
#undef TTFT_TPOT__TOKENS_KEY
    static const ttft_tpot__token_line how = {"folded_tokens", keys, TTFT_TPOT_TOKENS_COUNT,
                                              TTFT_TPOT_SERVE_FOLDED_TOKENS};
    return ttft_tpot__read_token_line(r, line, p, &how);
}

/* "# told_hist: KEY,COUNT,SUM,I:C ...": a histogram the driver told, KEY its name (TTFT_TPOT_TOLD). */
static int ttft_tpot__read_told_hist(ttft_tpot__reader *r, unsigned long line, const char *p)
{
#define TTFT_TPOT__TOLD_NAME(name, key, family, label, kind, help) key,
    static const char *const keys[TTFT_TPOT_TOLD_COUNT] = {TTFT_TPOT_TOLD(TTFT_TPOT__TOLD_NAME)};
#undef TTFT_TPOT__TOLD_NAME
    static const ttft_tpot__token_line how = {"told_hist", keys, TTFT_TPOT_TOLD_COUNT, TTFT_TPOT_SERVE_TOLD_HIST};
    return ttft_tpot__read_token_line(r, line, p, &how);
}

/* "# buckets: NAME": the bounds the folded buckets after it count among: "fine", "vllm-0.33" (vLLM
   0.33's), or "vllm" (the bounds 0.3 wrote under that name). */
static int ttft_tpot__read_buckets_set(ttft_tpot__reader *r, unsigned long line, const char *p)
{
    static const char *const names[3] = {"fine", "vllm-0.33", "vllm"}; /* TTFT_TPOT_BUCKETS_* */
    int k = 0;
    while (k < 3 && strcmp(p, names[k]) != 0)
        k++;
    if (k == 3)
        return ttft_tpot__fail(r, line, "# buckets: expected fine, vllm-0.33 or vllm, not ", p);
    r->sitem.set = k;
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_BUCKETS);
}

/* "# told: KEY,VALUE": what the driver told the recording layer (TTFT_TPOT_TOLD): a whole number, or
   a fraction from 0 to 1 with at most 9 decimals. */
static int ttft_tpot__read_told(ttft_tpot__reader *r, unsigned long line, const char *p)
{
#define TTFT_TPOT__TOLD_KEY(name, key, family, label, kind, help) {key, TTFT_TPOT_TOLD_##kind},
    static const struct {
        const char *key;
        int kind;
    } told[TTFT_TPOT_TOLD_COUNT] = {TTFT_TPOT_TOLD(TTFT_TPOT__TOLD_KEY)};
#undef TTFT_TPOT__TOLD_KEY
    const char *comma = strchr(p, ','), *dot;
    uint64_t whole = 0, frac = 0;
    size_t digits = 0;
    int k, ok, fraction;
    for (k = 0; comma && k < TTFT_TPOT_TOLD_COUNT; k++)
        if (strlen(told[k].key) == (size_t)(comma - p) && strncmp(p, told[k].key, (size_t)(comma - p)) == 0)
            break;
    if (!comma || k == TTFT_TPOT_TOLD_COUNT)
        return ttft_tpot__fail(r, line, "# told: expected KEY,VALUE, KEY one of TTFT_TPOT_TOLD's (kv_cache_usage_perc, "
                                        "num_preemptions, ...)", NULL);
    p = comma + 1;
    fraction = told[k].kind == TTFT_TPOT_TOLD_FRACTION;
    dot = fraction ? strchr(p, '.') : NULL;
    ok = ttft_tpot__u64(p, dot ? (size_t)(dot - p) : strlen(p), fraction ? 1 : UINT64_MAX, &whole);
    if (ok && dot)
        for (digits = strlen(dot + 1), ok = digits >= 1 && digits <= 9 && ttft_tpot__u64(dot + 1, digits, 999999999u, &frac);
             ok && digits < 9; digits++)
            frac *= 10;
    if (!ok || (fraction && whole * 1000000000u + frac > 1000000000u))
        return ttft_tpot__fail(r, line, "# told: expected a whole number, or for kv_cache_usage_perc a fraction from "
                                        "0 to 1 of at most 9 decimals", NULL);
    r->sitem.metric = k;
    r->sitem.tokens = fraction ? whole * 1000000000u + frac : whole;
    return ttft_tpot__put_request(r, line, TTFT_TPOT_SERVE_TOLD);
}

/* The directives a trace carries after its samples' header: each line's head, and its reader. */
typedef int (*ttft_tpot__directive_fn)(ttft_tpot__reader *r, unsigned long line, const char *p);
static const struct {
    const char *head;
    ttft_tpot__directive_fn read;
} ttft_tpot__directives[] = {
    {" phase: ", ttft_tpot__read_phase_line},       {" hist: ", ttft_tpot__read_hist},
    {" truncated: ", ttft_tpot__read_truncated},     {" counts: ", ttft_tpot__read_counts},
    {" prompt: ", ttft_tpot__read_prompt},           {" device: ", ttft_tpot__read_device},
    {" device_lost: ", ttft_tpot__read_device_lost}, {" device_queued: ", ttft_tpot__read_device_queued},
    {" sequences: ", ttft_tpot__read_sequences},     {" finished: ", ttft_tpot__read_finished},
    {" prompt_tokens: ", ttft_tpot__read_request_prompt}, {" folded: ", ttft_tpot__read_folded},
    {" folded_metric: ", ttft_tpot__read_folded_metric}, {" finish_reason: ", ttft_tpot__read_finish_reason},
    {" buckets: ", ttft_tpot__read_buckets_set},     {" started: ", ttft_tpot__read_started},
    {" told: ", ttft_tpot__read_told},               {" folded_tokens: ", ttft_tpot__read_folded_tokens},
    {" told_hist: ", ttft_tpot__read_told_hist}};

/* A comment line's text after the '#', NUL-terminated: "# clock:", "# run:" and the writer's
   directives (ttft_tpot__directives) are read back, anything else is a comment. bad: the line was too
   long or held a NUL byte, which only a directive minds. */
static int ttft_tpot__directive(ttft_tpot__reader *r, unsigned long line, const char *text, int bad)
{
    size_t k, n = sizeof ttft_tpot__directives / sizeof ttft_tpot__directives[0];
    if (strncmp(text, " clock: ", 8) == 0)
        return bad ? TTFT_TPOT_OK : ttft_tpot__read_clock(r, line, text);
    if (strcmp(text, " run:") == 0 || strcmp(text, " run: end") == 0) { /* a run begins, or ends, at the next sample */
        r->item.n = text[5] != '\0';
        return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_RUN);
    }
    for (k = 0; k < n && strncmp(text, ttft_tpot__directives[k].head, strlen(ttft_tpot__directives[k].head)) != 0; k++)
        ;
    if (k == n)
        return TTFT_TPOT_OK;
    if (bad)
        return ttft_tpot__fail(r, line, "directive too long, or with a NUL byte: #", ttft_tpot__directives[k].head);
    return ttft_tpot__directives[k].read(r, line, text + strlen(ttft_tpot__directives[k].head));
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
#if defined(TTFT_TPOT__LITTLE) && (defined(__GNUC__) || defined(__clang__))
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

/* The phase a sample line names: one seen lately (a cache in front of the collector's index, which a
   miss falls back on), or found (added when new). */
static int ttft_tpot__sample_phase(ttft_tpot__reader *r, unsigned long line, int role)
{
    const char *s = r->f[0];
    size_t len = r->len[0];
    ttft_tpot__seen *at;
    uint64_t key = (uint64_t)len ^ (uint64_t)(unsigned char)s[0] << 56;
    int id;
    if (len == 0 || len >= TTFT_TPOT_NAME_MAX) /* refused by the collector */
        return ttft_tpot__phase_id(r, line, s, len, role);
    if (len >= 8) { /* shapes differ near the end ("decode_layer[1x64]", "[2x64]"): its last 8 bytes */
        uint64_t tail;
        memcpy(&tail, s + len - 8, 8);
        key ^= tail;
    } else {
        key ^= (uint64_t)(unsigned char)s[len - 1] << 8;
    }
    at = &r->recent[(key * 0x9E3779B97F4A7C15u) >> 58];
    if (at->id && at->role == role && at->len == len &&
        (len >= 8 ? ttft_tpot__same_words(at->name, s, len) : ttft_tpot__same_bytes(at->name, s, len)))
        return at->id - 1;
    if ((id = ttft_tpot__phase_id(r, line, s, len, role)) >= 0) {
        at->id = id + 1, at->role = role, at->len = len;
        memcpy(at->name, s, len);
    }
    return id;
}

/* "RID,submit,T,0,0,W", "RID,token,T,0,K,W" or a mark's "RID,ROLE,T,0,0,W" (point p), W checked. */
static int ttft_tpot__read_request_row(ttft_tpot__reader *r, unsigned long line, int p, uint64_t t, uint64_t dur,
                                       uint64_t tokens)
{
    const char *role = ttft_tpot__pts[p].role;
    char what[160];
    if (ttft_tpot__pts[p].set == TTFT_TPOT__PT_MARK && (dur != 0 || tokens != 0)) {
        snprintf(what, sizeof what, "%s %s event has dur_ns 0 and 0 tokens", strchr("aeiou", role[0]) ? "an" : "a",
                 role);
        return ttft_tpot__fail(r, line, what, NULL);
    }
    if (dur != 0)
        return ttft_tpot__fail_field(r, line, "a request event has dur_ns 0, not ", 3);
    r->sitem.id = r->f[0];
    r->sitem.len = r->len[0];
    r->sitem.point = p == TTFT_TPOT_POINT_SUBMIT || ttft_tpot__pts[p].set == TTFT_TPOT__PT_MARK ? p : TTFT_TPOT_POINT_LAST;
    r->sitem.t_ns = t;
    r->sitem.tokens = tokens;
    r->sitem.warmup = r->f[5][0] - '0';
    return ttft_tpot__put_request(r, line,
                                  ttft_tpot__pts[p].set == TTFT_TPOT__PT_MARK ? TTFT_TPOT_SERVE_MARK : TTFT_TPOT_SERVE_EVENT);
}

/* One record after the header: a sample or a request event. */
static int ttft_tpot__read_row(ttft_tpot__reader *r, int nf, unsigned long line)
{
    uint64_t start, dur, tokens;
    int role, id;
    if (nf != 6)
        return ttft_tpot__fail(r, line, "expected 6 fields: ", "phase,role,start_ns,dur_ns,tokens,warmup");
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
    if (role >= 4)
        return ttft_tpot__read_request_row(r, line, role - 4, start, dur, tokens);
    if ((id = ttft_tpot__sample_phase(r, line, role)) < 0)
        return id;
    r->item.phase = id;
    r->item.start_ns = start;
    r->item.dur_ns = dur;
    r->item.tokens = tokens;
    r->item.warmup = r->f[5][0] - '0';
    return ttft_tpot__put(r, line, TTFT_TPOT_RESTORE_SAMPLE);
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
            return ttft_tpot__fail(r, 1, "missing header: expected ", "phase,role,start_ns,dur_ns,tokens,warmup");
        r->pos += 3;
    }
    if ((nf = ttft_tpot__record(r, &line)) < 0)
        return nf;
    for (i = 0; i < 6 && nf == 6; i++)
        if (strlen(cols[i]) != r->len[i] || memcmp(r->f[i], cols[i], r->len[i]) != 0)
            break;
    return i == 6 ? TTFT_TPOT_OK
                  : ttft_tpot__fail(r, line, "missing header: expected ", "phase,role,start_ns,dur_ns,tokens,warmup");
}

/* The whole read, between the collector's BEGIN and its COMMIT (or ROLLBACK). */
static int ttft_tpot__read_all(ttft_tpot__reader *r)
{
    unsigned long line;
    int rc, nf;
    if ((rc = ttft_tpot__put(r, 0, TTFT_TPOT_RESTORE_BEGIN)) != TTFT_TPOT_OK)
        return rc;
    rc = ttft_tpot__read_header(r);
    while (rc == TTFT_TPOT_OK && (nf = ttft_tpot__record(r, &line)) != 0)
        rc = nf < 0 ? nf : ttft_tpot__read_row(r, nf, line);
    if (rc == TTFT_TPOT_OK)
        return ttft_tpot__put(r, 0, TTFT_TPOT_RESTORE_COMMIT); /* its checks: a failed one rolls back */
    (void)ttft_tpot__put(r, 0, TTFT_TPOT_RESTORE_ROLLBACK);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_trace_read(ttft_tpot *c, FILE *in, const char *name, char *err, size_t errlen)
{
    ttft_tpot__reader *r;
    void *user;
    int rc;
    if (err && errlen)
        err[0] = '\0';
    if (!c || !in)
        return TTFT_TPOT_EINVAL;
    user = ttft_tpot__alloc_user(c);
    if (!(r = (ttft_tpot__reader *)TTFT_TPOT_MALLOC(sizeof *r, user)))
        return TTFT_TPOT_ENOMEM;
    memset(r, 0, offsetof(ttft_tpot__reader, field));
    if (!(r->buf = (char *)TTFT_TPOT_MALLOC(TTFT_TPOT__BLOCK + 1, user))) {
        TTFT_TPOT_FREE(r, user);
        return TTFT_TPOT_ENOMEM;
    }
    r->in = in;
    r->c = c;
    r->s = ttft_tpot_serve_of(c);
    r->user = user;
    r->line = 1;
    r->err = err;
    r->errlen = errlen;
    r->name = name ? name : "(trace)";
    r->item.err = r->sitem.err = r->msg;
    r->item.errlen = r->sitem.errlen = sizeof r->msg;
    rc = ttft_tpot__read_all(r);
    TTFT_TPOT_FREE(r->buf, user);
    TTFT_TPOT_FREE(r, user);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */
/* -- Statistics: numbers without libm (the comparison's tests, the charts' scales) ------------- */

/* What <math.h> would give, for what the comparison and the charts take from it: exact where libm is
   exact (fabs, fmin, fmax, floor, ceil and the square root, correctly rounded: the figures it feeds
   are printed to the last digit), within a few units in the last place where it is not (exp, erfc,
   log10). */

static double ttft_tpot__fabs(double v)
{
    return v < 0 ? -v : v == 0 ? 0.0 : v; /* -0 too: +0 */
}

/* fmin and fmax: a NaN loses to a number. */
static double ttft_tpot__fmin(double a, double b)
{
    return b < a || a != a ? b : a;
}

static double ttft_tpot__fmax(double a, double b)
{
    return b > a || a != a ? b : a;
}

/* floor(v), its sign kept: -0 stays -0, -0.5 is -1. */
static double ttft_tpot__floor(double v)
{
    double t;
    if (!(v > -4503599627370496.0 && v < 4503599627370496.0) || v == 0) /* whole already (past 2^52), NaN, 0 */
        return v;
    t = (double)(int64_t)v; /* toward 0 */
    return t > v ? t - 1 : t;
}

/* 2^e for a normal result (-1022 <= e <= 1023), from its bits. */
static double ttft_tpot__pow2(int e)
{
    uint64_t b = (uint64_t)(e + 1023) << 52;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* e^x for x <= 0 (0 below -745.2, where the result would be no double), within an ulp: x = k ln 2 + r
   with |r| <= ln 2 / 2 (ln 2 in two parts, so that k ln 2 loses nothing), e^r by its Taylor series to
   r^14 / 14!, which is below half an ulp of it, times 2^k. */
static double ttft_tpot__exp(double x)
{
    static const double ln2_hi = 0.6931471803691238, ln2_lo = 1.9082149292705877e-10,
                        inv_fact[15] = {1.1470745597729725e-11, 1.6059043836821613e-10, 2.08767569878681e-09,
                                        2.505210838544172e-08,  2.755731922398589e-07,  2.7557319223985893e-06,
                                        2.48015873015873e-05,   0.0001984126984126984,  0.001388888888888889,
                                        0.008333333333333333,   0.041666666666666664,   0.16666666666666666,
                                        0.5,                    1,                      1}; /* 1 / 14! .. 1 / 0! */
    double r, p;
    size_t i;
    int k;
    if (!(x > -745.2))
        return 0;
    k = (int)(x * 1.4426950408889634 - 0.5); /* round(x / ln 2), x <= 0 */
    r = (x - k * ln2_hi) - k * ln2_lo;
    for (p = 0, i = 0; i < sizeof inv_fact / sizeof *inv_fact; i++) /* Horner's rule, from r^14 / 14! */
        p = p * r + inv_fact[i];
    return k >= -1021 ? p * ttft_tpot__pow2(k) : p * ttft_tpot__pow2(k + 1000) * ttft_tpot__pow2(-1000); /* subnormal */
}

/* The complementary error function of x >= 0, within a few ulps: below 0.5, 1 - erf(x) by erf's Taylor
   series; from 0.5 up, e^-x^2 / sqrt(pi) times the continued fraction 1 / (x + (1/2) / (x + 1 / (x +
   (3/2) / (x + ...)))), evaluated from a depth that converges to below an ulp (1240 at x = 0.5, 52 at
   x = 5), and e^-x^2 as e^-h^2 e^-(x - h)(x + h) with h = x to 1/16, whose square is exact. */
static double ttft_tpot__erfc(double x)
{
    double t, h, x2 = x * x, term = x, sum = x;
    int n;
    if (!(x <= 27.3)) /* e^-x^2 below the least double */
        return 0;
    if (x < 0.5) {
        for (n = 1; n < 20; n++) { /* the terms (-1)^n x^(2n+1) / (n! (2n+1)) */
            term *= -x2 / n;
            sum += term / (2 * n + 1);
        }
        return 1 - 1.1283791670955126 * sum; /* 2 / sqrt(pi) */
    }
    for (t = x, n = (int)(300 / x2) + 40; n >= 1; n--)
        t = x + 0.5 * n / t;
    h = ttft_tpot__floor(16 * x) / 16;
    return ttft_tpot__exp(-h * h) * ttft_tpot__exp(-(x - h) * (x + h)) * 0.5641895835477563 / t; /* 1 / sqrt(pi) */
}

/* A 128-bit product, and a square root to start from (Newton's method; 0 for v <= 0 or not finite). */
typedef struct ttft_tpot__wide {
    uint64_t hi, lo;
} ttft_tpot__wide;

static ttft_tpot__wide ttft_tpot__wide_mul(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    ttft_tpot__wide r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

static double ttft_tpot__sqrt_guess(double v)
{
    double x = 1;
    int i;
    if (!ttft_tpot__isfinite(v) || v <= 0)
        return 0;
    while (x * x < v)
        x *= 2;
    for (i = 0; i < 80; i++)
        x = 0.5 * (x + v / x);
    return x;
}

/* sqrt(v), correctly rounded as IEEE 754's (and libm's) is; 0 for v <= 0 or NaN. v = m 2^e with m a
   53-bit integer; sqrt(m 2^k), k 54 or 55 so that e - k is even, is q (54 bits) and a fraction, q
   found from ttft_tpot__sqrt_guess and made exact by comparing squares in 128 bits; half of q rounded up is
   the result's 53 bits (a square root of a double never lies halfway between two). */
static double ttft_tpot__sqrt_exact(double v)
{
    uint64_t b, m, q;
    ttft_tpot__wide n, sq;
    int e, k;
    if (!(v > 0) || !ttft_tpot__isfinite(v))
        return v > 0 ? v : 0;
    b = ttft_tpot__dbits(v);
    e = (int)(b >> 52);
    m = b & 0x000FFFFFFFFFFFFFu;
    if (e == 0) /* subnormal: normalised */
        for (e = 1; !(m >> 52); e--)
            m <<= 1;
    else
        m |= (uint64_t)1 << 52;
    e -= 1075;
    k = e % 2 ? 55 : 54;
    n.hi = m >> (64 - k);
    n.lo = m << k;
    q = (uint64_t)ttft_tpot__sqrt_guess((double)m * (k == 55 ? 36028797018963968.0 : 18014398509481984.0));
    for (sq = ttft_tpot__wide_mul(q, q); sq.hi > n.hi || (sq.hi == n.hi && sq.lo > n.lo); sq = ttft_tpot__wide_mul(q, q))
        q--;
    for (sq = ttft_tpot__wide_mul(q + 1, q + 1); sq.hi < n.hi || (sq.hi == n.hi && sq.lo <= n.lo);
         sq = ttft_tpot__wide_mul(q + 1, q + 1))
        q++;
    return (double)((q + 1) >> 1) * ttft_tpot__pow2((e - k) / 2 + 1);
}

/* ---- Reports: the HTML page ------------------------------------------------------------------ */

#ifndef TTFT_TPOT_NO_STDIO

/* -- Reports: numbers, whatever the locale ----------------------------------------------------- */

/* Every double the page, the comparison and the ranks write goes through ttft_tpot__dnum: '.' as the
   decimal point whatever LC_NUMERIC says (a driver may set a decimal-comma locale), the bytes the "C"
   locale prints otherwise. */

/* The bytes "%.20f" takes at most, its NUL included: a sign, 309 digits of DBL_MAX, the point, 20
   decimals. */
#define TTFT_TPOT__NUM_MAX 336

/* v as fmt (one conversion of a double and nothing else) prints it, then the text `then`: "3.20 us",
   "12.5%". */
static const char *ttft_tpot__num_then(char *buf, size_t len, const char *fmt, double v, const char *then)
{
    size_t n = strlen(ttft_tpot__dnum(buf, len, fmt, v));
    snprintf(buf + n, len - n, "%s", then);
    return buf;
}

/* v with `places` decimals (0 to 20), as "%.*f" prints it. */
static const char *ttft_tpot__num_places(char *buf, size_t len, int places, double v)
{
    char fmt[8];
    snprintf(fmt, sizeof fmt, "%%.%df", places);
    return ttft_tpot__dnum(buf, len, fmt, v);
}

/* v as fmt (one conversion of a double) prints it, onto out. */
static void ttft_tpot__put_num(FILE *out, const char *fmt, double v)
{
    char buf[TTFT_TPOT__NUM_MAX];
    fputs(ttft_tpot__dnum(buf, sizeof buf, fmt, v), out);
}

/* -- Reports: the charts ----------------------------------------------------------------------- */

/* Inline SVG, axes with units, a palette colour-blind readers can tell apart (Okabe and Ito), markers as
   well as colours, nothing fetched. */

/* ceil(v), its sign kept: -0.5 is -0. */
static double ttft_tpot__ceil(double v)
{
    return -ttft_tpot__floor(-v);
}

/* 10^e for a whole e: exact to 10^22 (and 1 / 10^k, rounded once, down to 10^-22, as libm's pow). */
static double ttft_tpot__pow10(double e)
{
    int k = !(e >= -400) ? -400 : e > 400 ? 400 : (int)e, n = k < 0 ? -k : k;
    double p = 1;
    for (; n > 22; n -= 22)
        p *= 1e22;
    for (; n > 0; n--)
        p *= 10;
    return k < 0 ? 1 / p : p;
}

/* log10(v) for v > 0 (-DBL_MAX for v <= 0), within 2 ulps, and exact at the powers of ten
   ttft_tpot__pow10 gives (a decade's edge): v = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = ln(1 + f)
   = 2 atanh(s) with s = f / (2 + f), summed to s^21 as fdlibm's log does (f - s (f - R): f exact,
   the rest small), then e log10(2) + ln m log10(e), log10(2) in two parts. */
static double ttft_tpot__log10(double v)
{
    static const double log10_2_hi = 0.3010299955494702, log10_2_lo = 1.1451100898021838e-10,
                        log10_e = 0.4342944819032518,
                        two_over[10] = {2.0 / 21, 2.0 / 19, 2.0 / 17, 2.0 / 15, 2.0 / 13, 2.0 / 11, 2.0 / 9, 2.0 / 7,
                                        2.0 / 5,  2.0 / 3}; /* 2 / (2 j + 1), j = 10 .. 1 */
    uint64_t b;
    double m, f, s, s2, r, y;
    size_t i;
    int e, k;
    if (!(v > 0) || !ttft_tpot__isfinite(v))
        return v > 0 ? v : -DBL_MAX;
    b = ttft_tpot__dbits(v);
    e = (int)(b >> 52);
    if (e == 0) { /* subnormal: scaled by 2^54 first */
        b = ttft_tpot__dbits(v * 18014398509481984.0);
        e = (int)(b >> 52) - 54;
    }
    e -= 1023;
    b = (b & 0x000FFFFFFFFFFFFFu) | 0x3FF0000000000000u; /* m in [1, 2) */
    memcpy(&m, &b, sizeof m);
    if (m > 1.4142135623730951) {
        m /= 2;
        e++;
    }
    f = m - 1;
    s = f / (2 + f);
    s2 = s * s;
    for (r = 0, i = 0; i < sizeof two_over / sizeof *two_over; i++) /* R = 2 s^2 / 3 + 2 s^4 / 5 + ... */
        r = (r + two_over[i]) * s2;
    y = (double)e * log10_2_hi + ((double)e * log10_2_lo + (f - s * (f - r)) * log10_e);
    k = (int)(y < 0 ? y - 0.5 : y + 0.5);
    return k >= -22 && k <= 22 && v == ttft_tpot__pow10(k) ? (double)k : y;
}

/* Okabe-Ito: blue, vermillion, bluish green, orange, reddish purple, sky blue. */
static const char *const ttft_tpot__svg_colors[6] = {"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7",
                                                      "#56B4E9"};

/* How a series is drawn: TTFT_TPOT__SVG_STEP is a CDF. */
enum { TTFT_TPOT__SVG_LINE, TTFT_TPOT__SVG_DOTS, TTFT_TPOT__SVG_STEP };

typedef struct ttft_tpot__svg_series {
    const char *name;  /* in the legend */
    const char *color;
    const double *x, *y;
    size_t n;
    int kind;   /* TTFT_TPOT__SVG_LINE, TTFT_TPOT__SVG_DOTS or TTFT_TPOT__SVG_STEP */
    int hollow; /* dots drawn as rings (warmup samples, say): told apart without colour */
} ttft_tpot__svg_series;

/* A vertical line across the plot at x, labelled: an SLO on a CDF, where a run begins on a step axis.
   The x axis takes a mark in while the data keeps at least half of it; one further out is drawn as a
   triangle on the frame's edge, its label beside it with an arrow its way. */
typedef struct ttft_tpot__svg_mark {
    double x;
    const char *label;
} ttft_tpot__svg_mark;

typedef struct ttft_tpot__svg_chart {
    const char *title, *xlabel, *ylabel; /* the labels carry the units */
    const char *note;                    /* under the title (NULL: none): what the chart leaves out */
    int logy;                            /* a log scale on y (ttft_tpot__svg_wants_log says when) */
    int xint;                            /* x counts (a step, a request): whole ticks only */
    int logx;                            /* a log scale on x */
    int yint;                            /* y counts (requests): whole ticks only */
    double x_from, x_to;                 /* x_to > x_from: the x range shown, whatever the data's */
    const char *xunit, *yunit;           /* "ms" or "s": a log axis's ticks read as durations (1 ms, 10 ms,
                                            1 s), and so does an off-scale value; NULL: plain numbers */
    double yclip;                        /* > 0: y shown up to it; a point above is drawn as a triangle on
                                            the top edge with its value (a warmup outlier, say) */
    const ttft_tpot__svg_mark *marks;    /* [n_marks] vertical lines (ttft_tpot__svg_mark) */
    int n_marks;
} ttft_tpot__svg_chart;

#define TTFT_TPOT__SVG_W 720.0
#define TTFT_TPOT__SVG_H 320.0
#define TTFT_TPOT__SVG_ML 72.0 /* margins: room for the tick labels and the axis titles */
#define TTFT_TPOT__SVG_MR 16.0
#define TTFT_TPOT__SVG_MT 34.0
#define TTFT_TPOT__SVG_MB 50.0
#define TTFT_TPOT__SVG_COLUMNS 700 /* a long series keeps its extremes in this many columns */
#define TTFT_TPOT__SVG_MAX_TICKS 40 /* an axis has at most this many ticks, whatever its range */

/* text with &, <, >, " and ' escaped. */
static void ttft_tpot__html_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*text, out);
        }
    }
}

/* Whether the positive values of the series' x (on_x) or y spread over more than 20x. */
static int ttft_tpot__svg_spread(const ttft_tpot__svg_series *s, int ns, int on_x)
{
    double lo = DBL_MAX, hi = 0;
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double v = on_x ? s[k].x[i] : s[k].y[i];
            lo = v > 0 && v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    return lo < DBL_MAX && hi > 20 * lo;
}

/* Whether the series' y (x: on x) values spread over more than 20x, so that a log scale shows the small
   ones. */
static int ttft_tpot__svg_wants_log(const ttft_tpot__svg_series *s, int ns)
{
    return ttft_tpot__svg_spread(s, ns, 0);
}

static int ttft_tpot__svg_wants_logx(const ttft_tpot__svg_series *s, int ns)
{
    return ttft_tpot__svg_spread(s, ns, 1);
}

/* A duration in ns in its unit: with 2 decimals (as the text report), or as %g for a decade's tick. */
static const char *ttft_tpot__svg_dur_in(char *buf, size_t len, double ns, int tick)
{
    double div = ns < 1e3 ? 1 : ns < 1e6 ? 1e3 : ns < 1e9 ? 1e6 : 1e9;
    const char *unit = ns < 1e3 ? " ns" : ns < 1e6 ? " us" : ns < 1e9 ? " ms" : " s";
    return ttft_tpot__num_then(buf, len, tick ? "%g" : ns < 1e3 ? "%.0f" : "%.2f", ns / div, unit);
}

/* A duration in ns as the text report prints it: "512 ns", "3.20 us", "4.21 ms", "1.50 s". */
static const char *ttft_tpot__svg_dur(char *buf, size_t len, double ns)
{
    return ttft_tpot__svg_dur_in(buf, len, ns, 0);
}

/* The unit that shows values up to max_ms best on an axis: "s" (divide by 1000) from 2000 ms up, else
   "ms"; *scale is what a value in ms is divided by. */
static const char *ttft_tpot__svg_ms_unit(double max_ms, double *scale)
{
    *scale = max_ms >= 2000 ? 1000 : 1;
    return max_ms >= 2000 ? "s" : "ms";
}

/* A decade's tick as a duration, v in unit ("ms" or "s"): "100 us", "1 ms", "10 s". */
static void ttft_tpot__svg_human_tick(char *buf, size_t len, double v, const char *unit)
{
    ttft_tpot__svg_dur_in(buf, len, v * (strcmp(unit, "s") == 0 ? 1e9 : 1e6), 1);
}

/* [*lo, *hi] made at least a millionth of its magnitude wide around its middle, so that values 1 ulp
   apart get ticks that step; a single value gets 5% of itself either side (1 for 0), so that it is
   drawn inside the frame, not on it. */
static void ttft_tpot__svg_widen(double *lo, double *hi)
{
    double mid = *lo / 2 + *hi / 2, half = ttft_tpot__fmax(ttft_tpot__fabs(*lo), ttft_tpot__fabs(*hi)) * 5e-7;
    if (*hi - *lo >= 2 * half && *hi > *lo)
        return;
    if (*lo == *hi)
        half = mid != 0 ? ttft_tpot__fabs(mid) * 0.05 : 0.5;
    *lo = mid - half;
    *hi = mid + half;
}

/* The range a chart shows: every series' x and y (> 0 only on a log scale; y up to the clip), and the
   marks' x where the data keeps at least half of it (ttft_tpot__svg_take_marks). */
typedef struct ttft_tpot__svg_range {
    double x0, x1, y0, y1;
    int logx, logy;
    double clip; /* > 0: y values above y1 are drawn on the top edge */
} ttft_tpot__svg_range;

/* [*lo, *hi] out to whole decades, at least one wide. */
static void ttft_tpot__svg_decades(double *lo, double *hi)
{
    *lo = ttft_tpot__pow10(ttft_tpot__floor(ttft_tpot__log10(*lo)));
    *hi = ttft_tpot__pow10(ttft_tpot__ceil(ttft_tpot__log10(*hi)));
    *hi = *hi <= *lo ? *lo * 10 : *hi;
}

/* Whether a point is drawn on a scale: positive on a log one. */
static int ttft_tpot__svg_on_scale(const ttft_tpot__svg_range *r, double x, double y)
{
    return (!r->logx || x > 0) && (!r->logy || y > 0);
}

/* v where the x axis places it: log10 of it on a log scale. */
static double ttft_tpot__svg_x_scaled(const ttft_tpot__svg_range *r, double v)
{
    return r->logx ? ttft_tpot__log10(v) : v;
}

/* The marks' x into the range while the data keeps at least half of it: a mark far outside the data
   (an SLO 100x its values) is drawn at the edge (marks), not let squeeze the data into a line. */
static void ttft_tpot__svg_take_marks(const ttft_tpot__svg_chart *c, ttft_tpot__svg_range *r)
{
    double d0 = r->x0, d1 = r->x1; /* the data's; d0 > d1: none, the marks alone set the range */
    int k;
    for (k = 0; k < c->n_marks; k++) {
        double x = c->marks[k].x, lo = x < r->x0 ? x : r->x0, hi = x > r->x1 ? x : r->x1;
        if (r->logx && !(x > 0))
            continue;
        if (d0 > d1 || ttft_tpot__svg_x_scaled(r, d1) - ttft_tpot__svg_x_scaled(r, d0) >=
                           (ttft_tpot__svg_x_scaled(r, hi) - ttft_tpot__svg_x_scaled(r, lo)) / 2)
            r->x0 = lo, r->x1 = hi;
    }
}

static ttft_tpot__svg_range ttft_tpot__svg_range_of(const ttft_tpot__svg_chart *c, const ttft_tpot__svg_series *s,
                                                    int ns)
{
    ttft_tpot__svg_range r = {DBL_MAX, -DBL_MAX, DBL_MAX, -DBL_MAX, c->logx, c->logy, c->yclip};
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double x = s[k].x[i], y = r.clip > 0 && s[k].y[i] > r.clip ? r.clip : s[k].y[i];
            if (!ttft_tpot__svg_on_scale(&r, x, y))
                continue;
            r.x0 = x < r.x0 ? x : r.x0; /* finite values: plain comparisons, no libm call */
            r.x1 = x > r.x1 ? x : r.x1;
            r.y0 = y < r.y0 ? y : r.y0;
            r.y1 = y > r.y1 ? y : r.y1;
        }
    ttft_tpot__svg_take_marks(c, &r);
    if (r.x0 > r.x1)
        r.x0 = 1, r.x1 = 2;
    if (r.y0 > r.y1)
        r.y0 = 1, r.y1 = 2;
    if (c->x_to > c->x_from) {
        r.x0 = c->x_from;
        r.x1 = c->x_to;
    } else if (r.logx) {
        ttft_tpot__svg_decades(&r.x0, &r.x1);
    } else if (c->xint) { /* half a count either side: the first and last points inside the frame */
        r.x0 -= 0.5;
        r.x1 += 0.5;
    } else {
        ttft_tpot__svg_widen(&r.x0, &r.x1);
    }
    if (r.logy) {
        ttft_tpot__svg_decades(&r.y0, &r.y1);
    } else {
        r.y0 = r.y0 > 0 ? 0 : r.y0; /* linear: from 0, so that bars of time compare */
        ttft_tpot__svg_widen(&r.y0, &r.y1);
    }
    return r;
}

static double ttft_tpot__svg_px(const ttft_tpot__svg_range *r, double x)
{
    double f = r->logx ? (ttft_tpot__log10(x) - ttft_tpot__log10(r->x0)) /
                             (ttft_tpot__log10(r->x1) - ttft_tpot__log10(r->x0))
                       : (x - r->x0) / (r->x1 - r->x0);
    return TTFT_TPOT__SVG_ML + f * (TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_ML - TTFT_TPOT__SVG_MR);
}

static double ttft_tpot__svg_py(const ttft_tpot__svg_range *r, double y)
{
    double f;
    y = r->clip > 0 && y > r->y1 ? r->y1 : y;
    f = r->logy ? (ttft_tpot__log10(y) - ttft_tpot__log10(r->y0)) / (ttft_tpot__log10(r->y1) - ttft_tpot__log10(r->y0))
                : (y - r->y0) / (r->y1 - r->y0);
    return TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB - f * (TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MT - TTFT_TPOT__SVG_MB);
}

/* A tick step of 1, 2 or 5 times a power of ten, about extent / 5. */
static double ttft_tpot__svg_nice_step(double extent)
{
    double raw = extent / 5, p = ttft_tpot__pow10(ttft_tpot__floor(ttft_tpot__log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A coordinate or a length of a chart as "%.1f" prints it, into buf (32 bytes). */
static const char *ttft_tpot__svg_at(char *buf, double v)
{
    return ttft_tpot__dnum(buf, 32, "%.1f", v);
}

/* A line from (x1, y1) to (x2, y2) of class cls. */
static void ttft_tpot__svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *cls)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" class=\"%s\"/>\n", ttft_tpot__svg_at(a, x1),
            ttft_tpot__svg_at(b, y1), ttft_tpot__svg_at(c, x2), ttft_tpot__svg_at(d, y2), cls);
}

/* The start tag of a text at (x, y) of class cls: anchored there where anchor is not NULL. */
static void ttft_tpot__svg_text(FILE *out, double x, double y, const char *anchor, const char *cls)
{
    char a[32], b[32];
    fprintf(out, "<text x=\"%s\" y=\"%s\"", ttft_tpot__svg_at(a, x), ttft_tpot__svg_at(b, y));
    if (anchor)
        fprintf(out, " text-anchor=\"%s\"", anchor);
    fprintf(out, " class=\"%s\">", cls);
}

static void ttft_tpot__svg_tick_label(FILE *out, double x, double y, const char *anchor, int decimals, double v)
{
    char text[TTFT_TPOT__NUM_MAX];
    ttft_tpot__svg_text(out, x, y, anchor, "tick");
    fputs(ttft_tpot__num_places(text, sizeof text, decimals, v == 0 ? 0 : v), out); /* no -0 */
    fputs("</text>\n", out);
}

/* The ticks of a linear axis over [lo, hi] every step (TTFT_TPOT__SVG_MAX_TICKS at most, each computed from the first,
   not summed), labelled with as many decimals as the step has: no two read the same. */
static void ttft_tpot__svg_linear_ticks(FILE *out, const ttft_tpot__svg_range *r, double lo, double hi, double step,
                                        int xaxis)
{
    double first = ttft_tpot__ceil(lo / step) * step, v;
    int n = (int)ttft_tpot__fmin(TTFT_TPOT__SVG_MAX_TICKS, ttft_tpot__floor((hi - first) / step + 1e-6) + 1), k;
    int decimals = step >= 1 ? 0 : (int)ttft_tpot__fmin(20, -ttft_tpot__floor(ttft_tpot__log10(step)));
    for (k = 0; k < n; k++) {
        v = first + k * step;
        if (xaxis) {
            ttft_tpot__svg_line(out, ttft_tpot__svg_px(r, v), TTFT_TPOT__SVG_MT, ttft_tpot__svg_px(r, v),
                                TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB, "grid");
            ttft_tpot__svg_tick_label(out, ttft_tpot__svg_px(r, v), TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB + 16, "middle",
                                      decimals, v);
        } else {
            ttft_tpot__svg_line(out, TTFT_TPOT__SVG_ML, ttft_tpot__svg_py(r, v), TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR,
                                ttft_tpot__svg_py(r, v), "grid");
            ttft_tpot__svg_tick_label(out, TTFT_TPOT__SVG_ML - 6, ttft_tpot__svg_py(r, v) + 4, "end", decimals, v);
        }
    }
}

/* The decades of a log axis from lo to hi, labelled as durations in unit (or plain numbers without one). */
static void ttft_tpot__svg_log_ticks(FILE *out, const ttft_tpot__svg_range *r, double lo, double hi, const char *unit,
                                     int xaxis)
{
    char text[32];
    double v;
    int k;
    for (k = 0; k < TTFT_TPOT__SVG_MAX_TICKS && (v = lo * ttft_tpot__pow10(k)) <= hi * 1.0001; k++) {
        if (unit)
            ttft_tpot__svg_human_tick(text, sizeof text, v, unit);
        else
            ttft_tpot__num_places(text, sizeof text,
                                  v >= 1 ? 0 : (int)ttft_tpot__fmin(20, -ttft_tpot__floor(ttft_tpot__log10(v))), v);
        if (xaxis) {
            ttft_tpot__svg_line(out, ttft_tpot__svg_px(r, v), TTFT_TPOT__SVG_MT, ttft_tpot__svg_px(r, v),
                                TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB, "grid");
            ttft_tpot__svg_text(out, ttft_tpot__svg_px(r, v), TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB + 16, "middle",
                                "tick");
        } else {
            ttft_tpot__svg_line(out, TTFT_TPOT__SVG_ML, ttft_tpot__svg_py(r, v), TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR,
                                ttft_tpot__svg_py(r, v), "grid");
            ttft_tpot__svg_text(out, TTFT_TPOT__SVG_ML - 6, ttft_tpot__svg_py(r, v) + 4, "end", "tick");
        }
        fputs(text, out);
        fputs("</text>\n", out);
    }
}

static void ttft_tpot__svg_axes(FILE *out, const ttft_tpot__svg_range *r, const ttft_tpot__svg_chart *c)
{
    char a[32], b[32], w[32], h[32];
    double step = ttft_tpot__svg_nice_step(r->x1 - r->x0);
    if (r->logx)
        ttft_tpot__svg_log_ticks(out, r, r->x0, r->x1, c->xunit, 1);
    else
        ttft_tpot__svg_linear_ticks(out, r, r->x0, r->x1, c->xint && step < 1 ? 1 : step, 1);
    if (r->logy)
        ttft_tpot__svg_log_ticks(out, r, r->y0, r->y1, c->yunit, 0);
    else
        ttft_tpot__svg_linear_ticks(
            out, r, r->y0, r->y1,
            c->yint && ttft_tpot__svg_nice_step(r->y1 - r->y0) < 1 ? 1 : ttft_tpot__svg_nice_step(r->y1 - r->y0), 0);
    fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" class=\"frame\"/>\n",
            ttft_tpot__svg_at(a, TTFT_TPOT__SVG_ML), ttft_tpot__svg_at(b, TTFT_TPOT__SVG_MT),
            ttft_tpot__svg_at(w, TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_ML - TTFT_TPOT__SVG_MR),
            ttft_tpot__svg_at(h, TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MT - TTFT_TPOT__SVG_MB));
    ttft_tpot__svg_text(out, (TTFT_TPOT__SVG_ML + TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR) / 2, TTFT_TPOT__SVG_H - 12,
                        "middle", "axis");
    ttft_tpot__html_text(out, c->xlabel);
    fputs(r->logx ? " (log scale)" : "", out);
    ttft_tpot__svg_at(a, (TTFT_TPOT__SVG_MT + TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB) / 2);
    fprintf(out,
            "</text>\n<text x=\"16\" y=\"%s\" text-anchor=\"middle\" class=\"axis\" "
            "transform=\"rotate(-90 16 %s)\">",
            a, a);
    ttft_tpot__html_text(out, c->ylabel);
    fputs(r->logy ? " (log scale)</text>\n" : "</text>\n", out);
}

/* v as "%.1f" prints it, at p (32 bytes), without printf: a chart's points are most of the page, and
   formatting a double was most of its cost. To the nearest tenth; where v * 10 rounded to a half, the
   part rounding lost tells the side (v * 10 is 8 v + 2 v, both exact, so Knuth's two-sum of them gives
   it exactly, as fma(v, 10, -t) would), and an exact half goes to even, as printf's does. */
static char *ttft_tpot__svg_tenths(char *p, double v)
{
    double a = ttft_tpot__fabs(v), t = a * 10, k = ttft_tpot__floor(t), lost, bb;
    char digits[20];
    int m = 0;
    uint64_t n;
    if (!(a < 1e15))
        return p + strlen(ttft_tpot__svg_at(p, v));
    bb = t - a * 8;
    lost = (a * 8 - (t - bb)) + (a * 2 - bb);
    if (t - k > 0.5 || (t - k == 0.5 && (lost > 0 || (lost == 0 && ((uint64_t)k & 1u) != 0))))
        k += 1;
    n = (uint64_t)k;
    if (ttft_tpot__dbits(v) >> 63) /* signbit */
        *p++ = '-';
    do
        digits[m++] = (char)('0' + n % 10);
    while ((n /= 10) != 0);
    if (m == 1) /* "0.5": a whole part of 0 */
        digits[m++] = '0';
    while (m > 1)
        *p++ = digits[--m];
    p[0] = '.', p[1] = digits[0], p[2] = '\0';
    return p + 2;
}

/* "X,Y " of a polyline's vertex. */
static void ttft_tpot__svg_vertex(FILE *out, double x, double y)
{
    char buf[72], *p = ttft_tpot__svg_tenths(buf, x);
    *p++ = ',';
    p = ttft_tpot__svg_tenths(p, y);
    *p++ = ' ';
    fwrite(buf, 1, (size_t)(p - buf), out);
}

/* One point of a series: a dot, or the next vertex of its polyline (a CDF steps up at each value). */
static void ttft_tpot__svg_point(FILE *out, const ttft_tpot__svg_range *r, const ttft_tpot__svg_series *s, size_t i,
                                 double *last_y)
{
    char x[32], y[32];
    if (!ttft_tpot__svg_on_scale(r, s->x[i], s->y[i]))
        return;
    if (s->kind == TTFT_TPOT__SVG_DOTS && r->clip > 0 && s->y[i] > r->y1) /* off the scale: off_scale marks it */
        return;
    if (s->kind == TTFT_TPOT__SVG_DOTS) {
        ttft_tpot__svg_tenths(x, ttft_tpot__svg_px(r, s->x[i]));
        ttft_tpot__svg_tenths(y, ttft_tpot__svg_py(r, s->y[i]));
        fprintf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" %s=\"%s\"/>\n", x, y, s->hollow ? "4" : "2.5",
                s->hollow ? "fill=\"none\" stroke-width=\"1.5\" stroke" : "fill", s->color);
        return;
    }
    if (s->kind == TTFT_TPOT__SVG_STEP && i > 0)
        ttft_tpot__svg_vertex(out, ttft_tpot__svg_px(r, s->x[i]), ttft_tpot__svg_py(r, *last_y));
    ttft_tpot__svg_vertex(out, ttft_tpot__svg_px(r, s->x[i]), ttft_tpot__svg_py(r, s->y[i]));
    *last_y = s->y[i];
}

static void ttft_tpot__svg_polyline(FILE *out, const ttft_tpot__svg_series *s)
{
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", s->color);
}

/* A series; a long one column by column, each column's first, lowest, highest and last points in order.
   On a counted axis a line breaks where its x skips over 2% of the axis (steps of other phases). */
static void ttft_tpot__svg_draw(FILE *out, const ttft_tpot__svg_range *r, const ttft_tpot__svg_series *s, int xint)
{
    size_t lo, i, prev = SIZE_MAX;
    size_t per = s->kind == TTFT_TPOT__SVG_STEP || s->n <= (size_t)2 * TTFT_TPOT__SVG_COLUMNS
                     ? 1
                     : s->n / TTFT_TPOT__SVG_COLUMNS + 1;
    double last_y = 0, span = r->x1 - r->x0;
    if (s->kind != TTFT_TPOT__SVG_DOTS)
        ttft_tpot__svg_polyline(out, s);
    for (lo = 0; lo < s->n; lo += per) {
        size_t hi = lo + per < s->n ? lo + per : s->n, mn = lo, mx = lo, pick[4];
        double ymn = s->y[lo], ymx = s->y[lo]; /* y[mn] and y[mx], kept at hand */
        int k;
        for (i = lo; i < hi; i++) {
            double y = s->y[i];
            if (y < ymn)
                ymn = y, mn = i;
            if (y > ymx)
                ymx = y, mx = i;
        }
        pick[0] = lo, pick[1] = mn < mx ? mn : mx, pick[2] = mn < mx ? mx : mn, pick[3] = hi - 1;
        for (k = 0; k < 4; k++) {
            if (k && pick[k] == pick[k - 1])
                continue;
            if (s->kind == TTFT_TPOT__SVG_LINE && xint && prev != SIZE_MAX &&
                s->x[pick[k]] - s->x[prev] > ttft_tpot__fmax(1.5, span / 50))
                fputs("\"/>\n", out), ttft_tpot__svg_polyline(out, s);
            ttft_tpot__svg_point(out, r, s, pick[k], &last_y);
            prev = pick[k];
        }
    }
    if (s->kind != TTFT_TPOT__SVG_DOTS)
        fputs("\"/>\n", out);
}

/* The points above the clip: a triangle on the top edge each, the first few with their value. */
static void ttft_tpot__svg_off_scale(FILE *out, const ttft_tpot__svg_range *r, const ttft_tpot__svg_chart *c,
                                     const ttft_tpot__svg_series *s, int ns)
{
    char text[32], px[32], py[32];
    int k, labelled = 0;
    size_t i;
    for (k = 0; r->clip > 0 && k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double x, v = s[k].y[i];
            if (!(v > r->y1) || !ttft_tpot__svg_on_scale(r, s[k].x[i], 1))
                continue;
            x = ttft_tpot__svg_px(r, s[k].x[i]);
            fprintf(out, "<path d=\"M%s %s l-5 9 h10 z\" fill=\"%s\" class=\"offscale\"/>\n",
                    ttft_tpot__svg_at(px, x), ttft_tpot__svg_at(py, TTFT_TPOT__SVG_MT + 1), s[k].color);
            if (labelled++ >= 8)
                continue;
            if (c->yunit)
                ttft_tpot__svg_dur(text, sizeof text, v * (strcmp(c->yunit, "s") == 0 ? 1e9 : 1e6));
            else
                ttft_tpot__dnum(text, sizeof text, "%.4g", v);
            /* staggered: points at one x apart */
            ttft_tpot__svg_text(out, x + 7, TTFT_TPOT__SVG_MT + 10 + 12.0 * ((labelled - 1) % 4), NULL, "tick");
            fprintf(out, "&#8593; %s</text>\n", text);
        }
}

/* A mark outside the x range: a triangle on the frame's edge pointing its way, labelled with an arrow.
   On the right low, on the left high: where a CDF (rising left to right) leaves room. */
static void ttft_tpot__svg_mark_off(FILE *out, const ttft_tpot__svg_mark *m, int right, int k)
{
    double x = right ? TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR : TTFT_TPOT__SVG_ML,
           y = right ? TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB - 12 - 14.0 * (k % 3)
                     : TTFT_TPOT__SVG_MT + 14 + 14.0 * (k % 3);
    char a[32], b[32];
    fprintf(out, "<path d=\"M%s %s l%d -5 v10 z\" fill=\"#333\" class=\"markoff\"/>\n", ttft_tpot__svg_at(a, x),
            ttft_tpot__svg_at(b, y), right ? -9 : 9);
    ttft_tpot__svg_text(out, right ? x - 12 : x + 12, y + 4, right ? "end" : "start", "marklabel");
    fputs(right ? "" : "&#8592; ", out);
    ttft_tpot__html_text(out, m->label);
    fputs(right ? " &#8594;</text>\n" : "</text>\n", out);
}

/* The marks: a dashed vertical line each, labelled at its top; one outside the range at its edge. */
static void ttft_tpot__svg_marks(FILE *out, const ttft_tpot__svg_range *r, const ttft_tpot__svg_chart *c)
{
    int k;
    for (k = 0; k < c->n_marks; k++) {
        double x;
        if (r->logx && !(c->marks[k].x > 0))
            continue;
        if (c->marks[k].x < r->x0 || c->marks[k].x > r->x1) {
            ttft_tpot__svg_mark_off(out, &c->marks[k], c->marks[k].x > r->x1, k);
            continue;
        }
        x = ttft_tpot__svg_px(r, c->marks[k].x);
        ttft_tpot__svg_line(out, x, TTFT_TPOT__SVG_MT, x, TTFT_TPOT__SVG_H - TTFT_TPOT__SVG_MB, "mark");
        ttft_tpot__svg_text(out, x > TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR - 80 ? x - 4 : x + 4,
                            TTFT_TPOT__SVG_MT + 24 + 12.0 * (k % 3),
                            x > TTFT_TPOT__SVG_W - TTFT_TPOT__SVG_MR - 80 ? "end" : "start", "marklabel");
        ttft_tpot__html_text(out, c->marks[k].label);
        fputs("</text>\n", out);
    }
}

static void ttft_tpot__svg_legend(FILE *out, const ttft_tpot__svg_series *s, int ns)
{
    char a[32], b[32];
    double x = TTFT_TPOT__SVG_ML + 8;
    int k;
    for (k = 0; k < ns; k++) {
        if (s[k].kind == TTFT_TPOT__SVG_DOTS && s[k].hollow)
            fprintf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"4\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
                    ttft_tpot__svg_at(a, x + 6), ttft_tpot__svg_at(b, TTFT_TPOT__SVG_MT - 12), s[k].color);
        else
            fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"12\" height=\"4\" fill=\"%s\"/>", ttft_tpot__svg_at(a, x),
                    ttft_tpot__svg_at(b, TTFT_TPOT__SVG_MT - 14), s[k].color);
        ttft_tpot__svg_text(out, x + 16, TTFT_TPOT__SVG_MT - 8, NULL, "legend");
        ttft_tpot__html_text(out, s[k].name);
        fputs("</text>\n", out);
        x += 30 + 7.5 * (double)strlen(s[k].name);
    }
}

/* The end of a figure's caption and the start of its <svg>: a chart's width, height tall. */
static void ttft_tpot__svg_open(FILE *out, double height)
{
    char w[32], h[32];
    fprintf(out, "</figcaption>\n<svg viewBox=\"0 0 %s %s\" role=\"img\">\n",
            ttft_tpot__dnum(w, sizeof w, "%.0f", TTFT_TPOT__SVG_W), ttft_tpot__dnum(h, sizeof h, "%.0f", height));
}

/* The chart as an <svg> element. Long series are thinned to their extremes per pixel column. */
static void ttft_tpot__svg_plot(FILE *out, const ttft_tpot__svg_chart *c, const ttft_tpot__svg_series *s, int ns)
{
    ttft_tpot__svg_range r = ttft_tpot__svg_range_of(c, s, ns);
    int k;
    fprintf(out, "<figure><figcaption>");
    ttft_tpot__html_text(out, c->title);
    if (c->note && *c->note) {
        fputs("<br><span class=\"note\">", out);
        ttft_tpot__html_text(out, c->note);
        fputs("</span>", out);
    }
    ttft_tpot__svg_open(out, TTFT_TPOT__SVG_H);
    ttft_tpot__svg_axes(out, &r, c);
    for (k = 0; k < ns; k++)
        ttft_tpot__svg_draw(out, &r, &s[k], c->xint);
    ttft_tpot__svg_off_scale(out, &r, c, s, ns);
    ttft_tpot__svg_marks(out, &r, c);
    ttft_tpot__svg_legend(out, s, ns);
    fputs("</svg></figure>\n", out);
}

/* Horizontal bars: one group a label, one bar a series k < ns named names[k] (value values[k][i] in
   [0, 1], shown as %, and beside it the duration in ns of abs_ns[k][i] where abs_ns is not NULL and that
   value is not negative; a negative value: the series has no such group, "absent"). */
typedef struct ttft_tpot__svg_bar_series {
    const double *const *values, *const *abs_ns;
    const char *const *names;
    int ns;
} ttft_tpot__svg_bar_series;

static void ttft_tpot__svg_bars(FILE *out, const char *title, const char *const *labels, size_t n,
                                const ttft_tpot__svg_bar_series *series)
{
    const double *const *values = series->values, *const *abs_ns = series->abs_ns;
    const char *const *names = series->names;
    int ns = series->ns;
    char d[32], pct[32], text[32 + 8 + 32], a[32], b[32], w[32];
    /* each group: its label on a line of its own (a phase name of 63 bytes fits across), then its bars */
    double row = 22.0 + 14.0 * ns, height = TTFT_TPOT__SVG_MT + row * (double)n + 12, x0 = 8,
           width = TTFT_TPOT__SVG_W - x0 - 140;
    size_t i;
    int k;
    fprintf(out, "<figure><figcaption>");
    ttft_tpot__html_text(out, title);
    ttft_tpot__svg_open(out, height);
    for (k = 0; ns > 1 && k < ns; k++) {
        fprintf(out, "<rect x=\"%s\" y=\"8\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%s\" y=\"17\" "
                     "class=\"legend\">", ttft_tpot__svg_at(a, x0 + 150.0 * k), ttft_tpot__svg_colors[k],
                ttft_tpot__svg_at(b, x0 + 150.0 * k + 16));
        ttft_tpot__html_text(out, names[k]);
        fputs("</text>\n", out);
    }
    for (i = 0; i < n; i++) {
        double y = TTFT_TPOT__SVG_MT + row * (double)i;
        ttft_tpot__svg_text(out, x0, y + 10, "start", "tick");
        ttft_tpot__html_text(out, labels[i]);
        fputs("</text>\n", out);
        for (k = 0; k < ns; k++) {
            double v = values[k][i] > 0 ? values[k][i] : 0, bar;
            if (values[k][i] < 0) /* a group this series does not have */
                snprintf(text, sizeof text, "absent");
            else if (abs_ns && abs_ns[k][i] >= 0)
                snprintf(text, sizeof text, "%s &#183; %s", ttft_tpot__num_then(pct, sizeof pct, "%.1f", 100 * v, "%"),
                         ttft_tpot__svg_dur(d, sizeof d, abs_ns[k][i]));
            else
                ttft_tpot__num_then(text, sizeof text, "%.1f", 100 * v, "%");
            bar = width * (v < 1 ? v : 1);
            fprintf(out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"12\" fill=\"%s\"/>", ttft_tpot__svg_at(a, x0),
                    ttft_tpot__svg_at(b, y + 16 + 14.0 * k), ttft_tpot__svg_at(w, bar), ttft_tpot__svg_colors[k]);
            ttft_tpot__svg_text(out, x0 + bar + 4 > TTFT_TPOT__SVG_W - 130 ? TTFT_TPOT__SVG_W - 130 : x0 + bar + 4,
                                y + 26 + 14.0 * k, NULL, "tick");
            fprintf(out, "%s</text>\n", text);
        }
    }
    fputs("</svg></figure>\n", out);
}

/* -- Reports: the page (one file, inline SVG and CSS, nothing fetched, no script) -------------- */

#define TTFT_TPOT__HTML_CDF_POINTS 1000 /* a CDF is drawn through this many quantiles at most */

/* The sides of a comparison in the legends (the header names their files). */
static const char *const ttft_tpot__html_side_names[2] = {"base", "new"};

/* Appends to note (len bytes), where side k's chart shows fewer of its samples than its figures
   count (the rest went on in a histogram when the storage was full), how many it shows. */
static void ttft_tpot__html_stored_note(char *note, size_t len, const char *side, size_t shown, uint64_t total,
                                        const char *what)
{
    size_t at = strlen(note);
    if (shown < total)
        snprintf(note + at, len - at, "%s%s%sshows the %zu stored of %llu %s: the rest went on in a histogram when "
                 "the storage was full, and only the headline figures count them.", at ? " " : "", side,
                 *side ? " " : "", shown, (unsigned long long)total, what);
}

/* Side k's name in a note of n sides: "" where there is one. */
#define TTFT_TPOT__HTML_SIDE(n, k) ((n) > 1 ? ttft_tpot__html_side_names[k] : "")

/* Each request metric's label and name in words (TTFT_TPOT_METRICS). */
#define TTFT_TPOT__HTML_METRIC_NAME(name, label, words, ...) {label, words},
static const struct {
    const char *label, *words;
} ttft_tpot__html_metric_names[TTFT_TPOT_METRIC_COUNT] = {TTFT_TPOT_METRICS(TTFT_TPOT__HTML_METRIC_NAME)};
#undef TTFT_TPOT__HTML_METRIC_NAME

/* Points of a chart: x and y, grown as they come. */
typedef struct ttft_tpot__html_pts {
    double *x, *y;
    size_t n, cap;
    size_t want; /* the room its first growth takes, where how many will come is known (0: 256) */
} ttft_tpot__html_pts;

/* Room for cap points at least: 0 or -1. */
static int ttft_tpot__html_pts_reserve(ttft_tpot__html_pts *p, size_t cap)
{
    double *nx, *ny;
    if (cap <= p->cap)
        return 0;
    if (!(nx = (double *)realloc(p->x, cap * sizeof *nx)))
        return -1;
    p->x = nx;
    if (!(ny = (double *)realloc(p->y, cap * sizeof *ny)))
        return -1;
    p->y = ny;
    p->cap = cap;
    return 0;
}

/* Room for more: twice as much, or at first what is wanted. */
static int ttft_tpot__html_pts_grow(ttft_tpot__html_pts *p)
{
    return ttft_tpot__html_pts_reserve(p, p->cap ? 2 * p->cap : p->want > 256 ? p->want : 256);
}

static inline int ttft_tpot__html_pts_add(ttft_tpot__html_pts *p, double x, double y)
{
    if (p->n == p->cap && ttft_tpot__html_pts_grow(p) != 0)
        return -1;
    p->x[p->n] = x;
    p->y[p->n++] = y;
    return 0;
}

static void ttft_tpot__html_pts_free(ttft_tpot__html_pts *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

/* -- Reports: what the charts show ------------------------------------------------------------- */

/* The decode and prefill samples in call order, in one pass: (index among their role's samples, ms).
   A steady decode sample goes to line[its phase] (line NULL: to steady; a NULL entry: nowhere), a
   warmup one to warm (NULL: nowhere); a steady prefill sample to pre_steady, a warmup one to pre_warm
   (both NULL: nowhere). */
static int ttft_tpot__html_role_points(const ttft_tpot_model *m, ttft_tpot__html_pts *const *line,
                                       ttft_tpot__html_pts *steady, ttft_tpot__html_pts *warm,
                                       ttft_tpot__html_pts *pre_steady, ttft_tpot__html_pts *pre_warm)
{
    size_t i, k = 0, kp = 0, most = m->head.samples;
    unsigned p;
    for (p = 0; p < m->phases; p++) { /* room ahead: the samples each phase's figures count (at most all) */
        const ttft_tpot_phase_figures *f = &m->phase[p];
        int dec = f->role == TTFT_TPOT_ROLE_DECODE, pre = f->role == TTFT_TPOT_ROLE_PREFILL;
        ttft_tpot__html_pts *to = dec ? (line ? line[p] : steady) : pre ? pre_steady : NULL;
        ttft_tpot__html_pts *tw = dec ? warm : pre ? pre_warm : NULL;
        if (to)
            to->want = to->want + f->steady.n < most ? to->want + (size_t)f->steady.n : most;
        if (tw)
            tw->want = tw->want + f->all.warmup_n < most ? tw->want + (size_t)f->all.warmup_n : most;
    }
    for (i = 0; i < m->head.samples; i++) {
        const ttft_tpot_sample *s = &m->samples[i];
        int role = m->phase[s->phase].role;
        ttft_tpot__html_pts *to = s->warmup ? warm : line ? line[s->phase] : steady;
        if (role == TTFT_TPOT_ROLE_DECODE) { /* TPOT: per output token */
            if (to && ttft_tpot__html_pts_add(to, (double)k, (double)ttft_tpot__step_tpot(m, i) / 1e6) != 0)
                return -1;
            k++;
        } else if (role == TTFT_TPOT_ROLE_PREFILL && pre_steady) {
            if (ttft_tpot__html_pts_add(s->warmup ? pre_warm : pre_steady, (double)kp++, (double)s->dur_ns / 1e6) != 0)
                return -1;
        }
    }
    return 0;
}

/* A side's prefill samples, gathered in the pass over its decode steps for the TTFT chart: steady in
   p[0], warmup in p[1] (done: they were). */
typedef struct ttft_tpot__html_prefills {
    ttft_tpot__html_pts p[2];
    int done;
} ttft_tpot__html_prefills;

/* Where each run begins (after the axis's first point) on a role's axis (its samples' call order): up to max marks,
   labelled "run 2", "run 3", ...; returns how many. */
static int ttft_tpot__html_run_marks(const ttft_tpot_model *m, int role, ttft_tpot__svg_mark *mk, char (*label)[16],
                                     int max)
{
    size_t first = 0, end, i, k = 0;
    unsigned r = 0;
    int n = 0, more = ttft_tpot_run_at(m->collector, 0, &first, &end) == TTFT_TPOT_OK; /* run r: first */
    for (i = 0; more && i < m->head.samples && n < max; i++) { /* the samples up to the last run's start */
        for (; n < max && more && first <= i;
             more = ttft_tpot_run_at(m->collector, ++r, &first, &end) == TTFT_TPOT_OK) {
            if (k == 0) /* the axis begins with it */
                continue;
            snprintf(label[n], sizeof label[n], "run %u", r + 1);
            mk[n].label = label[n];
            mk[n++].x = (double)k - 0.5; /* between the last step of one run and the first of the next */
        }
        k += m->phase[m->samples[i].phase].role == role;
    }
    return n;
}

/* TTFT by request in submit order (warmup requests apart), or by prefill call without requests (those
   of pf where they were gathered: moved from it). */
static int ttft_tpot__html_ttft_points(const ttft_tpot_model *m, ttft_tpot__html_prefills *pf,
                                       ttft_tpot__html_pts *steady, ttft_tpot__html_pts *warm)
{
    ttft_tpot_request q;
    unsigned r;
    if (ttft_tpot__served(m)->requests.seen == 0 && pf->done) {
        *steady = pf->p[0];
        *warm = pf->p[1];
        memset(pf->p, 0, sizeof pf->p);
        return 0;
    }
    if (ttft_tpot__served(m)->requests.seen == 0)
        return ttft_tpot__html_role_points(m, NULL, NULL, NULL, steady, warm);
    for (r = 0; ttft_tpot_request_at(ttft_tpot_serve_of(m->collector), r, &q, NULL) == TTFT_TPOT_OK; r++)
        if (q.token_events && !q.truncated && !TTFT_TPOT_FINISH_FAILED(q.reason) &&
            ttft_tpot__html_pts_add(q.warmup ? warm : steady, (double)r, (double)(q.first_ns - q.submit_ns) / 1e6) != 0)
            return -1;
    return 0;
}

/* The CDF of a set of the library's (TTFT_TPOT_SET_*) in ms through at most TTFT_TPOT__HTML_CDF_POINTS of its values,
   and *values: how many it has. */
static int ttft_tpot__html_cdf_of(const ttft_tpot_model *m, int set, ttft_tpot__html_pts *out, size_t *values)
{
    ttft_tpot_cdf_point p[TTFT_TPOT__HTML_CDF_POINTS + 1];
    size_t n, i;
    if (ttft_tpot_cdf(m->collector, set, TTFT_TPOT__HTML_CDF_POINTS, p, &n, values) != TTFT_TPOT_OK)
        return -1;
    for (i = 0; i < n; i++)
        if (ttft_tpot__html_pts_add(out, (double)p[i].x / 1e6, p[i].y) != 0)
            return -1;
    return 0;
}

/* -- Reports: the sections --------------------------------------------------------------------- */

static void ttft_tpot__html_row(FILE *out, const char *what, const char *value, const char *note)
{
    fputs("<tr><th>", out);
    ttft_tpot__html_text(out, what);
    fputs("</th><td>", out);
    ttft_tpot__html_text(out, value);
    fputs("</td><td class=\"note\">", out);
    ttft_tpot__html_text(out, note);
    fputs("</td></tr>\n", out);
}

/* The chosen percentiles (config.percentiles) of a statistics object, "2.74 ms / 4.02 ms", and their
   names, "p50 / p99.9". */
static void ttft_tpot__html_picks(char *buf, size_t len, char *names, size_t names_len, const ttft_tpot_stats *st)
{
    char a[32], b[16];
    unsigned k;
    buf[0] = names[0] = '\0';
    for (k = 0; k < st->pick_n; k++) {
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? " / " : "",
                 ttft_tpot__svg_dur(a, sizeof a, (double)st->pick_ns[k]));
        snprintf(names + strlen(names), names_len - strlen(names), "%s%s", k ? " / " : "",
                 ttft_tpot_percentile_name(b, sizeof b, st->pick_pm[k]));
    }
}

/* "p50 [lo, hi] / p90 / p99" of a statistics object. */
static const char *ttft_tpot__html_pcts(char *buf, size_t len, const ttft_tpot_stats *st)
{
    char a[32], b[32], d[32], lo[32], hi[32], ci[80] = "";
    if (st->has_ci[0])
        snprintf(ci, sizeof ci, " [%s, %s]", ttft_tpot__svg_dur(lo, sizeof lo, (double)st->ci_ns[0][0]),
                 ttft_tpot__svg_dur(hi, sizeof hi, (double)st->ci_ns[0][1]));
    snprintf(buf, len, "%s%s / %s / %s", ttft_tpot__svg_dur(a, sizeof a, st->p50_ns), ci,
             ttft_tpot__svg_dur(b, sizeof b, st->p90_ns), ttft_tpot__svg_dur(d, sizeof d, st->p99_ns));
    return buf;
}

static void ttft_tpot__html_headline_requests(FILE *out, const ttft_tpot_model *m)
{
    const ttft_tpot_requests *q = &ttft_tpot__served(m)->requests;
    char v[256], n[256], what[64], names[10 * TTFT_TPOT_MAX_PERCENTILES], a[64], b[64];
    int k;
    if (q->n == 0)
        return;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++) { /* every request metric, in the table's order */
        const ttft_tpot_stats *st = &q->metric[k];
        if (!st->n)
            continue;
        snprintf(what, sizeof what, "Request %s", ttft_tpot__html_metric_names[k].label);
        if (st->pick_n) { /* the chosen percentiles, as the text shows them */
            ttft_tpot__html_picks(v, sizeof v, names, sizeof names, st);
            snprintf(n, sizeof n, "%s: %s, n=%llu", ttft_tpot__html_metric_names[k].words, names,
                     (unsigned long long)st->n);
            ttft_tpot__html_row(out, what, v, n);
            continue;
        }
        snprintf(n, sizeof n, "%s: p50 [95%% CI] / p90 / p99, n=%llu", ttft_tpot__html_metric_names[k].words,
                 (unsigned long long)st->n);
        ttft_tpot__html_row(out, what, ttft_tpot__html_pcts(v, sizeof v, st), n);
    }
    if (q->has_window) {
        snprintf(v, sizeof v, "%s req/s, %s tok/s", ttft_tpot__dnum(a, sizeof a, "%.2f", q->request_rps),
                 ttft_tpot__dnum(b, sizeof b, "%.1f", q->output_tok_s));
        ttft_tpot__html_row(out, "Serving throughput", v, "measured requests over their window");
    }
    if (q->has_max_tok_s) {
        snprintf(v, sizeof v, "%s tok/s, %llu requests", ttft_tpot__dnum(a, sizeof a, "%.1f", q->max_output_tok_s),
                 (unsigned long long)q->max_concurrent_requests);
        snprintf(n, sizeof n, "output tok/s of the busiest %s slice; the most requests in flight at once "
                 "(from submit to last token)", ttft_tpot__svg_dur(what, sizeof what, (double)ttft_tpot__served(m)->slice_ns));
        ttft_tpot__html_row(out, "Peak", v, n);
    }
    if (q->has_goodput) {
        snprintf(v, sizeof v, "%llu of %llu (%s%%)", (unsigned long long)q->good_n, (unsigned long long)q->n,
                 ttft_tpot__dnum(a, sizeof a, "%.1f", 100 * q->good_fraction));
        ttft_tpot__html_row(out, "Goodput", v, "requests within every SLO");
    }
}

/* Runs (ttft_tpot_run_begin): the mean, sd and CV of each run's TPOT p50 and output rate, the
   values --compare takes for runs. */
static void ttft_tpot__html_headline_runs(FILE *out, const ttft_tpot_model *m)
{
    static const int figure[2] = {TTFT_TPOT_RUN_TPOT, TTFT_TPOT_RUN_TOK_S};
    char v[160], note[160], over[64] = "", a[64], b[64];
    int k;
    snprintf(over, sizeof over, ": over %s%%, compare runs, not one figure",
             ttft_tpot__dnum(a, sizeof a, "%g", 100 * TTFT_TPOT_RUN_CV_FLAG));
    for (k = 0; k < 2; k++) {
        const ttft_tpot_run_figure *f = &m->runs.fig[figure[k]];
        double unit = k ? 1 : 1e6; /* TPOT in ms */
        if (f->n < 2) /* one run has no spread */
            continue;
        snprintf(v, sizeof v, "%s +- %s %s", ttft_tpot__dnum(a, sizeof a, k ? "%.1f" : "%.4g", f->mean / unit),
                 ttft_tpot__dnum(b, sizeof b, k ? "%.1f" : "%.2g", f->sd / unit), k ? "tok/s" : "ms");
        if (f->has_cv) /* a CV of a mean of 0 is 0/0: n/a, as the text report says */
            snprintf(note, sizeof note, "mean +- sd over %u runs, CV %s%%%s", f->n,
                     ttft_tpot__dnum(a, sizeof a, "%.1f", 100 * f->cv), f->varies ? over : "");
        else
            snprintf(note, sizeof note, "mean +- sd over %u runs, CV n/a", f->n);
        ttft_tpot__html_row(out, k ? "Runs: output throughput" : "Runs: TPOT p50", v, note);
    }
}

static void ttft_tpot__html_headline_one(FILE *out, const ttft_tpot_model *m)
{
    const ttft_tpot_summary *s = &m->head;
    char v[256], n[128];
    fputs("<table>\n<tr><th>Metric</th><th>Value</th><th>Note</th></tr>\n", out);
    /* a serving run leads with its requests; rows without a source are left out */
    ttft_tpot__html_headline_requests(out, m);
    if (s->has_ttft_first) {
        ttft_tpot__html_row(out, "TTFT, first request", ttft_tpot__svg_dur(v, sizeof v, (double)s->ttft_first_ns),
                            ttft_tpot__first_note(s)); /* the text report's note */
        snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady prefills",
                 (unsigned long long)s->ttft_steady.n);
        ttft_tpot__html_row(out, "TTFT, steady",
                            s->ttft_steady.n ? ttft_tpot__html_pcts(v, sizeof v, &s->ttft_steady) : "n/a", n);
    }
    ttft_tpot__num_then(v, sizeof v, "%.1f", s->prefill_tok_s, " tok/s");
    if (s->ttft_steady.n)
        ttft_tpot__html_row(out, "Prefill rate", s->has_prefill_tok_s ? v : "n/a",
                            "prompt tokens / steady prefill time");
    snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady steps, %llu warmup excluded",
             (unsigned long long)s->tpot.n, (unsigned long long)s->tpot_excluded);
    if (s->tpot.n || s->tpot_excluded) {
        ttft_tpot__html_row(out, "TPOT", s->tpot.n ? ttft_tpot__html_pcts(v, sizeof v, &s->tpot) : "n/a", n);
        ttft_tpot__num_then(v, sizeof v, "%.1f", s->output_tok_s, " tok/s");
        ttft_tpot__html_row(out, "Output throughput", s->has_output_tok_s ? v : "n/a", "decode-only, steady");
    }
    ttft_tpot__num_then(v, sizeof v, "%.2f", s->e2e_tok_s, " tok/s");
    if (s->e2e.n)
        ttft_tpot__html_row(out, "e2e", s->has_e2e_tok_s ? v : "n/a",
                            "incl. prefill and warmup: not a serving throughput");
    ttft_tpot__html_headline_runs(out, m);
    snprintf(v, sizeof v, "%llu dropped, %llu rejected, %llu phases in histograms",
             (unsigned long long)m->losses.dropped, (unsigned long long)m->losses.rejected,
             (unsigned long long)m->losses.outgrown);
    ttft_tpot__html_row(out, "Losses", v, "as the text report details");
    fputs("</table>\n", out);
}

#define TTFT_TPOT__HTML_LINES 6 /* a chart's series: one colour each */

/* A chart over counted x (steps, requests), its other fields 0. */
static ttft_tpot__svg_chart ttft_tpot__html_chart_on_steps(const char *title, const char *xlabel, const char *ylabel)
{
    ttft_tpot__svg_chart ch;
    memset(&ch, 0, sizeof ch);
    ch.title = title;
    ch.xlabel = xlabel;
    ch.ylabel = ylabel;
    ch.xint = 1;
    return ch;
}

/* A chart's series as they are gathered: their points, names and how each is drawn. */
typedef struct ttft_tpot__html_lines {
    ttft_tpot__html_pts p[TTFT_TPOT__HTML_LINES];
    ttft_tpot__svg_series s[TTFT_TPOT__HTML_LINES];
    char name[TTFT_TPOT__HTML_LINES][96];
    int n;
} ttft_tpot__html_lines;

/* Series k of l (its points gathered in l->p[k]) named and drawn so; one without points is dropped. */
static void ttft_tpot__html_line_set(ttft_tpot__html_lines *l, int k, const char *name, const char *color, int kind,
                                     int hollow)
{
    snprintf(l->name[k], sizeof l->name[k], "%s", name);
    l->s[k].name = l->name[k];
    l->s[k].color = color;
    l->s[k].kind = kind;
    l->s[k].hollow = hollow;
}

/* The series with points, in order, into s; returns how many; *total: their points. */
static int ttft_tpot__html_lines_drawn(ttft_tpot__html_lines *l, ttft_tpot__svg_series *s, size_t *total)
{
    int k, j = 0;
    *total = 0;
    for (k = 0; k < l->n; k++) {
        if (!l->p[k].n)
            continue;
        s[j] = l->s[k];
        s[j].x = l->p[k].x;
        s[j].y = l->p[k].y;
        s[j].n = l->p[k].n;
        *total += s[j++].n;
    }
    return j;
}

static void ttft_tpot__html_lines_free(ttft_tpot__html_lines *l)
{
    int k;
    for (k = 0; k < TTFT_TPOT__HTML_LINES; k++)
        ttft_tpot__html_pts_free(&l->p[k]);
}

/* A chart with one value between its series: the value alone, not an empty frame with one dot. */
static void ttft_tpot__html_single_value(FILE *out, const char *title, const char *value, const char *what)
{
    fputs("<figure><figcaption>", out);
    ttft_tpot__html_text(out, title);
    fputs("</figcaption>\n<p class=\"single\">One value: <b>", out);
    ttft_tpot__html_text(out, value);
    fputs("</b> ", out);
    ttft_tpot__html_text(out, what);
    fputs("</p></figure>\n", out);
}

/* Each series' largest y (0 at least) and smallest positive y (DBL_MAX: none), in one pass a series:
   what ttft_tpot__html_max_y and ttft_tpot__svg_wants_log would each find in a pass of their own. */
static void ttft_tpot__html_y_extents(const ttft_tpot__svg_series *s, int ns, double *top, double *low)
{
    size_t i;
    int k;
    for (k = 0; k < ns; k++) {
        double mx = 0, lo = DBL_MAX;
        for (i = 0; i < s[k].n; i++) {
            double v = s[k].y[i];
            mx = v > mx ? v : mx;
            lo = v > 0 && v < lo ? v : lo;
        }
        top[k] = mx;
        low[k] = lo;
    }
}

/* The largest of top[] of the series whose hollow is h. */
static double ttft_tpot__html_max_y(const ttft_tpot__svg_series *s, int ns, const double *top, int h)
{
    double mx = 0;
    int k;
    for (k = 0; k < ns; k++)
        mx = s[k].hollow == h && top[k] > mx ? top[k] : mx;
    return mx;
}

/* Values in ms divided by scale, in place. */
static void ttft_tpot__html_scale_by(ttft_tpot__svg_series *s, int ns, double scale, int on_x)
{
    size_t i;
    int k;
    for (k = 0; k < ns && scale != 1; k++)
        for (i = 0; i < s[k].n; i++)
            ((double *)(on_x ? s[k].x : s[k].y))[i] /= scale;
}

/* A per-sample chart of steady series and warmup rings: warmup values over twice the steady maximum
   are drawn off the scale (triangles on the top edge, with their values), the scale is log when the
   values shown spread over 20x, time in s from 2000 ms up; one value alone is written as such. */
static void ttft_tpot__html_sample_chart(FILE *out, ttft_tpot__svg_chart *ch, ttft_tpot__svg_series *s, int ns,
                                         size_t total, const char *ylabel)
{
    char yl[128], v[32], note[800];
    double top[TTFT_TPOT__HTML_LINES], low[TTFT_TPOT__HTML_LINES], steady, warm, scale, lo = DBL_MAX, hi = 0;
    int clip, k;
    ttft_tpot__html_y_extents(s, ns, top, low);
    steady = ttft_tpot__html_max_y(s, ns, top, 0);
    warm = ttft_tpot__html_max_y(s, ns, top, 1);
    clip = steady > 0 && warm > 2 * steady;
    if (total == 1) {
        for (k = 0; !s[k].n; k++)
            ;
        ttft_tpot__html_single_value(out, ch->title, ttft_tpot__svg_dur(v, sizeof v, s[k].y[0] * 1e6),
                                     s[k].hollow ? "(warmup)" : "");
        return;
    }
    ch->yunit = ttft_tpot__svg_ms_unit(clip ? steady : steady > warm ? steady : warm, &scale);
    ttft_tpot__html_scale_by(s, ns, scale, 0);
    ch->yclip = clip ? steady / scale * 1.1 : 0;
    if (clip) {
        snprintf(note, sizeof note,
                 "%s%sWarmup values above %s are off the scale, marked with triangles on the top "
                 "edge.",
                 ch->note ? ch->note : "", ch->note && *ch->note ? " " : "",
                 ttft_tpot__svg_dur(v, sizeof v, steady * 1.1e6));
        ch->note = note;
    }
    for (k = 0; k < ns; k++) /* the log choice on the values shown: the steady ones when clipped */
        if (!clip || !s[k].hollow) {
            lo = low[k] < lo ? low[k] : lo;
            hi = top[k] > hi ? top[k] : hi;
        }
    if (scale != 1 && lo < DBL_MAX) /* as ttft_tpot__html_scale_by divided them: dividing keeps the order */
        lo /= scale;
    hi /= scale;
    ch->logy = lo < DBL_MAX && hi > 20 * lo; /* ttft_tpot__svg_wants_log's test: a spread over 20x */
    snprintf(yl, sizeof yl, "%s (%s)", ylabel, ch->yunit);
    ch->ylabel = yl;
    ttft_tpot__svg_plot(out, ch, s, ns);
}

/* The decode phases' steady steps, a line each (batch sizes, say): with more than TTFT_TPOT__HTML_LINES - 1, the
   first TTFT_TPOT__HTML_LINES - 2 by report order and the rest as one; the warmup steps as rings, last. All in one
   pass over the samples, which gathers the prefills for the TTFT chart too (pf NULL: not). */
static int ttft_tpot__html_decode_lines(const ttft_tpot_model *m, ttft_tpot__html_lines *l,
                                        ttft_tpot__html_prefills *pf)
{
    /* each phase's line (NULL: none) */
    ttft_tpot__html_pts **line = (ttft_tpot__html_pts **)calloc(m->phases + 1, sizeof(ttft_tpot__html_pts *));
    unsigned *dp = (unsigned *)calloc(m->phases + 1, sizeof *dp), q, nd = 0, i, own;
    int rc = line && dp ? 0 : -1, warm;
    for (q = 0; rc == 0 && q < m->phases; q++)
        if (m->phase[m->order[q]].role == TTFT_TPOT_ROLE_DECODE && m->phase[m->order[q]].steady.n)
            dp[nd++] = m->order[q];
    own = nd <= TTFT_TPOT__HTML_LINES - 1 ? nd : TTFT_TPOT__HTML_LINES - 2;
    warm = (int)own + (own < nd); /* the warmup rings come last in the legend */
    ttft_tpot__html_line_set(l, warm, "warmup", ttft_tpot__svg_colors[0], TTFT_TPOT__SVG_DOTS, 1);
    l->n = warm + 1;
    for (i = 0; rc == 0 && i <= own && i < nd; i++) { /* a phase a line; past own, the rest as one */
        for (q = i; q < (i < own ? i + 1 : nd); q++)
            line[dp[q]] = &l->p[i];
        ttft_tpot__html_line_set(l, (int)i,
                                 i == own ? "other decode phases"
                                 : nd > 1 ? m->phase[dp[i]].name
                                          : "steady",
                                 ttft_tpot__svg_colors[i], TTFT_TPOT__SVG_LINE, 0);
    }
    if (rc == 0) /* without a decode phase: the warmup steps only */
        rc = ttft_tpot__html_role_points(m, line, NULL, &l->p[warm], pf ? &pf->p[0] : NULL, pf ? &pf->p[1] : NULL);
    if (rc == 0 && pf)
        pf->done = 1;
    free(line);
    free(dp);
    return rc;
}

/* Charts of per-sample series, each side steady (line or dots) and warmup (rings) apart (one report's
   decode phases a line each); a note where a chart of stored samples shows fewer than the figures
   count; run boundaries on a step axis. */
static int ttft_tpot__html_series_chart(FILE *out, const ttft_tpot_model *const *m, int n, int ttft,
                                        const ttft_tpot__svg_chart *chart, ttft_tpot__html_prefills *pf)
{
    ttft_tpot__html_lines l;
    ttft_tpot__svg_series s[TTFT_TPOT__HTML_LINES];
    ttft_tpot__svg_mark mk[8];
    ttft_tpot__svg_chart ch = *chart;
    char note[640] = "", name[64], runs[8][16];
    size_t total;
    int k, j, rc = 0;
    memset(&l, 0, sizeof l);
    if (!ttft && n == 1) /* the prefills too, when the TTFT chart shows them */
        rc = ttft_tpot__html_decode_lines(m[0], &l, ttft_tpot__served(m[0])->requests.seen == 0 ? &pf[0] : NULL);
    for (k = 0; k < n && rc == 0 && (ttft || n > 1); k++) {
        const ttft_tpot_summary *h = &m[k]->head;
        ttft_tpot__html_pts *st = &l.p[2 * (size_t)k], *wu = st + 1; /* the side's steady and warmup points */
        int pre = ttft_tpot__served(m[k])->requests.seen == 0;
        rc = ttft ? ttft_tpot__html_ttft_points(m[k], &pf[k], st, wu)
                  : ttft_tpot__html_role_points(m[k], NULL, st, wu, pre ? &pf[k].p[0] : NULL, pre ? &pf[k].p[1] : NULL);
        pf[k].done |= !ttft && rc == 0 && pre;
        for (j = 0; j < 2; j++) {
            snprintf(name, sizeof name, "%s%s%s", n > 1 ? ttft_tpot__html_side_names[k] : "", n > 1 ? ": " : "",
                     j ? "warmup" : "steady");
            ttft_tpot__html_line_set(&l, 2 * k + j, name, ttft_tpot__svg_colors[k],
                                     j || ttft ? TTFT_TPOT__SVG_DOTS : TTFT_TPOT__SVG_LINE, j);
        }
        l.n = 2 * k + 2;
        if (!ttft) /* TTFT by request reads the requests: they are all kept */
            ttft_tpot__html_stored_note(note, sizeof note, TTFT_TPOT__HTML_SIDE(n, k), st->n + wu->n, h->tpot.n + h->tpot_excluded,
                        "decode steps");
        else if (ttft_tpot__served(m[k])->requests.seen == 0)
            ttft_tpot__html_stored_note(note, sizeof note, TTFT_TPOT__HTML_SIDE(n, k), st->n + wu->n,
                        h->ttft_steady.n + h->ttft_steady.warmup_n, "prefills");
    }
    j = ttft_tpot__html_lines_drawn(&l, s, &total);
    if (!ttft && n == 1) /* every point drawn is a stored decode step */
        ttft_tpot__html_stored_note(note, sizeof note, "", total, m[0]->head.tpot.n + m[0]->head.tpot_excluded,
                                    "decode steps");
    ch.note = note;
    if (n == 1 && (!ttft || ttft_tpot__served(m[0])->requests.seen == 0)) { /* a step axis */
        ch.marks = mk;
        ch.n_marks =
            ttft_tpot__html_run_marks(m[0], ttft ? TTFT_TPOT_ROLE_PREFILL : TTFT_TPOT_ROLE_DECODE, mk, runs, 8);
    }
    if (rc == 0 && j)
        ttft_tpot__html_sample_chart(out, &ch, s, j, total, ch.ylabel);
    else if (rc == 0)
        fputs("<p class=\"note\">No sample of this kind.</p>\n", out);
    ttft_tpot__html_lines_free(&l);
    return rc;
}

/* The CDF of a set (TTFT_TPOT_SET_*) on each side; stored: the figures' count of a set of stored
   samples (0 for a request metric, whose values are all kept). */
static int ttft_tpot__html_cdf_chart(FILE *out, const ttft_tpot_model *const *m, int n, int set, const char *title)
{
    ttft_tpot__html_pts p[2];
    ttft_tpot__svg_series s[2];
    ttft_tpot__svg_chart ch;
    ttft_tpot__svg_mark slo;
    char note[640] = "", label[48], v[32], xl[48];
    size_t values, all = 0;
    double mx = 0, scale = 1,
           slo_ms =
               set == TTFT_TPOT_METRIC_TTFT || set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL  ? ttft_tpot__served(m[0])->slo.ttft_ms
               : set == TTFT_TPOT_METRIC_TPOT || set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE ? ttft_tpot__served(m[0])->slo.tpot_ms
               : set == TTFT_TPOT_METRIC_E2E                                                       ? ttft_tpot__served(m[0])->slo.e2e_ms
                                                                                                   : 0;
    int k, j = 0, rc = 0;
    memset(p, 0, sizeof p);
    memset(s, 0, sizeof s);
    memset(&ch, 0, sizeof ch);
    for (k = 0; k < n && rc == 0; k++) {
        int tpot = set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE;
        rc = ttft_tpot__html_cdf_of(m[k], set, &p[k], &values);
        if (rc == 0 && set >= TTFT_TPOT_SET_ROLE) /* stored samples */
            ttft_tpot__html_stored_note(note, sizeof note, TTFT_TPOT__HTML_SIDE(n, k), values,
                                        tpot ? m[k]->head.tpot.n : m[k]->head.ttft_steady.n,
                                        tpot ? "steady decode steps" : "steady prefills");
        all += values;
        mx = p[k].n && p[k].x[p[k].n - 1] > mx ? p[k].x[p[k].n - 1] : mx;
    }
    if (rc == 0 && all == 1) { /* one value: no distribution to draw */
        ttft_tpot__html_single_value(out, title, ttft_tpot__svg_dur(v, sizeof v, mx * 1e6),
                                     n > 1 ? (p[0].n ? "(base)" : "(new)") : "");
        ttft_tpot__html_pts_free(&p[0]);
        ttft_tpot__html_pts_free(&p[1]);
        return 0;
    }
    for (k = 0; k < n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        s[j].name = n > 1 ? ttft_tpot__html_side_names[k] : "all";
        s[j].color = ttft_tpot__svg_colors[k];
        s[j].x = p[k].x;
        s[j].y = p[k].y;
        s[j].n = p[k].n;
        s[j].kind = TTFT_TPOT__SVG_STEP;
        s[j++].hollow = 0;
    }
    ch.title = title;
    ch.note = note;
    ch.ylabel = "fraction at or below";
    ch.logx = ttft_tpot__svg_wants_logx(s, j); /* a long tail: decades, ticks as durations */
    /* the data's: an SLO far out is marked at the edge */
    ch.xunit = ch.logx ? "ms" : ttft_tpot__svg_ms_unit(mx, &scale);
    if (!ch.logx)
        ttft_tpot__html_scale_by(s, j, scale, 1);
    snprintf(xl, sizeof xl, ch.logx ? "latency" : "latency (%s)", ch.xunit);
    ch.xlabel = xl;
    if (slo_ms > 0) { /* the SLO goodput counts against, where the run has one */
        ttft_tpot__num_then(v, sizeof v, "%g", slo_ms >= 1000 ? slo_ms / 1000 : slo_ms, slo_ms >= 1000 ? " s" : " ms");
        snprintf(label, sizeof label, "SLO %s", v);
        slo.x = ch.logx ? slo_ms : slo_ms / scale;
        slo.label = label;
        ch.marks = &slo;
        ch.n_marks = 1;
    }
    if (rc == 0 && j)
        ttft_tpot__svg_plot(out, &ch, s, j);
    for (k = 0; k < 2; k++)
        ttft_tpot__html_pts_free(&p[k]);
    return rc;
}

/* A CDF a request metric (TTFT_TPOT_METRICS), titled by its name; without requests, the steady samples
   of the API spans. */
static int ttft_tpot__html_cdf_charts(FILE *out, const ttft_tpot_model *const *m, int n)
{
    char title[96];
    int k, rc = 0;
    if (ttft_tpot__served(m[0])->requests.seen == 0)
        return ttft_tpot__html_cdf_chart(out, m, n, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL,
                                         "Steady TTFT (prefill samples): CDF") ||
               ttft_tpot__html_cdf_chart(out, m, n, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE,
                                         "Steady TPOT (decode steps): CDF");
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT && rc == 0; k++) {
        snprintf(title, sizeof title, "%s: CDF", ttft_tpot__html_metric_names[k].words);
        title[0] = (char)(title[0] >= 'a' && title[0] <= 'z' ? title[0] - 'a' + 'A' : title[0]);
        rc = ttft_tpot__html_cdf_chart(out, m, n, k, title);
    }
    return rc;
}

/* One side's points of a slice chart (ttft_tpot__html_slice_chart's what), each at its slice's middle: its value is
   the whole slice's. The requests in flight are the most at once in it (peak_in_flight), as the
   headline's peak counts them, not every request in flight during some of it (in_flight: a second of
   5 ms requests one after another counts 11 where 2 at most ran at once). */
static int ttft_tpot__html_slice_points(const ttft_tpot_model *m, int what, ttft_tpot__html_pts *p)
{
    size_t i;
    int rc = 0;
    for (i = 0; i < ttft_tpot__served(m)->n_slices && rc == 0; i++) {
        const ttft_tpot_slice *sl = &ttft_tpot__served(m)->slices[i];
        double y = what == 0 ? sl->output_tok_s : what == 1 ? (double)sl->peak_in_flight : sl->ttft_p50_ns / 1e6;
        if (what < 2 || sl->has_ttft)
            rc = ttft_tpot__html_pts_add(p, ((double)sl->start_ns + (double)ttft_tpot__served(m)->slice_ns / 2) / 1e9, y);
    }
    return rc;
}

/* A chart of the slices (ttft_tpot_slice) of each side: what 0 output tok/s, 1 the most requests in
   flight at once, 2 the TTFT p50 of the requests submitted in the slice (where some were). */
static int ttft_tpot__html_slice_chart(FILE *out, const ttft_tpot_model *const *m, int n, int what,
                                       ttft_tpot__svg_chart *ch)
{
    ttft_tpot__html_lines l;
    ttft_tpot__svg_series s[2];
    size_t total;
    int k, j, rc = 0;
    memset(&l, 0, sizeof l);
    for (k = 0; k < n && rc == 0; k++) {
        rc = ttft_tpot__html_slice_points(m[k], what, &l.p[k]);
        ttft_tpot__html_line_set(&l, k, n > 1 ? ttft_tpot__html_side_names[k] : "all", ttft_tpot__svg_colors[k],
                                 what == 2 ? TTFT_TPOT__SVG_DOTS : TTFT_TPOT__SVG_LINE, 0);
    }
    l.n = n;
    j = ttft_tpot__html_lines_drawn(&l, s, &total);
    if (rc == 0 && j && what == 2)
        ttft_tpot__html_sample_chart(out, ch, s, j, total, "TTFT p50");
    else if (rc == 0 && j)
        ttft_tpot__svg_plot(out, ch, s, j);
    ttft_tpot__html_lines_free(&l);
    return rc;
}

/* Results over time (the model's slices): output throughput, requests in flight and TTFT, by slice of
   the serving run; none with fewer than two slices. */
static int ttft_tpot__html_over_time(FILE *out, const ttft_tpot_model *const *m, int n)
{
    char width[32], t[3][160];
    ttft_tpot__svg_chart ch[3];
    int k, rc = 0;
    if (ttft_tpot__served(m[0])->n_slices < 2 && (n < 2 || ttft_tpot__served(m[1])->n_slices < 2))
        return 0;
    ttft_tpot__svg_dur(width, sizeof width, (double)ttft_tpot__served(m[0])->slice_ns);
    snprintf(t[0], sizeof t[0], "Output throughput over time (tokens delivered in each %s slice)", width);
    snprintf(t[1], sizeof t[1], "Requests in flight over time (the most at once in each %s slice, from submit to "
             "last token; their highest is the headline's peak)", width);
    snprintf(t[2], sizeof t[2], "TTFT over time (p50 of the requests submitted in each %s slice)", width);
    memset(ch, 0, sizeof ch);
    for (k = 0; k < 3; k++) { /* the whole run on x, both sides' */
        ch[k].title = t[k];
        ch[k].xlabel = "time since the first submit (s)";
        ch[k].x_to = (double)ttft_tpot__served(m[0])->n_slices * (double)ttft_tpot__served(m[0])->slice_ns / 1e9;
        if (n > 1 && (double)ttft_tpot__served(m[1])->n_slices * (double)ttft_tpot__served(m[1])->slice_ns / 1e9 > ch[k].x_to)
            ch[k].x_to = (double)ttft_tpot__served(m[1])->n_slices * (double)ttft_tpot__served(m[1])->slice_ns / 1e9;
    }
    ch[0].ylabel = "output tok/s";
    ch[1].ylabel = "requests in flight at once";
    ch[1].yint = 1;
    fputs("<h2>Over time</h2>\n", out);
    for (k = 0; k < 3 && rc == 0; k++)
        rc = ttft_tpot__html_slice_chart(out, m, n, k, &ch[k]);
    return rc;
}

/* Each kernel phase's share of steady decode time (the model's), a bar a side: the base's kernels,
   found by name on the other side. */
static int ttft_tpot__html_share_chart(FILE *out, const ttft_tpot_model *const *m, int n)
{
    unsigned np = m[0]->phases, p, j = 0;
    const char **labels = (const char **)calloc(np + 1, sizeof *labels);
    double *shown[2] = {NULL, NULL}, *per_step[2] = {NULL, NULL};
    ttft_tpot__named *other = n > 1 ? ttft_tpot__names_of(m[1]) : NULL; /* the other side's, by name */
    int k, rc = labels ? 0 : -1;
    for (k = 0; k < n && rc == 0; k++)
        rc = (shown[k] = (double *)calloc(np + 1, sizeof **shown)) &&
                     (per_step[k] = (double *)calloc(np + 1, sizeof **per_step))
                 ? 0
                 : -1;
    for (p = 0; p < np && rc == 0; p++) {
        if (m[0]->phase[p].role != TTFT_TPOT_ROLE_KERNEL || m[0]->phase[p].decode_share <= 0)
            continue;
        labels[j] = m[0]->phase[p].name;
        for (k = 0; k < n; k++) { /* exclusive: nested kernel spans counted once, so the bars add up */
            int q = k ? ttft_tpot__phase_named(m[k], other, labels[j]) : (int)p;
            shown[k][j] = q >= 0 ? m[k]->phase[q].decode_share_self : -1; /* -1: absent on that side */
            /* beside the share, the time it stands for: a share can hold while the step slows 5x */
            per_step[k][j] = q >= 0 && m[k]->head.tpot.n ? shown[k][j] * m[k]->head.tpot.mean_ns : -1;
        }
        j++;
    }
    if (rc == 0 && j) {
        ttft_tpot__svg_bar_series series;
        series.values = (const double *const *)shown, series.abs_ns = (const double *const *)per_step;
        series.names = ttft_tpot__html_side_names, series.ns = n;
        ttft_tpot__svg_bars(out,
                            "Each kernel's share of steady decode time, exclusive (self) time, and that time per mean "
                            "step (the rest: outside kernel spans)",
                            labels, j, &series);
    } else if (rc == 0)
        fputs("<p class=\"note\">No kernel span inside a steady decode step.</p>\n", out);
    for (k = 0; k < 2; k++) {
        free(shown[k]);
        free(per_step[k]);
    }
    free((void *)labels);
    free(other);
    return rc;
}

/* The text report, escaped, for everything the charts leave out. */
/* Host against device, per steady decode step that has device time: the step's wall time and its
   device time (its own interval, or its kernels'), on each side. None without device data. */
static int ttft_tpot__html_device_chart(FILE *out, const ttft_tpot_model *const *m, int n)
{
    ttft_tpot__svg_chart ch = ttft_tpot__html_chart_on_steps("Decode steps: wall time (host) against device time",
                                  "steady decode step with device time", "time (ms)");
    ttft_tpot__html_pts p[4];
    ttft_tpot__svg_series s[4];
    char label[4][64];
    int k, j = 0, rc = 0;
    size_t i;
    memset(p, 0, sizeof p);
    memset(s, 0, sizeof s);
    for (k = 0; k < n && rc == 0; k++) {
        const uint64_t *dev = m[k]->device.step_ns;
        size_t at = 0;
        for (i = 0; dev && i < m[k]->head.samples && rc == 0; i++) {
            const ttft_tpot_sample *x = &m[k]->samples[i];
            if (m[k]->phase[x->phase].role != TTFT_TPOT_ROLE_DECODE || x->warmup || dev[i] == UINT64_MAX)
                continue;
            rc = ttft_tpot__html_pts_add(&p[2 * (size_t)k], (double)at, (double)x->dur_ns / 1e6) ||
                 ttft_tpot__html_pts_add(&p[2 * (size_t)k + 1], (double)at, (double)dev[i] / 1e6);
            at++;
        }
    }
    for (k = 0; k < 2 * n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        snprintf(label[j], sizeof label[j], "%s%s%s", n > 1 ? ttft_tpot__html_side_names[k / 2] : "", n > 1 ? ": " : "",
                 k % 2 ? "device" : "host (wall)");
        s[j].name = label[j];
        s[j].color = ttft_tpot__svg_colors[k % 2 + 2 * (k / 2)];
        s[j].x = p[k].x;
        s[j].y = p[k].y;
        s[j].n = p[k].n;
        s[j++].kind = TTFT_TPOT__SVG_LINE;
    }
    if (rc == 0 && j) {
        fputs("<h2>Host and device</h2>\n", out);
        ch.logy = ttft_tpot__svg_wants_log(s, j);
        ttft_tpot__svg_plot(out, &ch, s, j);
    }
    for (k = 0; k < 4; k++)
        ttft_tpot__html_pts_free(&p[k]);
    return rc;
}

static int ttft_tpot__html_text_report(FILE *out, const ttft_tpot_model *m, const char *name)
{
    FILE *t = tmpfile();
    int ch;
    if (!t)
        return -1;
    if (ttft_tpot_model_write(m, t, TTFT_TPOT_FORMAT_TEXT) != TTFT_TPOT_OK) {
        fclose(t);
        return -1;
    }
    rewind(t);
    fputs("<details><summary>Text report: ", out);
    ttft_tpot__html_text(out, name);
    fputs("</summary><pre>", out);
    while ((ch = fgetc(t)) != EOF) {
        char one[2] = {(char)ch, '\0'};
        ttft_tpot__html_text(out, one);
    }
    fputs("</pre></details>\n", out);
    fclose(t);
    return 0;
}

/* -- Reports: the document --------------------------------------------------------------------- */

static const char style[] =
    "body{font:15px/1.45 sans-serif;max-width:960px;margin:1.5em auto;padding:0 1em;color:#111;background:#fff}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{padding:3px 10px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}td{font-variant-numeric:tabular-nums}"
    ".note{color:#555;font-size:.9em;font-weight:normal}"
    ".worse{color:#a00;font-weight:bold}.better{color:#070;font-weight:bold}.verdict{font-weight:bold}"
    "figure{margin:.8em 0}figcaption{font-weight:bold;margin-bottom:.2em}svg{width:100%;height:auto}"
    "svg text{font:11px sans-serif;fill:#222}.tick{font-size:11px}.axis{font-size:12px}.legend{font-size:12px}"
    ".grid{stroke:#e3e3e3;stroke-width:1}.mark{stroke:#333;stroke-width:1.2;stroke-dasharray:5 3}"
    ".marklabel{font-size:11px}.single{font-size:1.1em;margin:.3em 0 1em}.frame{fill:none;stroke:#888}"
    "pre{font-size:12px;overflow-x:auto}"
    "@media print{body{max-width:none;margin:0}figure,table{break-inside:avoid}details>pre{display:block}}";

static void ttft_tpot__html_head(FILE *out, const char *const *names, int n)
{
    int k;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>ttft_tpot %s</title>\n"
                 "<style>%s</style></head>\n<body>\n<h1>ttft_tpot %s</h1>\n<p class=\"note\">",
            n > 1 ? "comparison" : "report", style, n > 1 ? "comparison" : "report");
    for (k = 0; k < n; k++) {
        fputs(k ? "; new: " : n > 1 ? "base: " : "", out);
        ttft_tpot__html_text(out, names[k]);
    }
    fprintf(out, " &middot; ttft_tpot %s &middot; definitions as in the text report and the README</p>\n",
            TTFT_TPOT_VERSION);
}

TTFT_TPOT_DEF int ttft_tpot_html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n,
                                        ttft_tpot_html_headline_fn two)
{
    ttft_tpot__svg_chart steps = ttft_tpot__html_chart_on_steps("Decode step time by step (warmup steps as rings)",
                                                                "decode step (call order)", "step time");
    ttft_tpot__svg_chart ttft = ttft_tpot__html_chart_on_steps(
        "TTFT by request, in submit order (warmup requests as rings)", "request (submit order)", "TTFT");
    ttft_tpot__html_prefills pf[2]; /* gathered with the decode steps, drawn by the TTFT chart */
    int k, rc;
    memset(pf, 0, sizeof pf);
    ttft_tpot__html_head(out, names, n);
    fputs("<h2>Headline</h2>\n", out);
    rc = n > 1 ? (two ? two(out, m) : -1) : (ttft_tpot__html_headline_one(out, m[0]), 0);
    if (ttft_tpot__served(m[0])->requests.seen == 0) {
        ttft.title = "Prefill time by call: each one a request's TTFT (warmup as rings)";
        ttft.xlabel = "prefill (call order)";
    }
    fputs("<h2>Warmup: decode steps and TTFT</h2>\n", out);
    rc = rc ? rc : ttft_tpot__html_series_chart(out, m, n, 0, &steps, pf);
    rc = rc ? rc : ttft_tpot__html_series_chart(out, m, n, 1, &ttft, pf);
    for (k = 0; k < 2; k++) {
        ttft_tpot__html_pts_free(&pf[k].p[0]);
        ttft_tpot__html_pts_free(&pf[k].p[1]);
    }
    fputs("<h2>Latency distributions</h2>\n", out);
    rc = rc ? rc : ttft_tpot__html_cdf_charts(out, m, n);
    rc = rc ? rc : ttft_tpot__html_over_time(out, m, n);
    fputs("<h2>Where steady decode time goes</h2>\n", out);
    rc = rc ? rc : ttft_tpot__html_share_chart(out, m, n);
    rc = rc ? rc : ttft_tpot__html_device_chart(out, m, n);
    fputs("<h2>Text report</h2>\n", out);
    for (k = 0; k < n && rc == 0; k++)
        rc = ttft_tpot__html_text_report(out, m[k], names[k]);
    fputs("</body></html>\n", out);
    return rc == 0 && !ferror(out) ? 0 : -1;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Comparison ------------------------------------------------------------------------------ */

/* The sample metrics: the first and the steady TTFT, TPOT, E2E (of e2e samples, when neither side has
   requests), output throughput; then each request metric of the library's table (TTFT_TPOT_METRICS),
   named by its column cmp; then a phase. */
enum {
    TTFT_TPOT__COMPARE_TTFT_FIRST,
    TTFT_TPOT__COMPARE_TTFT_STEADY,
    TTFT_TPOT__COMPARE_TPOT,
    TTFT_TPOT__COMPARE_E2E,
    TTFT_TPOT__COMPARE_OUTPUT,
    TTFT_TPOT__COMPARE_REQUEST
};

/* -- Comparison: a trace's runs and their values ----------------------------------------------- */

/* One trace: each unit's p50 (and p99) of each metric, in the row's unit (ms, or tok/s). Its units are
   its runs, or the trace itself when it marked none; the first TTFT and the request metrics are the
   trace's, held by unit 0. The phases' values are sparse, a value a (phase, unit) that has samples,
   phase p's at [at[p], at[p + 1]): phases times runs can be large, their samples are not. */
#define TTFT_TPOT__COMPARE_KEYS (TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT)
typedef struct ttft_tpot__compare_trace_units {
    const ttft_tpot_model *m;
    unsigned n;
    int runs;     /* its units are marked runs */
    size_t judged; /* a run's decode figures are of its first this many steady steps (SIZE_MAX: all) */
    double *p50, *p99; /* [n * TTFT_TPOT__COMPARE_KEYS] */
    unsigned char *has, *has99;
    size_t *at;          /* [phases + 1] */
    double *ph50, *ph99; /* [at[phases]] */
    ttft_tpot__named *names; /* its phases by name (NULL: found by a scan) */
} ttft_tpot__compare_trace_units;

/* A value (a p50, or a rate) into unit u's key, when it has one, without a p99; returns its slot. */
static size_t ttft_tpot__compare_put(ttft_tpot__compare_trace_units *t, unsigned u, int key, int has, double p50)
{
    size_t at = (size_t)u * TTFT_TPOT__COMPARE_KEYS + (size_t)key;
    t->has[at] = (unsigned char)(has != 0);
    t->p50[at] = p50;
    t->has99[at] = 0;
    t->p99[at] = 0;
    return at;
}

/* A p50 and p99 in ms into unit u's key, when it has them. */
static void ttft_tpot__compare_put2(ttft_tpot__compare_trace_units *t, unsigned u, int key, int has,
                                    const double p[2])
{
    size_t at = ttft_tpot__compare_put(t, u, key, has, p[0]);
    t->has99[at] = (unsigned char)(has != 0);
    t->p99[at] = p[1];
}

/* A set's p50 and p99 in ms into unit u's key, when it has a value. */
static void ttft_tpot__compare_put_stats(ttft_tpot__compare_trace_units *t, unsigned u, int key,
                                         const ttft_tpot_stats *s)
{
    double p[2];
    p[0] = s->p50_ns / 1e6, p[1] = s->p99_ns / 1e6;
    ttft_tpot__compare_put2(t, u, key, s->n > 0, p);
}

/* Percentile p of sorted ns[0, n), n > 0, in ms: the library's definition (numpy's "linear"). */
static double ttft_tpot__compare_pct_ms(const uint64_t *ns, size_t n, double p)
{
    double h = (double)(n - 1) * p / 100, lo = (double)ns[(size_t)h];
    size_t k = (size_t)h;
    return (k + 1 < n ? lo + (h - (double)k) * ((double)ns[k + 1] - lo) : lo) / 1e6;
}

/* The p99 in ms of run values v[0, n) in series order, n > 0, without its isolated spikes (METRICS:
   above twice p50_ns, neighbours not): a short run's p99 is often a rare spike's (a pause, a
   preemption), which hides a change in its slowest steps. v is compacted in place, then sorted (tmp:
   scratch of n). */
static double ttft_tpot__compare_p99_unspiked(uint64_t *v, size_t n, uint64_t *tmp, double p50_ns)
{
    double lim = 2 * p50_ns;
    size_t i, m = 0;
    for (i = 0; i < n; i++) { /* v[i - 1] is still its own: m <= i, and v[m] = v[i] while none is left out */
        int spike = (double)v[i] > lim && (i == 0 || (double)v[i - 1] <= lim) && (i + 1 == n || (double)v[i + 1] <= lim);
        if (!spike)
            v[m++] = v[i];
    }
    ttft_tpot_sort(v, m, tmp);
    return ttft_tpot__compare_pct_ms(v, m, 99); /* m > 0: an isolated spike has a neighbour that is none */
}

/* Run r's steady samples of each role (steady TTFT, TPOT; every e2e sample, as the headline's E2E) and
   its output tok/s, a pass a role; TPOT's p99 without isolated spikes (the tail's row). x, tmp and
   keep: scratch of the run's length. */
static void ttft_tpot__compare_run_roles(ttft_tpot__compare_trace_units *t, unsigned r, uint64_t *x, uint64_t *tmp,
                                         uint64_t *keep)
{
    static const int role_key[] = {TTFT_TPOT__COMPARE_TTFT_STEADY, TTFT_TPOT__COMPARE_TPOT, -1,
                                   TTFT_TPOT__COMPARE_E2E}; /* by role */
    const ttft_tpot_model *m = t->m;
    size_t first = 0, end = 0, i, n;
    double p[2];
    int role;
    (void)ttft_tpot_run_at(m->collector, r, &first, &end);
    for (role = TTFT_TPOT_ROLE_PREFILL; role <= TTFT_TPOT_ROLE_E2E; role++) {
        uint64_t tokens = 0;
        double dur = 0;
        if (role_key[role] < 0)
            continue;
        for (i = first, n = 0; i < end && (role != TTFT_TPOT_ROLE_DECODE || n < t->judged); i++) {
            const ttft_tpot_sample *s = &m->samples[i];
            if (m->phase[s->phase].role != role || (s->warmup && role != TTFT_TPOT_ROLE_E2E))
                continue;
            x[n++] = ttft_tpot__step_tpot(m, i); /* TPOT: per output token */
            tokens += s->tokens;
            dur += (double)s->dur_ns;
        }
        if (role == TTFT_TPOT_ROLE_DECODE)
            ttft_tpot__compare_put(t, r, TTFT_TPOT__COMPARE_OUTPUT, n > 0 && dur > 0, (double)tokens / (dur * 1e-9));
        if (role == TTFT_TPOT_ROLE_DECODE && n)
            memcpy(keep, x, n * sizeof *x); /* in series order, for the spikes' neighbours */
        ttft_tpot_sort(x, n, tmp);
        p[0] = n ? ttft_tpot__compare_pct_ms(x, n, 50) : 0;
        p[1] = !n ? 0 : role == TTFT_TPOT_ROLE_DECODE ? ttft_tpot__compare_p99_unspiked(keep, n, tmp, p[0] * 1e6)
                                                       : ttft_tpot__compare_pct_ms(x, n, 99);
        ttft_tpot__compare_put2(t, r, role_key[role], n > 0, p);
    }
}

/* Each (phase, run)'s p50 and p99 of its steady samples, in one sort: a steady sample of a run becomes
   its phase, run and index in 16, 16 and 32 bits (ttft_tpot__compare_units_of keeps within them), so that sorted, each
   group lies together, phase by phase. key, x, tmp: scratch of the stored samples. */
static int ttft_tpot__compare_run_phases(ttft_tpot__compare_trace_units *t, uint64_t *key, uint64_t *x, uint64_t *tmp)
{
    const ttft_tpot_model *m = t->m;
    size_t n = 0, i, j, k, e = 0;
    unsigned r, p;
    for (r = 0; r < t->n; r++) {
        size_t first = 0, end = 0;
        (void)ttft_tpot_run_at(m->collector, r, &first, &end);
        for (i = first; i < end; i++)
            if (!m->samples[i].warmup)
                key[n++] = (uint64_t)m->samples[i].phase << 48 | (uint64_t)r << 32 | (uint64_t)i;
    }
    ttft_tpot_sort(key, n, tmp);
    t->ph50 = (double *)malloc((n + 1) * sizeof *t->ph50); /* a value a group at most */
    t->ph99 = (double *)malloc((n + 1) * sizeof *t->ph99);
    if (!t->ph50 || !t->ph99)
        return TTFT_TPOT_ENOMEM;
    for (p = 0, i = 0; p < m->phases; p++) {
        t->at[p] = e;
        for (; i < n && key[i] >> 48 == p; i = j, e++) { /* a group: one run of phase p */
            for (j = i, k = 0; j < n && key[j] >> 32 == key[i] >> 32; j++)
                x[k++] = m->samples[key[j] & 0xffffffffu].dur_ns;
            ttft_tpot_sort(x, k, x + k);
            t->ph50[e] = ttft_tpot__compare_pct_ms(x, k, 50);
            t->ph99[e] = ttft_tpot__compare_pct_ms(x, k, 99);
        }
    }
    t->at[m->phases] = e;
    return TTFT_TPOT_OK;
}

/* The trace's own figures, as its report gives them, into unit 0: the first TTFT and the request
   metrics always, the rest when it marked no runs. */
static int ttft_tpot__compare_trace_figures(ttft_tpot__compare_trace_units *t)
{
    const ttft_tpot_model *m = t->m;
    unsigned p;
    size_t e = 0;
    int k;
    ttft_tpot__compare_put(t, 0, TTFT_TPOT__COMPARE_TTFT_FIRST, m->head.has_ttft_first,
                           (double)m->head.ttft_first_ns / 1e6);
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        ttft_tpot__compare_put_stats(t, 0, TTFT_TPOT__COMPARE_REQUEST + k, &ttft_tpot__served(m)->requests.metric[k]);
    if (t->runs)
        return TTFT_TPOT_OK;
    ttft_tpot__compare_put_stats(t, 0, TTFT_TPOT__COMPARE_TTFT_STEADY, &m->head.ttft_steady);
    ttft_tpot__compare_put_stats(t, 0, TTFT_TPOT__COMPARE_TPOT, &m->head.tpot);
    ttft_tpot__compare_put_stats(t, 0, TTFT_TPOT__COMPARE_E2E, &m->head.e2e);
    ttft_tpot__compare_put(t, 0, TTFT_TPOT__COMPARE_OUTPUT, m->head.has_output_tok_s, m->head.output_tok_s);
    t->ph50 = (double *)malloc((m->phases + 1) * sizeof *t->ph50);
    t->ph99 = (double *)malloc((m->phases + 1) * sizeof *t->ph99);
    if (!t->ph50 || !t->ph99)
        return TTFT_TPOT_ENOMEM;
    for (p = 0; p < m->phases; p++) {
        t->at[p] = e;
        if (m->phase[p].steady.n) {
            t->ph50[e] = m->phase[p].steady.p50_ns / 1e6;
            t->ph99[e++] = m->phase[p].steady.p99_ns / 1e6;
        }
    }
    t->at[m->phases] = e;
    return TTFT_TPOT_OK;
}

static void ttft_tpot__compare_units_free(ttft_tpot__compare_trace_units *t)
{
    free(t->p50);
    free(t->p99);
    free(t->has);
    free(t->has99);
    free(t->at);
    free(t->ph50);
    free(t->ph99);
    free(t->names);
}

/* Whether trace m's units are its marked runs. A collector whose prefill or decode phases keep
   samples in a histogram has no runs (the library's runs say so): its trace is its one unit; so is one
   past 65535 runs, 65535 phases or 2^32 stored samples (ttft_tpot__compare_run_phases's key). */
static int ttft_tpot__compare_has_runs(const ttft_tpot_model *m)
{
    return m->runs.n > 0 && !m->runs.bounded && m->runs.n <= 0xffff && m->phases <= 0xffff &&
           m->head.samples <= 0xffffffffu;
}

/* The fewest (lo) and most (hi) steady decode steps of trace m's marked runs that have one, folded
   into lo and hi. */
static void ttft_tpot__compare_run_steps(const ttft_tpot_model *m, size_t *lo, size_t *hi)
{
    unsigned r;
    for (r = 0; ttft_tpot__compare_has_runs(m) && r < m->runs.n; r++) {
        size_t first = 0, end = 0, i, n = 0;
        (void)ttft_tpot_run_at(m->collector, r, &first, &end);
        for (i = first; i < end; i++)
            n += !m->samples[i].warmup && m->phase[m->samples[i].phase].role == TTFT_TPOT_ROLE_DECODE;
        *lo = n && n < *lo ? n : *lo;
        *hi = n > *hi ? n : *hi;
    }
}

/* The values of trace m, each run's decode figures of its first `judged` steady steps: OK or ENOMEM. */
static int ttft_tpot__compare_units_of(const ttft_tpot_model *m, size_t judged, ttft_tpot__compare_trace_units *t)
{
    size_t cells, len = m->head.samples + 1;
    uint64_t *x = NULL;
    unsigned r;
    int rc;
    memset(t, 0, sizeof *t);
    t->m = m;
    t->runs = ttft_tpot__compare_has_runs(m);
    t->judged = judged;
    t->n = t->runs ? m->runs.n : 1;
    cells = (size_t)t->n * TTFT_TPOT__COMPARE_KEYS;
    t->p50 = (double *)malloc(cells * sizeof *t->p50);
    t->p99 = (double *)malloc(cells * sizeof *t->p99);
    t->has = (unsigned char *)calloc(cells, 1);
    t->has99 = (unsigned char *)calloc(cells, 1);
    t->at = (size_t *)calloc(m->phases + 1, sizeof *t->at);
    t->names = ttft_tpot__names_of(m);
    if (t->runs)
        x = (uint64_t *)malloc(3 * len * sizeof *x);
    if (!t->p50 || !t->p99 || !t->has || !t->has99 || !t->at || (t->runs && !x)) {
        free(x);
        return TTFT_TPOT_ENOMEM;
    }
    for (r = 0; t->runs && r < t->n; r++)
        ttft_tpot__compare_run_roles(t, r, x, x + len, x + 2 * len);
    rc = t->runs ? ttft_tpot__compare_run_phases(t, x, x + len, x + 2 * len) : TTFT_TPOT_OK;
    free(x);
    return rc == TTFT_TPOT_OK ? ttft_tpot__compare_trace_figures(t) : rc;
}

/* -- Comparison: the statistics ---------------------------------------------------------------- */

TTFT_TPOT_DEF double ttft_tpot_compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u1)
{
    size_t i = 0, j = 0;
    double u = 0, ties = 0, n = (double)(na + nb), mu, var, z;
    while (i < na || j < nb) { /* merge the sorted samples, one group of equal values at a time */
        double v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
        size_t ta = 0, tb = 0;
        while (i < na && a[i] == v)
            i++, ta++;
        while (j < nb && b[j] == v)
            j++, tb++;
        u += (double)ta * ((double)(j - tb) + 0.5 * (double)tb); /* b below, and half of b equal */
        ties += (double)(ta + tb) * (double)(ta + tb) * (double)(ta + tb) - (double)(ta + tb); /* t^3 - t */
    }
    *u1 = u;
    mu = (double)na * (double)nb / 2;
    var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (!(var > 0))
        return 1;
    z = (ttft_tpot__fabs(u - mu) - 0.5) / ttft_tpot__sqrt_exact(var);
    return z <= 0 ? 1 : ttft_tpot__fmin(1, ttft_tpot__erfc(z / 1.4142135623730951)); /* z / the square root of 2 */
}

/* The pooled sorted values' midranks, doubled so that they are whole: w[0, na + nb), a's first. */
static void ttft_tpot__compare_doubled_midranks(const double *a, size_t na, const double *b, size_t nb, unsigned *w)
{
    size_t i = 0, j = 0, rank = 0, k;
    while (i < na || j < nb) {
        double v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
        size_t i0 = i, j0 = j, t;
        while (i < na && a[i] == v)
            i++;
        while (j < nb && b[j] == v)
            j++;
        t = (i - i0) + (j - j0); /* ranks rank + 1 .. rank + t: their mean, doubled, is 2 rank + t + 1 */
        for (k = i0; k < i; k++)
            w[k] = (unsigned)(2 * rank + t + 1);
        for (k = j0; k < j; k++)
            w[na + k] = (unsigned)(2 * rank + t + 1);
        rank += t;
    }
}

TTFT_TPOT_DEF double ttft_tpot_compare_mann_whitney_exact(const double *a, size_t na, const double *b, size_t nb,
                                                          double *u1)
{
    size_t n = na + nb, i, k, s, top = 0, obs = 0;
    unsigned *w;
    double *ways, below = 0, above = 0, total = 0, p = ttft_tpot_compare_mann_whitney(a, na, b, nb, u1);
    if (n > TTFT_TPOT_COMPARE_EXACT_MAX || na == 0 || nb == 0)
        return p;
    w = (unsigned *)malloc(n * sizeof *w);
    if (!w)
        return p;
    ttft_tpot__compare_doubled_midranks(a, na, b, nb, w);
    for (i = 0; i < n; i++)
        top += w[i];
    for (i = 0; i < na; i++)
        obs += w[i];
    /* ways[k][s]: the splits that give k values of a's size a doubled rank sum s */
    ways = (double *)calloc((na + 1) * (top + 1), sizeof *ways);
    if (!ways) {
        free(w);
        return p;
    }
    ways[0] = 1;
    for (i = 0; i < n; i++)
        for (k = i + 1 < na ? i + 1 : na; k >= 1; k--)
            for (s = top; s >= w[i]; s--)
                ways[k * (top + 1) + s] += ways[(k - 1) * (top + 1) + s - w[i]];
    for (s = 0; s <= top; s++) {
        double c = ways[na * (top + 1) + s];
        total += c;
        below += s <= obs ? c : 0;
        above += s >= obs ? c : 0;
    }
    free(ways);
    free(w);
    return ttft_tpot__fmin(1, 2 * ttft_tpot__fmin(below, above) / total);
}

TTFT_TPOT_DEF double ttft_tpot_compare_min_p(size_t na, size_t nb)
{
    size_t k = na < nb ? na : nb, n = na + nb, i;
    double c = 1; /* C(n, k), exact while it is below 2^53 / n: C(n - k + i, i) from C(n - k + i - 1, i - 1) */
    for (i = 1; i <= k && c <= DBL_MAX; i++)
        c = c * (double)(n - k + i) / (double)i;
    return ttft_tpot__fmin(1, 2 / c); /* the most extreme arrangement, either way: 2 / C(na + nb, na) */
}

static int ttft_tpot__compare_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

TTFT_TPOT_DEF double ttft_tpot_compare_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb)
{
    double *d = (double *)malloc((na * nb + 1) * sizeof *d), hl;
    size_t i, j;
    if (!d || !na || !nb) {
        free(d);
        return 0;
    }
    for (i = 0; i < na; i++)
        for (j = 0; j < nb; j++)
            d[i * nb + j] = b[j] - a[i];
    qsort(d, na * nb, sizeof *d, ttft_tpot__compare_cmp_double);
    hl = ttft_tpot_percentile(d, na * nb, 50);
    free(d);
    return hl;
}

/* -- Comparison: the smallest change the runs' spread can detect ---------------------------------- */

/* As benchstat and criterion.rs say what their samples can see, the verdict says the shift that its
   test finds four times out of five (the power a study is planned for), at the runs' own spread. */
#define TTFT_TPOT__COMPARE_POWER 0.8
#define TTFT_TPOT__COMPARE_DRAWS 2000 /* the power's error: 0.9 points (binomial, at 0.8) */
#define TTFT_TPOT__COMPARE_DRAWN 100  /* runs in all up to which the power is simulated */

/* The standard normal's distribution function, and its quantile by bisection. */
static double ttft_tpot__compare_phi(double x)
{
    return x >= 0 ? 1 - ttft_tpot__erfc(x / 1.4142135623730951) / 2 : ttft_tpot__erfc(-x / 1.4142135623730951) / 2;
}

static double ttft_tpot__compare_z(double p)
{
    double lo = -40, hi = 40;
    int i;
    for (i = 0; i < 100; i++)
        if (ttft_tpot__compare_phi((lo + hi) / 2) < p)
            lo = (lo + hi) / 2;
        else
            hi = (lo + hi) / 2;
    return (lo + hi) / 2;
}

/* The largest U (of n m pairs, without ties) whose two-sided p is below a; -1: none. Within the exact
   test's range, the counts of each U under no change are the coefficients of the Gaussian binomial
   [n+m, n]_q, built a factor (1 - q^(m+i)) / (1 - q^i) at a time (those past n m never needed); past
   it, the normal approximation with its continuity correction, as the test's own. */
static long ttft_tpot__compare_u_below(size_t n, size_t m, double a)
{
    size_t top = n * m, i, u;
    double *f, total = 0, below = 0, mu = (double)top / 2;
    long c = -1;
    if (n + m > TTFT_TPOT_COMPARE_EXACT_MAX) {
        below = mu - 0.5 - ttft_tpot__compare_z(1 - a / 2) * ttft_tpot__sqrt_exact(mu * (double)(n + m + 1) / 6);
        return below > 0 ? (long)ttft_tpot__ceil(below) - 1 : -1;
    }
    if (!(f = (double *)calloc(top + 1, sizeof *f)))
        return -1;
    f[0] = 1;
    for (i = 1; i <= n; i++) {
        for (u = top; u >= m + i; u--)
            f[u] -= f[u - m - i];
        for (u = i; u <= top; u++)
            f[u] += f[u - i];
    }
    for (u = 0; u <= top; u++)
        total += f[u];
    for (u = 0; 2 * u < top && 2 * (below + f[u]) / total < a; u++)
        below += f[u], c = (long)u;
    free(f);
    return c;
}

/* A uniform draw in (0, 1) from a fixed-seed generator (Knuth's MMIX LCG, its top 53 bits). */
static double ttft_tpot__compare_uniform(uint64_t *g)
{
    *g = *g * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(*g >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal draw, the same on every machine so that a verdict's statement is: Kinderman and
   Monahan's ratio of uniforms, x = v / u kept when x^2 <= -4 ln u, with the quick bounds on ln u that
   leave a logarithm to few draws. */
static double ttft_tpot__compare_normal(uint64_t *g)
{
    for (;;) {
        double u = ttft_tpot__compare_uniform(g), v, x2;
        v = 1.7156 * (ttft_tpot__compare_uniform(g) - 0.5); /* within sqrt(2 / e) */
        x2 = v * v / (u * u);
        if (x2 <= 5 - 5.136101666 * u) /* 4 e^(1/4) */
            return v / u;
        if (x2 < 1.036961 / u + 1.4 && x2 <= -4 * 2.302585092994046 * ttft_tpot__log10(u)) /* 4 e^-1.35 */
            return v / u;
    }
}

/* The k-th smallest of d[0, n) (from 0), moving them: Hoare's selection. */
static double ttft_tpot__compare_select(double *d, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = d[lo + (hi - lo) / 2], t;
        size_t i = lo, j = hi;
        while (i <= j) {
            while (d[i] < pivot)
                i++;
            while (d[j] > pivot)
                j--;
            if (i <= j) {
                t = d[i], d[i] = d[j], d[j] = t;
                i++;
                if (j-- == 0)
                    break;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return d[k];
}

/* The shift, in standard deviations of normal run values, that n base and m new runs detect at p < a
   with the power above; 0: none can. Up to TTFT_TPOT__COMPARE_DRAWN runs in all, by simulation: a draw
   rejects at shift d when at most c of its differences x_i - y_j exceed d, so from its (c+1)-th
   largest one on; the power at d is the share of draws past their point. Past it, the t-test's
   shift over the U test's efficiency against it on normal values, 3 / pi. */
static double ttft_tpot__compare_detect_sd(size_t n, size_t m, double a)
{
    double *d, *t, x[TTFT_TPOT__COMPARE_DRAWN], q;
    uint64_t g = 0x9E3779B97F4A7C15ull;
    long c;
    size_t k, i, j;
    if (n + m > TTFT_TPOT__COMPARE_DRAWN)
        return (ttft_tpot__compare_z(1 - a / 2) + ttft_tpot__compare_z(TTFT_TPOT__COMPARE_POWER)) *
               ttft_tpot__sqrt_exact((1 / (double)n + 1 / (double)m) * 3.141592653589793 / 3);
    if ((c = ttft_tpot__compare_u_below(n, m, a)) < 0)
        return 0;
    d = (double *)malloc((n * m + TTFT_TPOT__COMPARE_DRAWS) * sizeof *d);
    if (!d)
        return 0;
    t = d + n * m;
    for (k = 0; k < TTFT_TPOT__COMPARE_DRAWS; k++) {
        for (i = 0; i < n + m; i++)
            x[i] = ttft_tpot__compare_normal(&g);
        for (i = 0; i < n; i++)
            for (j = 0; j < m; j++)
                d[i * m + j] = x[i] - x[n + j];
        t[k] = ttft_tpot__compare_select(d, n * m, n * m - 1 - (size_t)c);
    }
    /* the least shift at which the power's share of the draws reject */
    q = ttft_tpot__compare_select(t, TTFT_TPOT__COMPARE_DRAWS,
                                  (size_t)(TTFT_TPOT__COMPARE_POWER * TTFT_TPOT__COMPARE_DRAWS + 0.5) - 1);
    free(d);
    return q > 0 ? q : 0;
}

static double ttft_tpot__compare_mean_of(const ttft_tpot_compare_values *x)
{
    double s = 0;
    size_t i;
    for (i = 0; i < x->n; i++)
        s += x->v[i];
    return x->n ? s / (double)x->n : 0;
}

static double ttft_tpot__compare_var_of(const ttft_tpot_compare_values *x, double mean)
{
    double s = 0;
    size_t i;
    for (i = 0; i < x->n; i++)
        s += (x->v[i] - mean) * (x->v[i] - mean);
    return x->n > 1 ? s / (double)(x->n - 1) : 0;
}

/* The 95% Welch interval of the change of b's mean against a's, in % of a's mean; its degrees of
   freedom (Welch-Satterthwaite) rounded down, which widens it a little. 0 when it has none. */
static int ttft_tpot__compare_welch_change(const ttft_tpot_compare_values *a, const ttft_tpot_compare_values *b,
                                           double *ci)
{
    double ma = ttft_tpot__compare_mean_of(a), mb = ttft_tpot__compare_mean_of(b), va, vb, se2, df, half;
    if (a->n < 2 || b->n < 2 || !(ma > 0))
        return 0;
    va = ttft_tpot__compare_var_of(a, ma) / (double)a->n;
    vb = ttft_tpot__compare_var_of(b, mb) / (double)b->n;
    se2 = va + vb;
    df = se2 > 0 ? se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1)) : 1;
    half = ttft_tpot_t975((uint64_t)(df >= 1 ? df : 1)) * ttft_tpot__sqrt_exact(se2);
    ci[0] = (mb - ma - half) / ma * 100;
    ci[1] = (mb - ma + half) / ma * 100;
    return 1;
}

/* -- Comparison: the rows ---------------------------------------------------------------------- */

/* A row's metric: a sample or request metric (COMPARE_*), or a phase by name and role (metric -1). */
typedef struct ttft_tpot__compare_row_key {
    int metric;
    const char *phase;
    int role;
} ttft_tpot__compare_row_key;

/* Sort x[0, n) ascending: its values are never negative, and non-negative doubles order as their bit
   patterns do, so the library's O(n) radix sort does it (qsort of a million rates took most of a
   comparison). OK or ENOMEM. */
static int ttft_tpot__compare_sort_values(double *x, size_t n)
{
    uint64_t *bits = (uint64_t *)malloc((2 * n + 1) * sizeof *bits);
    if (!bits)
        return TTFT_TPOT_ENOMEM;
    memcpy(bits, x, n * sizeof *bits);
    ttft_tpot_sort(bits, n, bits + n);
    memcpy(x, bits, n * sizeof *bits);
    free(bits);
    return TTFT_TPOT_OK;
}

/* The phase of k in trace t, or -1 when t has no such phase (by name and role). */
static int ttft_tpot__compare_phase_in(const ttft_tpot__compare_trace_units *t, const ttft_tpot__compare_row_key *k)
{
    int q = ttft_tpot__phase_named(t->m, t->names, k->phase);
    return q >= 0 && t->m->phase[q].role == k->role ? q : -1;
}

/* With several traces a side, each trace is one process: its runs share the process's memory
   placement and the machine's state, so they are not independent of each other, and the process is
   the unit: the values v[from, n) of one trace's runs become their mean. */
static void ttft_tpot__compare_one_value_a_trace(ttft_tpot_compare_values *v, size_t from, size_t traces)
{
    double sum = 0;
    size_t i;
    if (traces < 2 || v->n - from < 2)
        return;
    for (i = from; i < v->n; i++)
        sum += v->v[i];
    v->v[from] = sum / (double)(v->n - from);
    v->n = from + 1;
}

/* Every unit's value of k on a side into v (p50) and v99 (p99), sorted: OK or ENOMEM. */
static int ttft_tpot__compare_side_values(const ttft_tpot__compare_trace_units *t, size_t traces,
                                          const ttft_tpot__compare_row_key *k, ttft_tpot_compare_values *v,
                                          ttft_tpot_compare_values *v99)
{
    size_t cap = 1, i, e;
    unsigned u;
    for (i = 0; i < traces; i++)
        cap += t[i].n;
    v->n = v99->n = 0;
    v->v = (double *)malloc(cap * sizeof *v->v);
    v99->v = (double *)malloc(cap * sizeof *v99->v);
    if (!v->v || !v99->v)
        return TTFT_TPOT_ENOMEM;
    for (i = 0; i < traces; i++) {
        size_t from = v->n, from99 = v99->n;
        int q = k->metric < 0 ? ttft_tpot__compare_phase_in(&t[i], k) : -1;
        for (e = q >= 0 ? t[i].at[q] : 0; q >= 0 && e < t[i].at[q + 1]; e++) {
            v->v[v->n++] = t[i].ph50[e];
            v99->v[v99->n++] = t[i].ph99[e];
        }
        for (u = 0; k->metric >= 0 && u < t[i].n; u++) {
            size_t at = (size_t)u * TTFT_TPOT__COMPARE_KEYS + (size_t)k->metric;
            if (t[i].has[at])
                v->v[v->n++] = t[i].p50[at];
            if (t[i].has99[at])
                v99->v[v99->n++] = t[i].p99[at];
        }
        ttft_tpot__compare_one_value_a_trace(v, from, traces);
        ttft_tpot__compare_one_value_a_trace(v99, from99, traces);
    }
    return ttft_tpot__compare_sort_values(v->v, v->n) == TTFT_TPOT_OK ? ttft_tpot__compare_sort_values(v99->v, v99->n)
                                                                      : TTFT_TPOT_ENOMEM;
}

/* The values behind a row of one unit a side, read from the side's one trace, for the direction and
   the interval of that run's p50: a set of the library's (ttft_tpot_sorted_values), or each steady
   decode step's tok/s. Empty where there is none (the first TTFT). OK or ENOMEM. */
static int ttft_tpot__compare_unit_values(const ttft_tpot__compare_trace_units *t, const ttft_tpot__compare_row_key *k,
                                          ttft_tpot_compare_values *out)
{
    static const int set_of[] = {-1, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL,
                                 TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E,
                                 -1};
    const ttft_tpot_model *m = t->m;
    int set = k->metric < 0                   ? TTFT_TPOT_SET_PHASE + ttft_tpot__compare_phase_in(t, k)
              : k->metric >= TTFT_TPOT__COMPARE_REQUEST ? k->metric - TTFT_TPOT__COMPARE_REQUEST
                                              : set_of[k->metric];
    size_t cap = m->head.samples + ttft_tpot__served(m)->losses.events_kept + ttft_tpot__served(m)->requests.seen + 1, i, n = 0;
    uint64_t *ns;
    out->n = 0;
    out->v = (double *)malloc(cap * sizeof *out->v);
    if (!out->v)
        return TTFT_TPOT_ENOMEM;
    if (k->metric == TTFT_TPOT__COMPARE_OUTPUT) { /* steady decode steps' rates */
        for (i = 0; i < m->head.samples; i++) {
            const ttft_tpot_sample *s = &m->samples[i];
            if (!s->warmup && m->phase[s->phase].role == TTFT_TPOT_ROLE_DECODE && s->dur_ns > 0)
                out->v[out->n++] = (double)s->tokens / ((double)s->dur_ns * 1e-9);
        }
        return ttft_tpot__compare_sort_values(out->v, out->n);
    }
    if (set < 0)
        return TTFT_TPOT_OK;
    if (!(ns = (uint64_t *)malloc(cap * sizeof *ns)) || ttft_tpot_sorted_values(m->collector, set, ns, cap, &n)) {
        free(ns);
        return TTFT_TPOT_ENOMEM;
    }
    for (i = 0; i < n; i++)
        out->v[out->n++] = (double)ns[i] / 1e6;
    free(ns);
    return TTFT_TPOT_OK;
}

/* A side's centre: the median of its runs with its interval, their mean with its t-interval. */
static void ttft_tpot__compare_side_stats(ttft_tpot_compare_row *r, int side, const ttft_tpot_compare_values *x,
                                          const ttft_tpot_compare_values *within)
{
    /* one run: the interval of its own values, where its figure is their p50 (not a rate) */
    const ttft_tpot_compare_values *over = x->n == 1 && within->n && strcmp(r->unit, "ms") == 0 ? within : x;
    uint64_t lo, hi;
    r->median[side] = ttft_tpot_percentile(x->v, x->n, 50);
    r->has_ci[side] = over->n && ttft_tpot_ci95_ranks(over->n, 50, &lo, &hi);
    if (r->has_ci[side]) {
        r->ci[side][0] = over->v[lo - 1];
        r->ci[side][1] = over->v[hi - 1];
    }
    r->mean[side] = ttft_tpot__compare_mean_of(x);
    r->has_mean_ci[side] = x->n > 1;
    if (x->n > 1) {
        double half = ttft_tpot_t975(x->n - 1) *
                      ttft_tpot__sqrt_exact(ttft_tpot__compare_var_of(x, r->mean[side]) / (double)x->n);
        r->mean_ci[side][0] = r->mean[side] - half;
        r->mean_ci[side][1] = r->mean[side] + half;
    }
}

/* The U statistic's side: where b lies against a (-1 lower, 1 higher, 0 neither). */
static int ttft_tpot__compare_direction_of(const ttft_tpot_compare_values *a, const ttft_tpot_compare_values *b)
{
    double u1, half = (double)a->n * (double)b->n / 2;
    if (!a->n || !b->n)
        return 0;
    (void)ttft_tpot_compare_mann_whitney(a->v, a->n, b->v, b->n, &u1); /* u1: pairs with b below a */
    return u1 > half ? -1 : u1 < half ? 1 : 0;
}

/* The figures of a row with both sides' values: within[] holds the values of a side's one run. */
static void ttft_tpot__compare_finish_row(ttft_tpot_compare_row *r, const ttft_tpot_compare_values *within)
{
    double u1;
    ttft_tpot__compare_side_stats(r, 0, &r->base, &within[0]);
    ttft_tpot__compare_side_stats(r, 1, &r->new_, &within[1]);
    r->has_delta = r->base.n && r->new_.n && r->median[0] != 0;
    r->delta_pct = r->has_delta ? (r->median[1] / r->median[0] - 1) * 100 : 0;
    r->per_run = r->base.n > 1 && r->new_.n > 1;
    r->has_p = r->base.n && r->new_.n && r->base.n + r->new_.n > 2;
    r->p_value = r->has_p ? ttft_tpot_compare_mann_whitney_exact(r->base.v, r->base.n, r->new_.v, r->new_.n, &u1) : 1;
    r->direction = r->base.n == 1 && r->new_.n == 1 && within[0].n && within[1].n
                       ? ttft_tpot__compare_direction_of(&within[0], &within[1])
                       : ttft_tpot__compare_direction_of(&r->base, &r->new_);
    r->has_shift = r->per_run && r->median[0] != 0;
    r->shift_pct =
        r->has_shift ? ttft_tpot_compare_hodges_lehmann(r->base.v, r->base.n, r->new_.v, r->new_.n) / r->median[0] * 100
                     : 0;
    r->has_p99_ci = r->per_run && ttft_tpot__compare_welch_change(&r->p99[0], &r->p99[1], r->p99_ci);
    r->only = !r->new_.n ? 1 : !r->base.n ? 2 : 0;
}

/* prefix and name into dst (cap bytes), cut to fit: a row's metric, without stdio. */
static void ttft_tpot__compare_name(char *dst, size_t cap, const char *prefix, const char *name)
{
    size_t a = strlen(prefix), b = strlen(name);
    a = a < cap - 1 ? a : cap - 1;
    b = b < cap - 1 - a ? b : cap - 1 - a;
    memcpy(dst, prefix, a);
    memcpy(dst + a, name, b);
    dst[a + b] = '\0';
}

/* A row for key k if either side has a value: 1 made, 0 none, or ENOMEM. */
static int ttft_tpot__compare_make_row(ttft_tpot_compare_row *r, const ttft_tpot__compare_trace_units *const *t,
                                       const size_t *traces, const ttft_tpot__compare_row_key *k, const char *name,
                                       const char *unit)
{
    ttft_tpot_compare_values within[2] = {{NULL, 0}, {NULL, 0}};
    int side, rc = TTFT_TPOT_OK;
    memset(r, 0, sizeof *r);
    ttft_tpot__compare_name(r->metric, sizeof r->metric, "", name);
    r->unit = unit;
    r->role = k->metric < 0 ? k->role : -1;
    for (side = 0; side < 2 && rc == TTFT_TPOT_OK; side++)
        rc = ttft_tpot__compare_side_values(t[side], traces[side], k, side ? &r->new_ : &r->base, &r->p99[side]);
    for (side = 0; side < 2 && rc == TTFT_TPOT_OK; side++) /* one run a side, or a request metric of */
        if ((side ? r->new_.n : r->base.n) == 1 && traces[side] == 1 && /* one trace: its own values */
            (!t[side][0].runs || k->metric >= TTFT_TPOT__COMPARE_REQUEST))
            rc = ttft_tpot__compare_unit_values(&t[side][0], k, &within[side]);
    if (rc == TTFT_TPOT_OK && (r->base.n || r->new_.n))
        ttft_tpot__compare_finish_row(r, within);
    free(within[0].v);
    free(within[1].v);
    return rc != TTFT_TPOT_OK ? rc : r->base.n || r->new_.n;
}

static void ttft_tpot__compare_free_row(ttft_tpot_compare_row *r)
{
    free(r->base.v);
    free(r->new_.v);
    free(r->p99[0].v);
    free(r->p99[1].v);
}

/* Whether a row judges the verdict: the headline metrics, and the phases when asked. */
static int ttft_tpot__compare_headline(const ttft_tpot__compare_row_key *k, const ttft_tpot_compare_options *o)
{
    return k->metric == TTFT_TPOT__COMPARE_TTFT_STEADY || k->metric == TTFT_TPOT__COMPARE_TPOT ||
           k->metric == TTFT_TPOT__COMPARE_OUTPUT || k->metric == TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_TTFT ||
           k->metric == TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_TPOT ||
           k->metric == TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_E2E || (k->metric < 0 && o->phases);
}

/* Adds the row of k to res when either side has it: OK or ENOMEM. */
static int ttft_tpot__compare_add_row(ttft_tpot_compare_result *res, const ttft_tpot__compare_trace_units *const *t,
                                      const size_t *traces, const ttft_tpot__compare_row_key *k, const char *name)
{
    ttft_tpot_compare_row *r = &res->rows[res->n];
    int made =
        ttft_tpot__compare_make_row(r, t, traces, k, name, k->metric == TTFT_TPOT__COMPARE_OUTPUT ? "tok/s" : "ms");
    if (made < 0) {
        ttft_tpot__compare_free_row(r);
        return made;
    }
    if (made) {
        r->in_verdict = !r->only && ttft_tpot__compare_headline(k, &res->opt);
        res->n++;
    } else
        ttft_tpot__compare_free_row(r);
    return TTFT_TPOT_OK;
}

/* The tail's row, tpot_p99: each run's TPOT p99 without its isolated spikes (the tpot row's), a family
   of its own, so that a change in the slowest steps shows where the p50s do not move. OK or ENOMEM. */
static int ttft_tpot__compare_tail_row(ttft_tpot_compare_result *res)
{
    ttft_tpot_compare_values none[2] = {{NULL, 0}, {NULL, 0}};
    ttft_tpot_compare_row *t = NULL, *r = &res->rows[res->n];
    size_t i;
    int side;
    for (i = 0; i < res->n; i++)
        if (strcmp(res->rows[i].metric, "tpot") == 0)
            t = &res->rows[i];
    if (!t || t->only || !t->p99[0].n || !t->p99[1].n)
        return TTFT_TPOT_OK;
    memset(r, 0, sizeof *r);
    ttft_tpot__compare_name(r->metric, sizeof r->metric, "", "tpot_p99");
    r->unit = "ms";
    r->role = -1;
    r->tail = 1;
    for (side = 0; side < 2; side++) {
        ttft_tpot_compare_values *to = side ? &r->new_ : &r->base;
        if (!(to->v = (double *)malloc(t->p99[side].n * sizeof *to->v))) {
            free(r->base.v);
            return TTFT_TPOT_ENOMEM;
        }
        memcpy(to->v, t->p99[side].v, t->p99[side].n * sizeof *to->v);
        to->n = t->p99[side].n;
    }
    ttft_tpot__compare_finish_row(r, none);
    res->n++;
    return TTFT_TPOT_OK;
}

/* Whether a trace before t[side][i] (base traces first) has the phase of k. */
static int ttft_tpot__compare_named_before(const ttft_tpot__compare_trace_units *const *t, const size_t *traces,
                                           size_t side, size_t i, const ttft_tpot__compare_row_key *k)
{
    size_t s, j;
    for (s = 0; s <= side; s++)
        for (j = 0; j < (s == side ? i : traces[s]); j++)
            if (ttft_tpot__compare_phase_in(&t[s][j], k) >= 0)
                return 1;
    return 0;
}

/* A row a phase either side has, by name and role, in the order the sides name them. */
static int ttft_tpot__compare_phase_rows(ttft_tpot_compare_result *res, const ttft_tpot__compare_trace_units *const *t,
                                         const size_t *traces)
{
    char name[TTFT_TPOT_NAME_MAX + 8];
    size_t side, i;
    unsigned p;
    int rc = TTFT_TPOT_OK;
    for (side = 0; side < 2; side++)
        for (i = 0; i < traces[side]; i++)
            for (p = 0; p < t[side][i].m->phases && rc == TTFT_TPOT_OK; p++) {
                const ttft_tpot_phase_figures *ph = &t[side][i].m->phase[p];
                ttft_tpot__compare_row_key k;
                k.metric = -1, k.phase = ph->name, k.role = ph->role;
                ttft_tpot__compare_name(name, sizeof name, "phase:", ph->name);
                if (!ttft_tpot__compare_named_before(t, traces, side, i, &k))
                    rc = ttft_tpot__compare_add_row(res, t, traces, &k, name);
            }
    return rc;
}

/* Every row: the sample metrics, the request metrics when a side has requests, the phases. */
static int ttft_tpot__compare_all_rows(ttft_tpot_compare_result *res, const ttft_tpot__compare_trace_units *const *t,
                                       const size_t *traces)
{
    static const char *const names[] = {"ttft_first", "ttft_steady", "tpot", "e2e", "output_throughput"};
#define TTFT_TPOT__COMPARE_NAME(name, label, words, json, prom, help, le, under, note, cmp, ...) cmp,
    static const char *const metric_names[] = {TTFT_TPOT_METRICS(TTFT_TPOT__COMPARE_NAME)};
#undef TTFT_TPOT__COMPARE_NAME
    size_t side, i;
    int k, requests = 0, rc = TTFT_TPOT_OK;
    for (side = 0; side < 2; side++)
        for (i = 0; i < traces[side]; i++)
            requests |= ttft_tpot__served(t[side][i].m)->requests.seen > 0;
    for (k = 0; k < TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT && rc == TTFT_TPOT_OK; k++) {
        ttft_tpot__compare_row_key key;
        key.metric = k, key.phase = NULL, key.role = -1;
        if ((k == TTFT_TPOT__COMPARE_E2E && requests) || (k >= TTFT_TPOT__COMPARE_REQUEST && !requests))
            continue; /* with requests, e2e is the requests' */
        rc = ttft_tpot__compare_add_row(res, t, traces, &key,
                                        k < TTFT_TPOT__COMPARE_REQUEST ? names[k]
                                                                       : metric_names[k - TTFT_TPOT__COMPARE_REQUEST]);
    }
    return rc == TTFT_TPOT_OK ? ttft_tpot__compare_phase_rows(res, t, traces) : rc;
}

/* -- Comparison: the verdict ------------------------------------------------------------------- */

TTFT_TPOT_DEF int ttft_tpot_compare_better(const ttft_tpot_compare_row *r)
{
    return strcmp(r->unit, "tok/s") == 0 ? r->direction > 0 : r->direction < 0;
}

static int ttft_tpot__compare_by_p_value(const void *a, const void *b)
{
    double x = (*(const ttft_tpot_compare_row *const *)a)->p_value,
           y = (*(const ttft_tpot_compare_row *const *)b)->p_value;
    return (x > y) - (x < y);
}

/* A row's family: 1 the verdict's (headline), 2 the tail's, 0 the detail under them. */
static int ttft_tpot__compare_family_of(const ttft_tpot_compare_row *r)
{
    return r->in_verdict ? 1 : r->tail ? 2 : 0;
}

/* Whether row r is in the family `family` that Holm's adjustment counts: a row both sides have, of
   runs on both (one value a side, as a side's requests, cannot be tested: it would only widen the
   family), unless no row of the family has them (then all count, and none can decide). */
static int ttft_tpot__compare_in_family(const ttft_tpot_compare_result *res, const ttft_tpot_compare_row *r,
                                        int family)
{
    size_t i;
    if (r->only || ttft_tpot__compare_family_of(r) != family)
        return 0;
    if (r->per_run)
        return 1;
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only && ttft_tpot__compare_family_of(&res->rows[i]) == family && res->rows[i].per_run)
            return 0;
    return 1;
}

/* Holm's step-down adjustment over the rows of one family (ttft_tpot__compare_in_family) that have a
   p-value; a row is significant when its adjusted p is below alpha and its runs could reach alpha / m.
   A row outside the family keeps p_holm 1 and is too_few. */
static unsigned ttft_tpot__compare_holm(ttft_tpot_compare_result *res, int family)
{
    ttft_tpot_compare_row **by_p = (ttft_tpot_compare_row **)malloc((res->n + 1) * sizeof(ttft_tpot_compare_row *));
    size_t i, j, m = 0;
    double running = 0;
    for (i = 0; i < res->n; i++) {
        ttft_tpot_compare_row *r = &res->rows[i];
        if (!r->only && ttft_tpot__compare_family_of(r) == family) {
            r->p_holm = 1;
            r->too_few = 1;
            r->family = ttft_tpot__compare_in_family(res, r, family);
            m += r->family != 0;
        }
    }
    for (i = 0; i < res->n; i++) { /* none reach what their runs cannot: too_few */
        ttft_tpot_compare_row *r = &res->rows[i];
        if (!r->only && ttft_tpot__compare_family_of(r) == family && r->family)
            r->too_few = ttft_tpot_compare_min_p(r->base.n, r->new_.n) >= res->opt.alpha / (double)m;
    }
    if (!by_p)
        return (unsigned)m; /* every p_holm stays 1: nothing significant */
    for (i = 0, j = 0; i < res->n; i++)
        if (!res->rows[i].only && ttft_tpot__compare_family_of(&res->rows[i]) == family && res->rows[i].family &&
            res->rows[i].has_p)
            by_p[j++] = &res->rows[i];
    qsort(by_p, j, sizeof(ttft_tpot_compare_row *), ttft_tpot__compare_by_p_value);
    for (i = 0; i < j; i++) {
        ttft_tpot_compare_row *r = by_p[i];
        double adj = ttft_tpot__fmin(1, (double)(m - i) * r->p_value);
        running = ttft_tpot__fmax(running, adj);
        r->p_holm = running;
        r->significant = !r->too_few && r->per_run && r->p_holm < res->opt.alpha;
        r->within_noise = r->significant && r->has_shift && ttft_tpot__fabs(r->shift_pct) < res->opt.noise_pct;
    }
    free(by_p);
    return (unsigned)m;
}

/* Each headline row's smallest detectable change: its runs' pooled sd, in % of the base side's mean,
   times the shift in sd that they detect (worked out once for each count of runs a side). */
static void ttft_tpot__compare_detectable(ttft_tpot_compare_result *res)
{
    size_t i, n = 0, m = 0;
    double k = 0;
    for (i = 0; i < res->n; i++) {
        ttft_tpot_compare_row *r = &res->rows[i];
        double var;
        if (!r->in_verdict || !r->family || !r->per_run || r->too_few || !(r->mean[0] > 0))
            continue;
        if (r->base.n != n || r->new_.n != m)
            k = ttft_tpot__compare_detect_sd(n = r->base.n, m = r->new_.n, res->opt.alpha / res->family);
        var = ((double)(n - 1) * ttft_tpot__compare_var_of(&r->base, r->mean[0]) +
               (double)(m - 1) * ttft_tpot__compare_var_of(&r->new_, r->mean[1])) / (double)(n + m - 2);
        r->has_detect = k > 0;
        r->detect_pct = ttft_tpot__fmax(res->opt.noise_pct, 100 * k * ttft_tpot__sqrt_exact(var) / r->mean[0]);
    }
}

/* The kind of the verdict and the power of its runs: the runs and the best p its lines give are
   those of one row of the family, the one whose runs can give the smallest p. */
static void ttft_tpot__compare_judge(ttft_tpot_compare_result *res)
{
    size_t i;
    int better = 0, worse = 0, noise = 0, reachable = 0;
    unsigned n;
    double p;
    res->family = ttft_tpot__compare_holm(res, 1);
    res->tail_family = ttft_tpot__compare_holm(res, 2);
    (void)ttft_tpot__compare_holm(res, 0);
    res->runs[0] = res->runs[1] = 0;
    res->best_p = 1;
    for (i = 0; i < res->n; i++) {
        const ttft_tpot_compare_row *r = &res->rows[i];
        if (!r->in_verdict || !r->family)
            continue;
        p = ttft_tpot_compare_min_p(r->base.n, r->new_.n);
        if (!res->runs[0] || p < res->best_p) {
            res->runs[0] = r->base.n, res->runs[1] = r->new_.n;
            res->best_p = p;
        }
        reachable |= !r->too_few && r->per_run;
        noise += r->within_noise;
        better += r->significant && !r->within_noise && ttft_tpot_compare_better(r);
        worse += r->significant && !r->within_noise && !ttft_tpot_compare_better(r);
    }
    for (n = 2; res->family && n < 1000 && ttft_tpot_compare_min_p(n, n) >= res->opt.alpha / res->family; n++)
        ;
    res->runs_needed = n;
    ttft_tpot__compare_detectable(res);
    res->kind = better && worse ? TTFT_TPOT_COMPARE_TRADE_OFF
                : worse         ? TTFT_TPOT_COMPARE_REGRESSION
                : better        ? TTFT_TPOT_COMPARE_IMPROVEMENT
                : noise         ? TTFT_TPOT_COMPARE_WITHIN_NOISE
                : reachable     ? TTFT_TPOT_COMPARE_NO_DIFFERENCE
                                : TTFT_TPOT_COMPARE_UNDECIDED;
}

/* Whether the sides' processes ran interleaved in time (ttft_tpot_compare_result.interleaved). */
static void ttft_tpot__compare_interleaving(ttft_tpot_compare_result *res, const ttft_tpot_compare_side *base,
                                            const ttft_tpot_compare_side *new_)
{
    uint64_t lo[2] = {UINT64_MAX, UINT64_MAX}, hi[2] = {0, 0};
    size_t side, i;
    for (side = 0; side < 2; side++)
        for (i = 0; i < (side ? new_ : base)->n; i++) {
            uint64_t t = (side ? new_ : base)->trace[i]->started_ns;
            res->unstarted += !t;
            lo[side] = t < lo[side] ? t : lo[side];
            hi[side] = t > hi[side] ? t : hi[side];
        }
    res->interleaved = res->unstarted || base->n + new_->n < 3 ? -1 : !(hi[0] < lo[1] || hi[1] < lo[0]);
}

/* The steady decode steps of the sides' runs (ttft_tpot_compare_result.decode_steps), and the first
   steps of each that its decode figures are of where they differ (decode_judged). */
static void ttft_tpot__compare_lengths(ttft_tpot_compare_result *res, const ttft_tpot_compare_side *base,
                                       const ttft_tpot_compare_side *new_)
{
    size_t lo = SIZE_MAX, hi = 0, side, i;
    for (side = 0; side < 2; side++)
        for (i = 0; i < (side ? new_ : base)->n; i++)
            ttft_tpot__compare_run_steps((side ? new_ : base)->trace[i], &lo, &hi);
    res->decode_steps[0] = hi ? lo : 0;
    res->decode_steps[1] = hi;
    res->decode_judged = hi && lo < hi ? lo : 0;
}

TTFT_TPOT_DEF ttft_tpot_compare_options ttft_tpot_compare_defaults(void)
{
    ttft_tpot_compare_options o;
    o.alpha = 0.05;
    o.noise_pct = TTFT_TPOT_COMPARE_NOISE_PCT;
    o.phases = 0;
    return o;
}

TTFT_TPOT_DEF int ttft_tpot_compare_sides(const ttft_tpot_compare_side *base, const ttft_tpot_compare_side *new_,
                                          const ttft_tpot_compare_options *o, ttft_tpot_compare_result *res)
{
    ttft_tpot__compare_trace_units *t[2] = {NULL, NULL};
    size_t traces[2], side, i, cap = TTFT_TPOT__COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT + 2, made[2] = {0, 0};
    int rc = TTFT_TPOT_OK;
    memset(res, 0, sizeof *res);
    res->opt = o ? *o : ttft_tpot_compare_defaults();
    res->traces[0] = base->n, res->traces[1] = new_->n;
    traces[0] = base->n, traces[1] = new_->n;
    ttft_tpot__compare_interleaving(res, base, new_);
    ttft_tpot__compare_lengths(res, base, new_);
    for (side = 0; side < 2; side++) {
        const ttft_tpot_compare_side *s = side ? new_ : base;
        if (!(t[side] = (ttft_tpot__compare_trace_units *)calloc(s->n + 1, sizeof *t[side])))
            rc = TTFT_TPOT_ENOMEM;
        for (i = 0; rc == TTFT_TPOT_OK && i < s->n; i++, made[side]++) {
            cap += s->trace[i]->phases;
            rc = ttft_tpot__compare_units_of(s->trace[i], res->decode_judged ? res->decode_judged : SIZE_MAX,
                                             &t[side][i]);
        }
    }
    if (rc == TTFT_TPOT_OK && !(res->rows = (ttft_tpot_compare_row *)calloc(cap, sizeof *res->rows)))
        rc = TTFT_TPOT_ENOMEM;
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot__compare_all_rows(res, (const ttft_tpot__compare_trace_units *const *)t, traces);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot__compare_tail_row(res);
    if (rc == TTFT_TPOT_OK)
        ttft_tpot__compare_judge(res);
    for (side = 0; side < 2; side++) {
        for (i = 0; i < made[side]; i++)
            ttft_tpot__compare_units_free(&t[side][i]);
        free(t[side]);
    }
    if (rc != TTFT_TPOT_OK)
        ttft_tpot_compare_free(res);
    return rc;
}

TTFT_TPOT_DEF int ttft_tpot_compare_models(const ttft_tpot_model *base, const ttft_tpot_model *new_,
                                           const ttft_tpot_compare_options *o, ttft_tpot_compare_result *res)
{
    ttft_tpot_compare_side b, n;
    b.trace = &base, b.n = 1;
    n.trace = &new_, n.n = 1;
    return ttft_tpot_compare_sides(&b, &n, o, res);
}

TTFT_TPOT_DEF void ttft_tpot_compare_free(ttft_tpot_compare_result *res)
{
    size_t i;
    for (i = 0; res->rows && i < res->n; i++)
        ttft_tpot__compare_free_row(&res->rows[i]);
    free(res->rows);
    res->rows = NULL;
    res->n = 0;
}

/* -- Comparison: the text, the JSON and the verdict -------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* Whether row r belongs to list `which` of its family's (1 the verdict, 2 the tail): 0 worse, 1
   better, 2 within noise. */
static int ttft_tpot__compare_in_list(const ttft_tpot_compare_row *r, int family, int which)
{
    if (ttft_tpot__compare_family_of(r) != family || !r->significant)
        return 0;
    return which == 2 ? r->within_noise : !r->within_noise && ttft_tpot_compare_better(r) == which;
}

/* The verdict's lists, "new is worse on a (+1.00%); better on b (+2.00%); within noise: c (-0.50%)",
   each one that has a row. */
static void ttft_tpot__compare_verdict_lists(FILE *out, const ttft_tpot_compare_result *res, int family, int html)
{
    static const char *const head[3] = {"worse on ", "better on ", "within noise: "};
    char pct[64];
    size_t i;
    int which, any = 0;
    for (which = 0; which < 3; which++) {
        size_t k = 0;
        for (i = 0; i < res->n; i++) {
            const ttft_tpot_compare_row *r = &res->rows[i];
            if (!ttft_tpot__compare_in_list(r, family, which))
                continue;
            fputs(k++ ? ", " : any++ ? "; " : "new is ", out);
            if (k == 1)
                fputs(head[which], out);
            if (html)
                ttft_tpot__html_text(out, r->metric);
            else
                fputs(r->metric, out);
            fprintf(out, " (%s)",
                    ttft_tpot__num_then(pct, sizeof pct, "%+.2f", r->has_shift ? r->shift_pct : r->delta_pct, "%"));
        }
    }
}

static const char *const ttft_tpot__compare_kind_json[] = {
#define TTFT_TPOT__COMPARE_KIND_NAME(name, json) json,
    TTFT_TPOT_COMPARE_KINDS(TTFT_TPOT__COMPARE_KIND_NAME)
#undef TTFT_TPOT__COMPARE_KIND_NAME
};

/* The verdict, what the table then details, e.g. "Verdict: a trade-off: new is better on
   output_throughput (+91.00%); worse on tpot (+112.00%) (alpha 0.05, Holm; 5 runs a side)" (html: the
   metric names escaped for HTML, no newline), then, when the runs cannot decide, how many they need. */
static void ttft_tpot__compare_verdict(FILE *out, const ttft_tpot_compare_result *res, int html)
{
    static const char *const said[] = {"no significant difference", "within noise", "an improvement", "a regression",
                                       "a trade-off", "undecided"};
    const char *end = html ? "" : "\n";
    double need = res->family ? res->opt.alpha / res->family : res->opt.alpha;
    /* several traces a side: each is one unit, a process, whatever runs it holds */
    const char *units = res->traces[0] > 1 || res->traces[1] > 1 ? "processes" : "runs";
    char alpha[32], best[32], below[32], noise[32];
    size_t i, still = 0;
    ttft_tpot__dnum(alpha, sizeof alpha, "%.15g", res->opt.alpha);
    fprintf(out, "Verdict: %s", said[res->kind]);
    if (res->kind == TTFT_TPOT_COMPARE_UNDECIDED && !res->family) {
        fprintf(out, ": no headline metric both sides have%s", end);
        return;
    }
    if (res->kind == TTFT_TPOT_COMPARE_UNDECIDED) {
        fprintf(out,
                ": %zu and %zu %s can give p = %s at best, and %u headline metric%s need%s p < %s (alpha %s, "
                "Holm): run %u or more a side, interleaved base/new/base/new where the driver allows it%s%s",
                res->runs[0], res->runs[1], units, ttft_tpot__dnum(best, sizeof best, "%.3g", res->best_p),
                res->family, res->family == 1 ? "" : "s", res->family == 1 ? "s" : "",
                ttft_tpot__dnum(below, sizeof below, "%.3g", need), alpha, res->runs_needed,
                *units == 'p' ? " (processes, a trace each; or one trace a side, whose marked runs are the units)"
                              : "",
                end);
        return;
    }
    if (res->kind == TTFT_TPOT_COMPARE_NO_DIFFERENCE) {
        fprintf(out, " on any of the %u headline metric%s (alpha %s, Holm; %zu and %zu %s)%s", res->family,
                res->family == 1 ? "" : "s", alpha, res->runs[0], res->runs[1], units, end);
        return;
    }
    fputs(": ", out);
    ttft_tpot__compare_verdict_lists(out, res, 1, html);
    for (i = 0; i < res->n; i++)
        still += res->rows[i].in_verdict && res->rows[i].family && !res->rows[i].significant;
    if (still)
        fprintf(out, "; no significant change on %zu other%s", still, still == 1 ? "" : "s");
    fprintf(out, " (alpha %s, Holm; noise %s%%; %zu and %zu %s)%s", alpha,
            ttft_tpot__dnum(noise, sizeof noise, "%g", res->opt.noise_pct), res->runs[0], res->runs[1], units, end);
}

/* "3.22 [3.19, 3.25]": v and its interval ci, 4 significant digits each. */
static const char *ttft_tpot__compare_interval(char *buf, size_t len, double v, const double *ci)
{
    char a[32], lo[32], hi[32];
    snprintf(buf, len, "%s [%s, %s]", ttft_tpot__dnum(a, sizeof a, "%.4g", v),
             ttft_tpot__dnum(lo, sizeof lo, "%.4g", ci[0]), ttft_tpot__dnum(hi, sizeof hi, "%.4g", ci[1]));
    return buf;
}

/* A side's cell: "3.22 [3.19, 3.25]" (runs: their mean and its t-interval; one run: its p50 and the
   interval of its own values), "3.22 [n<6]", or "-" for a side with no value. */
static const char *ttft_tpot__compare_side_text(char *buf, size_t len, const ttft_tpot_compare_row *r, int side)
{
    const ttft_tpot_compare_values *x = side ? &r->new_ : &r->base;
    char a[32];
    if (!x->n)
        snprintf(buf, len, "-");
    else if (r->has_mean_ci[side])
        ttft_tpot__compare_interval(buf, len, r->mean[side], r->mean_ci[side]);
    else if (r->has_ci[side])
        ttft_tpot__compare_interval(buf, len, r->median[side], r->ci[side]);
    else if (strcmp(r->unit, "ms") != 0) /* one run's rate: no interval of its own */
        ttft_tpot__dnum(buf, len, "%.4g", r->median[side]);
    else
        snprintf(buf, len, "%s [n<%llu]", ttft_tpot__dnum(a, sizeof a, "%.4g", r->median[side]),
                 (unsigned long long)ttft_tpot_ci95_min_n(50));
    return buf;
}

/* "only in base: a, b" for the metrics only side `only` (1 base, 2 new) has; nothing when none. */
static void ttft_tpot__compare_only_line(FILE *out, const ttft_tpot_compare_result *res, int only)
{
    size_t i;
    int any = 0;
    for (i = 0; i < res->n; i++)
        if (res->rows[i].only == only)
            fprintf(out, "%s%s", any++ ? ", " : only == 1 ? "only in base: " : "only in new: ", res->rows[i].metric);
    if (any)
        fputc('\n', out);
}

/* The change column: the shift (or the medians' change) when significant, "noise" within the
   threshold, "~" otherwise, n/a without a base to divide by. */
static const char *ttft_tpot__compare_change_text(char *buf, size_t len, const ttft_tpot_compare_row *r)
{
    if (!r->has_delta)
        snprintf(buf, len, "n/a");
    else if (r->within_noise)
        snprintf(buf, len, "noise");
    else if (r->significant)
        ttft_tpot__num_then(buf, len, "%+.2f", r->has_shift ? r->shift_pct : r->delta_pct, "%");
    else
        snprintf(buf, len, "~");
    return buf;
}

/* A row of the table; runs: the sides have runs (a row of one value a side then is not a run each,
   as a side's requests: it is not tested). */
static void ttft_tpot__compare_text_row(FILE *out, const ttft_tpot_compare_row *r, int runs)
{
    char name[96], b[64], nw[64], d[32], p[32], p99[2 * 32 + 8], lo[32], hi[32];
    snprintf(name, sizeof name, "%s (%s%s)%s", r->metric, r->unit, r->per_run ? ", runs" : "",
             r->in_verdict ? " *" : "");
    if (r->has_p && r->per_run)
        snprintf(p, sizeof p, r->p_holm < 0.001 ? "p<0.001" : "p=%s",
                 ttft_tpot__dnum(lo, sizeof lo, "%.3f", r->p_holm));
    else
        snprintf(p, sizeof p, "-");
    if (r->has_p99_ci)
        snprintf(p99, sizeof p99, "[%s, %s]", ttft_tpot__num_then(lo, sizeof lo, "%+.1f", r->p99_ci[0], "%"),
                 ttft_tpot__num_then(hi, sizeof hi, "%+.1f", r->p99_ci[1], "%"));
    else
        snprintf(p99, sizeof p99, "-");
    fprintf(out, "%-36s %-28s %-28s %-9s %-8s %-18s (n=%zu+%zu)%s\n", name,
            ttft_tpot__compare_side_text(b, sizeof b, r, 0), ttft_tpot__compare_side_text(nw, sizeof nw, r, 1),
            ttft_tpot__compare_change_text(d, sizeof d, r), p, p99, r->base.n, r->new_.n,
            r->base.n == 1 && r->new_.n == 1 && runs ? "  one value a side, not one a run: not tested"
            : !r->per_run                            ? "  one run a side: too few runs to decide"
            : r->too_few                             ? "  too few runs to decide"
                                                     : "");
}

/* One trace a side: its runs are the units, and a process effect is not seen. */
static int ttft_tpot__compare_one_process(const ttft_tpot_compare_result *res)
{
    return res->traces[0] == 1 && res->traces[1] == 1;
}

/* What a verdict cannot see, under it (undecided says what to run). Runs of one process a side share
   its memory placement and the machine's state: a difference between two processes of one build
   reads as a change. Processes of one side all run before the other's: a drift reads as one. */
static void ttft_tpot__compare_caveats(FILE *out, const ttft_tpot_compare_result *res)
{
    if (ttft_tpot__compare_one_process(res) && res->kind != TTFT_TPOT_COMPARE_UNDECIDED)
        fprintf(out,
                "(one process a side: its runs share the process's memory placement and the machine's state, so a "
                "difference between two processes of the same build reads as a change, and each interval holds "
                "where another run of this process lands, not another process; to tell a process effect from a "
                "change, run %u or more processes a side, interleaved, a trace each: --base b1.csv --new n1.csv "
                "--base b2.csv ...)\n",
                res->runs_needed);
    if (res->interleaved == 0)
        fputs("(not interleaved: every process of one side started before every process of the other, so a drift "
              "of the machine over time reads as a change; run them base, new, base, new, ...)\n",
              out);
    else if (res->interleaved < 0 && res->unstarted && res->traces[0] + res->traces[1] > 2)
        fprintf(out, "(interleaving unknown: %zu of the %zu traces have no # started: line)\n", res->unstarted,
                res->traces[0] + res->traces[1]);
    if (res->decode_judged)
        fprintf(out,
                "(runs of %zu to %zu steady decode steps: each run's tpot, tpot_p99 and output_throughput are of "
                "its first %zu, as a mean or a p99 of heavy-tailed steps moves with the steps it is over)\n",
                res->decode_steps[0], res->decode_steps[1], res->decode_judged);
}

/* "Tail: new is worse on tpot_p99 (+48.20%) (each run's TPOT p99, ...)": the tail family's judgment,
   when a row of it could reach significance. */
static void ttft_tpot__compare_tail_line(FILE *out, const ttft_tpot_compare_result *res)
{
    size_t i, tested = 0, named = 0;
    char alpha[32];
    for (i = 0; i < res->n; i++) {
        const ttft_tpot_compare_row *r = &res->rows[i];
        tested += r->tail && r->family && r->per_run && !r->too_few;
        named += r->tail && r->significant;
    }
    if (!tested)
        return;
    fputs("Tail: ", out);
    if (named)
        ttft_tpot__compare_verdict_lists(out, res, 2, 0);
    else
        fputs("no significant change", out);
    fprintf(out, " (each run's TPOT p99, judged beside the verdict; alpha %s, Holm over %u metric%s)\n",
            ttft_tpot__dnum(alpha, sizeof alpha, "%.15g", res->opt.alpha), res->tail_family,
            res->tail_family == 1 ? "" : "s");
}

/* "With this spread, 5 and 5 runs detect a change of 8.2% or more in tpot, 6.0% in ..." */
static void ttft_tpot__compare_detect_line(FILE *out, const ttft_tpot_compare_result *res)
{
    size_t i, any = 0;
    char pct[32], alpha[32];
    for (i = 0; i < res->n; i++) {
        const ttft_tpot_compare_row *r = &res->rows[i];
        if (!r->has_detect)
            continue;
        if (!any++)
            fprintf(out, "With this spread, %zu and %zu %s detect a change of ", r->base.n, r->new_.n,
                    res->traces[0] > 1 || res->traces[1] > 1 ? "processes" : "runs");
        fprintf(out, "%s%s%%%s in %s", any > 1 ? ", " : "", /* 2 digits, whole past 100: "9.8", "13", "750" */
                ttft_tpot__dnum(pct, sizeof pct, r->detect_pct < 100 ? "%.2g" : "%.0f", r->detect_pct),
                any > 1 ? "" : " or more", r->metric);
    }
    if (any)
        fprintf(out, ", 4 times in 5 (their pooled sd, as if normal; alpha %s over %u metrics, Holm)\n",
                ttft_tpot__dnum(alpha, sizeof alpha, "%.15g", res->opt.alpha), res->family);
}

TTFT_TPOT_DEF void ttft_tpot_compare_text(FILE *out, const ttft_tpot_compare_result *res)
{
    char alpha[32], noise[32];
    size_t i;
    ttft_tpot__compare_verdict(out, res, 0);
    ttft_tpot__compare_caveats(out, res);
    ttft_tpot__compare_tail_line(out, res);
    ttft_tpot__compare_detect_line(out, res);
    fprintf(out, "%-36s %-28s %-28s %-9s %-8s %-18s %s\n", "metric (* in the verdict)", "base [95% CI]", "new [95% CI]",
            "change", "p (Holm)", "p99 change [95% CI]", "runs");
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only)
            ttft_tpot__compare_text_row(out, &res->rows[i], res->runs[0] > 1 && res->runs[1] > 1);
    ttft_tpot__compare_only_line(out, res, 1);
    ttft_tpot__compare_only_line(out, res, 2);
    fprintf(out,
            "The run is the unit: a side of runs shows their mean with its 95%% t-interval (where the mean of "
            "more runs of this process lands, with one trace a side; of more processes, with several); a side "
            "of one run, or a trace's requests, its p50 with the interval of its own values (not where another run lands). change: the Hodges-Lehmann shift "
            "over the runs; ~: no significant difference (two-sided Mann-Whitney U over the runs, Holm-adjusted p >= "
            "%s); noise: significant, under %s%%. p99 change: Welch's interval over the runs' p99s.\n",
            ttft_tpot__dnum(alpha, sizeof alpha, "%.15g", res->opt.alpha),
            ttft_tpot__dnum(noise, sizeof noise, "%g", res->opt.noise_pct));
}

static void ttft_tpot__compare_json_num(FILE *out, int has, double v)
{
    if (has && ttft_tpot__isfinite(v))
        ttft_tpot__put_num(out, "%.17g", v);
    else
        fputs("null", out);
}

static void ttft_tpot__compare_json_pair(FILE *out, int has, const double *v)
{
    if (!has) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    ttft_tpot__compare_json_num(out, 1, v[0]);
    fputc(',', out);
    ttft_tpot__compare_json_num(out, 1, v[1]);
    fputc(']', out);
}

/* A metric's name as a JSON string: names are printable UTF-8 (the library checks): " and \ escaped. */
static void ttft_tpot__compare_json_metric(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++)
        fprintf(out, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
    fputc('"', out);
}

static void ttft_tpot__compare_json_side(FILE *out, const ttft_tpot_compare_row *r, int side)
{
    const ttft_tpot_compare_values *x = side ? &r->new_ : &r->base;
    fprintf(out, ",\"%s\":{\"n\":%zu,\"median\":", side ? "new" : "base", x->n);
    ttft_tpot__compare_json_num(out, x->n > 0, r->median[side]);
    fputs(",\"ci95\":", out);
    ttft_tpot__compare_json_pair(out, r->has_ci[side], r->ci[side]);
    fputs(",\"mean\":", out);
    ttft_tpot__compare_json_num(out, x->n > 0, r->mean[side]);
    fputs(",\"mean_ci95\":", out);
    ttft_tpot__compare_json_pair(out, r->has_mean_ci[side], r->mean_ci[side]);
    fputc('}', out);
}

static void ttft_tpot__compare_json_row(FILE *out, const ttft_tpot_compare_row *r)
{
    static const char *const way[3] = {"lower", "same", "higher"};
    fputs("{\"metric\":", out);
    ttft_tpot__compare_json_metric(out, r->metric);
    fprintf(out, ",\"unit\":\"%s\",\"per_run\":%s,\"in_verdict\":%s", r->unit, r->per_run ? "true" : "false",
            r->in_verdict ? "true" : "false");
    ttft_tpot__compare_json_side(out, r, 0);
    ttft_tpot__compare_json_side(out, r, 1);
    fputs(",\"delta_pct\":", out);
    ttft_tpot__compare_json_num(out, r->has_delta, r->delta_pct);
    fputs(",\"shift_pct\":", out);
    ttft_tpot__compare_json_num(out, r->has_shift, r->shift_pct);
    fprintf(out, ",\"direction\":\"%s\",\"p_value\":", way[r->direction + 1]);
    ttft_tpot__compare_json_num(out, r->has_p, r->p_value);
    fputs(",\"p_holm\":", out);
    ttft_tpot__compare_json_num(out, r->has_p, r->p_holm);
    fprintf(out, ",\"significant\":%s,\"within_noise\":%s,\"better\":%s,\"too_few\":%s,\"p99_delta_pct_ci95\":",
            r->significant ? "true" : "false", r->within_noise ? "true" : "false",
            !r->significant               ? "null"
            : ttft_tpot_compare_better(r) ? "true"
                                          : "false",
            r->too_few || !r->per_run ? "true" : "false");
    ttft_tpot__compare_json_pair(out, r->has_p99_ci, r->p99_ci);
    fputs(",\"detectable_pct\":", out);
    ttft_tpot__compare_json_num(out, r->has_detect, r->detect_pct);
    fputc('}', out);
}

/* The lists of a family (1 the verdict, 2 the tail): "worse":[...],"better":[...],"within_noise":[...] */
static void ttft_tpot__compare_json_lists(FILE *out, const ttft_tpot_compare_result *res, int family)
{
    static const char *const list[3] = {"worse", "better", "within_noise"};
    static const int order[3] = {1, 0, 2};
    size_t i;
    int k;
    for (k = 0; k < 3; k++) {
        int put = 0;
        fprintf(out, "%s\"%s\":[", k ? "," : "", list[order[k]]);
        for (i = 0; i < res->n; i++)
            if (ttft_tpot__compare_in_list(&res->rows[i], family, order[k])) {
                fputs(put++ ? "," : "", out);
                ttft_tpot__compare_json_metric(out, res->rows[i].metric);
            }
        fputc(']', out);
    }
}

/* "verdict":{"kind":K,"worse":[...],"better":[...],"within_noise":[...],"tail":{"family":N,"worse":[...],
   "better":[...],"within_noise":[...]},"family":N,"runs":[B,N],"traces":[B,N],"best_p":P,"runs_needed":N,
   "one_process":B,"interleaved":B|null,"unstarted":N,"power":0.8,"decode_steps":[LO,HI],
   "decode_judged":N|null} */
static void ttft_tpot__compare_json_verdict(FILE *out, const ttft_tpot_compare_result *res)
{
    fprintf(out, ",\"verdict\":{\"kind\":\"%s\",", ttft_tpot__compare_kind_json[res->kind]);
    ttft_tpot__compare_json_lists(out, res, 1);
    fprintf(out, ",\"tail\":{\"family\":%u,", res->tail_family);
    ttft_tpot__compare_json_lists(out, res, 2);
    fprintf(out, "},\"family\":%u,\"runs\":[%zu,%zu],\"traces\":[%zu,%zu],\"best_p\":", res->family, res->runs[0],
            res->runs[1], res->traces[0], res->traces[1]);
    ttft_tpot__compare_json_num(out, 1, res->best_p);
    fprintf(out, ",\"runs_needed\":%u,\"one_process\":%s,\"interleaved\":%s,\"unstarted\":%zu,\"power\":",
            res->runs_needed, ttft_tpot__compare_one_process(res) ? "true" : "false",
            res->interleaved < 0 ? "null" : res->interleaved ? "true" : "false", res->unstarted);
    ttft_tpot__compare_json_num(out, 1, TTFT_TPOT__COMPARE_POWER);
    fprintf(out, ",\"decode_steps\":[%zu,%zu],\"decode_judged\":", res->decode_steps[0], res->decode_steps[1]);
    if (res->decode_judged)
        fprintf(out, "%zu}", res->decode_judged);
    else
        fputs("null}", out);
}

TTFT_TPOT_DEF void ttft_tpot_compare_json(FILE *out, const ttft_tpot_compare_result *res)
{
    size_t i, put = 0;
    int side;
    fputs("{\"schema\":\"ttft_tpot/compare-v1\",\"alpha\":", out);
    ttft_tpot__compare_json_num(out, 1, res->opt.alpha);
    fputs(",\"noise_pct\":", out);
    ttft_tpot__compare_json_num(out, 1, res->opt.noise_pct);
    ttft_tpot__compare_json_verdict(out, res);
    fputs(",\"rows\":[", out);
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only) {
            fputs(put++ ? "," : "", out);
            ttft_tpot__compare_json_row(out, &res->rows[i]);
        }
    for (side = 1; side <= 2; side++) { /* the metrics one side has: nothing to compare */
        fputs(side == 1 ? "],\"only_in_base\":[" : "],\"only_in_new\":[", out);
        for (i = 0, put = 0; i < res->n; i++)
            if (res->rows[i].only == side) {
                fputs(put++ ? "," : "", out);
                ttft_tpot__compare_json_metric(out, res->rows[i].metric);
            }
    }
    fputs("]}\n", out);
}

/* -- Comparison: the headline of the HTML comparison (--html with two traces) ------------------ */

/* A side's runs' mean and its 95% t-interval, or its one run's p50 and the interval of that run's values,
   or n/a where the side has no value or too few. */
static void ttft_tpot__compare_median_cell(FILE *out, const ttft_tpot_compare_row *r, int k)
{
    char buf[112];
    if ((k ? r->new_.n : r->base.n) == 0)
        fputs("<td>n/a</td>", out);
    else if (r->has_mean_ci[k]) /* runs: their mean and its t-interval */
        fprintf(out, "<td>%s</td>", ttft_tpot__compare_interval(buf, sizeof buf, r->mean[k], r->mean_ci[k]));
    else if (r->has_ci[k])
        fprintf(out, "<td>%s</td>", ttft_tpot__compare_interval(buf, sizeof buf, r->median[k], r->ci[k]));
    else
        fprintf(out, "<td>%s [too few for a CI]</td>", ttft_tpot__dnum(buf, sizeof buf, "%.4g", r->median[k]));
}

/* " Only in base: a, b." for the metrics only side `only` (1 base, 2 new) has. */
static void ttft_tpot__compare_only_list(FILE *out, const ttft_tpot_compare_row *rows, size_t n, int only)
{
    size_t i;
    int any = 0;
    for (i = 0; i < n; i++)
        if (rows[i].only == only) {
            fputs(any++ ? ", " : only == 1 ? " Only in base: " : " Only in new: ", out);
            ttft_tpot__html_text(out, rows[i].metric);
        }
    if (any)
        fputc('.', out);
}

TTFT_TPOT_DEF int ttft_tpot_compare_html(FILE *out, const ttft_tpot_model *const *m)
{
    ttft_tpot_compare_options o = ttft_tpot_compare_defaults();
    ttft_tpot_compare_result res;
    const ttft_tpot_compare_row *rows;
    char pct[64];
    size_t n, i;
    if (ttft_tpot_compare_models(m[0], m[1], &o, &res) != TTFT_TPOT_OK)
        return -1;
    rows = res.rows, n = res.n;
    fputs("<p class=\"verdict\">", out);
    ttft_tpot__compare_verdict(out, &res, 1);
    fputs("</p>\n<table>\n<tr><th>Metric</th><th>Base [95% CI]</th><th>New [95% CI]</th><th>Change</th>"
          "<th>p (Mann-Whitney over runs, Holm)</th></tr>\n", out);
    for (i = 0; i < n; i++) {
        const ttft_tpot_compare_row *r = &rows[i];
        int k;
        if (r->only) /* one side has it: listed under the table */
            continue;
        fputs("<tr><th>", out);
        ttft_tpot__html_text(out, r->metric);
        fprintf(out, " (%s)</th>", r->unit);
        for (k = 0; k < 2; k++)
            ttft_tpot__compare_median_cell(out, r, k);
        if (r->has_delta && r->within_noise)
            fprintf(out, "<td title=\"%s\">within noise</td>",
                    ttft_tpot__num_then(pct, sizeof pct, "%+.1f", r->shift_pct, "%"));
        else if (r->has_delta && r->significant) /* coloured by the metric's direction: latency up is worse */
            fprintf(out, "<td class=\"%s\">%s %s</td>", ttft_tpot_compare_better(r) ? "better" : "worse",
                    ttft_tpot__num_then(pct, sizeof pct, "%+.1f", r->has_shift ? r->shift_pct : r->delta_pct, "%"),
                    ttft_tpot_compare_better(r) ? "better" : "worse");
        else if (r->has_delta) /* as the text: not significant is ~, the change in the title */
            fprintf(out, "<td title=\"%s\">~</td>",
                    ttft_tpot__num_then(pct, sizeof pct, "%+.1f", r->delta_pct, "%"));
        else
            fputs("<td>n/a</td>", out);
        if (r->has_p && r->per_run)
            fprintf(out, "<td>%s</td></tr>\n", ttft_tpot__dnum(pct, sizeof pct, "%.3g", r->p_holm));
        else
            fputs("<td>too few runs</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">~: no significant difference at 0.05 over the runs (Holm).", out);
    ttft_tpot__compare_only_list(out, rows, n, 1);
    ttft_tpot__compare_only_list(out, rows, n, 2);
    fputs("</p>\n", out);
    ttft_tpot_compare_free(&res);
    return 0;
}

#endif /* TTFT_TPOT_NO_STDIO */

/* ---- Ranks: the tensor-parallel ranks of one model ------------------------------------------- */

/* A rank's steady decode steps in call order, into a new array; how many in *n. NULL with *n 0 when it
   has none or keeps some in a histogram (they cannot be lined up), else NULL only out of memory. */
static uint64_t *ttft_tpot__tp_steps(const ttft_tpot *c, size_t *n)
{
    ttft_tpot_model m;
    ttft_tpot_stats st;
    uint64_t *v, stored = 0;
    unsigned p;
    size_t i;
    *n = 0;
    if (ttft_tpot__view(c, &m) != TTFT_TPOT_OK)
        return NULL;
    v = (uint64_t *)malloc((m.n_samples ? m.n_samples : 1) * sizeof *v);
    for (i = 0; v && i < m.n_samples; i++)
        if (m.phase[m.samples[i].phase].role == TTFT_TPOT_ROLE_DECODE && !m.samples[i].warmup)
            v[(*n)++] = ttft_tpot__step_tpot(&m, i); /* TPOT: per output token */
    for (p = 0; v && p < m.phases; p++) /* every steady step stored: none in a histogram */
        if (m.phase[p].role == TTFT_TPOT_ROLE_DECODE && ttft_tpot_phase_stats(c, (int)p, &st) == 0)
            stored += st.n - st.warmup_n;
    ttft_tpot_model_free(&m);
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

/* -- Ranks: the text and the JSON -------------------------------------------------------------- */

#ifndef TTFT_TPOT_NO_STDIO

/* ns as ms with two decimals, us below 1 ms, whole ns below 1 us, as the report writes small times. */
static const char *ttft_tpot__tp_ms(char *buf, size_t len, double ns)
{
    if (ns < 999.5) /* "0.00 us" would hide a step of a few ns */
        return ttft_tpot__num_then(buf, len, "%.0f", ns, " ns");
    if (ns < 1e6)
        return ttft_tpot__num_then(buf, len, "%.2f", ns / 1e3, " us");
    return ttft_tpot__num_then(buf, len, "%.2f", ns / 1e6, " ms");
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
    char a[32], b[32], c[32], slowest[32];
    int r;
    fprintf(out, "Tensor-parallel ranks: %d (a step waits for its slowest rank: its time is the maximum over the "
                 "ranks)\nrank  steps        p50        p99       mean  slowest  trace\n", f->n);
    for (r = 0; r < f->n; r++) {
        ttft_tpot__dnum(slowest, sizeof slowest, "%.1f",
                       f->steps ? 100.0 * (double)f->slowest[r] / (double)f->steps : 0.0);
        fprintf(out, "%4d %6llu %10s %10s %10s %7s%%  ", r, (unsigned long long)f->rank[r].n,
                ttft_tpot__tp_ms(a, sizeof a, f->rank[r].p50_ns), ttft_tpot__tp_ms(b, sizeof b, f->rank[r].p99_ns),
                ttft_tpot__tp_ms(c, sizeof c, f->rank[r].mean_ns), slowest);
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
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(rank0, NULL, &m);
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (!json) {
        rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_TEXT);
        fputc('\n', out);
        ttft_tpot__tp_text(out, f, names);
    } else if ((rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON_OPEN)) == TTFT_TPOT_OK) {
        fputc(',', out); /* the report's object, "ranks" its last key */
        ttft_tpot__tp_json(out, f);
        fputs("}\n", out);
        rc = ferror(out) ? TTFT_TPOT_EIO : TTFT_TPOT_OK;
    }
    ttft_tpot_model_free(&m);
    return rc;
}

#endif /* TTFT_TPOT_NO_STDIO */

#ifdef __cplusplus
}
#endif
#if defined(__cplusplus) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#if defined(_MSC_VER) || defined(__clang__)
#pragma float_control(pop)
#elif defined(__GNUC__) && !defined(__CUDACC__)
#pragma GCC pop_options
#endif
#endif /* TTFT_TPOT_IMPLEMENTATION */

/* MIT License, as ttft_tpot.h: the text is at the end of that file. */

