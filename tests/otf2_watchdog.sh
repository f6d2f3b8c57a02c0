#!/usr/bin/env bash
# libotf2 3.0.2 loops forever on some damaged anchor files; slog-import's
# watchdog must turn that into a clear error, exit 1 and an incomplete output.
# Args: SLOG_IMPORT SLOG_INFO CORPUS_DIR.  TAP output.
set -u
import=$1 info=$2 corpus=$3
src="$corpus/pipit/ping-pong-otf2"
echo "1..3"
if [ ! -d "$src" ]; then
    for i in 1 2 3; do echo "ok $i # SKIP corpus not found at $src"; done
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/a" && chmod -R u+w "$tmp/a"
# byte 63 of this anchor, xor 0x5a: libotf2 never returns from reading it
python3 -c "
import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[63]^=0x5a; open(p,'wb').write(b)" "$tmp/a/traces.otf2"
start=$(date +%s)
SLOG_OTF2_DEFS_TIMEOUT=2 timeout 60 "$import" "$tmp/a/traces.otf2" -o "$tmp/out.slog" >/dev/null 2>"$tmp/err"
rc=$?
elapsed=$(( $(date +%s) - start ))
if [ $rc -eq 1 ] && [ $elapsed -lt 30 ]; then
    echo "ok 1 - exit 1 after ${elapsed}s, no hang"
else
    echo "not ok 1 - exit $rc after ${elapsed}s"
fi
if grep -q "traces.otf2: libotf2 did not finish reading" "$tmp/err"; then
    echo "ok 2 - the message names the archive: $(head -n 1 "$tmp/err")"
else
    echo "not ok 2 - message"; sed 's/^/# /' "$tmp/err"
fi
if [ ! -e "$tmp/out.slog" ] || "$info" --json "$tmp/out.slog" 2>/dev/null | grep -q '"complete":false'; then
    echo "ok 3 - the output is not complete"
else
    echo "not ok 3 - the output passes for complete"
fi
