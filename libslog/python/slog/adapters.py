# SPDX-License-Identifier: MIT
"""A window in the DataFrame shapes of pipit and Holistic Trace Analysis.

pipit (hpcgroup/pipit) keeps a trace in event form: one row per Enter,
Leave or Instant with the columns "Timestamp (ns)", "Event Type", "Name",
"Process", "Thread", sorted by time, Event Type and Name as categoricals;
its readers also fill "_matching_event" and "_matching_timestamp" (the row
and time of an Enter's Leave and back, -1 for Instants) and "_depth".
to_pipit builds these from a window's states (Enter and Leave) and events
(Instant); Process is the timeline's nearest process or rank ancestor (its
id), Thread the timeline's id; args become "Attributes" when asked.  With
messages=True each MPI message arrow also gives the Instants pipit's OTF2
reader makes of a message, "MpiSend" at its start on the sender and
"MpiRecv" at its end on the receiver (Attributes receiver or sender,
communicator, msg_tag, msg_length), and Process becomes pipit's 0..n-1 in
rank order ("Process Timeline" keeps the timeline id), so that pipit's
comm_matrix, message_histogram and comm_over_time see the messages.

Holistic Trace Analysis (facebookresearch/HolisticTraceAnalysis) keeps a
trace in interval form: columns index, ts, dur, name, cat, pid, tid,
stream, correlation (int64; ts and dur in microseconds, as Kineto writes
them), name and cat as ids into a symbol table, with s_name and s_cat the
decoded strings.  to_hta builds these from a window's states; cat is the
category's group (Chrome's "cat"); stream and correlation are the state's
args "stream" and "correlation" when they are ints (Kineto writes them on
GPU kernels, memcpys and their launches; HTA's parser reads them there),
else stream is the timeline id for GPU timelines and -1 otherwise and
correlation -1; the symbol table is in frame.attrs["symbol_table"] (a
list: id -> string).
"""
import numpy as np
import pandas as pd

__all__ = ["to_pipit", "to_hta", "PIPIT_COLUMNS", "HTA_COLUMNS", "MESSAGE_CATEGORIES"]

PIPIT_COLUMNS = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread", "_depth",
                 "_matching_event", "_matching_timestamp"]
HTA_COLUMNS = ["index", "ts", "dur", "end", "name", "cat", "pid", "tid", "stream",
               "correlation", "depth", "s_name", "s_cat"]

_ENTER, _LEAVE, _INSTANT = 0, 1, 2
_EVENT_TYPES = ["Enter", "Leave", "Instant"]


def _pipit_order(ts, etype, depth, zero, pair, early=None):
    """Row order: by time; at equal times Leaves of nonzero states first
    (deepest first), then Enters (outermost first), then Instants.  A
    zero-length state's Enter and Leave stay next to each other (pair: the
    state's index, shared by its two rows), before the nonzero Enters of its
    depth, so that each Leave closes the innermost open Enter.  early: the
    Instants that go before the Leaves of their time (a message's receive,
    inside the receive call that ends then)."""
    leave = etype == _LEAVE
    phase = np.where(leave & ~zero, 0, np.where(etype == _INSTANT, 2, 1))
    if early is not None:
        phase = np.where(early, -1, phase)
    d = depth.astype(np.int64)
    sub = np.where(phase == 0, -d, d)
    nonzero_enter = (etype == _ENTER) & ~zero
    return np.lexsort((leave, pair, nonzero_enter, sub, phase, ts))


# The arrow categories that messages=True takes: "MPI message" (the OTF2
# importer, the MPI writer's merge, slog-trace merge) and MPE's "message".
MESSAGE_CATEGORIES = ("MPI message", "message")
# The arrow args that give pipit's msg_tag and msg_length (OTF2 import, MPI
# writer, slog-trace: tag, bytes; MPE: msg_tag, msg_size), and communicator.
_TAG_ARGS, _SIZE_ARGS = ("tag", "msg_tag"), ("bytes", "msg_size")
_MESSAGE_ARGS = list(_TAG_ARGS + _SIZE_ARGS) + ["communicator"]


