# A CLOG2 log cut inside its second block: exit 1, file and byte named, the
# output stays marked incomplete.
"$SLOG_IMPORT" -q -o out.slog "$CLI_DIR/../data/mpe/n_truncated_block.clog2"
echo "exit $?"
"$SLOG_INFO" out.slog | grep '^complete:'
