/* SPDX-License-Identifier: MIT
 *
 * chrome_scan.c - the Chrome importer's fast path (see chrome_scan.h): one
 * JSON object scanned in place, eight bytes at a time through string
 * contents, with the SAX events of yajl reported to the parser's handlers.
 * Strict where yajl is strict, and declining wherever yajl would do
 * something worth keeping (repairs, errors, its own escape quirks), so the
 * import gives the same records with or without it.
 * Tools layer: libc only.
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

/* A string with escapes, from its first backslash at s[i]: decoded into
 * sc->buf.  Returns the index after the closing quote, 0 to decline. */
static size_t scan_escaped(chrome_scan *sc, const unsigned char *s, size_t n, size_t start,
                           size_t i, const char **out, size_t *outlen)
{
    if (sc->cap < n - start) { /* decoded text is never longer than its source */
        char *b = realloc(sc->buf, n - start);
        if (b == NULL) {
            return 0; /* yajl then reads it (and meets the same shortage) */
        }
        sc->buf = b;
        sc->cap = n - start;
    }
    char *const o0 = sc->buf;
    char *o = o0;
    memcpy(o, s + start, i - start);
    o += i - start;
    while (i < n) {
        const unsigned char c = s[i];
        if (c == '"') {
            *out = o0;
            *outlen = (size_t)(o - o0);
            return i + 1;
        }
        if (c >= 0x80) {
            const size_t k = chrome_utf8_seq(s + i, n - i);
            if (k == 0) {
                return 0;
            }
            memcpy(o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        if (c < 0x20) {
            return 0;
        }
        if (c != '\\') {
            *o++ = (char)c;
            i++;
            continue;
        }
        if (i + 1 >= n) {
            return 0;
        }
        const unsigned char e = s[i + 1];
        static const char simple_from[] = "\"\\/bfnrt";
        static const char simple_to[] = "\"\\/\b\f\n\r\t";
        const char *hit = e != 'u' && e != '\0' ? strchr(simple_from, e) : NULL;
        if (hit != NULL) {
            *o++ = simple_to[hit - simple_from];
            i += 2;
            continue;
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
        i += 6;
    }
    return 0;
}

/* The string whose opening quote is s[i - 1].  Returns the index after the
 * closing quote, 0 to decline. */
static size_t scan_string(chrome_scan *sc, const unsigned char *s, size_t n, size_t i,
                          const char **out, size_t *outlen)
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
            *out = (const char *)s + start;
            *outlen = i - start;
            return i + 1;
        }
        if (c == '\\') {
            return scan_escaped(sc, s, n, start, i, out, outlen);
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

#define EMIT(call)                                                                             \
    do {                                                                                       \
        const int rc_ = (call);                                                                \
        if (rc_ != 0) {                                                                        \
            sc->stop = rc_;                                                                    \
            return CHROME_SCAN_STOPPED;                                                        \
        }                                                                                      \
    } while (0)

/* One scalar value at s[i]: reported; returns the index after it, 0 to
 * decline, SIZE_MAX when a handler stopped the scan. */
static size_t scan_scalar(chrome_scan *sc, const unsigned char *s, size_t n, size_t i,
                          const chrome_scan_sink *sink, void *user)
{
    int rc = 0;
    size_t end = 0;
    switch (s[i]) {
    case '"': {
        const char *t = NULL;
        size_t tn = 0;
        end = scan_string(sc, s, n, i + 1, &t, &tn);
        if (end != 0) {
            rc = sink->string(user, t, tn);
        }
        break;
    }
    case 't':
        if (has_word(s, n, i, "true", 4)) {
            end = i + 4;
            rc = sink->boolean(user, true);
        }
        break;
    case 'f':
        if (has_word(s, n, i, "false", 5)) {
            end = i + 5;
            rc = sink->boolean(user, false);
        }
        break;
    case 'n':
        if (has_word(s, n, i, "null", 4)) {
            end = i + 4;
            rc = sink->null(user);
        }
        break;
    default:
        end = scan_number(s, n, i);
        if (end != 0) {
            rc = sink->number(user, (const char *)s + i, end - i);
        }
        break;
    }
    if (rc != 0) {
        sc->stop = rc;
        return SIZE_MAX;
    }
    return end;
}

long chrome_scan_object(chrome_scan *sc, const unsigned char *s, size_t n,
                        const chrome_scan_sink *sink, void *user)
{
    bool is_map[CHROME_SCAN_DEPTH];
    int depth = 1;
    is_map[0] = true;
    bool first = true;
    size_t i = 1;
    sc->stop = 0;
    EMIT(sink->open(user, true));
    for (;;) {
        i = skip_ws(s, n, i);
        if (i >= n) {
            return CHROME_SCAN_DECLINED;
        }
        const unsigned char close = is_map[depth - 1] ? '}' : ']';
        if (s[i] == close) {
            i++;
            if (--depth == 0) {
                return (long)i; /* the object's own end: the caller reports it */
            }
            EMIT(sink->close(user, close == '}'));
            first = false;
            continue;
        }
        if (!first) {
            if (s[i] != ',') {
                return CHROME_SCAN_DECLINED;
            }
            i = skip_ws(s, n, i + 1);
            if (i >= n) {
                return CHROME_SCAN_DECLINED;
            }
        }
        first = false;
        if (close == '}') {
            const char *k = NULL;
            size_t kn = 0;
            if (s[i] != '"') {
                return CHROME_SCAN_DECLINED;
            }
            i = scan_string(sc, s, n, i + 1, &k, &kn);
            if (i == 0) {
                return CHROME_SCAN_DECLINED;
            }
            EMIT(sink->key(user, k, kn));
            i = skip_ws(s, n, i);
            if (i >= n || s[i] != ':') {
                return CHROME_SCAN_DECLINED;
            }
            i = skip_ws(s, n, i + 1);
            if (i >= n) {
                return CHROME_SCAN_DECLINED;
            }
        }
        if (s[i] == '{' || s[i] == '[') {
            if (depth == CHROME_SCAN_DEPTH) {
                return CHROME_SCAN_DECLINED;
            }
            is_map[depth++] = s[i] == '{';
            EMIT(sink->open(user, s[i] == '{'));
            first = true;
            i++;
            continue;
        }
        i = scan_scalar(sc, s, n, i, sink, user);
        if (i == SIZE_MAX) {
            return CHROME_SCAN_STOPPED;
        }
        if (i == 0) {
            return CHROME_SCAN_DECLINED;
        }
    }
}

void chrome_scan_free(chrome_scan *sc)
{
    free(sc->buf);
    sc->buf = NULL;
    sc->cap = 0;
}
