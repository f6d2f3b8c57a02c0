# An input whose writer did not finish (here: an import that failed half way)
# is refused without --allow-incomplete and merged, counted, with it (100
# states and the import's one good state before its error).
"$SLOG_SYNTH" -q --states 100 --timelines 2 -o a.slog
printf '[\n{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},\n{"name":"b","ph":"X" "pid":1}\n]\n' > cut.json
"$SLOG_IMPORT" -q cut.json -o cut.slog 2>/dev/null
echo "import exit $?"
"$SLOG_MERGE" a.slog cut.slog -o out.slog
echo "exit $?"
"$SLOG_MERGE" a.slog cut.slog -o out.slog --allow-incomplete --json | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("exit 0:", d["inputs"], "inputs,", d["incomplete_inputs"], "incomplete,", d["states"], "states")'
