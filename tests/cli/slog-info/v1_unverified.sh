# a format-1 file (no checksums) says it is read unverified; a format-3 file
# says its checksums are verified (text and --json)
dir="$CLI_DIR/../data/slog"
"$SLOG_INFO" "$dir/v1/synth.slog" | grep '^checksums:'
"$SLOG_INFO" --json "$dir/v1/synth.slog" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["checksums"])'
"$SLOG_SYNTH" --states 100 --seed 1 -q -o t.slog
"$SLOG_INFO" t.slog | grep '^checksums:'
"$SLOG_INFO" --json t.slog | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["checksums"])'
