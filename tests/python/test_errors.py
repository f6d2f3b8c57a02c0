# SPDX-License-Identifier: MIT
"""Errors are Python exceptions with the library's message; a bad file never
crashes the interpreter."""
import os
import shutil

import pytest

import slog


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        slog.open(tmp_path / "nope.slog")
    assert "nope.slog" in str(e.value)


def test_not_hdf5(tmp_path):
    p = tmp_path / "text.slog"
    p.write_text("hello, not a trace\n" * 100)
    with pytest.raises(slog.FormatError) as e:
        slog.open(p)
    assert str(p) in str(e.value) and "SLOG_EFORMAT" in str(e.value)
    assert e.value.status == "SLOG_EFORMAT" and e.value.path == str(p)
    assert isinstance(e.value, slog.Error)


@pytest.mark.parametrize("keep", [0.25, 0.5, 0.9])
def test_truncated_file(synth_file, tmp_path, keep):
    p = tmp_path / f"cut{keep}.slog"
    data = open(synth_file, "rb").read()
    p.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(slog.Error) as e:
        slog.open(p).window()
    assert str(p) in str(e.value)


def test_corrupted_payload_names_file_and_node(synth_file, tmp_path):
    """Flip bytes in the middle of the file, far from the HDF5 superblock:
    every failure is a slog.Error naming the file, never a crash."""
    data = bytearray(open(synth_file, "rb").read())
    failures = 0
    for k, frac in enumerate((0.3, 0.45, 0.6, 0.75)):
        p = tmp_path / f"bad{k}.slog"
        bad = bytearray(data)
        at = int(len(bad) * frac)
        bad[at:at + 64] = bytes(b ^ 0x5A for b in bad[at:at + 64])
        p.write_bytes(bytes(bad))
        try:
            with slog.open(p) as r:
                r.window()
                r.stats()
        except slog.Error as e:
            failures += 1
            assert str(p) in str(e)
    assert failures >= 1


def test_bad_windows(synth_file):
    r = slog.open(synth_file)
    for w in ("20%:10%", "1x:2ms", "1:2:3", "1.5ns:2ns", "101%:"):
        with pytest.raises(slog.WindowError):
            r.window(w)
    with pytest.raises(TypeError):
        r.window(1.5, 2.5)
    with pytest.raises(ValueError, match="pixels"):
        r.window(pixels=0)
    with pytest.raises(ValueError):
        r.window(timelines=[10**6])


def test_writer_errors_are_exceptions(tmp_path):
    with slog.Writer(tmp_path / "w.slog") as w:
        t = w.timeline("t")
        c = w.category("c")
        with pytest.raises(slog.ArgumentError, match="w.slog"):
            w.state(t, 99, 0, 10)  # unknown category
        with pytest.raises(slog.StateError):
            w.end(t, 5)  # nothing open
        with pytest.raises(slog.ArgumentError, match="row 1"):
            w.append(timeline=[t, t], category=[c, c], start=[0, 10], end=[5, 3])
        with pytest.raises(TypeError):
            w.state(t, c, 0, 1, args={"x": object()})
        with pytest.raises(ValueError, match="required"):
            w._w.append_columns([0], None, [c], [0])  # no timeline column
        with pytest.raises(ValueError, match="differ in length"):
            w.append(timeline=[t, t], category=[c], start=[0, 1])
    with pytest.raises(slog.FileError):
        slog.Writer(tmp_path / "no" / "dir" / "x.slog")


def test_unreadable_directory(tmp_path):
    d = tmp_path / "dir.slog"
    d.mkdir()
    with pytest.raises(slog.Error):
        slog.open(d)


def test_writer_clock_rate_is_checked(tmp_path):
    """ticks_per_second went to C modulo 2**64: -1 made a clock of
    18446744073709551615 ticks/s, 2**64 (and 0) silently 10**9, 1.5 became 1."""
    p = tmp_path / "c.slog"
    for bad in (0, -1, 2**64):
        with pytest.raises(ValueError, match="ticks_per_second"):
            slog.Writer(p, ticks_per_second=bad)
    for bad in (1.5, "1e9", True):
        with pytest.raises(TypeError, match="ticks_per_second"):
            slog.Writer(p, ticks_per_second=bad)
    assert not p.exists()
    import numpy as np
    with slog.Writer(p, ticks_per_second=np.int64(2**40)) as w:
        w.state(w.timeline("t"), w.category("c"), 0, 2**40)
    assert slog.open(p).info["ticks_per_second"] == 2**40


