/* compare_html.c - the headline of the HTML comparison (ttft_tpot_report --html with two traces): the
   rows of compare.c as a table. */
#include "compare.h"

#include "svg.h"

/* A side's runs' mean and its 95% t-interval, or its one run's p50 and the interval of that run's values,
   or n/a where the side has no value or too few. */
static void median_cell(FILE *out, const compare_row *r, int k)
{
    if ((k ? r->new_.n : r->base.n) == 0)
        fputs("<td>n/a</td>", out);
    else if (r->has_mean_ci[k]) /* runs: their mean and its t-interval */
        fprintf(out, "<td>%.4g [%.4g, %.4g]</td>", r->mean[k], r->mean_ci[k][0], r->mean_ci[k][1]);
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

int compare_html(FILE *out, const ttft_tpot_model *const *m)
{
    compare_options o = compare_defaults();
    compare_result res;
    const compare_row *rows;
    size_t n, i;
    if (compare_models(m[0], m[1], &o, &res) != TTFT_TPOT_OK)
        return -1;
    rows = res.rows, n = res.n;
    fputs("<p class=\"verdict\">", out);
    compare_verdict(out, &res, 1);
    fputs("</p>\n<table>\n<tr><th>Metric</th><th>Base [95% CI]</th><th>New [95% CI]</th><th>Change</th>"
          "<th>p (Mann-Whitney over runs, Holm)</th></tr>\n", out);
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
        if (r->has_delta && r->within_noise)
            fprintf(out, "<td title=\"%+.1f%%\">within noise</td>", r->shift_pct);
        else if (r->has_delta && r->significant) /* coloured by the metric's direction: latency up is worse */
            fprintf(out, "<td class=\"%s\">%+.1f%% %s</td>", compare_better(r) ? "better" : "worse",
                    r->has_shift ? r->shift_pct : r->delta_pct, compare_better(r) ? "better" : "worse");
        else if (r->has_delta) /* as the text: not significant is ~, the change in the title */
            fprintf(out, "<td title=\"%+.1f%%\">~</td>", r->delta_pct);
        else
            fputs("<td>n/a</td>", out);
        if (r->has_p && r->per_run)
            fprintf(out, "<td>%.3g</td></tr>\n", r->p_holm);
        else
            fputs("<td>too few runs</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">~: no significant difference at 0.05 over the runs (Holm).", out);
    only_list(out, rows, n, 1);
    only_list(out, rows, n, 2);
    fputs("</p>\n", out);
    compare_free(&res);
    return 0;
}
