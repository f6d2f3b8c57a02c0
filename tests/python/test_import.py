# SPDX-License-Identifier: MIT
"""slog.import_trace over the import library, against slog-import of the
same build on the same inputs."""
import os
import subprocess

import pandas as pd
import pytest

import slog
from conftest import ROOT, tool

if not hasattr(slog, "import_trace"):
    pytest.skip("built without the import library", allow_module_level=True)

DEMO = os.path.join(ROOT, "tests", "data", "demo", "chrome-69_simple.json")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "dftracer", "cm1_1_48")


def cli_import(inputs, output):
    subprocess.run([tool("slog-import"), *inputs, "-o", str(output), "-q"], check=True)


def test_chrome_equals_slog_import(tmp_path):
    summary = slog.import_trace(DEMO, tmp_path / "py.slog")
    assert summary["complete"] and summary["output_created"]
    assert summary["formats"] == ["chrome"]
    assert summary["imported"] == sum(c["imported"] for c in summary["counts"]) > 0
    assert summary["input_bytes"] == os.path.getsize(DEMO)
    cli_import([DEMO], tmp_path / "cli.slog")
    a = slog.open(tmp_path / "py.slog").window(args=True)
    b = slog.open(tmp_path / "cli.slog").window(args=True)
    pd.testing.assert_frame_equal(a, b)


def test_several_pfw_files_merge(tmp_path):
    if not os.path.isdir(CORPUS):
        pytest.skip("shared corpus not beside the checkout")
    files = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS))[:3]
    summary = slog.import_trace(files, tmp_path / "three.slog")
    assert summary["formats"] == ["pfw"] * 3 and summary["complete"]
    r = slog.open(tmp_path / "three.slog")
    assert (r.timelines.kind == "process").sum() == 3
    assert "pfw" in slog.import_formats()


def test_import_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        slog.import_trace(tmp_path / "none.json", tmp_path / "x.slog")
    cut = tmp_path / "cut.json"
    cut.write_text('{"traceEvents": [{"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n  {"ph": ')
    s = slog.import_trace(cut, tmp_path / "cut.slog")  # repaired: the good event is kept
    assert s["complete"] and s["warnings"] == 2 and s["skipped"] == 1
    assert {(d["source"], d["line"]) for d in s["diagnostics"]} == {(str(cut), 2)}
    assert len(slog.open(tmp_path / "cut.slog").window()) == 1
    bad = tmp_path / "bad.json"
    bad.write_text("this is no trace at all")
    with pytest.raises(slog.ParseError) as e:
        slog.import_trace(bad, tmp_path / "bad.slog")
    assert "bad.json" in str(e.value) and e.value.summary["formats"] == [None]
    with pytest.raises(slog.ParseError) as e:
        slog.import_trace(bad, tmp_path / "bad.slog", format="chrome")
    assert e.value.summary["output_created"]
    assert not slog.open(tmp_path / "bad.slog").info["complete"]
    with pytest.raises(slog.ArgumentError):
        slog.import_trace(DEMO, tmp_path / "y.slog", format="no-such-format")
    with pytest.raises(ValueError):
        slog.import_trace(DEMO, tmp_path / "z.slog", time_unit="hours")


def test_import_arguments_are_checked(tmp_path):
    """sort_window went to C modulo 2**64 (-1: 2**64 - 1 records; 1.5: 1;
    0: the default, where slog-import's 0 means no reordering); a bytes
    path was taken for a list of ints."""
    for bad in (-1, 0, 1.5, 2**64):
        with pytest.raises(ValueError, match="sort_window"):
            slog.import_trace(DEMO, tmp_path / "w.slog", sort_window=bad)
    assert not (tmp_path / "w.slog").exists()
    s = slog.import_trace(os.fsencode(DEMO), tmp_path / "b.slog", sort_window=10)
    assert s["complete"] and s["formats"] == ["chrome"]
