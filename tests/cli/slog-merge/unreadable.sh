# A missing file and a file that is not a libslog file: one line naming it,
# exit 1, no output (nor OUT.part) left behind.
"$SLOG_SYNTH" -q --states 100 --timelines 2 -o a.slog
"$SLOG_MERGE" a.slog nope.slog -o out.slog
echo "exit $?"
echo "not a trace" > text.slog
"$SLOG_MERGE" a.slog text.slog -o out.slog
echo "exit $?"
ls
