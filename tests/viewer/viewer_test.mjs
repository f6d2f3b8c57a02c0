// SPDX-License-Identifier: MIT
//
// viewer_test.mjs - the viewer end to end in headless chromium (TAP): a
// corpus Chrome trace is imported with slog-import, served by slog-serve,
// and opened; the test zooms in 10 steps, pans, clicks a state and compares
// its args panel with `slog-query --format jsonl`, selects a range and
// compares the statistics with `slog-query --stats`, finds the next,
// previous and longest states of its category, hides a category,
// collapses a row, goes back in history and follows a deep link; then it
// opens 10^4 timelines (slog-synth) and checks that only the rows on screen
// are queried.  The frame's two ways of filling rectangles (paths, pixel
// layer) are compared pixel for pixel, and the provisional frame's stretch
// of the last one is checked on a drawn bar, and a zoomed-out frame whose
// rows are copied from rows drawn alike is compared with one drawn row by
// row.  What is on screen is checked on screenshots (not blank; the
// category's colour in its row, gone once hidden).  viewer_kinds.mjs adds
// arrows, counters, file switching and empty views.  Never timed: only the
// answers are checked.
//
//   node viewer_test.mjs SLOG_SERVE SLOG_IMPORT SLOG_QUERY SLOG_SYNTH CORPUS_DIR WORKDIR

