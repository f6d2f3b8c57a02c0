#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench_perfetto_import.sh - issue 12 item 6: slog-import throughput on
# Perfetto traces, against the wire reader alone (pf_gen walk: every field
# of the same bytes decoded, every length-delimited field walked as a
# message, nothing mapped or written) in the same run, interleaved so that
# machine load hits both alike.  Two inputs: a generated trace of N slices
# (pf_gen slices: 16 threads, interned names, 2 args per slice, flows and a
# counter) and the largest corpus trace (chrome__chrome.pftrace, gzip: the
# import reads it as it is, the walk its gunzipped copy).  Medians over RUNS
# runs of wall and CPU time (user+sys, /usr/bin/time), MB/s of decoded
# bytes, TracePackets/s and drawables/s, peak RSS; `uptime` before and after.
#
#   bench_perfetto_import.sh SLOG_IMPORT PF_GEN SLOG_INFO [N] [RUNS] [CORPUS] [DIR]
set -eu
IMPORT=$1 GEN=$2 INFO=$3
N=${4:-1000000} RUNS=${5:-3} CORPUS=${6:-$(dirname "$0")/../../shared/corpus} DIR=${7:-/tmp}
GENTRACE=$DIR/bench_perfetto_$N.pftrace
CHROME=$CORPUS/perfetto/chrome__chrome.pftrace
CHROME_RAW=$DIR/bench_perfetto_chrome.raw
OUT=$DIR/bench_perfetto.slog
TIMES=$DIR/bench_perfetto_times.$$
trap 'rm -f "$TIMES" "$OUT"' EXIT

[ -s "$GENTRACE" ] || "$GEN" slices "$N" "$GENTRACE"
set -- gen "$GENTRACE" "$GENTRACE"
if [ -s "$CHROME" ]; then
    gzip -dc "$CHROME" > "$CHROME_RAW"
    set -- "$@" chrome "$CHROME" "$CHROME_RAW"
fi
echo "# $(nproc) cores; uptime: $(uptime)"

measure() { # label command... -> "label wall cpu maxrss_kb"
    label=$1; shift
    /usr/bin/time -f "$label %e %U %S %M" -a -o "$TIMES" "$@" > /dev/null 2>&1
}

: > "$TIMES"
i=0
while [ "$i" -lt "$RUNS" ]; do
    set -- "$@"
    args="$*"
    while [ $# -ge 3 ]; do
        measure "$1-walk" "$GEN" walk "$3"
        measure "$1-import" "$IMPORT" --quiet --no-progress -o "$OUT" "$2"
        shift 3
    done
    set -- $args
    i=$((i + 1))
done
echo "# uptime after: $(uptime)"

while [ $# -ge 3 ]; do
    "$IMPORT" --json --no-progress -o "$OUT" "$2" > "$DIR/bench_perfetto_summary.json"
    drawables=$("$INFO" "$OUT" | sed -n 's/^drawables: *\([0-9]*\).*/\1/p')
    python3 - "$TIMES" "$1" "$(stat -c %s "$3")" "$drawables" "$DIR/bench_perfetto_summary.json" <<'PYEOF'
import json, statistics, sys
times, label, nbytes, drawables, summary = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
packets = next(r["imported"] for r in json.load(open(summary))["records"] if r["what"] == "packets")
rows = {}
for line in open(times):
    p = line.split()
    if len(p) == 5 and p[0].startswith(label + "-"):
        rows.setdefault(p[0], []).append((float(p[1]), float(p[2]) + float(p[3]), int(p[4])))
print(f"## {label}: {nbytes / 1e6:.1f} MB decoded, {packets} packets, {drawables} drawables")
print("%-14s %8s %8s %9s %9s %12s %12s %8s" % ("", "wall s", "cpu s", "MB/s wall", "MB/s cpu",
      "packets/s cpu", "drawables/s", "RSS MiB"))
for k in (label + "-walk", label + "-import"):
    r = rows[k]
    w = statistics.median(x[0] for x in r)
    c = statistics.median(x[1] for x in r)
    spread = "%.2f-%.2f" % (min(x[1] for x in r), max(x[1] for x in r))
    print("%-14s %8.2f %8.2f %9.1f %9.1f %12.0f %12.0f %8.1f  (cpu %s)" % (
        k, w, c, nbytes / 1e6 / w, nbytes / 1e6 / c, packets / c,
        drawables / c if k.endswith("import") else 0, max(x[2] for x in r) / 1024, spread))
PYEOF
    shift 3
done
