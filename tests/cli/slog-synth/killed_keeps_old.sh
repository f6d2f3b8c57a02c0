# The output is written as OUT.part and renamed when complete: a writer
# killed with SIGKILL leaves the previous OUT untouched and its own
# OUT.part incomplete but readable.
"$SLOG_SYNTH" --states 1000 -q -o t.slog
cp t.slog before.slog
timeout -s KILL 2 "$SLOG_SYNTH" --states 1e12 -q -o t.slog
echo "exit $?"
cmp -s t.slog before.slog && echo "old output intact"
"$SLOG_INFO" --json t.slog.part > info.json
"$PYTHON" -c '
import json
print("part complete", json.load(open("info.json"))["complete"])'
