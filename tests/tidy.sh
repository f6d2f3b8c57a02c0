#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tidy.sh - clang-tidy with the project's .clang-tidy (STYLE.md §6: the
# bugprone, clang-analyzer, performance checks, braces, function size and
# cognitive complexity) over the C files of libslog/ (or the directories
# given), fed the build's compile_commands.json.  Prints each finding as
# "file:line:col: error: message [check]" and a last line "tidy: N findings
# in F files (of T)".  Exit 0 when clean, 1 with findings, 77 (skip) when
# clang-tidy is not installed.  Not a CI gate yet: see the report in the
# commit that added it.
#
# Usage: tests/tidy.sh [-j JOBS] [-p BUILD_DIR] [DIR...]   (defaults: 1, build, libslog)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=1
build="$root/build"
while getopts j:p: opt; do
    case $opt in
    j) jobs=$OPTARG ;;
    p) build=$(cd "$OPTARG" && pwd) ;;
    *) echo "usage: tidy.sh [-j JOBS] [-p BUILD_DIR] [DIR...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- libslog

tidy=$(command -v clang-tidy-14 || command -v clang-tidy) || {
    echo "tidy: clang-tidy not found" >&2
    exit 77
}
if [ ! -f "$build/compile_commands.json" ]; then
    echo "tidy: no $build/compile_commands.json (meson setup first)" >&2
    exit 2
fi

files=$(for d in "$@"; do find "$root/$d" -name '*.c' | sort; done)
total=$(printf '%s\n' "$files" | grep -c .)
out=${TMPDIR:-/tmp}/tidy.$$
trap 'rm -f "$out"' EXIT
# one clang-tidy per file, JOBS at a time; only the findings are kept
printf '%s\n' "$files" | xargs -P "$jobs" -n 1 "$tidy" -p "$build" --quiet 2>/dev/null |
    sed -n -e 's/\x1b\[[0-9;]*m//g' -e "s|^$root/||" -e 's|^\([^/:]*/\)\{0,1\}\.\./||' \
        -e '/: \(error\|warning\): /p' > "$out"
sort -u "$out"
n=$(sort -u "$out" | grep -c .)
f=$(sort -u "$out" | cut -d: -f1 | sort -u | grep -c .)
echo "tidy: $n findings in $f files (of $total)"
[ "$n" = 0 ]
