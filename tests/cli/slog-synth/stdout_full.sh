# --json summary on a standard output that cannot be written: exit 1 (it
# was exit 0).
"$SLOG_SYNTH" --states 100 --json -o o.slog >/dev/full
echo "exit $?"
"$SLOG_INFO" --help >/dev/full
echo "exit $?"
"$SLOG_QUERY" --version >/dev/full
echo "exit $?"
