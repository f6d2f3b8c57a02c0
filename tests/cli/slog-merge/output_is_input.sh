# An output that is one of the inputs (same name, or the same file through a
# link) is refused before anything is written: exit 2, the input intact.
"$SLOG_SYNTH" -q --states 100 --timelines 2 -o a.slog
"$SLOG_SYNTH" -q --states 100 --timelines 2 --seed 3 -o b.slog
cp a.slog a.copy
ln a.slog hard.slog
"$SLOG_MERGE" a.slog b.slog -o a.slog
echo "exit $?"
"$SLOG_MERGE" a.slog b.slog -o hard.slog
echo "exit $?"
cmp -s a.slog a.copy && echo "input intact"
ls
