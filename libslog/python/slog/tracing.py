# SPDX-License-Identifier: MIT
"""Tracing Python code into a libslog file, like DFTracer's Python API.

    import slog

    slog.trace_start("run.slog")          # or run under `slog-trace -- python3 ...`

    @slog.trace                           # every call is a region named "module.func"
    def load(path): ...

    @slog.trace(name="step")              # a region name of your own
    def step(i): ...

    with slog.region("load", file=path) as r:   # a region with args
        data = read(path)
        r.annotate(bytes=len(data))       # more args while it is open
        slog.annotate(rows=n)             # the innermost open region of this thread

    slog.trace_stop()                     # finish the file (also at exit)

A region is a state on its thread's timeline (one timeline per thread,
under a "PROGRAM pid N" process timeline, named as slog-trace names the
process in its native file), from its begin to its end in ns
of CLOCK_REALTIME (the clock slog-trace uses, so both kinds of file line
up).  Each region object ends itself, whatever began or ended since
(asyncio tasks taking turns, a region around a generator's yield, regions
ended out of order); its depth is one more than the innermost region open
around it when it began, in its own thread or asyncio task (regions are
tracked in a context variable, decorated calls per thread); its args are
the keyword args of region() plus every annotation, taken when given
(later changes to a dict passed do not show): str, int, float, bool as they
are; another type's number (numpy's int64, float32...) as the int or
float it stands for; dict/list/tuple/None as JSON; an int beyond 64 bits as its decimal
text, anything else (bytes, set, complex, objects) as its repr(), both cut
to 256 characters.  A call
that raises is recorded with an "exception" arg naming the exception's type,
which then propagates unchanged: tracing never raises into the program (a
region the writer cannot take is counted by trace_lost()).

Tracing is off until trace_start(); under slog-trace (SLOG_TRACE_DIR set)
it starts by itself at the first region, into
SLOG_TRACE_DIR/<host>-<pid>-python.slog beside the native files.  A fork
child of a traced process traces into a file of its own from its first
region (multiprocessing's children finish it before their os._exit); a
killed process keeps what was flushed (at least every second, and at the
end of a top region 100 ms or more after the last flush).  When
tracing is off, a decorated call costs one check and region() does nothing.
"""
import atexit
import functools
import os
import sys

from . import _slog

__all__ = ["trace", "region", "annotate", "trace_start", "trace_stop", "trace_file",
           "trace_lost"]


def default_path():
    """SLOG_TRACE_DIR (or the current directory)/<host>-<pid>-python.slog, or
    <host>-<pid>.<n>-python.slog (the first free n) when an earlier program of
    this process (before an exec) left that file."""
    directory = os.environ.get("SLOG_TRACE_DIR") or "."
    return _slog.trace_default_path(directory)


def trace_start(path=None):
    """Start writing regions to path (default: default_path()); returns the path.
    RuntimeError when tracing is already on."""
    path = default_path() if path is None else os.fspath(path)
    return _slog.trace_start(path, f"slog (Python tracing) {_slog.library_version}")


def trace_stop():
    """Finish the trace file (regions still open are left out).  Safe to call twice."""
    _slog.trace_stop()


def trace_file():
    """The file being written, or None when tracing is off."""
    return _slog.trace_file()


def trace_lost():
    """Regions of the current (or last) trace file that could not be recorded
    (the writer failed, or no memory); the first of a file also gives a
    RuntimeWarning.  Tracing never raises into the traced program."""
    return _slog.trace_lost()


def trace(func=None, *, name=None):
    """Decorator: record every call of func as a region.  @slog.trace or
    @slog.trace(name="...") (default name: func's module and qualified name;
    the main script is __main__ also in spawn and forkserver workers, which
    import it as __mp_main__)."""
    def wrap(f):
        module = "__main__" if f.__module__ == "__mp_main__" else f.__module__
        region_name = name if name is not None else f"{module}.{f.__qualname__}"
        wrapper = _slog.TracedFunction(f, region_name)
        functools.update_wrapper(wrapper, f)
        return wrapper
    return wrap if func is None else wrap(func)


class region:
    """Context manager: a region named name, with keyword args as its args."""

    __slots__ = ("name", "args", "_open")

    def __init__(self, name, **args):
        self.name = str(name)
        self.args = args
        self._open = None

    def __enter__(self):
        self._open = _slog.trace_begin(self.name, self.args or None)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._open is not None:
            r, self._open = self._open, None
            _slog.trace_end(r, {"exception": exc_type.__name__} if exc_type is not None else None)
        return False

    def annotate(self, **args):
        """Add args to this region while it is open; True when it took them."""
        if self._open is None:
            return False
        return _slog.trace_annotate(args, self._open)


def annotate(**args):
    """Add args to the innermost open region (or decorated call) of the calling
    thread or asyncio task; True when one took them (False: none open, or
    tracing off)."""
    return _slog.trace_annotate(args, None)


def _after_fork_in_child():
    """A fork child of a traced process traces into a file of its own from its
    first region.  A multiprocessing child ends with os._exit(), which skips
    atexit: once multiprocessing has reset its registries in the child
    (register_after_fork runs then), a Finalize of the lowest priority
    finishes the file before that exit."""
    _slog.trace_after_fork()
    util = sys.modules.get("multiprocessing.util")
    if util is not None:
        util.register_after_fork(_after_fork_in_child, _finish_at_multiprocessing_exit)


def _finish_at_multiprocessing_exit(_unused):
    sys.modules["multiprocessing.util"].Finalize(None, _slog.trace_stop, exitpriority=-100)


def _finish_in_multiprocessing_child():
    """slog imported in a multiprocessing child after its fork (a forkserver
    worker imports the main module there, a task may import slog itself): no
    fork hook ran, so register the Finalize here; while the child still
    prepares (the main module's import), after multiprocessing's reset of its
    registries, which would drop it."""
    process = sys.modules.get("multiprocessing.process")
    if process is None:
        return
    if getattr(process.current_process(), "_inheriting", False):
        sys.modules["multiprocessing.util"].register_after_fork(
            _finish_at_multiprocessing_exit, _finish_at_multiprocessing_exit)
    elif process.parent_process() is not None:
        _finish_at_multiprocessing_exit(None)


atexit.register(_slog.trace_stop)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
_finish_in_multiprocessing_child()
