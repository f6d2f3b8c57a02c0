#!/bin/sh
# SPDX-License-Identifier: MIT
#
# report_browser.sh - opens slog-report pages in headless Chromium: the
# script must draw the overview (the DOM after load carries
# data-overview="drawn" and the canvas the number of rows drawn), and a
# screenshot must be neither blank nor lack the overview's main category
# colour (check_png.py).  Pages: the tracked synth file, and the hostile
# names file (its script must still run, and no injected element appears).
# Without Chromium: skipped (77), unless SLOG_REQUIRE_BROWSER=1 (CI).
# Usage: report_browser.sh SLOG_REPORT REPORT_FIXTURE SOURCE_ROOT
set -u
REPORT=$1
FIXTURE=$2
ROOT=$3
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
BROWSER=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$BROWSER" ]; then
    if [ "${SLOG_REQUIRE_BROWSER:-0}" = 1 ]; then
        echo "FAIL: no chromium and SLOG_REQUIRE_BROWSER=1"
        exit 1
    fi
    echo "SKIP: no chromium"
    exit 77
fi
TMP=$(mktemp -d /tmp/report_browser.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
browse() { # extra flags... URL
    timeout 90 "$BROWSER" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$TMP/profile" "$@" 2> "$TMP/browser.err"
}

# check NAME SLOG: report, DOM after the script ran, screenshot
check() {
    name=$1
    "$REPORT" -q "$2" -o "$TMP/$name.html" || { fail "$name: slog-report"; return; }
    rows=$("$PYTHON" -c 'import json, re, sys
m = re.search(r"id=\"overview-data\">(.*?)</script>", open(sys.argv[1]).read(), re.S)
print(len(json.loads(m.group(1))["rows"]))' "$TMP/$name.html")
    browse --dump-dom "file://$TMP/$name.html" > "$TMP/$name.dom" || fail "$name: chromium --dump-dom"
    grep -q 'data-overview="drawn"' "$TMP/$name.dom" || fail "$name: the overview was not drawn"
    grep -q "data-drawn-rows=\"$rows\"" "$TMP/$name.dom" || fail "$name: not $rows rows drawn"
    if grep -q -i -e '<img' -e '<iframe' -e '<script>alert' "$TMP/$name.dom"; then
        fail "$name: injected markup in the DOM"
    fi
    browse --screenshot="$TMP/$name.png" --window-size=1400,1000 "file://$TMP/$name.html" \
        > /dev/null || fail "$name: chromium --screenshot"
    "$PYTHON" "$HERE/check_png.py" "$TMP/$name.png" "$TMP/$name.html" || fail "$name: screenshot"
}

check synth "$ROOT/tests/data/slog/v1/synth.slog"
"$FIXTURE" hostile "$TMP/hostile.slog" || fail "fixture"
check hostile "$TMP/hostile.slog"
if [ $fails -ne 0 ]; then
    cat "$TMP/browser.err" | tail -5
    echo "$fails failure(s)"
    exit 1
fi
echo "Chromium drew every page"
