"$SLOG_QUERY" t.slog --format xml
