# SPDX-License-Identifier: MIT
"""slog.io.summary: per file and layer, the calls, bytes and time of a
traced run, against calls written with known args and against a DFTracer
trace read as JSON."""
import collections
import json
import os

import pytest

import slog
from conftest import ROOT

PFW = os.path.join(ROOT, "..", "shared", "corpus", "dftracer", "dfanalyzer_test.pfw")


def write_calls(path):
    """Calls of each kind on two files, as slog-trace records them."""
    with slog.Writer(path) as w:
        p = w.timeline("prog pid 7", kind="process")
        t = w.timeline("main 7", parent=p)
        cat = {n: w.category(n, group=g) for n, g in [
            ("open", "posix"), ("read", "posix"), ("write", "posix"), ("fsync", "posix"),
            ("fread", "stdio"), ("fputs", "stdio"), ("copy_file_range", "posix"),
            ("MPI_File_write_at", "mpiio"), ("MPI_File_iwrite_at", "mpiio"),
            ("MPI_File_open", "mpiio"), ("chmod", "posix"), ("compute", None),
            ("MPI_Send", "mpi")]}
        calls = [
            ("open", {"path": "a", "ret": 3}, 10), ("read", {"path": "a", "ret": 100}, 20),
            ("read", {"path": "a", "ret": -1, "errno": 9}, 5),  # failed: no bytes
            ("write", {"path": "a", "ret": 40}, 30), ("fsync", {"path": "a", "ret": 0}, 7),
            ("fread", {"path": "b", "size": 8, "count": 10, "ret": 6}, 11),  # 6 items of 8
            ("fputs", {"path": "b", "count": 12, "ret": 1}, 4),
            ("fputs", {"path": "b", "count": 5, "ret": -1}, 4),
            ("copy_file_range", {"path_in": "a", "path_out": "b", "count": 64, "ret": 50}, 9),
            ("MPI_File_open", {"path": "c", "ret": 0}, 100),
            ("MPI_File_write_at", {"path": "c", "count": 4096, "bytes": 4096, "ret": 0}, 300),
            ("MPI_File_iwrite_at", {"path": "c", "count": 100, "ret": 0}, 50),
            ("chmod", {"path": "a", "ret": 0}, 3), ("compute", {"path": "x"}, 1000),
            ("MPI_Send", {"path": "a", "bytes": 64}, 2),  # group mpi: never read
            ("compute", None, 1000),
        ]
        now = 0
        for name, args, dur in calls:
            w.state(t, cat[name], now, now + dur, args=args)
            now += dur + 1
    return now


def test_summary_of_known_calls(tmp_path):
    path = tmp_path / "calls.slog"
    write_calls(path)
    s = slog.io.summary(slog.open(path))
    rows = {k: v for k, v in s.to_dict("index").items()}
    a, b, c = rows[("posix", "a")], rows[("stdio", "b")], rows[("mpiio", "c")]
    assert (a["calls"], a["errors"], a["opens"], a["reads"], a["writes"], a["syncs"],
            a["other"]) == (7, 1, 1, 3, 1, 1, 1)  # the copy is a read of a
    assert (a["bytes_read"], a["bytes_written"]) == (150, 40)
    assert (a["read_time"], a["write_time"]) == (20 + 5 + 9, 30)
    assert (b["calls"], b["errors"], b["reads"], b["writes"]) == (3, 1, 1, 2)
    assert (b["bytes_read"], b["bytes_written"]) == (48, 12)
    assert rows[("posix", "b")]["bytes_written"] == 50  # the copy's write
    assert (c["calls"], c["opens"], c["writes"], c["bytes_written"]) == (3, 1, 2, 4196)
    assert rows[("", "x")]["other"] == 1 and len(rows) == 5  # compute: no group, a path
    assert a["first"] == 0 and a["last"] == s.loc[("posix", "a"), "last"]
    by = slog.io.summary(slog.open(path), by="process")
    assert list(by.index.names) == ["layer", "path", "process"]
    assert by.bytes_read.sum() == s.bytes_read.sum() and set(by.reset_index().process) == {0}


def test_summary_of_hdf5_calls(tmp_path):
    """slog-trace's hdf5 group: a file's dataset and attribute reads and
    writes by their bytes, opens, flushes and object calls."""
    path = tmp_path / "h5.slog"
    with slog.Writer(path) as w:
        t = w.timeline("main 7", parent=w.timeline("prog pid 7", kind="process"))
        cat = {n: w.category(n, group="hdf5") for n in (
            "H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Awrite", "H5Fflush", "H5Dread", "H5Fclose")}
        calls = [("H5Fcreate", {"path": "f.h5", "ret": 1}), ("H5Dcreate2", {"path": "f.h5",
                 "name": "/v", "ret": 2}), ("H5Dwrite", {"path": "f.h5", "name": "/v",
                 "bytes": 32768, "ret": 0}), ("H5Awrite", {"path": "f.h5", "name": "/v@i",
                 "bytes": 8, "ret": 0}), ("H5Fflush", {"path": "f.h5", "ret": 0}),
                 ("H5Dread", {"path": "f.h5", "name": "/v", "bytes": 4096, "ret": 0}),
                 ("H5Dread", {"path": "f.h5", "name": "/v", "bytes": 64, "ret": -1}),
                 ("H5Fclose", {"path": "f.h5", "ret": 0})]
        for i, (name, args) in enumerate(calls):
            w.state(t, cat[name], 10 * i, 10 * i + 5, args=args)
    row = slog.io.summary(slog.open(path)).loc[("hdf5", "f.h5")]
    assert (row.calls, row.errors, row.opens, row.reads, row.writes, row.syncs, row.other) == (
        8, 1, 1, 2, 2, 1, 1)
    assert (row.bytes_read, row.bytes_written) == (4096, 32776)  # the failed read moved none


def test_summary_of_an_empty_window(tmp_path):
    path = tmp_path / "calls.slog"
    end = write_calls(path)
    s = slog.io.summary(slog.open(path), end + 10, end + 20)
    assert s.empty and list(s.index.names) == ["layer", "path"] and "bytes_read" in s
    with pytest.raises(ValueError, match="by"):
        slog.io.summary(slog.open(path), by="rank")


@pytest.mark.skipif(not os.path.exists(PFW), reason="corpus not beside the checkout")
def test_summary_of_a_dftracer_trace(tmp_path):
    """Bytes and calls per file equal the .pfw's own events (its numbers
    are strings: "ret": "131072")."""
    out = tmp_path / "pfw.slog"
    slog.import_trace([PFW], str(out))
    want = collections.defaultdict(collections.Counter)
    with open(PFW) as f:
        for line in f:
            line = line.strip().rstrip(",")
            if not line.startswith("{"):
                continue
            ev = json.loads(line)
            fname = ev.get("args", {}).get("fname")
            if ev.get("ph") != "X" or not fname:
                continue
            key = (ev["cat"].lower(), fname)
            want[key]["calls"] += 1
            col = {"read": "bytes_read", "write": "bytes_written"}.get(ev["name"])
            if col:
                want[key][col] += max(0, int(ev["args"]["ret"]))
    s = slog.io.summary(slog.open(out))
    got = {k: collections.Counter({"calls": v["calls"], "bytes_read": v["bytes_read"],
                                   "bytes_written": v["bytes_written"]})
           for k, v in s.to_dict("index").items()}
    assert sum(c["bytes_written"] for c in want.values()) > 0
    assert {k: +v for k, v in got.items()} == {k: +v for k, v in want.items()}
