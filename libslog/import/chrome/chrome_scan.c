/* SPDX-License-Identifier: MIT
 *
 * chrome_scan.c - the Chrome importer's fast path (see chrome_scan.h): one
 * JSON object scanned in place, eight bytes at a time through string
 * contents, with the SAX events of yajl reported to the parser's handlers.
 * Strict where yajl is strict, and declining wherever yajl would do
 * something worth keeping (repairs, errors, its own escape quirks), so the
 * import gives the same records with or without it.
 * Import library, chrome: libc only.
 */
#include "chrome_scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull

size_t chrome_utf8_seq(const unsigned char *s, size_t n)
{
    const unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len) {
        return 0;
    }
    unsigned cp = c & (0x7fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return len;
}

/* Some byte of w is '"', '\\', a control character or not ASCII: the high
 * bit of that byte is set.  Above the lowest such byte, borrows may set
 * others; the lowest one is always exact. */
static inline uint64_t special_bytes(uint64_t w)
{
    const uint64_t q = w ^ (ONES * '"');
    const uint64_t b = w ^ (ONES * '\\');
    return (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20u) & ~w) | w) & HIGH;
}

static inline size_t skip_ws(const unsigned char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) {
        i++;
    }
    return i;
}

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A string's decoded text. */
typedef struct text {
    const char *p;
    size_t n;
} text;

/* Write code point @p cp (below U+10000) as UTF-8 at o; returns the end. */
static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* The escape at s[i] == '\\': its bytes go to *o (advanced).  Returns the
 * index after it, 0 to decline. */
static size_t decode_escape(const unsigned char *s, size_t n, size_t i, char **o)
{
    static const char simple_from[] = "\"\\/bfnrt";
    static const char simple_to[] = "\"\\/\b\f\n\r\t";
    if (i + 1 >= n) {
        return 0;
    }
    const unsigned char e = s[i + 1];
    const char *hit = e != 'u' && e != '\0' ? strchr(simple_from, e) : NULL;
    if (hit != NULL) {
        *(*o)++ = simple_to[hit - simple_from];
        return i + 2;
    }
    if (e != 'u' || i + 6 > n) {
        return 0;
    }
    unsigned cp = 0;
    for (size_t k = 2; k < 6; k++) {
        const int d = hex_digit(s[i + k]);
        if (d < 0) {
            return 0;
        }
        cp = cp << 4 | (unsigned)d;
    }
    if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0; /* yajl has its own ways with these */
    }
    *o = put_utf8(*o, cp);
    return i + 6;
}

/* A string with escapes, from its first backslash at s[i]: decoded into
 * sc->buf.  Returns the index after the closing quote, 0 to decline. */
static size_t scan_escaped(chrome_scan *sc, const unsigned char *s, size_t n, size_t start,
                           size_t i, text *out)
{
    if (sc->cap < n - start) { /* decoded text is never longer than its source */
        char *b = realloc(sc->buf, n - start);
        if (b == NULL) {
            return 0; /* yajl then reads it (and meets the same shortage) */
        }
        sc->buf = b;
        sc->cap = n - start;
    }
    char *o = sc->buf;
    memcpy(o, s + start, i - start);
    o += i - start;
    while (i < n && s[i] != '"') {
        const unsigned char c = s[i];
        size_t k = 1;
        if (c == '\\') {
            i = decode_escape(s, n, i, &o);
            if (i == 0) {
                return 0;
            }
            continue;
        }
        if (c < 0x20 || (c >= 0x80 && (k = chrome_utf8_seq(s + i, n - i)) == 0)) {
            return 0;
        }
        memcpy(o, s + i, k);
        o += k;
        i += k;
    }
    if (i >= n) {
        return 0;
    }
    out->p = sc->buf;
    out->n = (size_t)(o - sc->buf);
    return i + 1;
}

/* The string whose opening quote is s[i - 1].  Returns the index after the
 * closing quote, 0 to decline. */
static size_t scan_string(chrome_scan *sc, const unsigned char *s, size_t n, size_t i,
                          text *out)
{
    const size_t start = i;
    for (;;) {
        for (uint64_t w; i + 8 <= n; i += 8) {
            memcpy(&w, s + i, 8);
            const uint64_t m = special_bytes(w);
            if (m != 0) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                i += (size_t)__builtin_ctzll(m) >> 3; /* the lowest flag is exact */
#endif
                break;
            }
        }
        if (i >= n) {
            return 0;
        }
        const unsigned char c = s[i];
        if (c == '"') {
            out->p = (const char *)s + start;
            out->n = i - start;
            return i + 1;
        }
        if (c == '\\') {
            return scan_escaped(sc, s, n, start, i, out);
        }
        if (c >= 0x80) {
            const size_t k = chrome_utf8_seq(s + i, n - i);
            if (k == 0) {
                return 0;
            }
            i += k;
        } else if (c < 0x20) {
            return 0;
        } else {
            i++;
        }
    }
}

static size_t scan_digits(const unsigned char *s, size_t n, size_t i)
{
    while (i < n && s[i] >= '0' && s[i] <= '9') {
        i++;
    }
    return i;
}

/* A JSON number at s[i]: the index after it, 0 to decline (not a number,
 * or input ends before anything shows that it ended). */
static size_t scan_number(const unsigned char *s, size_t n, size_t i)
{
    if (s[i] == '-') {
        i++;
    }
    if (i >= n) {
        return 0;
    }
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        i = scan_digits(s, n, i + 1);
    } else {
        return 0;
    }
    if (i < n && s[i] == '.') {
        const size_t j = scan_digits(s, n, i + 1);
        if (j == i + 1) {
            return 0;
        }
        i = j;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        const size_t j = scan_digits(s, n, i);
        if (j == i) {
            return 0;
        }
        i = j;
    }
    return i < n ? i : 0;
}

