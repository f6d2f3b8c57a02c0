# SPDX-License-Identifier: MIT
"""slog: libslog traces as pandas and dask DataFrames.

    import slog
    r = slog.open("trace.slog")
    df = r.window("10%:20%")            # interval form, int64 ns
    df.groupby("name").dur.sum()
    r.stats("2ms:3ms", by="timeline")   # exact, from the tree's previews
    r.to_pipit(); r.to_hta()            # pipit's and HTA's DataFrame shapes

    with slog.Writer("out.slog") as w:  # finished on exit (incomplete on an exception)
        t = w.timeline("main")
        c = w.category("compute")
        w.state(t, c, 0, 1000)

    import slog.dask                    # many files -> one dask DataFrame
    ddf = slog.dask.read("run/*.slog")

    slog.import_trace(["a.pfw.gz", "b.pfw.gz"], "run.slog")  # -> summary dict

    slog.io.summary(r)                  # per file: calls, bytes read/written, time

    @slog.trace                         # tracing Python code (slog.tracing)
    def step(): ...
    with slog.region("load", file="a.h5") as r: r.annotate(bytes=n)

Errors raise slog.Error subclasses with the library's message (file,
byte, what was expected): FormatError, CorruptError, VersionError,
FileError (an OSError), ArgumentError (a ValueError), StateError.
See doc/PYTHON.md.
"""
from . import _slog
from ._slog import (  # noqa: F401
    ArgumentError,
    CorruptError,
    Error,
    FileError,
    FormatError,
    OutOfMemoryError,
    ParseError,
    StateError,
    VersionError,
    library_version,
)
from . import io, units  # noqa: F401
from ._reader import Reader, open  # noqa: F401
from .units import WindowError  # noqa: F401
from .writer import Writer  # noqa: F401
from .tracing import (  # noqa: F401
    annotate, region, trace, trace_file, trace_lost, trace_start, trace_stop,
)

if hasattr(_slog, "import_trace"):  # built with the import library
    from ._import import formats as import_formats, import_trace  # noqa: F401

__version__ = library_version
__all__ = [
    "open", "Reader", "Writer", "units", "WindowError", "Error", "FormatError", "CorruptError",
    "VersionError", "ParseError", "StateError", "FileError", "ArgumentError", "OutOfMemoryError",
    "trace", "region", "annotate", "trace_start", "trace_stop", "trace_file", "trace_lost", "io",
]
