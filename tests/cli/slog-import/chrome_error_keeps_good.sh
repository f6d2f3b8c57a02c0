# a syntax error after 60 000 good X events (times out of order, so they
# wait in the importer's sort windows, and the reader thread holds a batch):
# exit 1, the output incomplete, and all 60 000 in it, as the summary
# counts them (the windows and the batch were dropped: 0 in the file)
"$PYTHON" - <<'PY'
import random
random.seed(7)
ev = ['{"name":"n%d","ph":"X","ts":%d,"dur":%d,"pid":1,"tid":%d}'
      % (i % 50, random.randint(0, 10**7), random.randint(1, 100), i % 8) for i in range(60010)]
with open("bad.json", "w") as f:
    f.write('{"traceEvents":[' + ",".join(ev[:60000]) + ",@," + ",".join(ev[60000:]) + "]}")
PY
"$SLOG_IMPORT" bad.json -o out.slog 2> err.txt
status=$?
grep -o 'X -> state *[0-9]*' err.txt | tr -s ' '
"$SLOG_INFO" --json out.slog | "$PYTHON" -c 'import json,sys; i = json.load(sys.stdin); print("complete:", i["complete"], "states:", i["states"])'
exit $status
