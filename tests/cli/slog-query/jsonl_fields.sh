# every jsonl line carries the documented fields with the right types;
# args keep their types (uint64 above INT64_MAX exactly, doubles, bools,
# strings with escapes, raw JSON)
"$SLOG_SYNTH" --states 3000 --timelines 5 --seed 12 --state-args -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > all.jsonl
"$PYTHON" - <<'PY'
import json
kinds = {}
argtypes = set()
big = False
for line in open("all.jsonl", encoding="utf-8"):
    x = json.loads(line)
    k = x["kind"]
    kinds[k] = kinds.get(k, 0) + 1
    assert type(x["timeline"]) is str and x["timeline"], x
    assert type(x["timeline_id"]) is int and type(x["category_id"]) is int, x
    assert type(x["category"]) is str and x["category"], x
    assert type(x["start"]) is int and type(x["end"]) is int and x["start"] >= 0, x
    if k == "state":
        assert type(x["depth"]) is int and x["end"] >= x["start"], x
    elif k in ("event", "counter"):
        assert x["end"] == x["start"], x
    if k == "arrow":
        assert type(x["from"]) is str and type(x["to"]) is str and x["timeline"] == x["from"], x
        assert x["end"] >= x["start"], x
    if k == "counter":
        assert type(x["value"]) is float, x
    for v in x.get("args", {}).values():
        argtypes.add(type(v).__name__)
        big = big or (type(v) is int and v > 2**63 - 1)
assert kinds == {"state": 3000, "event": 300, "arrow": 30, "counter": 30}, kinds
print(sorted(argtypes), big)
PY
grep -c '"note":"gamma \\"quoted\\""' all.jsonl | sed -e 's/^[1-9][0-9]*$/escaped/'
grep -c '"data":{"k":\[1,2.5,null\]}' all.jsonl | sed -e 's/^[1-9][0-9]*$/raw/'
