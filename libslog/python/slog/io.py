# SPDX-License-Identifier: MIT
"""slog.io: what a traced run did to each file, as a DataFrame.

    import slog
    r = slog.open("run.slog")           # slog-trace merge output, or a DFTracer import
    io = slog.io.summary(r)             # one row per (layer, path)
    io.sort_values("bytes_read", ascending=False).head()
    slog.io.summary(r, "10%:20%", by="process")

The calls are the states slog-trace records (doc/TRACE.md) and DFTracer's
POSIX and STDIO events (same names; file name in "fname", numbers as
strings): each is counted by its category name as an open, read, write,
sync or other call of its layer (posix, stdio, mpiio), on the file its
args name.  Bytes are what the call moved (its result), not what it asked
for; a failed call counts in calls and errors, with no bytes.  MPI-IO
calls contain the POSIX calls MPI-IO made for them (a deeper level on the
same thread), so sum one layer at a time.  doc/PYTHON.md, "I/O summary".
"""
import numpy as np
import pandas as pd

__all__ = ["summary", "CALLS"]

# category name -> (layer, op, how its bytes are found); bytes rules:
# "ret" the result; "items" result x size (items moved); "count" the size
# asked, when the call did not fail; "bytes" the bytes the status gave;
# None none.  A name not here with a file name in its args is "other", of
# the layer its category's group names (DFTracer's "POSIX" -> posix).
CALLS = {}


def _calls(layer, op, rule, *names):
    for n in names:
        CALLS[n] = (layer, op, rule)


_calls("posix", "open", None, "open", "openat", "creat", "mkstemp")
_calls("posix", "close", None, "close")
_calls("posix", "read", "ret", "read", "pread", "readv", "preadv", "pread64")
_calls("posix", "write", "ret", "write", "pwrite", "writev", "pwritev", "pwrite64")
_calls("posix", "sync", None, "fsync", "fdatasync", "msync")
_calls("posix", "other", None, "lseek", "ftruncate", "stat", "lstat", "fstat", "fstatat", "statx",
       "unlink", "unlinkat", "rename", "mmap", "munmap", "dup", "dup2", "dup3", "pipe",
       "socket", "accept")
_calls("stdio", "open", None, "fopen", "fopen64", "fdopen", "freopen")
_calls("stdio", "close", None, "fclose")
_calls("stdio", "read", "items", "fread")
_calls("stdio", "read", "ret", "fgets", "getline", "fgetc")
_calls("stdio", "read", None, "fscanf")
_calls("stdio", "write", "items", "fwrite")
_calls("stdio", "write", "count", "fputs")
_calls("stdio", "write", "ret", "fputc", "fprintf", "dprintf")
_calls("stdio", "sync", None, "fflush")
_calls("stdio", "other", None, "fseek", "ftell", "ungetc")
_calls("mpiio", "open", None, "MPI_File_open")
_calls("mpiio", "close", None, "MPI_File_close")
_calls("mpiio", "sync", None, "MPI_File_sync")
_calls("mpiio", "other", None, "MPI_File_delete", "MPI_File_seek", "MPI_File_seek_shared",
       "MPI_File_set_view", "MPI_File_set_size", "MPI_File_preallocate")
for _mode in ("", "_all", "_at", "_at_all", "_shared", "_ordered"):
    _calls("mpiio", "read", "bytes", "MPI_File_read" + _mode)
    _calls("mpiio", "write", "bytes", "MPI_File_write" + _mode)
    if _mode != "_ordered":  # nonblocking: recorded when started, with the bytes asked
        _calls("mpiio", "read", "count", "MPI_File_iread" + _mode)
        _calls("mpiio", "write", "count", "MPI_File_iwrite" + _mode)
del _mode
_calls("hdf5", "open", None, "H5Fcreate", "H5Fopen")
_calls("hdf5", "close", None, "H5Fclose")
_calls("hdf5", "sync", None, "H5Fflush")
_calls("hdf5", "read", "bytes", "H5Dread", "H5Aread")
_calls("hdf5", "write", "bytes", "H5Dwrite", "H5Awrite")
_calls("hdf5", "other", None, "H5Gcreate2", "H5Gopen2", "H5Gclose", "H5Dcreate2", "H5Dopen2",
       "H5Dclose", "H5Oopen", "H5Oclose", "H5Acreate2", "H5Aopen", "H5Aclose")

# the copies: a read of path_in and a write of path_out, each of ret bytes
COPIES = ("copy_file_range", "sendfile")
_KEYS = ["path", "fname", "ret", "count", "size", "bytes", "path_in", "path_out"]
_OPS = ("open", "close", "read", "write", "sync", "other")
COLUMNS = ["calls", "errors", "opens", "reads", "writes", "syncs", "other", "bytes_read",
           "bytes_written", "read_time", "write_time", "time", "first", "last"]


def _number(col):
    """An args column as float64 (strings such as DFTracer's "131072" too;
    NaN where absent or not a number)."""
    return pd.to_numeric(col, errors="coerce").astype(np.float64)