def _message_arrows(reader, t0, t1, timelines, messages):
    """The message arrows of the window (messages: True for the
    MESSAGE_CATEGORIES, else a category selection), with the args pipit's
    MpiSend/MpiRecv carry."""
    if messages is True:
        cats = reader.categories
        ids = cats.id[(cats.kind == "arrow") & cats.name.isin(MESSAGE_CATEGORIES)].tolist()
        if not ids:  # no message category: no message, the frame's other columns as asked
            empty = {"timeline": np.zeros(0, np.uint32), "timeline_to": np.zeros(0, np.uint32),
                     "start": np.zeros(0, np.int64), "end": np.zeros(0, np.int64)}
            empty.update({"args." + k: np.zeros(0, object) for k in _MESSAGE_ARGS})
            return pd.DataFrame(empty)
    else:
        ids = messages
    return reader.window(t0, t1, timelines=timelines, categories=ids, kinds="arrow",
                         args=_MESSAGE_ARGS)


def _first_int(frame, keys, default):
    """Per row the first of the args keys holding an int, else default."""
    out = [default] * len(frame)
    for key in reversed(keys):
        for i, v in enumerate(frame["args." + key]):
            if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
                out[i] = int(v)
    return out


def _process_numbers(reader, extra):
    """Process timeline id -> 0..n-1, the same for every window and filter
    of a file: its processes are the nearest process or rank timelines of
    its leaf timelines (threads, MPE lines, ...; a rank whose only child is
    its rank file's top, as in an MPI job's merge, is none), rank timelines
    first by sort key (the rank, as the importers and writers set it) then
    id, other processes after them by sort key then id; then the processes
    of extra (ids) that are none of those, in the same order."""
    tl = reader.timelines
    n = len(tl)
    parent = tl.parent.to_numpy()
    has_child = np.zeros(n, bool)
    linked = (parent >= 0) & (parent < n) & (parent != np.arange(n))
    has_child[parent[linked]] = True
    process = tl.process.to_numpy()
    not_rank = (tl.kind != "rank").to_numpy()
    keys = tl.sort_key.to_numpy()

    def ranked(ids):
        ids = np.unique(np.asarray(ids, dtype=np.int64))
        return ids[np.lexsort((ids, keys[ids], not_rank[ids]))]

    ordered = ranked(process[~has_child]) if n else np.zeros(0, np.int64)
    number = np.full(n, -1, np.int64)
    number[ordered] = np.arange(len(ordered))
    rest = np.asarray(extra, dtype=np.int64)
    rest = rest[number[rest] < 0]
    if len(rest):
        more = ranked(rest)
        number[more] = np.arange(len(ordered), len(ordered) + len(more))
    return number


