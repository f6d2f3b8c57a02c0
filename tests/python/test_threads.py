# SPDX-License-Identifier: MIT
"""Readers in several Python threads: separate readers in parallel (the GIL
is released during the C reads) and one reader shared (calls queue on its
lock) give the answers of a single thread."""
import threading

import pandas as pd

import slog

WINDOWS = ["0:25%", "25%:50%", "50%:75%", "75%:", ":"]


def test_separate_readers_in_threads(synth_file):
    expected = {w: slog.open(synth_file).window(w) for w in WINDOWS}
    results, errors = {}, []

    def work(w):
        try:
            with slog.open(synth_file) as r:
                for _ in range(3):
                    results[w] = r.window(w)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(w,)) for w in WINDOWS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for w in WINDOWS:
        pd.testing.assert_frame_equal(results[w], expected[w])


def test_one_reader_shared_by_threads(synth_file):
    r = slog.open(synth_file)
    expected = {w: r.window(w, pixels=100) for w in WINDOWS}
    stats = r.stats()
    bad = []

    def work(w):
        for _ in range(3):
            if not r.window(w, pixels=100).equals(expected[w]) or not r.stats().equals(stats):
                bad.append(w)

    threads = [threading.Thread(target=work, args=(w,)) for w in WINDOWS * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
