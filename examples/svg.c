/* svg.c - the charts of the HTML report (svg.h). */
#include "svg.h"

#include <math.h>
#include <string.h>

const char *const svg_colors[6] = {"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9"};

#define W 720.0
#define H 320.0
#define ML 72.0 /* margins: room for the tick labels and the axis titles */
#define MR 16.0
#define MT 34.0
#define MB 50.0
#define COLUMNS 700 /* a long series keeps its extremes in this many columns */
#define MAX_TICKS 40 /* an axis has at most this many ticks, whatever its range */

void html_text(FILE *out, const char *text)
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

int svg_wants_log(const svg_series *s, int ns)
{
    double lo = HUGE_VAL, hi = 0;
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            lo = s[k].y[i] > 0 && s[k].y[i] < lo ? s[k].y[i] : lo;
            hi = s[k].y[i] > hi ? s[k].y[i] : hi;
        }
    return lo < HUGE_VAL && hi > 20 * lo;
}

/* [*lo, *hi] made at least a millionth of its magnitude wide around its middle, so that values 1 ulp
   apart get ticks that step; a single value gets 5% of itself either side (1 for 0), so that it is
   drawn inside the frame, not on it. */
static void widen(double *lo, double *hi)
{
    double mid = *lo / 2 + *hi / 2, half = fmax(fabs(*lo), fabs(*hi)) * 5e-7;
    if (*hi - *lo >= 2 * half && *hi > *lo)
        return;
    if (*lo == *hi)
        half = mid ? fabs(mid) * 0.05 : 0.5;
    *lo = mid - half;
    *hi = mid + half;
}

/* The range a chart shows: every series' x and y (y > 0 only on a log scale). */
typedef struct range {
    double x0, x1, y0, y1;
    int logy;
} range;

static range range_of(const svg_series *s, int ns, int logy)
{
    range r = {HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL, logy};
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            if (logy && !(s[k].y[i] > 0))
                continue;
            r.x0 = s[k].x[i] < r.x0 ? s[k].x[i] : r.x0; /* finite values: plain comparisons, no libm call */
            r.x1 = s[k].x[i] > r.x1 ? s[k].x[i] : r.x1;
            r.y0 = s[k].y[i] < r.y0 ? s[k].y[i] : r.y0;
            r.y1 = s[k].y[i] > r.y1 ? s[k].y[i] : r.y1;
        }
    if (r.x0 > r.x1)
        r.x0 = 0, r.x1 = 1, r.y0 = 1, r.y1 = 2;
    if (logy) {
        r.y0 = pow(10, floor(log10(r.y0)));
        r.y1 = pow(10, ceil(log10(r.y1)));
    } else {
        r.y0 = r.y0 > 0 ? 0 : r.y0; /* linear: from 0, so that bars of time compare */
    }
    widen(&r.x0, &r.x1);
    if (logy && r.y1 <= r.y0)
        r.y1 = r.y0 * 10;
    else if (!logy)
        widen(&r.y0, &r.y1);
    return r;
}

static double px(const range *r, double x)
{
    return ML + (x - r->x0) / (r->x1 - r->x0) * (W - ML - MR);
}

static double py(const range *r, double y)
{
    double f = r->logy ? (log10(y) - log10(r->y0)) / (log10(r->y1) - log10(r->y0)) : (y - r->y0) / (r->y1 - r->y0);
    return H - MB - f * (H - MT - MB);
}

/* A tick step of 1, 2 or 5 times a power of ten, about extent / 5. */
static double nice_step(double extent)
{
    double raw = extent / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void tick_label(FILE *out, double x, double y, const char *anchor, int decimals, double v)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"tick\">%.*f</text>\n", x, y, anchor,
            decimals, v == 0 ? 0 : v); /* no -0 */
}

/* The ticks of a linear axis over [lo, hi] every step (MAX_TICKS at most, each computed from the first,
   not summed), labelled with as many decimals as the step has: no two read the same. */
static void linear_ticks(FILE *out, const range *r, double lo, double hi, double step, int xaxis)
{
    double first = ceil(lo / step) * step, v;
    int n = (int)fmin(MAX_TICKS, floor((hi - first) / step + 1e-6) + 1), k;
    int decimals = step >= 1 ? 0 : (int)fmin(20, -floor(log10(step)));
    for (k = 0; k < n; k++) {
        v = first + k * step;
        if (xaxis) {
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", px(r, v), MT,
                    px(r, v), H - MB);
            tick_label(out, px(r, v), H - MB + 16, "middle", decimals, v);
        } else {
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", ML, py(r, v),
                    W - MR, py(r, v));
            tick_label(out, ML - 6, py(r, v) + 4, "end", decimals, v);
        }
    }
}

static void axes(FILE *out, const range *r, const svg_chart *c)
{
    double step = nice_step(r->x1 - r->x0), v;
    int k;
    linear_ticks(out, r, r->x0, r->x1, c->xint && step < 1 ? 1 : step, 1);
    if (r->logy) {
        for (k = 0; k < MAX_TICKS && (v = r->y0 * pow(10, k)) <= r->y1 * 1.0001; k++) {
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", ML, py(r, v),
                    W - MR, py(r, v));
            tick_label(out, ML - 6, py(r, v) + 4, "end", v >= 1 ? 0 : (int)fmin(20, -floor(log10(v))), v);
        }
    } else {
        linear_ticks(out, r, r->y0, r->y1, nice_step(r->y1 - r->y0), 0);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">", (ML + W - MR) / 2, H - 12);
    html_text(out, c->xlabel);
    fprintf(out, "</text>\n<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\" "
                 "transform=\"rotate(-90 16 %.1f)\">", (MT + H - MB) / 2, (MT + H - MB) / 2);
    html_text(out, c->ylabel);
    fputs(r->logy ? " (log scale)</text>\n" : "</text>\n", out);
}

