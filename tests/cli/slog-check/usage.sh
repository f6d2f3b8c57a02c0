# --salvage needs -o, -o needs --salvage: usage errors, exit 2
"$SLOG_CHECK" x.slog --salvage
