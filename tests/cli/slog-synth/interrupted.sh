# SIGINT: exit 130, the file is left incomplete but opens, and a query
# returns exactly the drawables the file says it holds
timeout --preserve-status -s INT 1 "$SLOG_SYNTH" --states 1e12 -o t.slog
echo "exit $?"
"$SLOG_INFO" --json t.slog > info.json
n=$("$SLOG_QUERY" t.slog -f jsonl | wc -l)
"$PYTHON" -c '
import json, sys
d = json.load(open("info.json"))
print("complete", d["complete"])
print("consistent", d["drawables"] == int(sys.argv[1]))' "$n"
