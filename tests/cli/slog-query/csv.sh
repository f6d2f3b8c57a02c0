# csv: a header and one RFC 4180 row per item, 26 columns, same items as jsonl
"$SLOG_SYNTH" --states 3000 --timelines 5 --seed 12 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > all.jsonl
"$SLOG_QUERY" t.slog -f csv > all.csv
"$PYTHON" - <<'PY'
import csv, json
rows = list(csv.reader(open("all.csv", newline="", encoding="utf-8")))
head, rows = rows[0], rows[1:]
assert head[:7] == ["kind", "timeline_id", "timeline", "category_id", "category", "start", "end"]
assert head[-1] == "args" and len(head) == 26
assert all(len(r) == 26 for r in rows)
items = [json.loads(l) for l in open("all.jsonl")]
assert len(items) == len(rows) == 3360
for x, r in zip(items, rows):
    d = dict(zip(head, r))
    assert d["kind"] == x["kind"] and d["timeline"] == x["timeline"], (d, x)
    assert int(d["start"]) == x["start"] and int(d["end"]) == x["end"], (d, x)
    assert (json.loads(d["args"]) if d["args"] else {}) == x.get("args", {}), (d, x)
    if x["kind"] == "state":
        assert int(d["depth"]) == x["depth"]
    if x["kind"] == "counter":
        assert float(d["value"]) == x["value"]
    if x["kind"] == "arrow":
        assert d["from"] == x["from"] and d["to"] == x["to"]
print("ok")
PY
