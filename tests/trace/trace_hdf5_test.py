#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace on a program that uses HDF5 itself (TAP): trace_hdf5 writes
and reads a chunked dataset (its HDF5 calls recorded with their file,
dataset and bytes, HDF5's pwrites one level deeper), then makes N write()
calls inside an
H5Literate callback, while HDF5 holds its global lock, which the tracer's
writer needs too (libslog writes its file through the same HDF5).

    trace_hdf5_test.py SLOG_TRACE TRACE_HDF5 SLOG_QUERY

Per writer: the program ends (both once deadlocked: the per-thread
writer's append waited for room in a queue only the background could
empty, the background waited for HDF5's lock; the locked writer's timer
flushed under the sink's lock and waited for HDF5's lock, the program
waited for the sink's lock), exits 0 with its data right, and leaves a
readable file.  Then a thread started inside the callback while the
timer flushes (its first call opened its timeline under the lock the
per-thread sink's timer held while it waited for the background, which
waited for HDF5's lock: a deadlock too) has its timeline and its write.  The locked writer records every call (the program's own
thread writes the file, re-entering HDF5); the per-thread writer gives up
waiting after a bound, drops what it cannot queue, and says how much on
stderr: the calls in the file plus the ones lost add up to N.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_tap import all_passed, ok  # noqa: E402

SLOG_TRACE, TRACE_HDF5, SLOG_QUERY = (os.path.abspath(a) for a in sys.argv[1:4])
PRELOAD = os.environ.get("SLOG_TRACE_TEST_PRELOAD", "")
ENV = dict(os.environ, LD_PRELOAD=PRELOAD,
           ASAN_OPTIONS="detect_leaks=0:abort_on_error=1") if PRELOAD else dict(os.environ)
ENV.pop("SLOG_TRACE_WRITER", None)
# more records than the per-thread writer's queue (64 MiB) holds: ~100 B a call
N = 1500000


def callback_writes(path):
    """write() calls on /dev/null in the file, and their depth-0 count."""
    out = subprocess.run([SLOG_QUERY, "--format", "jsonl", "-k", "state", "-c", "write", path],
                         capture_output=True, text=True, check=True)
    n = 0
    for line in out.stdout.splitlines():
        if line.strip() and json.loads(line)["args"].get("path") == "/dev/null":
            n += 1
    return n


H5_CALLS = ["H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Fflush", "H5Dread", "H5Dclose", "H5Fclose"]


def hdf5_calls(path, h5):
    """trace_hdf5's HDF5 calls (group hdf5), each with its args; and whether
    HDF5's own pwrites on h5 are recorded one level deeper."""
    cmd = [SLOG_QUERY, "--format", "jsonl", "-k", "state", path]
    for c in H5_CALLS + ["pwrite"]:
        cmd += ["-c", c]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    calls = [(r["category"], r["args"]) for r in recs if r["category"] != "pwrite"]
    nested = any(r["category"] == "pwrite" and r["depth"] == 1 and r["args"].get("path") == h5
                 for r in recs)
    return calls, nested


def check_hdf5_layer(path, h5):
    calls, nested = hdf5_calls(path, h5) if path else ([], False)
    data = {"path": h5, "name": "/values"}
    want = [("H5Fcreate", {"path": h5}), ("H5Dcreate2", data), ("H5Dwrite", {**data, "bytes": 32768}),
            ("H5Fflush", {"path": h5}), ("H5Dread", {**data, "bytes": 32768}), ("H5Dclose", data),
            ("H5Fclose", {"path": h5})]
    got = [(c, {k: v for k, v in a.items() if k != "ret"}) for c, a in calls]
    ok(got == want and all(a["ret"] >= 0 for _, a in calls),
       "hdf5: every HDF5 call, in order, with its file, dataset and bytes", calls)
    ok(nested, "hdf5: HDF5's own pwrites are recorded one level deeper")


def run(tmp, writer, flush, n=N, mode=()):
    out = os.path.join(tmp, f"{writer}{'-'.join(mode)}.trace")
    cmd = [SLOG_TRACE, "-o", out, "--writer", writer, "--flush", str(flush), "--",
           TRACE_HDF5, os.path.join(tmp, f"{writer}.h5"), str(n), *mode]
    try:
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired:
        ok(False, f"{writer}: the traced HDF5 program ends (hung 240 s)")
        return None, None
    ok(p.returncode == 0 and p.stdout.strip() == f"ok {n}",
       f"{writer}: the traced HDF5 program ends, exit 0, its data right", p.stdout + p.stderr)
    files = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".slog")]
    ok(len(files) == 1, f"{writer}: one file", files)
    return (files[0] if files else None), p.stderr


def main():
    print("1..15")
    with tempfile.TemporaryDirectory() as tmp:
        path, err = run(tmp, "locked", 10)
        n = callback_writes(path) if path else -1
        ok(n == N, f"locked: every call made inside HDF5 is in the file ({n} of {N})")
        check_hdf5_layer(path, os.path.join(tmp, "locked.h5"))
        path, err = run(tmp, "thread", 1000)
        n = callback_writes(path) if path else -1
        lost = re.search(r"slog-trace: (\d+) records lost \(pid \d+\): the writer's queue", err or "")
        ok(lost is not None, "thread: the records lost are said on stderr", err)
        dropped = int(lost.group(1)) if lost else 0
        # a call is two records (begin, end); a few lost ones are other calls' (close, pwrite)
        ok(0 < n < N and abs(n + dropped // 2 - N) <= 8,
           f"thread: the calls in the file ({n}) and the ones lost ({dropped // 2}) make N ({N})")
        for writer in ("thread", "locked"):
            path, err = run(tmp, writer, 100, 1000, ("thread",))
            ok(path is not None and thread_write(path),
               f"{writer}: a thread started inside HDF5 while the timer flushes has its "
               "timeline and its write")
    return 0 if all_passed() else 1


def thread_write(path):
    """The write of the thread started inside the callback, on a timeline of its own."""
    out = subprocess.run([SLOG_QUERY, "--format", "jsonl", "-k", "state", "-c", "write", path],
                         capture_output=True, text=True, check=True)
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    main = {r["timeline"] for r in recs[:1]}
    return any(r["timeline"] not in main and r["args"].get("ret") == 1 for r in recs)


if __name__ == "__main__":
    sys.exit(main())
