#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""slog-trace with MPI (TAP): mpi_pingpong under
`mpirun --allow-run-as-root --oversubscribe -np 4 slog-trace -o DIR -- mpi_pingpong`,
then `slog-trace merge DIR -o merged.slog`, read back with slog-query.

    trace_mpi_test.py SLOG_TRACE SLOG_QUERY MPI_PINGPONG|none SLOG_INFO

Checks: one file per rank, each with its MPI calls and their args; the
merged file has one "rank R" timeline group per rank and exactly the
messages mpi_pingpong sends as arrows, each from the sending rank's
timeline to the receiving rank's, with its tag and size, and none left
unmatched; the manifest names each rank's file.  Then `mpi_pingpong abort` (rank 2 calls MPI_Abort with error
code 7, Open MPI kills the others): mpirun exits 7; rank 2's file is
sealed and holds an MPI_Abort event (comm 0, errorcode 7); the others are
incomplete, and so is their merge, which says so.  A second run traced into
the first one's directory: the merge names each second file of a rank.
Exit 77 (skipped) when mpirun or the program is missing.
"""
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_mpirun import mpirun_available, mpirun_traced  # noqa: E402
from trace_tap import all_passed, ok  # noqa: E402

SLOG_TRACE, SLOG_QUERY, PINGPONG, SLOG_INFO = sys.argv[1:5]
RANKS, ROUNDS = 4, 10


def records(path, *extra):
    out = subprocess.run([SLOG_QUERY, "--format", "jsonl", *extra, path], capture_output=True,
                         text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def expected_messages():
    """(src, dst, tag) -> count, as mpi_pingpong sends them."""
    want = collections.Counter()
    for even in range(0, RANKS - 1, 2):
        odd = even + 1
        want[(even, odd, 7)] += ROUNDS
        want[(odd, even, 8)] += ROUNDS
        for tag in range(9, 26):
            want[(even, odd, tag)] += 1
            want[(odd, even, tag)] += 1
        want[(even, odd, 26)] += 3  # persistent requests: Startall twice, Start once
        want[(odd, even, 26)] += 3
    return want


# category -> (bytes, root) mpi_pingpong's collectives record on 4 ranks
# (None: no such arg): 4 ints a rank, 16 for every rank where the whole
# send buffer counts
COLLECTIVES = {
    "MPI_Gatherv": (16, 0), "MPI_Scatterv": (16, 0), "MPI_Allgatherv": (16, None),
    "MPI_Alltoallv": (64, None), "MPI_Reduce_scatter": (64, None),
    "MPI_Reduce_scatter_block": (64, None), "MPI_Scan": (16, None), "MPI_Exscan": (16, None),
    "MPI_Ibarrier": (None, None), "MPI_Ibcast": (16, 0), "MPI_Ireduce": (16, 0),
    "MPI_Iallreduce": (16, None), "MPI_Igather": (16, 0), "MPI_Iallgather": (16, None),
    "MPI_Iscatter": (16, 0), "MPI_Ialltoall": (64, None),
}


def check_collectives_and_probes(recs, rank):
    """Every collective once with its bytes and root; the probes' finds."""
    got = {r["category"]: (r["args"].get("bytes"), r["args"].get("root"))
           for r in recs if r["category"] in COLLECTIVES}
    once = all(sum(r["category"] == c for r in recs) == 1 for c in COLLECTIVES)
    probe = [r["args"] for r in recs if r["category"] == "MPI_Probe"]
    iprobe = [r["args"] for r in recs if r["category"] == "MPI_Iprobe"]
    peer = rank + 1 if rank % 2 == 0 else rank - 1
    found = (len(probe) == 1 and probe[0].get("found_src") == peer and
             probe[0].get("found_tag") == 24 and probe[0].get("bytes") == 1024 and
             iprobe and iprobe[-1].get("flag") == 1 and iprobe[-1].get("found_tag") == 25 and
             all(a.get("flag") == 0 and "found_tag" not in a for a in iprobe[:-1]))
    return got == COLLECTIVES and once and found, {"collectives": got, "probe": probe,
                                                   "iprobe": iprobe[-3:]}


