"$SLOG_SYNTH" --states 1000 -q -o t.slog
"$SLOG_QUERY" t.slog --stats --pixels 100
