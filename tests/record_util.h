/* record_util.h - record(), record_with() and report_json(), on ttft_tpot.h alone: for tests, fuzzers, benchmarks. */
#ifndef RECORD_UTIL_H
#define RECORD_UTIL_H

#include <stdio.h>

#include "ttft_tpot.h"

/* A sample of duration ns and its tokens, as a driver whose timer is elsewhere records it: begin_at,
   the duration, the tokens, the shape key (TTFT_TPOT_NO_SHAPE: none) and the prompt tokens (has_prompt
   0: none), end. EINVAL for c NULL, or what the end returns. */
static inline int record_with(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens, uint64_t shape, int has_prompt,
                              uint32_t prompt)
{
    ttft_tpot_span s;
    if (!c)
        return TTFT_TPOT_EINVAL;
    s = ttft_tpot_span_begin_at(c, phase, 0);
    ttft_tpot_span_set_duration(&s, ns);
    ttft_tpot_span_set_tokens(&s, tokens);
    ttft_tpot_span_set_shape(&s, shape);
    if (has_prompt)
        ttft_tpot_span_set_prompt(&s, prompt);
    return ttft_tpot_span_end(&s);
}

/* record_with, no shape key and no prompt (what replaced ttft_tpot_record). */
static inline int record(ttft_tpot *c, int phase, uint64_t ns, uint32_t tokens)
{
    return record_with(c, phase, ns, tokens, TTFT_TPOT_NO_SHAPE, 0, 0);
}

/* The JSON report of a collector (ttft_tpot_model_write), as a writer of a FILE. */
static inline int report_json(const ttft_tpot *c, FILE *out)
{
    ttft_tpot_model m;
    int rc = ttft_tpot_model_compute(c, NULL, &m);
    if (rc == TTFT_TPOT_OK)
        rc = ttft_tpot_model_write(&m, out, TTFT_TPOT_FORMAT_JSON);
    ttft_tpot_model_free(&m);
    return rc;
}

#endif
