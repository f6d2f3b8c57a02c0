# A format version 1 file (tests/data/slog/v1, written before format 2) still
# opens and answers exactly what it answered when it was written: every
# drawable with its args, and a window.  (v2_file.sh runs this on
# tests/data/slog/v2 with OLD_FORMAT=v2.)
dir="$CLI_DIR/../data/slog/${OLD_FORMAT:-v1}"
for f in synth chrome69; do
    "$SLOG_QUERY" "$dir/$f.slog" --format jsonl > all.jsonl
    gzip -dc "$dir/$f.jsonl.gz" | cmp -s - all.jsonl && echo "$f all: same"
    "$SLOG_QUERY" "$dir/$f.slog" --format jsonl --window 10%:20% > win.jsonl
    gzip -dc "$dir/$f.w10-20.jsonl.gz" | cmp -s - win.jsonl && echo "$f window: same"
    "$SLOG_INFO" --json "$dir/$f.slog" |
        "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print("read version", d["format_read_version"], "write version", d["format_write_version"])'
done
