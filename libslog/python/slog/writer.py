# SPDX-License-Identifier: MIT
"""slog.Writer: write a libslog file from Python.

    with slog.Writer("out.slog") as w:
        p = w.timeline("rank 0", kind="process")
        t = w.timeline("main", parent=p)
        c = w.category("compute")
        w.state(t, c, 0, 1500, args={"iter": 3})
        w.begin(t, c, 2000); w.end(t, 2500)        # nesting gives the depth
        w.append(df)                               # columns, one C loop

Times are ticks of the file's clock (ticks_per_second, default 1e9: ns).
Leaving the `with` block finishes the file (marks it complete); when an
exception escapes, the writer is released without finishing, so the file
stays marked incomplete (it still opens and yields what was written).
"""
import errno
import os

import numpy as np

from . import _slog
from ._select import KIND_NAMES, TIMELINE_KINDS

__all__ = ["Writer"]

NO_PARENT = _slog.NO_PARENT


def _kind_code(kind, names, what):
    if isinstance(kind, (int, np.integer)):
        return int(kind)
    if kind not in names:
        raise ValueError(f"{what}: unknown kind '{kind}' (use {', '.join(names)})")
    return names.index(kind)


def _rgba(color):
    """0xRRGGBBAA from None (pick from the name), an int, or "#rrggbb[aa]"."""
    if color is None:
        return 0
    if isinstance(color, (int, np.integer)):
        return int(color)
    text = str(color).lstrip("#")
    if len(text) == 6:
        text += "ff"
    if len(text) != 8:
        raise ValueError(f"color: expected '#rrggbb' or '#rrggbbaa', got '{color}'")
    return int(text, 16)


