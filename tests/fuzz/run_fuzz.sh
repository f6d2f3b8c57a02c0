#!/bin/sh
# SPDX-License-Identifier: MIT
#
# run_fuzz.sh - run libFuzzer targets one after the other (one process at a
# time, nice 19: the machine is shared), each for SECONDS, starting from its
# saved corpus, then add to tests/fuzz/corpus/<target> the new finds that add
# coverage (a minimised merge; saved inputs are never removed).  Prints one
# line per target:
#   <target> <seconds> <executions> <exit status of the run>
# and keeps each run's log and crash files in WORK.
# Usage: run_fuzz.sh BUILD_FUZZ_DIR WORK SECONDS TARGET...
#   (build: CC=clang meson setup build-fuzz -Dfuzzing=true
#           -Db_sanitize=address,undefined -Db_lundef=false; ninja -C build-fuzz)
set -u
build=$1 work=$2 secs=$3
shift 3
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
export LSAN_OPTIONS="suppressions=$src/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
for t in "$@"; do
    bin=$(find "$build" -name "fuzz_$t" -type f -perm -u+x | head -n 1)
    if [ -z "$bin" ]; then
        echo "$t: no fuzz_$t in $build" >&2
        continue
    fi
    corpus="$src/corpus/$t"
    new="$work/$t.new"
    mkdir -p "$new" "$corpus"
    nice -n 19 "$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=20 -rss_limit_mb=2048 \
        -artifact_prefix="$work/$t-" "$new" "$corpus" > "$work/$t.log" 2>&1
    status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
    # the saved inputs stay (named regression inputs among them); of the new
    # finds only those that add coverage join them (libFuzzer's merge)
    nice -n 19 "$bin" -merge=1 "$corpus" "$new" > "$work/$t.merge.log" 2>&1
    echo "$t $secs ${execs:-?} $status"
done
