# broken JSON inside an event: file:line:col, what was expected, byte offset,
# exit 1, the output left incomplete (slog-info says so) with the event
# before the error in it, counted
"$SLOG_IMPORT" -q "$CLI_DIR/../data/chrome/n_error_in_event.json" -o out.slog
status=$?
"$SLOG_INFO" --json out.slog | "$PYTHON" -c 'import json,sys; print("complete:", json.load(sys.stdin)["complete"])'
exit $status
