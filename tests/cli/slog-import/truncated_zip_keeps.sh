# a zip archive cut short (a killed job's, a partial download) has no
# directory: its deflated member is read up to the cut, with a warning naming
# it, as a gzip file cut short is (truncated_gzip_keeps); the file is complete
"${PYTHON:-python3}" - "$CLI_DIR/../../tests/data/demo/chrome-69_simple.json" <<'PY'
import sys
import zipfile
with zipfile.ZipFile("full.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[1], "trace.json")
data = open("full.zip", "rb").read()
open("cut.zip", "wb").write(data[:len(data) * 3 // 5])
PY
"$SLOG_IMPORT" -q cut.zip -o cut.slog
echo "exit $?"
"$SLOG_IMPORT" cut.zip -o cut2.slog 2>&1 | grep -c "zip archive has no directory"
"$SLOG_INFO" cut.slog | grep '^complete:'
kept=$("$SLOG_QUERY" --format jsonl cut.slog | wc -l)
"$SLOG_IMPORT" -q full.zip -o full.slog
full=$("$SLOG_QUERY" --format jsonl full.slog | wc -l)
[ "$kept" -gt 0 ] && [ "$kept" -lt "$full" ] && echo "some drawables kept, fewer than the whole file's"
exit 0
