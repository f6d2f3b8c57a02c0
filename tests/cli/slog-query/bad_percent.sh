"$SLOG_SYNTH" --states 100 -q -o t.slog
"$SLOG_QUERY" t.slog --window 10%:120%
