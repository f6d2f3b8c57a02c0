# SPDX-License-Identifier: MIT
"""Exact time units and the window syntax of slog-query.

Durations ("250ns", "2us", "1.5ms", "3s") and percentages ("12.5%") are
parsed from their decimal text with integer arithmetic, as slog-query's
units.c does: no float is involved, "0.000000001s" is exactly 1 ns, and
precision finer than 1 ns (or than a billionth of a percent), a missing
unit, a negative value and a mantissa above 2**64 - 1 are rejected.

Window sides resolve against a file as slog-query resolves --window: an
empty side is the trace's start or end (inclusive of drawables at the very
edges), a duration or a percentage counts from the trace's start (a start
side rounds down to a tick, an end side up), "0" needs no unit, and "100%"
on the end side is the whole extent.
"""
import re

__all__ = [
    "NS_PER_SECOND", "parse_duration", "parse_percent", "format_duration",
    "ticks_to_ns", "ns_to_ticks", "WindowError",
]

NS_PER_SECOND = 10**9
PERCENT_SCALE = 10**11  # 100 % in parts, nine fraction digits of a percent
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

_UNITS = {"ns": 0, "us": 3, "\u00b5s": 3, "ms": 6, "s": 9}
_NUMBER = re.compile(r"(\d*)(?:\.(\d*))?")


class WindowError(ValueError):
    """A window, duration or percentage that does not parse or resolve."""


def _decimal(text):
    """(mantissa, power of ten) of the leading DIGITS[.DIGITS], and the rest."""
    m = _NUMBER.match(text)
    whole, frac = m.group(1), m.group(2) or ""
    if not whole and not frac:
        raise WindowError(f"expected a number, got '{text}'")
    frac = frac.rstrip("0")
    mant = int(whole + frac or "0")
    if mant > 2**64 - 1:
        raise WindowError(f"number too large in '{text}'")
    return mant, -len(frac), text[m.end():]


def _exact(mant, exp10, limit, finer, text):
    if exp10 < 0:
        q, r = divmod(mant, 10**-exp10)
        if r:
            raise WindowError(f"{finer} in '{text}'")
        value = q
    else:
        value = mant * 10**exp10
    if value > limit:
        raise WindowError(f"value too large in '{text}'")
    return value


def parse_duration(text):
    """Nanoseconds of a non-negative duration with a unit: "1.5ms" -> 1500000."""
    if not isinstance(text, str) or text == "":
        raise WindowError("empty duration")
    if text.startswith("-"):
        raise WindowError(f"negative duration '{text}'")
    mant, exp10, rest = _decimal(text)
    if rest == "":
        raise WindowError(f"missing unit in '{text}' (use ns, us, ms or s)")
    if rest not in _UNITS:
        raise WindowError(f"unknown unit '{rest}' in '{text}' (use ns, us, ms or s)")
    return _exact(mant, exp10 + _UNITS[rest], INT64_MAX, "precision finer than 1 ns", text)


def parse_percent(text):
    """Parts per PERCENT_SCALE (10**11 = 100 %) of "P%", 0 <= P <= 100."""
    if not isinstance(text, str) or not text.endswith("%"):
        raise WindowError("expected a percentage like '12.5%'")
    if text.startswith("-"):
        raise WindowError(f"negative percentage '{text}'")
    mant, exp10, rest = _decimal(text)
    if rest != "%":
        raise WindowError(f"bad percentage '{text}'")
    parts = _exact(mant, exp10 + 9, 2**64 - 1, "more than nine fraction digits", text)
    if parts > PERCENT_SCALE:
        raise WindowError(f"percentage above 100% in '{text}'")
    return parts


def ticks_to_ns(ticks, ticks_per_second):
    """floor(ticks * 10**9 / ticks_per_second), exact."""
    return (int(ticks) * NS_PER_SECOND) // int(ticks_per_second)


def ns_to_ticks(ns, ticks_per_second, round_up=False):
    """ns on the file's clock, rounded down (or up), exact."""
    num = int(ns) * int(ticks_per_second)
    return -((-num) // NS_PER_SECOND) if round_up else num // NS_PER_SECOND


def format_duration(ns):
    """The largest unit that keeps the value >= 1, exact: 1500000 -> "1.5ms"."""
    ns = int(ns)
    sign, v = ("-", -ns) if ns < 0 else ("", ns)
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if v >= scale:
            q, r = divmod(v, scale)
            frac = f"{r:0{len(str(scale)) - 1}d}".rstrip("0")
            return f"{sign}{q}{'.' + frac if frac else ''}{unit}"
    return f"{sign}{v}ns"


# ---- window sides, as slog-query resolves them -------------------------------

def _whole_side(start, end, is_end):
    if is_end:
        return end + 1 if end < INT64_MAX else INT64_MAX
    return start - 1 if start > INT64_MIN else INT64_MIN


def resolve_side(text, is_end, start, end, ticks_per_second):
    """Ticks of one window side given as slog-query text (relative to start)."""
    if text == "":
        return _whole_side(start, end, is_end)
    if text.endswith("%"):
        part = parse_percent(text)
        if is_end and part == PERCENT_SCALE:
            return _whole_side(start, end, is_end)
        offset = ((end - start) * part) // PERCENT_SCALE
    elif text == "0":
        offset = 0
    else:
        ns = parse_duration(text)
        offset = ns_to_ticks(ns, ticks_per_second, round_up=is_end)
        if offset > INT64_MAX:
            raise WindowError(f"'{text}' is too far for this file's clock")
    t = start + offset
    if t > INT64_MAX:
        raise WindowError(f"'{text}' is beyond the end of time")
    return t


def split_window(text):
    """("T0", "T1") of "T0:T1"."""
    if not isinstance(text, str) or text.count(":") != 1:
        raise WindowError(f"expected T0:T1, got '{text}'")
    left, right = text.split(":")
    return left, right
