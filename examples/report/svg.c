/* svg.c - the charts of the HTML report (svg.h). */
#include "svg.h"

#include <math.h>
#include <stdint.h>
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

/* Whether the positive values of the series' x (on_x) or y spread over more than 20x. */
static int spread(const svg_series *s, int ns, int on_x)
{
    double lo = HUGE_VAL, hi = 0;
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double v = on_x ? s[k].x[i] : s[k].y[i];
            lo = v > 0 && v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    return lo < HUGE_VAL && hi > 20 * lo;
}

int svg_wants_log(const svg_series *s, int ns)
{
    return spread(s, ns, 0);
}

int svg_wants_logx(const svg_series *s, int ns)
{
    return spread(s, ns, 1);
}

/* A duration in ns in its unit: with 2 decimals (as the text report), or as %g for a decade's tick. */
static const char *dur_in(char *buf, size_t len, double ns, int tick)
{
    double div = ns < 1e3 ? 1 : ns < 1e6 ? 1e3 : ns < 1e9 ? 1e6 : 1e9;
    const char *unit = ns < 1e3 ? "ns" : ns < 1e6 ? "us" : ns < 1e9 ? "ms" : "s";
    snprintf(buf, len, tick ? "%g %s" : ns < 1e3 ? "%.0f %s" : "%.2f %s", ns / div, unit);
    return buf;
}

const char *svg_dur(char *buf, size_t len, double ns)
{
    return dur_in(buf, len, ns, 0);
}

const char *svg_ms_unit(double max_ms, double *scale)
{
    *scale = max_ms >= 2000 ? 1000 : 1;
    return max_ms >= 2000 ? "s" : "ms";
}

