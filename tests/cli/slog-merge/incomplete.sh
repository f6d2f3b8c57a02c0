# An input whose writer did not finish (here: an import that failed half way)
# is refused without --allow-incomplete and merged, counted, with it (100
# states and the import's one good state before its error); the warning on
# stderr names it, and the output (merged, index or copy) is marked
# incomplete too: it cannot hold more than its inputs' writers finished.
"$SLOG_SYNTH" -q --states 100 --timelines 2 -o a.slog
printf '[\n{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},\n{"name":"b","ph":"X" "pid":1}\n]\n' > cut.json
"$SLOG_IMPORT" -q cut.json -o cut.slog 2>/dev/null
echo "import exit $?"
"$SLOG_MERGE" a.slog cut.slog -o out.slog
echo "exit $?"
"$SLOG_MERGE" a.slog cut.slog -o out.slog --allow-incomplete --json | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("exit 0:", d["inputs"], "inputs,", d["incomplete_inputs"], "incomplete,", d["states"], "states")'
"$SLOG_INFO" out.slog | grep '^complete:'
"$SLOG_QUERY" out.slog -f csv --no-args | tail -n +2 | wc -l
for mode in --index --copy; do
    "$SLOG_MERGE" a.slog cut.slog -o "out$mode.slog" --allow-incomplete -q "$mode"
    echo "$mode exit $?: $("$SLOG_INFO" "out$mode.slog" | grep '^complete:')"
done
"$SLOG_MERGE" a.slog -o whole.slog -q --allow-incomplete
echo "complete inputs: $("$SLOG_INFO" whole.slog | grep '^complete:')"
