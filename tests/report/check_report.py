#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# check_report.py - checks one page written by slog-report:
#  - structure: a doctype, one html/head/body, every non-void element
#    closed in order, unique ids, the overview data is valid JSON;
#  - self-contained: no src attribute, every href a fragment (#...), no
#    url() or @import in styles, a Content-Security-Policy of default-src 'none';
#  - with --query and --slog: the category table equals slog-query --stats
#    (past --categories per kind, the rest added up in one row),
#    the longest states equal slog-query --top, the utilisation rows (when
#    per timeline) and the counter table equal slog-query --stats by
#    timeline / by both, to the nanosecond;
#  - --hostile: the hostile names of report_fixture appear as text, never
#    as markup; --empty, --no-states, --incomplete, --grouped: what the
#    page says (a file with drawables never "No drawables");
#  - --same-categories PAGE: the category table (names, counts, inclusive
#    and exclusive times) equals PAGE's (the same run in another format).
# Exit 0 when every check holds, 1 with the failures listed.
import argparse
import json
import re
import subprocess
import sys
from html.parser import HTMLParser

VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source',
        'track', 'wbr'}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.counts = [], [], set(), {}
        self.doctype = False
        self.attrs = []          # (tag, name, value) of every attribute
        self.tables = {}         # table id -> list of (tr attrs, [(cell attrs, text)])
        self.scripts = []        # (attrs, text)
        self.text = []
        self._table, self._row, self._cell, self._script = None, None, None, None

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == 'doctype html'

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for k, v in attrs:
            self.attrs.append((tag, k, v or ''))
        if 'id' in a:
            if a['id'] in self.ids:
                self.errors.append('duplicate id %r' % a['id'])
            self.ids.add(a['id'])
        if tag == 'table':
            self._table = a.get('id', '')
            self.tables[self._table] = []
        elif tag == 'tr' and self._table is not None:
            self._row = (a, [])
            self.tables[self._table].append(self._row)
        elif tag in ('td', 'th') and self._row is not None:
            self._cell = (a, [])
            self._row[1].append(self._cell)
        elif tag == 'script':
            self._script = (a, [])
            self.scripts.append(self._script)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append('end tag </%s> closes <%s>' % (tag, self.stack[-1] if self.stack else ''))
            return
        self.stack.pop()
        if tag == 'table':
            self._table = None
        elif tag == 'tr':
            self._row = None
        elif tag in ('td', 'th'):
            self._cell = None
        elif tag == 'script':
            self._script = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[1].append(data)
        if self._script is not None:
            self._script[1].append(data)


def parse(path):
    with open(path, encoding='utf-8') as f:   # strict: invalid UTF-8 fails here
        raw = f.read()
    p = Page()
    p.feed(raw)
    p.close()
    return raw, p


def check_structure(raw, p, fails):
    if not p.doctype:
        fails.append('no <!DOCTYPE html>')
    for t in ('html', 'head', 'body', 'title'):
        if p.counts.get(t, 0) != 1:
            fails.append('%d <%s> elements' % (p.counts.get(t, 0), t))
    if p.stack:
        fails.append('unclosed elements: %s' % p.stack)
    fails.extend(p.errors)
    for tag, k, v in p.attrs:
        if k in ('src', 'srcset', 'action', 'formaction', 'poster', 'data'):
            fails.append('<%s %s=%r>: the page must load nothing' % (tag, k, v))
        if k == 'href' and not v.startswith('#'):
            fails.append('<%s href=%r>: only fragment links' % (tag, v))
        if k == 'style' and re.search(r'url\(|@import|expression\(', v, re.I):
            fails.append('<%s style=%r>: loads something' % (tag, v))
    styles = re.findall(r'<style>(.*?)</style>', raw, re.S)
    if any(re.search(r'url\(|@import', s, re.I) for s in styles):
        fails.append('the style sheet loads something')
    if not re.search(r"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';", raw):
        fails.append("no Content-Security-Policy default-src 'none'")


