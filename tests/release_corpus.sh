#!/bin/sh
# SPDX-License-Identifier: MIT
#
# release_corpus.sh - TAP test: the production build (-O3, link-time
# optimisation) imports every trace of the shared corpus exactly as the
# plain build does: the same exit status, never a signal or a hang, and,
# when it succeeds, the same file byte for byte (the writer is
# deterministic).  Optimisation exposes
# undefined behaviour that the plain and sanitizer builds do not show (an
# OTF2 archive once crashed only here: a record header written as a struct
# and read back as words through a cast).
# Usage: release_corpus.sh PLAIN_SLOG_IMPORT RELEASE_SLOG_IMPORT
# The corpus is $SLOG_CORPUS, else ../shared/corpus beside the checkout.
set -u

PLAIN=$1
RELEASE=$2
CORPUS=${SLOG_CORPUS:-$(dirname "$0")/../../shared/corpus}
LIMIT=${SLOG_IMPORT_LIMIT:-300} # seconds an import may take (the largest takes ~1 s)
TMP=$(mktemp -d /tmp/release_corpus.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# Trace inputs: files of every importer's formats, OTF2 anchors, Recorder
# folders (the ones holding recorder.mt).
inputs() {
    find "$CORPUS" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.pfw' \
        -o -name '*.pfw.gz' -o -name '*.otf2' -o -name '*.clog2' -o -name '*.clog2.gz' \
        -o -name '*.slog2' -o -name '*.slog2.gz' -o -name '*.pftrace' \
        -o -name '*.perfetto-trace' \) | sort
    find "$CORPUS" -type f -name 'recorder.mt' -exec dirname {} \; | sort
}

if [ ! -d "$CORPUS" ]; then
    echo "1..0 # SKIP no corpus at $CORPUS"
    exit 0
fi
inputs > "$TMP/list"
while IFS= read -r f; do
    name=${f#"$CORPUS"/}
    # a hang is a failure too, not a stalled CI (exit status 124)
    timeout "$LIMIT" "$PLAIN" -q "$f" -o "$TMP/plain.slog" > /dev/null 2> "$TMP/plain.err"
    a=$?
    timeout "$LIMIT" "$RELEASE" -q "$f" -o "$TMP/release.slog" > /dev/null 2> "$TMP/release.err"
    b=$?
    if [ $a = 124 ] || [ $b = 124 ]; then
        notok "$name: an import ran past ${LIMIT} s (plain $a, production $b)"
    elif [ $a -ge 128 ] || [ $b -ge 128 ]; then
        notok "$name: an import died of a signal (plain $a, production $b)"
        sed 's/^/# /' "$TMP/plain.err" "$TMP/release.err" | head -5
    elif [ $a != $b ]; then
        notok "$name: exit status $b with the production build, $a with the plain build"
        sed 's/^/# /' "$TMP/release.err" | head -5
    elif [ $a != 0 ]; then
        ok "$name: both builds refuse it (exit status $a, a clear error)"
    elif cmp -s "$TMP/plain.slog" "$TMP/release.slog"; then
        ok "$name: same file from both builds"
    else
        notok "$name: the production build wrote a different file"
    fi
    rm -f "$TMP/plain.slog" "$TMP/release.slog"
done < "$TMP/list"
echo "1..$n"
[ $fails = 0 ]
