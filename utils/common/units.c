/* SPDX-License-Identifier: MIT
 *
 * units.c - exact parsing of durations, percentages, sizes and counts, and
 * their formatting.  Every parser splits the text into a decimal mantissa
 * (digits with the point removed, at most 19 significant digits) and a
 * power of ten, adds the unit's power, and then either multiplies (checking
 * overflow) or divides (rejecting a remainder: "finer than the unit").  No
 * floating point is involved anywhere.
 * Tools layer: libc only.
 */
#include "units.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* A parsed decimal number: value = mant * 10^exp10. */
typedef struct decimal {
    uint64_t mant;
    int exp10;
} decimal;

static int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why != NULL && whylen > 0) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
        /* the reason echoes user text: keep it on one printable line */
        for (char *p = why; *p != '\0'; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                *p = '?';
            }
        }
    }
    return -1;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Append the digits [b, e) to d->mant; -1 on overflow of 19+ digits. */
static int add_digits(decimal *d, const char *b, const char *e)
{
    for (const char *p = b; p < e; p++) {
        const uint64_t digit = (uint64_t)(*p - '0');
        if (d->mant > (UINT64_MAX - digit) / 10) {
            return -1;
        }
        d->mant = d->mant * 10 + digit;
    }
    return 0;
}

/*
 * Parse "DIGITS[.DIGITS]" at *pp (no sign).  Leading zeros of the integer
 * part and trailing zeros of the fraction do not count against the 19-digit
 * mantissa, so "0.000000001" and "1.000000000000000000000" both work.
 */
static int parse_decimal(const char **pp, decimal *d, char *why, size_t whylen)
{
    const char *p = *pp;
    const char *ib = p;
    while (is_digit(*p)) {
        p++;
    }
    const char *ie = p;
    const char *fb = p;
    const char *fe = p;
    if (*p == '.') {
        fb = ++p;
        while (is_digit(*p)) {
            p++;
        }
        fe = p;
    }
    if (ie == ib && fe == fb) {
        return fail(why, whylen, "expected a number, got '%s'", *pp);
    }
    while (ib < ie && *ib == '0') {
        ib++;
    }
    while (fe > fb && fe[-1] == '0') {
        fe--;
    }
    d->mant = 0;
    d->exp10 = -(int)(fe - fb);
    if (add_digits(d, ib, ie) != 0 || add_digits(d, fb, fe) != 0) {
        return fail(why, whylen, "number too large in '%s'", *pp);
    }
    *pp = p;
    return 0;
}

/* mant * 10^exp10 as an exact integer not above max; -1 with why otherwise. */
static int
decimal_to_int(decimal d, uint64_t max, const char *finer, uint64_t *out, char *why, size_t whylen)
{
    uint64_t v = d.mant;
    int e = d.exp10;
    for (; e < 0; e++) {
        if (v % 10 != 0) {
            return fail(why, whylen, "%s", finer);
        }
        v /= 10;
    }
    for (; e > 0; e--) {
        if (v > max / 10) {
            return fail(why, whylen, "value too large");
        }
        v *= 10;
    }
    if (v > max) {
        return fail(why, whylen, "value too large");
    }
    *out = v;
    return 0;
}

typedef struct unit_entry {
    const char *suffix;
    int exp10;
} unit_entry;

static const unit_entry duration_units[] = {
    {"ns", 0}, {"us", 3}, {"\xc2\xb5s", 3}, {"ms", 6}, {"s", 9},
};

int units_parse_duration(const char *text, int64_t *out, char *why, size_t whylen)
{
    if (text == NULL || *text == '\0') {
        return fail(why, whylen, "empty duration");
    }
    if (*text == '-') {
        return fail(why, whylen, "negative duration '%s'", text);
    }
    const char *p = text;
    decimal d = {0, 0};
    if (parse_decimal(&p, &d, why, whylen) != 0) {
        return -1;
    }
    if (*p == '\0') {
        return fail(why, whylen, "missing unit in '%s' (use ns, us, ms or s)", text);
    }
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        if (strcmp(p, duration_units[i].suffix) == 0) {
            d.exp10 += duration_units[i].exp10;
            uint64_t v = 0; /* set on success; zero quiets -O3 maybe-uninitialized */
            char inner[128];
            if (decimal_to_int(d, (uint64_t)INT64_MAX, "precision finer than 1 ns", &v, inner,
                               sizeof inner) != 0) {
                return fail(why, whylen, "%s in '%s'", inner, text);
            }
            *out = (int64_t)v;
            return 0;
        }
    }
    return fail(why, whylen, "unknown unit '%s' in '%s' (use ns, us, ms or s)", p, text);
}

bool units_is_percent(const char *text)
{
    const size_t n = text == NULL ? 0 : strlen(text);
    return n > 0 && text[n - 1] == '%';
}