/* One point of a series: a dot, or the next vertex of its polyline (a CDF steps up at each value). */
static void point(FILE *out, const range *r, const svg_series *s, size_t i, double *last_y)
{
    if (r->logy && !(s->y[i] > 0))
        return;
    if (s->kind == SVG_DOTS) {
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" %s=\"%s\"/>\n", px(r, s->x[i]), py(r, s->y[i]),
                s->hollow ? "4" : "2.5", s->hollow ? "fill=\"none\" stroke-width=\"1.5\" stroke" : "fill", s->color);
        return;
    }
    if (s->kind == SVG_STEP && i > 0)
        fprintf(out, "%.1f,%.1f ", px(r, s->x[i]), py(r, *last_y));
    fprintf(out, "%.1f,%.1f ", px(r, s->x[i]), py(r, s->y[i]));
    *last_y = s->y[i];
}

/* A series; a long one column by column, each column's first, lowest, highest and last points in order. */
static void series(FILE *out, const range *r, const svg_series *s)
{
    size_t per = s->kind == SVG_STEP || s->n <= 2 * COLUMNS ? 1 : s->n / COLUMNS + 1, lo, i;
    double last_y = 0;
    if (s->kind != SVG_DOTS)
        fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", s->color);
    for (lo = 0; lo < s->n; lo += per) {
        size_t hi = lo + per < s->n ? lo + per : s->n, mn = lo, mx = lo, pick[4];
        int k;
        for (i = lo; i < hi; i++) {
            mn = s->y[i] < s->y[mn] ? i : mn;
            mx = s->y[i] > s->y[mx] ? i : mx;
        }
        pick[0] = lo, pick[1] = mn < mx ? mn : mx, pick[2] = mn < mx ? mx : mn, pick[3] = hi - 1;
        for (k = 0; k < 4; k++)
            if (k == 0 || pick[k] != pick[k - 1])
                point(out, r, s, pick[k], &last_y);
    }
    if (s->kind != SVG_DOTS)
        fputs("\"/>\n", out);
}

static void legend(FILE *out, const svg_series *s, int ns)
{
    double x = ML + 8;
    int k;
    for (k = 0; k < ns; k++) {
        if (s[k].kind == SVG_DOTS && s[k].hollow)
            fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>", x + 6,
                    MT - 12, s[k].color);
        else
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"4\" fill=\"%s\"/>", x, MT - 14, s[k].color);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"legend\">", x + 16, MT - 8);
        html_text(out, s[k].name);
        fputs("</text>\n", out);
        x += 24 + 7.0 * (double)strlen(s[k].name);
    }
}

void svg_plot(FILE *out, const svg_chart *c, const svg_series *s, int ns)
{
    range r = range_of(s, ns, c->logy);
    int k;
    fprintf(out, "<figure><figcaption>");
    html_text(out, c->title);
    if (c->note && *c->note) {
        fputs("<br><span class=\"note\">", out);
        html_text(out, c->note);
        fputs("</span>", out);
    }
    fprintf(out, "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", W, H);
    axes(out, &r, c);
    for (k = 0; k < ns; k++)
        series(out, &r, &s[k]);
    legend(out, s, ns);
    fputs("</svg></figure>\n", out);
}

void svg_bars(FILE *out, const char *title, const char *const *labels, size_t n, const double *const *values,
              const char *const *names, int ns)
{
    /* each group: its label on a line of its own (a phase name of 63 bytes fits across), then its bars */
    double row = 22.0 + 14.0 * ns, height = MT + row * (double)n + 12, x0 = 8, width = W - x0 - 70;
    size_t i;
    int k;
    fprintf(out, "<figure><figcaption>");
    html_text(out, title);
    fprintf(out, "</figcaption>\n<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", W, height);
    for (k = 0; ns > 1 && k < ns; k++) {
        fprintf(out, "<rect x=\"%.1f\" y=\"8\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"17\" "
                     "class=\"legend\">", x0 + 150.0 * k, svg_colors[k], x0 + 150.0 * k + 16);
        html_text(out, names[k]);
        fputs("</text>\n", out);
    }
    for (i = 0; i < n; i++) {
        double y = MT + row * (double)i;
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" class=\"tick\">", x0, y + 10);
        html_text(out, labels[i]);
        fputs("</text>\n", out);
        for (k = 0; k < ns; k++) {
            double v = values[k][i] > 0 ? values[k][i] : 0;
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%.1f%%</text>\n",
                    x0, y + 16 + 14.0 * k, width * (v < 1 ? v : 1), svg_colors[k], x0 + width * (v < 1 ? v : 1) + 4,
                    y + 26 + 14.0 * k, 100 * v);
        }
    }
    fputs("</svg></figure>\n", out);
}
