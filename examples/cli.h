/* cli.h - what the two command-line programs (generate, ttft_tpot_report) share. */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>
#include <string.h>

/* s as a terminal should see it, into buf: bytes outside printable ASCII as \xHH, since messages
   echo arguments and names (truncated to fit). */
static inline const char *cli_escaped(char *buf, size_t len, const char *s)
{
    size_t at = 0;
    for (; *s && at + 5 < len; s++) {
        unsigned char b = (unsigned char)*s;
        at += (size_t)snprintf(buf + at, len - at, b >= 0x20 && b < 0x7f ? "%c" : "\\x%02x", b);
    }
    buf[at] = '\0';
    return buf;
}

static inline void cli_put_escaped(FILE *out, const char *s)
{
    char buf[1024];
    fputs(cli_escaped(buf, sizeof buf, s), out);
}

/* One --label NAME=VALUE appended to labels (cap bytes, NUL-terminated) as NAME="VALUE", the value
   escaped as the Prometheus exposition wants (\\, \", \n); the library checks the name. 0, or -1
   when kv has no '=' or the labels do not fit. */
static inline int cli_add_label(char *labels, size_t cap, const char *kv)
{
    const char *eq = strchr(kv, '=');
    size_t at = strlen(labels);
    int n = eq ? snprintf(labels + at, cap - at, "%s%.*s=\"", at ? "," : "", (int)(eq - kv), kv) : -1;
    if (n < 0 || (size_t)n >= cap - at)
        return -1;
    for (at += (size_t)n, kv = eq + 1; *kv && at + 3 < cap; kv++) {
        if (*kv == '"' || *kv == '\\' || *kv == '\n')
            labels[at++] = '\\';
        labels[at++] = *kv == '\n' ? 'n' : *kv;
    }
    if (*kv || at + 2 > cap)
        return -1;
    labels[at++] = '"';
    labels[at] = '\0';
    return 0;
}

#endif
