# SPDX-License-Identifier: MIT
# damage.py IN OUT WHAT [N] - a copy of IN with one byte changed, located by
# $H5MAP: WHAT = payload (the N-th /payload chunk's byte 100) or row (byte 10
# of /nodes row N); the helper of the slog-check cli cases.
import os
import subprocess
import sys

src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 0
regions = [l.split() for l in subprocess.check_output([os.environ["H5MAP"], src]).decode().splitlines()]
data = bytearray(open(src, "rb").read())
if what == "payload":
    chunks = [r for r in regions if r[0] == "chunk" and r[3] == "payload"]
    at = int(chunks[n][1]) + 100
else:
    chunks = [r for r in regions if r[0] == "chunk" and r[3] == "nodes"]
    rows_per_chunk = 16  # doc/FORMAT.md §3: 16 rows per chunk (168 bytes each in format 4)
    row = int(chunks[0][2]) // rows_per_chunk
    at = int(chunks[n // rows_per_chunk][1]) + (n % rows_per_chunk) * row + 10
data[at] ^= 0x40
open(dst, "wb").write(bytes(data))
