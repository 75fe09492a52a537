/* cli.h - what the two command-line programs (generate, ttft_tpot_report) share. */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

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

#endif
