"$SLOG_INFO" --json
