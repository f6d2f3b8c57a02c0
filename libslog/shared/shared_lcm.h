/* SPDX-License-Identifier: MIT
 *
 * shared_lcm.h - the least common multiple of two clocks (ticks per
 * second), bounded: what slog_merge_files takes as the output clock and
 * what slog-merge converts --slice with, so both agree.
 * libslog/shared/: libc only, no libslog header, never installed.
 */
#ifndef SLOG_SHARED_LCM_H
#define SLOG_SHARED_LCM_H

#include <stdint.h>

static inline uint64_t shared_gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* lcm(a, b) for a, b > 0, or 0 when it is above @p max (or overflows). */
static inline uint64_t shared_lcm_bounded(uint64_t a, uint64_t b, uint64_t max)
{
    uint64_t l;
    if (__builtin_mul_overflow(a / shared_gcd(a, b), b, &l) || l > max) {
        return 0;
    }
    return l;
}

#endif /* SLOG_SHARED_LCM_H */
