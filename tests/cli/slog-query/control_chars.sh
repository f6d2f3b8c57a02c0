# names with control characters: text outputs keep one line per row ('?'),
# jsonl and csv keep the exact name (escaped / quoted)
printf '{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"evil\\nname\\u0007"}},{"ph":"X","name":"a,\\"b\\"","cat":"g","pid":1,"tid":2,"ts":1,"dur":2}]}' > evil.json
"$SLOG_IMPORT" -q evil.json -o e.slog
"$SLOG_INFO" e.slog | grep -c 'evil?name?  \[thread'
"$SLOG_QUERY" e.slog | tail -n 1 | tr -s ' '
"$SLOG_QUERY" e.slog -f jsonl | "$PYTHON" -c 'import json,sys; x=json.loads(sys.stdin.read()); print(repr(x["timeline"]), repr(x["category"]))'
"$SLOG_QUERY" e.slog -f csv | "$PYTHON" -c 'import csv,sys; r=list(csv.reader(sys.stdin)); print(len(r), repr(r[1][2]), repr(r[1][4]))'
