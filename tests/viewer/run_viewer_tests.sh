#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run_viewer_tests.sh - meson's entry to the browser tests (suite 'viewer'):
# runs viewer_test.mjs with node when Debian's chromium and the npm packages
# of tests/viewer (npm ci) are here.  Without them it skips (a TAP "1..0 #
# SKIP" plan and exit 0: meson's TAP protocol reports exit 77 as an error),
# unless SLOG_REQUIRE_BROWSER=1 says this machine must run them (CI); then
# it fails.
#
#   run_viewer_tests.sh SLOG_SERVE SLOG_IMPORT SLOG_QUERY SLOG_SYNTH CORPUS_DIR WORKDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
chromium=${SLOG_CHROMIUM:-/usr/bin/chromium}

missing=""
command -v node >/dev/null || missing="node"
[ -x "$chromium" ] || missing="$missing $chromium"
[ -d "$here/node_modules/playwright-core" ] || missing="$missing tests/viewer/node_modules (npm ci)"
if [ -n "$missing" ]; then
    if [ "${SLOG_REQUIRE_BROWSER:-0}" = 1 ]; then
        echo "not ok 1 - browser tests need:$missing (SLOG_REQUIRE_BROWSER=1)"
        echo "1..1"
        exit 1
    fi
    echo "1..0 # SKIP missing:$missing"
    exit 0
fi
exec node "$here/viewer_test.mjs" "$@"
