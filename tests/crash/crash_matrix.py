#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# crash_matrix.py - kill -9 of writers at random moments (issue 16 item 4):
# slog-synth, slog-import of a Chrome trace and of an OTF2 archive (both
# made here from a slog-synth file by slog-query), and a per-thread tracer
# (crash_tracer: slog_thread.h's background writer).  Every writer logs its
# flushes (--flush-log: "pending|durable NODES STATES EVENTS ARROWS COUNTERS
# COMPLETE").  After each kill:
#   - no file is allowed only when no flush was durable yet;
#   - the file opens (slog-info) and holds exactly what the last durable
#     flush said, or the pending one after it (killed between the two):
#     nodes and the four counts; it is complete only if that flush was;
#   - slog-synth (deterministic): every drawable of the killed file is a
#     drawable of the finished file of the same options (chrome lines with
#     absolute times);
#   - slog-recover seals it, h5dump then reads it (when installed), and
#     slog-info gives the same counts, still incomplete.
# The kill moment is uniform over the shortest run seen so far (a first
# full run, then every run that finished before its kill), so most kills
# land while the writer writes.
# --lenient-stale (CI): a file holding an earlier durable flush than the
# last one is reported (STALE) but not failed: 1 of 400 kills of the full
# matrix showed that (doc/RELIABILITY.md) and it is not understood yet.
# Usage: crash_matrix.py [--lenient-stale] KILLS SLOG_SYNTH SLOG_IMPORT SLOG_QUERY SLOG_INFO SLOG_RECOVER
#        CRASH_TRACER [SEED]
# KILLS per writer (100 for the full matrix; CI runs a few).  Prints each
# writer's tally and ends with "N passed, N failed" (one per kill).
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

FIELDS = ("nodes", "states", "events", "arrows", "counters")


def read_log(path):
    """Last durable flush, the pending one after it, and every durable one."""
    durable, pending, seen = None, None, [((0,) * 5, False)]
    try:
        lines = open(path).read().splitlines()
    except FileNotFoundError:
        lines = []
    for line in lines:
        parts = line.split()
        if len(parts) != 7:
            continue  # the line being written when the kill came
        counts = tuple(int(x) for x in parts[1:6])
        entry = (counts, parts[6] == "1")
        if parts[0] == "durable":
            durable, pending = entry, None
            seen.append(entry)
        else:
            pending = entry
    return durable, pending, seen


