#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# chrome_corpus_golden.py - the Chrome importer gives the same output, byte
# for byte, on every Chrome/.pfw file of the corpus as when the checksums in
# tests/data/chrome/corpus_outputs.json were written (issue 12 item 3: the
# importer was restructured under this test).  For each corpus case (the
# list of chrome_corpus_count.py) it imports with slog-import --json and
# hashes four things: every drawable (`slog-query --format jsonl`), the file
# description (`slog-info`, without its path, format, size and checksums lines), the import summary (the
# --json document without its timing and paths) and the diagnostics on
# stderr (paths replaced).  A change in any of them fails the case, naming
# which.  The crafted files of tests/data/chrome (y_, n_, i_) are checked the
# same way (their error messages included).  TAP output; without the corpus
# the plan "1..0 # SKIP" (meson: skipped).
#
#   chrome_corpus_golden.py IMPORT QUERY INFO CORPUS_DIR GOLDEN [-j N]
#   chrome_corpus_golden.py --write IMPORT QUERY INFO CORPUS_DIR GOLDEN
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chrome_corpus_count import corpus_cases  # noqa: E402

TIMING_KEYS = ('seconds', 'output', 'inputs')
# slog-info lines that describe the container, not what was imported: the
# path, and the format version and sizes, which a format change (format 4's
# 168-byte node rows) moves without the importer changing.
CONTAINER_LINES = ('file:', 'format:', 'size:', 'bytes/drawable:', 'checksums:')


def digest(data):
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:32]


def outputs(tools, root, name, paths, tmp):
    """The four checksums of one case."""
    importer, query, info = tools
    out = os.path.join(tmp, 'out-%s.slog' % digest(name)[:12])
    r = subprocess.run([importer, '--json', '--no-progress', '-o', out] + paths,
                       capture_output=True, text=True)
    stderr = r.stderr.replace(out, 'OUT').replace(root, 'CORPUS')
    stderr = stderr.replace(os.path.dirname(paths[0]), 'DIR')
    got = {'exit': r.returncode, 'stderr': digest(stderr)}
    try:
        summary = json.loads(r.stdout)
        for k in TIMING_KEYS:
            summary.pop(k, None)
        got['summary'] = digest(json.dumps(summary, sort_keys=True))
    except ValueError:
        got['summary'] = digest(r.stdout)
    if r.returncode == 0:
        q = subprocess.run([query, out, '--format', 'jsonl'], capture_output=True)
        got['drawables'] = digest(q.stdout) if q.returncode == 0 else 'exit %d' % q.returncode
        i = subprocess.run([info, out], capture_output=True, text=True)
        got['info'] = digest('\n'.join(ln for ln in i.stdout.splitlines()
                                       if not ln.startswith(CONTAINER_LINES)))
        got['info'] = got['info'] if i.returncode == 0 else 'exit %d' % i.returncode
    if os.path.exists(out):
        os.unlink(out)
    return got


def crafted_cases(data):
    """(name, [path]) for the crafted files of tests/data/chrome."""
    return [('data/' + f, [os.path.join(data, f)]) for f in sorted(os.listdir(data))
            if f[:2] in ('y_', 'n_', 'i_')]


def run_all(tools, root, data, jobs):
    cases = corpus_cases(root) + crafted_cases(data)
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(outputs, tools, root, name, paths, tmp) for name, paths in cases]
            return [(name, f.result()) for (name, _), f in zip(cases, futs)]


def main(argv):
    write = '--write' in argv
    argv = [a for a in argv if a != '--write']
    jobs = 2
    if '-j' in argv:
        i = argv.index('-j')
        jobs = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) != 6:
        sys.stderr.write('usage: chrome_corpus_golden.py [--write] IMPORT QUERY INFO CORPUS GOLDEN'
                         ' [-j N]\n')
        return 2
    tools, root, golden = tuple(argv[1:4]), os.path.abspath(argv[4]), argv[5]
    if not os.path.isdir(os.path.join(root, 'catapult')):
        print('1..0 # SKIP no corpus at %s' % root)
        return 0  # TAP: the plan says skipped (meson takes exit 77 for an error here)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'chrome')
    results = run_all(tools, root, data, jobs)
    if write:
        with open(golden, 'w') as f:
            f.write('{"generated_by": "tests/chrome_corpus_golden.py --write", "outputs": {\n')
            f.write(',\n'.join('  %s: %s' % (json.dumps(n), json.dumps(g, sort_keys=True))
                               for n, g in results))
            f.write('\n}}\n')
        return 0
    with open(golden) as f:
        want = json.load(f)['outputs']
    print('1..%d' % len(results))
    failed = 0
    for i, (name, got) in enumerate(results, 1):
        exp = want.get(name)
        if exp is None:
            print('not ok %d - %s: not in %s (write it with --write)' % (i, name, golden))
            failed += 1
            continue
        diff = sorted(k for k in set(exp) | set(got) if exp.get(k) != got.get(k))
        print('%s %d - %s%s' % ('not ok' if diff else 'ok', i, name,
                                ': differs in ' + ', '.join(diff) if diff else ''))
        failed += 1 if diff else 0
    missing = sorted(set(want) - {n for n, _ in results})
    for name in missing:
        print('# %s is in the golden file but not in the corpus' % name)
    return 1 if failed or missing else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
