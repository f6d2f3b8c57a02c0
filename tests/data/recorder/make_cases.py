#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# make_cases.py - regenerates the Recorder test folders n_*/ (damaged) and
# y_*/ (layouts without a corpus sample) from
# the corpus (../shared/corpus/recorder).  Each folder gets an `expect` file
# with the error code, the file inside the folder, the byte offset and a
# substring of the message that check_recorder.c asserts.  The offsets are
# derived here from the layout (FORMAT-NOTES.md), not copied from a run.
import os, shutil, struct, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get('SLOG_CORPUS',
                        os.path.join(HERE, '..', '..', '..', '..', 'shared', 'corpus'))
SRC = os.path.join(CORPUS, 'recorder')


def clone(case, trace):
    d = os.path.join(HERE, case)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(SRC, trace), d)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)
    os.chmod(d, 0o755)
    return d


def rd(d, name):
    with open(os.path.join(d, name), 'rb') as f:
        return bytearray(f.read())


def wr(d, name, data):
    with open(os.path.join(d, name), 'wb') as f:
        f.write(bytes(data))


def expect(d, code, file, offset, text):
    wr(d, 'expect', ('code=%s\nfile=%s\noffset=%s\ntext=%s\n' %
                     (code, file, offset, text)).encode())


# A 3.x folder: refused by version, before any other file is read.
d = clone('n_version_3', 'posix_mpi')
wr(d, 'VERSION', b'3.0.0')
expect(d, 'SLOG_EVERSION', 'VERSION', 0, 'version 3.0.0 is not supported')

# recorder.ts cut: the last rank's chunk runs past the end of the file.
d = clone('n_ts_truncated', 'posix_mpi')
ts = rd(d, 'recorder.ts')
sizes = struct.unpack_from('<4Q', ts)
cut = len(ts) - 39
last_start = 32 + sum(sizes[:3])
assert last_start < cut
wr(d, 'recorder.ts', ts[:cut])
expect(d, 'SLOG_ECORRUPT', 'recorder.ts', cut,
       "rank 3's chunk needs bytes [%d, %d)" % (last_start, last_start + sizes[3]))

# recorder.cst: the zlib stream's adler32 trailer (last 4 bytes) is wrong;
# zlib notices after reading the whole trailer, i.e. at the end of the file.
d = clone('n_cst_zlib_corrupt', 'posix_mpi')
cst = rd(d, 'recorder.cst')
cst[-1] ^= 0xff
wr(d, 'recorder.cst', cst)
expect(d, 'SLOG_ECORRUPT', 'recorder.cst', len(cst), 'incorrect data check')

# 2.4 per-rank grammar cut to 200 bytes: a rule's symbols run past the end,
# reported at the end of what is there.
d = clone('n_cfg_truncated_v24', 'posix_mpi-v2.4.0')
cfg = rd(d, '2.cfg')
wr(d, '2.cfg', cfg[:200])
expect(d, 'SLOG_ECORRUPT', '2.cfg', 200, 'Truncated grammar')

# recorder.mt shorter than its 40-byte header.
d = clone('n_mt_truncated', 'posix_mpi')
wr(d, 'recorder.mt', rd(d, 'recorder.mt')[:30])
expect(d, 'SLOG_ECORRUPT', 'recorder.mt', 30, 'Truncated header')

