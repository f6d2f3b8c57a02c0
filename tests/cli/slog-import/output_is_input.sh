# An output that is one of the inputs (same name, or the same file through a
# link) is refused before anything is written: the input stays intact.
cp "$CLI_DIR/../data/chrome/y_async.json" c.json
ln c.json hard.json
"$SLOG_IMPORT" c.json -o c.json
echo "exit $?"
"$SLOG_IMPORT" c.json -o hard.json
echo "exit $?"
cmp -s c.json "$CLI_DIR/../data/chrome/y_async.json" && echo "input intact"
ls
