// SPDX-License-Identifier: MIT
//
// viewer_kinds.mjs - browser checks of the viewer on a small crafted Chrome
// trace with every drawable kind (two threads' states, a flow arrow between
// them, a counter track) and on an empty trace, served together: arrows
// and counter samples are hovered and clicked (a pick link to the arrow
// keeps its destination); the Statistics panel shows
// "-" for arrow times and counters' min, max and mean; a selection is
// clamped to the trace; the window label tells a 20-tick window's ends
// apart; the file drop-down writes the URL (Back returns); and the status
// line says why nothing is drawn (empty file, every category hidden,
// unknown file in the link, where slogViewer.ready rejects); and the layout
// checks of viewer_layout.mjs.  Called from viewer_test.mjs.

import {writeFileSync} from 'node:fs';
import {join} from 'node:path';

import {run, startServer} from './harness.mjs';
import {checkSharedCounterRow, checkSmallWindow} from './viewer_layout.mjs';

const MIX = {traceEvents: [
    {pid: 1, tid: 1, ts: 0, ph: 'X', name: 'work', cat: 'c', dur: 1000, args: {n: 1}},
    {pid: 1, tid: 1, ts: 100, ph: 's', name: 'msg', cat: 'c', id: '7'},
    {pid: 1, tid: 2, ts: 900, ph: 'X', name: 'recv', cat: 'c', dur: 50},
    {pid: 1, tid: 2, ts: 900, ph: 'f', bp: 'e', name: 'msg', cat: 'c', id: '7'},
    {pid: 1, ts: 0, ph: 'C', name: 'mem', args: {bytes: 10}},
    {pid: 1, ts: 300, ph: 'C', name: 'mem', args: {bytes: 40}},
    {pid: 1, ts: 700, ph: 'C', name: 'mem', args: {bytes: 25}},
    {pid: 1, tid: 1, ts: 104000, ph: 'X', name: 'work', cat: 'c', dur: 10}, // 104 ms: 6 digits are too few
]};

function importJson(importExe, workDir, name, trace)
{
    const json = join(workDir, `${name}.json`);
    const slog = join(workDir, `${name}.slog`);
    writeFileSync(json, JSON.stringify(trace));
    run(importExe, [json, '-o', slog, '--quiet']);
    return slog;
}

/** Wait until @p fn(arg) is true in the page; false after @p ms instead of throwing. */
async function until(page, fn, arg, ms = 5000)
{
    try {
        await page.waitForFunction(fn, arg, {timeout: ms});
        return true;
    } catch (e) {
        return false;
    }
}

const statusIs = (page, prefix) => until(page, (p) => document.getElementById('status').textContent.startsWith(p),
                                         prefix);

async function pickedFields(page)
{
    await until(page, () => document.getElementById('panel-selected').dataset.loaded === 'true');
    return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#pick-fields tbody tr')].map(
        (tr) => [tr.cells[0].textContent, tr.cells[1].textContent])));
}

async function tooltipAfterHover(page, x, y)
{
    await page.mouse.move(x, y);
    const shown = await until(page, () => !document.getElementById('tooltip').hidden, null, 2000);
    return shown ? page.evaluate(() => document.getElementById('tooltip').textContent) : '';
}

/** Page point at fraction @p k along the arrow of MIX (tid 1 at 100 us to tid 2 at 900 us). */
function arrowPoint(page, k)
{
    return page.evaluate(([frac]) => {
        const rows = window.slogViewer.viewer.rows;
        const at = (name, ns) => window.slogViewer.where(rows.name.indexOf(name), 0, ns);
        const a = at('tid 1', 100000);
        const b = at('tid 2', 900000);
        const mid = (p) => p.rowTop + p.rowHeight / 2;
        return {x: a.x + (b.x - a.x) * frac, y: mid(a) + (mid(b) - mid(a)) * frac};
    }, [k]);
}

async function checkArrowPick(page, t)
{
    const p = await arrowPoint(page, 0.55);
    const tip = await tooltipAfterHover(page, p.x, p.y);
    t.ok(tip.includes('msg') && tip.includes('\u2192'), `hovering an arrow's line: a tooltip (${JSON.stringify(tip)})`);
    await page.mouse.click(p.x, p.y);
    const f = await pickedFields(page);
    t.ok(f.kind === 'arrow' && f['to timeline']?.includes('tid 2') && f.duration?.startsWith('800,000 ns'),
         'clicking an arrow shows it: kind, both timelines, duration', JSON.stringify(f));
}

