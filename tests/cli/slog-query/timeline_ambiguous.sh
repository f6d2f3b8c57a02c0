# a name that several timelines carry is a usage error listing them all
"$SLOG_IMPORT" -q "$CLI_DIR/slog-query/dup_threads.json" -o t.slog
"$SLOG_QUERY" t.slog --timeline CrRendererMain
