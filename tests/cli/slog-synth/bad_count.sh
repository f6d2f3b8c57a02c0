"$SLOG_SYNTH" --states 1.5 -o out.slog
