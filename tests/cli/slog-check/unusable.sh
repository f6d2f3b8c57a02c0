# a truncated file does not open: unusable, exit 2, the reason on stderr
"$SLOG_SYNTH" --states 3000 --seed 4 -q -o t.slog
head -c 20000 t.slog > cut.slog
"$SLOG_CHECK" cut.slog
