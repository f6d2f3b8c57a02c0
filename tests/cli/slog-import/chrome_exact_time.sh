# ts "1712195495519689.047" us keeps its last digit through import and export
"$SLOG_IMPORT" -q "$CLI_DIR/../data/chrome/y_array_basic.json" -o out.slog &&
    "$SLOG_QUERY" --format chrome out.slog | grep -o '"ts":1712195495519689.047'
