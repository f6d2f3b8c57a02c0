#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The MPI writer (slog_mpi.h) end to end (TAP): mpi_job under
`mpirun --allow-run-as-root --oversubscribe -np 8`, its files read back with
slog-query and slog-info.

    mpi_job_test.py MPI_JOB|none SLOG_QUERY SLOG_INFO SLOG_MERGE|none

1. A finished job: each rank's file and the merged file hold exactly what
   the ranks wrote (mpi_job writes it to EXPECT/rank-R.jsonl, local times;
   the merged file moves rank R's times by the manifest's merge_offset),
   the ring of messages r -> r + 1 became 8 arrows between the ranks'
   "main" timelines, the manifest lists 8 ranks with their clock offsets.
2. Rank 3 calls abort() after flushing half its data: mpirun fails, every
   rank file opens incomplete and holds what its rank flushed, the
   manifest written at create still says "running" for every rank, and
   `slog-merge --allow-incomplete DIR` merges the survivors (TAP skip when
   slog-merge is not built).
3. An invalid option on rank 1: every rank gets the same SLOG_EINVAL.
Exit 77 (skipped) when mpirun or the program is missing.
"""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trace"))
from trace_tap import RESULTS, all_passed, ok  # noqa: E402

MPI_JOB, SLOG_QUERY, SLOG_INFO, SLOG_MERGE = sys.argv[1:5]
RANKS, ABORT_RANK = 8, 3
TAPS = 16


def mpirun(*args, timeout=120):
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    if "ASAN_OPTIONS" in env:
        # Open MPI is built without frame pointers: the slow unwinder lets a
        # leak's stack reach libmpi.so, which tests/lsan.supp suppresses
        env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
    return subprocess.run([shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe",
                           "-np", str(RANKS), MPI_JOB, *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def info(path):
    out = subprocess.run([SLOG_INFO, "--json", "--all", path], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def drawables(path):
    """The file's full-detail drawables: absolute times, timeline as a path of names."""
    meta = info(path)
    tls = {t["id"]: t for t in meta["timeline_list"]}

    def tl_path(i):
        names = []
        while i is not None:
            names.append(tls[i]["name"])
            i = tls[i]["parent"]
        return tuple(reversed(names))

    out = subprocess.run([SLOG_QUERY, path, "-f", "jsonl"], capture_output=True, text=True,
                         check=True)
    recs = []
    for line in out.stdout.splitlines():
        r = json.loads(line)
        r["start"] += meta["start_ticks"]
        r["end"] += meta["start_ticks"]
        r["path"] = tl_path(r.pop("timeline_id"))
        if r["kind"] == "arrow":
            r["from_path"], r["to_path"] = tl_path(r["from_id"]), tl_path(r["to_id"])
        recs.append(r)
    return meta, recs


def key(r, path, shift=0):
    fields = [r["kind"], path, r["category"], r["start"] + shift, r["end"] + shift,
              r.get("depth"), json.dumps(r.get("args", {}), sort_keys=True), r.get("value")]
    return tuple(fields)


