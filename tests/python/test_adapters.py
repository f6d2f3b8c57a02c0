# SPDX-License-Identifier: MIT
"""to_pipit and to_hta: the column names and dtypes those projects document,
and contents that agree with the interval form."""
import numpy as np
import pandas as pd

import slog
from slog.adapters import HTA_COLUMNS, PIPIT_COLUMNS


def test_pipit_columns_and_dtypes(synth_file):
    ev = slog.open(synth_file).to_pipit("10%:20%")
    assert list(ev.columns) == PIPIT_COLUMNS
    assert ev["Timestamp (ns)"].dtype == np.int64
    assert str(ev["Event Type"].dtype) == "category"
    assert set(ev["Event Type"].cat.categories) == {"Enter", "Leave", "Instant"}
    assert str(ev["Name"].dtype) == "category"
    for col in ("Process", "Thread", "_depth", "_matching_event", "_matching_timestamp"):
        assert ev[col].dtype == np.int64, col
    assert ev["Timestamp (ns)"].is_monotonic_increasing


def test_pipit_events_match_the_window(synth_file):
    r = slog.open(synth_file)
    ev = r.to_pipit("10%:20%", args=True)
    win = r.window("10%:20%", kinds="state,event")
    states = win[win.kind == "state"]
    assert (ev["Event Type"] == "Enter").sum() == (ev["Event Type"] == "Leave").sum() == len(states)
    assert (ev["Event Type"] == "Instant").sum() == (win.kind == "event").sum()
    enters = ev[ev["Event Type"] == "Enter"]
    partner = ev.loc[enters["_matching_event"]]
    assert (partner["Event Type"] == "Leave").all()
    assert (partner["Name"].to_numpy() == enters["Name"].to_numpy()).all()
    assert (partner["Thread"].to_numpy() == enters["Thread"].to_numpy()).all()
    assert (enters["_matching_timestamp"].to_numpy() == partner["Timestamp (ns)"].to_numpy()).all()
    got = sorted(enters["Timestamp (ns)"].tolist())
    assert got == sorted(states.start.tolist())
    assert "Attributes" in ev.columns


def test_pipit_order_replays_as_a_stack(synth_file):
    """pipit matches Enter/Leave with a stack per (Process, Thread): every
    Leave must close the innermost open Enter."""
    wrong, left_open = _replay_stacks(slog.open(synth_file).to_pipit(":"))
    assert wrong == [] and left_open == 0


def _replay_stacks(ev):
    """Rows where a Leave does not close the innermost open Enter of its
    thread (pipit's stack matching), and the Enters left open."""
    stacks, wrong = {}, []
    for i, (etype, thread, match) in enumerate(zip(ev["Event Type"], ev["Thread"],
                                                   ev["_matching_event"])):
        s = stacks.setdefault(thread, [])
        if etype == "Enter":
            s.append(i)
        elif etype == "Leave":
            if not s or s.pop() != match:
                wrong.append(i)
    return wrong, sum(len(s) for s in stacks.values())


def test_pipit_zero_length_states_at_a_shared_time(tmp_path):
    """Zero-length states that start with other states of their depth (as
    Chrome, Perfetto and Recorder traces have): each one's Enter and Leave
    stay together, so the replay closes every Enter with its own Leave."""
    p = str(tmp_path / "z.slog")
    with slog.Writer(p) as w:
        t, u = w.timeline("main"), w.timeline("other")
        a, b, c, d = (w.category(n) for n in "ABCD")
        w.state(t, a, 100, 100)
        w.state(t, b, 100, 100)
        w.state(t, c, 100, 200)
        w.state(t, d, 150, 150, depth=1)
        w.state(t, a, 150, 150, depth=1)
        w.state(t, b, 150, 180, depth=1)
        w.state(u, d, 100, 100)
        w.state(u, c, 100, 100)
    ev = slog.open(p).to_pipit()
    assert _replay_stacks(ev) == ([], 0)
    assert ev["Timestamp (ns)"].is_monotonic_increasing
    enters = ev[ev["Event Type"] == "Enter"]
    assert (enters["_matching_event"].to_numpy() == enters.index.to_numpy() + 1)[:2].all()


def test_hta_columns_and_dtypes(synth_file):
    r = slog.open(synth_file)
    df = r.to_hta("10%:20%")
    assert list(df.columns) == HTA_COLUMNS
    for col in HTA_COLUMNS[:11]:
        assert df[col].dtype == np.int64, col
    assert df.s_name.dtype == object and df.s_cat.dtype == object
    sym = df.attrs["symbol_table"]
    assert [sym[i] for i in df.name] == list(df.s_name)
    assert df.ts.is_monotonic_increasing and (df.end == df.ts + df.dur).all()
    win = r.window("10%:20%", kinds="state")
    assert len(df) == len(win)
    assert sorted(df.ts) == sorted(win.start // 1000)
    assert set(df.s_cat) <= set(r.categories.group)


def test_hta_ns_unit(synth_file):
    r = slog.open(synth_file)
    df = r.to_hta("0:1ms", unit="ns")
    win = r.window("0:1ms", kinds="state")
    assert sorted(df.dur) == sorted(win.dur)


def test_hta_stream_and_correlation_from_kineto_args(tmp_path):
    """Kineto writes "stream" on GPU kernels and memcpys and "correlation"
    on them and their launches; HTA's parser takes both from the args (and
    selects GPU kernels by stream != -1).  Without such args: the timeline
    (GPU kind) and -1."""
    p = str(tmp_path / "k.slog")
    with slog.Writer(p) as w:
        proc = w.timeline("python (GPU 0)", kind="process")
        s7 = w.timeline("stream 7", parent=proc)
        cpu = w.timeline("thread 1", parent=proc)
        gpu = w.timeline("gpu", kind="gpu", parent=proc)
        k = w.category("sgemm", group="Kernel")
        launch = w.category("cudaLaunchKernel", group="Runtime")
        w.state(cpu, launch, 1000, 3000, args={"correlation": 89213, "external id": 5})
        w.state(s7, k, 5000, 9000, args={"stream": 7, "correlation": 89213, "grid": [16, 2]})
        w.state(s7, k, 9000, 9500, args={"stream": "7", "correlation": 2**64 - 1})
        w.state(gpu, k, 9500, 9600)
    r = slog.open(p)
    df = r.to_hta()
    assert df.s_name.tolist() == ["cudaLaunchKernel", "sgemm", "sgemm", "sgemm"]
    assert df.stream.tolist() == [-1, 7, -1, gpu]
    assert df.correlation.tolist() == [89213, 89213, -1, -1]
    assert df.stream.dtype == np.int64 and df.correlation.dtype == np.int64
    plain = r.to_hta(args=False)
    assert plain.stream.tolist() == [-1, -1, -1, gpu] and (plain.correlation == -1).all()
