#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report_corpus.sh - slog-report on real traces: a few corpus files (flows,
# counters, nested and unclosed slices, an MPE log) are imported with
# slog-import and each page must pass check_report.py, its category table,
# longest states, utilisation and counters equal to slog-query's (DFTracer's
# two distributed files: threads whose few short states the overview gets
# only inside their process's preview still have their utilisation rows).
# The corpus is $SLOG_CORPUS, else ../shared/corpus; without it: skip (77).
# Usage: report_corpus.sh SLOG_REPORT SLOG_QUERY SLOG_IMPORT
set -u
REPORT=$1
QUERY=$2
IMPORT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=${SLOG_CORPUS:-$HERE/../../../shared/corpus}
PYTHON=${PYTHON:-python3}
FILES="catapult/flow.json catapult/fuchsia_trace.json.gz catapult/instance_counters.json
catapult/main_thread_has_unclosed_slices.json catapult/lthi_cats.json.gz mpe/user_states.clog2
dftracer/test-trace-distributed"
if [ ! -d "$CORPUS" ]; then
    echo "SKIP: no corpus at $CORPUS"
    exit 77
fi
TMP=$(mktemp -d /tmp/report_corpus.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0
n=0
for f in $FILES; do
    name=$(basename "$f" | tr -c 'A-Za-z0-9_\n' _)
    n=$((n + 1))
    if ! "$IMPORT" -q -o "$TMP/$name.slog" "$CORPUS/$f" 2> "$TMP/err"; then
        echo "FAIL: $f: import failed: $(tail -1 "$TMP/err")"
        fails=$((fails + 1))
        continue
    fi
    if ! "$REPORT" -q "$TMP/$name.slog" -o "$TMP/$name.html" 2> "$TMP/err"; then
        echo "FAIL: $f: slog-report failed: $(tail -1 "$TMP/err")"
        fails=$((fails + 1))
        continue
    fi
    # the imports are format 3: statistics by timeline make every row exact
    if "$PYTHON" "$HERE/check_report.py" "$TMP/$name.html" --query "$QUERY" --slog "$TMP/$name.slog" \
        --exact-busy; then
        echo "ok $n - $f"
    else
        fails=$((fails + 1))
    fi
done
# The same MPE run from its CLOG2 log and from the SLOG-2 file converted
# from it: the same category table.  The SLOG-2 reader handed each node's
# states to the writer parents first, so exclusive times kept their
# children's time (user_states.slog2: ranks 225-285% busy).
for run in user_states ring_mpilog; do
    n=$((n + 1))
    for ext in clog2 slog2; do
        if ! "$IMPORT" -q -o "$TMP/$run-$ext.slog" "$CORPUS/mpe/$run.$ext" 2> "$TMP/err" ||
            ! "$REPORT" -q "$TMP/$run-$ext.slog" -o "$TMP/$run-$ext.html" 2> "$TMP/err"; then
            echo "FAIL: mpe/$run.$ext: $(tail -1 "$TMP/err")"
            fails=$((fails + 1))
        fi
    done
    if "$PYTHON" "$HERE/check_report.py" "$TMP/$run-slog2.html" --query "$QUERY" \
        --slog "$TMP/$run-slog2.slog" --exact-busy --same-categories "$TMP/$run-clog2.html"; then
        echo "ok $n - mpe/$run.slog2 as mpe/$run.clog2"
    else
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ]
