# A string over 1 MiB is cut to 1 MiB at a character boundary, warned and
# counted as repaired: one hostile string no longer costs 13x its size in
# memory (a 100 MB name took 1.3 GB).
{ printf '{"traceEvents":[{"name":"'; head -c 3000000 /dev/zero | tr '\0' 'a'
  printf '","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}]}'; } > long.json
"$SLOG_IMPORT" --json long.json -o out.slog > summary.json
echo "exit $?"
"$PYTHON" - <<'PY'
import json
rows = {r["what"]: r for r in json.load(open("summary.json"))["records"]}
print("cut", rows["string over 1 MiB cut"]["repaired"])
PY
"$SLOG_QUERY" out.slog --stats -f jsonl | "$PYTHON" -c '
import json, sys
print("name bytes", len(json.loads(sys.stdin.readline())["category"]))'
