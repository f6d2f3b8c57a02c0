#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# hostile.py - hostile input with bounded memory (issue 16 item 6): each case
# feeds slog-import an input built to exhaust it (10^5..10^6 distinct thread
# ids or category names, args nested 10^5 deep, a string of 16..100 MB, a
# stream of '[' generated on the fly into a pipe, ts of 1e300, negative
# durations, Perfetto packets whose length says 2^40 or 2^62 bytes) and checks
# the exit status, the message or counted repair it must give, and the
# child's peak RSS (os.wait4's ru_maxrss) against the case's limit.  The
# limits and the measured figures are in doc/RELIABILITY.md.
# Usage: hostile.py SLOG_IMPORT [--slow]   (TAP on stdout; --slow: the giant
# sizes, 1 GB of '[' and 10^6 ids, minutes, only with SLOG_GIANT=1 (else
# a skipped TAP plan); default: the CI sizes, seconds)
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

MiB = 1 << 20


def chunks_events(n, fmt):
    """The traceEvents document of n events fmt % i, in 1 MiB pieces."""
    yield b'{"traceEvents":['
    buf = []
    size = 0
    for i in range(n):
        s = (fmt % (i, i)) if "%d" in fmt else fmt
        buf.append(("," if i else "") + s)
        size += len(buf[-1])
        if size >= MiB:
            yield "".join(buf).encode()
            buf, size = [], 0
    yield ("".join(buf) + "]}").encode()


