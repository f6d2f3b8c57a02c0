/* SPDX-License-Identifier: MIT
 *
 * chrome_time.c - exact decimal microseconds -> integer nanoseconds.  The
 * Trace Event Format writes ts/dur/tdur in microseconds with any number of
 * fraction digits ("1712195495519689.047"); a double holds only ~16
 * significant digits, so the text is read digit by digit into a 64-bit
 * mantissa and a decimal exponent, and scaled by 10^3 in integer arithmetic.
 * Only digits below one nanosecond are rounded (half away from zero).
 * Import library, chrome: libc only.
 */
#include <string.h>

#include "chrome.h"

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

typedef struct decimal {
    bool neg;
    uint64_t mant;     /* significant digits kept */
    int64_t exp10;     /* value = mant * 10^exp10 (before dropped digits) */
    int first_dropped; /* first digit not kept, -1 if none */
    bool sticky;       /* a nonzero digit after first_dropped */
} decimal;

static void decimal_digit(decimal *d, int digit, int *kept, bool fraction)
{
    if (d->mant == 0 && digit == 0) {
        if (fraction) {
            d->exp10--; /* leading zero of the fraction: scale only */
        }
        return;
    }
    if (*kept < 19) {
        d->mant = d->mant * 10u + (uint64_t)digit;
        (*kept)++;
        if (fraction) {
            d->exp10--;
        }
        return;
    }
    if (!fraction) {
        d->exp10++; /* integer digit beyond the mantissa: scale up */
    }
    if (d->first_dropped < 0) {
        d->first_dropped = digit;
    } else if (digit != 0) {
        d->sticky = true;
    }
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The digits from s[*i] into d; returns how many. */
static size_t decimal_digits(decimal *d, const char *s, size_t len, size_t *i, int *kept,
                             bool fraction)
{
    size_t n = 0;
    for (; *i < len && is_digit(s[*i]); (*i)++, n++) {
        decimal_digit(d, s[*i] - '0', kept, fraction);
    }
    return n;
}

/* An exponent "e[+-]digits" at s[*i] (if any) into d; -1 when it has no digit. */
static int decimal_exponent(decimal *d, const char *s, size_t len, size_t *i)
{
    if (*i >= len || (s[*i] != 'e' && s[*i] != 'E')) {
        return 0;
    }
    (*i)++;
    const bool eneg = *i < len && s[*i] == '-';
    *i += *i < len && (s[*i] == '-' || s[*i] == '+') ? 1u : 0u;
    int64_t e = 0;
    size_t edigits = 0;
    for (; *i < len && is_digit(s[*i]); (*i)++, edigits++) {
        if (e < 100000) {
            e = e * 10 + (s[*i] - '0');
        }
    }
    if (edigits == 0) {
        return -1;
    }
    d->exp10 += eneg ? -e : e;
    return 0;
}

/* Returns 0 or -1 (syntax). */
static int decimal_scan(const char *s, size_t len, decimal *d)
{
    size_t i = 0;
    while (i < len && is_blank(s[i])) {
        i++;
    }
    while (len > i && is_blank(s[len - 1])) {
        len--;
    }
    memset(d, 0, sizeof *d);
    d->first_dropped = -1;
    if (i < len && (s[i] == '-' || s[i] == '+')) {
        d->neg = s[i] == '-';
        i++;
    }
    int kept = 0;
    size_t digits = decimal_digits(d, s, len, &i, &kept, false);
    if (i < len && s[i] == '.') {
        i++;
        digits += decimal_digits(d, s, len, &i, &kept, true);
    }
    if (digits == 0 || decimal_exponent(d, s, len, &i) != 0) {
        return -1;
    }
    return i == len ? 0 : -1;
}

/* A magnitude with its sign as int64; false when out of range. */
static bool signed_ns(uint64_t mag, bool neg, int64_t *ns)
{
    if (neg) {
        if (mag > (uint64_t)INT64_MAX + 1u) {
            return false;
        }
        *ns = mag == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)mag;
        return true;
    }
    if (mag > (uint64_t)INT64_MAX) {
        return false;
    }
    *ns = (int64_t)mag;
    return true;
}