import {existsSync, mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';

import {launchBrowser, run, SKIP, startServer, tap} from './harness.mjs';
import {checkKinds} from './viewer_kinds.mjs';
import {colourCounts, maxDifference, rgbOf} from './pixels.mjs';

const [serveExe, importExe, queryExe, synthExe, corpusDir, workDir] = process.argv.slice(2);
const TRACE = join(corpusDir || '', 'catapult', 'x_event_trace.json');
const t = tap();

function jsonl(text)
{
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

function query(slog, args)
{
    return jsonl(run(queryExe, [slog, ...args, '--format', 'jsonl']));
}

function argText(v)
{
    return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A state with args, wide enough, shallow, on a row shown at the top of the screen. */
function chooseState(slog)
{
    return query(slog, []).find((d) => d.kind === 'state' && d.args && Object.keys(d.args).length >= 2 &&
                                       d.end - d.start >= 100000 && d.depth <= 2 &&
                                       [1, 2, 4].includes(d.timeline_id));
}

async function openViewer(browser, url)
{
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction(() => window.slogViewer !== undefined);
    await page.evaluate(() => window.slogViewer.ready);
    return page;
}

const view = (page) => page.evaluate(() => window.slogViewer.view());
const idle = (page) => page.evaluate(() => window.slogViewer.idle());
const goto = (page, a, b) => page.evaluate(([x, y]) => window.slogViewer.goto(x, y), [a, b]);

async function checkOpen(page, info)
{
    const v = await view(page);
    t.ok(v.t0 === 0 && v.t1 === info.duration, 'opens on the whole trace', JSON.stringify(v));
    t.ok(v.rows.length >= 5, `rows on screen (${v.rows.length})`);
    const box = await page.locator('#timeline').boundingBox();
    const shot = await page.screenshot();
    const c = await colourCounts(page, shot, {x: box.x + 220, y: box.y, w: box.width - 220, h: box.height});
    t.ok(c.colours >= 10, `timeline not blank (${c.colours} colours)`);
}

/**
 * rect_batch.js draws many rectangles into a pixel layer and few as paths:
 * the same whole-pixel rectangles in the page's palette must come out the
 * same both ways (within premultiplied-alpha rounding), over a background,
 * and a rectangle thinner than a pixel must still show.
 */
async function checkRectBatch(page)
{
    const r = await page.evaluate(async () => {
        const {RectBatch} = await import('/rect_batch.js');
        const palette = window.slogViewer.viewer.palette;
        const keys = palette.categories.map((c) => c.id);
        const draw = (how, cells = 5000) => {
            const c = document.createElement('canvas');
            c.width = 400;
            c.height = 300;
            const ctx = c.getContext('2d');
            ctx.fillStyle = '#f7f8fa';
            ctx.fillRect(0, 0, 400, 300);
            const b = new RectBatch();
            for (let i = 0; i < cells; i++) { // 100 x 50 cells of 4 x 6 px, each a rectangle of 1-3 x 1-5 px
                const x = (i % 100) * 4;
                const y = Math.floor(i / 100) * 6;
                RectBatch.push(b.list(keys[i % keys.length]), x, y, x + 1 + (i % 3), y + 1 + (i % 5));
            }
            RectBatch.push(b.list(keys[0]), 10.2, 299.1, 10.4, 299.3); // a fifth of a pixel: still one pixel
            b[how](ctx, palette);
            return ctx.getImageData(0, 0, 400, 300).data;
        };
        const compare = (a, p) => {
            let worst = 0;
            let differ = 0;
            for (let i = 0; i < a.length; i++) {
                const d = Math.abs(a[i] - p[i]);
                worst = Math.max(worst, d);
                differ += d > 2 ? 1 : 0;
            }
            return {worst, differ};
        };
        const a = draw('fillPixels');
        const {worst, differ} = compare(a, draw('fillPaths'));
        // the layer is reused: a smaller frame after it must not keep the first one's pixels
        const second = compare(draw('fillPixels', 700), draw('fillPaths', 700));
        // where rectangles overlap, the colour used last in the frame wins, whatever an earlier frame did
        const overlap = (() => {
            const c = document.createElement('canvas');
            c.width = 20;
            c.height = 20;
            const ctx = c.getContext('2d');
            const b = new RectBatch();
            const frame = (first, last) => {
                b.reset();
                RectBatch.push(b.list(first), 0, 0, 10, 10);
                RectBatch.push(b.list(last), 0, 0, 10, 10);
                ctx.clearRect(0, 0, 20, 20);
                b.fillPixels(ctx, palette);
                return Array.from(ctx.getImageData(5, 5, 1, 1).data);
            };
            return {one: frame(keys[1], keys[0]), two: frame(keys[0], keys[1]),
                    want: [palette.categories[0].rgbaBytes, palette.categories[1].rgbaBytes]};
        })();
        const at = (px, x, y) => Array.from(px.slice((y * 400 + x) * 4, (y * 400 + x) * 4 + 3));
        return {worst, differ, second, overlap, thin: at(a, 10, 299), background: at(a, 399, 299), cell: at(a, 0, 0),
                expect: palette.categories[0].rgbaBytes};
    });
    t.ok(r.differ === 0, `rectangles as pixels equal rectangles as paths (largest channel difference ${r.worst})`,
         JSON.stringify(r));
    t.ok(r.second.differ === 0, `a smaller frame drawn next through the same layer keeps nothing of the first (largest channel difference ${r.second.worst})`,
         JSON.stringify(r.second));
    const near = (got, rgba) => got.slice(0, 3).every((v, k) => Math.abs(v - rgba[k]) <= 2);
    t.ok(near(r.overlap.one, r.overlap.want[0]) && near(r.overlap.two, r.overlap.want[1]),
         'overlapping rectangles: the colour used last in the frame wins, whatever the frame before did', JSON.stringify(r.overlap));
    t.ok(r.thin.join() !== r.background.join(), 'a rectangle thinner than a pixel still shows', JSON.stringify(r));
    const e = r.expect;
    const want = [0, 1, 2].map((k) => Math.round(e[k] * e[3] / 255 + [0xf7, 0xf8, 0xfa][k] * (1 - e[3] / 255)));
    t.ok(r.cell.every((v, k) => Math.abs(v - want[k]) <= 2), `first category's colour blended over the background (${r.cell} ~ ${want})`);
}

/**
 * frame_stretch.js maps the last frame's plot to a new window: a 2-pixel
 * red bar at time 300 drawn for window [0, 1000) must land at time 300's
 * x in window [200, 700), twice as wide; a changed layout key refuses.
 */
async function checkFrameStretch(page)
{
    const r = await page.evaluate(async () => {
        const {FrameStretch} = await import('/frame_stretch.js');
        const c = document.createElement('canvas');
        c.width = 1220;
        c.height = 40;
        const ctx = c.getContext('2d');
        const geometry = (t0, t1) => ({t0, t1, width: 1220, plotX: 220, plotW: 1000});
        const xOf = (g, t) => g.plotX + (t - g.t0) / (g.t1 - g.t0) * g.plotW;
        const before = geometry(0, 1000);
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, 1220, 40);
        ctx.fillStyle = '#f00';
        ctx.fillRect(xOf(before, 300), 0, 2, 40);
        const s = new FrameStretch();
        s.drawn(before, 'L');
        const after = geometry(200, 700);
        const refused = s.take(c, after, 'other') === null;
        const paint = s.take(c, after, 'L');
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, 1220, 40);
        paint(ctx);
        const row = ctx.getImageData(0, 20, 1220, 1).data;
        const red = [];
        for (let x = 0; x < 1220; x++) {
            if (row[4 * x] > 200 && row[4 * x + 1] < 60) {
                red.push(x);
            }
        }
        return {refused, red, want: xOf(after, 300)};
    });
    t.ok(r.refused, 'a stretch over another layout is refused');
    t.ok(r.red.length === 4 && r.red[0] === r.want,
         `the last frame stretched to the new window: bar at ${r.red} (want 4 px from ${r.want})`);
}

/**
 * An answer late by more than a frame: the view shows the new window at
 * once as a provisional frame (the old answer stretched, the status line
 * marked "…"), and goto() resolves only with the exact frame.  Window
 * answers are held back 1.5 s by the page's request routing.
 */
async function checkLateAnswer(page)
{
    const hold = (route) => new Promise((resolve) => setTimeout(resolve, 1500)).then(() => route.continue());
    await page.route('**/api/window?*', hold);
    try {
        const before = await view(page);
        const frames0 = await page.evaluate(() => window.slogViewer.frames);
        const t0 = before.t0 + Math.floor((before.t1 - before.t0) / 4);
        const t1 = before.t1 - Math.floor((before.t1 - before.t0) / 4);
        const asked = Date.now();
        const drawn = page.evaluate(([a, b]) => window.slogViewer.goto(a, b).then(() => Date.now()), [t0, t1]);
        await page.waitForTimeout(500);
        const mid = await page.evaluate(() => ({frames: window.slogViewer.frames, view: window.slogViewer.view(),
                                                status: document.getElementById('status').textContent}));
        t.ok(mid.frames > frames0 && mid.view.t0 === t0 && mid.status.endsWith('\u2026'),
             `a late answer: a provisional frame within 0.5 s (frames ${frames0} -> ${mid.frames}, "${mid.status}")`);
        const resolvedAt = await drawn;
        const exact = await page.evaluate(() => document.getElementById('status').textContent);
        t.ok(!exact.endsWith('\u2026') && resolvedAt - asked >= 1400,
             `goto resolves with the exact frame, after the held answer (${resolvedAt - asked} ms, "${exact}")`);
        const moving = await page.evaluate(async () => { // a view that keeps moving ahead of its answers
            const v = window.slogViewer.viewer;
            const before = v.frames;
            for (let k = 0; k < 12; k++) { // one change an animation frame
                v.setView({t0: v.view.t0 * 0.99, t1: v.view.t1 * 0.99});
                await new Promise((resolve) => requestAnimationFrame(resolve));
            }
            await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
            return v.frames - before;
        });
        t.ok(moving >= 9, `while the view keeps moving, a provisional frame an animation frame (${moving} for 12 changes)`);
        await page.evaluate(() => window.slogViewer.idle()); // the last window, drawn exactly
    } finally {
        await page.unroute('**/api/window?*', hold);
    }
}

async function checkZoom(page)
{
    const before = await view(page);
    const where = await page.evaluate(() => window.slogViewer.where(1, 0, 0));
    const x = (where.plotLeft + where.plotRight) / 2;
    await page.mouse.move(x, where.y);
    const frames0 = await page.evaluate(() => window.slogViewer.frames);
    for (let k = 0; k < 10; k++) {
        await page.keyboard.press('w');
        await idle(page);
    }
    const after = await view(page);
    const ratio = (after.t1 - after.t0) / (before.t1 - before.t0);
    t.ok(Math.abs(ratio - 0.8 ** 10) < 0.002, `10 zoom steps: width x${ratio.toFixed(4)} (0.8^10)`);
    const anchor = (before.t0 + before.t1) / 2;
    const inside = (anchor - after.t0) / (after.t1 - after.t0);
    t.ok(Math.abs(inside - 0.5) < 0.01, `zoom kept the time under the cursor (${inside.toFixed(3)})`);
    const frames = await page.evaluate(() => window.slogViewer.frames);
    t.ok(frames >= frames0 + 10, `frames counted (${frames0} -> ${frames})`);
}

async function checkPan(page)
{
    const before = await view(page);
    const w = await page.evaluate(() => window.slogViewer.where(1, 0, 0));
    const x = (w.plotLeft + w.plotRight) / 2;
    await page.mouse.move(x, w.y);
    await page.mouse.down();
    await page.mouse.move(x - 150, w.y, {steps: 5});
    await page.mouse.move(x - 300, w.y, {steps: 5});
    await page.mouse.up();
    const after = await idle(page);
    const expected = 300 * (before.t1 - before.t0) / (w.plotRight - w.plotLeft);
    const moved = after.t0 - before.t0;
    t.ok(Math.abs(moved - expected) <= expected * 0.01 + 2, `drag pans by 300 px (${moved} ns, want ${expected.toFixed(0)})`);
}

async function argsTable(page)
{
    await page.waitForSelector('#panel-selected[data-loaded="true"]');
    return page.evaluate(() => {
        const out = {};
        for (const tr of document.querySelectorAll('#pick-args tbody tr')) {
            out[tr.dataset.key] = tr.cells[1].textContent;
        }
        const fields = {};
        for (const tr of document.querySelectorAll('#pick-fields tbody tr')) {
            fields[tr.cells[0].textContent] = tr.cells[1].textContent;
        }
        return {args: out, fields};
    });
}

function sameArgs(shown, expected)
{
    const want = Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, argText(v)]));
    return JSON.stringify(Object.entries(shown).sort()) === JSON.stringify(Object.entries(want).sort());
}

