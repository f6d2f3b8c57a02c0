# SPDX-License-Identifier: MIT
"""slog.open and Reader.window against slog-query on the same files."""
import numpy as np
import pandas as pd
import pytest

import slog
from conftest import query_jsonl, read_jsonl_gz, DATA
from helpers import frame_drawables, jsonl_drawable

WINDOWS = ["10%:20%", "2ms:3ms", ":", "0:1ms", "50%:", "99.5%:100%"]


@pytest.mark.parametrize("window", WINDOWS)
def test_window_equals_slog_query(synth_file, window):
    r = slog.open(synth_file)
    df = r.window(window, args=True)
    want = [jsonl_drawable(d) for d in query_jsonl(synth_file, "--window", window)]
    assert frame_drawables(df, r.info["start"]) == want
    assert len(df) == len(want) > 0


def test_window_sides_as_separate_arguments(synth_file):
    r = slog.open(synth_file)
    a = r.window("10%", "20%")
    b = r.window("10%:20%")
    pd.testing.assert_frame_equal(a, b)


def test_absolute_ns_window_matches_relative(synth_file):
    r = slog.open(synth_file)
    s = r.info["start"]
    a = r.window(s + 2_000_000, s + 3_000_000)
    b = r.window("2ms:3ms")
    pd.testing.assert_frame_equal(a, b)


def test_window_columns_and_dtypes(synth_file):
    r = slog.open(synth_file)
    df = r.window("10%:20%")
    assert list(df.columns) == ["kind", "timeline", "timeline_to", "category", "name", "start",
                                "end", "dur", "depth", "value"]
    assert str(df.kind.dtype) == "category" and str(df.name.dtype) == "category"
    assert df.start.dtype == np.int64 and df.end.dtype == np.int64 and df.dur.dtype == np.int64
    assert (df.dur == df.end - df.start).all()
    assert (df.value[df.kind != "counter"] == 0).all() and (df.kind == "counter").any()
    # what a full-detail window leaves out is still there when asked for
    full = r.window("10%:20%", columns=["kind", "dur", "of", "count", "inclusive"])
    assert (full.of.astype(str) == full.kind.astype(str)).all() and (full["count"] == 1).all()
    states = full[full.kind == "state"]
    assert (states.inclusive == states.dur).all()
    # only the columns the kinds asked for can fill
    assert list(r.window("10%:20%", kinds="state").columns) == [
        "kind", "timeline", "category", "name", "start", "end", "dur", "depth"]
    assert "timeline_to" in r.window(kinds="arrow") and "value" not in r.window(kinds="arrow")
    assert "value" in r.window(kinds="counter") and "timeline_to" not in r.window(kinds="counter")


def test_filters_equal_slog_query(synth_file):
    r = slog.open(synth_file)
    df = r.window("5%:60%", timelines="process 1", categories=["compute", "read"],
                  kinds="state,event", args=True)
    want = query_jsonl(synth_file, "--window", "5%:60%", "--timeline", "process 1",
                       "--category", "compute", "--category", "read", "--kind", "state,event")
    assert frame_drawables(df, r.info["start"]) == [jsonl_drawable(d) for d in want]
    assert set(df.kind.unique()) <= {"state", "event"}


def test_timeline_spec_ambiguous_and_missing(synth_file):
    r = slog.open(synth_file)
    with pytest.raises(ValueError, match="no timeline named"):
        r.window(timelines="no such thread")
    with pytest.raises(ValueError, match="no category named"):
        r.window(categories="no such category")
    with pytest.raises(ValueError, match="unknown kind"):
        r.window(kinds="states,bogus")


def test_columns_subset(synth_file):
    r = slog.open(synth_file)
    full = r.window("10%:20%")
    part = r.window("10%:20%", columns=["start", "dur", "name"])
    assert list(part.columns) == ["start", "dur", "name"]
    pd.testing.assert_frame_equal(part, full[["start", "dur", "name"]])


def test_columns_are_checked_and_keep_every_row(synth_file):
    """A name that is no column raises (it used to be dropped, and a list of
    such names gave a frame of no rows); one str is one column; a frame of
    args alone keeps the window's rows."""
    r = slog.open(synth_file)
    n = len(r.window("10%:20%"))
    for bad in (["nosuch"], ["start", "Start"], ["args"]):
        with pytest.raises(ValueError, match="columns: no column"):
            r.window("10%:20%", columns=bad)
    assert list(r.window("10%:20%", columns="start").columns) == ["start"]
    assert len(r.window("10%:20%", columns="start")) == n
    only = r.window("10%:20%", columns=["args"], args=True)
    assert list(only.columns) == ["args"] and len(only) == n
    assert len(r.window("10%:20%", columns=[])) == n
    keyed = r.window("10%:20%", columns=["start", "args.iter"], args=["iter"])
    assert list(keyed.columns) == ["start", "args.iter"] and len(keyed) == n
    with pytest.raises(TypeError, match="args: True, False"):
        r.window("10%:20%", args=1)


