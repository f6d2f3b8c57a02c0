# --label names an input's top timeline (IN is the input or its file name),
# --offset shifts an input's times by ticks of its own clock, before scaling.
"$SLOG_SYNTH" -q --states 100 --timelines 2 --seed 1 -o a.slog
"$SLOG_SYNTH" -q --states 100 --timelines 2 --seed 2 --ticks-per-second 1000000 -o b.slog
"$SLOG_MERGE" a.slog ./b.slog -o plain.slog --json | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("start_ns", d["start_ns"], "end_ns", d["end_ns"])'
"$SLOG_MERGE" a.slog ./b.slog -o out.slog --label a.slog=rank=0 --label b.slog="rank 1" \
    --offset ./b.slog=-2000000 --json | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("start_ns", d["start_ns"], "end_ns", d["end_ns"])'
"$SLOG_INFO" --json --all out.slog | "$PYTHON" -c 'import json,sys
d = json.load(sys.stdin)
print([t["name"] for t in d["timeline_list"] if t["parent"] is None])'
