#!/bin/sh
# SPDX-License-Identifier: MIT
#
# lint.sh - the static-analysis gate of .ci/run (issue 12 item 4): clang-tidy
# with the project's .clang-tidy (tests/tidy.py: parallel, cached, headers
# included) and cppcheck's warning,
# portability and performance checks, over the C files of libslog/ (the
# core and the import library) and utils/, fed the build's
# compile_commands.json.  cppcheck findings we judge wrong are suppressed in
# tests/cppcheck.supp, each with its reason.  Prints every finding as
# "file:line:col: severity: message [check]", then one line per tool and a
# last line "lint: N findings (tidy T, cppcheck C) in S s".
# Exit 0 clean, 1 with findings, 2 usage, 77 (skip) when a tool is missing.
#
# Usage: tests/lint.sh [-j JOBS] [-p BUILD_DIR] [-C] [-T] [DIR...]
#        (defaults: 2 jobs, build, libslog utils; -C: no cppcheck, -T: no clang-tidy)
# To check only your own part while you work: tests/lint.sh utils/slog-serve
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=2
build="$root/build"
run_cppcheck=1
run_tidy=1
while getopts j:p:CT opt; do
    case $opt in
    j) jobs=$OPTARG ;;
    p) build=$(cd "$OPTARG" && pwd) ;;
    C) run_cppcheck=0 ;;
    T) run_tidy=0 ;;
    *) echo "usage: lint.sh [-j JOBS] [-p BUILD_DIR] [-C] [-T] [DIR...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- libslog utils

cppcheck=$(command -v cppcheck) || {
    echo "lint: cppcheck not found" >&2
    exit 77
}
command -v clang-tidy-14 >/dev/null || command -v clang-tidy >/dev/null || {
    echo "lint: clang-tidy not found" >&2
    exit 77
}
if [ ! -f "$build/compile_commands.json" ]; then
    echo "lint: no $build/compile_commands.json (meson setup first)" >&2
    exit 2
fi

start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lint.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# cppcheck: one compile command per source file of the directories (meson
# lists a file once per target that compiles it), without -pthread, which
# cppcheck takes for a file name.
python3 - "$build/compile_commands.json" "$root" "$tmp/cc.json" "$@" <<'EOF'
import json, os, sys
db, root, out, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
prefixes = tuple(os.path.join(root, d.rstrip('/')) + '/' for d in dirs)
seen = {}
for e in json.load(open(db)):
    f = os.path.normpath(os.path.join(e['directory'], e['file']))
    if f.endswith('.c') and f.startswith(prefixes) and f not in seen:
        e = dict(e, file=f)
        if 'command' in e:
            e['command'] = e['command'].replace(' -pthread', '')
        seen[f] = e
json.dump(list(seen.values()), open(out, 'w'))
EOF
nc=0
if [ $run_cppcheck = 1 ]; then
    "$cppcheck" --project="$tmp/cc.json" --enable=warning,portability,performance \
        --library=python --suppressions-list="$root/tests/cppcheck.supp" --inline-suppr --quiet -j "$jobs" \
        --template='{file}:{line}:{column}: {severity}: {message} [{id}]' 2> "$tmp/cppcheck.raw"
    sed -e "s|^$root/||" "$tmp/cppcheck.raw" | grep -E '^[^ ]+:[0-9]+:[0-9]+: ' | sort -u > "$tmp/cppcheck"
    nc=$(grep -c . "$tmp/cppcheck")
    cat "$tmp/cppcheck"
    echo "cppcheck: $nc findings"
fi

nt=0
if [ $run_tidy = 1 ]; then
    python3 "$root/tests/tidy.py" -j "$jobs" -p "$build" "$@" > "$tmp/tidy"
    trc=$?
    grep -v '^tidy: ' "$tmp/tidy"
    nt=$(grep -v '^tidy: ' "$tmp/tidy" | grep -c .)
    grep '^tidy: ' "$tmp/tidy"
    # exit 2: a unit clang-tidy could not compile (said on stderr)
    [ $trc != 2 ] || nt=$((nt + 1))
fi

n=$((nt + nc))
echo "lint: $n findings (tidy $nt, cppcheck $nc) in $(($(date +%s) - start)) s"
[ "$n" = 0 ]
