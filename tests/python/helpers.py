# SPDX-License-Identifier: MIT
"""Turning DataFrame rows and slog-query's jsonl lines into comparable tuples."""


def jsonl_drawable(d):
    """(kind, timeline, to, category, start, end, depth, value, args) of a jsonl drawable."""
    k = d["kind"]
    to = d.get("to_id", d["timeline_id"])
    return (k, d["timeline_id"], to, d["category_id"], d["start"], d["end"], d.get("depth", 0),
            d.get("value", 0.0), d.get("args"))


def frame_drawables(df, origin, with_args=True):
    """The same tuples from a window DataFrame, times relative to origin ns."""
    out = []
    args = df["args"] if with_args and "args" in df else [None] * len(df)
    for row, a in zip(df.itertuples(index=False), args):
        # windows without arrows have no timeline_to, without counters no value
        to = getattr(row, "timeline_to", row.timeline)
        out.append((row.kind, int(row.timeline), int(to), int(row.category),
                    int(row.start) - origin, int(row.end) - origin, int(row.depth),
                    float(getattr(row, "value", 0.0)), a))
    return out
