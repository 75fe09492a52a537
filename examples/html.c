/* html.c - the HTML report (html.h): one file, inline SVG and CSS, nothing fetched, no script. */
#include "html.h"

#include "compare.h"
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CDF_POINTS 1000 /* a CDF is drawn through this many quantiles at most */

/* The sides of a comparison in the legends (the header names their files). */
static const char *const side_names[2] = {"base", "new"};

/* Appends to note (len bytes), where side k's chart shows fewer of its samples than its figures
   count (the rest went on in a histogram when the storage was full), how many it shows. */
static void stored_note(char *note, size_t len, int n, int k, size_t shown, uint64_t total, const char *what)
{
    size_t at = strlen(note);
    if (shown < total)
        snprintf(note + at, len - at, "%s%s%sshows the %zu stored of %llu %s: the rest went on in a histogram when "
                 "the storage was full, and only the headline figures count them.", at ? " " : "",
                 n > 1 ? side_names[k] : "", n > 1 ? " " : "", shown, (unsigned long long)total, what);
}

/* Each request metric's label and name in words (TTFT_TPOT_METRICS). */
#define METRIC_NAMES(name, label, words, json, prom, help, le, under, note, cmp) {label, words},
static const struct {
    const char *label, *words;
} metric_names[TTFT_TPOT_METRIC_COUNT] = {TTFT_TPOT_METRICS(METRIC_NAMES)};
#undef METRIC_NAMES

/* Points of a chart: x and y, grown as they come. */
typedef struct pts {
    double *x, *y;
    size_t n, cap;
} pts;

static int pts_add(pts *p, double x, double y)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        double *nx = (double *)realloc(p->x, cap * sizeof *nx), *ny;
        if (!nx)
            return -1;
        p->x = nx;
        if (!(ny = (double *)realloc(p->y, cap * sizeof *ny)))
            return -1;
        p->y = ny;
        p->cap = cap;
    }
    p->x[p->n] = x;
    p->y[p->n++] = y;
    return 0;
}