def check_persistent(recs):
    """The persistent requests' calls: each init once with its args, two
    MPI_Startall of 2, two MPI_Start, three sends started (tag 26)."""
    def calls(name):
        return [r["args"] for r in recs if r["category"] == name]
    inits = calls("MPI_Send_init") + calls("MPI_Recv_init")
    sent = calls("MPI message sent")
    got = {"inits": [(a.get("tag"), a.get("bytes")) for a in inits],
           "startall": [a.get("count") for a in calls("MPI_Startall")],
           "start": [a.get("count") for a in calls("MPI_Start")],
           "sent": [(a.get("msg"), a.get("tag"), a.get("bytes")) for a in sent]}
    want = {"inits": [(26, 1024), (26, 1024)], "startall": [2, 2], "start": [1, 1],
            "sent": [("send", 26, 1024)] * 3}
    return got == want, got


def check_rank_files(out):
    files = sorted(glob.glob(os.path.join(out, "*.slog")))
    if not ok(len(files) == RANKS, f"one file per rank ({RANKS})", files):
        return
    ranks = set()
    for f in files:
        recs = records(f, "-k", "state,event")
        init = [r for r in recs if r["category"] == "MPI_Init"]
        sends = [r for r in recs if r["category"] == "MPI_Send"]
        if init:
            ranks.add(init[0]["args"].get("world_rank"))
        good = (len(init) == 1 and init[0]["args"].get("world_size") == RANKS and
                len(sends) == ROUNDS and all(s["args"].get("bytes") == 1024 and
                                             s["args"].get("msg") == "send" for s in sends) and
                sum(r["category"] == "MPI_Barrier" for r in recs) == 1)
        if not good:
            ok(False, f"{os.path.basename(f)}: MPI_Init, {ROUNDS} MPI_Send, MPI_Barrier with args",
               json.dumps([r for r in recs if r["category"].startswith("MPI")][:10]))
            return
        good, detail = check_collectives_and_probes(recs, init[0]["args"].get("world_rank"))
        persistent_ok, persistent = check_persistent(recs)
        detail["persistent"] = persistent
        if not good or not persistent_ok:
            ok(False, f"{os.path.basename(f)}: every collective once with bytes and root; "
               "the probes' finds; the persistent requests' calls", json.dumps(detail, indent=1))
            return
    ok(ranks == set(range(RANKS)), "each rank's file: MPI_Init (rank, size), MPI_Send args, "
       "MPI_Barrier, the other collectives' bytes and roots, the probes' finds, the persistent "
       "requests' inits, starts and sends", ranks)


def check_manifest(out):
    """manifest.jsonl names each rank's file with its world rank and size."""
    lines = [json.loads(x) for x in open(os.path.join(out, "manifest.jsonl"))]
    named = {m["file"]: (m["world_rank"], m["world_size"]) for m in lines if "world_rank" in m}
    want = {}
    for f in glob.glob(os.path.join(out, "*.slog")):
        init = [r for r in records(f, "-k", "state") if r["category"] == "MPI_Init"]
        if init:
            want[os.path.basename(f)] = (init[0]["args"]["world_rank"], RANKS)
    ok(named == want and len(named) == RANKS,
       "manifest: each rank's file with its world_rank and world_size", (named, want))


def check_merged(merged):
    recs = records(merged)
    arrows = [r for r in recs if r["kind"] == "arrow"]
    got = collections.Counter((a["args"]["src"], a["args"]["dst"], a["args"]["tag"])
                              for a in arrows)
    ok(got == expected_messages(), f"merged: exactly the {sum(expected_messages().values())} "
       "messages as arrows (src, dst, tag)", f"got {dict(got)}")
    ok(all(a["start"] <= a["end"] and a["args"]["bytes"] == 1024 for a in arrows),
       "merged: every arrow starts before it ends and carries 1024 bytes")
    info = subprocess.run([SLOG_QUERY, "--format", "jsonl", "-k", "state", "-c", "MPI_Init",
                           merged], capture_output=True, text=True, check=True).stdout
    by_rank = {}
    for line in info.splitlines():
        r = json.loads(line)
        by_rank[r["args"]["world_rank"]] = r["timeline_id"]
    ok(sorted(by_rank) == list(range(RANKS)), "merged: MPI_Init of every rank", by_rank)
    tl_of = {}
    for a in arrows:
        tl_of.setdefault(a["args"]["src"], set()).add(a["from_id"])
        tl_of.setdefault(a["args"]["dst"], set()).add(a["to_id"])
    ok(all(tl_of.get(r) == {by_rank.get(r)} for r in range(RANKS)),
       "merged: arrows leave and reach the ranks' own thread timelines", (tl_of, by_rank))


