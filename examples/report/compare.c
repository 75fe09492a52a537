/* compare.c - ttft_tpot_report --compare (compare.h). The tool may use libm; the library does not. */
#include "compare.h"

#include "svg.h" /* html_text: the verdict in the HTML comparison */

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- A trace's runs and their values -------------------------------------------------------------- */

/* One trace: each unit's p50 (and p99) of each metric, in the row's unit (ms, or tok/s). Its units are
   its runs, or the trace itself when it marked none; the first TTFT and the request metrics are the
   trace's, held by unit 0. The phases' values are sparse, a value a (phase, unit) that has samples,
   phase p's at [at[p], at[p + 1]): phases times runs can be large, their samples are not. */
#define METRIC_KEYS (COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT)
typedef struct trace_units {
    const ttft_tpot_model *m;
    unsigned n;
    int runs; /* its units are marked runs */
    double *p50, *p99; /* [n * METRIC_KEYS] */
    unsigned char *has, *has99;
    size_t *at;          /* [phases + 1] */
    double *ph50, *ph99; /* [at[phases]] */
} trace_units;

static void put(trace_units *t, unsigned u, int key, int has, double p50, int has99, double p99)
{
    size_t at = (size_t)u * METRIC_KEYS + (size_t)key;
    t->has[at] = (unsigned char)(has != 0);
    t->p50[at] = p50;
    t->has99[at] = (unsigned char)(has && has99);
    t->p99[at] = p99;
}

/* A set's p50 and p99 in ms into unit u's key, when it has a value. */
static void put_stats(trace_units *t, unsigned u, int key, const ttft_tpot_stats *s)
{
    put(t, u, key, s->n > 0, s->p50_ns / 1e6, 1, s->p99_ns / 1e6);
}

/* Percentile p of sorted ns[0, n), n > 0, in ms: the library's definition (numpy's "linear"). */
static double pct_ms(const uint64_t *ns, size_t n, double p)
{
    double h = (double)(n - 1) * p / 100, lo = (double)ns[(size_t)h];
    size_t k = (size_t)h;
    return (k + 1 < n ? lo + (h - (double)k) * ((double)ns[k + 1] - lo) : lo) / 1e6;
}

/* Run r's steady samples of each role (steady TTFT, TPOT; every e2e sample, as the headline's E2E) and
   its output tok/s, a pass a role. x and tmp: scratch of the run's length. */
static void run_roles(trace_units *t, unsigned r, uint64_t *x, uint64_t *tmp)
{
    static const int role_key[] = {COMPARE_TTFT_STEADY, COMPARE_TPOT, -1, COMPARE_E2E}; /* by role */
    const ttft_tpot_model *m = t->m;
    size_t first = 0, end = 0, i, n;
    int role;
    (void)ttft_tpot_run_at(m->collector, r, &first, &end);
    for (role = TTFT_TPOT_ROLE_PREFILL; role <= TTFT_TPOT_ROLE_E2E; role++) {
        uint64_t tokens = 0;
        double dur = 0;
        if (role_key[role] < 0)
            continue;
        for (i = first, n = 0; i < end; i++) {
            const ttft_tpot_sample *s = &m->samples[i];
            if (m->phase[s->phase].role != role || (s->warmup && role != TTFT_TPOT_ROLE_E2E))
                continue;
            x[n++] = s->dur_ns;
            tokens += s->tokens;
            dur += (double)s->dur_ns;
        }
        if (role == TTFT_TPOT_ROLE_DECODE)
            put(t, r, COMPARE_OUTPUT, n > 0 && dur > 0, (double)tokens / (dur * 1e-9), 0, 0);
        ttft_tpot_sort(x, n, tmp);
        put(t, r, role_key[role], n > 0, n ? pct_ms(x, n, 50) : 0, 1, n ? pct_ms(x, n, 99) : 0);
    }
}

/* Each (phase, run)'s p50 and p99 of its steady samples, in one sort: a steady sample of a run becomes
   its phase, run and index in 16, 16 and 32 bits (units_of keeps within them), so that sorted, each
   group lies together, phase by phase. key, x, tmp: scratch of the stored samples. */
static int run_phases(trace_units *t, uint64_t *key, uint64_t *x, uint64_t *tmp)
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
            t->ph50[e] = pct_ms(x, k, 50);
            t->ph99[e] = pct_ms(x, k, 99);
        }
    }
    t->at[m->phases] = e;
    return TTFT_TPOT_OK;
}

/* The trace's own figures, as its report gives them, into unit 0: the first TTFT and the request
   metrics always, the rest when it marked no runs. */
