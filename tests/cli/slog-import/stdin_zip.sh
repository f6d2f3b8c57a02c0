# a zip archive keeps its directory at the end: from a pipe it is refused
# with a clear message, before any output file is made
cat "$CLI_DIR/../data/chrome/y_zip.zip" | "$SLOG_IMPORT" -q - -o out.slog
rc=$?
[ -e out.slog ] && exit 3
exit $rc
