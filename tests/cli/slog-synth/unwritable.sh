# a writer failure is exit 1 with the slog_error fields
"$SLOG_SYNTH" --states 10 -q -o no/such/dir/out.slog
