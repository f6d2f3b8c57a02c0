# --json: the documented integers at top level, start/end in ns converted
# exactly from ticks (a microsecond clock here), complete flag, lists
"$SLOG_SYNTH" --states 3000 --timelines 5 --seed 2 --ticks-per-second 1000000 -q -o t.slog
"$SLOG_INFO" --json t.slog > info.json
"$SLOG_QUERY" t.slog --absolute -f jsonl -k state > states.jsonl
"$PYTHON" - <<'PY'
import json
d = json.load(open("info.json"))
for k in ("states", "events", "arrows", "counters", "timelines", "categories", "nodes",
          "depth", "file_bytes", "start", "end"):
    assert type(d[k]) is int, k
assert d["schema"] == 1 and d["complete"] is True
assert type(d["format_read_version"]) is int and type(d["format_write_version"]) is int
assert d["ticks_per_second"] == 1000000
assert d["start"] == d["start_ticks"] * 1000 and d["end"] == d["end_ticks"] * 1000
assert d["duration"] == d["end"] - d["start"]
assert d["states"] == 3000 and d["events"] == 300 and d["arrows"] == 30
assert d["timelines"] == len(d["timeline_list"]) == 8
assert d["categories"] == len(d["category_list"])
assert {t["kind"] for t in d["timeline_list"]} == {"process", "thread"}
assert all(t["parent"] is None or type(t["parent"]) is int for t in d["timeline_list"])
assert all(c["color"].startswith("#") and len(c["color"]) == 9 for c in d["category_list"])
assert d["nodes"] >= 1 and d["depth"] >= 1 and d["file_bytes"] > 0
assert 1 <= d["leaves"] <= d["nodes"] and d["leaf_drawables"] <= d["drawables"]
# relative query times are ns from the start: the earliest state starts at 0
starts = [json.loads(l)["start"] for l in open("states.jsonl")]
assert min(starts) == 0, min(starts)
print("ok")
PY