/* A decade's tick as a duration, v in unit ("ms" or "s"): "100 us", "1 ms", "10 s". */
static void human_tick(char *buf, size_t len, double v, const char *unit)
{
    dur_in(buf, len, v * (strcmp(unit, "s") == 0 ? 1e9 : 1e6), 1);
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

/* The range a chart shows: every series' x and y (> 0 only on a log scale; y up to the clip), and the
   marks' x where the data keeps at least half of it (take_marks). */
typedef struct range {
    double x0, x1, y0, y1;
    int logx, logy;
    double clip; /* > 0: y values above y1 are drawn on the top edge */
} range;

/* [*lo, *hi] out to whole decades, at least one wide. */
static void decades(double *lo, double *hi)
{
    *lo = pow(10, floor(log10(*lo)));
    *hi = pow(10, ceil(log10(*hi)));
    *hi = *hi <= *lo ? *lo * 10 : *hi;
}

/* Whether a point is drawn on a scale: positive on a log one. */
static int on_scale(const range *r, double x, double y)
{
    return (!r->logx || x > 0) && (!r->logy || y > 0);
}

/* v where the x axis places it: log10 of it on a log scale. */
static double x_scaled(const range *r, double v)
{
    return r->logx ? log10(v) : v;
}

/* The marks' x into the range while the data keeps at least half of it: a mark far outside the data
   (an SLO 100x its values) is drawn at the edge (marks), not let squeeze the data into a line. */
static void take_marks(const svg_chart *c, range *r)
{
    double d0 = r->x0, d1 = r->x1; /* the data's; d0 > d1: none, the marks alone set the range */
    int k;
    for (k = 0; k < c->n_marks; k++) {
        double x = c->marks[k].x, lo = x < r->x0 ? x : r->x0, hi = x > r->x1 ? x : r->x1;
        if (r->logx && !(x > 0))
            continue;
        if (d0 > d1 || x_scaled(r, d1) - x_scaled(r, d0) >= (x_scaled(r, hi) - x_scaled(r, lo)) / 2)
            r->x0 = lo, r->x1 = hi;
    }
}

static range range_of(const svg_chart *c, const svg_series *s, int ns)
{
    range r = {HUGE_VAL, -HUGE_VAL, HUGE_VAL, -HUGE_VAL, c->logx, c->logy, c->yclip};
    size_t i;
    int k;
    for (k = 0; k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double x = s[k].x[i], y = r.clip > 0 && s[k].y[i] > r.clip ? r.clip : s[k].y[i];
            if (!on_scale(&r, x, y))
                continue;
            r.x0 = x < r.x0 ? x : r.x0; /* finite values: plain comparisons, no libm call */
            r.x1 = x > r.x1 ? x : r.x1;
            r.y0 = y < r.y0 ? y : r.y0;
            r.y1 = y > r.y1 ? y : r.y1;
        }
    take_marks(c, &r);
    if (r.x0 > r.x1)
        r.x0 = 1, r.x1 = 2;
    if (r.y0 > r.y1)
        r.y0 = 1, r.y1 = 2;
    if (c->x_to > c->x_from) {
        r.x0 = c->x_from;
        r.x1 = c->x_to;
    } else if (r.logx) {
        decades(&r.x0, &r.x1);
    } else if (c->xint) { /* half a count either side: the first and last points inside the frame */
        r.x0 -= 0.5;
        r.x1 += 0.5;
    } else {
        widen(&r.x0, &r.x1);
    }
    if (r.logy) {
        decades(&r.y0, &r.y1);
    } else {
        r.y0 = r.y0 > 0 ? 0 : r.y0; /* linear: from 0, so that bars of time compare */
        widen(&r.y0, &r.y1);
    }
    return r;
}

static double px(const range *r, double x)
{
    double f = r->logx ? (log10(x) - log10(r->x0)) / (log10(r->x1) - log10(r->x0)) : (x - r->x0) / (r->x1 - r->x0);
    return ML + f * (W - ML - MR);
}

static double py(const range *r, double y)
{
    double f;
    y = r->clip > 0 && y > r->y1 ? r->y1 : y;
    f = r->logy ? (log10(y) - log10(r->y0)) / (log10(r->y1) - log10(r->y0)) : (y - r->y0) / (r->y1 - r->y0);
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

/* The decades of a log axis from lo to hi, labelled as durations in unit (or plain numbers without one). */
static void log_ticks(FILE *out, const range *r, double lo, double hi, const char *unit, int xaxis)
{
    char text[32];
    double v;
    int k;
    for (k = 0; k < MAX_TICKS && (v = lo * pow(10, k)) <= hi * 1.0001; k++) {
        if (unit)
            human_tick(text, sizeof text, v, unit);
        else
            snprintf(text, sizeof text, "%.*f", v >= 1 ? 0 : (int)fmin(20, -floor(log10(v))), v);
        if (xaxis)
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%s</text>\n",
                    px(r, v), MT, px(r, v), H - MB, px(r, v), H - MB + 16, text);
        else
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n"
                         "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>\n",
                    ML, py(r, v), W - MR, py(r, v), ML - 6, py(r, v) + 4, text);
    }
}

static void axes(FILE *out, const range *r, const svg_chart *c)
{
    double step = nice_step(r->x1 - r->x0);
    if (r->logx)
        log_ticks(out, r, r->x0, r->x1, c->xunit, 1);
    else
        linear_ticks(out, r, r->x0, r->x1, c->xint && step < 1 ? 1 : step, 1);
    if (r->logy)
        log_ticks(out, r, r->y0, r->y1, c->yunit, 0);
    else
        linear_ticks(out, r, r->y0, r->y1, c->yint && nice_step(r->y1 - r->y0) < 1 ? 1 : nice_step(r->y1 - r->y0), 0);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">", (ML + W - MR) / 2, H - 12);
    html_text(out, c->xlabel);
    fputs(r->logx ? " (log scale)" : "", out);
    fprintf(out, "</text>\n<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\" "
                 "transform=\"rotate(-90 16 %.1f)\">", (MT + H - MB) / 2, (MT + H - MB) / 2);
    html_text(out, c->ylabel);
    fputs(r->logy ? " (log scale)</text>\n" : "</text>\n", out);
}

