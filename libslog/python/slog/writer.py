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


class Writer:
    """A libslog file being written (one thread at a time)."""

    def __init__(self, path, *, ticks_per_second=10**9, leaf_bytes=0, fanout=0, lz4_level=0,
                 creator=None, time_bins=False):
        self.path = os.fspath(path)
        self._w = _slog.Writer(self.path, _ticks_per_second(ticks_per_second), leaf_bytes,
                               fanout, lz4_level, creator, bool(time_bins))
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
        (arrows' target).  The rows go in order through one C loop; the
        first rejected row raises (slog.ArgumentError naming it).  Returns
        the number of rows appended."""
        cols = dict(frame.items()) if frame is not None else {}
        cols.update(columns)
        n = len(cols["timeline"])
        kind = cols.get("kind")
        if kind is None:
            kind = np.zeros(n, dtype=np.int8)
        else:
            kind = np.asarray(kind)
            if kind.dtype.kind in "OUS" or str(kind.dtype) == "category":
                kind = np.array([KIND_NAMES.index(str(k)) for k in kind], dtype=np.int8)
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
