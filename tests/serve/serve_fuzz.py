#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# serve_fuzz.py - hostile and malformed requests against slog-serve: other
# methods, bodies, over-long URLs and headers, broken request lines, path
# traversal and NUL bytes, every endpoint with bad, missing, huge, negative
# and overflowing parameters (a fixed table, then seeded random mixes of
# them), huge id lists, and connections that send half a request and stall.
# Every answer must be a clean HTTP answer: the expected 4xx for a request
# known to be bad (with a JSON error body when slog-serve itself answers),
# 200 or 4xx for random mixes, never 5xx or a dropped connection; afterwards
# the server must still answer, and stop on SIGTERM with exit 0 (under ASan:
# without a leak).
# Usage: serve_fuzz.py SLOG_SERVE SLOG_SYNTH
import json
import random
import socket
import sys
import time
import urllib.parse

from servelib import Server, fail, make_trace, temp_folder

ENDPOINTS = {
    "window": ["f", "t0", "t1", "px", "rows", "cats", "kinds", "enc", "max"],
    "stats": ["f", "t0", "t1", "rows", "cats", "kinds", "by"],
    "find": ["f", "cat", "after", "before", "rows", "kinds"],
    "top": ["f", "cat", "n", "t0", "t1", "rows"],
    "args": ["f", "kind", "timeline", "category", "start", "end", "depth"],
    "info": ["f"], "timelines": ["f"], "categories": ["f"], "files": [],
}

HOSTILE = ["", "-", "-0", "+1", " 1", "1 ", "0x10", "1e3", "1.5", "١", "9" * 30,
           "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "-9223372036854775809", "18446744073709551615", "18446744073709551616", "-1",
           "4294967295", "4294967296", "0,", ",0", "0,,1", "1-", "-1-2", "5-3", "0-4294967295",
           "0-99999999999", "a,b", "state,", "json ", "bin\x00", "%00", "\x00", "\xff\xfe",
           "../../etc/passwd", "<script>", "'", "\"", "\\", "null", "true", "[]", "{}"]

GOOD = {"f": ["0"], "t0": ["0", "100"], "t1": ["1000000", "5000000"], "px": ["0", "1000"],
        "rows": ["0", "1-3"], "cats": ["0", "0,1"], "kinds": ["state", "preview,run"],
        "enc": ["bin", "json"], "max": ["1", "100"], "by": ["both"], "cat": ["1"],
        "after": ["0"], "before": ["3000000"], "n": ["3"], "kind": ["state"],
        "timeline": ["1"], "category": ["1"], "start": ["0"], "end": ["10"], "depth": ["0"]}


def raw(srv, data, timeout=10, may_stay_silent=False):
    """Send bytes on a fresh connection; (status, body) of the answer, or fail.
    may_stay_silent: a request the server cannot parse may get no answer (it
    waits for the rest, or closes); then (None, b"")."""
    s = socket.create_connection((srv.host, srv.port), timeout=timeout)
    try:
        s.sendall(data)
        chunks = []
        while True:
            try:
                c = s.recv(65536)
            except ConnectionResetError:
                break
            except TimeoutError:
                if not may_stay_silent:
                    raise
                break
            if not c:
                break
            chunks.append(c)
            got = b"".join(chunks)
            if b"\r\n\r\n" in got:
                head, _, body = got.partition(b"\r\n\r\n")
                length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")]
                if length and len(body) >= length[0]:
                    break
        got = b"".join(chunks)
    finally:
        s.close()
    if may_stay_silent and not got:
        return None, b""
    if not got.startswith(b"HTTP/1."):
        fail(f"no HTTP answer to {data[:80]!r}: {got[:80]!r}")
    status = int(got.split(b" ", 2)[1])
    return status, got.partition(b"\r\n\r\n")[2]


def expect(srv, data, statuses, what, may_stay_silent=False):
    status, body = raw(srv, data, 2 if may_stay_silent else 10, may_stay_silent)
    if status is None:
        return status, body
    if status not in statuses:
        fail(f"{what}: status {status}, wanted {statuses}: {body[:200]!r}")
    return status, body


def get_line(path, headers=b"Host: 127.0.0.1\r\n"):
    return b"GET " + path + b" HTTP/1.1\r\n" + headers + b"Connection: close\r\n\r\n"


def check_json_error(srv, path, statuses, what):
    status, body = expect(srv, get_line(path), statuses, what)
    if status >= 400:
        try:
            err = json.loads(body)["error"]
        except (ValueError, KeyError, TypeError):
            fail(f"{what}: 4xx body is not {{\"error\": ...}}: {body[:200]!r}")
        if not isinstance(err, str) or not err:
            fail(f"{what}: empty error text")
    return status


def check_protocol(srv):
    for m in [b"POST", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PATCH", b"FOO"]:
        expect(srv, m + b" /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
               b"Connection: close\r\n\r\n", [405], f"method {m!r}")
    expect(srv, b"GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n"
           b"Connection: close\r\n\r\nhello", [413], "GET with a body")
    expect(srv, b"GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
           b"Connection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n", [413], "chunked body")
    expect(srv, get_line(b"/api/window?f=0&t0=" + b"1" * 100000), [414, 431, 400],
           "100 KB URL")
    expect(srv, get_line(b"/api/files", b"Host: 127.0.0.1\r\nX-Big: " + b"a" * 100000 + b"\r\n"),
           [431, 413, 400], "100 KB header")
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(3000))
    expect(srv, get_line(b"/api/files", b"Host: 127.0.0.1\r\n" + many), [431, 413, 400],
           "3000 headers")
    for junk in [b"\r\n\r\n", b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET  HTTP/1.1\r\nHost: x\r\n\r\n",
                 b"\x00\x01\x02\xff\r\n\r\n", b"GET /api/files HTTP/1.1\r\nHost\r\n\r\n"]:
        expect(srv, junk, range(400, 506), f"malformed request {junk[:30]!r}", True)
    expect(srv, get_line(b"/api/files", b"Host: evil.example\r\n"), [403], "foreign Host")
    expect(srv, b"GET /api/files HTTP/1.1\r\nConnection: close\r\n\r\n", [400],
           "HTTP/1.1 without Host")
    expect(srv, b"GET /api/files HTTP/1.0\r\n\r\n", [200], "HTTP/1.0 without Host")
    print("ok: methods, bodies, long URLs/headers and broken requests are 4xx")