static int trace_figures(trace_units *t)
{
    const ttft_tpot_model *m = t->m;
    unsigned p;
    size_t e = 0;
    int k;
    put(t, 0, COMPARE_TTFT_FIRST, m->head.has_ttft_first, (double)m->head.ttft_first_ns / 1e6, 0, 0);
    for (k = 0; k < TTFT_TPOT_METRIC_COUNT; k++)
        put_stats(t, 0, COMPARE_REQUEST + k, &m->requests.metric[k]);
    if (t->runs)
        return TTFT_TPOT_OK;
    put_stats(t, 0, COMPARE_TTFT_STEADY, &m->head.ttft_steady);
    put_stats(t, 0, COMPARE_TPOT, &m->head.tpot);
    put_stats(t, 0, COMPARE_E2E, &m->head.e2e);
    put(t, 0, COMPARE_OUTPUT, m->head.has_output_tok_s, m->head.output_tok_s, 0, 0);
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

static void units_free(trace_units *t)
{
    free(t->p50);
    free(t->p99);
    free(t->has);
    free(t->has99);
    free(t->at);
    free(t->ph50);
    free(t->ph99);
}

/* The values of trace m: OK or ENOMEM. A collector whose prefill or decode phases keep samples in a
   histogram has no runs (the library's runs say so): its trace is its one unit; so is one past 65535
   runs, 65535 phases or 2^32 stored samples (run_phases's key). */
static int units_of(const ttft_tpot_model *m, trace_units *t)
{
    size_t cells, len = m->head.samples + 1;
    uint64_t *x = NULL;
    unsigned r;
    int rc;
    memset(t, 0, sizeof *t);
    t->m = m;
    t->runs = m->runs.n > 0 && !m->runs.bounded && m->runs.n <= 0xffff && m->phases <= 0xffff &&
              m->head.samples <= 0xffffffffu;
    t->n = t->runs ? m->runs.n : 1;
    cells = (size_t)t->n * METRIC_KEYS;
    t->p50 = (double *)malloc(cells * sizeof *t->p50);
    t->p99 = (double *)malloc(cells * sizeof *t->p99);
    t->has = (unsigned char *)calloc(cells, 1);
    t->has99 = (unsigned char *)calloc(cells, 1);
    t->at = (size_t *)calloc(m->phases + 1, sizeof *t->at);
    if (t->runs)
        x = (uint64_t *)malloc(3 * len * sizeof *x);
    if (!t->p50 || !t->p99 || !t->has || !t->has99 || !t->at || (t->runs && !x)) {
        free(x);
        return TTFT_TPOT_ENOMEM;
    }
    for (r = 0; t->runs && r < t->n; r++)
        run_roles(t, r, x, x + len);
    rc = t->runs ? run_phases(t, x, x + len, x + 2 * len) : TTFT_TPOT_OK;
    free(x);
    return rc == TTFT_TPOT_OK ? trace_figures(t) : rc;
}

/* ---- The statistics -------------------------------------------------------------------------------- */

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

/* The pooled sorted values' midranks, doubled so that they are whole: w[0, na + nb), a's first. */
static void doubled_midranks(const double *a, size_t na, const double *b, size_t nb, unsigned *w)
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

double compare_mann_whitney_exact(const double *a, size_t na, const double *b, size_t nb, double *u1)
{
    size_t n = na + nb, i, k, s, top = 0, obs = 0;
    unsigned *w;
    double *ways, below = 0, above = 0, total = 0, p = compare_mann_whitney(a, na, b, nb, u1);
    if (n > COMPARE_EXACT_MAX || na == 0 || nb == 0)
        return p;
    w = (unsigned *)malloc(n * sizeof *w);
    if (!w)
        return p;
    doubled_midranks(a, na, b, nb, w);
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
    return fmin(1, 2 * fmin(below, above) / total);
}

double compare_min_p(size_t na, size_t nb)
{
    double lc = lgamma((double)(na + nb + 1)) - lgamma((double)(na + 1)) - lgamma((double)(nb + 1));
    return fmin(1, 2 * exp(-lc)); /* the most extreme arrangement, either way: 2 / C(na + nb, na) */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double compare_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb)
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
    qsort(d, na * nb, sizeof *d, cmp_double);
    hl = ttft_tpot_percentile(d, na * nb, 50);
    free(d);
    return hl;
}

static double mean_of(const compare_values *x)
{
    double s = 0;
    size_t i;
    for (i = 0; i < x->n; i++)
        s += x->v[i];
    return x->n ? s / (double)x->n : 0;
}

static double var_of(const compare_values *x, double mean)
{
    double s = 0;
    size_t i;
    for (i = 0; i < x->n; i++)
        s += (x->v[i] - mean) * (x->v[i] - mean);
    return x->n > 1 ? s / (double)(x->n - 1) : 0;
}

/* The 95% Welch interval of the change of b's mean against a's, in % of a's mean; its degrees of
   freedom (Welch-Satterthwaite) rounded down, which widens it a little. 0 when it has none. */
static int welch_change(const compare_values *a, const compare_values *b, double *ci)
{
    double ma = mean_of(a), mb = mean_of(b), va, vb, se2, df, half;
    if (a->n < 2 || b->n < 2 || !(ma > 0))
        return 0;
    va = var_of(a, ma) / (double)a->n;
    vb = var_of(b, mb) / (double)b->n;
    se2 = va + vb;
    df = se2 > 0 ? se2 * se2 / (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1)) : 1;
    half = ttft_tpot_t975((uint64_t)(df >= 1 ? df : 1)) * sqrt(se2);
    ci[0] = (mb - ma - half) / ma * 100;
    ci[1] = (mb - ma + half) / ma * 100;
    return 1;
}

