# SPDX-License-Identifier: MIT
"""to_pipit(messages=True): MPI messages as pipit's MpiSend/MpiRecv Instants
and Process numbered 0..n-1 in rank order, so that pipit's communication
analyses (comm_matrix, message_histogram, comm_over_time) see the trace's
messages.  pipit is not a dependency: comm_matrix below is its computation
(pipit/trace.py, Trace.comm_matrix) redone over the frame, and the truth it
is compared with is slog-query's own list of the arrows."""
import os
import re
import subprocess

import numpy as np
import pytest

import slog
from conftest import ROOT, query_jsonl, tool
from slog.adapters import PIPIT_COLUMNS

CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
PING_PONG = os.path.join(CORPUS, "pipit", "ping-pong-otf2", "traces.otf2")
MPE_RING = os.path.join(CORPUS, "mpe", "ring_mpilog.clog2")
SST_DEMO = os.path.join(ROOT, "tests", "data", "demo", "sst-macro-otf2", "traces.otf2")


def pipit_comm_matrix(events, output="size"):
    """pipit's comm_matrix: a len(set(Process)) square matrix, each MpiSend
    (or MpiIsend) row adding its msg_length (or 1) at [Process, receiver]."""
    ranks = set(events["Process"])
    matrix = np.zeros((len(ranks), len(ranks)))
    sends = events.loc[events["Name"].isin(["MpiSend", "MpiIsend"]), ["Process", "Attributes"]]
    senders = sends["Process"].to_list()
    receivers = sends["Attributes"].apply(lambda a: a["receiver"]).to_list()
    if output == "size":
        volume = sends["Attributes"].apply(lambda a: a["msg_length"]).to_list()
    else:
        volume = np.full(len(sends), 1)
    for i in range(len(senders)):
        matrix[senders[i], receivers[i]] += volume[i]
    return matrix


def imported(src, tmp_path, name):
    if not os.path.exists(src):
        pytest.skip(f"{src} not found (the shared corpus beside the checkout)")
    out = tmp_path / name
    subprocess.run([tool("slog-import"), src, "-o", str(out), "-q"], check=True)
    return str(out)


def rank_of_name(reader):
    """Timeline id -> MPI rank, read from the rank timelines' names ("MPI
    Rank 3", "rank 3") and inherited by their descendants: independent of
    the sort keys to_pipit orders by."""
    tl = reader.timelines
    rank = {}
    for i, name, parent in zip(tl.id, tl.name, tl.parent):
        m = re.fullmatch(r"(?:MPI )?[Rr]ank (\d+)", name)
        if m:
            rank[int(i)] = int(m.group(1))
        elif parent in rank:
            rank[int(i)] = rank[parent]
    return rank


def arrows_matrix(path, rank, size_key):
    """Counts and bytes per (sender rank, receiver rank) from slog-query's
    jsonl list of the file's arrows."""
    n = max(rank.values()) + 1
    counts, sizes = np.zeros((n, n)), np.zeros((n, n))
    for d in query_jsonl(path, "--kind", "arrow"):
        s, r = rank[d["from_id"]], rank[d["to_id"]]
        counts[s, r] += 1
        sizes[s, r] += d["args"][size_key]
    return counts, sizes


def check_against_arrows(path, size_key):
    r = slog.open(path)
    ev = r.to_pipit(messages=True)
    rank = rank_of_name(r)
    counts, sizes = arrows_matrix(path, rank, size_key)
    assert counts.sum() == r.info["arrows"] > 0
    np.testing.assert_array_equal(pipit_comm_matrix(ev, "count"), counts)
    np.testing.assert_array_equal(pipit_comm_matrix(ev, "size"), sizes)
    # Process is the MPI rank (every rank has rows in the whole trace)
    assert (ev["Process"].to_numpy() ==
            [rank[t] for t in ev["Process Timeline"]]).all()
    # each sender's total is slog-query --stats's arrow count of its timelines
    stats = r.stats(kinds="arrow", by="timeline")
    per_rank = np.zeros(len(counts))
    for t, c in zip(stats.timeline, stats["count"]):
        per_rank[rank[int(t)]] += c
    np.testing.assert_array_equal(counts.sum(axis=1), per_rank)
    return r, ev


