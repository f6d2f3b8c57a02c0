# Several inputs, some bad: a CLOG2 log cut short, a file of no known
# format, a missing file, a Chrome file broken before its first event
# between two good ones (the Chrome inputs are read merged, as a group).
# Every input that can be used is imported, each bad one is reported with
# its name, the exit status is 1 and the output is marked incomplete; it
# holds what the usable inputs give when imported without the bad ones
# (the cut log alone; the two good Chrome files together).
C="$CLI_DIR/../data"
cp "$C/mpe/n_truncated_block.clog2" cut.clog2
cp "$C/demo/chrome-69_simple.json" a.json
cp "$C/chrome/y_async.json" b.json
printf '{"traceEvents":[@]}' > bad.json
echo "no trace here" > junk.txt
"$SLOG_IMPORT" -q a.json cut.clog2 junk.txt missing.clog2 bad.json "$C/mpe/y_tiny.clog2" b.json \
    -o all.slog 2> err.txt
echo "exit $?"
for f in cut.clog2 junk.txt missing.clog2 bad.json; do
    grep -q "^slog-import: $f:" err.txt && echo "$f reported"
done
"$SLOG_INFO" all.slog | grep '^complete:'
"$SLOG_IMPORT" -q a.json b.json -o chrome.slog
"$SLOG_IMPORT" -q "$C/mpe/y_tiny.clog2" -o tiny.slog
"$SLOG_IMPORT" -q cut.clog2 -o cut.slog 2> /dev/null
"$PYTHON" - all.slog chrome.slog tiny.slog cut.slog "$SLOG_INFO" <<'PY'
import json, subprocess, sys
def counts(path):
    i = json.loads(subprocess.run([sys.argv[5], "--json", path], capture_output=True).stdout)
    return [i[k] for k in ("states", "events", "arrows", "counters")]
got = counts(sys.argv[1])
want = [sum(c) for c in zip(*(counts(p) for p in sys.argv[2:5]))]
print("drawables as the usable inputs give alone:", got == want, "(nonzero: %s)" % (sum(want) > 0))
if got != want:
    print(got, want)
PY
