#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# recover_cases.py - slog-recover on each kind of file: a killed writer's
# file (HDF5's h5dump refuses it before, reads it after; slog-info's counts
# and "incomplete" stay), a second run (nothing to seal), a finished file
# (nothing to seal, unchanged bytes), a file that is not HDF5, a missing
# file, no argument.  The writer is tests/serve's live_writer, killed with
# SIGKILL after a known flush.
# Usage: recover_cases.py SLOG_RECOVER SLOG_INFO SLOG_SYNTH LIVE_WRITER
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


def run(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=120)


def info(tool, path):
    r = run(tool, "--json", path)
    return json.loads(r.stdout) if r.returncode == 0 else None


def killed_file(writer, path):
    p = subprocess.Popen([writer, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("500\n")
    p.stdin.flush()
    line = p.stdout.readline()
    p.send_signal(signal.SIGKILL)
    p.wait()
    return line.strip()


def main():
    recover, info_tool, synth, writer = sys.argv[1:5]
    h5dump = shutil.which("h5dump")
    with tempfile.TemporaryDirectory() as tmp:
        live = os.path.join(tmp, "killed.slog")
        check(killed_file(writer, live) == "flushed 500", "the writer flushed 500 states")
        before = info(info_tool, live)
        check(before is not None and not before["complete"] and before["states"] == 500,
              "the killed file opens: incomplete, 500 states")
        if h5dump:
            check(run(h5dump, "-H", live).returncode != 0, "h5dump refuses it before")
        r = run(recover, live)
        check(r.returncode == 0 and "sealed; incomplete: 500 states" in r.stdout,
              f"slog-recover seals it: {r.stdout.strip()!r} {r.stderr.strip()!r}")
        if h5dump:
            check(run(h5dump, "-H", live).returncode == 0, "h5dump reads it after")
        check(info(info_tool, live) == before, "slog-info says the same after")
        r = run(recover, live)
        check(r.returncode == 0 and "nothing to seal; incomplete" in r.stdout,
              "a second slog-recover has nothing to do")
        done = os.path.join(tmp, "done.slog")
        check(run(synth, "-n", "1000", "-q", "-o", done).returncode == 0, "slog-synth")
        raw = open(done, "rb").read()
        r = run(recover, done)
        check(r.returncode == 0 and "nothing to seal; complete" in r.stdout and
              open(done, "rb").read() == raw, "a finished file: nothing to seal, bytes unchanged")
        text = os.path.join(tmp, "text.slog")
        open(text, "w").write("not a trace\n")
        r = run(recover, text, done)
        check(r.returncode == 1 and text in r.stderr and "nothing to seal" in r.stdout,
              "a text file: exit 1 naming it, the other file still done")
        r = run(recover, os.path.join(tmp, "missing.slog"))
        check(r.returncode == 1 and "missing.slog" in r.stderr, "a missing file: exit 1")
        check(run(recover).returncode == 2, "no argument: usage, exit 2")
        r = run(recover, "--bogus", done)
        check(r.returncode == 2 and "--bogus" in r.stderr and r.stdout == "",
              f"an unknown option: usage error, exit 2, nothing done: {r.stderr.strip()!r}")
        r = run(recover, done, "--help")
        check(r.returncode == 0 and r.stdout.startswith("Usage:"),
              "--help after a file: the help, exit 0")
        dash = os.path.join(tmp, "-x.slog")
        shutil.copy(done, dash)
        r = subprocess.run(
            [os.path.abspath(recover), "--", "-x.slog"], capture_output=True, text=True,
            timeout=120, cwd=tmp)
        check(r.returncode == 0 and "-x.slog: nothing to seal; complete" in r.stdout,
              f"after --, a name that starts with '-' is a file: {r.stderr.strip()!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
