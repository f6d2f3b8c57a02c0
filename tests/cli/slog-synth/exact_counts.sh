# the requested totals are exact, and land in the file
"$SLOG_SYNTH" --states 5000 --timelines 9 --events 37 --arrows 11 --counters 5 --seed 7 -q -o t.slog
"$SLOG_INFO" --json t.slog | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
print(d["states"], d["events"], d["arrows"], d["counters"], d["timelines"], d["complete"])'
