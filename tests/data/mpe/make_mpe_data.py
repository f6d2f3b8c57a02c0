#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# make_mpe_data.py - writes the crafted MPE inputs of tests/check_mpe.c:
# a tiny valid CLOG2 log (y_tiny.clog2, 1024-byte blocks, written here from
# FORMAT-NOTES.md) and damaged variants of it and of the corpus file
# user_states.slog2 (n_*).  Run from this directory:
#     python3 make_mpe_data.py ../../../../shared/corpus/mpe/user_states.slog2
# The expected error offsets in check_mpe.c follow from the layouts below.
import gzip
import struct
import sys

BLOCK = 1024
W, T = 2, 1


def preamble(commtable):
    fields = ["CLOG-02.44",
              "is_big_endian=", "TRUE ", "is_finalzed=", "TRUE ",
              "block_size=", str(BLOCK), "num_buffered_blocks=", "1",
              "max_comm_world_size=", str(W), "max_thread_count=", str(T),
              "known_eventID_start=", "0", "user_eventID_start=", "600",
              "known_solo_eventID_start=", "-10", "user_solo_eventID_start=", "5000",
              "known_stateID_count=", "300", "user_stateID_count=", "2",
              "known_solo_eventID_count=", "0", "user_solo_eventID_count=", "1",
              "commtable_fptr=", "0", "1073741824", str(commtable)]
    b = b"".join(f.encode() + b"\0" for f in fields)
    return b + b"\0" * (1024 - len(b))


def hdr(t, rank, rectype, icomm=0, thread=0):
    return struct.pack(">diiii", t, icomm, rank, thread, rectype)


def fixed(s, n):
    return s.encode().ljust(n, b"\0")


def statedef(t, sid, start, final, color, name, fmt):
    return hdr(t, 0, 2) + struct.pack(">iiii", sid, start, final, 0) + \
        fixed(color, 24) + fixed(name, 32) + fixed(fmt, 40)


def eventdef(t, etype, color, name, fmt):
    return hdr(t, 0, 3) + struct.pack(">ii", etype, 0) + fixed(color, 24) + \
        fixed(name, 32) + fixed(fmt, 40)


def bare(t, rank, etype):
    return hdr(t, rank, 5) + struct.pack(">ii", etype, 0)


def cargo(t, rank, etype, payload):
    return hdr(t, rank, 6) + struct.pack(">ii", etype, 0) + payload.ljust(32, b"\xee")


def msg(t, rank, etype, partner, tag, size):
    return hdr(t, rank, 7) + struct.pack(">iiiiii", etype, 0, partner, tag, size, 0)


def comm(t, rank):
    return hdr(t, rank, 9) + struct.pack(">iiii", 0, 0, rank, rank) + b"\0" * 32


def block(records, last):
    b = b"".join(records)
    end = hdr(records[-1][0:8] and struct.unpack(">d", records[-1][0:8])[0], 0, 0 if last else 1)
    b += end
    assert len(b) <= BLOCK
    return b + b"\xab" * (BLOCK - len(b))   # stale bytes after the end record


def tiny(endlog=True):
    b0 = [hdr(0.000001, 0, 11) + struct.pack(">d", -0.0),
          comm(0.000002, 0), comm(0.000003, 1),
          statedef(0.000010, 300, 600, 601, "red", "Outer", "n=%d"),
          statedef(0.000011, 301, 602, 603, "SeaGreen", "Inner", ""),
          cargo(0.001000, 0, 600, struct.pack(">i", 7)),
          bare(0.002000, 0, 602)]
    b1 = [msg(0.003000, 0, -101, 1, 5, 64),
          bare(0.003500, 0, 603),
          msg(0.004000, 1, -102, 0, 5, 0),
          cargo(0.004500, 1, 5000, struct.pack(">d", 2.5) + struct.pack(">h", 2) + b"ok"),
          bare(0.005000, 0, 601),
          eventdef(0.006000, 5000, "gold", "Mark", "v=%E s=%s")]
    data = block(b0, False) + block(b1, endlog)
    commtable = 1024 + len(data)
    table = struct.pack(">i", 1) + struct.pack(">id", 12345, 0.0) + fixed("host", 20) + \
        struct.pack(">ii", 0, 1)
    return preamble(commtable) + data + table


def put(name, data):
    with open(name, "wb") as f:
        f.write(data)


def main():
    y = tiny()
    put("y_tiny.clog2", y)
    put("n_truncated_block.clog2", y[:1024 + BLOCK + 100])      # ends inside block 1
    put("n_truncated_commtable.clog2", y[:len(y) - 10])       # ends inside the comm table
    bad = bytearray(y)
    off = 1024 + 24 + 8 + 2 * 72 + 20                          # rectype of the STATEDEF "Outer"
    assert struct.unpack(">i", bad[off:off + 4])[0] == 2
    bad[off:off + 4] = struct.pack(">i", 42)
    put("n_bad_rectype.clog2", bytes(bad))
    und = bytearray(y)
    off = 1024 + BLOCK + 48 + 24                               # etype of the BARE 603 record
    assert struct.unpack(">i", und[off:off + 4])[0] == 603
    und[off:off + 4] = struct.pack(">i", 99999)
    put("n_undefined_etype.clog2", bytes(und))
    put("n_no_endlog.clog2", tiny(endlog=False))
    put("n_trailing.clog2", y + b"junk")
    put("n_truncated.clog2.gz", gzip.compress(y, 9, mtime=0)[:300])

    s = open(sys.argv[1], "rb").read()
    put("n_truncated_node.slog2", s[:20000])
    cats, lines = struct.unpack(">qi", s[24:36]), struct.unpack(">qi", s[48:60])
    put("n_truncated_tail.slog2", s[:lines[0] + 40])
    v = bytearray(s)
    # first object of the root node: u8 kind at 146, i32 category, i16 info length
    info_len = struct.unpack(">h", v[151:153])[0]
    nv_at = 153 + info_len
    v[nv_at:nv_at + 2] = struct.pack(">h", 9)
    put("n_bad_vertex_count.slog2", bytes(v))
    # category count of the second category in the map (+1)
    c = bytearray(s)
    at = cats[0] + 4
    for i in range(2):
        start = at
        at += 4
        n = struct.unpack(">h", c[at:at + 2])[0]; at += 2 + n      # name
        at += 4 + 4 + 1 + 1                                          # topo, colour, flags, width
        k = struct.unpack(">h", c[at:at + 2])[0]; at += 2
        for _ in range(k):
            n = struct.unpack(">h", c[at:at + 2])[0]; at += 2 + n
        k = struct.unpack(">h", c[at:at + 2])[0]; at += 2 + k
        k = struct.unpack(">h", c[at:at + 2])[0]; at += 2 + 4 * k
        at += 8
        cnt = struct.unpack(">q", c[at:at + 8])[0]
        if i == 1:
            c[at:at + 8] = struct.pack(">q", cnt + 1)
            print("count of category at", start, "->", cnt + 1)
        at += 8
    put("n_count_mismatch.slog2", bytes(c))
    print("vertex count at", nv_at, "line maps at", lines[0])


main()
