# Spans nested deeper than a writer takes (SLOG_MAX_DEPTH, 100000): 200 000
# B on one thread, then 200 000 E, then an X.  The 99 999 Bs past the cap are
# skipped and counted, their Es end them (not the Bs below), so the kept
# spans are exact: B at depth 0 ends with the last E, the B at depth 100000
# with the 100 000th E; the X after them sits at depth 0 (it failed the
# whole import before: "State depth 100001 too large", exit 1).
"$PYTHON" -c '
import sys
n = 200000
w = sys.stdout.write
w("[")
for i in range(n):
    w("{\"name\":\"a\",\"ph\":\"B\",\"ts\":%d,\"pid\":1,\"tid\":1}," % i)
for i in range(n):
    w("{\"name\":\"a\",\"ph\":\"E\",\"ts\":%d,\"pid\":1,\"tid\":1}," % (n + i))
w("{\"name\":\"b\",\"ph\":\"X\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":1}]" % (3 * n))
' | "$SLOG_IMPORT" --json - -o out.slog | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
print("ok:", d["ok"])
for r in d["records"]:
    print(r["what"], r["imported"], r["skipped"], r["repaired"])
' || exit 1
"$SLOG_QUERY" out.slog -f jsonl --no-args | "$PYTHON" -c '
import json, sys
states = [json.loads(l) for l in sys.stdin]
print("states:", len(states), "deepest:", max(s["depth"] for s in states))
for s in states:
    if s["depth"] in (0, 100000):
        print(s["category"], s["start"], s["end"], s["depth"])
'
