# --format chrome re-imports through slog-import to the same drawables:
# states (depth, args), events, arrows exactly; counter samples keep time,
# value and category (a counter on a process timeline comes back on a
# counter track of that process); a second round trip changes nothing at all
"$SLOG_SYNTH" --states 3000 --timelines 5 --seed 12 --state-args -q -o a.slog
"$SLOG_QUERY" a.slog -f chrome -o a.json
"$SLOG_IMPORT" -q a.json -o b.slog
"$SLOG_QUERY" b.slog -f chrome -o b.json
"$SLOG_IMPORT" -q b.json -o c.slog
for f in a b c; do "$SLOG_QUERY" $f.slog -f jsonl --absolute > $f.jsonl; done
"$PYTHON" - <<'PY'
import json
def norm(path, drop_counter_timeline):
    out = []
    for line in open(path, encoding="utf-8"):
        x = json.loads(line)
        for k in ("timeline_id", "category_id", "from_id", "to_id"):
            x.pop(k, None)
        if drop_counter_timeline and x["kind"] == "counter":
            x.pop("timeline")
        out.append(json.dumps(x, sort_keys=True))
    return sorted(out)
assert norm("a.jsonl", True) == norm("b.jsonl", True)
assert len(norm("a.jsonl", True)) == 3360
print("first trip ok")
PY
sort b.jsonl > b.sorted; sort c.jsonl > c.sorted
cmp -s b.sorted c.sorted && echo "second trip identical"
