# The same file twice, by another name or through a hard link: refused, naming
# both, exit 1, nothing written.
"$SLOG_SYNTH" -q --states 100 --timelines 2 -o a.slog
ln a.slog hard.slog
"$SLOG_MERGE" a.slog ./a.slog -o out.slog
echo "exit $?"
"$SLOG_MERGE" hard.slog a.slog -o out.slog
echo "exit $?"
ls