/* v as "%.1f" prints it, at p (32 bytes), without printf: a chart's points are most of the page, and
   formatting a double was most of its cost. To the nearest tenth; where v * 10 rounded to a half, the
   part rounding lost (fma) tells the side, and an exact half goes to even, as printf's does. */
static char *tenths(char *p, double v)
{
    double a = fabs(v), t = a * 10, k = floor(t), lost;
    char digits[20];
    int m = 0;
    uint64_t n;
    if (!(a < 1e15))
        return p + snprintf(p, 32, "%.1f", v);
    lost = fma(a, 10, -t);
    if (t - k > 0.5 || (t - k == 0.5 && (lost > 0 || (lost == 0 && fmod(k, 2) != 0))))
        k += 1;
    n = (uint64_t)k;
    if (signbit(v))
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
static void vertex(FILE *out, double x, double y)
{
    char buf[72], *p = tenths(buf, x);
    *p++ = ',';
    p = tenths(p, y);
    *p++ = ' ';
    fwrite(buf, 1, (size_t)(p - buf), out);
}

/* One point of a series: a dot, or the next vertex of its polyline (a CDF steps up at each value). */
static void point(FILE *out, const range *r, const svg_series *s, size_t i, double *last_y)
{
    char x[32], y[32];
    if (!on_scale(r, s->x[i], s->y[i]))
        return;
    if (s->kind == SVG_DOTS && r->clip > 0 && s->y[i] > r->y1) /* off the scale: off_scale marks it */
        return;
    if (s->kind == SVG_DOTS) {
        tenths(x, px(r, s->x[i]));
        tenths(y, py(r, s->y[i]));
        fprintf(out, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" %s=\"%s\"/>\n", x, y, s->hollow ? "4" : "2.5",
                s->hollow ? "fill=\"none\" stroke-width=\"1.5\" stroke" : "fill", s->color);
        return;
    }
    if (s->kind == SVG_STEP && i > 0)
        vertex(out, px(r, s->x[i]), py(r, *last_y));
    vertex(out, px(r, s->x[i]), py(r, s->y[i]));
    *last_y = s->y[i];
}

static void polyline(FILE *out, const svg_series *s)
{
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", s->color);
}

/* A series; a long one column by column, each column's first, lowest, highest and last points in order.
   On a counted axis a line breaks where its x skips over 2% of the axis (steps of other phases). */
static void series(FILE *out, const range *r, const svg_series *s, int xint)
{
    size_t per = s->kind == SVG_STEP || s->n <= 2 * COLUMNS ? 1 : s->n / COLUMNS + 1, lo, i, prev = SIZE_MAX;
    double last_y = 0, span = r->x1 - r->x0;
    if (s->kind != SVG_DOTS)
        polyline(out, s);
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
            if (s->kind == SVG_LINE && xint && prev != SIZE_MAX && s->x[pick[k]] - s->x[prev] > fmax(1.5, span / 50))
                fputs("\"/>\n", out), polyline(out, s);
            point(out, r, s, pick[k], &last_y);
            prev = pick[k];
        }
    }
    if (s->kind != SVG_DOTS)
        fputs("\"/>\n", out);
}

/* The points above the clip: a triangle on the top edge each, the first few with their value. */
static void off_scale(FILE *out, const range *r, const svg_chart *c, const svg_series *s, int ns)
{
    char text[32];
    int k, labelled = 0;
    size_t i;
    for (k = 0; r->clip > 0 && k < ns; k++)
        for (i = 0; i < s[k].n; i++) {
            double x, v = s[k].y[i];
            if (!(v > r->y1) || !on_scale(r, s[k].x[i], 1))
                continue;
            x = px(r, s[k].x[i]);
            fprintf(out, "<path d=\"M%.1f %.1f l-5 9 h10 z\" fill=\"%s\" class=\"offscale\"/>\n", x, MT + 1,
                    s[k].color);
            if (labelled++ >= 8)
                continue;
            if (c->yunit)
                svg_dur(text, sizeof text, v * (strcmp(c->yunit, "s") == 0 ? 1e9 : 1e6));
            else
                snprintf(text, sizeof text, "%.4g", v);
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">&#8593; %s</text>\n", x + 7,
                    MT + 10 + 12.0 * ((labelled - 1) % 4), text); /* staggered: points at one x apart */
        }
}

