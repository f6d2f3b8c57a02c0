#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_api.py - slog-serve's answers checked against the command-line
# tools on the same file: /api/info against slog-info --json, /api/window
# (full detail and zoomed, filtered) against slog-query --format jsonl over
# the same window and pixels, the binary encoding against the JSON one item
# by item, the item cap and its flag, and the errors of bad parameters.
# Usage: serve_api.py SLOG_SERVE SLOG_QUERY SLOG_INFO SLOG_SYNTH
import json
import subprocess
import sys

from servelib import Server, decode_bin, decode_packed, fail, make_trace, temp_folder

OTHER = 0xFFFFFFFF


def query_rows(tool, path, t0, t1, extra=()):
    """slog-query's items of [t0, t1) (relative ns = ticks here) as tuples."""
    out = subprocess.run([tool, path, "--format", "jsonl", "--no-args",
                          "--window", f"{t0}ns:{t1}ns", *extra],
                         check=True, capture_output=True, text=True).stdout
    return sorted(tuple_of_jsonl(json.loads(line)) for line in out.splitlines())


def tuple_of_jsonl(d):
    k = d["kind"]
    cat = OTHER if d.get("category_id") is None else d["category_id"]
    if k == "preview":
        of = d["of"]
        row_to = d.get("row_to_id", d["row_id"])
        incl = d.get("inclusive", 0) if of == "state" else 0
        value = d.get("vlast", 0.0) if of == "counter" else 0.0
        return (k, of, d["row_id"], row_to, cat, d["start"], d["end"], d["fold"], d["count"],
                incl, value)
    if k == "run":
        of = d["of"]
        to = d.get("to_id", d["timeline_id"])
        value = d.get("vlast", 0.0) if of == "counter" else 0.0
        return (k, of, d["timeline_id"], to, cat, d["start"], d["end"], d.get("depth", 0),
                d["count"], d["inclusive"], value)
    tid = d["timeline_id"]
    to = d.get("to_id", tid)
    dur = d["end"] - d["start"] if k in ("state", "arrow") else 0
    return (k, k, tid, to, cat, d["start"], d["end"], d.get("depth", 0), 1, dur,
            d.get("value", 0.0))


def tuple_of_item(it):
    of = it["of"]
    incl = it["inclusive"]
    value = it["value"]
    if it["kind"] == "preview":
        incl = incl if of == "state" else 0
        value = value if of == "counter" else 0.0
    elif it["kind"] == "run" and of != "counter":
        value = 0.0
    return (it["kind"], of, it["timeline"], it["timeline_to"], it["category"], it["start"],
            it["end"], it["depth"], it["count"], incl, value)


def check_info(srv, info_tool, path):
    files = srv.json("/api/files")
    if len(files) != 1 or files[0]["f"] != 0 or files[0]["name"] != "t.slog" or \
            files[0]["state"] != "ready" or files[0]["complete"] is not True:
        fail(f"/api/files: {files}")
    want = json.loads(subprocess.run([info_tool, "--json", path], check=True,
                                     capture_output=True, text=True).stdout)
    got = srv.json("/api/info?f=0")
    for key in ("format_read_version", "format_write_version", "complete", "ticks_per_second",
                "duration", "states", "events", "arrows", "counters", "timelines",
                "categories", "nodes", "depth", "file_bytes", "creator"):
        if got[key] != want[key]:
            fail(f"/api/info {key}: {got[key]!r}, slog-info says {want[key]!r}")
    if int(got["start"]) != want["start_ticks"] or int(got["end"]) != want["end_ticks"]:
        fail(f"/api/info start/end {got['start']}..{got['end']}")
    tl = srv.json("/api/timelines?f=0")
    names = [t["name"] for t in want["timeline_list"]]
    if tl["name"] != names or tl["id"] != list(range(len(names))):
        fail(f"/api/timelines names {tl['name']} != {names}")
    cats = srv.json("/api/categories?f=0")
    if [c["name"] for c in cats] != [c["name"] for c in want["category_list"]]:
        fail("/api/categories names differ from slog-info's")
    return got


