# SPDX-License-Identifier: MIT
#
# servelib.py - what the slog-serve tests share: make a small trace with
# slog-synth in a temporary folder, start slog-serve on port 0 and read the
# URL it prints, GET a path (status, headers, body), decode the binary window
# encoding of doc/VIEWER.md, and stop the server checking its exit status.
# Python 3 standard library only.
import atexit
import http.client
import json
import os
import struct
import subprocess
import sys
import tempfile
import urllib.parse

KINDS = ["state", "event", "arrow", "counter", "preview", "run"]


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def make_trace(synth, folder, name="t.slog", extra=()):
    path = os.path.join(folder, name)
    args = [synth, "-n", "3000", "-t", "6", "-s", "3", "--state-args", "--leaf-bytes", "4KiB",
            "-q", "-o", path, *extra]
    subprocess.run(args, check=True)
    return path


class Server:
    """slog-serve FILE... on 127.0.0.1, any port."""

    def __init__(self, exe, files, extra=()):
        self.proc = subprocess.Popen([exe, *files, "--port", "0", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        atexit.register(self.kill)  # a failed check must not leave the server running
        line = self.proc.stdout.readline()
        if not line.startswith("slog-serve: http://"):
            self.proc.kill()
            fail(f"no URL line from slog-serve: {line!r} {self.proc.stderr.read()!r}")
        self.url = line.split(" ", 1)[1].strip()
        parsed = urllib.parse.urlparse(self.url)
        self.host, self.port = parsed.hostname, parsed.port

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def conn(self, timeout=30):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def get(self, path, conn=None, method="GET", headers=None):
        c = conn or self.conn()
        try:
            c.request(method, path, headers=headers or {})
            r = c.getresponse()
            body = r.read()
            return r.status, dict(r.getheaders()), body
        finally:
            if conn is None:
                c.close()

    def json(self, path, want=200):
        status, headers, body = self.get(path)
        if status != want:
            fail(f"GET {path}: status {status}, wanted {want}: {body[:300]!r}")
        if not headers.get("Content-Type", "").startswith("application/json"):
            fail(f"GET {path}: content type {headers.get('Content-Type')}")
        return json.loads(body)

    def stop(self, sig=15, want=0):
        self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("slog-serve did not stop within 60 s of a signal")
        if self.proc.returncode != want:
            fail(f"slog-serve exited {self.proc.returncode}, wanted {want}; stderr: {err}")
        return err


def decode_bin(body):
    """The SLW1 window encoding -> (flags, t0, t1, list of item dicts)."""
    if body[:4] != b"SLW1":
        fail(f"binary window: bad magic {body[:4]!r}")
    n, flags, reserved = struct.unpack_from("<III", body, 4)
    t0, t1 = struct.unpack_from("<dd", body, 16)
    if reserved != 0:
        fail("binary window: reserved field not 0")
    at = 32
    cols = {}
    for name, fmt, size in (("start", "d", 8), ("end", "d", 8), ("count", "d", 8),
                            ("inclusive", "d", 8), ("value", "d", 8), ("timeline", "I", 4),
                            ("timeline_to", "I", 4), ("category", "I", 4), ("depth", "I", 4),
                            ("kind", "B", 1), ("of", "B", 1)):
        if at % 8 != 0:
            fail(f"binary window: column {name} at unaligned offset {at}")
        cols[name] = struct.unpack_from(f"<{n}{fmt}", body, at)
        at += n * size
        pad = (-at) % 8
        if body[at:at + pad] != b"\0" * pad:
            fail(f"binary window: padding after {name} not zero")
        at += pad
    if at != len(body):
        fail(f"binary window: {len(body)} bytes, layout says {at}")
    items = []
    for i in range(n):
        it = {k: v[i] for k, v in cols.items()}
        it["kind"] = KINDS[it["kind"]]
        it["of"] = KINDS[it["of"]]
        items.append(it)
    return flags, t0, t1, items


def _varint(body, at):
    """One LEB128 varint at body[at:] -> (value, next offset)."""
    v, shift = 0, 0
    while True:
        if at >= len(body) or shift > 63:
            fail(f"packed window: varint runs past byte {at}")
        b = body[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, at


def _unzigzag(z):
    return (z >> 1) ^ -(z & 1)


def decode_packed(body):
    """The SLW2 window encoding -> (flags, t0, t1, list of item dicts), decoded
    independently of the server and the viewer (doc/VIEWER.md)."""
    if body[:4] != b"SLW2":
        fail(f"packed window: bad magic {body[:4]!r}")
    n, flags, size = struct.unpack_from("<III", body, 4)
    t0, t1 = struct.unpack_from("<dd", body, 16)
    if 32 + size != len(body):
        fail(f"packed window: header says {size} body bytes, {len(body) - 32} came")
    at, timeline, start, length, depth, items = 32, 0, 0, 0, 0, []
    for i in range(n):
        k, f = body[at], body[at + 1]
        at += 2
        it = {"kind": KINDS[k & 7], "of": KINDS[(k >> 3) & 7]}
        same = f & 4  # the box (timeline, start, end, depth) of the item before
        if same and i == 0:
            fail("packed window: the first item repeats a box")
        if not same:
            d, at = _varint(body, at)
            timeline += _unzigzag(d)
        c, at = _varint(body, at)
        if not same:
            d, at = _varint(body, at)
            start += _unzigzag(d)
            d, at = _varint(body, at)
            length = _unzigzag(d)
            depth, at = _varint(body, at)
        it.update(timeline=timeline, category=(c - 1) % 2**32, start=start, end=start + length)
        it["depth"] = depth
        it["count"], at = _varint(body, at) if k & 0x40 else (1, at)
        if k & 0x80:
            d, at = _varint(body, at)
            it["inclusive"] = _unzigzag(d)
        else:
            it["inclusive"] = length if it["kind"] in ("state", "arrow") else 0
        it["timeline_to"] = timeline
        if f & 2:
            d, at = _varint(body, at)
            it["timeline_to"] = timeline + _unzigzag(d)
        it["value"] = 0.0
        if f & 1:
            it["value"] = struct.unpack_from("<d", body, at)[0]
            at += 8
        items.append(it)
    if at != len(body):
        fail(f"packed window: items end at byte {at} of {len(body)}")
    return flags, t0, t1, items


def temp_folder():
    return tempfile.TemporaryDirectory(prefix="slog-serve-test.")
