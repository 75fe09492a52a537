/* html.h - the report as one self-contained HTML file: inline SVG and CSS, no script, nothing
   fetched; readable with scripting off and printable. */
#ifndef HTML_H
#define HTML_H

#include "ttft_tpot.h"

#include <stdio.h>

/* The report of n models (1, or 2 for a comparison: base, then new: each computed whole, its
   collector alive), named by names (file names, say), into out: the headline table, decode step time by step with warmup steps marked, TTFT by
   request (or prefill), latency CDFs, each kernel's share of steady decode time, and the text report.
   0, or -1 when memory runs out or out reports a write error. */
int html_report(FILE *out, const ttft_tpot_model *const *m, const char *const *names, int n);

#endif