# 2.4 grammar of rank 0 with a cycle: the first symbol of rule -2 is made
# to refer to rule -3, and rule -3 refers to rule -2.
d = clone('n_grammar_cycle', 'posix_mpi-v2.4.0')
cfg = rd(d, '0.cfg')
v = list(struct.unpack('<%di' % (len(cfg) // 4), cfg))
pos, rules = 1, {}
for _ in range(v[0]):
    rules[v[pos]] = pos
    pos += 2 + 2 * v[pos + 1]
r2, r3 = rules[-2], rules[-3]
assert -2 in v[r3 + 2:r3 + 2 + 2 * v[r3 + 1]:2], 'rule -3 should use rule -2'
v[r2 + 2] = -3
wr(d, '0.cfg', struct.pack('<%di' % len(v), *v))
# The DFS from the root meets the back edge at the first symbol of rule -2
# (root -> -3 -> -2 -> -3), which is where the error points.
expect(d, 'SLOG_ECORRUPT', '0.cfg', (r2 + 2) * 4, 'expands into it again')

# 2.4 timestamps of rank 1 with one pair too many.
d = clone('n_ts_extra_pair_v24', 'posix_mpi-v2.4.0')
ts = rd(d, '1.ts')
wr(d, '1.ts', ts + b'\x01\x00\x00\x00\x02\x00\x00\x00')
expect(d, 'SLOG_ECORRUPT', '1.ts', len(ts),
       'has %d records but %d bytes' % (len(ts) // 8, len(ts) + 8))

# 2.4 folder without rank 3's timestamps.
d = clone('n_missing_ts_v24', 'posix_mpi-v2.4.0')
os.unlink(os.path.join(d, '3.ts'))
expect(d, 'SLOG_EIO', '3.ts', 'none', 'Cannot open the file')

# ug.mt says rank 2 uses unique grammar 7 of 4.
d = clone('n_ugmt_bad_ugid', 'posix_mpi')
ug = rd(d, 'ug.mt')
struct.pack_into('<i', ug, 8, 7)
wr(d, 'ug.mt', ug)
expect(d, 'SLOG_ECORRUPT', 'ug.mt', 8, 'Rank 2 uses grammar 7')

# 2.4 CST of rank 0: first entry's func_id (key byte 8) set past the table.
d = clone('n_cst_func_id', 'posix_mpi-v2.4.0')
cst = rd(d, '0.cst')
cst[4 + 16 + 8] = 250
wr(d, '0.cst', cst)
expect(d, 'SLOG_ECORRUPT', '0.cst', 4 + 16 + 8, 'Function id 250')


# ---------------------------------------------------------------------------
# y_* folders: layouts the corpus has no sample of, built from a corpus trace
# by the rules of FORMAT-NOTES.md.  `expect` names the corpus trace whose
# decoded.txt they must reproduce (same_as) plus records they add (extra).

def cfg_rules(data):
    v = list(struct.unpack('<%di' % (len(data) // 4), data))
    rules, pos = [], 1
    for _ in range(v[0]):
        rid, n = v[pos], v[pos + 1]
        rules.append((rid, [(v[pos + 2 + 2 * k], v[pos + 3 + 2 * k]) for k in range(n)]))
        pos += 2 + 2 * n
    return rules


def cfg_bytes(rules):
    v = [len(rules)]
    for rid, syms in rules:
        v += [rid, len(syms)]
        for val, ex in syms:
            v += [val, ex]
    return struct.pack('<%di' % len(v), *v)


def cst_entries(data):
    n = struct.unpack_from('<i', data)[0]
    out, pos = [], 4
    for _ in range(n):
        term, rank, klen, count = struct.unpack_from('<iiiI', data, pos)
        out.append((term, rank, count, bytes(data[pos + 16:pos + 16 + klen])))
        pos += 16 + klen
    return out


def cst_bytes(entries):
    b = struct.pack('<i', len(entries))
    for term, rank, count, key in entries:
        b += struct.pack('<iiiI', term, rank, len(key), count) + key
    return b


# 2.4 with interprocess compression (RECORDER_INTERPROCESS_COMPRESSION=1):
# merged 0.cst with global terminal ids, unique grammars <ugid>.cfg, ug.mt.
d = clone('y_v24_interprocess', 'posix_mpi-v2.4.0')
mt = rd(d, 'recorder.mt')
nranks = struct.unpack_from('<i', mt)[0]
struct.pack_into('<i', mt, 32, 1)
wr(d, 'recorder.mt', mt)
merged, index, grammars = [], {}, []
for r in range(nranks):
    local = {}
    for term, _, count, key in cst_entries(rd(d, '%d.cst' % r)):
        if key not in index:
            index[key] = len(merged)
            merged.append([index[key], r, 0, key])
        merged[index[key]][2] += count
        local[term] = index[key]
    rules = cfg_rules(rd(d, '%d.cfg' % r))
    grammars.append(cfg_bytes([(rid, [(local[v] if v >= 0 else v, e) for v, e in syms])
                               for rid, syms in rules]))
unique, ugid = [], []
for g in grammars:
    if g not in unique:
        unique.append(g)
    ugid.append(unique.index(g))
for r in range(nranks):
    os.unlink(os.path.join(d, '%d.cst' % r))
    os.unlink(os.path.join(d, '%d.cfg' % r))
# stored in hash order, not id order, as Recorder does
merged.sort(key=lambda e: zlib.crc32(e[3]))
wr(d, '0.cst', cst_bytes([tuple(e) for e in merged]))
for u, g in enumerate(unique):
    wr(d, '%d.cfg' % u, g)
wr(d, 'ug.mt', struct.pack('<%di' % (nranks + 1), *(ugid + [len(unique)])))
wr(d, 'expect', b'same_as=posix_mpi-v2.4.0\n')

# A user-function record (func_id 255, -finstrument-functions) appended to
# rank 0 of a 2.4 trace: CST entry, root-rule symbol and one timestamp pair.
d = clone('y_v24_user_function', 'posix_mpi-v2.4.0')
entries = cst_entries(rd(d, '0.cst'))
args = b'/usr/lib/libfoo.so my_func '
key = struct.pack('<QBBBi', 0, 255, 0, 2, len(args)) + args
term = len(entries)
entries.append((term, 0, 1, key))
wr(d, '0.cst', cst_bytes(entries))
rules = cfg_rules(rd(d, '0.cfg'))
rules = [(rid, syms + [(term, 1)] if rid == -1 else syms) for rid, syms in rules]
wr(d, '0.cfg', cfg_bytes(rules))
ts = rd(d, '0.ts')
wr(d, '0.ts', ts + struct.pack('<II', 100, 150))
# the new record's times: 100 and 150 ticks after the last record's start
last_start = None
for line in open(os.path.join(SRC, 'posix_mpi-v2.4.0.decoded.txt')):
    p = line.split()
    if len(p) > 6 and p[0] == '0' and p[1][0].isdigit() and '.' in p[1]:
        last_start = round(float(p[1]) * 1e7)
wr(d, 'expect', ('same_as=posix_mpi-v2.4.0\n'
                 'extra=0 %d %d user_function 0 0 ( /usr/lib/libfoo.so my_func )\n'
                 % (last_start + 100, last_start + 150)).encode())
print('ok')


# ---------------------------------------------------------------------------
# Seeds for tests/fuzz/fuzz_recorder_decode.c: each corpus folder as a list
# of (u8 name index, u32 length, bytes) entries, names as in the target.
FUZZ_NAMES = ['VERSION', 'recorder.mt', 'recorder.cst', 'recorder.ts', 'ug.cfg', 'ug.mt']
for r in range(4):
    FUZZ_NAMES += ['%d.cst' % r, '%d.cfg' % r, '%d.ts' % r]
seeds = os.path.join(HERE, '..', '..', 'fuzz', 'corpus', 'recorder_decode')
os.makedirs(seeds, exist_ok=True)
for trace in ['posix_mpi', 'posix_mpi_tid_nocomp', 'mpiio_hdf5', 'mpiio_hdf5_patterns',
              'posix_mpi-v2.4.0', 'mpiio_hdf5-v2.4.0']:
    blob = b''
    for i, name in enumerate(FUZZ_NAMES):
        path = os.path.join(SRC, trace, name)
        if os.path.exists(path):
            data = open(path, 'rb').read()
            blob += struct.pack('<BI', i, len(data)) + data
    wr(seeds, trace, blob)
print('fuzz seeds ok')
