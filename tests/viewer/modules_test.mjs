// SPDX-License-Identifier: MIT
//
// modules_test.mjs - the viewer's DOM-free modules under node (TAP; no
// browser needed): id lists and URL fragments round trip and reject
// damage, the binary window decoder reads a crafted answer column by
// column and refuses short or foreign buffers, and the row model lays out,
// collapses, finds visible rows and fold groups as slog_reader_fold_row;
// the window label's digits, near-white colours drawn darker, statistics
// columns by kind, the hit test of arrows and counter samples, and the
// arrows' opacity by how many lines share the pixel columns.
//
//   node modules_test.mjs WEB_DIR

import {join} from 'node:path';
import {pathToFileURL} from 'node:url';

import {tap} from './harness.mjs';

const web = process.argv[2];
const load = (name) => import(pathToFileURL(join(web, name)).href);
const t = tap();

function testIdLists(f)
{
    t.ok(f.formatIdList([7, 0, 3, 8, 9, 12, 10]) === '0,3,7-10,12', 'ids to ranges');
    t.ok(JSON.stringify(f.parseIdList('0,3,7-10,12')) === '[0,3,7,8,9,10,12]', 'ranges to ids');
    t.ok(JSON.stringify(f.parseIdList('1,x,-3,4-2,5')) === '[1,5]', 'bad parts skipped');
    t.ok(f.formatTicks(1500000, 1e9) === '1.5 ms' && f.formatTicks(250, 1e9) === '250 ns', 'units');
    t.ok(JSON.stringify(f.parseRgba('#ff800080')) === JSON.stringify([255, 128, 0, 128 / 255]), 'rgba');
}

function testUrlState(u)
{
    const s = {f: 1, view: {t0: 10, t1: 2000}, expanded: [3, 4, 5, 9], hidden: [2], scrollTop: 40,
               selection: {t0: 100, t1: 200}, pick: {kind: 0, timeline: 4, category: 2, start: 120, end: 180, depth: 1}};
    const back = u.decodeUrlState(u.encodeUrlState(s));
    t.ok(JSON.stringify(back) === JSON.stringify({f: 1, view: s.view, expanded: s.expanded, hidden: s.hidden,
                                                  scrollTop: 40, selection: s.selection, pick: s.pick}),
         'URL state round trip', JSON.stringify(back));
    const bad = u.decodeUrlState('#f=x&t=5,3&sel=1&pick=1,2,3&y=-4&x=1-2');
    t.ok(JSON.stringify(bad) === '{"expanded":[1,2]}', 'damaged fragment: only what is spelt right', JSON.stringify(bad));
    const arrow = {kind: 2, timeline: 4, category: 1, start: 120, end: 180, depth: 0, timelineTo: 7};
    const hash = u.encodeUrlState({f: 0, view: s.view, pick: arrow});
    t.ok(hash.includes('pick=2,4,1,120,180,0,7') && JSON.stringify(u.decodeUrlState(hash).pick) === JSON.stringify(arrow),
         'an arrow\'s destination is in the link', hash);
    const old = u.decodeUrlState('#f=0&t=0,9&pick=2,4,1,120,180,0').pick;
    t.ok(old && old.timeline === 4 && old.timelineTo === undefined, 'an older pick link (no destination) still opens');
}

/** A window answer of n items: item i has start i*10, timeline i, kind i % 6. */
function craft(n)
{
    const align = (x) => (x + 7) & ~7;
    let size = 32;
    for (const bytes of [8, 8, 8, 8, 8, 4, 4, 4, 4, 1, 1]) {
        size = align(size) + n * bytes;
    }
    const buf = new ArrayBuffer(size);
    const dv = new DataView(buf);
    dv.setUint32(0, 0x31574c53, true);
    dv.setUint32(4, n, true);
    dv.setUint32(8, 1, true);
    dv.setFloat64(16, 5, true);
    dv.setFloat64(24, 900, true);
    let off = 32;
    const col = (bytes, set) => {
        off = align(off);
        for (let i = 0; i < n; i++) {
            set(off + i * bytes, i);
        }
        off += n * bytes;
    };
    col(8, (o, i) => dv.setFloat64(o, i * 10, true));
    col(8, (o, i) => dv.setFloat64(o, i * 10 + 5, true));
    for (let k = 0; k < 3; k++) {
        col(8, (o) => dv.setFloat64(o, 1, true));
    }
    col(4, (o, i) => dv.setUint32(o, i, true));
    for (let k = 0; k < 3; k++) {
        col(4, (o) => dv.setUint32(o, 0, true));
    }
    col(1, (o, i) => dv.setUint8(o, i % 6));
    col(1, (o) => dv.setUint8(o, 0));
    return buf;
}

