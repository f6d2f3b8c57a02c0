# SPDX-License-Identifier: MIT
"""slog-trace merge joins a process's Python tracing file to the process's
own file (utils/slog-trace/trace_merge_join.c): one process timeline, the
Python thread and the traced calls on one thread timeline, a Python region
one level above the calls it made."""
import os
import subprocess
import sys

import pytest

import slog

SLOG_TRACE = os.environ.get("SLOG_TRACE")


def traced_run(tmp_path, script):
    """Run script under slog-trace; return the merged file's reader."""
    prog = tmp_path / "prog.py"
    prog.write_text(script)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(slog.__file__)))
    subprocess.run([SLOG_TRACE, "-o", str(out), "--", sys.executable, str(prog)], env=env,
                   check=True)
    names = sorted(os.listdir(out))
    assert any(n.endswith("-python.slog") for n in names), names
    merged = tmp_path / "merged.slog"
    subprocess.run([SLOG_TRACE, "merge", str(out), "-o", str(merged)], check=True,
                   capture_output=True)
    return slog.open(str(merged))


@pytest.mark.skipif(SLOG_TRACE is None, reason="SLOG_TRACE not set (run through meson)")
def test_python_regions_nest_above_the_calls_they_made(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("x" * 100)
    r = traced_run(tmp_path, f"""import os, slog
print(os.getpid())
with slog.region("load"):
    with open({str(data)!r}) as f:
        f.read()
""")
    tl = r.timelines
    pid_rows = tl[tl["name"].str.contains(r"pid \d+$") & (tl["kind"] == "process")]
    python_procs = pid_rows[pid_rows["name"].str.startswith("python")]
    assert len(python_procs) == 1, tl[["id", "name", "kind", "parent"]]
    threads = tl[tl["parent"] == python_procs["id"].iloc[0]]
    assert len(threads) == 1, tl[["id", "name", "kind", "parent"]]
    w = r.window(kinds=["state"], args=True)
    load = w[w["name"] == "load"]
    assert len(load) == 1
    load = load.iloc[0]
    reads = w[(w["name"] == "read") &
              w["args"].map(lambda a: a is not None and a.get("path") == str(data))]
    assert len(reads) >= 1
    for _, rd in reads.iterrows():
        assert rd["timeline"] == load["timeline"]
        assert load["start"] <= rd["start"] and rd["end"] <= load["end"]
        assert rd["depth"] == load["depth"] + 1
    opens = w[(w["timeline"] == load["timeline"]) & (w["start"] >= load["start"]) &
              (w["end"] <= load["end"]) & (w["name"] != "load")]
    assert (opens["depth"] > load["depth"]).all()


@pytest.mark.skipif(SLOG_TRACE is None, reason="SLOG_TRACE not set (run through meson)")
def test_python_tracing_file_is_not_in_the_io_summary(tmp_path):
    """The Python tracing writer's HDF5 calls on its own file in DIR were
    recorded (57 H5Fcreate, H5Acreate2, H5Dwrite... a process): the trace
    file showed as a file the program wrote.  Calls on DIR's files are the
    tracer's own, at every layer."""
    r = traced_run(tmp_path, "import slog\nwith slog.region('r'):\n    pass\n")
    io = slog.io.summary(r).reset_index()
    own = io[io["path"].str.startswith(str(tmp_path / "out"))]
    assert own.empty, own[["layer", "path", "calls"]]


@pytest.mark.skipif(SLOG_TRACE is None, reason="SLOG_TRACE not set (run through meson)")
def test_python_files_of_an_exec_join_their_programs(tmp_path):
    """A Python program that execs another of the same pid: each program's
    Python file (<host>-<pid>-python.slog, then <host>-<pid>.1-python.slog)
    joins its own program's file, its region above that program's read."""
    data = [tmp_path / "a.txt", tmp_path / "b.txt"]
    for d in data:
        d.write_text("x" * 10)
    second = f"import slog\nwith slog.region('second'):\n    open({str(data[1])!r}).read()\n"
    r = traced_run(tmp_path, f"""import os, sys, slog
with slog.region("first"):
    open({str(data[0])!r}).read()
os.execv(sys.executable, [sys.executable, "-c", {second!r}])
""")
    w = r.window(kinds=["state"], args=True)
    for name, d in (("first", data[0]), ("second", data[1])):
        (reg,) = w[w["name"] == name].itertuples()
        reads = w[(w["name"] == "read") & w["args"].map(lambda a, d=d: (a or {}).get("path") == str(d))]
        assert len(reads) >= 1
        assert (reads["timeline"] == reg.timeline).all() and (reads["depth"] == reg.depth + 1).all()
        assert ((reads["start"] >= reg.start) & (reads["end"] <= reg.end)).all()
