#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace overhead (issue 15 item 3): the same workloads run untraced
and under slog-trace with each writer (--writer locked, --writer thread),
in a rotating order, in one run.

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


def bench(name, variants, reps, calls):
    """variants: (label, command maker) pairs, the first untraced; run in a
    rotating order each rep."""
    rows = {label: ([], []) for label, _ in variants}
    for i in range(reps):
        for label, cmd in variants[i % len(variants):] + variants[:i % len(variants)]:
            wall, cpu = run_once(cmd())
            rows[label][0].append(wall)
            rows[label][1].append(cpu)
    for label, (wall, cpu) in rows.items():
        print(f"{name:8} {label:16} wall {spread(wall)}  cpu {spread(cpu)}")
    base = variants[0][0]
    mw0, mc0 = statistics.median(rows[base][0]), statistics.median(rows[base][1])
    for label, _ in variants[1:]:
        mw, mc = statistics.median(rows[label][0]), statistics.median(rows[label][1])
        line = f"{name:8} {label}/{base}: wall {mw / mw0:.3f}x, cpu {mc / mc0:.3f}x"
        if calls:
            line += (f"; per call: wall {(mw - mw0) / calls * 1e9:.0f} ns, "
                     f"cpu {(mc - mc0) / calls * 1e9:.0f} ns ({calls} calls)")
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

        def traced(writer, *args):
            def cmd():
                shutil.rmtree(out, ignore_errors=True)
                return [a.slog_trace, "-o", out, "--writer", writer, "--", a.prog, *args]
            return cmd

        def variants(*args):
            return [("untraced", lambda: [a.prog, *args]),
                    ("traced-locked", traced("locked", *args)),
                    ("traced-thread", traced("thread", *args))]

        bench("io", variants("io", str(a.io_calls), work), a.reps, a.io_calls)
        bench("compute", variants("compute", str(a.compute_rounds)), a.reps, 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
