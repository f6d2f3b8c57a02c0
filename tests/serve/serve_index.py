#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_index.py - slog-serve over an index (slog-merge --index) answers as
# over the merged file of the same inputs: info counts, the timeline and
# category tables, a full-detail window (sorted items), statistics, the
# longest states and a search; a zoomed-out window counts every drawable.
# It runs one server with both files (f=0 the index, f=1 the merged file).
# Usage: serve_index.py SLOG_SERVE SLOG_SYNTH SLOG_MERGE
import os
import subprocess
import sys

from servelib import Server, fail, make_trace, temp_folder


def window(srv, f, info, extra=""):
    return srv.json(f"/api/window?f={f}&t0=0&t1={info['duration'] + 1}&enc=json{extra}")


def key(item):
    return tuple(sorted((k, str(v)) for k, v in item.items()))


def compare(srv, info):
    for path in ("/api/timelines?f={}", "/api/categories?f={}"):
        if srv.json(path.format(0)) != srv.json(path.format(1)):
            fail(f"{path.format(0)} differs from the merged file's")
    a, b = window(srv, 0, info), window(srv, 1, info)
    if a["n"] != b["n"] or sorted(map(key, a["items"])) != sorted(map(key, b["items"])):
        fail(f"full-detail window: {a['n']} items over the index, {b['n']} over the merged file")
    t1 = info["duration"] + 1
    for q in (f"/api/stats?f={{}}&t0=0&t1={t1}&by=both", f"/api/top?f={{}}&n=5&t0=0&t1={t1}",
              "/api/find?f={}&cat=0&after=1000"):
        x, y = srv.json(q.format(0)), srv.json(q.format(1))
        x.pop("cost", None)
        y.pop("cost", None)
        if q.startswith("/api/stats"):  # counter sums may differ in the last digit
            for rows in (x["rows"], y["rows"]):
                for r in rows:
                    for k in ("vsum", "mean"):
                        r.pop(k, None)
        if x != y:
            fail(f"{q.format(0)} differs from the merged file's")


def main():
    serve_tool, synth, merge = sys.argv[1:4]
    with temp_folder() as tmp:
        ins = [make_trace(synth, tmp, f"r{i}.slog", ("-s", str(i + 1))) for i in range(3)]
        index, merged = os.path.join(tmp, "index.slog"), os.path.join(tmp, "merged.slog")
        subprocess.run([merge, "--index", *ins, "-o", index, "-q"], check=True)
        subprocess.run([merge, *ins, "-o", merged, "-q"], check=True)
        srv = Server(serve_tool, [index, merged])
        info, want = srv.json("/api/info?f=0"), srv.json("/api/info?f=1")
        for k in ("states", "events", "arrows", "counters", "timelines", "categories", "start",
                  "end"):
            if info[k] != want[k]:
                fail(f"info {k}: {info[k]} over the index, {want[k]} over the merged file")
        compare(srv, info)
        zoom = window(srv, 0, info, "&px=50")
        total = sum(i.get("count", 1) if i["kind"] in ("preview", "run") else 1
                    for i in zoom["items"])
        drawables = sum(info[k] for k in ("states", "events", "arrows", "counters"))
        if total != drawables:
            fail(f"a 50-pixel window counts {total} drawables of {drawables}")
        srv.stop()
    print("serve_index: ok")


if __name__ == "__main__":
    main()
