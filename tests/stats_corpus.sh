#!/bin/sh
# SPDX-License-Identifier: MIT
#
# stats_corpus.sh - TAP test of window statistics on real traces: a few
# Chrome traces of the corpus are imported, and slog-query --stats (grouped
# by category and by both) over the whole trace and over a window that
# cuts states must equal the aggregation of a full-detail query of the same
# window (tests/cli/check_stats.py), to the nanosecond.
# Usage: stats_corpus.sh SLOG_IMPORT SLOG_QUERY SLOG_INFO
# The corpus is $SLOG_CORPUS, else ../shared/corpus; without it: skip.
set -u
IMPORT=$1
QUERY=$2
INFO=$3
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=${SLOG_CORPUS:-$HERE/../../shared/corpus}
PYTHON=${PYTHON:-python3}
FILES="catapult/lthi_cats.json.gz hta/nccl_parser_config__nccl_data.json.gz catapult/big_trace.json kineto/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
if [ ! -d "$CORPUS" ]; then
    echo "1..0 # SKIP no corpus at $CORPUS"
    exit 0
fi
TMP=$(mktemp -d /tmp/stats_corpus.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
n=0
fails=0
check() { # name, window (absolute ticks t0:t1 or ""), rel t0, rel t1, by
    if [ -n "$2" ]; then set -- "$1" --absolute "--window=$2" "$3" "$4" "$5"; else set -- "$1" "" "" -1 999999999999999999 "$5"; fi
    name=$1
    shift
    "$QUERY" "$TMP/t.slog" -f jsonl $1 $2 > "$TMP/w.jsonl" &&
        "$QUERY" "$TMP/t.slog" --stats --by "$5" -f jsonl $1 $2 > "$TMP/s.jsonl" &&
        "$PYTHON" "$HERE/cli/check_stats.py" stats "$TMP/w.jsonl" "$TMP/s.jsonl" "$3" "$4" "$5" > "$TMP/out" 2>&1
    status=$?
    n=$((n + 1))
    if [ $status -eq 0 ]; then
        echo "ok $n - $name"
    else
        fails=$((fails + 1))
        echo "not ok $n - $name: $(tail -1 "$TMP/out")"
    fi
}
for f in $FILES; do
    if ! "$IMPORT" -q -o "$TMP/t.slog" "$CORPUS/$f" 2> "$TMP/err"; then
        n=$((n + 1)); fails=$((fails + 1))
        echo "not ok $n - $f: import failed: $(tail -1 "$TMP/err")"
        continue
    fi
    range=$("$INFO" --json "$TMP/t.slog" | "$PYTHON" -c 'import json,sys; d=json.load(sys.stdin); print(d["start"], d["end"])')
    set -- $range
    s=$1
    e=$2
    check "$f whole trace by category" "" 0 0 category
    a=$((s + (e - s) * 30 / 100))
    b=$((s + (e - s) * 45 / 100))
    check "$f window 30%-45% by both" "$a:$b" $((a - s)) $((b - s)) both
done
echo "1..$n"
[ $fails -eq 0 ]
