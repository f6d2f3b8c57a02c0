#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# chrome_fast_equiv.py - the Chrome importer's fast path (chrome_scan.c)
# must not change anything: every crafted file of data/chrome and every
# Chrome/.pfw corpus file is run through tests/chrome_dump with the scanner
# off (SLOG_CHROME_FAST=0, yajl reads everything) and on, and the drawables,
# warnings (with line:column), counts, failure message and exit status must
# be identical.  Small plain files are also fed in 3- and 4096-byte chunks,
# so that hand-overs between yajl and the scanner fall everywhere.  TAP.
#   chrome_fast_equiv.py CHROME_DUMP DATA_DIR CORPUS_DIR
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chrome_corpus_count import corpus_cases  # noqa: E402

SMALL = 2 << 20


def run(dump, paths, fast, chunk):
    env = dict(os.environ, SLOG_CHROME_FAST='1' if fast else '0')
    args = [dump, '--items', '--warnings', '--counts']
    if chunk:
        args += ['--chunk', str(chunk)]
    r = subprocess.run(args + paths, env=env, capture_output=True, timeout=600)
    return r.returncode, r.stdout, r.stderr


def main():
    dump, data, corpus = sys.argv[1:4]
    cases = [(f, [os.path.join(data, f)]) for f in sorted(os.listdir(data))
             if f.endswith(('.json', '.pfw', '.gz', '.zip'))]
    if os.path.isdir(corpus):
        cases += corpus_cases(corpus)
    runs = []
    for name, paths in cases:
        runs.append((name, paths, 0))
        plain = len(paths) == 1 and not paths[0].endswith(('.gz', '.zip'))
        if plain and os.path.getsize(paths[0]) <= SMALL:
            runs += [(name, paths, 3), (name, paths, 4096)]
    print('1..%d' % len(runs))
    failed = 0
    for i, (name, paths, chunk) in enumerate(runs, 1):
        slow = run(dump, paths, False, chunk)
        fast = run(dump, paths, True, chunk)
        label = '%s%s' % (name, ' (chunks of %d)' % chunk if chunk else '')
        if slow == fast:
            print('ok %d - %s: same drawables, warnings and counts (exit %d)' % (i, label, slow[0]))
            continue
        failed += 1
        print('not ok %d - %s: the fast path changes the result' % (i, label))
        for what, a, b in (('exit', slow[0], fast[0]), ('stdout', slow[1], fast[1]),
                           ('stderr', slow[2], fast[2])):
            if a != b:
                la = a.splitlines() if isinstance(a, bytes) else [a]
                lb = b.splitlines() if isinstance(b, bytes) else [b]
                for k in range(max(len(la), len(lb))):
                    x = la[k] if k < len(la) else None
                    y = lb[k] if k < len(lb) else None
                    if x != y:
                        print('#   %s line %d: yajl %r' % (what, k + 1, x))
                        print('#   %s line %d: fast %r' % (what, k + 1, y))
                        break
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
