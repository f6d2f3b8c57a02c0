# SPDX-License-Identifier: MIT
"""slog.Writer: what is written reads back exactly; finishing and the
incomplete mark follow the context manager."""
import numpy as np
import pandas as pd
import pytest

import slog


def write_sample(path, **opts):
    with slog.Writer(path, **opts) as w:
        p = w.timeline("rank 0", kind="process")
        t = w.timeline("main", parent=p)
        c = w.category("compute", color="#ff0000")
        e = w.category("mark", kind="event")
        a = w.category("msg", kind="arrow")
        k = w.category("mem", kind="counter")
        w.state(t, c, 0, 1500, args={"iter": 3, "s": "x", "j": {"a": [1, 2]}, "b": True,
                                     "f": 1.5, "u": 2**63})
        w.begin(t, c, 2000)
        w.begin(t, c, 2100, args={"inner": 1})
        assert w.open_depth(t) == 2
        w.end(t, 2200)
        w.end(t, 2500)
        w.event(t, e, 1000, args={"x": None})
        w.arrow(a, t, p, 100, 200)
        w.counter(p, k, 50, 3.5)
    return p, t


def test_round_trip(tmp_path):
    path = tmp_path / "w.slog"
    p, t = write_sample(path)
    r = slog.open(path)
    assert r.info["complete"] and r.info["states"] == 3 and r.info["creator"].startswith("slog")
    assert list(r.timelines.path) == ["rank 0", "rank 0/main"]
    assert r.categories.color[0] == "#ff0000ff"
    df = r.window(args=True).sort_values(["kind", "start"], kind="stable")
    rows = {(k, s): (e, d, a) for k, s, e, d, a in
            zip(df.kind.astype(str), df.start, df.end, df.depth, df.args)}
    assert rows[("state", 0)] == (1500, 0, {"iter": 3, "s": "x", "j": {"a": [1, 2]},
                                            "b": True, "f": 1.5, "u": 2**63})
    assert rows[("state", 2100)] == (2200, 1, {"inner": 1})
    assert rows[("state", 2000)][:2] == (2500, 0)
    assert rows[("event", 1000)][2] == {"x": None}
    arrow = df[df.kind == "arrow"].iloc[0]
    assert (arrow.timeline, arrow.timeline_to, arrow.start, arrow.end) == (t, p, 100, 200)
    assert df[df.kind == "counter"].value.tolist() == [3.5]


def test_exception_leaves_file_incomplete(tmp_path):
    path = tmp_path / "x.slog"
    with pytest.raises(KeyError):
        with slog.Writer(path) as w:
            t = w.timeline("x")
            c = w.category("c")
            w.state(t, c, 0, 10)
            w.flush()
            raise KeyError("boom")
    r = slog.open(path)
    assert not r.info["complete"]
    assert len(r.window()) == 1


def test_append_columns_equals_single_appends(tmp_path):
    rng = np.random.default_rng(7)
    n = 5000
    start = np.sort(rng.integers(0, 10**9, n))
    frame = pd.DataFrame({
        "kind": rng.choice(["state", "event", "counter"], n),
        "timeline": rng.integers(0, 3, n).astype(np.uint32),
        "start": start,
        "end": start + rng.integers(0, 10**5, n),
        "value": rng.random(n),
    })
    frame["category"] = frame.kind.map({"state": 0, "event": 1, "counter": 2}).astype(np.uint32)
    frame.loc[frame.kind != "state", "end"] = frame.start

    def make(path, bulk):
        with slog.Writer(path) as w:
            for i in range(3):
                w.timeline(f"t{i}")
            for kind in ("state", "event", "counter"):
                w.category(kind, kind=kind)
            if bulk:
                assert w.append(frame) == n
                return
            for row in frame.itertuples(index=False):
                if row.kind == "state":
                    w.state(row.timeline, row.category, row.start, row.end)
                elif row.kind == "event":
                    w.event(row.timeline, row.category, row.start)
                else:
                    w.counter(row.timeline, row.category, row.start, row.value)

    make(tmp_path / "a.slog", True)
    make(tmp_path / "b.slog", False)
    a = slog.open(tmp_path / "a.slog").window()
    b = slog.open(tmp_path / "b.slog").window()
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == n


def test_ticks_per_second_and_closed_writer(tmp_path):
    path = tmp_path / "us.slog"
    w = slog.Writer(path, ticks_per_second=10**6)
    t = w.timeline("t")
    c = w.category("c")
    w.state(t, c, 7, 9)
    w.finish()
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.state(t, c, 0, 1)
    df = slog.open(path).window()
    assert (df.start[0], df.end[0]) == (7000, 9000)


def test_overwrite_false_keeps_an_existing_file(tmp_path):
    path = tmp_path / "w.slog"
    write_sample(path)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        slog.Writer(path, overwrite=False)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["w.slog"]
    # the library's own check (the one that holds when the file appears
    # while the new one is made): the same refusal, not a replaced file
    with pytest.raises(OSError, match="exists"):
        slog._slog.Writer(str(path), 10**9, 0, 0, 0, None, False, True)
    assert path.read_bytes() == before
    fresh = tmp_path / "new.slog"
    write_sample(fresh, overwrite=False)
    assert slog.open(fresh).info["states"] == 3
    write_sample(path)  # the default replaces, as open(path, "w")
    assert slog.open(path).info["complete"]
