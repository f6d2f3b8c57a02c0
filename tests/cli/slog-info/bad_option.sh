"$SLOG_INFO" --jsonn x.slog
