# same seed -> same drawables (dry-run checksum and the file's contents);
# another seed -> other drawables
sum() { "$SLOG_SYNTH" --states 20000 --timelines 13 --seed "$1" --dry-run --json |
        "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["checksum"])'; }
[ "$(sum 5)" = "$(sum 5)" ] || echo "dry-run checksum differs for one seed"
[ "$(sum 5)" != "$(sum 6)" ] || echo "dry-run checksum equal for two seeds"
"$SLOG_SYNTH" --states 20000 --timelines 13 --seed 5 -q -o a.slog
"$SLOG_SYNTH" --states 20000 --timelines 13 --seed 5 -q -o b.slog
"$SLOG_SYNTH" --states 20000 --timelines 13 --seed 6 -q -o c.slog
"$SLOG_QUERY" a.slog -f jsonl > a.jsonl
"$SLOG_QUERY" b.slog -f jsonl > b.jsonl
"$SLOG_QUERY" c.slog -f jsonl > c.jsonl
cmp -s a.jsonl b.jsonl || echo "files of one seed differ"
cmp -s a.jsonl c.jsonl && echo "files of two seeds are equal"
[ "$(wc -l < a.jsonl)" -eq 22400 ] || echo "unexpected item count $(wc -l < a.jsonl)"
echo done
