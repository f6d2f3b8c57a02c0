#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python tracing overhead (issue 15 item 4): the cost of one call of a
function decorated with @slog.trace against the same function undecorated,
in one run, tracing on (writing a file) and off; and of one
`with slog.region(...)` block.

    PYTHONPATH=build/libslog/python bench_trace_python.py [--calls 1000000] [--reps 7]

Prints per variant the wall and CPU time per call in ns, median and
min..max of the reps, and the overhead over the undecorated call
(difference of medians); `uptime` before and after.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import slog


def plain(x):
    return x + 1


traced = slog.trace(plain)


def loop_call(fn, n):
    for i in range(n):
        fn(i)


def loop_region(n):
    for i in range(n):
        with slog.region("r"):
            plain(i)


def measure(body, n, reps):
    walls, cpus = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        body(n)
        walls.append((time.perf_counter() - w0) / n * 1e9)
        cpus.append((time.process_time() - c0) / n * 1e9)
    return walls, cpus


def show(name, res, base=None):
    walls, cpus = res
    line = (f"{name:34} wall {statistics.median(walls):7.1f} ns ({min(walls):.1f}..{max(walls):.1f})"
            f"  cpu {statistics.median(cpus):7.1f} ns ({min(cpus):.1f}..{max(cpus):.1f})")
    if base is not None:
        line += (f"  overhead wall {statistics.median(walls) - statistics.median(base[0]):6.1f} ns,"
                 f" cpu {statistics.median(cpus) - statistics.median(base[1]):6.1f} ns")
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"nproc: {os.cpu_count()}, calls: {a.calls}, reps: {a.reps}")
    with tempfile.TemporaryDirectory() as tmp:
        base = measure(lambda n: loop_call(plain, n), a.calls, a.reps)
        show("undecorated call", base)
        show("@slog.trace, tracing off", measure(lambda n: loop_call(traced, n), a.calls, a.reps),
             base)
        path = slog.trace_start(os.path.join(tmp, "bench.slog"))
        show("@slog.trace, tracing on", measure(lambda n: loop_call(traced, n), a.calls, a.reps),
             base)
        show("with slog.region(), tracing on", measure(loop_region, a.calls, a.reps), base)
        slog.trace_stop()
        r = slog.open(path)
        print(f"trace: {r.info['states']} regions, {os.path.getsize(path) / 1e6:.1f} MB")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
