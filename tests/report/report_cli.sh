#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report_cli.sh - slog-report end to end on small files: the tracked test
# files and the traces report_fixture writes (hostile names, empty, no
# states, many categories, zero-length states, incomplete, 10^4 timelines
# nested and flat) give pages that pass check_report.py, whose numbers equal
# slog-query's; bad input (missing file, not a libslog file, unwritable
# output, the output is the input, bad options) fails with a clear message
# and the right exit status, and never leaves a partial or temporary output
# behind nor touches an existing one.
# Usage: report_cli.sh SLOG_REPORT SLOG_QUERY REPORT_FIXTURE SOURCE_ROOT SLOG_SYNTH
set -u
REPORT=$1
QUERY=$2
FIXTURE=$3
ROOT=$4
SYNTH=$5
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d /tmp/report_cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# page FILE NAME [check_report options]: report then check against slog-query
page() {
    file=$1
    name=$2
    shift 2
    if ! "$REPORT" -q "$file" -o "$TMP/$name.html" 2> "$TMP/$name.err"; then
        fail "$name: slog-report failed: $(cat "$TMP/$name.err")"
        return
    fi
    "$PYTHON" "$HERE/check_report.py" "$TMP/$name.html" --query "$QUERY" --slog "$file" "$@" ||
        fail "$name: check_report"
}

page "$ROOT/tests/data/slog/v1/synth.slog" synth --grouped no --exact-busy
page "$ROOT/tests/data/slog/v1/chrome69.slog" chrome69
for kind in hostile empty nostates manycats zerolen incomplete nested flat; do
    "$FIXTURE" "$kind" "$TMP/$kind.slog" || fail "fixture $kind"
done
page "$TMP/hostile.slog" hostile --hostile --grouped no --exact-busy
page "$TMP/empty.slog" empty --empty
# events, arrows and counters but no state: the overview said "No drawables to draw"
page "$TMP/nostates.slog" nostates --no-states
page "$TMP/incomplete.slog" incomplete --incomplete
# states of no duration only: the overview painted nothing
page "$TMP/zerolen.slog" zerolen --grouped no --exact-busy
# 1200 categories: every one listed by default; with --categories 100, the 100
# with the most time or drawables of each kind and the rest added up (10^5
# categories gave a 34 MB page listing them all)
page "$TMP/manycats.slog" manycats --exact-busy
"$REPORT" -q "$TMP/manycats.slog" --categories 100 -o "$TMP/manycats100.html" &&
    "$PYTHON" "$HERE/check_report.py" "$TMP/manycats100.html" --categories 100 --query "$QUERY" \
        --slog "$TMP/manycats.slog" --exact-busy ||
    fail "manycats with --categories 100"
page "$TMP/nested.slog" nested --grouped yes --exact-busy
page "$TMP/flat.slog" flat --grouped yes --exact-busy
"$REPORT" -q "$TMP/flat.slog" --rows 20 --matrix 8 -o "$TMP/flat20.html" &&
    "$PYTHON" "$HERE/check_report.py" "$TMP/flat20.html" --grouped yes --max-rows 20 ||
    fail "flat with --rows 20"
grep -q 'class="matrix"' "$TMP/flat.html" || fail "flat: no message matrix"

# An index: its queries read its input files too, so the cost line counts
# their bytes (was: "103% of the file's", the index's own size alone).
if "$FIXTURE" index "$TMP/ix.slog" "$TMP/nested.slog" "$TMP/flat.slog"; then
    page "$TMP/ix.slog" index --grouped yes
    size() { wc -c < "$1" | tr -d ' '; }
    all=$(( $(size "$TMP/ix.slog") + $(size "$TMP/nested.slog") + $(size "$TMP/flat.slog") ))
    grep -q "data-file-bytes=\"$all\"" "$TMP/index.html" ||
        fail "index: data-file-bytes is not the index's and its inputs' $all bytes"
    grep -q "of the index's [^<]* and its 2 input files' " "$TMP/index.html" ||
        fail "index: the cost line does not name the input files"
else
    fail "report_fixture index"
fi

