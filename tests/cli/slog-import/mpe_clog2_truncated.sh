# A CLOG2 log cut inside its second block: exit 1, file and byte named, the
# records before the cut imported (one state; a start and a send whose
# partners were cut off are counted as unmatched), the output marked
# incomplete.
"$SLOG_IMPORT" -q -o out.slog "$CLI_DIR/../data/mpe/n_truncated_block.clog2"
echo "exit $?"
"$SLOG_INFO" out.slog | grep -E '^(complete|drawables):'