/** A pick= link to the arrow reopens it with its destination (and an older link without it too). */
async function checkArrowLink(browser, page, t)
{
    await until(page, () => /[#&]pick=2,/.test(location.hash));
    const hash = await page.evaluate(() => location.hash);
    const older = hash.replace(/(pick=(-?\d+,){5}-?\d+),-?\d+/, '$1');
    for (const [name, link] of [['a pick link', hash], ['an older pick link (no destination)', older]]) {
        const other = await browser.newPage({viewport: {width: 1400, height: 900}});
        await other.goto(page.url().replace(/#.*$/, '') + link);
        const f = await pickedFields(other);
        t.ok(f.kind === 'arrow' && f['to timeline']?.includes('tid 2'), `${name} to an arrow shows its destination`,
             `${link} ${JSON.stringify(f)}`);
        await other.close();
    }
}

async function checkCounterPick(page, t)
{
    const p = await page.evaluate(() => {
        const rows = window.slogViewer.viewer.rows;
        return window.slogViewer.where(rows.name.indexOf('mem.bytes'), 0, 500000);
    });
    const y = p.rowTop + p.rowHeight / 2;
    const tip = await tooltipAfterHover(page, p.x, y);
    t.ok(tip.includes('= 40'), `hovering a counter row: the sample in force (${JSON.stringify(tip)})`);
    await page.mouse.click(p.x, y);
    const f = await pickedFields(page);
    t.ok(f.kind === 'counter' && f.value === '40' && f.start?.startsWith('300,000 ns'),
         'clicking a counter row picks the sample in force', JSON.stringify(f));
}

/**
 * Zoomed in between two samples (300 and 700 us), a counter row still holds
 * the value in force (the window asks for it: held=1), as Perfetto draws it.
 */
async function checkCounterHeld(page, t)
{
    await page.evaluate(() => window.slogViewer.goto(400000, 600000));
    const p = await page.evaluate(() => {
        const rows = window.slogViewer.viewer.rows;
        return window.slogViewer.where(rows.name.indexOf('mem.bytes'), 0, 500000);
    });
    const tip = await tooltipAfterHover(page, p.x, p.rowTop + p.rowHeight / 2);
    t.ok(tip.includes('= 40'), `between two samples a counter row holds the value in force (${JSON.stringify(tip)})`);
    await page.evaluate(() => window.slogViewer.goto(0, 1100000));
}

/** Statistics of the whole trace (a link whose selection overhangs it: clamped). */
async function checkStats(page, t, duration)
{
    await page.evaluate(() => {
        location.hash = '#f=0&sel=-1000,999999999999';
    });
    await until(page, () => document.getElementById('panel-stats').dataset.loaded === 'true');
    const sel = (await page.evaluate(() => window.slogViewer.view())).selection;
    t.ok(sel && sel.t0 === 0 && sel.t1 === duration, `a selection is clamped to the trace (${JSON.stringify(sel)})`);
    await page.click('#tabs button[data-tab="stats"]');
    const rows = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#stats-table tbody tr')].map(
        (tr) => [tr.dataset.kind, [...tr.cells].slice(1).map((c) => c.textContent)])));
    t.ok(JSON.stringify(rows.arrow) === '["1","-","-","-","-","-"]', `arrow times shown as "-" (${rows.arrow})`);
    t.ok(JSON.stringify(rows.counter) === '["3","","","10","40","25"]',
         `counter min, max and mean shown (${rows.counter})`);
}

async function checkWindowLabel(page, t)
{
    await page.evaluate(() => window.slogViewer.goto(104001000, 104001001));
    const label = await page.evaluate(() => document.getElementById('window-label').textContent);
    const [a, b] = label.split(' \u2013 ');
    t.ok(a && b && a !== b, `the deepest window's ends differ in the toolbar (${label})`);
}

async function checkFileSwitch(page, t)
{
    await page.waitForTimeout(400); // the view written to the URL first
    await page.selectOption('#file', '1');
    t.ok(await until(page, () => /[#&]f=1(&|$)/.test(location.hash)), 'choosing a file writes it to the URL');
    t.ok(await statusIs(page, 'no drawables in this file'), 'an empty file says so in the status line');
    await page.goBack();
    t.ok(await until(page, () => window.slogViewer.viewer.f === 0 && /[#&]f=0(&|$)/.test(location.hash)),
         'back returns to the previous file');
}

async function checkLinks(browser, url, t)
{
    const page = await browser.newPage({viewport: {width: 1400, height: 900}});
    await page.goto(`${url}#f=0&hide=0-9`);
    t.ok(await statusIs(page, 'every category hidden'), 'a link hiding every category says so');
    await page.goto('about:blank');
    await page.goto(`${url}#f=9&t=0,100`);
    t.ok(await statusIs(page, 'error: no file 9'), 'a link to a file the server lacks is an error');
    const ready = await page.evaluate(() => Promise.race([
        window.slogViewer.ready.then(() => 'resolved', (e) => `rejected: ${e.message}`),
        new Promise((resolve) => setTimeout(() => resolve('pending'), 3000))]));
    t.ok(ready.startsWith('rejected: no file 9'), `then slogViewer.ready rejects with that error (${ready})`);
    await page.close();
}

/** Every check above; @p ctx {browser, t, serveExe, importExe, workDir, openViewer}. */
export async function checkKinds(ctx)
{
    const {browser, t, workDir} = ctx;
    const mix = importJson(ctx.importExe, workDir, 'kinds_mix', MIX);
    const empty = importJson(ctx.importExe, workDir, 'kinds_empty', {traceEvents: []});
    const server = await startServer(ctx.serveExe, [mix, empty]);
    try {
        const info = await (await fetch(`${server.url}api/info?f=0`)).json();
        const page = await ctx.openViewer(browser, server.url);
        await page.evaluate(() => window.slogViewer.goto(0, 1100000)); // the arrow and the samples
        await checkArrowPick(page, t);
        await checkArrowLink(browser, page, t);
        await checkSharedCounterRow(page, t);
        await checkCounterPick(page, t);
        await checkCounterHeld(page, t);
        await checkStats(page, t, Number(info.duration));
        await checkWindowLabel(page, t);
        await checkFileSwitch(page, t);
        t.ok(page.errors.length === 0, 'no page errors (kinds)', page.errors.join('\n'));
        await page.close();
        await checkLinks(browser, server.url, t);
        await checkSmallWindow(browser, server.url, t);
    } finally {
        await server.stop();
    }
}
