# damaged files: exit 1 with the slog_error fields on one line, no crash
"$SLOG_SYNTH" --states 50000 --timelines 4 -q -o c.slog
head -c 150000 c.slog > trunc.slog
"$SLOG_QUERY" trunc.slog -f jsonl > /dev/null 2> trunc.err
echo "truncated exit $?"
grep -c '^slog-query: trunc.slog: Cannot open: .* (SLOG_E[A-Z]*\(, byte [0-9]*\)\?)$' trunc.err
"$PYTHON" -c '
b = bytearray(open("c.slog", "rb").read())
for off in range(len(b) // 3, 2 * len(b) // 3, 4999):
    b[off] ^= 0xff
open("flip.slog", "wb").write(b)'
"$SLOG_QUERY" flip.slog -f jsonl > /dev/null 2> flip.err
echo "flipped exit $?"
grep -c '^slog-query: flip.slog: Cannot [a-z ]*: .* (SLOG_E[A-Z]*\(, byte [0-9]*\)\?)$' flip.err
wc -l < flip.err
