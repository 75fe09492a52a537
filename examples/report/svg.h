/* svg.h - the charts of the HTML report: inline SVG, axes with units, a palette colour-blind readers
   can tell apart (Okabe and Ito), markers as well as colours, nothing fetched. */
#ifndef SVG_H
#define SVG_H

#include <stddef.h>
#include <stdio.h>

/* Okabe-Ito: blue, vermillion, bluish green, orange, reddish purple, sky blue. */
extern const char *const svg_colors[6];

enum { SVG_LINE, SVG_DOTS, SVG_STEP }; /* how a series is drawn: SVG_STEP is a CDF */

typedef struct svg_series {
    const char *name;  /* in the legend */
    const char *color;
    const double *x, *y;
    size_t n;
    int kind;   /* SVG_LINE, SVG_DOTS or SVG_STEP */
    int hollow; /* dots drawn as rings (warmup samples, say): told apart without colour */
} svg_series;

/* A vertical line across the plot at x, labelled: an SLO on a CDF, where a run begins on a step axis.
   The x axis takes a mark in while the data keeps at least half of it; one further out is drawn as a
   triangle on the frame's edge, its label beside it with an arrow its way. */
typedef struct svg_mark {
    double x;
    const char *label;
} svg_mark;

typedef struct svg_chart {
    const char *title, *xlabel, *ylabel; /* the labels carry the units */
    const char *note;                    /* under the title (NULL: none): what the chart leaves out */
    int logy;                            /* a log scale on y (svg_wants_log says when) */
    int xint;                            /* x counts (a step, a request): whole ticks only */
    int logx;                            /* a log scale on x */
    int yint;                            /* y counts (requests): whole ticks only */
    double x_from, x_to;                 /* x_to > x_from: the x range shown, whatever the data's */
    const char *xunit, *yunit;           /* "ms" or "s": a log axis's ticks read as durations (1 ms, 10 ms,
                                            1 s), and so does an off-scale value; NULL: plain numbers */
    double yclip;                        /* > 0: y shown up to it; a point above is drawn as a triangle on
                                            the top edge with its value (a warmup outlier, say) */
    const svg_mark *marks;               /* [n_marks] vertical lines (svg_mark) */
    int n_marks;
} svg_chart;

/* Whether the series' y (x: on x) values spread over more than 20x, so that a log scale shows the small
   ones. */
int svg_wants_log(const svg_series *s, int ns);
int svg_wants_logx(const svg_series *s, int ns);

/* A duration in ns as the text report prints it: "512 ns", "3.20 us", "4.21 ms", "1.50 s". */
const char *svg_dur(char *buf, size_t len, double ns);

/* The unit that shows values up to max_ms best on an axis: "s" (divide by 1000) from 2000 ms up, else
   "ms"; *scale is what a value in ms is divided by. */
const char *svg_ms_unit(double max_ms, double *scale);

/* The chart as an <svg> element. Long series are thinned to their extremes per pixel column. */
void svg_plot(FILE *out, const svg_chart *chart, const svg_series *s, int ns);

/* Horizontal bars: one group a label, one bar a series (value in [0, 1], shown as %, and beside it the
   duration in ns of abs_ns[k][i] where abs_ns is not NULL and that value is not negative; a negative
   value: the series has no such group, "absent"). */
void svg_bars(FILE *out, const char *title, const char *const *labels, size_t n, const double *const *values,
              const double *const *abs_ns, const char *const *names, int ns);

/* text with &, <, >, " and ' escaped. */
void html_text(FILE *out, const char *text);

#endif