def to_pipit(reader, t0=None, t1=None, *, timelines=None, categories=None, args=False,
             relative=False, messages=False):
    """pipit's events DataFrame of the window's states and events; with
    messages, also an MpiSend and an MpiRecv Instant per message arrow and
    Process numbered 0..n-1 in rank order (see doc/PYTHON.md)."""
    if not isinstance(messages, bool) and messages is not None and \
            not isinstance(messages, (str, int, np.integer, list, tuple)):
        raise TypeError("messages: True, False, or the arrow categories (ids or names) "
                        f"to take as messages, not {type(messages).__name__}")
    df = reader.window(t0, t1, timelines=timelines, categories=categories,
                       kinds=["state", "event"], args=bool(args),
                       columns=["kind", "timeline", "name", "start", "end", "depth"])
    is_state = (df.kind == "state").to_numpy()
    states, events = df[is_state], df[~is_state]
    ns, ne = len(states), len(events)
    arrows = None  # None: messages not asked (the documented default frame)
    if messages is not False and messages is not None:
        arrows = _message_arrows(reader, t0, t1, timelines, messages)
    if arrows is not None:
        # an arrow that a timeline filter takes by one end gives that end's row only
        chosen = reader._catalog.timelines(timelines)
        src, dst = arrows.timeline.to_numpy(), arrows.timeline_to.to_numpy()
        send = np.ones(len(arrows), bool) if chosen is None else np.isin(src, chosen)
        recv = np.ones(len(arrows), bool) if chosen is None else np.isin(dst, chosen)
        nm = int(send.sum() + recv.sum())
    else:
        nm = 0
    ts = np.concatenate([states.start.to_numpy(), states.end.to_numpy(), events.start.to_numpy()]
                        + ([arrows.start.to_numpy()[send], arrows.end.to_numpy()[recv]]
                           if arrows is not None else []))
    if relative:
        ts = ts - (reader.info["start"] or 0)
    etype = np.concatenate([np.full(ns, _ENTER, np.int8), np.full(ns, _LEAVE, np.int8),
                            np.full(ne + nm, _INSTANT, np.int8)])
    depth = np.concatenate([states.depth, states.depth, events.depth,
                            np.zeros(nm, np.int64)]).astype(np.int64)
    zero_state = (states.end == states.start).to_numpy()
    zero = np.concatenate([zero_state, zero_state, np.zeros(ne + nm, bool)])
    pair = np.concatenate([np.arange(ns), np.arange(ns), np.arange(ns, ns + ne + nm)])
    early = None
    if arrows is not None:
        early = np.zeros(len(ts), bool)
        early[2 * ns + ne + int(send.sum()):] = True
    order = _pipit_order(ts, etype, depth, zero, pair, early)
    pos = np.empty_like(order)
    pos[order] = np.arange(len(order))
    match = np.full(len(order), -1, np.int64)
    match[:ns], match[ns:2 * ns] = pos[ns:2 * ns], pos[:ns]
    match_ts = np.full(len(order), -1, np.int64)
    match_ts[:ns], match_ts[ns:2 * ns] = ts[ns:2 * ns], ts[:ns]
    parts = [states.timeline, states.timeline, events.timeline]
    if arrows is not None:
        parts += [arrows.timeline.to_numpy()[send], arrows.timeline_to.to_numpy()[recv]]
    timeline = np.concatenate(parts).astype(np.int64)
    proc_of = reader.timelines.process.to_numpy()
    process = proc_of[timeline] if len(timeline) else timeline
    if arrows is not None:
        names = pd.concat([states.name.astype(object), states.name.astype(object),
                           events.name.astype(object),
                           pd.Series(["MpiSend"] * int(send.sum()) + ["MpiRecv"] * int(recv.sum()),
                                     dtype=object)], ignore_index=True)
    else:
        names = pd.concat([states.name, states.name, events.name], ignore_index=True)
    frame = pd.DataFrame({
        "Timestamp (ns)": ts[order].astype(np.int64),
        "Event Type": pd.Categorical.from_codes(etype[order], categories=_EVENT_TYPES),
        "Name": names.take(order).reset_index(drop=True).astype("category"),
        "Process": process[order].astype(np.int64),
        "Thread": timeline[order].astype(np.int64),
        "_depth": depth[order],
        "_matching_event": match[order],
        "_matching_timestamp": match_ts[order],
    })
    if arrows is None:
        if args:
            a = list(states.args) + [None] * ns + list(events.args)
            frame["Attributes"] = pd.Series([a[i] for i in order], dtype=object)
        return frame
    # messages: dense Process numbers in rank order, the partners' numbers in
    # the Attributes, and a message row's depth from the stack it lands in
    src_proc, dst_proc = proc_of[arrows.timeline.to_numpy()], proc_of[arrows.timeline_to.to_numpy()]
    number = _process_numbers(reader, np.concatenate([process, src_proc, dst_proc]))
    frame.insert(4, "Process Timeline", frame["Process"].to_numpy())
    frame["Process"] = number[frame["Process"].to_numpy()]
    tags = _first_int(arrows, _TAG_ARGS, None)
    sizes = _first_int(arrows, _SIZE_ARGS, 0)
    comms = arrows["args.communicator"].tolist()
    sends, recvs = [], []
    for k in range(len(arrows)):
        common = {}
        if comms[k] is not None:
            common["communicator"] = comms[k]
        if tags[k] is not None:
            common["msg_tag"] = tags[k]
        common["msg_length"] = sizes[k]
        if send[k]:
            sends.append({"receiver": int(number[dst_proc[k]]), **common})
        if recv[k]:
            recvs.append({"sender": int(number[src_proc[k]]), **common})
    a = (list(states.args) if args else [None] * ns) + [None] * ns + \
        (list(events.args) if args else [None] * ne) + sends + recvs
    frame["Attributes"] = pd.Series([a[i] for i in order], dtype=object)
    is_message = np.zeros(len(order), bool)
    is_message[2 * ns + ne:] = True
    is_message = is_message[order]
    if is_message.any():
        step = np.where(frame["Event Type"] == "Enter", 1,
                        np.where(frame["Event Type"] == "Leave", -1, 0))
        open_now = pd.Series(step).groupby(frame["Thread"].to_numpy()).cumsum().to_numpy()
        frame.loc[is_message, "_depth"] = open_now[is_message]
    return frame


