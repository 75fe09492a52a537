/* fuzz_util.h - what both harnesses use: a check that aborts, a sample recorded (record_util.h), a
   report as a string, valid JSON. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "../json_check.h"
#include "ttft_tpot_tools.h"

#include "../record_util.h" /* record(), record_with(), report_json() (a writer output() takes) */

#define CHECK(x) ((x) ? (void)0 : (fprintf(stderr, "broken: %s (line %d)\n", #x, __LINE__), abort()))

/* c's report in a format (TTFT_TPOT_FORMAT_*) with the prefill kernel option (a phase + 1, 0: none),
   as a string (to free). */
static inline char *report_of(const ttft_tpot *c, int prefill_kernel, int format)
{
    ttft_tpot_model m;
    ttft_tpot_model_options o;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    memset(&o, 0, sizeof o);
    o.prefill_kernel = prefill_kernel;
    CHECK(ttft_tpot_model_compute(c, &o, &m) == TTFT_TPOT_OK);
    CHECK(ttft_tpot_model_write(&m, f, format) == TTFT_TPOT_OK);
    ttft_tpot_model_free(&m);
    fclose(f);
    return buf;
}

/* fn's output as a string (to free) */
static inline char *output(const ttft_tpot *c, int (*fn)(const ttft_tpot *, FILE *))
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    CHECK(fn(c, f) == TTFT_TPOT_OK);
    fclose(f);
    return buf;
}

/* The Chrome trace of c (to free) and its code: OK, or EINVAL for a timeline whose samples all start
   at 0 with no request or device interval (nothing written). */
static inline char *chrome_of(const ttft_tpot *c, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    *rc = ttft_tpot_chrome_trace(c, f);
    fclose(f);
    CHECK(*rc == TTFT_TPOT_OK || (*rc == TTFT_TPOT_EINVAL && len == 0));
    return buf;
}

/* text parses as JSON; text is freed */
static inline void valid_json(char *text)
{
    jc_value v;
    CHECK(jc_parse(text, &v) == 0);
    jc_free(&v);
    free(text);
}

/* a and b print the same text and JSON reports, each with its prefill kernel option (a phase + 1, 0:
   none) */
static inline void same_reports_linked(const ttft_tpot *a, int a_kernel, const ttft_tpot *b, int b_kernel)
{
    static const int formats[2] = {TTFT_TPOT_FORMAT_TEXT, TTFT_TPOT_FORMAT_JSON};
    int k;
    for (k = 0; k < 2; k++) {
        char *t1 = report_of(a, a_kernel, formats[k]), *t2 = report_of(b, b_kernel, formats[k]);
        if (strcmp(t1, t2) != 0)
            fprintf(stderr, "one:\n%s\nthe other:\n%s\n", t1, t2);
        CHECK(strcmp(t1, t2) == 0);
        free(t1);
        free(t2);
    }
}

static inline void same_reports(const ttft_tpot *a, const ttft_tpot *b)
{
    same_reports_linked(a, 0, b, 0);
}

#endif
