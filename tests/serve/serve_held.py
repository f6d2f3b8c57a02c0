#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_held.py - /api/window?held=1: a counter track's value in force at
# the window's left edge.  A Chrome trace of three counter tracks sampled
# every 10 ms (imported with slog-import) is asked for windows that fall
# between samples: with held=1 each track asked for comes with its last
# sample before t0 (exact time and value, in JSON, SLW1 and SLW2 alike),
# without it the answer holds no counter sample; before the first sample,
# a track gets none; rows and categories filter what is held; a state row
# gets nothing; held is range-checked.
# Usage: serve_held.py SLOG_SERVE SLOG_IMPORT
import json
import os
import subprocess
import sys

from servelib import Server, decode_bin, decode_packed, fail, temp_folder

SAMPLES_US = [0, 10000, 20000]  # every track's samples (cpu's 500 us later)


def write_trace(folder, slog_import):
    events = [{"name": "work", "ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 30000}]
    for i, ts in enumerate(SAMPLES_US):
        events.append({"name": "mem", "ph": "C", "pid": 1, "tid": 1, "ts": ts,
                       "args": {"bytes": i + 1}})
        events.append({"name": "cpu", "ph": "C", "pid": 1, "tid": 1, "ts": ts + 500,
                       "args": {"user": 10 * (i + 1), "sys": 100 * (i + 1)}})
    src = os.path.join(folder, "c.json")
    with open(src, "w") as f:
        json.dump({"traceEvents": events}, f)
    out = os.path.join(folder, "c.slog")
    subprocess.run([slog_import, "-q", src, "-o", out], check=True)
    return out


def window(srv, params):
    """The counter samples of a window, the same in JSON, SLW1 and SLW2."""
    base = f"/api/window?f=0&px=500&{params}"
    js = srv.json(base + "&enc=json")
    for enc, decode in (("", decode_bin), ("&enc=packed", decode_packed)):
        _, _, body = srv.get(base + enc)
        _, _, _, items = decode(body)
        got = [(i["timeline"], i["start"], i["value"]) for i in items if i["kind"] == "counter"]
        want = [(i["timeline"], i["start"], i["value"]) for i in js["items"]
                if i["kind"] == "counter"]
        if got != want:
            fail(f"{base}{enc}: counter samples {got}, JSON {want}")
    return [i for i in js["items"] if i["kind"] == "counter"]


def track_ids(srv):
    tl = srv.json("/api/timelines?f=0")
    ids = {name: i for name, i, kind in zip(tl["name"], tl["id"], tl["kind"]) if kind == 5}  # SLOG_TIMELINE_COUNTER
    if sorted(ids) != ["cpu.sys", "cpu.user", "mem.bytes"]:
        fail(f"counter tracks {sorted(ids)}")
    return ids


def check_between_samples(srv, ids):
    t0, t1 = 12_000_000, 15_000_000  # ns from the start: between the samples at 10 and 20 ms
    rows = ",".join(str(i) for i in sorted(ids.values()))
    if window(srv, f"t0={t0}&t1={t1}&rows={rows}"):
        fail("without held, a window between samples holds counter samples")
    held = {i["timeline"]: (i["start"], i["value"])
            for i in window(srv, f"t0={t0}&t1={t1}&rows={rows}&held=1")}
    want = {ids["mem.bytes"]: (10_000_000, 2.0), ids["cpu.user"]: (10_500_000, 20.0),
            ids["cpu.sys"]: (10_500_000, 200.0)}
    if held != want:
        fail(f"held values {held}, wanted {want}")
    one = window(srv, f"t0={t0}&t1={t1}&rows={ids['cpu.sys']}&held=1")
    if [(i["timeline"], i["value"]) for i in one] != [(ids["cpu.sys"], 200.0)]:
        fail(f"rows=cpu.sys only: {one}")
    if window(srv, f"t0={t0}&t1={t1}&rows=1&held=1"):
        fail("a thread row got a held counter sample")
    print("ok: held=1 gives each counter track its last sample before the window")


def check_edges(srv, ids):
    rows = ",".join(str(i) for i in sorted(ids.values()))
    first = window(srv, f"t0=0&t1=400000&rows={rows}&held=1")
    if [i for i in first if i["start"] < 0]:
        fail(f"a window at the trace's start got samples before it: {first}")
    early = window(srv, f"t0=200000&t1=400000&rows={ids['cpu.user']}&held=1")
    if early:
        fail(f"before cpu's first sample (0.5 ms), held gave {early}")
    cats = srv.json("/api/categories?f=0")
    user = [c["id"] for c in cats if c["name"] == "user"][0]
    only = window(srv, f"t0=12000000&t1=15000000&rows={rows}&cats={user}&held=1")
    if [i["timeline"] for i in only] != [ids["cpu.user"]]:
        fail(f"cats=user: held {only}")
    status, _, _ = srv.get("/api/window?f=0&t0=1&t1=2&held=2")
    if status != 400:
        fail(f"held=2: status {status}, wanted 400")
    print("ok: nothing held before a track's first sample; categories filter; held range-checked")


def main():
    serve_tool, import_tool = sys.argv[1:3]
    with temp_folder() as tmp:
        srv = Server(serve_tool, [write_trace(tmp, import_tool)])
        ids = track_ids(srv)
        check_between_samples(srv, ids)
        check_edges(srv, ids)
        srv.stop()


if __name__ == "__main__":
    main()