function testDecode(api)
{
    const w = api.decodeWindow(craft(7));
    t.ok(w.n === 7 && w.cut && !w.incomplete && w.t0 === 5 && w.t1 === 900, 'header');
    t.ok(w.start[6] === 60 && w.end[3] === 35 && w.timeline[5] === 5 && w.kind[5] === 5, 'columns at their offsets');
    const throws = (buf) => {
        try {
            api.decodeWindow(buf);
            return false;
        } catch (e) {
            return /window answer/.test(e.message);
        }
    };
    t.ok(throws(new ArrayBuffer(10)), 'short header refused');
    t.ok(throws(craft(7).slice(0, 200)), 'truncated columns refused');
    const foreign = craft(1);
    new DataView(foreign).setUint32(0, 0x12345678, true);
    t.ok(throws(foreign), 'foreign magic refused');
    t.ok(api.decodeWindow(craft(0)).n === 0, 'empty answer');
}

/** An SLW2 answer of @p items, written the way doc/VIEWER.md describes (not by the server). */
function pack(items, {n = items.length, magic = 0x32574c53, firstSame = false} = {})
{
    const bytes = [];
    const varint = (v) => {
        while (v >= 0x80) {
            bytes.push((v % 0x80) | 0x80);
            v = Math.floor(v / 0x80);
        }
        bytes.push(v);
    };
    const zig = (v) => (v < 0 ? -2 * v - 1 : 2 * v);
    let tl = 0;
    let start = 0;
    let prev = null;
    for (const it of items) {
        const implied = it.kind === 0 || it.kind === 2 ? it.end - it.start : 0;
        const k = it.kind | (it.of << 3) | (it.count !== 1 ? 0x40 : 0) | (it.inclusive !== implied ? 0x80 : 0);
        const same = (prev === null && firstSame) || (prev !== null && prev.timeline === it.timeline &&
                     prev.start === it.start && prev.end === it.end && prev.depth === it.depth);
        bytes.push(k, (it.value !== 0 ? 1 : 0) | (it.timelineTo !== it.timeline ? 2 : 0) | (same ? 4 : 0));
        if (!same) {
            varint(zig(it.timeline - tl));
        }
        varint(it.category === 0xffffffff ? 0 : it.category + 1);
        if (!same) {
            varint(zig(it.start - start));
            varint(zig(it.end - it.start));
            varint(it.depth);
        }
        if (it.count !== 1) {
            varint(it.count);
        }
        if (it.inclusive !== implied) {
            varint(zig(it.inclusive));
        }
        if (it.timelineTo !== it.timeline) {
            varint(zig(it.timelineTo - it.timeline));
        }
        if (it.value !== 0) {
            const v = new DataView(new ArrayBuffer(8));
            v.setFloat64(0, it.value, true);
            bytes.push(...new Uint8Array(v.buffer));
        }
        tl = it.timeline;
        start = it.start;
        prev = it;
    }
    const buf = new ArrayBuffer(32 + bytes.length);
    const dv = new DataView(buf);
    dv.setUint32(0, magic, true);
    dv.setUint32(4, n, true);
    dv.setUint32(8, 2, true);
    dv.setUint32(12, bytes.length, true);
    dv.setFloat64(16, 7, true);
    dv.setFloat64(24, 2 ** 40, true);
    new Uint8Array(buf, 32).set(bytes);
    return buf;
}

