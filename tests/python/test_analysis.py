# SPDX-License-Identifier: MIT
"""Reader.stats, find and top against slog-query --stats, --find and --top."""
import math

import pytest

import slog
from conftest import query_jsonl
from helpers import jsonl_drawable, frame_drawables


@pytest.mark.parametrize("by", ["category", "timeline", "both"])
@pytest.mark.parametrize("window", ["10%:20%", ":"])
def test_stats_equal_slog_query(synth_file, by, window):
    r = slog.open(synth_file)
    got = r.stats(window, by=by)
    want = query_jsonl(synth_file, "--stats", "--by", by, "--window", window)
    assert len(got) == len(want) > 0
    for row, d in zip(got.to_dict("records"), want):
        assert row["kind"] == d["kind"] and row["count"] == d["count"]
        if "category_id" in d:
            assert row["category"] == d["category_id"] and row["name"] == d["category"]
        if "timeline_id" in d:
            assert row["timeline"] == d["timeline_id"]
        if d["kind"] == "state":
            for k in ("inclusive", "exclusive", "min", "max"):
                assert row[k] == d[k], k
            assert math.isclose(row["mean"], d["mean"], rel_tol=1e-12)
        if d["kind"] == "counter":
            assert (row["vmin"], row["vmax"], row["vsum"]) == (d["min"], d["max"], d["sum"])


def test_stats_filters_and_bad_grouping(synth_file):
    r = slog.open(synth_file)
    got = r.stats("0:50%", timelines="process 0", kinds="state")
    want = query_jsonl(synth_file, "--stats", "--window", "0:50%", "--timeline", "process 0",
                       "--kind", "state")
    assert [(x, y) for x, y in zip(got["count"], got["inclusive"])] == \
        [(d["count"], d["inclusive"]) for d in want]
    with pytest.raises(ValueError, match="unknown grouping"):
        r.stats(by="rank")


@pytest.mark.parametrize("how,at", [("after", "1ms"), ("before", "50%"), ("after", "0")])
def test_find_equals_slog_query(synth_file, how, at):
    r = slog.open(synth_file)
    got = r.find("MPI", **{how: at})
    want = query_jsonl(synth_file, "--find", "MPI", f"--{how}", at, "--no-args")
    assert len(got) == len(want) == 1
    assert frame_drawables(got, r.info["start"], with_args=False) == \
        [jsonl_drawable(d) for d in want]


def test_find_nothing_and_usage(synth_file):
    r = slog.open(synth_file)
    assert len(r.find("compute", after="100%")) == 0
    with pytest.raises(ValueError, match="exactly one"):
        r.find("compute")
    with pytest.raises(ValueError, match="no category named or containing"):
        r.find("no-such-name", after="0")


def test_top_equals_slog_query(synth_file):
    r = slog.open(synth_file)
    got = r.top(7, "10%:90%", name="read")
    want = query_jsonl(synth_file, "--top", "7", "--window", "10%:90%", "--find", "read",
                       "--no-args")
    assert frame_drawables(got, r.info["start"], with_args=False) == \
        [jsonl_drawable(d) for d in want]
    assert list(got.dur) == sorted(got.dur, reverse=True)


def test_stats_values_a_kind_has_not_are_missing(tmp_path):
    """Events and arrows are counted only, counters have values, states
    durations: the rest is missing (slog-query leaves it out), not 0."""
    p = str(tmp_path / "k.slog")
    with slog.Writer(p) as w:
        t, u = w.timeline("a"), w.timeline("b")
        s, e = w.category("s"), w.category("e", kind="event")
        a, c = w.category("a", kind="arrow"), w.category("c", kind="counter")
        w.state(t, s, 0, 100)
        w.state(t, s, 200, 250)
        w.event(t, e, 10)
        w.arrow(a, t, u, 20, 70)
        w.counter(u, c, 30, 2.5)
        w.counter(u, c, 40, 4.5)
    st = slog.open(p).stats().set_index(slog.open(p).stats().kind.astype(str))
    assert st["count"].tolist() == [2, 1, 1, 2]
    assert st.loc["state", ["inclusive", "exclusive", "min", "max"]].tolist() == [150, 150, 50, 100]
    assert st.loc["state", "mean"] == 75.0
    assert (st.loc["counter", ["vmin", "vmax", "vsum", "mean"]].tolist() ==
            [2.5, 4.5, 7.0, 3.5])
    for kind in ("event", "arrow", "counter"):
        assert st.loc[kind, ["inclusive", "exclusive", "min", "max"]].isna().all(), kind
    for kind in ("event", "arrow"):
        assert math.isnan(st.loc[kind, "mean"]), kind
    for kind in ("state", "event", "arrow"):
        assert st.loc[kind, ["vmin", "vmax", "vsum"]].isna().all(), kind
    assert str(st.inclusive.dtype) == "Int64" and st.inclusive.sum() == 150
