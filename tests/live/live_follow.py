#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# live_follow.py - slog-query --follow on a file that is still being
# written (issue 16 item 3): a writer (tests/serve/live_writer) appends and
# flushes in steps; after each step the follower has printed exactly the
# states flushed so far, each once; after the writer finishes, the follower
# exits 0 and its lines are the lines slog-query prints for the finished
# file (same set, no line twice).  For jsonl and csv (csv's header once),
# and once more with the follower started before the first state is
# flushed (its times must still count from the trace's start).
# Every wait is bounded (60 s), so a hang fails instead of blocking.
# Usage: live_follow.py SLOG_QUERY LIVE_WRITER
import os
import select
import subprocess
import sys
import tempfile
import time

DEADLINE_S = 60


def fail(msg):
    print(f"live_follow: FAIL: {msg}")
    sys.exit(1)


class Writer:
    def __init__(self, exe, path):
        self.proc = subprocess.Popen([exe, path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def step(self, command, want_prefix):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line.startswith(want_prefix):
            fail(f"live_writer: {command}: {line!r}")


class Follower:
    def __init__(self, exe, path, fmt):
        self.proc = subprocess.Popen([exe, path, "--follow", "-f", fmt],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        self.lines = []

    def wait_open(self, path):
        """Wait until the follower has the file open (its first view is then
        the file as it is now), or fail at the deadline."""
        end = time.monotonic() + DEADLINE_S
        fds = f"/proc/{self.proc.pid}/fd"
        while time.monotonic() < end:
            for fd in os.listdir(fds):
                try:
                    if os.readlink(os.path.join(fds, fd)) == os.path.realpath(path):
                        time.sleep(0.2)  # past the open: its first view is read
                        return
                except OSError:
                    pass
            time.sleep(0.01)
        fail("follower did not open the file")

    def read_until(self, n):
        """Read lines until n are in, or fail at the deadline."""
        end = time.monotonic() + DEADLINE_S
        fd = self.proc.stdout.fileno()
        while len(self.lines) < n:
            left = end - time.monotonic()
            if left <= 0:
                fail(f"follower printed {len(self.lines)} lines, waited for {n}")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                fail(f"follower ended after {len(self.lines)} lines, waited for {n}: "
                     f"{self.proc.stderr.read().decode()!r}")
            self.buf += chunk
            *done, self.buf = self.buf.split(b"\n")
            self.lines += [d.decode() for d in done]

    def finish(self):
        try:
            out, err = self.proc.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("follower did not exit after the writer finished")
        self.lines += [d.decode() for d in (self.buf + out).split(b"\n") if d]
        if self.proc.returncode != 0:
            fail(f"follower exit {self.proc.returncode}: {err.decode()!r}")


def run(query, writer_exe, tmp, fmt, header, first):
    path = os.path.join(tmp, f"follow_{fmt}_{first}.slog")
    w = Writer(writer_exe, path)
    w.step(str(first), f"flushed {first}")
    f = Follower(query, path, fmt)
    if first == 0:
        f.wait_open(path)
    total = first
    for add in (700, 2000, 1):
        f.read_until(header + total)
        w.step(str(add), f"flushed {total + add}")
        total += add
    f.read_until(header + total)
    w.step("finish", "finished")
    if w.proc.wait(timeout=DEADLINE_S) != 0:
        fail("live_writer failed")
    f.finish()
    got = f.lines
    if len(got) != header + total:
        fail(f"{fmt}: {len(got)} lines for {total} states")
    if len(set(got)) != len(got):
        fail(f"{fmt}: a line printed twice")
    final = subprocess.run([query, path, "-f", fmt], capture_output=True, text=True,
                           timeout=DEADLINE_S, check=True).stdout.splitlines()
    if header and got[0] != final[0]:
        fail(f"{fmt}: header {got[0]!r}, the finished file's is {final[0]!r}")
    if sorted(got) != sorted(final):
        fail(f"{fmt}: the followed lines differ from the finished file's")
    return total


def main():
    query, writer_exe = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, header, first in (("jsonl", 0, 300), ("csv", 1, 300), ("jsonl", 0, 0)):
            total = run(query, writer_exe, tmp, fmt, header, first)
            print(f"live_follow: {fmt}: {total} states followed in 5 steps, each once"
                  f"{'' if first else ' (from an empty file)'}")


if __name__ == "__main__":
    main()
