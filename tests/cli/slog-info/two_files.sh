"$SLOG_INFO" a.slog b.slog
