/* cli.h - what the two command-line programs (generate, ttft_tpot_report) share. */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>
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

/* What cli_add_label returns. */
enum { CLI_LABEL_OK, CLI_LABEL_SYNTAX = -1, CLI_LABEL_NAME = -2, CLI_LABEL_TWICE = -3 };

/* A plain decimal: digits with at most one '.', nothing else (no sign, space, exponent, hex, inf or
   nan, and no locale), as the numbers a user types. 0, or -1. */
static inline int cli_decimal(const char *s, double *out)
{
    double v = 0, scale = 1;
    int dot = 0, digits = 0;
    for (; *s; s++) {
        if (*s == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (*s < '0' || *s > '9')
            return -1;
        digits++;
        if (dot)
            v += (*s - '0') * (scale /= 10);
        else
            v = v * 10 + (*s - '0');
    }
    *out = v;
    return digits ? 0 : -1;
}

/* The message for --label kv refused by cli_add_label with rc, into buf: "--label KV: why". */
static inline const char *cli_label_why(char *buf, size_t len, int rc, const char *kv)
{
    char name[256], esc[512];
    const char *eq = strchr(kv, '=');
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - kv) : 0, kv);
    cli_escaped(esc, sizeof esc, kv);
    if (rc == CLI_LABEL_TWICE)
        snprintf(buf, len, "--label %s: the label %s is given twice", esc, cli_escaped(name, sizeof name, name));
    else if (rc == CLI_LABEL_NAME)
        snprintf(buf, len, "--label %s: a label name is [a-zA-Z_][a-zA-Z0-9_]*, not le, not __...", esc);
    else
        snprintf(buf, len, "--label takes NAME=VALUE, 500 bytes of labels at most, not %s", esc);
    return buf;
}

/* Whether labels (NAME="VALUE",... as cli_add_label writes them) name a label name[0, len). */
static inline int cli_has_label(const char *labels, const char *name, size_t len)
{
    const char *p = labels;
    while (*p) {
        const char *eq = strchr(p, '=');
        if ((size_t)(eq - p) == len && strncmp(p, name, len) == 0)
            return 1;
        for (p = eq + 2; *p != '"'; p += *p == '\\' ? 2 : 1) /* the value, its escapes skipped */
            ;
        p += 1 + (p[1] == ',');
    }
    return 0;
}

/* One --label NAME=VALUE appended to labels (cap bytes, NUL-terminated) as NAME="VALUE", the value
   escaped as the Prometheus exposition wants (\\, \", \n). CLI_LABEL_OK; CLI_LABEL_SYNTAX when kv has
   no '=' or the labels do not fit; CLI_LABEL_NAME for a name that is not [a-zA-Z_][a-zA-Z0-9_]*, is
   le or begins __ (the library checks the same, this says which); CLI_LABEL_TWICE for a name given
   before. */
static inline int cli_add_label(char *labels, size_t cap, const char *kv)
{
    const char *eq = strchr(kv, '=');
    size_t at = strlen(labels), i, len = eq ? (size_t)(eq - kv) : 0;
    int n;
    for (i = 0; eq && i < len; i++)
        if (!(kv[i] == '_' || (kv[i] >= 'a' && kv[i] <= 'z') || (kv[i] >= 'A' && kv[i] <= 'Z') ||
              (i && kv[i] >= '0' && kv[i] <= '9')))
            return CLI_LABEL_NAME;
    if (eq && (len == 0 || (len == 2 && strncmp(kv, "le", 2) == 0) || (len >= 2 && strncmp(kv, "__", 2) == 0)))
        return CLI_LABEL_NAME;
    if (eq && cli_has_label(labels, kv, len))
        return CLI_LABEL_TWICE;
    n = eq ? snprintf(labels + at, cap - at, "%s%.*s=\"", at ? "," : "", (int)len, kv) : -1;
    if (n < 0 || (size_t)n >= cap - at)
        return -1;
    for (at += (size_t)n, kv = eq + 1; *kv && at + 3 < cap; kv++) {
        if (*kv == '"' || *kv == '\\' || *kv == '\n')
            labels[at++] = '\\';
        labels[at++] = *kv == '\n' ? 'n' : *kv;
    }
    if (*kv || at + 2 > cap)
        return CLI_LABEL_SYNTAX;
    labels[at++] = '"';
    labels[at] = '\0';
    return CLI_LABEL_OK;
}

/* Whether arg ("--pro" or "--pro=x") abbreviates two long options or more; their names then go into
   buf ("--prometheus, --prometheus-prefix"). getopt_long calls an ambiguous one unknown. */
static inline int cli_ambiguous(const struct option *opts, const char *arg, char *buf, size_t len)
{
    size_t n = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0, at = 0;
    int k, found = 0;
    buf[0] = '\0';
    for (k = 0; n && opts[k].name; k++)
        if (strncmp(opts[k].name, arg + 2, n) == 0) {
            if (strlen(opts[k].name) == n)
                return 0; /* an exact name is never ambiguous */
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s--%s", found++ ? ", " : "", opts[k].name);
        }
    return found > 1;
}

#endif