/* ---- Rows ------------------------------------------------------------------------------------------- */

/* A row's metric: a sample or request metric (COMPARE_*), or a phase by name and role (metric -1). */
typedef struct row_key {
    int metric;
    const char *phase;
    int role;
} row_key;

/* Sort x[0, n) ascending: its values are never negative, and non-negative doubles order as their bit
   patterns do, so the library's O(n) radix sort does it (qsort of a million rates took most of a
   comparison). OK or ENOMEM. */
static int sort_values(double *x, size_t n)
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
static int phase_in(const trace_units *t, const row_key *k)
{
    int q = ttft_tpot_find_phase(t->m->collector, k->phase);
    return q >= 0 && t->m->phase[q].role == k->role ? q : -1;
}

/* With several traces a side, each trace is one process: its runs share the process's memory
   placement and the machine's state, so they are not independent of each other, and the process is
   the unit: the values v[from, n) of one trace's runs become their mean. */
static void one_value_a_trace(compare_values *v, size_t from, size_t traces)
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
static int side_values(const trace_units *t, size_t traces, const row_key *k, compare_values *v,
                       compare_values *v99)
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
        int q = k->metric < 0 ? phase_in(&t[i], k) : -1;
        for (e = q >= 0 ? t[i].at[q] : 0; q >= 0 && e < t[i].at[q + 1]; e++) {
            v->v[v->n++] = t[i].ph50[e];
            v99->v[v99->n++] = t[i].ph99[e];
        }
        for (u = 0; k->metric >= 0 && u < t[i].n; u++) {
            size_t at = (size_t)u * METRIC_KEYS + (size_t)k->metric;
            if (t[i].has[at])
                v->v[v->n++] = t[i].p50[at];
            if (t[i].has99[at])
                v99->v[v99->n++] = t[i].p99[at];
        }
        one_value_a_trace(v, from, traces);
        one_value_a_trace(v99, from99, traces);
    }
    return sort_values(v->v, v->n) == TTFT_TPOT_OK ? sort_values(v99->v, v99->n) : TTFT_TPOT_ENOMEM;
}

/* The values behind a row of one unit a side, read from the side's one trace, for the direction and
   the interval of that run's p50: a set of the library's (ttft_tpot_sorted_values), or each steady
   decode step's tok/s. Empty where there is none (the first TTFT). OK or ENOMEM. */
