/* json_check.h - a small JSON reader for the tests: parse a document, look values up by path, and
   check that every value of an expected document is in an actual one (numbers within a tolerance).
   Test code only: it trusts its input to be small. */
#ifndef JSON_CHECK_H
#define JSON_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JC_NULL, JC_BOOL, JC_NUM, JC_STR, JC_ARR, JC_OBJ };

typedef struct jc_value {
    int type;
    double num;
    char *str;              /* JC_STR, or the key of an object member */
    struct jc_value *items; /* JC_ARR / JC_OBJ children */
    size_t n;
    char *key;
} jc_value;

typedef struct {
    const char *p;
    int bad;
} jc_parser;

static inline void jc_ws(jc_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t')
        ps->p++;
}

static inline char *jc_string(jc_parser *ps)
{
    size_t cap = 16, n = 0;
    char *s = (char *)malloc(cap);
    ps->p++; /* opening quote */
    while (*ps->p && *ps->p != '"') {
        char ch = *ps->p++;
        if ((unsigned char)ch < 0x20)
            ps->bad = 1;
        if (ch == '\\') {
            ch = *ps->p++;
            switch (ch) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'u': {
                unsigned v = 0, i;
                for (i = 0; i < 4; i++) {
                    char h = *ps->p++;
                    v = v * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                }
                if (v < 0x80) {
                    ch = (char)v;
                } else { /* the tests only need U+FFFD and BMP characters: store as UTF-8 */
                    char u[3];
                    if (v < 0x800) {
                        u[0] = (char)(0xC0 | (v >> 6));
                        u[1] = (char)(0x80 | (v & 0x3F));
                        if (n + 3 > cap) s = (char *)realloc(s, cap *= 2);
                        s[n++] = u[0];
                        ch = u[1];
                    } else {
                        u[0] = (char)(0xE0 | (v >> 12));
                        u[1] = (char)(0x80 | ((v >> 6) & 0x3F));
                        u[2] = (char)(0x80 | (v & 0x3F));
                        if (n + 4 > cap) s = (char *)realloc(s, cap *= 2);
                        s[n++] = u[0];
                        s[n++] = u[1];
                        ch = u[2];
                    }
                }
                break;
            }
            case '"': case '\\': case '/': break;
            default: ps->bad = 1;
            }
        }
        if (n + 2 > cap)
            s = (char *)realloc(s, cap *= 2);
        s[n++] = ch;
    }
    if (*ps->p != '"')
        ps->bad = 1;
    else
        ps->p++;
    s[n] = '\0';
    return s;
}

static inline void jc_parse_value(jc_parser *ps, jc_value *v);

/* Room doubles when the count reaches a power of two: a document of a million slices parses in
   linear time (growing by one item made it quadratic, minutes in the trace fuzzer). */
static inline void jc_push(jc_value *v, jc_value *item)
{
    if ((v->n & (v->n - 1)) == 0) /* 0, 1, 2, 4, ...: full */
        v->items = (jc_value *)realloc(v->items, (v->n ? 2 * v->n : 1) * sizeof *item);
    v->items[v->n++] = *item;
}

static inline void jc_parse_value(jc_parser *ps, jc_value *v)
{
    memset(v, 0, sizeof *v);
    jc_ws(ps);
    if (*ps->p == '{' || *ps->p == '[') {
        char close = *ps->p == '{' ? '}' : ']';
        v->type = *ps->p == '{' ? JC_OBJ : JC_ARR;
        ps->p++;
        jc_ws(ps);
        if (*ps->p == close) {
            ps->p++;
            return;
        }
        for (;;) {
            jc_value item;
            char *key = NULL;
            jc_ws(ps);
            if (v->type == JC_OBJ) {
                if (*ps->p != '"') {
                    ps->bad = 1;
                    return;
                }
                key = jc_string(ps);
                jc_ws(ps);
                if (*ps->p++ != ':') {
                    ps->bad = 1;
                    free(key);
                    return;
                }
            }
            jc_parse_value(ps, &item);
            item.key = key;
            jc_push(v, &item);
            if (ps->bad)
                return;
            jc_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p == close) {
                ps->p++;
                return;
            }
            ps->bad = 1;
            return;
        }
    } else if (*ps->p == '"') {
        v->type = JC_STR;
        v->str = jc_string(ps);
    } else if (strncmp(ps->p, "null", 4) == 0) {
        v->type = JC_NULL;
        ps->p += 4;
    } else if (strncmp(ps->p, "true", 4) == 0 || strncmp(ps->p, "false", 5) == 0) {
        v->type = JC_BOOL;
        v->num = *ps->p == 't';
        ps->p += *ps->p == 't' ? 4 : 5;
    } else {
        char *end;
        v->type = JC_NUM;
        /* JSON numbers only: strtod would also take nan, inf and hex */
        if (!(*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))) {
            ps->bad = 1;
            return;
        }
        v->num = strtod(ps->p, &end);
        if (end == ps->p)
            ps->bad = 1;
        ps->p = end;
    }
}

