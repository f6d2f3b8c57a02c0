"$SLOG_SYNTH" --states 1000 -q -o t.slog
"$SLOG_QUERY" t.slog --find no_such_category --after 1ms
