# slog-import without -o: usage error, exit 2, a one-line hint
"$SLOG_IMPORT" "$CLI_DIR/../data/chrome/y_async.json"