static inline void jc_free(jc_value *v)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        jc_free(&v->items[i]);
    free(v->items);
    free(v->str);
    free(v->key);
    memset(v, 0, sizeof *v);
}

/* Parse text; returns 0 on success (the whole text must be one value). */
static inline int jc_parse(const char *text, jc_value *out)
{
    jc_parser ps;
    ps.p = text;
    ps.bad = 0;
    jc_parse_value(&ps, out);
    jc_ws(&ps);
    if (ps.bad || *ps.p != '\0') {
        jc_free(out);
        return -1;
    }
    return 0;
}

/* Member of an object by a dotted path ("tpot.p50_ms", "phases.2.name"); NULL when absent. */
static inline const jc_value *jc_get(const jc_value *v, const char *path)
{
    char part[64];
    while (v && *path) {
        size_t len = strcspn(path, "."), i;
        const jc_value *next = NULL;
        if (len >= sizeof part)
            return NULL;
        memcpy(part, path, len);
        part[len] = '\0';
        path += len + (path[len] == '.');
        if (v->type == JC_OBJ) {
            for (i = 0; i < v->n; i++)
                if (strcmp(v->items[i].key, part) == 0)
                    next = &v->items[i];
        } else if (v->type == JC_ARR) {
            i = (size_t)atoi(part);
            next = i < v->n ? &v->items[i] : NULL;
        }
        v = next;
    }
    return v;
}

/* Every value of want is in got; numbers agree within 2e-5 plus one part in 1e9. Returns 0 when so,
   else writes the first difference into why. */
static inline int jc_subset(const jc_value *want, const jc_value *got, const char *path, char *why, size_t len)
{
    size_t i;
    char sub[256];
    if (!got) {
        snprintf(why, len, "%s: missing", path);
        return -1;
    }
    if (want->type != got->type) {
        snprintf(why, len, "%s: type %d, expected %d", path, got->type, want->type);
        return -1;
    }
    switch (want->type) {
    case JC_NUM:
        if (fabs(want->num - got->num) > 2e-5 + 1e-9 * fabs(want->num)) {
            snprintf(why, len, "%s: %.17g, expected %.17g", path, got->num, want->num);
            return -1;
        }
        return 0;
    case JC_BOOL:
        if (want->num != got->num) {
            snprintf(why, len, "%s: boolean differs", path);
            return -1;
        }
        return 0;
    case JC_STR:
        if (strcmp(want->str, got->str) != 0) {
            snprintf(why, len, "%s: \"%s\", expected \"%s\"", path, got->str, want->str);
            return -1;
        }
        return 0;
    case JC_ARR:
        if (want->n != got->n) {
            snprintf(why, len, "%s: %zu items, expected %zu", path, got->n, want->n);
            return -1;
        }
        for (i = 0; i < want->n; i++) {
            if (snprintf(sub, sizeof sub, "%s.%zu", path, i) >= (int)sizeof sub)
                return -1; /* deeper than the tests go */
            if (jc_subset(&want->items[i], &got->items[i], sub, why, len))
                return -1;
        }
        return 0;
    case JC_OBJ:
        for (i = 0; i < want->n; i++) {
            if (snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", want->items[i].key) >= (int)sizeof sub)
                return -1;
            if (jc_subset(&want->items[i], jc_get(got, want->items[i].key), sub, why, len))
                return -1;
        }
        return 0;
    default:
        return 0;
    }
}

#endif
