"$SLOG_SYNTH" --states 10
