# A directory stands for its *.slog files sorted by name; other files and the
# output itself (when it is in that directory) are left out, so a second run
# merges the same two inputs.
mkdir d
"$SLOG_SYNTH" -q --states 300 --timelines 2 --seed 5 -o d/b.slog
"$SLOG_SYNTH" -q --states 200 --timelines 2 --seed 6 -o d/a.slog
echo notes > d/notes.txt
top() {
    "$SLOG_INFO" --json --all "$1" | "$PYTHON" -c 'import json,sys
d = json.load(sys.stdin)
print([(t["name"], t["kind"], t["sort_key"]) for t in d["timeline_list"] if t["parent"] is None])'
}
"$SLOG_MERGE" -q d -o d/all.slog && top d/all.slog
"$SLOG_MERGE" -q d -o d/all.slog && top d/all.slog
ls d
