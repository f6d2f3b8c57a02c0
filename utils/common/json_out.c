/* SPDX-License-Identifier: MIT
 *
 * json_out.c - JSON string escaping with UTF-8 validation and a minimal
 * comma-tracking writer.  The UTF-8 check follows RFC 3629 strictly
 * (no overlong forms, no surrogates, nothing above U+10FFFF); each maximal
 * invalid subsequence becomes one U+FFFD, as Unicode recommends, so the
 * output is valid UTF-8 and valid JSON whatever bytes came in.
 * Tools layer: libc only.
 */
#include "json_out.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid;
 * *bad receives how many bytes to replace by one U+FFFD in that case. */
static size_t utf8_valid_len(const unsigned char *s, size_t n, size_t *bad)
{
    const unsigned char c = s[0];
    size_t len;
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        const unsigned char lim_lo = i == 1 ? lo : 0x80;
        const unsigned char lim_hi = i == 1 ? hi : 0xbf;
        if (i >= n || s[i] < lim_lo || s[i] > lim_hi) {
            *bad = i;
            return 0;
        }
    }
    return len;
}

static void write_escape(FILE *f, unsigned char c)
{
    switch (c) {
    case '"':
        fputs("\\\"", f);
        break;
    case '\\':
        fputs("\\\\", f);
        break;
    case '\n':
        fputs("\\n", f);
        break;
    case '\r':
        fputs("\\r", f);
        break;
    case '\t':
        fputs("\\t", f);
        break;
    case '\b':
        fputs("\\b", f);
        break;
    case '\f':
        fputs("\\f", f);
        break;
    default:
        (void)fprintf(f, "\\u%04x", (unsigned)c);
        break;
    }
}

void json_write_string_n(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *const end = p + n;
    putc('"', f);
    while (p < end) {
        /* copy the longest run of plain printable ASCII at once */
        const unsigned char *run = p;
        while (run < end && *run >= 0x20 && *run < 0x80 && *run != '"' && *run != '\\') {
            run++;
        }
        if (run > p) {
            (void)fwrite(p, 1, (size_t)(run - p), f);
            p = run;
            continue;
        }
        if (*p < 0x80) {
            write_escape(f, *p);
            p++;
            continue;
        }
        size_t bad = 0;
        const size_t len = utf8_valid_len(p, (size_t)(end - p), &bad);
        if (len > 0) {
            (void)fwrite(p, 1, len, f);
            p += len;
        } else {
            fputs("\xef\xbf\xbd", f);
            p += bad;
        }
    }
    putc('"', f);
}

void json_write_string(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    json_write_string_n(f, s, strlen(s));
}

const char *json_format_double(double d, char *buf, size_t len)
{
    if (!isfinite(d)) {
        (void)snprintf(buf, len, "null");
        return buf;
    }
    /* shortest of %.15g .. %.17g that reads back exactly */
    for (int prec = 15; prec <= 17; prec++) {
        (void)snprintf(buf, len, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    if (strpbrk(buf, ".eE") == NULL) {
        const size_t n = strlen(buf);
        if (n + 2 < len) {
            memcpy(buf + n, ".0", 3);
        }
    }
    return buf;
}

void json_writer_init(json_writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

/* Comma before a value (unless it follows its key). */
static void before_value(json_writer *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->need_comma[w->depth]) {
        putc(',', w->f);
    }
    w->need_comma[w->depth] = true;
}

static void open_nested(json_writer *w, char c)
{
    before_value(w);
    putc(c, w->f);
    if (w->depth < JSON_MAX_DEPTH) {
        w->depth++;
    }
    w->need_comma[w->depth] = false;
}

static void close_nested(json_writer *w, char c)
{
    putc(c, w->f);
    if (w->depth > 0) {
        w->depth--;
    }
}

void json_begin_object(json_writer *w)
{
    open_nested(w, '{');
}

void json_end_object(json_writer *w)
{
    close_nested(w, '}');
}

void json_begin_array(json_writer *w)
{
    open_nested(w, '[');
}

void json_end_array(json_writer *w)
{
    close_nested(w, ']');
}

void json_key(json_writer *w, const char *key)
{
    before_value(w);
    json_write_string(w->f, key);
    putc(':', w->f);
    w->after_key = true;
}

void json_string(json_writer *w, const char *s)
{
    before_value(w);
    json_write_string(w->f, s);
}

void json_int(json_writer *w, int64_t v)
{
    before_value(w);
    (void)fprintf(w->f, "%" PRId64, v);
}

void json_uint(json_writer *w, uint64_t v)
{
    before_value(w);
    (void)fprintf(w->f, "%" PRIu64, v);
}

void json_double(json_writer *w, double v)
{
    char buf[48];
    before_value(w);
    fputs(json_format_double(v, buf, sizeof buf), w->f);
}

void json_bool(json_writer *w, bool v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->f);
}

void json_null(json_writer *w)
{
    before_value(w);
    fputs("null", w->f);
}

void json_raw(json_writer *w, const char *text)
{
    before_value(w);
    fputs(text == NULL || *text == '\0' ? "null" : text, w->f);
}

void json_kv_string(json_writer *w, const char *key, const char *s)
{
    json_key(w, key);
    json_string(w, s);
}

void json_kv_int(json_writer *w, const char *key, int64_t v)
{
    json_key(w, key);
    json_int(w, v);
}

void json_kv_uint(json_writer *w, const char *key, uint64_t v)
{
    json_key(w, key);
    json_uint(w, v);
}

void json_kv_double(json_writer *w, const char *key, double v)
{
    json_key(w, key);
    json_double(w, v);
}

void json_kv_bool(json_writer *w, const char *key, bool v)
{
    json_key(w, key);
    json_bool(w, v);
}
