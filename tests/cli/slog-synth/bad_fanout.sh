"$SLOG_SYNTH" --states 10 --fanout 65 -o out.slog
