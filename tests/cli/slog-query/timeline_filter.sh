# --timeline NAME selects the timeline and its descendants (a process name
# selects its threads); arrows match by either end
"$SLOG_SYNTH" --states 20000 --timelines 6 --seed 4 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > full.jsonl
"$SLOG_QUERY" t.slog -f jsonl --timeline "process 1" > p1.jsonl
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl p1.jsonl -1 999999999999 "process 1" "thread 1.0" "thread 1.1"
"$SLOG_QUERY" t.slog -f jsonl --timeline "thread 2.1" --timeline "thread 0.0" --window 10%:90% > two.jsonl
dur=$("$SLOG_INFO" --json t.slog | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["duration"])')
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl two.jsonl $((dur / 10)) $((dur * 9 / 10)) "thread 2.1" "thread 0.0"