def test_ping_pong_has_pipit_readers_rows_and_comm_matrix(tmp_path):
    """pipit's OTF2 reader gives 120 rows on this archive (its own test
    data): 84 Enter/Leave, 16 MpiSend, 16 MpiRecv, ProgramBegin/End, Process
    {0, 1}; its tests/comm_matrix.py expects 8 messages and 4177920 bytes
    each way."""
    path = imported(PING_PONG, tmp_path, "pp.slog")
    r, ev = check_against_arrows(path, "bytes")
    assert len(ev) == 120
    names = ev["Name"].value_counts()
    assert names["MpiSend"] == names["MpiRecv"] == 16
    assert (ev["Event Type"] == "Enter").sum() == (ev["Event Type"] == "Leave").sum() == 42
    assert sorted(set(ev["Process"])) == [0, 1]
    np.testing.assert_array_equal(pipit_comm_matrix(ev, "count"), [[0, 8], [8, 0]])
    np.testing.assert_array_equal(pipit_comm_matrix(ev, "size"), [[0, 4177920], [4177920, 0]])
    send = ev[ev["Name"] == "MpiSend"].iloc[0]["Attributes"]
    recv = ev[ev["Name"] == "MpiRecv"].iloc[0]["Attributes"]
    assert send == {"receiver": 1, "communicator": "MPI_COMM_WORLD", "msg_tag": 10,
                    "msg_length": 16384}
    assert recv == {"sender": 0, "communicator": "MPI_COMM_WORLD", "msg_tag": 10,
                    "msg_length": 16384}
    # the rows of each message: the send at the arrow's start, the receive at its end
    arrows = r.window(kinds="arrow")
    sends = ev[ev["Name"] == "MpiSend"]
    assert sorted(sends["Timestamp (ns)"]) == sorted(arrows.start)
    assert sorted(ev[ev["Name"] == "MpiRecv"]["Timestamp (ns)"]) == sorted(arrows.end)
    assert sorted(sends["Thread"]) == sorted(arrows.timeline)


def test_sst_macro_comm_matrix_equals_the_arrows(tmp_path):
    """10 ranks on 10 nodes, 1440 messages (the repository's demo copy of
    the corpus's sst-macro OTF2 test traces)."""
    path = imported(SST_DEMO, tmp_path, "sst.slog")
    _, ev = check_against_arrows(path, "bytes")
    assert sorted(set(ev["Process"])) == list(range(10))
    assert ev["Timestamp (ns)"].is_monotonic_increasing


def test_mpe_ranks_numbered_by_rank_not_by_timeline_id(tmp_path):
    """The CLOG2 importer makes rank timelines as ranks first log: here
    timeline 0 is rank 2.  Process must still be the rank; msg_length comes
    from MPE's msg_size, msg_tag from msg_tag."""
    path = imported(MPE_RING, tmp_path, "ring.slog")
    r, ev = check_against_arrows(path, "msg_size")
    assert r.timelines.name[0] == "rank 2"
    tags = sorted(d["args"]["msg_tag"] for d in query_jsonl(path, "--kind", "arrow"))
    for name in ("MpiSend", "MpiRecv"):
        rows = ev[ev["Name"] == name]
        assert sorted(rows["Attributes"].apply(lambda a: a["msg_tag"])) == tags


def test_default_frame_is_unchanged(tmp_path):
    path = imported(SST_DEMO, tmp_path, "sst.slog")
    r = slog.open(path)
    ev = r.to_pipit()
    assert list(ev.columns) == PIPIT_COLUMNS
    assert not ev["Name"].isin(["MpiSend", "MpiRecv"]).any()
    assert set(ev["Process"]) == set(r.timelines[r.timelines.kind == "rank"].id)


