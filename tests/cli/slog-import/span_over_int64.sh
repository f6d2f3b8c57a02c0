# Two states 1.8e19 ns apart: the trace would span more than 2^63-1 ticks,
# which jsonl/csv/table printed as start = end = INT64_MAX.  The writer
# refuses the drawable that would widen the range that far (exit 1).
printf '%s\n' '{"traceEvents":[' \
  '{"name":"a","ph":"X","ts":-9e15,"dur":1,"pid":1,"tid":1},' \
  '{"name":"b","ph":"X","ts":9e15,"dur":1,"pid":1,"tid":1}]}' >span.json
"$SLOG_IMPORT" --quiet span.json -o span.slog
