# a query that fails half-way (a damaged node) leaves no truncated output:
# -o writes OUT.part and renames it only when complete, so OUT keeps what it
# held (it was truncated at the start and left half-written, exit 1)
"$SLOG_SYNTH" --states 3000 --seed 4 --leaf-bytes 4096 -q -o t.slog
"$PYTHON" "$CLI_DIR/slog-check/damage.py" t.slog d.slog payload 3
echo "previous answer" > out.jsonl
"$SLOG_QUERY" d.slog -f jsonl -o out.jsonl 2>/dev/null
echo "exit $?"
cat out.jsonl
ls
"$SLOG_QUERY" t.slog -f jsonl -o out.jsonl
echo "exit $?"
[ "$(wc -l < out.jsonl)" = "$("$SLOG_QUERY" t.slog -f jsonl | wc -l)" ] && echo "complete answer written"
ls
