#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# tidy.py - the clang-tidy half of the lint gate (tests/lint.sh, .ci/run):
# the project's .clang-tidy over every C translation unit of the given
# directories that the build compiles (compile_commands.json, one entry per
# file), findings in the project's own headers included (--header-filter),
# JOBS clang-tidy processes at once, largest files first.
#
# Speed, so the whole tree fits in CI (the clang static analyzer is ~99 % of
# clang-tidy's time here):
# - the analyzer's node budget per function is the one of its "shallow"
#   mode (max-nodes=75000 instead of 225000): it only shortens the paths
#   explored in the few functions that exhaust the budget (api_stats.c: CPU
#   28.7 s -> 8.9 s).  LINT_DEEP=1 keeps the default budget (weekly runs).
# - results are cached per translation unit under the key: clang-tidy's
#   version, .clang-tidy, the analyzer options, the compile command and the
#   preprocessed text of the unit (the compiler's -E -C: every header it
#   includes, comments kept for NOLINT), so an unchanged unit is not analysed again, whatever clone it
#   is in.  Cache: $SLOG_LINT_CACHE, else $XDG_CACHE_HOME/slog-lint, else
#   ~/.cache/slog-lint; LINT_NO_CACHE=1 disables it.
#
# Paths listed in tests/lint_pending.txt (code that landed before the gate
# and is not clean yet, each line with its owner and count) are left out,
# units and header findings alike; fixing one means deleting its line.
#
# Prints each finding as "file:line:col: error: message [check]" (paths
# relative to the source root, each once), then a last line
# "tidy: N findings in F files (of T units; A analysed, C cached) in S s".
# Exit 0 clean, 1 with findings, 2 usage or a unit clang-tidy could not
# compile, 77 (skip) without clang-tidy.
#
# Usage: tests/tidy.py [-j JOBS] [-p BUILD_DIR] [DIR...]  (defaults 2, build, libslog utils)
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

FINDING = re.compile(r'^(.+?):(\d+):(\d+): (error|warning): (.*)$')
ANSI = re.compile(r'\x1b\[[0-9;]*m')
PENDING = 'tests/lint_pending.txt'


def header_filter(root, build):
    """Headers of the project, as clang names them (the build's -I paths are
    relative: BUILD/../libslog/x.h), not the system's /usr/include."""
    def ere(s):
        return ''.join('\\' + c if c in '.^$*+?()[]{}|\\' else c for c in s)
    bases = sorted({ere(root), ere(build) + '/\\.\\.', '\\.\\.'})
    return '^(%s)/(libslog|utils|include)/' % '|'.join(bases)


def pending(root):
    """Paths (prefixes) not yet clean, from tests/lint_pending.txt."""
    try:
        with open(os.path.join(root, PENDING)) as f:
            return tuple(l.split('#')[0].strip() for l in f if l.split('#')[0].strip())
    except FileNotFoundError:
        return ()


def analyzer_args():
    if os.environ.get('LINT_DEEP'):
        return []
    return ['--extra-arg=-Xclang', '--extra-arg=-analyzer-config', '--extra-arg=-Xclang',
            '--extra-arg=max-nodes=75000']


def units(build, root, dirs):
    """One compile command per .c file under dirs, largest file first."""
    prefixes = tuple(os.path.join(root, d.rstrip('/')) + '/' for d in dirs)
    seen = {}
    with open(os.path.join(build, 'compile_commands.json')) as f:
        for e in json.load(f):
            path = os.path.normpath(os.path.join(e['directory'], e['file']))
            if path.endswith('.c') and path.startswith(prefixes) and path not in seen:
                seen[path] = e
    return sorted(seen.items(), key=lambda kv: -os.path.getsize(kv[0]))


def preprocess_command(entry):
    """The unit's compile command with -E -C to stdout instead of -c/-o/-M*
    (-C keeps comments: a NOLINT comment changes what clang-tidy reports)."""
    argv = entry['arguments'] if 'arguments' in entry else shlex.split(entry['command'])
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in ('-o', '-MF', '-MQ', '-MT'):
            skip = True
        elif a not in ('-c', '-MD', '-MMD'):
            out.append(a)
    return out + ['-E', '-C', '-o', '-']


