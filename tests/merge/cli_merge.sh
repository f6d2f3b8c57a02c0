#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# cli_merge.sh - runs only the slog-merge cases of tests/cli (run_cli.sh over
# a directory holding just tests/cli/slog-merge), so they run in the 'fast'
# suite; the 'cli' test runs them again with every other tool's.
# Usage: cli_merge.sh CLI_DIR SLOG_INFO SLOG_QUERY SLOG_SYNTH SLOG_IMPORT
# (SLOG_MERGE, H5MAP and PYTHON in the environment)
set -u
cli=$(cd "$1" && pwd)
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli_merge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ln -s "$cli/slog-merge" "$tmp/slog-merge"
bash "$cli/run_cli.sh" "$tmp" "$@"
