#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# corrupt.py - the corruption campaign of issue 16: damaged copies of libslog
# files of every kind (slog-synth; Chrome, OTF2 and Perfetto traces of
# ../shared/corpus imported with slog-import), each read with slog-info, a full
# slog-query, a 500-pixel query, --stats and a search (--find).  A copy's
# verdict is the worst of its five reads:
#   identical  exit 0 and the original's output (the damage was not read)
#   error      non-zero exit and a message on stderr naming the file
#   mute       non-zero exit without such a message
#   SILENT     exit 0 with an output that differs from the original's
#   CRASH      a signal or a sanitizer report
#   HANG       still running after --timeout seconds
# Damage: one byte changed (xor with 1..255) at a random place, in the first or
# last 64 KiB, in a /payload chunk, in a table row (nodes, timelines,
# categories, summary, strings chunks) or in HDF5 metadata (superblock, object
# headers - the root's holds the attributes -, chunk indexes and heaps: the
# bytes that are neither raw data nor superblock nor object header); a zeroed
# aligned 4 KiB block; a truncation.  Positions come from tests/corrupt/h5map.
# Exit status: 0 when nothing is SILENT, CRASH, HANG or mute; 1 otherwise;
# 77 when no original could be made; 2 on bad arguments.
# Python 3 standard library only.
import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys

CLASSES = ["flip_random", "flip_head", "flip_tail", "flip_payload", "flip_rows",
           "flip_meta", "zero_4k", "truncate"]
ROW_SETS = ("nodes", "timelines", "categories", "summary", "strings")
BAD = ("SILENT", "CRASH", "HANG", "mute")
RANK = {"identical": 0, "error": 1, "mute": 2, "SILENT": 3, "HANG": 4, "CRASH": 5}


def tool(build, name):
    return os.path.join(build, "utils", name, name)


# Leaks inside libhdf5 on damaged files are HDF5's (tests/lsan.supp, as in CI);
# libslog's own leaks are still reported.
ENV = dict(os.environ)
ENV.setdefault("LSAN_OPTIONS", "suppressions=" + os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "lsan.supp") + ":print_suppressions=0")


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=ENV)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b""


# ---- originals ---------------------------------------------------------------

def corpus_inputs(corpus):
    """(kind, source path) of the imported originals; absent files are skipped."""
    want = [("chrome", "catapult/big_trace.json"),
            ("chrome", "lighthouse/timespan-responsiveness-m103.trace.json"),
            ("otf2", "pipit/ping-pong-otf2/traces.otf2"),
            ("perfetto", "perfetto/android__common_perfetto_trace.pb"),
            ("perfetto", "perfetto/perfetto-script__nested_tracks.perfetto-trace")]
    return [(k, os.path.join(corpus, p)) for k, p in want
            if os.path.exists(os.path.join(corpus, p))]


def make_originals(a):
    out = []
    synth = os.path.join(a.work, "orig_synth.slog")
    rc, _, err = run([tool(a.build, "slog-synth"), "--states", str(a.states), "--timelines", "12",
                      "--seed", "5", "--quiet", "-o", synth], 300)
    if rc == 0:
        out.append(("synth", synth))
    else:
        print("corrupt: slog-synth failed: %s" % err.decode(errors="replace"), file=sys.stderr)
    kinds = set(a.kinds.split(","))
    for i, (kind, src) in enumerate(corpus_inputs(a.corpus)):
        if kind not in kinds:
            continue
        dst = os.path.join(a.work, "orig_%s_%d.slog" % (kind, i))
        rc, _, err = run([tool(a.build, "slog-import"), "--quiet", src, "-o", dst], 300)
        if rc == 0:
            out.append((kind, dst))
        else:
            print("corrupt: import of %s skipped (exit %s): %s" %
                  (src, rc, err.decode(errors="replace").strip()), file=sys.stderr)
    for v1 in a.extra:
        out.append(("extra", v1))
    return [(k, p) for k, p in out if k in kinds or k == "extra"]


