# a zip archive cut short (a killed job's, a partial download) has no
# directory: its member, deflated or stored, is read up to the cut, with a
# warning naming it, as a gzip file cut short is (truncated_gzip_keeps); the
# file is complete
"${PYTHON:-python3}" - "$CLI_DIR/../../tests/data/demo/chrome-69_simple.json" <<'PY'
import sys
import zipfile
for name, method in (("deflated", zipfile.ZIP_DEFLATED), ("stored", zipfile.ZIP_STORED)):
    with zipfile.ZipFile(name + ".zip", "w", method) as z:
        z.write(sys.argv[1], "trace.json")
    data = open(name + ".zip", "rb").read()
    open(name + "_cut.zip", "wb").write(data[:len(data) * 3 // 5])
PY
"$SLOG_IMPORT" -q deflated.zip -o full.slog
full=$("$SLOG_QUERY" --format jsonl full.slog | wc -l)
for name in deflated stored; do
    "$SLOG_IMPORT" -q ${name}_cut.zip -o cut.slog
    echo "$name: exit $?"
    "$SLOG_IMPORT" ${name}_cut.zip -o cut2.slog 2>&1 | grep -c "zip archive has no directory"
    "$SLOG_INFO" cut.slog | grep '^complete:'
    kept=$("$SLOG_QUERY" --format jsonl cut.slog | wc -l)
    [ "$kept" -gt 0 ] && [ "$kept" -lt "$full" ] && echo "some drawables kept, fewer than the whole file's"
done
exit 0
