# 20 000 overlapping states of 4e18 ns sum past INT64_MAX: previews and
# statistics saturate at INT64_MAX ("at least", doc/FORMAT.md 10.3) instead
# of wrapping to a negative total (UBSan signed overflow before).  The
# states share one interval, nested 10 000 deep: each covers its parent,
# so the exclusive time is the deepest one's, 4e18 (the importer handed
# them to the writer parent first, and it was the saturated sum).
"$PYTHON" -c '
import json
ev = [{"name": "s", "ph": "X", "ts": 0, "dur": 4e15, "pid": 1, "tid": 1 + i % 2}
      for i in range(20000)]
print(json.dumps({"traceEvents": ev}))' >big.json
"$SLOG_IMPORT" --quiet big.json -o big.slog || exit 1
"$SLOG_QUERY" big.slog --stats --by timeline -f jsonl
"$SLOG_QUERY" big.slog -p 1 -k preview -f jsonl | sort
