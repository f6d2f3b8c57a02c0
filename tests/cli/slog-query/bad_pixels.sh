"$SLOG_QUERY" t.slog --pixels 0
