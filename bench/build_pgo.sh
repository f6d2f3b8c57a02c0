#!/bin/sh
# SPDX-License-Identifier: MIT
#
# build_pgo.sh - a production build of libslog and its tools: release (-O3),
# link-time optimisation, and the compiler's profile feedback (meson's
# b_pgo: GCC -fprofile-generate, then -fprofile-use).  The profile is
# trained on the real traces of the corpus only - every Chrome/.pfw file the
# corpus test lists, the OTF2 archives, the MPE and Recorder traces - and on
# slog-info and slog-query over what they give; never on the benchmark's
# generated trace, so the benchmark measures the build out of sample.
#
#   build_pgo.sh SOURCE_DIR BUILD_DIR [CORPUS_DIR]
#
# CORPUS_DIR defaults to SOURCE_DIR/../shared/corpus.  Meson and the
# dependencies must be installed (.ci/setup does it).
set -eu
SRC=$(cd "$1" && pwd)
BUILD=$2
CORPUS=${3:-$SRC/../shared/corpus}
[ -d "$CORPUS" ] || { echo "build_pgo.sh: no corpus at $CORPUS" >&2; exit 1; }

# Files compiled but never run while training (the static library copy, the
# tools' other paths) have no profile: that is expected, not an error.
meson setup "$BUILD" "$SRC" --buildtype=release -Db_lto=true -Db_pgo=generate \
    -Dtests=disabled -Dc_args=-Wno-missing-profile
ninja -C "$BUILD"

IMPORT=$BUILD/utils/slog-import/slog-import
INFO=$BUILD/utils/slog-info/slog-info
QUERY=$BUILD/utils/slog-query/slog-query
WORK=$(mktemp -d /tmp/build_pgo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The training inputs: one path per line.
python3 - "$SRC/tests/data/chrome/corpus_counts.json" "$CORPUS" > "$WORK/inputs" <<'PYEOF'
import json, os, sys
counts = json.load(open(sys.argv[1]))['counts']
corpus = sys.argv[2]
for rel in sorted(counts):
    print(os.path.join(corpus, rel))
PYEOF
find "$CORPUS" -name '*.otf2' -o -name '*.clog2' -o -name '*.slog2' | sort >> "$WORK/inputs"
for d in "$CORPUS"/recorder/*; do   # trace folders, not the text dumps beside them
    case $d in *.recorder2text) continue ;; esac
    [ -d "$d" ] && echo "$d" >> "$WORK/inputs"
done

n=0 failed=0
while IFS= read -r input; do
    n=$((n + 1))
    out=$WORK/train.slog
    case $input in
        */) set -- "$input"* ;;   # a run written as one file per process
        *) set -- "$input" ;;
    esac
    if "$IMPORT" --quiet --no-progress -o "$out" "$@" > /dev/null 2>&1; then
        "$INFO" "$out" > /dev/null 2>&1 || true
        "$QUERY" "$out" --format jsonl > /dev/null 2>&1 || true
        "$QUERY" "$out" --format chrome > /dev/null 2>&1 || true
    else
        failed=$((failed + 1))
        echo "build_pgo.sh: not imported (a broken file is expected to fail): $input"
    fi
done < "$WORK/inputs"
echo "build_pgo.sh: trained on $n corpus inputs ($failed did not import)"

meson configure "$BUILD" -Db_pgo=use
ninja -C "$BUILD"
echo "build_pgo.sh: profile-optimised build in $BUILD"
