# realistic nesting: depths 0..7 all occur, children lie inside their
# parents (checked per timeline with a stack), 50 state categories used
"$SLOG_SYNTH" --states 30000 --timelines 4 --seed 11 -q -o t.slog
"$SLOG_QUERY" t.slog -k state -f jsonl | "$PYTHON" -c '
import json, sys, collections
by_tl = collections.defaultdict(list)
for line in sys.stdin:
    s = json.loads(line)
    by_tl[s["timeline"]].append(s)
depths, cats, bad = set(), set(), 0
for states in by_tl.values():
    states.sort(key=lambda s: (s["start"], -s["end"]))
    stack = []
    for s in states:
        while stack and stack[-1]["end"] <= s["start"]:
            stack.pop()
        if stack and s["end"] > stack[-1]["end"]:
            bad += 1
        if s["depth"] != len(stack):
            bad += 1
        stack.append(s)
        depths.add(s["depth"]); cats.add(s["category"])
print(sorted(depths), len(cats), bad)'
