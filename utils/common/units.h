/* SPDX-License-Identifier: MIT
 *
 * units.h - exact parsing and formatting of the quantities the tools take on
 * their command lines: durations ("1.5ms", "2us", "3s", "250ns"), percentages
 * ("12.5%"), byte sizes ("64KiB") and counts ("1e8", "10M").  Everything is
 * integer arithmetic on the decimal text, never a double, so "0.000000001s"
 * is exactly 1 ns; overflow, a missing unit and precision finer than the
 * unit allows are rejected with a one-line reason.  Tick <-> ns conversions
 * use 128-bit intermediates.
 * Tools layer: libc only, no libslog.
 */
#ifndef SLOG_UTILS_UNITS_H
#define SLOG_UTILS_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Scale of a percentage: 100% is UNITS_PERCENT_SCALE parts, so "12.5%" is
 * 12500000000 parts and nine fraction digits of a percent are exact. */
#define UNITS_PERCENT_SCALE UINT64_C(100000000000) /* 100% = 10^11 */

/**
 * Parse a non-negative duration with a mandatory unit (ns, us, ms, s) into
 * nanoseconds.  Decimal fractions are allowed as long as the result is a
 * whole number of nanoseconds ("1.5ns" is rejected).
 * @param text   the text, whole string must match
 * @param out    receives nanoseconds (untouched on error)
 * @param why    receives a one-line reason on error (may be NULL)
 * @return 0 ok, -1 error
 */
int units_parse_duration(const char *text, int64_t *out, char *why, size_t whylen);

/**
 * Parse a percentage "P%" with 0 <= P <= 100 and at most nine fraction
 * digits into parts per UNITS_PERCENT_SCALE.
 * @return 0 ok, -1 error (why filled)
 */
int units_parse_percent(const char *text, uint64_t *out, char *why, size_t whylen);

/** True when @p text ends with '%' (after which units_parse_percent applies). */
bool units_is_percent(const char *text);

/**
 * Parse a signed integer (raw ticks), whole string, no unit, with overflow
 * checking.  @return 0 ok, -1 error (why filled)
 */
int units_parse_int64(const char *text, int64_t *out, char *why, size_t whylen);

/**
 * Parse a count: a plain integer, a decimal with an exponent that leaves an
 * integer ("1e8", "2.5e3"), or an SI suffix k, M, G, T ("10M").
 * @return 0 ok, -1 error (why filled)
 */
int units_parse_count(const char *text, uint64_t *out, char *why, size_t whylen);

/**
 * Parse a byte size: an integer with an optional suffix B, KiB, MiB, GiB
 * (powers of 1024) or kB, MB, GB (powers of 1000); fractions are allowed when
 * the result is a whole number of bytes ("1.5KiB" = 1536).
 * @return 0 ok, -1 error (why filled)
 */
int units_parse_size(const char *text, uint64_t *out, char *why, size_t whylen);

/**
 * @p whole * @p part / UNITS_PERCENT_SCALE rounded down, exact.
 */
uint64_t units_apply_percent(uint64_t whole, uint64_t part);

/**
 * floor(a * b / c) for a >= 0 computed exactly; returns -1 (and leaves *out
 * untouched) when the result does not fit in int64 or c == 0.
 */
int units_muldiv(int64_t a, uint64_t b, uint64_t c, int64_t *out);

/** Same, rounding up. */
int units_muldiv_ceil(int64_t a, uint64_t b, uint64_t c, int64_t *out);

/** Signed tick count (or difference) to ns with floor rounding; saturates. */
int64_t units_ticks_to_ns(int64_t ticks, uint64_t ticks_per_second);

/**
 * Format a duration in ns as the largest unit that keeps it >= 1, with
 * exactly the fraction digits needed ("1.5ms", "250ns", "3s", "-2us").
 * @return @p buf
 */
const char *units_format_duration(int64_t ns, char *buf, size_t len);

/**
 * Format ns as microseconds with exactly three fraction digits ("1.500",
 * "-0.001"), as Chrome's "ts" wants, without going through a double.
 * @return @p buf
 */
const char *units_format_us3(int64_t ns, char *buf, size_t len);

/** Format a byte count for humans ("1.50 MiB", "512 B"). @return @p buf */
const char *units_format_bytes(uint64_t bytes, char *buf, size_t len);

#endif /* SLOG_UTILS_UNITS_H */
