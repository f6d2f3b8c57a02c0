# "-" reads standard input: a pipe, a gzip stream through a pipe, and a file
# redirected in all give the drawables the file itself gives; the format is
# still recognised from the content (the probe's bytes are replayed)
D="$CLI_DIR/../data/chrome"
"$SLOG_IMPORT" -q "$D/y_array_basic.json" -o file.slog &&
    "$SLOG_QUERY" --format jsonl file.slog > file.jsonl &&
    cat "$D/y_array_basic.json" | "$SLOG_IMPORT" -q - -o pipe.slog &&
    "$SLOG_QUERY" --format jsonl pipe.slog | cmp - file.jsonl &&
    gzip -c "$D/y_array_basic.json" | "$SLOG_IMPORT" -q - -o gz.slog &&
    "$SLOG_QUERY" --format jsonl gz.slog | cmp - file.jsonl &&
    "$SLOG_IMPORT" -q - -o redirect.slog < "$D/y_array_basic.json" &&
    "$SLOG_QUERY" --format jsonl redirect.slog | cmp - file.jsonl &&
    "$SLOG_IMPORT" -q "$D/y_lines.pfw" -o lines.slog &&
    "$SLOG_QUERY" --format jsonl lines.slog > lines.jsonl &&
    gzip -c "$D/y_lines.pfw" | "$SLOG_IMPORT" -q - -o lines_gz.slog &&
    "$SLOG_QUERY" --format jsonl lines_gz.slog | cmp - lines.jsonl &&
    test -s file.jsonl && test -s lines.jsonl