static void pts_free(pts *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

/* A duration as the text report prints it: ns, us, ms or s. */
static const char *dur(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
    return buf;
}

/* ---- What the charts show ---------------------------------------------------------------------- */

/* The samples of a role in call order: (index among them, ms), steady and warmup apart. */
static int role_points(const ttft_tpot *c, int role, pts *steady, pts *warm)
{
    ttft_tpot_sample s;
    size_t i, k = 0;
    for (i = 0; ttft_tpot_sample_at(c, i, &s, NULL) == TTFT_TPOT_OK; i++) {
        if (ttft_tpot_phase_role(c, s.phase) != role)
            continue;
        if (pts_add(s.warmup ? warm : steady, (double)k++, (double)s.dur_ns / 1e6) != 0)
            return -1;
    }
    return 0;
}

/* TTFT by request in submit order (warmup requests apart), or by prefill call without requests. */
static int ttft_points(const ttft_tpot *c, pts *steady, pts *warm)
{
    ttft_tpot_request q;
    unsigned r;
    if (ttft_tpot_counts_of(c).requests == 0)
        return role_points(c, TTFT_TPOT_ROLE_PREFILL, steady, warm);
    for (r = 0; ttft_tpot_request_at(c, r, &q) == TTFT_TPOT_OK; r++)
        if (q.token_events && !q.truncated &&
            pts_add(q.warmup ? warm : steady, (double)r, (double)(q.first_ns - q.submit_ns) / 1e6) != 0)
            return -1;
    return 0;
}

/* The empirical CDF of v (sorted here) through at most CDF_POINTS quantiles; none for no value. */
static int cdf_points(double *v, size_t n, pts *out)
{
    size_t k, step = n / CDF_POINTS + 1;
    if (n == 0)
        return 0;
    compare_sort(v, n);
    for (k = 0; k < n; k += step)
        if (pts_add(out, v[k], (double)(k + 1) / (double)n) != 0)
            return -1;
    return n && pts_add(out, v[n - 1], 1.0);
}

/* The values of a CDF in ms: a request metric (which: TTFT_TPOT_METRIC_*), or without requests the
   stored steady samples of role (which < 0: -1 - role), *stored of them. */
static int cdf_of(const ttft_tpot *c, int which, pts *out, size_t *stored)
{
    size_t n = 0, i;
    uint64_t *v = NULL;
    double *ms;
    int rc = -1;
    if (which < 0) {
        pts steady = {0}, warm = {0};
        rc = role_points(c, -1 - which, &steady, &warm) == 0 ? cdf_points(steady.y, steady.n, out) : -1;
        *stored = steady.n;
        pts_free(&steady);
        pts_free(&warm);
        return rc < 0 ? -1 : 0;
    }
    if (ttft_tpot_metric_values(c, which, NULL, 0, &n) != TTFT_TPOT_OK || n == 0)
        return 0;
    v = (uint64_t *)malloc(n * sizeof *v);
    ms = (double *)malloc(n * sizeof *ms);
    if (v && ms && ttft_tpot_metric_values(c, which, v, n, &n) == TTFT_TPOT_OK) {
        for (i = 0; i < n; i++)
            ms[i] = (double)v[i] / 1e6;
        rc = cdf_points(ms, n, out) < 0 ? -1 : 0;
    }
    free(v);
    free(ms);
    return rc;
}

/* Each kernel phase's time inside steady decode steps, as a share of their time: a kernel span ends
   before the step that dispatched it, so the kernels since the last prefill, decode or e2e sample
   belong to the next one. share[p] per phase; 0 with no steady step. */
static int kernel_shares(const ttft_tpot *c, double *share)
{
    unsigned np = ttft_tpot_counts_of(c).phases, p, n = 0, *since = (unsigned *)malloc((np + 1) * sizeof *since);
    double *pend = (double *)calloc(np + 1, sizeof *pend), total = 0;
    unsigned char *listed = (unsigned char *)calloc(np + 1, 1);
    ttft_tpot_sample s;
    size_t i;
    if (!pend || !since || !listed) {
        free(pend);
        free(since);
        free(listed);
        return -1;
    }
    for (p = 0; p < np; p++)
        share[p] = 0;
    for (i = 0; ttft_tpot_sample_at(c, i, &s, NULL) == TTFT_TPOT_OK; i++) {
        int role = ttft_tpot_phase_role(c, s.phase), steady = role == TTFT_TPOT_ROLE_DECODE && !s.warmup;
        if (role == TTFT_TPOT_ROLE_KERNEL) {
            if (!listed[s.phase]) /* since[]: the kernels pending, so that a step visits only those */
                since[n++] = s.phase, listed[s.phase] = 1;
            pend[s.phase] += (double)s.dur_ns;
            continue;
        }
        for (; n > 0; n--) {
            share[since[n - 1]] += steady ? pend[since[n - 1]] : 0;
            pend[since[n - 1]] = 0;
            listed[since[n - 1]] = 0;
        }
        total += steady ? (double)s.dur_ns : 0;
    }
    for (p = 0; p < np; p++)
        share[p] = total > 0 ? share[p] / total : 0;
    free(pend);
    free(since);
    free(listed);
    return 0;
}

/* ---- Sections ---------------------------------------------------------------------------------- */

static void row(FILE *out, const char *what, const char *value, const char *note)
{
    fputs("<tr><th>", out);
    html_text(out, what);
    fputs("</th><td>", out);
    html_text(out, value);
    fputs("</td><td class=\"note\">", out);
    html_text(out, note);
    fputs("</td></tr>\n", out);
}

/* "p50 [lo, hi] / p90 / p99" of a statistics object. */
static const char *pcts(char *buf, size_t len, const ttft_tpot_stats *st)
{
    char a[32], b[32], d[32], lo[32], hi[32], ci[80] = "";
    if (st->has_ci[0])
        snprintf(ci, sizeof ci, " [%s, %s]", dur(lo, sizeof lo, (double)st->ci_ns[0][0]),
                 dur(hi, sizeof hi, (double)st->ci_ns[0][1]));
    snprintf(buf, len, "%s%s / %s / %s", dur(a, sizeof a, st->p50_ns), ci, dur(b, sizeof b, st->p90_ns),
             dur(d, sizeof d, st->p99_ns));
    return buf;
}

static void headline_requests(FILE *out, const ttft_tpot *c)
{
    ttft_tpot_requests q;
    char v[256], n[160], what[64];
    int k;
    if (ttft_tpot_requests_summary(c, &q) != TTFT_TPOT_OK || q.n == 0)
        return;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++) { /* every request metric, in the table's order */
        const ttft_tpot_stats *st = &q.metric[k];
        if (!st->n)
            continue;
        snprintf(what, sizeof what, "Request %s", metric_names[k].label);
        snprintf(n, sizeof n, "%s: p50 [95%% CI] / p90 / p99, n=%llu", metric_names[k].words, (unsigned long long)st->n);
        row(out, what, pcts(v, sizeof v, st), n);
    }
    if (q.has_window) {
        snprintf(v, sizeof v, "%.2f req/s, %.1f tok/s", q.request_rps, q.output_tok_s);
        row(out, "Serving throughput", v, "measured requests over their window");
    }
    if (q.has_goodput) {
        snprintf(v, sizeof v, "%llu of %llu (%.1f%%)", (unsigned long long)q.good_n, (unsigned long long)q.n,
                 100 * q.good_fraction);
        row(out, "Goodput", v, "requests within every SLO");
    }
}