def overview_data(p, fails):
    for a, text in p.scripts:
        if a.get('id') == 'overview-data':
            try:
                return json.loads(''.join(text))
            except ValueError as e:
                fails.append('overview data is not JSON: %s' % e)
    return None


def check_overview(args, raw, data, fails):
    if data is None:
        fails.append('no overview data')
        return
    m = re.search(r'ticks (-?\d+) \u2026 (-?\d+), (\d+) per second', raw)
    if m and m.group(3) == '1000000000':   # ns ticks: no finer than a tick, as long as the trace
        span = int(m.group(2)) - int(m.group(1)) + 1       # (but for < 1 tick per pixel rounding)
        if data['width'] > span or data['width'] * data['resolution_ns'] >= span + data['width']:
            fails.append('the image is %d pixels of %d ns for a trace of %d ns'
                         % (data['width'], data['resolution_ns'], span))
    if not 0 < len(data['rows']) <= 2 * args.max_rows:  # timeline rows, then group rows
        fails.append('%d overview rows (1..%d expected)' % (len(data['rows']), 2 * args.max_rows))
    if args.grouped != 'any' and (args.grouped == 'yes') != (data['fold'] > 0):
        fails.append('overview fold %d (grouped expected: %s)' % (data['fold'], args.grouped))
    painted = sum(r['r'][i] for r in data['rows'] for i in range(0, len(r['r']), 3) if r['r'][i + 2] > 0)
    if painted == 0:
        fails.append('the overview paints nothing')


def query_jsonl(args, *extra):
    out = subprocess.run([args.query, args.slog, '-f', 'jsonl', *extra], check=True,
                         capture_output=True, text=True).stdout
    # JSON Lines end at '\n' only: splitlines() also breaks at U+2028 inside a name
    return [json.loads(line) for line in out.split('\n') if line.strip()]


def check_category_rest(args, want, got, rest, fails):
    """Categories not listed are added up in one row per kind (--categories)."""
    for kind in {k for k, _c in want} | set(rest):
        listed = [want[key] for key in want if key[0] == kind and key in got]
        more = [want[key] for key in want if key[0] == kind and key not in got]
        if len(listed) > args.categories:
            fails.append('%d %s categories listed, at most %d' % (len(listed), kind, args.categories))
        r = rest.get(kind)
        if not more:
            if r is not None:
                fails.append('a rest row for %s, but every category is listed' % kind)
            continue
        if r is None:
            fails.append('%d %s categories neither listed nor added up' % (len(more), kind))
            continue
        sums = (len(more), sum(m['count'] for m in more), sum(m.get('inclusive', 0) for m in more),
                sum(m.get('exclusive', 0) for m in more))
        if (int(r['data-rest']), int(r['data-count']), int(r['data-inclusive']), int(r['data-exclusive'])) != sums:
            fails.append('rest of %s: report %s, slog-query (categories, count, inclusive, exclusive) %s'
                         % (kind, [r[k] for k in ('data-rest', 'data-count', 'data-inclusive', 'data-exclusive')], sums))
        order = lambda m: (m.get('inclusive', 0), m['count'])  # noqa: E731
        if listed and max(map(order, more)) > min(map(order, listed)):
            fails.append('a %s category added up has more time or drawables than one listed' % kind)


def check_categories(args, p, fails):
    want = {(r['kind'], r['category_id']): r for r in query_jsonl(args, '--stats')}
    got, rest = {}, {}
    for a, _cells in p.tables.get('categories-table', []):
        if 'data-category' in a:
            got[(a['data-kind'], int(a['data-category']))] = a
        elif 'data-rest' in a:
            rest[a['data-kind']] = a
    if not set(got) <= set(want):
        fails.append('category rows slog-query lacks: %s' % sorted(set(got) - set(want))[:5])
    check_category_rest(args, want, got, rest, fails)
    for key, r in want.items():
        a = got.get(key)
        if a is None:
            continue
        fields = ['count'] + (['inclusive', 'exclusive'] if r['kind'] == 'state' else [])
        for k in fields:
            if int(a['data-' + k]) != r[k]:
                fails.append('category %s %s: report %s, slog-query %s' % (key, k, a['data-' + k], r[k]))


