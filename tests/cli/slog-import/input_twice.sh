# An input named twice (the same name, or the same file through a link or
# another path) is refused before anything is written, as slog-merge does:
# it was imported twice, every drawable doubled
cp "$CLI_DIR/../data/chrome/y_async.json" a.json
ln a.json hard.json
mkdir d && cp a.json d/b.json
"$SLOG_IMPORT" -q a.json a.json -o x.slog
echo "exit $?"
"$SLOG_IMPORT" -q a.json d/b.json hard.json -o x.slog
echo "exit $?"
"$SLOG_IMPORT" -q d/b.json d/../d/b.json -o x.slog
echo "exit $?"
ls
"$SLOG_IMPORT" -q a.json d/b.json -o x.slog && echo "two files with the same bytes: exit 0"
