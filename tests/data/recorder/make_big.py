#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# make_big.py OUTDIR [RANKS] [REPEATS] - writes a large synthetic Recorder
# 2.4.0 trace folder for throughput measurements (not used by the tests).
# Each rank repeats REPEATS times a call block with nesting (an MPI-IO call
# at depth 0 with a pwrite at depth 1, then write x8 and an MPI_Barrier on
# MPI_COMM_WORLD), so it records 11 x REPEATS calls.  The function table
# and header are taken from the corpus' posix_mpi-v2.4.0 trace.
import array, os, random, shutil, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get('SLOG_CORPUS',
                        os.path.join(HERE, '..', '..', '..', '..', 'shared', 'corpus'))
out = sys.argv[1]
ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 8
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
os.makedirs(out, exist_ok=True)
src = os.path.join(CORPUS, 'recorder', 'posix_mpi-v2.4.0')
shutil.copyfile(os.path.join(src, 'VERSION'), os.path.join(out, 'VERSION'))
mt = bytearray(open(os.path.join(src, 'recorder.mt'), 'rb').read())
struct.pack_into('<i', mt, 0, ranks)
open(os.path.join(out, 'recorder.mt'), 'wb').write(mt)
names = mt[40:].decode().split('\n')
fid = {n: i for i, n in reversed(list(enumerate(names)))}


def key(func, depth, args):
    a = ''.join(x + ' ' for x in args).encode()
    return struct.pack('<QBBBi', 0, fid[func], depth, len(args), len(a)) + a


rng = random.Random(1)
for r in range(ranks):
    path = '/data/file%d.dat' % r
    sigs = [key('MPI_File_write_at', 0, ['0-1', str(4096 * r), '%p', '4096', 'MPI_BYTE', '[0_0]']),
            key('pwrite', 1, [path, '%p', '4096', str(4096 * r)]),
            key('write', 0, [path, '%p', '4096']),
            key('MPI_Barrier', 0, ['MPI_COMM_WORLD'])]
    cst = struct.pack('<i', len(sigs))
    for t, k in enumerate(sigs):
        cst += struct.pack('<iiiI', t, r, len(k), repeats) + k
    open(os.path.join(out, '%d.cst' % r), 'wb').write(cst)
    # rule -2: (MPI_File_write_at, pwrite, write x8, barrier); root: -2 x repeats
    cfg = struct.pack('<7i', 2, -1, 1, -2, repeats, -2, 4) + \
        struct.pack('<8i', 0, 1, 1, 1, 2, 8, 3, 1)
    open(os.path.join(out, '%d.cfg' % r), 'wb').write(cfg)
    ts = array.array('I')
    for _ in range(repeats):
        d = rng.randrange(5, 50)
        ts.extend((d, d + 60))             # MPI_File_write_at: [d, d+60)
        ts.extend((10, 40))                # pwrite inside it, 10 ticks later
        ts.extend((55, 55 + rng.randrange(3, 20)))   # first write after the MPI call
        for _ in range(7):
            ts.extend((rng.randrange(20, 30), 20 + rng.randrange(20, 30)))
        ts.extend((30, 30 + rng.randrange(10, 400)))  # barrier
    ts.byteswap() if sys.byteorder == 'big' else None
    open(os.path.join(out, '%d.ts' % r), 'wb').write(ts.tobytes())
print('%d ranks x %d records' % (ranks, 11 * repeats))
