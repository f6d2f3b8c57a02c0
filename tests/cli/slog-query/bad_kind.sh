"$SLOG_QUERY" t.slog --kind state,blob
