#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_index.sh - many rank files joined three ways, timed in the same run
# (issue 17, doc/SCALE.md): `slog-merge --index` (the rank files stay; the
# index holds their top levels), `slog-merge --copy` (one file, nodes copied,
# nothing decoded) and the decoding merge `slog-merge` (the anchor: every
# drawable read and written again).  Then the same 1000-pixel views on the
# index and on the merged file: all rows, and 50 rows.  Each step runs RUNS
# times; it prints the median and the spread of wall time, the CPU time
# (user + system) and peak RSS, the output size, and for queries the
# slog-query --io figures (bytes read, items, input files opened), with the
# load average before and after.
# Usage: bench_index.sh SLOG_SYNTH SLOG_MERGE SLOG_QUERY [RANKS] [STATES] [RUNS] [DIR]
#   (defaults: 1024 ranks of 10000 states, 3 runs, /tmp/bench_index; the rank
#   files are made once and kept in DIR/ranks for later runs)
set -eu
SYNTH=$1 MERGE=$2 QUERY=$3
RANKS=${4:-1024} STATES=${5:-10000} RUNS=${6:-3} DIR=${7:-/tmp/bench_index}
mkdir -p "$DIR/ranks"
echo "load before: $(uptime)"
echo "machine: $(nproc) cores; $RANKS rank files of $STATES states (slog-synth -t 4)"
i=0
while [ "$i" -lt "$RANKS" ]; do
    f=$(printf '%s/ranks/rank-%06d.slog' "$DIR" "$i")
    [ -f "$f" ] || "$SYNTH" --states "$STATES" --timelines 4 --seed "$((i + 1))" -q -o "$f"
    i=$((i + 1))
done
echo "rank files: $(du -cb "$DIR"/ranks/*.slog | tail -n 1 | cut -f1) bytes"

# median and range of a column of numbers on stdin
stats() {
    sort -n | awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                     printf "median %.3f (%.3f-%.3f)", m, v[1], v[NR]}'
}

# run LABEL CMD...: RUNS times, wall/cpu/rss per run into $DIR/LABEL.times
run() {
    label=$1
    shift
    : > "$DIR/$label.times"
    r=0
    while [ "$r" -lt "$RUNS" ]; do
        /usr/bin/time -f '%e %U %S %M' -o "$DIR/$label.one" "$@" > "$DIR/$label.out" 2> "$DIR/$label.err"
        cat "$DIR/$label.one" >> "$DIR/$label.times"
        r=$((r + 1))
    done
    wall=$(cut -d' ' -f1 "$DIR/$label.times" | stats)
    cpu=$(awk '{print $2 + $3}' "$DIR/$label.times" | stats)
    rss=$(cut -d' ' -f4 "$DIR/$label.times" | sort -n | tail -n 1)
    echo "$label: wall s $wall; cpu s $cpu; peak RSS $rss KB"
}

run index "$MERGE" -q --index "$DIR"/ranks -o "$DIR/index.slog"
echo "  index: $(stat -c %s "$DIR/index.slog") bytes"
run copy "$MERGE" -q --copy "$DIR"/ranks -o "$DIR/copy.slog"
echo "  copy: $(stat -c %s "$DIR/copy.slog") bytes"
run merge "$MERGE" -q "$DIR"/ranks -o "$DIR/merged.slog"
echo "  merged: $(stat -c %s "$DIR/merged.slog") bytes"

rows=""
t=1
while [ "$t" -le 50 ]; do
    rows="$rows -t #$((t + 100))"
    t=$((t + 1))
done
for file in index merged copy; do
    # shellcheck disable=SC2086 # rows is a list of options
    run "view-all-$file" "$QUERY" "$DIR/$file.slog" -p 1000 --no-args --io -f csv
    echo "  $(grep -o 'bytes_read=[0-9]*.*items=[0-9]*\( index_files_opened=[0-9]*\)\?' "$DIR/view-all-$file.err")"
    # shellcheck disable=SC2086
    run "view-50-$file" "$QUERY" "$DIR/$file.slog" -p 1000 --no-args --io -f csv $rows
    echo "  $(grep -o 'bytes_read=[0-9]*.*items=[0-9]*\( index_files_opened=[0-9]*\)\?' "$DIR/view-50-$file.err")"
done
echo "load after: $(uptime)"
