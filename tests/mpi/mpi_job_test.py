#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The MPI writer (slog_mpi.h) end to end (TAP): mpi_job under
`mpirun --allow-run-as-root --oversubscribe -np 8`, its files read back with
slog-query and slog-info.

    mpi_job_test.py MPI_JOB|none SLOG_QUERY SLOG_INFO SLOG_MERGE|none

1. A finished job: each rank's file, the merged file and the index
   DIR/index.slog hold exactly what the ranks wrote (mpi_job writes it to
   EXPECT/rank-R.jsonl, local times; the merged file and the index move
   rank R's times by the manifest's merge_offset), the ring of messages
   r -> r + 1 became 8 arrows between the ranks' "main" timelines (in the
   index, from its arrows input DIR/arrows.slog), the manifest lists 8
   ranks with their clock offsets and the index; rank 0 opens the index
   with slog_reader_open after finish: 9 inputs, every one ok.
2. Rank 3 calls abort() after flushing half its data: mpirun fails, every
   rank file opens incomplete and holds what its rank flushed, the
   manifest written at create still says "running" for every rank (and
   no index: Open MPI ends every rank, so no finish runs), and
   `slog-merge --allow-incomplete DIR` merges the survivors (TAP skip when
   slog-merge is not built).
3. An invalid option on rank 1: every rank gets the same SLOG_EINVAL.
4. Finish with a failed rank and a missing file: rank 3 leaves a state
   open (its finish fails, its file stays incomplete), rank 5 removes its
   file (and every rank has a clock offset of its own,
   SLOG_MPI_OFFSET_PER_RANK): every rank returns rank 3's SLOG_ESTATE, the
   merge fails (an input is missing), and the index is written all the
   same: rank 3 marked incomplete, rank 5 missing, the others' data and
   rank 3's file read through it at the merge offsets, the arrows of rank
   5 on a timeline of the arrows input.
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
TAPS = 27
FAIL_RANK, REMOVE_RANK = 3, 5


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
    ok(job.get("index") == "index.slog" and job.get("index_code") == "SLOG_OK",
       "manifest: index index.slog, index_code SLOG_OK", job)
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


def joined(recs):
    """The non-arrow drawables of a merged file or an index, keyed by
    'rank R' and the path under the rank's own timeline."""
    return collections.Counter(key(x, (x["path"][0],) + x["path"][2:]) for x in recs
                               if x["kind"] != "arrow")


def wanted(expect_dir, offsets, ranks):
    want = collections.Counter()
    for r in ranks:
        for x in expected(expect_dir, r):
            want[key(x, (f"rank {r}",) + tuple(x["path"]), offsets.get(r, 0))] += 1
    return want


def ring_of(arrows):
    return sorted((a["args"]["src"], a["args"]["dst"]) for a in arrows)


RING = sorted((r, (r + 1) % RANKS) for r in range(RANKS))


def check_merged(merged, expect_dir, offsets, what="merged"):
    """A merged file or the index: what the ranks wrote, the ring's arrows."""
    meta, recs = drawables(merged)
    top = sorted(t["name"] for t in meta["timeline_list"] if t["parent"] is None)
    ok(meta["complete"] and top == sorted(f"rank {r}" for r in range(RANKS)) and
       all(t["kind"] == "rank" for t in meta["timeline_list"] if t["parent"] is None),
       f"{what}: complete, one top timeline 'rank R' (kind rank) per rank", top)
    got, want = joined(recs), wanted(expect_dir, offsets, range(RANKS))
    ok(got == want, f"{what}: full-detail query == the union of what the ranks wrote "
       "(times moved by the merge offsets)",
       f"extra {list((got - want).items())[:3]} missing {list((want - got).items())[:3]}")
    arrows = [x for x in recs if x["kind"] == "arrow"]
    ring = ring_of(arrows)
    ok(ring == RING, f"{what}: 8 arrows, rank r -> r + 1", ring)
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
    ok(placed and timed, f"{what}: each arrow leaves the sender's 'main' at the send's start and "
       "reaches the receiver's 'main' at the receive's end", arrows[:2])


def index_line(stdout):
    """What rank 0 printed of DIR/index.slog after finish (slog_reader_open)."""
    lines = [line for line in stdout.splitlines() if line.startswith("index: ")]
    if len(lines) != 1 or not lines[0].startswith("index: {"):
        return {"inputs": None, "list": [], "printed": lines}
    return json.loads(lines[0][len("index: "):])


def input_states(idx):
    return [(x["path"], x["state"]) for x in idx["list"]]


def check_index_opened(stdout, offsets):
    idx = index_line(stdout)
    want = [(f"rank-{r:06d}.slog", "ok") for r in range(RANKS)] + [("arrows.slog", "ok")]
    ok(idx["inputs"] == RANKS + 1 and input_states(idx) == want and
       [x["offset"] for x in idx["list"]] == [offsets.get(r) for r in range(RANKS)] + [0],
       "index, opened by rank 0 after finish: 9 inputs (8 rank files and arrows.slog), all ok, "
       "offsets = the merge offsets", idx)


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
                                            ["manifest.jsonl", "index.slog", "arrows.slog"]) and
       not os.path.exists(merged + ".arrows.slog"),
       "job directory: 8 rank files, the manifest, the index and its arrows input, no "
       "temporary file left", os.listdir(job_dir))
    check_rank_files(job_dir, expect_dir, True,
                     "each rank file: complete, rank timeline, exactly what the rank wrote")
    offsets = check_manifest_finished(job_dir)
    check_merged(merged, expect_dir, offsets)
    check_index_opened(p.stdout, offsets)
    check_merged(os.path.join(job_dir, "index.slog"), expect_dir, offsets, "index")
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
    ok(meta.get("complete") is False and meta.get("states") == want,
       "recovered file: incomplete (as its inputs), every state the ranks flushed",
       (meta.get("complete"), meta.get("states"), want))


