# Two files of different clocks (10^9 and 10^6 ticks/s) merged: counts add up,
# the output clock is their least common multiple, --json is one object.
"$SLOG_SYNTH" -q --states 2000 --timelines 4 --seed 1 -o a.slog
"$SLOG_SYNTH" -q --states 1000 --timelines 3 --seed 2 --ticks-per-second 1000000 -o b.slog
"$SLOG_MERGE" a.slog b.slog -o out.slog --json
echo "exit $?"
"$SLOG_INFO" --json out.slog | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("complete:", d["complete"], "creator:", d["creator"])'
ls