int units_parse_percent(const char *text, uint64_t *out, char *why, size_t whylen)
{
    if (!units_is_percent(text)) {
        return fail(why, whylen, "expected a percentage like '12.5%%'");
    }
    const char *p = text;
    decimal d = {0, 0};
    if (*p == '-') {
        return fail(why, whylen, "negative percentage '%s'", text);
    }
    if (parse_decimal(&p, &d, why, whylen) != 0) {
        return -1;
    }
    if (strcmp(p, "%") != 0) {
        return fail(why, whylen, "bad percentage '%s'", text);
    }
    d.exp10 += 9; /* 1% = 10^9 parts */
    uint64_t v = 0;
    char inner[128];
    if (decimal_to_int(d, UINT64_MAX, "more than nine fraction digits", &v, inner, sizeof inner) !=
        0) {
        return fail(why, whylen, "%s in '%s'", inner, text);
    }
    if (v > UNITS_PERCENT_SCALE) {
        return fail(why, whylen, "percentage above 100%% in '%s'", text);
    }
    *out = v;
    return 0;
}

int units_parse_int64(const char *text, int64_t *out, char *why, size_t whylen)
{
    if (text == NULL || *text == '\0') {
        return fail(why, whylen, "empty number");
    }
    const char *p = text;
    const bool neg = *p == '-';
    if (*p == '-' || *p == '+') {
        p++;
    }
    if (!is_digit(*p)) {
        return fail(why, whylen, "expected an integer, got '%s'", text);
    }
    uint64_t v = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; is_digit(*p); p++) {
        const uint64_t digit = (uint64_t)(*p - '0');
        if (v > (limit - digit) / 10) {
            return fail(why, whylen, "integer out of range in '%s'", text);
        }
        v = v * 10 + digit;
    }
    if (*p != '\0') {
        return fail(why, whylen, "trailing characters in integer '%s'", text);
    }
    if (neg) {
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        *out = (int64_t)v;
    }
    return 0;
}

/* Parse an optional "e[+-]DIGITS" exponent into *exp10. */
static int parse_exponent(const char **pp, int *exp10, char *why, size_t whylen)
{
    const char *p = *pp;
    if (*p != 'e' && *p != 'E') {
        return 0;
    }
    p++;
    const bool neg = *p == '-';
    if (*p == '-' || *p == '+') {
        p++;
    }
    if (!is_digit(*p)) {
        return fail(why, whylen, "bad exponent");
    }
    int e = 0;
    for (; is_digit(*p); p++) {
        if (e > 100) {
            return fail(why, whylen, "exponent too large");
        }
        e = e * 10 + (*p - '0');
    }
    *exp10 += neg ? -e : e;
    *pp = p;
    return 0;
}

static const unit_entry count_units[] = {
    {"", 0}, {"k", 3}, {"K", 3}, {"M", 6}, {"G", 9}, {"T", 12},
};

int units_parse_count(const char *text, uint64_t *out, char *why, size_t whylen)
{
    if (text == NULL || *text == '\0') {
        return fail(why, whylen, "empty count");
    }
    if (*text == '-') {
        return fail(why, whylen, "negative count '%s'", text);
    }
    const char *p = text;
    decimal d = {0, 0};
    if (parse_decimal(&p, &d, why, whylen) != 0) {
        return -1;
    }
    char bad[128];
    if (parse_exponent(&p, &d.exp10, bad, sizeof bad) != 0) {
        return fail(why, whylen, "%s in '%s'", bad, text);
    }
    for (size_t i = 0; i < sizeof count_units / sizeof count_units[0]; i++) {
        if (strcmp(p, count_units[i].suffix) == 0) {
            d.exp10 += count_units[i].exp10;
            char inner[128];
            if (decimal_to_int(d, UINT64_MAX, "not a whole number", out, inner, sizeof inner) !=
                0) {
                return fail(why, whylen, "%s in '%s'", inner, text);
            }
            return 0;
        }
    }
    return fail(why, whylen, "unknown suffix '%s' in '%s' (use k, M, G or T)", p, text);
}

typedef struct size_unit {
    const char *suffix;
    uint64_t factor;
} size_unit;

static const size_unit size_units[] = {
    {"", 1},
    {"B", 1},
    {"KiB", UINT64_C(1) << 10},
    {"MiB", UINT64_C(1) << 20},
    {"GiB", UINT64_C(1) << 30},
    {"TiB", UINT64_C(1) << 40},
    {"kB", UINT64_C(1000)},
    {"KB", UINT64_C(1000)},
    {"MB", UINT64_C(1000000)},
    {"GB", UINT64_C(1000000000)},
    {"TB", UINT64_C(1000000000000)},
};

/* d * factor as an exact integer, or -1 (why) for a fraction or overflow. */
static int scale_size(decimal d, uint64_t factor, uint64_t *out, char *why, size_t whylen)
{
    u128 v = (u128)d.mant * factor;
    int e = d.exp10;
    for (; e < 0; e++) {
        if (v % 10 != 0) {
            return fail(why, whylen, "not a whole number of bytes");
        }
        v /= 10;
    }
    for (; e > 0; e--) {
        if (v > UINT64_MAX) {
            break;
        }
        v *= 10;
    }
    if (v > UINT64_MAX) {
        return fail(why, whylen, "size too large");
    }
    *out = (uint64_t)v;
    return 0;
}

