# --stats agrees with an aggregation of the window's drawables, to the ns,
# for every grouping, on a window that cuts states
"$SLOG_SYNTH" --states 20000 --timelines 8 --seed 3 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl --window 20ms:55ms > w.jsonl
for by in category timeline both; do
    "$SLOG_QUERY" t.slog --stats --by $by -f jsonl --window 20ms:55ms > s.jsonl
    "$PYTHON" "$CLI_DIR/check_stats.py" stats w.jsonl s.jsonl 20000000 55000000 $by
done
"$SLOG_QUERY" t.slog -f jsonl --window 0:1s > w.jsonl
"$SLOG_QUERY" t.slog --stats -f jsonl --window 0:1s > s.jsonl
"$PYTHON" "$CLI_DIR/check_stats.py" stats w.jsonl s.jsonl 0 1000000000 category