def brackets(total):
    """One good event, then `total` bytes of '[' (never stored)."""
    yield b'{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},'
    block = b"[" * MiB
    for _ in range(total // MiB):
        yield block


def deep_args(depth):
    yield b'{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":{"x":'
    yield b"[" * depth + b"]" * depth
    yield b"}}]}"


def long_string(size):
    yield b'{"traceEvents":[{"name":"'
    block = b"a" * MiB
    for _ in range(size // MiB):
        yield block
    yield b'","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},'
    yield b'{"name":"b","ph":"X","ts":2,"dur":1,"pid":1,"tid":1}]}'


def bad_times():
    ev = [{"name": "huge", "ph": "X", "ts": 1e300, "dur": 1, "pid": 1, "tid": 1},
          {"name": "neg", "ph": "X", "ts": 5, "dur": -3, "pid": 1, "tid": 1},
          {"name": "ok", "ph": "X", "ts": 5, "dur": 3, "pid": 1, "tid": 1},
          {"name": "nan", "ph": "i", "ts": -1e300, "pid": 1, "tid": 1}]
    yield json.dumps({"traceEvents": ev}).encode()


def nested_b(n):
    """n B events on one thread, never ended, then an instant."""
    yield b'{"traceEvents":['
    for lo in range(0, n, 20000):
        yield "".join('{"name":"a","ph":"B","ts":%d,"pid":1,"tid":1},' % i
                      for i in range(lo, min(n, lo + 20000))).encode()
    yield b'{"name":"i","ph":"i","ts":%d,"pid":1,"tid":1}]}' % n


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def perfetto_event(ts, kind):
    """A TracePacket: timestamp ts, a track event of type kind (1 slice
    begin, 3 instant) named "a" on track 1."""
    te = b"\x48" + varint(kind) + b"\x58\x01\xba\x01\x01a"
    body = b"\x40" + varint(ts) + b"\x5a" + varint(len(te)) + te
    return b"\x0a" + varint(len(body)) + body


def perfetto_nested(n):
    """n slice begins on one track, never ended, then an instant."""
    for lo in range(0, n, 20000):
        yield b"".join(perfetto_event(10 + i, 1) for i in range(lo, min(n, lo + 20000)))
    yield perfetto_event(10 + n, 3)


def perfetto_huge_length(length, tail):
    """A good packet (timestamp, instant on track 1 named "a"), then a
    packet whose length field says `length` bytes, then `tail` bytes."""
    good = b"\x0a\x0c\x40\x0a\x5a\x08\x48\x03\x58\x01\xba\x01\x01a"
    yield good + b"\x0a" + varint(length)
    block = b"\x00" * MiB
    for _ in range(tail // MiB):
        yield block


def feed(proc, gen):
    try:
        for piece in gen:
            proc.stdin.write(piece)
        proc.stdin.close()
    except (BrokenPipeError, ValueError):
        pass


def otf2_archive(tool, tmp, kind, n):
    """An OTF2 archive written by otf2_hostile; its anchor file."""
    where = os.path.join(tmp, f"otf2-{kind}-{n}")
    shutil.rmtree(where, ignore_errors=True)
    subprocess.run([tool, kind, where, str(n)], check=True, timeout=600)
    return os.path.join(where, "traces.otf2")


def run_case(slog_import, case, tmp, otf2_tool):
    args = [slog_import, "--json", "-o", os.path.join(tmp, "out.slog")]
    if case.get("format"):
        args += ["--format", case["format"]]
    args.append(otf2_archive(otf2_tool, tmp, *case["otf2"]) if "otf2" in case else "-")
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    feeder = threading.Thread(target=feed, args=(proc, case["input"]() if "input" in case
                                                 else iter(())))
    feeder.start()
    out = []
    err = []
    readers = [threading.Thread(target=lambda: out.append(proc.stdout.read())),
               threading.Thread(target=lambda: err.append(proc.stderr.read()))]
    for t in readers:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join()
    feeder.join()
    return proc.returncode, out[0].decode(errors="replace"), err[0].decode(errors="replace"), \
        usage.ru_maxrss / 1024.0


def records(stdout):
    try:
        return {r["what"]: r for r in json.loads(stdout)["records"]}
    except (ValueError, KeyError):
        return {}


def check(case, status, stdout, stderr, rss):
    why = []
    if status != case["exit"]:
        why.append(f"exit {status}, expected {case['exit']}")
    if case.get("stderr") and case["stderr"] not in stderr:
        why.append(f"stderr lacks {case['stderr']!r}: {stderr[-300:]!r}")
    for what, field, n in case.get("counts", []):
        got = records(stdout).get(what, {}).get(field)
        if got != n:
            why.append(f"{what} {field} = {got}, expected {n}")
    if rss > case["rss_mib"]:
        why.append(f"peak RSS {rss:.1f} MiB over the limit {case['rss_mib']} MiB")
    return why


def nesting(slow):
    """Open spans of the nesting cases: past the writer's 100 000 levels."""
    return 3000000 if slow else 150000


def otf2_cases(slow):
    """Archives libotf2 accepts but an importer must not trust."""
    deep = nesting(slow)
    locs = 2000 if slow else 300
    return [
        {"name": f"OTF2: {deep} nested ENTERs", "otf2": ("deep", deep), "exit": 0,
         "counts": [("ENTER nested deeper than 100000 levels (skipped with its LEAVE)",
                     "skipped", deep - 100001), ("ENTER", "imported", 100002),
                    ("LEAVE", "imported", 100002)],
         "rss_mib": 64 + 100001 * 0.5 / 1024},
        {"name": "OTF2: a location of 2^64-1 events, a 1 Hz clock, times past 2^63 ns",
         "otf2": ("absurd", 1), "exit": 0,
         "counts": [("event time past +-2^63 ns from the clock's offset (skipped)", "skipped", 4),
                    ("ENTER", "imported", 1), ("LEAVE", "imported", 1)], "rss_mib": 64},
        # libotf2's global reader holds a chunk buffer (1 MiB here) per location
        {"name": f"OTF2: {locs} locations", "otf2": ("locations", locs), "exit": 0,
         "counts": [("ENTER", "imported", locs)], "rss_mib": 64 + locs * 1.1},
    ]


def cases(slow):
    ids = 1000000 if slow else 100000
    stream = (1 << 30) if slow else (64 << 20)
    string = (100 << 20) if slow else (16 << 20)
    deep = nesting(slow)
    x = '{"name":"a","ph":"X","ts":%d,"dur":1,"pid":1,"tid":%d}'
    c = '{"name":"n%d","ph":"X","ts":%d,"dur":1,"pid":1,"tid":1}'
    return [
        {"name": f"{ids} distinct thread ids", "input": lambda: chunks_events(ids, x),
         "exit": 0, "counts": [("X -> state", "imported", ids)],
         "rss_mib": 64 + ids * 1.0 / 1024},
        {"name": f"{ids} distinct category names",
         "input": lambda: chunks_events(ids, c),
         "exit": 0, "counts": [("X -> state", "imported", ids)],
         "rss_mib": 64 + ids * 0.5 / 1024},
        {"name": "args nested 10^5 deep", "input": lambda: deep_args(100000),
         "exit": 1, "stderr": "nesting deeper than 4096 levels", "rss_mib": 64},
        {"name": f"{stream >> 20} MiB stream of '['", "input": lambda: brackets(stream),
         "exit": 1, "stderr": "nesting deeper than 4096 levels", "rss_mib": 64},
        {"name": f"a {string >> 20} MiB string", "input": lambda: long_string(string),
         "exit": 0, "counts": [("string over 1 MiB cut", "repaired", 1),
                               ("X -> state", "imported", 2)],
         "rss_mib": 64 + 1.5 * (string >> 20)},
        {"name": "ts 1e300, -1e300 and a negative duration", "input": bad_times,
         "exit": 0, "counts": [("X -> state", "imported", 1),
                               ("ts/dur not a number or out of range", "skipped", 2),
                               ("X with negative dur", "skipped", 1)], "rss_mib": 64},
        # a writer takes 100000 levels: the spans deeper are skipped, counted,
        # and the stack of open spans stops growing (about 1.5 KiB a span)
        {"name": f"{deep} nested B never ended", "input": lambda: nested_b(deep),
         "exit": 0, "counts": [("span nested deeper than 100000 levels", "skipped",
                                deep - 100001),
                               ("B left open (closed at trace end)", "repaired", 100001),
                               ("i/I/R -> event", "imported", 1)],
         "rss_mib": 64 + 100001 * 1.5 / 1024},
        {"name": f"Perfetto: {deep} nested slices never ended", "format": "perfetto",
         "input": lambda: perfetto_nested(deep), "exit": 0,
         "counts": [("slice nested deeper than 100000 levels", "skipped", deep - 100001),
                    ("slice begin never ended (closed at trace end)", "repaired", 100001),
                    ("instant -> event", "imported", 1)],
         "rss_mib": 64 + 100001 * 1.5 / 1024},
        {"name": "Perfetto packet of 2^40 bytes", "format": "perfetto",
         "input": lambda: perfetto_huge_length(1 << 40, 4 * MiB), "exit": 0,
         "stderr": "impossible packet length", "counts": [("packets", "imported", 1)],
         "rss_mib": 64},
        {"name": "Perfetto packet of 2^30 bytes cut at 64 MiB", "format": "perfetto",
         "input": lambda: perfetto_huge_length(1 << 30, 64 * MiB), "exit": 1,
         "stderr": "no packet follows within 64 MiB", "rss_mib": 64},
        {"name": "Perfetto packet of 2^62 bytes", "format": "perfetto",
         "input": lambda: perfetto_huge_length(1 << 62, MiB), "exit": 0,
         "stderr": "impossible packet length", "counts": [("packets", "imported", 1)],
         "rss_mib": 64},
    ]


def main():
    slog_import = sys.argv[1]
    slow = "--slow" in sys.argv[2:]
    otf2_tool = sys.argv[sys.argv.index("--otf2") + 1] if "--otf2" in sys.argv else None
    if slow and os.environ.get("SLOG_GIANT") != "1":
        print("1..0 # SKIP the giant sizes take minutes: run with SLOG_GIANT=1")
        return 0  # TAP: the plan says skipped
    todo = cases(slow)
    if otf2_tool:
        todo += otf2_cases(slow)
    print(f"1..{len(todo)}")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="slog-hostile.") as tmp:
        for n, case in enumerate(todo, 1):
            status, stdout, stderr, rss = run_case(slog_import, case, tmp, otf2_tool)
            why = check(case, status, stdout, stderr, rss)
            verdict = "ok" if not why else "not ok"
            failed += bool(why)
            print(f"{verdict} {n} - {case['name']}: exit {status}, peak RSS {rss:.1f} MiB "
                  f"(limit {case['rss_mib']:.0f})")
            for w in why:
                print(f"# {w}")
            sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
