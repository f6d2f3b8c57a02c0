# --slice changes how the work is cut, not what is written: the same
# drawables (slog-query's CSV, args included) with 1us slices and the default,
# and the same bytes (the append order is a total order that slicing keeps).
"$SLOG_SYNTH" -q --states 5000 --timelines 4 --seed 1 -o a.slog
"$SLOG_SYNTH" -q --states 3000 --timelines 4 --seed 2 --ticks-per-second 1000000 -o b.slog
"$SLOG_MERGE" a.slog b.slog -o one.slog --json > one.json
"$SLOG_MERGE" a.slog b.slog -o many.slog --slice 1us --json > many.json
"$PYTHON" -c 'import json; a=json.load(open("one.json")); b=json.load(open("many.json"))
print("slices: default", a["slices"], "1us more:", b["slices"] > 100)
print("same counts:", all(a[k] == b[k] for k in ("states", "events", "arrows", "counters")))'
"$SLOG_QUERY" one.slog -f csv | sort > one.csv
"$SLOG_QUERY" many.slog -f csv | sort > many.csv
cmp -s one.csv many.csv && echo "same drawables: $(wc -l < one.csv) lines"
cmp -s one.slog many.slog && echo "byte-identical files"
