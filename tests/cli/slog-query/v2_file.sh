# A format version 2 file (tests/data/slog/v2, written before format 3)
# still opens and answers exactly what it answered when it was written
# (v1_file.sh's checks), and its statistics use its stored exclusive times
# (no fallback=1 in --io) and agree with the drawables, on a window that
# cuts states.
OLD_FORMAT=${OLD_FORMAT:-v2} source "$CLI_DIR/slog-query/v1_file.sh"
for f in synth chrome69; do
    "$SLOG_QUERY" "$dir/$f.slog" -f jsonl --no-args --window 3ms:9ms > w.jsonl
    "$SLOG_QUERY" "$dir/$f.slog" --stats --by both -f jsonl --window 3ms:9ms --io > s.jsonl 2> io.txt
    grep -q "fallback=0" io.txt && echo "$f: no fallback"
    "$PYTHON" "$CLI_DIR/check_stats.py" stats w.jsonl s.jsonl 3000000 9000000 both
done