def check_abort(tmp):
    """A job ended by one rank's MPI_Abort: the call recorded, the merge incomplete."""
    out = os.path.join(tmp, "abort.trace")
    p = mpirun_traced(SLOG_TRACE, out, RANKS, PINGPONG, "abort")
    ok(p.returncode == 7, "mpi_pingpong abort: mpirun exits with MPI_Abort's error code 7",
       p.returncode)
    aborts, complete = [], {}
    for f in sorted(glob.glob(os.path.join(out, "*.slog"))):
        if os.path.getsize(f) == 0:
            continue
        recs = records(f, "-k", "event")
        aborts += [r["args"] for r in recs if r["category"] == "MPI_Abort"]
        info = json.loads(subprocess.run([SLOG_INFO, "--json", f], capture_output=True,
                                         text=True, check=True).stdout)
        complete[os.path.basename(f)] = info["complete"]
    ok(aborts == [{"comm": 0, "errorcode": 7}] and sum(complete.values()) == 1,
       "abort: one MPI_Abort event (comm 0, errorcode 7), in the one sealed file",
       (aborts, complete))
    merged = os.path.join(tmp, "abort.slog")
    m = subprocess.run([SLOG_TRACE, "merge", out, "-o", merged], capture_output=True, text=True,
                       timeout=240)
    info = json.loads(subprocess.run([SLOG_INFO, "--json", merged], capture_output=True,
                                     text=True, check=True).stdout)
    killed = sum(not c for c in complete.values())
    ok(m.returncode == 0 and f"incomplete: {killed}" in m.stderr and killed > 0 and
       not info["complete"], "abort: the merge names the killed ranks' files and is incomplete",
       (m.stderr, info["complete"]))


def check_second_run(tmp, out):
    """A job traced twice into one directory: the merge warns per rank's second file."""
    p = mpirun_traced(SLOG_TRACE, out, RANKS, PINGPONG)
    m = subprocess.run([SLOG_TRACE, "merge", out, "-o", os.path.join(tmp, "twice.slog")],
                       capture_output=True, text=True, timeout=240)
    warned = sorted(int(line.split("a second file of MPI rank ")[1].split(":")[0])
                    for line in m.stderr.splitlines() if "a second file of MPI rank " in line)
    ok(p.returncode == 0 and m.returncode == 0 and warned == list(range(RANKS)),
       "two runs in one directory: the merge names each rank's second file", m.stderr)


def main():
    if not mpirun_available(PINGPONG):
        print("1..0 # SKIP mpirun or the MPI ping-pong program is missing")
        return 77
    print("1..13")
    with tempfile.TemporaryDirectory(prefix="slog-trace-mpi-") as tmp:
        out = os.path.join(tmp, "pp.trace")
        p = mpirun_traced(SLOG_TRACE, out, RANKS, PINGPONG)
        if not ok(p.returncode == 0, "mpirun -np 4 slog-trace -- mpi_pingpong exits 0",
                  p.stdout + p.stderr):
            return 1
        check_rank_files(out)
        check_manifest(out)
        merged = os.path.join(tmp, "merged.slog")
        m = subprocess.run([SLOG_TRACE, "merge", out, "-o", merged], capture_output=True,
                           text=True, timeout=240)
        if ok(m.returncode == 0 and " 0 unmatched" in m.stderr,
              "slog-trace merge: every message matched", m.stderr):
            check_merged(merged)
        check_abort(tmp)
        check_second_run(tmp, out)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