def check_matrix(args, p, fails):
    """Every arrow is in exactly one cell of the message matrix."""
    arrows = sum(r['count'] for r in query_jsonl(args, '--stats', '-k', 'arrow'))
    cells = sum(int(c[0]['data-count']) for _a, row in p.tables.get('matrix-table', [])
                for c in row if 'data-count' in c[0])
    if cells != arrows:
        fails.append('message matrix holds %d arrows, slog-query --stats counts %d' % (cells, arrows))


def check_top(args, p, fails):
    rows = [a for a, _ in p.tables.get('top-table', []) if 'data-start' in a]
    want = query_jsonl(args, '--top', str(args.top))
    if len(rows) != len(want):
        fails.append('longest states: report %d, slog-query %d' % (len(rows), len(want)))
    for i, (a, r) in enumerate(zip(rows, want)):
        mine = (int(a['data-timeline']), int(a['data-category']), int(a['data-start']),
                int(a['data-end']), int(a['data-depth']))
        theirs = (r['timeline_id'], r['category_id'], r['start'], r['end'], r['depth'])
        if mine != theirs:
            fails.append('longest state %d: report %s, slog-query %s' % (i + 1, mine, theirs))


def members(a):
    """The timelines a row stands for, or None when the page does not list them."""
    if 'data-timeline' in a:
        return [int(a['data-timeline'])]
    if 'data-timelines' in a:
        return [int(t) for t in a['data-timelines'].split(',') if t]
    return None


def check_utilisation(args, p, fails):
    rows = [a for a, _ in p.tables.get('utilisation-table', []) if 'data-busy' in a]
    busy, states, incl = {}, {}, {}
    for r in query_jsonl(args, '--stats', '--by', 'timeline', '-k', 'state'):
        busy[r['timeline_id']] = r['exclusive']
        states[r['timeline_id']] = r['count']
        incl[r['timeline_id']] = r['inclusive']
    seen = set()
    for a in rows:
        ids = members(a)
        if ids is None or a.get('data-estimated') == '1':
            continue
        seen.update(ids)
        want = (sum(states.get(t, 0) for t in ids), sum(incl.get(t, 0) for t in ids))
        got = (int(a['data-states']), int(a['data-inclusive']))
        if got != want:
            fails.append('utilisation of %s: report (states, inclusive) %s, slog-query %s' % (ids[:4], got, want))
        # busy is exact when no state is summarised inside a drawn parent (--exact-busy)
        want_busy = sum(busy.get(t, 0) for t in ids)
        if args.exact_busy and int(a['data-busy']) != want_busy:
            fails.append('utilisation of %s: report busy %s, slog-query exclusive %s' % (ids[:4], a['data-busy'], want_busy))
    exact = all(members(a) is not None and a.get('data-estimated') != '1' for a in rows)
    if rows and exact and not set(states) <= seen:
        fails.append('utilisation lacks timelines %s' % sorted(set(states) - seen)[:5])


def check_counters(args, p, fails):
    rows = [(a, c) for a, c in p.tables.get('counters-table', []) if 'data-category' in a]
    stats = {(r['timeline_id'], r['category_id']): r
             for r in query_jsonl(args, '--stats', '--by', 'both', '-k', 'counter')}
    total = 0
    for a, cells in rows:
        ids, cat = members(a), int(a['data-category'])
        if a.get('data-scope') == 'all':
            ids = sorted({t for t, c in stats if c == cat})
        if ids is None:
            continue
        part = [stats[(t, cat)] for t in ids if (t, cat) in stats]
        total += len(part)
        want = (sum(r['count'] for r in part), min(r['min'] for r in part), max(r['max'] for r in part)) if part else None
        got = (int(cells[2][0]['data-v']), float(cells[3][0]['data-v']), float(cells[4][0]['data-v']))
        if got != want:
            fails.append('counter %s of %s: report %s, slog-query %s' % (cat, ids[:4], got, want))
    if len(rows) < args.series and total != len(stats):
        fails.append('counter series: report covers %d, slog-query has %d' % (total, len(stats)))


