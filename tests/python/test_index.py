# SPDX-License-Identifier: MIT
"""An index file (slog_index.h, slog-merge --index) through the Python
module: read like one file, it gives the same windows, statistics, search,
previews and adapters as the merged file of the same inputs (compared by
timeline paths and category names, not ids); Reader.inputs lists its
inputs; slog.dask.read reads the index alone, or a job directory holding
the index and its inputs, as pandas reads the index."""
import os
import subprocess
from collections import namedtuple

import numpy as np
import pandas as pd
import pytest

import slog
from conftest import synth, tool

Job = namedtuple("Job", "dir inputs index merged offsets")

# rank-4 is far beyond the index's default copy budget (256 KiB of decoded
# top levels per input): a full-detail window must read it from its file.
BIG = "rank-4.slog"
# the second variant moves the inputs apart in time (slog-merge --offset)
OFFSETS = {"rank-2.slog": 300_000_000, "rank-3.slog": 600_000_000, "rank-5.slog": -50_000}


def merge(inputs, out, *opts):
    subprocess.run([tool("slog-merge"), *inputs, "-o", str(out), "-q", *opts], check=True)
    return str(out)


def writer_input(path):
    """An input of another shape than slog-synth's: threads right under the
    top, categories of its own and of the same names as slog-synth's, args,
    events and a counter."""
    with slog.Writer(path) as w:
        main, io = w.timeline("main"), w.timeline("io", kind="thread")
        compute = w.category("compute", group="compute")  # as slog-synth's
        read = w.category("read", group="posix")
        mark = w.category("MPI_Wait", kind="event")  # a state's name, as an event
        mem = w.category("memory_bytes", kind="counter")
        for i in range(400):
            t = 1_000_000_000 + i * 200_000
            # children first (by end time), so the file's exclusive times are exact
            w.state(main, read, t + 10_000, t + 60_000, depth=1, args={"fd": i % 7})
            w.state(main, compute, t, t + 150_000, args={"i": i})
            w.state(io, read, t + 5_000, t + 90_000, args={"bytes": 4096 * i})
            w.event(io, mark, t + 100_000, args={"n": i})
            w.counter(main, mem, t, float(i * 1024))
    return str(path)


