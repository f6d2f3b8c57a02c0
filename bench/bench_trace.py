#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace overhead (issue 15 item 3): the same workloads run untraced
and under slog-trace, alternating, in one run.

    bench_trace.py SLOG_TRACE BENCH_TRACE_PROG [--reps 7] [--io-calls 1000000]
                   [--compute-rounds 1000000000] [--dir /tmp]

Prints, per workload, wall and CPU time (user+sys of the child) as median
and min..max of every rep, the traced/untraced ratio of the medians, and
for the I/O run the overhead per call in ns ((traced - untraced) / calls,
medians); `uptime` before and after.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time


def run_once(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def spread(xs):
    return f"{statistics.median(xs):.3f} s ({min(xs):.3f}..{max(xs):.3f})"


def bench(name, plain, traced, reps, calls):
    rows = {"untraced": ([], []), "traced": ([], [])}
    for i in range(reps):
        order = [("untraced", plain), ("traced", traced)]
        for label, cmd in order if i % 2 == 0 else order[::-1]:
            wall, cpu = run_once(cmd())
            rows[label][0].append(wall)
            rows[label][1].append(cpu)
    for label, (wall, cpu) in rows.items():
        print(f"{name:8} {label:9} wall {spread(wall)}  cpu {spread(cpu)}")
    mw = [statistics.median(rows[k][0]) for k in ("untraced", "traced")]
    mc = [statistics.median(rows[k][1]) for k in ("untraced", "traced")]
    line = f"{name:8} traced/untraced: wall {mw[1] / mw[0]:.3f}x, cpu {mc[1] / mc[0]:.3f}x"
    if calls:
        line += (f"; per call: wall {(mw[1] - mw[0]) / calls * 1e9:.0f} ns, "
                 f"cpu {(mc[1] - mc[0]) / calls * 1e9:.0f} ns ({calls} calls)")
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slog_trace")
    ap.add_argument("prog")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--io-calls", type=int, default=1000000)
    ap.add_argument("--compute-rounds", type=int, default=1000000000)
    ap.add_argument("--dir", default="/tmp")
    a = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"nproc: {os.cpu_count()}, reps: {a.reps}")
    work = tempfile.mkdtemp(prefix="bench_trace-", dir=a.dir)
    try:
        out = os.path.join(work, "trace")

        def traced(*args):
            def cmd():
                shutil.rmtree(out, ignore_errors=True)
                return [a.slog_trace, "-o", out, "--", a.prog, *args]
            return cmd

        io = ["io", str(a.io_calls), work]
        bench("io", lambda: [a.prog, *io], traced(*io), a.reps, a.io_calls)
        comp = ["compute", str(a.compute_rounds)]
        bench("compute", lambda: [a.prog, *comp], traced(*comp), a.reps, 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
