# SPDX-License-Identifier: MIT
"""slog.import_trace: other tools' traces into a libslog file, through the
import library (include/slog/slog_import.h)."""
import os

from . import _slog

__all__ = ["import_trace", "formats"]

_UNITS = {None: 0, "ns": 1, "us": 2, "ms": 3, "s": 4}
_NO_REORDER, _NO_FAST_SCAN, _RECORDER_RAW, _RECORDER_STREAM = 0x1, 0x2, 0x4, 0x8


def formats():
    """The input formats this build imports, in probe order."""
    return list(_slog.import_formats())


def import_trace(inputs, output, *, format=None, sort_window=None, reorder=True,  # noqa: A002
                 time_unit=None, fast_scan=True, recorder_raw=False, recorder_stream=False):
    """Import one or more inputs (paths: Chrome JSON, DFTracer .pfw[.gz], OTF2
    archives, Recorder folders, MPE CLOG2, SLOG-2; the format is detected per
    input unless `format` names one) into a new libslog file `output`.

    Returns the import summary as a dict: complete, output_created, formats
    (per input), counts (what, imported, skipped, repaired per record kind),
    imported, skipped, repaired, warnings, input_bytes, seconds and
    diagnostics (the first 100 warnings: severity, source, line, column,
    offset, message).  sort_window: records held back to reorder the
    input by time (None: 1000000; reorder=False: none).  A failed import
    raises slog.Error (the library's message, with the input and byte)
    whose `summary` attribute holds the summary so far; the output is then
    left marked incomplete.
    """
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    inputs = [os.fsdecode(p) for p in inputs]
    for p in inputs:
        if p != "-" and not os.path.exists(p):
            raise FileNotFoundError(2, "No such file or directory", p)
    if sort_window is not None and (isinstance(sort_window, bool) or
                                    not isinstance(sort_window, int) or
                                    not 1 <= sort_window < 2**64):
        raise ValueError(f"sort_window: records held back to reorder by time, an int of 1 or "
                         f"more (None: 1000000; reorder=False: none), not {sort_window!r}")
    if time_unit not in _UNITS:
        raise ValueError(f"time_unit: one of ns, us, ms, s (or None), not {time_unit!r}")
    flags = ((0 if reorder else _NO_REORDER) | (0 if fast_scan else _NO_FAST_SCAN)
             | (_RECORDER_RAW if recorder_raw else 0) | (_RECORDER_STREAM if recorder_stream else 0))
    return _slog.import_trace(inputs, os.fspath(output), format, int(sort_window or 0),
                              _UNITS[time_unit], flags)
