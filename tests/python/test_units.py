# SPDX-License-Identifier: MIT
"""slog.units: exact parsing, and windows resolved as slog-query resolves them."""
import subprocess

import pytest

import slog
from slog import units
from conftest import tool


@pytest.mark.parametrize("text,ns", [
    ("250ns", 250), ("2us", 2000), ("1.5ms", 1_500_000), ("3s", 3 * 10**9),
    ("0.000000001s", 1), ("1.000000000000000000000s", 10**9), ("0ns", 0), (".5us", 500),
    ("2\u00b5s", 2000), ("9223372036.854775807s", 2**63 - 1),
])
def test_parse_duration(text, ns):
    assert units.parse_duration(text) == ns


@pytest.mark.parametrize("text,why", [
    ("1.5ns", "finer than 1 ns"), ("5", "missing unit"), ("-1ms", "negative"),
    ("3h", "unknown unit"), ("", "empty"), ("ms", "expected a number"),
    ("9223372036.854775808s", "too large"), ("99999999999999999999999ns", "too large"),
])
def test_parse_duration_rejects(text, why):
    with pytest.raises(slog.WindowError, match=why):
        units.parse_duration(text)


@pytest.mark.parametrize("text,parts", [
    ("0%", 0), ("12.5%", 12_500_000_000), ("100%", 10**11), ("0.000000001%", 1),
])
def test_parse_percent(text, parts):
    assert units.parse_percent(text) == parts


@pytest.mark.parametrize("text", ["101%", "0.0000000001%", "-1%", "1x%", "%"])
def test_parse_percent_rejects(text):
    with pytest.raises(slog.WindowError):
        units.parse_percent(text)


def test_format_duration_round_trips():
    for ns in (0, 1, 999, 1000, 1500, 1_500_000, 3 * 10**9, 1_234_567_891, -2000):
        text = units.format_duration(ns)
        assert (units.parse_duration(text.lstrip("-")) * (-1 if ns < 0 else 1)) == ns


def test_ticks_ns_exact():
    assert units.ticks_to_ns(10, 3) == 3333333333
    assert units.ticks_to_ns(-1, 3) == -333333334  # floor
    assert units.ns_to_ticks(1, 3) == 0 and units.ns_to_ticks(1, 3, round_up=True) == 1


def slog_query_count(path, window):
    """Items slog-query returns for a window, or its exit status on error."""
    p = subprocess.run([tool("slog-query"), path, "--format", "jsonl", "--no-args",
                        "--window", window], capture_output=True, text=True)
    return len(p.stdout.splitlines()) if p.returncode == 0 else -p.returncode


@pytest.mark.parametrize("window", [
    "1.234567ms:1.3ms", "0:0.5%", "33.333333333%:66.666666667%", "12us:", ":12us",
    "0.1%:0.1000001%", "1s:2s", "5%:5%", "20%:10%", "1ms:1.5ns", "0:7", "x:y", "1:2:3",
])
def test_windows_resolve_like_slog_query(odd_clock_file, window):
    """Both accept or both reject; when accepted, the same items."""
    r = slog.open(odd_clock_file)
    want = slog_query_count(odd_clock_file, window)
    try:
        got = len(r.window(window))
    except slog.WindowError:
        got = -2  # slog-query's usage error status
    assert got == want
