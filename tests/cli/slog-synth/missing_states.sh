"$SLOG_SYNTH" -o out.slog
