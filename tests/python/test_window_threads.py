# SPDX-License-Identifier: MIT
"""Reader.window(threads=N): a full-detail window read by N threads, each over
a time slice, gives exactly the rows of the one-thread read (as a multiset:
rows come slice after slice), on plain and odd clocks, with filters and
column subsets; and the slices are really used (rows ordered by slice).
Also the one-pass category-name codes against the general lookup."""
import pandas as pd
import pytest

import slog

WINDOWS = ["10%:20%", ":", "0:1ms", "50%:", "99.5%:100%"]


def canonical(df):
    """The rows in one order, whatever order they came in."""
    return df.sort_values(list(df.columns), kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("threads", [2, 3, 16])
@pytest.mark.parametrize("window", WINDOWS)
def test_threads_give_the_same_rows(synth_file, window, threads):
    r = slog.open(synth_file)
    one = r.window(window, threads=1)
    many = r.window(window, threads=threads)
    assert len(many) == len(one) > 0
    pd.testing.assert_frame_equal(canonical(many), canonical(one))


def test_threads_on_an_odd_clock(odd_clock_file):
    r = slog.open(odd_clock_file)
    pd.testing.assert_frame_equal(canonical(r.window(threads=3)), canonical(r.window(threads=1)))


def test_threads_with_filters_and_columns(synth_file):
    r = slog.open(synth_file)
    kw = dict(timelines="process 1", categories=["compute", "read"], kinds="state,event")
    one = r.window("5%:60%", threads=1, **kw)
    many = r.window("5%:60%", threads=4, **kw)
    assert len(one) > 0
    pd.testing.assert_frame_equal(canonical(many), canonical(one))
    part = r.window("5%:60%", threads=4, columns=["start", "dur", "name"])
    assert list(part.columns) == ["start", "dur", "name"]
    pd.testing.assert_frame_equal(canonical(part),
                                  canonical(r.window("5%:60%", threads=1)[["start", "dur", "name"]]))
    no_start = r.window("5%:60%", threads=4, columns=["end", "category"])  # read by one thread
    pd.testing.assert_frame_equal(canonical(no_start),
                                  canonical(r.window("5%:60%", threads=1)[["end", "category"]]))


def test_rows_come_slice_after_slice(synth_file):
    """With 2 threads every row starting before the middle of the window
    comes before every row starting at or after it."""
    r = slog.open(synth_file)
    assert r.info["ticks_per_second"] == 1_000_000_000
    q = r._query(None, None, None, None, None, None)  # the ticks the C read gets
    middle = q["t0"] + (q["t1"] - q["t0"]) // 2      # 1 tick = 1 ns here
    df = r.window(threads=2)
    late = (df.start >= middle).to_numpy()
    first_late = late.argmax()
    assert late.any() and not late[:first_late].any() and late[first_late:].all()
    one = r.window(threads=1)
    assert not (one.start.to_numpy() == df.start.to_numpy()).all()  # node order differs


def test_threads_with_pixels_or_args_read_as_one(synth_file):
    r = slog.open(synth_file)
    pd.testing.assert_frame_equal(r.window("10%:20%", pixels=500, threads=3),
                                  r.window("10%:20%", pixels=500, threads=1))
    a = r.window("10%:20%", args=True, threads=3)
    b = r.window("10%:20%", args=True, threads=1)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "2"])
def test_bad_thread_counts(synth_file, bad):
    with pytest.raises(ValueError, match="threads"):
        slog.open(synth_file).window(threads=bad)


def test_name_codes_fast_path(synth_file):
    """Category ids used as name codes directly (unique names, < 127 of them)
    give the same names as the general id -> code lookup, "other" as
    "(other)" (slog-query's name; NaN was dropped by groupby("name"))."""
    import numpy as np
    r = slog.open(synth_file)
    assert r._ids_are_codes
    ids = np.array(list(range(len(r.categories))) * 3 + [2**32 - 1], dtype=np.uint32)
    fast = pd.Series(r._names(ids))
    r._ids_are_codes = False
    slow = pd.Series(r._names(ids))
    assert fast.equals(slow) and fast.isna().sum() == 0
    assert list(fast[:len(r.categories)]) == list(r.categories.name)
    assert fast.iloc[-1] == "(other)" and (fast == "(other)").sum() == 1
    assert "(other)" not in pd.Series(r._names(ids[:-1])).cat.categories  # only when some row is
