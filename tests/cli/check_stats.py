#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of slog-query --stats, --find and --top (tests/cli).

check_stats.py stats WINDOW.jsonl STATS.jsonl T0 T1 BY
    WINDOW is the jsonl of a full-detail query of [T0, T1) (ns from the
    trace's start), STATS the --stats --format jsonl --by BY output of the
    same window.  Every row must equal the aggregation of WINDOW: count,
    inclusive and exclusive time clipped to the window (exclusive = clipped
    duration minus the clipped durations of the direct children: states of
    the same timeline one level deeper inside it), min and max clipped
    duration, to the nanosecond; events, arrows and counters by count.
check_stats.py find FULL.jsonl FOUND.jsonl CATEGORY T after|before
    FOUND must be the first (last) state, event, arrow or counter sample of
    CATEGORY starting after (before) T in FULL, or empty when none is.
check_stats.py top WINDOW.jsonl TOP.jsonl CATEGORY N
    TOP must be the N longest states of CATEGORY in WINDOW, longest first.
Prints "ok" or the first difference and exits 1.
"""
import collections
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def clip(s, e, t0, t1):
    return max(0, min(e, t1) - max(s, t0))


def children_time(states, t0, t1):
    """Clipped time of each state's direct children, by index."""
    kids = [0] * len(states)
    order = sorted(range(len(states)), key=lambda i: (
        states[i]["timeline_id"], states[i]["start"], states[i]["depth"], states[i]["end"]))
    last = {}  # (timeline, depth) -> index of the latest started state
    for i in order:
        s = states[i]
        p = last.get((s["timeline_id"], s["depth"] - 1))
        if p is not None and states[p]["start"] <= s["start"] and s["end"] <= states[p]["end"]:
            kids[p] += clip(s["start"], s["end"], t0, t1)
        last[(s["timeline_id"], s["depth"])] = i
    return kids


def key_of(item, by):
    k = [item["kind"]]
    if by in ("category", "both"):
        k.append(item["category_id"])
    if by in ("timeline", "both"):
        k.append(item["timeline_id"])
    return tuple(k)


def stats(window, got, t0, t1, by):
    states = [x for x in window if x["kind"] == "state"]
    kids = children_time(states, t0, t1)
    rows = collections.defaultdict(lambda: {"count": 0, "inclusive": 0, "exclusive": 0,
                                            "min": None, "max": None})
    for i, s in enumerate(states):
        r = rows[key_of(s, by)]
        d = clip(s["start"], s["end"], t0, t1)
        r["count"] += 1
        r["inclusive"] += d
        r["exclusive"] += d - kids[i]
        r["min"] = d if r["min"] is None else min(r["min"], d)
        r["max"] = d if r["max"] is None else max(r["max"], d)
    for x in window:
        if x["kind"] in ("event", "arrow", "counter"):
            rows[key_of(x, by)]["count"] += 1
    assert states, "the window holds no state: not a real test"
    assert len(got) == len(rows), ("rows", len(got), len(rows))
    for g in got:
        want = rows[key_of(g, by)]
        fields = ("count", "inclusive", "exclusive", "min", "max") if g["kind"] == "state" \
            else ("count",)
        for f in fields:
            assert g[f] == want[f], (key_of(g, by), f, g[f], want[f])


def find(full, found, category, t, direction):
    cands = [x for x in full if x["category"] == category and
             (x["start"] > t if direction == "after" else x["start"] < t)]
    if not cands:
        assert not found, found
        return
    order = {"state": 0, "event": 1, "arrow": 2, "counter": 3}
    best = (min if direction == "after" else max)(
        cands, key=lambda x: (x["start"], order[x["kind"]], x["timeline_id"], x["end"]))
    assert len(found) == 1, len(found)
    for f in ("kind", "start", "end", "timeline_id", "category"):
        assert found[0][f] == best[f], (f, found[0][f], best[f])


def top(window, got, category, n):
    states = [x for x in window if x["kind"] == "state" and x["category"] == category]
    states.sort(key=lambda x: (x["start"] - x["end"], x["start"], x["timeline_id"],
                               x["depth"], x["end"]))
    want = states[:n]
    assert want, "no state of the category: not a real test"
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        for f in ("start", "end", "timeline_id", "depth"):
            assert g[f] == w[f], (f, g[f], w[f])


def main(argv):
    mode = argv[1]
    if mode == "stats":
        stats(load(argv[2]), load(argv[3]), int(argv[4]), int(argv[5]), argv[6])
    elif mode == "find":
        find(load(argv[2]), load(argv[3]), argv[4], int(argv[5]), argv[6])
    elif mode == "top":
        top(load(argv[2]), load(argv[3]), argv[4], int(argv[5]))
    else:
        raise SystemExit("unknown mode " + mode)
    print("ok")


if __name__ == "__main__":
    main(sys.argv)
