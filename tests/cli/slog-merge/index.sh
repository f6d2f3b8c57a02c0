# --index writes an index over the inputs instead of copying them: read like
# one file, it answers as the plain merge of the same inputs does (slog-query
# CSV, sorted); --allow-missing records an absent input, and needs --index.
"$SLOG_SYNTH" -n 20000 -t 4 -s 1 -o a.slog -q
"$SLOG_SYNTH" -n 20000 -t 4 -s 2 -o b.slog -q
"$SLOG_SYNTH" -n 20000 -t 4 -s 3 -o c.slog -q
"$SLOG_MERGE" --index a.slog b.slog c.slog -o idx.slog -q; echo "index exit $?"
"$SLOG_MERGE" a.slog b.slog c.slog -o merged.slog -q; echo "merge exit $?"
"$SLOG_QUERY" idx.slog -f csv | sort > idx.csv
"$SLOG_QUERY" merged.slog -f csv | sort > merged.csv
cmp idx.csv merged.csv && echo "same csv: $(wc -l < idx.csv) lines"
"$SLOG_MERGE" --allow-missing a.slog gone.slog -o x.slog; echo "--allow-missing without --index exit $?"
"$SLOG_MERGE" --index a.slog gone.slog -o y.slog -q 2>/dev/null; echo "missing input exit $?"
"$SLOG_MERGE" --index --allow-missing a.slog gone.slog -o y.slog -q; echo "--allow-missing exit $?"
"$SLOG_QUERY" y.slog -f csv | wc -l
"$SLOG_INFO" idx.slog > info.txt; echo "slog-info exit $?"
grep -c '^index of:' info.txt
ls
