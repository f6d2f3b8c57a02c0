# y_tiny.clog2 (tests/data/mpe): nested states with depth, an arrow, an event
# defined after its use, info decoded into args.
"$SLOG_IMPORT" -q -o tiny.slog "$CLI_DIR/../data/mpe/y_tiny.clog2" && "$SLOG_QUERY" tiny.slog -f jsonl
