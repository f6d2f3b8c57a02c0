# --help on stdout, exit 0
"$SLOG_MERGE" --help | head -n 1
"$SLOG_MERGE" --version | sed 's/[0-9][0-9.]*/V/g'
