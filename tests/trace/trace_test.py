#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace end to end (TAP): trace_prog traced by slog-trace, its trace
read back with slog-query --format jsonl and slog-info.

    trace_test.py SLOG_TRACE TRACE_PROG SLOG_QUERY SLOG_INFO

Checks: every known call of trace_prog appears, in order, with its args
(file name, bytes, offsets, results, errno of a failing call), then every
other I/O entry point (_unlocked, character, line, printf and fortified
stdio calls, end of file recorded as "eof" without a stale errno, the
vector calls); GNU sort's reads and writes of its files; the two
threads' calls on two thread timelines; the fork child's own file; the
program's exit status (exit, _exit, not found) passes through, exit and _exit as events with their status; a program
that ends by a signal it sends itself (Python's uncaught KeyboardInterrupt,
raise, kill) leaves a complete file with a kill event; a program
that crashes with SIGSEGV or is killed with SIGKILL leaves a file that
opens, marked incomplete, with the calls made before the last flush (the
test waits until a reader sees them, then crashes the program).
"""
import collections
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_tap import all_passed, ok  # noqa: E402

SLOG_TRACE, TRACE_PROG, SLOG_QUERY, SLOG_INFO = sys.argv[1:5]
# a sanitizer runtime that must be loaded first (the ASan build)
PRELOAD = os.environ.get("SLOG_TRACE_TEST_PRELOAD", "")
ENV = dict(os.environ, LD_PRELOAD=PRELOAD) if PRELOAD else None


def records(path):
    out = subprocess.run([SLOG_QUERY, "--format", "jsonl", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"slog-query {path}: {out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def complete(path):
    out = subprocess.run([SLOG_INFO, path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"slog-info {path}: {out.stderr.strip()}")
    for line in out.stdout.splitlines():
        if line.startswith("complete:"):
            return line.split()[1] == "yes"
    raise RuntimeError(f"slog-info {path}: no 'complete:' line")


def trace_file(out, pid):
    names = glob.glob(os.path.join(out, f"{socket.gethostname()}-{pid}.slog"))
    return names[0] if names else None


def expected_calls(d, fd, sfd):
    p, s = f"{d}/posix.dat", f"{d}/stdio.dat"
    flags = os.O_CREAT | os.O_RDWR | os.O_TRUNC
    return [
        ("open", {"path": p, "flags": flags, "mode": 0o644, "ret": fd}),
        ("write", {"fd": fd, "path": p, "count": 4096, "ret": 4096}),
        ("pwrite", {"fd": fd, "path": p, "count": 100, "offset": 8192, "ret": 100}),
        ("lseek", {"fd": fd, "path": p, "offset": 0, "whence": 0, "ret": 0}),
        ("read", {"fd": fd, "path": p, "count": 4096, "ret": 4096}),
        ("pread", {"fd": fd, "path": p, "count": 100, "offset": 8192, "ret": 100}),
        ("fsync", {"fd": fd, "path": p, "ret": 0}),
        ("fdatasync", {"fd": fd, "path": p, "ret": 0}),
        ("mmap", {"fd": fd, "path": p, "length": 4096, "offset": 0, "ret": 0}),
        ("munmap", {"length": 4096, "ret": 0}),
        ("fstat", {"fd": fd, "path": p, "ret": 0}),
        ("stat", {"path": p, "ret": 0}),
        ("lstat", {"path": p, "ret": 0}),
        ("close", {"fd": fd, "path": p, "ret": 0}),
        ("fopen", {"path": s, "mode": "w+", "ret": sfd}),
        ("fwrite", {"fd": sfd, "path": s, "size": 1, "count": 1000, "ret": 1000}),
        ("fseek", {"fd": sfd, "path": s, "offset": 0, "whence": 0, "ret": 0}),
        ("fread", {"fd": sfd, "path": s, "size": 1, "count": 1000, "ret": 1000}),
        ("fclose", {"fd": sfd, "path": s, "ret": 0}),
        ("open", {"path": f"{d}/missing/none.dat", "ret": -1, "errno": 2}),
    ]


def io_calls(d, v):
    """trace_prog_io.c's calls, in order (an arg None: the record has none)."""
    m, fd, w = f"{d}/more.dat", v["more fd"], v["more wfd"]

    def on(cat, **args):
        return (cat, dict({"fd": fd, "path": m}, **args))
    eof = {"ret": 0, "eof": 1, "errno": None}
    return ([on("fwrite", size=10, count=3, ret=3), on("fputs", count=4)] +
            [on("fputc", count=1, ret=1)] * 4 +
            [on("fprintf", ret=n) for n in (3, 4, 2, 2)] + [on("fseek", offset=0, ret=0)] +
            [on("fread", size=1, count=10, ret=10)] * 3 + [on("fgetc", count=1, ret=1)] * 4 +
            [on("ungetc", ret=1)] + [on("fgets", count=64, ret=n) for n in (1, 4, 3)] +
            [on("getline", ret=n) for n in (4, 2, 2)] +
            [on("fgets", count=64, **eof), on("fread", size=1, count=10, **eof),
             on("fgetc", **eof), on("getline", **eof)] +
            [("fgetc", dict(fd=0, **eof))] * 2 +
            [("fgetc", {"fd": w, "path": m, "ret": -1, "errno": 9}),
             ("fclose", {"fd": w, "ret": 0}), on("fclose", ret=0)])


