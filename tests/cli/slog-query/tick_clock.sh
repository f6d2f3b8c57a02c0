# a file whose clock is not ns (microsecond ticks): window times and output
# times are still ns, converted exactly; the window holds exactly the
# overlapping items
"$SLOG_SYNTH" --states 20000 --timelines 4 --seed 31 --ticks-per-second 1000000 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > full.jsonl
"$SLOG_QUERY" t.slog -f jsonl --window 30ms:45.5ms > win.jsonl
"$PYTHON" "$CLI_DIR/check_window.py" full.jsonl win.jsonl 30000000 45500000
"$PYTHON" -c '
import json
ok = all(json.loads(l)["start"] % 1000 == 0 and json.loads(l)["end"] % 1000 == 0 for l in open("full.jsonl"))
print("whole microseconds", ok)'
