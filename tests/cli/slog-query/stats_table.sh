# --stats as a table: every duration column, MEAN included, in the same units
# (was: MEAN in raw ns, "2333333ns" beside "4ms"); the mean is rounded to the ns
cat > t.json <<'JSON'
[{"name":"io","ph":"X","pid":1,"tid":1,"ts":0,"dur":1000},
 {"name":"io","ph":"X","pid":1,"tid":1,"ts":2000,"dur":2000},
 {"name":"io","ph":"X","pid":1,"tid":1,"ts":5000,"dur":4000},
 {"name":"tick","ph":"X","pid":1,"tid":1,"ts":10000,"dur":1},
 {"name":"tick","ph":"X","pid":1,"tid":1,"ts":10002,"dur":2},
 {"name":"long","ph":"X","pid":1,"tid":2,"ts":0,"dur":2500000}]
JSON
"$SLOG_IMPORT" -q t.json -o t.slog
"$SLOG_QUERY" t.slog --stats
"$SLOG_QUERY" t.slog --stats --format jsonl | "$PYTHON" -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    print(r["category"], r["mean"])'
