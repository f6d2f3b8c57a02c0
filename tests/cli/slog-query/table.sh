# table: a header, then one aligned row per item, in the same order as
# jsonl; start/end are exact milliseconds (six decimals)
"$SLOG_SYNTH" --states 500 --timelines 3 --seed 5 -q -o t.slog
"$SLOG_QUERY" t.slog > t.txt
"$SLOG_QUERY" t.slog -f jsonl > t.jsonl
head -n 1 t.txt | tr -s ' '
"$PYTHON" - <<'PY'
import json
rows = open("t.txt").read().splitlines()[1:]
items = [json.loads(l) for l in open("t.jsonl")]
assert len(rows) == len(items) == 560, (len(rows), len(items))
for r, x in zip(rows, items):
    f = r.split()
    assert f[0] == x["kind"], (r, x)
    assert round(float(f[1]) * 1e6) == x["start"] and round(float(f[2]) * 1e6) == x["end"], (r, x)
    assert len(f[1].split(".")[1]) == 6
print("ok")
PY
