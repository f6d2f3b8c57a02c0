/* SPDX-License-Identifier: MIT
 *
 * json_out.c - JSON string escaping with UTF-8 validation and a minimal
 * comma-tracking writer.  The UTF-8 check follows RFC 3629 strictly
 * (no overlong forms, no surrogates, nothing above U+10FFFF); each maximal
 * invalid subsequence becomes one U+FFFD, as Unicode recommends, so the
 * output is valid UTF-8 and valid JSON whatever bytes came in.  Output
 * goes through putc_unlocked (see out_byte).
 * Tools layer: libc only.
 */
#include "json_out.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* POSIX putc_unlocked: a stream is written by one thread, and the locked
 * stdio calls (one lock per call) cost a third of slog-query's jsonl time. */
static void out_byte(FILE *f, char c)
{
    (void)putc_unlocked(c, f);
}

static void out_bytes(FILE *f, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        (void)putc_unlocked(p[i], f);
    }
}

static void out_str(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        (void)putc_unlocked(*s, f);
    }
}

/* Length of a sequence by its lead byte (0: never valid) and the allowed
 * range of its second byte (RFC 3629 table 3-7). */
static size_t utf8_lead(unsigned char c, unsigned char *lo, unsigned char *hi)
{
    *lo = 0x80;
    *hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        return 2;
    }
    if (c >= 0xe0 && c <= 0xef) {
        *lo = c == 0xe0 ? 0xa0 : 0x80;
        *hi = c == 0xed ? 0x9f : 0xbf;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        *lo = c == 0xf0 ? 0x90 : 0x80;
        *hi = c == 0xf4 ? 0x8f : 0xbf;
        return 4;
    }
    return 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid;
 * *bad receives how many bytes to replace by one U+FFFD in that case. */
static size_t utf8_valid_len(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned char lo;
    unsigned char hi;
    const size_t len = utf8_lead(s[0], &lo, &hi);
    *bad = 1;
    for (size_t i = 1; i < len; i++) {
        if (i >= n || s[i] < lo || s[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xbf;
    }
    return len;
}

static void write_escape(FILE *f, unsigned char c)
{
    switch (c) {
    case '"':
        out_str(f, "\\\"");
        break;
    case '\\':
        out_str(f, "\\\\");
        break;
    case '\n':
        out_str(f, "\\n");
        break;
    case '\r':
        out_str(f, "\\r");
        break;
    case '\t':
        out_str(f, "\\t");
        break;
    case '\b':
        out_str(f, "\\b");
        break;
    case '\f':
        out_str(f, "\\f");
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
    out_byte(f, '"');
    while (p < end) {
        /* copy the longest run of plain printable ASCII at once */
        const unsigned char *run = p;
        while (run < end && *run >= 0x20 && *run < 0x80 && *run != '"' && *run != '\\') {
            run++;
        }
        if (run > p) {
            out_bytes(f, (const char *)p, (size_t)(run - p));
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
            out_bytes(f, (const char *)p, len);
            p += len;
        } else {
            out_str(f, "\xef\xbf\xbd");
            p += bad;
        }
    }
    out_byte(f, '"');
}

/* ---- validation of raw JSON text --------------------------------------- */

typedef struct jv {
    const unsigned char *p;
    const unsigned char *end;
    unsigned depth;
} jv;

#define JV_MAX_DEPTH 64

static void jv_ws(jv *v)
{
    while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r')) {
        v->p++;
    }
}

static bool jv_lit(jv *v, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(v->end - v->p) < n || memcmp(v->p, word, n) != 0) {
        return false;
    }
    v->p += n;
    return true;
}

static bool jv_digits(jv *v)
{
    const unsigned char *start = v->p;
    while (v->p < v->end && *v->p >= '0' && *v->p <= '9') {
        v->p++;
    }
    return v->p > start;
}

/* RFC 8259 number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool jv_number(jv *v)
{
    if (v->p < v->end && *v->p == '-') {
        v->p++;
    }
    if (v->p < v->end && *v->p == '0') {
        v->p++;
    } else if (!jv_digits(v)) {
        return false;
    }
    if (v->p < v->end && *v->p == '.') {
        v->p++;
        if (!jv_digits(v)) {
            return false;
        }
    }
    if (v->p < v->end && (*v->p == 'e' || *v->p == 'E')) {
        v->p++;
        if (v->p < v->end && (*v->p == '+' || *v->p == '-')) {
            v->p++;
        }
        return jv_digits(v);
    }
    return true;
}

static bool jv_escape(jv *v)
{
    if (v->p >= v->end) {
        return false;
    }
    const unsigned char c = *v->p++;
    if (c != 'u') {
        return strchr("\"\\/bfnrt", c) != NULL && c != '\0';
    }
    for (int i = 0; i < 4; i++) {
        if (v->p >= v->end || !isxdigit(*v->p)) {
            return false;
        }
        v->p++;
    }
    return true;
}

static bool jv_string(jv *v)
{
    v->p++; /* opening quote */
    while (v->p < v->end && *v->p != '"') {
        const unsigned char c = *v->p;
        size_t bad;
        if (c < 0x20) {
            return false;
        }
        if (c == '\\') {
            v->p++;
            if (!jv_escape(v)) {
                return false;
            }
        } else if (c < 0x80) {
            v->p++;
        } else {
            const size_t len = utf8_valid_len(v->p, (size_t)(v->end - v->p), &bad);
            if (len == 0) {
                return false;
            }
            v->p += len;
        }
    }
    if (v->p >= v->end) {
        return false;
    }
    v->p++;
    return true;
}

