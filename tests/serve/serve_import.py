#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_import.py - slog-serve given a trace that is not a .slog: it is
# imported once into SOURCE.slog (the same drawables as slog-import makes),
# reused by the next run while newer than the source, imported again when
# the source changes; an input that is no trace is an error (exit 1)
# leaving no cache behind, and a damaged *.slog is opened as one (exit 1,
# the reader's error) instead of being imported.  A source in a folder with no write bit (mode
# 0555: root too, which access(2) lets write anywhere) is cached in
# $XDG_CACHE_HOME/slog-serve, never beside it.  --format NAME forces the
# import format (an unknown name is a usage error, exit 2).  Given several
# files of which some cannot be imported or opened, it serves the others,
# names each failure on stderr and lists it in /api/files as failed with its
# error; it exits 1 only when no file can be served.
# Usage: serve_import.py SLOG_SERVE SLOG_IMPORT SLOG_INFO CHROME_JSON
import json
import os
import shutil
import subprocess
import sys
import time

from servelib import Server, fail, temp_folder


def serve_once(serve_tool, src):
    srv = Server(serve_tool, [src])
    info = srv.json("/api/info?f=0")
    err = srv.stop()
    return info, err


def check_read_only_folder(serve_tool, demo, tmp):
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    src = os.path.join(ro, "trace.json")
    shutil.copy(demo, src)
    os.chmod(ro, 0o555)
    try:
        _, err = serve_once(serve_tool, src)
        beside = os.listdir(ro)
    finally:
        os.chmod(ro, 0o755)
    if beside != ["trace.json"]:
        fail(f"import written into a mode-0555 folder: {beside}: {err!r}")
    cached = os.listdir(os.path.join(tmp, "cache", "slog-serve"))
    if len(cached) != 1 or not cached[0].startswith("trace.json-") or "importing" not in err:
        fail(f"read-only folder: no import into the cache folder: {cached} {err!r}")


def check_format_option(serve_tool, demo, tmp, bad):
    src = os.path.join(tmp, "forced.dat")
    shutil.copy(demo, src)
    srv = Server(serve_tool, [src], ["--format", "chrome"])
    info = srv.json("/api/info?f=0")
    err = srv.stop()
    if "importing" not in err or info["states"] == 0:
        fail(f"--format chrome: no import: {info} {err!r}")
    for args, want, words in (([bad, "--format", "nosuch"], 2, "unknown format 'nosuch'"),
                              ([bad, "-f", "otf2"], 1, "Cannot import")):
        p = subprocess.run([serve_tool, *args, "--port", "0"], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != want or words not in p.stderr or p.stdout:
            fail(f"{args}: exit {p.returncode} (wanted {want}), stderr {p.stderr!r}")


def check_damaged_slog(serve_tool, ref, tmp):
    """A .slog whose first 4 KiB are zeroed is a damaged .slog, not an unknown format."""
    damaged = os.path.join(tmp, "damaged.slog")
    with open(ref, "rb") as f:
        data = bytearray(f.read())
    data[:4096] = bytes(min(4096, len(data)))
    with open(damaged, "wb") as f:
        f.write(data)
    p = subprocess.run([serve_tool, damaged, "--port", "0"], capture_output=True, text=True,
                       timeout=60)
    if (p.returncode != 1 or "damaged.slog: Cannot open" not in p.stderr
            or "importing" in p.stderr or p.stdout or os.path.exists(damaged + ".slog")):
        fail(f"damaged .slog: exit {p.returncode}, stderr {p.stderr!r}")


def check_some_files_fail(serve_tool, ref, bad, tmp):
    """Files that cannot be served next to one that can: the good one is served, each
    other one is named on stderr and listed as failed with its error; none servable: exit 1."""
    damaged = os.path.join(tmp, "damaged.slog")
    missing = os.path.join(tmp, "missing.slog")
    srv = Server(serve_tool, [ref, bad, damaged, missing])
    files = srv.json("/api/files")
    states = [(f["name"], f["state"]) for f in files]
    want = [("ref.slog", "ready"), ("bad.txt", "failed"), ("damaged.slog", "failed"),
            ("missing.slog", "failed")]
    if states != want or any(not f.get("error") for f in files[1:]):
        fail(f"some files fail: /api/files {files}")
    if "Cannot import" not in files[1]["error"]:
        fail(f"the failed import's error is not listed: {files[1]}")
    info = srv.json("/api/info?f=0")
    if info["states"] == 0:
        fail(f"the good file is not served: {info}")
    status, _, body = srv.get("/api/info?f=1")
    if status != 503 or b"Cannot import" not in body:
        fail(f"/api/info of a failed import: {status} {body[:300]!r}")
    err = srv.stop()
    for words in ("bad.txt: Cannot import", "damaged.slog: Cannot open",
                  "missing.slog: Cannot open", "serving 1 of 4 files"):
        if words not in err:
            fail(f"some files fail: {words!r} not on stderr: {err!r}")
    p = subprocess.run([serve_tool, bad, missing, "--port", "0"], capture_output=True, text=True,
                       timeout=60)
    if (p.returncode != 1 or p.stdout or "none of the 2 files can be served" not in p.stderr
            or "missing.slog: Cannot open" not in p.stderr):
        fail(f"no file servable: exit {p.returncode}, stderr {p.stderr!r}")


def main():
    serve_tool, import_tool, info_tool, demo = sys.argv[1:5]
    with temp_folder() as tmp:
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        src = os.path.join(tmp, "trace.json")
        shutil.copy(demo, src)
        ref = os.path.join(tmp, "ref.slog")
        subprocess.run([import_tool, src, "-o", ref, "-q"], check=True)
        want = json.loads(subprocess.run([info_tool, "--json", ref], check=True,
                                         capture_output=True, text=True).stdout)
        info, err = serve_once(serve_tool, src)
        if "importing" not in err or not os.path.exists(src + ".slog"):
            fail(f"first run: no import into trace.json.slog: {err!r}")
        for key in ("states", "events", "arrows", "counters", "timelines", "categories"):
            if info[key] != want[key]:
                fail(f"imported {key}: {info[key]}, slog-import gives {want[key]}")
        _, err = serve_once(serve_tool, src)
        if "imported before" not in err or "importing" in err:
            fail(f"second run: the cache was not reused: {err!r}")
        later = time.time() + 5
        os.utime(src, (later, later))
        _, err = serve_once(serve_tool, src)
        if "importing" not in err:
            fail(f"a newer source was not imported again: {err!r}")
        bad = os.path.join(tmp, "bad.txt")
        with open(bad, "w") as f:
            f.write("hello, this is not a trace\n")
        p = subprocess.run([serve_tool, bad, "--port", "0"], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 1 or "Cannot import" not in p.stderr or p.stdout:
            fail(f"damaged input: exit {p.returncode}, stderr {p.stderr!r}")
        if os.path.exists(bad + ".slog"):
            fail("a failed import left a cache file")
        check_damaged_slog(serve_tool, ref, tmp)
        check_some_files_fail(serve_tool, ref, bad, tmp)
        check_read_only_folder(serve_tool, demo, tmp)
        check_format_option(serve_tool, demo, tmp, bad)
    print("serve_import: ok")


if __name__ == "__main__":
    main()
