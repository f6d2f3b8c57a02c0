# Bytes flipped inside a node blob of an input: the merge fails naming that
# file, exit 1, and neither OUT nor OUT.part is left.
"$SLOG_SYNTH" -q --states 20000 --timelines 4 --seed 1 -o a.slog
"$SLOG_SYNTH" -q --states 20000 --timelines 4 --seed 2 -o bad.slog
"$H5MAP" bad.slog | "$PYTHON" -c '
import sys
chunks = [l.split() for l in sys.stdin if l.startswith("chunk ") and l.split()[3] == "payload"]
addr, n = int(chunks[0][1]), int(chunks[0][2])
with open("bad.slog", "r+b") as f:
    f.seek(addr + n // 2)
    f.write(bytes(b ^ 0x5A for b in range(64)))'
"$SLOG_MERGE" a.slog bad.slog -o out.slog
echo "exit $?"
ls