def test_a_timeline_filter_keeps_that_ranks_ends_and_numbers(tmp_path):
    """As pipit's rows of one rank: its sends and its receives, with the
    same Process and partner numbers as in the whole trace's frame."""
    path = imported(SST_DEMO, tmp_path, "sst.slog")
    r = slog.open(path)
    full = r.to_pipit(messages=True)
    one = r.to_pipit(timelines="MPI Rank 3", messages=True)
    assert set(one["Process"]) == {3}
    rank3 = full[full["Process"] == 3]
    for name, key in (("MpiSend", "receiver"), ("MpiRecv", "sender")):
        mine = rank3[rank3["Name"] == name]
        got = one[one["Name"] == name]
        assert len(got) == len(mine) > 0
        assert got["Timestamp (ns)"].tolist() == mine["Timestamp (ns)"].tolist()
        assert got["Attributes"].tolist() == mine["Attributes"].tolist()
        assert set(got["Attributes"].apply(lambda a: a[key])) - {3}
    # a time window keeps the numbers too
    part = r.to_pipit("40%:60%", messages=True)
    both = part.merge(full.drop_duplicates("Process Timeline")[["Process", "Process Timeline"]],
                      on="Process Timeline")
    assert (both["Process_x"] == both["Process_y"]).all()


def _replay(ev):
    stacks, inside = {}, {}
    for i, (etype, name, thread, match) in enumerate(zip(ev["Event Type"], ev["Name"],
                                                         ev["Thread"], ev["_matching_event"])):
        s = stacks.setdefault(thread, [])
        if etype == "Enter":
            s.append(i)
        elif etype == "Leave":
            assert s and s.pop() == match, f"row {i}"
        else:
            inside[i] = ev["Name"].iloc[s[-1]] if s else None
    return inside


def test_written_messages_order_categories_and_sizes(tmp_path):
    """A send at its call's start and a receive at its call's end land inside
    those calls; arrows of other categories (a Chrome flow) are no messages
    unless named; a message without a size arg has msg_length 0."""
    p = str(tmp_path / "w.slog")
    with slog.Writer(p) as w:
        r1 = w.timeline("rank 1", kind="rank", sort_key=1)
        r0 = w.timeline("rank 0", kind="rank", sort_key=0)
        t1, t0 = w.timeline("main", parent=r1), w.timeline("main", parent=r0)
        snd, rcv = w.category("MPI_Send"), w.category("MPI_Recv")
        msg = w.category("MPI message", kind="arrow")
        flow = w.category("flow", kind="arrow")
        w.state(t0, rcv, 50, 300)
        w.state(t1, snd, 100, 200)
        w.arrow(msg, t1, t0, 100, 300, args={"tag": 7, "bytes": 64})
        w.arrow(flow, t1, t0, 150, 160)
        w.arrow(msg, t0, t1, 300, 400)
    r = slog.open(p)
    ev = r.to_pipit(messages=True)
    assert (ev["Name"] == "MpiSend").sum() == 2 and (ev["Name"] == "MpiRecv").sum() == 2
    inside = _replay(ev)
    rows = {(ev["Name"].iloc[i], ev["Timestamp (ns)"].iloc[i]): c for i, c in inside.items()}
    assert rows[("MpiSend", 100)] == "MPI_Send" and rows[("MpiRecv", 300)] == "MPI_Recv"
    assert ev.loc[ev["Name"] == "MpiSend", "_depth"].tolist() == [1, 0]
    assert dict(zip(ev["Process Timeline"], ev["Process"])) == {r0: 0, r1: 1}
    attrs = ev[ev["Name"] == "MpiSend"]["Attributes"].tolist()
    assert attrs == [{"receiver": 0, "msg_tag": 7, "msg_length": 64},
                     {"receiver": 1, "msg_length": 0}]
    np.testing.assert_array_equal(pipit_comm_matrix(ev), [[0, 0], [64, 0]])
    flows = r.to_pipit(messages="flow")
    assert (flows["Name"] == "MpiSend").sum() == 1
    assert flows[flows["Name"] == "MpiSend"]["Timestamp (ns)"].tolist() == [150]
    with pytest.raises(TypeError):
        r.to_pipit(messages=2.5)
