/* SPDX-License-Identifier: MIT
 *
 * ck_quiet.h - Check with silent passing assertions.  Check's ck_assert_msg
 * records every passing assertion's location with a write() to the runner
 * (_mark_point); the proof suites assert millions of times (every item of
 * every query), which made them I/O-bound.  Here a passing assertion costs
 * a comparison; a failing one reports exactly as before.  Mark points
 * before risky calls with mark_point() where a crash location matters.
 * Treated as a system header: the redefinition uses the same GNU ##
 * __VA_ARGS__ form as <check.h>.
 */
#ifndef CK_QUIET_H
#define CK_QUIET_H
#pragma GCC system_header

#include <check.h>

#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                               \
    ((expr) ? (void)0                                                                          \
            : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#endif /* CK_QUIET_H */