/* Runs (ttft_tpot_run_begin): the mean, sd and CV of each run's TPOT p50 and output rate, the
   values --compare takes for runs. */
static void headline_runs(FILE *out, const ttft_tpot *c)
{
    static const int metric[2] = {COMPARE_TPOT, COMPARE_OUTPUT};
    char v[160], note[96];
    size_t i;
    int k;
    if (ttft_tpot_counts_of(c).outgrown)
        return; /* a histogram keeps no run */
    for (k = 0; k < 2; k++) {
        compare_values r = {NULL, 0};
        double sum = 0, sq = 0, mean, sd;
        if (compare_run_values(c, metric[k], &r) == TTFT_TPOT_OK && r.n >= 2) { /* one run has no spread */
            for (i = 0; i < r.n; i++)
                sum += r.v[i], sq += r.v[i] * r.v[i];
            mean = sum / (double)r.n;
            sd = sqrt(fmax(0, (sq - (double)r.n * mean * mean) / (double)(r.n - 1)));
            snprintf(v, sizeof v, k ? "%.1f +- %.1f tok/s" : "%.4g +- %.2g ms", mean, sd);
            if (mean > 0) /* a CV of a mean of 0 is 0/0: n/a, as the text report says */
                snprintf(note, sizeof note, "mean +- sd over %zu runs, CV %.1f%%%s", r.n, 100 * sd / mean,
                         sd / mean > 0.05 ? ": over 5%, compare runs, not one figure" : "");
            else
                snprintf(note, sizeof note, "mean +- sd over %zu runs, CV n/a", r.n);
            row(out, k ? "Runs: output throughput" : "Runs: TPOT p50", v, note);
        }
        free(r.v);
    }
}

