#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# interop_lz4.sh STORE_TOOL - filter 32004 interoperability, TAP output.
#   1. h5dump, through Debian's LZ4 plugin, dumps the same /payload bytes
#      that store_read_blob returns;
#   2-5. files rewritten by h5repack (UD=32004 through the plugin, NONE,
#      GZIP, another chunk size) still read identically through the store;
#   6. h5py, without any plugin, reads the root attributes and every table,
#      and every node row's chunk addresses (format 4) are where HDF5's own
#      chunk index puts the chunks;
#   7. h5dump, without any plugin, reads the deflated /strings (doc/FORMAT.md
#      §4, §8).
# A missing tool or plugin gives a TAP skip, never a failure.
set -u
tool=${1:?usage: interop_lz4.sh STORE_TOOL}
plugins=${SLOG_LZ4_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins}
python=${SLOG_PYTHON:-/usr/bin/python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/interop_lz4.XXXXXX")
trap 'rm -rf "$work"' EXIT

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

echo "1..7"
f="$work/t.slog"
if ! "$tool" write "$f" 4096 || ! "$tool" check "$f"; then
    echo "Bail out! store_tool could not write and read back its own file"
    exit 1
fi

have_plugin=no
[ -e "$plugins/libh5lz4.so" ] && have_plugin=yes

# 1. h5dump through the plugin == store_read_blob.
if ! command -v h5dump >/dev/null; then
    skip "h5dump with Debian's plugin matches store_read_blob" "h5dump not installed (hdf5-tools)"
elif [ "$have_plugin" = no ]; then
    skip "h5dump with Debian's plugin matches store_read_blob" "no $plugins/libh5lz4.so (hdf5-filter-plugin)"
elif HDF5_PLUGIN_PATH="$plugins" h5dump -d /payload -b LE -o "$work/h5dump.bin" "$f" >/dev/null &&
     "$tool" payload "$f" "$work/store.bin" && cmp -s "$work/h5dump.bin" "$work/store.bin"; then
    ok "h5dump with Debian's plugin matches store_read_blob"
else
    notok "h5dump with Debian's plugin matches store_read_blob"
fi

# 2-5. h5repack rewrites; the plugin encodes UD=32004 (h5repack has no
# libslog inside), the store decodes with its own LZ4_decompress_safe.
repack() { # name, needs plugin?, h5repack args...
    local name=$1 need=$2
    shift 2
    local out="$work/repack.slog"
    rm -f "$out"
    if ! command -v h5repack >/dev/null; then
        skip "$name" "h5repack not installed (hdf5-tools)"
    elif [ "$need" = yes ] && [ "$have_plugin" = no ]; then
        skip "$name" "no $plugins/libh5lz4.so (hdf5-filter-plugin)"
    elif HDF5_PLUGIN_PATH="$plugins" h5repack "$@" "$f" "$out" && "$tool" check "$out"; then
        ok "$name"
    else
        notok "$name"
    fi
}
repack "h5repack -f /payload:UD=32004,0,1,65536 reads identically" yes -f /payload:UD=32004,0,1,65536
repack "h5repack -f /payload:NONE reads identically (raw chunks)" yes -f /payload:NONE
repack "h5repack -f /payload:GZIP=1 reads identically (HDF5 pipeline)" yes -f /payload:GZIP=1
repack "h5repack -l /payload:CHUNK=1000 reads identically (other chunk size)" yes -l /payload:CHUNK=1000

# 6. h5py alone (no plugin path) reads everything but /payload.
if ! "$python" -c 'import h5py' 2>/dev/null; then
    skip "h5py reads attributes and tables without plugins" "no h5py for $python (python3-h5py)"
elif env -u HDF5_PLUGIN_PATH "$python" - "$f" <<'EOF'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    a = f.attrs
    assert a["slog_magic"] == b"libslog", a["slog_magic"]
    assert int(a["format_read_version"]) == 3 and int(a["format_write_version"]) == 4
    assert int(a["ticks_per_second"]) == 1000000000
    assert int(a["chunk_bytes"]) == 4096
    assert a["creator"] == b"store_tool"
    s = bytes(f["strings"][:])
    assert s.split(b"\0")[:2] == [b"host0", b"rank 0"], s
    t = f["timelines"][:]
    assert list(t["id"]) == [0, 1, 2] and list(t["parent"])[1:] == [0, 1], t
    assert s[t["name"][2]:].split(b"\0")[0] == b"thread 1"
    c = f["categories"][:]
    assert list(c["rgba"]) == [0xff0000ff, 0x00ff00ff] and c["group"][0] == 2**64 - 1, c
    nodes = f["nodes"][:]
    assert len(nodes) == 12 and nodes["counts"].shape == (12, 4), nodes.dtype
    assert nodes.dtype.itemsize == 168 and "row_crc" in nodes.dtype.names, nodes.dtype
    # format 4: each blob's chunk address, as HDF5's own chunk index says
    # (0 = unknown: the writer could not tell, e.g. the first chunk, which
    # HDF5 places after the chunk index it creates then, or chunks not laid
    # end to end); most are known, and every known one is right
    pay = f["payload"].id
    known = blobs = 0
    for r in nodes:
        for b in ("payload", "preview"):
            blobs += r[b + "_len"] > 0
            if r[b + "_len"] > 0 and r[b + "_addr"] != 0:
                info = pay.get_chunk_info_by_coord((int(r[b + "_off"]),))
                assert r[b + "_addr"] == info.byte_offset, (b, r, info)
                assert r[b + "_len"] > 4096 or r[b + "_zlen"] == info.size, (b, r, info)
                known += 1
    assert 2 * known >= blobs, (known, blobs)
    assert all(nodes["row_crc"] != 0) and "crc" in t.dtype.names, nodes["row_crc"]
    assert list(nodes["payload_off"][:4]) == [0, 4096, 8192, 12288], nodes["payload_off"]
    sm = f["summary"][0]
    assert sm["complete"] == 1 and sm["nodes"] == 12, sm
EOF
then
    ok "h5py reads attributes and tables without plugins"
else
    notok "h5py reads attributes and tables without plugins"
fi

# 7. /strings goes through HDF5's built-in deflate filter: no plugin needed.
if ! command -v h5dump >/dev/null; then
    skip "h5dump reads the deflated /strings without plugins" "h5dump not installed (hdf5-tools)"
elif env -u HDF5_PLUGIN_PATH h5dump -p -H -d /strings "$f" | grep -q 'COMPRESSION DEFLATE' &&
     env -u HDF5_PLUGIN_PATH h5dump -d /strings -b LE -o "$work/strings.bin" "$f" >/dev/null &&
     printf 'host0\0rank 0\0thread 1\0MPI_Send\0compute\0\0' | cmp -s - "$work/strings.bin"; then
    ok "h5dump reads the deflated /strings without plugins"
else
    notok "h5dump reads the deflated /strings without plugins"
fi
