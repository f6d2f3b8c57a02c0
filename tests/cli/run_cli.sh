#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run_cli.sh - golden tests of the command-line tools, as TAP.
# Each case is tests/cli/<tool>/<case>.sh, run with bash in a fresh
# temporary directory (its working directory) and these variables:
#   SLOG_INFO, SLOG_QUERY, SLOG_SYNTH  the tools under test
#   SLOG_IMPORT                        slog-import (optional 5th argument)
#   SLOG_CHECK, H5MAP                  slog-check and tests/corrupt/h5map (environment)
#   CLI_DIR                            this directory (helper scripts)
#   PYTHON                             python3
# Beside it: <case>.exit (expected status, default 0), <case>.stdout.exact
# (stdout must be exactly this), <case>.stderr.glob (all of stderr must
# match this bash glob; without it stderr must be empty when the expected
# status is 0).
# Usage: run_cli.sh CLI_DIR SLOG_INFO SLOG_QUERY SLOG_SYNTH [SLOG_IMPORT]
set -u
CLI_DIR=$(cd "$1" && pwd)
export CLI_DIR
abspath() {
    case $1 in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$PWD" "$1" ;;
    esac
}
SLOG_INFO=$(abspath "$2")
SLOG_QUERY=$(abspath "$3")
SLOG_SYNTH=$(abspath "$4")
SLOG_IMPORT=$(abspath "${5:-slog-import}")
export SLOG_INFO SLOG_QUERY SLOG_SYNTH SLOG_IMPORT
export PYTHON=${PYTHON:-python3}
export LC_ALL=C

cases=()
for f in "$CLI_DIR"/*/*.sh; do
    cases+=("$f")
done
echo "1..${#cases[@]}"

n=0
fails=0
for c in "${cases[@]}"; do
    n=$((n + 1))
    base=${c%.sh}
    name=${base#"$CLI_DIR"/}
    work=$(mktemp -d "${TMPDIR:-/tmp}/slog-cli.XXXXXX")
    (cd "$work" && bash "$c" >"$work/.stdout" 2>"$work/.stderr")
    status=$?
    want=0
    [ -f "$base.exit" ] && want=$(tr -d ' \n' <"$base.exit")
    why=""
    if [ "$status" != "$want" ]; then
        why="exit status $status, expected $want"
    elif [ -f "$base.stdout.exact" ] && ! cmp -s "$base.stdout.exact" "$work/.stdout"; then
        why="stdout differs from $(basename "$base").stdout.exact"
    elif [ -f "$base.stderr.glob" ]; then
        pattern=$(cat "$base.stderr.glob")
        got=$(cat "$work/.stderr")
        # shellcheck disable=SC2053  # the right side is a glob on purpose
        if [[ "$got" != $pattern ]]; then
            why="stderr does not match $(basename "$base").stderr.glob"
        fi
    elif [ "$want" = 0 ] && [ -s "$work/.stderr" ]; then
        why="unexpected stderr"
    fi
    if [ -z "$why" ]; then
        echo "ok $n - $name"
    else
        fails=$((fails + 1))
        echo "not ok $n - $name: $why"
        sed -e 's/^/#   stdout: /' "$work/.stdout" | head -20
        sed -e 's/^/#   stderr: /' "$work/.stderr" | head -20
    fi
    rm -rf "$work"
done
[ "$fails" = 0 ]