static void headline_one(FILE *out, const ttft_tpot *c, const ttft_tpot_summary *sum)
{
    const ttft_tpot_summary s = *sum;
    ttft_tpot_counts k = ttft_tpot_counts_of(c);
    char v[256], n[128];
    fputs("<table>\n<tr><th>Metric</th><th>Value</th><th>Note</th></tr>\n", out);
    if (s.has_ttft_first)
        row(out, "TTFT, first request", dur(v, sizeof v, (double)s.ttft_first_ns),
            s.ttft_first_warmup ? "incl. one-time warmup" : "not flagged warmup");
    snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady prefills", (unsigned long long)s.ttft_steady.n);
    row(out, "TTFT, steady", s.ttft_steady.n ? pcts(v, sizeof v, &s.ttft_steady) : "n/a", n);
    snprintf(v, sizeof v, "%.1f tok/s", s.prefill_tok_s);
    row(out, "Prefill rate", s.has_prefill_tok_s ? v : "n/a", "prompt tokens / steady prefill time");
    snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady steps, %llu warmup excluded",
             (unsigned long long)s.tpot.n, (unsigned long long)s.tpot_excluded);
    row(out, "TPOT", s.tpot.n ? pcts(v, sizeof v, &s.tpot) : "n/a", n);
    snprintf(v, sizeof v, "%.1f tok/s", s.output_tok_s);
    row(out, "Output throughput", s.has_output_tok_s ? v : "n/a", "decode-only, steady");
    snprintf(v, sizeof v, "%.2f tok/s", s.e2e_tok_s);
    row(out, "e2e", s.has_e2e_tok_s ? v : "n/a", "incl. prefill and warmup: not a serving throughput");
    headline_runs(out, c);
    headline_requests(out, c);
    snprintf(v, sizeof v, "%llu dropped, %llu rejected, %llu phases in histograms", (unsigned long long)k.dropped,
             (unsigned long long)k.rejected, (unsigned long long)k.outgrown);
    row(out, "Losses", v, "as the text report details");
    fputs("</table>\n", out);
}

/* A side's median and its 95% interval, or n/a where the side has no value or too few. */
static void median_cell(FILE *out, const compare_row *r, int k)
{
    if ((k ? r->new_.n : r->base.n) == 0)
        fputs("<td>n/a</td>", out);
    else if (r->has_ci[k])
        fprintf(out, "<td>%.4g [%.4g, %.4g]</td>", r->median[k], r->ci[k][0], r->ci[k][1]);
    else
        fprintf(out, "<td>%.4g [too few for a CI]</td>", r->median[k]);
}

/* " Only in base: a, b." for the metrics only side `only` (1 base, 2 new) has. */
static void only_list(FILE *out, const compare_row *rows, size_t n, int only)
{
    size_t i;
    int any = 0;
    for (i = 0; i < n; i++)
        if (rows[i].only == only) {
            fputs(any++ ? ", " : only == 1 ? " Only in base: " : " Only in new: ", out);
            html_text(out, rows[i].metric);
        }
    if (any)
        fputc('.', out);
}

