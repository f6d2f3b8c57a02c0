# Chrome events with no tid or no pid (doc/IMPORT-CHROME.md, "Processes,
# threads and other timelines"): a slice or thread-scoped instant without a
# tid lands on thread "tid (none)" of its process, one without a pid on
# process "pid (none)"; a process-scoped instant on the process, a counter on
# its track under the process; and --format chrome gives each back on the
# same timeline path
cat > in.json <<'JSON'
[{"ph":"X","pid":3,"name":"no_tid","ts":1,"dur":1},
{"ph":"X","name":"neither","ts":1,"dur":1},
{"ph":"i","name":"instant_neither","ts":2},
{"ph":"i","name":"process_instant_no_pid","ts":2,"s":"p"},
{"ph":"C","name":"counter_no_pid","ts":2,"args":{"v":1}},
{"ph":"X","tid":4,"name":"no_pid","ts":1,"dur":1},
{"ph":"X","pid":3,"tid":"","name":"empty_tid","ts":1,"dur":1}]
JSON
paths() {
    "$SLOG_INFO" --json --all "$1" > info.json
    "$SLOG_QUERY" "$1" -f jsonl | "$PYTHON" -c '
import json, sys
tl = {t["id"]: t for t in json.load(open("info.json"))["timeline_list"]}
def path(i):
    return (path(tl[i]["parent"]) + "/" if tl[i]["parent"] is not None else "") + tl[i]["name"]
for line in sys.stdin:
    d = json.loads(line)
    print(d["category"], "->", path(d["timeline_id"]))'
}
"$SLOG_IMPORT" -q in.json -o a.slog
paths a.slog | sort > a.txt
"$SLOG_QUERY" a.slog -f chrome -o a.json
"$SLOG_IMPORT" -q a.json -o b.slog
paths b.slog | sort > b.txt
cat a.txt
cmp -s a.txt b.txt && echo "same paths after a round trip"