def unit_key(entry, salt):
    r = subprocess.run(preprocess_command(entry), cwd=entry['directory'],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        return None  # clang-tidy will say what is wrong
    h = hashlib.sha256(salt)
    h.update(json.dumps(entry.get('arguments', entry.get('command'))).encode())
    h.update(r.stdout)
    return h.hexdigest()


def normalise(line, build, root):
    m = FINDING.match(line)
    if not m:
        return None
    path = os.path.normpath(os.path.join(build, m.group(1)))
    if path.startswith(root + '/'):
        path = path[len(root) + 1:]
    return '%s:%s:%s: %s: %s' % (path, m.group(2), m.group(3), m.group(4), m.group(5))


def run_unit(tidy, build, root, path, entry, cache, salt):
    """(findings, cached, failed) for one unit."""
    hf = header_filter(root, build)
    key = unit_key(entry, salt) if cache else None
    stored = os.path.join(cache, key[:2], key) if key else None
    if stored and os.path.exists(stored):
        with open(stored) as f:
            return f.read().splitlines(), True, False
    cmd = [tidy, '-p', build, '--quiet', '--header-filter=' + hf] + analyzer_args()
    r = subprocess.run(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    text = ANSI.sub('', r.stdout)
    found = sorted({n for n in (normalise(l, build, root) for l in text.splitlines()) if n})
    failed = r.returncode != 0 and not found
    if failed:
        sys.stderr.write('tidy: clang-tidy failed on %s:\n%s' % (path, ANSI.sub('', r.stderr)))
    elif stored and unit_key(entry, salt) == key:  # not stored if a source changed meanwhile
        os.makedirs(os.path.dirname(stored), exist_ok=True)
        tmp = '%s.%d' % (stored, os.getpid())
        with open(tmp, 'w') as f:
            f.write(''.join(x + '\n' for x in found))
        os.replace(tmp, stored)
    return found, False, failed


def cache_dir():
    if os.environ.get('LINT_NO_CACHE'):
        return None
    if os.environ.get('SLOG_LINT_CACHE'):
        return os.environ['SLOG_LINT_CACHE']
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'slog-lint')


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description='clang-tidy gate over the compile database')
    ap.add_argument('-j', type=int, default=2)
    ap.add_argument('-p', default=os.path.join(root, 'build'))
    ap.add_argument('dirs', nargs='*', default=['libslog', 'utils'])
    a = ap.parse_args()
    build = os.path.abspath(a.p)
    tidy = shutil.which('clang-tidy-14') or shutil.which('clang-tidy')
    if tidy is None:
        print('tidy: clang-tidy not found', file=sys.stderr)
        return 77
    if not os.path.exists(os.path.join(build, 'compile_commands.json')):
        print('tidy: no %s/compile_commands.json (meson setup first)' % build, file=sys.stderr)
        return 2
    start = time.time()
    version = subprocess.run([tidy, '--version'], stdout=subprocess.PIPE).stdout
    with open(os.path.join(root, '.clang-tidy'), 'rb') as f:
        salt = version + f.read() + ' '.join(analyzer_args() + [header_filter(root, build)]).encode()
    skip = pending(root)
    todo = [(p, e) for p, e in units(build, root, a.dirs)
            if not os.path.relpath(p, root).startswith(skip)]
    cache = cache_dir()
    findings, cached, failed = set(), 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        jobs = [pool.submit(run_unit, tidy, build, root, p, e, cache, salt) for p, e in todo]
        for j in jobs:
            found, hit, bad = j.result()
            findings.update(f for f in found if not f.startswith(skip))
            cached += hit
            failed += bad
    for line in sorted(findings):
        print(line)
    files = {line.split(':', 1)[0] for line in findings}
    print('tidy: %d findings in %d files (of %d units; %d analysed, %d cached; %d paths '
          'pending in %s) in %d s' % (len(findings), len(files), len(todo), len(todo) - cached,
                                      cached, len(skip), PENDING, round(time.time() - start)))
    if failed:
        return 2
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
