# --json summary on a standard output that cannot be written: exit 1 with
# the reason (it was exit 0); the output file is complete under its name.
"$SLOG_IMPORT" --json "$CLI_DIR/../data/chrome/y_async.json" -o o.slog >/dev/full
echo "exit $?"
"$SLOG_IMPORT" --help >/dev/full
echo "exit $?"
ls
