# A SLOG-2 file whose category map disagrees with its tree nodes.
"$SLOG_IMPORT" -q -o out.slog "$CLI_DIR/../data/mpe/n_count_mismatch.slog2"