def stdout_and_vector_calls(d, v):
    out = [("fprintf", {"fd": 1, "ret": n}) for n in (11, 8, 12, 9)]
    out += [("fputs", {"fd": 1, "count": 9}), ("fprintf", {"fd": 1, "ret": 10})]
    out += [("fputc", {"fd": 1, "count": 1, "ret": 1})] * 2 + [("fflush", {"fd": 1, "ret": 0})]
    out += [("dprintf", {"fd": 1, "ret": 12}), ("dprintf", {"fd": 1, "ret": 9})]
    p, fd = f"{d}/vec.dat", v["vec fd"]
    at = [(c, {"fd": fd, "path": p, "count": 300, "offset": o, "ret": 300})
          for c in ("pwritev", "preadv") for o in (0, 300, 600, 900)]
    return out + at + [
        ("preadv", {"fd": fd, "path": p, "count": 300, "offset": 1200, "ret": 0}),
        ("writev", {"fd": fd, "path": p, "count": 300, "ret": 300}),
        ("readv", {"fd": fd, "path": p, "count": 300, "ret": 300}),
        ("read", {"fd": fd, "path": p, "count": 10, "ret": 10}),
        ("pread", {"fd": fd, "path": p, "count": 10, "offset": 5, "ret": 10}),
        ("close", {"fd": fd, "path": p, "ret": 0})]


def find_in_order(recs, calls):
    """Each expected call in order among the records; returns the misses."""
    states = sorted((r for r in recs if r["kind"] == "state"), key=lambda r: r["start"])
    i, missing = 0, []
    for cat, args in calls:
        j = i
        while j < len(states) and not (states[j]["category"] == cat and
                                       all(states[j]["args"].get(k) == v for k, v in args.items())):
            j += 1
        if j == len(states):
            missing.append((cat, args))
        else:
            i = j + 1
    return missing


def parse_stdout(text):
    vals = {}
    for line in text.splitlines():
        what, _, kv = line.partition(" ")
        key, _, value = kv.partition("=")
        vals[f"{what} {key}"] = int(value)
    return vals


def test_calls(tmp):
    out, d = os.path.join(tmp, "calls.trace"), os.path.join(tmp, "calls")
    os.mkdir(d)
    p = subprocess.Popen([SLOG_TRACE, "-o", out, "--", TRACE_PROG, "calls", d],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV)
    stdout, stderr = p.communicate(timeout=120)
    if not ok(p.returncode == 0, "calls: trace_prog exits 0 under slog-trace", stderr):
        return
    vals = parse_stdout(stdout)
    main = trace_file(out, p.pid)
    if not ok(main is not None and complete(main), "calls: the process's file is complete",
              os.listdir(out)):
        return
    recs = records(main)
    missing = find_in_order(recs, expected_calls(d, vals["posix fd"], vals["stdio fd"]))
    ok(not missing, "calls: every POSIX and stdio call, in order, with its args",
       "missing: " + json.dumps(missing) + "\nrecorded: " +
       "\n".join(json.dumps([r["category"], r["args"]]) for r in recs[:80]))
    check_io_calls(recs, d, vals)
    check_threads(recs, d)
    check_fork(out, recs, d, vals["child pid"])
    manifest = [json.loads(x) for x in open(os.path.join(out, "manifest.jsonl"))]
    ok({m["pid"] for m in manifest} >= {p.pid, vals["child pid"]},
       "calls: the manifest lists the process and its child", manifest)