const leadingInt = (text) => Number(text.split(' ')[0].replace(/,/g, ''));

async function showState(page, s)
{
    const len = s.end - s.start;
    await goto(page, s.start - len, s.end + len);
    const p = await page.evaluate(([tl, d, at]) => window.slogViewer.where(tl, d, at),
                                  [s.timeline_id, s.depth, (s.start + s.end) / 2]);
    t.ok(p !== null, `row of ${s.timeline} on screen`);
    return p;
}

async function checkClick(page, slog, s)
{
    const p = await showState(page, s);
    await page.mouse.click(p.x, p.y);
    const shown = await argsTable(page);
    t.ok(sameArgs(shown.args, s.args), `args panel shows the args of slog-query (${s.category})`,
         `${JSON.stringify(shown.args)} vs ${JSON.stringify(s.args)}`);
    t.ok(leadingInt(shown.fields.start) === s.start && leadingInt(shown.fields.end) === s.end,
         'exact start and end shown', JSON.stringify(shown.fields));
    t.ok(shown.fields.category === s.category, 'category name shown');
    return p;
}

async function statsTable(page)
{
    await page.waitForSelector('#panel-stats[data-loaded="true"]');
    return page.evaluate(() => [...document.querySelectorAll('#stats-table tbody tr')].map(
        (tr) => ({category: Number(tr.dataset.category), count: Number(tr.dataset.count),
                  inclusive: Number(tr.dataset.inclusive), exclusive: Number(tr.dataset.exclusive)})));
}