static bool has_word(const unsigned char *s, size_t n, size_t i, const char *w, size_t wn)
{
    return n - i >= wn && memcmp(s + i, w, wn) == 0;
}

/* The scan of one object: where it is and the open containers. */
typedef struct scan_ctx {
    chrome_scan *sc;
    const unsigned char *s;
    size_t n;
    const chrome_scan_sink *sink;
    void *user;
    bool is_map[CHROME_SCAN_DEPTH];
    int depth;
} scan_ctx;

#define STOPPED SIZE_MAX /* index result: a handler stopped the scan */

/* true, false or null at s[i]: reported; returns the index after it, 0 to
 * decline, STOPPED. */
static size_t scan_literal(scan_ctx *c, size_t i)
{
    static const char *const words[3] = {"true", "false", "null"};
    static const size_t lens[3] = {4, 5, 4};
    const int w = c->s[i] == 't' ? 0 : c->s[i] == 'f' ? 1 : 2;
    const size_t len = lens[w];
    if (!has_word(c->s, c->n, i, words[w], len)) {
        return 0;
    }
    const int rc = w == 2 ? c->sink->null(c->user) : c->sink->boolean(c->user, w == 0);
    if (rc != 0) {
        c->sc->stop = rc;
        return STOPPED;
    }
    return i + len;
}

/* One scalar value at s[i]: reported; returns the index after it, 0 to
 * decline, STOPPED. */
static size_t scan_scalar(scan_ctx *c, size_t i)
{
    const unsigned char *const s = c->s;
    const size_t n = c->n;
    int rc = 0;
    size_t end = 0;
    if (s[i] == '"') {
        text t = {NULL, 0};
        end = scan_string(c->sc, s, n, i + 1, &t);
        rc = end != 0 ? c->sink->string(c->user, t.p, t.n) : 0;
    } else if (s[i] == 't' || s[i] == 'f' || s[i] == 'n') {
        return scan_literal(c, i);
    } else {
        end = scan_number(s, n, i);
        rc = end != 0 ? c->sink->number(c->user, (const char *)s + i, end - i) : 0;
    }
    if (rc != 0) {
        c->sc->stop = rc;
        return STOPPED;
    }
    return end;
}

/* A member's key and ':' at s[i]: reported; returns the index of the
 * value, 0 to decline, STOPPED. */
static size_t scan_key(scan_ctx *c, size_t i)
{
    text k = {NULL, 0};
    if (c->s[i] != '"') {
        return 0;
    }
    i = scan_string(c->sc, c->s, c->n, i + 1, &k);
    if (i == 0) {
        return 0;
    }
    const int rc = c->sink->key(c->user, k.p, k.n);
    if (rc != 0) {
        c->sc->stop = rc;
        return STOPPED;
    }
    i = skip_ws(c->s, c->n, i);
    if (i >= c->n || c->s[i] != ':') {
        return 0;
    }
    i = skip_ws(c->s, c->n, i + 1);
    return i < c->n ? i : 0;
}

/* A value at s[i]: a container opens (*opened set) or a scalar is read.
 * Returns the next index, 0 to decline, STOPPED. */
static size_t scan_value(scan_ctx *c, size_t i, bool *opened)
{
    const unsigned char ch = c->s[i];
    *opened = ch == '{' || ch == '[';
    if (!*opened) {
        return scan_scalar(c, i);
    }
    if (c->depth == CHROME_SCAN_DEPTH) {
        return 0;
    }
    c->is_map[c->depth++] = ch == '{';
    const int rc = c->sink->open(c->user, ch == '{');
    if (rc != 0) {
        c->sc->stop = rc;
        return STOPPED;
    }
    return i + 1;
}

/* The next member or element at s[i] (after its ',' when not the first):
 * returns the index after it, 0 to decline, STOPPED. */
static size_t scan_item(scan_ctx *c, size_t i, bool first, bool *opened)
{
    if (!first) {
        if (c->s[i] != ',') {
            return 0;
        }
        i = skip_ws(c->s, c->n, i + 1);
        if (i >= c->n) {
            return 0;
        }
    }
    if (c->is_map[c->depth - 1]) {
        i = scan_key(c, i);
        if (i == 0 || i == STOPPED) {
            return i;
        }
    }
    return scan_value(c, i, opened);
}

long chrome_scan_object(chrome_scan *sc, const unsigned char *s, size_t n,
                        const chrome_scan_sink *sink, void *user)
{
    scan_ctx c = {.sc = sc, .s = s, .n = n, .sink = sink, .user = user, .depth = 1};
    c.is_map[0] = true;
    sc->stop = sink->open(user, true);
    if (sc->stop != 0) {
        return CHROME_SCAN_STOPPED;
    }
    bool first = true;
    size_t i = 1;
    for (;;) {
        i = skip_ws(s, n, i);
        if (i >= n) {
            return CHROME_SCAN_DECLINED;
        }
        const bool in_map = c.is_map[c.depth - 1];
        if (s[i] == (in_map ? '}' : ']')) {
            i++;
            if (--c.depth == 0) {
                return (long)i; /* the object's own end: the caller reports it */
            }
            sc->stop = sink->close(user, in_map);
            if (sc->stop != 0) {
                return CHROME_SCAN_STOPPED;
            }
            first = false;
            continue;
        }
        bool opened = false;
        i = scan_item(&c, i, first, &opened);
        if (i == 0 || i == STOPPED) {
            return i == 0 ? CHROME_SCAN_DECLINED : CHROME_SCAN_STOPPED;
        }
        first = opened;
    }
}

void chrome_scan_free(chrome_scan *sc)
{
    free(sc->buf);
    sc->buf = NULL;
    sc->cap = 0;
}
