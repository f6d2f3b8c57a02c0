#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`slog-trace merge` time and memory as the trace grows, against
`slog-merge` (libslog-merge over the same files, the streaming anchor: it
makes no arrows) in the same run, and against the in-memory merge that a
directory with a Python tracing file takes.

    bench_trace_merge.py SLOG_TRACE SLOG_MERGE BENCH_TRACE_PROG
                         [--files 4] [--calls 100000,1000000] [--reps 3] [--dir /tmp]

For each size, --files processes of `BENCH_TRACE_PROG io CALLS` are traced
into one directory (each file ~CALLS drawables), then, in a rotating order
each rep: `slog-trace merge` (streamed: no Python tracing file), the same
with an empty `-python.slog` file beside them (in memory), and `slog-merge`
of the process files.  Prints wall, CPU (user+sys) and peak resident memory
of each, median and min..max of the reps, the ratios to slog-merge's
medians, and bytes of memory per drawable; `uptime` before and after.
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def run_once(cmd):
    """wall s, CPU s, peak RSS KiB of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def spread(xs, fmt="{:.3f}"):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}..{fmt.format(max(xs))})"


def make_trace(a, work, calls):
    """A directory of a.files process files of ~calls drawables each."""
    out = os.path.join(work, f"trace-{calls}")
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    for _ in range(a.files):
        subprocess.run([a.slog_trace, "-o", out, "--", a.prog, "io", str(calls), data],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = sorted(glob.glob(os.path.join(out, "*.slog")))
    mem = os.path.join(work, f"trace-{calls}-inmemory")
    shutil.rmtree(mem, ignore_errors=True)
    shutil.copytree(out, mem)
    open(os.path.join(mem, "zz-0-python.slog"), "wb").close()  # empty: left out, but in memory
    return out, mem, files


def bench_size(a, work, calls):
    out, mem, files = make_trace(a, work, calls)
    merged = os.path.join(work, "merged.slog")
    variants = [("slog-merge", [a.slog_merge, *files, "-o", merged]),
                ("streamed", [a.slog_trace, "merge", out, "-o", merged]),
                ("in-memory", [a.slog_trace, "merge", mem, "-o", merged])]
    rows = {label: ([], [], []) for label, _ in variants}
    for i in range(a.reps):
        for label, cmd in variants[i % 3:] + variants[:i % 3]:
            for k, v in enumerate(run_once(cmd)):
                rows[label][k].append(v)
    info = subprocess.run([os.path.join(os.path.dirname(a.slog_trace), "..", "slog-info",
                                        "slog-info"), merged], capture_output=True, text=True)
    drawables = next((int(line.split()[1]) for line in info.stdout.splitlines()
                      if line.startswith("drawables:")), 0)
    print(f"{a.files} files x {calls} calls: {drawables} drawables")
    base = [statistics.median(x) for x in rows["slog-merge"]]
    for label, (wall, cpu, rss) in rows.items():
        m = [statistics.median(x) for x in (wall, cpu, rss)]
        print(f"  {label:10} wall {spread(wall)} s  cpu {spread(cpu)} s  "
              f"rss {spread([r / 1024 for r in rss], '{:.0f}')} MiB "
              f"({m[2] * 1024 / max(drawables, 1):.0f} B/drawable)  "
              f"/slog-merge: wall {m[0] / base[0]:.2f}x, rss {m[2] / base[2]:.2f}x")
    shutil.rmtree(out)
    shutil.rmtree(mem)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slog_trace")
    ap.add_argument("slog_merge")
    ap.add_argument("prog")
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--calls", default="100000,1000000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default="/tmp")
    a = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"nproc: {os.cpu_count()}, reps: {a.reps}")
    work = tempfile.mkdtemp(prefix="bench_trace_merge-", dir=a.dir)
    try:
        for calls in (int(x) for x in a.calls.split(",")):
            bench_size(a, work, calls)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