function compareStats(shown, expected)
{
    const key = (r) => `${r.category}:${r.count}:${r.inclusive ?? 0}:${r.exclusive ?? 0}`;
    const a = shown.map(key).sort();
    const b = expected.filter((r) => r.kind === 'state').map((r) => key({...r, category: r.category_id})).sort();
    const bAll = expected.map((r) => key({...r, category: r.category_id})).sort();
    return JSON.stringify(a) === JSON.stringify(bAll) || JSON.stringify(a) === JSON.stringify(b);
}

async function checkSelection(page, slog, where)
{
    const x0 = where.plotLeft + (where.plotRight - where.plotLeft) * 0.2;
    const x1 = where.plotLeft + (where.plotRight - where.plotLeft) * 0.75;
    await page.keyboard.down('Shift');
    await page.mouse.move(x0, where.y);
    await page.mouse.down();
    await page.mouse.move(x1, where.y, {steps: 6});
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const sel = (await view(page)).selection;
    t.ok(sel && sel.t1 > sel.t0, 'Shift+drag selects a range', JSON.stringify(sel));
    const shown = await statsTable(page);
    const expected = query(slog, ['--stats', '--window', `${sel.t0}ns:${sel.t1}ns`]);
    t.ok(shown.length > 0 && compareStats(shown, expected),
         `statistics equal slog-query --stats (${shown.length} categories)`,
         `${JSON.stringify(shown)}\n${JSON.stringify(expected)}`);
    await page.click('#stats-table th[data-key="count"]');
    const counts = (await statsTable(page)).map((r) => r.count);
    t.ok(counts.every((c, k) => k === 0 || counts[k - 1] >= c), 'sorted by count on a header click');
    return sel;
}