function testDecodePacked(api)
{
    const items = [
        {kind: 0, of: 0, timeline: 3, category: 2, start: 1000, end: 1500, depth: 1, count: 1, inclusive: 500,
         timelineTo: 3, value: 0},
        {kind: 4, of: 0, timeline: 1, category: 0xffffffff, start: 2 ** 40, end: 2 ** 40 + 2 ** 33, depth: 2,
         count: 123456789, inclusive: 2 ** 35, timelineTo: 5, value: 0},
        {kind: 2, of: 2, timeline: 9, category: 0, start: 900, end: 4000, depth: 0, count: 1, inclusive: 3100,
         timelineTo: 2, value: 0},
        {kind: 3, of: 3, timeline: 9, category: 7, start: 900, end: 900, depth: 0, count: 1, inclusive: 0,
         timelineTo: 9, value: -2.5},
        {kind: 5, of: 1, timeline: 0, category: 1, start: 0, end: 70, depth: 0, count: 40, inclusive: 0,
         timelineTo: 0, value: NaN},
        // a preview box's next categories: only category and totals are written
        {kind: 4, of: 0, timeline: 0, category: 6, start: 0, end: 70, depth: 0, count: 3, inclusive: 65,
         timelineTo: 0, value: 0},
        {kind: 4, of: 0, timeline: 0, category: 0xffffffff, start: 0, end: 70, depth: 0, count: 1, inclusive: 70,
         timelineTo: 0, value: 0},
        {kind: 4, of: 0, timeline: 0, category: 8, start: 0, end: 70, depth: 1, count: 2, inclusive: 9,
         timelineTo: 0, value: 0},
    ];
    const w = api.decodePacked(pack(items));
    t.ok(w.n === 8 && !w.cut && w.incomplete && w.t0 === 7 && w.t1 === 2 ** 40 && w.bytes > 32, 'packed header');
    const cols = {kind: 'kind', of: 'of', timeline: 'timeline', category: 'category', start: 'start', end: 'end',
                  depth: 'depth', count: 'count', inclusive: 'inclusive', timelineTo: 'timelineTo', value: 'value'};
    const bad = [];
    items.forEach((it, i) => {
        for (const [k, c] of Object.entries(cols)) {
            if (!Object.is(w[c][i], it[k])) {
                bad.push(`${i}.${k}: ${w[c][i]} != ${it[k]}`);
            }
        }
    });
    t.ok(bad.length === 0, 'packed items decode exactly (deltas, defaults, other category, NaN, shared boxes)',
         bad.join('\n'));
    const packedSize = (list) => pack(list).byteLength;
    // items 5 and 6: kind, flags, category (1 byte each), count 3 (1), inclusive 65 and 70 (2 each)
    t.ok(packedSize(items.slice(0, 7)) - packedSize(items.slice(0, 5)) === 11,
         'an item in the box of the item before takes kind, flags, category and its totals only');
    const throws = (buf) => {
        try {
            api.decodePacked(buf);
            return false;
        } catch (e) {
            return /window answer/.test(e.message);
        }
    };
    const whole = pack(items);
    t.ok(throws(new ArrayBuffer(12)), 'packed: short header refused');
    t.ok(throws(whole.slice(0, whole.byteLength - 3)), 'packed: truncated body refused');
    t.ok(throws(pack(items, {n: 7})), 'packed: fewer items than bytes refused');
    t.ok(throws(pack(items, {n: 9})), 'packed: more items than bytes refused');
    t.ok(throws(pack(items, {firstSame: true})), 'packed: a first item in the box before it refused');
    t.ok(throws(pack(items, {n: 1e9})), 'packed: absurd count refused before allocating');
    t.ok(throws(pack(items, {magic: 0x31574c53})), 'packed: SLW1 magic refused');
    const endless = pack([items[0]]);
    new Uint8Array(endless).fill(0xff, 34);
    t.ok(throws(endless), 'packed: endless varint refused');
    t.ok(api.decodePacked(pack([])).n === 0, 'packed: empty answer');

    const pool = new api.ColumnPool();
    const shift = (d) => items.map((it) => ({...it, start: it.start + d, end: it.end + d,
                                              value: it.kind === 3 ? it.value : 0}));
    const first = api.decodePacked(pack(items), pool);
    const second = api.decodePacked(pack(shift(10)), pool);
    const third = api.decodePacked(pack(shift(20).slice(0, 2)), pool);
    t.ok(first.start[0] === 1000 && second.start[0] === 1010 && third.start[0] === 1020 &&
         Object.is(first.value[4], NaN) && second.value[4] === 0 && third.n === 2 && third.start.length === 2,
         'pooled columns: the two answers before the latest keep their values');
    const fourth = api.decodePacked(pack(shift(30)), pool); // the first answer's set again
    t.ok(fourth.start[0] === 1030 && fourth.value[4] === 0 && fourth.value[3] === -2.5 && second.start[0] === 1010,
         'pooled columns: a set is reused in the fourth answer, every column rewritten');
}

function testServerMs(api)
{
    t.ok(api.serverMs('query;dur=1.250, encode;dur=0.500') === 1.75, 'Server-Timing durations summed');
    t.ok(Number.isNaN(api.serverMs(null)) && Number.isNaN(api.serverMs('cache')),
         'no Server-Timing duration: NaN');
}

