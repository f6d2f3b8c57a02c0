# --find NAME --after/--before T and --top N agree with the full query
"$SLOG_SYNTH" --states 20000 --timelines 8 --seed 4 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl > full.jsonl
for t in 0 1ms 31ms 77ms; do
    "$SLOG_QUERY" t.slog --find MPI_Barrier --after $t -f jsonl > f.jsonl
    "$PYTHON" "$CLI_DIR/check_stats.py" find full.jsonl f.jsonl MPI_Barrier "$("$PYTHON" -c "
import sys; u={'ms':10**6}; t='$t'; print(int(t[:-2])*10**6 if t.endswith('ms') else int(t))")" after
    "$SLOG_QUERY" t.slog --find MPI_Barrier --before $t -f jsonl > f.jsonl 2>/dev/null
    "$PYTHON" "$CLI_DIR/check_stats.py" find full.jsonl f.jsonl MPI_Barrier "$("$PYTHON" -c "
t='$t'; print(int(t[:-2])*10**6 if t.endswith('ms') else int(t))")" before
done
"$SLOG_QUERY" t.slog -f jsonl --window 10ms:40ms > w.jsonl
"$SLOG_QUERY" t.slog --top 7 --category compute --window 10ms:40ms -f jsonl > top.jsonl
"$PYTHON" "$CLI_DIR/check_stats.py" top w.jsonl top.jsonl compute 7
