# --io prints the query's I/O statistics on stderr, output unchanged
"$SLOG_SYNTH" --states 2000 --timelines 2 -q -o t.slog
"$SLOG_QUERY" t.slog -f jsonl --window 10%:20% > plain.jsonl
"$SLOG_QUERY" t.slog -f jsonl --window 10%:20% --io > io.jsonl
cmp -s plain.jsonl io.jsonl && echo same
