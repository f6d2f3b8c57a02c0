#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of a slog-query window (tests/cli).

check_window.py FULL.jsonl WINDOW.jsonl T0 T1 [TIMELINE_NAME...]

FULL is the jsonl of a full-detail query over the whole trace, WINDOW the
jsonl of a full-detail query of [T0, T1) (ns from the trace's start).  The
window must hold exactly the items of FULL that overlap [T0, T1) (a span
[s, e) when s < T1 and e > T0, a point t when T0 <= t < T1), as a multiset;
with TIMELINE_NAMEs, exactly those on the named timelines or their
descendants (arrows: either end).  Prints "ok" or the first differences and
exits 1.  It must be a real test: an empty window or a window holding the
whole trace is an error.
"""
import collections
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def overlaps(item, t0, t1):
    if item["kind"] in ("state", "arrow"):
        return item["start"] < t1 and item["end"] > t0
    return t0 <= item["start"] < t1


def key(item):
    return json.dumps(item, sort_keys=True)


def main():
    full, window = load(sys.argv[1]), load(sys.argv[2])
    t0, t1 = int(sys.argv[3]), int(sys.argv[4])
    names = set(sys.argv[5:])
    errors = []
    for item in full + window:
        if item["kind"] == "preview":
            errors.append("preview in a full-detail query: %s" % key(item))
    expected = [x for x in full if overlaps(x, t0, t1)]
    if names:
        expected = [x for x in expected
                    if x.get("timeline") in names or x.get("from") in names
                    or x.get("to") in names]
    for item in window:
        if not overlaps(item, t0, t1):
            errors.append("outside the window: %s" % key(item))
    want = collections.Counter(key(x) for x in expected)
    got = collections.Counter(key(x) for x in window)
    for k in (want - got):
        errors.append("missing: %s" % k)
    for k in (got - want):
        errors.append("unexpected: %s" % k)
    if not window or len(window) == len(full):
        errors.append("degenerate window: %d of %d items" % (len(window), len(full)))
    if errors:
        print("%d errors (window %d items, expected %d)" % (len(errors), len(window), len(expected)))
        print("\n".join(errors[:20]))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