int units_parse_size(const char *text, uint64_t *out, char *why, size_t whylen)
{
    if (text == NULL || *text == '\0') {
        return fail(why, whylen, "empty size");
    }
    if (*text == '-') {
        return fail(why, whylen, "negative size '%s'", text);
    }
    const char *p = text;
    decimal d = {0, 0};
    if (parse_decimal(&p, &d, why, whylen) != 0) {
        return -1;
    }
    for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++) {
        if (strcmp(p, size_units[i].suffix) == 0) {
            char inner[128];
            if (scale_size(d, size_units[i].factor, out, inner, sizeof inner) != 0) {
                return fail(why, whylen, "%s in '%s'", inner, text);
            }
            return 0;
        }
    }
    return fail(why, whylen, "unknown size suffix '%s' in '%s' (use B, KiB, MiB, GiB, kB, MB, GB)",
                p, text);
}

uint64_t units_apply_percent(uint64_t whole, uint64_t part)
{
    return (uint64_t)((u128)whole * part / UNITS_PERCENT_SCALE);
}

int units_muldiv(int64_t a, uint64_t b, uint64_t c, int64_t *out)
{
    if (a < 0 || c == 0) {
        return -1;
    }
    const u128 v = (u128)(uint64_t)a * b / c;
    if (v > (u128)INT64_MAX) {
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int units_muldiv_ceil(int64_t a, uint64_t b, uint64_t c, int64_t *out)
{
    if (a < 0 || c == 0) {
        return -1;
    }
    const u128 prod = (u128)(uint64_t)a * b;
    const u128 v = prod / c + (prod % c != 0 ? 1 : 0);
    if (v > (u128)INT64_MAX) {
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int64_t units_ticks_to_ns(int64_t ticks, uint64_t ticks_per_second)
{
    const uint64_t giga = UINT64_C(1000000000);
    if (ticks_per_second == 0 || ticks_per_second == giga) {
        return ticks;
    }
    /* floor division also for negative values: -(ceil(|t| * 1e9 / tps)) */
    const bool neg = ticks < 0;
    const u128 mag = neg ? (u128)(-(ticks + 1)) + 1 : (u128)ticks;
    const u128 prod = mag * giga;
    u128 q = prod / ticks_per_second;
    if (neg && prod % ticks_per_second != 0) {
        q++;
    }
    if (!neg && q > (u128)INT64_MAX) {
        return INT64_MAX;
    }
    if (neg && q > (u128)INT64_MAX + 1) {
        return INT64_MIN;
    }
    if (neg) {
        return q == (u128)INT64_MAX + 1 ? INT64_MIN : -(int64_t)q;
    }
    return (int64_t)q;
}

static const struct {
    const char *name;
    uint64_t ns;
} fmt_units[] = {
    {"s", UINT64_C(1000000000)},
    {"ms", UINT64_C(1000000)},
    {"us", UINT64_C(1000)},
    {"ns", 1},
};

const char *units_format_duration(int64_t ns, char *buf, size_t len)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    size_t u = 0;
    while (fmt_units[u].ns > 1 && mag < fmt_units[u].ns) {
        u++;
    }
    const uint64_t unit = fmt_units[u].ns;
    const uint64_t ip = mag / unit;
    uint64_t frac = mag % unit;
    if (frac == 0) {
        (void)snprintf(buf, len, "%s%llu%s", neg ? "-" : "", (unsigned long long)ip,
                       fmt_units[u].name);
        return buf;
    }
    int digits = 0;
    for (uint64_t x = unit; x > 1; x /= 10) {
        digits++;
    }
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    (void)snprintf(buf, len, "%s%llu.%0*llu%s", neg ? "-" : "", (unsigned long long)ip, digits,
                   (unsigned long long)frac, fmt_units[u].name);
    return buf;
}

const char *units_format_us3(int64_t ns, char *buf, size_t len)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
    (void)snprintf(buf, len, "%s%llu.%03llu", neg ? "-" : "", (unsigned long long)(mag / 1000),
                   (unsigned long long)(mag % 1000));
    return buf;
}

const char *units_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        (void)snprintf(buf, len, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    size_t u = 0;
    uint64_t scale = 1;
    while (u + 1 < sizeof names / sizeof names[0] && bytes / scale >= 1024) {
        scale <<= 10;
        u++;
    }
    /* two decimals, rounded half up, computed in integers */
    const u128 hundredths = ((u128)bytes * 100 + scale / 2) / scale;
    (void)snprintf(buf, len, "%llu.%02llu %s", (unsigned long long)(hundredths / 100),
                   (unsigned long long)(hundredths % 100), names[u]);
    return buf;
}