static int unit_values(const trace_units *t, const row_key *k, compare_values *out)
{
    static const int set_of[] = {-1, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_PREFILL,
                                 TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_DECODE, TTFT_TPOT_SET_ROLE + TTFT_TPOT_ROLE_E2E, -1};
    const ttft_tpot_model *m = t->m;
    int set = k->metric < 0                   ? TTFT_TPOT_SET_PHASE + phase_in(t, k)
              : k->metric >= COMPARE_REQUEST ? k->metric - COMPARE_REQUEST
                                              : set_of[k->metric];
    size_t cap = m->head.samples + m->losses.events_kept + m->requests.seen + 1, i, n = 0;
    uint64_t *ns;
    out->n = 0;
    out->v = (double *)malloc(cap * sizeof *out->v);
    if (!out->v)
        return TTFT_TPOT_ENOMEM;
    if (k->metric == COMPARE_OUTPUT) { /* steady decode steps' rates */
        for (i = 0; i < m->head.samples; i++) {
            const ttft_tpot_sample *s = &m->samples[i];
            if (!s->warmup && m->phase[s->phase].role == TTFT_TPOT_ROLE_DECODE && s->dur_ns > 0)
                out->v[out->n++] = (double)s->tokens / ((double)s->dur_ns * 1e-9);
        }
        return sort_values(out->v, out->n);
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
static void side_stats(compare_row *r, int side, const compare_values *x, const compare_values *within)
{
    /* one run: the interval of its own values, where its figure is their p50 (not a rate) */
    const compare_values *over = x->n == 1 && within->n && strcmp(r->unit, "ms") == 0 ? within : x;
    uint64_t lo, hi;
    r->median[side] = ttft_tpot_percentile(x->v, x->n, 50);
    r->has_ci[side] = over->n && ttft_tpot_ci95_ranks(over->n, 50, &lo, &hi);
    if (r->has_ci[side]) {
        r->ci[side][0] = over->v[lo - 1];
        r->ci[side][1] = over->v[hi - 1];
    }
    r->mean[side] = mean_of(x);
    r->has_mean_ci[side] = x->n > 1;
    if (x->n > 1) {
        double half = ttft_tpot_t975(x->n - 1) * sqrt(var_of(x, r->mean[side]) / (double)x->n);
        r->mean_ci[side][0] = r->mean[side] - half;
        r->mean_ci[side][1] = r->mean[side] + half;
    }
}

/* The U statistic's side: where b lies against a (-1 lower, 1 higher, 0 neither). */
static int direction_of(const compare_values *a, const compare_values *b)
{
    double u1, half = (double)a->n * (double)b->n / 2;
    if (!a->n || !b->n)
        return 0;
    (void)compare_mann_whitney(a->v, a->n, b->v, b->n, &u1); /* u1: pairs with b below a */
    return u1 > half ? -1 : u1 < half ? 1 : 0;
}

/* The figures of a row with both sides' values: within[] holds the values of a side's one run. */
static void finish_row(compare_row *r, const compare_values *within)
{
    double u1;
    side_stats(r, 0, &r->base, &within[0]);
    side_stats(r, 1, &r->new_, &within[1]);
    r->has_delta = r->base.n && r->new_.n && r->median[0] != 0;
    r->delta_pct = r->has_delta ? (r->median[1] / r->median[0] - 1) * 100 : 0;
    r->per_run = r->base.n > 1 && r->new_.n > 1;
    r->has_p = r->base.n && r->new_.n && r->base.n + r->new_.n > 2;
    r->p_value = r->has_p ? compare_mann_whitney_exact(r->base.v, r->base.n, r->new_.v, r->new_.n, &u1) : 1;
    r->direction = r->base.n == 1 && r->new_.n == 1 && within[0].n && within[1].n
                       ? direction_of(&within[0], &within[1])
                       : direction_of(&r->base, &r->new_);
    r->has_shift = r->per_run && r->median[0] != 0;
    r->shift_pct =
        r->has_shift ? compare_hodges_lehmann(r->base.v, r->base.n, r->new_.v, r->new_.n) / r->median[0] * 100 : 0;
    r->has_p99_ci = r->per_run && welch_change(&r->p99[0], &r->p99[1], r->p99_ci);
    r->only = !r->new_.n ? 1 : !r->base.n ? 2 : 0;
}

/* A row for key k if either side has a value: 1 made, 0 none, or ENOMEM. */
static int make_row(compare_row *r, const trace_units *const *t, const size_t *traces, const row_key *k,
                    const char *name, const char *unit)
{
    compare_values within[2] = {{NULL, 0}, {NULL, 0}};
    int side, rc = TTFT_TPOT_OK;
    memset(r, 0, sizeof *r);
    snprintf(r->metric, sizeof r->metric, "%s", name);
    r->unit = unit;
    r->role = k->metric < 0 ? k->role : -1;
    for (side = 0; side < 2 && rc == TTFT_TPOT_OK; side++)
        rc = side_values(t[side], traces[side], k, side ? &r->new_ : &r->base, &r->p99[side]);
    for (side = 0; side < 2 && rc == TTFT_TPOT_OK; side++) /* one run a side: that run's own values */
        if ((side ? r->new_.n : r->base.n) == 1 && traces[side] == 1 && !t[side][0].runs)
            rc = unit_values(&t[side][0], k, &within[side]);
    if (rc == TTFT_TPOT_OK && (r->base.n || r->new_.n))
        finish_row(r, within);
    free(within[0].v);
    free(within[1].v);
    return rc != TTFT_TPOT_OK ? rc : r->base.n || r->new_.n;
}

static void free_row(compare_row *r)
{
    free(r->base.v);
    free(r->new_.v);
    free(r->p99[0].v);
    free(r->p99[1].v);
}

/* Whether a row judges the verdict: the headline metrics, and the phases when asked. */
static int headline(const row_key *k, const compare_options *o)
{
    return k->metric == COMPARE_TTFT_STEADY || k->metric == COMPARE_TPOT || k->metric == COMPARE_OUTPUT ||
           k->metric == COMPARE_REQUEST + TTFT_TPOT_METRIC_TTFT || k->metric == COMPARE_REQUEST + TTFT_TPOT_METRIC_TPOT ||
           k->metric == COMPARE_REQUEST + TTFT_TPOT_METRIC_E2E || (k->metric < 0 && o->phases);
}

/* Adds the row of k to res when either side has it: OK or ENOMEM. */
static int add_row(compare_result *res, const trace_units *const *t, const size_t *traces, const row_key *k,
                   const char *name)
{
    compare_row *r = &res->rows[res->n];
    int made = make_row(r, t, traces, k, name, k->metric == COMPARE_OUTPUT ? "tok/s" : "ms");
    if (made < 0) {
        free_row(r);
        return made;
    }
    if (made) {
        r->in_verdict = !r->only && headline(k, &res->opt);
        res->n++;
    } else
        free_row(r);
    return TTFT_TPOT_OK;
}

/* Whether a trace before t[side][i] (base traces first) has the phase of k. */
static int named_before(const trace_units *const *t, const size_t *traces, size_t side, size_t i, const row_key *k)
{
    size_t s, j;
    for (s = 0; s <= side; s++)
        for (j = 0; j < (s == side ? i : traces[s]); j++)
            if (phase_in(&t[s][j], k) >= 0)
                return 1;
    return 0;
}

/* A row a phase either side has, by name and role, in the order the sides name them. */
static int phase_rows(compare_result *res, const trace_units *const *t, const size_t *traces)
{
    char name[TTFT_TPOT_NAME_MAX + 8];
    size_t side, i;
    unsigned p;
    int rc = TTFT_TPOT_OK;
    for (side = 0; side < 2; side++)
        for (i = 0; i < traces[side]; i++)
            for (p = 0; p < t[side][i].m->phases && rc == TTFT_TPOT_OK; p++) {
                const ttft_tpot_phase_figures *ph = &t[side][i].m->phase[p];
                row_key k;
                k.metric = -1, k.phase = ph->name, k.role = ph->role;
                snprintf(name, sizeof name, "phase:%s", ph->name);
                if (!named_before(t, traces, side, i, &k))
                    rc = add_row(res, t, traces, &k, name);
            }
    return rc;
}

/* Every row: the sample metrics, the request metrics when a side has requests, the phases. */
static int all_rows(compare_result *res, const trace_units *const *t, const size_t *traces)
{
    static const char *const names[] = {"ttft_first", "ttft_steady", "tpot", "e2e", "output_throughput"};
#define COMPARE_NAME(name, label, words, json, prom, help, le, under, note, cmp, ...) cmp,
    static const char *const metric_names[] = {TTFT_TPOT_METRICS(COMPARE_NAME)};
#undef COMPARE_NAME
    size_t side, i;
    int k, requests = 0, rc = TTFT_TPOT_OK;
    for (side = 0; side < 2; side++)
        for (i = 0; i < traces[side]; i++)
            requests |= t[side][i].m->requests.seen > 0;
    for (k = 0; k < COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT && rc == TTFT_TPOT_OK; k++) {
        row_key key;
        key.metric = k, key.phase = NULL, key.role = -1;
        if ((k == COMPARE_E2E && requests) || (k >= COMPARE_REQUEST && !requests))
            continue; /* with requests, e2e is the requests' */
        rc = add_row(res, t, traces, &key, k < COMPARE_REQUEST ? names[k] : metric_names[k - COMPARE_REQUEST]);
    }
    return rc == TTFT_TPOT_OK ? phase_rows(res, t, traces) : rc;
}

/* ---- The verdict -------------------------------------------------------------------------------------- */

int compare_better(const compare_row *r)
{
    return strcmp(r->unit, "tok/s") == 0 ? r->direction > 0 : r->direction < 0;
}

static int by_p_value(const void *a, const void *b)
{
    double x = (*(const compare_row *const *)a)->p_value, y = (*(const compare_row *const *)b)->p_value;
    return (x > y) - (x < y);
}

/* Holm's step-down adjustment over the rows of one family (in_verdict == verdict) that have a p-value;
   a row is significant when its adjusted p is below alpha and its runs could reach alpha / m. */
static unsigned holm(compare_result *res, int verdict)
{
    compare_row **by_p = (compare_row **)malloc((res->n + 1) * sizeof *by_p);
    size_t i, j, m = 0;
    double running = 0;
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only && res->rows[i].in_verdict == verdict) {
            res->rows[i].p_holm = 1;
            m++;
        }
    for (i = 0; i < res->n; i++) { /* none reach what their runs cannot: too_few */
        compare_row *r = &res->rows[i];
        if (!r->only && r->in_verdict == verdict)
            r->too_few = compare_min_p(r->base.n, r->new_.n) >= res->opt.alpha / (double)m;
    }
    if (!by_p)
        return (unsigned)m; /* every p_holm stays 1: nothing significant */
    for (i = 0, j = 0; i < res->n; i++)
        if (!res->rows[i].only && res->rows[i].in_verdict == verdict && res->rows[i].has_p)
            by_p[j++] = &res->rows[i];
    qsort(by_p, j, sizeof *by_p, by_p_value);
    for (i = 0; i < j; i++) {
        compare_row *r = by_p[i];
        double adj = fmin(1, (double)(m - i) * r->p_value);
        running = fmax(running, adj);
        r->p_holm = running;
        r->significant = !r->too_few && r->per_run && r->p_holm < res->opt.alpha;
        r->within_noise = r->significant && r->has_shift && fabs(r->shift_pct) < res->opt.noise_pct;
    }
    free(by_p);
    return (unsigned)m;
}

/* The kind of the verdict and the power of its runs. */
static void judge(compare_result *res)
{
    size_t i;
    int better = 0, worse = 0, noise = 0, reachable = 0;
    unsigned n;
    res->family = holm(res, 1);
    (void)holm(res, 0);
    res->runs[0] = res->runs[1] = 0;
    res->best_p = 1;
    for (i = 0; i < res->n; i++) {
        const compare_row *r = &res->rows[i];
        if (!r->in_verdict)
            continue;
        if (!res->runs[0] || r->base.n < res->runs[0])
            res->runs[0] = r->base.n;
        if (!res->runs[1] || r->new_.n < res->runs[1])
            res->runs[1] = r->new_.n;
        res->best_p = fmin(res->best_p, compare_min_p(r->base.n, r->new_.n));
        reachable |= !r->too_few && r->per_run;
        noise += r->within_noise;
        better += r->significant && !r->within_noise && compare_better(r);
        worse += r->significant && !r->within_noise && !compare_better(r);
    }
    for (n = 2; res->family && n < 1000 && compare_min_p(n, n) >= res->opt.alpha / res->family; n++)
        ;
    res->runs_needed = n;
    res->kind = better && worse ? COMPARE_TRADE_OFF
                : worse         ? COMPARE_REGRESSION
                : better        ? COMPARE_IMPROVEMENT
                : noise         ? COMPARE_WITHIN_NOISE
                : reachable     ? COMPARE_NO_DIFFERENCE
                                : COMPARE_UNDECIDED;
}

compare_options compare_defaults(void)
{
    compare_options o;
    o.alpha = 0.05;
    o.noise_pct = COMPARE_NOISE_PCT;
    o.phases = 0;
    return o;
}

int compare_sides(const compare_side *base, const compare_side *new_, const compare_options *o, compare_result *res)
{
    trace_units *t[2] = {NULL, NULL};
    size_t traces[2], side, i, cap = COMPARE_REQUEST + TTFT_TPOT_METRIC_COUNT + 1, made[2] = {0, 0};
    int rc = TTFT_TPOT_OK;
    memset(res, 0, sizeof *res);
    res->opt = o ? *o : compare_defaults();
    res->traces[0] = base->n, res->traces[1] = new_->n;
    traces[0] = base->n, traces[1] = new_->n;
    for (side = 0; side < 2; side++) {
        const compare_side *s = side ? new_ : base;
        if (!(t[side] = (trace_units *)calloc(s->n + 1, sizeof *t[side])))
            rc = TTFT_TPOT_ENOMEM;
        for (i = 0; rc == TTFT_TPOT_OK && i < s->n; i++, made[side]++) {
            cap += s->trace[i]->phases;
            rc = units_of(s->trace[i], &t[side][i]);
        }
    }
    if (rc == TTFT_TPOT_OK && !(res->rows = (compare_row *)calloc(cap, sizeof *res->rows)))
        rc = TTFT_TPOT_ENOMEM;
    if (rc == TTFT_TPOT_OK)
        rc = all_rows(res, (const trace_units *const *)t, traces);
    if (rc == TTFT_TPOT_OK)
        judge(res);
    for (side = 0; side < 2; side++) {
        for (i = 0; i < made[side]; i++)
            units_free(&t[side][i]);
        free(t[side]);
    }
    if (rc != TTFT_TPOT_OK)
        compare_free(res);
    return rc;
}

int compare_models(const ttft_tpot_model *base, const ttft_tpot_model *new_, const compare_options *o,
                   compare_result *res)
{
    compare_side b, n;
    b.trace = &base, b.n = 1;
    n.trace = &new_, n.n = 1;
    return compare_sides(&b, &n, o, res);
}

void compare_free(compare_result *res)
{
    size_t i;
    for (i = 0; res->rows && i < res->n; i++)
        free_row(&res->rows[i]);
    free(res->rows);
    res->rows = NULL;
    res->n = 0;
}

/* ---- Output ------------------------------------------------------------------------------------------- */

/* Whether row r belongs to verdict list `which`: 0 worse, 1 better, 2 within noise. */
static int in_list(const compare_row *r, int which)
{
    if (!r->in_verdict || !r->significant)
        return 0;
    return which == 2 ? r->within_noise : !r->within_noise && compare_better(r) == which;
}

/* The verdict's lists, "new is worse on a (+1.00%); better on b (+2.00%); within noise: c (-0.50%)",
   each one that has a row. */
static void verdict_lists(FILE *out, const compare_result *res, int html)
{
    static const char *const head[3] = {"worse on ", "better on ", "within noise: "};
    size_t i;
    int which, any = 0;
    for (which = 0; which < 3; which++) {
        size_t k = 0;
        for (i = 0; i < res->n; i++) {
            const compare_row *r = &res->rows[i];
            if (!in_list(r, which))
                continue;
            fputs(k++ ? ", " : any++ ? "; " : "new is ", out);
            if (k == 1)
                fputs(head[which], out);
            if (html)
                html_text(out, r->metric);
            else
                fputs(r->metric, out);
            fprintf(out, " (%+.2f%%)", r->has_shift ? r->shift_pct : r->delta_pct);
        }
    }
}

static const char *const kind_json[] = {
#define COMPARE__KIND_NAME(name, json) json,
    COMPARE_KINDS(COMPARE__KIND_NAME)
#undef COMPARE__KIND_NAME
};

void compare_verdict(FILE *out, const compare_result *res, int html)
{
    static const char *const said[] = {"no significant difference", "within noise", "an improvement", "a regression",
                                       "a trade-off", "undecided"};
    const char *end = html ? "" : "\n";
    double need = res->family ? res->opt.alpha / res->family : res->opt.alpha;
    size_t i, still = 0;
    fprintf(out, "Verdict: %s", said[res->kind]);
    if (res->kind == COMPARE_UNDECIDED && !res->family) {
        fprintf(out, ": no headline metric both sides have%s", end);
        return;
    }
    if (res->kind == COMPARE_UNDECIDED) {
        fprintf(out, ": %zu and %zu runs can give p = %.3g at best, and %u headline metric%s need%s p < %.3g (alpha %g, "
                     "Holm): run %u or more a side, interleaved base/new/base/new where the driver allows it%s",
                res->runs[0], res->runs[1], res->best_p, res->family, res->family == 1 ? "" : "s",
                res->family == 1 ? "s" : "", need, res->opt.alpha, res->runs_needed, end);
        return;
    }
    if (res->kind == COMPARE_NO_DIFFERENCE) {
        fprintf(out, " on any of the %u headline metric%s (alpha %g, Holm; %zu and %zu runs)%s", res->family,
                res->family == 1 ? "" : "s", res->opt.alpha, res->runs[0], res->runs[1], end);
        return;
    }
    fputs(": ", out);
    verdict_lists(out, res, html);
    for (i = 0; i < res->n; i++)
        still += res->rows[i].in_verdict && !res->rows[i].significant;
    if (still)
        fprintf(out, "; no significant change on %zu other%s", still, still == 1 ? "" : "s");
    fprintf(out, " (alpha %g, Holm; noise %g%%; %zu and %zu runs)%s", res->opt.alpha, res->opt.noise_pct, res->runs[0],
            res->runs[1], end);
}

/* A side's cell: "3.22 [3.19, 3.25]" (runs: their mean and its t-interval; one run: its p50 and the
   interval of its own values), "3.22 [n<6]", or "-" for a side with no value. */
static const char *side_text(char *buf, size_t len, const compare_row *r, int side)
{
    const compare_values *x = side ? &r->new_ : &r->base;
    if (!x->n)
        snprintf(buf, len, "-");
    else if (r->has_mean_ci[side])
        snprintf(buf, len, "%.4g [%.4g, %.4g]", r->mean[side], r->mean_ci[side][0], r->mean_ci[side][1]);
    else if (r->has_ci[side])
        snprintf(buf, len, "%.4g [%.4g, %.4g]", r->median[side], r->ci[side][0], r->ci[side][1]);
    else if (strcmp(r->unit, "ms") != 0) /* one run's rate: no interval of its own */
        snprintf(buf, len, "%.4g", r->median[side]);
    else
        snprintf(buf, len, "%.4g [n<%llu]", r->median[side], (unsigned long long)ttft_tpot_ci95_min_n(50));
    return buf;
}

/* "only in base: a, b" for the metrics only side `only` (1 base, 2 new) has; nothing when none. */
static void only_line(FILE *out, const compare_result *res, int only)
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
static const char *change_text(char *buf, size_t len, const compare_row *r)
{
    if (!r->has_delta)
        snprintf(buf, len, "n/a");
    else if (r->within_noise)
        snprintf(buf, len, "noise");
    else if (r->significant)
        snprintf(buf, len, "%+.2f%%", r->has_shift ? r->shift_pct : r->delta_pct);
    else
        snprintf(buf, len, "~");
    return buf;
}

static void text_row(FILE *out, const compare_row *r)
{
    char name[96], b[64], nw[64], d[32], p[32], p99[64];
    snprintf(name, sizeof name, "%s (%s%s)%s", r->metric, r->unit, r->per_run ? ", runs" : "", r->in_verdict ? " *" : "");
    if (r->has_p && r->per_run)
        snprintf(p, sizeof p, r->p_holm < 0.001 ? "p<0.001" : "p=%.3f", r->p_holm);
    else
        snprintf(p, sizeof p, "-");
    if (r->has_p99_ci)
        snprintf(p99, sizeof p99, "[%+.1f%%, %+.1f%%]", r->p99_ci[0], r->p99_ci[1]);
    else
        snprintf(p99, sizeof p99, "-");
    fprintf(out, "%-36s %-28s %-28s %-9s %-8s %-18s (n=%zu+%zu)%s\n", name, side_text(b, sizeof b, r, 0),
            side_text(nw, sizeof nw, r, 1), change_text(d, sizeof d, r), p, p99, r->base.n, r->new_.n,
            !r->per_run ? "  one run a side: too few runs to decide" : r->too_few ? "  too few runs to decide" : "");
}

/* Runs of one process a side share its memory placement and the machine's state: a difference
   between two processes of one build reads as a change. Said under a verdict that claims one. */
static void one_process_caveat(FILE *out, const compare_result *res)
{
    if (res->traces[0] == 1 && res->traces[1] == 1 && res->kind != COMPARE_UNDECIDED &&
        res->kind != COMPARE_NO_DIFFERENCE)
        fputs("(one process a side: its runs share the process's memory placement and the machine's state, so a "
              "difference between two processes of the same build reads as a change; to rule that out, interleave "
              "processes, a trace each: --base b1.csv --new n1.csv --base b2.csv ...)\n",
              out);
}

void compare_text(FILE *out, const compare_result *res)
{
    size_t i;
    compare_verdict(out, res, 0);
    one_process_caveat(out, res);
    fprintf(out, "%-36s %-28s %-28s %-9s %-8s %-18s %s\n", "metric (* in the verdict)", "base [95% CI]", "new [95% CI]",
            "change", "p (Holm)", "p99 change [95% CI]", "runs");
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only)
            text_row(out, &res->rows[i]);
    only_line(out, res, 1);
    only_line(out, res, 2);
    fprintf(out, "The run is the unit: a side of runs shows their mean with its 95%% t-interval; a side of one run, its p50 "
                 "with the interval of its own values (not where another run lands). change: the Hodges-Lehmann shift "
                 "over the runs; ~: no significant difference (two-sided Mann-Whitney U over the runs, Holm-adjusted p >= "
                 "%g); noise: significant, under %g%%. p99 change: Welch's interval over the runs' p99s.\n",
            res->opt.alpha, res->opt.noise_pct);
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

static void json_side(FILE *out, const compare_row *r, int side)
{
    const compare_values *x = side ? &r->new_ : &r->base;
    fprintf(out, ",\"%s\":{\"n\":%zu,\"median\":", side ? "new" : "base", x->n);
    json_num(out, x->n > 0, r->median[side]);
    fputs(",\"ci95\":", out);
    json_pair(out, r->has_ci[side], r->ci[side]);
    fputs(",\"mean\":", out);
    json_num(out, x->n > 0, r->mean[side]);
    fputs(",\"mean_ci95\":", out);
    json_pair(out, r->has_mean_ci[side], r->mean_ci[side]);
    fputc('}', out);
}

static void json_row(FILE *out, const compare_row *r)
{
    static const char *const way[3] = {"lower", "same", "higher"};
    fputs("{\"metric\":", out);
    json_metric(out, r->metric);
    fprintf(out, ",\"unit\":\"%s\",\"per_run\":%s,\"in_verdict\":%s", r->unit, r->per_run ? "true" : "false",
            r->in_verdict ? "true" : "false");
    json_side(out, r, 0);
    json_side(out, r, 1);
    fputs(",\"delta_pct\":", out);
    json_num(out, r->has_delta, r->delta_pct);
    fputs(",\"shift_pct\":", out);
    json_num(out, r->has_shift, r->shift_pct);
    fprintf(out, ",\"direction\":\"%s\",\"p_value\":", way[r->direction + 1]);
    json_num(out, r->has_p, r->p_value);
    fputs(",\"p_holm\":", out);
    json_num(out, r->has_p, r->p_holm);
    fprintf(out, ",\"significant\":%s,\"within_noise\":%s,\"better\":%s,\"too_few\":%s,\"p99_delta_pct_ci95\":",
            r->significant ? "true" : "false", r->within_noise ? "true" : "false",
            !r->significant ? "null" : compare_better(r) ? "true" : "false", r->too_few || !r->per_run ? "true" : "false");
    json_pair(out, r->has_p99_ci, r->p99_ci);
    fputc('}', out);
}

/* "verdict":{"kind":K,"better":[...],"worse":[...],"within_noise":[...],"family":N,"runs":[B,N],
   "best_p":P,"runs_needed":N} */
static void json_verdict(FILE *out, const compare_result *res)
{
    static const char *const list[3] = {"worse", "better", "within_noise"};
    static const int order[3] = {1, 0, 2};
    size_t i;
    int k;
    fprintf(out, ",\"verdict\":{\"kind\":\"%s\"", kind_json[res->kind]);
    for (k = 0; k < 3; k++) {
        int put = 0;
        fprintf(out, ",\"%s\":[", list[order[k]]);
        for (i = 0; i < res->n; i++)
            if (in_list(&res->rows[i], order[k])) {
                fputs(put++ ? "," : "", out);
                json_metric(out, res->rows[i].metric);
            }
        fputc(']', out);
    }
    fprintf(out, ",\"family\":%u,\"runs\":[%zu,%zu],\"traces\":[%zu,%zu],\"best_p\":", res->family, res->runs[0],
            res->runs[1], res->traces[0], res->traces[1]);
    json_num(out, 1, res->best_p);
    fprintf(out, ",\"runs_needed\":%u}", res->runs_needed);
}

void compare_json(FILE *out, const compare_result *res)
{
    size_t i, put = 0;
    int side;
    fputs("{\"schema\":\"ttft_tpot/compare-v1\",\"alpha\":", out);
    json_num(out, 1, res->opt.alpha);
    fputs(",\"noise_pct\":", out);
    json_num(out, 1, res->opt.noise_pct);
    json_verdict(out, res);
    fputs(",\"rows\":[", out);
    for (i = 0; i < res->n; i++)
        if (!res->rows[i].only) {
            fputs(put++ ? "," : "", out);
            json_row(out, &res->rows[i]);
        }
    for (side = 1; side <= 2; side++) { /* the metrics one side has: nothing to compare */
        fputs(side == 1 ? "],\"only_in_base\":[" : "],\"only_in_new\":[", out);
        for (i = 0, put = 0; i < res->n; i++)
            if (res->rows[i].only == side) {
                fputs(put++ ? "," : "", out);
                json_metric(out, res->rows[i].metric);
            }
    }
    fputs("]}\n", out);
}