def check_io_calls(recs, d, vals):
    mains = [r for r in recs if r["timeline"].startswith("main ")]
    for name, calls in (("stdio _unlocked, character, line, printf, fortified calls; "
                         "end of file as eof, no stale errno", io_calls(d, vals)),
                        ("stdout calls, dprintf, preadv/pwritev (64, v2), readv/writev",
                         stdout_and_vector_calls(d, vals))):
        missing = find_in_order(mains, calls)
        ok(not missing, f"calls: {name}, in order, with their args",
           "missing: " + "\n".join(json.dumps(m) for m in missing[:10]) + "\nrecorded: " +
           "\n".join(json.dumps([r["category"], r["args"]]) for r in mains[-90:]))


def check_threads(recs, d):
    lines = {}
    for r in recs:
        if r["category"] == "open" and r["args"].get("path", "").startswith(f"{d}/thread"):
            lines[r["args"]["path"]] = r["timeline"]
    ok(len(lines) == 2 and len(set(lines.values())) == 2 and
       all(t.startswith("thread ") for t in lines.values()),
       "calls: each thread's open on its own thread timeline", lines)


def check_fork(out, recs, d, child):
    forks = [r for r in recs if r["category"] == "fork"]
    ok(len(forks) == 1 and forks[0]["args"].get("ret") == child,
       "calls: fork recorded in the parent with the child's pid", forks)
    f = trace_file(out, child)
    if not ok(f is not None and complete(f), "calls: the fork child has its own complete file",
              os.listdir(out)):
        return
    crecs = records(f)
    p = f"{d}/child.dat"
    missing = find_in_order(crecs, [("open", {"path": p}), ("write", {"path": p, "count": 5}),
                                    ("close", {"path": p, "ret": 0})])
    exits = [r for r in crecs if r["category"] == "_exit" and r["args"].get("status") == 0]
    ok(not missing and len(exits) == 1, "calls: the child's calls and _exit(0) in its file",
       json.dumps(missing) + "\n" + json.dumps(crecs[:20]))
    ok(not any(r["args"].get("path") == p for r in recs),
       "calls: the child's calls are not in the parent's file")


def test_exit_status(tmp):
    for mode, n in (("exit", 42), ("_exit", 7), ("exit", 0)):
        out = os.path.join(tmp, f"{mode}{n}.trace")
        p = subprocess.run([SLOG_TRACE, "-o", out, "--", TRACE_PROG, mode, str(n)],
                           capture_output=True, text=True, timeout=120, env=ENV)
        files = glob.glob(os.path.join(out, "*.slog"))
        ends = [r["args"] for r in records(files[0]) if r["category"] == mode] if files else None
        ok(p.returncode == n and len(files) == 1 and complete(files[0]) and
           ends == [{"status": n}],
           f"exit status: {mode}({n}) passes through, the file is complete and ends with an "
           f"{mode} event of status {n}", f"rc={p.returncode} files={files} {ends} {p.stderr}")
    p = subprocess.run([SLOG_TRACE, "-o", os.path.join(tmp, "none.trace"), "--",
                        os.path.join(tmp, "no-such-program")], capture_output=True, text=True,
                       env=ENV)
    ok(p.returncode == 127 and "no-such-program" in p.stderr,
       "exit status: a program that does not exist gives 127", p.stderr)
    p = subprocess.run([SLOG_TRACE, "-o", os.path.join(tmp, "x.trace")], capture_output=True)
    ok(p.returncode == 2, "usage: no program is a usage error (2)")


def test_self_signal(tmp):
    """A process that ends by sending itself a signal left at its default
    action (Python on an uncaught KeyboardInterrupt: kill(getpid(), SIGINT)
    after its own cleanup) left its file incomplete, without the calls since
    the last flush (with --flush 0: empty).  It is sealed before the signal,
    with a "kill" event, as at _exit."""
    runs = (("python", [sys.executable, "-c", "import os\nos.stat('.')\nraise KeyboardInterrupt"],
             2), ("raise", [TRACE_PROG, "raise", "15"], 15), ("kill", [TRACE_PROG, "kill", "1"], 1))
    for name, argv, sig in runs:
        if PRELOAD and name == "python":  # an uninstrumented program under ASan: see test_sort
            ok(True, "self signal: python # SKIP uninstrumented python under ASan")
            continue
        out = os.path.join(tmp, f"signal-{name}.trace")
        p = subprocess.run([SLOG_TRACE, "-o", out, "--flush", "0", "--", *argv],
                           capture_output=True, text=True, timeout=120, env=ENV)
        files = glob.glob(os.path.join(out, "*.slog"))
        recs = records(files[0]) if len(files) == 1 else []
        stats = [r for r in recs if r["category"] == "stat" and r["args"].get("path") == "."]
        kills = [r["args"] for r in recs if r["category"] == "kill"]
        ok(p.returncode == -sig and len(files) == 1 and complete(files[0]) and len(stats) == 1 and
           kills == [{"signal": sig}],
           f"self signal: {name} ends by signal {sig} as untraced, its file complete with its "
           f"calls and a kill event", f"rc={p.returncode} files={files} {kills} {p.stderr[-300:]}")


