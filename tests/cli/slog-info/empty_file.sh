# a file without drawables: no time range in text, zeros in JSON; a query
# of it prints nothing (csv: the header) and succeeds
echo '[]' > empty.json
"$SLOG_IMPORT" -q empty.json -o e.slog
"$SLOG_INFO" e.slog | grep '^time range'
"$SLOG_INFO" --json e.slog | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
print(d["start"], d["end"], d["duration"], d["states"], d["nodes"], d["bytes_per_drawable"])'
"$SLOG_QUERY" e.slog -f csv | wc -l
"$SLOG_QUERY" e.slog -f jsonl --pixels 100 | wc -l
