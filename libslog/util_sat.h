/* SPDX-License-Identifier: MIT
 *
 * util_sat.h - saturating int64 sums for duration totals.  Preview and
 * statistics sums are exact int64 ticks while they fit; a sum that would
 * leave the int64 range sticks at INT64_MAX (or INT64_MIN), which the
 * format reads as "at least this much" (doc/FORMAT.md 10.3), instead of
 * wrapping to a negative total (signed overflow is undefined in C).
 * Layer 0: libc only.
 */
#ifndef UTIL_SAT_H
#define UTIL_SAT_H

#include <stdint.h>

/* a + b, clamped to [INT64_MIN, INT64_MAX]; a saturated a stays saturated
 * when b has the same sign. */
static inline int64_t util_sat_add_i64(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        return b > 0 ? INT64_MAX : INT64_MIN;
    }
    return r;
}

#endif /* UTIL_SAT_H */