def first_category(a, path):
    rc, out, _ = run([tool(a.build, "slog-info"), "--json", "--all", path], 60)
    if rc != 0:
        return None
    cats = json.loads(out).get("category_list", [])
    for want in ("state", "event", "arrow", "counter"):
        for c in cats:
            if c.get("kind") == want and c.get("name"):
                return c["name"]
    return None


def reads(a, path, find):
    """The five reads of a copy: (label, argv)."""
    q = tool(a.build, "slog-query")
    out = [("info", [tool(a.build, "slog-info"), "--all", path]),
           ("query", [q, path, "--format", "jsonl"]),
           ("pixels", [q, path, "--pixels", "500", "--format", "jsonl"]),
           ("stats", [q, path, "--stats", "--by", "both"])]
    if find is not None:
        out.append(("find", [q, path, "--find", find, "--top", "50", "--format", "jsonl"]))
    return out


def digest(data, path):
    return hashlib.sha256(data.replace(path.encode(), b"FILE")).hexdigest()


# ---- damage ------------------------------------------------------------------

def h5regions(a, path):
    rc, out, err = run([os.path.join(a.build, "tests", "corrupt", "h5map"), path], 60)
    if rc != 0:
        raise SystemExit("corrupt: h5map %s failed: %s" % (path, err.decode(errors="replace")))
    size, regions = 0, []
    for line in out.decode().split("\n"):
        f = line.split()
        if not f:
            continue
        if f[0] == "file":
            size = int(f[1])
        else:
            regions.append((f[0], int(f[1]), int(f[2]), f[3] if len(f) > 3 else ""))
    return size, regions


def target_ranges(size, regions):
    """Byte ranges per damage class (lists of [start, end))."""
    payload = [(s, s + n) for k, s, n, name in regions if k == "chunk" and name == "payload"]
    rows = [(s, s + n) for k, s, n, name in regions
            if k in ("chunk", "contig") and name in ROW_SETS]
    named = [(s, s + n) for k, s, n, _ in regions]
    meta = [(s, s + n) for k, s, n, _ in regions if k in ("super", "ohdr")]
    meta += complement(size, named)
    return {"flip_random": [(0, size)], "flip_head": [(0, min(size, 65536))],
            "flip_tail": [(max(0, size - 65536), size)], "flip_payload": payload,
            "flip_rows": rows, "flip_meta": meta}


def complement(size, ranges):
    out, at = [], 0
    for s, e in sorted(ranges):
        if s > at:
            out.append((at, s))
        at = max(at, e)
    if at < size:
        out.append((at, size))
    return out


def pick(rng, ranges):
    ranges = [(s, e) for s, e in ranges if e > s]
    total = sum(e - s for s, e in ranges)
    if total == 0:
        return None
    k = rng.randrange(total)
    for s, e in ranges:
        if k < e - s:
            return s + k
        k -= e - s
    return None


