# Percentages of a trace that lasts 0 ns (no drawable, or all at one time) all
# fall on its start: such a window is empty, and the error says why (it said
# "the end must come after the start", which 10%:20% does)
echo '[]' > none.json
printf '[{"name":"i","ph":"i","pid":1,"tid":1,"ts":5,"s":"t"}]' > one.json
"$SLOG_IMPORT" -q none.json -o none.slog
"$SLOG_IMPORT" -q one.json -o one.slog
for f in none.slog one.slog; do
    "$SLOG_QUERY" "$f" --window 10%:20% 2>&1
    echo "exit $?"
done
"$SLOG_QUERY" one.slog --window 0%:100% --format jsonl
echo "exit $?"
