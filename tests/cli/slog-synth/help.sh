# --help goes to stdout and exits 0
"$SLOG_SYNTH" --help | head -n 1
