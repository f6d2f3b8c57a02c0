# SPDX-License-Identifier: MIT
"""slog.open(path) -> Reader: a libslog file as pandas DataFrames.

Windows come back in interval form, one row per item, built from numpy
columns that libslog's batch read fills directly (no Python object per
item).  Times are int64 ns on the file's clock (ticks converted exactly,
floor(ticks * 1e9 / ticks_per_second)); window sides take slog-query's
syntax ("2ms", "10%") relative to the trace's start, or absolute ns.
"""
import errno
import os

import numpy as np
import pandas as pd

from . import _slog
from ._select import KIND_NAMES, TIMELINE_KINDS, NO_PARENT, Catalog, FileClock, kinds_mask

__all__ = ["Reader", "open"]

CATEGORY_OTHER = _slog.CATEGORY_OTHER
OTHER_NAME = "(other)"  # the name of CATEGORY_OTHER, as slog-query prints it
_ANY = _slog.ANY
_BY = {"category": 1, "timeline": 2, "both": 3}
INPUT_STATES = ("ok", "incomplete", "missing")


_ARROW_BIT = 1 << KIND_NAMES.index("arrow")
_COUNTER_BIT = 1 << KIND_NAMES.index("counter")


def _default_columns(q):
    """The columns a window reads when none are asked for (None: all).
    With pixels every column can carry something.  At full detail only
    drawables come, so of, count and inclusive would repeat kind, 1 and
    dur: they are left out; timeline_to is read only when arrows may come
    and value only when counters may (a states-only window: 38 bytes a row
    instead of 67)."""
    if q["resolution"] > 0:
        return None
    mask = q["kinds"] or ~0
    return (["kind", "timeline"] + (["timeline_to"] if mask & _ARROW_BIT else [])
            + ["category", "name", "start", "end", "dur", "depth"]
            + (["value"] if mask & _COUNTER_BIT else []))


# the columns of a window, in this order (doc/PYTHON.md, "Reading")
WINDOW_COLUMNS = ("kind", "timeline", "timeline_to", "category", "name", "start", "end", "dur",
                  "depth", "of", "count", "inclusive", "value", "exclusive", "min", "max",
                  "vmin", "vmax", "vsum")


def _is_args_column(name):
    return isinstance(name, str) and (name == "args" or name.startswith("args."))


def _check_args(args):
    """args: False/None, True, "expand", a key or a list of keys."""
    if args is None or isinstance(args, (bool, np.bool_, str)):
        return
    if isinstance(args, (list, tuple)) and all(isinstance(k, str) for k in args):
        return
    raise TypeError(f"args: True, False, 'expand', a key or a list of keys, not {args!r}")


def _check_columns(columns, args):
    """The column names asked for, as a list (None: the default ones).
    A str is one name; a name that is no column of a window is an error
    (args columns come with args=, and may then be named too)."""
    if columns is None:
        return None
    cols = [columns] if isinstance(columns, str) else list(columns)
    for c in cols:
        if c not in WINDOW_COLUMNS and not (args and _is_args_column(c)):
            hint = "; args columns come with args=" if _is_args_column(c) else ""
            raise ValueError(f"columns: no column {c!r} in a window (use "
                             f"{', '.join(WINDOW_COLUMNS)}{hint})")
    return cols


def _categorical(codes, names):
    return pd.Categorical.from_codes(codes, categories=list(names))


def _int_column(values):
    """An exact column of int args with gaps (None): nullable Int64, or
    UInt64 above int64; None when the values are not all ints.  (pandas
    makes float64 of ints with gaps: ids above 2**53 lose digits.)"""
    present = [v for v in values if v is not None]
    if not present or not all(type(v) is int for v in present):
        return None
    lo, hi = min(present), max(present)
    return pd.array(values, dtype="Int64" if lo >= -2**63 and hi < 2**63 else "UInt64")


def _stats_values(raw):
    """The value columns of stats rows: what a kind has no value of is
    missing (slog-query leaves it out) instead of 0: durations are states'
    only, means states' and counters', vmin/vmax/vsum counters' only."""
    kind = np.asarray(raw["kind"])
    state = kind == KIND_NAMES.index("state")
    counter = kind == KIND_NAMES.index("counter")
    out = {"count": raw["count"]}
    for key in ("inclusive", "exclusive", "min", "max"):
        out[key] = pd.arrays.IntegerArray(np.asarray(raw[key], dtype=np.int64), ~state)
    out["mean"] = np.where(state | counter, raw["mean"], np.nan)
    for key in ("vmin", "vmax", "vsum"):
        out[key] = np.where(counter, raw[key], np.nan)
    return out


