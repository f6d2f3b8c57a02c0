# Format-1 files (no per-state exclusive time) answer --stats exactly by
# decoding the window (fallback=1 in --io), on a window that cuts states
dir="$CLI_DIR/../data/slog/v1"
for f in synth chrome69; do
    "$SLOG_QUERY" "$dir/$f.slog" -f jsonl --no-args --window 3ms:9ms > w.jsonl
    "$SLOG_QUERY" "$dir/$f.slog" --stats --by both -f jsonl --window 3ms:9ms --io > s.jsonl 2> io.txt
    grep -q "fallback=1" io.txt && echo "$f: fallback"
    "$PYTHON" "$CLI_DIR/check_stats.py" stats w.jsonl s.jsonl 3000000 9000000 both
done