/** Find next/previous and the longest states of the picked state's category, against slog-query. */
async function checkSearch(page, slog, s)
{
    const same = query(slog, ['--no-args']).filter((d) => d.category_id === s.category_id);
    const next = same.filter((d) => d.start > s.start).sort((a, b) => a.start - b.start)[0];
    const picked = () => page.evaluate(() => {
        const p = window.slogViewer.viewer.picked;
        return p && {start: p.start, end: p.end, timeline: p.timeline};
    });
    await page.click('#tabs button[data-tab="search"]');
    await page.click('#find-next');
    await page.waitForFunction((st) => window.slogViewer.viewer.picked?.start !== st, s.start);
    const p = await picked();
    t.ok(next && p.start === next.start && p.timeline === next.timeline_id,
         `find next: the next ${s.category} (${p.start})`, JSON.stringify([p, next]));
    await page.click('#find-prev');
    await page.waitForFunction((st) => window.slogViewer.viewer.picked?.start !== st, p.start);
    t.ok((await picked()).start === s.start, 'find previous: back to the clicked state');
    await page.uncheck('#top-in-view');
    await page.click('#top-run');
    await page.waitForSelector('#top-table tbody tr');
    await page.click('#top-table tbody tr:nth-child(1)');
    await page.waitForFunction((st) => window.slogViewer.viewer.picked?.start !== st, s.start);
    const longest = Math.max(...same.map((d) => d.end - d.start));
    const top = await picked();
    t.ok(top.end - top.start === longest, `longest state of the category first (${longest} ns)`);
    await showState(page, s);
}

async function laneColour(page, s, rgb)
{
    await idle(page);
    const p = await page.evaluate(([tl, d, a, b]) => {
        const l = window.slogViewer.where(tl, d, a);
        const r = window.slogViewer.where(tl, d, b);
        return l && r && {x: Math.max(l.x, l.plotLeft), y: l.y - 7, w: Math.min(r.x, r.plotRight) - Math.max(l.x, l.plotLeft), h: 15};
    }, [s.timeline_id, s.depth, s.start, s.end]);
    return (await colourCounts(page, await page.screenshot(), p, rgb)).match;
}