def test_args_keys_decode_only_those(tmp_path):
    """args=[keys] decodes only those keys' values (a JSON arg costs a
    json.loads): the columns equal those taken from args=True's dicts."""
    p = str(tmp_path / "a.slog")
    with slog.Writer(p) as w:
        t = w.timeline("main")
        c = w.category("c")
        w.state(t, c, 0, 10, args={"k": 1, "j": {"a": [1, 2]}, "big": [0] * 50})
        w.state(t, c, 10, 20, args={"j": None, "s": "x"})
        w.state(t, c, 20, 30)
    r = slog.open(p)
    every = r.window(args=True).args
    some = r.window(args=["k", "j", "nosuch"])
    for key in ("k", "j", "nosuch"):
        want = [a.get(key) if a is not None else None for a in every]
        assert some["args." + key].tolist() == want, key
    assert r.window(args="s")["args.s"].tolist() == [None, "x", None]


def test_args_expand_keeps_ints_exact(tmp_path):
    """Ints that some drawables lack came back as float64 from pandas'
    inference: ids above 2**53 lost digits (HTA's "Comms Id"
    10159970886766084423, Kineto correlation ids, ns stamps in args)."""
    p = str(tmp_path / "x.slog")
    big, huge = 2**53 + 1, 10159970886766084423
    with slog.Writer(p) as w:
        t = w.timeline("main")
        c = w.category("c")
        w.state(t, c, 0, 10, args={"id": big, "u": huge, "f": 0.5, "s": "a", "n": 1})
        w.state(t, c, 10, 20, args={"f": 1.5, "n": 2})
    df = slog.open(p).window(args="expand")
    assert df["args.id"].tolist()[0] == big and df["args.id"].isna().tolist() == [False, True]
    assert str(df["args.id"].dtype) == "Int64"
    assert df["args.u"].tolist()[0] == huge and str(df["args.u"].dtype) == "UInt64"
    assert df["args.n"].tolist() == [1, 2] and df["args.n"].dtype == np.int64
    assert df["args.f"].tolist() == [0.5, 1.5] and df["args.s"].tolist()[0] == "a"


def test_args_expand_of_an_empty_window(synth_file):
    r = slog.open(synth_file)
    s = r.info["start"]
    empty = r.window(s - 10, s - 5, args="expand")
    assert len(empty) == 0
    assert list(empty.columns) == list(r.window(s - 10, s - 5).columns)


