# --category and --kind filter exactly
"$SLOG_SYNTH" --states 10000 --timelines 4 --seed 9 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > full.jsonl
"$SLOG_QUERY" t.slog -f jsonl --category compute --category MPI_Wait --kind states > f.jsonl
"$SLOG_QUERY" t.slog -f jsonl --kind event,counter > ec.jsonl
"$PYTHON" - <<'PY'
import json, collections
full = [json.loads(l) for l in open("full.jsonl")]
def multiset(items):
    return collections.Counter(json.dumps(x, sort_keys=True) for x in items)
f = [json.loads(l) for l in open("f.jsonl")]
want = [x for x in full if x["kind"] == "state" and x["category"] in ("compute", "MPI_Wait")]
assert want and multiset(f) == multiset(want), (len(f), len(want))
ec = [json.loads(l) for l in open("ec.jsonl")]
want = [x for x in full if x["kind"] in ("event", "counter")]
assert want and multiset(ec) == multiset(want), (len(ec), len(want))
print("ok")
PY
