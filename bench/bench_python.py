#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_python.py - the slog Python module's window -> DataFrame speed and
memory, against anchors measured in the same run (issue 14 item 5):

  big window (about 10^7 states of a 10^8-state file):
    C      bench_batch_read: the bare C batch read of the same items (no Python)
    slog   slog.open + Reader.window -> pandas DataFrame (peak RSS vs the frame's size),
           with the default threads (one per core) and with threads=1
  small window (about 10^6 states; the slow readers would take minutes on 10^7):
    slog   the same, on the small window
    otf2   Debian's OTF2 Python bindings (python3-otf2) reading an OTF2 archive of the
           same states (slog-query --format otf2), into a DataFrame of Enter/Leave rows
    json   pandas.read_json(lines=True) of slog-query --format jsonl of the same states

Each measurement runs in a fresh process (after one warm-up, so the page cache is
warm for all), RUNS times, in turn; medians, min-max, CPU time beside wall time,
and `uptime` before and after.  --settle S waits S seconds before each timed
process: on a virtual machine that gives freed memory back to its host (free
page reporting), a process started right after another one exits may or may
not reuse memory the host still backs, and its first touch of new memory
costs 2-3x more when it does not; after a pause every process meets the same
state.  Not run by CI (bench/README.md).

Usage: PYTHONPATH=build/libslog/python python3 bench/bench_python.py --build build
       [--file F.slog] [--runs 5] [--big 45%:55%] [--small 50%:51%] [--dir /tmp/pybench]
       [--settle 0]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

CHILD_SLOG = r"""
import json, resource, sys, time
import slog
path, window, kinds = sys.argv[1], sys.argv[2], sys.argv[3]
threads = None if sys.argv[4] == "auto" else int(sys.argv[4])
w0, c0 = time.perf_counter(), time.process_time()
r = slog.open(path)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
df = r.window(window, kinds=kinds, threads=threads)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rows": len(df), "wall": wall, "cpu": cpu, "peak_kib": peak - base,
                  "frame_bytes": int(df.memory_usage(deep=True).sum())}))
"""

CHILD_OTF2 = r"""
import json, sys, time
import otf2, pandas as pd
w0, c0 = time.perf_counter(), time.process_time()
ts, kind, name, loc = [], [], [], []
events = 0
with otf2.reader.open(sys.argv[1]) as trace:
    for location, event in trace.events:
        events += 1
        if isinstance(event, (otf2.events.Enter, otf2.events.Leave)):
            ts.append(event.time)
            kind.append("Enter" if isinstance(event, otf2.events.Enter) else "Leave")
            name.append(event.region.name)
            loc.append(location.name)
df = pd.DataFrame({"Timestamp": ts, "Event Type": kind, "Name": name, "Thread": loc})
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
print(json.dumps({"rows": int((df["Event Type"] == "Enter").sum()), "events": events,
                  "wall": wall, "cpu": cpu}))
"""

CHILD_JSON = r"""
import json, sys, time
import pandas as pd
w0, c0 = time.perf_counter(), time.process_time()
df = pd.read_json(sys.argv[1], lines=True)
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
print(json.dumps({"rows": len(df), "wall": wall, "cpu": cpu}))
"""


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


PAGE_REPORTING = "/sys/module/page_reporting/parameters"
_reported_before = None


def page_reporting():
    """The guest's free page reporting (memory given back to the host: the
    next touch of it pays a host fault per page, doc/PERFORMANCE.md "Fresh
    memory on this guest"): min_free_ms and MiB reported since the first call."""
    global _reported_before
    try:
        with open(f"{PAGE_REPORTING}/reported_kib") as f:
            reported = int(f.read())
        with open(f"{PAGE_REPORTING}/min_free_ms") as f:
            min_free = int(f.read())
    except (OSError, ValueError):
        return "no free page reporting"
    text = f"free page reporting: min_free_ms {min_free}"
    if _reported_before is not None:
        text += f", {(reported - _reported_before) / 1024:.0f} MiB reported since the start"
    _reported_before = reported
    return text


def child(code, *args):
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def anchor(build, path, t0, t1, kinds):
    out = subprocess.run([os.path.join(build, "bench", "bench_batch_read"), path, str(t0),
                          str(t1), str(kinds)], check=True, capture_output=True,
                         text=True).stdout.split()
    return {"rows": int(out[1]), "wall": float(out[3]), "cpu": float(out[5])}


FRESH = "fresh memory of the frame's size (huge pages, two threads), big"


def fresh_memory(build, mib, rows):
    """bench_fresh_memory's huge2 way in a process of its own: the first touch
    of a frame's bytes, the floor under any DataFrame made of new memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([os.path.join(build, "bench", "bench_fresh_memory"), str(mib), "1",
                          "huge2"], check=True, capture_output=True, text=True).stdout.split()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"rows": rows, "wall": float(out[3]), "cpu": cpu}


def summary(label, runs, per="rows"):
    walls = [r["wall"] for r in runs]
    cpus = [r["cpu"] for r in runs]
    n = runs[0][per]
    med = statistics.median(walls)
    cpu = statistics.median(cpus)
    print(f"| {label} | {n} | {med:.3f} ({min(walls):.3f}-{max(walls):.3f}) | "
          f"{cpu:.3f} | {n / med / 1e6:.2f} | {n / cpu / 1e6:.2f} |")
    return n / med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--file")
    ap.add_argument("--dir", default="/tmp/pybench")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--big", default="45%:55%")
    ap.add_argument("--small", default="50%:51%")
    ap.add_argument("--settle", type=float, default=0.0,
                    help="seconds to wait before each timed process")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = a.file or os.path.join(a.dir, "s1e8.slog")
    if not os.path.exists(path):
        subprocess.run([os.path.join(a.build, "utils", "slog-synth", "slog-synth"), "-n", "1e8",
                        "-o", path, "-q"], check=True)
    import slog
    r = slog.open(path)
    big = r._clock.window(a.big, None)
    print(f"file {path}: {r.info['states']} states; big window {a.big}, small {a.small}")
    print("load before:", uptime())
    print("memory before:", page_reporting())

    query = os.path.join(a.build, "utils", "slog-query", "slog-query")
    otf2_dir = os.path.join(a.dir, "small.otf2")
    jsonl = os.path.join(a.dir, "small.jsonl")
    if not os.path.exists(jsonl):
        with open(jsonl, "w") as f:
            subprocess.run([query, path, "--window", a.small, "--kind", "state", "--format",
                            "jsonl", "--no-args"], check=True, stdout=f)
    has_otf2 = subprocess.run([sys.executable, "-c", "import otf2"]).returncode == 0
    if has_otf2 and not os.path.exists(otf2_dir):
        subprocess.run([query, path, "--window", a.small, "--kind", "state", "--format", "otf2",
                        "-o", otf2_dir, "--no-args"], check=True)
    anchor_otf2 = os.path.join(otf2_dir, "traces.otf2")

    jobs = {
        "C batch read, big": lambda: anchor(a.build, path, big[0], big[1], 1),
        "slog -> DataFrame, big": lambda: child(CHILD_SLOG, path, a.big, "state", "auto"),
        "slog -> DataFrame, big, threads=1": lambda: child(CHILD_SLOG, path, a.big, "state", "1"),
        "slog -> DataFrame, small": lambda: child(CHILD_SLOG, path, a.small, "state", "auto"),
        "pandas.read_json(lines=True), small": lambda: child(CHILD_JSON, jsonl),
    }
    if has_otf2:
        jobs["OTF2 Python bindings -> DataFrame, small"] = lambda: child(CHILD_OTF2, anchor_otf2)
    warm = {k: job() for k, job in jobs.items()}  # warm-up: the page cache holds what each reads
    frame_mib = -(-warm["slog -> DataFrame, big"]["frame_bytes"] // 2**20)
    jobs[FRESH] = lambda: fresh_memory(a.build, frame_mib, warm["slog -> DataFrame, big"]["rows"])
    results = {k: [] for k in jobs}
    for _ in range(a.runs):
        for k, job in jobs.items():
            time.sleep(a.settle)
            results[k].append(job())
    print("load after:", uptime())
    print("memory after:", page_reporting())
    print(f"\n{a.runs} runs each, {a.settle:g} s pause before each; wall s median (min-max), "
          "CPU s median, M rows/s (states)\n")
    print("| what | rows | wall s | cpu s | M rows/s (wall) | M rows/s (cpu) |")
    print("|---|---|---|---|---|---|")
    rate = {k: summary(k, v) for k, v in results.items()}
    cpu_rate = {k: v[0]["rows"] / statistics.median([x["cpu"] for x in v])
                for k, v in results.items()}
    floor = statistics.median([x["wall"] for x in results[FRESH]])
    print(f"\nfresh memory alone for the big frame ({frame_mib} MiB): {floor:.3f} s median, "
          f"{floor / statistics.median([x['wall'] for x in results['slog -> DataFrame, big']]):.2f} "
          "of the slog big window's wall time (the C batch read reuses its columns)")
    big_slog = results["slog -> DataFrame, big"]
    peaks = [x["peak_kib"] * 1024 / x["frame_bytes"] for x in big_slog]
    print(f"\nbig window: DataFrame {big_slog[0]['frame_bytes'] / 2**20:.0f} MiB; peak RSS "
          f"growth / frame size: median {statistics.median(peaks):.2f} "
          f"({min(peaks):.2f}-{max(peaks):.2f})")
    for name, r_ in (("wall", rate), ("cpu", cpu_rate)):
        small = r_["slog -> DataFrame, small"]
        line = (f"by {name} time: slog big / C batch read "
                f"{r_['slog -> DataFrame, big'] / r_['C batch read, big']:.2f} (threads=1: "
                f"{r_['slog -> DataFrame, big, threads=1'] / r_['C batch read, big']:.2f}); slog small / "
                f"read_json {small / r_['pandas.read_json(lines=True), small']:.1f}x")
        if has_otf2:
            o = "OTF2 Python bindings -> DataFrame, small"
            ev = statistics.median([x["events"] / x[name] for x in results[o]])
            line += (f"; slog small / OTF2 bindings {small / r_[o]:.1f}x (OTF2 bindings "
                     f"{ev / 1e6:.2f} M events/s)")
        print(line)


if __name__ == "__main__":
    main()