def _per_call(df, groups):
    """What each call's category name says, as arrays over the calls:
    layer, op, bytes rule, MPI (its ret is an MPI error code), a copy."""
    names = df["name"]
    if not isinstance(names.dtype, pd.CategoricalDtype):
        names = names.astype("category")
    cats = [str(n) for n in names.cat.categories]
    rules = [CALLS.get(n) or (groups.get(n, ""), "other", None) for n in cats]
    codes = names.cat.codes.to_numpy()

    def take(values, dtype=object):
        return np.asarray(values, dtype=dtype)[codes]
    return (take([r[0] for r in rules]), take([r[1] for r in rules]),
            take([r[2] for r in rules]), take([n.startswith("MPI_") for n in cats], bool),
            take([n in COPIES for n in cats], bool))


def _calls_frame(df, groups):
    """One row per call: layer, path, op, failed, bytes, and the call's
    timeline, start, end (copies become two rows); groups: category name
    -> its group, the layer of names CALLS does not know."""
    layer, op, rule, mpi, copy = _per_call(df, groups)
    ret, count = _number(df["args.ret"]), _number(df["args.count"])
    failed = np.where(mpi, ret.fillna(0).to_numpy() != 0, (ret < 0).to_numpy())
    by_rule = {"ret": ret, "items": ret * _number(df["args.size"]),
               "count": count, "bytes": _number(df["args.bytes"])}
    nbytes = np.zeros(len(df))
    for key, values in by_rule.items():
        take = rule == key
        nbytes[take] = values.to_numpy()[take]
    nbytes = np.where(failed | np.isnan(nbytes), 0.0, np.maximum(nbytes, 0.0))
    path = df["args.path"].where(df["args.path"].notna(), df["args.fname"])
    out = pd.DataFrame({"layer": layer, "path": path.to_numpy(), "op": op, "failed": failed,
                        "bytes": nbytes, "timeline": df["timeline"].to_numpy(),
                        "start": df["start"].to_numpy(), "end": df["end"].to_numpy()})
    if copy.any():
        c = out[copy]
        moved = ret[copy].fillna(0).clip(lower=0).to_numpy()
        reads = c.assign(layer="posix", op="read", path=df["args.path_in"].to_numpy()[copy],
                         bytes=moved)
        writes = c.assign(layer="posix", op="write", path=df["args.path_out"].to_numpy()[copy],
                          bytes=moved)
        out = pd.concat([out[~copy], reads, writes], ignore_index=True)
    return out[out.path.notna() & (out.path != "")]


def _sums(calls, keys):
    """The summary columns of calls grouped by keys."""
    dur = (calls.end - calls.start).astype(np.int64)
    c = calls.assign(dur=dur, n=1)
    for op in _OPS:
        c[op] = (c.op == op).astype(np.int64)
    c["bytes_read"] = np.where(c.op == "read", c.bytes, 0).astype(np.int64)
    c["bytes_written"] = np.where(c.op == "write", c.bytes, 0).astype(np.int64)
    c["read_time"] = np.where(c.op == "read", dur, 0)
    c["write_time"] = np.where(c.op == "write", dur, 0)
    g = c.groupby(keys, sort=True, dropna=False)
    out = g.agg(calls=("n", "sum"), errors=("failed", "sum"), opens=("open", "sum"),
                reads=("read", "sum"), writes=("write", "sum"), syncs=("sync", "sum"),
                other=("other", "sum"), bytes_read=("bytes_read", "sum"),
                bytes_written=("bytes_written", "sum"), read_time=("read_time", "sum"),
                write_time=("write_time", "sum"), time=("dur", "sum"), first=("start", "min"),
                last=("end", "max"))
    return out.astype({k: np.int64 for k in COLUMNS})


def _file_categories(reader):
    """The state categories whose calls may name a file: all but slog-trace's
    MPI calls (group mpi: messages and collectives, never a file), whose
    args, read for nothing, were most of the cost on an MPI job's trace."""
    cats = reader.categories
    groups = cats.group.where(cats.group.notna(), "").astype(str).str.lower()
    keep = cats.id[(cats.kind == "state") & (groups != "mpi")]
    return [int(i) for i in keep]


def summary(reader, t0=None, t1=None, *, by=None):
    """Per (layer, path) of the calls in [t0, t1): calls, errors (failed
    calls), opens, reads, writes, syncs, other (calls of other names that
    name the file), bytes_read, bytes_written, read_time, write_time, time
    (every call's duration, ns), first (start of the first call), last (end
    of the last).  by="process" adds the process timeline (id) to the key,
    by="timeline" the thread's.  layer is posix, stdio, mpiio or hdf5 (the
    calls slog-trace records inside HDF5's are counted too, in posix); for a
    name slog.io.CALLS does not know (counted in other), its category's
    group in lower case, or "" without one."""
    if by not in (None, "process", "timeline"):
        raise ValueError(f"by: None, 'process' or 'timeline', not {by!r}")
    df = reader.window(t0, t1, kinds="state", args=_KEYS,
                       categories=_file_categories(reader),
                       columns=["timeline", "name", "start", "end"])
    keys = ["layer", "path"]
    if df.empty:
        empty = pd.DataFrame({k: pd.Series(dtype=np.int64) for k in COLUMNS})
        index = keys + ([by] if by else [])
        return empty.set_index(pd.MultiIndex.from_arrays([[]] * len(index), names=index))
    cats = reader.categories
    groups = {n: (g.lower() if isinstance(g, str) else "")
              for n, g in zip(cats.name, cats.group)}
    calls = _calls_frame(df, groups)
    if by == "process":
        calls = calls.assign(process=reader.timelines.process.to_numpy()[calls.timeline])
    return _sums(calls, keys + ([by] if by else []))
