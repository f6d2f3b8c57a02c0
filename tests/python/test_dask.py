# SPDX-License-Identifier: MIT
"""slog.dask.read against pandas on the same files: one partition per
(file, slice), lazy, divisions when the slices allow, and the same rows
through the local scheduler and through dask.distributed."""
import pandas as pd
import pytest

import slog

dd = pytest.importorskip("dask.dataframe")
slog_dask = pytest.importorskip("slog.dask")

KEY = ["file", "start", "end", "timeline", "category", "kind", "depth"]


@pytest.fixture(scope="session")
def three_files(tmp_path_factory):
    from conftest import synth
    d = tmp_path_factory.mktemp("many")
    for seed in (1, 2, 3):
        synth(d / f"f{seed}.slog", "-n", "3000", "-t", "4", "-s", str(seed), "--state-args")
    return d


def pandas_reference(paths, window=None, **kw):
    frames = []
    for p in paths:
        df = slog.open(p).window(window, **kw)
        frames.append(df.assign(file=p.rsplit("/", 1)[-1]))
    return pd.concat(frames, ignore_index=True)


def canonical(df):
    df = df.reset_index(drop=True)
    df["file"] = df["file"].astype(str)
    df["kind"] = df["kind"].astype(str)
    df["name"] = df["name"].astype(str)
    return df.sort_values(KEY, kind="stable").reset_index(drop=True)


def test_glob_equals_pandas(three_files):
    ddf = slog_dask.read(str(three_files / "*.slog"), window="10%:60%", args=["iter"])
    assert ddf.npartitions == 3
    got = canonical(ddf.compute(scheduler="threads"))
    paths = sorted(str(p) for p in three_files.glob("*.slog"))
    want = canonical(pandas_reference(paths, "10%:60%", args=["iter"]))
    cols = ["file", "kind", "timeline", "category", "name", "start", "end", "dur", "depth",
            "value", "args.iter"]
    pd.testing.assert_frame_equal(got[cols], want[cols], check_dtype=False)
    assert set(got.process) <= set(slog.open(paths[0]).timelines.name)


def test_partitions_of_overlapping_files_are_indexed_by_start(three_files):
    """Each partition is sorted by start and indexed by it ("ts"), as
    documented, also when the files overlap in time (unknown divisions):
    those partitions used to keep node order on a RangeIndex."""
    ddf = slog_dask.read(str(three_files / "*.slog"))
    assert not ddf.known_divisions and ddf._meta.index.name == "ts"
    for i in range(ddf.npartitions):
        part = ddf.partitions[i].compute(scheduler="sync")
        assert part.index.name == "ts" and part.index.is_monotonic_increasing, i
        assert (part.index == part.start).all()
    assert len(ddf.compute(scheduler="sync")) == sum(
        len(slog.open(str(p)).window()) for p in three_files.glob("*.slog"))


def test_slices_of_one_file_have_divisions_and_lose_nothing(synth_file):
    ddf = slog_dask.read(synth_file, slices=5)
    assert ddf.npartitions == 5 and ddf.known_divisions
    got = ddf.compute(scheduler="sync")
    assert got.index.is_monotonic_increasing and got.index.name == "ts"
    assert (got.index == got.start).all()
    want = slog.open(synth_file).window()
    a = got.reset_index(drop=True).sort_values(["start", "end", "timeline", "category"])
    b = want.sort_values(["start", "end", "timeline", "category"])
    assert len(a) == len(b)
    assert (a.start.to_numpy() == b.start.to_numpy()).all()
    assert (a.end.to_numpy() == b.end.to_numpy()).all()
    # a division-aware selection reads only the partitions it needs
    d = ddf.divisions
    part = ddf.loc[d[1]:d[2] - 1]
    assert part.npartitions <= 2


def test_window_columns_and_laziness(three_files, tmp_path):
    ddf = slog_dask.read(sorted(three_files.glob("*.slog")), window=("0", "50%"),
                         columns=["start", "dur", "name", "file"])
    assert list(ddf.columns) == ["start", "dur", "name", "file"]
    total = ddf.dur.sum().compute()
    assert total > 0
    with pytest.raises(FileNotFoundError):
        slog_dask.read(str(tmp_path / "none*.slog"))


def test_distributed_local_cluster(three_files):
    """Worker processes open the files themselves (PYTHONPATH is inherited).
    In-process workers (processes=False) are not used: with Debian's dask
    and distributed 2022.12 every dataframe reduction fails there ("'Serialize'
    object is not callable"), slog or not."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        ddf = slog_dask.read(str(three_files / "*.slog"))
        got = client.compute(ddf.groupby("file").dur.sum()).result()
    paths = sorted(str(p) for p in three_files.glob("*.slog"))
    want = pandas_reference(paths).groupby("file").dur.sum()
    assert got.sort_index().to_dict() == want.sort_index().to_dict()


def test_process_file_and_name_columns_row_by_row(three_files):
    """Each row's process is its timeline's process name, file its file's base
    name and name its category's name; a partition's process categories
    are the names that occur in it, sorted; name carries every file's."""
    paths = sorted(str(p) for p in three_files.glob("*.slog"))
    ddf = slog_dask.read(paths, window="5%:95%")
    all_names = set()
    for p in paths:
        all_names |= set(slog.open(p).categories.name)
    for i, p in enumerate(paths):
        part = ddf.partitions[i].compute(scheduler="sync")
        r = slog.open(p)
        proc = r.timelines.name.to_numpy()[r.timelines.process.to_numpy()]
        tl = part.timeline.to_numpy()
        assert len(part) > 0
        assert (part.process.astype(str).to_numpy() == proc[tl]).all()
        assert list(part.process.cat.categories) == sorted(set(proc[tl]))
        assert (part.file.astype(str) == p.rsplit("/", 1)[-1]).all()
        names = r.categories.name.to_numpy()[part.category.to_numpy()]
        assert (part.name.astype(str).to_numpy() == names).all()
        assert set(part.name.cat.categories) == all_names


def test_a_name_some_files_lack_selects_nothing_there(tmp_path):
    """Rank files each hold their own "Rank N" timeline: timelines="Rank 1"
    over all of them reads rank 1's rows (it used to raise "no timeline
    named 'Rank 1'" at the first file without it); a name no file holds is
    still an error."""
    for rank in range(3):
        with slog.Writer(tmp_path / f"r{rank}.slog") as w:
            p = w.timeline(f"Rank {rank}", kind="process")
            t = w.timeline("main", parent=p)
            c = w.category("read" if rank == 1 else "write")
            for i in range(5 + rank):
                w.state(t, c, i * 100, i * 100 + 50)
    pattern = str(tmp_path / "*.slog")
    got = slog_dask.read(pattern, timelines="Rank 1").compute(scheduler="sync")
    assert len(got) == 6 and set(got.file.astype(str)) == {"r1.slog"}
    assert set(got.process.astype(str)) == {"Rank 1"}
    got = slog_dask.read(pattern, categories="write").compute(scheduler="sync")
    assert len(got) == 5 + 7 and set(got.name.astype(str)) == {"write"}
    with pytest.raises(ValueError, match="no timeline named 'Rank 9'"):
        slog_dask.read(pattern, timelines="Rank 9")


def test_args_expand_is_refused_with_the_alternatives(three_files):
    """The meta of args="expand" (read from an empty window) had no args
    columns while the partitions had them: ddf["args.iter"] failed."""
    with pytest.raises(ValueError, match=r"args=\["):
        slog_dask.read(str(three_files / "*.slog"), args="expand")