def expected(expect_dir, rank):
    with open(os.path.join(expect_dir, f"rank-{rank}.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def manifest(job_dir):
    with open(os.path.join(job_dir, "manifest.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    jobs = [x for x in lines if x["kind"] == "job"]
    return (jobs[0] if jobs else {}), [x for x in lines if x["kind"] == "rank"]


def rank_file(job_dir, r):
    return os.path.join(job_dir, f"rank-{r:06d}.slog")


def check_rank_files(job_dir, expect_dir, complete, what):
    """Each rank's own file: its rank timeline, exactly what it wrote."""
    bad = []
    for r in range(RANKS):
        meta, recs = drawables(rank_file(job_dir, r))
        top = [t for t in meta["timeline_list"] if t["parent"] is None]
        got = collections.Counter(key(x, x["path"][1:]) for x in recs)
        want = collections.Counter(key(x, tuple(x["path"])) for x in expected(expect_dir, r))
        if (meta["complete"] != complete or len(top) != 1 or top[0]["kind"] != "rank"
                or not top[0]["name"].startswith(f"rank {r} (") or got != want):
            bad.append((r, meta["complete"], top, len(got), len(want),
                        list((got - want).items())[:3], list((want - got).items())[:3]))
    ok(not bad, what, bad)


def check_manifest_finished(job_dir):
    job, ranks = manifest(job_dir)
    ok(job.get("status") == "finished" and job.get("ranks") == RANKS and
       job.get("merge") == "SLOG_OK" and job.get("arrows") == RANKS and
       job.get("unmatched") == 0 and job.get("clock") == "CLOCK_REALTIME",
       "manifest: job finished, merged, 8 arrows, none unmatched", job)
    good = [x for x in ranks if x["status"] == "ok" and x["code"] == "SLOG_OK" and x["complete"]
            and x["file"] == f"rank-{x['rank']:06d}.slog" and x["states"] > 0 and
            x["counters"] > 0 and x["events"] > 0 and x["messages"] == 2 and
            all(isinstance(x[k], int) for k in ("clock_offset_create", "clock_offset_finish",
                                                 "rtt_create", "rtt_finish", "merge_offset"))
            and x["rtt_create"] >= 0 and x["rtt_finish"] >= 0]
    ok(sorted(x["rank"] for x in good) == list(range(RANKS)),
       "manifest: 8 ranks ok, with files, counts, clock offsets and round trips", ranks)
    # ranks of one host share rank 0's clock: merge offset 0 (doc/MPI.md)
    host0 = ranks[0]["host"] if ranks else None
    ok(all(x["merge_offset"] == 0 for x in ranks if x["host"] == host0),
       "manifest: ranks on rank 0's host have merge offset 0", ranks)
    return {x["rank"]: x["merge_offset"] for x in ranks}


def check_merged(merged, expect_dir, offsets):
    meta, recs = drawables(merged)
    top = sorted(t["name"] for t in meta["timeline_list"] if t["parent"] is None)
    ok(meta["complete"] and top == sorted(f"rank {r}" for r in range(RANKS)) and
       all(t["kind"] == "rank" for t in meta["timeline_list"] if t["parent"] is None),
       "merged: complete, one top timeline 'rank R' (kind rank) per rank", top)
    got = collections.Counter(key(x, (x["path"][0],) + x["path"][2:]) for x in recs
                              if x["kind"] != "arrow")
    want = collections.Counter()
    for r in range(RANKS):
        for x in expected(expect_dir, r):
            want[key(x, (f"rank {r}",) + tuple(x["path"]), offsets.get(r, 0))] += 1
    ok(got == want, "merged: full-detail query == the union of what the ranks wrote "
       "(times moved by the merge offsets)",
       f"extra {list((got - want).items())[:3]} missing {list((want - got).items())[:3]}")
    arrows = [x for x in recs if x["kind"] == "arrow"]
    ring = sorted((a["args"]["src"], a["args"]["dst"]) for a in arrows)
    ok(ring == sorted((r, (r + 1) % RANKS) for r in range(RANKS)),
       "merged: 8 arrows, rank r -> r + 1", ring)
    placed = all(a["from_path"][0] == f"rank {a['args']['src']}" and a["from_path"][-1] == "main"
                 and a["to_path"][0] == f"rank {a['args']['dst']}" and a["to_path"][-1] == "main"
                 and a["args"]["tag"] == 5 and a["args"]["bytes"] == 64
                 and a["start"] <= a["end"] for a in arrows)
    sends = {}
    recvs = {}
    for x in recs:
        if x["category"] in ("MPI send", "MPI recv"):
            side = sends if x["category"] == "MPI send" else recvs
            side[(x["args"]["src"], x["args"]["dst"])] = x
    timed = all(a["start"] == sends[(a["args"]["src"], a["args"]["dst"])]["start"] and
                a["end"] == max(a["start"], recvs[(a["args"]["src"], a["args"]["dst"])]["end"])
                for a in arrows)
    ok(placed and timed, "merged: each arrow leaves the sender's 'main' at the send's start and "
       "reaches the receiver's 'main' at the receive's end", arrows[:2])


def finished_job(tmp):
    job_dir, expect_dir = os.path.join(tmp, "job.d"), os.path.join(tmp, "expect")
    merged = os.path.join(tmp, "merged.slog")
    os.mkdir(expect_dir)
    p = mpirun(job_dir, merged, expect_dir)
    finishes = [line for line in p.stdout.splitlines() if "finish" in line]
    if not ok(p.returncode == 0 and len(finishes) == RANKS and
              all("finish SLOG_OK" in line for line in finishes),
              "mpirun -np 8 mpi_job: every rank's finish returns SLOG_OK", p.stdout + p.stderr):
        return False
    ok(sorted(os.listdir(job_dir)) == sorted([f"rank-{r:06d}.slog" for r in range(RANKS)] +
                                            ["manifest.jsonl"]) and
       not os.path.exists(merged + ".arrows.slog"),
       "job directory: 8 rank files and the manifest, no temporary file left",
       os.listdir(job_dir))
    check_rank_files(job_dir, expect_dir, True,
                     "each rank file: complete, rank timeline, exactly what the rank wrote")
    offsets = check_manifest_finished(job_dir)
    check_merged(merged, expect_dir, offsets)
    return True


def check_recovery(job_dir, tmp):
    if SLOG_MERGE == "none" or not os.path.exists(SLOG_MERGE):
        for _ in range(2):
            RESULTS.append(True)
            print(f"ok {len(RESULTS)} # SKIP slog-merge is not built")
        return
    out = os.path.join(tmp, "recovered.slog")
    p = subprocess.run([SLOG_MERGE, job_dir, "-o", out, "--allow-incomplete", "--json", "-q"],
                       capture_output=True, text=True, timeout=120)
    summary = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else {}
    ok(p.returncode == 0 and summary.get("inputs") == RANKS and
       summary.get("incomplete_inputs") == RANKS,
       "slog-merge --allow-incomplete DIR: merges the 8 rank files, reports 8 incomplete",
       p.stdout + p.stderr)
    meta = info(out) if p.returncode == 0 else {}
    want = sum(sum(1 for x in expected(os.path.join(tmp, "expect2"), r) if x["kind"] == k)
               for r in range(RANKS) for k in ("state",))
    ok(meta.get("complete") and meta.get("states") == want,
       "recovered file: complete, every state the ranks flushed", (meta.get("states"), want))


def aborted_job(tmp):
    job_dir, expect_dir = os.path.join(tmp, "job2.d"), os.path.join(tmp, "expect2")
    os.mkdir(expect_dir)
    p = mpirun(job_dir, os.path.join(tmp, "merged2.slog"), expect_dir, "--abort-rank",
               str(ABORT_RANK))
    ok(p.returncode != 0, "rank 3 aborts: mpirun exits non-zero", p.returncode)
    job, ranks = manifest(job_dir)
    ok(job.get("status") == "running" and len(ranks) == RANKS and
       all(x["status"] == "running" and x["complete"] is None for x in ranks),
       "manifest written at create: 8 ranks 'running'", (job, ranks))
    check_rank_files(job_dir, expect_dir, False,
                     "every rank file opens incomplete, holding what its rank flushed "
                     "(rank 3's too)")
    check_recovery(job_dir, tmp)


def bad_options(tmp):
    p = mpirun(os.path.join(tmp, "job3.d"), "-", tmp, "--bad-options-rank", "1")
    lines = [line for line in p.stdout.splitlines() if line.startswith("create:")]
    ok(p.returncode != 0 and len(lines) == RANKS and len(set(lines)) == 1 and
       "SLOG_EINVAL" in lines[0] and "sync_rounds" in lines[0],
       "an invalid option on rank 1: every rank returns the same SLOG_EINVAL", p.stdout)


def main():
    if shutil.which("mpirun") is None or MPI_JOB == "none" or not os.path.exists(MPI_JOB):
        print("1..0 # SKIP mpirun or the MPI writer is missing")
        return 77
    print(f"1..{TAPS}")
    with tempfile.TemporaryDirectory(prefix="slog-mpi-") as tmp:
        if not finished_job(tmp):
            return 1
        aborted_job(tmp)
        bad_options(tmp)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
