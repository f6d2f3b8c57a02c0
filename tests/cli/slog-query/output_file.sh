# --output writes the file and nothing to stdout; an unwritable path is exit 1
"$SLOG_SYNTH" --states 500 --timelines 2 -q -o t.slog
"$SLOG_QUERY" t.slog -f csv -o out.csv
head -c 4 out.csv; echo
"$SLOG_QUERY" t.slog -f csv -o no/such/dir/out.csv
