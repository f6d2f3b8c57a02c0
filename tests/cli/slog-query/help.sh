"$SLOG_QUERY" --help | head -n 1
