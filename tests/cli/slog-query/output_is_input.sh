# -o naming the file being read is refused before it is truncated.
"$SLOG_SYNTH" --states 100 -q -o t.slog
cp t.slog before.slog
"$SLOG_QUERY" t.slog -o ./t.slog
echo "exit $?"
cmp -s t.slog before.slog && echo "input intact"
