"$SLOG_SYNTH" --states 10 --frobnicate -o out.slog