_INT64 = (-2**63, 2**63)


def _int_args(values, fallback):
    """Per row the int arg (within int64) of values, else fallback's entry."""
    out = fallback.copy()
    for i, v in enumerate(values):
        if type(v) is int and _INT64[0] <= v < _INT64[1]:
            out[i] = v
    return out


def to_hta(reader, t0=None, t1=None, *, timelines=None, categories=None, unit="us",
           args=True):
    """HTA's trace DataFrame of the window's states.  args=False reads no
    args: stream and correlation then come from the timelines alone."""
    if unit not in ("us", "ns"):
        raise ValueError(f"unit: 'us' (as HTA and Kineto) or 'ns', not '{unit}'")
    keys = ["stream", "correlation"] if args else False
    df = reader.window(t0, t1, timelines=timelines, categories=categories, kinds="state",
                       columns=["timeline", "category", "start", "end", "depth"], args=keys)
    scale = 1000 if unit == "us" else 1
    ts = df.start.to_numpy() // scale
    end = df.end.to_numpy() // scale
    cats = reader.categories
    groups = [g if g else k for g, k in zip(cats.group, cats.kind.astype(str))]
    symbols = list(pd.unique(np.asarray(list(cats.name) + groups, dtype=object)))
    sym_id = {s: i for i, s in enumerate(symbols)}
    name_ids = np.array([sym_id[n] for n in cats.name], dtype=np.int64)
    cat_ids = np.array([sym_id[g] for g in groups], dtype=np.int64)
    category = df.category.to_numpy()
    timeline = df.timeline.to_numpy().astype(np.int64)
    tl = reader.timelines
    gpu = (tl.kind == "gpu").to_numpy()
    n = len(df)
    stream = np.where(gpu[timeline], timeline, -1) if n else timeline
    correlation = np.full(n, -1, np.int64)
    if args:
        stream = _int_args(df["args.stream"], stream)
        correlation = _int_args(df["args.correlation"], correlation)
    frame = pd.DataFrame({
        "index": np.arange(n, dtype=np.int64),
        "ts": ts,
        "dur": end - ts,
        "end": end,
        "name": name_ids[category],
        "cat": cat_ids[category],
        "pid": tl.process.to_numpy()[timeline] if n else timeline,
        "tid": timeline,
        "stream": stream,
        "correlation": correlation,
        "depth": df.depth.to_numpy().astype(np.int64),
    })
    sym = np.asarray(symbols, dtype=object)
    frame["s_name"] = sym[frame["name"].to_numpy()] if n else np.array([], dtype=object)
    frame["s_cat"] = sym[frame["cat"].to_numpy()] if n else np.array([], dtype=object)
    frame = frame.sort_values(["ts", "index"], kind="stable").reset_index(drop=True)
    frame.attrs["symbol_table"] = symbols
    return frame
