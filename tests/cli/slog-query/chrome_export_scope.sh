# chrome export fidelity (issue 12 item 5): M events name only the timelines
# the output holds (a thread left out by --timeline or the window, and a
# named thread without drawables, get none); global- and process-scoped
# instants keep "s":"g" / "s":"p" (no thread "tid N" made up for them);
# counters keep their name and id ("mem[a].heap" comes back as name "mem",
# id "a"), so a second import gives the same timeline paths
cat > in.json <<'JSON'
{"traceEvents":[
{"ph":"M","pid":5,"name":"process_name","args":{"name":"Renderer"}},
{"ph":"M","pid":5,"tid":7,"name":"thread_name","args":{"name":"Main"}},
{"ph":"M","pid":5,"tid":8,"name":"thread_name","args":{"name":"Idle"}},
{"ph":"M","pid":6,"tid":9,"name":"thread_name","args":{"name":"Other"}},
{"ph":"X","pid":5,"tid":7,"name":"work","ts":10,"dur":5},
{"ph":"X","pid":6,"tid":9,"name":"late","ts":100,"dur":5},
{"ph":"i","pid":5,"tid":7,"name":"here","ts":11,"s":"p"},
{"ph":"i","pid":5,"tid":7,"name":"everywhere","ts":12,"s":"g"},
{"ph":"C","pid":5,"name":"mem","ts":13,"args":{"heap":3}},
{"ph":"C","pid":5,"name":"mem","id":"a","ts":14,"args":{"heap":4}}
]}
JSON
"$SLOG_IMPORT" -q in.json -o a.slog
"$SLOG_QUERY" a.slog -f chrome -w 0:50us -o a.json
"$SLOG_IMPORT" -q a.json -o b.slog
"$SLOG_QUERY" a.slog -f chrome -t Other -o other.json
"$PYTHON" - <<'PY'
import json
def show(path):
    for e in json.load(open(path))["traceEvents"]:
        keep = {k: e[k] for k in ("ph", "name", "s", "id") if k in e}
        if e["ph"] == "M":
            keep["args"] = e["args"]
        elif e["ph"] == "C":
            keep["args"] = e["args"]
        print(json.dumps(keep, sort_keys=True))
show("a.json")
print("--")
show("other.json")
PY
echo "--"
"$SLOG_INFO" --json --all b.slog | "$PYTHON" -c '
import json, sys
tl = {t["id"]: t for t in json.load(sys.stdin)["timeline_list"]}
def path(i):
    return (path(tl[i]["parent"]) + "/" if tl[i]["parent"] is not None else "") + tl[i]["name"]
print("\n".join(sorted(t["kind"] + " " + path(i) for i, t in tl.items())))'
