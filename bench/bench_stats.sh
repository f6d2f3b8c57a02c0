#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_stats.sh - make a slog-synth file of STATES states (64 timelines) in
# DIR, run bench_stats on it, delete it.
# Usage: bench_stats.sh SLOG_SYNTH BENCH_STATS STATES DIR
set -eu
SYNTH=$1
BENCH=$2
STATES=$3
DIR=$4
FILE="$DIR/bench_stats_$$.slog"
trap 'rm -f "$FILE"' EXIT
"$SYNTH" --states "$STATES" --timelines 64 -q -o "$FILE"
"$BENCH" "$FILE"