static bool jv_value(jv *v);

/* One member ("key": value) or element. */
static bool jv_item(jv *v, bool object)
{
    jv_ws(v);
    if (object) {
        if (v->p >= v->end || *v->p != '"' || !jv_string(v)) {
            return false;
        }
        jv_ws(v);
        if (v->p >= v->end || *v->p++ != ':') {
            return false;
        }
    }
    return jv_value(v);
}

/* Members or elements up to `close`, after the opening bracket. */
static bool jv_container(jv *v, unsigned char close, bool object)
{
    if (++v->depth > JV_MAX_DEPTH) {
        return false;
    }
    v->p++;
    jv_ws(v);
    bool more = v->p >= v->end || *v->p != close;
    while (more) {
        if (!jv_item(v, object)) {
            return false;
        }
        jv_ws(v);
        if (v->p >= v->end || (*v->p != ',' && *v->p != close)) {
            return false;
        }
        more = *v->p == ',';
        if (more) {
            v->p++;
        }
    }
    v->p++; /* close */
    v->depth--;
    return true;
}

static bool jv_value(jv *v)
{
    jv_ws(v);
    if (v->p >= v->end) {
        return false;
    }
    switch (*v->p) {
    case '{':
        return jv_container(v, '}', true);
    case '[':
        return jv_container(v, ']', false);
    case '"':
        return jv_string(v);
    case 't':
        return jv_lit(v, "true");
    case 'f':
        return jv_lit(v, "false");
    case 'n':
        return jv_lit(v, "null");
    default:
        return jv_number(v);
    }
}

bool json_is_valid(const char *text)
{
    if (text == NULL) {
        return false;
    }
    jv v = {(const unsigned char *)text, (const unsigned char *)text + strlen(text), 0};
    if (!jv_value(&v)) {
        return false;
    }
    jv_ws(&v);
    return v.p == v.end;
}

void json_write_string(FILE *f, const char *s)
{
    if (s == NULL) {
        out_str(f, "null");
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
        out_byte(w->f, ',');
    }
    w->need_comma[w->depth] = true;
}

static void open_nested(json_writer *w, char c)
{
    before_value(w);
    out_byte(w->f, c);
    if (w->depth < JSON_MAX_DEPTH) {
        w->depth++;
    }
    w->need_comma[w->depth] = false;
}

static void close_nested(json_writer *w, char c)
{
    out_byte(w->f, c);
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
    out_byte(w->f, ':');
    w->after_key = true;
}

void json_string(json_writer *w, const char *s)
{
    before_value(w);
    json_write_string(w->f, s);
}

/* Decimal digits of v, written backwards ending at end; returns the start. */
static char *u64_digits(uint64_t v, char *end)
{
    char *p = end;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return p;
}

void json_int(json_writer *w, int64_t v)
{
    char buf[24];
    before_value(w);
    const uint64_t mag = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    char *p = u64_digits(mag, buf + sizeof buf);
    if (v < 0) {
        *--p = '-';
    }
    out_bytes(w->f, p, (size_t)(buf + sizeof buf - p));
}

void json_uint(json_writer *w, uint64_t v)
{
    char buf[24];
    before_value(w);
    char *p = u64_digits(v, buf + sizeof buf);
    out_bytes(w->f, p, (size_t)(buf + sizeof buf - p));
}

void json_double(json_writer *w, double v)
{
    char buf[48];
    before_value(w);
    out_str(w->f, json_format_double(v, buf, sizeof buf));
}

void json_bool(json_writer *w, bool v)
{
    before_value(w);
    out_str(w->f, v ? "true" : "false");
}

void json_null(json_writer *w)
{
    before_value(w);
    out_str(w->f, "null");
}

void json_raw(json_writer *w, const char *text)
{
    before_value(w);
    out_str(w->f, text == NULL || *text == '\0' ? "null" : text);
}

void json_raw_checked(json_writer *w, const char *text)
{
    if (text != NULL && *text != '\0' && !json_is_valid(text)) {
        json_string(w, text); /* not JSON: keep the text, as a string */
        return;
    }
    json_raw(w, text);
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
