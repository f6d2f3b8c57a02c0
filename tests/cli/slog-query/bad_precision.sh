"$SLOG_SYNTH" --states 100 -q -o t.slog
"$SLOG_QUERY" t.slog --window 0.5ns:1ms