/* The common shape, "[-]digits[.d[d[d]]]" with at most 16 integer digits:
 * exact in ns with no rounding, and at most 19 digits cannot overflow
 * uint64.  Returns false to leave anything else to the general path. */
static bool time_fast(const char *s, size_t len, int64_t *ns)
{
    const bool neg = len > 0 && s[0] == '-';
    size_t i = neg ? 1u : 0u;
    const size_t int_start = i;
    uint64_t mag = 0;
    for (; i < len && is_digit(s[i]); i++) {
        mag = mag * 10u + (uint64_t)(s[i] - '0');
    }
    const size_t nint = i - int_start;
    if (nint == 0 || nint > 16) {
        return false;
    }
    uint64_t frac = 0;
    size_t nfrac = 0;
    if (i < len && s[i] == '.') {
        for (i++; i < len && nfrac < 4 && is_digit(s[i]); i++, nfrac++) {
            frac = frac * 10u + (uint64_t)(s[i] - '0');
        }
        if (nfrac == 0 || nfrac > 3) {
            return false;
        }
    }
    static const uint64_t scale[4] = {1000u, 100u, 10u, 1u};
    return i == len && signed_ns(mag * 1000u + frac * scale[nfrac], neg, ns);
}

/* The magnitude in ns of d (in microseconds), rounded half away from zero;
 * false when it overflows. */
static bool decimal_ns(const decimal *d, uint64_t *mag, bool *rounded)
{
    const int64_t k = d->exp10 + 3; /* microseconds -> nanoseconds */
    if (d->mant == 0) {
        *mag = 0;
        *rounded = d->first_dropped > 0 || d->sticky;
    } else if (k >= 0) {
        if (k > 19 || d->mant > UINT64_MAX / pow10_u64[k]) {
            return false;
        }
        *mag = d->mant * pow10_u64[k];
        /* dropped digits only survive at k == 0 (else it overflowed) */
        *rounded = d->first_dropped > 0 || d->sticky;
        *mag += d->first_dropped >= 5 ? 1u : 0u;
    } else if (k < -19) {
        *mag = 0;
        *rounded = true;
    } else {
        const uint64_t div = pow10_u64[-k];
        const uint64_t rem = d->mant % div;
        *mag = d->mant / div + (rem >= div - rem ? 1u : 0u); /* half away from zero */
        *rounded = rem != 0 || d->first_dropped > 0 || d->sticky;
    }
    return true;
}

int chrome_time_parse(const char *text, size_t len, int64_t *ns, bool *rounded)
{
    decimal d;
    *rounded = false;
    if (time_fast(text, len, ns)) {
        return 0;
    }
    if (decimal_scan(text, len, &d) != 0) {
        return -1;
    }
    uint64_t mag = 0;
    if (!decimal_ns(&d, &mag, rounded) || !signed_ns(mag, d.neg, ns)) {
        return -2;
    }
    return 0;
}

bool chrome_int_canon(const char *text, size_t len, char *out, size_t outlen)
{
    size_t i = 0;
    while (i < len && is_blank(text[i])) {
        i++;
    }
    while (len > i && is_blank(text[len - 1])) {
        len--;
    }
    bool neg = false;
    if (i < len && (text[i] == '-' || text[i] == '+')) {
        neg = text[i] == '-';
        i++;
    }
    if (i == len) {
        return false;
    }
    for (size_t j = i; j < len; j++) {
        if (text[j] < '0' || text[j] > '9') {
            return false;
        }
    }
    while (i + 1 < len && text[i] == '0') {
        i++;
    }
    if (len - i == 1 && text[i] == '0') {
        neg = false;
    }
    const size_t need = (neg ? 1u : 0u) + (len - i) + 1u;
    if (need > outlen) {
        return false;
    }
    size_t o = 0;
    if (neg) {
        out[o++] = '-';
    }
    memcpy(out + o, text + i, len - i);
    out[o + len - i] = '\0';
    return true;
}
