/* compare.h - ttft_tpot_report --compare: did the new side change what a user waits for?

   The unit of evidence is a run: with one trace a side, each run it marked (ttft_tpot_run_begin,
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
   runs to reach significance the verdict says so, with the runs a side it needs. */
#ifndef COMPARE_H
#define COMPARE_H

#include "ttft_tpot_tools.h"

#include <stdio.h>

#define COMPARE_NOISE_PCT 2.0 /* the default noise threshold, as criterion.rs's */

/* The values of one metric on one side, in its unit (ms, or tok/s), sorted ascending. */
typedef struct compare_values {
    double *v;
    size_t n;
} compare_values;

/* The sample metrics: the first and the steady TTFT, TPOT, E2E (of e2e samples, when neither side has
   requests), output throughput; then each request metric of the library's table (TTFT_TPOT_METRICS),
   named by its COMPARE column; then a phase. */
enum { COMPARE_TTFT_FIRST, COMPARE_TTFT_STEADY, COMPARE_TPOT, COMPARE_E2E, COMPARE_OUTPUT, COMPARE_REQUEST };

/* What a comparison concludes (compare_result.kind), the names of the JSON verdict's "kind". */
#define COMPARE_KINDS(X)                                                                                  \
    X(NO_DIFFERENCE, "no_difference") X(WITHIN_NOISE, "within_noise") X(IMPROVEMENT, "improvement")         \
    X(REGRESSION, "regression") X(TRADE_OFF, "trade_off") X(UNDECIDED, "undecided")
#define COMPARE__KIND_ENUM(name, json) COMPARE_##name,
enum { COMPARE_KINDS(COMPARE__KIND_ENUM) COMPARE_KIND_COUNT };
#undef COMPARE__KIND_ENUM

/* A side: the models of its traces, computed whole, their collectors alive. */
typedef struct compare_side {
    const ttft_tpot_model *const *trace;
    size_t n;
} compare_side;

typedef struct compare_options {
    double alpha;     /* the family-wise significance level, 0 < alpha < 1 */
    double noise_pct; /* a significant shift smaller than this (in %) is within noise */
    int phases;       /* phase rows join the verdict's family */
} compare_options;

/* One row of the comparison. */
typedef struct compare_row {
    char metric[TTFT_TPOT_NAME_MAX + 8]; /* ttft_first, ttft_steady, tpot, e2e, output_throughput, a
                                            request metric (requests.ttft ... itl, e2e), phase:NAME */
    const char *unit;                   /* "ms" or "tok/s" */
    compare_values base, new_;          /* one value a run */
    compare_values p99[2];              /* each run's p99 (not of output throughput) */
    double median[2], ci[2][2];         /* the runs' median; its 95% interval: over the runs (6 or more),
                                           or, for a side of one run, over that run's own values */
    int has_ci[2];
    double mean[2], mean_ci[2][2]; /* the runs' mean and its 95% t-interval (2 runs or more) */
    int has_mean_ci[2];
    int role;    /* a phase row's role; -1 for the others */
    int per_run; /* both sides have 2 runs or more: a test is possible */
    int only;    /* 0: both sides have the metric; 1: only the base side, 2: only the new side */
    int in_verdict;   /* one of the verdict's family */
    int has_delta, has_p, significant, too_few, has_p99_ci, has_shift, within_noise;
    int direction;    /* the new side's values lie lower (-1), higher (1) or neither (0): the U statistic's
                         side over the runs, or over the values of a run a side */
    double delta_pct; /* the medians' change */
    double shift_pct; /* the Hodges-Lehmann shift over the runs, in % of the base side's median */
    double p_value;   /* two-sided, over the runs */
    double p_holm;    /* adjusted by Holm's method within its family (verdict, or detail) */
    double p99_ci[2]; /* the 95% Welch interval of the change of the runs' mean p99, in % */
} compare_row;

typedef struct compare_result {
    compare_row *rows;
    size_t n;
    compare_options opt;
    int kind;             /* COMPARE_* of COMPARE_KINDS */
    unsigned family;      /* rows in the verdict */
    size_t runs[2];       /* the fewest runs a side has of a verdict row */
    size_t traces[2];     /* a side's traces: one each makes its marked runs the units */
    double best_p;        /* the smallest p-value those runs can give */
    unsigned runs_needed; /* runs a side that can reach alpha / family */
} compare_result;

/* Compare the sides into *res (to free with compare_free): OK or ENOMEM. A row only one side has is
   marked (compare_row.only): there is nothing to compare, so the outputs list it apart. */
int compare_sides(const compare_side *base, const compare_side *new_, const compare_options *o,
                  compare_result *res);
/* The same with one model a side. */
int compare_models(const ttft_tpot_model *base, const ttft_tpot_model *new_, const compare_options *o,
                   compare_result *res);
void compare_free(compare_result *res);
/* The options with the defaults: alpha 0.05, noise COMPARE_NOISE_PCT, phases out of the verdict. */
compare_options compare_defaults(void);

/* Whether a row's change is for the better: latency (ms) lower, throughput (tok/s) higher. */
int compare_better(const compare_row *r);

/* The verdict, what the table then details, e.g. "Verdict: a trade-off: new is better on
   output_throughput (+91.00%); worse on tpot (+112.00%) (alpha 0.05, Holm; 5 runs a side)" (html: the
   metric names escaped for HTML, no newline), then, when the runs cannot decide, how many they need. */
void compare_verdict(FILE *out, const compare_result *res, int html);
/* The table (text) or the JSON document (schema ttft_tpot/compare-v1): a row a metric both sides
   have, then the metrics only one side has ("only in base: ...", JSON "only_in_base" and
   "only_in_new"). The text opens with the verdict; the JSON carries it as "verdict". */
void compare_text(FILE *out, const compare_result *res);
void compare_json(FILE *out, const compare_result *res);

/* The headline of the HTML comparison of m[0] (base) and m[1] (new), for html_report (compare_html.c):
   the verdict, a row a metric both sides have, then the metrics only one side has. 0, or -1 when
   memory runs out. */
int compare_html(FILE *out, const ttft_tpot_model *const *m);

/* The statistics, for the tests. The two-sided p-value of the Mann-Whitney U test of sorted a and b
   (normal approximation, tie and continuity corrections: scipy's mannwhitneyu(use_continuity=True,
   method="asymptotic")), *u1 the count of pairs with b below a (ties a half). The exact two-sided
   p-value (2 min(P(W <= w), P(W >= w)) over every split of the pooled midranks, so ties too; as
   scipy's method="exact" without ties), or the asymptotic one past COMPARE_EXACT_MAX values. The
   smallest p-value any samples of these sizes could give (exact test). The Hodges-Lehmann shift, the
   median of every difference b - a. */
#define COMPARE_EXACT_MAX 40
double compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u1);
double compare_mann_whitney_exact(const double *a, size_t na, const double *b, size_t nb, double *u1);
double compare_min_p(size_t na, size_t nb);
double compare_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb);

#endif
