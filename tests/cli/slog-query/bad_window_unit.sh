"$SLOG_QUERY" t.slog --window 5:10
