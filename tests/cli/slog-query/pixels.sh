# --pixels N: resolution = ceil(window / N); sub-pixel detail comes back as
# previews carrying their summaries; each state is counted once, either as
# itself or inside a preview
"$SLOG_SYNTH" --states 20000 --timelines 4 --seed 21 --leaf-bytes 4KiB -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl -k state > full.jsonl
"$SLOG_QUERY" t.slog -f jsonl -k state,preview --pixels 20 > zoom.jsonl
"$PYTHON" - <<'PY'
import json
zoom = [json.loads(l) for l in open("zoom.jsonl")]
full = sum(1 for _ in open("full.jsonl"))
prev = [x for x in zoom if x["kind"] == "preview"]
real = [x for x in zoom if x["kind"] == "state"]
assert prev, "no preview at 20 pixels"
for p in prev:
    assert p["of"] == "state" and type(p["fold"]) is int and p["count"] >= 1, p
    for k in ("inclusive", "exclusive", "min", "max", "start", "end", "row"):
        assert k in p, (k, p)
    assert p["min"] <= p["max"] and p["exclusive"] <= p["inclusive"], p
counted = len(real) + sum(p["count"] for p in prev)
assert counted == full, (counted, full)
assert len(zoom) < full / 4, (len(zoom), full)
print("ok")
PY
