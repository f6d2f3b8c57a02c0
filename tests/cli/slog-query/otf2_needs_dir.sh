"$SLOG_QUERY" t.slog --format otf2
