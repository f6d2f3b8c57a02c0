#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_load.py - a short concurrent load on slog-serve: N clients (threads,
# one keep-alive connection each) for S seconds ask random zoomed windows
# (binary and JSON), statistics, searches and args, mixed with a few fixed
# requests whose answers were taken one at a time before the load: under
# load every fixed answer must come back the same, cost aside (readers
# shared between threads would break this), every other answer must be a
# 200 that decodes.  Afterwards the server stops on SIGTERM with exit 0.
# Usage: serve_load.py SLOG_SERVE SLOG_SYNTH [CLIENTS SECONDS]
import json
import random
import sys
import threading
import time

from servelib import Server, decode_bin, fail, make_trace, temp_folder


def random_request(rnd, dur, ntl):
    """A window a viewer would ask while zooming and panning, or an analysis."""
    span = max(10, int(dur * rnd.choice([1, 0.5, 0.1, 0.01, 0.001])))
    t0 = rnd.randrange(-1, max(0, dur - span) + 1)
    px = rnd.randrange(1000, 2001)
    r = rnd.random()
    if r < 0.7:
        enc = rnd.choice(["bin", "json"])
        rows = "" if rnd.random() < 0.5 else f"&rows=0-{rnd.randrange(ntl)}"
        return f"/api/window?f=0&t0={t0}&t1={t0 + span}&px={px}&enc={enc}{rows}"
    if r < 0.85:
        return f"/api/stats?f=0&t0={t0}&t1={t0 + span}&by=both"
    if r < 0.95:
        return f"/api/find?f=0&cat={rnd.randrange(3)}&after={t0}"
    return f"/api/top?f=0&t0={t0}&t1={t0 + span}&n=5"


def comparable(path, body):
    """The answer without its cost (cache hits and timings vary)."""
    if "enc=bin" in path:
        return body
    d = json.loads(body)
    d.pop("cost", None)
    return d


def check_answer(path, status, body):
    if status != 200:
        fail(f"{path}: status {status}: {body[:200]!r}")
    if "enc=bin" in path:
        decode_bin(body)
    else:
        json.loads(body)


def client(srv, seed, deadline, fixed, dur, ntl, counts, errors):
    rnd = random.Random(seed)
    conn = srv.conn()
    n = 0
    try:
        while time.monotonic() < deadline:
            if rnd.random() < 0.2:
                path, want = rnd.choice(fixed)
                status, _, body = srv.get(path, conn=conn)
                if status != 200 or comparable(path, body) != want:
                    errors.append(f"{path}: answer under load differs from the serial one")
                    return
            else:
                path = random_request(rnd, dur, ntl)
                status, _, body = srv.get(path, conn=conn)
                check_answer(path, status, body)
            n += 1
    except Exception as e:  # reported by the main thread
        errors.append(f"client {seed}: {e!r}")
    finally:
        conn.close()
        counts[seed] = n


def main():
    serve_tool, synth = sys.argv[1:3]
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
    with temp_folder() as tmp:
        path = make_trace(synth, tmp, extra=["-n", "20000", "-t", "16"])
        srv = Server(serve_tool, [path], ["--threads", "4"])
        info = srv.json("/api/info?f=0")
        dur, ntl = info["duration"], info["timelines"]
        rnd = random.Random(1)
        fixed = []
        for _ in range(12):
            p = random_request(rnd, dur, ntl)
            status, _, body = srv.get(p)
            check_answer(p, status, body)
            fixed.append((p, comparable(p, body)))
        counts, errors = {}, []
        deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=client,
                                    args=(srv, s, deadline, fixed, dur, ntl, counts, errors))
                   for s in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            fail(errors[0])
        total = sum(counts.values())
        if total < clients:
            fail(f"only {total} requests answered in {seconds} s")
        srv.stop()
    print(f"serve_load: ok ({clients} clients, {seconds} s, {total} requests)")


if __name__ == "__main__":
    main()
