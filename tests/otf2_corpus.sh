#!/bin/sh
# SPDX-License-Identifier: MIT
#
# otf2_corpus.sh - TAP test of the OTF2 importer and exporter on real files.
#  1. every OTF2 archive of the corpus imports, and its states, arrows and
#     counter samples match what otf2-print (Debian's otf2-tools) counts:
#       states   = ENTER + MPI_COLLECTIVE_BEGIN + CALLING_CONTEXT_ENTER + BUFFER_FLUSH
#       arrows   = matched MPI_SEND/ISEND with MPI_RECV/IRECV (all match here)
#       counters = the values of all METRIC records
#  2. a damaged archive fails (exit 1) naming the event file, and the output
#     is not marked complete;
#  3. Chrome JSON -> libslog -> OTF2 (slog-query --format otf2): otf2-print
#     reads the archive, and re-importing it gives the same drawables.
# Usage: otf2_corpus.sh SLOG_IMPORT OTF2_SLOG_LINES [SLOG_QUERY]
# The corpus is $SLOG_CORPUS (set by tests/meson.build), else ../shared/corpus.
set -u

IMPORT=$1
LINES=$2
QUERY=${3:-}
CORPUS=${SLOG_CORPUS:-$(dirname "$0")/../../shared/corpus}
TMP=$(mktemp -d /tmp/otf2_corpus.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ARCHIVES="pipit/ping-pong-otf2/traces.otf2 fastotf2/simple-mi300-example-run/traces.otf2 sst-macro/otf2_test_traces/traces.otf2"
CHROME=catapult/x_event_trace.json

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # check DESCRIPTION GOT WANT
    if [ "$2" = "$3" ]; then ok "$1: $2"; else notok "$1: got $2, want $3"; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
field() { # field NAME "states 1 events 2 ..." -> value after NAME
    echo "$2" | tr ' ' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'
}
count() { # count RECORD FILE: lines of otf2-print output naming the record
    grep -c "^$1 " "$2" || true
}

echo "1..20"

if ! command -v otf2-print >/dev/null 2>&1; then
    echo "Bail out! otf2-print (otf2-tools) not installed"
    exit 1
fi

for a in $ARCHIVES; do
    name=$(echo "$a" | cut -d/ -f1-2)
    p="$TMP/print.txt"
    otf2-print "$CORPUS/$a" >"$p" 2>/dev/null
    states=$(( $(count ENTER "$p") + $(count MPI_COLLECTIVE_BEGIN "$p") +
               $(count CALLING_CONTEXT_ENTER "$p") + $(count BUFFER_FLUSH "$p") ))
    sends=$(( $(count MPI_SEND "$p") + $(count MPI_ISEND "$p") ))
    recvs=$(( $(count MPI_RECV "$p") + $(count MPI_IRECV "$p") ))
    arrows=$(( sends < recvs ? sends : recvs ))
    samples=$(awk '/^METRIC / { for (i = 2; i <= NF; i++) if ($i == "Value:" || $i == "Values:") s += $(i - 1) }
                   END { print s + 0 }' "$p")
    if "$IMPORT" --quiet "$CORPUS/$a" -o "$TMP/c.slog" 2>"$TMP/err.txt"; then
        ok "$name imports"
    else
        notok "$name imports: $(head -c 300 "$TMP/err.txt")"
    fi
    c=$("$LINES" --counts "$TMP/c.slog" 2>&1)
    check "$name states vs otf2-print" "$(field states "$c")" "$states"
    check "$name arrows vs otf2-print" "$(field arrows "$c")" "$arrows"
    check "$name counter samples vs otf2-print" "$(field counters "$c")" "$samples"
done

# 2. a truncated event file
cp -r "$CORPUS/pipit/ping-pong-otf2" "$TMP/bad"
size=$(wc -c <"$TMP/bad/traces/1.evt")
truncate -s $((size / 2)) "$TMP/bad/traces/1.evt"
"$IMPORT" --quiet "$TMP/bad/traces.otf2" -o "$TMP/bad.slog" 2>"$TMP/err.txt"
check "truncated event file: exit status" "$?" 1
if grep -q "traces/1.evt: truncated or damaged" "$TMP/err.txt"; then
    ok "truncated event file: message names traces/1.evt"
else
    notok "truncated event file: message: $(head -c 300 "$TMP/err.txt")"
fi
c=$("$LINES" --counts "$TMP/bad.slog" 2>/dev/null)
if [ -z "$c" ] || [ "$(field complete "$c")" = 0 ]; then
    ok "truncated event file: output not marked complete"
else
    notok "truncated event file: output claims to be complete: $c"
fi

# 3. Chrome -> libslog -> OTF2 -> libslog
if [ -z "$QUERY" ] || [ ! -x "$QUERY" ]; then
    for t in "chrome to slog" "slog to otf2" "otf2-print reads the export" "re-import" \
             "same drawables after the round trip"; do
        skip "$t" "slog-query is not built"
    done
else
    "$IMPORT" --quiet "$CORPUS/$CHROME" -o "$TMP/a.slog" 2>"$TMP/err.txt"
    check "chrome to slog ($CHROME): exit status" "$?" 0
    "$QUERY" "$TMP/a.slog" --format otf2 --output "$TMP/otf2" 2>"$TMP/err.txt"
    check "slog to otf2: exit status" "$?" 0
    if otf2-print "$TMP/otf2/traces.otf2" >"$TMP/print.txt" 2>"$TMP/err.txt"; then
        c=$("$LINES" --counts "$TMP/a.slog")
        want=$(( $(field states "$c") + $(field events "$c") ))
        check "otf2-print reads the export (ENTER = states + events)" "$(count ENTER "$TMP/print.txt")" "$want"
    else
        notok "otf2-print reads the export: $(head -c 300 "$TMP/err.txt")"
    fi
    "$IMPORT" --quiet "$TMP/otf2/traces.otf2" -o "$TMP/b.slog" 2>"$TMP/err.txt"
    check "re-import: exit status" "$?" 0
    "$LINES" --lines "$TMP/a.slog" | LC_ALL=C sort >"$TMP/a.txt"
    "$LINES" --lines "$TMP/b.slog" | LC_ALL=C sort >"$TMP/b.txt"
    if cmp -s "$TMP/a.txt" "$TMP/b.txt"; then
        ok "same drawables after the round trip ($(wc -l <"$TMP/a.txt") lines)"
    else
        notok "same drawables after the round trip: $(diff "$TMP/a.txt" "$TMP/b.txt" | head -5 | tr '\n' ' ')"
    fi
fi

[ "$fails" -eq 0 ]
