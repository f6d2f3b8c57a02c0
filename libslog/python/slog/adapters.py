# SPDX-License-Identifier: MIT
"""A window in the DataFrame shapes of pipit and Holistic Trace Analysis.

pipit (hpcgroup/pipit) keeps a trace in event form: one row per Enter,
Leave or Instant with the columns "Timestamp (ns)", "Event Type", "Name",
"Process", "Thread", sorted by time, Event Type and Name as categoricals;
its readers also fill "_matching_event" and "_matching_timestamp" (the row
and time of an Enter's Leave and back, -1 for Instants) and "_depth".
to_pipit builds these from a window's states (Enter and Leave) and events
(Instant); Process is the timeline's nearest process or rank ancestor (its
id), Thread the timeline's id; args become "Attributes" when asked.

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

__all__ = ["to_pipit", "to_hta", "PIPIT_COLUMNS", "HTA_COLUMNS"]

PIPIT_COLUMNS = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread", "_depth",
                 "_matching_event", "_matching_timestamp"]
HTA_COLUMNS = ["index", "ts", "dur", "end", "name", "cat", "pid", "tid", "stream",
               "correlation", "depth", "s_name", "s_cat"]

_ENTER, _LEAVE, _INSTANT = 0, 1, 2
_EVENT_TYPES = ["Enter", "Leave", "Instant"]


def _pipit_order(ts, etype, depth, zero, pair):
    """Row order: by time; at equal times Leaves of nonzero states first
    (deepest first), then Enters (outermost first), then Instants.  A
    zero-length state's Enter and Leave stay next to each other (pair: the
    state's index, shared by its two rows), before the nonzero Enters of its
    depth, so that each Leave closes the innermost open Enter."""
    leave = etype == _LEAVE
    phase = np.where(leave & ~zero, 0, np.where(etype == _INSTANT, 2, 1))
    d = depth.astype(np.int64)
    sub = np.where(phase == 0, -d, d)
    nonzero_enter = (etype == _ENTER) & ~zero
    return np.lexsort((leave, pair, nonzero_enter, sub, phase, ts))


def to_pipit(reader, t0=None, t1=None, *, timelines=None, categories=None, args=False,
             relative=False):
    """pipit's events DataFrame of the window's states and events."""
    df = reader.window(t0, t1, timelines=timelines, categories=categories,
                       kinds=["state", "event"], args=bool(args),
                       columns=["kind", "timeline", "name", "start", "end", "depth"])
    is_state = (df.kind == "state").to_numpy()
    states, events = df[is_state], df[~is_state]
    ns, ne = len(states), len(events)
    ts = np.concatenate([states.start.to_numpy(), states.end.to_numpy(), events.start.to_numpy()])
    if relative:
        ts = ts - (reader.info["start"] or 0)
    etype = np.concatenate([np.full(ns, _ENTER, np.int8), np.full(ns, _LEAVE, np.int8),
                            np.full(ne, _INSTANT, np.int8)])
    depth = np.concatenate([states.depth, states.depth, events.depth]).astype(np.int64)
    zero_state = (states.end == states.start).to_numpy()
    zero = np.concatenate([zero_state, zero_state, np.zeros(ne, bool)])
    pair = np.concatenate([np.arange(ns), np.arange(ns), np.arange(ns, ns + ne)])
    order = _pipit_order(ts, etype, depth, zero, pair)
    pos = np.empty_like(order)
    pos[order] = np.arange(len(order))
    match = np.full(len(order), -1, np.int64)
    match[:ns], match[ns:2 * ns] = pos[ns:2 * ns], pos[:ns]
    match_ts = np.full(len(order), -1, np.int64)
    match_ts[:ns], match_ts[ns:2 * ns] = ts[ns:2 * ns], ts[:ns]
    timeline = np.concatenate([states.timeline, states.timeline, events.timeline])
    process = reader.timelines.process.to_numpy()[timeline] if len(timeline) else timeline
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
    if args:
        a = list(states.args) + [None] * ns + list(events.args)
        frame["Attributes"] = pd.Series([a[i] for i in order], dtype=object)
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
