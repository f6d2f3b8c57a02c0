# one byte of a /payload chunk changed: the node is reported with its range
# and byte offset, exit 1; --salvage writes a clean file holding exactly the
# other nodes' drawables (each one of the original's), and lists the loss
"$SLOG_SYNTH" --states 3000 --seed 4 --leaf-bytes 4096 -q -o t.slog
"$PYTHON" "$CLI_DIR/slog-check/damage.py" t.slog d.slog payload 3
"$SLOG_CHECK" d.slog > report.txt
echo "exit $?"
grep -c '^damaged node' report.txt
grep '^status' report.txt
"$SLOG_CHECK" d.slog --salvage -o s.slog 2> salvage.txt > /dev/null
echo "salvage exit $?"
grep -c 'drawables lost$' salvage.txt
"$SLOG_CHECK" s.slog | grep '^status'
"$SLOG_QUERY" t.slog -f jsonl --absolute | sort > all.txt
"$SLOG_QUERY" s.slog -f jsonl --absolute | sort > kept.txt
echo "kept but not in the original: $(comm -13 all.txt kept.txt | wc -l)"
"$SLOG_CHECK" d.slog --json | "$PYTHON" -c '
import json, sys
d = json.load(sys.stdin)
kept = sum(1 for _ in open("kept.txt"))
print(d["status"], d["nodes_damaged"], d["drawables_intact"] == kept,
      d["drawables_intact"] + d["drawables_lost"] == d["drawables"],
      d["damaged"][0]["parts"], d["damaged"][0]["offset"] is not None)'
