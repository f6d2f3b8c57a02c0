#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# corpus_size.sh - file size of real traces (issue 11 item 7): every
# Chrome/.pfw file of the shared corpus (the files of
# tests/data/chrome/corpus_counts.json plus dftracer/cm1_1_48/*.pfw.gz) whose
# JSON is at least 200 000 bytes, imported with slog-import; prints one row
# per file (file, json bytes, gzip -6 bytes, slog bytes, slog/gzip) and the
# median ratio.  With --quick only the files named in QUICK (a fast subset
# for CI: three of the DFTracer files that set the median, two Chrome
# traces) and a check that their median is at most --max (default 0.5).
# Exit 0, 1 when --max is given and the median is above it, 77 without the
# corpus.
#
# Usage: bench/corpus_size.sh SLOG_IMPORT [--quick] [--max R] [--corpus DIR] [--list FILE]
set -u
import=${1:?usage: corpus_size.sh SLOG_IMPORT [--quick] [--max R] [--corpus DIR]}
shift
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../shared/corpus"
list="$here/../tests/data/chrome/corpus_counts.json"
quick=no
max=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=yes ;;
    --max) max=$2; shift ;;
    --corpus) corpus=$2; shift ;;
    --list) list=$2; shift ;;
    *) echo "corpus_size.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$max" ] || { [ $quick = yes ] && max=0.5; }
if [ ! -d "$corpus" ]; then
    echo "corpus_size.sh: no corpus at $corpus" >&2
    exit 77
fi
QUICK="catapult/flow.json hta/nccl_parser_config__nccl_data.json.gz
dftracer/cm1_1_48/cm1-DEFAULT-3537780-preload.pfw.gz dftracer/cm1_1_48/cm1-DEFAULT-3537801-preload.pfw.gz
dftracer/cm1_1_48/cm1-DEFAULT-3537822-preload.pfw.gz"
work=$(mktemp -d "${TMPDIR:-/tmp}/corpus_size.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $quick = yes ]; then
    files=$QUICK
else
    files=$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["counts"]))' "$list"
            (cd "$corpus" && ls dftracer/cm1_1_48/*.pfw.gz))
fi

# The JSON text of a corpus file on stdout (gzip or zip unpacked).
json_of() {
    case $1 in
    *.gz) gzip -dc "$1" ;;
    *.zip) unzip -p "$1" ;;
    *) cat "$1" ;;
    esac
}

printf '%-64s %12s %10s %10s %7s\n' file json_bytes gzip6 slog ratio
: >"$work/ratios"
for f in $files; do
    p="$corpus/$f"
    [ -f "$p" ] || continue
    json_of "$p" >"$work/in.json" 2>/dev/null || continue
    jb=$(stat -c %s "$work/in.json")
    [ "$jb" -ge 200000 ] || continue
    gz=$(gzip -6 -c "$work/in.json" | wc -c)
    rm -f "$work/out.slog"
    if ! "$import" -q "$p" -o "$work/out.slog" >/dev/null 2>&1; then
        printf '%-64s %12s %10s %10s %7s\n' "$f" "$jb" "$gz" "-" "failed"
        continue
    fi
    sb=$(stat -c %s "$work/out.slog")
    ratio=$(awk -v s="$sb" -v g="$gz" 'BEGIN { printf "%.3f", s / g }')
    printf '%-64s %12s %10s %10s %7s\n' "$f" "$jb" "$gz" "$sb" "$ratio"
    echo "$ratio" >>"$work/ratios"
done
n=$(wc -l <"$work/ratios")
median=$(sort -n "$work/ratios" | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "files: $n  median slog/gzip-6: $median"
if [ -n "$max" ] && awk -v r="$median" -v m="$max" 'BEGIN { exit !(r > m) }'; then
    echo "corpus_size.sh: above $max" >&2
    exit 1
fi
exit 0