def open(path, *, cache_bytes=0):  # noqa: A001 - the module's entry point
    """Open a libslog file for reading (see Reader)."""
    return Reader(path, cache_bytes=cache_bytes)


class Reader:
    """A libslog file open for reading.

    Attributes: path, info (dict), timelines and categories (DataFrames);
    for an index file (slog_index.h, read like one file) also inputs.
    One Reader is used by one thread at a time (calls from several threads
    queue on its lock); open one Reader per thread to read in parallel.
    """

    def __init__(self, path, *, cache_bytes=0):
        if isinstance(cache_bytes, bool) or not isinstance(cache_bytes, (int, np.integer)) or \
                not 0 <= cache_bytes < 2**64:
            raise ValueError(f"cache_bytes: an int 0..2**64-1 (0: the library's default), "
                             f"not {cache_bytes!r}")
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        self.path = path
        self._r = _slog.Reader(path, cache_bytes)
        self.info = self._make_info()
        self._clock = FileClock(self.info)
        tl, cat = self._r.tables()
        self._catalog = Catalog(tl["name"], tl["parent"], cat["name"])
        self.timelines = self._timeline_frame(tl)
        self.categories = self._category_frame(cat)
        names = pd.unique(np.asarray(cat["name"], dtype=object))
        self._name_list = list(names)
        index = {n: i for i, n in enumerate(self._name_list)}
        self._name_codes = np.array([index[n] for n in cat["name"]] + [-1], dtype=np.int32)
        ncat = len(self._name_codes) - 1
        # every category its own name, few of them: an id is its name's code
        self._ids_are_codes = ncat < 127 and bool((self._name_codes[:-1] == np.arange(ncat)).all())
        # up to 127 names: the library makes the name codes beside the rows it reads
        self._name_table = self._name_codes.astype(np.int8) if len(names) <= 127 else None

    # ---- metadata -------------------------------------------------------------

    def _make_info(self):
        info = self._r.info()
        tps = info["ticks_per_second"]
        info["path"] = self.path
        if info["start_ticks"] <= info["end_ticks"]:
            info["start"] = (info["start_ticks"] * 10**9) // tps
            info["end"] = (info["end_ticks"] * 10**9) // tps
        else:
            info["start"] = info["end"] = None
        info["duration"] = None if info["start"] is None else info["end"] - info["start"]
        info["inputs"] = len(self._r.index_inputs()["path"])  # 0: not an index
        return info

    def _timeline_frame(self, tl):
        n = len(tl["name"])
        cat = self._catalog
        parent = tl["parent"].astype(np.int64)
        parent[tl["parent"] == NO_PARENT] = -1
        process = np.array(self._processes(tl["kind"].tolist()), dtype=np.int64)
        return pd.DataFrame({
            "id": np.arange(n, dtype=np.uint32),
            "name": tl["name"],
            "kind": _categorical(tl["kind"].astype(np.int8), TIMELINE_KINDS),
            "parent": parent,
            "sort_key": tl["sort_key"],
            "path": cat.paths(),
            "process": process,
        })

    def _processes(self, kinds):
        """_process_of of every timeline, each from its parent's (one pass;
        the walk per timeline took 0.57 s for 10^5 timelines)."""
        cat = self._catalog
        n = len(kinds)
        out, steps = [-1] * n, [0] * n  # steps: how far up out[i] is
        for i in range(n):
            chain, j = [], i
            while out[j] < 0 and not (kinds[j] in (2, 7) or cat._is_top(j)) and len(chain) < 64:
                chain.append(j)
                j = cat.tl_parents[j]
            if out[j] < 0 and (kinds[j] in (2, 7) or cat._is_top(j)):
                out[j] = j
            for c in reversed(chain):
                p = cat.tl_parents[c]
                if out[p] < 0 or steps[p] >= 63:  # a cycle or a deep chain
                    out[c], steps[c] = self._process_of(c, kinds), 64
                else:
                    out[c], steps[c] = out[p], steps[p] + 1
        return out

    def _process_of(self, i, kinds):
        """The nearest process or rank timeline at or above i, else the top."""
        cat = self._catalog
        for _ in range(64):
            if kinds[i] in (2, 7) or cat._is_top(i):  # process, rank
                return i
            i = cat.tl_parents[i]
        return i

    def _category_frame(self, c):
        n = len(c["name"])
        rgba = c["rgba"]
        return pd.DataFrame({
            "id": np.arange(n, dtype=np.uint32),
            "name": c["name"],
            "kind": _categorical(c["kind"].astype(np.int8), KIND_NAMES),
            "color": [f"#{int(v):08x}" for v in rgba],
            "rgba": rgba,
            "group": c["group"],
        })

    @property
    def inputs(self):
        """The inputs of an index file (slog_index.h), one row each in input
        order; no rows for an ordinary file.  Read afresh on each access
        ("opened" changes as queries open input files).

        Columns: path (as the index names it: relative to the index's
        directory, or absolute), label (the name of its top timeline),
        state (ok, incomplete, missing), top_timeline (global id, -1 when
        none), offset (ns added to its times), start and end (ns, offset
        applied; <NA> when it has no drawable), states, events, arrows,
        counters, file_bytes (its size when indexed), opened (its file is
        in the reader's pool now), embedded (copied whole by slog-merge
        --copy: its file is never read).
        """
        raw = self._r.index_inputs()
        top = raw["top_timeline"].astype(np.int64)
        top[raw["top_timeline"] == NO_PARENT] = -1
        names = np.asarray(self.timelines.name, dtype=object)
        empty = (raw["states"] + raw["events"] + raw["arrows"] + raw["counters"]) == 0
        return pd.DataFrame({
            "path": pd.Series(raw["path"], dtype=object),
            "label": [names[t] if 0 <= t < len(names) else None for t in top],
            "state": _categorical(raw["state"].astype(np.int8), INPUT_STATES),
            "top_timeline": top,
            "offset": raw["offset"],
            "start": pd.Series(raw["start"], dtype="Int64").mask(empty),
            "end": pd.Series(raw["end"], dtype="Int64").mask(empty),
            **{k: raw[k] for k in ("states", "events", "arrows", "counters", "file_bytes",
                                   "opened", "embedded")},
        })

    @property
    def files_opened(self):
        """Input files this reader of an index has opened so far (0 for an
        ordinary file); the pool closes the least recently used."""
        return self._r.index_inputs()["files_opened"]

    def _timeline_inputs(self):
        """Per timeline id, the position of the index input it belongs to
        (its top timeline's), -1 when none or for an ordinary file."""
        raw = self._r.index_inputs()
        owner = np.full(len(self.timelines), -1, dtype=np.int64)
        for k, top in enumerate(raw["top_timeline"].tolist()):
            if top < len(owner):
                owner[top] = k
        top_of = np.array([self._top_of(i) for i in range(len(owner))], dtype=np.int64)
        return owner[top_of] if len(owner) else owner

    def _top_of(self, i):
        cat = self._catalog
        for _ in range(64):
            if cat._is_top(i):
                break
            i = cat.tl_parents[i]
        return i

    def close(self):
        """Close the file; DataFrames already made stay valid."""
        self._r.close()

    @property
    def closed(self):
        return self._r.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        i = self.info
        return (f"<slog.Reader {self.path!r}: {i['states']} states, {i['events']} events, "
                f"{i['arrows']} arrows, {i['counters']} counters, {i['timelines']} timelines>")

    # ---- queries ----------------------------------------------------------------

    def _names(self, category):
        """Categorical of category names for an id column; OTHER (the
        previews' and runs' folded categories) is "(other)", as slog-query
        names it, a category the frame has only when some row is one."""
        if self._ids_are_codes:  # one pass: ids as int8 codes, OTHER (2**32 - 1) wraps to -1
            codes = np.asarray(category).astype(np.int8)
        else:
            codes = self._name_codes.take(np.minimum(category, len(self._name_codes) - 1))
        other = codes < 0
        if not other.any():
            return _categorical(codes, self._name_list)
        names = self._name_list
        if OTHER_NAME not in names:
            names = names + [OTHER_NAME]
        return _categorical(np.where(other, names.index(OTHER_NAME), codes), names)

    def _query(self, t0, t1, pixels, timelines, categories, kinds):
        a, b = self._clock.window(t0, t1)
        return dict(t0=a, t1=b, resolution=self._clock.resolution(a, b, pixels),
                    kinds=kinds_mask(kinds), timelines=self._catalog.timelines(timelines),
                    categories=self._catalog.categories(categories))

    def window(self, t0=None, t1=None, *, pixels=None, timelines=None, categories=None,
               kinds=None, args=False, columns=None, threads=None):
        """The items of the window [t0, t1) as a DataFrame in interval form.

        Columns: kind, timeline, timeline_to, category, name, start, end,
        dur, depth, value (see doc/PYTHON.md; timeline_to only when arrows
        may come, value only when counters may); with pixels, previews and
        pixel runs come as their own kinds and the columns of, count,
        inclusive, exclusive, min, max, vmin, vmax, vsum are added; with
        args=True an args column of dicts (None where a drawable has
        none), with args="expand" one column per key ("args.KEY").
        columns: the column names to read (less memory), any of those
        above (of, count, inclusive at full detail too).
        threads: how many threads read a full-detail window (no pixels, no
        args): None = one per core (at most 4) when the window holds 2**19
        items or more, 1 = one thread; rows then come slice after slice
        in time (each slice in node order) instead of in node order.
        """
        q = self._query(t0, t1, pixels, timelines, categories, kinds)
        return self._read(q, args, columns, threads)

    def _read(self, q, args=False, columns=None, threads=None):
        """The DataFrame of a resolved query (ticks, ids, mask: see _query)."""
        _check_args(args)
        cols = _check_columns(columns, args)
        cols = _default_columns(q) if cols is None else cols
        want = None
        if cols is not None:
            want = set(c for c in cols if c in WINDOW_COLUMNS)
            if "name" in want:
                want.add("category")
            if "dur" in want:
                want.update(("start", "end"))
            if not want:  # only args asked for: one byte a row gives the row count
                want.add("kind")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads: a count of 1 or more, or None (got {threads!r})")
        coded = self._name_table is not None and (want is None or "name" in want)
        keys = None  # args as keys: only those are decoded (a JSON arg costs a json.loads)
        if args is not True and args != "expand" and args:
            keys = {args} if isinstance(args, str) else set(args)
        raw = self._r.window_columns(**q, columns=None if want is None else tuple(want),
                                     details=q["resolution"] > 0, args=bool(args),
                                     threads=threads or 0,
                                     name_codes=self._name_table if coded else None,
                                     arg_keys=keys)
        return self._frame(raw, args, cols)

    def _frame(self, raw, args, cols):
        data = {}
        rows = len(next(iter(raw.values()))) if raw else 0
        for key in WINDOW_COLUMNS:
            if key == "name":
                if "name_code" in raw:
                    data["name"] = _categorical(raw["name_code"], self._name_list)
                elif "category" in raw:
                    data["name"] = self._names(raw["category"])
            elif key in ("kind", "of"):
                if key in raw:
                    data[key] = _categorical(raw[key], KIND_NAMES)
            elif key in raw:
                data[key] = raw[key]
        if cols is not None:
            data = {k: data[k] for k in cols if k in data}
        frame = pd.DataFrame(data, index=pd.RangeIndex(rows), copy=False)
        if args:
            frame = self._add_args(frame, raw["args"], args)
        return frame

    @staticmethod
    def _add_args(frame, values, how):
        if how is True:
            frame["args"] = pd.Series(values, index=frame.index, dtype=object)
            return frame
        if how == "expand":
            if len(values) == 0:  # pandas makes no frame of no records
                return frame
            table = pd.DataFrame.from_records([v if v is not None else {} for v in values],
                                              index=frame.index)
            for key in table.columns:
                if table[key].dtype.kind in "fO":  # ints with gaps: pandas made floats
                    exact = _int_column([v.get(key) if v is not None else None for v in values])
                    if exact is not None:
                        table[key] = pd.Series(exact, index=frame.index)
            return pd.concat([frame, table.add_prefix("args.")], axis=1)
        keys = [how] if isinstance(how, str) else list(how)
        for k in keys:
            frame["args." + k] = pd.Series([v.get(k) if v is not None else None for v in values],
                                           index=frame.index, dtype=object)
        return frame

    def stats(self, t0=None, t1=None, *, by="category", timelines=None, categories=None,
              kinds=None):
        """Exact statistics of the window, one row per group (slog_stats.h).

        by: "category", "timeline" or "both".  Columns: kind, category and
        name and/or timeline, count, inclusive, exclusive, min, max (Int64
        ns, states only, <NA> for other kinds), mean (states: ns; counters:
        the values'; NaN for events and arrows), vmin, vmax, vsum (counters
        only, NaN for other kinds).
        """
        if by not in _BY:
            raise ValueError(f"by: unknown grouping '{by}' (use category, timeline or both)")
        q = self._query(t0, t1, None, timelines, categories, kinds)
        raw = self._r.stats(q["t0"], q["t1"], _BY[by], q["kinds"] & 0xF, q["timelines"],
                            q["categories"])
        data = {"kind": _categorical(raw["kind"], KIND_NAMES)}
        if by in ("category", "both"):
            data["category"] = raw["category"]
            data["name"] = self._names(raw["category"])
        if by in ("timeline", "both"):
            data["timeline"] = raw["timeline"]
        return pd.DataFrame({**data, **_stats_values(raw)}, copy=False)

    def _search_filters(self, name, timelines, categories):
        ids = self._catalog.categories(categories)
        contains = None
        if name is not None:
            if categories is not None:
                raise ValueError("find: name cannot be combined with categories")
            ids, contains = self._catalog.find_categories(name)
        return self._catalog.timelines(timelines), ids, contains

    def find(self, name=None, *, after=None, before=None, timelines=None, categories=None,
             kinds=None):
        """The first drawable after T (or the last before T) of category
        `name` (exact, else names containing it), as a 0- or 1-row DataFrame.
        T: slog-query text ("2ms", "10%") or absolute ns."""
        if (after is None) == (before is None):
            raise ValueError("find: give exactly one of after= or before=")
        at = self._clock.side(after if after is not None else before, False,
                              "after" if after is not None else "before")
        tl, cat, contains = self._search_filters(name, timelines, categories)
        hit = self._r.find(at, after is not None, kinds_mask(kinds) & 0xF, tl, cat, contains)
        rows = [hit] if hit is not None else []
        cols = ["kind", "timeline", "timeline_to", "category", "start", "end", "depth", "value"]
        a = {k: np.array([r[i] for r in rows], dtype=t) for i, (k, t) in enumerate(zip(
            cols, [np.int8, np.uint32, np.uint32, np.uint32, np.int64, np.int64, np.uint32,
                   np.float64]))}
        return self._simple_frame(a)

    def _simple_frame(self, a):
        data = {}
        for k in ("kind", "timeline", "timeline_to", "category", "name", "start", "end", "dur",
                  "depth", "value"):
            if k == "kind" and "kind" in a:
                data[k] = _categorical(a["kind"], KIND_NAMES)
            elif k == "name":
                data[k] = self._names(a["category"])
            elif k == "dur":
                data[k] = a["end"] - a["start"]
            elif k in a:
                data[k] = a[k]
        return pd.DataFrame(data, copy=False)

    def top(self, n=10, t0=None, t1=None, *, name=None, timelines=None, categories=None):
        """The n longest states overlapping the window, longest first."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 10**6:
            raise ValueError(f"top: n must be an int in 1..1000000, got {n!r}")
        a, b = self._clock.window(t0, t1)
        tl, cat, contains = self._search_filters(name, timelines, categories)
        raw = self._r.top(a, b, int(n), tl, cat, contains)
        raw["kind"] = np.zeros(len(raw["start"]), dtype=np.int8)
        raw["timeline_to"] = raw["timeline"]
        raw["value"] = np.zeros(len(raw["start"]))
        return self._simple_frame(raw)

    # ---- other shapes ---------------------------------------------------------------

    def to_pipit(self, t0=None, t1=None, **kwargs):
        """pipit's event form (Timestamp (ns), Event Type, Name, Process,
        Thread, ...) of the window's states and events; messages=True adds
        the MPI messages as MpiSend/MpiRecv and numbers Process by rank
        (slog.adapters)."""
        from .adapters import to_pipit
        return to_pipit(self, t0, t1, **kwargs)

    def to_hta(self, t0=None, t1=None, **kwargs):
        """Holistic Trace Analysis's interval form (ts, dur, name, cat, pid,
        tid, stream, ...) of the window's states (slog.adapters)."""
        from .adapters import to_hta
        return to_hta(self, t0, t1, **kwargs)