def category_rows(p):
    """(name, kind, count, inclusive, exclusive) of every category row."""
    return sorted((''.join(cells[0][1]).strip(), a['data-kind'], a['data-count'], a['data-inclusive'],
                   a['data-exclusive']) for a, cells in p.tables.get('categories-table', [])
                  if 'data-category' in a)


def check_same_categories(args, p, fails):
    """--same-categories PAGE: the same run read from another format."""
    _raw, other = parse(args.same_categories)
    mine, theirs = category_rows(p), category_rows(other)
    for a, b in zip(mine, theirs):
        if a != b:
            fails.append('category %s: %s, in %s %s' % (a[0], a[1:], args.same_categories, b[1:]))
    if len(mine) != len(theirs):
        fails.append('%d categories, %d in %s' % (len(mine), len(theirs), args.same_categories))


HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '<iframe src=//evil>',
           '</table><h1>x', 'proc <b>&amp;</b>', 'it\'s "quoted" & </script>']


def check_hostile(raw, p, fails):
    text = ''.join(p.text)
    for name in HOSTILE:
        if name not in text:
            fails.append('hostile name %r not shown as text' % name)
    for bad in ('<script>alert', '<img', '<iframe', '<h1>x', '<b>&amp;'):
        if bad in raw:
            fails.append('raw markup %r in the page' % bad)
    if len(p.scripts) != 2:
        fails.append('%d script elements (expected the data and the code)' % len(p.scripts))
    if '\x1b' in raw or '\x01' in raw:
        fails.append('control characters in the page')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('html')
    ap.add_argument('--query')
    ap.add_argument('--slog')
    ap.add_argument('--top', type=int, default=25)
    ap.add_argument('--series', type=int, default=200)
    ap.add_argument('--categories', type=int, default=1000)
    ap.add_argument('--max-rows', type=int, default=200)
    ap.add_argument('--hostile', action='store_true')
    ap.add_argument('--empty', action='store_true')
    ap.add_argument('--no-states', action='store_true')
    ap.add_argument('--incomplete', action='store_true')
    ap.add_argument('--grouped', choices=['yes', 'no', 'any'], default='any')
    ap.add_argument('--exact-busy', action='store_true')
    ap.add_argument('--same-categories')
    args = ap.parse_args()
    fails = []
    raw, p = parse(args.html)
    check_structure(raw, p, fails)
    data = overview_data(p, fails)
    if args.empty:
        if data is not None or 'No drawables' not in raw:
            fails.append('an empty file should say it has no drawables and draw nothing')
    elif 'No drawables' in raw:
        fails.append('the page says "No drawables" of a file that has some')
    if args.no_states:
        if data is None or data['rows'] or 'No states to draw' not in raw:
            fails.append('a file without states should say so and draw no row')
    elif not args.empty:
        check_overview(args, raw, data, fails)
    if args.incomplete and 'Incomplete file' not in raw:
        fails.append('an incomplete file is not flagged')
    if not args.incomplete and 'Incomplete file' in raw:
        fails.append('a complete file is flagged incomplete')
    if args.hostile:
        check_hostile(raw, p, fails)
    if args.same_categories:
        check_same_categories(args, p, fails)
    if args.query and args.slog:
        check_categories(args, p, fails)
        check_matrix(args, p, fails)
        check_top(args, p, fails)
        check_utilisation(args, p, fails)
        check_counters(args, p, fails)
    for f in fails:
        print('FAIL %s: %s' % (args.html, f))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
