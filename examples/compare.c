/* compare.c - ttft_tpot_report --compare (compare.h). The tool may use libm; the library does not. */
#include "compare.h"

#include "svg.h" /* html_text: the verdict in the HTML comparison */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COMPARE_RESAMPLES 2000                  /* bootstrap resamples of the p99 change */
#define COMPARE_SEED 0x5eed5eed5eed5eedull       /* fixed: the same traces give the same interval */

/* ---- Values of a metric ------------------------------------------------------------------------ */

/* Sort x's values ascending: they are never negative, and non-negative doubles order as their bit
   patterns do, so the library's O(n) sort does it. OK or ENOMEM. */
static int sort_values(compare_values *x)
{
    uint64_t *bits = (uint64_t *)malloc((2 * x->n + 1) * sizeof *bits);
    if (!bits)
        return TTFT_TPOT_ENOMEM;
    memcpy(bits, x->v, x->n * sizeof *bits);
    ttft_tpot_sort(bits, x->n, bits + x->n);
    memcpy(x->v, bits, x->n * sizeof *bits);
    free(bits);
    return TTFT_TPOT_OK;
}

/* Room for n values in *out, none yet: OK or ENOMEM. */
static int values_alloc(compare_values *out, size_t n)
{
    out->n = 0;
    out->v = (double *)malloc((n + 1) * sizeof *out->v);
    return out->v ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
}

/* The values of a set of the library's (ttft_tpot_sorted_values: a request metric, a role's steady
   samples) in ms, sorted, into *out: OK or ENOMEM. */
static int set_values(const ttft_tpot_model *m, int set, compare_values *out)
{
    size_t cap = m->head.samples + m->losses.events_kept + m->requests.seen + 1, i, n = 0; /* any set fits */
    uint64_t *ns = (uint64_t *)malloc(cap * sizeof *ns);
    int rc = ns && values_alloc(out, cap) == TTFT_TPOT_OK ? ttft_tpot_sorted_values(m->collector, set, ns, cap, &n)
                                                           : TTFT_TPOT_ENOMEM;
    for (i = 0; rc == TTFT_TPOT_OK && i < n; i++)
        out->v[out->n++] = (double)ns[i] / 1e6;
    free(ns);
    return rc;
}

/* Figure k of each run (the model's: TTFT_TPOT_RUN_*) in ms, or tok/s, sorted, into *out. */
static int run_values(const ttft_tpot_model *m, int k, compare_values *out)
{
    const ttft_tpot_run_figure *f = &m->runs.fig[k];
    unsigned r;
    if (values_alloc(out, m->runs.n) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    for (r = 0; r < m->runs.n; r++)
        if (f->has[r])
            out->v[out->n++] = k == TTFT_TPOT_RUN_TOK_S ? f->v[r] : f->v[r] / 1e6;
    return sort_values(out);
}

/* Each steady decode step's output rate (tokens / its time), sorted, into *out. */
static int step_rates(const ttft_tpot_model *m, compare_values *out)
{
    size_t i;
    if (values_alloc(out, m->head.samples) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    for (i = 0; i < m->head.samples; i++) {
        const ttft_tpot_sample *s = &m->samples[i];
        if (!s->warmup && m->phase[s->phase].role == TTFT_TPOT_ROLE_DECODE && s->dur_ns > 0)
            out->v[out->n++] = (double)s->tokens / ((double)s->dur_ns * 1e-9);
    }
    return sort_values(out);
}

/* The values of sample metric k (COMPARE_*, not a request metric) of m, sorted: each run's figure
   when runs is set, else the samples'. */
static int values_of(const ttft_tpot_model *m, int k, int runs, compare_values *out)
{
    static const int run_figure[] = {-1, TTFT_TPOT_RUN_TTFT, TTFT_TPOT_RUN_TPOT, -1, TTFT_TPOT_RUN_TOK_S};
    static const int role[] = {-1, TTFT_TPOT_ROLE_PREFILL, TTFT_TPOT_ROLE_DECODE, TTFT_TPOT_ROLE_E2E, -1};
    if (runs)
        return run_values(m, run_figure[k], out);
    if (k == COMPARE_OUTPUT)
        return step_rates(m, out);
    if (k != COMPARE_TTFT_FIRST)
        return set_values(m, TTFT_TPOT_SET_ROLE + role[k], out);
    if (values_alloc(out, 1) != TTFT_TPOT_OK)
        return TTFT_TPOT_ENOMEM;
    if (m->head.has_ttft_first)
        out->v[out->n++] = (double)m->head.ttft_first_ns / 1e6;
    return TTFT_TPOT_OK;
}

/* ---- The statistics ---------------------------------------------------------------------------- */

double compare_mann_whitney(const double *a, size_t na, const double *b, size_t nb, double *u1)
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
    z = (fabs(u - mu) - 0.5) / sqrt(var);
    return z <= 0 ? 1 : fmin(1, erfc(z / sqrt(2)));
}

double compare_min_p(size_t na, size_t nb)
{
    double lc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) - lgamma((double)(nb + 1));
    return fmin(1, 2 * exp(-lc)); /* the most extreme arrangement, either way: 2 / C(na + nb, na) */
}

