#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# full_disk.sh - writing onto a full file system (issue 16 item 5): slog-synth
# and slog-import write into tmpfs mounts of a few sizes until the disk is
# full.  Each run must exit 1 with one clean line naming the file and the
# reason (ENOSPC), and leave no file that says complete: what is there opens,
# says incomplete, and a full query returns exactly the drawables the file
# says it holds (what was flushed).  Needs root to mount a tmpfs (CI runs as
# root); otherwise a skipped TAP plan.  TAP on stdout.
# Usage: full_disk.sh SLOG_SYNTH SLOG_IMPORT SLOG_INFO SLOG_QUERY
set -u
SYNTH=$1 IMPORT=$2 INFO=$3 QUERY=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/slog-full.XXXXXX")
mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { umount "$mnt" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>/dev/null; then
    echo "1..0 # SKIP cannot mount a tmpfs (needs root)"
    exit 0 # TAP: the plan says skipped (meson's TAP reader calls 77 an error)
fi
umount "$mnt"
python3 -c '
import random, sys
random.seed(7)
w = sys.stdout.write
w("{\"traceEvents\":[")
w(",".join("{\"name\":\"c%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":%d,"
           "\"args\":{\"v\":%d}}" % (i % 50, i * 20 + random.randrange(9), random.randrange(1, 40),
                                       i % 64, random.randrange(1 << 40)) for i in range(200000)))
w("]}")' >"$work/in.json"

sizes=(64k 192k 512k 1m)
echo "1..$((${#sizes[@]} * 2))"
n=0
fails=0
# check_run NAME STATUS STDERR OUT: the verdict of one run as a TAP line
check_run() {
    local name=$1 status=$2 err=$3 out=$4 why=""
    if [ "$status" != 1 ]; then
        why="exit $status, expected 1"
    elif [ "$(wc -l <"$err")" -lt 1 ] || ! grep -q "No space left on device" "$err"; then
        why="no ENOSPC message: $(head -c 300 "$err")"
    elif grep -q "^, filename\|^HDF5\|#0" "$err"; then
        why="HDF5's text leaked or a message broke across lines: $(head -c 300 "$err")"
    elif [ -e "$out" ]; then
        why=$(check_file "$out")
    fi
    n=$((n + 1))
    if [ -z "$why" ]; then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name: $why"
        fails=$((fails + 1))
    fi
}
# check_file OUT: prints why OUT is wrong, nothing when it is incomplete and
# consistent (or cannot be opened at all: the disk filled while creating it)
check_file() {
    local out=$1 info
    info=$("$INFO" --json "$out" 2>/dev/null) || return 0
    python3 -c '
import json, subprocess, sys
d = json.loads(sys.argv[1])
if d["complete"]:
    print("the file says complete")
    sys.exit()
q = subprocess.run([sys.argv[2], sys.argv[3], "-f", "jsonl", "--no-args"], capture_output=True, text=True)
got = len(q.stdout.splitlines())
if q.returncode != 0 or got != d["drawables"]:
    print("query exit %d, %d drawables, the file says %d" % (q.returncode, got, d["drawables"]))
' "$info" "$QUERY" "$out"
}
for size in "${sizes[@]}"; do
    mount -t tmpfs -o size="$size" tmpfs "$mnt" || exit 1
    "$SYNTH" --states 2000000 -q -o "$mnt/s.slog" 2>"$work/err"
    check_run "slog-synth onto a full $size tmpfs" $? "$work/err" "$mnt/s.slog"
    rm -f "$mnt"/*
    "$IMPORT" -q "$work/in.json" -o "$mnt/i.slog" 2>"$work/err"
    check_run "slog-import onto a full $size tmpfs" $? "$work/err" "$mnt/i.slog"
    umount "$mnt"
done
exit $((fails > 0))