async function checkToggle(page, s, categories)
{
    const rgb = rgbOf(categories.find((c) => c.id === s.category_id).rgba);
    await page.keyboard.press('Escape'); // the selection's tint would change every colour
    const before = await laneColour(page, s, rgb);
    t.ok(before > 100, `the category's colour in its row (${before} pixels)`);
    await page.click(`#legend input[data-category="${s.category_id}"]`);
    const after = await laneColour(page, s, rgb);
    t.ok(after === 0, `hidden category not drawn (${after} pixels)`);
    const key = await page.evaluate(() => window.slogViewer.viewer.data.key);
    t.ok(!key.split('|')[5].split(',').includes(String(s.category_id)), 'hidden category left out of the query');
    await page.click(`#legend input[data-category="${s.category_id}"]`);
    t.ok(await laneColour(page, s, rgb) === before, 'shown again');
}

async function checkCollapse(page)
{
    const w = await page.evaluate(() => window.slogViewer.where(0, 0, 0));
    await page.mouse.click(w.plotLeft - 210, w.rowTop + 8);
    const collapsed = await idle(page);
    t.ok(collapsed.rows.length === 1, `collapsing the process leaves one row (${collapsed.rows.length})`);
    const shot = await page.screenshot();
    const c = await colourCounts(page, shot, {x: w.plotLeft, y: w.rowTop, w: w.plotRight - w.plotLeft, h: 20});
    t.ok(c.colours >= 4, `the collapsed row draws its threads' items (${c.colours} colours)`);
    await page.mouse.click(w.plotLeft - 210, w.rowTop + 8);
    t.ok((await idle(page)).rows.length > 1, 'expanded again');
}

async function checkHistory(page)
{
    await page.waitForTimeout(1200);
    const h1 = await page.evaluate(() => location.hash);
    await page.keyboard.press('d');
    await idle(page);
    await page.waitForTimeout(1200);
    const h2 = await page.evaluate(() => location.hash);
    t.ok(h1 !== h2, 'the URL follows the view');
    await page.goBack();
    const v = await idle(page);
    const want = /t=(\d+),(\d+)/.exec(h1);
    t.ok(want && v.t0 === Number(want[1]) && v.t1 === Number(want[2]), 'back returns to the previous view',
         `${h1} vs ${JSON.stringify(v)}`);
}

async function checkDeepLink(browser, url, slog, s, sel)
{
    const hash = `#f=0&t=${s.start - 1000},${s.end + 1000}&sel=${sel.t0},${sel.t1}` +
                 `&pick=0,${s.timeline_id},${s.category_id},${s.start},${s.end},${s.depth}`;
    const page = await openViewer(browser, url + hash);
    const v = await idle(page);
    t.ok(v.t0 === s.start - 1000 && v.t1 === s.end + 1000, 'deep link opens its window', JSON.stringify(v));
    const shown = await argsTable(page);
    t.ok(sameArgs(shown.args, s.args), 'deep link shows the picked drawable\'s args');
    await page.click('#tabs button[data-tab="stats"]');
    const stats = await statsTable(page);
    t.ok(compareStats(stats, query(slog, ['--stats', '--window', `${sel.t0}ns:${sel.t1}ns`])),
         'deep link shows the selection\'s statistics');
    t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
    await page.close();
}

/**
 * 10^4 timelines (slog-synth: 100 processes of 100 threads): only the rows
 * on screen are laid out and queried, also after expanding everything and
 * scrolling to the end.
 */