@pytest.fixture(scope="session", params=["plain", "offsets"])
def job(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("job")
    inputs = [synth(d / f"rank-{s}.slog", "-n", "20000", "-t", "4", "-s", str(s), "--state-args")
              for s in (1, 2, 3)]
    inputs.append(synth(d / BIG, "-n", "200000", "-t", "4", "-s", "4"))
    inputs.append(writer_input(d / "rank-5.slog"))
    opts = []
    offsets = OFFSETS if request.param == "offsets" else {}
    for name, ticks in offsets.items():
        opts += ["--offset", f"{d / name}={ticks}"]
    index = merge(inputs, d / "index.slog", "--index", *opts)
    merged = merge(inputs, tmp_path_factory.mktemp("merged") / "merged.slog", *opts)
    return Job(d, inputs, index, merged, offsets)


# ---- comparing by names ---------------------------------------------------------

def _by_name(values, vocabulary):
    """values as a Categorical over the sorted vocabulary: compared and
    sorted by name, quickly (object columns are slow to compare)."""
    return pd.Categorical(values, categories=sorted(set(vocabulary)))


def named(r, df, with_args=False):
    """A window's rows by timeline path and category (name, group), sorted."""
    path = r.timelines.path.to_numpy(dtype=object)
    group = r.categories.group.to_numpy(dtype=object)
    out = pd.DataFrame({
        "kind": df.kind.astype(str).astype("category"),
        "timeline": _by_name(path[df.timeline.to_numpy()], path),
        "name": _by_name(df.name.astype(str), r.categories.name),
        "group": _by_name(group[np.minimum(df.category.to_numpy(), len(group) - 1)], group),
        "start": df.start.to_numpy(), "end": df.end.to_numpy(), "depth": df.depth.to_numpy(),
        "to": _by_name(path[df.get("timeline_to", df.timeline).to_numpy()], path),
        "value": df.value.to_numpy() if "value" in df else np.zeros(len(df)),
    })
    if with_args:
        out["args"] = [repr(sorted(a.items())) if a is not None else "" for a in df.args]
    keys = ["kind", "timeline", "name", "start", "end", "depth", "group", "to", "value"]
    return out.sort_values(keys + (["args"] if with_args else []),
                           kind="stable").reset_index(drop=True)


def _same_column(a, b):
    if isinstance(a.dtype, pd.CategoricalDtype) and isinstance(b.dtype, pd.CategoricalDtype):
        return list(a.cat.categories) == list(b.cat.categories) and \
            np.array_equal(a.cat.codes.to_numpy(), b.cat.codes.to_numpy())
    return a.dtype == b.dtype and np.array_equal(a.to_numpy(), b.to_numpy())


def assert_same(a, b):
    """assert_frame_equal, quick when the frames are equal (it is slow on
    categorical columns of 10^5 rows); its message when they are not."""
    if not (a.columns.equals(b.columns) and len(a) == len(b) and
            all(_same_column(a[c], b[c]) for c in a.columns)):
        pd.testing.assert_frame_equal(a, b)


def named_stats(r, df):
    out = df.copy()
    if "timeline" in out:
        out["timeline"] = r.timelines.path.to_numpy(dtype=object)[out.timeline.to_numpy()]
    if "category" in out:
        out["group"] = r.categories.group.to_numpy(dtype=object)[out.category.to_numpy()]
        out = out.drop(columns="category")
    out["kind"] = out.kind.astype(str)
    if "name" in out:
        out["name"] = out.name.astype(str)
    keys = [k for k in ("kind", "timeline", "name", "group") if k in out]
    return out.sort_values(keys, kind="stable").reset_index(drop=True)


@pytest.fixture(scope="session")
def pair(job):
    return slog.open(job.index), slog.open(job.merged)


# ---- reading the index like one file ---------------------------------------------

def test_info_tables_and_inputs(job, pair):
    ix, mg = pair
    for key in ("states", "events", "arrows", "counters", "timelines", "categories",
                "ticks_per_second", "start", "end", "start_ticks", "end_ticks", "duration"):
        assert ix.info[key] == mg.info[key], key
    assert ix.info["complete"] and ix.info["format_read_version"] == 4
    assert ix.info["inputs"] == 5 and mg.info["inputs"] == 0
    assert ix.timelines.path.tolist() == mg.timelines.path.tolist()
    assert ix.timelines.kind.tolist() == mg.timelines.kind.tolist()
    assert ix.timelines.name[ix.timelines.process].tolist() == \
        mg.timelines.name[mg.timelines.process].tolist()
    cols = ["name", "kind", "group", "color"]
    pd.testing.assert_frame_equal(ix.categories[cols], mg.categories[cols])
    assert (ix.categories.name == "compute").sum() == 1  # unified by kind, name and group
    assert repr(ix).startswith("<slog.Reader")


def test_full_window_equals_the_merged_file(pair):
    ix, mg = pair
    a, b = ix.window(), mg.window()
    assert len(a) == ix.info["states"] + ix.info["events"] + ix.info["arrows"] + \
        ix.info["counters"]
    assert_same(named(ix, a), named(mg, b))
    # the big input is read from its file, the others from the index's copies
    inputs = ix.inputs.set_index("path")
    assert inputs.opened[BIG] and ix.files_opened >= 1


@pytest.mark.parametrize("window,kw", [
    ("10%:30%", {}),
    ("0:50%", {"kinds": "state,arrow"}),
    (None, {"timelines": "rank-3/process 1"}),
    ("20%:90%", {"categories": ["MPI_Wait", "read"]}),
])
def test_windows_with_args_and_filters(pair, window, kw):
    ix, mg = pair
    a = ix.window(window, args=True, **kw)
    b = mg.window(window, args=True, **kw)
    assert len(a) > 0
    assert_same(named(ix, a, True), named(mg, b, True))


@pytest.mark.parametrize("by", ["category", "timeline", "both"])
@pytest.mark.parametrize("window,kinds", [(None, None), ("20%:40%", "state,counter")])
def test_stats_equal_the_merged_file(pair, by, window, kinds):
    ix, mg = pair
    a = named_stats(ix, ix.stats(window, by=by, kinds=kinds))
    b = named_stats(mg, mg.stats(window, by=by, kinds=kinds))
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("name,kw", [
    ("MPI_Wait", {"after": "10%"}),
    ("MPI", {"before": "50%"}),
    ("read", {"after": "0", "timelines": "rank-5"}),
    (None, {"after": "33%", "kinds": "event"}),
    (None, {"before": "99%", "kinds": "counter"}),
    ("compute", {"after": "95%"}),
])
def test_find_equals_the_merged_file(pair, name, kw):
    ix, mg = pair
    a, b = ix.find(name, **kw), mg.find(name, **kw)
    assert len(a) == len(b) == 1
    pd.testing.assert_frame_equal(named(ix, a), named(mg, b))


def test_top_equals_the_merged_file(pair):
    ix, mg = pair
    a, b = ix.top(20, "5%:80%"), mg.top(20, "5%:80%")
    assert len(a) == 20
    pd.testing.assert_frame_equal(named(ix, a), named(mg, b))


@pytest.mark.parametrize("window", [None, "40%:45%"])
def test_pixels_counts_sum_to_the_drawables(pair, window):
    ix, mg = pair
    p = ix.window(window, pixels=50)
    full = mg.window(window)
    assert int(p["count"].sum()) == len(full)
    per_kind = p.groupby(p["of"].astype(str))["count"].sum()
    want = full.kind.astype(str).value_counts()
    assert {k: int(v) for k, v in per_kind.items() if v} == {k: int(v) for k, v in want.items()}


def test_pipit_and_hta_equal_the_merged_file(pair):
    ix, mg = pair

    def pipit(r):
        ev = r.to_pipit("10%:60%")
        path = r.timelines.path.to_numpy(dtype=object)
        enters = ev[ev["Event Type"] == "Enter"]
        partner = ev.loc[enters["_matching_event"]]
        assert (partner["Event Type"] == "Leave").all()
        assert (partner["Thread"].to_numpy() == enters["Thread"].to_numpy()).all()
        assert ev["Timestamp (ns)"].is_monotonic_increasing
        return sorted(zip(ev["Timestamp (ns)"], ev["Event Type"].astype(str),
                          ev["Name"].astype(str), path[ev["Thread"]], path[ev["Process"]],
                          ev["_depth"]))

    assert pipit(ix) == pipit(mg)

    def hta(r):
        df = r.to_hta("10%:60%")
        path = r.timelines.path.to_numpy(dtype=object)
        return sorted(zip(df.ts, df.dur, df.s_name, df.s_cat, path[df.tid], path[df.pid],
                          df.depth))

    assert hta(ix) == hta(mg)
    assert len(ix.to_hta()) == ix.info["states"]


# ---- the inputs --------------------------------------------------------------------

def test_inputs_frame(job, pair):
    ix, _ = pair
    inp = slog.open(job.index).inputs
    assert list(inp.columns) == ["path", "label", "state", "top_timeline", "offset", "start",
                                 "end", "states", "events", "arrows", "counters", "file_bytes",
                                 "opened", "embedded"]
    assert not inp.embedded.any()
    assert inp.path.tolist() == [os.path.basename(p) for p in job.inputs]  # relative to the index
    assert inp.label.tolist() == [os.path.basename(p)[:-5] for p in job.inputs]
    assert inp.state.astype(str).tolist() == ["ok"] * 5
    assert ix.timelines.name[inp.top_timeline].tolist() == inp.label.tolist()
    assert (ix.timelines.parent[inp.top_timeline] == -1).all()
    assert not inp.opened.any()  # opening the index opens no input
    for row, p in zip(inp.itertuples(), job.inputs):
        with slog.open(p) as r:
            shift = job.offsets.get(os.path.basename(p), 0)
            assert row.offset == shift
            assert (row.start, row.end) == (r.info["start"] + shift, r.info["end"] + shift)
            assert [row.states, row.events, row.arrows, row.counters] == \
                [r.info[k] for k in ("states", "events", "arrows", "counters")]
            assert row.file_bytes == os.path.getsize(p)
    assert inp.start.min() == ix.info["start"] and inp.end.max() == ix.info["end"]
    assert int(inp.states.sum()) == ix.info["states"]


def test_inputs_open_as_queries_need_them(job):
    r = slog.open(job.index)
    r.window(pixels=20)  # a zoomed-out view: the copies answer
    assert r.files_opened == 0 and not r.inputs.opened.any()
    r.window(timelines="rank-2", args=True)  # args come from the input file
    opened = r.inputs.set_index("path").opened
    assert opened["rank-2.slog"] and opened.sum() == 1 and r.files_opened == 1
    r.close()
    with pytest.raises(ValueError, match="closed"):
        r.inputs


def test_inputs_of_an_ordinary_file_and_a_missing_input(job, tmp_path):
    r = slog.open(job.merged)
    assert r.inputs.empty and r.files_opened == 0 and r.info["inputs"] == 0
    index = merge([job.inputs[0], str(tmp_path / "gone.slog")], tmp_path / "i.slog", "--index",
                  "--allow-missing")
    r = slog.open(index)
    inp = r.inputs
    assert inp.path[0] == job.inputs[0]  # outside the index's directory: absolute
    assert inp.label.tolist() == ["rank-1", "gone"]
    assert inp.state.astype(str).tolist() == ["ok", "missing"]
    assert inp.start.isna().tolist() == [False, True] and inp.end.isna().tolist() == [False, True]
    assert inp.states.tolist() == [20000, 0]
    assert r.info["inputs"] == 2 and len(r.window()) == slog.open(job.inputs[0]).info["states"] \
        + sum(slog.open(job.inputs[0]).info[k] for k in ("events", "arrows", "counters"))


def test_copy_is_embedded_and_needs_no_input(job, pair, tmp_path):
    """slog-merge --copy: every input copied whole; the file answers alone."""
    d = tmp_path / "in"
    d.mkdir()
    ins = []
    for p in job.inputs[:2]:
        q = d / os.path.basename(p)
        q.write_bytes(open(p, "rb").read())
        ins.append(str(q))
    copy = merge(ins, tmp_path / "copy.slog", "--copy")
    merged = merge(ins, tmp_path / "merged.slog")
    for q in ins:
        os.remove(q)
    r = slog.open(copy)
    assert r.inputs.embedded.all() and r.files_opened == 0
    key = ["kind", "start", "end", "depth", "value"]
    a = r.window(args=True).sort_values(key).reset_index(drop=True)
    b = slog.open(merged).window(args=True).sort_values(key).reset_index(drop=True)
    assert len(a) == len(b) and (a[key] == b[key]).all().all()
    assert r.files_opened == 0


def test_missing_input_is_named_relative_to_the_index(tmp_path, monkeypatch):
    d = tmp_path / "run"
    d.mkdir()
    synth(d / "a.slog", "-n", "100", "-t", "1")
    monkeypatch.chdir(tmp_path)
    merge(["run/a.slog", "run/b.slog"], "run/index.slog", "--index", "--allow-missing")
    assert slog.open(d / "index.slog").inputs.path.tolist() == ["a.slog", "b.slog"]


def test_changed_input_is_an_error(job, tmp_path):
    a, b = tmp_path / "a.slog", tmp_path / "b.slog"
    a.write_bytes(open(job.inputs[0], "rb").read())
    b.write_bytes(open(job.inputs[1], "rb").read())
    index = merge([str(a), str(b)], tmp_path / "i.slog", "--index")
    b.write_bytes(open(job.inputs[2], "rb").read())
    r = slog.open(index)
    with pytest.raises(slog.CorruptError, match="changed after the index was written"):
        r.stats()
    b.unlink()
    with pytest.raises(slog.FileError, match="b.slog"):
        slog.open(index).window(args=True)


# ---- dask --------------------------------------------------------------------------

KEY = ["kind", "timeline", "category", "start", "end", "depth", "timeline_to", "value"]


def canonical(df):
    """Rows in one order; kind and name stay categorical (both readers give
    them the same categories)."""
    df = df.reset_index(drop=True)
    return df.sort_values(KEY, kind="stable").reset_index(drop=True)


def test_dask_on_the_index_equals_pandas(job):
    slog_dask = pytest.importorskip("slog.dask")
    ddf = slog_dask.read(job.index, slices=6, args=["iter"])
    assert ddf.npartitions == 6 and ddf.known_divisions  # slices of the job's global time
    got = canonical(ddf.compute(scheduler="threads"))
    r = slog.open(job.index)
    want = canonical(r.window(args=["iter"]))
    cols = ["kind", "timeline", "timeline_to", "category", "name", "start", "end", "dur",
            "depth", "value", "args.iter"]
    assert_same(got[cols], want[cols])
    # file: the input of the row's timeline, as a glob of the inputs gives it
    owner = r.inputs.path.map(os.path.basename).to_numpy(dtype=object)[r._timeline_inputs()]
    assert (got.file.astype(str).to_numpy() == owner[got.timeline.to_numpy()]).all()
    assert list(ddf.file.cat.categories) == [os.path.basename(p) for p in job.inputs]


def test_dask_partitions_are_sorted_time_slices(job):
    slog_dask = pytest.importorskip("slog.dask")
    ddf = slog_dask.read(job.index, slices=4, columns=["start", "end"])
    d = ddf.divisions
    assert len(d) == 5 and d[0] == slog.open(job.index).info["start"]
    for k in range(ddf.npartitions):
        part = ddf.get_partition(k).compute(scheduler="sync")
        assert part.index.is_monotonic_increasing and (part.index == part.start).all()
        if len(part):
            assert d[k] <= part.start.min() and part.start.max() <= d[k + 1]


def test_dask_index_and_glob_agree_per_file_and_process(job):
    """Grouped by file and process, the index gives what the glob of its
    inputs gives (offsets move times, not durations).  A thread right under
    an input's top (rank-5, slog.Writer's) has that top, the input's label,
    as its process in the index; in its own file, itself."""
    slog_dask = pytest.importorskip("slog.dask")

    def total(paths, **kw):
        s = slog_dask.read(paths, kinds="state", **kw).groupby(["file", "process", "name"])
        s = s.dur.sum().compute()
        s = s[s != 0]  # a categorical groupby lists every combination
        s.index = s.index.set_levels([lv.astype(str) for lv in s.index.levels])
        return s.sort_index()

    a, b = total(job.index, slices=3), total(job.inputs)
    assert len(a) > 100
    pd.testing.assert_series_equal(a.groupby(level=["file", "name"]).sum(),
                                   b.groupby(level=["file", "name"]).sum())
    synth_rows = a.index.get_level_values("file") != "rank-5.slog"
    pd.testing.assert_series_equal(a[synth_rows], b[b.index.get_level_values("file") !=
                                                  "rank-5.slog"])
    assert set(a.xs("rank-5.slog").index.get_level_values("process")) == {"rank-5"}
    assert set(b.xs("rank-5.slog").index.get_level_values("process")) == {"main", "io"}


@pytest.mark.parametrize("how", ["directory", "glob", "list"])
def test_dask_job_directory_reads_each_drawable_once(job, how):
    """A job directory holds the index and its inputs: the inputs are left
    out (each drawable is read once, through the index)."""
    slog_dask = pytest.importorskip("slog.dask")
    paths = {"directory": str(job.dir), "glob": str(job.dir / "*.slog"),
             "list": [job.index] + job.inputs}[how]
    ddf = slog_dask.read(paths, window="30%:70%", slices=2)
    assert ddf.npartitions == 2
    got = canonical(ddf.compute(scheduler="sync"))
    want = canonical(slog.open(job.index).window("30%:70%"))
    assert_same(got[KEY], want[KEY])


def test_dask_pixels_and_columns_on_the_index(job):
    slog_dask = pytest.importorskip("slog.dask")
    ddf = slog_dask.read(job.index, pixels=40, columns=["kind", "of", "count", "file"])
    assert ddf.npartitions == 1
    got = ddf.compute()
    assert int(got["count"].sum()) == len(slog.open(job.merged).window())
