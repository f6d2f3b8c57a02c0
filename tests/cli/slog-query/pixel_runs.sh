# --pixels (1000: leaves of this trace are too wide for their time bins)
# merges sub-pixel drawables into pixel runs in every format:
# jsonl runs carry per-category totals that add up to the run's count, and
# runs plus drawables count exactly the drawables of the same view without
# the run kind; csv, table and chrome print the same number of runs
"$SLOG_SYNTH" --states 20000 --timelines 4 --seed 7 -q -o t.slog
"$SLOG_QUERY" t.slog --pixels 1000 -f jsonl > runs.jsonl
"$SLOG_QUERY" t.slog --pixels 1000 -f jsonl -k state,event,arrow,counter,preview > plain.jsonl
"$PYTHON" - <<'PY'
import json
runs = [json.loads(l) for l in open("runs.jsonl")]
plain = [json.loads(l) for l in open("plain.jsonl")]
r = [x for x in runs if x["kind"] == "run"]
assert r, "no runs"
assert all(x["count"] >= 2 and sum(c["count"] for c in x["categories"]) == x["count"] for x in r)
assert all(0 < x["share"] <= 1 for x in r)
merged = sum(x["count"] for x in r)
real = lambda v: [x for x in v if x["kind"] not in ("run", "preview")]
assert len(real(runs)) + merged == len(real(plain)), (len(real(runs)), merged, len(real(plain)))
assert not [x for x in plain if x["kind"] == "run"]
print("runs", len(r), "items", len(runs), "<", len(plain))
PY
"$SLOG_QUERY" t.slog --pixels 1000 -f csv | grep -c '^run,'
"$SLOG_QUERY" t.slog --pixels 1000 -f table | grep -c '^run '
"$SLOG_QUERY" t.slog --pixels 1000 -f chrome | grep -o '"cat":"slog.run"' | wc -l