def _ticks_per_second(value):
    """The clock's rate, an int in 1 .. 2**64 - 1 (the C side takes any
    int modulo 2**64 and 0 as its default, 10**9)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"ticks_per_second: an int, not {type(value).__name__}")
    if not 1 <= int(value) < 2**64:
        raise ValueError(f"ticks_per_second: 1 .. 2**64 - 1, not {int(value)}")
    return int(value)


_U32 = (0, 2**32 - 1)
_I64 = (-2**63, 2**63 - 1)
# append's integer columns and their ranges (numpy's forced cast into the C
# arrays would wrap or truncate: timeline 2**32 + 1 became 1, start 1.7 became 1)
_INT_COLUMNS = {"timeline": _U32, "category": _U32, "start": _I64, "end": _I64,
                "depth": _U32, "timeline_to": _U32}


def _int_column(values, name, lo, hi):
    """values as an int64 array, each an integer in lo..hi, else an error
    naming the first bad row."""
    a = np.asarray(values)
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.float64 if any(isinstance(v, float) for v in a) else np.int64)
        except (TypeError, ValueError, OverflowError) as e:
            raise ValueError(f"append: {name}: integers, not {e}") from None
    if a.dtype.kind not in "iuf" or a.ndim != 1:
        raise TypeError(f"append: {name}: a 1-d column of integers, not {a.dtype} of {a.ndim} "
                        f"dimensions")
    if a.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            bad = ~(np.isfinite(a) & (a == np.floor(a)) & (a >= lo) & (a < hi + 1))
    else:  # bounds in the array's own type: uint64 against a Python int compares as float
        low = a.dtype.type(max(lo, 0)) if a.dtype.kind == "u" else a.dtype.type(
            max(lo, np.iinfo(a.dtype).min))
        high = a.dtype.type(min(hi, np.iinfo(a.dtype).max))
        out = a.size and (a.min() < low or a.max() > high)
        bad = (a < low) | (a > high) if out else None
    if bad is not None and bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"append: {name} of row {row} is {a[row]!r}, not an integer in "
                         f"{lo}..{hi}")
    return a


def _kind_column(kind, n):
    """Kind codes 0..3 (state, event, arrow, counter) from names or codes."""
    if kind is None:
        return np.zeros(n, dtype=np.int8)
    kind = np.asarray(kind)
    if kind.dtype.kind in "OUS":
        names = KIND_NAMES[:4]
        unknown = [k for k in set(map(str, kind)) if k not in names]
        if unknown:
            raise ValueError(f"append: kind '{unknown[0]}' (use {', '.join(names)})")
        return np.array([names.index(str(k)) for k in kind], dtype=np.int8)
    return _int_column(kind, "kind", 0, 3)


class Writer:
    """A libslog file being written (one thread at a time)."""

    def __init__(self, path, *, ticks_per_second=10**9, leaf_bytes=0, fanout=0, lz4_level=0,
                 creator=None, time_bins=False, overwrite=True):
        """overwrite=False: raise FileExistsError when a file is at path (as
        open(path, "x")); the file is then never replaced, even one that
        appears while the new one is made."""
        self.path = os.fspath(path)
        if not overwrite and os.path.lexists(self.path):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), self.path)
        self._w = _slog.Writer(self.path, _ticks_per_second(ticks_per_second), leaf_bytes,
                               fanout, lz4_level, creator, bool(time_bins), not overwrite)
        self.finished = False

    def timeline(self, name, *, parent=None, kind="thread", sort_key=0):
        """Define a timeline (parent: an id or None); returns its id."""
        return self._w.add_timeline(name, NO_PARENT if parent is None else int(parent),
                                    _kind_code(kind, TIMELINE_KINDS, "timeline"), int(sort_key))

    def rename_timeline(self, id, name=None, sort_key=0):  # noqa: A002
        return self._w.set_timeline(int(id), name, int(sort_key))

    def category(self, name, *, kind="state", color=None, group=None):
        """Define a category (kind: state, event, arrow, counter); returns its id."""
        return self._w.add_category(name, _kind_code(kind, KIND_NAMES[:4], "category"),
                                    _rgba(color), group)

    def state(self, timeline, category, start, end, *, depth=0, args=None):
        self._w.state(timeline, category, start, end, depth, args)

    def event(self, timeline, category, time, *, args=None):
        self._w.event(timeline, category, time, args)

    def arrow(self, category, source, target, start, end, *, args=None):
        self._w.arrow(category, source, target, start, end, args)

    def counter(self, timeline, category, time, value):
        self._w.counter(timeline, category, time, float(value))

    def begin(self, timeline, category, time, *, args=None):
        """Begin a state nested in the states open on the timeline."""
        self._w.begin(timeline, category, time, args)

    def end(self, timeline, time):
        """End the innermost open state of the timeline."""
        self._w.end(timeline, time)

    def open_depth(self, timeline):
        return self._w.open_depth(timeline)

    def append(self, frame=None, **columns):
        """Append drawables from columns (a DataFrame or dict, or keyword
        arrays): kind (names or codes 0..3; default state), timeline,
        category, start, end (default start), depth, value, timeline_to
        (arrows' target).  Integer columns must hold integers in their
        range (uint32 ids, int64 times; floats only when whole): a bad value
        raises ValueError naming its row before any row is written.  The
        rows go in order through one C loop; the first row the library
        rejects raises (slog.ArgumentError naming it), the rows before it
        stay appended.  Returns the number of rows appended."""
        cols = dict(frame.items()) if frame is not None else {}
        cols.update(columns)
        n = len(cols["timeline"])
        kind = _kind_column(cols.get("kind"), n)
        for name, (lo, hi) in _INT_COLUMNS.items():
            if cols.get(name) is not None:
                cols[name] = _int_column(cols[name], name, lo, hi)
        return self._w.append_columns(kind, cols["timeline"], cols["category"], cols["start"],
                                      cols.get("end"), cols.get("depth"), cols.get("value"),
                                      cols.get("timeline_to"))

    def flush(self):
        """Write out what was appended so far (call on a timer, not per drawable)."""
        self._w.flush()

    def finish(self):
        """Seal the file: mark it complete.  Then close()."""
        self._w.finish()
        self.finished = True

    def close(self):
        """Release the writer; without finish() the file stays marked incomplete."""
        self._w.close()

    @property
    def closed(self):
        return self._w.closed

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None and not self._w.closed and not self.finished:
                self.finish()
        finally:
            self.close()
        return False
