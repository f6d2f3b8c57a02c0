#!/bin/sh
# SPDX-License-Identifier: MIT
#
# layering.sh - checks the #include graph against the layers of STYLE.md §2:
#   util_* (0) -> codec_* (1) -> store* (2) -> file_header*, node_format*,
#   preview* (3) -> tree_*, node_cache* (4) -> api_* (5).
# A libslog/ file includes only libslog headers of its own or a lower
# layer; <slog/slog_common.h> (data model, status codes) anywhere, the other
# public headers only in api_*; <hdf5.h> (and H5*.h) only in store_hdf5.c;
# <lz4*.h> only in codec_lz4.c.  A file whose name fits no layer is an error.
# utils/ files include only public <slog/...> headers and headers of utils/,
# never a libslog/ header, <hdf5.h> or <lz4*.h> (but slog-trace's two files
# about the traced program's HDF5: its wrappers and its lock).
# The import library (libslog/import/**), the merge library
# (libslog/merge/**) and the MPI writer (libslog/mpi/**) use only the public
# API: their files include public
# <slog/...> headers and headers of their own folder, never a libslog/ core
# header, <hdf5.h> or <lz4*.h>.
# libslog/shared/ (shared internal utilities, doc/DESIGN.md) may be included
# by every part and itself includes only its own shared_*.h headers and the
# C library: no <slog/...>, no libslog/ header, no third-party library.
#
# Usage: layering.sh [SOURCE_ROOT]      check a tree (default: this repo)
#        layering.sh --self-test        prove the checker catches violations
set -u

layer_of() { # basename -> layer number, or "?" when the name fits no layer
    case "$1" in
    util_*) echo 0 ;;
    codec_*) echo 1 ;;
    store*) echo 2 ;;
    file_header* | node_format* | preview*) echo 3 ;;
    tree_* | node_cache*) echo 4 ;;
    api_*) echo 5 ;;
    *) echo "?" ;;
    esac
}

# Print "quote|angle NAME" for each #include of a file.
includes_of() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/quote \1/p;
            s/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/angle \1/p' "$1"
}

