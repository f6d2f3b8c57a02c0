"$SLOG_INFO" --help | head -n 1
