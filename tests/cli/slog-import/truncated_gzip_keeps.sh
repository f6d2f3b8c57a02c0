# a DFTracer-style .pfw.gz cut short (a killed job): the events it held are
# kept, with a warning naming the cut, and the file is complete; a gzip cut
# before any data is still an error (truncated_gzip)
gzip -c "$CLI_DIR/../../tests/data/demo/chrome-69_simple.json" > full.json.gz
size=$(wc -c < full.json.gz)
head -c $((size * 3 / 5)) full.json.gz > cut.json.gz
"$SLOG_IMPORT" -q cut.json.gz -o cut.slog
echo "exit $?"
"$SLOG_IMPORT" cut.json.gz -o cut2.slog 2>&1 | grep -c "gzip data ends inside a compressed stream"
"$SLOG_INFO" cut.slog | grep '^complete:'
kept=$("$SLOG_QUERY" --format jsonl cut.slog | wc -l)
"$SLOG_IMPORT" -q full.json.gz -o full.slog
full=$("$SLOG_QUERY" --format jsonl full.slog | wc -l)
[ "$kept" -gt 0 ] && [ "$kept" -lt "$full" ] && echo "some drawables kept, fewer than the whole file's"
