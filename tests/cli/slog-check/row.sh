# a damaged /nodes row fails alone: the other rows of its block still
# verify; the node is reported with the range of an intact ancestor
"$SLOG_SYNTH" --states 3000 --seed 4 --leaf-bytes 4096 -q -o t.slog
"$PYTHON" "$CLI_DIR/slog-check/damage.py" t.slog d.slog row 5
"$SLOG_CHECK" d.slog --json > r.json
echo "exit $?"
"$PYTHON" -c '
import json
d = json.load(open("r.json"))
x = d["damaged"][0]
print(d["nodes_damaged"], x["node"], x["parts"], x["level"], x["range_exact"], x["offset"])'
"$SLOG_CHECK" d.slog --salvage -o s.slog > /dev/null 2>&1
echo "salvage exit $?"
"$SLOG_CHECK" s.slog > /dev/null
echo "salvaged file exit $?"