function testRows(TimelineRows)
{
    // 0 process (children 2, 1 by sort key), 3 process (child 4), 5 orphan with a bad parent
    const rows = new TimelineRows({id: [0, 1, 2, 3, 4, 5], parent: [-1, 0, 0, -1, 3, 99],
                                   kind: [2, 3, 3, 2, 3, 0], name: ['p0', 't1', 't2', 'p3', 't4', 'x'],
                                   sort_key: [0, 5, 1, 1, 0, 2]});
    t.ok(JSON.stringify([...rows.shown]) === '[0,2,1,3,4,5]', 'preorder by sort key, bad parent at top');
    rows.toggle(0);
    t.ok(JSON.stringify([...rows.shown]) === '[0,3,4,5]' && rows.rowOf[1] === 0 && rows.rowOf[2] === 0,
         'collapsed row hides and stands for its children');
    t.ok(JSON.stringify(rows.queryIds(0, 1).sort()) === '[0,1,2]', 'a collapsed row queries its descendants');
    const h = rows.totalHeight;
    t.ok(rows.fitDepth(4, 3) && !rows.fitDepth(4, 1), 'lanes only grow');
    rows.layout();
    t.ok(rows.totalHeight === h + 3 * 16, 'a deeper state grows its row by lanes');
    const [a, b] = rows.visibleRange(rows.top[1] + 1, rows.top[2] + 1);
    t.ok(a === 1 && b === 3, `visible rows from a band (${a}, ${b})`);
    t.ok(rows.foldRow(4, 0) === 4 && rows.foldRow(4, 1) === 3 && rows.foldRow(4, 2) === 3 &&
         rows.foldRow(4, 3) === 1 && rows.foldRow(0, 1) === 0, 'fold rows as slog_reader_fold_row');
    t.ok(rows.groupSize(1, 0) === 3 && rows.groupSize(3, 1) === 2, 'group sizes');
    t.ok(rows.path(4) === 'p3 / t4', 'path');
}

/** A deep window ("104.141 ms" at both ends before) and counter values are written so they can be told apart. */
function testWindowLabel(f)
{
    const [a, b] = f.formatWindow(104141000, 104141020, 1e9);
    t.ok(a !== b && a.startsWith('104.141') && b.startsWith('104.14102'), `a 20 ns window's ends differ (${a}, ${b})`);
    t.ok(f.formatWindow(0, 1e9, 1e9).join('|') === '0 ns|1 s', 'a wide window keeps 6 digits');
    t.ok(f.formatValue(0.48123456) === '0.481235' && f.formatValue(124000000) === '124,000,000',
         'counter values: six significant digits');
}

/** Near-white categories are drawn darker, against the rows; every other colour as the file says. */
function testPalette(pal)
{
    const colours = ['#ffffffff', '#f0f0f0ff', '#1f77b4ff', '#e377c2ff', '#dbdb8dff', '#c7c7c7ff', '#aec7e880'];
    const p = new pal.Palette(colours.map((rgba, id) => ({id, rgba, name: `c${id}`, kind: 'state'})));
    const rowBand = pal.luminance(0xf7, 0xf8, 0xfa);
    const contrast = (id) => (rowBand + 0.05) / (pal.luminance(...p.categories[id].rgbaBytes.slice(0, 3)) + 0.05);
    t.ok(contrast(0) >= 2.5 && contrast(1) >= 2.5 && p.categories[0].darkened,
         `white and near-white drawn with contrast (${contrast(0).toFixed(2)}, ${contrast(1).toFixed(2)})`);
    t.ok(p.style(0) === 'rgba(148,148,148,1)' && p.rgba32(0) === ((255 << 24 | 148 << 16 | 148 << 8 | 148) >>> 0),
         `style and packed colour agree (${p.style(0)})`);
    t.ok(p.style(2) === 'rgba(31,119,180,1)' && p.style(3) === 'rgba(227,119,194,1)' &&
         p.style(4) === 'rgba(219,219,141,1)' && p.style(5) === 'rgba(199,199,199,1)' &&
         p.style(6) === `rgba(174,199,232,${0x80 / 255})` && !p.categories.slice(2).some((c) => c.darkened),
         'other colours unchanged');
}

