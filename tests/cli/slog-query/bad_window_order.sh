"$SLOG_SYNTH" --states 100 -q -o t.slog
"$SLOG_QUERY" t.slog --window 2ms:1ms
