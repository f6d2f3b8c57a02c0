"$SLOG_SYNTH" --states 1000 -q -o t.slog
"$SLOG_QUERY" t.slog --find compute --after 1ms --window 10%:20%