def window(srv, params):
    """The window in JSON, checked against the binary (SLW1) and packed (SLW2)
    answers to the same request, item by item."""
    base = "/api/window?f=0&" + params
    js = srv.json(base + "&enc=json")
    want_flags = (1 if js["cut"] else 0) | (0 if js["complete"] else 2)
    for enc, decode in (("", decode_bin), ("&enc=packed", decode_packed)):
        status, headers, body = srv.get(base + enc)
        if status != 200 or headers.get("Content-Type") != "application/octet-stream":
            fail(f"GET {base}{enc}: {status} {headers.get('Content-Type')}")
        flags, t0, t1, items = decode(body)
        if len(items) != js["n"] or len(js["items"]) != js["n"]:
            fail(f"{base}{enc}: {len(items)} items, json n={js['n']} items={len(js['items'])}")
        if t0 != js["t0"] or t1 != js["t1"] or flags != want_flags:
            fail(f"{base}{enc}: header {flags} {t0} {t1} differs from json")
        for b, j in zip(items, js["items"]):
            for key, v in j.items():
                if b[key] != v and not (v is None and b[key] != b[key]):
                    fail(f"{base}{enc}: item {b} differs from json item {j} in {key}")
    return js


def check_windows(srv, query_tool, path, info):
    dur = info["duration"]
    tl = srv.json("/api/timelines?f=0")
    # slog-query --timeline selects descendants too: filter on leaves only
    leaves = [i for i in tl["id"] if i not in tl["parent"]]
    rows = f"{leaves[0]},{leaves[2]}-{leaves[3]}" if leaves[3] == leaves[2] + 1 else \
        f"{leaves[0]},{leaves[2]},{leaves[3]}"
    cases = [
        (dur // 10, dur // 5, []),
        (dur // 3, dur // 2, ["px=300"]),
        (1, dur - 1, ["px=200"]),
        (dur // 4, 3 * dur // 4, ["px=1000", "rows=" + rows, "kinds=state,preview,run"]),
        (dur // 4, dur // 2, ["cats=0,1,5"]),
    ]
    for t0, t1, extra in cases:
        params = "&".join([f"t0={t0}", f"t1={t1}", *extra])
        js = window(srv, params)
        got = sorted(tuple_of_item(it) for it in js["items"])
        qargs = []
        for e in extra:
            k, v = e.split("=")
            if k == "px":
                qargs += ["--pixels", v]
            elif k == "kinds":
                qargs += ["--kind", v]
            elif k == "rows":
                for part in v.split(","):
                    lo, _, hi = part.partition("-")
                    qargs += sum((["--timeline", f"#{i}"]
                                  for i in range(int(lo), int(hi or lo) + 1)), [])
            elif k == "cats":
                names = [c["name"] for c in srv.json("/api/categories?f=0")]
                qargs += sum((["--category", names[int(i)]] for i in v.split(",")), [])
        want = query_rows(query_tool, path, t0, t1, qargs)
        if got != want:
            missing = [w for w in want if w not in got][:3]
            extra_items = [g for g in got if g not in want][:3]
            fail(f"window {params}: {len(got)} items, slog-query {len(want)}; "
                 f"missing {missing}, extra {extra_items}")
        if not got:
            fail(f"window {params}: empty, the test needs items")
    print(f"ok: {len(cases)} windows equal slog-query's, binary equal to JSON")


def check_cap(srv, info):
    full = srv.json(f"/api/window?f=0&enc=json&t0=0&t1={info['duration']}")
    if full["cut"] or full["n"] < 20:
        fail(f"uncapped window: cut={full['cut']} n={full['n']}")
    cut = window(srv, f"t0=0&t1={info['duration']}&max=10")
    if not cut["cut"] or cut["n"] != 10 or cut["items"] != full["items"][:10]:
        fail(f"max=10: cut={cut['cut']} n={cut['n']} (not the first 10 items)")
    exact = srv.json(f"/api/window?f=0&enc=json&t0=0&t1={info['duration']}&max={full['n']}")
    if exact["cut"] or exact["n"] != full["n"]:
        fail("max equal to the item count must not cut")
    print("ok: item cap cuts and says so")


def run_jsonl(tool, path, *args):
    out = subprocess.run([tool, path, "--format", "jsonl", *args], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


UNTIMED = ("inclusive", "exclusive", "min", "max", "mean")


def check_stats(srv, query_tool, path, info):
    dur = info["duration"]
    arrows = 0
    for t0, t1 in ((0, dur), (dur // 7, dur // 3)):
        for by in ("category", "timeline", "both"):
            got = srv.json(f"/api/stats?f=0&t0={t0}&t1={t1}&by={by}")
            want = run_jsonl(query_tool, path, "--stats", "--by", by, "--window",
                             f"{t0}ns:{t1}ns")
            if not got["exact"] or len(got["rows"]) != len(want) or not want:
                fail(f"stats {by} {t0}..{t1}: {len(got['rows'])} rows, slog-query {len(want)}")
            for g, w in zip(got["rows"], want):
                same = g["kind"] == w["kind"] and g["count"] == w["count"] and \
                    g["category"] == w.get("category_id") and \
                    g["timeline"] == w.get("timeline_id")
                if w["kind"] == "state":
                    same = same and all(g[k] == w[k] for k in
                                        ("inclusive", "exclusive", "min", "max"))
                elif w["kind"] == "counter":
                    same = same and g["vmin"] == w["min"] and g["vmax"] == w["max"] and \
                        g["vsum"] == w["sum"]
                elif w["kind"] == "arrow":  # counted, never timed: null, not 0
                    same = same and all(k in g and g[k] is None for k in UNTIMED)
                    arrows += 1
                if not same:
                    fail(f"stats {by} {t0}..{t1}: row {g} differs from slog-query's {w}")
    if arrows == 0:
        fail("stats: no arrow row, the test needs one")
    print("ok: statistics equal slog-query --stats (category, timeline, both); arrow times null")


def unique_state_categories(srv):
    cats = srv.json("/api/categories?f=0")
    names = [c["name"] for c in cats]
    return [c for c in cats if c["kind"] == "state" and names.count(c["name"]) == 1]


def check_find_top(srv, query_tool, path, info):
    dur = info["duration"]
    checked = 0
    for c in unique_state_categories(srv)[:4]:
        for side, at in (("after", dur // 3), ("before", 2 * dur // 3), ("after", -1)):
            got = srv.json(f"/api/find?f=0&cat={c['id']}&{side}={at}")
            want = run_jsonl(query_tool, path, "--no-args", "--find", c["name"], f"--{side}",
                             f"{at}ns" if at >= 0 else "0")
            if side == "after" and at < 0:
                want = []  # slog-query cannot say "before the start": compare below
                first = srv.json(f"/api/window?f=0&enc=json&kinds=state&cats={c['id']}")
                starts = [i["start"] for i in first["items"]]
                if got["found"] and got["item"]["start"] != min(starts):
                    fail(f"find {c['name']} after -1: not the first state")
                continue
            if got["found"] != bool(want) or \
                    (want and tuple_of_item(got["item"]) != tuple_of_jsonl(want[0])):
                fail(f"find {c['name']} {side} {at}: {got} vs slog-query {want}")
            checked += got["found"]
        got = srv.json(f"/api/top?f=0&cat={c['id']}&n=5&t0={dur // 5}&t1={dur // 2}")
        want = run_jsonl(query_tool, path, "--no-args", "--top", "5", "--category", c["name"],
                         "--window", f"{dur // 5}ns:{dur // 2}ns")
        if [tuple_of_item(i) for i in got["items"]] != [tuple_of_jsonl(w) for w in want]:
            fail(f"top 5 of {c['name']}: {got['items']} vs slog-query {want}")
        checked += len(want)
    if checked < 8:
        fail(f"find/top: only {checked} drawables compared, the test needs more")
    print(f"ok: find and top equal slog-query --find/--top ({checked} drawables)")


def check_args(srv, query_tool, path, info):
    dur = info["duration"]
    t0, t1 = dur // 6, dur // 2
    want = {tuple_of_jsonl(d): d.get("args", {})
            for d in run_jsonl(query_tool, path, "--window", f"{t0}ns:{t1}ns")}
    items = srv.json(f"/api/window?f=0&enc=json&t0={t0}&t1={t1}")["items"]
    asked = with_args = 0
    for kind in ("state", "event", "arrow", "counter"):
        for it in [i for i in items if i["kind"] == kind][:8]:
            q = (f"/api/args?f=0&kind={kind}&timeline={it['timeline']}"
                 f"&category={it['category']}&start={it['start']}&end={it['end']}"
                 f"&depth={it['depth']}")
            got = srv.json(q)
            if got["args"] != want[tuple_of_item(it)] or got["item"] != it:
                fail(f"{q}: {got} vs slog-query args {want[tuple_of_item(it)]}")
            asked += 1
            with_args += bool(got["args"])
            if kind == "state":
                srv.json(q.replace(f"&end={it['end']}", f"&end={it['end'] + 1}"), want=404)
    if asked < 20 or with_args < 10:
        fail(f"args: {asked} drawables asked, {with_args} with args: the test needs more")
    print(f"ok: args of {asked} drawables equal slog-query's")


def check_errors(srv):
    for path, status in [("/api/window?f=0&t0=1x", 400), ("/api/window?f=0&t0=5&t1=5", 400),
                         ("/api/window?f=9", 404), ("/api/window", 400),
                         ("/api/window?f=0&rows=99", 400), ("/api/window?f=0&max=0", 400),
                         ("/api/window?f=0&max=99999999999", 400), ("/api/nothing", 404),
                         ("/api/info?f=18446744073709551616", 400),
                         ("/api/stats?f=0&by=row", 400), ("/api/stats?f=0&t0=9&t1=3", 400),
                         ("/api/find?f=0&cat=1", 400), ("/api/find?f=0&after=1", 400),
                         ("/api/find?f=0&cat=1&after=1&before=2", 400),
                         ("/api/find?f=0&cat=100000&after=1", 400),
                         ("/api/top?f=0&n=0", 400), ("/api/top?f=0&n=1001", 400),
                         ("/api/args?f=0&kind=state&timeline=0&category=0", 400),
                         ("/api/args?f=0&kind=preview&timeline=0&category=0&start=0", 400),
                         ("/api/args?f=0&kind=state&timeline=0&category=0&start=-5", 404),
                         ("/api/args?f=0&kind=state&timeline=99&category=0&start=0", 400)]:
        got = srv.json(path, want=status)
        if not isinstance(got.get("error"), str) or not got["error"]:
            fail(f"{path}: no error text")
    print("ok: bad parameters are 4xx with a message")


def main():
    serve_tool, query_tool, info_tool, synth = sys.argv[1:5]
    with temp_folder() as tmp:
        path = make_trace(synth, tmp)
        srv = Server(serve_tool, [path])
        info = check_info(srv, info_tool, path)
        check_windows(srv, query_tool, path, info)
        check_cap(srv, info)
        check_stats(srv, query_tool, path, info)
        check_find_top(srv, query_tool, path, info)
        check_args(srv, query_tool, path, info)
        check_errors(srv)
        srv.stop()
    print("serve_api: ok")


if __name__ == "__main__":
    main()
