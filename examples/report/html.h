/* html.h - the report as one self-contained HTML file: inline SVG and CSS, no script, nothing
   fetched; readable with scripting off and printable. */
#ifndef HTML_H
#define HTML_H

#include "ttft_tpot_tools.h"

#include <stdio.h>

/* Writes the headline table of a comparison of m[0] (base) and m[1] (new): 0, or -1. The report tool
   passes compare_html; a page of one model needs none. */
typedef int (*html_headline_fn)(FILE *out, const ttft_tpot_model *const *m);

/* The report of n models (1, or 2 for a comparison: base, then new: each computed whole, its
   collector alive), named by names (file names, say), into out: the headline table (of two: two's),
   decode step time by step with warmup steps marked, TTFT by request (or prefill), latency CDFs, each
   kernel's share of steady decode time, and the text report. 0, or -1 when memory runs out, out
   reports a write error, or two models come without two. */
int html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n, html_headline_fn two);

#endif
