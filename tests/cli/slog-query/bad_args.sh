# every bad argument is one line on stderr naming the option and the text
# given, and exit status 2, before any output: an empty, reversed or
# malformed window, a number that is no number, an unknown kind, format,
# category, timeline name, path or id
"$SLOG_SYNTH" --states 500 --timelines 2 -q -o t.slog
bad() {
    "$SLOG_QUERY" t.slog "$@" > out.txt 2> err.txt
    echo "exit $? lines $(wc -l < err.txt) out $(wc -c < out.txt): $(cat err.txt)"
}
bad --window 1ms:1ms
bad --window 2ms:1ms
bad --window 40%:40%
bad --absolute --window 7:3
bad --window abc:1ms
bad --window 1ms:99999999999999999999999s
bad --window 1ms
bad --pixels many
bad --pixels 1e
bad --kind ''
bad --kind state,bogus
bad --format xml
bad --category ''
bad --category compute --category 'no such category'
bad --timeline 'thread 0.0' --timeline 'process 9/thread 9.0'
bad --timeline '#2' --timeline '#4'
bad --timeline '#4294967296'
