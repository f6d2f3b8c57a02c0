# chrome: valid Trace Event JSON; X/i/s+f/C counts match the drawables;
# ts/dur are exact microseconds with three decimals (compared as text with
# the ns of the jsonl output); names and groups kept; M events name every
# timeline
"$SLOG_SYNTH" --states 3000 --timelines 5 --seed 12 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl --absolute > all.jsonl
"$SLOG_QUERY" t.slog -f chrome -o trace.json
"$SLOG_INFO" --json t.slog > info.json
"$PYTHON" - <<'PY'
import json, re, collections
from decimal import Decimal
raw = open("trace.json", encoding="utf-8").read()
doc = json.loads(raw, parse_float=Decimal)
assert doc["displayTimeUnit"] == "ns"
ev = doc["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
assert ph["X"] == 3000 and ph["i"] == 300 and ph["s"] == 30 and ph["f"] == 30 and ph["C"] == 30, ph
for m in re.finditer(r'"(ts|dur)":([-0-9.eE+]+)', raw):
    assert re.fullmatch(r"-?[0-9]+\.[0-9]{3}", m.group(2)), m.group(0)
info = json.load(open("info.json"))
start = info["start"]
items = [json.loads(l) for l in open("all.jsonl")]
states = collections.Counter((x["category"], (x["start"] + start), (x["end"] - x["start"]))
                             for x in items if x["kind"] == "state")
xs = collections.Counter((e["name"], int(e["ts"] * 1000), int(e["dur"] * 1000))
                         for e in ev if e["ph"] == "X")
assert states == xs
groups = {c["name"]: c["group"] for c in info["category_list"]}
assert all(e.get("cat", "") == groups[e["name"]] for e in ev if e["ph"] in "Xi")
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"].endswith("_name")}
assert names == {t["name"] for t in info["timeline_list"]}, names
pids = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert len(pids) == 5
flows = collections.Counter(e["id"] for e in ev if e["ph"] in "sf")
assert all(n == 2 for n in flows.values()) and all(e["bp"] == "e" for e in ev if e["ph"] == "f")
print("ok")
PY