def test_messages_name_what_was_wrong(synth_file):
    """A whole "T0:T1" window with a t1 beside it said "bad percentage
    '10%:20%'"; top(-1) said "got 4294967295" (the int wrapped in C)."""
    r = slog.open(synth_file)
    with pytest.raises(slog.WindowError, match="whole window"):
        r.window("10%:20%", "30%")
    for n in (-1, 0, 10**7):
        with pytest.raises(ValueError, match=f"got {n}$"):
            r.top(n)
    with pytest.raises(ValueError, match="got 2.5"):
        r.top(2.5)


def test_append_columns_are_checked(tmp_path):
    """numpy's forced cast into the C columns wrote wrong drawables without
    a word: timeline 2**32 + 1 became timeline 1, start 1.7 became 1, kind
    259 became a counter, uint64 starts above int64 became negative."""
    import numpy as np
    with slog.Writer(tmp_path / "a.slog") as w:
        t = w.timeline("t")
        c = w.category("c")
        bad = [
            (dict(timeline=np.array([2**32 + 1])), "timeline of row 0 is 4294967297"),
            (dict(timeline=[-1]), "timeline of row 0 is -1"),
            (dict(start=np.array([5, 1.7]), end=np.array([6, 9])), "start of row 1 is 1.7"),
            (dict(start=np.array([np.nan]), end=[3]), "start of row 0 is nan"),
            (dict(start=np.array([2.0**63]), end=[3]), "start of row 0"),
            (dict(start=np.array([2**63 + 5], dtype=np.uint64), end=[3]), "start of row 0"),
            (dict(kind=np.array([259])), "kind of row 0 is 259"),
            (dict(kind=["blob"]), "kind 'blob'"),
        ]
        for cols, message in bad:
            row = dict(timeline=[t], category=[c], start=[0], end=[1])
            if "start" in cols:
                row["timeline"], row["category"] = [t] * len(cols["start"]), [c] * len(cols["start"])
            row.update(cols)
            with pytest.raises(ValueError, match=message.replace("(", r"\(")):
                w.append(**row)
        with pytest.raises(TypeError, match="integers"):
            w.append(timeline=["a"], category=[c], start=[0], end=[1])
        assert w.append(timeline=np.array([t], np.uint64), category=[c],
                        start=np.array([2.0]), end=np.array([5], np.int16)) == 1
    df = slog.open(tmp_path / "a.slog").window()
    assert df[["timeline", "start", "end"]].values.tolist() == [[t, 2, 5]]


def test_writer_ids_out_of_range_are_errors(tmp_path):
    """The "I" format took ids, depths and colours modulo 2**32: a state on
    timeline 2**32 went to timeline 0, depth 2**32 + 1 became 1, colour -1
    white."""
    import numpy as np
    with slog.Writer(tmp_path / "w.slog") as w:
        t = w.timeline("t")
        c = w.category("c")
        calls = [lambda: w.state(2**32 + t, c, 0, 1), lambda: w.state(t, c, 0, 1, depth=2**32 + 1),
                 lambda: w.event(2**32 + t, c, 5), lambda: w.counter(t, 2**32 + c, 5, 1.0),
                 lambda: w.begin(t, -1, 5), lambda: w.end(2**32 + t, 6),
                 lambda: w.arrow(c, t, 2**32 + t, 1, 2), lambda: w.category("x", color=-1),
                 lambda: w.category("y", color=2**32), lambda: w.timeline("z", parent=2**32),
                 lambda: w.open_depth(-1)]
        for call in calls:
            with pytest.raises(OverflowError, match="out of range 0..4294967295"):
                call()
        w.state(np.uint32(t), np.int64(c), 0, 10, depth=np.int8(0))
    df = slog.open(tmp_path / "w.slog").window()
    assert df[["timeline", "start", "end", "depth"]].values.tolist() == [[t, 0, 10, 0]]


def test_reader_cache_size_is_checked(synth_file):
    """cache_bytes went to C modulo 2**64: -1 asked for an unbounded cache,
    2**64 for the default."""
    for bad in (-1, 2**64, 1.5):
        with pytest.raises(ValueError, match="cache_bytes"):
            slog.open(synth_file, cache_bytes=bad)
    assert len(slog.open(synth_file, cache_bytes=1 << 20).window("0:1%")) > 0
