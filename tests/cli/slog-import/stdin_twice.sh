# standard input can be read once: naming it twice is an error that says so
cat "$CLI_DIR/../data/chrome/y_array_basic.json" | "$SLOG_IMPORT" -q - - -o out.slog