/* The comparison's table: one row a metric both sides have. */
static int headline_two(FILE *out, const ttft_tpot *const *c)
{
    compare_row *rows = NULL;
    size_t n = 0, i;
    if (compare_rows(c[0], c[1], 0.05, &rows, &n) != TTFT_TPOT_OK)
        return -1;
    fputs("<table>\n<tr><th>Metric</th><th>Base median [95% CI]</th><th>New median [95% CI]</th><th>Change</th>"
          "<th>p (Mann-Whitney)</th></tr>\n", out);
    for (i = 0; i < n; i++) {
        const compare_row *r = &rows[i];
        int k;
        if (r->only) /* one side has it: listed under the table */
            continue;
        fputs("<tr><th>", out);
        html_text(out, r->metric);
        fprintf(out, " (%s)</th>", r->unit);
        for (k = 0; k < 2; k++)
            median_cell(out, r, k);
        if (r->has_delta)
            fprintf(out, "<td>%+.1f%%</td>", r->delta_pct);
        else
            fputs("<td>n/a</td>", out);
        if (r->has_p)
            fprintf(out, "<td>%.3g%s</td></tr>\n", r->p_value, r->significant ? "" : " ~");
        else
            fputs("<td>too few samples</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">~: no significant difference at 0.05.", out);
    only_list(out, rows, n, 1);
    only_list(out, rows, n, 2);
    fputs("</p>\n", out);
    compare_free(rows, n);
    return 0;
}

/* Charts of per-sample series, each side steady (line or dots) and warmup (rings) apart; sum: each
   side's headline figures, which count the samples a chart of stored samples may not show. */
static int series_chart(FILE *out, const ttft_tpot *const *c, const ttft_tpot_summary *sum, int n, int ttft,
                        const svg_chart *chart)
{
    pts p[4];
    svg_series s[4];
    svg_chart ch = *chart;
    char label[4][160], note[640] = "";
    int k, m = 0, rc = 0;
    memset(p, 0, sizeof p);
    for (k = 0; k < n && rc == 0; k++) {
        rc = ttft ? ttft_points(c[k], &p[2 * k], &p[2 * k + 1])
                  : role_points(c[k], TTFT_TPOT_ROLE_DECODE, &p[2 * k], &p[2 * k + 1]);
        if (!ttft) /* TTFT by request reads the requests: they are all kept */
            stored_note(note, sizeof note, n, k, p[2 * k].n + p[2 * k + 1].n, sum[k].tpot.n + sum[k].tpot_excluded,
                        "decode steps");
        else if (ttft_tpot_counts_of(c[k]).requests == 0)
            stored_note(note, sizeof note, n, k, p[2 * k].n + p[2 * k + 1].n,
                        sum[k].ttft_steady.n + sum[k].ttft_steady.warmup_n, "prefills");
    }
    ch.note = note;
    for (k = 0; k < 2 * n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        snprintf(label[m], sizeof label[m], "%s%s%s", n > 1 ? side_names[k / 2] : "", n > 1 ? ": " : "",
                 k % 2 ? "warmup" : "steady");
        s[m].name = label[m];
        s[m].color = svg_colors[k / 2];
        s[m].x = p[k].x;
        s[m].y = p[k].y;
        s[m].n = p[k].n;
        s[m].kind = k % 2 || ttft ? SVG_DOTS : SVG_LINE;
        s[m++].hollow = k % 2;
    }
    if (rc == 0 && m)
        svg_plot(out, &ch, s, m);
    else if (rc == 0)
        fputs("<p class=\"note\">No sample of this kind.</p>\n", out);
    for (k = 0; k < 4; k++)
        pts_free(&p[k]);
    return rc;
}

/* Whether a chart's values, steady and warmup of every side together, spread over 20x: a log scale. */
static int spread_log(const ttft_tpot *const *c, int n, int ttft)
{
    pts all = {0};
    int k, rc = 0, want;
    for (k = 0; k < n && rc == 0; k++)
        rc = ttft ? ttft_points(c[k], &all, &all) : role_points(c[k], TTFT_TPOT_ROLE_DECODE, &all, &all);
    want = rc == 0 && svg_wants_log(all.y, all.n);
    pts_free(&all);
    return want;
}

static int cdf_chart(FILE *out, const ttft_tpot *const *c, const ttft_tpot_summary *sum, int n, int which,
                     const char *title)
{
    pts p[2];
    svg_series s[2];
    svg_chart ch;
    char note[640] = "";
    size_t stored;
    int k, m = 0, rc = 0;
    memset(p, 0, sizeof p);
    for (k = 0; k < n && rc == 0; k++)
        if ((rc = cdf_of(c[k], which, &p[k], &stored)) == 0 && which < 0) /* stored samples, not requests */
            stored_note(note, sizeof note, n, k, stored,
                        which == -1 - TTFT_TPOT_ROLE_DECODE ? sum[k].tpot.n : sum[k].ttft_steady.n,
                        which == -1 - TTFT_TPOT_ROLE_DECODE ? "steady decode steps" : "steady prefills");
    for (k = 0; k < n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        s[m].name = n > 1 ? side_names[k] : "all";
        s[m].color = svg_colors[k];
        s[m].x = p[k].x;
        s[m].y = p[k].y;
        s[m].n = p[k].n;
        s[m].kind = SVG_STEP;
        s[m++].hollow = 0;
    }
    ch.title = title;
    ch.note = note;
    ch.xlabel = "latency (ms)";
    ch.ylabel = "fraction at or below";
    ch.logy = 0;
    ch.xint = 0;
    if (rc == 0 && m)
        svg_plot(out, &ch, s, m);
    for (k = 0; k < 2; k++)
        pts_free(&p[k]);
    return rc;
}

/* A CDF a request metric (TTFT_TPOT_METRICS), titled by its name; without requests, the steady samples
   of the API spans. */
static int cdf_charts(FILE *out, const ttft_tpot *const *c, const ttft_tpot_summary *sum, int n)
{
    char title[96];
    int k, rc = 0;
    if (ttft_tpot_counts_of(c[0]).requests == 0)
        return cdf_chart(out, c, sum, n, -1 - TTFT_TPOT_ROLE_PREFILL, "Steady TTFT (prefill samples): CDF") ||
               cdf_chart(out, c, sum, n, -1 - TTFT_TPOT_ROLE_DECODE, "Steady TPOT (decode steps): CDF");
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT && rc == 0; k++) {
        snprintf(title, sizeof title, "%s: CDF", metric_names[k].words);
        title[0] = (char)(title[0] >= 'a' && title[0] <= 'z' ? title[0] - 'a' + 'A' : title[0]);
        rc = cdf_chart(out, c, sum, n, k, title);
    }
    return rc;
}

/* Each kernel phase's share of steady decode time, a bar a side. */
static int share_chart(FILE *out, const ttft_tpot *const *c, int n)
{
    unsigned np = ttft_tpot_counts_of(c[0]).phases, p, m = 0;
    const char **labels = (const char **)calloc(np + 1, sizeof *labels);
    double *share[2] = {NULL, NULL}, *shown[2] = {NULL, NULL};
    int k, rc = labels ? 0 : -1;
    for (k = 0; k < n && rc == 0; k++) {
        share[k] = (double *)calloc(ttft_tpot_counts_of(c[k]).phases + 1, sizeof **share);
        shown[k] = (double *)calloc(np + 1, sizeof **shown);
        rc = share[k] && shown[k] ? kernel_shares(c[k], share[k]) : -1;
    }
    for (p = 0; p < np && rc == 0; p++) { /* the base's kernels, found by name on the other side */
        if (ttft_tpot_phase_role(c[0], (int)p) != TTFT_TPOT_ROLE_KERNEL || share[0][p] <= 0)
            continue;
        labels[m] = ttft_tpot_phase_name(c[0], (int)p);
        for (k = 0; k < n; k++) {
            int q = k ? ttft_tpot_find_phase(c[k], labels[m]) : (int)p;
            shown[k][m] = q >= 0 ? share[k][q] : 0;
        }
        m++;
    }
    if (rc == 0 && m)
        svg_bars(out, "Each kernel's share of steady decode time (the rest: outside kernel spans)", labels, m,
                 (const double *const *)shown, side_names, n);
    else if (rc == 0)
        fputs("<p class=\"note\">No kernel span inside a steady decode step.</p>\n", out);
    for (k = 0; k < 2; k++) {
        free(share[k]);
        free(shown[k]);
    }
    free((void *)labels);
    return rc;
}

/* The text report, escaped, for everything the charts leave out. */
static int text_report(FILE *out, const ttft_tpot *c, const char *name)
{
    FILE *t = tmpfile();
    int ch;
    if (!t)
        return -1;
    if (ttft_tpot_report(c, t) != TTFT_TPOT_OK) {
        fclose(t);
        return -1;
    }
    rewind(t);
    fputs("<details><summary>Text report: ", out);
    html_text(out, name);
    fputs("</summary><pre>", out);
    while ((ch = fgetc(t)) != EOF) {
        char one[2] = {(char)ch, '\0'};
        html_text(out, one);
    }
    fputs("</pre></details>\n", out);
    fclose(t);
    return 0;
}

/* ---- The document ------------------------------------------------------------------------------ */

static const char style[] =
    "body{font:15px/1.45 sans-serif;max-width:960px;margin:1.5em auto;padding:0 1em;color:#111;background:#fff}"
    "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}th,td{padding:3px 10px;border-bottom:1px solid #ddd;"
    "text-align:left;vertical-align:top}td{font-variant-numeric:tabular-nums}"
    ".note{color:#555;font-size:.9em;font-weight:normal}"
    "figure{margin:.8em 0}figcaption{font-weight:bold;margin-bottom:.2em}svg{width:100%;height:auto}"
    "svg text{font:11px sans-serif;fill:#222}.tick{font-size:11px}.axis{font-size:12px}.legend{font-size:12px}"
    ".grid{stroke:#e3e3e3;stroke-width:1}.frame{fill:none;stroke:#888}pre{font-size:12px;overflow-x:auto}"
    "@media print{body{max-width:none;margin:0}figure,table{break-inside:avoid}details>pre{display:block}}";

static void head(FILE *out, const char *const *names, int n)
{
    int k;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>ttft_tpot %s</title>\n"
                 "<style>%s</style></head>\n<body>\n<h1>ttft_tpot %s</h1>\n<p class=\"note\">",
            n > 1 ? "comparison" : "report", style, n > 1 ? "comparison" : "report");
    for (k = 0; k < n; k++) {
        fputs(k ? "; new: " : n > 1 ? "base: " : "", out);
        html_text(out, names[k]);
    }
    fprintf(out, " &middot; ttft_tpot %s &middot; definitions as in the text report and the README</p>\n",
            TTFT_TPOT_VERSION);
}

