/* decimal_comma.h - the decimal-comma host locale (made with localedef) of test_writers.c and test_tools_writers.c. */
#ifndef DECIMAL_COMMA_H
#define DECIMAL_COMMA_H

#include <locale.h>
#include <stdio.h>
#include <stdlib.h> /* setenv, mkdtemp: _POSIX_C_SOURCE 200809L before test_util.h */
#include <string.h>

#include "test_util.h"

/* The host locale a driver may set: de_DE.UTF-8, made with localedef into dir (a mkdtemp template),
   LC_ALL set to it. Returns 1; 0 when no decimal-comma locale could be made (dir removed, the locale
   left "C"): the caller skips. */
static inline int decimal_comma_on(char *dir)
{
    char cmd[512];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "localedef -c -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    (void)shell(cmd);
    setenv("LOCPATH", dir, 1);
    if (!setlocale(LC_ALL, "de_DE.UTF-8") || strcmp(localeconv()->decimal_point, ",") != 0) {
        print_message("SKIPPED: no decimal-comma locale could be made (localedef, Debian's locales package)\n");
        setlocale(LC_ALL, "C");
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        (void)shell(cmd);
        return 0;
    }
    return 1;
}

/* Back to the "C" locale (the checks' own JSON parser reads numbers with strtod); dir removed. */
static inline void decimal_comma_off(const char *dir)
{
    char cmd[512];
    setlocale(LC_ALL, "C");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    (void)shell(cmd);
}

/* The JSON report of decimal_comma_locale's steps (3 steady steps of 3 ms, 1 token each: 333.33
   tok/s), written under the locale and read in "C": valid JSON, its '.' kept. */
static inline void json_keeps_the_point(const char *json)
{
    jc_value doc;
    if (jc_parse(json, &doc) != 0)
        fail_msg("not JSON: %s", json);
    assert_near(num_at(&doc, "output_throughput_tok_s"), 1000.0 / 3, 1e-9);
    jc_free(&doc);
}

#endif
