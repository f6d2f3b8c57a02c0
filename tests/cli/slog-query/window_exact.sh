# a full-detail window returns exactly the items that overlap it, checked
# independently in Python against a whole-trace query; the same window as
# ns, as us and as a percentage gives the same bytes
"$SLOG_SYNTH" --states 20000 --timelines 6 --seed 4 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > full.jsonl
dur=$("$SLOG_INFO" --json t.slog | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["duration"])')
t0=$((dur * 3 / 10)); t1=$((dur * 4 / 10))
"$SLOG_QUERY" t.slog -f jsonl --window "${t0}ns:${t1}ns" > win.jsonl
"$SLOG_QUERY" t.slog -f jsonl --window "30%:40%" > pct.jsonl
cmp -s win.jsonl pct.jsonl || echo "percent window differs from ns window"
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl win.jsonl "$t0" "$t1"
# a window given in us, and one open on the left
"$SLOG_QUERY" t.slog -f jsonl --window 1500us:2500.5us > us.jsonl
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl us.jsonl 1500000 2500500
"$SLOG_QUERY" t.slog -f jsonl --window :2ms > left.jsonl
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl left.jsonl -1 2000000
# ":" and no --window are the whole trace
"$SLOG_QUERY" t.slog -f jsonl --window : | cmp -s - full.jsonl || echo "':' is not the whole trace"
"$SLOG_QUERY" t.slog -f jsonl --window 0%:100% | cmp -s - full.jsonl || echo "0%:100% is not the whole trace"
[ "$(wc -l < full.jsonl)" -eq 22400 ] || echo "whole trace has $(wc -l < full.jsonl) items"