def test_odd_clock_times_are_exact_floor(odd_clock_file):
    r = slog.open(odd_clock_file)
    assert r.info["ticks_per_second"] == 3_000_000
    ns = r.window()
    want = query_jsonl(odd_clock_file, "--no-args")
    assert len(ns) == len(want)
    # slog-query prints j = floor((ticks - t0) * 1000 / 3); one whole tick
    # count d = ticks - t0 gives it: d = ceil(3 j / 1000).  The DataFrame
    # holds floor(ticks * 1000 / 3), absolute.
    t0 = r.info["start_ticks"]
    for row, d in zip(ns.itertuples(index=False), want):
        for col in ("start", "end"):
            ticks = t0 - (-3 * d[col] // 1000)
            assert int(getattr(row, col)) == ticks * 1000 // 3


@pytest.mark.parametrize("name", ["synth", "chrome69"])
def test_tracked_files_whole_and_window(tracked, name):
    r = slog.open(tracked[name])
    assert r.info["format_read_version"] == 1
    whole = [jsonl_drawable(d) for d in read_jsonl_gz(f"{DATA}/v1/{name}.jsonl.gz")]
    assert frame_drawables(r.window(args=True), r.info["start"]) == whole
    part = [jsonl_drawable(d) for d in read_jsonl_gz(f"{DATA}/v1/{name}.w10-20.jsonl.gz")]
    assert frame_drawables(r.window("10%:20%", args=True), r.info["start"]) == part


def test_args_expand(tracked):
    r = slog.open(tracked["synth"])
    df = r.window(kinds="state", args="expand")
    assert "args.iter" in df.columns
    top = df[df.depth == 0]
    assert top["args.iter"].notna().all()


def test_pixels_previews_and_runs_agree_with_slog_query(synth_file):
    r = slog.open(synth_file)
    df = r.window(pixels=200)
    want = query_jsonl(synth_file, "--pixels", "200", "--no-args")
    assert len(df) == len(want)
    assert list(df.kind.astype(str)) == [d["kind"] for d in want]
    assert {"preview", "run"} & set(df.kind.astype(str))
    origin = r.info["start"]
    for row, d in zip(df.itertuples(index=False), want):
        assert int(row.start) - origin == d["start"] and int(row.end) - origin == d["end"]
        if d["kind"] in ("preview", "run"):
            assert int(row.count) == d["count"] and row.of == d["of"]
        if d["kind"] == "run" or (d["kind"] == "preview" and d["of"] == "state"):
            assert int(row.inclusive) == d["inclusive"]
        if d["kind"] == "preview" and d["of"] == "state":
            assert int(row.exclusive) == d["exclusive"]
            assert (int(row.min), int(row.max)) == (d["min"], d["max"])


def test_pixel_totals_equal_full_detail(synth_file):
    """Guarantee 4 through the DataFrame: previews + runs + drawables add up."""
    r = slog.open(synth_file)
    zoomed = r.window(pixels=50, kinds=["state", "preview", "run"])
    full = r.window(kinds="state")
    states = zoomed[(zoomed.of == "state")]
    assert int(states["count"].sum()) == len(full)
    assert int(states.inclusive.sum()) == int(full.dur.sum())


def test_info_and_tables(synth_file):
    r = slog.open(synth_file)
    i = r.info
    assert i["complete"] and i["states"] == 20000 and i["timelines"] == len(r.timelines)
    assert i["duration"] == i["end"] - i["start"] > 0
    tl = r.timelines
    assert list(tl.columns) == ["id", "name", "kind", "parent", "sort_key", "path", "process"]
    threads = tl[tl.kind == "thread"]
    assert len(threads) == 8
    assert (tl.loc[threads.parent, "kind"] == "process").all()
    assert threads.path.str.contains("/").all()
    cats = r.categories
    assert list(cats.columns) == ["id", "name", "kind", "color", "rgba", "group"]
    assert set(cats.kind.astype(str)) == {"state", "event", "arrow", "counter"}


def test_context_manager_closes(synth_file):
    with slog.open(synth_file) as r:
        df = r.window("0:1ms")
    assert r.closed
    with pytest.raises(ValueError, match="closed"):
        r.window()
    assert len(df) > 0  # columns own their memory


def test_timeline_paths_and_processes_of_a_deep_tree(tmp_path):
    """r.timelines builds path and process from each parent's (one pass:
    a walk per timeline took 1 s to open a file of 10^5 timelines); the
    answers stay those of the walk, which keeps 64 levels."""
    p = str(tmp_path / "deep.slog")
    with slog.Writer(p) as w:
        top = parent = w.timeline("host", kind="host")
        for depth in range(70):
            kind = "process" if depth in (3, 40) else "thread"
            parent = w.timeline(f"n{depth}", parent=parent, kind=kind)
        w.timeline("side", parent=top)
        w.state(parent, w.category("c"), 0, 1)
    r = slog.open(p)
    kinds = r._r.tables()[0]["kind"]
    n = len(r.timelines)
    assert r.timelines.path.tolist() == [r._catalog.path(i) for i in range(n)]
    assert r.timelines.process.tolist() == [r._process_of(i, kinds) for i in range(n)]
    assert r.timelines.path[5] == "host/n0/n1/n2/n3/n4"
    assert r.timelines.process[5] == 4 and r.timelines.process[71] == 0
    assert r.timelines.path[70].count("/") == 63


def test_other_previews_are_named_and_grouped(tmp_path):
    """Previews and runs that fold rare categories carry category
    4294967295 and the name "(other)", as slog-query prints it, so
    groupby("name") counts every item (with NaN it left them out: 89 024 of
    446 443 items of a Perfetto trace at 300 pixels)."""
    path = str(tmp_path / "many.slog")
    with slog.Writer(path) as w:
        tl = w.timeline("t")
        cats = [w.category(f"c{i}") for i in range(400)]
        for i in range(40000):
            w.state(tl, cats[i % 400], i * 10, i * 10 + 5)
    r = slog.open(path)
    df = r.window(pixels=2)
    assert (df.category == 4294967295).any(), "no folded preview: the test needs one"
    assert (df.name[df.category == 4294967295] == "(other)").all()
    assert df.groupby("name")["count"].sum().sum() == df["count"].sum() == 40000
    assert "(other)" not in r.window().name.cat.categories