# The cost line: a file read in part says "without a full scan"; one small
# for the overview's pixels is read mostly or wholly and says so (it said
# "without a full scan" over 104 % of a 10 MiB trace of 8 MPI ranks).
grep -q 'statistics, without a full scan: the queries read ' "$TMP/synth.html" ||
    fail "synth: the cost line does not say 'without a full scan'"
if "$SYNTH" -q --states 200000 --timelines 8 -o "$TMP/small.slog" &&
    "$REPORT" -q "$TMP/small.slog" -o "$TMP/small.html"; then
    if grep -q 'without a full scan' "$TMP/small.html" ||
        ! grep -q "small for the overview's [0-9]* pixels, so the queries read most or all of it: " \
            "$TMP/small.html"; then
        fail "small file: the cost line: $(grep -o 'Made from[^<]*' "$TMP/small.html")"
    fi
else
    fail "slog-synth or slog-report on a small file"
fi

# expect NAME STATUS PATTERN -- command...: exit status and a stderr pattern
expect() {
    name=$1
    want=$2
    pattern=$3
    shift 4
    "$@" > "$TMP/out" 2> "$TMP/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "$name: exit $got, expected $want ($(cat "$TMP/err"))"
    grep -q -- "$pattern" "$TMP/err" || fail "$name: stderr lacks '$pattern': $(cat "$TMP/err")"
}
printf 'not a trace\n' > "$TMP/text.slog"
echo KEEP > "$TMP/keep.html"
expect missing 1 "$TMP/nope.slog" -- "$REPORT" "$TMP/nope.slog" -o "$TMP/keep.html"
expect not_slog 1 "text.slog" -- "$REPORT" "$TMP/text.slog" -o "$TMP/keep.html"
# a trace in another format: the error says what to do, not only "Not an HDF5 file"
printf '[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]\n' > "$TMP/trace.json"
expect chrome_json 1 "trace.json: Cannot open: .*convert other traces with slog-import first" -- \
    "$REPORT" "$TMP/trace.json" -o "$TMP/keep.html"
[ "$(cat "$TMP/keep.html")" = KEEP ] || fail "a failed run changed the existing output"
expect no_dir 1 "Cannot create $TMP/no/such/dir/r.html" -- \
    "$REPORT" "$ROOT/tests/data/slog/v1/synth.slog" -o "$TMP/no/such/dir/r.html"
# the output is the input (same name, or the same file): the trace was replaced by the page
cp "$ROOT/tests/data/slog/v1/synth.slog" "$TMP/in.slog"
expect is_input 1 "is the input" -- "$REPORT" "$TMP/in.slog" -o "$TMP/in.slog"
expect is_input_dot 1 "is the input" -- "$REPORT" "$TMP/in.slog" -o "$TMP/./in.slog"
cmp -s "$TMP/in.slog" "$ROOT/tests/data/slog/v1/synth.slog" || fail "slog-report overwrote its input"
# an index whose input file is gone: the error names that file
mv "$TMP/flat.slog" "$TMP/flat.gone"
expect index_missing 1 "Cannot .*(SLOG_EIO, in .*flat.slog)" -- \
    "$REPORT" "$TMP/ix.slog" -o "$TMP/keep.html"
mv "$TMP/flat.gone" "$TMP/flat.slog"
mkdir "$TMP/isdir.html"
expect is_dir 1 "isdir.html" -- "$REPORT" "$ROOT/tests/data/slog/v1/synth.slog" -o "$TMP/isdir.html"
expect no_output 2 "missing --output" -- "$REPORT" "$ROOT/tests/data/slog/v1/synth.slog"
expect bad_pixels 2 "--pixels" -- "$REPORT" x.slog --pixels 5 -o "$TMP/x.html"
expect no_file 2 "missing FILE" -- "$REPORT" -o "$TMP/x.html"
leftover=$(find "$TMP" -name '*.tmp-*' | head -1)
[ -z "$leftover" ] || fail "temporary file left behind: $leftover"
[ ! -e "$TMP/x.html" ] || fail "a usage error created the output"
"$REPORT" --help | grep -q "Usage: slog-report" || fail "--help"

if [ $fails -ne 0 ]; then
    echo "$fails failure(s)"
    exit 1
fi
echo "all slog-report checks passed"