def info(tool, path):
    r = subprocess.run([tool, "--json", path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, r.stderr.strip()
    j = json.loads(r.stdout)
    return (tuple(j[f] for f in FIELDS), j["complete"]), ""


def chrome_lines(query, path):
    out = subprocess.run([query, path, "-f", "chrome", "--no-args"], capture_output=True,
                         text=True, timeout=300, check=True).stdout
    return {l.rstrip(",") for l in out.splitlines() if l.startswith('{"ph":"') and
            '"ph":"M"' not in l}


class Matrix:
    def __init__(self, tools, tmp, rng, lenient):
        self.t, self.tmp, self.rng, self.lenient = tools, tmp, rng, lenient
        self.passed = self.failed = 0
        self.h5dump = shutil.which("h5dump")

    def bad(self, name, k, msg):
        self.failed += 1
        print(f"not ok {name} kill {k}: {msg}")

    def check_file(self, name, k, path, log, reference):
        durable, pending, seen = read_log(log)
        if not os.path.exists(path):
            if durable is not None:
                return self.bad(name, k, "no file, but a flush was durable")
            return "absent"
        got, why = info(self.t["info"], path)
        if got is None:
            return self.bad(name, k, f"does not open: {why}")
        allowed = [e for e in (durable, pending) if e is not None] or [((0,) * 5, False)]
        if got not in allowed and self.lenient and got in seen:
            print(f"# {name} kill {k}: STALE: holds an earlier durable flush {got}, "
                  f"the last durable one was {durable}")
            allowed.append(got)
        if got not in allowed:
            return self.bad(name, k, f"holds {got}, the log allows {allowed}")
        if reference is not None and not chrome_lines(self.t["query"], path) <= reference:
            return self.bad(name, k, "a drawable that the finished file does not have")
        return self.check_recover(name, k, path, got)

    def check_recover(self, name, k, path, got):
        r = subprocess.run([self.t["recover"], path], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return self.bad(name, k, f"slog-recover failed: {r.stderr.strip()}")
        if self.h5dump and subprocess.run([self.h5dump, "-H", path], capture_output=True,
                                          timeout=120).returncode != 0:
            return self.bad(name, k, "h5dump cannot read the recovered file")
        again, why = info(self.t["info"], path)
        if again != got:
            return self.bad(name, k, f"after slog-recover {again} {why}, before {got}")
        return "complete" if got[1] else "incomplete"

    def run(self, name, cmd, out, kills, reference=None):
        log = os.path.join(self.tmp, name + ".log")
        start = time.monotonic()
        subprocess.run(cmd(out + ".full", log), check=True, capture_output=True, timeout=600)
        full = time.monotonic() - start
        tally = {}
        for k in range(kills):
            for p in (out, out + ".part", log):
                if os.path.exists(p):
                    os.unlink(p)
            proc = subprocess.Popen(cmd(out, log), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            began = time.monotonic()
            try:
                proc.wait(timeout=self.rng.uniform(0, full))
                full = min(full, time.monotonic() - began)  # it ran faster than that
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            path = out + ".part" if os.path.exists(out + ".part") else out
            what = self.check_file(name, k, path, log, reference)
            if what is not None:
                self.passed += 1
                tally[what] = tally.get(what, 0) + 1
        print(f"{name}: kill window {full:.2f} s; {kills} kills: {tally}")


def main():
    lenient = sys.argv[1] == "--lenient-stale"
    if lenient:
        del sys.argv[1]
    kills = int(sys.argv[1])
    synth, imp, query, info_tool, recover, tracer = sys.argv[2:8]
    seed = int(sys.argv[8]) if len(sys.argv) > 8 else random.randrange(1 << 30)
    print(f"crash_matrix: seed {seed}")
    tools = {"query": query, "info": info_tool, "recover": recover}
    with tempfile.TemporaryDirectory() as tmp:
        m = Matrix(tools, tmp, random.Random(seed), lenient)
        src = os.path.join(tmp, "src.slog")
        synth_args = ["-n", "300000", "-t", "16", "--leaf-bytes", "16KiB", "-q"]
        subprocess.run([synth, *synth_args, "-o", src], check=True, timeout=600)
        chrome = os.path.join(tmp, "src.json")
        with open(chrome, "w") as f:
            subprocess.run([query, src, "-f", "chrome"], stdout=f, check=True, timeout=600)
        otf2 = os.path.join(tmp, "otf2")
        has_otf2 = subprocess.run([query, src, "-f", "otf2", "-o", otf2],
                                  capture_output=True, timeout=600).returncode == 0
        out = os.path.join(tmp, "out.slog")
        syn = lambda o, l: [synth, *synth_args, "-o", o, "--flush-log", l]
        subprocess.run(syn(src + ".ref", os.devnull), check=True, timeout=600)
        m.run("slog-synth", syn, out, kills, chrome_lines(query, src + ".ref"))
        m.run("slog-import-chrome", lambda o, l: [imp, chrome, "-o", o, "-q", "--flush-log", l],
              out, kills)
        if has_otf2:
            anchor = os.path.join(otf2, "traces.otf2")
            m.run("slog-import-otf2",
                  lambda o, l: [imp, anchor, "-o", o, "-q", "--flush-log", l], out, kills)
        else:
            print("slog-import-otf2: skipped (slog-query built without OTF2)")
        m.run("tracer", lambda o, l: [tracer, o, l, "150000"], out, kills)
    print(f"{m.passed} passed, {m.failed} failed")
    return 1 if m.failed else 0


if __name__ == "__main__":
    sys.exit(main())