async function checkManyRows(browser, synthExe)
{
    const slog = join(workDir, 'rows1e4.slog');
    run(synthExe, ['--states', '200000', '--timelines', '10000', '-o', slog, '--quiet']);
    const server = await startServer(serveExe, [slog]);
    try {
        const page = await openViewer(browser, server.url);
        const top = await idle(page);
        t.ok(top.rows.length > 3 && top.rows.length < 60, `10^4 timelines: ${top.rows.length} top-level rows on screen`);
        await page.evaluate(() => {
            location.hash = `#f=0&x=0-${window.slogViewer.viewer.rows.count - 1}`;
        });
        let v = await idle(page);
        for (let k = 0; k < 3; k++) { // rows grow as deeper states show up: scroll again
            await page.evaluate(() => {
                const el = document.getElementById('scroller');
                el.scrollTop = el.scrollHeight;
            });
            v = await idle(page);
        }
        const asked = await page.evaluate(() => window.slogViewer.viewer.data.req.ids);
        const last = await page.evaluate(() => window.slogViewer.viewer.rows.shown.at(-1));
        t.ok(v.rows.length < 80 && v.rows.includes(last), `all expanded, scrolled to the end: ${v.rows.length} rows on screen, the last among them`);
        t.ok(v.rows.every((r) => asked.includes(r)) && asked.length < 100,
             `only rows near the screen queried (${asked.length})`);
        const shot = await page.screenshot();
        const box = await page.locator('#timeline').boundingBox();
        const c = await colourCounts(page, shot, {x: box.x + 220, y: box.y, w: box.width - 220, h: box.height});
        t.ok(c.colours >= 10, `drawn (${c.colours} colours)`);
        t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
        await page.close();
    } finally {
        await server.stop();
    }
}

/**
 * slog-serve over a damaged file and a good one serves the good one: the
 * file list says "(failed)" beside the damaged one, and the viewer opens
 * the first file that works (the server refused to start before).
 */
async function checkFailedFile(browser, synthExe)
{
    const good = join(workDir, 'good.slog');
    const bad = join(workDir, 'bad.slog');
    run(synthExe, ['--states', '2000', '--timelines', '4', '-o', good, '--quiet']);
    writeFileSync(bad, 'not an HDF5 file at all\n'.repeat(100));
    const server = await startServer(serveExe, [bad, good]);
    try {
        const page = await openViewer(browser, server.url);
        const v = await idle(page);
        const options = await page.$$eval('#file option', (os) => os.map((o) => o.textContent));
        t.ok(options.length === 2 && options[0] === 'bad.slog (failed)' && options[1] === 'good.slog',
             'a damaged file is listed as failed beside a good one', options.join(' | '));
        t.ok(v.file === 1 && v.rows.length > 0, `the viewer opens the good file (file ${v.file})`);
        t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
        await page.close();
    } finally {
        await server.stop();
    }
}

/**
 * Dense arrows seen whole (slog-synth: 50 000 arrows between 4 threads, some
 * 50 lines per pixel column) fade to 0.15 and are laid over the frame once,
 * so hiding them changes no pixel of the plot by more than 0.15 of a
 * channel's range (and rounding): at 0.6, stacked segment by segment by
 * Chromium, they washed out every state of an 8-rank halo exchange.
 */
async function checkDenseArrows(browser, synthExe)
{
    const slog = join(workDir, 'arrows5e4.slog');
    run(synthExe, ['--states', '20000', '--timelines', '4', '--arrows', '50000', '-o', slog, '--quiet']);
    const server = await startServer(serveExe, [slog]);
    try {
        const cats = await (await fetch(`${server.url}api/categories?f=0`)).json();
        const arrow = cats.find((c) => c.kind === 'arrow');
        const page = await openViewer(browser, server.url);
        await idle(page);
        const box = await page.locator('#timeline').boundingBox();
        const clip = {x: box.x + 220, y: box.y, width: box.width - 240, height: box.height};
        const shown = await page.screenshot({clip});
        await page.click(`#legend input[data-category="${arrow.id}"]`);
        await idle(page);
        const hidden = await page.screenshot({clip});
        const most = await maxDifference(page, shown, hidden);
        t.ok(most > 0 && most <= 0.15 * 255 + 3,
             `dense arrows fade and do not stack: a pixel changes by ${most} at most when they are hidden`);
        t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
        await page.close();
    } finally {
        await server.stop();
    }
}

