/* ranks.c - ttft_tpot_report --ranks (ranks.h). */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#endif
#include "ranks.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* A rank's steady decode steps in call order, into a new array; how many in *n. NULL with *n 0 when it
   has none or keeps some in a histogram (they cannot be lined up), else NULL only out of memory. */
static uint64_t *steps_of(const ttft_tpot *c, size_t *n)
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

int ranks_compute(const ttft_tpot *const *c, int n, ranks_figures *f)
{
    uint64_t *step[RANKS_MAX], *max = NULL, *spread = NULL;
    size_t len[RANKS_MAX], i, total = 0;
    int r, made = 0, rc = 0;
    memset(f, 0, sizeof *f);
    f->n = n;
    for (r = 0; r < n && rc == 0; r++, made++) {
        step[r] = steps_of(c[r], &len[r]);
        rc = !step[r] ? (len[r] == 0 ? -2 : -1)
                      : ttft_tpot_stats_of(c[r], step[r], len[r], &f->rank[r]) == TTFT_TPOT_OK ? 0 : -1;
        total += len[r];
        if (r == 0 || len[r] < f->steps)
            f->steps = len[r];
    }
    if (rc == 0 && (!(max = (uint64_t *)malloc(f->steps * sizeof *max)) ||
                    !(spread = (uint64_t *)malloc(f->steps * sizeof *spread))))
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
    f->unmatched = total - (uint64_t)f->steps * (uint64_t)n;
    if (rc == 0 && (ttft_tpot_stats_of(c[0], max, f->steps, &f->tpot) != TTFT_TPOT_OK ||
                    ttft_tpot_stats_of(c[0], spread, f->steps, &f->spread) != TTFT_TPOT_OK))
        rc = -1;
    free(max);
    free(spread);
    for (r = 0; r < made; r++)
        free(step[r]);
    return rc;
}

/* ns as ms with two decimals, us below 1 ms, whole ns below 1 us, as the report writes small times. */
static const char *ms_text(char *buf, size_t len, double ns)
{
    if (ns < 999.5) /* "0.00 us" would hide a step of a few ns */
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else
        snprintf(buf, len, "%.2f ms", ns / 1e6);
    return buf;
}

void ranks_text(FILE *out, const ranks_figures *f, const char *const *names)
{
    char a[32], b[32], c[32], d[1024];
    int r;
    fprintf(out, "Tensor-parallel ranks: %d (a step waits for its slowest rank: its time is the maximum over the "
                 "ranks)\nrank  steps        p50        p99       mean  slowest  trace\n", f->n);
    for (r = 0; r < f->n; r++)
        fprintf(out, "%4d %6llu %10s %10s %10s %7.1f%%  %s\n", r, (unsigned long long)f->rank[r].n,
                ms_text(a, sizeof a, f->rank[r].p50_ns), ms_text(b, sizeof b, f->rank[r].p99_ns),
                ms_text(c, sizeof c, f->rank[r].mean_ns),
                f->steps ? 100.0 * (double)f->slowest[r] / (double)f->steps : 0.0, cli_escaped(d, sizeof d, names[r]));
    fprintf(out, "TPOT (step = max over ranks): p50 %s, p90 %s, p99 %s, ", ms_text(a, sizeof a, f->tpot.p50_ns),
            ms_text(b, sizeof b, f->tpot.p90_ns), ms_text(c, sizeof c, f->tpot.p99_ns));
    fprintf(out, "mean %s  (n=%llu steps lined up", ms_text(a, sizeof a, f->tpot.mean_ns),
            (unsigned long long)f->steps);
    if (f->unmatched)
        fprintf(out, "; %llu step%s past the shortest rank left out", (unsigned long long)f->unmatched,
                f->unmatched == 1 ? "" : "s");
    fputs(")\n", out);
    fprintf(out, "Straggler spread (max - min per step): p50 %s, p99 %s, max %s\n",
            ms_text(a, sizeof a, f->spread.p50_ns), ms_text(b, sizeof b, f->spread.p99_ns),
            ms_text(c, sizeof c, (double)f->spread.max_ns));
}

/* ns as ms to the ns (rounded half up), as the report's JSON writes times: "0.000101", "2.0". Steps are
   below 2^64 ns, and so is any figure of them but a total, which saturates. */
static void json_ms(FILE *out, const char *key, double ns)
{
    unsigned long long r = ns + 0.5 < 18446744073709551615.0 ? (unsigned long long)(ns + 0.5) : ~0ULL;
    char frac[8];
    int k;
    snprintf(frac, sizeof frac, "%06llu", r % 1000000);
    for (k = 5; k > 0 && frac[k] == '0'; k--) /* at least one decimal */
        frac[k] = '\0';
    fprintf(out, ",\"%s\":%llu.%s", key, r / 1000000, frac);
}

static void json_stats(FILE *out, const ttft_tpot_stats *s)
{
    fprintf(out, "{\"n\":%llu", (unsigned long long)s->n);
    json_ms(out, "mean_ms", s->mean_ns);
    json_ms(out, "p50_ms", s->p50_ns);
    json_ms(out, "p90_ms", s->p90_ns);
    json_ms(out, "p95_ms", s->p95_ns);
    json_ms(out, "p99_ms", s->p99_ns);
    json_ms(out, "min_ms", (double)s->min_ns);
    json_ms(out, "max_ms", (double)s->max_ns);
    json_ms(out, "total_ms", s->total_ns);
    fputc('}', out);
}

void ranks_json(FILE *out, const ranks_figures *f)
{
    int r;
    fprintf(out, "\"ranks\":{\"n\":%d,\"steps\":%llu,\"unmatched\":%llu,\"tpot\":", f->n,
            (unsigned long long)f->steps, (unsigned long long)f->unmatched);
    json_stats(out, &f->tpot);
    fputs(",\"slowest\":[", out);
    for (r = 0; r < f->n; r++)
        fprintf(out, r ? ",%llu" : "%llu", (unsigned long long)f->slowest[r]);
    fputs("],\"spread\":", out);
    json_stats(out, &f->spread);
    fputs(",\"per_rank\":[", out);
    for (r = 0; r < f->n; r++) {
        fputs(r ? "," : "", out);
        json_stats(out, &f->rank[r]);
    }
    fputs("]}", out);
}

int ranks_report(FILE *out, const ttft_tpot *rank0, const ranks_figures *f, const char *const *names, int json)
{
    ttft_tpot_model m;
    char *doc = NULL;
    size_t len = 0;
    FILE *mem;
    int rc = ttft_tpot_model_compute(rank0, NULL, &m);
    if (rc != TTFT_TPOT_OK)
        return rc;
    if (!json) {
        rc = ttft_tpot_model_report(&m, out);
        fputc('\n', out);
        ranks_text(out, f, names);
    } else if ((mem = open_memstream(&doc, &len)) != NULL) { /* the report's object, "ranks" added */
        rc = ttft_tpot_model_report_json(&m, mem);
        fclose(mem);
        if (rc == TTFT_TPOT_OK && len >= 2 && doc[len - 2] == '}') {
            fwrite(doc, 1, len - 2, out);
            fputc(',', out);
            ranks_json(out, f);
            fputs("}\n", out);
        }
        free(doc);
    } else {
        rc = TTFT_TPOT_ENOMEM;
    }
    ttft_tpot_model_free(&m);
    return rc;
}