/* xorshift64*, uniform in (0, 1). */
static double uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

/* Gamma(a, 1), a >= 1 (Marsaglia and Tsang, 2000); normals by Box-Muller. */
static double gamma_variate(double a, uint64_t *s)
{
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x = sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s)), v = 1 + c * x, u;
        if (v <= 0)
            continue;
        v = v * v * v;
        u = uniform(s);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
            return d * v;
    }
}

/* One bootstrap p99 of sorted v[0, n), n >= 2, drawn exactly without resampling n values: the k-th
   smallest of n uniforms is Beta(k, n - k + 1), the next one above it is the least of the n - k
   others, and a resample's order statistics are v at n times those uniforms. */
static double bootstrap_p99(const double *v, size_t n, uint64_t *s)
{
    double h = (double)(n - 1) * 0.99, frac = h - floor(h), g1, g2, u1, u2;
    size_t k = (size_t)h, i1, i2; /* the 0-based ranks k and k + 1 of the resample */
    g1 = gamma_variate((double)k + 1, s);
    g2 = gamma_variate((double)(n - k), s);
    u1 = g1 / (g1 + g2);
    u2 = k + 1 < n ? u1 + (1 - u1) * (1 - pow(uniform(s), 1.0 / (double)(n - k - 1))) : u1;
    i1 = (size_t)(u1 * (double)n);
    i2 = (size_t)(u2 * (double)n);
    i1 = i1 < n ? i1 : n - 1;
    i2 = i2 < n ? i2 : n - 1;
    return v[i1] + frac * (v[i2] - v[i1]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 95% bootstrap interval of the p99's change in %, new against base. */
static int p99_change_ci(const compare_values *b, const compare_values *n, double *ci)
{
    double d[COMPARE_RESAMPLES];
    uint64_t s = COMPARE_SEED;
    int r;
    if (b->n < 2 || n->n < 2)
        return 0;
    for (r = 0; r < COMPARE_RESAMPLES; r++) {
        double pb = bootstrap_p99(b->v, b->n, &s), pn = bootstrap_p99(n->v, n->n, &s);
        if (!(pb > 0))
            return 0;
        d[r] = (pn / pb - 1) * 100;
    }
    qsort(d, COMPARE_RESAMPLES, sizeof d[0], cmp_double); /* changes may be negative: no bit-pattern sort */
    ci[0] = ttft_tpot_percentile(d, COMPARE_RESAMPLES, 2.5);
    ci[1] = ttft_tpot_percentile(d, COMPARE_RESAMPLES, 97.5);
    return 1;
}

/* ---- Rows -------------------------------------------------------------------------------------- */

static void side_stats(const compare_values *x, double *median, double *ci, int *has_ci)
{
    uint64_t lo, hi;
    *median = ttft_tpot_percentile(x->v, x->n, 50);
    *has_ci = x->n && ttft_tpot_ci95_ranks(x->n, 50, &lo, &hi);
    if (*has_ci) {
        ci[0] = x->v[lo - 1];
        ci[1] = x->v[hi - 1];
    }
}

static void finish_row(compare_row *r, double alpha)
{
    double u1;
    side_stats(&r->base, &r->median[0], r->ci[0], &r->has_ci[0]);
    side_stats(&r->new_, &r->median[1], r->ci[1], &r->has_ci[1]);
    r->has_delta = r->base.n && r->new_.n && r->median[0] != 0;
    r->delta_pct = r->has_delta ? (r->median[1] / r->median[0] - 1) * 100 : 0;
    r->has_p = r->base.n && r->new_.n && r->base.n + r->new_.n > 2;
    r->p_value = r->has_p ? compare_mann_whitney(r->base.v, r->base.n, r->new_.v, r->new_.n, &u1) : 1;
    r->too_few = !r->base.n || !r->new_.n || compare_min_p(r->base.n, r->new_.n) >= alpha;
    /* with ties the asymptotic p can fall below the exact test's least: too few stays undecided */
    r->significant = r->has_p && !r->too_few && r->p_value < alpha;
    r->only = !r->new_.n ? 1 : !r->base.n ? 2 : 0;
    r->has_p99_ci = p99_change_ci(&r->base, &r->new_, r->p99_ci);
}

/* A row of metric `name` (in unit) from the two sides' values, which it takes; 1 made, or 0 when
   neither side has a value (the values are freed). */
static int fill_row(compare_row *r, const char *unit, const char *name, compare_values base, compare_values new_,
                    int per_run, double alpha)
{
    memset(r, 0, sizeof *r);
    r->base = base;
    r->new_ = new_;
    if (!base.n && !new_.n) {
        free(base.v);
        free(new_.v);
        return 0;
    }
    r->per_run = per_run;
    snprintf(r->metric, sizeof r->metric, "%s", name);
    r->unit = unit;
    finish_row(r, alpha);
    return 1;
}

/* A row for sample metric k (not a phase) if either side has a value; 1 added, 0 skipped, or ENOMEM.
   Steady TTFT, TPOT and output throughput are compared run by run when both sides marked 2 runs or
   more: decode steps of one run are not independent, runs are. */
static int add_row(compare_row *r, const ttft_tpot_model *b, const ttft_tpot_model *n, int k, double alpha)
{
    static const char *const names[] = {"ttft_first", "ttft_steady", "tpot", "e2e", "output_throughput"};
    int runs = (k == COMPARE_TTFT_STEADY || k == COMPARE_TPOT || k == COMPARE_OUTPUT) && b->runs.n > 1 &&
               n->runs.n > 1;
    compare_values vb = {NULL, 0}, vn = {NULL, 0};
    if (values_of(b, k, runs, &vb) != TTFT_TPOT_OK || values_of(n, k, runs, &vn) != TTFT_TPOT_OK) {
        free(vb.v);
        free(vn.v);
        return TTFT_TPOT_ENOMEM;
    }
    return fill_row(r, k == COMPARE_OUTPUT ? "tok/s" : "ms", names[k], vb, vn, runs, alpha);
}

/* A row for request metric `metric` if either side has a value, named by the table's COMPARE column;
   1 added, 0 skipped, or ENOMEM. */
static int add_metric_row(compare_row *r, const ttft_tpot_model *b, const ttft_tpot_model *n, int metric,
                          double alpha)
{
#define COMPARE_NAME(name, label, words, json, prom, help, le, under, note, cmp) cmp,
    static const char *const names[] = {TTFT_TPOT_METRICS(COMPARE_NAME)};
#undef COMPARE_NAME
    compare_values vb = {NULL, 0}, vn = {NULL, 0};
    if (set_values(b, metric, &vb) != TTFT_TPOT_OK || set_values(n, metric, &vn) != TTFT_TPOT_OK) {
        free(vb.v);
        free(vn.v);
        return TTFT_TPOT_ENOMEM;
    }
    return fill_row(r, "ms", names[metric], vb, vn, 0, alpha);
}

static void free_phase_values(compare_values *v, unsigned np)
{
    unsigned p;
    for (p = 0; v && p < np; p++)
        free(v[p].v);
    free(v);
}

/* Every phase's steady samples in ms, sorted, an array a phase, in two passes over the samples (not one
   a phase), each sorted as integer ns (a few radix passes) before it becomes ms: OK or ENOMEM. Free with
   free_phase_values. */
static int phase_values(const ttft_tpot_model *m, compare_values **out)
{
    compare_values *v = (compare_values *)calloc(m->phases + 1, sizeof *v);
    uint64_t *ns = NULL, *tmp;
    size_t *at = (size_t *)calloc(m->phases + 1, sizeof *at), i, all = 0;
    const ttft_tpot_sample *s = m->samples;
    unsigned p;
    int rc = v && at ? TTFT_TPOT_OK : TTFT_TPOT_ENOMEM;
    for (i = 0; rc == TTFT_TPOT_OK && i < m->head.samples; i++)
        v[s[i].phase].n += !s[i].warmup;
    for (p = 0, all = 0; rc == TTFT_TPOT_OK && p < m->phases; all += v[p++].n) /* each phase's slice of ns */
        at[p] = all;
    if (rc == TTFT_TPOT_OK && !(ns = (uint64_t *)malloc((2 * all + 1) * sizeof *ns)))
        rc = TTFT_TPOT_ENOMEM;
    for (i = 0; rc == TTFT_TPOT_OK && i < m->head.samples; i++)
        if (!s[i].warmup)
            ns[at[s[i].phase]++] = s[i].dur_ns;
    tmp = ns ? ns + all : NULL;
    for (p = 0; rc == TTFT_TPOT_OK && p < m->phases; p++) { /* at[p] is now the end of p's slice */
        uint64_t *x = ns + at[p] - v[p].n;
        size_t n = v[p].n;
        ttft_tpot_sort(x, n, tmp);
        if ((rc = values_alloc(&v[p], n)) == TTFT_TPOT_OK)
            for (i = 0; i < n; i++)
                v[p].v[v[p].n++] = (double)x[i] / 1e6;
    }
    free(ns);
    free(at);
    if (rc != TTFT_TPOT_OK)
        free_phase_values(v, m->phases);
    *out = rc == TTFT_TPOT_OK ? v : NULL;
    return rc;
}

/* The phase of m with name and role, or -1. */
static int same_phase(const ttft_tpot_model *m, const char *name, int role)
{
    int q = ttft_tpot_find_phase(m->collector, name);
    return q >= 0 && m->phase[q].role == role ? q : -1;
}

/* A row a phase either side has (by name and role), from each side's phase values, which it takes. */
static int phase_rows(const ttft_tpot_model *base, const ttft_tpot_model *new_, compare_values *pb,
                      compare_values *pn, double alpha, compare_row *rows, size_t *n)
{
    const compare_values none = {NULL, 0};
    unsigned nb = base->phases, nn = new_->phases, p;
    char name[TTFT_TPOT_NAME_MAX + 8];
    for (p = 0; p < nb + nn; p++) {
        int side = p >= nb, own = (int)(side ? p - nb : p);
        const ttft_tpot_phase_figures *ph = &(side ? new_ : base)->phase[own];
        int other = same_phase(side ? base : new_, ph->name, ph->role);
        compare_values vb = none, vn = none;
        if (side && other >= 0)
            continue; /* a row already, from the base's side */
        if (!side)
            vb = pb[own], pb[own].v = NULL;
        else
            vn = pn[own], pn[own].v = NULL;
        if (!side && other >= 0)
            vn = pn[other], pn[other].v = NULL;
        if (!vb.v && !(vb.v = (double *)malloc(sizeof *vb.v)))
            return TTFT_TPOT_ENOMEM;
        if (!vn.v && !(vn.v = (double *)malloc(sizeof *vn.v))) {
            free(vb.v);
            return TTFT_TPOT_ENOMEM;
        }
        snprintf(name, sizeof name, "phase:%s", ph->name);
        *n += (size_t)fill_row(&rows[*n], "ms", name, vb, vn, 0, alpha);
    }
    return TTFT_TPOT_OK;
}

int compare_rows(const ttft_tpot_model *base, const ttft_tpot_model *new_, double alpha, compare_row **rows,
                 size_t *n)
{
    compare_values *pb = NULL, *pn = NULL;
    int k, rc = 0, requests = base->requests.seen > 0 || new_->requests.seen > 0;
    *n = 0;
    if (!(*rows = (compare_row *)calloc(COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT + (size_t)base->phases + new_->phases,
                                        sizeof **rows)))
        return TTFT_TPOT_ENOMEM;
    for (k = 0; k < COMPARE_REQUEST && rc >= 0; k++) /* with requests, e2e is the requests' */
        if (!(k == COMPARE_E2E && requests) && (rc = add_row(&(*rows)[*n], base, new_, k, alpha)) > 0)
            (*n)++;
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT && requests && rc >= 0; k++)
        if ((rc = add_metric_row(&(*rows)[*n], base, new_, k, alpha)) > 0)
            (*n)++;
    if (rc >= 0 && (rc = phase_values(base, &pb)) == TTFT_TPOT_OK && (rc = phase_values(new_, &pn)) == TTFT_TPOT_OK)
        rc = phase_rows(base, new_, pb, pn, alpha, *rows, n);
    free_phase_values(pb, base->phases);
    free_phase_values(pn, new_->phases);
    return rc < 0 ? rc : TTFT_TPOT_OK;
}

void compare_free(compare_row *rows, size_t n)
{
    size_t i;
    for (i = 0; rows && i < n; i++) {
        free(rows[i].base.v);
        free(rows[i].new_.v);
    }
    free(rows);
}

/* ---- Output ------------------------------------------------------------------------------------ */

/* "3.22 [3.19, 3.25]" or "3.22 [n<6]" or "-" for a side with no value. */
static const char *side_text(char *buf, size_t len, const compare_row *r, int side)
{
    const compare_values *x = side ? &r->new_ : &r->base;
    if (!x->n)
        snprintf(buf, len, "-");
    else if (r->has_ci[side])
        snprintf(buf, len, "%.4g [%.4g, %.4g]", r->median[side], r->ci[side][0], r->ci[side][1]);
    else
        snprintf(buf, len, "%.4g [n<%llu]", r->median[side], (unsigned long long)ttft_tpot_ci95_min_n(50));
    return buf;
}

/* "only in base: a, b" for the metrics only side `only` (1 base, 2 new) has; nothing when none. */
static void only_line(FILE *out, const compare_row *rows, size_t n, int only)
{
    size_t i;
    int any = 0;
    for (i = 0; i < n; i++)
        if (rows[i].only == only)
            fprintf(out, "%s%s", any++ ? ", " : only == 1 ? "only in base: " : "only in new: ", rows[i].metric);
    if (any)
        fputc('\n', out);
}

int compare_better(const compare_row *r)
{
    return strcmp(r->unit, "tok/s") == 0 ? r->delta_pct > 0 : r->delta_pct < 0;
}

/* The significant rows whose change is better (or worse), "a (+1.00%), b (-2.00%)"; how many. */
static size_t verdict_list(FILE *out, const compare_row *rows, size_t n, int better, int html)
{
    size_t i, k = 0;
    for (i = 0; i < n; i++) {
        const compare_row *r = &rows[i];
        if (r->only || !r->significant || compare_better(r) != better)
            continue;
        fputs(k++ ? ", " : better ? "better on " : "worse on ", out);
        if (html)
            html_text(out, r->metric);
        else
            fputs(r->metric, out);
        fprintf(out, " (%+.2f%%)", r->delta_pct);
    }
    return k;
}

void compare_verdict(FILE *out, const compare_row *rows, size_t n, double alpha, int html)
{
    size_t i, both = 0, moved = 0, worse = 0;
    for (i = 0; i < n; i++) {
        both += !rows[i].only;
        moved += !rows[i].only && rows[i].significant;
        worse += !rows[i].only && rows[i].significant && !compare_better(&rows[i]);
    }
    if (!moved) {
        fprintf(out, "Verdict: no significant difference on any of the %zu metrics both sides have (alpha %g)%s", both,
                alpha, html ? "" : "\n");
        return;
    }
    fputs(worse ? "Verdict: a regression: new is " : "Verdict: an improvement: new is ", out);
    if (verdict_list(out, rows, n, 0, html) && moved > worse)
        fputs("; ", out);
    verdict_list(out, rows, n, 1, html);
    fprintf(out, "; no significant change on %zu other%s (alpha %g)%s", both - moved, both - moved == 1 ? "" : "s",
            alpha, html ? "" : "\n");
}

void compare_text(FILE *out, const compare_row *rows, size_t n, double alpha)
{
    size_t i;
    compare_verdict(out, rows, n, alpha, 0);
    fprintf(out, "%-34s %-28s %-28s %-9s %-8s %s\n", "metric", "base median [95% CI]", "new median [95% CI]",
            "delta", "p", "p99 delta [95% CI]");
    for (i = 0; i < n; i++) {
        const compare_row *r = &rows[i];
        char name[96], b[64], nw[64], d[32], p[32], p99[64];
        if (r->only)
            continue;
        snprintf(name, sizeof name, "%s (%s%s)", r->metric, r->unit, r->per_run ? ", runs" : "");
        if (!r->has_delta)
            snprintf(d, sizeof d, "n/a");
        else if (!r->significant)
            snprintf(d, sizeof d, "~");
        else
            snprintf(d, sizeof d, "%+.2f%%", r->delta_pct);
        if (r->has_p)
            snprintf(p, sizeof p, r->p_value < 0.001 ? "p<0.001" : "p=%.3f", r->p_value);
        else
            snprintf(p, sizeof p, "-");
        if (r->has_p99_ci)
            snprintf(p99, sizeof p99, "[%+.1f%%, %+.1f%%]", r->p99_ci[0], r->p99_ci[1]);
        else
            snprintf(p99, sizeof p99, "-");
        fprintf(out, "%-34s %-28s %-28s %-9s %-8s %s  (n=%zu+%zu)%s\n", name, side_text(b, sizeof b, r, 0),
                side_text(nw, sizeof nw, r, 1), d, p, p99, r->base.n, r->new_.n,
                r->too_few ? "  too few samples to decide" : "");
    }
    only_line(out, rows, n, 1);
    only_line(out, rows, n, 2);
    fprintf(out, "~: no significant difference (two-sided Mann-Whitney U, p >= %g); runs: one value a run (the "
                 "runs' own p50, or tok/s)\n", alpha);
}

static void json_num(FILE *out, int has, double v)
{
    if (has && isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static void json_pair(FILE *out, int has, const double *v)
{
    if (!has) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    json_num(out, 1, v[0]);
    fputc(',', out);
    json_num(out, 1, v[1]);
    fputc(']', out);
}

/* A metric's name as a JSON string: names are printable UTF-8 (the library checks): " and \ escaped. */
static void json_metric(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++)
        fprintf(out, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
    fputc('"', out);
}

void compare_json(FILE *out, const compare_row *rows, size_t n, double alpha)
{
    size_t i, put = 0;
    int side;
    fputs("{\"schema\":\"ttft_tpot/compare-v1\",\"alpha\":", out);
    json_num(out, 1, alpha);
    fputs(",\"rows\":[", out);
    for (i = 0; i < n; i++) {
        const compare_row *r = &rows[i];
        if (r->only)
            continue;
        fputs(put++ ? ",{\"metric\":" : "{\"metric\":", out);
        json_metric(out, r->metric);
        fprintf(out, ",\"unit\":\"%s\",\"per_run\":%s", r->unit, r->per_run ? "true" : "false");
        for (side = 0; side < 2; side++) {
            fprintf(out, ",\"%s\":{\"n\":%zu,\"median\":", side ? "new" : "base", side ? r->new_.n : r->base.n);
            json_num(out, side ? r->new_.n > 0 : r->base.n > 0, r->median[side]);
            fputs(",\"ci95\":", out);
            json_pair(out, r->has_ci[side], r->ci[side]);
            fputc('}', out);
        }
        fputs(",\"delta_pct\":", out);
        json_num(out, r->has_delta, r->delta_pct);
        fputs(",\"p_value\":", out);
        json_num(out, r->has_p, r->p_value);
        fprintf(out, ",\"significant\":%s,\"better\":%s,\"too_few\":%s,\"p99_delta_pct_ci95\":",
                r->significant ? "true" : "false", !r->significant ? "null" : compare_better(r) ? "true" : "false",
                r->too_few ? "true" : "false");
        json_pair(out, r->has_p99_ci, r->p99_ci);
        fputc('}', out);
    }
    for (side = 1; side <= 2; side++) { /* the metrics one side has: nothing to compare */
        fputs(side == 1 ? "],\"only_in_base\":[" : "],\"only_in_new\":[", out);
        for (i = 0, put = 0; i < n; i++)
            if (rows[i].only == side) {
                fputs(put++ ? "," : "", out);
                json_metric(out, rows[i].metric);
            }
    }
    fputs("]}\n", out);
}
