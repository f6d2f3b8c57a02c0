#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_live.py - slog-serve on a file that is still being written: a writer
# (live_writer) appends and flushes in steps while the server runs; after
# each step /api/info and /api/files say complete:false and count exactly
# the states flushed so far, and a whole-file window returns all of them;
# after the writer finishes, complete:true and every state.
# Usage: serve_live.py SLOG_SERVE LIVE_WRITER
import os
import subprocess
import sys

from servelib import Server, fail, temp_folder


class Writer:
    def __init__(self, exe, path):
        self.proc = subprocess.Popen([exe, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def step(self, command, want_prefix):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line.startswith(want_prefix):
            fail(f"live_writer: {command}: {line!r}")
        return line


def check(srv, states, complete):
    info = srv.json("/api/info?f=0")
    files = srv.json("/api/files")
    if info["complete"] != complete or files[0]["complete"] != complete:
        fail(f"complete: info {info['complete']}, files {files[0]['complete']}, "
             f"wanted {complete}")
    if info["states"] != states:
        fail(f"info: {info['states']} states, the writer flushed {states}")
    win = srv.json("/api/window?f=0&enc=json&kinds=state")
    if win["n"] != states or win["complete"] != complete or win["cut"]:
        fail(f"whole window: {win['n']} states (cut {win['cut']}), wanted {states}")
    return info


def main():
    serve_tool, writer_tool = sys.argv[1:3]
    with temp_folder() as tmp:
        path = os.path.join(tmp, "live.slog")
        w = Writer(writer_tool, path)
        w.step("500", "flushed 500")
        srv = Server(serve_tool, [path])
        first = check(srv, 500, False)
        w.step("3000", "flushed 3500")
        grown = check(srv, 3500, False)
        if grown["duration"] <= first["duration"]:
            fail("duration did not grow with the file")
        w.step("7000", "flushed 10500")
        check(srv, 10500, False)
        w.step("finish", "finished")
        if w.proc.wait(timeout=60) != 0:
            fail("live_writer failed")
        check(srv, 10500, True)
        srv.stop()
    print("serve_live: ok (three growth steps and the finish seen)")


if __name__ == "__main__":
    main()
