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

typedef struct svg_chart {
    const char *title, *xlabel, *ylabel; /* the labels carry the units */
    const char *note;                    /* under the title (NULL: none): what the chart leaves out */
    int logy;                            /* a log scale on y (svg_wants_log says when) */
    int xint;                            /* x counts (a step, a request): whole ticks only */
} svg_chart;

/* Whether the series' y values spread over more than 20x, so that a log scale shows the small ones. */
int svg_wants_log(const svg_series *s, int ns);

/* The chart as an <svg> element. Long series are thinned to their extremes per pixel column. */
void svg_plot(FILE *out, const svg_chart *chart, const svg_series *s, int ns);

/* Horizontal bars: one group a label, one bar a series (value in [0, 1], shown as %). */
void svg_bars(FILE *out, const char *title, const char *const *labels, size_t n, const double *const *values,
              const char *const *names, int ns);

/* text with &, <, >, " and ' escaped. */
void html_text(FILE *out, const char *text);

#endif
