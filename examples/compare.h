/* compare.h - ttft_tpot_report --compare: is the new side faster than the base side? For each metric
   both sides have: the medians with their 95% intervals, the change, the two-sided Mann-Whitney U
   test, and a bootstrap interval of the change of the p99. */
#ifndef COMPARE_H
#define COMPARE_H

#include "ttft_tpot.h"

#include <stdio.h>

/* The values of one metric on one side, in its unit (ms, or tok/s), sorted ascending. */
typedef struct compare_values {
    double *v;
    size_t n;
} compare_values;

/* The sample metrics: the first and the steady TTFT, TPOT, E2E (of e2e samples, when neither side has
   requests), output throughput; then each request metric of the library's table (TTFT_TPOT_METRICS),
   named by its COMPARE column; then a phase. */
enum { COMPARE_TTFT_FIRST, COMPARE_TTFT_STEADY, COMPARE_TPOT, COMPARE_E2E, COMPARE_OUTPUT, COMPARE_REQUEST };

/* One row of the comparison. */
typedef struct compare_row {
    char metric[TTFT_TPOT_NAME_MAX + 8]; /* ttft_first, ttft_steady, tpot, e2e, output_throughput, a
                                            request metric (requests.ttft ... itl, e2e), phase:NAME */
    const char *unit;                   /* "ms" or "tok/s" */
    compare_values base, new_;
    double median[2], ci[2][2]; /* base, new */
    int has_ci[2];
    int per_run; /* the values are one a run (ttft_tpot_run_begin), not one a sample */
    int only;    /* 0: both sides have the metric; 1: only the base side, 2: only the new side */
    int has_delta, has_p, significant, too_few, has_p99_ci;
    double delta_pct, p_value, p99_ci[2];
} compare_row;

/* The rows of every metric either side's model has (computed whole, its collector alive), into *rows
   (to free with compare_free): OK or ENOMEM. alpha: the significance level. A row only one side has is
   marked (compare_row.only): there is nothing to compare, so the outputs list it apart. */
int compare_rows(const ttft_tpot_model *base, const ttft_tpot_model *new_, double alpha, compare_row **rows,
                 size_t *n);
void compare_free(compare_row *rows, size_t n);

/* The table (text) or the JSON document (schema ttft_tpot/compare-v1): a row a metric both sides
   have, then the metrics only one side has ("only in base: ...", JSON "only_in_base" and
   "only_in_new"). A row is significant when its two-sided p is below alpha and samples of its sizes
   can reach that (not too_few). The text opens with the verdict (compare_verdict); a JSON row's
   "better" is true or false for a significant change (compare_better), null otherwise. */
void compare_text(FILE *out, const compare_row *rows, size_t n, double alpha);

/* Whether a significant row's change is for the better: latency (ms) falling, throughput (tok/s)
   rising. */
int compare_better(const compare_row *r);

/* The verdict, one line, what the table then details: "Verdict: a regression: new is worse on tpot
   (+5.00%, significant); better on ...; no significant change on K others (alpha A)", or "Verdict: no
   significant difference ..." (html: the metric names escaped for HTML, no newline). */
void compare_verdict(FILE *out, const compare_row *rows, size_t n, double alpha, int html);
void compare_json(FILE *out, const compare_row *rows, size_t n, double alpha);

/* The headline of the HTML comparison of m[0] (base) and m[1] (new), for html_report (compare_html.c):
   a row a metric both sides have, at alpha 0.05, then the metrics only one side has. 0, or -1 when
   memory runs out. */
int compare_html(FILE *out, const ttft_tpot_model *const *m);

/* The statistics, for the tests: the two-sided p-value of the Mann-Whitney U test of sorted a and b
   (normal approximation, tie and continuity corrections: scipy's mannwhitneyu(use_continuity=True,
   method="asymptotic")), and the smallest p-value any samples of these sizes could give (exact test). */
double compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u1);
double compare_min_p(size_t na, size_t nb);

#endif
