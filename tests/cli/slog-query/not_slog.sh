printf 'not a trace\n' > junk.slog
"$SLOG_QUERY" junk.slog -f jsonl