def damage(rng, cls, data, ranges):
    """A damaged copy of data and a description, or None if cls has no target."""
    b = bytearray(data)
    if cls == "truncate":
        at = rng.randrange(len(b))
        return bytes(b[:at]), "truncated at %d" % at
    if cls == "zero_4k":
        at = rng.randrange((len(b) + 4095) // 4096) * 4096
        b[at:at + 4096] = bytes(len(b[at:at + 4096]))
        return bytes(b), "zeroed [%d, %d)" % (at, min(at + 4096, len(b)))
    at = pick(rng, ranges[cls])
    if at is None:
        return None
    x = rng.randrange(1, 256)
    b[at] ^= x
    return bytes(b), "byte %d xor 0x%02x" % (at, x)


# ---- verdicts ----------------------------------------------------------------

def verdict_of(rc, out, err, base, path):
    text = err.decode(errors="replace")
    if rc is None:
        return "HANG"
    if rc < 0 or "Sanitizer" in text or "runtime error:" in text:
        return "CRASH"
    if rc == 0:
        return "identical" if digest(out, path) == base else "SILENT"
    name = os.path.basename(path)
    return "error" if name in text and len(text.strip()) > len(name) + 2 else "mute"


def check_copy(a, job):
    kind, cls, path, what, base, find = job
    worst, detail = "identical", []
    for label, argv in reads(a, path, find):
        rc, out, err = run(argv, a.timeout)
        v = verdict_of(rc, out, err, base[label], path)
        detail.append((label, v, rc, err.decode(errors="replace").strip()[:300]))
        worst = v if RANK[v] > RANK[worst] else worst
    if worst not in BAD and not a.keep:
        os.unlink(path)
    return kind, cls, path, what, worst, detail


def baseline(a, kind, path):
    find = first_category(a, path)
    base = {}
    for label, argv in reads(a, path, find):
        rc, out, err = run(argv, a.timeout * 4)
        if rc != 0:
            raise SystemExit("corrupt: %s of the original %s failed (exit %s): %s" %
                             (label, path, rc, err.decode(errors="replace")))
        base[label] = digest(out, path)
    return base, find


def jobs_for(a, rng, originals):
    jobs = []
    for kind, path in originals:
        data = open(path, "rb").read()
        size, regions = h5regions(a, path)
        ranges = target_ranges(size, regions)
        base, find = baseline(a, kind, path)
        stem = os.path.splitext(os.path.basename(path))[0]
        for i in range(a.copies):
            cls = CLASSES[i % len(CLASSES)]
            d = damage(rng, cls, data, ranges)
            if d is None:
                continue
            copy = os.path.join(a.work, "%s_%s_%05d.slog" % (stem, cls, i))
            with open(copy, "wb") as f:
                f.write(d[0])
            jobs.append((kind, cls, copy, d[1], base, find))
    return jobs


# ---- report ------------------------------------------------------------------

def report(a, results):
    table = {}
    for kind, cls, _, _, worst, _ in results:
        table.setdefault((kind, cls), {}).setdefault(worst, 0)
        table[(kind, cls)][worst] += 1
    cols = ["identical", "error", "mute", "SILENT", "CRASH", "HANG"]
    print("%-10s %-13s %s" % ("kind", "damage", " ".join("%9s" % c for c in cols)))
    totals = dict.fromkeys(cols, 0)
    for (kind, cls), counts in sorted(table.items()):
        print("%-10s %-13s %s" % (kind, cls, " ".join("%9d" % counts.get(c, 0) for c in cols)))
        for c in cols:
            totals[c] += counts.get(c, 0)
    print("%-24s %s" % ("all %d copies" % len(results),
                        " ".join("%9d" % totals[c] for c in cols)))
    bad = [r for r in results if r[4] in BAD and r[0] != "extra"]
    for kind, cls, path, what, worst, detail in bad:
        print("%s: %s %s (%s): %s" % (worst, kind, path, what,
                                       "; ".join("%s %s rc=%s %s" % d for d in detail)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": 1, "totals": totals,
                       "by": {"%s/%s" % k: v for k, v in table.items()},
                       "bad": [r[:5] for r in bad]}, f, indent=1)
    return 1 if bad else 0


def parse_args():
    p = argparse.ArgumentParser(description="libslog corruption campaign (issue 16)")
    p.add_argument("--build", required=True, help="meson build directory")
    p.add_argument("--work", required=True, help="scratch directory (created, emptied)")
    p.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "..", "shared", "corpus"))
    p.add_argument("--kinds", default="synth,chrome,otf2,perfetto")
    p.add_argument("--extra", action="append", default=[],
                   help="another original (e.g. a format-1 file), reported apart")
    p.add_argument("--copies", type=int, default=400, help="damaged copies per original")
    p.add_argument("--states", type=int, default=20000, help="states of the slog-synth file")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per read")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", action="store_true", help="keep every copy, not only bad ones")
    p.add_argument("--json", help="write the figures here")
    return p.parse_args()


def main():
    a = parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    originals = make_originals(a)
    if not originals:
        print("corrupt: no original file could be made", file=sys.stderr)
        return 77
    rng = random.Random(a.seed)
    jobs = jobs_for(a, rng, originals)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(lambda j: check_copy(a, j), jobs))
    status = report(a, results)
    if status == 0 and not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
