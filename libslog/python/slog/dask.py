# SPDX-License-Identifier: MIT
"""slog.dask.read: many libslog files (or slices of a big one) as one lazy
dask DataFrame.

    import slog.dask
    ddf = slog.dask.read("run/*.slog", window="10%:20%", args=["fhash"])
    ddf.groupby("process").dur.sum().compute()

One partition per (file, time slice).  Building the graph opens each file
once (attributes and tables, never a payload) to learn its clock, time
range and names; each partition is then read by a worker with its own
Reader, so the local threaded scheduler reads files in parallel (the GIL
is released during the C reads) and dask.distributed workers open the
files themselves.

A drawable belongs to the slice that holds its start (the first slice
also takes those that started before the window), so slices never repeat
or lose a row.  Each partition is sorted by start and indexed by it (the
index is named "ts"); when the partitions' time ranges are disjoint and
ordered (one file in slices, or files that follow each other in time),
the DataFrame has known divisions on ts, otherwise unknown ones.

Columns are those of Reader.window plus "file" (the file's base name) and
"process" (the name of the timeline's nearest process or rank ancestor),
both categorical; "name" has the categories of all files.

An index file (slog_index.h: slog-merge --index, the MPI writer's
index.slog) is one file here: its slices cut the job's global time (so the
divisions are known), each partition reads every input through the index,
ids are the index's global ones and "file" is the base name of the input a
row's timeline belongs to.  An input of an index given too (a job
directory, "run/*.slog") is left out: each drawable is read once, through
the index.
"""
import glob
import os

import numpy as np
import pandas as pd
import dask.dataframe as dd
from dask import delayed
from dask.base import tokenize

from . import _slog
from ._reader import OTHER_NAME, Reader
from ._select import UnknownName, kinds_mask

__all__ = ["read"]


def _expand(paths):
    if isinstance(paths, (str, os.PathLike)):
        paths = [os.fspath(paths)]
    out = []
    for p in paths:
        p = os.fspath(p)
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "*.slog"))))
        elif any(c in p for c in "*?["):
            out.extend(sorted(glob.glob(p)))
        else:
            out.append(p)
    if not out:
        raise FileNotFoundError(f"no libslog file matches {paths!r}")
    return out


def _window_args(window):
    if window is None:
        return None, None
    if isinstance(window, str):
        return window, None
    t0, t1 = window
    return t0, t1


