/* html.c - the HTML report (html.h): one file, inline SVG and CSS, nothing fetched, no script. */
#include "html.h"

#include "svg.h"

#include <math.h> /* HUGE_VAL */
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
#define METRIC_NAMES(name, label, words, ...) {label, words},
static const struct {
    const char *label, *words;
} metric_names[TTFT_TPOT_METRIC_COUNT] = {TTFT_TPOT_METRICS(METRIC_NAMES)};
#undef METRIC_NAMES

/* Points of a chart: x and y, grown as they come. */
typedef struct pts {
    double *x, *y;
    size_t n, cap;
    size_t want; /* the room its first growth takes, where how many will come is known (0: 256) */
} pts;

/* Room for cap points at least: 0 or -1. */
static int pts_reserve(pts *p, size_t cap)
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
static int pts_grow(pts *p)
{
    return pts_reserve(p, p->cap ? 2 * p->cap : p->want > 256 ? p->want : 256);
}

static inline int pts_add(pts *p, double x, double y)
{
    if (p->n == p->cap && pts_grow(p) != 0)
        return -1;
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

#define dur svg_dur /* durations as the text report prints them */

/* ---- What the charts show ---------------------------------------------------------------------- */

/* The decode and prefill samples in call order, in one pass: (index among their role's samples, ms).
   A steady decode sample goes to line[its phase] (line NULL: to steady; a NULL entry: nowhere), a
   warmup one to warm (NULL: nowhere); a steady prefill sample to pre_steady, a warmup one to pre_warm
   (both NULL: nowhere). */
static int role_points(const ttft_tpot_model *m, pts *const *line, pts *steady, pts *warm, pts *pre_steady,
                       pts *pre_warm)
{
    size_t i, k = 0, kp = 0, most = m->head.samples;
    unsigned p;
    for (p = 0; p < m->phases; p++) { /* room ahead: the samples each phase's figures count (at most all) */
        const ttft_tpot_phase_figures *f = &m->phase[p];
        int dec = f->role == TTFT_TPOT_ROLE_DECODE, pre = f->role == TTFT_TPOT_ROLE_PREFILL;
        pts *to = dec ? (line ? line[p] : steady) : pre ? pre_steady : NULL, *tw = dec ? warm : pre ? pre_warm : NULL;
        if (to)
            to->want = to->want + f->steady.n < most ? to->want + (size_t)f->steady.n : most;
        if (tw)
            tw->want = tw->want + f->all.warmup_n < most ? tw->want + (size_t)f->all.warmup_n : most;
    }
    for (i = 0; i < m->head.samples; i++) {
        const ttft_tpot_sample *s = &m->samples[i];
        int role = m->phase[s->phase].role;
        pts *to = s->warmup ? warm : line ? line[s->phase] : steady;
        if (role == TTFT_TPOT_ROLE_DECODE) {
            if (to && pts_add(to, (double)k, (double)s->dur_ns / 1e6) != 0)
                return -1;
            k++;
        } else if (role == TTFT_TPOT_ROLE_PREFILL && pre_steady) {
            if (pts_add(s->warmup ? pre_warm : pre_steady, (double)kp++, (double)s->dur_ns / 1e6) != 0)
                return -1;
        }
    }
    return 0;
}

/* A side's prefill samples, gathered in the pass over its decode steps for the TTFT chart: steady in
   p[0], warmup in p[1] (done: they were). */
typedef struct prefills {
    pts p[2];
    int done;
} prefills;

/* Where each run begins (after the axis's first point) on a role's axis (its samples' call order): up to max marks,
   labelled "run 2", "run 3", ...; returns how many. */
static int run_marks(const ttft_tpot_model *m, int role, svg_mark *mk, char (*label)[16], int max)
{
    size_t first = 0, end, i, k = 0;
    unsigned r = 0;
    int n = 0, more = ttft_tpot_run_at(m->collector, 0, &first, &end) == TTFT_TPOT_OK; /* run r: first */
    for (i = 0; more && i < m->head.samples && n < max; i++) { /* the samples up to the last run's start */
        for (; n < max && more && first <= i; more = ttft_tpot_run_at(m->collector, ++r, &first, &end) == TTFT_TPOT_OK) {
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
static int ttft_points(const ttft_tpot_model *m, prefills *pf, pts *steady, pts *warm)
{
    ttft_tpot_request q;
    unsigned r;
    if (m->requests.seen == 0 && pf->done) {
        *steady = pf->p[0];
        *warm = pf->p[1];
        memset(pf->p, 0, sizeof pf->p);
        return 0;
    }
    if (m->requests.seen == 0)
        return role_points(m, NULL, NULL, NULL, steady, warm);
    for (r = 0; ttft_tpot_request_at(m->collector, r, &q) == TTFT_TPOT_OK; r++)
        if (q.token_events && !q.truncated &&
            pts_add(q.warmup ? warm : steady, (double)r, (double)(q.first_ns - q.submit_ns) / 1e6) != 0)
            return -1;
    return 0;
}

/* The CDF of a set of the library's (TTFT_TPOT_SET_*) in ms through at most CDF_POINTS of its values,
   and *values: how many it has. */
static int cdf_of(const ttft_tpot_model *m, int set, pts *out, size_t *values)
{
    uint64_t x[CDF_POINTS + 1];
    double y[CDF_POINTS + 1];
    size_t n, i;
    if (ttft_tpot_cdf(m->collector, set, CDF_POINTS, x, y, &n, values) != TTFT_TPOT_OK)
        return -1;
    for (i = 0; i < n; i++)
        if (pts_add(out, (double)x[i] / 1e6, y[i]) != 0)
            return -1;
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

/* The chosen percentiles (config.percentiles) of a statistics object, "2.74 ms / 4.02 ms", and their
   names, "p50 / p99.9". */
static void picks(char *buf, size_t len, char *names, size_t names_len, const ttft_tpot_stats *st)
{
    char a[32], b[16];
    unsigned k;
    buf[0] = names[0] = '\0';
    for (k = 0; k < st->pick_n; k++) {
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", k ? " / " : "", dur(a, sizeof a, (double)st->pick_ns[k]));
        snprintf(names + strlen(names), names_len - strlen(names), "%s%s", k ? " / " : "",
                 ttft_tpot_percentile_name(b, sizeof b, st->pick_pm[k]));
    }
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

static void headline_requests(FILE *out, const ttft_tpot_model *m)
{
    const ttft_tpot_requests *q = &m->requests;
    char v[256], n[256], what[64], names[10 * TTFT_TPOT_MAX_PERCENTILES];
    int k;
    if (q->n == 0)
        return;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++) { /* every request metric, in the table's order */
        const ttft_tpot_stats *st = &q->metric[k];
        if (!st->n)
            continue;
        snprintf(what, sizeof what, "Request %s", metric_names[k].label);
        if (st->pick_n) { /* the chosen percentiles, as the text shows them */
            picks(v, sizeof v, names, sizeof names, st);
            snprintf(n, sizeof n, "%s: %s, n=%llu", metric_names[k].words, names, (unsigned long long)st->n);
            row(out, what, v, n);
            continue;
        }
        snprintf(n, sizeof n, "%s: p50 [95%% CI] / p90 / p99, n=%llu", metric_names[k].words, (unsigned long long)st->n);
        row(out, what, pcts(v, sizeof v, st), n);
    }
    if (q->has_window) {
        snprintf(v, sizeof v, "%.2f req/s, %.1f tok/s", q->request_rps, q->output_tok_s);
        row(out, "Serving throughput", v, "measured requests over their window");
    }
    if (q->has_max_tok_s) {
        snprintf(v, sizeof v, "%.1f tok/s, %llu requests", q->max_output_tok_s,
                 (unsigned long long)q->max_concurrent_requests);
        snprintf(n, sizeof n, "output tok/s of the busiest %s slice; the most requests in flight at once "
                 "(from submit to last token)", dur(what, sizeof what, (double)m->slice_ns));
        row(out, "Peak", v, n);
    }
    if (q->has_goodput) {
        snprintf(v, sizeof v, "%llu of %llu (%.1f%%)", (unsigned long long)q->good_n, (unsigned long long)q->n,
                 100 * q->good_fraction);
        row(out, "Goodput", v, "requests within every SLO");
    }
}

/* The first TTFT's note: warmup only when it was slower (ttft_first_slower), as the text says it. */
static const char *first_note(const ttft_tpot_summary *s)
{
    if (!s->ttft_first_warmup)
        return "not flagged warmup";
    return s->ttft_first_slower < 0 ? "flagged warmup; no steady prefill to compare"
           : s->ttft_first_slower   ? "incl. one-time warmup"
                                    : "flagged warmup, yet no slower than steady";
}

/* Runs (ttft_tpot_run_begin): the mean, sd and CV of each run's TPOT p50 and output rate, the
   values --compare takes for runs. */
static void headline_runs(FILE *out, const ttft_tpot_model *m)
{
    static const int figure[2] = {TTFT_TPOT_RUN_TPOT, TTFT_TPOT_RUN_TOK_S};
    char v[160], note[160], over[64] = "";
    int k;
    snprintf(over, sizeof over, ": over %g%%, compare runs, not one figure", 100 * TTFT_TPOT_RUN_CV_FLAG);
    for (k = 0; k < 2; k++) {
        const ttft_tpot_run_figure *f = &m->runs.fig[figure[k]];
        double unit = k ? 1 : 1e6; /* TPOT in ms */
        if (f->n < 2) /* one run has no spread */
            continue;
        snprintf(v, sizeof v, k ? "%.1f +- %.1f tok/s" : "%.4g +- %.2g ms", f->mean / unit, f->sd / unit);
        if (f->has_cv) /* a CV of a mean of 0 is 0/0: n/a, as the text report says */
            snprintf(note, sizeof note, "mean +- sd over %u runs, CV %.1f%%%s", f->n, 100 * f->cv,
                     f->varies ? over : "");
        else
            snprintf(note, sizeof note, "mean +- sd over %u runs, CV n/a", f->n);
        row(out, k ? "Runs: output throughput" : "Runs: TPOT p50", v, note);
    }
}

static void headline_one(FILE *out, const ttft_tpot_model *m)
{
    const ttft_tpot_summary *s = &m->head;
    char v[256], n[128];
    fputs("<table>\n<tr><th>Metric</th><th>Value</th><th>Note</th></tr>\n", out);
    headline_requests(out, m); /* a serving run leads with its requests; rows without a source are left out */
    if (s->has_ttft_first) {
        row(out, "TTFT, first request", dur(v, sizeof v, (double)s->ttft_first_ns), first_note(s));
        snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady prefills",
                 (unsigned long long)s->ttft_steady.n);
        row(out, "TTFT, steady", s->ttft_steady.n ? pcts(v, sizeof v, &s->ttft_steady) : "n/a", n);
    }
    snprintf(v, sizeof v, "%.1f tok/s", s->prefill_tok_s);
    if (s->ttft_steady.n)
        row(out, "Prefill rate", s->has_prefill_tok_s ? v : "n/a", "prompt tokens / steady prefill time");
    snprintf(n, sizeof n, "p50 [95%% CI] / p90 / p99 of n=%llu steady steps, %llu warmup excluded",
             (unsigned long long)s->tpot.n, (unsigned long long)s->tpot_excluded);
    if (s->tpot.n || s->tpot_excluded) {
        row(out, "TPOT", s->tpot.n ? pcts(v, sizeof v, &s->tpot) : "n/a", n);
        snprintf(v, sizeof v, "%.1f tok/s", s->output_tok_s);
        row(out, "Output throughput", s->has_output_tok_s ? v : "n/a", "decode-only, steady");
    }
    snprintf(v, sizeof v, "%.2f tok/s", s->e2e_tok_s);
    if (s->e2e.n)
        row(out, "e2e", s->has_e2e_tok_s ? v : "n/a", "incl. prefill and warmup: not a serving throughput");
    headline_runs(out, m);
    snprintf(v, sizeof v, "%llu dropped, %llu rejected, %llu phases in histograms",
             (unsigned long long)m->losses.dropped, (unsigned long long)m->losses.rejected,
             (unsigned long long)m->losses.outgrown);
    row(out, "Losses", v, "as the text report details");
    fputs("</table>\n", out);
}

#define MAX_LINES 6 /* a chart's series: one colour each */

/* A chart over counted x (steps, requests), its other fields 0. */
static svg_chart chart_on_steps(const char *title, const char *xlabel, const char *ylabel)
{
    svg_chart ch;
    memset(&ch, 0, sizeof ch);
    ch.title = title;
    ch.xlabel = xlabel;
    ch.ylabel = ylabel;
    ch.xint = 1;
    return ch;
}

/* A chart's series as they are gathered: their points, names and how each is drawn. */
typedef struct lines {
    pts p[MAX_LINES];
    svg_series s[MAX_LINES];
    char name[MAX_LINES][96];
    int n;
} lines;

/* Series k of l (its points gathered in l->p[k]) named and drawn so; one without points is dropped. */
static void line_set(lines *l, int k, const char *name, const char *color, int kind, int hollow)
{
    snprintf(l->name[k], sizeof l->name[k], "%s", name);
    l->s[k].name = l->name[k];
    l->s[k].color = color;
    l->s[k].kind = kind;
    l->s[k].hollow = hollow;
}

/* The series with points, in order, into s; returns how many; *total: their points. */
static int lines_drawn(lines *l, svg_series *s, size_t *total)
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

static void lines_free(lines *l)
{
    int k;
    for (k = 0; k < MAX_LINES; k++)
        pts_free(&l->p[k]);
}

/* A chart with one value between its series: the value alone, not an empty frame with one dot. */
static void single_value(FILE *out, const char *title, const char *value, const char *what)
{
    fputs("<figure><figcaption>", out);
    html_text(out, title);
    fputs("</figcaption>\n<p class=\"single\">One value: <b>", out);
    html_text(out, value);
    fputs("</b> ", out);
    html_text(out, what);
    fputs("</p></figure>\n", out);
}

/* Each series' largest y (0 at least) and smallest positive y (HUGE_VAL: none), in one pass a series:
   what max_y and svg_wants_log would each find in a pass of their own. */
static void y_extents(const svg_series *s, int ns, double *top, double *low)
{
    size_t i;
    int k;
    for (k = 0; k < ns; k++) {
        double mx = 0, lo = HUGE_VAL;
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
static double max_y(const svg_series *s, int ns, const double *top, int h)
{
    double mx = 0;
    int k;
    for (k = 0; k < ns; k++)
        mx = s[k].hollow == h && top[k] > mx ? top[k] : mx;
    return mx;
}

/* Values in ms divided by scale, in place. */
static void scale_by(svg_series *s, int ns, double scale, int on_x)
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
static void sample_chart(FILE *out, svg_chart *ch, svg_series *s, int ns, size_t total, const char *ylabel)
{
    char yl[128], v[32], note[800];
    double top[MAX_LINES], low[MAX_LINES], steady, warm, scale, lo = HUGE_VAL, hi = 0;
    int clip, k;
    y_extents(s, ns, top, low);
    steady = max_y(s, ns, top, 0);
    warm = max_y(s, ns, top, 1);
    clip = steady > 0 && warm > 2 * steady;
    if (total == 1) {
        for (k = 0; !s[k].n; k++)
            ;
        single_value(out, ch->title, dur(v, sizeof v, s[k].y[0] * 1e6), s[k].hollow ? "(warmup)" : "");
        return;
    }
    ch->yunit = svg_ms_unit(clip ? steady : steady > warm ? steady : warm, &scale);
    scale_by(s, ns, scale, 0);
    ch->yclip = clip ? steady / scale * 1.1 : 0;
    if (clip) {
        snprintf(note, sizeof note, "%s%sWarmup values above %s are off the scale, marked with triangles on the top "
                 "edge.", ch->note ? ch->note : "", ch->note && *ch->note ? " " : "", dur(v, sizeof v, steady * 1.1e6));
        ch->note = note;
    }
    for (k = 0; k < ns; k++) /* the log choice on the values shown: the steady ones when clipped */
        if (!clip || !s[k].hollow) {
            lo = low[k] < lo ? low[k] : lo;
            hi = top[k] > hi ? top[k] : hi;
        }
    if (scale != 1 && lo < HUGE_VAL) /* as scale_by divided them: dividing keeps the order */
        lo /= scale;
    hi /= scale;
    ch->logy = lo < HUGE_VAL && hi > 20 * lo; /* svg_wants_log's test: a spread over 20x */
    snprintf(yl, sizeof yl, "%s (%s)", ylabel, ch->yunit);
    ch->ylabel = yl;
    svg_plot(out, ch, s, ns);
}

/* The decode phases' steady steps, a line each (batch sizes, say): with more than MAX_LINES - 1, the
   first MAX_LINES - 2 by report order and the rest as one; the warmup steps as rings, last. All in one
   pass over the samples, which gathers the prefills for the TTFT chart too (pf NULL: not). */
static int decode_lines(const ttft_tpot_model *m, lines *l, prefills *pf)
{
    pts **line = (pts **)calloc(m->phases + 1, sizeof *line); /* each phase's line (NULL: none) */
    unsigned *dp = (unsigned *)calloc(m->phases + 1, sizeof *dp), q, nd = 0, i, own;
    int rc = line && dp ? 0 : -1, warm;
    for (q = 0; rc == 0 && q < m->phases; q++)
        if (m->phase[m->order[q]].role == TTFT_TPOT_ROLE_DECODE && m->phase[m->order[q]].steady.n)
            dp[nd++] = m->order[q];
    own = nd <= MAX_LINES - 1 ? nd : MAX_LINES - 2;
    warm = (int)own + (own < nd); /* the warmup rings come last in the legend */
    line_set(l, warm, "warmup", svg_colors[0], SVG_DOTS, 1);
    l->n = warm + 1;
    for (i = 0; rc == 0 && i <= own && i < nd; i++) { /* a phase a line; past own, the rest as one */
        for (q = i; q < (i < own ? i + 1 : nd); q++)
            line[dp[q]] = &l->p[i];
        line_set(l, (int)i, i == own ? "other decode phases" : nd > 1 ? m->phase[dp[i]].name : "steady", svg_colors[i],
                 SVG_LINE, 0);
    }
    if (rc == 0) /* without a decode phase: the warmup steps only */
        rc = role_points(m, line, NULL, &l->p[warm], pf ? &pf->p[0] : NULL, pf ? &pf->p[1] : NULL);
    if (rc == 0 && pf)
        pf->done = 1;
    free(line);
    free(dp);
    return rc;
}

/* Charts of per-sample series, each side steady (line or dots) and warmup (rings) apart (one report's
   decode phases a line each); a note where a chart of stored samples shows fewer than the figures
   count; run boundaries on a step axis. */
static int series_chart(FILE *out, const ttft_tpot_model *const *m, int n, int ttft, const svg_chart *chart,
                        prefills *pf)
{
    lines l;
    svg_series s[MAX_LINES];
    svg_mark mk[8];
    svg_chart ch = *chart;
    char note[640] = "", name[64], runs[8][16];
    size_t total;
    int k, j, rc = 0;
    memset(&l, 0, sizeof l);
    if (!ttft && n == 1) /* the prefills too, when the TTFT chart shows them */
        rc = decode_lines(m[0], &l, m[0]->requests.seen == 0 ? &pf[0] : NULL);
    for (k = 0; k < n && rc == 0 && (ttft || n > 1); k++) {
        const ttft_tpot_summary *h = &m[k]->head;
        int pre = m[k]->requests.seen == 0;
        rc = ttft ? ttft_points(m[k], &pf[k], &l.p[2 * k], &l.p[2 * k + 1])
                  : role_points(m[k], NULL, &l.p[2 * k], &l.p[2 * k + 1], pre ? &pf[k].p[0] : NULL,
                                pre ? &pf[k].p[1] : NULL);
        pf[k].done |= !ttft && rc == 0 && pre;
        for (j = 0; j < 2; j++) {
            snprintf(name, sizeof name, "%s%s%s", n > 1 ? side_names[k] : "", n > 1 ? ": " : "", j ? "warmup" : "steady");
            line_set(&l, 2 * k + j, name, svg_colors[k], j || ttft ? SVG_DOTS : SVG_LINE, j);
        }
        l.n = 2 * k + 2;
        if (!ttft) /* TTFT by request reads the requests: they are all kept */
            stored_note(note, sizeof note, n, k, l.p[2 * k].n + l.p[2 * k + 1].n, h->tpot.n + h->tpot_excluded,
                        "decode steps");
        else if (m[k]->requests.seen == 0)
            stored_note(note, sizeof note, n, k, l.p[2 * k].n + l.p[2 * k + 1].n,
                        h->ttft_steady.n + h->ttft_steady.warmup_n, "prefills");
    }
    j = lines_drawn(&l, s, &total);
    if (!ttft && n == 1) /* every point drawn is a stored decode step */
        stored_note(note, sizeof note, 1, 0, total, m[0]->head.tpot.n + m[0]->head.tpot_excluded, "decode steps");
    ch.note = note;
    if (n == 1 && (!ttft || m[0]->requests.seen == 0)) { /* a step axis */
        ch.marks = mk;
        ch.n_marks = run_marks(m[0], ttft ? TTFT_TPOT_ROLE_PREFILL : TTFT_TPOT_ROLE_DECODE, mk, runs, 8);
    }
    if (rc == 0 && j)
        sample_chart(out, &ch, s, j, total, ch.ylabel);
    else if (rc == 0)
        fputs("<p class=\"note\">No sample of this kind.</p>\n", out);
    lines_free(&l);
    return rc;
}

/* The CDF of a set (TTFT_TPOT_SET_*) on each side; stored: the figures' count of a set of stored
   samples (0 for a request metric, whose values are all kept). */
static int cdf_chart(FILE *out, const ttft_tpot_model *const *m, int n, int set, const char *title)
{
    pts p[2];
    svg_series s[2];
    svg_chart ch;
    svg_mark slo;
    char note[640] = "", label[48], v[32], xl[48];
    size_t values, all = 0;
    double mx = 0, scale = 1, slo_ms = set == TTFT_TPOT_METRIC_TTFT || set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL
                                       ? m[0]->slo.ttft_ms
                                   : set == TTFT_TPOT_METRIC_TPOT || set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE
                                       ? m[0]->slo.tpot_ms
                                   : set == TTFT_TPOT_METRIC_E2E ? m[0]->slo.e2e_ms
                                                                 : 0;
    int k, j = 0, rc = 0;
    memset(p, 0, sizeof p);
    memset(&ch, 0, sizeof ch);
    for (k = 0; k < n && rc == 0; k++) {
        int tpot = set == TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE;
        if ((rc = cdf_of(m[k], set, &p[k], &values)) == 0 && set >= TTFT_TPOT_SET_ROLE) /* stored samples */
            stored_note(note, sizeof note, n, k, values, tpot ? m[k]->head.tpot.n : m[k]->head.ttft_steady.n,
                        tpot ? "steady decode steps" : "steady prefills");
        all += values;
        mx = p[k].n && p[k].x[p[k].n - 1] > mx ? p[k].x[p[k].n - 1] : mx;
    }
    if (rc == 0 && all == 1) { /* one value: no distribution to draw */
        single_value(out, title, dur(v, sizeof v, mx * 1e6), n > 1 ? (p[0].n ? "(base)" : "(new)") : "");
        pts_free(&p[0]);
        pts_free(&p[1]);
        return 0;
    }
    for (k = 0; k < n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        s[j].name = n > 1 ? side_names[k] : "all";
        s[j].color = svg_colors[k];
        s[j].x = p[k].x;
        s[j].y = p[k].y;
        s[j].n = p[k].n;
        s[j].kind = SVG_STEP;
        s[j++].hollow = 0;
    }
    ch.title = title;
    ch.note = note;
    ch.ylabel = "fraction at or below";
    ch.logx = svg_wants_logx(s, j); /* a long tail: decades, ticks as durations */
    ch.xunit = ch.logx ? "ms" : svg_ms_unit(mx, &scale); /* the data's: an SLO far out is marked at the edge */
    if (!ch.logx)
        scale_by(s, j, scale, 1);
    snprintf(xl, sizeof xl, ch.logx ? "latency" : "latency (%s)", ch.xunit);
    ch.xlabel = xl;
    if (slo_ms > 0) { /* the SLO goodput counts against, where the run has one */
        snprintf(label, sizeof label, slo_ms >= 1000 ? "SLO %g s" : "SLO %g ms", slo_ms >= 1000 ? slo_ms / 1000 : slo_ms);
        slo.x = ch.logx ? slo_ms : slo_ms / scale;
        slo.label = label;
        ch.marks = &slo;
        ch.n_marks = 1;
    }
    if (rc == 0 && j)
        svg_plot(out, &ch, s, j);
    for (k = 0; k < 2; k++)
        pts_free(&p[k]);
    return rc;
}

/* A CDF a request metric (TTFT_TPOT_METRICS), titled by its name; without requests, the steady samples
   of the API spans. */
static int cdf_charts(FILE *out, const ttft_tpot_model *const *m, int n)
{
    char title[96];
    int k, rc = 0;
    if (m[0]->requests.seen == 0)
        return cdf_chart(out, m, n, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL, "Steady TTFT (prefill samples): CDF") ||
               cdf_chart(out, m, n, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, "Steady TPOT (decode steps): CDF");
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT && rc == 0; k++) {
        snprintf(title, sizeof title, "%s: CDF", metric_names[k].words);
        title[0] = (char)(title[0] >= 'a' && title[0] <= 'z' ? title[0] - 'a' + 'A' : title[0]);
        rc = cdf_chart(out, m, n, k, title);
    }
    return rc;
}

/* One side's points of a slice chart (slice_chart's what), each at its slice's middle: its value is
   the whole slice's. The requests in flight are the most at once in it (peak_in_flight), as the
   headline's peak counts them, not every request in flight during some of it (in_flight: a second of
   5 ms requests one after another counts 11 where 2 at most ran at once). */
static int slice_points(const ttft_tpot_model *m, int what, pts *p)
{
    size_t i;
    int rc = 0;
    for (i = 0; i < m->n_slices && rc == 0; i++) {
        const ttft_tpot_slice *sl = &m->slices[i];
        double y = what == 0 ? sl->output_tok_s : what == 1 ? (double)sl->peak_in_flight : sl->ttft_p50_ns / 1e6;
        if (what < 2 || sl->has_ttft)
            rc = pts_add(p, ((double)sl->start_ns + (double)m->slice_ns / 2) / 1e9, y);
    }
    return rc;
}

/* A chart of the slices (ttft_tpot_slice) of each side: what 0 output tok/s, 1 the most requests in
   flight at once, 2 the TTFT p50 of the requests submitted in the slice (where some were). */
static int slice_chart(FILE *out, const ttft_tpot_model *const *m, int n, int what, svg_chart *ch)
{
    lines l;
    svg_series s[2];
    size_t total;
    int k, j, rc = 0;
    memset(&l, 0, sizeof l);
    for (k = 0; k < n && rc == 0; k++) {
        rc = slice_points(m[k], what, &l.p[k]);
        line_set(&l, k, n > 1 ? side_names[k] : "all", svg_colors[k], what == 2 ? SVG_DOTS : SVG_LINE, 0);
    }
    l.n = n;
    j = lines_drawn(&l, s, &total);
    if (rc == 0 && j && what == 2)
        sample_chart(out, ch, s, j, total, "TTFT p50");
    else if (rc == 0 && j)
        svg_plot(out, ch, s, j);
    lines_free(&l);
    return rc;
}

/* Results over time (the model's slices): output throughput, requests in flight and TTFT, by slice of
   the serving run; none with fewer than two slices. */
static int over_time(FILE *out, const ttft_tpot_model *const *m, int n)
{
    char width[32], t[3][160];
    svg_chart ch[3];
    int k, rc = 0;
    if (m[0]->n_slices < 2 && (n < 2 || m[1]->n_slices < 2))
        return 0;
    dur(width, sizeof width, (double)m[0]->slice_ns);
    snprintf(t[0], sizeof t[0], "Output throughput over time (tokens delivered in each %s slice)", width);
    snprintf(t[1], sizeof t[1], "Requests in flight over time (the most at once in each %s slice, from submit to "
             "last token; their highest is the headline's peak)", width);
    snprintf(t[2], sizeof t[2], "TTFT over time (p50 of the requests submitted in each %s slice)", width);
    memset(ch, 0, sizeof ch);
    for (k = 0; k < 3; k++) { /* the whole run on x, both sides' */
        ch[k].title = t[k];
        ch[k].xlabel = "time since the first submit (s)";
        ch[k].x_to = (double)m[0]->n_slices * (double)m[0]->slice_ns / 1e9;
        if (n > 1 && (double)m[1]->n_slices * (double)m[1]->slice_ns / 1e9 > ch[k].x_to)
            ch[k].x_to = (double)m[1]->n_slices * (double)m[1]->slice_ns / 1e9;
    }
    ch[0].ylabel = "output tok/s";
    ch[1].ylabel = "requests in flight at once";
    ch[1].yint = 1;
    fputs("<h2>Over time</h2>\n", out);
    for (k = 0; k < 3 && rc == 0; k++)
        rc = slice_chart(out, m, n, k, &ch[k]);
    return rc;
}

/* Each kernel phase's share of steady decode time (the model's), a bar a side: the base's kernels,
   found by name on the other side. */
static int share_chart(FILE *out, const ttft_tpot_model *const *m, int n)
{
    unsigned np = m[0]->phases, p, j = 0;
    const char **labels = (const char **)calloc(np + 1, sizeof *labels);
    double *shown[2] = {NULL, NULL}, *per_step[2] = {NULL, NULL};
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
            int q = k ? ttft_tpot_find_phase(m[k]->collector, labels[j]) : (int)p;
            shown[k][j] = q >= 0 ? m[k]->phase[q].decode_share_self : -1; /* -1: absent on that side */
            /* beside the share, the time it stands for: a share can hold while the step slows 5x */
            per_step[k][j] = q >= 0 && m[k]->head.tpot.n ? shown[k][j] * m[k]->head.tpot.mean_ns : -1;
        }
        j++;
    }
    if (rc == 0 && j)
        svg_bars(out, "Each kernel's share of steady decode time, exclusive (self) time, and that time per mean "
                      "step (the rest: outside kernel spans)", labels, j,
                 (const double *const *)shown, (const double *const *)per_step, side_names, n);
    else if (rc == 0)
        fputs("<p class=\"note\">No kernel span inside a steady decode step.</p>\n", out);
    for (k = 0; k < 2; k++) {
        free(shown[k]);
        free(per_step[k]);
    }
    free((void *)labels);
    return rc;
}

/* The text report, escaped, for everything the charts leave out. */
/* Host against device, per steady decode step that has device time: the step's wall time and its
   device time (its own interval, or its kernels'), on each side. None without device data. */
static int device_chart(FILE *out, const ttft_tpot_model *const *m, int n)
{
    svg_chart ch = chart_on_steps("Decode steps: wall time (host) against device time",
                                  "steady decode step with device time", "time (ms)");
    pts p[4];
    svg_series s[4] = {{0}};
    char label[4][64];
    int k, j = 0, rc = 0;
    size_t i;
    memset(p, 0, sizeof p);
    for (k = 0; k < n && rc == 0; k++) {
        const uint64_t *dev = m[k]->device.step_ns;
        size_t at = 0;
        for (i = 0; dev && i < m[k]->head.samples && rc == 0; i++) {
            const ttft_tpot_sample *x = &m[k]->samples[i];
            if (m[k]->phase[x->phase].role != TTFT_TPOT_ROLE_DECODE || x->warmup || dev[i] == UINT64_MAX)
                continue;
            rc = pts_add(&p[2 * k], (double)at, (double)x->dur_ns / 1e6) ||
                 pts_add(&p[2 * k + 1], (double)at, (double)dev[i] / 1e6);
            at++;
        }
    }
    for (k = 0; k < 2 * n && rc == 0; k++) {
        if (!p[k].n)
            continue;
        snprintf(label[j], sizeof label[j], "%s%s%s", n > 1 ? side_names[k / 2] : "", n > 1 ? ": " : "",
                 k % 2 ? "device" : "host (wall)");
        s[j].name = label[j];
        s[j].color = svg_colors[k % 2 + 2 * (k / 2)];
        s[j].x = p[k].x;
        s[j].y = p[k].y;
        s[j].n = p[k].n;
        s[j++].kind = SVG_LINE;
    }
    if (rc == 0 && j) {
        fputs("<h2>Host and device</h2>\n", out);
        ch.logy = svg_wants_log(s, j);
        svg_plot(out, &ch, s, j);
    }
    for (k = 0; k < 4; k++)
        pts_free(&p[k]);
    return rc;
}

static int text_report(FILE *out, const ttft_tpot_model *m, const char *name)
{
    FILE *t = tmpfile();
    int ch;
    if (!t)
        return -1;
    if (ttft_tpot_model_report(m, t) != TTFT_TPOT_OK) {
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
    ".worse{color:#a00;font-weight:bold}.better{color:#070;font-weight:bold}.verdict{font-weight:bold}"
    "figure{margin:.8em 0}figcaption{font-weight:bold;margin-bottom:.2em}svg{width:100%;height:auto}"
    "svg text{font:11px sans-serif;fill:#222}.tick{font-size:11px}.axis{font-size:12px}.legend{font-size:12px}"
    ".grid{stroke:#e3e3e3;stroke-width:1}.mark{stroke:#333;stroke-width:1.2;stroke-dasharray:5 3}"
    ".marklabel{font-size:11px}.single{font-size:1.1em;margin:.3em 0 1em}.frame{fill:none;stroke:#888}pre{font-size:12px;overflow-x:auto}"
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

int html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n, html_headline_fn two)
{
    svg_chart steps = chart_on_steps("Decode step time by step (warmup steps as rings)", "decode step (call order)",
                                     "step time");
    svg_chart ttft = chart_on_steps("TTFT by request, in submit order (warmup requests as rings)",
                                    "request (submit order)", "TTFT");
    prefills pf[2]; /* gathered with the decode steps, drawn by the TTFT chart */
    int k, rc;
    memset(pf, 0, sizeof pf);
    head(out, names, n);
    fputs("<h2>Headline</h2>\n", out);
    rc = n > 1 ? (two ? two(out, m) : -1) : (headline_one(out, m[0]), 0);
    if (m[0]->requests.seen == 0) {
        ttft.title = "Prefill time by call: each one a request's TTFT (warmup as rings)";
        ttft.xlabel = "prefill (call order)";
    }
    fputs("<h2>Warmup: decode steps and TTFT</h2>\n", out);
    rc = rc ? rc : series_chart(out, m, n, 0, &steps, pf);
    rc = rc ? rc : series_chart(out, m, n, 1, &ttft, pf);
    for (k = 0; k < 2; k++) {
        pts_free(&pf[k].p[0]);
        pts_free(&pf[k].p[1]);
    }
    fputs("<h2>Latency distributions</h2>\n", out);
    rc = rc ? rc : cdf_charts(out, m, n);
    rc = rc ? rc : over_time(out, m, n);
    fputs("<h2>Where steady decode time goes</h2>\n", out);
    rc = rc ? rc : share_chart(out, m, n);
    rc = rc ? rc : device_chart(out, m, n);
    fputs("<h2>Text report</h2>\n", out);
    for (k = 0; k < n && rc == 0; k++)
        rc = text_report(out, m[k], names[k]);
    fputs("</body></html>\n", out);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
