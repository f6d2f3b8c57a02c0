#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace with MPI-IO (TAP): mpi_io under
`mpirun --allow-run-as-root --oversubscribe -np 4 slog-trace -o DIR -- mpi_io FILE`,
each rank's file read back with slog-query, then `slog-trace merge`.

    trace_mpiio_test.py SLOG_TRACE SLOG_QUERY MPI_IO|none

Checks, per rank, every MPI-IO call mpi_io.c makes, once, with the file's
name and the bytes asked, the offset (given, or the individual file
pointer) and the bytes moved that the program saw; the POSIX calls
MPI-IO made for an independent write and a short read recorded one level
deeper inside it; and in the merged file every rank's calls.  Exit 77
(skipped) when mpirun or the program is missing.
"""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_mpirun import mpirun_available, mpirun_traced  # noqa: E402
from trace_tap import all_passed, ok  # noqa: E402

SLOG_TRACE, SLOG_QUERY, MPI_IO = sys.argv[1:4]
N, KIB = 4, 1024


def states(path):
    out = subprocess.run([SLOG_QUERY, "--format", "jsonl", "-k", "state", path],
                         capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def expected(rank, data):
    """category -> the args mpi_io.c's rank gives it (path and ret 0 on all)."""
    end = 3 * N * KIB + N * 100
    want = {
        "MPI_File_open": {"amode": 9, "comm": 0},  # MPI_MODE_CREATE | MPI_MODE_RDWR
        "MPI_File_write_at": {"count": KIB, "offset": rank * KIB, "bytes": KIB},
        "MPI_File_write_at_all": {"count": KIB, "offset": (N + rank) * KIB, "bytes": KIB},
        "MPI_File_seek": {"offset": 2 * N * KIB + rank * 512, "whence": 600},  # MPI_SEEK_SET
        "MPI_File_write": {"count": 512, "offset": 2 * N * KIB + rank * 512, "bytes": 512},
        "MPI_File_iwrite_at": {"count": 100, "offset": 3 * N * KIB + rank * 100},
        "MPI_File_sync": {},
        "MPI_File_read_at_all": {"count": KIB, "offset": rank * KIB, "bytes": KIB},
        "MPI_File_read_at": {"count": KIB, "offset": end - 24, "bytes": 24},
        "MPI_File_write_ordered": {"count": 8, "bytes": 8},
        "MPI_File_set_view": {"disp": 0, "etype_bytes": 4, "datarep": "native"},
        "MPI_File_set_size": {"size": 8 * N * KIB},
        "MPI_File_close": {},
    }
    for args in want.values():
        args.update(path=data, ret=0)
    if rank == 0:
        want["MPI_File_delete"] = {"path": data, "ret": 0}
    return want


def rank_of(recs):
    init = [r for r in recs if r["category"] == "MPI_Init"]
    return init[0]["args"].get("world_rank") if len(init) == 1 else None


def nested(recs, outer, call, **args):
    """Is there a `call` state with args inside outer's span, one level deeper?"""
    return any(r["category"] == call and r["depth"] == outer["depth"] + 1 and
               outer["start"] <= r["start"] and r["end"] <= outer["end"] and
               all(r["args"].get(k) == v for k, v in args.items()) for r in recs)


def check_rank(path, data):
    recs = states(path)
    rank = rank_of(recs)
    mpiio = [r for r in recs if r["category"].startswith("MPI_File_")]
    got = {r["category"]: r["args"] for r in mpiio}
    once = collections.Counter(r["category"] for r in mpiio)
    want = expected(rank, data) if rank is not None else {}
    ok(rank is not None and got == want and all(c == 1 for c in once.values()),
       f"rank {rank}: every MPI-IO call once, with path, count, offset, bytes moved, ret",
       json.dumps({"got": got, "want": want, "times": once}, indent=1))
    by = {r["category"]: r for r in mpiio}
    ok(rank is not None and "MPI_File_write_at" in by and "MPI_File_read_at" in by and
       nested(recs, by["MPI_File_write_at"], "pwrite", path=data, count=KIB, offset=rank * KIB,
              ret=KIB) and
       nested(recs, by["MPI_File_read_at"], "pread", path=data, count=KIB,
              offset=3 * N * KIB + N * 100 - 24, ret=24),
       f"rank {rank}: MPI-IO's own pwrite and pread recorded inside the calls that made them",
       json.dumps([r for r in recs if r["args"].get("path") == data], indent=1)[:3000])
    return rank


def main():
    if not mpirun_available(MPI_IO):
        print("1..0 # SKIP mpirun or the MPI-IO program is missing")
        return 77
    print(f"1..{3 + 2 * N}")
    with tempfile.TemporaryDirectory(prefix="slog-trace-mpiio-") as tmp:
        out, data = os.path.join(tmp, "io.trace"), os.path.join(tmp, "shared.dat")
        p = mpirun_traced(SLOG_TRACE, out, N, MPI_IO, data)
        if not ok(p.returncode == 0 and not os.path.exists(data),
                  "mpirun -np 4 slog-trace -- mpi_io exits 0 (its checks held, file deleted)",
                  p.stdout + p.stderr):
            return 1
        files = sorted(glob.glob(os.path.join(out, "*.slog")))
        ranks = {check_rank(f, data) for f in files}
        ok(ranks == set(range(N)), "one file per rank", (files, ranks))
        merged = os.path.join(tmp, "merged.slog")
        m = subprocess.run([SLOG_TRACE, "merge", out, "-o", merged], capture_output=True,
                           text=True, timeout=240)
        calls = collections.Counter(r["category"] for r in states(merged)
                                    if r["category"].startswith("MPI_File_"))
        ok(m.returncode == 0 and calls["MPI_File_write_at_all"] == N and
           calls["MPI_File_delete"] == 1 and sum(calls.values()) == 13 * N + 1,
           "merged: every rank's MPI-IO calls", (m.stderr, dict(calls)))
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
