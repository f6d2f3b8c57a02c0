# SPDX-License-Identifier: MIT
"""Windows whose columns outgrow malloc: a column of 2 MiB or more becomes
its own huge-page mapping, grown by mremap and trimmed at the end
(py_columns.c).  Rows written from known arrays must read back exactly,
whether the window grows (one thread), is reserved at its final size
(several threads) or is small enough to stay malloc'd."""
import gc

import numpy as np
import pytest

import slog

N = 600_000  # int64 columns of 4.6 MiB: past malloc's side of the switch


@pytest.fixture(scope="module")
def known_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("large") / "known.slog"
    start = np.arange(N, dtype=np.int64) * 10
    tl = (np.arange(N) % 4).astype(np.uint32)
    with slog.Writer(path) as w:
        tls = [w.timeline(f"t{i}") for i in range(4)]
        cat = w.category("work")
        w.append(timeline=np.array(tls, dtype=np.uint32)[tl], category=np.full(N, cat),
                 start=start, end=start + 7)
    return path, start


@pytest.mark.parametrize("threads", [1, 2])
def test_large_window_reads_back_exactly(known_file, threads):
    path, start = known_file
    df = slog.open(path).window(threads=threads)
    assert len(df) == N
    got = np.sort(df["start"].to_numpy())
    np.testing.assert_array_equal(got, start)
    assert (df["dur"].to_numpy() == 7).all()
    assert df["start"].to_numpy().flags.owndata is False  # the library's own block


def test_small_and_large_windows_agree(known_file):
    path, start = known_file
    r = slog.open(path)
    small = r.window(t0=0, t1=int(start[999]) + 1, threads=1)  # stays malloc'd
    assert sorted(small["start"]) == list(start[:1000])
    for _ in range(3):  # mappings released with their frames, then made again
        big = r.window(threads=1)
        assert len(big) == N
        del big
        gc.collect()