def wait_for_calls(out, pid, d, calls, limit=120.0):
    """Poll the live file until a reader sees the calls (bounded)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        f = trace_file(out, pid)
        try:
            if f is not None and not find_in_order(records(f), calls):
                return True
        except RuntimeError:
            pass
        time.sleep(0.1)
    return False


def untraced_status(tmp, mode):
    """How the program ends without the tracer (SIGSEGV; under ASan, its report's status)."""
    d = os.path.join(tmp, f"{mode}-untraced")
    os.mkdir(d)
    return subprocess.run([TRACE_PROG, mode, d], input="go\n", capture_output=True, text=True,
                          timeout=120).returncode


def test_crash(tmp, mode, kill):
    out, d = os.path.join(tmp, f"{mode}.trace"), os.path.join(tmp, mode)
    os.mkdir(d)
    want = -9 if kill else untraced_status(tmp, mode)
    p = subprocess.Popen([SLOG_TRACE, "-o", out, "--flush", "100", "--", TRACE_PROG, mode, d],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=ENV)
    line = p.stdout.readline() + p.stdout.readline()  # the program's fds, then it waits
    vals = parse_stdout(line)
    calls = expected_calls(d, vals.get("posix fd", -2), vals.get("stdio fd", -2))
    seen = wait_for_calls(out, p.pid, d, calls)
    if kill:
        p.kill()
        p.communicate(timeout=60)
    else:
        p.communicate("go\n", timeout=60)
    ok(seen and p.returncode == want and want != 0,
       f"{mode}: the program ends as it does untraced ({'SIGKILL' if kill else 'SIGSEGV'})",
       f"seen={seen} rc={p.returncode} untraced={want}")
    f = trace_file(out, p.pid)
    ok(f is not None and not complete(f) and not find_in_order(records(f), calls),
       f"{mode}: the trace opens, marked incomplete, with the calls made before the crash")


def test_merge_empty(tmp):
    """A process that records nothing (/bin/true) leaves a file without
    drawables; `slog-trace merge` joins it instead of failing on it (it
    failed with SLOG_EINVAL: the empty file's window was reversed)."""
    out = os.path.join(tmp, "empty.trace")
    run = subprocess.run([SLOG_TRACE, "-o", out, "--", "/bin/true"], env=ENV,
                         capture_output=True, text=True)
    merged = os.path.join(tmp, "empty.slog")
    m = subprocess.run([SLOG_TRACE, "merge", out, "-o", merged], env=ENV,
                       capture_output=True, text=True)
    ok(run.returncode == 0 and m.returncode == 0 and complete(merged) and records(merged) == [],
       f"merge of a file without drawables (exit {run.returncode}/{m.returncode}: "
       f"{m.stderr.strip()})")


def moved(r):
    """Bytes a record moved (0 for a failed call, end of file or no data call)."""
    cat, a = r["category"], r["args"]
    if a.get("ret", -1) < 0:
        return 0
    if cat in ("fread", "fwrite"):
        return a["size"] * a["ret"]
    if cat in ("fputs", "fputc"):
        return a["count"]
    data = ("read", "write", "pread", "pwrite", "readv", "writev", "preadv", "pwritev",
            "fgets", "fgetc", "getline", "fprintf", "dprintf")
    return a["ret"] if cat in data else 0


def test_sort(tmp):
    """GNU sort moves its data with fread_unlocked/fwrite_unlocked: the
    trace shows its reads of the input and writes of the output, byte for
    byte."""
    version = subprocess.run(["sort", "--version"], capture_output=True, text=True)
    if "GNU" not in version.stdout:
        ok(True, "sort: reads and writes of its files # SKIP no GNU sort")
        return
    # With the ASan runtime preloaded, an uninstrumented program (sort, python) hangs in glibc's
    # locale lock: libp11-kit's constructor (the preload's HDF5 -> libcurl -> gnutls) calls
    # newlocale before ASan has initialised; newlocale's malloc starts ASan there, whose dlerror
    # -> dcgettext unlocks the locale lock newlocale holds, and the lock's count goes wrong
    # (gdb watchpoint, 2026-12-07).  Not the tracer's doing; such programs are skipped here.
    if PRELOAD:
        ok(True, "sort: reads and writes of its files # SKIP uninstrumented sort under ASan")
        return
    inp, outp, out = (os.path.join(tmp, n) for n in ("in.txt", "sorted.txt", "sort.trace"))
    with open(inp, "w") as f:
        f.write("".join(f"{(i * 7919) % 20011}\n" for i in range(20000)))
    p = subprocess.run([SLOG_TRACE, "-o", out, "--", "sort", "-o", outp, inp],
                       capture_output=True, text=True, env=ENV)
    recs = [r for f in glob.glob(os.path.join(out, "*.slog")) for r in records(f)]
    got = {}
    for r in recs:
        key = (r["args"].get("path"), r["category"])
        got[key] = got.get(key, 0) + moved(r)
    read = sum(n for (path, _), n in got.items() if path == inp)
    written = sum(n for (path, _), n in got.items() if path == outp)
    size = os.path.getsize(inp)
    ok(p.returncode == 0 and read == size and written == os.path.getsize(outp) == size,
       f"sort: reads of the input ({read} of {size} bytes) and writes of the output "
       f"({written}) are in the trace",
       f"exit {p.returncode}, stderr {p.stderr[-500:]!r}; " +
       json.dumps({f"{k[0]} {k[1]}": n for k, n in got.items()}))


def traced_prog(tmp, mode):
    """trace_prog MODE run under slog-trace in a directory of its own:
    (the finished process, the directory, the records of its trace)."""
    d = os.path.join(tmp, mode)
    os.makedirs(d, exist_ok=True)
    out = os.path.join(tmp, f"{mode}.trace")
    p = subprocess.run([SLOG_TRACE, "-o", out, "--", TRACE_PROG, mode, d],
                       capture_output=True, text=True, env=ENV)
    return p, d, [r for f in glob.glob(os.path.join(out, "*.slog")) for r in records(f)]


def test_pipes(tmp):
    """pipe, socketpair, socket and accept are recorded, and the reads and
    writes through their descriptors name them "pipe" and "socket:unix"."""
    p, _, recs = traced_prog(tmp, "pipes")
    fds = [int(x) for x in p.stdout.split()] if p.returncode == 0 else []
    calls = [(r["category"], r["args"]) for r in recs
             if r["category"] in ("pipe", "socket", "accept", "read", "write")
             and r["args"].get("path", "") in ("pipe", "socket:unix", "socket:inet")]
    want = []
    if len(fds) == 5:
        r0, w0, s0, s1, inet = fds
        want = [("pipe", {"fd0": r0, "fd1": w0, "path": "pipe", "ret": 0}),
                ("socket", {"fd0": s0, "fd1": s1, "path": "socket:unix", "ret": 0}),
                ("write", {"fd": w0, "path": "pipe", "count": 3, "ret": 3}),
                ("read", {"fd": r0, "path": "pipe", "count": 3, "ret": 3}),
                ("write", {"fd": s0, "path": "socket:unix", "count": 3, "ret": 3}),
                ("read", {"fd": s1, "path": "socket:unix", "count": 3, "ret": 3}),
                ("socket", {"path": "socket:inet", "ret": inet}),
                ("accept", {"fd": inet, "path": "socket:inet", "ret": -1, "errno": 22})]
    got = sorted(calls, key=lambda c: json.dumps(c, sort_keys=True))
    ok(p.returncode == 0 and got == sorted(want, key=lambda c: json.dumps(c, sort_keys=True)),
       "pipes and sockets: made, named, and their reads and writes named",
       f"exit {p.returncode}, stderr {p.stderr[-300:]!r}; got {calls}")


def test_scanf(tmp):
    """fscanf by its C99 name (what <stdio.h> maps fscanf to), the GNU
    fscanf and vfscanf, then at the end of the file: each recorded as
    fscanf with the items converted, the last with "eof"."""
    p, d, recs = traced_prog(tmp, "scanf")
    got = [r["args"] for r in recs if r["category"] == "fscanf"]
    path = os.path.join(d, "nums.txt")
    fd = got[0].get("fd") if got else None  # the stream's descriptor, the same in all four
    want = [{"fd": fd, "path": path, "ret": 1}] * 3 + [{"fd": fd, "path": path, "ret": 0, "eof": 1}]
    ok(p.returncode == 0 and isinstance(fd, int) and fd >= 0 and got == want,
       "scanf: fscanf, __isoc99_fscanf and vfscanf recorded with the items read, eof at the end",
       f"exit {p.returncode}, stderr {p.stderr[-300:]!r}; got {got}")


def test_copy(tmp):
    """copy_file_range and sendfile: both files named, the bytes moved."""
    p, d, recs = traced_prog(tmp, "copy")
    got = [(r["category"], {k: v for k, v in r["args"].items() if not k.startswith("fd")})
           for r in recs if r["category"] in ("copy_file_range", "sendfile")]
    src, dst, dst2 = (os.path.join(d, n) for n in ("src.bin", "dst.bin", "dst2.bin"))
    want = [("copy_file_range", {"path_in": src, "path_out": dst, "count": 1000, "ret": 1000}),
            ("sendfile", {"path_in": src, "path_out": dst2, "count": 600, "ret": 600})]
    ok(p.returncode == 0 and got == want,
       "copy_file_range, sendfile: recorded with both files and the bytes moved",
       f"exit {p.returncode}, stderr {p.stderr[-300:]!r}; got {got}")


def test_names(tmp):
    """rename, renameat, renameat2 recorded as rename with both names;
    unlinkat with its flags (AT_REMOVEDIR 512), failures with errno;
    mkostemp as mkstemp, and the writes to its file by that name."""
    p, d, recs = traced_prog(tmp, "names")
    got = [(r["category"], {k: v for k, v in r["args"].items() if "dirfd" not in k})
           for r in recs if r["category"] in ("rename", "unlinkat")]
    dirfds = {v for r in recs if r["category"] in ("rename", "unlinkat")
              for k, v in r["args"].items() if "dirfd" in k}
    n1, n2 = os.path.join(d, "n1"), os.path.join(d, "n2")
    want = [("rename", {"path": n1, "newpath": n2, "ret": 0}),
            ("rename", {"path": "n2", "newpath": "n3", "ret": 0}),
            ("rename", {"path": "n2", "newpath": "n3", "flags": 1, "ret": -1, "errno": 17}),
            ("unlinkat", {"path": "n2", "flags": 0, "ret": 0}),
            ("unlinkat", {"path": "n3", "flags": 0, "ret": 0}),
            ("unlinkat", {"path": "sub", "flags": 512, "ret": 0}),
            ("unlinkat", {"path": "n3", "flags": 0, "ret": -1, "errno": 2})]
    ok(p.returncode == 0 and got == want and len(dirfds) == 1,
       "rename family and unlinkat: both names, the directory descriptor, flags, errno",
       f"exit {p.returncode}, stderr {p.stderr[-300:]!r}; got {got}, dirfds {dirfds}")
    # mkostemp opens inside the C library: its record and its name
    tmp = p.stdout.strip()
    made = [r["args"] for r in recs if r["category"] == "mkstemp"]
    fd = made[0].get("ret") if made else None
    wrote = [r["args"] for r in recs if r["category"] == "write" and r["args"]["fd"] == fd]
    ok(p.returncode == 0 and os.path.dirname(tmp) == d
       and made == [{"path": tmp, "flags": os.O_CLOEXEC, "ret": fd}]
       and wrote == [{"fd": fd, "path": tmp, "count": 5, "ret": 5}],
       "mkostemp: recorded as mkstemp with the file made, which names its descriptor",
       f"exit {p.returncode}, printed {tmp!r}; mkstemp {made}, writes {wrote}")


def test_tell(tmp):
    """ftell, ftello and ftello64 recorded as ftell with the position."""
    p, d, recs = traced_prog(tmp, "tell")
    got = [(r["category"], r["args"].get("ret")) for r in recs
           if r["category"] in ("ftell", "fseek")]
    ok(p.returncode == 0 and got == [("ftell", 5), ("fseek", 0), ("ftell", 2), ("ftell", 2)],
       "ftell, ftello, ftello64: each recorded as ftell with the stream's position",
       f"exit {p.returncode}, stderr {p.stderr[-300:]!r}; got {got}")


def test_closes(tmp):
    """Four threads open, read and close their own files 20000 times: every
    call names its thread's file.  A close cleared the number's name after
    the real close, when another thread's open could already have reused the
    number and named it: 9 of 80 000 reads had path "" (and fclose named
    the file another thread had just opened)."""
    p, d, recs = traced_prog(tmp, "closes")
    paths = {}
    for r in recs:
        if r["category"] in ("read", "close", "fdopen", "fclose") and \
                r["timeline"].startswith("thread "):
            paths.setdefault(r["timeline"], collections.Counter())[r["args"].get("path")] += 1
    want = {os.path.join(d, f"close{k}.txt") for k in range(4)}
    got = {t: c for t, c in paths.items() if len(c) != 1 or set(c) - want}
    ok(p.returncode == 0 and len(paths) == 4 and not got,
       "closes: four threads' 240 000 calls on descriptors each name the thread's own file",
       f"exit {p.returncode}; timelines {len(paths)}; mixed {got}")


def test_pexit(tmp):
    """The main thread ends by pthread_exit, the last thread returns: the
    process exits 0 (it ran on forever: the tracer's threads never end and
    the C library counted them), its file complete with the 5 writes."""
    d = os.path.join(tmp, "pexit")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(tmp, "pexit.trace")
    try:
        p = subprocess.run([SLOG_TRACE, "-o", out, "--", TRACE_PROG, "pexit", d],
                           capture_output=True, text=True, env=ENV, timeout=60)
        status = f"exit {p.returncode}, stderr {p.stderr[-300:]!r}"
    except subprocess.TimeoutExpired:
        p, status = None, "hung (killed after 60 s)"
    files = glob.glob(os.path.join(out, "*.slog"))
    path = os.path.join(d, "pexit.dat")
    writes = [r for f in files for r in records(f)
              if r["category"] == "write" and r["args"]["path"] == path] if p else []
    ok(p is not None and p.returncode == 0 and len(files) == 1 and complete(files[0])
       and len(writes) == 5,
       "main thread's pthread_exit: the process ends with its last thread, exit 0, file complete",
       f"{status}; {len(writes)} writes recorded")


def test_forks(tmp):
    """200 forks while two threads record pwrites: no deadlock (fork's
    handlers once took the HDF5 lock before the tracer's, a recording
    thread the other way round), every child ran, every fork recorded.
    Not under ASan: in CI 40 forks hung there with the locked writer too
    (not diagnosed; the ASan runtime preloaded into an uninstrumented fork
    loop, as with sort above), and the per-thread writer's fork, which
    waits for its background to be idle, took 93 s for 200 (6 s without)."""
    if PRELOAD:
        ok(True, "fork while threads record # SKIP under ASan (hung in CI, not diagnosed)")
        return
    n = 200
    d = os.path.join(tmp, "forks")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(tmp, "forks.trace")
    try:
        p = subprocess.run([SLOG_TRACE, "-o", out, "--flush", "2", "--", TRACE_PROG, "forks", d],
                           capture_output=True, text=True, env=ENV, timeout=120)
        status = f"exit {p.returncode}, stderr {p.stderr[-300:]!r}"
    except subprocess.TimeoutExpired:
        p, status = None, "hung (killed after 120 s)"
    child = os.path.join(d, "child.dat")
    forks = 0
    if p is not None and p.returncode == 0:
        forks = sum(1 for f in glob.glob(os.path.join(out, "*.slog")) for r in records(f)
                    if r["category"] == "fork" and r["args"].get("ret", 0) > 0)
    ok(p is not None and p.returncode == 0 and os.path.getsize(child) == n and forks == n,
       f"fork while threads record: {n} children ran, {n} forks in the trace, no hang",
       f"{status}; forks recorded {forks}")


def main():
    print("1..34")
    with tempfile.TemporaryDirectory(prefix="slog-trace-test-") as tmp:
        test_calls(tmp)
        test_exit_status(tmp)
        test_self_signal(tmp)
        test_crash(tmp, "crash", kill=False)
        test_crash(tmp, "wait", kill=True)
        test_merge_empty(tmp)
        test_sort(tmp)
        test_pipes(tmp)
        test_scanf(tmp)
        test_copy(tmp)
        test_names(tmp)
        test_tell(tmp)
        test_closes(tmp)
        test_pexit(tmp)
        test_forks(tmp)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
