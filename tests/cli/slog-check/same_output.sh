# --salvage never writes over its input, under any name
"$SLOG_SYNTH" --states 300 --seed 4 -q -o t.slog
ln -s t.slog link.slog
"$SLOG_CHECK" t.slog --salvage -o link.slog