def _plan_file(path, window, pixels, timelines, categories, kinds, slices):
    """The partitions of one file, and its (start, end) ns for divisions;
    none when the file holds no timeline or category of the names asked
    for (the last item is then that error, else None)."""
    with Reader(path) as r:
        names = list(r.categories.name)
        files = _file_names(path, r)
        covered = _index_inputs(path, r)
        try:
            q = r._query(*_window_args(window), pixels, timelines, categories, kinds)
        except UnknownName as e:  # another file may hold it ("Rank 0" of rank files)
            return [], [], names, files, covered, e
        tps = r.info["ticks_per_second"]
        lo_ns = r.info["start"] if r.info["start"] is not None else 0
        hi_ns = r.info["end"] if r.info["end"] is not None else 0
    a, b = q["t0"], q["t1"]
    n = 1 if pixels is not None else max(1, int(slices))
    step = max(1, -(-(b - a) // n))
    cuts = [a + k * step for k in range(n)] + [b]
    cuts = sorted(set(c for c in cuts if a <= c <= b))
    margin = max(1, -(-tps // 10**9))  # ticks of one ns, for clocks finer than 1 ns
    parts = []
    for k in range(len(cuts) - 1):
        sub = dict(q, t0=max(a, cuts[k] - (margin if k else 0)), t1=cuts[k + 1])
        own_lo = None if k == 0 else (cuts[k] * 10**9) // tps
        own_hi = None if k == len(cuts) - 2 else (cuts[k + 1] * 10**9) // tps
        # what one partition reads: a query in ticks, the ns range of starts it keeps
        parts.append((path, sub, own_lo, own_hi))
    bounds = [lo_ns] + [p[2] for p in parts[1:]] + [max(hi_ns, lo_ns)]
    return parts, bounds, names, files, covered, None


def _index_inputs(path, r):
    """Real paths of the inputs of an index (empty for an ordinary file):
    relative input paths count from the index's directory."""
    if r.info["inputs"] == 0:
        return set()
    here = os.path.dirname(os.path.abspath(path))
    return {os.path.realpath(os.path.join(here, p)) for p in r.inputs.path}


def _drop_covered(files, plans):
    """Files (and their plans) that no index among them covers: a job
    directory or glob that holds an index and its inputs reads each
    drawable once, through the index (its offsets applied)."""
    covered = set().union(*(plan[4] for plan in plans))
    keep = [os.path.realpath(f) not in covered for f in files]
    return ([f for f, k in zip(files, keep) if k], [p for p, k in zip(plans, keep) if k])


def _file_names(path, r):
    """The values of the "file" column: the file's base name, or for an
    index (slog_index.h) its inputs' base names, in input order."""
    if r.info["inputs"] == 0:
        return [os.path.basename(path)]
    return [os.path.basename(p) for p in r.inputs.path]


def _categorical(codes_of_timeline, categories, timeline):
    """A categorical of one row per timeline id: codes_of_timeline[timeline]
    (ids past the table clamp to its last entry; -1 is missing), keeping
    only the categories that occur, in their order."""
    codes = codes_of_timeline[np.minimum(timeline, len(codes_of_timeline) - 1)]
    used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
    renumber = np.append(np.cumsum(used) - 1, -1)  # the last entry: code -1 stays -1
    return pd.Categorical.from_codes(renumber[codes], categories=np.asarray(categories)[used])


def _file_column(path, r, timeline, all_files):
    """The "file" column of rows on these timelines: the file's base name,
    for an index the base name of the input each timeline belongs to."""
    code = {f: i for i, f in enumerate(all_files)}
    if r.info["inputs"] == 0:
        codes = np.full(len(timeline), code[os.path.basename(path)], dtype=np.int64)
        return pd.Categorical.from_codes(codes, categories=all_files)
    of_input = np.array([code[n] for n in _file_names(path, r)] + [-1], dtype=np.int64)
    owner = r._timeline_inputs()  # -1 (a timeline of no input): missing
    of_timeline = of_input[owner] if len(owner) else np.array([-1], dtype=np.int64)
    codes = of_timeline[np.minimum(timeline, len(of_timeline) - 1)]
    return pd.Categorical.from_codes(codes, categories=all_files)


def _process_column(r, timeline):
    """The "process" column: the name of each row's timeline's process,
    categories those that occur, sorted."""
    if len(r.timelines) == 0:
        return pd.Categorical([None] * len(timeline))
    proc_names = r.timelines.name.to_numpy()[r.timelines.process.to_numpy()]
    if any(not isinstance(n, str) for n in proc_names):
        return pd.Categorical(proc_names[np.minimum(timeline, len(proc_names) - 1)])
    names, codes = np.unique(proc_names.astype(str), return_inverse=True)
    return _categorical(codes.astype(np.int64), names, timeline)


def _sorted_by_start(df):
    """df in start order (stable), indexed by start as "ts".  Column by
    column: DataFrame.take would first copy every column of a dtype into
    one block, then copy them again."""
    start = df.start.to_numpy()
    if len(start) > 1 and not (start[1:] >= start[:-1]).all():
        order = np.argsort(start, kind="stable")
        data = {c: df[c].array.take(order) for c in df.columns}
        return pd.DataFrame(data, index=pd.Index(start[order], name="ts"), copy=False)
    df.index = pd.Index(start, name="ts")
    return df


def _read_part(part, cols, want_args, all_names, all_files):
    path, query, own_lo, own_hi = part
    with Reader(path, cache_bytes=_slog.ONE_PASS_CACHE_BYTES) as r:  # one pass
        read_cols = None if cols is None else list(dict.fromkeys(
            ["start", "timeline", "name"] + [c for c in cols if c not in ("file", "process")]))
        df = r._read(query, want_args, read_cols, threads=1)  # dask runs the partitions in parallel
        start = df.start.to_numpy()
        keep = np.ones(len(df), dtype=bool)
        if own_lo is not None:
            keep &= start >= own_lo
        if own_hi is not None:
            keep &= start < own_hi
        if not keep.all():
            df = df.take(np.flatnonzero(keep))
        timeline = df.timeline.to_numpy()
        df["name"] = df.name.cat.set_categories(all_names)
        df["file"] = _file_column(path, r, timeline, all_files)
        df["process"] = _process_column(r, timeline)
    df = _sorted_by_start(df)
    if cols is not None:
        df = df[list(cols)]
    return df


def read(paths, window=None, *, pixels=None, timelines=None, categories=None, kinds=None,
         columns=None, args=False, slices=1):
    """A lazy dask DataFrame of the window of every file.

    paths: a path, a glob ("run/*.slog"), a directory (its *.slog) or a list;
    an index file reads as one file (its inputs, if given too, are left out).
    window: None (whole files), "T0:T1" in slog-query's syntax (relative to
    each file's start) or (t0, t1) (str sides, or int absolute ns).
    slices: time slices per file (partitions of a big file; full detail
    only: with pixels each file is one partition).  columns, args, pixels,
    timelines, categories, kinds: as Reader.window, resolved per file: a
    name that a file does not hold ("Rank 3" of rank files) selects nothing
    there, and is an error only when no file holds it.
    """
    if isinstance(args, str) and args == "expand":  # columns only known after reading
        raise ValueError('args="expand": a dask frame needs its columns up front; '
                         'name the keys (args=["fhash", ...]) or take dicts (args=True)')
    files = _expand(paths)
    kinds_mask(kinds)  # fail early on a bad kind
    plans = [_plan_file(p, window, pixels, timelines, categories, kinds, slices) for p in files]
    files, plans = _drop_covered(files, plans)
    parts = [part for plan in plans for part in plan[0]]
    if not parts:  # no file holds the timelines or categories named
        raise plans[0][5]
    all_names = list(pd.unique(np.asarray([n for plan in plans for n in plan[2]], dtype=object)))
    if pixels is not None and OTHER_NAME not in all_names:  # previews and runs may fold categories
        all_names.append(OTHER_NAME)
    all_files = list(pd.unique(np.asarray([f for plan in plans for f in plan[3]], dtype=object)))
    spans = [(plan[1][i], plan[1][i + 1]) for plan in plans for i in range(len(plan[1]) - 1)]
    ordered = all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
    divisions = None
    if ordered:
        divisions = tuple([s[0] for s in spans] + [spans[-1][1]])
        ordered = all(divisions[i] <= divisions[i + 1] for i in range(len(divisions) - 1))
        divisions = divisions if ordered else None
    meta = _read_part((parts[0][0], dict(parts[0][1], t1=parts[0][1]["t0"] + 1), 0, 0),
                      columns, args, all_names, all_files)
    # one delayed task per partition, named by what it reads
    read_one = delayed(_read_part, pure=True)
    tasks = [read_one(p, columns, args, all_names, all_files,
                      dask_key_name=f"slog-read-{i}-{tok}")
             for i, p in enumerate(parts)
             for tok in [tokenize(p, columns, args, all_names, all_files)]]
    return dd.from_delayed(tasks, meta=meta, divisions=divisions, verify_meta=False)
