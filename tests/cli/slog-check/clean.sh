# a clean file: every node and blob verified, exit 0; --quiet prints nothing
"$SLOG_SYNTH" --states 3000 --seed 4 --leaf-bytes 4096 -q -o t.slog
"$SLOG_CHECK" t.slog | sed -e 's/^file: .*/file: T/'
"$SLOG_CHECK" --quiet t.slog
echo "quiet exit $?"