/**
 * A zoomed-out view of 2*10^6 states on 64 threads draws its folded
 * previews once per kind of row and copies the other rows: the frame must
 * be pixel for pixel the one drawn row by row.
 */
async function checkCopiedRows(browser, synthExe)
{
    const slog = join(workDir, 's2e6.slog');
    run(synthExe, ['--states', '2000000', '--timelines', '64', '-o', slog, '--quiet']);
    const server = await startServer(serveExe, [slog]);
    try {
        const page = await openViewer(browser, server.url);
        const r = await page.evaluate(async () => {
            const v = window.slogViewer.viewer;
            const g = v.geometry();
            const {drawPreviews} = await import('/render_density.js');
            const draw = (copyRows) => {
                const c = document.createElement('canvas');
                c.width = v.canvas.width;
                c.height = v.canvas.height;
                const ctx = c.getContext('2d');
                ctx.fillStyle = '#fff';
                ctx.fillRect(0, 0, c.width, c.height);
                const copied = drawPreviews(ctx, g, v.data, v.palette, copyRows);
                return {copied, px: ctx.getImageData(0, 0, c.width, c.height).data};
            };
            const a = draw(true);
            const b = draw(false);
            let differ = 0;
            let inked = 0;
            for (let i = 0; i < a.px.length; i += 4) {
                differ += a.px[i] !== b.px[i] || a.px[i + 1] !== b.px[i + 1] || a.px[i + 2] !== b.px[i + 2] ? 1 : 0;
                inked += b.px[i] !== 255 || b.px[i + 1] !== 255 || b.px[i + 2] !== 255 ? 1 : 0;
            }
            return {copied: a.copied, differ, inked};
        });
        t.ok(r.copied > 0 && r.inked > 1000, `rows drawn alike are copied (${r.copied} rows, ${r.inked} pixels inked)`);
        t.ok(r.differ === 0, `copied rows equal rows drawn one by one (${r.differ} pixels differ)`);
        t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
        await page.close();
    } finally {
        await server.stop();
    }
}

async function main()
{
    if (!existsSync(TRACE)) {
        console.log(`1..0 # SKIP corpus trace ${TRACE} not found`);
        return SKIP;
    }
    mkdirSync(workDir, {recursive: true});
    const slog = join(workDir, 'x_event_trace.slog');
    run(importExe, [TRACE, '-o', slog, '--quiet']);
    const server = await startServer(serveExe, [slog]);
    const {browser, close} = await launchBrowser();
    try {
        const info = await (await fetch(`${server.url}api/info?f=0`)).json();
        const categories = await (await fetch(`${server.url}api/categories?f=0`)).json();
        const s = chooseState(slog);
        t.ok(s !== undefined, 'a state with args to click');
        const page = await openViewer(browser, server.url);
        await checkOpen(page, info);
        await checkRectBatch(page);
        await checkFrameStretch(page);
        await checkLateAnswer(page);
        await checkZoom(page);
        await checkPan(page);
        const where = await checkClick(page, slog, s);
        const sel = await checkSelection(page, slog, where);
        await checkSearch(page, slog, s);
        await checkToggle(page, s, categories);
        await checkCollapse(page);
        await checkHistory(page);
        t.ok(page.errors.length === 0, 'no page errors', page.errors.join('\n'));
        await checkDeepLink(browser, server.url, slog, s, sel);
        await checkManyRows(browser, synthExe);
        await checkCopiedRows(browser, synthExe);
        await checkDenseArrows(browser, synthExe);
        await checkFailedFile(browser, synthExe);
        await checkKinds({browser, t, serveExe, importExe, workDir, openViewer});
    } finally {
        await close();
        await server.stop();
    }
    return t.done();
}

main().then((code) => process.exit(code), (e) => {
    t.ok(false, 'test ran to the end', e.stack);
    t.done();
    process.exit(1);
});