def aborted_job(tmp):
    job_dir, expect_dir = os.path.join(tmp, "job2.d"), os.path.join(tmp, "expect2")
    os.mkdir(expect_dir)
    p = mpirun(job_dir, os.path.join(tmp, "merged2.slog"), expect_dir, "--abort-rank",
               str(ABORT_RANK))
    ok(p.returncode != 0, "rank 3 aborts: mpirun exits non-zero", p.returncode)
    job, ranks = manifest(job_dir)
    ok(job.get("status") == "running" and len(ranks) == RANKS and
       all(x["status"] == "running" and x["complete"] is None for x in ranks) and
       "index" in job and job["index"] is None and job.get("index_code", 0) is None and
       not os.path.exists(os.path.join(job_dir, "index.slog")),
       "manifest written at create: 8 ranks 'running', no index (no finish ran)", (job, ranks))
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


def check_failed_index(job_dir, expect_dir, stdout, offsets):
    idx = index_line(stdout)
    states = [x["state"] for x in idx["list"]]
    want = ["ok"] * (RANKS + 1)
    want[FAIL_RANK], want[REMOVE_RANK] = "incomplete", "missing"
    ok(idx["inputs"] == RANKS + 1 and states == want and
       idx["list"][REMOVE_RANK]["path"] == f"rank-{REMOVE_RANK:06d}.slog" and
       [x["offset"] for x in idx["list"]] == [offsets.get(r) for r in range(RANKS)] + [0],
       "index after a failed finish: 9 inputs, rank 3 incomplete, rank 5 missing, the rest ok; "
       "offsets = the merge offsets (one per rank)", idx)
    meta, recs = drawables(os.path.join(job_dir, "index.slog"))
    got = joined(recs)
    want = wanted(expect_dir, offsets,
                  [r for r in range(RANKS) if r not in (FAIL_RANK, REMOVE_RANK)])
    _, own = drawables(rank_file(job_dir, FAIL_RANK))  # what rank 3's incomplete file holds
    for x in own:
        want[key(x, (f"rank {FAIL_RANK}",) + x["path"][1:], offsets.get(FAIL_RANK, 0))] += 1
    ok(got == want and len(own) > 0,
       "index after a failed finish: the other ranks' data and rank 3's file read through it, "
       "nothing of rank 5",
       f"extra {list((got - want).items())[:3]} missing {list((want - got).items())[:3]}")
    arrows = [x for x in recs if x["kind"] == "arrow"]

    def end_ok(path, rank):
        if rank == REMOVE_RANK:
            return path == ("MPI messages", f"rank {rank} timeline 1")
        return path[0] == f"rank {rank}" and path[-1] == "main"
    ok(ring_of(arrows) == RING and
       all(end_ok(a["from_path"], a["args"]["src"]) and end_ok(a["to_path"], a["args"]["dst"])
           for a in arrows),
       "index after a failed finish: 8 arrows; rank 5's ends on the arrows input's own "
       "timeline", [(a["from_path"], a["to_path"]) for a in arrows])


def failed_finish(tmp):
    job_dir, expect_dir = os.path.join(tmp, "job4.d"), os.path.join(tmp, "expect4")
    os.mkdir(expect_dir)
    p = mpirun(job_dir, os.path.join(tmp, "merged4.slog"), expect_dir, "--fail-rank",
               str(FAIL_RANK), "--remove-rank", str(REMOVE_RANK), "--offset-per-rank")
    finishes = [line.split(":", 1)[1] for line in p.stdout.splitlines()
                if line.startswith("rank ") and "finish" in line]
    ok(p.returncode != 0 and len(finishes) == RANKS and len(set(finishes)) == 1 and
       "SLOG_ESTATE Rank 3:" in finishes[0],
       "a state left open on rank 3: every rank's finish returns rank 3's SLOG_ESTATE",
       p.stdout + p.stderr)
    job, ranks = manifest(job_dir)
    by_rank = {x["rank"]: x for x in ranks}
    ok(job.get("status") == "failed" and job.get("index") == "index.slog" and
       job.get("index_code") == "SLOG_OK" and job.get("merge") not in (None, "SLOG_OK") and
       by_rank.get(FAIL_RANK, {}).get("status") == "failed" and
       by_rank.get(FAIL_RANK, {}).get("complete") is False and
       by_rank.get(REMOVE_RANK, {}).get("complete") is None,
       "manifest: job failed, the merge failed (rank 5's file is gone), index written",
       (job, by_rank.get(FAIL_RANK), by_rank.get(REMOVE_RANK)))
    check_failed_index(job_dir, expect_dir, p.stdout,
                       {x["rank"]: x["merge_offset"] for x in ranks})


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
        failed_finish(tmp)
    return 0 if all_passed() else 1


if __name__ == "__main__":
    sys.exit(main())