check_tree() {
    root=$1
    bad=0
    lib="$root/libslog"
    utils="$root/utils"
    if [ ! -d "$lib" ]; then
        echo "layering: no libslog/ under $root" >&2
        return 2
    fi
    for f in "$lib"/*.c "$lib"/*.h; do
        [ -e "$f" ] || continue
        base=${f##*/}
        own=$(layer_of "$base")
        if [ "$own" = "?" ]; then
            echo "libslog/$base: file name fits no layer (util_, codec_, store, file_header, node_format, preview, tree_, node_cache, api_)"
            bad=1
            continue
        fi
        includes_of "$f" > "${TMPDIR:-/tmp}/layering.$$"
        while read -r how name; do
            hb=${name##*/}
            if [ "$how" = quote ]; then
                if [ ! -e "$lib/$hb" ] || [ "$name" != "$hb" ]; then
                    echo "libslog/$base: includes \"$name\", which is not a libslog/ header"
                    bad=1
                    continue
                fi
                theirs=$(layer_of "$hb")
                if [ "$theirs" = "?" ] || [ "$theirs" -gt "$own" ]; then
                    echo "libslog/$base (layer $own): includes \"$name\" (layer $theirs)"
                    bad=1
                fi
                continue
            fi
            case "$name" in
            slog/slog_common.h) ;;
            slog/*)
                if [ "$own" -ne 5 ]; then
                    echo "libslog/$base (layer $own): includes <$name>; only api_* may include public headers other than slog_common.h"
                    bad=1
                fi
                ;;
            hdf5.h | H5*.h | hdf5_hl.h)
                if [ "$base" != store_hdf5.c ]; then
                    echo "libslog/$base: includes <$name>; only store_hdf5.c may"
                    bad=1
                fi
                ;;
            lz4*.h)
                if [ "$base" != codec_lz4.c ]; then
                    echo "libslog/$base: includes <$name>; only codec_lz4.c may"
                    bad=1
                fi
                ;;
            *)
                if [ -e "$lib/$hb" ]; then
                    echo "libslog/$base: includes libslog header <$name> with angle brackets"
                    bad=1
                fi
                ;;
            esac
        done < "${TMPDIR:-/tmp}/layering.$$"
        rm -f "${TMPDIR:-/tmp}/layering.$$"
    done
    if [ -d "$utils" ]; then
        find "$utils" -name '*.[ch]' | sort > "${TMPDIR:-/tmp}/layering_u.$$"
        while read -r f; do
            rel=${f#"$root"/}
            dir=$(dirname "$f")
            includes_of "$f" > "${TMPDIR:-/tmp}/layering.$$"
            while read -r how name; do
                hb=${name##*/}
                if [ "$how" = quote ]; then
                    if [ -e "$lib/$hb" ] && [ ! -e "$dir/$name" ] && [ ! -e "$utils/common/$name" ]; then
                        echo "$rel: includes libslog internal header \"$name\""
                        bad=1
                    else
                        case "$(cd "$dir" && realpath -m "$name")" in
                        "$(realpath -m "$lib")"/*)
                            echo "$rel: includes libslog internal header \"$name\""
                            bad=1
                            ;;
                        esac
                    fi
                    continue
                fi
                case "$name" in
                slog/slog.h | slog/slog_common.h | slog/slog_reader.h | slog/slog_writer.h | \
                    slog/slog_import.h | slog/slog_thread.h | slog/slog_merge.h | slog/slog_index.h) ;;
                slog/*)
                    echo "$rel: includes <$name>, which is not a public header"
                    bad=1
                    ;;
                hdf5.h | H5*.h | hdf5_hl.h | lz4*.h)
                    case "$rel" in
                    # slog-trace wraps the traced program's HDF5 calls and
                    # takes HDF5's lock around its flush: the program's
                    # library, not libslog's storage
                    utils/slog-trace/trace_hdf5_calls.c | utils/slog-trace/trace_hdf5_lock.c) ;;
                    *)
                        echo "$rel: includes <$name>; tools use the public API, not the storage libraries"
                        bad=1
                        ;;
                    esac
                    ;;
                *)
                    if [ -e "$lib/$hb" ]; then
                        echo "$rel: includes libslog internal header <$name>"
                        bad=1
                    fi
                    ;;
                esac
            done < "${TMPDIR:-/tmp}/layering.$$"
            rm -f "${TMPDIR:-/tmp}/layering.$$"
        done < "${TMPDIR:-/tmp}/layering_u.$$"
        rm -f "${TMPDIR:-/tmp}/layering_u.$$"
    fi
    # libslog/python (the slog extension module): the public API only.
    for f in "$lib"/python/*.c "$lib"/python/*.h; do
        [ -e "$f" ] || continue
        rel=${f#"$root"/}
        includes_of "$f" > "${TMPDIR:-/tmp}/layering.$$"
        while read -r how name; do
            hb=${name##*/}
            if [ "$how" = quote ] && { [ "$name" != "$hb" ] || [ ! -e "$lib/python/$name" ]; }; then
                echo "$rel: includes \"$name\", which is not a header of libslog/python"
                bad=1
            elif [ "$how" = angle ]; then
                case "$name" in
                slog/*) [ -e "$root/include/$name" ] || { echo "$rel: includes <$name>, which is not a public header"; bad=1; } ;;
                hdf5.h | H5*.h | hdf5_hl.h | lz4*.h) echo "$rel: includes <$name>; the module uses the public API"; bad=1 ;;
                *) if [ -e "$lib/$hb" ]; then echo "$rel: includes libslog internal header <$name>"; bad=1; fi ;;
                esac
            fi
        done < "${TMPDIR:-/tmp}/layering.$$"
        rm -f "${TMPDIR:-/tmp}/layering.$$"
    done
    check_public_lib "$root" import || bad=1
    check_public_lib "$root" merge || bad=1
    check_public_lib "$root" mpi || bad=1
    check_shared "$root" || bad=1
    return $bad
}

# libslog/import/** and libslog/merge/**: public headers and their own headers only.
check_public_lib() {
    root=$1
    imp="$root/libslog/$2"
    [ -d "$imp" ] || return 0
    ibad=0
    find "$imp" -name '*.[ch]' | sort > "${TMPDIR:-/tmp}/layering_i.$$"
    while read -r f; do
        rel=${f#"$root"/}
        includes_of "$f" > "${TMPDIR:-/tmp}/layering.$$"
        while read -r how name; do
            hb=${name##*/}
            if [ "$how" = quote ]; then
                if [ -z "$(find "$imp" -name "$hb" -print -quit)" ] || [ -e "$root/libslog/$hb" ]; then
                    echo "$rel: includes \"$name\", which is not a header of libslog/$2/"
                    ibad=1
                fi
                continue
            fi
            case "$name" in
            slog/slog.h | slog/slog_common.h | slog/slog_reader.h | slog/slog_writer.h | \
                slog/slog_import.h | slog/slog_stats.h | slog/slog_search.h | slog/slog_merge.h | \
                slog/slog_mpi.h | slog/slog_index.h) ;;
            slog/*)
                echo "$rel: includes <$name>, which is not a public header"
                ibad=1
                ;;
            hdf5.h | H5*.h | hdf5_hl.h | lz4*.h)
                echo "$rel: includes <$name>; the $2 library uses the public API"
                ibad=1
                ;;
            *)
                if [ -e "$root/libslog/$hb" ]; then
                    echo "$rel: includes libslog internal header <$name>"
                    ibad=1
                fi
                ;;
            esac
        done < "${TMPDIR:-/tmp}/layering.$$"
        rm -f "${TMPDIR:-/tmp}/layering.$$"
    done < "${TMPDIR:-/tmp}/layering_i.$$"
    rm -f "${TMPDIR:-/tmp}/layering_i.$$"
    return $ibad
}

# libslog/shared/: its own headers and the C library (and POSIX) only.
check_shared() {
    shared="$1/libslog/shared"
    [ -d "$shared" ] || return 0
    sbad=0
    for f in "$shared"/*.c "$shared"/*.h; do
        [ -e "$f" ] || continue
        while read -r how name; do
            case "$how $name" in
            "quote shared_"*.h | "angle shared_"*.h) ;;
            angle\ slog/* | angle\ hdf5* | angle\ H5* | angle\ lz4* | angle\ yajl* | angle\ otf2* | angle\ zlib.h)
                echo "libslog/shared/$(basename "$f"): includes <$name>; shared utilities use the C library only"
                sbad=1
                ;;
            quote\ *)
                echo "libslog/shared/$(basename "$f"): includes \"$name\", which is not a shared_*.h header"
                sbad=1
                ;;
            esac
        done <<EOF2
$(includes_of "$f")
EOF2
    done
    return $sbad
}

self_test() {
    t=$(mktemp -d "${TMPDIR:-/tmp}/layering_self.XXXXXX") || exit 2
    fails=0
    mk() { # make a clean tree
        rm -rf "$t/r"
        mkdir -p "$t/r/libslog/import/core" "$t/r/utils/common" "$t/r/utils/tool"
        printf '#include <stddef.h>\n' > "$t/r/libslog/util_buf.h"
        printf '#include "util_buf.h"\n#include <slog/slog_common.h>\n' > "$t/r/libslog/store.h"
        printf '#include "store.h"\n#include <hdf5.h>\n' > "$t/r/libslog/store_hdf5.c"
        printf '#include <lz4.h>\n#include "util_buf.h"\n' > "$t/r/libslog/codec_lz4.c"
        printf '#include "store.h"\n' > "$t/r/libslog/tree_walk.h"
        printf '#include "tree_walk.h"\n#include <slog/slog_reader.h>\n' > "$t/r/libslog/api_query.c"
        printf '#include <stdio.h>\n' > "$t/r/utils/common/units.h"
        printf '#include "units.h"\n#include <slog/slog.h>\n' > "$t/r/utils/tool/main.c"
        printf '#include <slog/slog_import.h>\n' > "$t/r/libslog/import/core/importer.h"
        printf '#include "importer.h"\n#include <zlib.h>\n' > "$t/r/libslog/import/core/run.c"
    }
    expect() { # expect STATUS DESCRIPTION
        check_tree "$t/r" > "$t/out" 2>&1
        got=$?
        if [ "$1" = fail ] && [ $got -eq 0 ]; then
            echo "self-test: not caught: $2"
            fails=1
        elif [ "$1" = pass ] && [ $got -ne 0 ]; then
            echo "self-test: clean tree rejected: $(cat "$t/out")"
            fails=1
        fi
    }
    mk; expect pass "clean tree"
    mk; printf '#include "tree_walk.h"\n' >> "$t/r/libslog/store.h"; expect fail "store includes tree"
    mk; printf '#include "api_query.c"\n' >> "$t/r/libslog/tree_walk.h"; expect fail "tree includes api"
    mk; printf '#include <hdf5.h>\n' >> "$t/r/libslog/tree_walk.h"; expect fail "hdf5.h outside store_hdf5.c"
    mk; printf '#include <lz4.h>\n' >> "$t/r/libslog/store_hdf5.c"; expect fail "lz4.h outside codec_lz4.c"
    mk; printf '#include <slog/slog_reader.h>\n' >> "$t/r/libslog/tree_walk.h"; expect fail "public reader header in tree"
    mk; printf 'int x;\n' > "$t/r/libslog/misc.c"; expect fail "file without a layer"
    mk; printf '#include "store.h"\n' >> "$t/r/utils/tool/main.c"; expect fail "tool includes store.h"
    mk; printf '#include "../../libslog/store.h"\n' >> "$t/r/utils/tool/main.c"; expect fail "tool includes ../../libslog/store.h"
    mk; printf '#include <hdf5.h>\n' >> "$t/r/utils/tool/main.c"; expect fail "tool includes hdf5.h"
    mk; printf '#include <slog/internal.h>\n' >> "$t/r/utils/tool/main.c"; expect fail "tool includes a non-public slog header"
    mk; mkdir -p "$t/r/libslog/python"; printf '#include "../store.h"\n' > "$t/r/libslog/python/py_x.c"; expect fail "python module includes store.h"
    mk; printf '#include "store.h"\n' >> "$t/r/libslog/import/core/run.c"; expect fail "import library includes store.h"
    mk; printf '#include "../../util_buf.h"\n' >> "$t/r/libslog/import/core/run.c"; expect fail "import library includes ../../util_buf.h"
    mk; printf '#include <hdf5.h>\n' >> "$t/r/libslog/import/core/run.c"; expect fail "import library includes hdf5.h"
    mk; printf '#include <slog/internal.h>\n' >> "$t/r/libslog/import/core/run.c"; expect fail "import library includes a non-public slog header"
    mk; mkdir -p "$t/r/libslog/merge"; printf '#include <slog/slog_merge.h>\n#include <shared_grow.h>\n' > "$t/r/libslog/merge/merge_api.c"; expect pass "merge library includes the public API"
    mk; mkdir -p "$t/r/libslog/merge"; printf '#include "store.h"\n' > "$t/r/libslog/merge/merge_api.c"; expect fail "merge library includes store.h"
    mk; mkdir -p "$t/r/libslog/merge"; printf '#include <hdf5.h>\n' > "$t/r/libslog/merge/merge_api.c"; expect fail "merge library includes hdf5.h"
    mk; mkdir -p "$t/r/libslog/mpi"; printf '#include <mpi.h>\n#include <slog/slog_mpi.h>\n#include <slog/slog_merge.h>\n' > "$t/r/libslog/mpi/mw_writer.c"; expect pass "MPI writer includes mpi.h and the public API"
    mk; mkdir -p "$t/r/libslog/mpi"; printf '#include "util_buf.h"\n' > "$t/r/libslog/mpi/mw_writer.c"; expect fail "MPI writer includes util_buf.h"
    mk; mkdir -p "$t/r/libslog/shared"; printf '#include <stdlib.h>\n' > "$t/r/libslog/shared/shared_grow.h"
    printf '#include <shared_grow.h>\n' >> "$t/r/utils/tool/main.c"; expect pass "tool includes a shared utility"
    printf '#include "util_buf.h"\n' >> "$t/r/libslog/shared/shared_grow.h"; expect fail "shared includes a libslog header"
    mk; mkdir -p "$t/r/libslog/shared"; printf '#include <slog/slog.h>\n' > "$t/r/libslog/shared/shared_map.c"
    expect fail "shared includes a public slog header"
    rm -rf "$t"
    [ $fails -eq 0 ] && echo "layering self-test: ok"
    return $fails
}

if [ "${1:-}" = --self-test ]; then
    self_test
    exit $?
fi
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
check_tree "$root"
status=$?
[ $status -eq 0 ] && echo "layering: ok"
exit $status