int html_report(FILE *out, const ttft_tpot *const *c, const char *const *names, int n)
{
    svg_chart steps = {"Decode step time by step (warmup steps as rings)", "decode step (call order)",
                       "step time (ms)", NULL, 0, 1};
    svg_chart ttft = {"TTFT by request, in submit order (warmup requests as rings)", "request (submit order)",
                      "TTFT (ms)", NULL, 0, 1};
    ttft_tpot_summary sum[2]; /* each side's headline figures, computed once */
    int k, rc = 0;
    for (k = 0; k < n && rc == 0; k++)
        rc = ttft_tpot_summarize(c[k], &sum[k]) == TTFT_TPOT_OK ? 0 : -1;
    if (rc)
        return -1;
    head(out, names, n);
    fputs("<h2>Headline</h2>\n", out);
    rc = n > 1 ? headline_two(out, c) : (headline_one(out, c[0], &sum[0]), 0);
    steps.logy = spread_log(c, n, 0);
    ttft.logy = spread_log(c, n, 1);
    if (ttft_tpot_counts_of(c[0]).requests == 0) {
        ttft.title = "Prefill time by call: each one a request's TTFT (warmup as rings)";
        ttft.xlabel = "prefill (call order)";
    }
    fputs("<h2>Warmup: decode steps and TTFT</h2>\n", out);
    rc = rc ? rc : series_chart(out, c, sum, n, 0, &steps);
    rc = rc ? rc : series_chart(out, c, sum, n, 1, &ttft);
    fputs("<h2>Latency distributions</h2>\n", out);
    rc = rc ? rc : cdf_charts(out, c, sum, n);
    fputs("<h2>Where steady decode time goes</h2>\n", out);
    rc = rc ? rc : share_chart(out, c, n);
    fputs("<h2>Text report</h2>\n", out);
    for (k = 0; k < n && rc == 0; k++)
        rc = text_report(out, c[k], names[k]);
    fputs("</body></html>\n", out);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