def check_paths(srv):
    for p in [b"/../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd", b"/..%2f..%2fetc%2fpasswd",
              b"//etc/passwd", b"/web/index.html", b"/index.html%00.js", b"/api/../../etc/passwd",
              b"/api/info/../../../etc/passwd?f=0", b"/api/", b"/api", b"/API/files",
              b"/api/files/", b"/api/files%00", b"/%00", b"/\xff\xfe", b"/" + b"a/" * 2000,
              b"/api/window%3Ff=0", b"/.git/config", b"/meson.build"]:
        check_json_error(srv, p, [400, 404], f"path {p[:40]!r}")
    for q in [b"/api/info?f=0%00", b"/api/info?f%00=0", b"/api/info?f=0&f=0",
              b"/api/info?" + b"&".join(b"k%d=1" % i for i in range(40)) + b"&f=0",
              b"/api/info?f=%30%00", b"/api/info?f=../0"]:
        check_json_error(srv, q, [400], f"query {q[:40]!r}")
    print("ok: traversal, NUL bytes, duplicates and too many parameters are 4xx")


def url(endpoint, params):
    return "/api/" + endpoint + "?" + "&".join(
        f"{urllib.parse.quote(k, safe='')}={urllib.parse.quote(v, safe=',')}"
        for k, v in params)


def check_params(srv):
    conn = srv.conn()
    count = 0
    for ep, keys in ENDPOINTS.items():
        base = {k: GOOD[k][0] for k in keys}
        for key in keys:
            for bad in HOSTILE:
                params = dict(base)
                params[key] = bad
                status = fetch(srv, conn, url(ep, params.items()), ep)
                count += 1
                if bad in ("../../etc/passwd", "<script>", "\x00", "0x10", "+1", "1e3") \
                        and status < 400:
                    fail(f"/api/{ep} {key}={bad!r}: accepted ({status})")
    conn.close()
    print(f"ok: {count} requests with one hostile parameter each: 200 or 4xx")


def fetch(srv, conn, path, what):
    try:
        status, headers, body = srv.get(path, conn=conn)
    except (ConnectionError, OSError) as e:
        fail(f"{path}: connection failed: {e}")
    if status >= 500 or status not in (200, 400, 404):
        fail(f"{what} {path}: status {status}: {body[:200]!r}")
    if status >= 400 and not json.loads(body).get("error"):
        fail(f"{path}: 4xx without an error text")
    return status


def check_random(srv, rounds):
    rnd = random.Random(13)
    conn = srv.conn()
    seen = set()
    for _ in range(rounds):
        ep = rnd.choice(list(ENDPOINTS))
        params = []
        for key in ENDPOINTS[ep] + ["zz"]:
            r = rnd.random()
            if r < 0.2:
                continue
            pool = GOOD.get(key, ["1"]) if r < 0.7 else HOSTILE
            params.append((key, rnd.choice(pool)))
        seen.add(fetch(srv, conn, url(ep, params), ep))
    conn.close()
    if 200 not in seen or 400 not in seen:
        fail(f"random requests gave only {seen}: the mix is not testing both sides")
    print(f"ok: {rounds} random mixes of good and hostile parameters")


def check_big_lists(srv):
    rows = ",".join(str(i % 5) for i in range(4000))
    check_json_error(srv, url("window", [("f", "0"), ("rows", rows)]).encode(), [200],
                     "4000 repeated row ids")
    ranges = ",".join("0-4" for _ in range(5000))
    check_json_error(srv, url("window", [("f", "0"), ("rows", ranges), ("px", "100")]).encode(),
                     [200], "5000 overlapping ranges")
    check_json_error(srv, url("window", [("f", "0"), ("rows", "0-4294967294")]).encode(), [400],
                     "a range over every uint32")
    print("ok: big id lists are bounded")


def check_stalled(srv):
    stalled = []
    for i in range(20):
        s = socket.create_connection((srv.host, srv.port), timeout=5)
        s.sendall(b"GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * i)
        stalled.append(s)
    t = time.monotonic()
    files = srv.json("/api/files")
    if not files or time.monotonic() - t > 5:
        fail("the server does not answer while 20 connections stall")
    for s in stalled:
        s.close()
    print("ok: 20 stalled half-requests do not block the others")


def main():
    serve_tool, synth = sys.argv[1:3]
    with temp_folder() as tmp:
        path = make_trace(synth, tmp)
        srv = Server(serve_tool, [path], ["--threads", "2"])
        check_protocol(srv)
        check_paths(srv)
        check_params(srv)
        check_random(srv, 1500)
        check_big_lists(srv)
        check_stalled(srv)
        if srv.json("/api/info?f=0")["states"] != 3000:
            fail("the server's answers changed after the fuzzing")
        srv.stop()
    print("serve_fuzz: ok")


if __name__ == "__main__":
    main()
