"$SLOG_INFO" does-not-exist.slog
