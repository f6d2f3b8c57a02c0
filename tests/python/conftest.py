# SPDX-License-Identifier: MIT
"""Fixtures of the slog Python tests: the tools under test (slog-synth and
slog-query from the build, named by meson through the environment), files
made once per session, and slog-query's answers to compare with."""
import gzip
import json
import os
import subprocess

import pytest

ROOT = os.environ.get("SLOG_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "slog")


def tool(name):
    path = os.environ.get(name.upper().replace("-", "_"))
    if not path or not os.path.exists(path):
        pytest.skip(f"{name} not given (run through meson test)")
    return path


def synth(path, *args):
    subprocess.run([tool("slog-synth"), *args, "-o", str(path), "-q"], check=True)
    return str(path)


def query_jsonl(path, *args):
    """slog-query's jsonl answer as a list of dicts."""
    out = subprocess.run([tool("slog-query"), str(path), "--format", "jsonl", *args],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line]


def read_jsonl_gz(path):
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def synth_file(tmp_path_factory):
    """2x10^4 states on 8 threads with args on every top-level state."""
    d = tmp_path_factory.mktemp("synth")
    return synth(d / "s.slog", "-n", "20000", "-t", "8", "-s", "3", "--state-args",
                 "--leaf-bytes", "8KiB")


@pytest.fixture(scope="session")
def odd_clock_file(tmp_path_factory):
    """A clock of 3 MHz: ticks -> ns needs exact rounding."""
    d = tmp_path_factory.mktemp("odd")
    return synth(d / "odd.slog", "-n", "3000", "-t", "4", "-s", "5",
                 "--ticks-per-second", "3000000")


@pytest.fixture(scope="session")
def tracked():
    """The format-1 files kept in the repository, with their answers."""
    files = {}
    for name in ("synth", "chrome69"):
        p = os.path.join(DATA, "v1", name + ".slog")
        if not os.path.exists(p):
            pytest.skip("tests/data/slog/v1 not found")
        files[name] = p
    return files
