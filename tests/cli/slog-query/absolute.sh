# --absolute takes raw ticks: the same window as relative ns gives the
# same items (ns clock: ticks = start + ns)
"$SLOG_SYNTH" --states 5000 --timelines 3 --seed 8 -q -o t.slog
start=$("$SLOG_INFO" --json t.slog | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["start_ticks"])')
"$SLOG_QUERY" t.slog -f jsonl --window 1ms:2ms > rel.jsonl
"$SLOG_QUERY" t.slog -f jsonl --absolute --window "$((start + 1000000)):$((start + 2000000))" > abs.jsonl
cmp -s rel.jsonl abs.jsonl && echo same
[ -s rel.jsonl ] && echo nonempty
"$SLOG_QUERY" t.slog --absolute --window 5ms:6ms