/** Statistics columns by kind: arrows are not timed ("-"), counters show vmin/vmax/mean. */
function testStatValue(ps)
{
    const arrow = {kind: 'arrow', count: 16, inclusive: 0, exclusive: 0, min: 0, max: 0, mean: 0};
    const counter = {kind: 'counter', count: 3, vmin: 10, vmax: 40, vsum: 75, mean: 25};
    const state = {kind: 'state', count: 2, inclusive: 1010, exclusive: 1000, min: 10, max: 1000, mean: 505};
    const cols = ['count', 'inclusive', 'exclusive', 'min', 'max', 'mean'];
    const row = (r) => JSON.stringify(cols.map((k) => ps.statValue(r, k) ?? null));
    t.ok(row(arrow) === '[16,"-","-","-","-","-"]', `arrow times are "-" (${row(arrow)})`);
    t.ok(row(counter) === '[3,null,null,10,40,25]', `counter min, max, mean are vmin, vmax, mean (${row(counter)})`);
    t.ok(row(state) === '[2,1010,1000,10,1000,505]', 'state times as they are');
}

/**
 * Hit test of arrows and counter samples: rows 0 and 1 threads, row 2 a
 * counter track; one tick per pixel from x = 220.
 */
function testPick(render, pal, TimelineRows, Geometry)
{
    const rows = new TimelineRows({id: [0, 1, 2], parent: [-1, -1, -1], kind: [3, 3, 5], name: ['a', 'b', 'c'],
                                   sort_key: [0, 1, 2]});
    rows.duration = 1000;
    const g = new Geometry(1220, 600, {t0: 0, t1: 1000}, rows, 0);
    const p = new pal.Palette([0, 1, 2].map((id) => ({id, rgba: '#1f77b4ff', name: `c${id}`, kind: 'state'})));
    const items = [[0, 0, 0, 0, 100, 200, 0], [2, 0, 1, 1, 300, 700, 0], [3, 2, 2, 2, 100, 100, 5],
                   [3, 2, 2, 2, 500, 500, 9]]; // kind, timeline, timelineTo, category, start, end, value
    const col = (k) => items.map((it) => it[k]);
    const w = {n: items.length, kind: col(0), of: col(0), timeline: col(1), timelineTo: col(2), category: col(3),
               start: col(4), end: col(5), value: col(6), depth: [0, 0, 0, 0], count: [1, 1, 1, 1],
               inclusive: [100, 400, 0, 0]};
    const at = (t, y) => render.pick(g, w, p, 220 + t, y);
    const midY = (g.rowMid(0) + g.rowMid(1)) / 2;
    t.ok(at(500, midY) === 1 && at(500, midY + 2.5) === 1, 'an arrow is picked on and near its line');
    t.ok(at(500, midY + 8) === -1 && at(900, g.rowMid(0)) === -1, 'an arrow is not picked away from its line');
    t.ok(at(150, g.rowMid(0)) === 0, 'a state is picked before anything else');
    const cy = g.rowMid(2);
    t.ok(at(300, cy) === 2 && at(500, cy) === 3 && at(950, cy) === 3,
         'a counter row picks the sample in force at the cursor');
    t.ok(at(50, cy) === -1 && at(500, g.rowMid(0)) === -1, 'no counter sample before the first, nor in other rows');
}

/** Arrows fade as they crowd the pixel columns, never out of sight. */
function testArrowAlpha(render)
{
    const a = render.arrowAlpha;
    t.ok(a(0, 1000) === 0.6 && a(250, 1000) === 0.6, 'sparse arrows: opacity 0.6');
    t.ok(a(500, 1000) === 0.3 && a(1000, 1000) === 0.15, 'denser arrows fade with lines per column');
    t.ok(a(14000, 1150) === 0.15 && a(1e6, 1) === 0.15 && a(5, 0) === 0.15,
         'a halo exchange seen whole (12 lines per column): 0.15, no lower');
}

const [f, u, api, tr, pal, ps, render, geo] = await Promise.all(
    ['format.js', 'url_state.js', 'api.js', 'timeline_rows.js', 'palette.js', 'panel_stats.js', 'render.js',
     'geometry.js'].map(load));
testIdLists(f);
testUrlState(u);
testDecode(api);
testDecodePacked(api);
testServerMs(api);
testRows(tr.TimelineRows);
testWindowLabel(f);
testPalette(pal);
testStatValue(ps);
testPick(render, pal, tr.TimelineRows, geo.Geometry);
testArrowAlpha(render);
process.exit(t.done());
