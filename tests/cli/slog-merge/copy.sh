# --copy makes one self-contained file by copying every input's nodes whole
# (nothing decoded): with its inputs deleted it still answers, args included,
# exactly as the plain merge of the same inputs (slog-query CSV, sorted), and
# slog-check finds it clean; --copy and --index exclude each other.
"$SLOG_SYNTH" -n 20000 -t 4 -s 1 -o a.slog -q
"$SLOG_SYNTH" -n 20000 -t 4 -s 2 -o b.slog -q
"$SLOG_MERGE" a.slog b.slog -o merged.slog -q; echo "merge exit $?"
mkdir in && mv a.slog b.slog in/
"$SLOG_MERGE" --copy in/a.slog in/b.slog -o copy.slog -q; echo "copy exit $?"
rm -r in
"$SLOG_QUERY" copy.slog -f csv | sort > copy.csv
"$SLOG_QUERY" merged.slog -f csv | sort > merged.csv
cmp copy.csv merged.csv && echo "same csv: $(wc -l < copy.csv) lines"
"$SLOG_QUERY" copy.slog --pixels 500 --io -f csv 2>&1 >/dev/null | grep -o 'index_files_opened=[0-9]*'
"$SLOG_INFO" copy.slog | grep -c '^copies of:'
"$SLOG_CHECK" copy.slog > /dev/null; echo "check exit $?"
"$SLOG_MERGE" --copy --index merged.slog -o x.slog; echo "--copy --index exit $?"
