#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# bench_serve.py - slog-serve under a viewer-like load (not run in CI):
# CLIENTS threads, each with one keep-alive connection, walk random zoom/pan
# windows (zoom in or out 2-10x around a random point, or pan 10-50 %) at
# 1000-2000 px over the served files for SECONDS, 80 % binary and 20 % JSON
# answers.  Reports per file: latency p50/p95/p99/max and requests/s; per
# encoding: bytes per answer and the server's encode time (Server-Timing);
# slog-serve's RSS before and after the load (and its peak), its CPU time,
# and `uptime` before and after (clients and server share the machine).
# Usage: bench_serve.py SLOG_SERVE FILE... [--clients 8] [--seconds 60]
import argparse
import http.client
import json
import os
import random
import re
import statistics
import subprocess
import threading
import time


def proc_status(pid):
    with open(f"/proc/{pid}/status") as f:
        text = f.read()
    kb = {k: int(v) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.M)}
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return kb["VmRSS"] / 1024, kb["VmHWM"] / 1024, cpu


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


class Walk:
    """A viewer's window moving over one file."""

    def __init__(self, rnd, duration):
        self.rnd, self.dur = rnd, duration
        self.t0, self.t1 = 0, duration

    def step(self):
        span = self.t1 - self.t0
        r = self.rnd.random()
        if r < 0.4 and span > 2000:
            span = max(1000, int(span / self.rnd.uniform(2, 10)))
        elif r < 0.7:
            span = min(self.dur, int(span * self.rnd.uniform(2, 10)))
        centre = self.t0 + (self.t1 - self.t0) // 2
        if r >= 0.7:
            centre += int(span * self.rnd.uniform(0.1, 0.5) * self.rnd.choice([-1, 1]))
        elif r < 0.4:
            centre = self.rnd.randrange(self.t0, self.t1)
        self.t0 = min(max(0, centre - span // 2), max(0, self.dur - span))
        self.t1 = self.t0 + span
        return self.t0, self.t1


def client(host, port, files, ntl, seed, deadline, out):
    rnd = random.Random(seed)
    walks = [Walk(rnd, d) for d in files]
    conn = http.client.HTTPConnection(host, port, timeout=120)
    while time.monotonic() < deadline:
        f = rnd.randrange(len(files))
        t0, t1 = walks[f].step()
        enc = "bin" if rnd.random() < 0.8 else "json"
        # half the requests ask for a screenful of rows (24-40 of the file's), as the viewer does
        rows = ""
        if rnd.random() < 0.5 and ntl[f] > 40:
            first = rnd.randrange(ntl[f] - 40)
            rows = f"&rows={first}-{first + rnd.randrange(24, 41) - 1}"
        path = (f"/api/window?f={f}&t0={t0}&t1={t1}&px={rnd.randrange(1000, 2001)}&enc={enc}"
                f"{rows}")
        start = time.perf_counter()
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        ms = (time.perf_counter() - start) * 1e3
        if r.status != 200:
            raise SystemExit(f"{path}: {r.status} {body[:200]!r}")
        timing = dict(re.findall(r"(\w+);dur=([\d.]+)", r.getheader("Server-Timing", "")))
        out.append((f, enc, ms, len(body), float(timing.get("encode", 0)),
                    float(timing.get("query", 0))))
    conn.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def report(names, results, seconds):
    for f, name in enumerate(names):
        ms = [r[2] for r in results if r[0] == f]
        if ms:
            print(f"{name}: {len(ms)} requests ({len(ms) / seconds:.1f}/s), latency ms "
                  f"p50 {pct(ms, 50):.1f} p95 {pct(ms, 95):.1f} p99 {pct(ms, 99):.1f} "
                  f"max {max(ms):.1f}")
    for enc in ("bin", "json"):
        rs = [r for r in results if r[1] == enc]
        if rs:
            print(f"enc={enc}: {len(rs)} answers, bytes median {statistics.median(r[3] for r in rs):.0f}"
                  f" (p95 {pct([r[3] for r in rs], 95)}), server encode ms median "
                  f"{statistics.median(r[4] for r in rs):.2f} p95 {pct([r[4] for r in rs], 95):.2f}"
                  f", query ms median {statistics.median(r[5] for r in rs):.2f}")
    ms = [r[2] for r in results]
    print(f"all: {len(ms)} requests, {len(ms) / seconds:.1f}/s, latency ms p50 {pct(ms, 50):.1f} "
          f"p95 {pct(ms, 95):.1f} p99 {pct(ms, 99):.1f} max {max(ms):.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("serve")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    a = ap.parse_args()
    srv = subprocess.Popen([a.serve, *a.files, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        url = srv.stdout.readline().split(" ", 1)[1].strip()
        host, port = url.split("//")[1].rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port))
        durations, ntl = [], []
        for f in range(len(a.files)):
            conn.request("GET", f"/api/info?f={f}")
            info = json.loads(conn.getresponse().read())
            durations.append(info["duration"])
            ntl.append(info["timelines"])
        conn.close()
        print(f"before: {uptime()}")
        rss0, _, cpu0 = proc_status(srv.pid)
        results = []
        deadline = time.monotonic() + a.seconds
        start = time.monotonic()
        threads = [threading.Thread(target=client,
                                    args=(host, int(port), durations, ntl, s, deadline, results))
                   for s in range(a.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - start
        rss1, hwm, cpu1 = proc_status(srv.pid)
        print(f"after:  {uptime()}")
        report([os.path.basename(p) for p in a.files], results, wall)
        print(f"slog-serve: RSS {rss0:.1f} MiB before, {rss1:.1f} MiB after (peak {hwm:.1f}), "
              f"CPU {cpu1 - cpu0:.1f} s in {wall:.1f} s wall ({a.clients} clients)")
    finally:
        srv.terminate()
        srv.wait()


if __name__ == "__main__":
    main()