/* A mark outside the x range: a triangle on the frame's edge pointing its way, labelled with an arrow.
   On the right low, on the left high: where a CDF (rising left to right) leaves room. */
static void mark_off(FILE *out, const svg_mark *m, int right, int k)
{
    double x = right ? W - MR : ML, y = right ? H - MB - 12 - 14.0 * (k % 3) : MT + 14 + 14.0 * (k % 3);
    fprintf(out, "<path d=\"M%.1f %.1f l%d -5 v10 z\" fill=\"#333\" class=\"markoff\"/>\n"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"marklabel\">%s",
            x, y, right ? -9 : 9, right ? x - 12 : x + 12, y + 4, right ? "end" : "start", right ? "" : "&#8592; ");
    html_text(out, m->label);
    fputs(right ? " &#8594;</text>\n" : "</text>\n", out);
}

/* The marks: a dashed vertical line each, labelled at its top; one outside the range at its edge. */
static void marks(FILE *out, const range *r, const svg_chart *c)
{
    int k;
    for (k = 0; k < c->n_marks; k++) {
        double x;
        if (r->logx && !(c->marks[k].x > 0))
            continue;
        if (c->marks[k].x < r->x0 || c->marks[k].x > r->x1) {
            mark_off(out, &c->marks[k], c->marks[k].x > r->x1, k);
            continue;
        }
        x = px(r, c->marks[k].x);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"mark\"/>\n"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"marklabel\">",
                x, MT, x, H - MB, x > W - MR - 80 ? x - 4 : x + 4, MT + 24 + 12.0 * (k % 3), x > W - MR - 80 ? "end" : "start");
        html_text(out, c->marks[k].label);
        fputs("</text>\n", out);
    }
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
        x += 30 + 7.5 * (double)strlen(s[k].name);
    }
}

void svg_plot(FILE *out, const svg_chart *c, const svg_series *s, int ns)
{
    range r = range_of(c, s, ns);
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
        series(out, &r, &s[k], c->xint);
    off_scale(out, &r, c, s, ns);
    marks(out, &r, c);
    legend(out, s, ns);
    fputs("</svg></figure>\n", out);
}

void svg_bars(FILE *out, const char *title, const char *const *labels, size_t n, const double *const *values,
              const double *const *abs_ns, const char *const *names, int ns)
{
    char d[32], text[48];
    /* each group: its label on a line of its own (a phase name of 63 bytes fits across), then its bars */
    double row = 22.0 + 14.0 * ns, height = MT + row * (double)n + 12, x0 = 8, width = W - x0 - 140;
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
            if (values[k][i] < 0) /* a group this series does not have */
                snprintf(text, sizeof text, "absent");
            else if (abs_ns && abs_ns[k][i] >= 0)
                snprintf(text, sizeof text, "%.1f%% &#183; %s", 100 * v, svg_dur(d, sizeof d, abs_ns[k][i]));
            else
                snprintf(text, sizeof text, "%.1f%%", 100 * v);
            fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\"/>"
                         "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">%s</text>\n",
                    x0, y + 16 + 14.0 * k, width * (v < 1 ? v : 1), svg_colors[k],
                    x0 + width * (v < 1 ? v : 1) + 4 > W - 130 ? W - 130 : x0 + width * (v < 1 ? v : 1) + 4,
                    y + 26 + 14.0 * k, text);
        }
    }
    fputs("</svg></figure>\n", out);
}
