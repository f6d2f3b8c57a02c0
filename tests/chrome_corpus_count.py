#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# chrome_corpus_count.py - an independent count of the drawables a Chrome
# Trace Event / DFTracer .pfw file should give under the mapping documented in
# doc/IMPORT-CHROME.md, written with Python's json module and none of the C
# importer's code: whole-document parses (json.loads, tolerant fallbacks for
# the broken files of the corpus), Decimal arithmetic for times.
#
#   chrome_corpus_count.py FILE...            print the counts as JSON
#   chrome_corpus_count.py --check IMPORT COUNTER CORPUS_DIR [--golden FILE]
#        import every Chrome/.pfw corpus file with IMPORT (slog-import), count
#        what the .slog file holds with COUNTER (tests/slog_counts), compare
#        states, events, arrows and counter samples with this script's count
#        (computed now: ~1 min; or read from FILE, which this script wrote
#        with --write-golden and the live run keeps honest); TAP output.
#   chrome_corpus_count.py --write-golden FILE CORPUS_DIR
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from decimal import Decimal, ROUND_HALF_UP, InvalidOperation

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1

# ---------------------------------------------------------------- reading


def read_bytes(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        return gzip.decompress(data)
    if data[:4] == b'PK\x03\x04':
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = z.namelist()
            if len(names) != 1:
                raise ValueError('zip with %d members' % len(names))
            return z.read(names[0])
    return data


_DECODER = json.JSONDecoder(strict=False, parse_float=Decimal)


def loads(text):
    return _DECODER.decode(text)


def load_document(text):
    """The trace as a Python value, with the corpus' repairs."""
    try:
        return loads(text)
    except json.JSONDecodeError:
        pass
    fixed = re.sub(r',(\s*[\]}])', r'\1', text)          # trailing commas
    fixed = re.sub(r'}(\s*){', r'},\1{', fixed)           # missing commas
    fixed = fixed.rstrip().rstrip(',')
    for attempt in range(2):
        for suffix in ('', ']', ']}', '}]', '}]}'):
            try:
                return loads(fixed + suffix)
            except json.JSONDecodeError:
                continue
        # truncated inside an event: cut back to the last complete one
        cut = fixed.rfind('}')
        if cut < 0:
            break
        fixed = fixed[:cut + 1]
        for suffix in ('', ']', ']}'):
            try:
                return loads(fixed + suffix)
            except json.JSONDecodeError:
                continue
        fixed = fixed[:cut].rstrip().rstrip(',')
    raise ValueError('not parseable')


def load_lines(text):
    # fast path: every non-bracket line is one complete event
    body = [l for l in (l.strip().rstrip(',') for l in text.split('\n'))
            if l not in ('', '[', ']')]
    try:
        return loads('[' + ','.join(body) + ']')
    except json.JSONDecodeError:
        pass
    events = []
    buf = ''
    for line in text.split('\n'):
        buf = buf + '\n' + line if buf else line
        s = buf.strip()
        if s.startswith('['):
            s = s[1:].strip()
        while s.endswith(',') or (s.endswith(']') and not s.endswith('}]')):
            s = s[:-1].rstrip()
        if s.endswith('}]'):
            s = s[:-1]
        if not s:
            buf = ''
            continue
        try:
            events.append(loads(s))
            buf = ''
        except json.JSONDecodeError:
            continue  # a raw newline inside a string: join the next line
    return events


def looks_like_lines(text):
    first = [l for l in text.split('\n', 3)[:3] if l.strip()]
    if not first:
        return False
    head = first[0].strip()
    if head == '[':
        return len(first) > 1 and first[1].strip().startswith('{') and \
            first[1].strip().endswith('}')
    return head.startswith('{') and head.endswith('}') and len(first) > 1 and \
        first[1].strip().startswith('{')


def load_trace(path):
    """(events, samples, frames) of one input."""
    text = read_bytes(path).decode('utf-8', errors='replace')
    if looks_like_lines(text):
        return load_lines(text), [], {}
    doc = load_document(text)
    if isinstance(doc, list):
        return doc, [], {}
    events = doc.get('traceEvents', [])
    if not isinstance(events, list):
        events = []
    samples = doc.get('samples', [])
    frames = doc.get('stackFrames', {})
    return events, samples if isinstance(samples, list) else [], frames

# -------------------------------------------------------------- counting


TIME_RE = re.compile(r'\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*')


def to_ns(v):
    """Microseconds (number or string) -> int ns; None if absent, False if bad."""
    t = type(v)
    if t is int:
        ns = v * 1000
        return ns if INT64_MIN <= ns <= INT64_MAX else False
    if t is str and v.isdigit():
        ns = int(v) * 1000
        return ns if ns <= INT64_MAX else False
    if v is None or isinstance(v, bool) or isinstance(v, (dict, list)):
        return None
    if isinstance(v, str):
        if not TIME_RE.fullmatch(v):
            return False
        d = Decimal(v.strip())
    elif isinstance(v, int):
        d = Decimal(v)
    else:
        d = v
    try:
        ns = int((d * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    except (InvalidOperation, OverflowError):
        return False
    return ns if INT64_MIN <= ns <= INT64_MAX else False


INT_RE = re.compile(r'\s*([+-]?)(\d+)\s*')


def canon(v):
    """ids, pids, tids: integers (number or digit string) in one form."""
    if v is None or isinstance(v, bool) or isinstance(v, (dict, list)):
        return None
    if isinstance(v, int):
        return str(v)
    s = str(v)
    m = INT_RE.fullmatch(s)
    if m:
        n = int(m.group(2))
        return ('-' if m.group(1) == '-' and n != 0 else '') + str(n)
    return s


def text_or_none(v):
    if isinstance(v, str):
        return v
    if isinstance(v, (int, Decimal)) and not isinstance(v, bool):
        return str(v)
    return None


def id_of(e):
    kind, ident = None, None
    for k, v in e.items():
        if k == 'id':
            c = canon(v)
            if c is not None:
                kind, ident = 'i', c
        elif k == 'id2' and isinstance(v, dict):
            for k2, v2 in v.items():
                c = canon(v2)
                if c is not None and k2 in ('local', 'global'):
                    kind, ident = k2[0], c
    return kind, ident


class Counter:
    def __init__(self):
        self.states = self.events = self.arrows = self.counters = 0
        self.threads = {}     # (input, pid, tid) -> list of 'B'/'x' markers
        self.asyncs = {}      # key -> open count
        self.flows = {}       # key -> last ts
        self.binds = {}
        self.objects = {}     # key -> alive?

    def thread(self, e):
        return self.threads.setdefault((e['_in'], e['_pid'], e['_tid']), [])

    def dispatch(self, e):
        ph = e['_ph']
        if len(ph) != 1:
            return
        self.bind(e)
        if ph == 'B':
            self.thread(e).append('B')
        elif ph == 'E':
            st = self.thread(e)
            for i in range(len(st) - 1, -1, -1):
                if st[i] == 'B':
                    del st[i]
                    self.states += 1
                    break
        elif ph == 'X':
            if e['_dur'] is not None:
                if e['_dur'] >= 0:
                    self.states += 1
            elif e['_tdur'] is not None and e['_tdur'] >= 0:
                self.states += 1
            else:
                self.thread(e).append('x')
        elif ph in 'iIRPcVv':
            self.events += 1
        elif ph == 'C':
            args = e.get('args')
            if isinstance(args, dict):
                for v in args.values():
                    if isinstance(v, bool):
                        continue
                    if isinstance(v, int) and INT64_MIN <= v <= UINT64_MAX:
                        self.counters += 1
                    elif isinstance(v, Decimal):
                        self.counters += 1
        elif ph in 'be':
            self.async_(e, 'b', ph == 'b')
        elif ph == 'n' or ph in 'Tp':
            self.events += 1
        elif ph in 'SF':
            self.async_(e, 'S', ph == 'S')
        elif ph in 'stf':
            self.flow(e, ph)
        elif ph in 'NOD':
            self.obj(e, ph)

    def async_key(self, e, ns):
        kind, ident = id_of(e)
        key = (ns, e['_in'], text_or_none(e.get('cat')), text_or_none(e.get('scope')),
               kind, ident)
        if kind == 'l':
            key += (e['_pid'],)
        return key

    def async_(self, e, ns, begin):
        key = self.async_key(e, ns)
        n = self.asyncs.get(key, 0)
        if begin:
            self.asyncs[key] = n + 1
        elif n > 0:
            self.asyncs[key] = n - 1
            self.states += 1

    def flow(self, e, ph):
        kind, ident = id_of(e)
        key = (e['_in'], text_or_none(e.get('cat')), kind, ident)
        if kind == 'l':
            key += (e['_pid'],)
        prev = self.flows.get(key)
        if ph == 's' or prev is None:
            if ph != 'f':
                self.flows[key] = e['_ts']
            return
        if e['_ts'] >= prev:
            self.arrows += 1
        if ph == 'f':
            del self.flows[key]
        else:
            self.flows[key] = e['_ts']

    def bind(self, e):
        fin, fout = e.get('flow_in') is True, e.get('flow_out') is True
        if not (fin or fout):
            return
        bid = canon(e['bind_id']) if 'bind_id' in e else None
        if bid is None:
            bid = id_of(e)[1]
            if bid is None:
                return
        key = (e['_in'], bid)
        if fin and key in self.binds:
            if e['_ts'] >= self.binds.pop(key):
                self.arrows += 1
        if fout:
            self.binds[key] = e['_ts']

    def obj(self, e, ph):
        kind, ident = id_of(e)
        key = (e['_in'], e['_pid'], text_or_none(e.get('name')), kind, ident)
        if ph == 'O':
            self.events += 1
        elif ph == 'N':
            if self.objects.get(key):
                self.states += 1
            self.objects[key] = True
        elif self.objects.get(key):
            self.objects[key] = False
            self.states += 1

    def finish(self):
        for st in self.threads.values():
            self.states += len(st)
        self.states += sum(self.asyncs.values())
        self.states += sum(1 for alive in self.objects.values() if alive)


def prepare(e, inp, seq, sample):
    """Normalised record or None when the importer skips it."""
    if not isinstance(e, dict) or not e:
        return None
    times = {}
    for k in ('ts', 'dur', 'tdur', 'tts'):
        t = to_ns(e.get(k))
        if t is False:
            return None
        times[k] = t
    ph = text_or_none(e.get('ph'))
    if sample:
        ph = ''
    elif ph is None or ph == '':
        return None
    if ph == 'M' or times['ts'] is None:
        return None
    r = dict(e)
    r.update(_ph=ph, _ts=times['ts'], _dur=times['dur'], _tdur=times['tdur'], _in=inp,
             _seq=seq, _pid=canon(e.get('pid')), _tid=canon(e.get('tid')), _sample=sample)
    return r


def count_inputs(paths):
    recs = []
    seq = 0
    for inp, path in enumerate(paths):
        events, samples, _frames = load_trace(path)
        for e in events:
            r = prepare(e, inp, seq, False)
            seq += 1
            if r is not None:
                recs.append(r)
        for e in samples:
            r = prepare(e, inp, seq, True)
            seq += 1
            if r is not None:
                recs.append(r)
    recs.sort(key=lambda r: (r['_ts'], r['_seq']))
    c = Counter()
    group = []

    def flush():
        group.sort(key=lambda r: (-(r['_dur'] if r['_dur'] is not None else INT64_MAX),
                                  r['_seq']))
        for g in group:
            c.dispatch(g)
        group.clear()

    for r in recs:
        if group and (group[0]['_ts'] != r['_ts'] or r['_ph'] != 'X'):
            flush()
        if r['_sample']:
            c.events += 1
        elif r['_ph'] == 'X':
            group.append(r)
        else:
            c.dispatch(r)
    flush()
    c.finish()
    return {'states': c.states, 'events': c.events, 'arrows': c.arrows,
            'counters': c.counters}

# --------------------------------------------------------------- corpus


CORPUS_DIRS = ['catapult', 'dftracer', 'hta', 'kineto', 'lighthouse', 'speedscope',
               'tracecompass', 'clangbuildanalyzer', 'nodejs-playwright',
               'otf2_cli_chrome_trace_converter', 'recorder']
INVALID = {'tracecompass/object_alloc.json'}


def corpus_cases(root):
    """(name, [paths]) for every Chrome/.pfw input of the corpus."""
    cases = []
    for d in CORPUS_DIRS:
        base = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            rel = os.path.relpath(dirpath, root)
            if rel == 'dftracer/cm1_1_48':
                cases.append((rel + '/', sorted(os.path.join(dirpath, f) for f in filenames)))
                continue
            if d == 'recorder' and rel != 'recorder':
                continue
            for f in sorted(filenames):
                name = os.path.join(rel, f)
                if d == 'recorder' and not f.endswith('.recorder2timeline.json'):
                    continue
                if not re.search(r'\.(json|json\.gz|gz|zip|pfw|pfw\.gz|log)$', f):
                    continue
                cases.append((name, [os.path.join(dirpath, f)]))
    return cases


def write_golden(path, root):
    counts = {}
    for name, paths in corpus_cases(root):
        if name not in INVALID:
            counts[name] = count_inputs(paths)
    with open(path, 'w') as f:
        f.write('{"generated_by": "tests/chrome_corpus_count.py --write-golden", "counts": {\n')
        f.write(',\n'.join('  %s: %s' % (json.dumps(k), json.dumps(v, sort_keys=True))
                           for k, v in sorted(counts.items())))
        f.write('\n}}\n')
    return 0


def check(importer, counter, root, golden):
    cases = corpus_cases(root)
    expected = None
    if golden is not None:
        with open(golden) as f:
            expected = json.load(f)['counts']
    print('1..%d' % len(cases))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'out.slog')
        for i, (name, paths) in enumerate(cases, 1):
            r = subprocess.run([importer, '--quiet', '-o', out] + paths,
                               capture_output=True, text=True)
            if name in INVALID:
                ok = r.returncode == 1 and re.search(r':\d+:\d+: expected', r.stderr)
                print('%s %d - %s rejected (exit %d) %s' % ('ok' if ok else 'not ok', i, name,
                      r.returncode, r.stderr.strip().splitlines()[-1:] ))
                failed += 0 if ok else 1
                continue
            if r.returncode != 0:
                print('not ok %d - %s: slog-import exit %d: %s' % (i, name, r.returncode,
                                                                  r.stderr.strip()[-300:]))
                failed += 1
                continue
            got = json.loads(subprocess.run([counter, out], capture_output=True, text=True,
                                            check=True).stdout)
            if expected is not None:
                if name not in expected:
                    print('not ok %d - %s: not in the golden counts (regenerate them)' % (i, name))
                    failed += 1
                    continue
                want = expected[name]
            else:
                want = count_inputs(paths)
            keys = ('states', 'events', 'arrows', 'counters')
            same = all(got[k] == want[k] for k in keys)
            detail = ' '.join('%s=%d/%d' % (k, got[k], want[k]) for k in keys)
            print('%s %d - %s %s' % ('ok' if same else 'not ok', i, name, detail))
            failed += 0 if same else 1
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 5 and argv[1] == '--check':
        golden = argv[6] if len(argv) >= 7 and argv[5] == '--golden' else None
        return check(argv[2], argv[3], argv[4], golden)
    if len(argv) == 4 and argv[1] == '--write-golden':
        return write_golden(argv[2], argv[3])
    if len(argv) < 2:
        sys.stderr.write(__doc__ if __doc__ else 'usage: chrome_corpus_count.py FILE...\n')
        return 2
    print(json.dumps(count_inputs(argv[1:])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
