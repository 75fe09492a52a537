/* fuzz_util.h - what both harnesses use: a check that aborts, a report as a string, valid JSON. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "../json_check.h"
#include "ttft_tpot.h"

#define CHECK(x) ((x) ? (void)0 : (fprintf(stderr, "broken: %s (line %d)\n", #x, __LINE__), abort()))

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

/* text parses as JSON; text is freed */
static inline void valid_json(char *text)
{
    jc_value v;
    CHECK(jc_parse(text, &v) == 0);
    jc_free(&v);
    free(text);
}

#endif
